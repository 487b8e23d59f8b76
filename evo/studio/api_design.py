"""The design endpoints: the session's constants, open, terrain, export, save, validate, analyze and score
(a score runs its plugin in a child process, under the studio's time limit)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
from typing import Any

from evo.errors import EvoInputError
from evo.io.models import save_model
from evo.sim import DEFAULT_FRAMES
from evo.sim.world import (
    CURSOR_MAX,
    DAMPING_PER_CURSOR2,
    GRAVITY_PER_CURSOR2,
    INTEGRATORS,
    STIFFNESS_PER_CURSOR2,
    World,
)
from evo.studio.designs import (
    export_text,
    model_object,
    open_terrain,
    open_upload,
    readable_again,
    work_of,
)
from evo.studio.evolving import default_config
from evo.studio.looking import analysis_of, validation_of
from evo.studio.refining import refine_session
from evo.studio.requests import ExportRequest, ModelRequest, SaveRequest, ScoreRequest, UploadRequest
from evo.studio.routing import Refused, Routes
from evo.studio.session import StudioSession

__all__ = ["ROUTES"]

ROUTES = Routes()


def _world_fields() -> dict[str, Any]:
    """Each scalar world field: its default value, doc, bounds and choices (from evo's own declaration)."""
    defaults = World().to_dict()
    return {
        f.name: {
            "value": defaults.get(f.name),
            "doc": f.metadata.get("doc", ""),
            "low": f.metadata.get("low"),
            "high": f.metadata.get("high"),
            "choices": list(f.metadata["choices"]) if f.metadata.get("choices") else None,
        }
        for f in dataclasses.fields(World)
        if f.name not in ("terrain", "terrain_file", "ground")
    }


def _cursors() -> dict[str, Any]:
    laws = {
        "gravity": GRAVITY_PER_CURSOR2,
        "damping": DAMPING_PER_CURSOR2,
        "stiffness": STIFFNESS_PER_CURSOR2,
    }
    return {
        name: {
            "coefficient": c,
            "field": name,
            "cursor_key": f"{name}_cursor",
            "max": CURSOR_MAX,
            "law": "value = coefficient * p**2",
        }
        for name, c in laws.items()
    }


async def plugins_of(session: StudioSession) -> list[dict[str, Any]]:
    """The plugins evo finds, as a child process found them (read once per session)."""
    if session.plugins is None:
        session.plugins = await session.worker.call(
            "plugins", {}, what="the plugin list", cwd=session.workdir, seconds=session.limits.child_seconds
        )
    return session.plugins


@ROUTES.get("/api/session")
async def session_info(session: StudioSession, _: None) -> dict[str, Any]:
    return {
        "model": model_object(session.model) if session.model is not None else None,
        "path": str(session.path) if session.path else None,
        "run": str(session.run) if session.run is not None else None,
        "limits": session.limits.to_dict(),
        "plugins": await plugins_of(session),
        "world": _world_fields(),
        "cursors": _cursors(),
        "integrators": list(INTEGRATORS),
        "config": default_config(),
        "can_save": session.folder is not None,
        "refine": refine_session(),
    }


def _upload(request: UploadRequest) -> str | bytes:
    if request.base64 is not None:
        try:
            return base64.b64decode(request.base64, validate=True)
        except binascii.Error:
            raise EvoInputError("not valid base64", field="base64") from None
    if request.text is None:
        raise EvoInputError('expected {"filename": str, "text": str} or {"filename": str, "base64": str}')
    return request.text


@ROUTES.post("/api/open", UploadRequest)
async def open_file(session: StudioSession, request: UploadRequest) -> dict[str, Any]:
    data = _upload(request)
    creature, kind, warnings = await asyncio.to_thread(open_upload, request.filename, data, session.limits)
    return {"model": model_object(creature), "format": kind, "warnings": warnings}


@ROUTES.post("/api/terrain", UploadRequest)
async def terrain(session: StudioSession, request: UploadRequest) -> dict[str, Any]:
    data = _upload(request)
    return {"terrain": await asyncio.to_thread(open_terrain, request.filename, data, session.limits)}


@ROUTES.post("/api/export", ExportRequest)
async def export(session: StudioSession, request: ExportRequest) -> dict[str, Any]:
    creature = session.design(request.model)
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in creature.name) or "creature"
    return {"filename": f"{stem}.{request.format}", "text": export_text(creature, request.format)}


@ROUTES.post("/api/save", SaveRequest)
async def save(session: StudioSession, request: SaveRequest) -> dict[str, Any]:
    if session.folder is None:
        raise Refused("the studio was not started on a path: download instead", 409)
    creature = session.design(request.model)
    target = session.confined(request.path, request.format)
    readable_again(creature, "xml" if target.suffix.lower() == ".xml" else "json")
    if target.exists() and not request.overwrite:
        raise Refused(f"{target} exists; save again to replace it", 409, exists=True)
    try:
        save_model(creature, target)
    except OSError as exc:
        raise EvoInputError(f"cannot write: {exc.strerror or exc}", source=str(target)) from None
    return {"path": str(target)}


@ROUTES.post("/api/validate", ModelRequest)
async def validate(session: StudioSession, request: ModelRequest) -> dict[str, Any]:
    return await asyncio.to_thread(validation_of, request.model, session.limits)


@ROUTES.post("/api/analyze", ModelRequest)
async def analyze(session: StudioSession, request: ModelRequest) -> dict[str, Any]:
    return await asyncio.to_thread(analysis_of, session.design(request.model))


@ROUTES.post("/api/score", ScoreRequest)
async def score(session: StudioSession, request: ScoreRequest) -> dict[str, Any]:
    creature = session.design(request.model)
    frames = request.frames if request.frames is not None else DEFAULT_FRAMES
    session.limits.check_frames(frames)
    session.limits.check_work(work_of(creature), frames)
    payload = {**dataclasses.asdict(request), "frames": frames, "limits": session.limits.to_dict()}
    what = f"plugin {request.plugin}"
    return await session.worker.call(
        "score", payload, what=what, cwd=session.workdir, seconds=session.limits.child_seconds
    )
