"""The Refine bridge: ``/api/refine`` tunes the current body's gait with ``evo.refine`` when this version
has it, in a thread, its progress read live; without it every refine route answers 501."""

from __future__ import annotations

import importlib
import math
import threading
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evo.errors import EvoInputError
from evo.studio.designs import design_of, model_object
from evo.studio.limits import StudioLimits

__all__ = ["UNAVAILABLE", "refine_function", "refine_routes"]

UNAVAILABLE = "refine is not available in this version"


def refine_function() -> Any:
    """``evo.refine`` when this version of evo has it, else None."""
    try:
        module = importlib.import_module("evo.refine")
    except ImportError:
        return None
    return getattr(module, "refine", None)


def _finite(x: Any) -> float | None:
    try:
        value = float(x)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class _Refinement:
    """One refinement in a thread; each CMA-ES generation's report is kept for ``GET /api/refine``."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.stop_asked = False
        self.progress: list[dict[str, Any]] = []
        self.best: Any = None
        self.state = "idle"
        self.message = ""

    def callback(self, report: Any) -> bool:
        self.progress.append(
            {
                "evaluations": int(report.evaluations),
                "budget": int(report.budget),
                "best_fitness": _finite(report.best_fitness),
            }  # fmt: skip
        )
        self.best = report.best
        return self.stop_asked

    def run(self, refine: Any, creature: Any, plugin: str, budget: int, genes: Any) -> None:
        try:
            result = refine(creature, fitness=plugin, budget=budget, genes=genes, callbacks=(self.callback,))
            self.best = getattr(result, "best", getattr(result, "creature", self.best))
            self.state = "done"
        except Exception as exc:  # shown in the page as one line
            self.state, self.message = "failed", str(exc).splitlines()[0] if str(exc) else type(exc).__name__

    def answer(self) -> dict[str, Any]:
        best = None
        if self.best is not None:
            try:
                best = model_object(self.best)
            except Exception:
                best = None
        return {"state": self.state, "progress": self.progress, "best_model": best, "message": self.message}


def refine_routes(limits: StudioLimits) -> list[Route]:
    """``POST /api/refine``, ``GET /api/refine`` and ``POST /api/refine/stop``."""
    refinement = _Refinement()

    async def start(request: Request) -> Response:
        refine = refine_function()
        if refine is None:
            return JSONResponse({"error": UNAVAILABLE}, 501)
        if refinement.thread is not None and refinement.thread.is_alive():
            return JSONResponse({"error": "a refinement is running: stop it first"}, 409)
        try:
            body = await request.json()
            creature = design_of(body.get("model"), limits)
            plugin, budget = body.get("plugin", "distance"), body.get("budget", 200)
            if not isinstance(budget, int) or budget < 1:
                raise EvoInputError(f"budget: expected an integer >= 1, got {budget!r}")
        except (EvoInputError, ValueError, AttributeError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        refinement.__init__()
        refinement.state = "running"
        refinement.thread = threading.Thread(
            target=refinement.run, args=(refine, creature, plugin, budget, body.get("genes")), daemon=True
        )
        refinement.thread.start()
        return JSONResponse(refinement.answer())

    async def state(request: Request) -> Response:
        if refine_function() is None:
            return JSONResponse({"error": UNAVAILABLE}, 501)
        return JSONResponse(refinement.answer())

    async def stop(request: Request) -> Response:
        if refine_function() is None:
            return JSONResponse({"error": UNAVAILABLE}, 501)
        refinement.stop_asked = True
        return JSONResponse(refinement.answer())

    return [
        Route("/api/refine", start, methods=["POST"]),
        Route("/api/refine", state, methods=["GET"]),
        Route("/api/refine/stop", stop, methods=["POST"]),
    ]
