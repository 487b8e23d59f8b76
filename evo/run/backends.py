"""Backends that carry out a batch of tasks in-process or in forked worker processes, in task order.

A backend runs a *job* -- ``job(payload, context) -> result``, a module-level function -- on each
:class:`Task` and returns the results in task order, so they are bit-identical whatever the number of
workers or the chunking. For ``evo run`` a payload is a :class:`~evo.ga.brood.Brood` and the job breeds
its children and evaluates them (:func:`evo.run.evolve.breed_and_evaluate`); the context (evaluation spec,
genome and GA settings) is handed to each worker once, and every worker resolves the fitness plugin from
its *reference* itself. Payloads, contexts and results are plain data: no function is pickled.

* :class:`InProcess` (``workers = 1``) calls the job directly.
* :class:`ForkPool` (``workers >= 2``) uses ``concurrent.futures.ProcessPoolExecutor`` with the ``fork``
  start method. ``before_fork`` (for ``evo run``: compile and run the numba kernel once) runs in the
  parent before the workers are forked, so they start warm. Tasks go out in chunks (one evaluation takes
  only milliseconds), and from an iterator as soon as a chunk is full. Workers ignore SIGINT (the parent
  decides what Ctrl-C means), are killed if the parent dies (Linux), and send errors back as data; a
  worker that dies raises :class:`EvaluationFailed` instead of hanging. Log records written in a worker
  reach the parent's handlers (``run.log``) when the parent has wrapped them with
  ``multiprocessing_logging`` before the pool starts (see :func:`evo.run.evolve.run_logging`).

A job that raises stops the batch: the exception's ``plugin`` and ``message`` attributes (like those of
:class:`evo.fitness.evaluate.PluginFailed`), or its type and text, and its ``detail`` attribute (plain data,
e.g. the creature that failed) come back in :class:`EvaluationFailed`.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

__all__ = ["EvaluationFailed", "ForkPool", "InProcess", "Task", "default_workers", "make_backend"]

log = logging.getLogger(__name__)

Job = Callable[[Any, Any], Any]
Progress = Callable[[int], None]
_Error = tuple[int, "str | None", str, Any]


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


def _error_data(index: int, exc: BaseException) -> _Error:
    plugin = getattr(exc, "plugin", None)
    message = getattr(exc, "message", None)
    if message is None:
        message = f"{type(exc).__name__}: {exc}"
    name = getattr(plugin, "name", plugin)
    return index, (str(name) if name is not None else None), str(message), getattr(exc, "detail", None)


def _run_chunk(
    job: Job, context: Any, chunk: Sequence[tuple[int, Any]]
) -> tuple[list[tuple[int, Any]], _Error | None]:
    """Run a chunk; stop at the first error and return it as data with what was done so far."""
    done = []
    for index, payload in chunk:
        try:
            done.append((index, job(payload, context)))
        except Exception as exc:  # errors travel back as data, never as a traceback wall
            return done, _error_data(index, exc)
    return done, None


class InProcess:
    """Run the job in the calling process (``workers = 1``)."""

    workers = 1

    def __init__(self, job: Job, context: Any):
        self.job = job
        self.context = context

    def run(
        self, tasks: Iterable[Task], progress: Progress | None = None, expected: int | None = None
    ) -> list[Any]:
        """The job's results for ``tasks``, one after the other, in order (``expected`` is not needed)."""
        out = []
        for task in tasks:
            done, error = _run_chunk(self.job, self.context, [(task.index, task.payload)])
            if error is not None:
                raise EvaluationFailed(*error)
            out.append(done[0][1])
            if progress is not None:
                progress(task.weight)
        return out

    def close(self) -> None:
        pass

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- worker side ----------------------------------------------------------------------------------
_worker_job: Job | None = None
_worker_context: Any = None


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this worker when its parent dies (a parent killed with -9 leaves no orphans)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: orphans end when they next read the closed queue
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _init_worker(job: Job, context: Any, parent: int) -> None:
    global _worker_job, _worker_context
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    _worker_job, _worker_context = job, context
    log.info("worker %d started", os.getpid())


