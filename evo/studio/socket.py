"""The ``/ws`` simulation stream: load, play, pause, step, reset, grab, drag and release in; frames, status
and errors out. Every frame is computed by :class:`evo.studio.player.Player` (docs/studio.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from typing import Any

import numpy as np

from evo.analysis.stability import check_step
from evo.errors import EvoInputError
from evo.studio.designs import design_of, work_of
from evo.studio.jobs import Job
from evo.studio.limits import StudioLimits
from evo.studio.looking import step_warning
from evo.studio.player import Player
from evo.studio.requests import (
    DragMessage,
    GrabMessage,
    LoadMessage,
    PlayMessage,
    ReleaseMessage,
    StepMessage,
    json_body,
    parse_request,
)

__all__ = ["Stream", "frames_message", "parse_message", "stability_warning"]

_TICK = 1 / 60  # s between two sends while playing
_INLINE_WORK = (
    200_000  # link-frames simulated on the event loop itself (well under 10 ms); more go to a thread
)


def frames_message(first: int, positions: np.ndarray) -> str:
    """The ``frames`` message: positions (records, masses, 2) px as nested lists; floats printed with repr
    (they round-trip exactly), NaN and infinities of a blown-up run as null."""
    if np.isfinite(positions).all():
        rows = positions.tolist()
    else:
        rows = [[[v if math.isfinite(v) else None for v in p] for p in frame] for frame in positions.tolist()]
    return json.dumps({"type": "frames", "first": first, "positions": rows}, separators=(",", ":"))


def stability_warning(player: Player) -> str | None:
    """A one-line warning when the design's step may be unstable (as ``evo validate`` warns), else None."""
    check = check_step(player.creature, player.world)
    return None if check.stable else step_warning(check)


_MESSAGES = {
    "load": LoadMessage,
    "play": PlayMessage,
    "pause": None,
    "step": StepMessage,
    "reset": None,
    "grab": GrabMessage,
    "drag": DragMessage,
    "release": ReleaseMessage,
}


def parse_message(data: str | bytes) -> tuple[str, Any]:
    """(type, record) of one client message: a JSON object whose ``type`` names a kind, its other keys
    that kind's record (:mod:`evo.studio.requests`).

    Raises:
        EvoInputError: anything else, in one line.
    """
    if isinstance(data, bytes):
        raise EvoInputError("a binary WebSocket message: the studio takes JSON text messages")
    message = json_body(data)
    kind = message.pop("type", None)
    if not isinstance(kind, str):
        raise EvoInputError("expected a JSON object with a 'type'")
    if kind not in _MESSAGES:
        raise EvoInputError(f"unknown message type {kind!r}; expected one of {', '.join(_MESSAGES)}")
    record = _MESSAGES[kind]
    return kind, parse_request(record, message) if record is not None else None


