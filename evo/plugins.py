"""Deprecated since 0.2.0, removed in 0.3.0: the first release's ``evo.plugins``, now :mod:`evo.fitness`.

``from evo.plugins import fitness_plugin`` keeps working with a DeprecationWarning naming the new path
(docs/python.md, "Stability and deprecations").
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NAMES = (
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
)


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module 'evo.plugins' has no attribute {name!r}")
    shortest = " (or `from evo import fitness_plugin`)" if name == "fitness_plugin" else ""
    warnings.warn(
        f"evo.plugins is deprecated since evo 0.2.0 and goes in 0.3.0: import {name} from evo.fitness"
        f"{shortest}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module("evo.fitness"), name)