def _worker_chunk(chunk: Sequence[tuple[int, Any]]) -> tuple[list, _Error | None, float]:
    start = time.perf_counter()
    done, error = _run_chunk(_worker_job, _worker_context, chunk)
    if error is not None:
        log.error("worker %d: task %d: %s", os.getpid(), error[0], error[2])
    return done, error, time.perf_counter() - start


class ForkPool:
    """Run the job in ``workers`` forked processes, ``chunksize`` tasks at a time (0: about eight chunks
    per worker per batch)."""

    def __init__(
        self,
        job: Job,
        context: Any,
        workers: int,
        chunksize: int = 0,
        before_fork: Callable[[], None] | None = None,
    ):
        if workers < 2:
            raise ValueError("ForkPool needs at least 2 workers; use InProcess for 1")
        self.workers = workers
        self.chunksize = chunksize
        if before_fork is not None:
            before_fork()
        context_ = multiprocessing.get_context("fork")
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context_,
            initializer=_init_worker,
            initargs=(job, context, os.getpid()),
        )

    def _chunk_size(self, expected: int) -> int:
        return self.chunksize or max(1, math.ceil(expected / (8 * self.workers)))

    def run(
        self, tasks: Iterable[Task], progress: Progress | None = None, expected: int | None = None
    ) -> list[Any]:
        """The job's results for ``tasks`` in order. ``tasks`` may be an iterator (then give ``expected``,
        the number of tasks, for the chunk size): its tasks are sent off as soon as a chunk is full.

        If tasks fail, the one reported is the first in task order -- the one :class:`InProcess` would
        report -- whichever worker fails first: chunks are started in order, so once one fails, the
        chunks not yet started are cancelled and those under way are waited for.
        """
        if expected is None:
            tasks = list(tasks)
            expected = len(tasks)
        size = self._chunk_size(expected)
        order: list[int] = []
        weight: dict[int, int] = {}
        results: dict[int, Any] = {}
        errors: list[_Error] = []
        pending: set = set()
        busy = 0.0

        def collect(block: bool) -> None:
            nonlocal pending, busy
            finished, pending = wait(pending, timeout=None if block else 0, return_when=FIRST_COMPLETED)
            for future in finished:
                if future.cancelled():
                    continue
                try:
                    done, error, seconds = future.result()
                except BrokenProcessPool:
                    raise EvaluationFailed(-1, None, "a worker process died") from None
                busy += seconds
                results.update(done)
                if error is not None:
                    errors.append(error)
                if progress is not None:
                    progress(sum(weight[index] for index, _ in done))

        try:
            chunk: list[tuple[int, Any]] = []
            for task in tasks:
                order.append(task.index)
                weight[task.index] = task.weight
                chunk.append((task.index, task.payload))
                if len(chunk) >= size:
                    pending.add(self._executor.submit(_worker_chunk, chunk))
                    chunk = []
                    collect(block=False)
                    if errors:
                        break
            else:
                if chunk:
                    pending.add(self._executor.submit(_worker_chunk, chunk))
            while pending and not errors:
                collect(block=True)
            if errors:
                for future in pending:
                    future.cancel()
                while pending:
                    collect(block=True)
                raise EvaluationFailed(*min(errors, key=lambda error: order.index(error[0])))
        finally:
            for future in pending:
                future.cancel()
        log.debug("%d tasks, %.3f s of worker time", len(order), busy)
        return [results[index] for index in order]

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ForkPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_backend(
    job: Job, context: Any, workers: int, chunksize: int = 0, before_fork: Callable[[], None] | None = None
) -> InProcess | ForkPool:
    """:class:`InProcess` for one worker, else :class:`ForkPool`."""
    if workers <= 1:
        return InProcess(job, context)
    return ForkPool(job, context, workers, chunksize, before_fork)


def default_workers() -> int:
    """The number of CPUs this process may use (``[pool] workers`` by default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
