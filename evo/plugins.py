"""Fitness plugins: the protocol, the registry and discovery.

A plugin is a function that scores one simulated creature::

    from evo.plugins import fitness_plugin

    @fitness_plugin("distance", weights=(1.0,), record_every=10)
    def distance(result, *, settle_frames: int = 200) -> float:
        \"\"\"Centroid x displacement (px) from frame `settle_frames` to the end.\"\"\"
        ...

It receives a :class:`SimulationResult` and keyword parameters (each with a default; a config sets them in
``[evaluation.params]``), and returns a float, or a tuple with one number per weight. A positive weight
means bigger is better, a negative one smaller is better.

Plugins are found (see :func:`discover`) in the shipped ``plugins/`` folder, in the folders and files of a
config's ``plugin_paths`` and under the entry-point group ``evo.fitness``. Worker processes get a
:class:`PluginRef` (name + origin, plain strings) and re-import the plugin with :func:`load_ref`; a
function is never pickled. See docs/plugins.md.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import math
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from evo._plugin_params import check_params
from evo.errors import EvoInputError, closest
from evo.model import Creature
from evo.sim.simulate import centroids_of
from evo.sim.world import World

__all__ = [
    "ENTRY_POINT_GROUP",
    "Plugin",
    "PluginRef",
    "RESERVED_OBJECTIVES",
    "SimulationResult",
    "check_params",
    "discover",
    "find_plugin",
    "fitness_plugin",
    "load_ref",
    "shipped_folder",
]

ENTRY_POINT_GROUP = "evo.fitness"
# names an objective may not have: history.csv's columns masses_mean and links_mean would clash with theirs
RESERVED_OBJECTIVES = ("masses", "links")

# Plugins declared by the decorator, per module name, in declaration order (filled while a module loads).
_DECLARED: dict[str, list[Plugin]] = {}
# Plugins of each plugin file already loaded in this process, by absolute path.
_FILES: dict[str, list[Plugin]] = {}
# Plugins resolved from references in this process (workers).
_REFS: dict[PluginRef, Plugin] = {}


@dataclass(frozen=True)
class SimulationResult:
    """What a plugin scores: one creature's recorded simulation.

    Attributes:
        positions: (records, masses, 2) array, px.
        velocities: (records, masses, 2) array, px/frame.
        frames: (records,) array, the frame number of each record (0 is the initial state).
        total_frames: the frames the evaluation asked for.
        exploded: always False for a plugin (exploded creatures are not scored); kept for completeness.
        model: the :class:`~evo.model.Creature` that was simulated.
        world: the :class:`~evo.sim.World` it was simulated in.
        seed: the evaluation's seed (int).
        rng: ``numpy.random.default_rng(seed)``, for plugins that want noise (made on first use).
    """

    positions: np.ndarray
    velocities: np.ndarray
    frames: np.ndarray
    total_frames: float
    exploded: bool
    model: Creature
    world: World
    seed: int

    @functools.cached_property
    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    @functools.cached_property
    def centroids(self) -> np.ndarray:
        """(records, 2) mean position of all masses, px (computed once)."""
        return centroids_of(self.positions)

    def index_at(self, frame: float) -> int:
        """Index of the first record at or after ``frame`` (the last record if none is)."""
        index = int(np.searchsorted(self.frames, frame, side="left"))
        return min(max(index, 0), len(self.frames) - 1)


@dataclass(frozen=True)
class PluginRef:
    """A plugin by reference: plain strings that a worker process resolves with :func:`load_ref`.

    ``origin`` is ``file:/abs/path.py`` for a plugin file or ``module:package.module`` for an importable
    module (entry points).
    """

    name: str
    origin: str


@dataclass(frozen=True)
class Plugin:
    """A registered fitness function and what evo needs to know about it."""

    name: str
    func: Callable[..., Any]
    weights: tuple[float, ...]
    record_every: float
    objectives: tuple[str, ...]
    params: dict[str, Any]
    doc: str
    origin: str = ""

    def ref(self) -> PluginRef:
        return PluginRef(self.name, self.origin)


def fitness_plugin(
    name: str,
    *,
    weights: tuple[float, ...] = (1.0,),
    record_every: float = 10,
    objectives: tuple[str, ...] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the fitness plugin ``name``.

    Args:
        name: the name configs use (``plugin = "distance"``).
        weights: one per objective; > 0 maximise, < 0 minimise. Only the sign matters to evo's selection
            (NSGA-II ranks by Pareto dominance and crowding, the hall of fame lexicographically).
        record_every: frames between the records in ``result`` (a whole number of steps of ``dt``).
        objectives: a name per objective (default ``(name,)``, or ``name_0, name_1, ...``).

    The function must take the result as its only positional parameter; every other parameter needs a
    default. The function is returned unchanged (with a ``__fitness_plugin__`` attribute).
    """
    where = f"fitness_plugin({name!r})"
    if not isinstance(name, str) or not name.strip() or any(c.isspace() for c in name):
        raise EvoInputError(f"{where}: the name must be a non-empty string without spaces")
    weights = tuple(weights)
    if not weights or not all(_is_real(w) and math.isfinite(w) and w != 0 for w in weights):
        raise EvoInputError(f"{where}: weights must be a non-empty tuple of finite non-zero numbers")
    if not (_is_real(record_every) and math.isfinite(record_every) and record_every > 0):
        raise EvoInputError(f"{where}: record_every must be a number of frames > 0, got {record_every!r}")
    if objectives is None:
        objectives = (name,) if len(weights) == 1 else tuple(f"{name}_{i}" for i in range(len(weights)))
    objectives = tuple(objectives)
    if len(objectives) != len(weights) or not all(isinstance(o, str) and o.strip() for o in objectives):
        raise EvoInputError(f"{where}: objectives must name each of the {len(weights)} weights")
    if len(set(objectives)) != len(objectives):
        raise EvoInputError(f"{where}: objectives must have distinct names, got {objectives}")
    taken = [o for o in objectives if o in RESERVED_OBJECTIVES]
    if taken:
        raise EvoInputError(
            f"{where}: objective name '{taken[0]}' is taken: history.csv already has a column "
            f"'{taken[0]}_mean' (the population's mean number of {taken[0]})"
        )

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        plugin = Plugin(
            name=name,
            func=func,
            weights=tuple(float(w) for w in weights),
            record_every=float(record_every),
            objectives=objectives,
            params=_defaults_of(func, where),
            doc=_first_line(func.__doc__),
        )
        func.__fitness_plugin__ = plugin
        _DECLARED.setdefault(func.__module__, []).append(plugin)
        return func

    return decorate