class Stream:
    """One WebSocket's playback: call :meth:`handle` for each message; frames are sent with ``send``. A
    play is a background :class:`~evo.studio.jobs.Job` (pause stops it); a step is sent in parts of at
    most ``limits.message_values`` numbers and stops early when a new message pauses or replaces it.

    Args:
        send: a coroutine function sending one text message.
        limits: the studio's limits.
    """

    def __init__(self, send: Any, limits: StudioLimits):
        self.send = send
        self.limits = limits
        self.player: Player | None = None
        self.warning: str | None = None
        self.playback = Job("a playback")
        self.fps = 60.0
        self._task: asyncio.Task | None = None
        self._lock = asyncio.Lock()  # one change of the player at a time (a play's step runs in a thread)

    @property
    def playing(self) -> bool:
        return self.playback.busy and not self.playback.stop_asked

    async def handle(self, data: str | bytes) -> None:
        """Act on one client message (text, or bytes: refused); a bad one is answered with an ``error``."""
        try:
            await self._dispatch(*parse_message(data))
        except (EvoInputError, ValueError, RecursionError) as exc:
            await self._error(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    async def _dispatch(self, kind: str, message: Any) -> None:
        if kind == "load":  # a new design (an edit): frame 0 at once; a play goes on with it
            creature = design_of(message.model, self.limits)
            was_playing = self.playing
            await self._stop_playing()
            self.player = Player(creature, self.limits)
            self.warning = stability_warning(self.player)
            await self.send(frames_message(0, self.player.positions(0)[None]))
            if was_playing:
                self._start_playing()
            await self.status()
            return
        player = self._player()
        if kind == "play":
            self.fps = message.fps
            if not self.playing:
                await self._stop_playing()
                self._start_playing()
            await self.status()
        elif kind == "pause":
            await self._stop_playing()
            await self.status()
        elif kind == "step":
            self.limits.check_frames(message.frames)
            self.limits.check_values(message.frames, player.creature.n_masses)
            self.limits.check_work(work_of(player.creature), message.frames * player.step)
            await self._advance(message.frames)
            await self.status()
        elif kind == "reset":
            await self._stop_playing()
            async with self._lock:
                player.reset()
            await self.send(frames_message(0, player.positions(0)[None]))
            await self.status()
        elif kind == "grab":
            async with self._lock:
                player.grab(message.mass, message.x, message.y)
        elif kind == "drag":
            async with self._lock:
                player.drag(message.x, message.y)
        else:  # release
            async with self._lock:
                player.release(message.vx, message.vy)

    def _player(self) -> Player:
        if self.player is None:
            raise EvoInputError("no design loaded: send a 'load' message first")
        return self.player

    async def _advance(self, count: int) -> None:
        """Play ``count`` records, sent in parts of at most ``limits.message_values`` numbers."""
        player = self._player()
        part = max(1, self.limits.message_values // (2 * player.creature.n_masses))

        def advance(records: int) -> str | None:
            first, positions = player.advance(records)
            return frames_message(first, positions) if len(positions) else None

        left = count
        while left > 0:
            records = min(left, part)
            left -= records
            async with self._lock:
                if self.player is not player:  # a new design replaced it meanwhile
                    return
                if player.creature.n_links * records < _INLINE_WORK:
                    message = advance(records)  # quicker than a hand-over to a thread and back
                else:
                    message = await asyncio.to_thread(advance, records)
            if message is None:
                return
            await self.send(message)

    def _start_playing(self) -> None:
        self.playback.claim()
        self._task = asyncio.create_task(self._play())
        self.playback.on_stop(None)

    async def _play(self) -> None:
        """Send frames at ``fps`` until paused, exploded or at the frame limit."""
        player = self._player()
        start, sent, fps = time.perf_counter(), 0, self.fps
        try:
            while not self.playback.stop_asked and not player.status().end:
                now = time.perf_counter()
                if self.fps != fps:  # a new speed counts from now
                    start, sent, fps = now - 1 / self.fps, 0, self.fps
                due = int((now - start) * fps) + 1 - sent
                most = max(1, math.ceil(fps / 4))  # a quarter of a second of frames per send
                if due > most:  # behind (a large design): play on slower rather than send a burst
                    start, due = now - (sent + most) / fps, most
                if due > 0:
                    await self._advance(due)
                    sent += due
                    self.playback.report(player.frame)
                await asyncio.sleep(_TICK)
        except Exception as exc:  # a step that fails ends the play, with a message (if the socket is open)
            self.playback.end("failed", str(exc))
            with contextlib.suppress(Exception):
                await self._error(str(exc))
            return
        ended_by_itself = not self.playback.stop_asked
        self.playback.end("done", "ended" if ended_by_itself else "paused")
        if ended_by_itself:  # an explosion, the frame limit: say so
            await self.status()

    async def _stop_playing(self) -> None:
        """End the play loop at its next tick (not cancelled: a step under way in a thread finishes first)."""
        self.playback.stop()
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def status(self) -> None:
        """Send the ``status`` message."""
        player = self._player()
        state = player.status()
        await self.send(
            json.dumps(
                {
                    "type": "status",
                    "frame": state.frame,
                    "step": player.step,
                    "playing": self.playing,
                    "exploded": state.exploded,
                    "exploded_frame": state.exploded_frame,
                    "stability": {"warning": self.warning},
                }
            )
        )

    async def _error(self, text: str) -> None:
        await self.send(json.dumps({"type": "error", "error": text}))

    async def close(self) -> None:
        """Stop playing (the socket closed)."""
        with contextlib.suppress(Exception):
            await self._stop_playing()
