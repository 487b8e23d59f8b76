"""Deprecated since 0.2.0, removed in 0.3.0: the first release's ``evo.evaluation``, now :mod:`evo.fitness`.

``from evo.evaluation import evaluate`` keeps working with a DeprecationWarning naming the new path
(docs/python.md, "Stability and deprecations").
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NAMES = ("Evaluation", "EvaluationSpec", "PluginFailed", "evaluate", "worst_fitness")


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module 'evo.evaluation' has no attribute {name!r}")
    warnings.warn(
        f"evo.evaluation is deprecated since evo 0.2.0 and goes in 0.3.0: import {name} from evo.fitness",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module("evo.fitness"), name)