def _is_real(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _first_line(doc: str | None) -> str:
    lines = inspect.cleandoc(doc or "").splitlines()
    return lines[0].strip() if lines else ""


def _defaults_of(func: Callable[..., Any], where: str) -> dict[str, Any]:
    """{parameter: default} of every parameter after the first (the result)."""
    params = list(inspect.signature(func).parameters.values())
    if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        raise EvoInputError(f"{where}: the function must take the simulation result as its first parameter")
    out = {}
    for p in params[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise EvoInputError(f"{where}: *args and **kwargs are not allowed; name each parameter")
        if p.default is p.empty:
            raise EvoInputError(f"{where}: parameter '{p.name}' needs a default")
        out[p.name] = p.default
    return out


# -- discovery -------------------------------------------------------------------------------------


def shipped_folder() -> Path | None:
    """The folder of the shipped plugins.

    In a source checkout (editable install) that is ``plugins/`` beside the ``evo`` package; after
    ``pip install .`` it is the ``evo_plugins`` package the wheel maps that folder to.
    """
    tree = Path(__file__).resolve().parent.parent
    if (tree / "plugins").is_dir() and (tree / "pyproject.toml").is_file():
        return tree / "plugins"
    spec = importlib.util.find_spec("evo_plugins")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return None


def _plugin_files(folder: Path) -> list[Path]:
    """The plugin files of a folder: its ``*.py`` files not starting with ``_`` or ``.``, sorted."""
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith(("_", ".")))


def _load_file(path: Path) -> list[Plugin]:
    """Import a plugin file (once per process) and return the plugins it declares."""
    path = path.resolve()
    key = str(path)
    if key in _FILES:
        return _FILES[key]
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    module_name = f"_evo_plugin_{path.stem.replace('-', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise EvoInputError("cannot load as a Python file", source=key)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))  # so that it can import helper files beside it
    # no __pycache__ in the user's folder: a config is checked before anything is written
    dont_write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(module_name, None)
        _DECLARED.pop(module_name, None)
        if isinstance(exc, EvoInputError):  # the decorator's own checks
            raise EvoInputError(str(exc), source=key) from None
        detail = " ".join(str(exc).split())
        raise EvoInputError(f"loading it raised {type(exc).__name__}: {detail}", source=key) from None
    finally:
        sys.path.remove(str(path.parent))
        sys.dont_write_bytecode = dont_write_bytecode
    plugins = [replace(p, origin=f"file:{key}") for p in _DECLARED.get(module_name, [])]
    names = [p.name for p in plugins]
    for name in names:
        if names.count(name) > 1:
            raise EvoInputError(f"declares two plugins named '{name}'", source=key)
    _FILES[key] = plugins
    return plugins


def _load_entry_point(ep: importlib.metadata.EntryPoint) -> list[Plugin]:
    where = f"entry point '{ep.name} = {ep.value}' (group {ENTRY_POINT_GROUP})"
    try:
        obj = ep.load()
    except Exception as exc:
        raise EvoInputError(f"{where}: loading raised {type(exc).__name__}: {exc}") from None
    if isinstance(obj, types.ModuleType):
        declared = _DECLARED.get(obj.__name__, [])
    elif hasattr(obj, "__fitness_plugin__"):
        declared = [obj.__fitness_plugin__]
    else:
        raise EvoInputError(f"{where}: expected a module or a function decorated with @fitness_plugin")
    return [replace(p, origin=f"module:{p.func.__module__}") for p in declared]


def _path_entries(plugin_paths: Sequence[str], base_dir: str | None) -> list[Path]:
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    files: list[Path] = []
    for entry in plugin_paths:
        path = (base / Path(entry).expanduser()).resolve()
        if path.is_dir():
            files.extend(_plugin_files(path))
        elif path.is_file() and path.suffix == ".py":
            files.append(path)
        else:
            raise EvoInputError(f"plugin_paths: '{entry}' is not a folder or a .py file ({path})")
    return files


def discover(plugin_paths: Sequence[str] = (), *, base_dir: str | None = None) -> dict[str, Plugin]:
    """Every plugin evo can see, by name.

    Looks in the shipped plugins folder, then each folder or ``.py`` file of ``plugin_paths`` (relative
    paths are relative to ``base_dir``, by default the current folder), then the entry points of the
    group ``evo.fitness``. The same file reached twice counts once; two plugins with the same name are
    an error naming both origins.
    """
    plugins: list[Plugin] = []
    shipped = shipped_folder()
    files = _plugin_files(shipped) if shipped else []
    files += _path_entries(plugin_paths, base_dir)
    for path in dict.fromkeys(p.resolve() for p in files):
        plugins.extend(_load_file(path))
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        plugins.extend(_load_entry_point(ep))
    found: dict[str, Plugin] = {}
    for plugin in plugins:
        other = found.get(plugin.name)
        if other is not None and other.origin != plugin.origin:
            raise EvoInputError(
                f"two plugins are named '{plugin.name}': one in {other.origin}, one in {plugin.origin}"
            )
        found[plugin.name] = plugin
    return found


def find_plugin(
    name: str,
    plugin_paths: Sequence[str] = (),
    *,
    base_dir: str | None = None,
    source: str | None = None,
    field: str | None = None,
) -> Plugin:
    """The plugin called ``name``; unknown names get the closest known one suggested."""
    plugins = discover(plugin_paths, base_dir=base_dir)
    if name in plugins:
        return plugins[name]
    hint = closest(name, plugins)
    message = f"unknown plugin '{name}'"
    message += f"; did you mean '{hint}'?" if hint else f"; known plugins: {', '.join(sorted(plugins))}"
    raise EvoInputError(message, source=source, field=field)


def load_ref(ref: PluginRef) -> Plugin:
    """Resolve a reference in this process (re-importing its origin once per process)."""
    plugin = _REFS.get(ref)
    if plugin is not None:
        return plugin
    kind, _, where = ref.origin.partition(":")
    if kind == "file":
        candidates = _load_file(Path(where))
    elif kind == "module":
        try:
            importlib.import_module(where)
        except Exception as exc:
            raise EvoInputError(
                f"cannot import plugin module '{where}': {type(exc).__name__}: {exc}"
            ) from None
        candidates = [replace(p, origin=ref.origin) for p in _DECLARED.get(where, [])]
    else:
        raise EvoInputError(f"plugin '{ref.name}': unknown origin {ref.origin!r}")
    for candidate in candidates:
        if candidate.name == ref.name:
            _REFS[ref] = candidate
            return candidate
    raise EvoInputError(f"no plugin named '{ref.name}' in {ref.origin}")
