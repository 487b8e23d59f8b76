"""The fork backend (the default for ``workers >= 2``): forked processes, warm from the parent, fed in chunks.

Workers ignore SIGINT and SIGTERM, die with the parent (Linux) and send errors back as data; a worker
that dies raises :class:`EvaluationFailed`, one stuck past the time limit is replaced. Their log records
reach the parent's handlers when the parent wrapped them in a :class:`~evo.run.worker_log.WorkerLogHandler`.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from evo.run.backends.base import (
    ErrorData,
    EvaluationFailed,
    Job,
    Progress,
    Task,
    log,
    run_chunk,
    set_evaluation_monitor,
)

__all__ = ["ForkPool"]

# -- worker side ----------------------------------------------------------------------------------
_worker_job: Job | None = None
_worker_context: Any = None
# the pool's table of what each worker evaluates: per slot (pid, task, evaluation, start), task -1 idle
_COLUMNS = 4
# a chunk whose worker got this much less of its core (CPU over wall seconds) than another chunk's
# worker: its core was shared with another process, and the next batch is cut for guided scheduling
# (evo.run.batching.chunk_shares). Workers all alike starved (a saturated machine) are not: smaller chunks
# would only add hand-overs between processes, each a wait for the scheduler
CONTENDED = 0.25
MIN_TIMED_CHUNK = 0.05  # s: shorter chunks are not timed (too short for the ratio to mean much)


def die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this worker when its parent dies (a parent killed with -9 leaves no orphans)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: orphans end when they next read the closed queue
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def leave_signals_to_parent(parent: int) -> None:
    """In a worker process: Ctrl-C and SIGTERM are the parent's to act on (a terminal or a scheduler
    signals every process of the job), and the worker dies with the parent (:func:`die_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent(parent)


def _init_worker(job: Job, context: Any, parent: int, table: Any = None, claimed: Any = None) -> None:
    global _worker_job, _worker_context
    leave_signals_to_parent(parent)
    _worker_job, _worker_context = job, context
    if table is not None:
        with claimed.get_lock():
            slot, claimed.value = claimed.value, claimed.value + 1
        if slot < len(table) // _COLUMNS:
            row = slot * _COLUMNS
            table[row] = os.getpid()

            def report(task: int, evaluation: int, started: float) -> None:
                if task < 0:
                    table[row + 1] = -1.0
                else:  # the task last: the parent reads it first
                    table[row + 3], table[row + 2], table[row + 1] = started, evaluation, task

            set_evaluation_monitor(report)
    log.info("worker %d started", os.getpid())


def _worker_chunk(
    chunk: Sequence[tuple[int, Any]], timed_out: frozenset[tuple[int, int]] = frozenset()
) -> tuple[list, ErrorData | None, float, float]:
    """The chunk's results, its first error, and the wall and CPU seconds it took here."""
    start, cpu = time.perf_counter(), time.thread_time()
    done, error = run_chunk(_worker_job, _worker_context, chunk, timed_out)
    if error is not None:
        log.error("worker %d: task %d: %s", os.getpid(), error[0], error[2])
    return done, error, time.perf_counter() - start, time.thread_time() - cpu


class ForkPool:
    """Run the job in ``workers`` forked processes, ``chunksize`` tasks at a time (0: about eight chunks
    per worker per batch).

    With a ``timeout`` (s per evaluation), the job's own time limit (:func:`~evo.run.backends.base.
    evaluation_time_limit`) ends most evaluations that run too long; a worker still in one ``grace``
    seconds later (stuck in C code) is killed, the pool is started again, and the chunks under way are
    run again with that evaluation timed out at once -- the same outcome the time limit gives.
    """

    def __init__(
        self,
        job: Job,
        context: Any,
        workers: int,
        chunksize: int = 0,
        before_fork: Callable[[], None] | None = None,
        *,
        timeout: float = 0.0,
    ):
        if workers < 1:
            raise ValueError("ForkPool needs at least 1 worker")
        self.workers = workers
        self.chunksize = chunksize
        self.timeout = timeout
        self.grace = min(max(1.0, timeout / 2), 30.0)  # s after the timeout before a worker counts as stuck
        self._job, self._context = job, context
        self.contended = False  # whether a worker of the last run got much less of its core than another
        self.core_shares: tuple[float, float] | None = None  # the least and most of them (None: untimed)
        self._table: Any = None
        if before_fork is not None:
            before_fork()
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        context_ = multiprocessing.get_context("fork")
        claimed = None
        if self.timeout > 0:
            self._table = context_.Array("d", [0.0, -1.0, 0.0, 0.0] * self.workers, lock=False)
            claimed = context_.Value("i", 0)
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context_,
            initializer=_init_worker,
            initargs=(self._job, self._context, os.getpid(), self._table, claimed),
        )

    def _chunk_size(self, expected: int) -> int:
        return self.chunksize or max(1, math.ceil(expected / (8 * self.workers)))

    def _stuck(self) -> list[tuple[int, int, int]]:
        """(pid, task, evaluation) of each worker in one evaluation for longer than timeout + grace."""
        if self._table is None:
            return []
        now, out = time.monotonic(), []
        for row in range(0, len(self._table), _COLUMNS):
            task = self._table[row + 1]
            if task < 0:
                continue
            pid, evaluation, started = self._table[row], self._table[row + 2], self._table[row + 3]
            if self._table[row + 1] == task and now - started > self.timeout + self.grace and pid > 0:
                out.append((int(pid), int(task), int(evaluation)))
        return out

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
        pending: set[Future] = set()
        chunks: dict[Future, list[tuple[int, Any]]] = {}
        timed_out: set[tuple[int, int]] = set()  # (task, evaluation) of workers killed while stuck
        redo: list[list[tuple[int, Any]]] = []  # chunks lost with the pool of a killed worker
        replacing = False
        busy = 0.0
        shares = [1.0, 0.0]  # the least and the most share of a core a chunk's worker had
        poll = min(1.0, max(0.05, self.timeout / 4)) if self.timeout > 0 else None

        def submit(chunk: list[tuple[int, Any]]) -> None:
            if replacing:
                redo.append(chunk)
                return
            indices = {index for index, _ in chunk}
            known = frozenset(pair for pair in timed_out if pair[0] in indices)
            future = self._executor.submit(_worker_chunk, chunk, known)
            chunks[future] = chunk
            pending.add(future)

        def collect(block: bool) -> None:
            nonlocal pending, busy, replacing
            finished, pending = wait(pending, timeout=poll if block else 0, return_when=FIRST_COMPLETED)
            for future in finished:
                chunk = chunks.pop(future)
                if future.cancelled():
                    continue
                try:
                    done, error, seconds, cpu = future.result()
                except BrokenProcessPool:
                    if not replacing:
                        raise EvaluationFailed(-1, None, "a worker process died") from None
                    redo.append(chunk)
                    continue
                busy += seconds
                if seconds > MIN_TIMED_CHUNK:
                    shares[:] = min(shares[0], cpu / seconds), max(shares[1], cpu / seconds)
                results.update(done)
                if error is not None:
                    errors.append(error)
                if progress is not None:
                    progress(sum(weight[index] for index, _ in done))
            if not replacing:
                for pid, task, evaluation in self._stuck():
                    log.warning(
                        "worker %d: task %d, evaluation %d still running %.3g s past the %g s timeout; "
                        "killing the worker and timing that evaluation out",
                        pid, task, evaluation, self.grace, self.timeout,
                    )  # fmt: skip
                    timed_out.add((task, evaluation))
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    replacing = True
            if replacing and not pending:  # every chunk under way is back or lost: a new pool
                # kill every worker of the broken pool: they ignore SIGTERM, which is all the executor
                # sends, so another worker stuck in its own evaluation would keep shutdown waiting forever
                self.kill()
                self._executor.shutdown(wait=True)
                self._executor = self._start()
                replacing = False
                again, redo[:] = sorted(redo, key=lambda chunk: order.index(chunk[0][0])), []
                for chunk in again:
                    submit(chunk)

        try:
            chunk: list[tuple[int, Any]] = []
            last: int | None = None
            for task in tasks:
                # a chunk is full at its size, or where the tasks' own chunk ids change
                full = chunk and (task.chunk != last if task.chunk is not None else len(chunk) >= size)
                if full:
                    submit(chunk)
                    chunk = []
                    collect(block=False)
                    if errors:
                        break
                order.append(task.index)
                weight[task.index] = task.weight
                chunk.append((task.index, task.payload))
                last = task.chunk
            else:
                if chunk:
                    submit(chunk)
                if progress is not None and not errors:
                    progress(0)  # everything is out with the workers: the caller may do its own work
            while (pending or redo or replacing) and not errors:
                collect(block=True)
            if errors:
                for future in pending:
                    future.cancel()
                while pending or redo or replacing:  # chunks run again may hold an earlier failure
                    collect(block=True)
                raise EvaluationFailed(*min(errors, key=lambda error: order.index(error[0])))
        finally:
            for future in pending:
                future.cancel()
        self.core_shares = (shares[0], shares[1]) if shares[1] > 0.0 else None
        self.contended = self.core_shares is not None and shares[1] - shares[0] > CONTENDED
        log.debug("%d tasks, %.3f s of worker time, shares of a core %.2f-%.2f", len(order), busy, *shares)
        return [results[index] for index in order]

    def kill(self) -> None:
        """Kill the worker processes at once (a second Ctrl-C: nothing they do is waited for)."""
        for process in list((getattr(self._executor, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):
                process.kill()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ForkPool:
        return self

    def __exit__(self, exc_type: type | None, *exc: object) -> None:
        if exc_type is not None:  # nothing the workers still do is wanted (and one may be stuck)
            self.kill()
        self.close()
