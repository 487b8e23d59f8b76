"""The generation loop of a run: ask, send the broods out, tell, and report each generation once its
checkpoint (when the run folder makes one) is durable, while the next one is bred and evaluated
(docs/runs.md, "Workers")."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from evo.ga.brood import Brood
from evo.ga.loop import Evolution
from evo.ga.search import ChildResult
from evo.run.backends import EvaluationFailed, Task
from evo.run.batching import chunk_ids, chunk_shares
from evo.run.callbacks import Callback, FailureMessage, GenerationStatus, member_of
from evo.run.config import Config
from evo.run.folder.writer import Prepared, RunFailed
from evo.run.memetic import refine_generation

__all__ = ["CHUNKS_PER_WORKER", "reported_and_stopped", "run_generations", "told_status"]

log = logging.getLogger("evo.run")

# with [pool] batch and no [pool] chunksize: chunks per worker process and generation (one: fewer and
# bigger chunks fill more lanes and cost less each), two of decreasing cost when the backend saw its
# workers share their cores (evo.run.batching.chunk_shares); in-process: one chunk (docs/performance.md,
# "Issue 29")
CHUNKS_PER_WORKER = len(chunk_shares(2)) // 2


def _failure(
    prepared: Prepared, broods: list[Brood], exc: EvaluationFailed, callbacks: list[Callback]
) -> str:
    """The run's one-line error for a failed evaluation; callbacks may save the creature and say where."""
    evolution = prepared.evolution
    g = evolution.generation + 1
    notes = []
    name = trace = ""
    if 0 <= exc.index < len(broods) and isinstance(exc.detail, tuple):
        child, creature, seed, *rest = exc.detail
        trace = str(rest[0]) if rest else ""
        brood = broods[exc.index]
        index = sum(b.evaluations for b in broods[: exc.index]) + sum(
            s is not None for s in brood.plugin_seeds[:child]
        )
        name = f"g{g}-{index}"
        for callback in callbacks:
            note = callback.on_failure(g, index, creature, seed, FailureMessage(exc.message, trace))
            if note:
                notes.append(note)
    message = f"generation {g}, creature {name}: {exc.message}" if name else f"generation {g}: {exc.message}"
    if exc.plugin and f"'{exc.plugin}'" not in exc.message:
        message = f"{message} (plugin '{exc.plugin}')"
    for note in notes:
        message += f"; {note}"
    if trace:
        log.error("the traceback of %s:\n%s", f"creature {name}" if name else "the failure", trace.rstrip())
    if prepared.folder is not None:
        if evolution.generation >= 0:
            message += f"; the last checkpoint (generation {evolution.generation}) is intact"
        else:
            message += "; no generation was finished, so there is no checkpoint: --resume starts the run over"
    return message


