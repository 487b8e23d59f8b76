"""The default mutations of :mod:`evo.ga.mutation` compiled, draw for draw, on a body held as the tuple
``(pos, a, b, rest, alpha, phi, omega, beta, renumbered)`` of a creature with the applet's physics; the
``rest`` factors' numpy ``exp`` (not libm's bit for bit) is left to :func:`apply_pending`. Checked against
the Python operators in tests/ga/test_brood_kernels.py.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numba as nb
import numpy as np

from evo.ga.kernels import draws
from evo.ga.kernels.arrays import appended, count_true, first_above, stable_order
from evo.ga.kernels.crossover import (
    BETA_HIGH,
    BETA_LOW,
    MASSES_MAX,
    MASSES_MIN,
    MAX_DEGREE,
    MAX_LINKS,
    OMEGA_HIGH,
    OMEGA_LOW,
    REST_HIGH,
    REST_LOW,
    _clip,
    _degree,
    _length,
    _with_mass,
    _without,
    new_links_genes,
)
from evo.ga.kernels.links import _bridges_and_cuts, _free_pairs
from evo.ga.settings import MUTATION_NAMES, GASection

__all__ = [
    "COMPILED", "MUTATION_CODES", "MutationCode", "SIGMAS", "apply_pending", "ga_sigmas", "mutate_body",
]  # fmt: skip

_JIT = dict(cache=True, nogil=True)
_TWO_PI = 2.0 * math.pi

SIGMAS = (
    "gene_fraction", "sigma_rest", "sigma_alpha", "sigma_phi", "sigma_omega", "sigma_beta", "sigma_move",
)  # fmt: skip
"""The ``[ga]`` keys of the sigmas array :func:`ga_sigmas` makes, in its order."""
GENE_FRACTION, SIGMA_REST, SIGMA_ALPHA, SIGMA_PHI, SIGMA_OMEGA, SIGMA_BETA, SIGMA_MOVE = range(len(SIGMAS))

MutationCode = IntEnum("MutationCode", [(name.upper(), code) for code, name in enumerate(MUTATION_NAMES)])
"""The code of each mutation of :data:`~evo.ga.settings.MUTATION_NAMES`, named after it (``REST``, ...)."""
MUTATION_CODES = {name: MutationCode[name.upper()] for name in MUTATION_NAMES}
COMPILED = frozenset(MUTATION_NAMES) - {"physics"}
"""The mutations :func:`mutate_body` makes (``physics`` is made in Python only)."""

# the codes mutate_body dispatches on, as plain ints (numba freezes module-level ints as constants)
REST = int(MutationCode.REST)
ALPHA = int(MutationCode.ALPHA)
PHI = int(MutationCode.PHI)
OMEGA = int(MutationCode.OMEGA)
BETA = int(MutationCode.BETA)
MOVE_MASS = int(MutationCode.MOVE_MASS)
ADD_MASS = int(MutationCode.ADD_MASS)
REMOVE_MASS = int(MutationCode.REMOVE_MASS)
ADD_LINK = int(MutationCode.ADD_LINK)
REMOVE_LINK = int(MutationCode.REMOVE_LINK)
TOGGLE_MUSCLE = int(MutationCode.TOGGLE_MUSCLE)


def ga_sigmas(ga: GASection) -> np.ndarray:
    """The ``[ga]`` fraction and sigmas the compiled mutations read, as one float64 array in the order of
    :data:`SIGMAS`."""
    return np.array([getattr(ga, key) for key in SIGMAS], dtype=np.float64)


@nb.njit(**_JIT)
def _chosen(rng, count, fraction, among):  # pragma: no cover
    """evo.ga.mutation._chosen_links with ``among`` (a (count,) bool array; all True for none)."""
    picked = np.empty(count, np.int64)
    n = 0
    for k in range(count):
        u = draws.random(rng)
        if u < fraction and among[k]:
            picked[n] = k
            n += 1
    if n == 0:
        candidates = np.flatnonzero(among)
        if candidates.size:
            picked = np.empty(1, np.int64)
            picked[0] = candidates[draws.integers(rng, 0, candidates.size)]
            return picked
    return picked[:n]


@nb.njit(**_JIT)
def _keep(values, keep):  # pragma: no cover
    out = np.empty(keep.size, values.dtype)
    for q in range(keep.size):
        out[q] = values[keep[q]]
    return out


@nb.njit(**_JIT)
def _remove_mass(rng, body, arg, pending, lim):  # pragma: no cover
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    n = pos.shape[0]
    if n <= lim[MASSES_MIN]:
        return body, arg, pending
    _, cut = _bridges_and_cuts(n, a, b)
    candidates = np.flatnonzero(~cut)
    gone = candidates[draws.integers(rng, 0, candidates.size)]
    new_index = np.empty(n, np.int64)
    for i in range(n):
        new_index[i] = i if i < gone else i - 1
    keep = np.flatnonzero((a != gone) & (b != gone))
    new_pos = np.empty((n - 1, 2))
    for i in range(n):
        if i != gone:
            new_pos[new_index[i], 0], new_pos[new_index[i], 1] = pos[i, 0], pos[i, 1]  # see _with_mass
    new_a = np.empty(keep.size, np.int64)
    new_b = np.empty(keep.size, np.int64)
    for q in range(keep.size):
        new_a[q] = new_index[a[keep[q]]]
        new_b[q] = new_index[b[keep[q]]]
    body = (new_pos, new_a, new_b, _keep(rest, keep), _keep(alpha, keep), _keep(phi, keep), omega, beta, True)
    return body, _keep(arg, keep), _keep(pending, keep)


@nb.njit(**_JIT)
def _add_mass(rng, body, arg, pending, lim):  # pragma: no cover
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    n, m = pos.shape[0], a.size
    spare = np.flatnonzero(_degree(n, a, b) < lim[MAX_DEGREE])
    room = min(3, int(lim[MAX_LINKS]) - m, spare.size)
    if n >= lim[MASSES_MAX] or room < 2:
        return body, arg, pending
    anchor = spare[draws.integers(rng, 0, spare.size)]
    angle = draws.random(rng)
    fraction = draws.random(rng)
    low, high = lim[REST_LOW], lim[REST_HIGH]
    reach = low + fraction * 0.5 * (high - low)
    new_pos = _with_mass(pos, anchor, reach, angle)
    others = spare[spare != anchor]
    gaps = np.empty(others.size)
    for q in range(others.size):
        gaps[q] = np.hypot(new_pos[others[q], 0] - new_pos[n, 0], new_pos[others[q], 1] - new_pos[n, 1])
    nearest = others[stable_order(gaps)]
    count = draws.integers(rng, 2, room + 1)
    ends = np.empty(count, np.int64)
    ends[0] = anchor
    for q in range(1, count):
        ends[q] = nearest[q - 1]
    lengths = np.empty(count)
    for q in range(count):
        lengths[q] = _length(new_pos, ends[q], n)
    r, al, ph = new_links_genes(rng, lim, lengths)
    new_b = np.full(count, n, np.int64)
    body = (new_pos, np.concatenate((a, ends)), np.concatenate((b, new_b)), np.concatenate((rest, r)),
            np.concatenate((alpha, al)), np.concatenate((phi, ph)), omega, beta, renumbered)  # fmt: skip
    return body, np.concatenate((arg, np.zeros(count))), np.concatenate((pending, np.zeros(count, np.bool_)))


@nb.njit(**_JIT)
def _add_link(rng, body, arg, pending, lim):  # pragma: no cover
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    if a.size >= lim[MAX_LINKS]:
        return body, arg, pending
    i_side, j_side, cumulative = _free_pairs(pos, a, b, int(lim[MAX_DEGREE]), lim[REST_LOW])
    if i_side.size == 0:
        return body, arg, pending
    pick = min(first_above(cumulative, draws.random(rng) * cumulative[-1]), i_side.size - 1)
    i, j = i_side[pick], j_side[pick]
    lengths = np.empty(1)
    lengths[0] = _length(pos, i, j)
    r, al, ph = new_links_genes(rng, lim, lengths)
    body = (pos, appended(a, i), appended(b, j), appended(rest, r[0]), appended(alpha, al[0]),
            appended(phi, ph[0]), omega, beta, renumbered)  # fmt: skip
    return body, appended(arg, 0.0), appended(pending, False)


@nb.njit(**_JIT)
def _remove_link(rng, body, arg, pending):  # pragma: no cover
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    bridge, _ = _bridges_and_cuts(pos.shape[0], a, b)
    if bridge.all():
        return body, arg, pending
    candidates = np.flatnonzero(~bridge)
    gone = candidates[draws.integers(rng, 0, candidates.size)]
    a, b, rest, alpha, phi = _without(a, b, rest, alpha, phi, gone)
    keep = np.flatnonzero(np.arange(arg.size) != gone)
    return (pos, a, b, rest, alpha, phi, omega, beta, renumbered), _keep(arg, keep), _keep(pending, keep)


@nb.njit(**_JIT)
def mutate_body(rng, body, ops):  # pragma: no cover
    """:func:`evo.ga.mutation.mutate_body` under ``ops`` (an :class:`evo.ga.kernels.brood.Operators`):
    its ``codes`` (:class:`MutationCode`, registry order, physics excluded) fire at their ``rates``, with
    ``cumulative`` rng.choice's cumulative distribution of them (empty when no rate is positive).

    The body's arrays are not written to; returns ``(body, arg, pending)``: the mutated body and, per
    link, the exponent of a pending ``rest`` factor (:func:`apply_pending`)."""
    lim, sig, codes, rates, cumulative = ops.limits, ops.sigmas, ops.codes, ops.rates, ops.cumulative
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    m = a.size
    arg = np.zeros(m)
    pending = np.zeros(m, np.bool_)
    fired = np.zeros(codes.size, np.bool_)
    for q in range(codes.size):
        fired[q] = draws.random(rng) < rates[q]
    if count_true(fired) == 0 and cumulative.size:
        fired[first_above(cumulative, draws.random(rng))] = True
    pos, rest, alpha, phi = pos.copy(), rest.copy(), alpha.copy(), phi.copy()
    body = (pos, a, b, rest, alpha, phi, omega, beta, renumbered)
    for q in range(codes.size):
        if not fired[q]:
            continue
        code = codes[q]
        pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
        m = a.size
        if code == REST:  # rest: the factors exp(sigma z) are applied by apply_pending
            chosen = _chosen(rng, m, sig[GENE_FRACTION], np.ones(m, np.bool_))
            for k in chosen:
                arg[k] = sig[SIGMA_REST] * draws.normal(rng)
                pending[k] = True
            for k in range(m):
                if not pending[k]:
                    rest[k] = _clip(rest[k], lim[REST_LOW], lim[REST_HIGH])
        elif code == ALPHA:
            chosen = _chosen(rng, m, sig[GENE_FRACTION], alpha > 0.0)
            for k in chosen:
                alpha[k] = _clip(alpha[k] + sig[SIGMA_ALPHA] * draws.normal(rng), 0.01, 1.0)
        elif code == PHI:
            chosen = _chosen(rng, m, sig[GENE_FRACTION], alpha > 0.0)
            for k in chosen:
                phi[k] += sig[SIGMA_PHI] * draws.normal(rng)
            for k in range(m):
                p = phi[k] % _TWO_PI
                phi[k] = 0.0 if p >= _TWO_PI else p
        elif code == OMEGA:
            step = draws.normal(rng)
            if omega > 0.0:
                omega = omega * math.exp(sig[SIGMA_OMEGA] * step)
            else:
                omega = draws.uniform(rng, lim[OMEGA_LOW], lim[OMEGA_HIGH])
            omega = _clip(omega, lim[OMEGA_LOW], lim[OMEGA_HIGH])
            body = (pos, a, b, rest, alpha, phi, omega, beta, renumbered)
        elif code == BETA:
            beta = _clip(beta + sig[SIGMA_BETA] * draws.normal(rng), lim[BETA_LOW], lim[BETA_HIGH])
            body = (pos, a, b, rest, alpha, phi, omega, beta, renumbered)
        elif code == MOVE_MASS:
            i = draws.integers(rng, 0, pos.shape[0])
            dx = sig[SIGMA_MOVE] * draws.normal(rng)
            dy = sig[SIGMA_MOVE] * draws.normal(rng)
            pos[i, 0] += dx
            pos[i, 1] += dy
            for k in range(m):
                if i == a[k] or i == b[k]:
                    rest[k] = _clip(_length(pos, a[k], b[k]), lim[REST_LOW], lim[REST_HIGH])
                    pending[k] = False
        elif code == ADD_MASS:
            body, arg, pending = _add_mass(rng, body, arg, pending, lim)
        elif code == REMOVE_MASS:
            body, arg, pending = _remove_mass(rng, body, arg, pending, lim)
        elif code == ADD_LINK:
            body, arg, pending = _add_link(rng, body, arg, pending, lim)
        elif code == REMOVE_LINK:
            body, arg, pending = _remove_link(rng, body, arg, pending)
        elif code == TOGGLE_MUSCLE:
            if m:
                k = draws.integers(rng, 0, m)
                draw_alpha = draws.random(rng)
                draw_phi = draws.random(rng)
                if alpha[k] > 0.0:
                    alpha[k] = 0.0
                else:
                    alpha[k] = 1.0 - draw_alpha
                    p = (draw_phi * _TWO_PI) % _TWO_PI
                    phi[k] = 0.0 if p >= _TWO_PI else p
    return body, arg, pending


def apply_pending(rest: np.ndarray, arg: np.ndarray, pending: np.ndarray, low: float, high: float) -> None:
    """Apply to ``rest`` (in place) the pending ``rest`` mutations: ``clip(rest * np.exp(arg))`` where
    ``pending``, as :mod:`evo.ga.mutation` computes them (numpy's exp, then Python's min and max)."""
    where = np.flatnonzero(pending)
    if where.size:
        rest[where] = np.minimum(np.maximum(rest[where] * np.exp(arg[where]), low), high)
