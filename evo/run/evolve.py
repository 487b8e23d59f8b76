"""One run of ``evo run``: a checked config -> a run folder, evolved generation by generation.

:func:`prepare` does everything that can fail on bad input *before* anything is written (the config is
already loaded; here: the folder's state, the seed models, the checkpoint and whether the config matches
it), then :func:`execute` creates or reopens the folder, starts the log and the evaluation backend and
drives :class:`evo.ga.loop.Evolution` until ``generations`` generations exist or a stop is requested.
After every generation it writes ``checkpoint.json``, then ``history.csv`` and ``elites/`` (both derived
from the checkpoint, and rewritten from it first when resuming). Printing is left to the command line:
this module reports through a :class:`Progress` object and the ``evo`` logger (``run.log``).
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from multiprocessing_logging import MultiProcessingHandler

from evo.errors import EvoInputError
from evo.fitness import Plugin, load_ref
from evo.ga.brood import Brood
from evo.ga.individual import Individual
from evo.ga.loop import Evolution, LoopSettings, history_columns
from evo.io.checkpoint import encode_numbers, evolution_from_dict, model_document, state_parts
from evo.io.models import dumps_model, load_model
from evo.io.run_folder import RunFolder, elite_file_name, model_digest
from evo.io.tomlfiles import dumps_toml
from evo.model import Creature
from evo.run.backends import EvaluationFailed, Task, make_backend, warm_up
from evo.run.config import Config
from evo.run.job import BreedContext, breed_and_evaluate

__all__ = ["Prepared", "Progress", "RunFailed", "RunResult", "execute", "prepare", "run_logging"]

log = logging.getLogger("evo.run")

# keys that may change between a run and its --resume: how far it goes, and how it is computed
_RESUMABLE_CHANGES = {("run", "generations"), ("pool", "workers"), ("pool", "chunksize")}


class RunFailed(Exception):
    """An evaluation failed; the run stopped with its last checkpoint intact. One-line message."""


class Progress:
    """What the run reports while it goes (the command line draws bars; this default draws nothing)."""

    def generation_started(self, generation: int, evaluations: int) -> None:
        pass

    def evaluated(self, count: int) -> None:
        pass

    def generation_finished(self, record: dict[str, Any]) -> None:
        pass


@dataclass(frozen=True)
class Prepared:
    """A run ready to start or continue: nothing has been written yet."""

    config: Config
    folder: RunFolder
    plugin: Plugin
    evolution: Evolution
    resumed: bool


@dataclass(frozen=True)
class RunResult:
    folder: RunFolder
    generation: int  # the last generation finished
    stopped: bool  # True if a stop was requested before the last generation
    best: Individual | None


def loop_settings(config: Config, plugin: Plugin) -> LoopSettings:
    return LoopSettings(
        population=config.run.population,
        seed=config.run.seed,
        objectives=tuple(plugin.objectives),
        weights=tuple(plugin.weights),
        genome=config.genome,
        ga=config.ga,
    )


def default_folder(config: Config, out: str | None) -> RunFolder:
    return RunFolder(out if out else Path("runs") / config.run.name)


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
            if a.get(key) != b.get(key) and (table, key) not in _RESUMABLE_CHANGES:
                changed.append(f"[{table}] {key}")
    return changed


def prepare(config: Config, *, out: str | None = None, resume: bool = False, force: bool = False) -> Prepared:
    """Check that the run can start (or resume) here; raises :class:`EvoInputError` and writes nothing."""
    folder = default_folder(config, out)
    plugin = load_ref(config.plugin)
    settings = loop_settings(config, plugin)
    models = [load_model(path) for path in config.genome.seed_models]
    if not resume:
        folder.check_new(force=force)
        return Prepared(config, folder, plugin, Evolution(settings, seed_models=models), resumed=False)
    folder.check_resumable()
    if folder.config.is_file():
        changed = _config_changes(folder.read_config_text(), config, str(folder.config))
        if changed:
            raise EvoInputError(
                f"{', '.join(changed)} differ(s) from the run's config.toml; only [run] generations and "
                "[pool] may change when resuming (use --force to start over)",
                source=config.source,
            )
    doc = folder.read_checkpoint()
    try:
        evolution = evolution_from_dict(doc, settings, seed_models=models)
    except (KeyError, TypeError, ValueError) as exc:
        raise EvoInputError(
            f"cannot resume from this checkpoint: {exc}", source=str(folder.checkpoint)
        ) from None
    return Prepared(config, folder, plugin, evolution, resumed=True)


@contextlib.contextmanager
def run_logging(path: Path, level: int = logging.INFO) -> Iterator[None]:
    """Send the ``evo`` logger's records -- those of forked workers too -- to ``path`` (appending)."""
    logger = logging.getLogger("evo")
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    handler.setLevel(level)
    wrapped = MultiProcessingHandler("evo-run-log", sub_handler=handler)
    old_level = logger.level
    logger.setLevel(level)
    logger.addHandler(wrapped)
    try:
        yield
    finally:
        logger.removeHandler(wrapped)
        logger.setLevel(old_level)
        wrapped.close()


