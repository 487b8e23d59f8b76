"""The fork backend (the default for ``workers >= 2``): forked processes, warm from the parent, fed chunks
through a pipe each; with ``share`` the calling process is one of the workers (docs/runs.md, "Workers").

Workers ignore SIGINT and SIGTERM, die with the parent (Linux), send errors back as data and their log
records through a :class:`~evo.run.worker_log.WorkerLogHandler`; one stuck past the time limit is replaced.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import multiprocessing
import os
import pickle
import signal
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from evo.run.backends.base import (
    ErrorData,
    EvaluationFailed,
    Job,
    Progress,
    Task,
    error_data,
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
CLOSE_WAIT = 10.0  # s: how long closing waits for the workers to end before killing them


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


def _init_worker(job: Job, context: Any, parent: int, table: Any = None, slot: int = 0) -> None:
    global _worker_job, _worker_context
    leave_signals_to_parent(parent)
    _worker_job, _worker_context = job, context
    if table is not None and slot < len(table) // _COLUMNS:
        row = slot * _COLUMNS
        table[row] = os.getpid()

        def report(task: int, evaluation: int, started: float) -> None:
            if task < 0:
                table[row + 1] = -1.0
            else:  # the task last: the parent reads it first
                table[row + 3], table[row + 2], table[row + 1] = started, evaluation, task

        set_evaluation_monitor(report)
    log.info("worker %d started", os.getpid())


def _timed_chunk(
    job: Job, context: Any, chunk: Sequence[tuple[int, Any]], timed_out: frozenset[tuple[int, int]]
) -> tuple[list, ErrorData | None, float, float]:
    """The chunk's results, its first error, and the wall and CPU seconds it took in this thread."""
    start, cpu = time.perf_counter(), time.thread_time()
    done, error = run_chunk(job, context, chunk, timed_out)
    return done, error, time.perf_counter() - start, time.thread_time() - cpu


def _worker_chunk(
    chunk: Sequence[tuple[int, Any]], timed_out: frozenset[tuple[int, int]] = frozenset()
) -> tuple[list, ErrorData | None, float, float]:
    """In a worker: :func:`_timed_chunk` of the worker's job, its error logged."""
    answer = _timed_chunk(_worker_job, _worker_context, chunk, timed_out)
    error = answer[1]
    if error is not None:
        log.error("worker %d: task %d: %s", os.getpid(), error[0], error[2])
    return answer


def _serve(connection: Connection, job: Job, context: Any, parent: int, table: Any, slot: int) -> None:
    """A worker's life: each message from the parent is a pickled ``(chunk, timed_out)``, answered with
    the pickled :func:`_worker_chunk` of it; an empty message (or the parent's end closed) ends it."""
    _init_worker(job, context, parent, table, slot)
    while True:
        try:
            message = connection.recv_bytes()
        except (EOFError, OSError):
            break
        if not message:
            break
        chunk, timed_out = pickle.loads(message)
        answer = _worker_chunk(chunk, timed_out)
        try:
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # a result that cannot travel fails its chunk, as data
            data = pickle.dumps(([], error_data(chunk[0][0], exc), *answer[2:]))
        connection.send_bytes(data)
    connection.close()


class _Worker:
    """A forked worker process as the parent sees it: its pipe, its table slot, the chunk it runs."""

    def __init__(self, process: Any, connection: Connection, slot: int):
        self.process, self.connection, self.slot = process, connection, slot
        self.chunk: list[tuple[int, Any]] | None = None  # None: idle
        self.stuck = False  # killed by the parent while stuck in an evaluation


def _stop(workers: list[_Worker]) -> None:
    """Tell each worker to end and wait for it; kill one that does not end within ``CLOSE_WAIT`` (or that
    ignores its pipe: it is busy with a chunk no one will read)."""
    for worker in workers:
        with contextlib.suppress(OSError):
            worker.connection.send_bytes(b"")
    deadline = time.monotonic() + CLOSE_WAIT
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.connection.close()
    workers.clear()


