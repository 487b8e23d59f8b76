"""The studio's door: every HTTP request and WebSocket needs the session token, a Host header naming the
served address (against DNS rebinding) and, when it says where it comes from, the server's own Origin;
JSON bodies are capped. A plain ASGI middleware (docs/studio.md)."""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

__all__ = ["ANY_ADDRESS", "COOKIE", "HEADER", "SAME_HOST", "Guard", "host_allowed"]

COOKIE = "evo_studio_token"
HEADER = "x-evo-token"
SAME_HOST = "same-host"  # in ``origins``: the Origin may be the request's own Host (the token still decides)
ANY_ADDRESS = "*"  # in ``hosts`` as ``*:PORT``: a server bound to every address takes any IP literal or
# localhost on that port (a domain name only when listed: a foreign one is DNS rebinding)


def _split_host(host: str) -> tuple[str, str]:
    """(name, port) of a Host header (``[::1]:8765`` gives ``('::1', '8765')``)."""
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name.lower(), rest.removeprefix(":")
    name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
    return name.lower(), port


def host_allowed(host: str | None, hosts: set[str]) -> bool:
    """Whether a request's Host header names this server: one of ``hosts`` (``NAME:PORT``), or for an
    ``*:PORT`` entry an IP literal or ``localhost`` with that port."""
    if not hosts:  # an application not yet listening (built in a test): no address to compare
        return True
    if host is None:
        return False
    name, port = _split_host(host.strip())
    shown = f"[{name}]" if ":" in name else name
    if f"{shown}:{port}" in hosts:
        return True
    if f"{ANY_ADDRESS}:{port}" not in hosts:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name == "localhost"


_SAFETY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class Guard:
    """Wraps an ASGI app: refuses (403) a request without the token, for a foreign Host or from a foreign
    Origin, and (413)
    a body over ``body_bytes``; ``GET /?token=T`` gets the token set as an HttpOnly, SameSite=Strict cookie
    named ``evo_studio_token_PORT`` (cookies ignore ports: two studios must not share one). Any of the
    header, a studio cookie or ``?token=`` may carry the token.

    Args:
        app: the ASGI application behind the door.
        token: the session's secret.
        origins: the origins (``http://HOST:PORT``) the server answers as, filled in once it listens;
            :data:`SAME_HOST` among them also lets a request whose Origin is its own Host header pass (a
            server bound to every address, reached by any of its names).
        body_bytes: the most bytes a request body may have.
        hosts: the Host headers (``NAME:PORT``, or ``*:PORT``: see :func:`host_allowed`) it answers to,
            filled in once it listens; a request naming another host is refused (403).
    """

    def __init__(
        self, app: Any, token: str, origins: set[str], body_bytes: int, *, hosts: set[str] | None = None
    ):
        self.app = app
        self.token = token
        self.origins = origins
        self.body_bytes = body_bytes
        self.hosts = hosts if hosts is not None else set()

    def _tokens_of(self, scope: Scope) -> list[str]:
        """Every token the request carries: the header, the studio cookies (any port's) and ``?token=``."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        tokens = [headers[HEADER]] if HEADER in headers else []
        if "cookie" in headers:
            cookie = SimpleCookie()
            try:
                cookie.load(headers["cookie"])
            except Exception:  # a malformed cookie header carries no token
                cookie = SimpleCookie()
            tokens += [morsel.value for name, morsel in cookie.items() if name.startswith(COOKIE)]
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return tokens + query.get("token", [])[:1]

    def _query_token(self, scope: Scope) -> str | None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return query["token"][0] if query.get("token") else None

    def refusal(self, scope: Scope) -> str | None:
        """Why the request is refused, or None when it may pass."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if not host_allowed(headers.get("host"), self.hosts):
            return (
                f"requests for host {headers.get('host', '')[:60]!r} are refused (not this server's address)"
            )
        origin = headers.get("origin")
        same_host = SAME_HOST in self.origins and origin == f"http://{headers.get('host', '')}"
        if origin is not None and origin not in self.origins and not same_host:
            return f"requests from origin {origin} are refused"
        expected = self.token.encode()
        if not any(hmac.compare_digest(t.encode(), expected) for t in self._tokens_of(scope)):
            return "a valid session token is needed (open the URL evo studio printed)"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        reason = self.refusal(scope)
        if reason is not None:
            if scope["type"] == "websocket":
                await receive()  # the websocket.connect message
                await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
            else:
                await _json(send, 403, {"error": reason})
            return
        if scope["type"] == "http":
            length = dict(scope.get("headers", [])).get(b"content-length")
            if length is not None and length.isdigit() and int(length) > self.body_bytes:
                await _drain(receive, limit=16 * self.body_bytes)  # so the client reads the answer
                await _json(send, 413, {"error": f"a request body may have at most {self.body_bytes} bytes"})
                return
            receive = self._capped(receive)
        if scope["type"] == "http":
            cookie = None
            if scope.get("path") == "/" and self._query_token(scope) == self.token:
                cookie = f"{COOKIE}_{(scope.get('server') or ('', 0))[1]}"
            send = self._with_headers(send, cookie)
        await self.app(scope, receive, send)

    def _capped(self, receive: Receive) -> Receive:
        """``receive`` that stops a body (sent in chunks, without a length) past ``body_bytes``."""
        seen = 0

        async def capped() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.body_bytes:
                    raise BodyTooLarge(self.body_bytes)
            return message

        return capped

    def _with_headers(self, send: Send, cookie: str | None) -> Send:
        """``send`` adding the safety headers to every answer (no sniffing, no framing, no Referer: the
        page's URL holds the token) and, with ``cookie``, the token cookie of that name."""
        extra = list(_SAFETY_HEADERS)
        if cookie is not None:
            extra.append(
                (b"set-cookie", f"{cookie}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode())
            )

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return sending


class BodyTooLarge(Exception):
    """A streamed request body over the cap (the API turns it into a 413)."""

    def __init__(self, limit: int):
        super().__init__(f"a request body may have at most {limit} bytes")


async def _drain(receive: Receive, limit: int) -> None:
    """Read and drop a request body (up to ``limit`` bytes)."""
    seen = 0
    while seen <= limit:
        message = await receive()
        seen += len(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body"):
            return


async def _json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
