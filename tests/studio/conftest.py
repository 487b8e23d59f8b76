"""A real ``evo studio`` server for the studio's tests: ``python -m evo studio TARGET --port 0 --no-open`` in
a subprocess, its URL read from the first line of stdout, stopped with SIGTERM afterwards."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the studio's tests need the studio extra")
pytest.importorskip("uvicorn", reason="the studio's tests need the studio extra")

REPO = Path(__file__).resolve().parents[2]
CLASSIC = REPO / "genomes" / "classic"


@dataclass
class StudioServer:
    """A running studio: ``url`` (with the token, as printed), ``base`` (``http://127.0.0.1:PORT``),
    ``token``, and the process (``stderr`` lines collected in ``errors``)."""

    url: str
    base: str
    token: str
    process: subprocess.Popen
    errors: list[str] = field(default_factory=list)

    def request(
        self, method: str, path: str, body: Any = None, *, token: bool = True, headers: dict | None = None
    ) -> tuple[int, Any]:
        """(status, parsed JSON or text) of one HTTP request; the token goes in ``X-Evo-Token``."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if token:
            request.add_header("X-Evo-Token", self.token)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read().decode()
        try:
            return status, json.loads(text)
        except json.JSONDecodeError:
            return status, text

    def get(self, path: str, **kwargs: Any) -> tuple[int, Any]:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any, **kwargs: Any) -> tuple[int, Any]:
        return self.request("POST", path, body, **kwargs)

    @contextlib.contextmanager
    def socket(self, *, token: bool = True, origin: str | None = None) -> Iterator[Any]:
        """A WebSocket on ``/ws`` (websockets' sync client), JSON in and out (``send_json``)."""
        from websockets.sync.client import connect

        url = self.base.replace("http://", "ws://") + "/ws"
        headers = {"X-Evo-Token": self.token} if token else {}
        with connect(url, additional_headers=headers, origin=origin, open_timeout=30, max_size=None) as ws:
            yield _JsonSocket(ws)

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int:
        """Send ``signum`` and wait; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout=timeout)


class _JsonSocket:
    def __init__(self, ws: Any):
        self.ws = ws

    def send_json(self, message: dict) -> None:
        self.ws.send(json.dumps(message))

    def receive_json(self, timeout: float = 60) -> dict:
        return json.loads(self.ws.recv(timeout=timeout))

    def receive_until(self, kind: str, timeout: float = 60) -> list[dict]:
        """Messages up to and including the first of type ``kind``."""
        out = []
        while True:
            message = self.receive_json(timeout)
            out.append(message)
            if message["type"] == kind:
                return out


def start_studio(
    *args: str, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None
) -> StudioServer:
    """Start ``evo studio ARGS --port 0 --no-open`` and wait for its URL (first line of stdout); ``env``
    adds to the environment."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "evo", "studio", *args, "--port", "0", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
        env=env,
    )
    line = process.stdout.readline().strip()
    if not line.startswith("http://"):
        process.kill()
        raise RuntimeError(f"evo studio did not start: {line!r} {process.stderr.read()}")
    base, _, token = line.partition("/?token=")
    server = StudioServer(url=line, base=base, token=token, process=process)

    def collect(stream: Any, into: list[str]) -> None:
        for text in stream:
            into.append(text.rstrip("\n"))

    threading.Thread(target=collect, args=(process.stderr, server.errors), daemon=True).start()
    return server


@pytest.fixture
def studio_factory() -> Iterator[Any]:
    """``studio_factory(*args, cwd=None, env=None)`` starts a studio (on a model, a run folder or a
    folder); every one started is stopped with SIGTERM at the end of the test."""
    started: list[StudioServer] = []

    def factory(
        *args: str, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None
    ) -> StudioServer:
        server = start_studio(*args, cwd=cwd, env=env)
        started.append(server)
        return server

    yield factory
    for server in started:
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.stop()
        if server.process.poll() is None:
            server.process.kill()


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StudioServer]:
    """A studio started on a copy of genomes/classic/crawler.xml in a temporary folder (saves go there),
    shared by the tests of a module."""
    folder = tmp_path_factory.mktemp("studio")
    model = folder / "crawler.xml"
    model.write_bytes((CLASSIC / "crawler.xml").read_bytes())
    server = start_studio(str(model), cwd=folder)
    yield server
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.stop()
    if server.process.poll() is None:
        server.process.kill()
