"""Backends that carry out a batch of tasks, in task order: in-process (kernel calls on one thread, or on
threads), forked worker processes, or dask. For ``evo run`` a payload is a brood and the job breeds and
evaluates its children (:func:`evo.run.job.breed_and_evaluate`); payloads, contexts and results are plain
data, and every worker resolves the fitness plugin from its reference itself (no function is pickled).
"""

from __future__ import annotations

import importlib.util
import os
import time
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
from evo.run.backends.shards import Shards
from evo.run.backends.threads import Threads

__all__ = [
    "BACKENDS",
    "DASK_SCHEMES",
    "EvaluationFailed",
    "EvaluationTimeout",
    "ForkPool",
    "InProcess",
    "Shards",
    "Task",
    "Threads",
    "backend_kind",
    "busy_cpus",
    "default_workers",
    "dask_address_problem",
    "make_backend",
    "require_dask",
    "usable_cpus",
]

# the values of [pool] backend
BACKENDS = ("fork", "inprocess", "dask", "threads", "shards")


def backend_kind(kind: str | None, workers: int, threads: bool = False) -> str:
    """The backend to use: ``kind`` when given, else ``"shards"`` where the caller says threads may be
    used (``threads``: only evo's own code breeds and evaluates, in lanes:
    :func:`evo.run.job.threads_may_evaluate`; a run the shards backend cannot make from arrays runs as
    ``"threads"``: :func:`evo.run.shards.why_not_sharded`; with 1 worker, as ``"inprocess"``), else
    ``"inprocess"`` for 1 worker and ``"fork"`` for more."""
    if kind:
        return kind
    if threads:
        return "shards"
    return "inprocess" if workers <= 1 else "fork"


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
    share: bool = False,
) -> Any:
    """The backend ``kind`` (:func:`backend_kind`): :class:`InProcess`, :class:`Threads`, :class:`Shards`
    (in-process for 1 worker), :class:`ForkPool`
    or a :class:`~evo.run.backends.dask_pool.DaskPool` (on the scheduler at ``address``, or on a local cluster
    of ``workers`` processes; ``worker_setup`` prepares each dask worker). ``timeout`` is the time limit
    of one evaluation (s, 0: none), which the fork pool's parent also enforces on workers stuck beyond the
    worker-side timer's reach. With ``share``, the fork pool and a local dask cluster count the calling
    process as one of their ``workers`` (:class:`ForkPool`, :class:`~evo.run.backends.dask_pool.DaskPool`).

    Raises:
        EvoInputError: ``kind`` is unknown, or dask is not installed.
    """
    kind = backend_kind(kind, workers)
    if kind == "inprocess":
        return InProcess(job, context)
    if kind == "threads":
        return Threads(job, context, workers)
    if kind == "shards":
        return Shards(job, context, workers)
    if kind == "fork":
        return ForkPool(job, context, workers, chunksize, before_fork, timeout=timeout, share=share)
    if kind != "dask":
        raise EvoInputError(f"backend: expected one of {', '.join(map(repr, BACKENDS))}, got {kind!r}")
    require_dask()
    from evo.run.backends import dask_pool

    return dask_pool.DaskPool(
        job,
        context,
        workers,
        chunksize,
        address=address,
        worker_setup=worker_setup,
        before_start=before_fork,
        share=share,
        early_start=dask_pool.EARLY_START,
    )


# seconds over which the default worker count measures how busy the CPUs are (/proc/stat counts in 10 ms)
BUSY_WINDOW = 0.1
# a CPU counts as kept busy by other processes from this share of its time on (summed over the CPUs)
BUSY_SHARE = 0.6


def default_workers() -> int:
    """``[pool] workers`` by default: the CPUs this process may use, less those other processes keep busy
    right now (:func:`busy_cpus`; at least 1). Two workers beside another busy process on two cores run
    slower than one (docs/performance.md, "Issue 29"); results never depend on the count."""
    cpus = usable_cpus()
    return max(1, len(cpus) - busy_cpus(cpus))


def usable_cpus() -> frozenset[int]:
    """The CPUs this process may run on (all of them where the platform cannot say)."""
    try:
        return frozenset(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return frozenset(range(max(1, os.cpu_count() or 1)))


def busy_cpus(cpus: frozenset[int], window: float = BUSY_WINDOW) -> int:
    """How many of ``cpus`` other processes keep busy: the busy share of each over ``window`` seconds (from
    ``/proc/stat``), summed, less what this process used meanwhile, counted from :data:`BUSY_SHARE` of a
    CPU on. 0 where ``/proc/stat`` cannot be read (not Linux)."""
    before, own = _cpu_ticks(cpus), _own_seconds()
    if before is None:
        return 0
    time.sleep(window)
    after, used = _cpu_ticks(cpus), _own_seconds() - own
    if after is None:
        return 0
    busy = 0.0
    for cpu, (idle, total) in after.items():
        idle_0, total_0 = before.get(cpu, (idle, total))
        if total > total_0:
            busy += 1.0 - (idle - idle_0) / (total - total_0)
    busy -= used / window
    return max(0, int(busy + 1.0 - BUSY_SHARE))


def _cpu_ticks(cpus: frozenset[int]) -> dict[int, tuple[int, int]] | None:
    """(idle, total) clock ticks of each of ``cpus`` so far, from ``/proc/stat``; None where unreadable."""
    from evo.io.bounded import read_input_bytes

    try:
        lines = (
            read_input_bytes("/proc/stat", partial=True, limit=1 << 20)
            .decode("ascii", "replace")
            .splitlines()
        )
    except EvoInputError:  # no such file (not Linux), or unreadable
        return None
    out = {}
    for line in lines:
        name, _, rest = line.partition(" ")
        if not (name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cpus):
            continue
        ticks = [int(x) for x in rest.split()[:8]]
        if len(ticks) >= 5:
            out[int(name[3:])] = (ticks[3] + ticks[4], sum(ticks))  # idle and iowait, of all
    return out or None


def _own_seconds() -> float:
    """CPU seconds this process (every thread) has used."""
    times = os.times()
    return times.user + times.system
