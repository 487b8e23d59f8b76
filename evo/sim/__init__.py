"""The simulator: world parameters and a numba kernel, as pure functions of arrays."""

from evo.sim.batch import simulate_batch, topology_key
from evo.sim.ground import Ground
from evo.sim.limits import Limits
from evo.sim.simulate import DEFAULT_FRAMES, PackedCreature, Trajectory, pack, simulate, warm_up
from evo.sim.world import World

__all__ = [
    "DEFAULT_FRAMES",
    "Ground",
    "Limits",
    "PackedCreature",
    "Trajectory",
    "World",
    "pack",
    "simulate",
    "simulate_batch",
    "topology_key",
    "warm_up",
]
