"""The studio's ASGI application: the page, ``/api/*`` (JSON) and ``/ws`` behind the token and Origin
door. :func:`create_app` builds it for one session (:class:`Studio`); routes and messages: docs/studio.md."""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import dataclasses
import json
import secrets
import traceback
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from evo.errors import EvoInputError
from evo.io.models import save_model
from evo.model import Creature
from evo.sim.world import (
    CURSOR_MAX,
    DAMPING_PER_CURSOR2,
    GRAVITY_PER_CURSOR2,
    INTEGRATORS,
    STIFFNESS_PER_CURSOR2,
    World,
)
from evo.studio.designs import design_of, export_text, format_of, model_object, open_terrain, open_upload
from evo.studio.evolving import EvolutionRunner, default_config
from evo.studio.guard import BodyTooLarge, Guard
from evo.studio.limits import StudioLimits, TooLarge
from evo.studio.looking import analysis_of, plugin_list, score_of, validation_of
from evo.studio.panels import panel_routes
from evo.studio.refining import UNAVAILABLE, refine_function, refine_genes, refine_routes
from evo.studio.runs import RunView
from evo.studio.socket import Stream

__all__ = ["Studio", "create_app"]


@dataclass
class Studio:
    """One studio session: what it was started on and its secret.

    Attributes:
        model: the design it opened (a model file), or None.
        path: that model file, or None.
        folder: the folder saves are confined to (the model's folder, or the folder it was started on).
        run: the run folder it opened, or None.
        token: the session token (``secrets.token_urlsafe(32)``).
        limits: what one request may ask.
        origins: the origins the server answers as (``http://HOST:PORT``), filled in once it listens.
    """

    model: Creature | None = None
    path: Path | None = None
    folder: Path | None = None
    run: Path | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    limits: StudioLimits = field(default_factory=StudioLimits)
    origins: set[str] = field(default_factory=set)


def _static() -> Path:
    return Path(str(resources.files("evo.studio") / "static"))


def _world_fields() -> dict[str, Any]:
    """Each scalar world field: its default value, doc, bounds and choices (from evo's own declaration)."""
    defaults = World().to_dict()
    out = {}
    for f in dataclasses.fields(World):
        value = defaults.get(f.name)
        if f.name in ("terrain", "terrain_file", "ground"):
            continue
        out[f.name] = {
            "value": value,
            "doc": f.metadata.get("doc", ""),
            "low": f.metadata.get("low"),
            "high": f.metadata.get("high"),
            "choices": list(f.metadata["choices"]) if f.metadata.get("choices") else None,
        }
    return out


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


