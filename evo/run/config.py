"""The run configuration: a TOML file parsed once into frozen tables (:func:`parse_config`, pure), then
resolved once against files, plugins and this machine (:func:`resolve`) into a :class:`Config`
(docs/config.md). ``Config.to_toml()`` writes the resolved configuration back.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.fitness import Plugin, PluginRef, check_params, load_ref
from evo.fitness.evaluate import EvaluationSpec
from evo.ga.loop import LoopSettings
from evo.ga.settings import GASection, GenomeSection
from evo.io.bounded import read_input_bytes
from evo.io.run_folder.contents import RunContents
from evo.io.tomlfiles import dumps_toml
from evo.qd import INSTALL, ArchiveSpec, QDSection, QDSettings, ribs_missing
from evo.run.backends import default_workers
from evo.run.parse import (
    ALGORITHMS,
    REFINE_NEEDS,
    TABLES,
    EvaluationSection,
    ParsedConfig,
    PoolSection,
    RunSection,
    parse_config,
    pool_overrides,
)
from evo.run.resolving import (
    check_backend,
    check_records,
    fitness_plugin_of,
    plugin_paths,
    resolved_qd,
    seed_model_paths,
    world_of,
)
from evo.schema import section_to_dict
from evo.sim.world import World

__all__ = [
    "ALGORITHMS",
    "Config",
    "EvaluationSection",
    "ParsedConfig",
    "PoolSection",
    "RunSection",
    "TABLES",
    "load_config",
    "parse_config",
    "pool_overrides",
    "qd_settings",
    "resolve",
    "run_folder_config",
]


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
        return resolve(parse_config(doc, source=source), base_dir)

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
        return resolve(parse_config(doc, source=self.source, default_name=self.run.name))

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
        check_records(plugin, self.world, self.source)
        qd = resolved_qd(self.qd, plugin, self.genome, self.source) if self.map_elites else self.qd
        check_backend(self.pool, plugin.ref(), self.source)
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
        origin = self.plugin.origin
        if ev.robust is not None:
            origin += f"; robust: quantile {ev.robust.quantile:g} of {ev.robust.samples} worlds"
        return [
            what,
            f"evaluation: {ev.frames} frames, plugin '{ev.plugin}' ({params}) from {origin}",
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


def load_config(
    path: str | os.PathLike,
    *,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    fitness: Plugin | None = None,
) -> Config:
    """Read a config file, parse it and resolve it (relative paths in it are relative to its folder).

    Args:
        path: the TOML file.
        overrides: tables whose keys replace the file's (``{"pool": {"workers": 1}}``: see
            :func:`pool_overrides`).
        fitness: score with this plugin instead of ``[evaluation] plugin`` (see :func:`resolve`).

    Raises:
        EvoInputError: any problem, in one line naming the file, the table and the key.
    """
    path = Path(path)
    parsed = parse_config(
        read_input_bytes(path), source=str(path), default_name=path.stem, overrides=overrides
    )
    return resolve(parsed, path.resolve().parent, fitness=fitness)


def run_folder_config(contents: RunContents) -> ParsedConfig | None:
    """The ``config.toml`` of a run folder (as :func:`evo.io.run_folder.read_run` found it), parsed and not
    resolved: its plugin, files and CPUs need not be here. None for a folder without one."""
    if not contents.config:
        return None
    source = str(contents.path / "config.toml")
    return parse_config(contents.config, source=source, default_name=contents.path.name)


def resolve(
    parsed: ParsedConfig,
    base_dir: str | os.PathLike | None = None,
    *,
    require_plugin: bool = True,
    fitness: Plugin | None = None,
) -> Config:
    """Look up what a parsed config names: its plugin files and plugin (params checked against its
    signature), a terrain file, the seed models, the CPUs (``[pool] workers``), dask and pyribs.

    Args:
        parsed: what :func:`parse_config` made of the file.
        base_dir: the folder relative ``plugin_paths`` and ``seed_models`` are taken from (default: the
            working folder).
        require_plugin: with False, a plugin that cannot be found here (a function registered from
            Python in another session) is kept by name with its params unchecked, so that a run folder
            can still be read.
        fitness: score with this plugin instead (``[evaluation] plugin`` becomes its name; the params
            are kept only when it has the config's plugin name).

    Returns:
        The checked :class:`Config`.

    Raises:
        EvoInputError: one line naming the config file, the table and the key.
    """
    source = parsed.source
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    evaluation = parsed.evaluation
    paths = plugin_paths(evaluation.plugin_paths, base, source)
    if fitness is None:
        plugin = fitness_plugin_of(evaluation.plugin, paths, source, required=require_plugin)
        given = dict(evaluation.params)
    else:
        plugin = fitness
        given = dict(evaluation.params) if fitness.name == evaluation.plugin else {}
    params = check_params(plugin, given, source=source) if plugin else given
    name = plugin.name if plugin else evaluation.plugin
    evaluation = dataclasses.replace(evaluation, plugin=name, plugin_paths=paths, params=params)
    world = world_of(parsed.world, evaluation.frames, source)
    if plugin is not None:
        check_records(plugin, world, source)
    genome = dataclasses.replace(parsed.genome, seed_models=seed_model_paths(parsed.genome, base, source))
    if parsed.ga.refine is not None and plugin is not None and len(plugin.weights) > 1:
        raise EvoInputError(REFINE_NEEDS, source=source)
    pool = parsed.pool
    if pool.workers is None:
        pool = dataclasses.replace(pool, workers=default_workers())
    ref = plugin.ref() if plugin else PluginRef(evaluation.plugin, "")
    check_backend(pool, ref, source)
    qd = parsed.qd
    if parsed.map_elites and require_plugin:  # a run to start, not a run folder to read
        if ribs_missing():
            raise EvoInputError(f"[run] algorithm: 'map-elites' needs pyribs: {INSTALL}", source=source)
        if plugin is not None:
            qd = resolved_qd(qd, plugin, genome, source)
    return Config(
        run=parsed.run,
        evaluation=evaluation,
        world=world,
        genome=genome,
        ga=parsed.ga,
        pool=pool,
        plugin=ref,
        source=source,
        qd=qd,
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
