"""The run endpoints: the run open in the studio (its listing, an elite as a design) and Evolve (start, its
state, Stop), the evolution being the session's ``evolution`` job."""

from __future__ import annotations

import asyncio
from typing import Any

from evo.errors import EvoInputError
from evo.studio.designs import model_object
from evo.studio.evolving import EvolutionRunner
from evo.studio.requests import EliteRequest, EvolveRequest
from evo.studio.routing import Refused, Routes
from evo.studio.runs import RunView
from evo.studio.session import StudioSession

__all__ = ["ROUTES"]

ROUTES = Routes()


def _run_view(session: StudioSession) -> RunView:
    """The run evolved last in this session (once it has a generation), else the run the studio was
    started on."""
    if EvolutionRunner(session).has_generations():
        return RunView(session.evolved)
    if session.run is None:
        raise Refused("no run is open: start evo studio on a run folder, or evolve one", 404)
    return RunView(session.run)


def _listing(session: StudioSession) -> dict[str, Any]:
    try:
        return _run_view(session).listing()
    except EvoInputError as exc:
        raise Refused(str(exc), 404) from None


def _elite(session: StudioSession, index: int) -> dict[str, Any]:
    try:
        return {"model": model_object(_run_view(session).elite(index))}
    except EvoInputError as exc:
        raise Refused(str(exc), 404) from None
    except IndexError:
        raise Refused(f"no elite {index} in this run", 404) from None


@ROUTES.get("/api/run")
async def run_listing(session: StudioSession, _: None) -> dict[str, Any]:
    return await asyncio.to_thread(_listing, session)


@ROUTES.get("/api/run/elite/{index:int}", EliteRequest)
async def elite(session: StudioSession, request: EliteRequest) -> dict[str, Any]:
    return await asyncio.to_thread(_elite, session, request.index)


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
