"""Backends that carry out a batch of tasks, in task order: in-process or in forked worker processes.

For ``evo run`` a payload is a brood and the job breeds and evaluates its children
(:func:`evo.run.job.breed_and_evaluate`); payloads, contexts and results are plain data, and every worker
resolves the fitness plugin from its reference itself (no function is pickled).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from evo.run.backends.base import EvaluationFailed, EvaluationTimeout, Job, Task
from evo.run.backends.fork import ForkPool
from evo.run.backends.inprocess import InProcess

__all__ = [
    "EvaluationFailed",
    "EvaluationTimeout",
    "ForkPool",
    "InProcess",
    "Task",
    "default_workers",
    "make_backend",
]


def make_backend(
    job: Job,
    context: Any,
    workers: int,
    chunksize: int = 0,
    before_fork: Callable[[], None] | None = None,
    timeout: float = 0.0,
) -> InProcess | ForkPool:
    """:class:`InProcess` for one worker, else :class:`ForkPool`. ``timeout`` is the time limit of one
    evaluation (s, 0: none), which the fork pool's parent enforces on workers stuck beyond its reach."""
    if workers <= 1:
        return InProcess(job, context)
    return ForkPool(job, context, workers, chunksize, before_fork, timeout=timeout)


def default_workers() -> int:
    """The number of CPUs this process may use (``[pool] workers`` by default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