# -- what goes into the folder ---------------------------------------------------------------------
def _provenance(config: Config, ind: Individual) -> dict[str, Any]:
    return {
        "run": config.run.name,
        "id": ind.id,
        "generation": ind.born,
        "parents": list(ind.parents),
        "plugin": config.evaluation.plugin,
        "plugin_paths": list(config.evaluation.plugin_paths),
        "params": dict(config.evaluation.params),
        "frames": config.evaluation.frames,
        "seed": ind.seed,
    }


class EliteFiles:
    """The hall of fame as model files: names in rank order, texts made once per individual.

    An elite's ``meta`` holds its fitness (a list), the objective names and its provenance (run, id,
    generation born, parent ids, plugin, plugin paths, params, frames, seed); its ``world`` is the run's
    world. Its rank is in the file name only, so an elite that moves in rank keeps its bytes.
    """

    def __init__(self, config: Config, plugin: Plugin):
        self.config = config
        self.objectives = list(plugin.objectives)
        self.world = config.world.to_dict()
        self._digests: dict[str, str] = {}
        self._texts: dict[str, str] = {}

    def creature(self, ind: Individual) -> Creature:
        meta = {"fitness": encode_numbers(ind.values or ()), "objectives": self.objectives}
        meta.update(_provenance(self.config, ind))
        return ind.creature.replace(name=f"{self.config.run.name}-{ind.id}", world=self.world, meta=meta)

    def names(self, members: list[Individual]) -> list[tuple[str, Individual]]:
        """(file name, individual), best first."""
        digests = {m.id: self._digests.get(m.id) or model_digest(model_document(m)) for m in members}
        self._digests = digests
        return [
            (elite_file_name(rank, len(members), ind.born, digests[ind.id]), ind)
            for rank, ind in enumerate(members, start=1)
        ]

    def texts(self, named: list[tuple[str, Individual]]) -> list[tuple[str, str]]:
        """(file name, model text) of each elite."""
        texts = {ind.id: self._texts.get(ind.id) or dumps_model(self.creature(ind)) for _, ind in named}
        self._texts = texts
        return [(name, texts[ind.id]) for name, ind in named]


