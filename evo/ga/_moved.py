"""Deprecated since 0.2.0, removed in 0.3.0: the flat ``evo.ga.*_kernels``, ``evo.ga.draws`` and
``evo.ga.pcg`` modules, now in :mod:`evo.ga.kernels` (docs/python.md, "Stability and deprecations")."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any


def moved_module(old: str, new: str, former: Mapping[str, Any] | None = None) -> Callable[[str], Any]:
    """The module ``__getattr__`` of the old module ``old``: each public name of ``new`` (its
    ``__all__``), with a DeprecationWarning naming the new path; AttributeError for anything else.
    ``former``: names whose old form differs from the new one, given as the old form itself."""

    def __getattr__(name: str) -> Any:
        module = importlib.import_module(new)
        if name not in module.__all__ and name not in (former or {}):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(
            f"{old} is deprecated since evo 0.2.0 and goes in 0.3.0: import {name} from {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return (former or {}).get(name) or getattr(module, name)

    return __getattr__
