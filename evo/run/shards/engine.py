"""The generation loop of the ``shards`` backend: the ``evo run`` process (worker 0; with one worker,
alone) and ``workers - 1`` forked workers -- or a local dask cluster's chunk runners -- make whole
generations from arrays together (:mod:`.state`); it tells and reports each (:mod:`.books`), and makes a
generation they cannot the other way (then starts them again): the same results whoever made them
(docs/runs.md, "Workers"; docs/cluster.md)."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import wait
from typing import Any

from evo.ga.bred import BredGeneration
from evo.ga.kernels.brood import compiled_parent
from evo.ga.loop import Evolution
from evo.run.backends.fork import leave_signals_to_parent
from evo.run.callbacks import Callback
from evo.run.folder.writer import Prepared
from evo.run.generations import reported_and_stopped, run_generations
from evo.run.job import warm
from evo.run.shards.books import Books, generation_told
from evo.run.shards.remote import why
from evo.run.shards.shared import Stalled, Watch
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
# with dask partners (Partnered): this process's first share of a generation's kernel calls, as a part of
# an equal share (it also keeps the books; then the shares follow each generation's waits: _balance)
FIRST_SHARE = 0.9
_GAIN = 0.3  # how much of a generation's measured imbalance the next generation's shares correct
_LEAST = 0.05  # the least share of the calls this process keeps, and the most it leaves to partners
_LOST = "a dask worker of the local cluster was lost"


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


def _room_sizes(evolution: Evolution) -> tuple[int, int]:
    """The most masses and links a child of this run may have (its genome's limits, or a member's larger
    counts): what worker 1's :class:`~evo.run.shards.shared.Room` is made to hold."""
    genome = evolution.settings.genome
    return (
        max(genome.masses[1], *(ind.creature.n_masses for ind in evolution.population)),
        max(genome.max_links, *(ind.creature.n_links for ind in evolution.population)),
    )


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
            out.send((g, why(exc)))
    finally:
        out.close()


class _Here:
    """One worker: the generations made from arrays in this process, each when asked for (nothing made
    ahead), by the :class:`~evo.run.shards.state.ShardState` a forked worker runs, on a copy of the run
    from the state after the last generation told (the run itself changes only as each is told). With
    a ``shared`` of more workers (:class:`_Stint` forks the others), it is worker 0 among them, meeting
    point and all."""

    by = "from arrays in this process"  # (run.log: who selected, bred and evaluated a generation)
    behind = 0  # how many generations' books (evo.run.shards.books) may wait while the next is made

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
            return self._made(g, meanwhile)
        except threading.BrokenBarrierError:
            return self.partners_why()
        except Exception as exc:  # noqa: BLE001 (the generation is then made the other way, logged)
            if state.shared.barrier is not None:
                with contextlib.suppress(Exception):
                    state.shared.barrier.abort()
            if isinstance(exc, Stalled):  # (not the generation's doing: said louder than a reason)
                log.warning("generation %d: %s; it is made in this process", g, exc)
            elif not isinstance(exc, Unsupported):  # (a bug: its traceback in run.log)
                log.warning("generation %d could not be made from arrays:", g, exc_info=exc)
            return why(exc)

    def _made(self, g: int, meanwhile: Callable[[], bool] | None) -> BredGeneration:
        return self.state.make(g, meanwhile)

    def partners_why(self) -> str:
        """Why the meeting point broke (a partner's reason)."""
        return "a worker process ended unexpectedly"

    def close(self) -> None:
        """Nothing to end."""


