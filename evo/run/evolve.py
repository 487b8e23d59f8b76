"""``evolve()``: the generation loop of ``evo run``, as a library call with callbacks; its :class:`RunResult`,
and :func:`open_run` for a run folder on disk."""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.fitness import Plugin, plugin_of
from evo.ga.kernels.parents import forget_children
from evo.ga.loop import history_columns
from evo.ga.search import RunSearch
from evo.io.checkpoint.document import evolution_from_dict
from evo.io.checkpoint.qd import is_qd_checkpoint, qd_state_from_dict
from evo.io.provenance import Provenance
from evo.io.run_folder.contents import CHECKPOINT_ERRORS, RunContents, checkpoint_path, read_run
from evo.io.run_folder.folder import RunFolder
from evo.model import Creature
from evo.qd import ribs_missing
from evo.run.backends import Shards, backend_kind, make_backend
from evo.run.callbacks import (
    Callback,
    GenerationStatus,
    Member,
    ProgressBars,
    RunStart,
    as_callbacks,
    member_of,
)
from evo.run.config import Config, load_config, parse_config, pool_overrides, qd_settings, resolve
from evo.run.folder.archive import QDFolderWriter
from evo.run.folder.writer import FolderWriter, Prepared, RunFailed, loop_settings, prepare
from evo.run.generations import run_generations
from evo.run.job import (
    BreedContext,
    Evaluator,
    breed_and_evaluate,
    parent_may_evaluate,
    setup_worker,
    threads_may_evaluate,
    warm,
    with_plugin_files,
)
from evo.run.map_elites import Archive, archive_of, hall_of_fame_of, search_from_state
from evo.run.shards import run_sharded, why_not_sharded
from evo.sim import warm_up

__all__ = ["RunFailed", "RunResult", "evolve", "history_array", "open_run", "run_prepared"]

log = logging.getLogger("evo.run")

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
        evolution: the ask/tell state (a :class:`~evo.ga.search.RunSearch`: the GA's
            :class:`~evo.ga.loop.Evolution`), ready to continue; None when a run folder has no checkpoint.
        folder: the run folder, or None for a run kept in memory.
        generation: the last generation finished.
        stopped: True when a callback (or Ctrl-C) stopped it before its last generation.
        archive: a MAP-Elites run's :class:`~evo.run.map_elites.Archive` (None for the GA). Its
            ``evolution`` is then a :class:`~evo.qd.loop.QualityDiversity` (None when pyribs is missing).
    """

    config: Config
    history: np.ndarray
    hall_of_fame: tuple[Member, ...]
    evolution: RunSearch | None
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


def run_prepared(
    prepared: Prepared,
    callbacks: Sequence[Callback] = (),
    *,
    evaluate: Evaluator | None = None,
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
    thawed = gc.get_freeze_count() == 0  # else the caller froze objects: theirs to thaw, and ours with them
    try:
        start = RunStart(config, prepared.plugin, evolution, prepared.resumed, workers)
        for callback in callbacks:
            callback.on_run_start(start)
        spec = config.evaluation_spec()
        context = BreedContext(
            spec,
            config.genome,
            config.ga,
            evaluate=evaluate,
            timeout=config.evaluation.timeout,
            on_timeout=config.evaluation.on_timeout,
            batch=config.pool.batch,
            robust=config.evaluation.robust,
        )
        threads = threads_may_evaluate(context)
        kind = backend_kind(config.pool.backend, workers, threads)
        if kind == "shards" and not threads:
            log.info("the shards backend needs one of evo's plugins scored in lanes: using fork")
            kind = "fork"
        if kind in ("inprocess", "threads", "shards") and config.evaluation.timeout > 0:
            warm_up(spec.world)  # the kernel's compilation must not count against the first creature
        if kind == "dask":  # workers on other machines get the plugin's files with the context
            context = with_plugin_files(context)
        with make_backend(
            breed_and_evaluate,
            context,
            workers,
            config.pool.chunksize or 0,
            before_fork=lambda: _ready_to_fork(context, thawed),
            timeout=config.evaluation.timeout,
            kind=kind,
            address=config.pool.address,
            worker_setup=setup_worker,
            share=parent_may_evaluate(context),
        ) as backend:
            log.info("breeding and evaluating with %d worker(s)", backend.workers)
            if thawed:
                gc.freeze()  # what start-up made lives on: the collector no longer walks it
            stopped = _generation_loop(prepared, backend)(prepared, backend, callbacks)
        if not stopped:
            log.info("finished: %d generations", evolution.generation + 1)
    finally:
        forget_children()  # the last generation's arrays, kept for a breeding call that will not come
        if thawed:
            gc.unfreeze()
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
        history=history_array(objectives, evolution.logbook, evolution.columns),
        hall_of_fame=tuple(member_of(ind, objectives) for ind in evolution.hall_of_fame),
        evolution=evolution,
        folder=prepared.folder.path if prepared.folder else None,
        generation=evolution.generation,
        stopped=stopped,
        archive=archive,
    )


def _generation_loop(prepared: Prepared, backend: Any) -> Callable[..., bool]:
    """The run's generation loop: the shards backend's workers' (:func:`evo.run.shards.run_sharded`) where
    they can make the run's generations, else :func:`evo.run.generations.run_generations`."""
    if getattr(backend, "shards", False):
        reason = why_not_sharded(prepared, backend.context)
        if reason is None:
            return run_sharded
        if not isinstance(backend, Shards):  # (a local dask cluster: its chunks, as before)
            log.info("the dask workers make this run's generations in chunks: %s", reason)
            return run_generations
        like = "threads" if backend.workers >= 2 else "inprocess"
        log.info("the shards backend makes this run's generations as the %s backend does: %s", like, reason)
    return run_generations


