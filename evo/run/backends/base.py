"""What every backend shares: tasks, the failure they report, and running a chunk with errors as data.

A backend runs a *job* -- ``job(payload, context) -> result``, a module-level function -- on each
:class:`Task` and returns the results in task order, whatever the number of workers or the chunking.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["EvaluationFailed", "Job", "Progress", "Task", "error_data", "run_chunk"]

log = logging.getLogger("evo.run.backends")

Job = Callable[[Any, Any], Any]
Progress = Callable[[int], None]
ErrorData = tuple[int, "str | None", str, Any]


@dataclass(frozen=True)
class Task:
    """``payload`` for the job, ``index`` its place in the batch, ``weight`` the units of progress it
    stands for (for ``evo run``: the evaluations it makes)."""

    index: int
    payload: Any
    weight: int = 1


class EvaluationFailed(Exception):
    """A task raised (or its worker died: ``index`` -1). ``plugin`` may be None; ``detail`` is whatever
    plain data the job's exception carried in its ``detail`` attribute."""

    def __init__(self, index: int, plugin: str | None, message: str, detail: Any = None):
        self.index = index
        self.plugin = plugin
        self.message = message
        self.detail = detail
        where = f"plugin '{plugin}'" if plugin else "task"
        super().__init__(f"{where} failed on task {index}: {message}")


def error_data(index: int, exc: BaseException) -> ErrorData:
    plugin = getattr(exc, "plugin", None)
    message = getattr(exc, "message", None)
    if message is None:
        message = f"{type(exc).__name__}: {exc}"
    name = getattr(plugin, "name", plugin)
    return index, (str(name) if name is not None else None), str(message), getattr(exc, "detail", None)


def run_chunk(
    job: Job, context: Any, chunk: Sequence[tuple[int, Any]]
) -> tuple[list[tuple[int, Any]], ErrorData | None]:
    """Run a chunk; stop at the first error and return it as data with what was done so far."""
    done = []
    for index, payload in chunk:
        try:
            done.append((index, job(payload, context)))
        except Exception as exc:  # errors travel back as data, never as a traceback wall
            return done, error_data(index, exc)
    return done, None
