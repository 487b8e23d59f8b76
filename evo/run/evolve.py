"""``evolve()``: the generation loop of ``evo run``, as a library call with callbacks; its :class:`RunResult`,
and :func:`open_run` for a run folder on disk."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.fitness import plugin_of
from evo.ga.brood import Brood
from evo.ga.loop import Evolution, history_columns
from evo.io.checkpoint import evolution_from_dict
from evo.io.provenance import Provenance
from evo.io.qd_checkpoint import is_qd_checkpoint, qd_state_from_dict
from evo.io.run_folder import RunFolder
from evo.io.runs import CHECKPOINT_ERRORS, RunContents, checkpoint_path, read_run
from evo.model import Creature
from evo.qd import ribs_missing
from evo.run.archive_writer import QDFolderWriter
from evo.run.backends import EvaluationFailed, Task, backend_kind, dask_address_problem, make_backend
from evo.run.batching import chunk_ids
from evo.run.callbacks import (
    Callback,
    FailureMessage,
    GenerationStatus,
    Member,
    ProgressBars,
    RunStart,
    as_callbacks,
    member_of,
)
from evo.run.config import Config, load_config, parse_config, qd_settings
from evo.run.folder import FolderWriter, Prepared, RunFailed, loop_settings, prepare
from evo.run.job import BreedContext, breed_and_evaluate, setup_worker, with_plugin_files
from evo.run.map_elites import Archive, archive_of, hall_of_fame_of, search_from_state
from evo.run.memetic import refine_generation
from evo.schema import shown
from evo.sim import warm_up

__all__ = ["RunFailed", "RunResult", "evolve", "history_array", "open_run", "run_prepared"]

log = logging.getLogger("evo.run")

# with [pool] batch: chunks per worker process and generation (fewer and bigger chunks fill more lanes
# with creatures of similar size and cost less per chunk -- a dask task each; more and smaller ones
# balance the workers' loads); in-process: one chunk. The chunks are cut to similar costs
# (evo.run.batching.chunk_ids), and one per worker measured 15-20 % faster on examples/walkers.toml
# with 2 fork workers than two (docs/performance.md, "Issue 18: the parent's part")
CHUNKS_PER_WORKER = 1

# set by evo/__init__.py: draws a RunResult for Jupyter (the drawing code lives above this layer)
HTML_RENDERER: Callable[[RunResult], str] | None = None


def history_array(
    objectives: Sequence[str], records: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None
) -> np.ndarray:
    """The history as a numpy structured array, one row per generation, the columns of ``history.csv``
    (``generation``, ``evaluations``, ``exploded`` and ``num_elites`` as integers, the rest as floats).
    ``columns`` defaults to the GA's (a MAP-Elites run adds the archive's figures)."""
    columns = list(columns) if columns is not None else history_columns(objectives)
    integer = {"generation", "evaluations", "exploded", "num_elites"}
    dtype = [(c, np.int64 if c in integer else np.float64) for c in columns]
    rows = [tuple(record.get(c, np.nan) for c in columns) for record in records]
    return np.array(rows, dtype=dtype)


@dataclass(frozen=True)
class RunResult:
    """A finished (or stopped) run.

    Attributes:
        config: the run's checked :class:`~evo.run.config.Config`.
        history: numpy structured array, one row per generation (``result.history["distance_best"]``).
        hall_of_fame: the best distinct creatures, best first (:class:`~evo.run.callbacks.Member`).
        evolution: the ask/tell state (:class:`~evo.ga.loop.Evolution`), ready to continue; None when a
            run folder has no checkpoint.
        folder: the run folder, or None for a run kept in memory.
        generation: the last generation finished.
        stopped: True when a callback (or Ctrl-C) stopped it before its last generation.
        archive: a MAP-Elites run's :class:`~evo.run.map_elites.Archive` (None for the GA). Its
            ``evolution`` is then a :class:`~evo.qd.loop.QualityDiversity` (None when pyribs is missing).
    """

    config: Config
    history: np.ndarray
    hall_of_fame: tuple[Member, ...]
    evolution: Any
    folder: Path | None
    generation: int
    stopped: bool = False
    archive: Archive | None = None

    @property
    def best(self) -> Member | None:
        """The best creature found (first of the hall of fame)."""
        return self.hall_of_fame[0] if self.hall_of_fame else None

    @property
    def objectives(self) -> tuple[str, ...]:
        """The plugin's objective names (those of the best member; () when the hall of fame is empty)."""
        return self.best.objectives if self.best else ()

    def _repr_html_(self) -> str | None:
        return HTML_RENDERER(self) if HTML_RENDERER is not None else None

    def __repr__(self) -> str:
        where = f" in {self.folder}" if self.folder else ""
        generations = f"{self.generation + 1} generations"
        archive = f", {self.archive}" if self.archive is not None else ""
        return f"RunResult({self.config.run.name!r}{where}: {generations}, best {self.best}{archive})"


