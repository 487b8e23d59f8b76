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
from evo.studio.designs import design_of
from evo.studio.limits import StudioLimits
from evo.studio.looking import step_warning
from evo.studio.player import Player

__all__ = ["Stream", "frames_message", "stability_warning"]

_TICK = 1 / 60  # s between two sends while playing
_MAX_FPS = 6000.0  # records/s a play may ask for
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


class Stream:
    """One WebSocket's playback: call :meth:`handle` for each message; frames are sent with ``send``.

    Args:
        send: a coroutine function sending one text message.
        limits: the studio's limits.
    """

    def __init__(self, send: Any, limits: StudioLimits):
        self.send = send
        self.limits = limits
        self.player: Player | None = None
        self.warning: str | None = None
        self.playing = False
        self.fps = 60.0
        self._task: asyncio.Task | None = None
        self._lock = asyncio.Lock()  # one change of the player at a time (a play's step runs in a thread)

    async def handle(self, text: str) -> None:
        """Act on one client message; a bad one is answered with an ``error`` message."""
        try:
            message = json.loads(text)
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise EvoInputError("expected a JSON object with a 'type'")
            await self._dispatch(message)
        except json.JSONDecodeError as exc:
            await self._error(f"not valid JSON: {exc.msg}")
        except RecursionError:
            await self._error("not valid JSON: nested too deeply")
        except (EvoInputError, ValueError, TypeError, KeyError, OverflowError) as exc:
            await self._error(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "load":  # a new design (an edit): frame 0 at once; a play goes on with it
            creature = design_of(message.get("model"), self.limits)
            was_playing = self.playing
            await self._stop_playing()
            self.player = Player(creature, self.limits)
            self.warning = stability_warning(self.player)
            await self.send(frames_message(0, self.player.positions(0)[None]))
            if was_playing:
                self.playing = True
                self._task = asyncio.create_task(self._play())
            await self.status()
            return
        if kind not in ("play", "pause", "step", "reset", "grab", "drag", "release"):
            raise EvoInputError(f"unknown message type {kind!r}")
        player = self._player()
        if kind == "play":
            fps = float(message.get("fps", 60))
            if not 0 < fps <= _MAX_FPS:
                raise EvoInputError(f"fps: expected a number in (0, {_MAX_FPS:g}], got {fps!r}")
            self.fps = fps
            if not self.playing:
                self.playing = True
                self._task = asyncio.create_task(self._play())
            await self.status()
        elif kind == "pause":
            await self._stop_playing()
            await self.status()
        elif kind == "step":
            frames = int(message.get("frames", 1))
            if frames < 1:
                raise EvoInputError(f"frames: expected an integer >= 1, got {frames}")
            self.limits.check_frames(frames)
            await self._advance(frames)
            await self.status()
        elif kind == "reset":
            await self._stop_playing()
            async with self._lock:
                player.reset()
            await self.send(frames_message(0, player.positions(0)[None]))
            await self.status()
        elif kind == "grab":
            mass, x, y = int(message["mass"]), _finite(message, "x"), _finite(message, "y")
            async with self._lock:
                player.grab(mass, x, y)
        elif kind == "drag":
            x, y = _finite(message, "x"), _finite(message, "y")
            async with self._lock:
                player.drag(x, y)
        elif kind == "release":
            vx, vy = _finite(message, "vx", 0.0), _finite(message, "vy", 0.0)
            async with self._lock:
                player.release(vx, vy)
        else:
            raise EvoInputError(f"unknown message type {kind!r}")

    def _player(self) -> Player:
        if self.player is None:
            raise EvoInputError("no design loaded: send a 'load' message first")
        return self.player

    async def _advance(self, count: int) -> None:
        player = self._player()

        def advance() -> str | None:
            first, positions = player.advance(count)
            return frames_message(first, positions) if len(positions) else None

        async with self._lock:
            if player.creature.n_links * count < _INLINE_WORK:
                message = advance()  # quicker than a hand-over to a thread and back
            else:
                message = await asyncio.to_thread(advance)
        if message is not None:
            await self.send(message)

    async def _play(self) -> None:
        """Send frames at ``fps`` until paused, exploded or at the frame limit."""
        player = self._player()
        start, sent, fps = time.perf_counter(), 0, self.fps
        try:
            while self.playing and not player.status().end:
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
                await asyncio.sleep(_TICK)
        except Exception as exc:  # a step that fails ends the play, with a message (if the socket is open)
            with contextlib.suppress(Exception):
                await self._error(str(exc))
            return
        if self.playing:  # it ended by itself (an explosion, the frame limit): say so
            self.playing = False
            await self.status()

    async def _stop_playing(self) -> None:
        """End the play loop at its next tick (not cancelled: a step under way in a thread finishes first)."""
        self.playing = False
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


def _finite(message: dict[str, Any], key: str, default: float | None = None) -> float:
    """``message[key]`` as a finite float (px or px/frame): a NaN or infinite pointer poisons the frames."""
    value = float(message[key] if default is None else message.get(key, default))
    if not math.isfinite(value):
        raise EvoInputError(f"{key}: expected a finite number, got {value!r}")
    return value
