"""The run configuration: a TOML file parsed once into frozen dataclasses (see docs/config.md).

``load_config`` reads and checks everything a run needs before anything touches the disk, with one-line
errors naming the file, table and key; ``Config.to_toml()`` writes the resolved configuration back
(docs/config.md, "How the file is checked" and "The resolved configuration").
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evo.audit.robust import RobustSettings, parse_robust
from evo.errors import EvoInputError, closest, quoted
from evo.fitness import Plugin, PluginRef, check_params, find_plugin, load_ref
from evo.fitness.evaluate import EvaluationSpec
from evo.ga.loop import LoopSettings
from evo.ga.settings import GASection, GenomeSection
from evo.io.models import load_model
from evo.io.tomlfiles import dumps_toml, read_toml
from evo.io.worlds import world_from
from evo.qd import INSTALL, ArchiveSpec, QDSection, QDSettings, ribs_missing
from evo.run.backends import BACKENDS, dask_address_problem, default_workers, require_dask
from evo.schema import parse_section, section_to_dict, setting, shown
from evo.sim.limits import Limits, check_size
from evo.sim.simulate import MAX_STEPS, steps_for
from evo.sim.world import World

__all__ = [
    "ALGORITHMS",
    "Config",
    "EvaluationSection",
    "PoolSection",
    "RunSection",
    "TABLES",
    "load_config",
    "parse_config",
    "qd_settings",
]

_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")  # fullmatch: "$" would let "t\n" through
MAX_NAME = 100  # characters: the name makes folder and file names (each at most 255 bytes)
MAX_POPULATION = 100_000
MAX_FRAMES = 10_000_000
MAX_TIMEOUT = 1e6  # s: about 11 days
MAX_WORKERS = 1024
ALGORITHMS = ("ga", "map-elites")


@dataclass(frozen=True)
class RunSection:
    """The ``[run]`` table."""

    name: str = setting("", doc="the run's name: its folder is runs/<name>/; default: the config file's stem")
    seed: int = setting(1, low=0, doc="seed of every random draw of the run")
    generations: int = setting(40, low=1, doc="generations to evolve")
    population: int = setting(
        120,
        low=2,
        high=MAX_POPULATION,
        doc="creatures per generation",
        why="a generation's creatures are all held in memory",
    )
    algorithm: str = setting(
        "ga",
        choices=ALGORITHMS,
        doc="ga: the genetic algorithm; map-elites: quality diversity with pyribs ([qd], docs/qd.md)",
    )


@dataclass(frozen=True)
class EvaluationSection:
    """The ``[evaluation]`` table (with its ``[evaluation.params]`` sub-table)."""

    frames: int = setting(
        3000,
        low=1,
        high=MAX_FRAMES,
        doc="frames each creature is simulated for",
        why="every creature of the run is simulated for that long; evo simulate takes longer ones",
    )
    plugin: str = setting("distance", doc="name of the fitness plugin (python -m evo plugins lists them)")
    plugin_paths: tuple[str, ...] = setting(
        (), doc="extra folders or .py files to load plugins from, relative to the config file's folder"
    )
    params: Mapping[str, Any] = dataclasses.field(
        default_factory=dict,
        metadata={"doc": "keyword arguments for the plugin, checked against its signature"},
    )
    timeout: float = setting(
        60.0,
        low=0.0,
        high=MAX_TIMEOUT,
        doc="seconds one creature's evaluation (simulation and plugin) may take; 0: no limit",
        why="a longer limit is none at all: 0 means no limit",
    )
    on_timeout: str = setting(
        "stop",
        choices=("stop", "worst"),
        doc="past the timeout: stop the run (the creature is saved under failed/), or give the creature "
        "the worst fitness and go on",
    )
    robust: RobustSettings | None = setting(
        None,
        parse=parse_robust,
        doc="score each creature in K perturbed worlds, its fitness a low quantile (docs/audit.md)",
    )


@dataclass(frozen=True)
class PoolSection:
    """The ``[pool]`` table."""

    workers: int | None = setting(
        None,
        low=1,
        high=MAX_WORKERS,
        doc="worker processes; 1 evaluates in-process; default: the number of CPUs",
        why="each is a process; more than the CPUs only slows the run",
    )
    chunksize: int | None = setting(
        None,
        low=1,
        doc="broods (one or two children, bred and evaluated together) sent to a worker at a time; "
        "default: about eight chunks per worker per generation",
    )
    backend: str | None = setting(
        None,
        choices=BACKENDS,
        doc="how evaluations run: in this process, in forked processes, or on a dask cluster; "
        "default: inprocess for 1 worker, fork for more",
    )
    address: str | None = setting(
        None, doc="the dask scheduler (tcp://host:8786) with backend = 'dask'; default: a local cluster"
    )
    batch: bool = setting(
        True,
        doc="simulate a chunk's children together in SIMD lanes, of any topologies (the same results)",
    )


# table name -> section class (World is validated by World.updated)
TABLES: dict[str, type] = {
    "run": RunSection,
    "evaluation": EvaluationSection,
    "world": World,
    "genome": GenomeSection,
    "ga": GASection,
    "pool": PoolSection,
    "qd": QDSection,
}


@dataclass(frozen=True)
class Config:
    """A checked configuration.

    ``plugin`` is the resolved fitness plugin (by reference) and ``evaluation.params`` holds every one of
    its parameters, defaults filled in. ``evaluation.plugin_paths`` and ``genome.seed_models`` are
    absolute. ``pool.workers`` is always a number. ``source`` is the file it was read from. ``qd`` is the
    ``[qd]`` table, resolved (every measure's range and bins) when ``run.algorithm`` is ``"map-elites"``.
    """

    run: RunSection
    evaluation: EvaluationSection
    world: World
    genome: GenomeSection
    ga: GASection
    pool: PoolSection
    plugin: PluginRef
    source: str | None = dataclasses.field(default=None, compare=False)
    qd: QDSection = dataclasses.field(default_factory=QDSection)

    @property
    def map_elites(self) -> bool:
        """Whether the run is MAP-Elites (``[run] algorithm = "map-elites"``) rather than the GA."""
        return self.run.algorithm == "map-elites"

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> Config:
        """Read and check a config file (relative paths in it are relative to its folder).

        Args:
            path: the TOML file.

        Returns:
            The checked :class:`Config`, its plugin resolved and its params complete.

        Raises:
            EvoInputError: any problem, in one line naming the file, the table and the key.
        """
        return load_config(path)

    @classmethod
    def from_dict(
        cls, doc: Mapping[str, Any], *, base_dir: str | os.PathLike | None = None, source: str | None = None
    ) -> Config:
        """Check a mapping laid out like the TOML file (``{"run": {...}, "world": {...}, ...}``); relative
        paths are relative to ``base_dir`` (default: the working folder). Gives the same Config as the
        TOML file with the same content.

        Args:
            doc: the tables, by name, each a mapping of keys to values.
            base_dir: the folder relative ``plugin_paths`` and ``seed_models`` are taken from.
            source: the name errors give the mapping (like a file's path).

        Returns:
            The checked :class:`Config`.

        Raises:
            EvoInputError: any problem, in one line naming the table and the key.
        """
        return parse_config(doc, source=source, base_dir=None if base_dir is None else str(base_dir))

    def replace(self, **tables: Mapping[str, Any]) -> Config:
        """A copy with some keys changed, checked again: ``config.replace(run={"generations": 5},
        world={"gravity": 0.3})``. Each keyword is a table; its keys replace those of the table. New
        ``[qd] measures`` keep the ranges of the measures still listed and the default bins, unless
        ``ranges`` or ``bins`` are given too.

        Args:
            **tables: one keyword per table (``run``, ``evaluation``, ``world``, ``genome``, ``ga``,
                ``pool``, ``qd``), each a mapping of the keys to change to their new values.

        Returns:
            A new, checked :class:`Config`; this one is unchanged.

        Raises:
            EvoInputError: an unknown table or key, or a bad value.
        """
        doc = self.to_dict()
        doc.setdefault("qd", self.qd.to_table())  # a GA config keeps its [qd] table for a switch
        for table, changes in tables.items():
            if not isinstance(changes, Mapping):
                raise EvoInputError(f"replace({table}=...): expected a mapping of keys to new values")
            old = dict(doc.get(table, {}))
            if table == "qd" and "measures" in changes and list(changes["measures"]) != old.get("measures"):
                old.pop("bins", None)
                if "ranges" not in changes:
                    old["ranges"] = {
                        k: v for k, v in old.get("ranges", {}).items() if k in changes["measures"]
                    }
            if table == "world" and "terrain" in changes:  # a new terrain: no longer the old file's
                old.pop("terrain_file", None)
            doc[table] = {**old, **changes}
        return parse_config(doc, source=self.source, default_name=self.run.name)

    def with_fitness(self, plugin: Plugin) -> Config:
        """This config scored by ``plugin`` instead (``[evaluation] plugin`` becomes its name; the params
        of the config are checked against its signature).

        Args:
            plugin: the :class:`~evo.fitness.Plugin` (from :func:`evo.register_fitness`, or found by name).
                The config's params are kept only when it has the config's plugin name.

        Returns:
            A new :class:`Config`; this one is unchanged.

        Raises:
            EvoInputError: the config's params do not fit the plugin, its ``record_every`` is not a whole
                number of steps of ``[world] dt``, a MAP-Elites config's ``[qd]`` measures do not fit
                it, or the dask backend could not import it.
        """
        given = dict(self.evaluation.params) if plugin.name == self.evaluation.plugin else {}
        params = check_params(plugin, given, source=self.source)
        evaluation = dataclasses.replace(self.evaluation, plugin=plugin.name, params=params)
        _check_records(plugin, self.world, self.source)
        qd = _resolved_qd(self.qd, plugin, self.genome, self.source) if self.map_elites else self.qd
        _check_backend(self.pool, plugin.ref(), self.source)
        return dataclasses.replace(self, evaluation=evaluation, plugin=plugin.ref(), qd=qd)

    def loop_settings(self) -> LoopSettings:
        """What :class:`evo.Evolution` needs from this config (its plugin's objectives and weights too).

        Returns:
            The :class:`~evo.ga.loop.LoopSettings`: population, seed, objectives, weights, genome, GA.

        Raises:
            EvoInputError: the plugin cannot be loaded in this process.
        """
        plugin = load_ref(self.plugin)
        return LoopSettings(
            population=self.run.population,
            seed=self.run.seed,
            objectives=tuple(plugin.objectives),
            weights=tuple(plugin.weights),
            genome=self.genome,
            ga=self.ga,
        )

    def qd_settings(self) -> QDSettings:
        """What :class:`evo.QualityDiversity` needs from this config (a MAP-Elites one).

        Returns:
            The :class:`~evo.qd.loop.QDSettings`: archive, emitters, sizes, seed, objectives and weights.

        Raises:
            EvoInputError: the plugin cannot be loaded in this process.
        """
        plugin = load_ref(self.plugin)
        return qd_settings(self, plugin.objectives, plugin.weights)

    def evaluation_spec(self) -> EvaluationSpec:
        """What each evaluation needs, as plain data for the workers (with the measures of a MAP-Elites
        run).

        Returns:
            The :class:`~evo.fitness.evaluate.EvaluationSpec` for :func:`evo.evaluate`.
        """
        if self.map_elites:
            return EvaluationSpec(
                world=self.world,
                frames=self.evaluation.frames,
                plugin=self.plugin,
                params=dict(self.evaluation.params),
                measures=tuple(self.qd.measures),
                settle_frames=float(self.qd.settle_frames),
            )
        return EvaluationSpec(
            world=self.world,
            frames=self.evaluation.frames,
            plugin=self.plugin,
            params=dict(self.evaluation.params),
        )

    def to_dict(self) -> dict[str, Any]:
        """Every table and key with its resolved value (TOML-friendly: lists, no None).

        Returns:
            ``{table: {key: value}}``; :meth:`from_dict` of it gives an equal Config.
        """
        evaluation = section_to_dict(self.evaluation)
        evaluation["params"] = {k: v for k, v in self.evaluation.params.items() if v is not None}
        run = section_to_dict(self.run)
        if not self.map_elites:  # a GA run's config.toml stays as it was before MAP-Elites existed
            del run["algorithm"]
        doc = {
            "run": run,
            "evaluation": evaluation,
            "world": self.world.to_dict(),
            "genome": section_to_dict(self.genome),
            "ga": section_to_dict(self.ga),
            "pool": section_to_dict(self.pool),
        }
        if self.map_elites:
            doc["qd"] = self.qd.to_table()
        return doc

    def to_toml(self) -> str:
        """The resolved configuration as TOML; ``load_config`` of it gives an equal Config.

        Returns:
            The text of a run folder's ``config.toml``, with a comment header.
        """
        header = "# evo configuration, resolved: every key with the value the run used (see docs/config.md)\n"
        if self.source:
            header += f"# read from {self.source}\n"
        return header + "\n" + dumps_toml(self.to_dict())

    def describe(self) -> list[str]:
        """A short human summary (``python -m evo validate CONFIG``).

        Returns:
            Four lines of text: the run, the evaluation, the world and the pool.
        """
        run, ev, world = self.run, self.evaluation, self.world
        params = ", ".join(f"{k}={v!r}" for k, v in ev.params.items()) or "no parameters"
        if self.map_elites:
            qd = self.qd
            shape = (
                f"{qd.cells} CVT cells" if qd.archive == "cvt" else " x ".join(map(str, qd.bins_per_measure))
            )
            what = (
                f"run '{run.name}': MAP-Elites, seed {run.seed}, {run.population} creatures, then "
                f"{run.generations - 1} iterations of {qd.emitters} x {qd.batch_size}; archive {shape} over "
                + ", ".join(f"{m} [{qd.range_of(m)[0]:g}, {qd.range_of(m)[1]:g}]" for m in qd.measures)
            )
        else:
            sizes = f"{run.generations} generations of {run.population} creatures"
            what = f"run '{run.name}': seed {run.seed}, {sizes}"
        return [
            what,
            f"evaluation: {ev.frames} frames, plugin '{ev.plugin}' ({params}) from {self.plugin.origin}",
            f"world: gravity {world.gravity:g}, damping {world.damping:g}, stiffness {world.stiffness:g}, "
            f"{world.integrator} dt {world.dt:g}, {world.contact} contact, ground {_ground_text(world)}, "
            f"{len(world.terrain)} terrain polyline(s)"
            + (f" from {world.terrain_file}, " if world.terrain_file else ", ")
            + (f"max_speed {world.max_speed:g} px/frame" if world.max_speed is not None else "no max_speed"),
            f"pool: {self.pool.workers} worker(s)"
            + (f", chunks of {self.pool.chunksize}" if self.pool.chunksize else "")
            + _backend_text(self.pool),
        ]


def _backend_text(pool: PoolSection) -> str:
    if pool.backend is None:
        return ""
    if pool.backend != "dask":
        return f", backend {pool.backend}"
    return f", dask scheduler at {pool.address}" if pool.address else ", dask local cluster"


def _ground_text(world: World) -> str:
    """``hills (amplitude 20, wavelength 400)``: the ground's type and its keys, for summaries."""
    table = world.ground.to_value()
    kind = table.pop("type")
    parts = [
        f"{key} {len(value)} points" if key == "points" else f"{key} {value}" for key, value in table.items()
    ]
    return f"{kind} ({', '.join(parts)})" if parts else kind


def load_config(path: str | os.PathLike) -> Config:
    """Read and check a config file; raises :class:`EvoInputError` (one line) on any problem."""
    path = Path(path)
    doc = read_toml(path)
    return parse_config(doc, source=str(path), base_dir=str(path.resolve().parent), default_name=path.stem)


def parse_config(
    doc: Mapping[str, Any],
    *,
    source: str | None = None,
    base_dir: str | None = None,
    default_name: str = "run",
    require_plugin: bool = True,
) -> Config:
    """Check a parsed TOML document; relative paths are relative to ``base_dir`` (default: cwd).

    With ``require_plugin`` False, a plugin that cannot be found here (a function registered from Python
    in another session) is kept by name with its params unchecked, so a run folder can still be read.
    """
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    _check_tables(doc, source)

    run = parse_section(RunSection, doc.get("run"), source=source, table_name="run")
    run = dataclasses.replace(run, name=run.name or default_name)
    if len(run.name) > MAX_NAME:
        raise EvoInputError(
            f"[run] name: expected at most {MAX_NAME} characters, got {len(run.name)} (the name makes "
            "the run's folder and file names)",
            source=source,
        )
    if not _NAME.fullmatch(run.name) or run.name in (".", ".."):
        raise EvoInputError(
            f"[run] name: expected a folder name (letters, digits, '.', '_', '-'), got {run.name!r}",
            source=source,
        )

    evaluation = parse_section(
        EvaluationSection, doc.get("evaluation"), source=source, table_name="evaluation"
    )
    paths = tuple(_existing_plugin_path(p, base, source) for p in evaluation.plugin_paths)
    try:
        plugin = find_plugin(evaluation.plugin, paths, source=source, field="[evaluation] plugin")
    except EvoInputError as exc:
        if exc.source != source and any(p in str(exc) for p in paths):  # a plugin file failed to load
            raise EvoInputError(f"[evaluation] plugin_paths: {exc}", source=source) from None
        if require_plugin:
            raise
        plugin = None
    params = check_params(plugin, evaluation.params, source=source) if plugin else dict(evaluation.params)
    evaluation = dataclasses.replace(evaluation, plugin_paths=paths, params=params)

    world_table = doc.get("world", {})
    if not isinstance(world_table, Mapping):
        raise EvoInputError("[world]: expected a table", source=source)
    world = world_from(world_table, source=source, where="[world]")
    _check_steps(
        evaluation.frames, f"[evaluation] frames: {shown(evaluation.frames)} frames is", world, source
    )
    if plugin is not None:
        _check_records(plugin, world, source)

    genome = parse_section(GenomeSection, doc.get("genome"), source=source, table_name="genome")
    models = tuple(_readable_seed_model(p, base, source) for p in genome.seed_models)
    genome = dataclasses.replace(genome, seed_models=models)
    ga = parse_section(GASection, doc.get("ga"), source=source, table_name="ga")
    if ga.elite >= run.population:
        raise EvoInputError(
            f"[ga] elite: expected fewer than [run] population = {run.population}, got {ga.elite}",
            source=source,
        )

    if evaluation.robust is not None and (run.algorithm != "ga" or ga.refine is not None):
        raise EvoInputError(
            "[evaluation] robust: robust scoring needs the GA without [ga] refine", source=source
        )
    if ga.refine is not None and (run.algorithm != "ga" or (plugin is not None and len(plugin.weights) > 1)):
        raise EvoInputError(
            "[ga] refine: memetic refinement needs the GA and a plugin of one objective", source=source
        )

    pool = parse_section(PoolSection, doc.get("pool"), source=source, table_name="pool")
    if pool.workers is None:
        pool = dataclasses.replace(pool, workers=default_workers())
    ref = plugin.ref() if plugin else PluginRef(evaluation.plugin, "")
    _check_backend(pool, ref, source)

    qd = parse_section(QDSection, doc.get("qd"), source=source, table_name="qd")
    if run.algorithm == "map-elites" and require_plugin:  # a run to start, not a run folder to read
        if ribs_missing():
            raise EvoInputError(f"[run] algorithm: 'map-elites' needs pyribs: {INSTALL}", source=source)
        if plugin is not None:
            qd = _resolved_qd(qd, plugin, genome, source)

    return Config(
        run=run,
        evaluation=evaluation,
        world=world,
        genome=genome,
        ga=ga,
        pool=pool,
        plugin=ref,
        source=source,
        qd=qd,
    )


def _resolved_qd(qd: QDSection, plugin: Plugin, genome: GenomeSection, source: str | None) -> QDSection:
    """The ``[qd]`` table checked against the plugin's measures, every range and bin filled in."""
    return qd.resolved(
        plugin.measures,
        plugin.measure_ranges,
        masses=genome.masses,
        omega=genome.omega,
        plugin=plugin.name,
        source=source,
    )


def qd_settings(config: Config, objectives: tuple[str, ...], weights: tuple[float, ...]) -> QDSettings:
    """What the MAP-Elites loop needs: the config's archive, emitters, sizes and seed, the plugin's
    objectives and weights."""
    qd = config.qd
    spec = ArchiveSpec(
        kind=qd.archive,
        measures=tuple(qd.measures),
        ranges=tuple(qd.range_of(m) for m in qd.measures),
        bins=tuple(qd.bins_per_measure) if qd.archive == "grid" else (),
        cells=qd.cells if qd.archive == "cvt" else 0,
        cvt_samples=qd.cvt_samples if qd.archive == "cvt" else 0,
        score_offset=float(qd.score_offset),
    )
    return QDSettings(
        seed=config.run.seed,
        initial=config.run.population,
        objectives=tuple(objectives),
        weights=tuple(weights),
        archive=spec,
        batch_size=qd.batch_size,
        emitters=qd.emitters,
        genome=config.genome,
        ga=config.ga,
    )


def _check_records(plugin: Plugin, world: World, source: str | None) -> None:
    records = f"[world] dt: plugin '{plugin.name}' records every {plugin.record_every:g} frames, which is"
    _check_steps(plugin.record_every, records, world, source)


def _check_backend(pool: PoolSection, plugin: PluginRef, source: str | None) -> None:
    """``[pool] address`` only with dask; dask installed; a plugin that dask workers can import."""
    if pool.address is not None and pool.backend != "dask":
        raise EvoInputError(
            f'only used with backend = "dask", but backend is {pool.backend or "not set"}',
            source=source,
            field="[pool] address",
        )
    if pool.backend != "dask":
        return
    problem = None if pool.address is None else dask_address_problem(pool.address)
    if problem is not None:
        raise EvoInputError(f"{problem}, got {shown(pool.address)}", source=source, field="[pool] address")
    try:
        require_dask()
    except EvoInputError as exc:
        raise EvoInputError(exc.message, source=source, field="[pool] backend") from None
    if plugin.origin.startswith("registered:"):
        raise EvoInputError(
            f"fitness function '{plugin.name}' was defined in __main__ or a notebook, which dask workers "
            "cannot import; put it in an importable module (or a plugin file in plugin_paths)",
            source=source,
            field="[pool] backend",
        )


def _check_tables(doc: Mapping[str, Any], source: str | None) -> None:
    for key, value in doc.items():
        if key in TABLES:
            if not isinstance(value, Mapping):
                raise EvoInputError(f"'{key}' must be a table [{key}], got {shown(value)}", source=source)
            continue
        tables = "tables are " + ", ".join(f"[{t}]" for t in TABLES)
        name = quoted(key)[1:-1] if quoted(key).startswith("'") else quoted(key)
        if isinstance(value, Mapping):
            hint = closest(key, TABLES)
            message = f"unknown table [{name}]; " + (f"did you mean [{hint}]?" if hint else tables)
        else:
            owner = next((t for t, cls in TABLES.items() if _has_key(cls, key)), None)
            message = f"key {quoted(key)} outside any table; " + (
                f"it belongs in [{owner}]" if owner else tables
            )
        raise EvoInputError(message, source=source)


def _has_key(cls: type, key: str) -> bool:
    if cls is World:
        return key in World.field_names()
    return any(f.name == key for f in dataclasses.fields(cls))


def _existing_plugin_path(entry: str, base: Path, source: str | None) -> str:
    path = Path(os.path.abspath(base / Path(entry).expanduser()))
    if not (path.is_dir() or (path.is_file() and path.suffix == ".py")):
        raise EvoInputError(
            f"[evaluation] plugin_paths: expected a folder or a .py file, got '{entry}' ({path})",
            source=source,
        )
    return str(path)


def _readable_seed_model(entry: str, base: Path, source: str | None) -> str:
    """The absolute path of a seed model, once it has been read as a model file (and found within the
    size limits of a simulation)."""
    path = os.path.abspath(base / Path(entry).expanduser())
    try:
        model = load_model(path)
    except EvoInputError as exc:
        raise EvoInputError(f"[genome] seed_models: {exc}", source=source) from None
    try:
        check_size(model.n_masses, model.n_links, 0, Limits.from_environment())
    except EvoInputError as exc:
        raise EvoInputError(f"[genome] seed_models: {path}: {exc}", source=source) from None
    return path


def _check_steps(frames: float, message: str, world: World, source: str | None) -> None:
    """``frames`` must be a whole number of integration steps of ``world.dt``, and not too many."""
    try:
        steps_for(frames, world.dt)
    except EvoInputError:
        try:
            too_many = not frames / world.dt <= MAX_STEPS
        except OverflowError:
            too_many = True
        if too_many:
            problem = f"more than the {MAX_STEPS:g} steps of dt = {world.dt:g} frames one simulation may take"
        else:
            problem = f"not a whole number of steps of dt = {world.dt:g} frames"
        raise EvoInputError(f"{message} {problem}", source=source) from None
