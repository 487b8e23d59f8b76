"""The run folder as a listener on the loop: what may start or resume where (:func:`prepare`), and the
files written as generations are told (:class:`FolderWriter`: checkpoints at most every ``[run]
checkpoint_interval`` seconds; the folder is described in docs/runs.md).
"""

from __future__ import annotations

import contextlib
import logging
import time
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.fitness import Plugin, load_ref
from evo.ga.individual import Individual
from evo.ga.loop import Evolution, LoopSettings, history_columns
from evo.ga.search import RunSearch
from evo.io.atomic import open_for_appending
from evo.io.checkpoint.disk import HistoryLog, checkpoint_arrays
from evo.io.checkpoint.document import checkpoint_contents, evolution_from_dict
from evo.io.checkpoint.qd import is_qd_checkpoint, qd_state_from_dict
from evo.io.models import load_model
from evo.io.provenance import Provenance
from evo.io.run_folder.contents import CHECKPOINT_ERRORS
from evo.io.run_folder.folder import RunFolder, history_csv
from evo.io.run_lock import RunLock
from evo.io.tomlfiles import dumps_toml
from evo.model import Creature
from evo.run.callbacks import Callback, GenerationStatus, RunStart
from evo.run.config import Config
from evo.run.folder.elite_files import EliteFiles, generation_best, provenance_of
from evo.run.map_elites import new_search, search_from_state
from evo.run.worker_log import WorkerLogHandler

__all__ = ["FolderWriter", "Prepared", "RunFailed", "loop_settings", "prepare", "provenance_of"]

log = logging.getLogger("evo.run")

# keys that may change between a run and its --resume: how far it goes, and how it is computed
RESUMABLE_CHANGES = {
    ("run", "generations"),
    ("pool", "workers"),
    ("pool", "chunksize"),
    ("evaluation", "timeout"),
    ("evaluation", "on_timeout"),
    ("pool", "backend"),
    ("pool", "address"),
    ("pool", "batch"),
    ("run", "checkpoint_interval"),  # how often the folder is made durable, not what is written
    ("world", "terrain_file"),  # a label: the polylines are what is simulated (a folder before 0.2 lacks it)
}


class RunFailed(Exception):
    """The run stopped: an evaluation failed or the folder could not be written. One-line message; the
    last checkpoint is intact."""


@dataclass(frozen=True)
class Prepared:
    """A run ready to start or continue: nothing but the folder's lock has been written yet. ``folder``
    and ``lock`` are None in memory; :func:`evo.run.evolve.run_prepared` releases the lock at the end.
    ``evolution`` is the state machine: an :class:`Evolution`, or a
    :class:`~evo.qd.loop.QualityDiversity` for a MAP-Elites run."""

    config: Config
    folder: RunFolder | None
    plugin: Plugin
    evolution: RunSearch
    resumed: bool
    lock: RunLock | None = field(default=None, compare=False, repr=False)

    def release(self) -> None:
        """Release the run folder's lock (idempotent)."""
        if self.lock is not None:
            self.lock.release()


def loop_settings(config: Config, objectives: tuple[str, ...], weights: tuple[float, ...]) -> LoopSettings:
    """What the generation loop needs: the config's sizes and seed, the plugin's objectives and weights."""
    return LoopSettings(
        population=config.run.population,
        seed=config.run.seed,
        objectives=tuple(objectives),
        weights=tuple(weights),
        genome=config.genome,
        ga=config.ga,
    )


def _config_changes(old_text: str, config: Config, source: str) -> list[str]:
    """Keys of the saved config.toml that the new config changes (``[table] key``)."""
    try:
        old = tomllib.loads(old_text)
    except tomllib.TOMLDecodeError as exc:
        raise EvoInputError(f"cannot read the run's config: {exc}", source=source) from None
    new = tomllib.loads(dumps_toml(config.to_dict()))
    changed = []
    for table in sorted(set(old) | set(new)):
        a, b = old.get(table, {}), new.get(table, {})
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key) and (table, key) not in RESUMABLE_CHANGES:
                changed.append(f"[{table}] {key}")
    return changed


