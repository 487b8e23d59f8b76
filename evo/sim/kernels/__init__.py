"""The numba kernels: pure functions of arrays, one time loop per call."""
