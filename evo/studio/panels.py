"""Endpoints of the page's Race and Designs panels: ``POST /api/race`` races the design against elites or
files with :mod:`evo.race` (each in its own world, from frame 0) and scores them with the page's plugin;
``GET /api/designs`` lists the start folder's model files, each read by evo's own readers."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evo.analysis.summary import finite
from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.io.soda_race import is_race_file
from evo.model import Creature
from evo.race import run_race
from evo.race.models import race_of_creatures
from evo.schema import setting
from evo.studio.api_design import plugins_of
from evo.studio.designs import design_of, model_object
from evo.studio.limits import StudioLimits
from evo.studio.routing import Routes
from evo.studio.session import StudioSession

__all__ = [
    "MAX_CONTENDERS",
    "MAX_DESIGNS",
    "RaceRequest",
    "ROUTES",
    "design_listing",
    "race_answer",
]

ROUTES = Routes()

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
    """A ``POST /api/race`` body, parsed by the schema engine (:func:`evo.studio.requests.parse_request`)."""

    contenders: tuple[tuple[Any, str], ...] = setting((), parse=_contenders, doc="the models and labels")
    frames: int = setting(_DEFAULT_FRAMES, low=1, doc="frames each contender runs")
    plugin: str = setting("distance", doc="the fitness plugin scored beside the race distance")
    params: dict[str, Any] | None = setting(None, doc="the plugin's parameters (None: its defaults)")

    def creatures(self, limits: StudioLimits) -> tuple[Creature, ...]:
        """The contenders' creatures, each checked as a model file is.

        Raises:
            EvoInputError: a model that is not valid (naming it); TooLarge: over the limits.
        """
        if not self.contenders:
            raise EvoInputError("missing", field="contenders")
        limits.check_frames(self.frames * len(self.contenders))
        return tuple(
            design_of(m, limits, source=f"contenders[{k}].model") for k, (m, _) in enumerate(self.contenders)
        )


def race_answer(request: RaceRequest, result: Any, scores: list[dict[str, Any]], counted_from: float) -> dict:
    """``{"frames", "plugin", "distance_counted_from_frame", "fitness_counted_from_frame", "contenders"}``,
    the contenders by rank, each ``{"index", "label", "name", "rank", "distance", "exploded", "fitness",
    "fitness_label"}`` (``index`` 1-based in the request's order).

    Args:
        request: the request.
        result: its :class:`~evo.race.running.RaceResult`.
        scores: (in request order) each contender's ``score_of`` answer: ``{"fitness", "objectives"}``.
        counted_from: the frame the plugin counts from (its ``settle_frames``; 0 without one).
    """
    rows = []
    for standing in result.standings:
        score = scores[standing.index - 1]
        pairs = zip(score["objectives"], score["fitness"], strict=False)
        rows.append(
            {
                "index": standing.index,
                "label": request.contenders[standing.index - 1][1],
                "name": standing.name,
                "rank": standing.rank,
                "distance": finite(standing.distance),
                "exploded": standing.exploded,
                "fitness": list(score["fitness"]),
                "fitness_label": ", ".join(f"{n} {v:.6g}" if v is not None else f"{n} -" for n, v in pairs),
            }
        )
    return {
        "frames": request.frames,
        "plugin": request.plugin,
        "distance_counted_from_frame": 0,
        "fitness_counted_from_frame": counted_from,
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


@ROUTES.post("/api/race", RaceRequest)
async def race(session: StudioSession, request: RaceRequest) -> dict[str, Any]:
    """Run the race here (evo's kernels, no plugin code) and score each contender as it raced in the
    session's worker, as ``/api/score`` scores a design (plugin code runs only in a child process)."""
    creatures = request.creatures(session.limits)
    result = await asyncio.to_thread(
        run_race, race_of_creatures(creatures, frames=request.frames), finish_x=None
    )
    scores = []
    for creature in result.creatures:
        payload = {
            "model": model_object(creature),
            "plugin": request.plugin,
            "params": request.params,
            "frames": request.frames,
            "limits": session.limits.to_dict(),
        }
        scores.append(
            await session.worker.call(
                "score",
                payload,
                what=f"plugin {request.plugin}",
                cwd=session.workdir,
                seconds=session.limits.child_seconds,
            )
        )
    return race_answer(request, result, scores, await _counted_from(session, request))


async def _counted_from(session: StudioSession, request: RaceRequest) -> float:
    """The frame the plugin counts from: its ``settle_frames`` (given, else its default), else 0."""
    given = (request.params or {}).get("settle_frames")
    if given is None:
        plugin = next((p for p in await plugins_of(session) if p["name"] == request.plugin), None)
        given = (plugin or {}).get("params", {}).get("settle_frames")
    valid = isinstance(given, int | float) and not isinstance(given, bool) and math.isfinite(given)
    return min(float(given), request.frames) if valid else 0.0


@ROUTES.get("/api/designs")
async def designs(session: StudioSession, _: None) -> dict[str, Any]:
    return await asyncio.to_thread(design_listing, session.folder, session.limits)