# -- the loop --------------------------------------------------------------------------------------
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


def _tasks(broods: list[Any], config: Config, workers: int) -> list[Task]:
    """The generation's tasks in the order they are evaluated: with ``[pool] batch``, broods ordered by
    their parents' size, in chunks large enough for lanes (:func:`evo.run.batching.chunk_ids`);
    the results are the same in any order."""
    if not config.pool.batch or not broods:
        return [Task(index, brood, brood.evaluations) for index, brood in enumerate(broods)]
    size = config.pool.chunksize
    chunks = -(-len(broods) // size) if size else (CHUNKS_PER_WORKER * workers if workers > 1 else 1)
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


def _one_generation(
    prepared: Prepared,
    backend: Any,
    callbacks: list[Callback],
    before: Callable[[], None] | None = None,
) -> Told:
    """One generation: ask, breed and evaluate, tell. ``before`` (reporting the generation before, whose
    checkpoint is written meanwhile) is called once the work is out with the workers: when the first
    results come back, or the generation fails or ends; the callbacks hear of this generation's start
    after it. Returns the generation's ``run.log`` line and status, for the callbacks to report."""
    evolution = prepared.evolution
    g = evolution.generation + 1
    start = time.perf_counter()
    broods = evolution.ask()
    asked = time.perf_counter()
    tasks = _tasks(broods, prepared.config, backend.workers)
    evaluations = sum(task.weight for task in tasks)
    waiting = [before]

    def begin() -> None:
        report, waiting[0] = waiting[0], None
        if report is not None:
            report()
        for callback in callbacks:
            callback.on_generation_start(g, evaluations)

    def evaluated(count: int) -> None:
        if waiting[0] is not None:
            begin()
        for callback in callbacks:
            callback.on_evaluated(count)

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
    results: list[Any] = [None] * len(broods)
    for task, result in zip(tasks, ranked, strict=True):
        results[task.index] = result
    done = time.perf_counter()
    record = refine_generation(prepared.config, evolution, evolution.tell(results))  # [ga] refine
    told = time.perf_counter()
    first = prepared.plugin.objectives[0]
    timed_out = sum(getattr(kid[1], "timed_out", False) for kids in results for kid in kids)
    report = (
        "generation %d: %d evaluations, %d exploded%s; %s best %.6g mean %.6g; selection %.3f s, "
        "breeding and evaluation %.3f s (%.1f evaluations/s), hall of fame and statistics %.3f s",
        g, evaluations, record["exploded"],
        f", {timed_out} timed out (worst fitness)" if timed_out else "",
        first, record[f"{first}_best"], record[f"{first}_mean"],
        asked - start, done - asked, evaluations / max(done - asked, 1e-9), told - done,
    )  # fmt: skip
    objectives = tuple(prepared.plugin.objectives)
    status = GenerationStatus(
        generation=g,
        generations=prepared.config.run.generations,
        evaluations=evaluations,
        stats=dict(record),
        hall_of_fame=tuple(member_of(ind, objectives) for ind in evolution.hall_of_fame),
        seconds=told - start,
    )
    for callback in callbacks:
        callback.on_generation_told(status)
    return report, status


def _overlaps(prepared: Prepared) -> bool:
    """Whether a generation's checkpoint is written while the next one is bred and evaluated: with a run
    folder, for the GA (whose ``ask`` can be taken back when a callback stops the run meanwhile)."""
    return prepared.folder is not None and isinstance(prepared.evolution, Evolution)


def _take_back_ask(evolution: Evolution, rng: dict[str, Any]) -> None:
    """Undo an ``ask`` whose generation is dropped: its draws and its plan (the state is then exactly
    that of the generation before, as a resumed run would have it)."""
    evolution.rng.bit_generator.state = rng
    evolution._pending = None


def _generations(prepared: Prepared, backend: Any, callbacks: list[Callback]) -> bool:
    """Run generations until the last or a stop; True when stopped. With a run folder (the GA), each
    generation is reported while the next is bred and evaluated (:func:`_overlaps`)."""
    evolution = prepared.evolution
    generations = prepared.config.run.generations
    overlap = _overlaps(prepared)
    told: Told | None = None

    def stopped_after(told: Told) -> bool:
        if _report(told, callbacks) and evolution.generation + 1 < generations:
            log.info("stopped on request after generation %d", evolution.generation)
            return True
        return False

    while evolution.generation + 1 < generations:
        if told is None or not overlap or told[1].stop_requested:  # stopped when told: nothing to drop
            if told is not None and stopped_after(told):
                return True
            told = _one_generation(prepared, backend, callbacks)
            continue
        previous, rng = told, evolution.rng.bit_generator.state

        def report_previous(previous: Told = previous) -> None:
            if _report(previous, callbacks):
                raise _Stopped

        try:
            told = _one_generation(prepared, backend, callbacks, report_previous)
        except _Stopped:
            _take_back_ask(evolution, rng)
            kill = getattr(backend, "kill", None)
            if kill is not None:  # nothing the workers still do is wanted
                kill()
            log.info("stopped on request after generation %d", evolution.generation)
            return True
    return told is not None and stopped_after(told)


def run_prepared(
    prepared: Prepared,
    callbacks: Sequence[Callback] = (),
    *,
    evaluate: Callable[..., Any] | None = None,
) -> RunResult:
    """Evolve a prepared run until it has ``generations`` generations or a callback stops it.

    ``evaluate`` replaces :func:`evo.fitness.evaluate` (tests and benchmarks). The callbacks' hooks are
    called in order; ``on_run_end`` always, whatever happens; then the folder's lock is released.

    Raises:
        RunFailed: an evaluation failed or the run folder could not be written.
    """
    config, evolution = prepared.config, prepared.evolution
    callbacks = list(callbacks)
    workers = config.pool.workers or 1
    stopped = False
    try:
        start = RunStart(config, prepared.plugin, evolution, prepared.resumed, workers)
        for callback in callbacks:
            callback.on_run_start(start)
        spec = config.evaluation_spec()
        kind = backend_kind(config.pool.backend, workers)
        if kind == "inprocess" and config.evaluation.timeout > 0:
            warm_up(spec.world)  # the kernel's compilation must not count against the first creature
        context = BreedContext(
            spec,
            config.genome,
            config.ga,
            evaluate=evaluate,
            timeout=config.evaluation.timeout,
            on_timeout=config.evaluation.on_timeout,
            batch=config.pool.batch,
        )
        if kind == "dask":  # workers on other machines get the plugin's files with the context
            context = with_plugin_files(context)
        with make_backend(
            breed_and_evaluate,
            context,
            workers,
            config.pool.chunksize or 0,
            before_fork=lambda: warm_up(spec.world),
            timeout=config.evaluation.timeout,
            kind=kind,
            address=config.pool.address,
            worker_setup=setup_worker,
        ) as backend:
            log.info("breeding and evaluating with %d worker(s)", backend.workers)
            stopped = _generations(prepared, backend, callbacks)
        if not stopped:
            log.info("finished: %d generations", evolution.generation + 1)
    finally:
        errors = []
        try:
            for callback in callbacks:  # the last checkpoint is always finished, whatever happened
                try:
                    callback.on_run_end(stopped)
                except RunFailed as exc:
                    errors.append(exc)
        finally:
            prepared.release()  # the folder's lock, once its last file is written
        if errors:
            raise errors[0]
    objectives = tuple(prepared.plugin.objectives)
    archive = None
    if config.map_elites:
        archive = archive_of(evolution.state(), evolution.settings.archive)
    return RunResult(
        config=config,
        history=history_array(objectives, evolution.logbook, getattr(evolution, "columns", None)),
        hall_of_fame=tuple(member_of(ind, objectives) for ind in evolution.hall_of_fame),
        evolution=evolution,
        folder=prepared.folder.path if prepared.folder else None,
        generation=evolution.generation,
        stopped=stopped,
        archive=archive,
    )


def _as_config(config: Config | str | os.PathLike | Mapping[str, Any]) -> Config:
    if isinstance(config, Config):
        return config
    if isinstance(config, str | os.PathLike):
        return load_config(config)
    if isinstance(config, Mapping):
        return Config.from_dict(config)
    raise TypeError(f"expected a Config, a TOML path or a mapping, got {type(config).__name__}")


def evolve(
    config: Config | str | os.PathLike | Mapping[str, Any],
    *,
    fitness: Callable[..., Any] | str | None = None,
    out: str | os.PathLike | None = None,
    workers: int | None = None,
    backend: str | None = None,
    address: str | None = None,
    callbacks: Sequence[Callback | Callable[[GenerationStatus], Any]] = (),
    progress: bool = True,
    resume: bool = False,
    force: bool = False,
) -> RunResult:
    """Evolve creatures as ``config`` says: the same loop as ``evo run``, bit for bit.

    Args:
        config: a :class:`Config`, the path of a TOML config, or a mapping laid out like one.
        fitness: score with this instead of ``[evaluation] plugin``: a function ``f(result, **params)``
            (decorated with :func:`~evo.fitness.fitness_plugin` or not: then one objective, maximised), or
            the name of a plugin. The config's params are checked against its signature.
        out: the run folder to write, exactly as ``evo run --out`` does; None keeps the run in memory and
            writes nothing.
        workers: processes that evaluate (default ``[pool] workers``); 1 evaluates in this process.
        backend: ``"inprocess"``, ``"fork"`` or ``"dask"``, overriding ``[pool] backend``.
        address: the dask scheduler to use (``"tcp://host:8786"``), overriding ``[pool] address``; it
            implies ``backend="dask"``. With dask and no address, a LocalCluster of ``workers`` processes
            is started and closed at the end (docs/cluster.md).
        callbacks: called after each generation with a :class:`~evo.run.callbacks.GenerationStatus`
            (``status.stop()`` ends the run after that generation), or :class:`Callback` objects.
        progress: draw tqdm bars (generations, evaluations).
        resume: continue the run in ``out`` up to ``[run] generations``; ``force``: start over there.

    Returns:
        The :class:`RunResult`.

    Raises:
        EvoInputError: bad config or folder, or the folder is in use by another run (its pid is named;
            nothing was written).
        RunFailed: an evaluation failed (the creature is saved under ``failed/`` in a run folder).
    """
    config = _as_config(config)
    if fitness is not None:
        config = config.with_fitness(plugin_of(fitness))
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise EvoInputError(f"workers: expected an integer >= 1, got {workers!r}")
        config = config.replace(pool={"workers": workers}) if workers != config.pool.workers else config
    if backend is not None or address is not None:
        config = config.replace(pool=_pool_override(config, backend, address))
    prepared = prepare(config, out=out, resume=resume, force=force)
    try:
        listeners: list[Callback] = []
        if prepared.folder is not None:
            listeners.append(QDFolderWriter(prepared) if config.map_elites else FolderWriter(prepared))
        if progress:
            listeners.append(ProgressBars())
        listeners += as_callbacks(callbacks)
    except BaseException:
        prepared.release()
        raise
    return run_prepared(prepared, listeners)


def _pool_override(config: Config, backend: str | None, address: str | None) -> dict[str, Any]:
    """The ``[pool]`` keys that ``backend`` and ``address`` change (an address means dask)."""
    changes: dict[str, Any] = {}
    if address is not None:
        problem = dask_address_problem(address) if isinstance(address, str) else "expected a string"
        if problem is not None:
            raise EvoInputError(f"address: {problem}, got {shown(address)}")
        changes = {"backend": "dask", "address": address}
        if backend not in (None, "dask"):
            raise EvoInputError(f"address: only used with backend='dask', got backend={backend!r}")
    elif backend is not None:
        changes = {"backend": backend}
        if backend != "dask" and config.pool.address is not None:
            changes["address"] = None
    return changes


def open_run(path: str | os.PathLike) -> RunResult:
    """Read a run folder written by ``evo run`` (or :func:`evolve` with ``out``).

    The plugin need not be loadable here (a function registered from Python in another session): the
    config keeps its name. A run still being written is read as of its last checkpoint, without a lock.

    Args:
        path: the run folder.

    Returns:
        The :class:`RunResult`: the config, history, hall of fame and, when the folder has a checkpoint,
        the ask/tell state ready to continue (a MAP-Elites run's archive too).

    Raises:
        EvoInputError: not a run folder, or a file in it cannot be read.
    """
    contents = read_run(path)
    folder = Path(path)
    config_path = folder / "config.toml"
    if not config_path.is_file():
        raise EvoInputError("no config.toml: is this a run folder of evo run?", source=str(folder))
    config = parse_config(
        contents.config, source=str(config_path), default_name=folder.name, require_plugin=False
    )
    objectives = tuple(contents.objectives)
    evolution = None
    if contents.checkpoint is not None and is_qd_checkpoint(contents.checkpoint):
        return _open_map_elites(contents, config, folder)
    source = str(checkpoint_path(RunFolder(folder)))
    try:
        if contents.checkpoint is not None:
            weights = tuple(contents.weights)
            settings = loop_settings(config, objectives, weights)
            evolution = evolution_from_dict(contents.checkpoint, settings)
            members = tuple(member_of(ind, objectives) for ind in evolution.hall_of_fame)
            generation = evolution.generation
        else:
            source = str(folder / "history.csv")
            members = tuple(_member_from_file(entry.creature, objectives) for entry in contents.elites)
            generation = int(contents.history[-1]["generation"]) if contents.history else -1
        history = history_array(objectives, contents.history)
    except CHECKPOINT_ERRORS as exc:
        text = " ".join(str(exc).split())[:100]
        raise EvoInputError(f"cannot read the run: {type(exc).__name__}: {text}", source=source) from None
    return RunResult(
        config=config,
        history=history,
        hall_of_fame=members,
        evolution=evolution,
        folder=folder,
        generation=generation,
    )


def _open_map_elites(contents: RunContents, config: Config, folder: Path) -> RunResult:
    """:func:`open_run` of a MAP-Elites run folder: the archive from its checkpoint (and the state machine
    when pyribs is installed here)."""
    source = str(checkpoint_path(RunFolder(folder)))
    try:
        state = qd_state_from_dict(contents.checkpoint or {}, contents.weights)
        settings = qd_settings(config, tuple(state.objectives), tuple(contents.weights))
        evolution = None
        if not ribs_missing():
            evolution = search_from_state(state, config, contents.weights)
    except CHECKPOINT_ERRORS as exc:
        text = " ".join(str(exc).split())[:100]
        raise EvoInputError(
            f"cannot read the checkpoint: {type(exc).__name__}: {text}", source=source
        ) from None
    objectives = tuple(state.objectives)
    members = hall_of_fame_of(state, config.ga.hall_of_fame)
    return RunResult(
        config=config,
        history=history_array(objectives, contents.history, settings.columns),
        hall_of_fame=tuple(member_of(ind, objectives) for ind in members),
        evolution=evolution,
        folder=folder,
        generation=state.generation,
        archive=archive_of(state, settings.archive),
    )


def _member_from_file(creature: Creature, objectives: tuple[str, ...]) -> Member:
    provenance = Provenance.from_meta(creature.meta)
    if provenance is None:
        return Member(creature, (), objectives, creature.name, -1)
    return Member(
        creature=creature,
        fitness=provenance.fitness or (),
        objectives=provenance.objectives or objectives,
        id=provenance.id,
        generation=provenance.generation,
        parents=provenance.parents,
        seed=provenance.seed,
    )
