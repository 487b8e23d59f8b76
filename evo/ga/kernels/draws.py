"""The draws compiled variation operators make (random, normal, integers, uniform, permutation), each exactly
the ``numpy.random.Generator`` method of its docstring from the same state; ``rng`` is a PCG64 state array of
:mod:`evo.ga.kernels.pcg` (what the operators use) or a numba-typed ``Generator`` (its methods): the same
streams.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import overload

from evo.ga.kernels import pcg

__all__ = ["generator", "integers", "normal", "permutation", "random", "uniform"]

_JIT = dict(cache=True, nogil=True)


def generator(seed: int) -> np.ndarray:
    """A PCG64 state array starting where ``np.random.default_rng(seed)`` starts, for 0 <= seed < 2**63."""
    if not 0 <= seed < 1 << 63:
        raise ValueError(f"generator seeds are 0 <= seed < 2**63, got {seed}")
    return pcg.seeded(seed)


def _on(rng, draw, method):
    """The implementation an overload returns: ``draw`` for a state array, ``method`` for a Generator."""
    if isinstance(rng, types.Array) and rng.dtype == types.uint64 and rng.ndim == 1:
        return draw
    if isinstance(rng, types.NumPyRandomGeneratorType):
        return method
    return None


def _random(rng): ...
def _normal(rng): ...
def _integers(rng, lo, hi): ...
def _uniform(rng, lo, hi): ...
def _permutation(rng, n): ...


@overload(_random, jit_options=_JIT, inline="always")
def _random_overload(rng):
    return _on(rng, lambda rng: pcg.random(rng), lambda rng: rng.random())


@overload(_normal, jit_options=_JIT, inline="always")
def _normal_overload(rng):
    return _on(rng, lambda rng: pcg.normal(rng), lambda rng: rng.standard_normal())


@overload(_integers, jit_options=_JIT, inline="always")
def _integers_overload(rng, lo, hi):
    return _on(rng, lambda rng, lo, hi: pcg.integers(rng, lo, hi), lambda rng, lo, hi: rng.integers(lo, hi))


@overload(_uniform, jit_options=_JIT, inline="always")
def _uniform_overload(rng, lo, hi):
    return _on(rng, lambda rng, lo, hi: pcg.uniform(rng, lo, hi), lambda rng, lo, hi: rng.uniform(lo, hi))


@overload(_permutation, jit_options=_JIT, inline="always")
def _permutation_overload(rng, n):
    return _on(rng, lambda rng, n: pcg.permutation(rng, n), lambda rng, n: rng.permutation(n))


@nb.njit(**_JIT)
def random(rng) -> float:  # pragma: no cover
    """``rng.random()``: uniform in [0, 1)."""
    return _random(rng)


@nb.njit(**_JIT)
def normal(rng) -> float:  # pragma: no cover
    """``rng.standard_normal()``."""
    return _normal(rng)


@nb.njit(**_JIT)
def integers(rng, low: int, high: int) -> int:  # pragma: no cover
    """``rng.integers(low, high)``: int64 in [low, high) (``rng.integers(n)``: ``integers(rng, 0, n)``)."""
    return _integers(rng, low, high)


@nb.njit(**_JIT)
def uniform(rng, low: float, high: float) -> float:  # pragma: no cover
    """``rng.uniform(low, high)``."""
    return _uniform(rng, low, high)


@nb.njit(**_JIT)
def permutation(rng, n: int) -> np.ndarray:  # pragma: no cover
    """``rng.permutation(n)``: int64 array."""
    return _permutation(rng, n)
