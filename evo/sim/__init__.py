"""The simulator: world parameters and a numba kernel, as pure functions of arrays."""

from evo.sim.ground import Ground
from evo.sim.simulate import PackedCreature, Trajectory, pack, simulate
from evo.sim.world import World

__all__ = ["Ground", "PackedCreature", "Trajectory", "World", "pack", "simulate"]