def prepare(
    config: Config, *, out: str | Path | None = None, resume: bool = False, force: bool = False
) -> Prepared:
    """Check that the run can start (or resume) in ``out`` (None: in memory), and lock the folder.

    The lock (:class:`~evo.io.run_lock.RunLock`) is taken before anything in the folder is read for the
    checks, so that no other process can start, resume or ``--force`` it from then on; it is released
    if a check fails (and a folder made for it removed). Nothing else is written.

    Raises:
        EvoInputError: the folder is in use by another run (:class:`~evo.io.run_lock.FolderInUse`, with
            its pid), it holds a run (without ``resume`` or ``force``), there is no checkpoint to resume,
            or the config changes more than ``[run] generations``, ``[pool]`` and the timeout.
    """
    plugin = load_ref(config.plugin)
    settings = loop_settings(config, plugin.objectives, plugin.weights)
    models = [load_model(path) for path in config.genome.seed_models]

    def start() -> Any:
        if config.map_elites:
            return new_search(config, plugin, models)
        return Evolution(settings, seed_models=models)

    if out is None:
        if resume:
            raise EvoInputError("resuming needs the run folder (out=...)")
        return Prepared(config, None, plugin, start(), resumed=False)
    folder = RunFolder(Path(out).absolute())  # once: a plugin's os.chdir cannot move the run
    folder.check_own_files()
    if not resume and not force:
        folder.check_not_foreign()  # refused without putting a lock file among someone else's files
    killed_as_it_started = resume and folder.holds_only_a_lock()  # checked before our own lock is made
    lock = RunLock.acquire(folder.path)
    try:
        if resume:
            evolution = None if killed_as_it_started else _resumed(config, folder, plugin, settings, models)
            if evolution is None:  # stopped before its first checkpoint: nothing was done, start over
                return Prepared(config, folder, plugin, start(), resumed=False, lock=lock)
        else:
            folder.check_new(force=force)
            evolution = start()
    except BaseException:
        lock.release()
        raise
    return Prepared(config, folder, plugin, evolution, resumed=resume, lock=lock)


def _resumed(
    config: Config, folder: RunFolder, plugin: Plugin, settings: LoopSettings, models: list
) -> RunSearch | None:
    """The evolution (or MAP-Elites search) of the folder's checkpoint, once the folder is locked; None for
    a run stopped before its first checkpoint (its config.toml only)."""
    folder.check_resumable()
    if folder.config.is_file():
        changed = _config_changes(folder.read_config_text(), config, str(folder.config))
        if changed:
            raise EvoInputError(
                f"{', '.join(changed)} differ(s) from the run's config.toml; only [run] generations, "
                "[pool] and the [evaluation] timeout may change when resuming (use --force to start over)",
                source=config.source,
            )
    if not (folder.checkpoint.is_file() or folder.legacy_checkpoint.is_file()):
        return None
    doc = folder.read_checkpoint(resuming=True, objectives=plugin.objectives, weights=plugin.weights)
    try:
        if config.map_elites:
            state = qd_state_from_dict(doc, plugin.weights)
            return search_from_state(state, config, plugin.weights, seed_models=models)
        if is_qd_checkpoint(doc):
            raise ValueError("it is a MAP-Elites run's, and the config asks for the GA")
        return evolution_from_dict(doc, settings, seed_models=models)
    except CHECKPOINT_ERRORS as exc:
        text = " ".join(str(exc).split())[:100]
        raise EvoInputError(
            f"cannot resume from this checkpoint: {text}", source=str(folder.checkpoint)
        ) from None


@contextlib.contextmanager
def run_logging(path: Path, level: int = logging.INFO) -> Iterator[None]:
    """Send the ``evo`` logger's records -- those of forked workers too -- to ``path`` (appending)."""
    logger = logging.getLogger("evo")
    stream = open_for_appending(path)  # never a FIFO, a device or through a link
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    handler.setLevel(level)
    wrapped = WorkerLogHandler(handler)
    old_level = logger.level
    logger.setLevel(level)
    logger.addHandler(wrapped)
    try:
        yield
    finally:
        logger.removeHandler(wrapped)
        logger.setLevel(old_level)
        stream.close()
        wrapped.close()


