"""Module paths of ``evo.io`` and ``evo.run`` that moved in evo 0.2.0 and keep working until 0.3.0: each old
path is an alias module whose public names are the new module's, each read with a DeprecationWarning
naming the new path (docs/python.md). The old files are gone, so that merges and history follow them.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from collections.abc import Mapping

from evo.ga._moved import moved_module

__all__ = ["MOVED_IO_MODULES", "alias_moved_modules"]

# old module -> the module to import its names from now
MOVED_IO_MODULES = {
    "evo.io.runs": "evo.io.run_folder",
    "evo.io.checkpoint_file": "evo.io.checkpoint",
    "evo.io.checkpoint_schema": "evo.io.checkpoint",
    "evo.io.qd_checkpoint": "evo.io.checkpoint",
    "evo.io.population_arrays": "evo.io.checkpoint.arrays",
}


def alias_moved_modules(package: types.ModuleType, moved: Mapping[str, str]) -> None:
    """Make each old module of ``package`` (a key of ``moved``) importable as an alias of its new one
    (:func:`evo.ga._moved.moved_module` reads its names); called once by the package's ``__init__``.
    Nothing is imported until a name is read."""
    for old, new in moved.items():
        if old not in sys.modules:
            alias = types.ModuleType(old, f"Deprecated since evo 0.2.0, removed in 0.3.0: now {new}.")
            alias.__spec__ = importlib.machinery.ModuleSpec(old, None)
            alias.__getattr__ = moved_module(old, new)  # type: ignore[method-assign]
            sys.modules[old] = alias
        setattr(package, old.rpartition(".")[2], sys.modules[old])
