"""The run endpoints: the run open in the studio (its listing, an elite as a design: read by the worker
child, as its config imports plugins) and Evolve (start, its state, Stop: the session's ``evolution``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.studio.evolving import EvolutionRunner
from evo.studio.requests import EliteRequest, EvolveRequest
from evo.studio.routing import Refused, Routes
from evo.studio.session import StudioSession

__all__ = ["ROUTES"]

ROUTES = Routes()


def _run_folder(session: StudioSession) -> Path:
    """The run evolved last in this session (once it has a generation), else the run the studio was
    started on."""
    if EvolutionRunner(session).has_generations():
        return session.evolved
    if session.run is None:
        raise Refused("no run is open: start evo studio on a run folder, or evolve one", 404)
    return session.run


async def _from_run(session: StudioSession, task: str, **payload: Any) -> dict[str, Any]:
    """What the worker reads of the run (its config names plugins: they are imported there, not here)."""
    folder = await asyncio.to_thread(_run_folder, session)
    try:
        return await session.worker.call(
            task, {"folder": str(folder), **payload}, what=f"the run {folder.name}", cwd=session.workdir,
            seconds=session.limits.child_seconds,
        )  # fmt: skip
    except EvoInputError as exc:
        raise Refused(str(exc), 404) from None


@ROUTES.get("/api/run")
async def run_listing(session: StudioSession, _: None) -> dict[str, Any]:
    return await _from_run(session, "listing")


@ROUTES.get("/api/run/elite/{index:int}", EliteRequest)
async def elite(session: StudioSession, request: EliteRequest) -> dict[str, Any]:
    return await _from_run(session, "elite", index=request.index)


@ROUTES.post("/api/evolve", EvolveRequest)
async def evolve_start(session: StudioSession, request: EvolveRequest) -> dict[str, Any]:
    seed = session.design(request.seed_model) if request.seed_model is not None else None
    return {"run": str(await EvolutionRunner(session).start(request.config, seed))}


@ROUTES.get("/api/evolve")
async def evolve_state(session: StudioSession, _: None) -> dict[str, Any]:
    return await asyncio.to_thread(EvolutionRunner(session).state)


@ROUTES.post("/api/evolve/stop")
async def evolve_stop(session: StudioSession, _: None) -> dict[str, Any]:
    runner = EvolutionRunner(session)
    runner.stop()
    return await asyncio.to_thread(runner.state)
