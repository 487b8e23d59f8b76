"""The random draws of the compiled variation operators, one function per kind of draw, each giving
exactly what the ``numpy.random.Generator`` method named in its docstring gives from the same state.

Compiled operators call these and nothing else, so that the generator behind them can change without
touching the operators. ``rng`` is a numba-typed ``numpy.random.Generator``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["generator", "integers", "normal", "permutation", "random", "uniform"]

_JIT = dict(cache=True, nogil=True)


@nb.njit(**_JIT)
def random(rng) -> float:  # pragma: no cover
    """``rng.random()``: uniform in [0, 1)."""
    return rng.random()


@nb.njit(**_JIT)
def normal(rng) -> float:  # pragma: no cover
    """``rng.standard_normal()``."""
    return rng.standard_normal()


@nb.njit(**_JIT)
def integers(rng, low: int, high: int) -> int:  # pragma: no cover
    """``rng.integers(low, high)``: an int64 in [low, high) (``rng.integers(n)`` is ``integers(rng, 0, n)``)."""
    return rng.integers(low, high)


@nb.njit(**_JIT)
def uniform(rng, low: float, high: float) -> float:  # pragma: no cover
    """``rng.uniform(low, high)``."""
    return rng.uniform(low, high)


@nb.njit(**_JIT)
def permutation(rng, n: int) -> np.ndarray:  # pragma: no cover
    """``rng.permutation(n)``: int64 array."""
    return rng.permutation(n)


def generator(seed: int):
    """The generator the compiled operators draw from for a brood of ``seed`` (0 <= seed < 2**63): the
    stream of ``np.random.default_rng(seed)``."""
    from evo.ga.seeds import brood_generator

    return brood_generator(seed)
