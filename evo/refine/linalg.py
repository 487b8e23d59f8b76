"""CMA-ES's linear algebra in plain float64 arithmetic, the same bits on every CPU: a cyclic Jacobi
eigensolver with a fixed sweep order, products and sums in a fixed order (numba without fastmath: no
reassociation, no fused multiply-add), and exp/log/powers from + - * / and sqrt (docs/refine.md,
"The same result on every machine"). LAPACK, BLAS and libm are not called.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = [
    "exact_exp",
    "exact_log",
    "int_power",
    "norm",
    "rank_mu",
    "rows_times_transposed",
    "symmetric_eigen",
    "transposed_times",
    "times",
    "weighted_rows",
]

_JIT = dict(cache=True, nogil=True)
MAX_SWEEPS = 60  # a cyclic Jacobi converges quadratically: 6-10 sweeps for d <= 200
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split in two (fdlibm's): k * _LN2_HI is exact for |k| < 2**20
_LN2_LO = 1.90821492927058770002e-10


@nb.njit(**_JIT)
def symmetric_eigen(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (ascending, (d,) array) and eigenvectors (the columns of a (d, d) array) of the
    symmetric (d, d) ``matrix`` (its upper triangle is read), by cyclic Jacobi rotations in the row order
    (0, 1), (0, 2), ..., (d-2, d-1) until the off-diagonal part is below 1e-32 of the whole (squared)."""
    d = matrix.shape[0]
    a = np.empty((d, d))
    for i in range(d):
        for j in range(i, d):
            a[i, j] = matrix[i, j]
            a[j, i] = matrix[i, j]
    v = np.eye(d)
    for _ in range(MAX_SWEEPS):
        off = 0.0
        whole = 0.0
        for i in range(d):
            whole += a[i, i] * a[i, i]
            for j in range(i + 1, d):
                off += a[i, j] * a[i, j]
        whole += 2.0 * off
        if off <= 1e-32 * whole:
            break
        for p in range(d - 1):
            for q in range(p + 1, d):
                apq = a[p, q]
                if apq == 0.0:
                    continue
                theta = (a[q, q] - a[p, p]) / (2.0 * apq)
                if abs(theta) > 1e150:  # theta**2 would overflow: t ~ 1 / (2 theta)
                    t = 0.5 / theta
                else:
                    t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
                    if theta < 0.0:
                        t = -t
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for k in range(d):  # A J: columns p and q
                    akp = a[k, p]
                    akq = a[k, q]
                    a[k, p] = c * akp - s * akq
                    a[k, q] = s * akp + c * akq
                for k in range(d):  # J^T (A J): rows p and q
                    apk = a[p, k]
                    aqk = a[q, k]
                    a[p, k] = c * apk - s * aqk
                    a[q, k] = s * apk + c * aqk
                a[p, q] = 0.0
                a[q, p] = 0.0
                for k in range(d):
                    vkp = v[k, p]
                    vkq = v[k, q]
                    v[k, p] = c * vkp - s * vkq
                    v[k, q] = s * vkp + c * vkq
    values = np.empty(d)
    for i in range(d):
        values[i] = a[i, i]
    order = np.argsort(values, kind="mergesort")  # stable: equal eigenvalues keep their index order
    vectors = np.empty((d, d))
    for j in range(d):
        for i in range(d):
            vectors[i, j] = v[i, order[j]]
    return values[order], vectors


@nb.njit(**_JIT)
def rows_times_transposed(rows: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """(n, d) ``rows`` @ (d, d) ``matrix``ᵀ: out[i, j] = Σ_k rows[i, k] · matrix[j, k], k ascending."""
    n, d = rows.shape
    out = np.empty((n, d))
    for i in range(n):
        for j in range(d):
            total = 0.0
            for k in range(d):
                total += rows[i, k] * matrix[j, k]
            out[i, j] = total
    return out


@nb.njit(**_JIT)
def times(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """(d, d) ``matrix`` @ (d,) ``vector``, each sum in index order."""
    d = matrix.shape[0]
    out = np.empty(d)
    for i in range(d):
        total = 0.0
        for k in range(matrix.shape[1]):
            total += matrix[i, k] * vector[k]
        out[i] = total
    return out


@nb.njit(**_JIT)
def transposed_times(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """(d, d) ``matrix``ᵀ @ (d,) ``vector``, each sum in index order."""
    d = matrix.shape[1]
    out = np.empty(d)
    for j in range(d):
        total = 0.0
        for k in range(matrix.shape[0]):
            total += matrix[k, j] * vector[k]
        out[j] = total
    return out


@nb.njit(**_JIT)
def weighted_rows(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Σ_i weights[i] · rows[i] ((m,) and (m, d) arrays; i ascending): a (d,) array."""
    m, d = rows.shape
    out = np.zeros(d)
    for j in range(d):
        total = 0.0
        for i in range(m):
            total += weights[i] * rows[i, j]
        out[j] = total
    return out


@nb.njit(**_JIT)
def rank_mu(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Σ_i weights[i] · rows[i] rows[i]ᵀ, a symmetric (d, d) array (upper triangle summed, mirrored)."""
    m, d = rows.shape
    out = np.empty((d, d))
    for j in range(d):
        for k in range(j, d):
            total = 0.0
            for i in range(m):
                total += weights[i] * rows[i, j] * rows[i, k]
            out[j, k] = total
            out[k, j] = total
    return out


def norm(vector: np.ndarray) -> float:
    """The Euclidean length of a (d,) array: the squares summed in index order, then an exact sqrt."""
    total = 0.0
    for x in vector.tolist():
        total += x * x
    return math.sqrt(total)


def int_power(base: float, exponent: int) -> float:
    """``base ** exponent`` for an integer ``exponent`` >= 0 by repeated squaring (no libm ``pow``)."""
    result, square = 1.0, float(base)
    while exponent:
        if exponent & 1:
            result *= square
        square *= square
        exponent >>= 1
    return result


def exact_exp(x: float) -> float:
    """e**x in plain float64 arithmetic: x = k ln 2 + r with |r| <= ln 2 / 2, a Taylor series of r,
    scaled by 2**k (within a few ulp of libm's; the same bits on every machine)."""
    if x != x or x > 709.78:
        return math.inf if x == x else x
    if x < -745.2:
        return 0.0
    k = int(math.floor(x / 0.6931471805599453 + 0.5))
    r = (x - k * _LN2_HI) - k * _LN2_LO
    total = 1.0
    for n in range(20, 0, -1):  # Horner: 1 + r (1 + r/2 (1 + r/3 (...))), |r|**21 / 21! < 1e-29
        total = 1.0 + total * r / n
    return math.ldexp(total, k)


def exact_log(x: float) -> float:
    """ln x (x > 0) in plain float64 arithmetic: x = m 2**e with m in [1/√2, √2), then
    2 artanh((m - 1) / (m + 1)) as a series, plus e ln 2."""
    if not x > 0.0:
        raise ValueError(f"log of {x}")
    m, e = math.frexp(x)  # x = m * 2**e, m in [0.5, 1)
    if m < 0.7071067811865476:
        m, e = 2.0 * m, e - 1
    z = (m - 1.0) / (m + 1.0)
    z2 = z * z
    term, total = z, 0.0
    for n in range(1, 80, 2):
        total += term / n
        term *= z2
        if abs(term) < 1e-18:
            break
    return 2.0 * total + e * _LN2_LO + e * _LN2_HI
