"""Evaluation backends: the same batch of creatures scored in-process or by forked worker processes.

A backend takes :class:`Task` s (an index, a creature, the seed for its plugin) and returns one
:class:`Outcome` per task, in task order, so the results are bit-identical whatever the number of workers
or the chunking. The backends see plain data only: the evaluation spec (world, frames, a plugin
*reference*, params) is handed to each worker once, and every worker resolves the plugin from that
reference itself.

* :class:`InProcess` (``workers = 1``) calls the evaluation function directly.
* :class:`ForkPool` (``workers >= 2``) uses ``concurrent.futures.ProcessPoolExecutor`` with the ``fork``
  start method. The numba kernel is compiled and run once in the parent before the workers are forked,
  so they start warm. Tasks go out in chunks (one evaluation takes only milliseconds), and from an
  iterator they go out as soon as a chunk is full, so that making a generation overlaps with evaluating
  it. Workers ignore SIGINT (the parent decides what Ctrl-C means), are killed if the parent dies (Linux)
  and send errors back as data; a worker that dies raises :class:`EvaluationFailed` instead of hanging.
  Log records written in a worker reach the parent's handlers (``run.log``) when the parent has wrapped
  them with ``multiprocessing_logging`` before the pool starts (see :func:`evo.runner.run_logging`).

The evaluation function has the signature of :func:`evo.evaluation.evaluate`:
``evaluate(creature, spec, seed) -> result`` with ``result.fitness`` (tuple of floats) and
``result.exploded`` (bool). An exception carrying ``.plugin`` and ``.message`` attributes (like
:class:`evo.evaluation.PluginFailed`) is reported with those.
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

from evo.model import Creature

__all__ = ["EvaluationFailed", "ForkPool", "InProcess", "Outcome", "Task", "make_backend", "warm_up"]

log = logging.getLogger(__name__)

EvaluateFn = Callable[[Creature, Any, int], Any]
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Task:
    """One evaluation: ``index`` in the batch, the creature, and the seed its plugin is called with."""

    index: int
    creature: Creature
    seed: int


@dataclass(frozen=True)
class Outcome:
    """What one evaluation gave: the raw objective values and whether the simulation exploded."""

    fitness: tuple[float, ...]
    exploded: bool


class EvaluationFailed(Exception):
    """An evaluation raised (or its worker died). ``index`` is the task's index, ``plugin`` may be None."""

    def __init__(self, index: int, plugin: str | None, message: str):
        self.index = index
        self.plugin = plugin
        self.message = message
        where = f"plugin '{plugin}'" if plugin else "evaluation"
        super().__init__(f"{where} failed on creature {index}: {message}")


def _error_data(exc: BaseException) -> tuple[str | None, str]:
    plugin = getattr(exc, "plugin", None)
    message = getattr(exc, "message", None)
    if message is None:
        message = f"{type(exc).__name__}: {exc}"
    name = getattr(plugin, "name", plugin)
    return (str(name) if name is not None else None), str(message)


def _run_chunk(
    evaluate: EvaluateFn, spec: Any, chunk: Sequence[tuple[int, Creature, int]]
) -> tuple[list[tuple[int, tuple[float, ...], bool]], tuple[int, str | None, str] | None]:
    """Evaluate a chunk; stop at the first error and return it as data with what was done so far."""
    done = []
    for index, creature, seed in chunk:
        try:
            result = evaluate(creature, spec, seed)
            done.append((index, tuple(float(v) for v in result.fitness), bool(result.exploded)))
        except Exception as exc:  # errors travel back as data, never as a traceback wall
            plugin, message = _error_data(exc)
            return done, (index, plugin, message)
    return done, None


def warm_up(world: Any) -> None:
    """Compile (or load from numba's cache) and run the kernel once in ``world``."""
    from evo.sim import simulate

    tiny = Creature(
        positions=[[0.0, 10.0], [10.0, 10.0]],
        velocities=[[0.0, 0.0], [0.0, 0.0]],
        fixed=[False, False],
        link_a=[0],
        link_b=[1],
        rest=[10.0],
        alpha=[0.5],
        phi=[0.0],
        omega=0.1,
        beta=0.5,
    )
    simulate(tiny, world, 2 * world.dt, record_every=world.dt)


