"""The generation loop of the ``shards`` backend: the ``evo run`` process (worker 0; with one worker,
alone) and ``workers - 1`` forked workers make whole generations from arrays together (:mod:`.state`);
it tells and reports each (:meth:`evo.ga.loop.Evolution.tell_bred`), in pieces where it would wait, and
makes a generation they cannot the other way (then forks them again): the same results whoever made
them (docs/runs.md, "Workers")."""

from __future__ import annotations

import collections
import contextlib
import logging
import multiprocessing
import os
import threading
import time
import traceback
from collections.abc import Callable, Generator, Iterator
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from evo.ga.bred import BredGeneration
from evo.ga.kernels.brood import compiled_parent
from evo.ga.loop import Evolution
from evo.run.backends.fork import leave_signals_to_parent
from evo.run.callbacks import Callback, GenerationStatus
from evo.run.folder.writer import Prepared
from evo.run.generations import reported_and_stopped, run_generations, told_status
from evo.run.job import warm
from evo.run.shards.state import ShardState, Shared, Unsupported
from evo.sim.batch import _euler_fast_path
from evo.sim.placement import is_level

__all__ = ["CALLS_PER_WORKER", "FEWEST", "run_sharded", "why_not_sharded"]

log = logging.getLogger("evo.run")

# a generation's children cut into about this many kernel calls per worker, taken one at a time from a
# shared counter, costliest first: heavy creatures' few calls then end together (docs/performance.md)
CALLS_PER_WORKER = 4
# a stint starts only with at least this many generations left to make (its workers' start, a fork
# each and the first generation's wait, costs about what two generations gain: docs/performance.md)
FEWEST = 4
# a stint that ends on a generation left to this process, after fewer than two of its own, is followed
# by generations made here before the next: one, then twice as many as the time before, up to this many
_LONGEST_PAUSE = 64
_TOO_FEW = "too few generations left"
_WHY_SECONDS = 5.0  # how long the reason of a partner that broke the meeting point is waited for


def why_not_sharded(prepared: Prepared, context: Any) -> str | None:
    """Why the ``shards`` backend's workers cannot make this run's generations (it then runs as the
    ``threads`` backend does), or None: they make a single-objective GA's generations without
    refinement, bred by the default (compiled) operators, on level ground (children are not lifted),
    simulated on the Euler fast path (``euler`` integrator, ``soda`` contact: its kernel reads the
    children's arrays), scored by the plugin's
    compiled reducer in lanes (whose kernel calls, as in every backend, no ``[evaluation] timeout``
    limits: their steps are bounded; a lane left to the plugin's Python is made here, under the limit)."""
    config = prepared.config
    if not isinstance(prepared.evolution, Evolution):
        return "a MAP-Elites run"
    if prepared.evolution.settings.multi_objective:
        return "more than one objective"
    if config.ga.refine is not None:
        return "[ga] refine"
    if context.breed_settings.compiled is None:
        return "operators other than the default ones"
    if context.reducer is None:
        return "a plugin without a compiled reducer"
    if not _euler_fast_path(context.spec.world):  # (the workers' kernel calls read the children's arrays)
        return "a kernel that packs its lanes from creatures (not the Euler fast path)"
    if not is_level(context.spec.world):  # (each new child is stood on it after breeding: evo.ga.brood)
        return "ground or terrain that is not level"
    return None


def _stint_reason(evolution: Evolution, total: int, workers: int) -> str | None:
    """Why a stint does not start from this state, or None (the compiled brood reads every member, and
    with forked workers at least :data:`FEWEST` generations are left to make: fewer do not repay their
    start; one worker forks nothing, and makes even one generation from arrays)."""
    s = evolution.settings
    if evolution.generation < 0 or len(evolution.population) != s.population:
        return "no full population yet"
    if workers >= 2 and total - evolution.generation - 1 < FEWEST:
        return _TOO_FEW
    if not all(compiled_parent(ind.creature) for ind in evolution.population):
        return "a member with physics of its own"
    return None


