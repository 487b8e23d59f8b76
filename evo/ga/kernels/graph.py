"""Compiled loops of crossover and repair: a cut child's left part, its two parts, their genes and the
pairs that join them, and the spanning forest, joins and extra links that repair keeps. They draw
nothing: the caller draws afterwards, in the same order, so the random stream is that of the Python
loops they replace."""

from __future__ import annotations

import numba as nb
import numpy as np

from evo.ga.kernels.arrays import count_true, stable_order

__all__ = ["cut_child", "gathered_genes", "join_pairs", "left_part", "span"]

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
    order = stable_order(lengths)
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
    budget = max_links - count_true(kept) - joins
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
    """Which links a repair keeps and the links it adds (:func:`evo.ga.topology.repair`): links taken in
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


@nb.njit(**_JIT)
def _cut_child(pos_f, a_f, b_f, left_f, pos_s, a_s, b_s, right_s, shift, spacing):  # pragma: no cover
    n_f, n_s = pos_f.shape[0], pos_s.shape[0]
    index_f = np.full(n_f, -1, np.int64)
    index_s = np.full(n_s, -1, np.int64)
    n_left = 0
    for i in range(n_f):
        if left_f[i]:
            index_f[i] = n_left
            n_left += 1
    n = n_left
    for i in range(n_s):
        if right_s[i]:
            index_s[i] = n
            n += 1
    positions = np.empty((n, 2))
    for i in range(n_f):
        if left_f[i]:
            positions[index_f[i], 0] = pos_f[i, 0] + 0.0
            positions[index_f[i], 1] = pos_f[i, 1] + 0.0
    for i in range(n_s):
        if right_s[i]:
            positions[index_s[i], 0] = pos_s[i, 0] + shift
            positions[index_s[i], 1] = pos_s[i, 1] + 0.0
    if n_left and n > n_left:  # move the right part clear of the left one
        needed = -np.inf
        for i in range(n_left):
            for j in range(n_left, n):
                dx = positions[j, 0] - positions[i, 0]
                dy = abs(positions[j, 1] - positions[i, 1])
                needed = max(needed, np.sqrt(max(spacing * spacing - dy * dy, 0.0)) - dx)
        gap = max(needed, 0.0)
        for j in range(n_left, n):
            positions[j, 0] += gap
    links_f = np.empty(a_f.shape[0], np.int64)
    links_s = np.empty(a_s.shape[0], np.int64)
    count_f = count_s = crossing = 0
    for k in range(a_f.shape[0]):
        if left_f[a_f[k]] and left_f[b_f[k]]:
            links_f[count_f] = k
            count_f += 1
        crossing += left_f[a_f[k]] != left_f[b_f[k]]
    for k in range(a_s.shape[0]):
        if right_s[a_s[k]] and right_s[b_s[k]]:
            links_s[count_s] = k
            count_s += 1
        crossing += right_s[a_s[k]] != right_s[b_s[k]]
    a = np.empty(count_f + count_s, np.int64)
    b = np.empty(count_f + count_s, np.int64)
    for k in range(count_f):
        a[k], b[k] = index_f[a_f[links_f[k]]], index_f[b_f[links_f[k]]]
    for k in range(count_s):
        a[count_f + k], b[count_f + k] = index_s[a_s[links_s[k]]], index_s[b_s[links_s[k]]]
    return positions, a, b, links_f[:count_f], links_s[:count_s], crossing, n_left


def cut_child(
    first: tuple[np.ndarray, np.ndarray, np.ndarray],
    left: np.ndarray,
    second: tuple[np.ndarray, np.ndarray, np.ndarray],
    right: np.ndarray,
    shift: float,
    spacing: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The body of a cut crossover's child: the masses ``left`` of the first parent (in their order), then
    the masses ``right`` of the second, shifted ``shift`` px in x and then further right until no mass
    across the cut is closer than ``spacing`` px; the links within each part.

    Args:
        first, second: each parent's (n, 2) positions (px) and (m,) link ends a and b.
        left: (n_first,) bool, the first parent's masses that the child keeps.
        right: (n_second,) bool, the second parent's masses that the child keeps.
        shift: px added to the x of the second parent's masses.
        spacing: the least distance across the cut (px).

    Returns:
        (n, 2) positions; (k,) link ends a and b; the first and the second parent's links kept, by index
        (the child's links in that order); how many links of both parents the cut goes through; the
        number of masses from the first parent.
    """
    positions, a, b, links_f, links_s, crossing, n_left = _cut_child(
        np.ascontiguousarray(first[0], dtype=np.float64), np.asarray(first[1], dtype=np.int64),
        np.asarray(first[2], dtype=np.int64), np.asarray(left, dtype=np.bool_),
        np.ascontiguousarray(second[0], dtype=np.float64), np.asarray(second[1], dtype=np.int64),
        np.asarray(second[2], dtype=np.int64), np.asarray(right, dtype=np.bool_),
        float(shift), float(spacing),
    )  # fmt: skip
    return positions, a, b, links_f, links_s, int(crossing), int(n_left)


@nb.njit(**_JIT)
def _gathered(links_f, rest_f, alpha_f, phi_f, links_s, rest_s, alpha_s, phi_s):  # pragma: no cover
    count_f, count_s = links_f.shape[0], links_s.shape[0]
    out = np.empty((3, count_f + count_s))
    for k in range(count_f):
        out[0, k], out[1, k], out[2, k] = rest_f[links_f[k]], alpha_f[links_f[k]], phi_f[links_f[k]]
    for k in range(count_s):
        c = count_f + k
        out[0, c], out[1, c], out[2, c] = rest_s[links_s[k]], alpha_s[links_s[k]], phi_s[links_s[k]]
    return out


def gathered_genes(
    first: tuple[np.ndarray, np.ndarray, np.ndarray],
    links_first: np.ndarray,
    second: tuple[np.ndarray, np.ndarray, np.ndarray],
    links_second: np.ndarray,
) -> np.ndarray:
    """The link genes of a cut crossover's child: ``np.concatenate([genes_first[links_first],
    genes_second[links_second]])`` for rest, alpha and phi at once.

    Args:
        first, second: each parent's (m,) rest (px), alpha and phi (rad) arrays.
        links_first, links_second: the indices of the links kept from each, in order.

    Returns:
        (3, k) float64 array: rest, alpha and phi, one row each.
    """
    return _gathered(links_first, *first, links_second, *second)


@nb.njit(**_JIT)
def _left_part(x, count):  # pragma: no cover
    n = x.shape[0]
    order = stable_order(x)
    left = np.zeros(n, np.bool_)
    for k in range(count):
        left[order[k]] = True
    if count < n:
        return left, 0.5 * (x[order[count - 1]] + x[order[count]])
    return left, x[order[n - 1]]


def left_part(x: np.ndarray, count: int) -> tuple[np.ndarray, float]:
    """The ``count`` masses with the smallest x (ties by index) and the cut between them and the rest.

    Args:
        x: (n,) float64 x positions (px), n >= 1.
        count: how many masses go left, 1 <= count <= n.

    Returns:
        ``(left, cut)``: (n,) bool, True for a mass on the left; the cut's x (px): halfway between the
        last mass on the left and the first on the right, or the rightmost x when all are left.
    """
    left, cut = _left_part(x, int(count))
    return left, float(cut)
