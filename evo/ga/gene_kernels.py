"""Compiled loops of :func:`evo.ga.body.finish` and :func:`evo.ga.body.settle`: the genes clipped into
their ranges and the body placed on the floor in one call, value for value what the numpy expressions
they replace give (tests/ga/test_gene_kernels.py)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["finished_genes"]

_JIT = dict(cache=True, nogil=True, boundscheck=False)
_TWO_PI = 2.0 * math.pi


@nb.njit(**_JIT)
def _finished_genes(positions, genes, rest_low, rest_high):  # pragma: no cover
    n = positions.shape[0]
    placed = np.empty((n, 2))
    for axis in range(2):
        low = np.inf
        nan = False
        for i in range(n):
            x = positions[i, axis]
            if x < low:
                low = x
            elif x != x:
                nan = True
        if nan:
            low = np.nan
        for i in range(n):
            placed[i, axis] = positions[i, axis] - low
    m = genes.shape[1]
    out = np.empty((3, m))
    for k in range(m):
        r = genes[0, k]  # np.minimum(np.maximum(r, low), high), NaN kept
        if r < rest_low:
            r = rest_low
        if r > rest_high:
            r = rest_high
        out[0, k] = r
        a = genes[1, k]
        if a < 0.0:
            a = 0.0
        if a > 1.0:
            a = 1.0
        out[1, k] = a
        p = genes[2, k] % _TWO_PI  # Python's float modulo is np.mod's, sign of zero included
        if p >= _TWO_PI:
            p = 0.0
        out[2, k] = p
    return placed, out


def finished_genes(
    positions: np.ndarray, genes: np.ndarray, rest_range: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """New arrays: positions placed on the floor (lowest mass at y = 0, leftmost at x = 0, px) and the
    link genes clipped: rest lengths to ``rest_range`` (px), alpha to [0, 1], phi wrapped into [0, 2π).

    Args:
        positions: (n_masses, 2) float64 array (px).
        genes: (3, n_links) float64 array: rest (px), alpha and phi (rad), one row each.
        rest_range: (low, high) rest length (px).

    Returns:
        ``(positions, genes)``, fresh arrays of the same shapes.
    """
    return _finished_genes(positions, genes, float(rest_range[0]), float(rest_range[1]))
