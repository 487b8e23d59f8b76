"""Finding fitness plugins: the shipped folder, ``plugin_paths``, entry points, and references that a
worker process resolves again (:func:`load_ref`). A function is never pickled.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import sys
import types
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from evo.errors import EvoInputError, closest
from evo.fitness.protocol import DECLARED, Plugin, PluginRef

__all__ = ["ENTRY_POINT_GROUP", "discover", "find_plugin", "load_ref", "shipped_folder"]

ENTRY_POINT_GROUP = "evo.fitness"

# Plugins of each plugin file already loaded in this process, by absolute path.
_FILES: dict[str, list[Plugin]] = {}
# Plugins resolved from references in this process (workers).
_REFS: dict[PluginRef, Plugin] = {}


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
        DECLARED.pop(module_name, None)
        if isinstance(exc, EvoInputError):  # the decorator's own checks
            raise EvoInputError(str(exc), source=key) from None
        detail = " ".join(str(exc).split())
        raise EvoInputError(f"loading it raised {type(exc).__name__}: {detail}", source=key) from None
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


def _load_entry_point(ep: importlib.metadata.EntryPoint) -> list[Plugin]:
    where = f"entry point '{ep.name} = {ep.value}' (group {ENTRY_POINT_GROUP})"
    try:
        obj = ep.load()
    except Exception as exc:
        raise EvoInputError(f"{where}: loading raised {type(exc).__name__}: {exc}") from None
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
        candidates = [replace(p, origin=ref.origin) for p in DECLARED.get(where, [])]
    else:
        raise EvoInputError(f"plugin '{ref.name}': unknown origin {ref.origin!r}")
    for candidate in candidates:
        if candidate.name == ref.name:
            _REFS[ref] = candidate
            return candidate
    raise EvoInputError(f"no plugin named '{ref.name}' in {ref.origin}")
