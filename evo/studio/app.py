"""The studio's ASGI application: the page, the ``/api/*`` endpoints of :data:`ROUTE_TABLES` and ``/ws``,
behind the token, Host and Origin door; :func:`create_app` builds it for one :class:`StudioSession`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from evo.studio import api_design, api_runs, children, panels, refining
from evo.studio.guard import Guard
from evo.studio.routing import routes_of
from evo.studio.session import StudioSession
from evo.studio.socket import Stream

__all__ = ["ROUTE_TABLES", "Studio", "StudioSession", "create_app"]

Studio = StudioSession  # the name before the session grew its jobs; both work

# every module's endpoints (a new panel's module adds its ``ROUTES`` here)
ROUTE_TABLES = (api_design.ROUTES, api_runs.ROUTES, refining.ROUTES, panels.ROUTES)


def _static() -> Path:
    return Path(str(resources.files("evo.studio") / "static"))


async def _page(request: Request) -> Response:
    index = _static() / "index.html"
    if not index.is_file():
        return Response("the studio page is missing (evo/studio/static/index.html)", 404)
    return FileResponse(index, headers={"cache-control": "no-store"})


def _stream(session: StudioSession) -> Any:
    async def stream(websocket: WebSocket) -> None:
        await websocket.accept()
        player = Stream(websocket.send_text, session.limits)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data = message.get("text")
                await player.handle(data if data is not None else message.get("bytes") or b"")
        except WebSocketDisconnect:
            pass
        finally:
            await player.close()

    return stream


def create_app(session: StudioSession, tables: tuple = ROUTE_TABLES) -> Any:
    """The ASGI application of ``session``: Starlette routes wrapped in the :class:`~evo.studio.guard.Guard`.

    Args:
        session: the session (its ``origins`` and ``hosts`` may be filled in after this call, before the
            first request).
        tables: the endpoint tables served (:data:`ROUTE_TABLES`).

    Returns:
        An ASGI application.
    """
    routes = [
        Route("/", _page),
        *routes_of(tables, session),
        WebSocketRoute("/ws", _stream(session)),
        Mount("/static", StaticFiles(directory=_static(), check_dir=False), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        children.end_all()  # an evolution stops at its checkpoint; the other children end at once

    app = Starlette(routes=routes, lifespan=lifespan)
    return Guard(app, session.token, session.origins, session.limits.body_bytes, hosts=session.hosts)
