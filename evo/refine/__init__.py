"""Refine a design: tune a fixed body's gait (phases, amplitudes, rest lengths, the wave) with CMA-ES, its
candidates simulated together in SIMD lanes (docs/refine.md). The package is callable as ``evo.refine``
itself, since importing it makes ``evo.refine`` this module rather than the function."""

import sys
import types
from typing import Any

from evo.refine.genes import GENES, GeneSpace
from evo.refine.search import Refinement, RefineProgress, RefineResult, evaluate_lanes, refine

__all__ = ["GENES", "GeneSpace", "RefineProgress", "RefineResult", "Refinement", "evaluate_lanes", "refine"]


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> RefineResult:
        return refine(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