class ForkPool:
    """Run the job in ``workers`` forked processes, ``chunksize`` tasks at a time (0: about eight chunks
    per worker per batch).

    With a ``timeout`` (s per evaluation), the job's own time limit (:func:`~evo.run.backends.base.
    evaluation_time_limit`) ends most evaluations that run too long; a worker still in one ``grace``
    seconds later (stuck in C code) is killed and replaced, and its chunk is run again with that
    evaluation timed out at once -- the same outcome the time limit gives.

    With ``share``, this process counts as one of the ``workers``: it forks ``workers - 1`` and, once
    every other chunk of a batch is out, runs the last one itself, then each chunk its forked workers have
    not started yet (latest first), so that no chunk's tasks or results are carried between processes
    for nothing while it would only wait. The results are the same whoever runs a chunk. Its own chunks
    get the time limit an in-process run gets (the job's timer); nothing here can kill an evaluation
    stuck in C code in this process, which is why the caller shares only evo's own code
    (:func:`evo.run.job.parent_may_evaluate`).
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
        share: bool = False,
    ):
        if workers < 1:
            raise ValueError("ForkPool needs at least 1 worker")
        self.workers = workers
        self.share = share and workers >= 2  # this process runs chunks too
        self._forked = workers - 1 if self.share else workers
        self.chunksize = chunksize
        self.timeout = timeout
        self.grace = min(max(1.0, timeout / 2), 30.0)  # s after the timeout before a worker counts as stuck
        self._job, self._context = job, context
        self.contended = False  # whether a worker of the last run got much less of its core than another
        self.core_shares: tuple[float, float] | None = None  # the least and most of them (None: untimed)
        self._table: Any = None
        if before_fork is not None:
            before_fork()
        self._start()
        if self.share:
            log.info("process %d evaluates a share beside %d forked worker(s)", os.getpid(), self._forked)

    def _start(self) -> None:
        """Fork the workers (each with its own pipe, read by this process's calling thread alone: no
        queue or thread between them and the parent)."""
        self._fork = multiprocessing.get_context("fork")
        if self.timeout > 0:
            self._table = self._fork.Array("d", [0.0, -1.0, 0.0, 0.0] * self._forked, lock=False)
        self._workers = [self._spawn(slot) for slot in range(self._forked)]
        # closed at the latest when the pool is let go or the interpreter exits (before multiprocessing's
        # own exit handler, registered earlier, which would send the workers only SIGTERM, which they
        # ignore, and wait for them)
        self._stop = weakref.finalize(self, _stop, self._workers)
        atexit.register(self._stop)

    def _spawn(self, slot: int) -> _Worker:
        mine, theirs = self._fork.Pipe(duplex=True)
        process = self._fork.Process(
            target=_serve,
            args=(theirs, self._job, self._context, os.getpid(), self._table, slot),
            name=f"evo-worker-{slot}",
            daemon=True,
        )
        process.start()
        theirs.close()
        return _Worker(process, mine, slot)

    def _chunk_size(self, expected: int) -> int:
        return self.chunksize or max(1, math.ceil(expected / (8 * self.workers)))

    def _run_here(
        self, chunk: list[tuple[int, Any]], timed_out: frozenset[tuple[int, int]]
    ) -> tuple[list, ErrorData | None, float, float]:
        """A chunk run in this process (``share``), timed as a worker times its own."""
        return _timed_chunk(self._job, self._context, chunk, timed_out)

    def _stuck(self) -> list[tuple[_Worker, int, int]]:
        """(worker, task, evaluation) of each worker in one evaluation for longer than timeout + grace."""
        if self._table is None:
            return []
        now, out = time.monotonic(), []
        for worker in self._workers:
            row = worker.slot * _COLUMNS
            task = self._table[row + 1]
            if task < 0 or worker.chunk is None or worker.stuck:
                continue
            pid, evaluation, started = self._table[row], self._table[row + 2], self._table[row + 3]
            if (
                self._table[row + 1] == task
                and now - started > self.timeout + self.grace
                and pid == worker.process.pid
            ):
                out.append((worker, int(task), int(evaluation)))
        return out

    def run(
        self, tasks: Iterable[Task], progress: Progress | None = None, expected: int | None = None
    ) -> list[Any]:
        """The job's results for ``tasks`` in order. ``tasks`` may be an iterator (then give ``expected``,
        the number of tasks, for the chunk size): its tasks are sent off as soon as a chunk is full and a
        worker is free.

        If tasks fail, the one reported is the first in task order -- the one :class:`InProcess` would
        report -- whichever worker fails first: chunks are started in order, so once one fails, the
        chunks not yet started are dropped and those under way are waited for.
        """
        if not self._workers:
            raise RuntimeError("this ForkPool is closed")
        if expected is None:
            tasks = list(tasks)
            expected = len(tasks)
        for worker in list(self._workers):
            if worker.stuck:  # killed as the batch before ended
                self._replace(worker)
        size = self._chunk_size(expected)
        order: list[int] = []
        weight: dict[int, int] = {}
        results: dict[int, Any] = {}
        errors: list[ErrorData] = []
        waiting: list[list[tuple[int, Any]]] = []  # chunks not started yet, in order
        timed_out: set[tuple[int, int]] = set()  # (task, evaluation) of workers killed while stuck
        busy = 0.0
        shares = [1.0, 0.0]  # the least and the most share of a core a chunk's worker had
        poll = min(1.0, max(0.05, self.timeout / 4)) if self.timeout > 0 else None

        def known(chunk: list[tuple[int, Any]]) -> frozenset[tuple[int, int]]:
            indices = {index for index, _ in chunk}
            return frozenset(pair for pair in timed_out if pair[0] in indices)

        def take(done: list, error: ErrorData | None, seconds: float, cpu: float) -> None:
            nonlocal busy
            busy += seconds
            if seconds > MIN_TIMED_CHUNK:
                shares[:] = min(shares[0], cpu / seconds), max(shares[1], cpu / seconds)
            results.update(done)
            if error is not None:
                errors.append(error)
            if progress is not None:
                progress(sum(weight[index] for index, _ in done))

        def dispatch() -> None:
            """Send the chunks waiting, in order, to the idle workers; once a chunk failed, only those
            before it in order (one run again after its worker was stuck may hold an earlier failure)."""
            if errors:
                first = min(order.index(error[0]) for error in errors)
                waiting[:] = [chunk for chunk in waiting if order.index(chunk[0][0]) < first]
            for worker in self._workers:
                if not waiting:
                    return
                if worker.chunk is None:
                    chunk = waiting.pop(0)
                    message = pickle.dumps((chunk, known(chunk)), protocol=pickle.HIGHEST_PROTOCOL)
                    worker.chunk = chunk
                    with contextlib.suppress(OSError):  # it died idle: collect finds it by its sentinel
                        worker.connection.send_bytes(message)

        def collect(block: bool) -> None:
            dispatch()
            under_way = [worker for worker in self._workers if worker.chunk is not None]
            if not under_way:
                return
            handles = [w.connection for w in under_way] + [w.process.sentinel for w in under_way]
            ready = set(wait(handles, timeout=poll if block else 0))
            for worker in under_way:
                if worker.connection in ready:
                    try:
                        answer = pickle.loads(worker.connection.recv_bytes())
                    except (EOFError, OSError):
                        answer = None  # it died while answering
                    if answer is not None:
                        worker.chunk = None
                        take(*answer)
                        continue
                elif worker.process.sentinel not in ready:
                    continue
                # the worker died: one this process killed while stuck is replaced and its chunk run
                # again (that evaluation timed out at once); any other death ends the batch
                if not worker.stuck:
                    raise EvaluationFailed(-1, None, "a worker process died")
                waiting.insert(0, worker.chunk)
                waiting.sort(key=lambda chunk: order.index(chunk[0][0]))
                self._replace(worker)
            for worker, task, evaluation in self._stuck():
                log.warning(
                    "worker %d: task %d, evaluation %d still running %.3g s past the %g s timeout; "
                    "killing the worker and timing that evaluation out",
                    worker.process.pid, task, evaluation, self.grace, self.timeout,
                )  # fmt: skip
                timed_out.add((task, evaluation))
                worker.stuck = True
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.process.pid, signal.SIGKILL)
            dispatch()

        def run_here(chunk: list[tuple[int, Any]]) -> None:
            """Run a chunk in this process, then each chunk not sent yet, latest first."""
            while True:
                take(*self._run_here(chunk, known(chunk)))
                if errors or not waiting:
                    return
                chunk = waiting.pop()

        def under_way() -> bool:
            return any(worker.chunk is not None for worker in self._workers)

        try:
            chunk: list[tuple[int, Any]] = []
            last: int | None = None
            for task in tasks:
                # a chunk is full at its size, or where the tasks' own chunk ids change
                full = chunk and (task.chunk != last if task.chunk is not None else len(chunk) >= size)
                if full:
                    waiting.append(chunk)
                    chunk = []
                    dispatch()
                    collect(block=False)
                    if errors:
                        break
                order.append(task.index)
                weight[task.index] = task.weight
                chunk.append((task.index, task.payload))
                last = task.chunk
            else:
                if chunk and self.share and not errors:
                    beside = getattr(progress, "beside", None)
                    if beside is not None:  # the caller's own work, while the workers have theirs
                        beside()
                    run_here(chunk)  # the last chunk, and those the workers have not started
                elif chunk:
                    waiting.append(chunk)
                    dispatch()
                if progress is not None and not errors:
                    progress(0)  # everything is out with the workers: the caller may do its own work
            while (waiting or under_way()) and not errors:
                collect(block=True)
            if errors:
                while waiting or under_way():  # chunks under way may hold an earlier failure
                    collect(block=True)
                raise EvaluationFailed(*min(errors, key=lambda error: order.index(error[0])))
        except BaseException:
            for worker in self._workers:  # an answer not wanted must not wait in a pipe for the next batch
                if worker.chunk is not None:
                    with contextlib.suppress(Exception):
                        worker.process.kill()
                    worker.stuck = True  # replaced when the pool is used again
            raise
        self.core_shares = (shares[0], shares[1]) if shares[1] > 0.0 else None
        self.contended = self.core_shares is not None and shares[1] - shares[0] > CONTENDED
        log.debug("%d tasks, %.3f s of worker time, shares of a core %.2f-%.2f", len(order), busy, *shares)
        return [results[index] for index in order]

    def _replace(self, worker: _Worker) -> None:
        """A new worker in the place of one that died (this process killed it)."""
        with contextlib.suppress(Exception):
            worker.process.join(1.0)
            worker.connection.close()
        if self._table is not None:
            self._table[worker.slot * _COLUMNS + 1] = -1.0
        self._workers[self._workers.index(worker)] = self._spawn(worker.slot)

    def kill(self) -> None:
        """Kill the worker processes at once (a second Ctrl-C: nothing they do is waited for)."""
        for worker in self._workers:
            with contextlib.suppress(Exception):
                worker.process.kill()

    def close(self) -> None:
        """Tell each worker to end, wait for it (a worker that does not end is killed)."""
        self._stop()
        atexit.unregister(self._stop)

    def __enter__(self) -> ForkPool:
        return self

    def __exit__(self, exc_type: type | None, *exc: object) -> None:
        if exc_type is not None:  # nothing the workers still do is wanted (and one may be stuck)
            self.kill()
        self.close()
