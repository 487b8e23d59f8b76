"""How a studio module declares its HTTP endpoints: ``ROUTES = Routes()`` and ``@ROUTES.post(path, Record)``
on ``async def handler(session, request)``; the body is parsed into the record first, errors become one
JSON line with their status (400, 404, 409, 413, 501), and the handler returns a dict."""

from __future__ import annotations

import traceback
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evo.errors import EvoInputError
from evo.studio.guard import BodyTooLarge
from evo.studio.jobs import Busy
from evo.studio.limits import TooLarge
from evo.studio.requests import json_body, parse_request

__all__ = ["Endpoint", "Refused", "Routes", "routes_of"]

Handler = Callable[[Any, Any], Awaitable[Any]]


class Refused(EvoInputError):
    """A request refused with ``status`` (404 nothing there, 409 a conflict, 501 not in this version);
    ``extra`` keys go into the JSON answer beside ``error``."""

    def __init__(self, message: str, status: int, **extra: Any):
        super().__init__(message)
        self.status = status
        self.extra = extra


@dataclass(frozen=True)
class Endpoint:
    """One route: ``handler(session, record)`` where ``record`` is ``body`` (a record class of
    :mod:`evo.studio.requests`) built from the JSON body (POST) or the path parameters (GET), or None."""

    method: str
    path: str
    handler: Handler
    body: type | None


class Routes:
    """The endpoints of one module, in the order declared.

    Args:
        missing: None, or a function giving why the module's feature is not in this version of evo (then
            every endpoint answers 501 with it, before reading a body), else None.
    """

    def __init__(self, missing: Callable[[], str | None] | None = None) -> None:
        self.endpoints: list[Endpoint] = []
        self.missing = missing

    def _add(self, method: str, path: str, body: type | None) -> Callable[[Handler], Handler]:
        def decorate(handler: Handler) -> Handler:
            self.endpoints.append(Endpoint(method, path, handler, body))
            return handler

        return decorate

    def get(self, path: str, body: type | None = None) -> Callable[[Handler], Handler]:
        """Declare ``GET path`` (``body``: a record of the path's parameters)."""
        return self._add("GET", path, body)

    def post(self, path: str, body: type | None = None) -> Callable[[Handler], Handler]:
        """Declare ``POST path`` (``body``: the record of its JSON body)."""
        return self._add("POST", path, body)


def _error(message: str, status: int, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message.splitlines()[0] if message else "error", **extra}, status)


async def _record(endpoint: Endpoint, request: Request) -> Any:
    if endpoint.body is None:
        return None
    if endpoint.method == "GET":
        return parse_request(endpoint.body, dict(request.path_params))
    return parse_request(endpoint.body, json_body(await request.body()))


def _route(table: Routes, endpoint: Endpoint, session: Any) -> Route:
    async def answer(request: Request) -> Response:
        missing = table.missing() if table.missing is not None else None
        if missing is not None:
            return _error(missing, 501)
        try:
            out = await endpoint.handler(session, await _record(endpoint, request))
        except Refused as exc:
            return _error(str(exc), exc.status, **exc.extra)
        except Busy as exc:
            return _error(str(exc), 409)
        except (TooLarge, BodyTooLarge) as exc:
            return _error(str(exc), 413)
        except EvoInputError as exc:
            return _error(str(exc), 400)
        except RecursionError:  # a structure too deep for a reader evo calls
            return _error("the request is nested too deeply", 400)
        except Exception as exc:  # a bug: the page gets one line, the terminal the traceback
            traceback.print_exc()
            return _error(f"internal error: {type(exc).__name__}: {exc}"[:300], 500)
        return out if isinstance(out, Response) else JSONResponse(out)

    return Route(endpoint.path, answer, methods=[endpoint.method])


def routes_of(tables: Iterable[Routes], session: Any) -> list[Route]:
    """Starlette routes serving every endpoint of ``tables`` for ``session``."""
    return [_route(table, endpoint, session) for table in tables for endpoint in table.endpoints]