def _worker(me: int, state: ShardState, out: Any, generations: range, parent: int) -> None:
    """A forked worker's loop (worker ``me`` >= 1; the ``evo run`` process is worker 0): each generation
    planned, bred, its share of the kernel calls scored, the meeting point, the population moved on; a
    worker that cannot go on says why through ``out`` (and breaks the meeting point, so that the others
    stop there). Ctrl-C and SIGTERM are the ``evo run`` process's to act on, and the worker dies with it
    (as the fork pool's)."""
    leave_signals_to_parent(parent)
    barrier = state.shared.barrier
    state.me = me
    g = generations.start
    try:
        for g in generations:
            state.make(g)
    except threading.BrokenBarrierError:
        pass  # another worker stopped, and says why
    except BaseException as exc:  # noqa: BLE001 (said to the evo run process, which makes the generation)
        with contextlib.suppress(Exception):
            barrier.abort()
            out.send((g, _why(exc)))
    finally:
        out.close()


def _why(exc: BaseException) -> str:
    """Why a generation could not be made from arrays, as ``run.log`` says it: an unexpected error with
    where it was raised (a bug to report: the generation is still made, the other way)."""
    if isinstance(exc, Unsupported):
        return str(exc)
    at = "".join(
        f" (at {Path(f.filename).name}:{f.lineno})" for f in traceback.extract_tb(exc.__traceback__)[-1:]
    )
    return f"{type(exc).__name__}: {exc}{at}"


class _Here:
    """One worker: the generations made from arrays in this process, each when asked for (nothing made
    ahead), by the :class:`~evo.run.shards.state.ShardState` a forked worker runs, on a copy of the run
    from the state after the last generation told (the run itself changes only as each is told). With
    a ``shared`` of more workers (:class:`_Stint` forks the others), it is worker 0 among them, meeting
    point and all."""

    by = "from arrays in this process"  # (run.log: who selected, bred and evaluated a generation)
    behind = 0  # how many generations' books (:class:`_Books`) may wait while the next is made

    def __init__(self, evolution: Evolution, context: Any, cut: int = 0, shared: Shared | None = None):
        evolution.drop_ahead()  # the copy's draws start where the next ask's would
        own = Evolution.from_state(evolution.state(), evolution.settings)
        shared = shared or Shared.alone(evolution.settings.population)
        self.state = ShardState(own, context, shared, cut or CALLS_PER_WORKER * shared.workers)

    def next(self, g: int, meanwhile: Callable[[], bool] | None = None) -> BredGeneration | str:
        """Generation ``g`` (the next one), or why it cannot be made from arrays (then it is made as the
        threads or inprocess backend makes it, from the run's own state); ``meanwhile`` as
        :meth:`~evo.run.shards.state.ShardState.make` takes it (it must not raise)."""
        state = self.state
        try:
            return state.make(g, meanwhile)
        except threading.BrokenBarrierError:
            return self.partners_why()
        except Exception as exc:  # noqa: BLE001 (the generation is then made the other way, logged)
            if state.shared.barrier is not None:
                with contextlib.suppress(Exception):
                    state.shared.barrier.abort()
            if not isinstance(exc, Unsupported):  # (a bug: its traceback in run.log)
                log.warning("generation %d could not be made from arrays:", g, exc_info=exc)
            return _why(exc)

    def partners_why(self) -> str:
        """Why the meeting point broke (a partner's reason)."""
        return "a worker process ended unexpectedly"

    def close(self) -> None:
        """Nothing to end."""


