"""The generation loop of the ``shards`` backend: forked workers own the population as arrays and make
whole generations (:mod:`.state`); the ``evo run`` process tells each from worker 0's arrays
(:meth:`evo.ga.loop.Evolution.tell_bred`), keeps the books and reports it, and makes itself a generation
they cannot (then forks them again): the same results whoever made them (docs/runs.md, "Workers"). With
one worker, the ``evo run`` process makes the generations from arrays itself, one after another."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import multiprocessing
import os
import threading
import time
from multiprocessing.connection import wait
from typing import Any

import numpy as np

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
_PIPE_BYTES = 1 << 20  # worker 0's pipe (Linux: F_SETPIPE_SZ), so that it seldom waits for this process
_F_SETPIPE_SZ = 1031


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


def _stint_reason(evolution: Evolution, total: int) -> str | None:
    """Why a stint does not start from this state, or None (the compiled brood reads every member, and
    at least :data:`FEWEST` generations are left to make: fewer do not repay the workers' start)."""
    s = evolution.settings
    if evolution.generation < 0 or len(evolution.population) != s.population:
        return "no full population yet"
    if total - evolution.generation - 1 < FEWEST:
        return _TOO_FEW
    if not all(compiled_parent(ind.creature) for ind in evolution.population):
        return "a member with physics of its own"
    return None


def _worker(me: int, state: ShardState, out: Any, generations: range, parent: int) -> None:
    """A forked worker's loop: each generation planned, bred, its share of the kernel calls scored,
    the meeting point, the population moved on; worker 0 sends each generation, and any worker that
    cannot go on says why (and breaks the meeting point, so that the others stop there). Ctrl-C and
    SIGTERM are the ``evo run`` process's to act on, and the worker dies with it (as the fork pool's)."""
    leave_signals_to_parent(parent)
    barrier = state.shared.barrier
    g = generations.start
    try:
        for g in generations:
            planned = state.planned()
            children, laid = state.bred(*planned[1:])
            state.scored(laid, g % 2)
            barrier.wait()
            bred = state.moved_on(g, planned, children, laid)
            if me == 0:
                out.send(bred)
    except threading.BrokenBarrierError:
        pass  # another worker stopped, and says why
    except BaseException as exc:  # noqa: BLE001 (said to the evo run process, which makes the generation)
        with contextlib.suppress(Exception):
            barrier.abort()
            why = str(exc) if isinstance(exc, Unsupported) else f"{type(exc).__name__}: {exc}"
            out.send((g, why))
    finally:
        out.close()


class _Here:
    """One worker: the generations made from arrays in this process, each when asked for (nothing made
    ahead), by the :class:`~evo.run.shards.state.ShardState` a forked worker runs, on a copy of the run
    from the state after the last generation told (the run itself changes only as each is told)."""

    def __init__(self, evolution: Evolution, context: Any, cut: int = 0):
        evolution.drop_ahead()  # the copy's draws start where the next ask's would
        own = Evolution.from_state(evolution.state(), evolution.settings)
        shared = Shared.alone(evolution.settings.population)
        self.state = ShardState(own, context, shared, cut or CALLS_PER_WORKER)

    def next(self, g: int) -> BredGeneration | str:
        """Generation ``g`` (the next one), or why it cannot be made from arrays (as a forked worker
        says it: then it is made as the inprocess backend makes it, from the run's own state)."""
        state = self.state
        try:
            planned = state.planned()
            children, laid = state.bred(*planned[1:])
            state.scored(laid, g % 2)
            return state.moved_on(g, planned, children, laid)
        except Exception as exc:  # noqa: BLE001 (the generation is then made the other way, logged)
            return str(exc) if isinstance(exc, Unsupported) else f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        """Nothing to end."""


class _Stint:
    """Worker processes forked from the state of ``evolution`` now, making ``generations`` one after
    another until one they cannot make; :meth:`next` gives each in turn. ``cut``: about how many kernel
    calls a generation's children make (default :data:`CALLS_PER_WORKER` a worker)."""

    def __init__(self, evolution: Evolution, context: Any, workers: int, generations: range, cut: int = 0):
        fork = multiprocessing.get_context("fork")
        size = evolution.settings.population
        shared = Shared(
            workers, fork.Value("q", 0), fork.Barrier(workers),
            (np.frombuffer(fork.RawArray("d", size)), np.frombuffer(fork.RawArray("d", size))),
            tuple(np.frombuffer(fork.RawArray("b", size), dtype=np.bool_) for _ in range(2)),  # type: ignore[arg-type]
        )  # fmt: skip
        evolution.drop_ahead()  # the workers' draws start where the next ask's would
        state = ShardState(evolution, context, shared, cut or CALLS_PER_WORKER * workers)
        pipes = [fork.Pipe(duplex=False) for _ in range(workers)]
        with contextlib.suppress(OSError):  # (not Linux: the default size)
            fcntl.fcntl(pipes[0][1].fileno(), _F_SETPIPE_SZ, _PIPE_BYTES)
        self.readers = [reading for reading, _ in pipes]
        self.open = list(self.readers)  # those not at their end
        self.processes = [
            fork.Process(
                target=_worker,
                args=(me, state, pipes[me][1], generations, os.getpid()),
                name=f"evo-shard-{me}",
                daemon=True,
            )
            for me in range(workers)
        ]
        try:
            for process in self.processes:
                process.start()
        finally:
            for _, writing in pipes:
                writing.close()
        self.running = [process.sentinel for process in self.processes]  # those not seen to end
        self.died = False  # one ended unexpectedly (what worker 0 sent before is read first)
        self.why: tuple[int, str] | None = None  # the first generation a worker said it cannot make

    def next(self, g: int) -> BredGeneration | str:
        """Generation ``g`` (the next one), or why the workers did not make it. (A process's end is
        seen through its sentinel: no system call per generation asks after the workers.)"""
        first = self.readers[0]
        while True:
            if self.died and self.why is None and not first.poll():
                self.why = (g, "a worker process ended unexpectedly")
            if self.why is not None and self.why[0] <= g:
                return self.why[1]
            ready = wait([*self.open, *self.running])
            if first in ready:
                sent = self._read(first, g)
                if sent is not None:
                    return sent
                if first not in self.open:  # worker 0 ended without generation g
                    said = self.why[1] if self.why else "a worker process ended before its generation"
                    self.why = (g, said)
                continue
            for reader in self.open[1:]:
                if reader in ready:
                    self._read(reader, g)
            for process in self.processes:
                if process.sentinel in ready:  # it ended: unexpectedly, unless with every generation made
                    self.running.remove(process.sentinel)
                    self.died = self.died or process.exitcode != 0

    def _read(self, reader: Any, g: int) -> BredGeneration | None:
        """A message from a worker: worker 0's generation ``g``, or (noted) why one stopped; None for
        the latter, or where the worker ended (what it sent was read before)."""
        try:
            sent = reader.recv()
        except (EOFError, OSError):
            self.open.remove(reader)
            return None
        if isinstance(sent, BredGeneration):
            if sent.generation != g:
                raise RuntimeError(f"worker 0 sent generation {sent.generation}, expected {g}")
            return sent
        at, why = sent
        if self.why is None or at < self.why[0]:
            self.why = (at, why)
        return None

    def close(self) -> None:
        """End the workers (those still making generations nobody will read) and wait for them."""
        for process in self.processes:
            if process.is_alive():
                process.kill()
        for process in self.processes:
            process.join()
        for reader in self.readers:
            reader.close()


def _generation_told(
    prepared: Prepared, callbacks: list[Callback], bred: BredGeneration, seconds: float, by: str
) -> tuple[tuple[Any, ...], GenerationStatus]:
    """Tell a generation made from arrays (``by``: by whom, for the log), and give it to the callbacks:
    its ``run.log`` line and its status, for them to report."""
    evolution, g = prepared.evolution, bred.generation
    evaluations = int(bred.fitness.size)
    for callback in callbacks:
        callback.on_generation_start(g, evaluations)
        callback.on_evaluated(evaluations)
    started = time.perf_counter()
    record = evolution.tell_bred(bred)
    kept = time.perf_counter() - started
    first = prepared.plugin.objectives[0]
    line = (
        "generation %d: %d evaluations, %d exploded; %s best %.6g mean %.6g; selected, bred and evaluated"
        " %s in %.3f s (%.1f evaluations/s), told in %.3f s",
        g, evaluations, record["exploded"], first, record[f"{first}_best"], record[f"{first}_mean"], by,
        seconds, evaluations / max(seconds, 1e-9), kept,
    )  # fmt: skip
    return line, told_status(prepared, callbacks, g, evaluations, record, seconds + kept)


def run_sharded(prepared: Prepared, backend: Any, callbacks: list[Callback]) -> bool:
    """:func:`evo.run.generations.run_generations` for the ``shards`` backend (a run
    :func:`why_not_sharded` allows): each stint forks ``backend.workers`` workers from the state after
    the last generation told, which make the generations after it until the last, or until one they
    cannot make; that one is made here on ``backend`` (:class:`~evo.run.backends.threads.Threads`), as
    are generation 0 and the last few (:data:`FEWEST`), by
    :func:`~evo.run.generations.run_generations` (its checkpoints and bookkeeping beside the next
    generation's work). A generation the workers made is reported once the next is told here (its
    checkpoint written meanwhile). With one worker, each stint makes its generations from arrays in this
    process (:class:`_Here`), one at a time. Returns True when a callback stopped the run before its last
    generation."""
    evolution = prepared.evolution
    total = prepared.config.run.generations
    by = "by the shard workers" if backend.workers >= 2 else "from arrays in this process"
    told: Any = None  # the last generation told, not yet reported
    pause = wait_here = 0  # generations made here before the next stint is tried

    def stopped_after(previous: Any) -> bool:
        return reported_and_stopped(previous, callbacks, evolution.generation, total)

    while evolution.generation + 1 < total:
        reason = _stint_reason(evolution, total)
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
            stint: _Stint | _Here = _Stint(evolution, backend.context, backend.workers, range(start, total))
        else:
            stint = _Here(evolution, backend.context)
        try:
            since = time.perf_counter()
            for g in range(start, total):
                sent = stint.next(g)
                if isinstance(sent, str):
                    reason = sent
                    break
                arrived = time.perf_counter()
                if told is not None and stopped_after(told):
                    return True
                told = _generation_told(prepared, callbacks, sent, arrived - since, by)
                since = arrived
        finally:
            stint.close()
        if reason is None:
            break
        made = evolution.generation + 1 - start
        pause = 0 if made >= 2 else min(2 * pause or 1, _LONGEST_PAUSE)
        wait_here = pause + 1  # this generation, then the pause
        log.info("generation %d is made in this process: %s", evolution.generation + 1, reason)
    return told is not None and stopped_after(told)
