"""Compiled loops of crossover and repair: the nearest pairs that join two parts, and the spanning forest,
joins and extra links that repair keeps. They choose structure only and draw nothing: the caller draws
the new links' genes afterwards, in the same order, so the random stream is that of the Python loops."""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["join_pairs", "span"]

_JIT = dict(cache=True, nogil=True, boundscheck=False)


@nb.njit(**_JIT)
def _root(parent: np.ndarray, i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@nb.njit(**_JIT)
def _join_pairs(left: np.ndarray, right: np.ndarray, count: int, per_mass: int):  # pragma: no cover
    n_left, n_right = left.shape[0], right.shape[0]
    lengths = np.empty(n_left * n_right)
    for i in range(n_left):
        for j in range(n_right):
            lengths[i * n_right + j] = np.hypot(right[j, 0] - left[i, 0], right[j, 1] - left[i, 1])
    order = np.argsort(lengths, kind="mergesort")
    used_left = np.zeros(n_left, np.int64)
    used_right = np.zeros(n_right, np.int64)
    size = max(0, min(count, n_left * n_right))
    out_i = np.empty(size, np.int64)
    out_j = np.empty(size, np.int64)
    out_length = np.empty(size)
    made = 0
    for flat in order:
        if count <= 0:
            break
        i, j = flat // n_right, flat % n_right
        if used_left[i] < per_mass and used_right[j] < per_mass:
            out_i[made], out_j[made], out_length[made] = i, j, lengths[flat]
            made += 1
            used_left[i] += 1
            used_right[j] += 1
            count -= 1
    return out_i[:made], out_j[:made], out_length[:made]


def join_pairs(
    left: np.ndarray, right: np.ndarray, count: int, per_mass: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The links that join two parts: up to ``count`` pairs (left mass, right mass), nearest first (ties in
    row-major order of (left, right)), at most ``per_mass`` per mass.

    Args:
        left: (n_left, 2) positions of the left part (px), n_left >= 1.
        right: (n_right, 2) positions of the right part (px), n_right >= 1.
        count: how many links to make at most.
        per_mass: the most new links one mass may receive.

    Returns:
        (k,) left indices, (k,) right indices and (k,) their distances (px), in the order chosen.
    """
    return _join_pairs(
        np.ascontiguousarray(left, dtype=np.float64),
        np.ascontiguousarray(right, dtype=np.float64),
        count,
        per_mass,
    )


@nb.njit(**_JIT)
def _span(n, a, b, order, positions, cap, max_links):  # pragma: no cover
    m = a.shape[0]
    parent = np.arange(n)
    degree = np.zeros(n, np.int64)
    kept = np.zeros(m, np.bool_)
    for k in order:
        i, j = a[k], b[k]
        if degree[i] < cap and degree[j] < cap:
            ri, rj = _root(parent, i), _root(parent, j)
            if ri != rj:
                parent[ri] = rj
                degree[i] += 1
                degree[j] += 1
                kept[k] = True
    join_i = np.empty(n, np.int64)
    join_j = np.empty(n, np.int64)
    join_length = np.empty(n)
    joins = 0
    main = np.empty(n, np.bool_)
    while True:
        first = _root(parent, 0)
        whole = True
        for v in range(n):
            main[v] = _root(parent, v) == first
            whole = whole and main[v]
        if whole:
            break
        best, best_i, best_j = np.inf, -1, -1
        for i in range(n):
            if not (main[i] and degree[i] < cap):
                continue
            for j in range(n):
                if main[j] or degree[j] >= cap:
                    continue
                length = np.hypot(positions[j, 0] - positions[i, 0], positions[j, 1] - positions[i, 1])
                if best_i < 0 or length < best:
                    best, best_i, best_j = length, i, j
        if best_i < 0:
            raise ValueError("no mass with a spare degree to join the pieces")
        parent[_root(parent, best_i)] = _root(parent, best_j)
        degree[best_i] += 1
        degree[best_j] += 1
        join_i[joins], join_j[joins], join_length[joins] = best_i, best_j, best
        joins += 1
    budget = max_links - np.count_nonzero(kept) - joins
    for k in order:
        i, j = a[k], b[k]
        if budget > 0 and not kept[k] and degree[i] < cap and degree[j] < cap:
            degree[i] += 1
            degree[j] += 1
            kept[k] = True
            budget -= 1
    return kept, join_i[:joins], join_j[:joins], join_length[:joins]


def span(
    n: int, a: np.ndarray, b: np.ndarray, order: np.ndarray, positions: np.ndarray, cap: int, max_links: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Which links a repair keeps and the links it adds (:func:`evo.ga.body.repair`): links taken in
    ``order`` first grow a spanning forest within the degree cap, then the trees are joined one by one
    (the nearest pair of masses with a spare degree, one in the tree of mass 0 and one outside it), then
    the other links are kept in ``order`` while the degree cap and ``max_links`` allow.

    Args:
        n: the number of masses.
        a, b: (m,) int the masses each link joins (no self or duplicate links).
        order: (m,) int a permutation of the links.
        positions: (n, 2) positions (px).
        cap: the degree cap (``max_degree``).
        max_links: the link cap.

    Returns:
        (m,) bool kept links; (j,) first masses, (j,) second masses and (j,) lengths (px) of the new
        links, in the order they were made.

    Raises:
        ValueError: pieces that no mass with a spare degree can join (never with cap >= 2).
    """
    return _span(
        n,
        np.asarray(a, dtype=np.int64),
        np.asarray(b, dtype=np.int64),
        np.asarray(order, dtype=np.int64),
        np.ascontiguousarray(positions, dtype=np.float64),
        cap,
        max_links,
    )
