"""Deprecated since 0.2.0, removed in 0.3.0: the first release's ``evo.config``, now :mod:`evo.run.config`.

``from evo.config import load_config`` keeps working with a DeprecationWarning naming the new path
(docs/python.md, "Stability and deprecations").
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module 'evo.config' has no attribute {name!r}")
    module = importlib.import_module("evo.run.config")
    if not hasattr(module, name) or name.startswith("_"):
        raise AttributeError(f"module 'evo.config' has no attribute {name!r}")
    warnings.warn(
        f"evo.config is deprecated since evo 0.2.0 and goes in 0.3.0: import {name} from evo.run.config "
        "(or use evo.Config)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(module, name)
