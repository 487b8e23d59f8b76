"""What a studio request or WebSocket message may hold: one frozen dataclass per kind, each body parsed by
the schema engine (:mod:`evo.schema`) before a handler sees it; a bad one is one line naming the field."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from evo.errors import EvoInputError
from evo.schema import check_fields, setting

__all__ = [
    "MAX_DEPTH",
    "DragMessage",
    "EliteRequest",
    "EvolveRequest",
    "GrabMessage",
    "LoadMessage",
    "ModelRequest",
    "PlayMessage",
    "RefineRequest",
    "ReleaseMessage",
    "SaveRequest",
    "ScoreRequest",
    "StepMessage",
    "UploadRequest",
    "json_body",
    "parse_request",
]

MAX_DEPTH = 64  # nesting a body may have (a model is ~6 deep; its meta is the user's own JSON)
MAX_BUDGET = 20_000  # evaluations one refinement may ask for
MAX_FPS = 6000.0  # records/s a play may ask for
_PX = 1e9  # px: a pointer farther out than this is no pointer


@dataclasses.dataclass(frozen=True)
class ModelRequest:
    """``/api/validate``, ``/api/analyze`` and a WebSocket ``load``: a JSON model object."""

    model: Any = setting(None, doc="the design, as a .json model file holds it")


@dataclasses.dataclass(frozen=True)
class UploadRequest:
    """``/api/open`` and ``/api/terrain``: a file's name and its text (or its bytes in base64)."""

    filename: str = setting("", doc="the file's name (its extension picks the format)")
    text: str | None = setting(None, doc="the file's text")
    base64: str | None = setting(None, doc="the file's bytes, base64-encoded")


@dataclasses.dataclass(frozen=True)
class ExportRequest:
    """``/api/export``: a design and the format to write it in."""

    model: Any = setting(None, doc="the design")
    format: str = setting("json", choices=("json", "xml"), doc="the file format")


@dataclasses.dataclass(frozen=True)
class SaveRequest:
    """``/api/save``: a design, where (relative to the start folder) and whether to replace a file."""

    model: Any = setting(None, doc="the design")
    path: str | None = setting(None, doc="a file name under the start folder (default: the opened file)")
    format: str | None = setting(None, choices=("json", "xml", None), doc="the file format")
    overwrite: bool = setting(False, doc="replace an existing file")


@dataclasses.dataclass(frozen=True)
class ScoreRequest:
    """``/api/score``: a fitness plugin on a design."""

    model: Any = setting(None, doc="the design")
    plugin: str = setting("", doc="a plugin name (GET /api/session lists them)")
    params: dict[str, Any] | None = setting(None, doc="the plugin's parameters")
    frames: int | None = setting(None, low=1, doc="frames to simulate (default 3000)")


@dataclasses.dataclass(frozen=True)
class EvolveRequest:
    """``POST /api/evolve``: a run config's TOML text and the design that seeds it."""

    config: str = setting("", doc="the TOML text of a run config")
    seed_model: Any = setting(None, doc="the design seeding the population, or null")


@dataclasses.dataclass(frozen=True)
class RefineRequest:
    """``POST /api/refine``: what :func:`evo.refine` tunes, with what and for how long."""

    model: Any = setting(None, doc="the design")
    plugin: str = setting("distance", doc="a plugin name")
    budget: int = setting(200, low=1, high=MAX_BUDGET, doc="evaluations", why="the studio's cap")
    genes: tuple[str, ...] | None = setting(None, doc="gene names (default: all)")
    seed: int = setting(0, low=0, doc="CMA-ES's seed")


@dataclasses.dataclass(frozen=True)
class EliteRequest:
    """``GET /api/run/elite/{index}``: a row of the run's listing."""

    index: int = setting(0, low=0, doc="the row")


@dataclasses.dataclass(frozen=True)
class LoadMessage(ModelRequest):
    """``{"type": "load", "model": ...}``: a new design to play."""


@dataclasses.dataclass(frozen=True)
class PlayMessage:
    """``{"type": "play", "fps": ...}``: play at ``fps`` records per second."""

    fps: float = setting(60.0, low=0, high=MAX_FPS, open_low=True, doc="records/s")


@dataclasses.dataclass(frozen=True)
class StepMessage:
    """``{"type": "step", "frames": ...}``: play ``frames`` more records."""

    frames: int = setting(1, low=1, doc="records")


@dataclasses.dataclass(frozen=True)
class GrabMessage:
    """``{"type": "grab", "mass": i, "x": px, "y": px}``: hold a mass at the pointer."""

    mass: int = setting(0, low=0, doc="the mass's index")
    x: float = setting(0.0, low=-_PX, high=_PX, doc="px")
    y: float = setting(0.0, low=-_PX, high=_PX, doc="px")


@dataclasses.dataclass(frozen=True)
class DragMessage:
    """``{"type": "drag", "x": px, "y": px}``: move the pointer holding a mass."""

    x: float = setting(0.0, low=-_PX, high=_PX, doc="px")
    y: float = setting(0.0, low=-_PX, high=_PX, doc="px")


@dataclasses.dataclass(frozen=True)
class ReleaseMessage:
    """``{"type": "release", "vx": px/frame, "vy": px/frame}``: let go with the pointer's velocity."""

    vx: float = setting(0.0, low=-_PX, high=_PX, doc="px/frame")
    vy: float = setting(0.0, low=-_PX, high=_PX, doc="px/frame")


_REQUIRED = {
    ModelRequest: ("model",),
    LoadMessage: ("model",),
    UploadRequest: ("filename",),
    ExportRequest: ("model",),
    SaveRequest: ("model",),
    ScoreRequest: ("model", "plugin"),
    EvolveRequest: ("config",),
    RefineRequest: ("model",),
    GrabMessage: ("mass", "x", "y"),
    DragMessage: ("x", "y"),
}


def _problem_at(value: Any) -> str | None:
    """Where ``value`` (parsed JSON) nests deeper than :data:`MAX_DEPTH` or holds a string that is not
    Unicode text (a lone surrogate such as ``"\\ud800"``), walked without recursion; else None."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{where or 'the body'}: nested more than {MAX_DEPTH} deep"
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return f"{where or 'the body'}: a string that is not Unicode text (a lone surrogate)"
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                stack.append((key, where, depth + 1))
                stack.append((sub, f"{where}.{key}" if where else str(key), depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, f"{where}[{i}]", depth + 1) for i, sub in enumerate(item))
    return None


def json_body(data: bytes | str) -> dict[str, Any]:
    """A request body or WebSocket message: a JSON object of Unicode text, at most :data:`MAX_DEPTH` deep.

    Raises:
        EvoInputError: anything else, in one line.
    """
    try:
        body = json.loads(data)
    except json.JSONDecodeError as exc:
        raise EvoInputError(f"not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError):  # not UTF-8, or nested too deeply for the parser
        raise EvoInputError("not valid JSON") from None
    if not isinstance(body, dict):
        raise EvoInputError("expected a JSON object")
    problem = _problem_at(body)
    if problem is not None:
        raise EvoInputError(problem)
    return body


def parse_request(cls: type, values: Mapping[str, Any]) -> Any:
    """``cls`` (one of this module's records) built from ``values`` by the schema engine.

    Raises:
        EvoInputError: an unknown key (the closest named), a missing one, or a value of the wrong kind.
    """
    checked = check_fields(cls, values, where="")
    for name in _REQUIRED.get(cls, ()):
        if name not in checked:
            raise EvoInputError("missing", field=name)
    return cls(**checked)