class InProcess:
    """Evaluate in the calling process (``workers = 1``)."""

    workers = 1

    def __init__(self, spec: Any, evaluate: EvaluateFn):
        self.spec = spec
        self._evaluate = evaluate

    def evaluate(
        self, tasks: Iterable[Task], progress: Progress | None = None, expected: int | None = None
    ) -> list[Outcome]:
        """Evaluate ``tasks`` one after the other; outcomes in task order."""
        out: list[Outcome] = []
        for task in tasks:
            done, error = _run_chunk(self._evaluate, self.spec, [(task.index, task.creature, task.seed)])
            if error is not None:
                raise EvaluationFailed(*error)
            out.append(Outcome(done[0][1], done[0][2]))
            if progress is not None:
                progress(1)
        return out

    def close(self) -> None:
        pass

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- worker side ----------------------------------------------------------------------------------
_worker_evaluate: EvaluateFn | None = None
_worker_spec: Any = None


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


def _init_worker(evaluate: EvaluateFn, spec: Any, parent: int) -> None:
    global _worker_evaluate, _worker_spec
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    _worker_evaluate, _worker_spec = evaluate, spec
    log.info("worker %d started", os.getpid())


def _worker_chunk(chunk: Sequence[tuple[int, Creature, int]]) -> tuple[list, tuple | None, float]:
    start = time.perf_counter()
    done, error = _run_chunk(_worker_evaluate, _worker_spec, chunk)
    if error is not None:
        log.error("worker %d: creature %d: %s", os.getpid(), error[0], error[2])
    return done, error, time.perf_counter() - start


class ForkPool:
    """Evaluate in ``workers`` forked processes, ``chunksize`` tasks at a time (0: about eight chunks per
    worker per batch)."""

    def __init__(self, spec: Any, evaluate: EvaluateFn, workers: int, chunksize: int = 0):
        if workers < 2:
            raise ValueError("ForkPool needs at least 2 workers; use InProcess for 1")
        self.spec = spec
        self.workers = workers
        self.chunksize = chunksize
        warm_up(spec.world)
        context = multiprocessing.get_context("fork")
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(evaluate, spec, os.getpid()),
        )

    def _chunk_size(self, expected: int) -> int:
        return self.chunksize or max(1, math.ceil(expected / (8 * self.workers)))

    def evaluate(
        self, tasks: Iterable[Task], progress: Progress | None = None, expected: int | None = None
    ) -> list[Outcome]:
        """Evaluate ``tasks`` (a list, or an iterator whose tasks are sent off in chunks as they come,
        so that making the later ones overlaps with evaluating the first); outcomes in task order."""
        if expected is None:
            tasks = list(tasks)
            expected = len(tasks)
        size = self._chunk_size(expected)
        order: list[int] = []
        results: dict[int, Outcome] = {}
        pending: set = set()
        busy = 0.0

        def collect(block: bool) -> None:
            nonlocal pending, busy
            finished, pending = wait(pending, timeout=None if block else 0, return_when=FIRST_COMPLETED)
            for future in finished:
                try:
                    done, error, seconds = future.result()
                except BrokenProcessPool:
                    raise EvaluationFailed(-1, None, "a worker process died") from None
                busy += seconds
                for index, fitness, exploded in done:
                    results[index] = Outcome(fitness, exploded)
                if error is not None:
                    raise EvaluationFailed(*error)
                if progress is not None:
                    progress(len(done))

        try:
            chunk: list[tuple[int, Creature, int]] = []
            for task in tasks:
                order.append(task.index)
                chunk.append((task.index, task.creature, task.seed))
                if len(chunk) >= size:
                    pending.add(self._executor.submit(_worker_chunk, chunk))
                    chunk = []
                    collect(block=False)
            if chunk:
                pending.add(self._executor.submit(_worker_chunk, chunk))
            while pending:
                collect(block=True)
        finally:
            for future in pending:
                future.cancel()
        log.debug("%d evaluations, %.3f s of worker time", len(order), busy)
        return [results[index] for index in order]

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ForkPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_backend(spec: Any, workers: int, chunksize: int = 0, evaluate: EvaluateFn | None = None):
    """:class:`InProcess` for one worker, else :class:`ForkPool`; ``evaluate`` defaults to
    :func:`evo.evaluation.evaluate`."""
    if evaluate is None:
        from evo.evaluation import evaluate
    if workers <= 1:
        return InProcess(spec, evaluate)
    return ForkPool(spec, evaluate, workers, chunksize)


def default_workers() -> int:
    """The number of CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
