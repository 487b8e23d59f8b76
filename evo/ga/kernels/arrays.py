"""Small array helpers for the breeding kernels, written as plain loops instead of numpy's overloads
(``np.argsort(kind="mergesort")``, ``np.searchsorted``, ``np.count_nonzero``, ``np.append``): the same
results, but numba compiles each overload with its error paths and messages into every kernel that calls
it, which made up a good part of the brood's cold compile (docs/performance.md, "Round thirteen")."""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["appended", "count_true", "first_above", "stable_order"]

_JIT = dict(cache=True, nogil=True)


@nb.njit(**_JIT)
def _before(x, p, q):  # pragma: no cover
    """Whether x[p] sorts before x[q]: smaller, and NaN after every number (numpy's order)."""
    return x[p] < x[q] or (x[q] != x[q] and x[p] == x[p])


@nb.njit(**_JIT)
def stable_order(x):  # pragma: no cover
    """``np.argsort(x, kind="mergesort")`` of a 1-D array: the indices that sort it, ties in index order
    (a bottom-up merge sort)."""
    n = x.shape[0]
    order = np.arange(n)
    spare = np.empty(n, np.int64)
    width = 1
    while width < n:
        for low in range(0, n, 2 * width):
            middle, high = min(low + width, n), min(low + 2 * width, n)
            i, j = low, middle
            for k in range(low, high):
                if i < middle and (j >= high or not _before(x, order[j], order[i])):
                    spare[k] = order[i]
                    i += 1
                else:
                    spare[k] = order[j]
                    j += 1
        order, spare = spare, order
        width *= 2
    return order


@nb.njit(**_JIT)
def first_above(ascending, value):  # pragma: no cover
    """``np.searchsorted(ascending, value, side="right")``: the first index whose entry is above
    ``value`` (the array's length if none is)."""
    low, high = 0, ascending.shape[0]
    while low < high:
        middle = (low + high) // 2
        if value < ascending[middle]:
            high = middle
        else:
            low = middle + 1
    return low


@nb.njit(**_JIT)
def count_true(flags):  # pragma: no cover
    """``np.count_nonzero`` of a 1-D boolean array."""
    count = 0
    for flag in flags:
        if flag:
            count += 1
    return count


@nb.njit(**_JIT)
def appended(values, value):  # pragma: no cover
    """``np.append(values, value)`` of a 1-D array: a new array one longer, of the same dtype."""
    out = np.empty(values.shape[0] + 1, values.dtype)
    for k in range(values.shape[0]):
        out[k] = values[k]
    out[values.shape[0]] = value
    return out
