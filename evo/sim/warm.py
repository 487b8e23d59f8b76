"""Compiling the simulator ahead of time: every integrator's kernels, for one creature and for a batch, into
numba's cache (``evo warm``; docs/runs.md, "evo run")."""

from __future__ import annotations

import time
from collections.abc import Sequence

from evo.sim.batch import MIN_LANES, simulate_batch
from evo.sim.simulate import simulate, tiny_creature
from evo.sim.world import CONTACTS, INTEGRATORS, World

__all__ = ["warm_kernels", "warm_world"]


def warm_world(world: World) -> None:
    """Compile (or load from numba's cache) the kernels a run in ``world`` calls: one creature and a batch,
    with the default physics and without."""
    for mass in (1.0, 2.0):
        simulate(tiny_creature(mass), world, 2 * world.dt, record_every=world.dt)
        simulate_batch([tiny_creature(mass)] * MIN_LANES, world, 2 * world.dt, record_every=world.dt)


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