def _tasks(
    broods: list[Brood], config: Config, workers: int, contended: bool = False, last: float = 1.0
) -> list[Task]:
    """The generation's tasks in the order they are evaluated: with ``[pool] batch``, broods ordered by
    their parents' size, in chunks large enough for lanes (:func:`evo.run.batching.chunk_ids`; the
    last one ``last`` times as costly as each other one, :func:`~evo.run.batching.chunk_shares`);
    the results are the same in any order."""
    if not config.pool.batch or not broods:
        return [Task(index, brood, brood.evaluations) for index, brood in enumerate(broods)]
    size = config.pool.chunksize
    chunks = -(-len(broods) // size) if size else chunk_shares(workers, contended, last=last)
    ranked = sorted((rank, chunk, index) for index, (rank, chunk) in enumerate(chunk_ids(broods, chunks)))
    return [Task(index, broods[index], broods[index].evaluations, chunk) for _, chunk, index in ranked]


class _Stopped(Exception):
    """A callback asked, when the generation before was reported, to stop: the one under way is dropped."""


# a told generation waiting to be reported: its run.log line (format and values) and its status
Told = tuple[tuple[Any, ...], GenerationStatus]


def _report(told: Told, callbacks: list[Callback]) -> bool:
    """Report a told generation (the run folder's writer first: its checkpoint is durable once that
    returns), then log its ``run.log`` line. Returns whether a callback asked to stop."""
    line, status = told
    for callback in callbacks:
        callback.on_generation_end(status)
    log.info(*line)
    return status.stop_requested


def reported_and_stopped(told: Told, callbacks: list[Callback], generation: int, generations: int) -> bool:
    """Report a told generation (:func:`_report`, the last told: ``generation``); whether a callback
    asked to stop the run there, before its last generation (``run.log`` then says so)."""
    if _report(told, callbacks) and generation + 1 < generations:
        log.info("stopped on request after generation %d", generation)
        return True
    return False


def _written(callbacks: list[Callback]) -> bool:
    """Whether the callbacks that write in the background (the run folder's writer) are done with the
    generation told last, so that reporting it would not wait."""
    return all(getattr(callback, "written", _done)() for callback in callbacks)


def _done() -> bool:
    return True


def _one_generation(
    prepared: Prepared,
    backend: Any,
    callbacks: list[Callback],
    before: Callable[[], None] | None = None,
    beside: Callable[[], None] | None = None,
) -> Callable[[], Told]:
    """One generation: ask, breed and evaluate, tell. ``before`` (reporting the generation before, whose
    checkpoint is written meanwhile) is called once the work is out with the workers (worker processes:
    as soon as it is sent; in-process: after the first kernel call read back with lane threads, else
    the first brood evaluated, once the write is done, else when all are), or the generation fails;
    the callbacks hear of this generation's start after it.
    ``beside`` (the generation before's bookkeeping, :class:`_Later`) is called while the work is out:
    in-process, beside the chunk's kernel calls (:func:`evo.run.batching.prepare_broods`); with worker
    processes, before this process's own chunk, else with ``before``. Returns the tell's second part
    (the hall of fame, the statistics, the callbacks' ``on_generation_told``, then the next ask's draws
    where the search makes them ahead: :meth:`evo.ga.loop.Evolution.draw_ahead`), giving the generation's
    ``run.log`` line and status for the callbacks to report: run once, by a :class:`_Later`, at once or
    beside the next generation's work."""
    evolution = prepared.evolution
    g = evolution.generation + 1
    start = time.perf_counter()
    plan = evolution.ask()
    broods = list(plan.broods)
    asked = time.perf_counter()
    processes = getattr(backend, "processes", backend.workers)  # threads share one process's chunk
    last = getattr(backend, "last_weight", 1.0)  # the evo run process's own chunk beside dask's workers
    tasks = _tasks(broods, prepared.config, processes, backend.contended, last)
    evaluations = sum(task.weight for task in tasks)
    waiting = [before]

    def begin() -> None:
        report, waiting[0] = waiting[0], None
        if report is not None:
            report()
        for callback in callbacks:
            callback.on_generation_start(g, evaluations)

    def evaluated(count: int) -> None:  # 0: the work is out with the workers, none back yet
        if waiting[0] is not None:
            begin()
        if count:
            for callback in callbacks:
                callback.on_evaluated(count)

    def poll() -> None:  # in-process, after each brood (with lane threads, each kernel call read back too):
        # report the generation before once it is written
        if waiting[0] is not None:
            if beside is not None:
                beside()  # its checkpoint started, if the chunk did not already
            if _written(callbacks):
                begin()

    evaluated.poll = poll  # type: ignore[attr-defined]
    evaluated.beside = beside  # type: ignore[attr-defined]
    if before is None:
        begin()
    try:
        ranked = backend.run(tasks, evaluated)
    except EvaluationFailed as exc:
        if waiting[0] is not None:  # the generation before is reported (or its write fails) first
            begin()
        message = _failure(prepared, broods, exc, callbacks)
        log.error("%s", message)
        raise RunFailed(message) from None
    if waiting[0] is not None:
        begin()
    per_brood: list[list[ChildResult]] = [[] for _ in broods]
    for task, result in zip(tasks, ranked, strict=True):
        per_brood[task.index] = result
    results = [child for children in per_brood for child in children]  # in the plan's order
    done = time.perf_counter()
    tell_later = getattr(evolution, "tell_later", None)
    if tell_later is not None:
        finish_tell = tell_later(results)
    else:  # a search told in one part
        record = evolution.tell(results)
        finish_tell = lambda: record  # noqa: E731
    told = time.perf_counter()

    def finish() -> Told:
        started = time.perf_counter()
        record = refine_generation(prepared.config, evolution, finish_tell())  # [ga] refine
        kept = time.perf_counter() - started + told - done  # the tell's two parts
        first = prepared.plugin.objectives[0]
        timed_out = sum(r.evaluation is not None and r.evaluation.timed_out for r in results)
        report = (
            "generation %d: %d evaluations, %d exploded%s; %s best %.6g mean %.6g; selection %.3f s, "
            "breeding and evaluation %.3f s (%.1f evaluations/s), hall of fame and statistics %.3f s",
            g, evaluations, record["exploded"],
            f", {timed_out} timed out (worst fitness)" if timed_out else "",
            first, record[f"{first}_best"], record[f"{first}_mean"],
            asked - start, done - asked, evaluations / max(done - asked, 1e-9), kept,
        )  # fmt: skip
        status = told_status(prepared, callbacks, g, evaluations, record, done - start + kept)
        draw_ahead = getattr(evolution, "draw_ahead", None)
        if draw_ahead is not None:  # the next ask's draws, beside this work too (round twenty-two)
            draw_ahead()
        return report, status

    return finish


def told_status(
    prepared: Prepared, callbacks: list[Callback], g: int, evaluations: int, record: dict, seconds: float
) -> GenerationStatus:
    """The status of generation ``g`` once told (its logbook ``record``, the hall of fame now), given
    to the callbacks' ``on_generation_told`` (where the run folder's checkpoint starts)."""
    objectives = tuple(prepared.plugin.objectives)
    status = GenerationStatus(
        generation=g,
        generations=prepared.config.run.generations,
        evaluations=evaluations,
        stats=dict(record),
        hall_of_fame=tuple(member_of(ind, objectives) for ind in prepared.evolution.hall_of_fame),
        seconds=seconds,
    )
    for callback in callbacks:
        callback.on_generation_told(status)
    return status


class _Later:
    """A told generation's second part (:meth:`evo.ga.loop.Evolution.tell_later`, then the callbacks'
    ``on_generation_told``: its checkpoint starts there), done beside the next generation's work: at most
    once, and never raising an error there (inside a chunk, it could pass for a child's; an interrupt
    goes on at once); :meth:`told` gives the result, or raises the error it met."""

    def __init__(self, finish: Callable[[], Told]):
        self._finish = finish
        self._told: Told | None = None
        self._error: Exception | None = None
        self._ran = False

    @property
    def done(self) -> bool:
        """Whether it has run (told at once, or beside the next generation's work by now)."""
        return self._ran

    def __call__(self) -> None:
        if self._ran:
            return
        self._ran = True
        try:
            self._told = self._finish()
        except Exception as exc:  # raised again by told(), outside the chunk
            self._error = exc

    def told(self) -> Told:
        self()
        if self._error is not None:
            raise self._error
        assert self._told is not None
        return self._told


def _overlaps(prepared: Prepared) -> bool:
    """Whether a generation's checkpoint is written while the next one is bred and evaluated: with a run
    folder, for the GA (whose ``ask`` can be taken back when a callback stops the run meanwhile)."""
    return prepared.folder is not None and isinstance(prepared.evolution, Evolution)


def _defers(prepared: Prepared) -> bool:
    """Whether a generation's bookkeeping (its tell's second part, its callbacks' ``on_generation_told``)
    waits for the next generation's work to be out: when its checkpoint does (:func:`_overlaps`), unless
    a refinement changes the population after the tell (the next ``ask`` reads it)."""
    return _overlaps(prepared) and prepared.config.ga.refine is None


def run_generations(
    prepared: Prepared, backend: Any, callbacks: list[Callback], until: int | None = None
) -> bool:
    """Run generations until the last or a stop. With a run folder (the GA), each generation's
    bookkeeping is done and its checkpoint written while the next is bred and evaluated, and it is
    reported once written (docs/runs.md, "Workers").

    Args:
        prepared: the run (its evolution goes on in place).
        backend: where broods are bred and evaluated (:func:`evo.run.backends.make_backend`).
        callbacks: the listeners, the run folder's writer first.
        until: stop before this generation (told and reported up to the one before; None: the run's
            last), for a loop that goes on with another engine (:func:`evo.run.shards.run_sharded`).

    Returns:
        True when a callback stopped the run before its last generation.

    Raises:
        RunFailed: an evaluation failed or the run folder could not be written.
    """
    evolution = prepared.evolution
    total = prepared.config.run.generations
    generations = total if until is None else min(until, total)
    overlap, defer = _overlaps(prepared), _defers(prepared)
    previous: _Later | None = None  # the generation before: told at once, or its bookkeeping still due

    def stopped_after(told: Told) -> bool:
        return reported_and_stopped(told, callbacks, evolution.generation, total)

    while evolution.generation + 1 < generations:
        if previous is None or (previous.done and (not overlap or previous.told()[1].stop_requested)):
            # the first generation, or the one before reported first (stopped when told: nothing to drop)
            if previous is not None and stopped_after(previous.told()):
                return True
            finish = _one_generation(prepared, backend, callbacks)
        else:

            def report_previous(previous: _Later = previous) -> None:
                if _report(previous.told(), callbacks):
                    raise _Stopped

            try:
                finish = _one_generation(prepared, backend, callbacks, report_previous, previous)
            except _Stopped:
                evolution.take_back()  # the state is the reported generation's, as a resume has it
                kill = getattr(backend, "kill", None)
                if kill is not None:  # nothing the workers still do is wanted
                    kill()
                log.info("stopped on request after generation %d", evolution.generation)
                return True
            except BaseException:  # an interrupt or an error before its report: its checkpoint still starts
                previous()
                raise
        previous = _Later(finish)
        if not defer or evolution.generation + 1 >= generations:
            previous.told()  # told at once (what it raises, raised here)
    return previous is not None and stopped_after(previous.told())