class _Stint(_Here):
    """``workers - 1`` processes forked from the state of ``evolution`` now, making ``generations`` with
    this process as worker 0 (:class:`_Here`), until one they cannot make; :meth:`next` makes each in
    turn with them, worker 1 selecting and breeding it for this process
    (:class:`~evo.run.shards.state.Room`), and the ``evo run`` process keeps the books of each while
    the next is made (so two workers run in two processes, not three, and no generation crosses a pipe:
    docs/performance.md, "Round thirty", "Round thirty-one"). A partner that dies breaks the meeting
    point (a thread watches them). ``cut``: about how many kernel calls a generation's children make
    (default :data:`CALLS_PER_WORKER` a worker)."""

    by = "by the shard workers"
    behind = 1

    def __init__(self, evolution: Evolution, context: Any, workers: int, generations: range, cut: int = 0):
        fork = multiprocessing.get_context("fork")
        genome = evolution.settings.genome
        most = (
            max(genome.masses[1], *(ind.creature.n_masses for ind in evolution.population)),
            max(genome.max_links, *(ind.creature.n_links for ind in evolution.population)),
        )
        super().__init__(evolution, context, cut, Shared.forked(workers, evolution.settings.population, most))
        pipes = [fork.Pipe(duplex=False) for _ in range(workers - 1)]
        self.readers = [reading for reading, _ in pipes]
        self.processes = [
            fork.Process(
                target=_worker,
                args=(me, self.state, pipes[me - 1][1], generations, os.getpid()),
                name=f"evo-shard-{me}",
                daemon=True,
            )
            for me in range(1, workers)
        ]
        try:
            for process in self.processes:
                process.start()
        finally:
            for _, writing in pipes:
                writing.close()
        self.closing = False
        threading.Thread(target=self._watch, name="evo-shard-watch", daemon=True).start()

    def _watch(self) -> None:
        """Break the meeting point when a partner ends before the stint does."""
        wait([process.sentinel for process in self.processes])
        if not self.closing:
            self.state.shared.barrier.abort()

    def partners_why(self) -> str:
        """The first reason a partner sent, or that one ended (what it sent is read first)."""
        running = [process.sentinel for process in self.processes]
        for ready in wait([*self.readers, *running], timeout=_WHY_SECONDS):
            if ready in self.readers:
                with contextlib.suppress(EOFError, OSError):
                    return ready.recv()[1]
        return super().partners_why()

    def close(self) -> None:
        """End the partners (those still at a meeting point nobody will come to) and wait for them."""
        self.closing = True
        for process in self.processes:
            if process.is_alive():
                process.kill()
        for process in self.processes:
            process.join()
        for reader in self.readers:
            reader.close()


class _Books:
    """The ``evo run`` process's books of the generations made from arrays (reporting the one before,
    telling the next, its status: :func:`_generation_told`), in order, in pieces: with partners, those
    of a generation are done where this process would otherwise wait for them (:meth:`step`: for the
    next generation from worker 1, at its meeting point), the rest after it (:meth:`finish`):
    docs/performance.md, "Round thirty-one"."""

    def __init__(self) -> None:
        self.queue: collections.deque[Iterator[None]] = collections.deque()
        self.error: Exception | None = None
        self.stopped = False  # a callback asked to stop when a generation was reported

    def step(self) -> bool:
        """One piece; whether it was (not after an error: :meth:`finish` raises it)."""
        while self.queue and self.error is None and not self.stopped:
            try:
                next(self.queue[0])
            except StopIteration:
                self.queue.popleft()
                continue
            except Exception as exc:  # noqa: BLE001 (raised by finish, not taken for the generation's)
                self.error = exc
                return False
            return True
        return False

    def finish(self, keep: int = 0) -> bool:
        """All but the last ``keep`` generations' books done now (the error a piece met raised here);
        whether the run stops."""
        error, self.error = self.error, None
        if error is not None:
            raise error
        while len(self.queue) > keep and not self.stopped:
            for _ in self.queue.popleft():
                pass
        if self.stopped:
            self.queue.clear()
        return self.stopped


