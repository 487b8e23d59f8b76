"""Module paths that moved in evo 0.2.0 and keep working until 0.3.0: each old path is an alias module
whose names are those of the new one, each read with a DeprecationWarning naming the new path
(docs/python.md, "Stability and deprecations"). The old files are gone, so merges and history follow them.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Mapping
from typing import Any

__all__ = ["MOVED_IO_MODULES", "MovedModule", "alias_moved_modules"]

# old module -> (where its code is now, where to import its names from)
MOVED_IO_MODULES = {
    "evo.io.runs": ("evo.io.run_folder.contents", "evo.io.run_folder"),
    "evo.io.checkpoint_file": ("evo.io.checkpoint.disk", "evo.io.checkpoint"),
    "evo.io.checkpoint_schema": ("evo.io.checkpoint.schema", "evo.io.checkpoint"),
    "evo.io.qd_checkpoint": ("evo.io.checkpoint.qd", "evo.io.checkpoint"),
    "evo.io.population_arrays": ("evo.io.checkpoint.arrays", "evo.io.checkpoint.arrays"),
}


class MovedModule(types.ModuleType):
    """The old module ``name``: reading a name imports ``code`` and warns, naming ``advice`` as the
    module to import it from. Dunder and unknown names raise AttributeError without a warning."""

    def __init__(self, name: str, code: str, advice: str):
        super().__init__(name, f"Deprecated since evo 0.2.0, removed in 0.3.0: now {advice}.")
        self.__spec__ = importlib.machinery.ModuleSpec(name, None)
        self.__package__ = name.rpartition(".")[0]
        self._evo_moved = (code, advice)

    def __getattr__(self, name: str) -> Any:
        code, advice = self.__dict__["_evo_moved"]
        if name.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        module = importlib.import_module(code)
        if not hasattr(module, name):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        source = advice if hasattr(importlib.import_module(advice), name) else code
        warnings.warn(
            f"{self.__name__} is deprecated since evo 0.2.0 and goes in 0.3.0: import {name} from {source}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(module, name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(dir(importlib.import_module(self._evo_moved[0]))))


def alias_moved_modules(package: types.ModuleType, moved: Mapping[str, tuple[str, str]]) -> None:
    """Make each old module of ``package`` (a key of ``moved``) importable as a :class:`MovedModule`;
    called once by the package's ``__init__``. Nothing is imported until a name is read."""
    for old, (code, advice) in moved.items():
        if old not in sys.modules:
            sys.modules[old] = MovedModule(old, code, advice)
        setattr(package, old.rpartition(".")[2], sys.modules[old])
