"""The studio's child processes (``python -m evo.studio.child``): plugin code is imported and run only
there, in the studio's process group, under a time limit; a child ends with the studio, even a killed one
(it watches its stdin pipe, and the kernel's parent-death signal); answers come as JSON lines."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError

__all__ = ["Child", "Worker", "call", "call_now", "end_all", "running", "spawn"]

LINE_BYTES = 64 * 1024 * 1024  # the longest answer line a child may send (a refined model is far less)
_LIVE: set[Child] = set()


class Child:
    """A running child: ``lines()`` yields its JSON answers; :meth:`say` writes a line to its stdin.

    Args:
        process: the asyncio process.
        what: what it does, as messages name it (``plugin distance``).
    """

    def __init__(self, process: asyncio.subprocess.Process, what: str):
        self.process = process
        self.what = what
        self.errors: deque[str] = deque(maxlen=20)
        self._stderr = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        async for line in self.process.stderr:
            text = line.decode("utf-8", "replace").rstrip()
            if text:
                self.errors.append(text)

    async def lines(self) -> AsyncIterator[dict[str, Any]]:
        """The child's answer lines, parsed, until it closes its stdout."""
        while True:
            try:
                line = await self.process.stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                raise EvoInputError(f"{self.what}: an answer over {LINE_BYTES} bytes") from None
            if not line:
                return
            with contextlib.suppress(ValueError):
                answer = json.loads(line)
                if isinstance(answer, dict):
                    yield answer

    def say(self, text: str) -> None:
        """Write one line to the child's stdin (``stop``); nothing once it has gone."""
        with contextlib.suppress(OSError, RuntimeError, AttributeError):
            self.process.stdin.write(text.encode() + b"\n")

    def alive(self) -> bool:
        return self.process.returncode is None

    def kill(self) -> None:
        """End it now: SIGTERM (a plugin child ends what it started, then itself), SIGKILL 2 s later."""
        with contextlib.suppress(ProcessLookupError):
            self.process.terminate()
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(2.0, self._kill_now)

    def _kill_now(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    async def wait(self) -> int:
        """Its exit status, once it has ended (its stderr read to the end)."""
        code = await self.process.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._stderr, 1.0)
        _LIVE.discard(self)
        return code

    def ended_message(self, code: int) -> str:
        """Why it gave no answer, in one line (its last line on stderr, else its status)."""
        last = self.errors[-1] if self.errors else ""
        return f"{self.what}: the process ended without an answer (status {code})" + (
            f": {last}" if last else ""
        )


async def spawn(task: str, payload: Any = None, *, what: str, cwd: Path, argv: tuple[str, ...] = ()) -> Child:
    """Start ``python -m evo.studio.child TASK PID ARGV...`` in ``cwd`` with ``payload`` as its first stdin
    line. Call it on the event loop's thread: the parent-death signal follows the thread that forked."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "evo.studio.child",
        task,
        str(os.getpid()),
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=str(cwd),
        limit=LINE_BYTES,
    )
    child = Child(process, what)
    _LIVE.add(child)
    if payload is not None:
        child.say(json.dumps(payload))
    return child


async def call(task: str, payload: Any, *, what: str, cwd: Path, seconds: float) -> Any:
    """The ``result`` a child answers for ``payload``, within ``seconds`` (then it is killed).

    Raises:
        EvoInputError: its ``error`` line, no answer in time, or an end without one.
    """
    child = await spawn(task, payload, what=what, cwd=cwd)
    try:
        async with asyncio.timeout(seconds):
            async for answer in child.lines():
                if "error" in answer:
                    raise EvoInputError(str(answer["error"]))
                if "result" in answer:
                    return answer["result"]
            code = await child.wait()
    except TimeoutError:
        raise EvoInputError(f"{what}: no answer within {seconds:g} s (the process was ended)") from None
    finally:
        child.kill()
        _LIVE.discard(child)
    raise EvoInputError(child.ended_message(code))


def call_now(task: str, payload: Any, *, what: str, cwd: Path, seconds: float) -> Any:
    """:func:`call` from code outside an event loop (the command line, before the studio serves)."""
    return asyncio.run(call(task, payload, what=what, cwd=cwd, seconds=seconds))


class Worker:
    """A child kept for many short calls (scores, the plugin list): one call at a time, each under its time
    limit (waiting included); a child that overruns is ended, one that died is replaced at the next call."""

    def __init__(self) -> None:
        self._child: Child | None = None
        self._lines: AsyncIterator[dict[str, Any]] | None = None
        self._lock = asyncio.Lock()

    async def call(self, task: str, payload: dict[str, Any], *, what: str, cwd: Path, seconds: float) -> Any:
        """The ``result`` the worker answers for ``payload`` (see :func:`call`).

        Raises:
            EvoInputError: its ``error`` line, no answer in time, or an end without one.
        """
        try:
            async with asyncio.timeout(seconds):
                async with self._lock:
                    return await self._ask(task, payload, what, cwd)
        except TimeoutError:
            self._drop()
            raise EvoInputError(f"{what}: no answer within {seconds:g} s (the process was ended)") from None

    async def _ask(self, task: str, payload: dict[str, Any], what: str, cwd: Path) -> Any:
        if self._child is None or not self._child.alive():
            self._child = await spawn("serve", None, what="the studio's worker", cwd=cwd)
            self._lines = self._child.lines()
        child = self._child
        child.say(json.dumps({"task": task, "payload": payload}))
        try:
            answer = await anext(self._lines)
        except StopAsyncIteration:
            self._drop()
            raise EvoInputError(child.ended_message(await child.wait()).replace(child.what, what)) from None
        if "error" in answer:
            raise EvoInputError(str(answer["error"]))
        return answer.get("result")

    def _drop(self) -> None:
        if self._child is not None:
            self._child.kill()
            _LIVE.discard(self._child)
        self._child = self._lines = None


def end_all() -> None:
    """Ask every child still running to end: a run stops at its checkpoint, the others end at once."""
    for child in list(_LIVE):
        child.say("stop")
        if child.process.stdin is not None:
            with contextlib.suppress(Exception):
                child.process.stdin.close()


def running() -> bool:
    """Whether a child is still running."""
    return any(child.alive() for child in _LIVE)