def _generation_told(
    prepared: Prepared, callbacks: list[Callback], bred: BredGeneration, seconds: float, by: str
) -> Generator[None, None, tuple[tuple[Any, ...], GenerationStatus]]:
    """Tell a generation made from arrays (``by``: by whom, for the log), and give it to the callbacks
    (two pieces of :class:`_Books`): its ``run.log`` line and its status, for them to report."""
    evolution, g = prepared.evolution, bred.generation
    evaluations = int(bred.fitness.size)
    for callback in callbacks:
        callback.on_generation_start(g, evaluations)
        callback.on_evaluated(evaluations)
    kept = 0.0  # (the pieces' time, not the waits between them)
    pieces = evolution.tell_bred_in_pieces(bred)
    while True:
        started = time.perf_counter()
        try:
            next(pieces)
        except StopIteration as told:
            record = told.value
            break
        finally:
            kept += time.perf_counter() - started
        yield
    first = prepared.plugin.objectives[0]
    line = (
        "generation %d: %d evaluations, %d exploded; %s best %.6g mean %.6g; selected, bred and evaluated"
        " %s in %.3f s (%.1f evaluations/s), told in %.3f s",
        g, evaluations, record["exploded"], first, record[f"{first}_best"], record[f"{first}_mean"], by,
        seconds, evaluations / max(seconds, 1e-9), kept,
    )  # fmt: skip
    yield
    return line, told_status(prepared, callbacks, g, evaluations, record, seconds + kept)


def run_sharded(prepared: Prepared, backend: Any, callbacks: list[Callback]) -> bool:
    """:func:`evo.run.generations.run_generations` for the ``shards`` backend (a run
    :func:`why_not_sharded` allows): each stint forks ``backend.workers - 1`` workers from the state
    after the last generation told, which make the generations after it with this process (worker 0,
    :class:`_Stint`; with one worker, this process alone: :class:`_Here`) until the last, or until one
    they cannot make; that one is made here on ``backend`` (:class:`~evo.run.backends.threads.Threads`),
    as are generation 0 and the last few (:data:`FEWEST`), by
    :func:`~evo.run.generations.run_generations` (its checkpoints and bookkeeping beside the next
    generation's work). Each generation made from arrays is told here (:class:`_Books`): with one
    worker as soon as it is made, with more in pieces while the next is made and the rest after it,
    and reported once the next is told (its checkpoint written meanwhile). Returns True when a callback
    stopped the run before its last generation."""
    evolution = prepared.evolution
    total = prepared.config.run.generations
    told: Any = None  # the last generation told, not yet reported
    pause = wait_here = 0  # generations made here before the next stint is tried

    def stopped_after(previous: Any) -> bool:
        return reported_and_stopped(previous, callbacks, evolution.generation, total)

    books = _Books()

    def books_of(bred: BredGeneration, seconds: float, by: str) -> Iterator[None]:
        nonlocal told
        if told is not None:  # (the one before: its books are done)
            previous, told = told, None
            if stopped_after(previous):
                books.stopped = True
                return
            yield
        told = yield from _generation_told(prepared, callbacks, bred, seconds, by)

    while evolution.generation + 1 < total:
        reason = _stint_reason(evolution, total, backend.workers)
        if wait_here or reason is not None:  # generations here, as the threads backend makes them
            if told is not None and stopped_after(told):
                return True
            told = None
            g = evolution.generation + 1
            until = total if reason == _TOO_FEW else g + max(wait_here, 1)
            wait_here = 0
            if run_generations(prepared, backend, callbacks, until):
                return True
            continue
        warm(backend.context)  # (once loaded, nothing: the workers inherit it loaded)
        start = evolution.generation + 1
        if backend.workers >= 2:
            stint: _Here = _Stint(evolution, backend.context, backend.workers, range(start, total))
        else:
            stint = _Here(evolution, backend.context)
        try:
            since = time.perf_counter()
            for g in range(start, total):
                sent = stint.next(g, books.step)
                if isinstance(sent, str):
                    if books.finish():
                        return True
                    reason = sent
                    break
                arrived = time.perf_counter()
                books.queue.append(books_of(sent, arrived - since, stint.by))
                if books.finish(stint.behind):
                    return True
                since = arrived
            else:
                if books.finish():
                    return True
        finally:
            stint.close()
        if reason is None:
            break
        made = evolution.generation + 1 - start
        pause = 0 if made >= 2 else min(2 * pause or 1, _LONGEST_PAUSE)
        wait_here = pause + 1  # this generation, then the pause
        log.info("generation %d is made in this process: %s", evolution.generation + 1, reason)
    return told is not None and stopped_after(told)
