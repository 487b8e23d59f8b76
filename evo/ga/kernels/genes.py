"""Compiled loops of :func:`evo.ga.body.finish` and :func:`evo.ga.body.settle` (the genes clipped into
their ranges, the body placed on the floor) and of the gene terms of :func:`evo.ga.creatures.distance`,
value for value what the numpy expressions they replace give (tests/ga/test_gene_kernels.py)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["BLOCK", "distance_terms", "finished_genes"]

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


BLOCK = 128  # numpy's pairwise summation adds up to this many values in one block


@nb.njit(**_JIT)
def _block_sum(values, n):  # pragma: no cover
    """numpy's pairwise summation of values[:n] for n <= BLOCK (``np.add.reduce`` of a contiguous
    float64 array: below 8 values one by one, else eight accumulators, combined pairwise, then the rest)."""
    if n < 8:
        total = 0.0
        for i in range(n):
            total += values[i]
        return total
    r = values[:8].copy()
    i = 8
    while i < n - (n % 8):
        for j in range(8):
            r[j] += values[i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        total += values[i]
        i += 1
    return total


@nb.njit(**_JIT)
def _mean(values):  # pragma: no cover
    return _block_sum(values, values.shape[0]) / values.shape[0]


@nb.njit(**_JIT)
def _distance_terms(rest_a, rest_b, same_links, alpha_a, alpha_b, phi_a, phi_b):  # pragma: no cover
    q = rest_a.shape[0]
    rest = np.empty(q)
    for i in range(q):
        scale = max(abs(rest_a[i]), abs(rest_b[i]))
        rest[i] = abs(rest_a[i] - rest_b[i]) / scale if scale > 0 else 0.0
    m = alpha_a.shape[0]
    genes = np.empty(m)
    if same_links:  # per link: |Δalpha| / 2 + circular |Δphi| / π / 2 where both are muscles
        for k in range(m):
            turn = abs(phi_a[k] - phi_b[k]) % _TWO_PI
            circular = min(turn, _TWO_PI - turn) / np.pi
            both = alpha_a[k] > 0.0 and alpha_b[k] > 0.0
            genes[k] = 0.5 * abs(alpha_a[k] - alpha_b[k]) + 0.5 * (circular if both else 0.0)
    else:  # the alpha quantiles
        for k in range(m):
            genes[k] = abs(alpha_a[k] - alpha_b[k])
    return _mean(rest), _mean(genes)


def distance_terms(
    rest: tuple[np.ndarray, np.ndarray],
    same_links: bool,
    alpha: tuple[np.ndarray, np.ndarray],
    phi: tuple[np.ndarray, np.ndarray],
) -> tuple[float, float]:
    """The rest-length and muscle terms of :func:`evo.ga.creatures.distance`, each in [0, 1].

    Args:
        rest: the two creatures' (9,) rest-length quantiles (px).
        same_links: whether both have the same links between the same masses.
        alpha: their (n_links,) alphas when ``same_links``, else their (9,) alpha quantiles; at most
            :data:`BLOCK` of them (the caller computes longer ones with numpy).
        phi: their (n_links,) phases (rad) when ``same_links`` (ignored otherwise).

    Returns:
        ``(rest_term, muscle_term)``: the means of the relative rest differences and of the muscle
        differences, as ``np.mean`` computes them.
    """
    return _distance_terms(rest[0], rest[1], same_links, alpha[0], alpha[1], phi[0], phi[1])
