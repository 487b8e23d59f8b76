"""The fork backend (the default for ``workers >= 2``): forked processes, warm from the parent, fed in chunks.

Workers ignore SIGINT (the parent decides what Ctrl-C means), are killed if the parent dies (Linux), and
send errors back as data; a worker that dies raises :class:`EvaluationFailed` instead of hanging. Log
records of workers reach the parent's handlers when the parent wrapped them with multiprocessing_logging.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from evo.run.backends.base import ErrorData, EvaluationFailed, Job, Progress, Task, log, run_chunk

__all__ = ["ForkPool"]

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


def _worker_chunk(chunk: Sequence[tuple[int, Any]]) -> tuple[list, ErrorData | None, float]:
    start = time.perf_counter()
    done, error = run_chunk(_worker_job, _worker_context, chunk)
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
        if workers < 1:
            raise ValueError("ForkPool needs at least 1 worker")
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
        errors: list[ErrorData] = []
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
