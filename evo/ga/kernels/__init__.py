"""The GA's compiled (numba) twins of its Python operators, draw for draw: crossover and repair, the
mutations, a whole pair brood in one call, the graph and gene loops they share, and numpy's PCG64 and
distributions they draw from. Beside :mod:`evo.sim.kernels`; checked in tests/ga/kernels/."""
