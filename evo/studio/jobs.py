"""The studio's one kind of background job (an evolution, a refinement, a playback): claimed atomically, so
that two presses start one; progress kept as it comes; Stop asked of whatever runs it."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evo.errors import EvoInputError

__all__ = ["Busy", "Job", "JobState"]

PROGRESS_KEPT = 10_000  # progress reports a job keeps (the oldest are dropped)


class Busy(EvoInputError):
    """A job was asked to start while one of its kind runs (HTTP 409)."""


@dataclass(frozen=True)
class JobState:
    """A job as the page sees it: ``state`` (idle, running, done or failed), ``stopping`` (Stop was
    asked and the work has not ended yet), its ``message``, ``progress`` (oldest first), ``latest`` (what
    the last report carried beside it, e.g. the best body so far) and ``result`` (what it ended with)."""

    state: str
    stopping: bool
    message: str
    progress: tuple[Any, ...]
    latest: Any
    result: Any


class Job:
    """One job of a kind at a time.

    :meth:`claim` moves it from idle, done or failed to running in one step under a lock (no await, no
    thread switch between the check and the change), so of N simultaneous starts exactly one wins. The
    work reports with :meth:`report` and ends with :meth:`end`; :meth:`stop` sets ``stop_asked`` and
    calls the stopper the work gave with :meth:`on_stop` (a SIGTERM, a flag).

    Args:
        name: what the job is, as messages say it (``an evolution``).
    """

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self.state = "idle"
        self.message = ""
        self.stop_asked = False
        self.progress: deque[Any] = deque(maxlen=PROGRESS_KEPT)
        self.latest: Any = None
        self.result: Any = None
        self._stopper: Callable[[], Any] | None = None

    @property
    def busy(self) -> bool:
        """True from a claim until the work ends."""
        return self.state == "running"

    def claim(self) -> None:
        """Start a run of the job: progress cleared, Stop not asked.

        Raises:
            Busy: one is running.
        """
        with self._lock:
            if self.state == "running":
                raise Busy(f"{self.name} is running: stop it first")
            self.state, self.message, self.stop_asked, self._stopper = "running", "running", False, None
            self.progress.clear()
            self.latest = self.result = None

    def on_stop(self, stopper: Callable[[], Any] | None) -> None:
        """How to stop the work now running (called at once if Stop was already asked)."""
        with self._lock:
            self._stopper = stopper
            now = self.stop_asked and self.state == "running"
        if now and stopper is not None:
            stopper()

    def stop(self) -> None:
        """Ask the running work to stop (nothing when none runs)."""
        with self._lock:
            if self.state != "running":
                return
            self.stop_asked = True
            stopper = self._stopper
        if stopper is not None:
            stopper()

    def report(self, item: Any, latest: Any = None) -> None:
        """Keep one progress report (and, unless None, what it carries beside it)."""
        self.progress.append(item)
        if latest is not None:
            self.latest = latest

    def end(self, state: str, message: str, result: Any = None) -> None:
        """The work ended: ``state`` is ``done`` or ``failed``; ``message`` one line for the page."""
        with self._lock:
            self.state, self._stopper, self.result = state, None, result
            self.message = message.splitlines()[0] if message else state

    def snapshot(self) -> JobState:
        """The job now."""
        with self._lock:
            stopping = self.stop_asked and self.state == "running"
            return JobState(
                self.state, stopping, self.message, tuple(self.progress), self.latest, self.result
            )