class FolderWriter(Callback):
    """Writes the run folder: ``config.toml`` at the start; ``run.log`` throughout; failed creatures under
    ``failed/``; and checkpoints. A generation told at least ``[run] checkpoint_interval`` seconds after
    the last checkpoint was started (the first one told, and every one with an interval of 0) is
    checkpointed: in a background thread while the next generation is bred and evaluated, and waited for
    before that generation is reported, its rows of ``history.csv`` and ``checkpoint.npz`` (the source of
    truth), durably, once ``generations/genNNNN.json`` of each generation told since the checkpoint
    before is (each written in that thread as it is told); then ``elites/`` and its own ``genNNNN.json``
    (one write at a time, in order; after one that failed, none). The last generation told is
    checkpointed when the run ends, however it ends (:meth:`close`), so a finished or stopped run's
    folder is the same whatever the interval."""

    def __init__(self, prepared: Prepared, *, clock: Callable[[], float] = time.monotonic):
        if prepared.folder is None:
            raise ValueError("FolderWriter needs a run folder")
        self.prepared = prepared
        self.folder: RunFolder = prepared.folder
        self.elites = EliteFiles(prepared.config, prepared.plugin)
        self.history = HistoryLog(self.folder.history)
        self.interval = prepared.config.run.checkpoint_interval
        self._clock = clock
        self._started: float | None = None  # when the last checkpoint write was started
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evo-run-writer")
        self._future: Future | None = None
        # (generation, state, its checkpoint write or None: not checkpointed when told)
        self._told: tuple[int, Any, Future | None] | None = None
        # since the last checkpoint: the best of each generation told, and the state told last
        self._bests: Future | None = None  # the last write of a generation's best since the checkpoint
        self._pending: Any = None
        # (writer thread) generations whose best is written, not yet durable; the last best written
        self._unsynced: list[int] = []
        self._last_best: tuple[int, str] | None = None
        self._logging: contextlib.ExitStack | None = None
        self._failed = False  # a write failed: close() writes nothing more

    # -- the loop's hooks -----------------------------------------------------------------------------
    def on_run_start(self, run: RunStart) -> None:
        prepared, folder = self.prepared, self.folder
        config_text = prepared.config.to_toml()
        try:
            if prepared.resumed:
                folder.remove_stale_temporaries()
                folder.write_config(config_text)
            else:
                folder.create(config_text, force=True)  # prepare() checked that it may
        except OSError as exc:  # a full disk at the start: one line, the lock released by the caller
            raise RunFailed(f"cannot write the run folder: {exc.strerror or exc}") from None
        self._logging = contextlib.ExitStack()
        self._logging.enter_context(run_logging(folder.log))
        if prepared.resumed:
            log.info(
                "resuming %s at generation %d of %d",
                folder.path,
                prepared.evolution.generation + 1,
                prepared.config.run.generations,
            )
            state = prepared.evolution.state()
            # the history as the checkpoint says (rows of a generation never checkpointed go), then the
            # elites and the last generation's best
            self.history.start(history_csv(self._columns(), state.logbook), rows=len(state.logbook))
            self._derived(state)()
        else:
            self.history.start(history_csv(self._columns(), []), rows=0)
            log.info("starting %s: %s", folder.path, "; ".join(prepared.config.describe()))

    def on_generation_told(self, status: GenerationStatus) -> None:
        state = self.prepared.evolution.state()  # told individuals never change: safe in the thread
        now = self._clock()
        if self._started is not None and self.interval > 0 and now - self._started < self.interval:
            # written with a later checkpoint, or when the run ends; its best now, in the background (a
            # checkpoint's wait for dozens at once held up the next generation: round twenty-three)
            self._best_now(state.generation, generation_best(state.population))
            self._pending = state
            self._told = (state.generation, state, None)
            return
        self._started = now
        self._told = (state.generation, state, self._checkpoint(state))

    def on_generation_end(self, status: GenerationStatus) -> None:
        if self._told is None or self._told[0] != status.generation:  # a caller without the told hook
            self.on_generation_told(status)
        assert self._told is not None
        _, state, written = self._told
        self._told = None
        if written is None:  # not checkpointed: nothing to wait for
            return
        self.join()  # the elites of the checkpoint before, written ahead of this one
        try:
            written.result()  # durable before the generation is reported
        except OSError as exc:
            self._failed = True
            raise RunFailed(f"cannot write the run folder: {exc}") from None
        self._future = self._executor.submit(self._derived(state))

    def written(self) -> bool:
        """Whether the checkpoint of the generation told last (if it is one), and the files of the one
        before, are written (so that its ``on_generation_end`` would not wait)."""
        told, derived = self._told, self._future
        return (told is None or told[2] is None or told[2].done()) and (derived is None or derived.done())

    def on_failure(self, generation: int, index: int, creature: Creature, seed: int, message: str) -> str:
        config = self.prepared.config
        name = f"g{generation}-{index}"
        meta = Provenance(
            run=config.run.name,
            id=name,
            generation=generation,
            plugin=config.evaluation.plugin,
            frames=config.evaluation.frames,
            plugin_paths=tuple(config.evaluation.plugin_paths),
            params=dict(config.evaluation.params),
            seed=seed,
            error=message,
        ).to_meta()
        trace = getattr(message, "traceback", "")
        if trace:  # the plugin's full traceback, beside the one-line error
            meta = {**meta, "traceback": trace}
        failed = creature.replace(
            name=f"{config.run.name}-{name}-failed", world=config.world.to_dict(), meta=meta
        )
        try:
            saved = self.folder.save_failed(failed, generation, index)
        except OSError as exc:
            return f"the creature could not be saved ({exc})"
        return f"the creature is saved as {saved}"

    def on_run_end(self, stopped: bool) -> None:
        try:
            self.close()
        finally:
            if self._logging is not None:
                self._logging.close()
                self._logging = None

    # -- writing --------------------------------------------------------------------------------------
    def _columns(self) -> list[str]:
        return history_columns(self.prepared.plugin.objectives)

    def _checkpoint_arrays(self, state: Any, history: dict[str, Any]) -> dict[str, Any]:
        head, groups = checkpoint_contents(state)
        return checkpoint_arrays({**head, "history": history}, groups)

    def _checkpoint(self, state: Any) -> Future:
        """Start the checkpoint of ``state`` in the writer thread, once the best of each generation told
        since the last checkpoint is written, as a resume could not make them again (``state``'s own
        comes with its elites, after it, unless it was told between checkpoints: the last one,
        checkpointed when the run ends)."""
        written = self._after_the_writes(lambda: self._write_checkpoint(state))
        self._bests, self._pending = None, None
        return written

    def _best_now(self, generation: int, best: Individual | None) -> None:
        """Start writing ``generations/genNNNN.json`` of a generation told between checkpoints in the
        writer thread, after the one told before it (:meth:`_after_the_writes`; the next checkpoint raises
        what it raised): atomically, and durable once the next checkpoint is, which syncs the bests since
        the last one together first (not two ``fsync`` s as each is written: docs/performance.md, "Round
        thirty-nine")."""

        def write() -> None:
            if best is not None:
                self._write_best(generation, self.elites.text(best), durable=False)
                self._unsynced.append(generation)

        self._bests = self._after_the_writes(write)

    def _after_the_writes(self, write: Callable[[], None]) -> Future:
        """``write`` started in the writer thread after the writes before it that a later one waits for
        (the elites of the checkpoint before, the best told last since): both done by then (one writer
        thread, in order); where either failed, its error is raised instead, so that after a write that
        failed nothing more is written."""
        before = [written for written in (self._future, self._bests) if written is not None]

        def work() -> None:
            for written in before:
                written.result()
            write()

        return self._executor.submit(work)

    def _write_checkpoint(self, state: Any) -> None:
        """Make the bests written since the last checkpoint durable, append the state's new logbook rows to
        history.csv, then write ``checkpoint.npz``: all durable when this returns (docs/runs.md, "What
        survives what")."""
        started = time.perf_counter()
        self.folder.make_bests_durable(self._unsynced)  # before the checkpoint that covers them
        self._unsynced.clear()
        new = state.logbook[self.history.rows :]
        if new:
            self.history.append(history_csv(self._columns(), new).split("\n", 1)[1])
        self.folder.write_checkpoint(self._checkpoint_arrays(state, self.history.mark()))
        log.debug("generation %d checkpointed in %.4f s", state.generation, time.perf_counter() - started)

    def _write_best(self, generation: int, text: str, durable: bool = True) -> None:
        """Write ``genNNNN.json`` (in the writer thread): a hard link to the last one written where its
        best is the same (most generations': docs/performance.md, "Round thirty-nine")."""
        last = self._last_best
        like = last[0] if last is not None and last[0] != generation and last[1] == text else None
        self.folder.write_generation_best(generation, text, durable=durable, like=like)
        self._last_best = (generation, text)

    def _derived(self, state: Any, best: bool = True) -> Callable[[], None]:
        """The work of writing the files derived from the state (elites, and unless not ``best`` the
        generation's best): captured now (cheap: told individuals never change), run in the writer
        thread."""
        folder = self.folder
        members = list(state.hall_of_fame)
        population = list(state.population) if best else []
        elites = self.elites

        def work() -> None:
            started = time.perf_counter()
            folder.write_elites(elites.texts(elites.names(members)))
            fittest = generation_best(population)
            if fittest is not None:
                self._write_best(state.generation, elites.text(fittest))  # often an elite's
            log.debug("generation %d written in %.3f s", state.generation, time.perf_counter() - started)

        return work

    def join(self) -> None:
        """Wait for the write in flight; its error, if any, is raised here as :class:`RunFailed`."""
        future, self._future = self._future, None
        if future is None:
            return
        try:
            future.result()
        except OSError as exc:
            self._failed = True
            raise RunFailed(f"cannot write the run folder: {exc}") from None

    def close(self) -> None:
        """Finish every write, and checkpoint the generation told last if it is not yet (told but not
        reported included); the first error is raised as :class:`RunFailed`."""
        told, self._told = self._told, None
        try:
            self.join()
            if told is not None and told[2] is not None:
                try:
                    told[2].result()
                except OSError as exc:
                    self._failed = True
                    raise RunFailed(f"cannot write the run folder: {exc}") from None
            if self._pending is not None and not self._failed:  # the last generation told
                state = self._pending
                self._future = self._checkpoint(state)
                self.join()
                # (its best was written when it was told, before the checkpoint: its elites alone now)
                self._future = self._executor.submit(self._derived(state, best=False))
                self.join()
        finally:
            self._executor.shutdown(wait=True)