class _Writer:
    """Writes one generation's files in a background thread while the next generation is made and
    evaluated (the kernel releases the GIL); at most one write is in flight, in generation order."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evo-run-writer")
        self._future: Future | None = None

    def submit(self, work: Callable[[], None]) -> None:
        self.join()
        self._future = self._executor.submit(work)

    def join(self) -> None:
        """Wait for the write in flight; its error, if any, is raised here."""
        future, self._future = self._future, None
        if future is None:
            return
        try:
            future.result()
        except OSError as exc:
            raise RunFailed(f"cannot write the run folder: {exc}") from None

    def close(self) -> None:
        try:
            self.join()
        finally:
            self._executor.shutdown(wait=True)


def _snapshot_writer(prepared: Prepared, elites: EliteFiles) -> Callable[[], None]:
    """The state after the last ``tell``, captured now, and the work of writing it: checkpoint.json
    first (the source of truth), then history.csv and elites/.

    Capturing is cheap (lists of the individuals, which do not change once told); turning them into
    JSON happens in :meth:`work`, in the writer thread.
    """
    folder, evolution = prepared.folder, prepared.evolution
    state = evolution.state()
    members = list(evolution.hall_of_fame)
    population = list(evolution.population)
    columns = history_columns(prepared.plugin.objectives)

    def work() -> None:
        started = time.perf_counter()
        head, individuals = state_parts(state)
        folder.write_checkpoint(head, individuals)
        folder.write_history(columns, head["logbook"])
        folder.write_elites(elites.texts(elites.names(members)))
        best = _generation_best(population)
        if best is not None:
            folder.write_generation_best(state.generation, dumps_model(elites.creature(best)))
        log.debug("generation %d written in %.3f s", state.generation, time.perf_counter() - started)

    return work


def _generation_best(population: list[Individual]) -> Individual | None:
    """The fittest evaluated individual of a generation with finite fitness (DEAP's weighted order)."""
    finite = [ind for ind in population if ind.values and all(map(math.isfinite, ind.values))]
    return max(finite, key=lambda ind: ind.fitness, default=None)


def _save_failed(prepared: Prepared, broods: list[Brood], exc: EvaluationFailed) -> tuple[str, str]:
    """Save the creature whose evaluation failed under failed/; (its id, the file) or ("", "")."""
    if not (0 <= exc.index < len(broods) and isinstance(exc.detail, tuple)):
        return "", ""
    child, creature, seed = exc.detail
    brood = broods[exc.index]
    index = sum(b.evaluations for b in broods[: exc.index]) + sum(
        s is not None for s in brood.plugin_seeds[:child]
    )
    g = prepared.evolution.generation + 1
    config = prepared.config
    name = f"g{g}-{index}"
    meta = {
        "run": config.run.name,
        "id": name,
        "generation": g,
        "plugin": config.evaluation.plugin,
        "plugin_paths": list(config.evaluation.plugin_paths),
        "params": dict(config.evaluation.params),
        "frames": config.evaluation.frames,
        "seed": seed,
        "error": exc.message,
    }
    failed = creature.replace(
        name=f"{config.run.name}-{name}-failed", world=config.world.to_dict(), meta=meta
    )
    return name, str(prepared.folder.save_failed(failed, g, index))


# -- the run ---------------------------------------------------------------------------------------
def execute(
    prepared: Prepared,
    *,
    workers: int,
    progress: Progress | None = None,
    stop_requested: Callable[[], bool] = lambda: False,
    evaluate: Callable[..., Any] | None = None,
) -> RunResult:
    """Create (or reopen) the folder and evolve until ``generations`` generations exist.

    Raises :class:`RunFailed` if an evaluation fails (the creature is saved under ``failed/``) or the
    folder cannot be written. ``evaluate`` replaces :func:`evo.fitness.evaluate.evaluate` (tests, benchmarks).
    """
    config, folder, evolution = prepared.config, prepared.folder, prepared.evolution
    progress = progress or Progress()
    config_text = config.to_toml()
    if prepared.resumed:
        folder.write_config(config_text)
    else:
        folder.create(config_text, force=True)  # prepare() checked that it may
    generations = config.run.generations
    elites = EliteFiles(config, prepared.plugin)
    writer = _Writer()
    with run_logging(folder.log):
        if prepared.resumed:
            log.info("resuming %s at generation %d of %d", folder.path, evolution.generation + 1, generations)
            _snapshot_writer(prepared, elites)()  # history and elites exactly as the checkpoint says
        else:
            log.info("starting %s: %s", folder.path, "; ".join(config.describe()))
        spec = config.evaluation_spec()
        # with worker processes, they also write each new child's JSON (the parent only splices it)
        context = BreedContext(spec, config.genome, config.ga, evaluate=evaluate, model_text=workers > 1)
        chunksize = config.pool.chunksize or 0
        try:
            with make_backend(
                breed_and_evaluate, context, workers, chunksize, before_fork=lambda: warm_up(spec.world)
            ) as backend:
                log.info("breeding and evaluating with %d worker(s)", backend.workers)
                while evolution.generation + 1 < generations:
                    _one_generation(prepared, backend, progress)
                    writer.submit(_snapshot_writer(prepared, elites))
                    if stop_requested() and evolution.generation + 1 < generations:
                        writer.join()
                        log.info("stopped on request after generation %d", evolution.generation)
                        return RunResult(folder, evolution.generation, True, evolution.best)
        finally:
            writer.close()  # the last checkpoint is always finished, whatever happened
        log.info("finished: %d generations", evolution.generation + 1)
    return RunResult(folder, evolution.generation, False, evolution.best)


def _one_generation(prepared: Prepared, backend: Any, progress: Progress) -> None:
    evolution = prepared.evolution
    g = evolution.generation + 1
    start = time.perf_counter()
    broods = evolution.ask()
    asked = time.perf_counter()
    tasks = [Task(index, brood, brood.evaluations) for index, brood in enumerate(broods)]
    evaluations = sum(task.weight for task in tasks)
    progress.generation_started(g, evaluations)
    try:
        results = backend.run(tasks, progress.evaluated)
    except EvaluationFailed as exc:
        name, saved = _save_failed(prepared, broods, exc)
        message = (
            f"generation {g}, creature {name}: {exc.message}" if name else f"generation {g}: {exc.message}"
        )
        if exc.plugin and f"'{exc.plugin}'" not in exc.message:
            message = f"{message} (plugin '{exc.plugin}')"
        if saved:
            message += f"; the creature is saved as {saved}"
        if evolution.generation >= 0:
            message += f"; the last checkpoint (generation {evolution.generation}) is intact"
        else:
            message += "; no generation was finished, so there is no checkpoint to resume from"
        log.error("%s", message)
        raise RunFailed(message) from None
    evaluated = time.perf_counter()
    record = evolution.tell(results)
    told = time.perf_counter()
    first = prepared.plugin.objectives[0]
    log.info(
        "generation %d: %d evaluations, %d exploded; %s best %.6g mean %.6g; selection %.3f s, "
        "breeding and evaluation %.3f s (%.1f evaluations/s), hall of fame and statistics %.3f s",
        g, evaluations, record["exploded"], first, record[f"{first}_best"], record[f"{first}_mean"],
        asked - start, evaluated - asked, evaluations / max(evaluated - asked, 1e-9), told - evaluated,
    )  # fmt: skip
    progress.generation_finished(record)