class _Stint(_Here):
    """``workers - 1`` processes forked from the state of ``evolution`` now, making ``generations`` with
    this process as worker 0 (:class:`_Here`), until one they cannot make; :meth:`next` makes each in
    turn with them, worker 1 selecting and breeding it for this process
    (:class:`~evo.run.shards.shared.Room`), and the ``evo run`` process keeps the books of each while
    the next two are made (so two workers run in two processes, not three, and no generation crosses a
    pipe: docs/performance.md, "Round thirty", "Round thirty-one", "Round thirty-four"; with one
    generation's books left, it ran out of books to do while worker 1 bred). A partner that dies breaks
    the meeting point (a thread watches them); partners that make no progress for too long while this
    process waits for them (stopped, or stuck) end the stint (:class:`~evo.run.shards.shared.Watch`,
    ``hint``: the seconds a generation took before it). ``cut``: about how many kernel calls a
    generation's children make (default :data:`CALLS_PER_WORKER` a worker)."""

    by = "by the shard workers"
    behind = 2

    def __init__(
        self,
        evolution: Evolution,
        context: Any,
        workers: int,
        generations: range,
        cut: int = 0,
        hint: float = 0.0,
    ):
        fork = multiprocessing.get_context("fork")
        shared = Shared.forked(workers, evolution.settings.population, _room_sizes(evolution), hint)
        super().__init__(evolution, context, cut, shared)
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