def _error(exc: Exception) -> JSONResponse:
    status = 413 if isinstance(exc, TooLarge | BodyTooLarge) else 400
    return JSONResponse({"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}, status)


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except json.JSONDecodeError as exc:
        raise EvoInputError(f"the request body is not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError):  # not UTF-8, or nested too deeply
        raise EvoInputError("the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise EvoInputError("the request body must be a JSON object")
    return body


def create_app(studio: Studio) -> Any:
    """The ASGI application of ``studio``: Starlette routes wrapped in the :class:`~evo.studio.guard.Guard`.

    Args:
        studio: the session (its ``origins`` may be filled in after this call, before the first request).

    Returns:
        An ASGI application.
    """
    limits = studio.limits
    runner = EvolutionRunner(limits)
    runs = RunView(studio.run) if studio.run is not None else None

    def api(handler):
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except (EvoInputError, BodyTooLarge) as exc:
                return _error(exc)
            except Exception as exc:  # a bug: the page gets one line, the terminal the traceback
                traceback.print_exc()
                return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"[:300]}, 500)

        return endpoint

    async def page(request: Request) -> Response:
        index = _static() / "index.html"
        if not index.is_file():
            return Response("the studio page is missing (evo/studio/static/index.html)", 404)
        return FileResponse(index, headers={"cache-control": "no-store"})

    async def session(request: Request) -> Response:
        return JSONResponse(
            {
                "model": model_object(studio.model) if studio.model is not None else None,
                "path": str(studio.path) if studio.path else None,
                "run": str(runs.folder) if runs is not None else None,
                "limits": limits.to_dict(),
                "plugins": plugin_list(),
                "world": _world_fields(),
                "cursors": _cursors(),
                "integrators": list(INTEGRATORS),
                "config": default_config(),
                "can_save": studio.folder is not None,
                "refine": {
                    "available": refine_function() is not None,
                    "message": None if refine_function() is not None else UNAVAILABLE,
                    "genes": refine_genes(),
                    "default_genes": refine_genes(),
                },
            }
        )

    async def upload(request: Request) -> tuple[str, str | bytes]:
        body = await _body(request)
        filename, data = body.get("filename"), body.get("text")
        if isinstance(body.get("base64"), str):
            try:
                data = base64.b64decode(body["base64"], validate=True)
            except binascii.Error:
                raise EvoInputError("base64: not valid base64") from None
        if not isinstance(filename, str) or not isinstance(data, str | bytes):
            raise EvoInputError('expected {"filename": str, "text": str} or {"filename": str, "base64": str}')
        return filename, data

    async def open_file(request: Request) -> Response:
        creature, kind, warnings = await asyncio.to_thread(open_upload, *await upload(request), limits)
        return JSONResponse({"model": model_object(creature), "format": kind, "warnings": warnings})

    async def terrain(request: Request) -> Response:
        return JSONResponse(
            {"terrain": await asyncio.to_thread(open_terrain, *await upload(request), limits)}
        )

    async def export(request: Request) -> Response:
        body = await _body(request)
        creature = design_of(body.get("model"), limits)
        kind = body.get("format", "json")
        text = export_text(creature, kind)
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in creature.name) or "creature"
        return JSONResponse({"filename": f"{stem}.{kind}", "text": text})

    async def save(request: Request) -> Response:
        body = await _body(request)
        if studio.folder is None:
            return JSONResponse({"error": "the studio was not started on a path: download instead"}, 409)
        creature = design_of(body.get("model"), limits)
        target = _confined(studio, body.get("path"), body.get("format"))
        try:
            if target.exists() and body.get("overwrite") is not True:
                answer = {"error": f"{target} exists; save again to replace it", "exists": True}
                return JSONResponse(answer, 409)
            save_model(creature, target)
        except OSError as exc:
            raise EvoInputError(f"cannot write: {exc.strerror or exc}", source=str(target)) from None
        return JSONResponse({"path": str(target)})

    async def validate(request: Request) -> Response:
        body = await _body(request)
        return JSONResponse(await asyncio.to_thread(validation_of, body.get("model"), limits))

    async def analyze(request: Request) -> Response:
        body = await _body(request)
        return JSONResponse(await asyncio.to_thread(analysis_of, design_of(body.get("model"), limits)))

    async def score(request: Request) -> Response:
        body = await _body(request)
        creature = design_of(body.get("model"), limits)
        plugin = body.get("plugin")
        if not isinstance(plugin, str):
            raise EvoInputError("plugin: expected a plugin name (GET /api/session lists them)")
        answer = await asyncio.to_thread(
            score_of, creature, plugin, body.get("params"), body.get("frames"), limits
        )
        return JSONResponse(answer)

    def _run_view() -> RunView:
        """The run evolved last in this session (once it has a generation), else the run the studio was
        started on."""
        view = RunView(runner.folder) if runner.has_generations() else runs
        if view is None:
            raise EvoInputError("no run is open: start evo studio on a run folder, or evolve one")
        return view

    async def run_listing(request: Request) -> Response:
        try:
            view = await asyncio.to_thread(_run_view)
            return JSONResponse(await asyncio.to_thread(view.listing))
        except EvoInputError as exc:
            return JSONResponse({"error": str(exc)}, 404)

    async def elite(request: Request) -> Response:
        try:
            view = await asyncio.to_thread(_run_view)
            creature = await asyncio.to_thread(view.elite, int(request.path_params["index"]))
        except EvoInputError as exc:
            return JSONResponse({"error": str(exc)}, 404)
        except (ValueError, IndexError):
            return JSONResponse({"error": f"no elite {request.path_params['index']} in this run"}, 404)
        return JSONResponse({"model": model_object(creature)})

    async def evolve_start(request: Request) -> Response:
        body = await _body(request)
        if runner.busy:
            return JSONResponse({"error": "an evolution is running: stop it first"}, 409)
        config = body.get("config")
        if not isinstance(config, str):
            raise EvoInputError("config: expected the TOML text of a run config")
        seed = design_of(body.get("seed_model"), limits) if body.get("seed_model") is not None else None
        errors = runner.check(config, seed)
        if errors:
            return JSONResponse({"error": errors[0], "errors": errors}, 400)
        folder = runner.start(config, seed, base=studio.folder)
        return JSONResponse({"run": str(folder)})

    async def evolve_state(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(runner.state))

    async def evolve_stop(request: Request) -> Response:
        runner.stop()
        return JSONResponse(runner.state())

    async def stream(websocket: WebSocket) -> None:
        await websocket.accept()
        player = Stream(websocket.send_text, limits)
        try:
            while True:
                await player.handle(await websocket.receive_text())
        except WebSocketDisconnect:
            pass
        finally:
            await player.close()

    routes = [
        Route("/", page),
        Route("/api/session", api(session)),
        Route("/api/open", api(open_file), methods=["POST"]),
        Route("/api/terrain", api(terrain), methods=["POST"]),
        Route("/api/export", api(export), methods=["POST"]),
        Route("/api/save", api(save), methods=["POST"]),
        Route("/api/validate", api(validate), methods=["POST"]),
        Route("/api/analyze", api(analyze), methods=["POST"]),
        Route("/api/score", api(score), methods=["POST"]),
        Route("/api/run", api(run_listing)),
        Route("/api/run/elite/{index}", api(elite)),
        Route("/api/evolve", api(evolve_start), methods=["POST"]),
        Route("/api/evolve", api(evolve_state), methods=["GET"]),
        Route("/api/evolve/stop", api(evolve_stop), methods=["POST"]),
        *refine_routes(limits),
        *panel_routes(limits, lambda: studio.folder),
        WebSocketRoute("/ws", stream),
        Mount("/static", StaticFiles(directory=_static(), check_dir=False), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        runner.shutdown()

    app = Starlette(routes=routes, lifespan=lifespan)
    return Guard(app, studio.token, studio.origins, limits.body_bytes)


def _confined(studio: Studio, path: Any, kind: Any) -> Path:
    """The file a save writes: ``path`` (relative to the start folder, or the opened model's file),
    refused when it leaves that folder."""
    folder = studio.folder.resolve()
    if path is None:
        if studio.path is None:
            raise EvoInputError("path: expected a file name (the studio was started on a folder)")
        target = studio.path.resolve()
    elif isinstance(path, str) and path.strip() and "\x00" not in path:
        try:
            target = (folder / path).resolve()
        except OSError as exc:  # a name too long, a symlink loop
            raise EvoInputError(f"path: cannot use {path!r}: {exc.strerror or exc}") from None
    else:
        raise EvoInputError(f"path: expected a file name, got {path!r}")
    if kind is not None and kind not in ("json", "xml"):
        raise EvoInputError(f"format: expected 'json' or 'xml', got {kind!r}")
    if kind is not None and format_of(target.name) != kind:
        target = target.with_suffix(f".{kind}")
    if not target.is_relative_to(folder):
        raise EvoInputError(f"path: {path} is outside the folder the studio was started on ({folder})")
    return target
