"""Endpoints of the page's Race and Designs panels: ``POST /api/race`` races the design against elites or
files with :mod:`evo.race` (each in its own world, from frame 0) and scores them with the page's plugin;
``GET /api/designs`` lists the start folder's model files, each read by evo's own readers."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.io.soda_race import is_race_file
from evo.model import Creature
from evo.race import run_race
from evo.race.models import race_of_creatures, scores_of
from evo.schema import check_fields, setting
from evo.studio.designs import design_of, model_object
from evo.studio.guard import BodyTooLarge
from evo.studio.limits import StudioLimits, TooLarge

__all__ = [
    "MAX_CONTENDERS",
    "MAX_DESIGNS",
    "RaceRequest",
    "design_listing",
    "panel_routes",
    "race_answer",
]

MAX_CONTENDERS = 12  # models of one race from the page
MAX_DESIGNS = 60  # model files listed (by name); a folder with more says so
_DEFAULT_FRAMES = 3000
_MAX_BYTES = 2 * 1024 * 1024  # a larger model file is listed as too large, not read


def _contenders(value: Any, *, source: str | None, field: str) -> tuple[tuple[Any, str], ...]:
    """``[{"model": ..., "label": "..."}, ...]`` as (model object, label) pairs; the models are checked
    when the race is built (:meth:`RaceRequest.creatures`)."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CONTENDERS:
        raise EvoInputError(f"expected a list of 1 to {MAX_CONTENDERS} {{model, label}} objects", field=field)
    out = []
    for k, entry in enumerate(value):
        if not isinstance(entry, dict) or set(entry) - {"model", "label"} or "model" not in entry:
            raise EvoInputError("expected an object {model, label}", field=f"{field}[{k}]")
        label = entry.get("label", "")
        out.append((entry["model"], label[:120] if isinstance(label, str) else ""))
    return tuple(out)


@dataclass(frozen=True)
class RaceRequest:
    """A ``POST /api/race`` body, parsed by the schema engine (:func:`parse`)."""

    contenders: tuple[tuple[Any, str], ...] = setting((), parse=_contenders, doc="the models and labels")
    frames: int = setting(_DEFAULT_FRAMES, low=1, doc="frames each contender runs")
    plugin: str = setting("distance", doc="the fitness plugin scored beside the race distance")
    params: dict[str, Any] | None = setting(None, doc="the plugin's parameters (None: its defaults)")

    @classmethod
    def parse(cls, body: Any) -> RaceRequest:
        """Raises:
        EvoInputError: a body that is not ``{"contenders": [{"model", "label"}...], "frames", "plugin",
            "params"}``, in one line naming the field."""
        if not isinstance(body, dict):
            raise EvoInputError("the request body must be a JSON object")
        values = check_fields(cls, body, where="")
        if "contenders" not in values:
            raise EvoInputError("missing", field="contenders")
        return cls(**values)

    def creatures(self, limits: StudioLimits) -> tuple[Creature, ...]:
        """The contenders' creatures, each checked as a model file is.

        Raises:
            EvoInputError: a model that is not valid (naming it); TooLarge: over the limits.
        """
        limits.check_frames(self.frames * len(self.contenders))
        return tuple(
            design_of(m, limits, source=f"contenders[{k}].model") for k, (m, _) in enumerate(self.contenders)
        )


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def race_answer(request: RaceRequest, limits: StudioLimits) -> dict[str, Any]:
    """``{"frames", "plugin", "distance_counted_from_frame", "fitness_counted_from_frame", "contenders"}``,
    the contenders by rank, each ``{"index", "label", "name", "rank", "distance", "exploded", "fitness",
    "fitness_label"}`` (``index`` 1-based in the request's order)."""
    result = run_race(race_of_creatures(request.creatures(limits), frames=request.frames), finish_x=None)
    scores = scores_of(result, request.plugin, request.params)
    rows = []
    for standing in result.standings:
        score = scores[standing.index - 1]
        rows.append(
            {
                "index": standing.index,
                "label": request.contenders[standing.index - 1][1],
                "name": standing.name,
                "rank": standing.rank,
                "distance": _finite(standing.distance),
                "exploded": standing.exploded,
                "fitness": list(score.fitness),
                "fitness_label": score.label,
            }
        )
    return {
        "frames": request.frames,
        "plugin": request.plugin,
        "distance_counted_from_frame": 0,
        "fitness_counted_from_frame": scores[0].counted_from if scores else 0,
        "contenders": rows,
    }


def design_listing(folder: Path | None, limits: StudioLimits) -> dict[str, Any]:
    """``{"folder", "designs": [{"file", "name", "model" | "error"}], "more"}``: the folder's model files
    by name (at most :data:`MAX_DESIGNS`; ``more`` counts the rest); a file evo cannot read, or one over
    the studio's limits, comes with its one-line ``error`` instead of a model."""
    if folder is None:
        return {"folder": None, "designs": [], "more": 0}
    files = sorted(
        p
        for p in folder.iterdir()
        if p.suffix.lower() in (".json", ".xml") and p.is_file() and not is_race_file(p)
    )
    designs = []
    for path in files[:MAX_DESIGNS]:
        row: dict[str, Any] = {"file": path.name, "name": path.stem}
        try:
            if path.stat().st_size > _MAX_BYTES:
                raise EvoInputError(f"over {_MAX_BYTES // (1024 * 1024)} MB", source=path.name)
            creature = load_model(path)
            limits.check_model(creature.n_masses, creature.n_links)
            row.update(name=creature.name, model=model_object(creature))
        except (EvoInputError, OSError) as exc:
            row["error"] = str(exc).splitlines()[0]
        designs.append(row)
    return {"folder": str(folder), "designs": designs, "more": max(0, len(files) - MAX_DESIGNS)}


def panel_routes(limits: StudioLimits, folder: Callable[[], Path | None]) -> list[Route]:
    """``POST /api/race`` and ``GET /api/designs``; ``folder()`` is the start folder (None: the studio was
    started on no path)."""

    async def race(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
            parsed = RaceRequest.parse(body)
            return JSONResponse(await asyncio.to_thread(race_answer, parsed, limits))
        except (BodyTooLarge, TooLarge) as exc:
            return JSONResponse({"error": str(exc).splitlines()[0]}, 413)
        except EvoInputError as exc:
            return JSONResponse({"error": str(exc).splitlines()[0]}, 400)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deeply
            return JSONResponse({"error": "the request body is not valid JSON"}, 400)

    async def designs(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(design_listing, folder(), limits))

    return [Route("/api/race", race, methods=["POST"]), Route("/api/designs", designs)]
