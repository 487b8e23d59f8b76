"""Finding fitness plugins: the shipped folder, ``plugin_paths``, entry points and functions registered from
Python (:func:`register_fitness`), and references that a worker process resolves again (:func:`load_ref`).
A function is never pickled.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import sys
import traceback
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError, closest
from evo.fitness.contained import import_in_child, working_folder_kept
from evo.fitness.failure import describe, is_evos_own, signals_watched
from evo.fitness.protocol import DECLARED, Plugin, PluginRef, declare

__all__ = [
    "ENTRY_POINT_GROUP",
    "discover",
    "find_plugin",
    "is_shipped",
    "load_ref",
    "plugin_of",
    "register_fitness",
    "shipped_folder",
]

ENTRY_POINT_GROUP = "evo.fitness"

# Plugins of each plugin file already loaded in this process, by absolute path.
_FILES: dict[str, list[Plugin]] = {}
# Plugins resolved from references in this process (workers).
_REFS: dict[PluginRef, Plugin] = {}
# Functions registered from Python in this process (register_fitness), by name.
_REGISTERED: dict[str, Plugin] = {}


# -- discovery -------------------------------------------------------------------------------------


def shipped_folder() -> Path | None:
    """The folder of the shipped plugins.

    In a source checkout (editable install) that is ``plugins/`` beside the ``evo`` package; after
    ``pip install .`` it is the ``evo_plugins`` package the wheel maps that folder to.
    """
    tree = Path(__file__).resolve().parents[2]
    if (tree / "plugins").is_dir() and (tree / "pyproject.toml").is_file():
        return tree / "plugins"
    spec = importlib.util.find_spec("evo_plugins")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return None


def _plugin_files(folder: Path) -> list[Path]:
    """The plugin files of a folder: its ``*.py`` files not starting with ``_`` or ``.``, sorted."""
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith(("_", ".")))


def is_shipped(path: Path) -> bool:
    """Whether the (resolved) plugin file ``path`` is in evo's shipped plugins folder: evo's own code,
    never imported in a child process first."""
    shipped = shipped_folder()
    return shipped is not None and path.parent == shipped.resolve()


def _load_file(path: Path, *, contained: bool = False) -> list[Plugin]:
    """Import a plugin file (once per process) and return the plugins it declares; a file that is not
    shipped is imported in a child process first, unless ``contained`` (this is that child)."""
    path = path.resolve()
    key = str(path)
    if key in _FILES:
        return _FILES[key]
    if not contained and not is_shipped(path):
        import_in_child([f"file:{key}"])
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
        with warnings.catch_warnings(), signals_watched() as received, working_folder_kept():
            # a plugin importing a deprecated path (evo.plugins) is told so, though it is not __main__
            warnings.simplefilter("default", DeprecationWarning)
            try:
                spec.loader.exec_module(module)
            except BaseException as exc:  # sys.exit() at import time too: never a silent exit 0
                if is_evos_own(exc, received):
                    raise
                sys.modules.pop(module_name, None)
                DECLARED.pop(module_name, None)
                if isinstance(exc, EvoInputError):  # the decorator's own checks
                    raise EvoInputError(str(exc), source=key) from None
                raise EvoInputError(_import_failure(exc, key), source=key) from None
    finally:
        sys.path.remove(str(path.parent))
        sys.dont_write_bytecode = dont_write_bytecode
    plugins = [replace(p, origin=f"file:{key}") for p in DECLARED.get(module_name, [])]
    names = [p.name for p in plugins]
    for name in names:
        if names.count(name) > 1:
            raise EvoInputError(f"declares two plugins named '{name}'", source=key)
    _FILES[key] = plugins
    return plugins


def _import_failure(exc: BaseException, path: str) -> str:
    """What importing a plugin file raised, in one line, with the line of the file it came from."""
    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__) if frame.filename == path]
    return f"loading it raised {describe(exc)}" + (f" (line {lines[-1]})" if lines else "")


def _load_entry_point_named(name: str, *, contained: bool = False) -> list[Plugin]:
    """The plugins of the entry point ``name`` of the group (see :func:`_load_entry_point`)."""
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP, name=name):
        return _load_entry_point(ep, contained=contained)
    raise EvoInputError(f"no entry point '{name}' in the group {ENTRY_POINT_GROUP}")


def _load_entry_point(ep: importlib.metadata.EntryPoint, *, contained: bool = False) -> list[Plugin]:
    """Import an entry point's object (in a child process first, unless ``contained``)."""
    where = f"entry point '{ep.name} = {ep.value}' (group {ENTRY_POINT_GROUP})"
    if not contained and ep.module not in sys.modules:
        import_in_child([f"entry:{ep.name}"])
    with signals_watched() as received, working_folder_kept():
        try:
            obj = ep.load()
        except BaseException as exc:  # sys.exit() at import time too
            if is_evos_own(exc, received):
                raise
            raise EvoInputError(f"{where}: loading raised {describe(exc)}") from None
    if isinstance(obj, types.ModuleType):
        declared = DECLARED.get(obj.__name__, [])
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
    group ``evo.fitness``, then the functions registered with :func:`register_fitness`. The same file
    reached twice counts once; two plugins with the same name are an error naming both origins.
    """
    plugins: list[Plugin] = []
    shipped = shipped_folder()
    files = _plugin_files(shipped) if shipped else []
    files += _path_entries(plugin_paths, base_dir)
    files = list(dict.fromkeys(p.resolve() for p in files))
    entry_points = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    # every new import tried in one child process first
    untried = [f"file:{p}" for p in files if str(p) not in _FILES and not is_shipped(p)]
    untried += [f"entry:{ep.name}" for ep in entry_points if ep.module not in sys.modules]
    import_in_child(untried)
    for path in files:
        plugins.extend(_load_file(path, contained=True))
    for ep in entry_points:
        plugins.extend(_load_entry_point(ep, contained=True))
    plugins.extend(_REGISTERED.values())
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
    how_to_add: str = "",
) -> Plugin:
    """The plugin called ``name``; unknown names get the closest known one suggested, and ``how_to_add``
    (e.g. ``add its folder with --plugin-path``) is appended to the message."""
    plugins = discover(plugin_paths, base_dir=base_dir)
    if name in plugins:
        return plugins[name]
    hint = closest(name, plugins)
    message = f"unknown plugin '{name}'"
    message += f"; did you mean '{hint}'?" if hint else f"; known plugins: {', '.join(sorted(plugins))}"
    message += f" ({how_to_add})" if how_to_add else ""
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
        if where not in sys.modules:
            import_in_child([f"module:{where}"])
        try:
            with working_folder_kept():
                importlib.import_module(where)
        except Exception as exc:
            raise EvoInputError(
                f"cannot import plugin module '{where}': {type(exc).__name__}: {exc}"
            ) from None
        candidates = [replace(p, origin=ref.origin) for p in DECLARED.get(where, [])]
    elif kind == "python":
        candidates = [_import_function(ref)]
    elif kind == "registered":
        registered = _REGISTERED.get(ref.name)
        if registered is None or registered.origin != ref.origin:
            raise EvoInputError(
                f"fitness function '{ref.name}' was registered in another process and cannot be imported "
                "here: define it in an importable module (not __main__ or a notebook cell) to use it on "
                "this backend"
            )
        candidates = [registered]
    else:
        raise EvoInputError(f"plugin '{ref.name}': unknown origin {ref.origin!r}")
    for candidate in candidates:
        if candidate.name == ref.name:
            _REFS[ref] = candidate
            return candidate
    raise EvoInputError(f"no plugin named '{ref.name}' in {ref.origin}")


# -- functions registered from Python ----------------------------------------------------------------
def _importable(func: Callable[..., Any]) -> str | None:
    """``module:qualname`` when importing that gives back ``func`` itself (so any process can), else None."""
    module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualname:
        return None
    try:
        target: Any = importlib.import_module(module)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        return None
    return f"{module}:{qualname}" if target is func else None


def _import_function(ref: PluginRef) -> Plugin:
    """The plugin behind a ``python:module:qualname`` reference (imported in this process)."""
    path = ref.origin.removeprefix("python:")
    module, _, qualname = path.partition(":")
    try:
        target: Any = importlib.import_module(module)
        for part in qualname.split("."):
            target = getattr(target, part)
    except Exception as exc:
        raise EvoInputError(
            f"fitness function '{ref.name}': cannot import {path}: {type(exc).__name__}: {exc}"
        ) from None
    declared = getattr(target, "__fitness_plugin__", None)
    if declared is not None and not ref.weights:
        return replace(declared, name=ref.name, origin=ref.origin)
    measures = dict(zip(ref.measures, ref.measure_ranges, strict=True)) if ref.measure_ranges else None
    plugin = declare(
        ref.name,
        target,
        weights=ref.weights or (1.0,),
        record_every=ref.record_every or 10,
        objectives=ref.objectives or None,
        measures=measures,
        where=f"fitness function '{ref.name}'",
    )
    return replace(plugin, origin=ref.origin)


def register_fitness(
    name: str | None,
    func: Callable[..., Any] | str,
    *,
    weights: tuple[float, ...] | None = None,
    record_every: float | None = None,
    objectives: tuple[str, ...] | None = None,
    measures: tuple[str, ...] | Mapping[str, Any] | None = None,
) -> Plugin:
    """Make a Python function a fitness plugin called ``name``, usable in configs and by :func:`evo.evolve`.

    Args:
        name: the plugin's name; None takes the decorated plugin's name or the function's ``__name__``.
        func: the function (``func(result, **params) -> float or tuple``), or ``"module:function"`` to be
            imported (then any process can import it too).
        weights, record_every, objectives, measures: as in :func:`~evo.fitness.fitness_plugin`; for a
            function already decorated with it, its own declaration is used unless these are given.

    Returns:
        The :class:`~evo.fitness.Plugin`. Registering a name again replaces the earlier function.

    Raises:
        EvoInputError: a bad declaration or a ``"module:function"`` that cannot be imported.

    A function defined in an importable module (not ``__main__``, not a notebook cell, not a lambda or
    closure) reaches every backend; any other works in this process and its forked workers only.
    """
    if isinstance(func, str):
        module, sep, qualname = func.partition(":")
        if not sep or not module or not qualname:
            raise EvoInputError(f"register_fitness: expected 'module:function', got {func!r}")
        ref = PluginRef(name or qualname.rsplit(".", 1)[-1], f"python:{func}")
        plugin = _import_function(ref)
        target = plugin.func
    else:
        target = func
        plugin = None
    declared = getattr(target, "__fitness_plugin__", None)
    name = name or (declared.name if declared is not None else getattr(target, "__name__", ""))
    if plugin is None or any(v is not None for v in (weights, record_every, objectives, measures)):
        base = declared
        plugin = declare(
            name,
            target,
            weights=weights if weights is not None else (base.weights if base else (1.0,)),
            record_every=record_every if record_every is not None else (base.record_every if base else 10),
            objectives=objectives if objectives is not None else (base.objectives if base else None),
            measures=measures if measures is not None else (base.measure_spec if base else None),
            where=f"register_fitness({name!r})",
        )
    importable = _importable(target)
    origin = f"python:{importable}" if importable else f"registered:{name}"
    plugin = replace(plugin, name=name, origin=origin)
    for ref in [r for r in _REFS if r.name == name]:
        del _REFS[ref]
    _REGISTERED[name] = plugin
    return plugin


def plugin_of(fitness: Callable[..., Any] | str) -> Plugin:
    """The plugin for ``evolve(fitness=...)``: a registered or discoverable name, or a function (registered
    under its plugin name or ``__name__`` on the way)."""
    if isinstance(fitness, str):
        return _REGISTERED.get(fitness) or find_plugin(fitness, field="fitness")
    return register_fitness(None, fitness)
