"""The Refine bridge: ``/api/refine`` tunes the current body's gait with :func:`evo.refine` in a child process
(the session's ``refinement`` job), each CMA-ES generation reported as it ends, Stop at the next one;
where this version of evo has no ``evo.refine``, every route answers 501."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from evo.analysis.summary import finite
from evo.errors import EvoInputError
from evo.model import Creature
from evo.studio import children
from evo.studio.designs import model_object
from evo.studio.jobs import Job
from evo.studio.requests import RefineRequest
from evo.studio.routing import Routes
from evo.studio.session import StudioSession

try:
    from evo.refine import GENES, refine
except ImportError:  # a build of evo without refine: the routes say so
    GENES, refine = (), None

__all__ = ["ROUTES", "UNAVAILABLE", "refine_session", "run_refinement"]

UNAVAILABLE = "refine is not available in this version"
STOP_GRACE = 30.0  # s a refinement may take to reach its next generation's end (the first too) after Stop
ROUTES = Routes(missing=lambda: UNAVAILABLE if refine is None else None)


def refine_session() -> dict[str, Any]:
    """What ``/api/session`` says of refine: whether it is there, its message, its genes."""
    available = refine is not None
    return {
        "available": available,
        "message": None if available else UNAVAILABLE,
        "genes": list(GENES),
        "default_genes": list(GENES),
    }


def _progress(progress: Any) -> dict[str, Any]:
    return {
        "generation": int(progress.generation),
        "evaluations": int(progress.evaluations),
        "budget": int(progress.budget),
        "best_fitness": _float(progress.best_fitness),
        "sigma": _float(progress.sigma),
    }


def _float(x: Any) -> float | None:
    return finite(float(x)) if x is not None else None


def run_refinement(creature: Creature, options: dict[str, Any], answer: Any, stop: threading.Event) -> dict:
    """:func:`evo.refine` with ``options``, each generation's progress and best body sent with
    ``answer``; it stops at the next generation once ``stop`` is set (in the child process)."""

    def callback(progress: Any) -> bool:
        answer({"progress": _progress(progress), "best": model_object(progress.best)})
        return stop.is_set()

    options = {**options, "genes": tuple(options["genes"])}
    result = refine(creature, callbacks=(callback,), **options)
    return {
        "best": model_object(result.best),
        "fitness": _float(result.fitness),
        "start_fitness": _float(result.start_fitness),
        "evaluations": int(result.evaluations),
        "stopped": bool(result.stopped),
    }


def _answer(session: StudioSession) -> dict[str, Any]:
    """``{"state", "progress", "best_model", "message"}`` and, once done, the result's numbers."""
    job = session.refinement.snapshot()
    result = dict(job.result or {})
    best = result.pop("best", job.latest)
    return {
        "state": job.state,
        "progress": list(job.progress),
        "best_model": best,
        "message": job.message,
        **result,
    }


async def _watch(job: Job, child: children.Child) -> None:
    """Take the child's lines into ``job`` until it ends."""
    try:
        async for line in child.lines():
            if "progress" in line:
                job.report(line["progress"], latest=line.get("best"))
            elif "result" in line:
                job.end("done", "stopped" if line["result"]["stopped"] else "done", result=line["result"])
            elif "error" in line:
                job.end("failed", str(line["error"]))
    except EvoInputError as exc:
        job.end("failed", str(exc))
    code = await child.wait()
    if job.busy:
        job.end("failed", child.ended_message(code))


def _stopper(child: children.Child) -> Any:
    def stop() -> None:
        child.say("stop")
        asyncio.get_running_loop().call_later(STOP_GRACE, child.kill)

    return stop


@ROUTES.post("/api/refine", RefineRequest)
async def start(session: StudioSession, request: RefineRequest) -> dict[str, Any]:
    session.design(request.model)  # a bad design is a 400 here, before a process starts
    genes = request.genes if request.genes is not None else GENES
    unknown = [g for g in genes if g not in GENES]
    if unknown:
        raise EvoInputError(f"expected gene names ({', '.join(GENES)}), got {unknown[0]!r}", field="genes")
    options = {
        "fitness": request.plugin,
        "budget": request.budget,
        "genes": list(genes),
        "seed": request.seed,
    }
    session.refinement.claim()  # atomic: of N simultaneous presses exactly one gets past here
    payload = {"model": request.model, "options": options, "limits": session.limits.to_dict()}
    child = await children.spawn("refine", payload, what=f"refine with {request.plugin}", cwd=session.workdir)
    session.refinement.on_stop(_stopper(child))
    asyncio.ensure_future(_watch(session.refinement, child))
    return _answer(session)


@ROUTES.get("/api/refine")
async def state(session: StudioSession, _: None) -> dict[str, Any]:
    return _answer(session)


@ROUTES.post("/api/refine/stop")
async def stop(session: StudioSession, _: None) -> dict[str, Any]:
    session.refinement.stop()
    return _answer(session)
