"""Refine a design: tune a fixed body's gait (phases, amplitudes, rest lengths, the wave) with CMA-ES, its
candidates simulated together in SIMD lanes (docs/refine.md). Its names load on first use: ``import evo``
imports this package, so that ``evo.refine`` stays the function whoever imports the package later."""

from __future__ import annotations

import importlib
from typing import Any

# public name -> the module that defines it
_NAMES = {
    "GENES": "evo.refine.genes",
    "GeneSpace": "evo.refine.genes",
    "RefineProgress": "evo.refine.search",
    "RefineResult": "evo.refine.search",
    "Refinement": "evo.refine.search",
    "evaluate_lanes": "evo.refine.lanes",
    "refine": "evo.refine.search",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'evo.refine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))
