"""Compiled graph loops of the body and the mutations: the distinct links of a body, its bridges and cut
vertices, and the pairs of masses a new link may join. They draw nothing: the caller draws afterwards,
so the random stream is that of the Python code they replace (tests/ga/test_graph_kernels.py)."""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["bridges_and_cuts", "distinct_links", "free_pairs"]

_JIT = dict(cache=True, nogil=True, boundscheck=False)


@nb.njit(**_JIT)
def _distinct(a, b):  # pragma: no cover
    m = a.shape[0]
    keep = np.empty(m, np.int64)
    low = np.empty(m, np.int64)
    high = np.empty(m, np.int64)
    count = 0
    for k in range(m):
        i, j = a[k], b[k]
        if i == j:
            continue
        lo, hi = min(i, j), max(i, j)
        seen = False
        for t in range(count):
            if low[t] == lo and high[t] == hi:
                seen = True
                break
        if not seen:
            low[count], high[count], keep[count] = lo, hi, k
            count += 1
    return keep[:count]


def distinct_links(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The indices, in order, of the links that are neither self links nor the repeat of an earlier link
    between the same two masses (either way round).

    Args:
        a, b: (m,) int64 arrays, the ends of each link.

    Returns:
        (k,) int64 array of link indices.
    """
    return _distinct(a, b)


@nb.njit(**_JIT)
def _bridges_and_cuts(n, a, b):  # pragma: no cover
    m = a.shape[0]
    start = np.zeros(n + 1, np.int64)  # adjacency in CSR form, self links left out
    for k in range(m):
        if a[k] != b[k]:
            start[a[k] + 1] += 1
            start[b[k] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    fill = start[:n].copy()
    neighbour = np.empty(start[n], np.int64)
    edge = np.empty(start[n], np.int64)
    for k in range(m):
        if a[k] != b[k]:
            for v, w in ((a[k], b[k]), (b[k], a[k])):
                neighbour[fill[v]], edge[fill[v]] = w, k
                fill[v] += 1
    order = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    bridge = np.zeros(m, np.bool_)
    cut = np.zeros(n, np.bool_)
    stack_v = np.empty(n, np.int64)
    stack_via = np.empty(n, np.int64)
    stack_next = np.empty(n, np.int64)
    counter = 0
    for root in range(n):
        if order[root] >= 0:
            continue
        order[root] = low[root] = counter
        counter += 1
        children = 0
        top = 0
        stack_v[0], stack_via[0], stack_next[0] = root, -1, start[root]
        while top >= 0:
            v, via, p = stack_v[top], stack_via[top], stack_next[top]
            if p < start[v + 1]:
                stack_next[top] = p + 1
                w, k = neighbour[p], edge[p]
                if k == via:
                    continue
                if order[w] < 0:
                    order[w] = low[w] = counter
                    counter += 1
                    top += 1
                    stack_v[top], stack_via[top], stack_next[top] = w, k, start[w]
                else:
                    low[v] = min(low[v], order[w])
            else:
                top -= 1
                if top >= 0:
                    u = stack_v[top]
                    low[u] = min(low[u], low[v])
                    if low[v] > order[u]:
                        bridge[via] = True
                    if u == root:
                        children += 1
                    elif low[v] >= order[u]:
                        cut[u] = True
        cut[root] = children > 1
    return bridge, cut


def bridges_and_cuts(n: int, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bridges and cut vertices of a graph of ``n`` masses (Tarjan, iterative; parallel links are not
    bridges, self links are ignored).

    Args:
        n: the number of masses.
        a, b: (m,) int64 arrays, the ends of each link.

    Returns:
        ``(bridge, cut)``: (m,) bool, True for a link whose removal disconnects its component; (n,) bool,
        True for a mass whose removal does.
    """
    return _bridges_and_cuts(n, a, b)


@nb.njit(**_JIT)
def _free_pairs(positions, a, b, max_degree, rest_low):  # pragma: no cover
    n, m = positions.shape[0], a.shape[0]
    degree = np.zeros(n, np.int64)
    for k in range(m):
        degree[a[k]] += 1
        degree[b[k]] += 1
    free = np.zeros((n, n), np.bool_)
    for i in range(n):
        for j in range(i + 1, n):
            free[i, j] = degree[i] < max_degree and degree[j] < max_degree
    for k in range(m):
        free[a[k], b[k]] = False
        free[b[k], a[k]] = False
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            count += free[i, j]
    i_side = np.empty(count, np.int64)
    j_side = np.empty(count, np.int64)
    cumulative = np.empty(count)
    c = 0
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if free[i, j]:
                gap = np.hypot(positions[j, 0] - positions[i, 0], positions[j, 1] - positions[i, 1])
                total += 1.0 / (gap + rest_low + 1.0)
                i_side[c], j_side[c], cumulative[c] = i, j, total
                c += 1
    return i_side, j_side, cumulative


def free_pairs(
    positions: np.ndarray, a: np.ndarray, b: np.ndarray, max_degree: int, rest_low: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of masses a new link may join (both below ``max_degree`` links, not linked yet), in
    row-major order (i < j), with the running sum of their weights 1 / (distance + ``rest_low`` + 1 px).

    Args:
        positions: (n, 2) float64 positions (px).
        a, b: (m,) int64 arrays, the ends of each link.
        max_degree: the most links a mass may have.
        rest_low: the shortest rest length (px).

    Returns:
        ``(i, j, cumulative)``: (k,) int64 ends and (k,) float64 running sums (``np.cumsum`` of the weights).
    """
    return _free_pairs(positions, a, b, int(max_degree), float(rest_low))
