"""Compiling the simulator ahead of time: every integrator's kernels, for one creature and for a batch, into
numba's cache (``evo warm``; docs/runs.md, "evo run")."""

from __future__ import annotations

import time
from collections.abc import Sequence

from evo.model import Creature
from evo.sim.batch import MIN_LANES, simulate_batch
from evo.sim.simulate import simulate
from evo.sim.world import CONTACTS, INTEGRATORS, World

__all__ = ["warm_kernels", "warm_world"]


def _pair(mass: float) -> Creature:
    """Two masses joined by one muscle (``mass`` 1: the default physics, which has kernels of its own)."""
    return Creature(
        positions=[[0.0, 10.0], [10.0, 10.0]],
        velocities=[[0.0, 0.0], [0.0, 0.0]],
        fixed=[False, False],
        link_a=[0],
        link_b=[1],
        rest=[10.0],
        alpha=[0.5],
        phi=[0.0],
        omega=0.1,
        beta=0.5,
        mass=None if mass == 1.0 else [mass, mass],
    )


def warm_world(world: World) -> None:
    """Compile (or load from numba's cache) the kernels a run in ``world`` calls: one creature and a batch,
    with the default physics and without."""
    for mass in (1.0, 2.0):
        simulate(_pair(mass), world, 2 * world.dt, record_every=world.dt)
        simulate_batch([_pair(mass)] * MIN_LANES, world, 2 * world.dt, record_every=world.dt)


def warm_kernels(integrators: Sequence[str] = INTEGRATORS) -> list[tuple[str, float]]:
    """Compile (or load from numba's cache) every kernel a run of these integrators can call.

    Args:
        integrators: names of ``[world] integrator``; all of them by default.

    Returns:
        (integrator, seconds it took) for each, in order; seconds near 0 when the cache had them.
    """
    out = []
    for integrator in integrators:
        start = time.perf_counter()
        for contact in CONTACTS:
            warm_world(World(integrator=integrator, contact=contact))
        out.append((integrator, time.perf_counter() - start))
    return out
