"""The Refine bridge: ``/api/refine`` tunes the current body's gait with :func:`evo.refine` in a thread, its
progress read live, Stop at the next CMA-ES generation; without ``evo.refine`` every route answers 501."""

from __future__ import annotations

import importlib
import json
import math
import threading
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evo.errors import EvoInputError
from evo.studio.designs import design_of, model_object
from evo.studio.guard import BodyTooLarge
from evo.studio.limits import StudioLimits

__all__ = ["MAX_BUDGET", "UNAVAILABLE", "refine_function", "refine_genes", "refine_routes"]

UNAVAILABLE = "refine is not available in this version"
MAX_BUDGET = 20_000  # evaluations one refinement may ask for


def refine_function() -> Any:
    """``evo.refine`` (the function) when this version of evo has it, else None."""
    try:
        module = importlib.import_module("evo.refine")
    except ImportError:
        return None
    return getattr(module, "refine", None)


def refine_genes() -> list[str]:
    """The genes ``evo.refine`` tunes (all by default), or [] without it."""
    try:
        return list(importlib.import_module("evo.refine").GENES)
    except (ImportError, AttributeError):
        return []


def _finite(x: Any) -> float | None:
    try:
        value = float(x)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class _Refinement:
    """One refinement in a thread; each CMA-ES generation's progress is kept for ``GET /api/refine``."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.stop_asked = False
        self.progress: list[dict[str, Any]] = []
        self.best: Any = None
        self.state = "idle"
        self.message = ""
        self.result: dict[str, Any] = {}

    def callback(self, progress: Any) -> bool:
        self.progress.append(
            {
                "generation": int(getattr(progress, "generation", len(self.progress))),
                "evaluations": int(progress.evaluations),
                "budget": int(progress.budget),
                "best_fitness": _finite(progress.best_fitness),
                "sigma": _finite(getattr(progress, "sigma", None)),
            }
        )
        self.best = progress.best
        return self.stop_asked

    def run(self, refine: Any, creature: Any, options: dict[str, Any]) -> None:
        try:
            result = refine(creature, callbacks=(self.callback,), **options)
            self.best = result.best
            self.result = {
                "fitness": _finite(result.fitness),
                "start_fitness": _finite(result.start_fitness),
                "evaluations": int(result.evaluations),
                "stopped": bool(result.stopped),
            }
            self.state = "done"
            self.message = "stopped" if result.stopped else "done"
        except Exception as exc:  # shown in the page as one line
            self.state, self.message = "failed", str(exc).splitlines()[0] if str(exc) else type(exc).__name__

    def answer(self) -> dict[str, Any]:
        best = model_object(self.best) if self.best is not None else None
        return {
            "state": self.state,
            "progress": self.progress,
            "best_model": best,
            "message": self.message,
            **self.result,
        }


def _options(body: Any, limits: StudioLimits) -> tuple[Any, dict[str, Any]]:
    """(creature, keyword arguments of ``evo.refine``) of a ``POST /api/refine`` body.

    Raises:
        EvoInputError: a bad model, plugin, budget, gene list or seed.
    """
    if not isinstance(body, dict):
        raise EvoInputError("the request body must be a JSON object")
    creature = design_of(body.get("model"), limits)
    plugin = body.get("plugin", "distance")
    budget = body.get("budget", 200)
    genes = body.get("genes", refine_genes())
    seed = body.get("seed", 0)
    if not isinstance(plugin, str):
        raise EvoInputError(f"plugin: expected a plugin name, got {plugin!r}")
    if not isinstance(budget, int) or isinstance(budget, bool) or not 1 <= budget <= MAX_BUDGET:
        raise EvoInputError(f"budget: expected an integer in 1..{MAX_BUDGET} (evaluations), got {budget!r}")
    if not isinstance(genes, list) or not all(isinstance(g, str) for g in genes):
        raise EvoInputError(
            f"genes: expected a list of gene names ({', '.join(refine_genes())}), got {genes!r}"
        )
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise EvoInputError(f"seed: expected an integer >= 0, got {seed!r}")
    return creature, {"fitness": plugin, "budget": budget, "genes": tuple(genes), "seed": seed}


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
            body = json.loads(await request.body())
        except BodyTooLarge as exc:
            return JSONResponse({"error": str(exc)}, 413)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deeply
            return JSONResponse({"error": "the request body is not valid JSON"}, 400)
        try:
            creature, options = _options(body, limits)
        except (EvoInputError, ValueError) as exc:
            return JSONResponse({"error": str(exc).splitlines()[0]}, 400)
        refinement.__init__()
        refinement.state = "running"
        refinement.thread = threading.Thread(
            target=refinement.run, args=(refine, creature, options), daemon=True
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
