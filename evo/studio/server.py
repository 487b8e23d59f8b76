"""Serving a studio session with uvicorn: bind, print the URL with its token as the first line of stdout,
and stop cleanly on Ctrl-C or SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

import uvicorn

from evo.studio import children
from evo.studio.app import create_app
from evo.studio.guard import ANY_ADDRESS, SAME_HOST
from evo.studio.session import StudioSession

__all__ = ["serve", "url_of"]


def url_of(host: str, port: int, token: str) -> str:
    """The URL the studio prints: ``http://HOST:PORT/?token=TOKEN`` (IPv6 hosts in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def _origins(host: str, port: int) -> set[str]:
    """The origins a page of this server has: its own address (and the loopback names for a loopback
    bind); a server bound to every address also takes a request whose Origin is its Host."""
    if host in ("0.0.0.0", "::", ""):
        return {SAME_HOST}
    shown = f"[{host}]" if ":" in host else host
    names = {shown}
    if host in ("127.0.0.1", "localhost", "::1"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    return {f"http://{name}:{port}" for name in names}


def _hosts(host: str, port: int) -> set[str]:
    """The Host headers a request to this server may carry: its address (and the loopback names for a
    loopback bind); bound to every address, any IP literal, localhost and this machine's own names."""
    if host in ("0.0.0.0", "::", ""):
        names = {socket.gethostname().lower(), socket.getfqdn().lower()}
        return {f"{ANY_ADDRESS}:{port}", *(f"{name}:{port}" for name in names if name)}
    return {origin.removeprefix("http://") for origin in _origins(host, port)}


def serve(
    studio: StudioSession,
    host: str = "127.0.0.1",
    port: int = 0,
    on_ready: Callable[[str], Any] | None = None,
) -> int:
    """Serve ``studio`` until Ctrl-C or SIGTERM.

    Args:
        studio: the session.
        host: the address to bind (127.0.0.1 unless told otherwise).
        port: the port; 0 picks a free one.
        on_ready: called with the URL once the server listens (default: print it, flushed).

    Returns:
        The exit status: 0 after Ctrl-C, 143 after SIGTERM.

    Raises:
        OSError: the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: a frames message and the status after it leave at once (without it
    # Nagle's algorithm holds the second until the page's delayed ACK, ~40 ms)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    port = sock.getsockname()[1]
    studio.origins.update(_origins(host, port))
    studio.hosts.update(_hosts(host, port))
    app = create_app(studio)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        ws="websockets-sansio",  # uvicorn >= 0.35: the websockets library without its deprecated legacy API
        ws_max_size=studio.limits.body_bytes,  # a WebSocket message may be as large as a JSON body, no larger
        timeout_graceful_shutdown=1,  # SIGTERM ends the studio within 2 s
    )
    server = _Server(config)
    received: list[int] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(
                signum, lambda s=signum: (received.append(s), setattr(server, "should_exit", True))
            )
        server_task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not server_task.done():
            await asyncio.sleep(0.01)
        if server.started:
            url = url_of(host, port, studio.token)
            (on_ready or _print_url)(url)
        await server_task
        await _ended_children()

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:  # not waiting for a thread still computing (an analysis): the caller exits without it
        loop.close()
    return 128 + signal.SIGTERM if received[:1] == [signal.SIGTERM] else 0


async def _ended_children(grace: float = 0.5) -> None:
    """Give the children asked to end (by the lifespan's end) up to ``grace`` s; an evolution finishes its
    checkpoint on its own after that (it was asked once and holds its folder's lock until it is done)."""
    children.end_all()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(grace):
            while children.running():
                await asyncio.sleep(0.05)


class _Server(uvicorn.Server):
    """uvicorn's server without its own signal handling (it re-raises the signal after shutting down,
    which would end the process by the signal instead of with a status)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _print_url(url: str) -> None:
    print(url, flush=True)
    sys.stdout.flush()