def _ready_to_fork(context: BreedContext, freeze: bool) -> None:
    """Before worker processes fork: compile what they run (:func:`evo.run.job.warm`), then move every
    object this process holds to the collector's permanent generation, so that neither it nor the
    workers walk them in each full collection (a run makes a creature per child: full collections come
    often) and the workers' collections write into none of the pages they share (:func:`gc.freeze`;
    :func:`run_prepared` undoes it at the end)."""
    warm(context)
    if freeze:
        gc.freeze()


def _as_config(
    config: Config | str | os.PathLike | Mapping[str, Any], pool: Mapping[str, Any], fitness: Plugin | None
) -> Config:
    """The run's config, with ``evolve``'s ``[pool]`` changes and fitness: a file or a mapping is parsed
    once and resolved once; a :class:`Config` is changed only where they differ from it."""
    if isinstance(config, Config):
        if fitness is not None:
            config = config.with_fitness(fitness)
        current = config.to_dict()["pool"]
        changed = {key: value for key, value in pool.items() if current.get(key) != value}
        return config.replace(pool=changed) if changed else config
    if isinstance(config, str | os.PathLike):
        return load_config(config, overrides={"pool": pool}, fitness=fitness)
    if isinstance(config, Mapping):
        return resolve(parse_config(config, overrides={"pool": pool}), fitness=fitness)
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
        workers: processes (or, with the ``threads`` backend, threads) that evaluate (default
            ``[pool] workers``); 1 evaluates in this process.
        backend: ``"inprocess"``, ``"threads"``, ``"fork"``, ``"shards"`` or ``"dask"``, overriding
            ``[pool] backend``.
        address: the dask scheduler to use (``"tcp://host:8786"``), overriding ``[pool] address``; it
            implies ``backend="dask"``. With dask and no address, a local cluster of ``workers`` forked
            processes is started and closed at the end (docs/cluster.md).
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
    pool = pool_overrides(workers=workers, backend=backend, address=address)
    config = _as_config(config, pool, None if fitness is None else plugin_of(fitness))
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
    parsed = parse_config(contents.config, source=str(config_path), default_name=folder.name)
    config = resolve(parsed, require_plugin=False)
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
