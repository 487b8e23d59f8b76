"""Backends that carry out a batch of tasks, in task order: in-process, forked worker processes, or dask.

For ``evo run`` a payload is a brood and the job breeds and evaluates its children
(:func:`evo.run.job.breed_and_evaluate`); payloads, contexts and results are plain data, and every worker
resolves the fitness plugin from its reference itself (no function is pickled).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

from evo.errors import EvoInputError
from evo.run.backends.base import (
    DASK_SCHEMES,
    EvaluationFailed,
    EvaluationTimeout,
    Job,
    Task,
    dask_address_problem,
)
from evo.run.backends.fork import ForkPool
from evo.run.backends.inprocess import InProcess

__all__ = [
    "BACKENDS",
    "DASK_SCHEMES",
    "EvaluationFailed",
    "EvaluationTimeout",
    "ForkPool",
    "InProcess",
    "Task",
    "backend_kind",
    "default_workers",
    "dask_address_problem",
    "make_backend",
    "require_dask",
]

# the values of [pool] backend
BACKENDS = ("fork", "inprocess", "dask")


def backend_kind(kind: str | None, workers: int) -> str:
    """The backend to use: ``kind`` when given, else ``"inprocess"`` for 1 worker and ``"fork"`` for more."""
    return kind or ("inprocess" if workers <= 1 else "fork")


def require_dask() -> None:
    """Raise a one-line :class:`EvoInputError` saying what to install when dask is missing."""
    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        raise EvoInputError(
            "the dask backend needs dask and distributed, which are not installed: pip install 'evo[dask]'"
        )


def make_backend(
    job: Job,
    context: Any,
    workers: int,
    chunksize: int = 0,
    before_fork: Callable[[], None] | None = None,
    timeout: float = 0.0,
    *,
    kind: str | None = None,
    address: str | None = None,
    worker_setup: Callable[[Any, str], Any] | None = None,
) -> Any:
    """The backend ``kind`` (:func:`backend_kind`): :class:`InProcess`, :class:`ForkPool` or a
    :class:`~evo.run.backends.dask_pool.DaskPool` (on the scheduler at ``address``, or on a LocalCluster
    of ``workers`` processes; ``worker_setup`` prepares each dask worker). ``timeout`` is the time limit
    of one evaluation (s, 0: none), which the fork pool's parent also enforces on workers stuck beyond the
    worker-side timer's reach.

    Raises:
        EvoInputError: ``kind`` is unknown, or dask is not installed.
    """
    kind = backend_kind(kind, workers)
    if kind == "inprocess":
        return InProcess(job, context)
    if kind == "fork":
        return ForkPool(job, context, workers, chunksize, before_fork, timeout=timeout)
    if kind != "dask":
        raise EvoInputError(f"backend: expected one of {', '.join(map(repr, BACKENDS))}, got {kind!r}")
    require_dask()
    from evo.run.backends.dask_pool import DaskPool

    return DaskPool(
        job, context, workers, chunksize, address=address, worker_setup=worker_setup, before_start=before_fork
    )


def default_workers() -> int:
    """The number of CPUs this process may use (``[pool] workers`` by default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
