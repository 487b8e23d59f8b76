"""The run config parsed: TOML text (or a mapping laid out like it) into a :class:`ParsedConfig` of frozen
tables, checked key by key, with no file, plugin, environment or simulator access (docs/config.md,
"How the file is checked"); :func:`evo.run.config.resolve` then does those.
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evo.audit.robust import RobustSettings, parse_robust
from evo.errors import EvoInputError, closest, quoted
from evo.ga.settings import GASection, GenomeSection
from evo.qd import QDSection
from evo.run.backends import BACKENDS, dask_address_problem
from evo.schema import loads_toml, parse_section, setting, shown
from evo.sim.world import World

__all__ = [
    "ALGORITHMS",
    "EvaluationSection",
    "ParsedConfig",
    "PoolSection",
    "RunSection",
    "TABLES",
    "merged_tables",
    "parse_config",
    "pool_overrides",
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
    checkpoint_interval: float = setting(
        1.0,
        low=0.0,
        high=MAX_TIMEOUT,
        doc="seconds at least between two checkpoints of the run folder (the GA's; every generation's "
        "files are written all the same); 0: after every generation",
        why="a longer interval is a checkpoint only at the end",
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
        doc="workers: threads of this process (backend threads) or worker processes; 1 evaluates "
        "in-process; default: the CPUs not kept busy by other processes",
        why="each takes a CPU; more than the CPUs only slows the run",
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
        doc="how evaluations run: in this process (its kernel calls on one thread, or on threads), in "
        "forked processes, in forked processes that own the population and make whole generations "
        "(shards; with 1 worker this process makes them so), or on a dask cluster; default: shards "
        "where only evo's own plugins and kernels run, else inprocess for 1 worker and fork for more",
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
class ParsedConfig:
    """A config file's tables, each checked on its own, nothing looked up yet: ``evaluation`` names its
    plugin and holds the params as written, ``plugin_paths`` and ``genome.seed_models`` are as written
    (relative to the config's folder), ``world`` is the ``[world]`` table as written (a terrain may name
    a file), ``pool.workers`` may be None and ``qd`` is not yet fitted to the plugin's measures.
    :func:`evo.run.config.resolve` turns it into a :class:`~evo.run.config.Config`.
    """

    run: RunSection
    evaluation: EvaluationSection
    world: Mapping[str, Any]
    genome: GenomeSection
    ga: GASection
    pool: PoolSection
    qd: QDSection
    source: str | None = dataclasses.field(default=None, compare=False)

    @property
    def map_elites(self) -> bool:
        """Whether the run is MAP-Elites (``[run] algorithm = "map-elites"``) rather than the GA."""
        return self.run.algorithm == "map-elites"


def merged_tables(
    doc: Mapping[str, Any], overrides: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, Any]:
    """``doc`` with each table of ``overrides`` laid over its own, key by key; a None value removes the
    key (its default applies). A table that is not a mapping is left for the check to name."""
    out = dict(doc)
    for table, changes in (overrides or {}).items():
        if not isinstance(changes, Mapping):
            raise EvoInputError(f"{table}: expected a mapping of keys to new values, got {shown(changes)}")
        old = out.get(table, {})
        if isinstance(old, Mapping):
            out[table] = {k: v for k, v in {**old, **changes}.items() if v is not None}
    return out


def parse_config(
    text: str | bytes | Mapping[str, Any],
    *,
    source: str | None = None,
    default_name: str = "run",
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> ParsedConfig:
    """Check a config's TOML text (or the mapping ``tomllib`` makes of it), table by table.

    Args:
        text: the TOML text (bytes: UTF-8), or a mapping laid out like it.
        source: the name errors give it (the file's path).
        default_name: ``[run] name`` when the file gives none (``load_config``: the file's stem).
        overrides: tables whose keys replace the file's before it is checked (``{"pool": {"workers": 2}}``).

    Returns:
        The :class:`ParsedConfig`; no file, plugin or environment was looked at.

    Raises:
        EvoInputError: one line naming ``source``, the table and the key.
    """
    doc = text if isinstance(text, Mapping) else loads_toml(text, source=source)
    doc = merged_tables(doc, overrides)
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
    world = doc.get("world", {})
    if not isinstance(world, Mapping):
        raise EvoInputError("[world]: expected a table", source=source)
    genome = parse_section(GenomeSection, doc.get("genome"), source=source, table_name="genome")
    ga = parse_section(GASection, doc.get("ga"), source=source, table_name="ga")
    if ga.elite >= run.population:
        raise EvoInputError(
            f"[ga] elite: expected fewer than [run] population = {run.population}, got {ga.elite}",
            source=source,
        )
    if ga.refine is not None and run.algorithm != "ga":
        raise EvoInputError(REFINE_NEEDS, source=source)
    if evaluation.robust is not None and (run.algorithm != "ga" or ga.refine is not None):
        raise EvoInputError(
            "[evaluation] robust: robust scoring needs the GA without [ga] refine", source=source
        )
    pool = parse_section(PoolSection, doc.get("pool"), source=source, table_name="pool")
    _check_address(pool, source)
    qd = parse_section(QDSection, doc.get("qd"), source=source, table_name="qd")
    return ParsedConfig(
        run=run,
        evaluation=evaluation,
        world=types.MappingProxyType(dict(world)),
        genome=genome,
        ga=ga,
        pool=pool,
        qd=qd,
        source=source,
    )


def pool_overrides(
    *, workers: int | None = None, backend: str | None = None, address: str | None = None
) -> dict[str, Any]:
    """The ``[pool]`` keys that ``evolve``'s (and ``evo run``'s) ``workers``, ``backend`` and ``address``
    change; an address means dask, another backend drops the config's address.

    Raises:
        EvoInputError: ``workers`` is not an integer >= 1, or ``address`` is not a scheduler's address.
    """
    changes: dict[str, Any] = {}
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise EvoInputError(f"workers: expected an integer >= 1, got {workers!r}")
        changes["workers"] = workers
    if address is not None:
        problem = dask_address_problem(address) if isinstance(address, str) else "expected a string"
        if problem is not None:
            raise EvoInputError(f"address: {problem}, got {shown(address)}")
        if backend not in (None, "dask"):
            raise EvoInputError(f"address: only used with backend='dask', got backend={backend!r}")
        changes.update(backend="dask", address=address)
    elif backend is not None:
        changes["backend"] = backend
        if backend != "dask":
            changes["address"] = None  # removed: an address is only for dask
    return changes


REFINE_NEEDS = "[ga] refine: memetic refinement needs the GA and a plugin of one objective"


def _check_address(pool: PoolSection, source: str | None) -> None:
    """``[pool] address`` only with dask, and in the form of a scheduler's address."""
    if pool.address is not None and pool.backend != "dask":
        raise EvoInputError(
            f'only used with backend = "dask", but backend is {pool.backend or "not set"}',
            source=source,
            field="[pool] address",
        )
    problem = None if pool.address is None else dask_address_problem(pool.address)
    if problem is not None:
        raise EvoInputError(f"{problem}, got {shown(pool.address)}", source=source, field="[pool] address")


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
    return any(f.name == key for f in dataclasses.fields(cls))