class Partnered(_Here):
    """A stint of the ``evo run`` process (party 0) and ``pool``'s chunk runners (parties 1..): each makes
    every generation of ``generations`` from arrays on its own copy of the run and scores its share of
    the kernel calls (:meth:`~evo.run.shards.state.ShardState.scored_share`); this process sends each
    partner the last generation's scores with the next generation's step as soon as it has them all,
    then moves its own copy on and tells the generation (its books in pieces where it waits for the
    partners). The steps go through a pipe to each runner's worker, forked by the local cluster with it
    (:meth:`~evo.run.backends.dask_pool.DaskPool.partner_pipes`). ``pool``: a
    :class:`~evo.run.backends.dask_pool.DaskPool` with chunk runners."""

    by = "by this process and the dask workers"
    behind = 1

    def __init__(
        self,
        evolution: Evolution,
        context: Any,
        pool: Any,
        generations: range,
        cut: int = 0,
        hint: float = 0.0,
    ):
        self.parties = 1 + pool.partners()
        self.hint = hint  # the seconds a generation took before the stint (how long partners may be silent)
        super().__init__(evolution, context, cut or CALLS_PER_WORKER * self.parties)
        self.pool, self.stop = pool, generations.stop
        first = FIRST_SHARE / self.parties
        rest = (1.0 - first) / max(1, self.parties - 1)
        self.weights = (first, *[rest] * (self.parties - 1))
        own = self.state
        begin = (own.arrays(), own.evolution.rng.bit_generator.state, own.generation, own.evolution.settings)
        self.begin: tuple | None = (*begin, own.cut)
        self.pipes: list[Any] = []  # to each partner, once they serve
        self.sent: int | None = None  # the generation whose steps are out
        self.lost = False
        self.stalled: list[int] = []  # the partners (runner numbers) that gave no answer for too long

    def _send(self, g: int, scores: tuple | None) -> None:
        """Generation ``g``'s step to every partner (with the copy to make at the stint's first).

        Raises:
            Unsupported: a partner is gone."""
        if not self.pipes:
            try:
                self.pipes = self.pool.partner_pipes()
            except Exception as exc:  # noqa: BLE001 (the generation is then made in chunks)
                raise Unsupported(f"the chunk runners could not serve steps: {exc}") from None
        for me, pipe in enumerate(self.pipes, start=1):
            data = (g, scores, self.weights, me, self.begin)
            try:
                pipe.send_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
            except OSError:
                self.lost = True
                raise Unsupported(_LOST) from None
        self.begin, self.sent = None, g

    def _made(self, g: int, meanwhile: Callable[[], bool] | None) -> BredGeneration:
        state = self.state
        if self.sent != g:
            self._send(g, None)
        planned = state.planned()
        children, laid = state.bred(*planned[1:])
        started = time.perf_counter()
        state.scored_share(laid, g % 2, self.weights, 0)
        self._gathered(g, meanwhile, time.perf_counter() - started)
        if g + 1 < self.stop:  # the partners go on at once; this process moves on and tells meanwhile
            self._send(g + 1, state._scores(g, children[0].shape[0]))
        return state.moved_on(g, planned, children, laid)

    def _gathered(self, g: int, meanwhile: Callable[[], bool] | None, own: float) -> None:
        """The partners' scores of generation ``g`` put into this process's arrays, ``meanwhile`` called
        while none is there; then the next generation's shares set (:meth:`_balance`). The partners may
        keep this process blocked as long as the forked workers' :class:`~evo.run.shards.shared.Watch`
        allows them to be silent (``own``, this process's share's seconds, over its share: the scale).

        Raises:
            Unsupported: a partner could not make its share (why), or was lost.
            Stalled: a partner gave no answer for that long (its runners are then dropped)."""
        fitness, exploded = self.state.shared.fitness[g % 2], self.state.shared.exploded[g % 2]
        waiting, blocked, last, silent = list(self.pipes), 0.0, 0.0, 0.0
        limit = Watch.allowed(max(self.hint, own / self.weights[0]))
        while waiting:
            ready = wait(waiting, timeout=0)
            if not ready:
                if meanwhile is not None and meanwhile():
                    continue
                meanwhile = None
                since = time.perf_counter()
                ready = wait(waiting, timeout=min(self.pool.poll, limit))
                spent = time.perf_counter() - since
                blocked += spent
                silent += min(spent, self.pool.poll + Watch.WATCHED)  # (not a time this process was stopped)
                if not ready:
                    self.pool.check_partners()
                    if silent > limit:  # (their workers are ended, the runners dropped: close)
                        self.stalled = [me for me, pipe in enumerate(self.pipes) if pipe in waiting]
                        said = f"a dask chunk runner gave no answer for {limit:.3g} s (stopped or stuck)"
                        raise Stalled(said)
                    continue
            for pipe in ready:
                waiting.remove(pipe)
                try:
                    made, why, detail, members, got, burst, done = pickle.loads(pipe.recv_bytes())
                except (EOFError, OSError):
                    self.lost = True
                    raise Unsupported(_LOST) from None
                if why is not None:
                    if detail is not None:
                        log.warning("generation %d: a dask worker's error:\n%s", made, detail)
                    raise Unsupported(why)
                fitness[members], exploded[members] = got, burst
                last = max(last, done)
        self._balance(own, blocked, max(0.0, time.perf_counter() - last))

    def _balance(self, own: float, blocked: float, late: float) -> None:
        """The next generation's shares: this process's share grows by the part of the generation's
        calls it waited for the partners (``blocked``, with no books left to keep), and shrinks by the part
        the partners' last answer waited for it (``late``); ``own``: its own calls' seconds."""
        first = self.weights[0]
        if own <= 0.0 or self.parties < 2:
            return
        total = own / first  # (about: every party's calls, at this process's pace)
        first = min(1.0 - _LEAST, max(_LEAST, first + _GAIN * (blocked - late) / total))
        rest = (1.0 - first) / (self.parties - 1)
        self.weights = (first, *[rest] * (self.parties - 1))

    def close(self) -> None:
        """The partners stop serving steps (also those asked to that did not start); a lost one's runners
        are dropped from the pool (chunks go as tasks from now on), and a stalled one's worker is ended
        first."""
        self.pool.end_partners()
        if self.stalled:
            self.pool.partner_lost(stalled=self.stalled)
        elif self.lost:
            self.pool.partner_lost()


def run_sharded(prepared: Prepared, backend: Any, callbacks: list[Callback]) -> bool:
    """:func:`evo.run.generations.run_generations` for the ``shards`` backend, and for a local dask
    cluster's (a run :func:`why_not_sharded` allows): each stint forks ``backend.workers - 1`` workers
    from the state after the last generation told, which make the generations after it with this process
    (worker 0, :class:`_Stint`; with one worker, this process alone: :class:`_Here`; on a local dask
    cluster, its chunk runners with this process: :class:`Partnered`) until the last, or until one they
    cannot make; that one is made here on ``backend`` (:class:`~evo.run.backends.threads.Threads`, or the
    dask pool's chunks), as are generation 0 and the last few (:data:`FEWEST`), by
    :func:`~evo.run.generations.run_generations` (its checkpoints and bookkeeping beside the next
    generation's work). Each generation made from arrays is told here
    (:class:`~evo.run.shards.books.Books`): with one worker as soon as it is made, with more in pieces
    while the next ones are made (:attr:`_Here.behind` of them) and the rest after them, and reported
    once the next is told (its checkpoint written meanwhile). Returns True when a callback stopped the
    run before its last generation."""
    evolution = prepared.evolution
    total = prepared.config.run.generations
    told: Any = None  # the last generation told, not yet reported
    pause = wait_here = 0  # generations made here before the next stint is tried
    slowest = 0.0  # the longest a generation took so far (seconds): how long partners may be silent

    def stopped_after(previous: Any) -> bool:
        return reported_and_stopped(previous, callbacks, evolution.generation, total)

    books = Books()

    def books_of(bred: BredGeneration, seconds: float, by: str) -> Iterator[None]:
        nonlocal told
        if told is not None:  # (the one before: its books are done)
            previous, told = told, None
            if stopped_after(previous):
                books.stopped = True
                return
            yield
        told = yield from generation_told(prepared, callbacks, bred, seconds, by)

    partners = getattr(backend, "partners_why", None)  # (a local dask cluster's chunk runners)
    while evolution.generation + 1 < total:
        reason = _stint_reason(evolution, total, backend.workers)
        why_not, good = None, False  # (the partners', where asked)
        if partners is not None and reason in (None, _TOO_FEW):
            why_not, good = partners()  # (adopts a local cluster started meanwhile)
            if reason == _TOO_FEW and backend.processes == 1:  # (the cluster not ready yet, or no worker
                reason = _stint_reason(evolution, total, 1)  # left: this process alone, as one worker)
        for_good = reason == _TOO_FEW  # (the rest is made here, else one generation before the next try)
        alone = None  # why partners are not ready yet: this process makes generations from arrays meanwhile
        if reason is None and partners is not None:
            for_good = good
            if for_good:
                reason = why_not
            else:
                alone = why_not
        if wait_here or reason is not None:  # generations here, as the threads backend makes them
            if told is not None and stopped_after(told):
                return True
            told = None
            g = evolution.generation + 1
            until = total if for_good else g + max(wait_here, 1)
            wait_here = 0
            began, first = time.perf_counter(), evolution.generation
            if run_generations(prepared, backend, callbacks, until):
                return True
            if evolution.generation > first:
                slowest = max(slowest, (time.perf_counter() - began) / (evolution.generation - first))
            continue
        warm(backend.context)  # (once loaded, nothing: the workers inherit it loaded)
        start = evolution.generation + 1
        if partners is not None and alone is None:
            stint: _Here = Partnered(evolution, backend.context, backend, range(start, total), hint=slowest)
        elif backend.workers >= 2 and partners is None:
            stint = _Stint(evolution, backend.context, backend.workers, range(start, total), hint=slowest)
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
                slowest = max(slowest, arrived - since)
                books.queue.append(books_of(sent, arrived - since, stint.by))
                if books.finish(stint.behind):
                    return True
                since = arrived
                if alone is not None and partners() != (alone, False):  # (ready, or for good not)
                    break
            else:
                if books.finish():
                    return True
        finally:
            stint.close()
        if alone is not None and reason is None:  # (the partners' stint next, or the other way)
            continue
        if reason is None:
            break
        made = evolution.generation + 1 - start
        pause = 0 if made >= 2 else min(2 * pause or 1, _LONGEST_PAUSE)
        wait_here = pause + 1  # this generation, then the pause
        log.info("generation %d is made in this process: %s", evolution.generation + 1, reason)
    return told is not None and stopped_after(told)
