"""Crossover and repair compiled, draw for draw: :func:`evo.ga.crossover.crossover_bodies` and
:func:`evo.ga.topology.repair` on bodies of default physics, with the same draws in the same order and
bit-identical results (tests/ga/kernels/). Every draw goes through :mod:`evo.ga.kernels.draws`.

A body is the tuple ``(pos, a, b, rest, alpha, phi, omega, beta, renumbered)`` (see :data:`BODY`).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from evo.ga.kernels import draws
from evo.ga.kernels.arrays import appended, count_true
from evo.ga.kernels.graph import _cut_child, _gathered, _join_pairs, _left_part, _span
from evo.ga.kernels.links import _bridges_and_cuts, _distinct
from evo.ga.settings import GenomeSection

__all__ = ["BODY", "LIMITS", "crossover_bodies", "genome_limits", "new_links_genes", "repair"]

_JIT = dict(cache=True, nogil=True)
_TWO_PI = 2.0 * math.pi
_PER_MASS_ACROSS = 2  # evo.ga.crossover.PER_MASS_ACROSS

BODY = ("pos", "a", "b", "rest", "alpha", "phi", "omega", "beta", "renumbered")
"""The fields of a body tuple: (n, 2) float64 C-contiguous positions (px); (m,) int64 link ends a and b;
(m,) float64 rest (px), alpha and phi (rad); omega (rad/frame) and beta floats; renumbered bool."""

LIMITS = (
    "rest_low", "rest_high", "muscle_fraction", "max_degree", "max_links", "masses_min", "masses_max",
    "omega_low", "omega_high", "beta_low", "beta_high",
)  # fmt: skip
"""The entries of the limits array :func:`genome_limits` makes (ints stored as floats)."""
(REST_LOW, REST_HIGH, MUSCLE_FRACTION, MAX_DEGREE, MAX_LINKS, MASSES_MIN, MASSES_MAX, OMEGA_LOW, OMEGA_HIGH,
 BETA_LOW, BETA_HIGH) = range(len(LIMITS))  # fmt: skip  # their indices, by name


def genome_limits(genome: GenomeSection) -> np.ndarray:
    """The (11,) float64 limits array the kernels take, in the order of :data:`LIMITS`."""
    return np.array(
        [
            genome.rest[0],
            genome.rest[1],
            genome.muscle_fraction,
            genome.max_degree,
            genome.max_links,
            genome.masses[0],
            genome.masses[1],
            genome.omega[0],
            genome.omega[1],
            genome.beta[0],
            genome.beta[1],
        ],
        dtype=np.float64,
    )


@nb.njit(**_JIT)
def new_links_genes(rng, lim, lengths):  # pragma: no cover
    """:func:`evo.ga.body.new_links_genes`: (k,) rest (px), alpha and phi (rad) of new links of current
    lengths ``lengths`` (k,) px, three draws per link (muscle, alpha, phi)."""
    k = lengths.shape[0]
    low, high, fraction = lim[REST_LOW], lim[REST_HIGH], lim[MUSCLE_FRACTION]
    rest, alpha, phi = np.empty(k), np.empty(k), np.empty(k)
    for i in range(k):
        muscle = draws.random(rng)
        u = draws.random(rng)
        angle = draws.random(rng) * _TWO_PI
        rest[i] = _clip(lengths[i], low, high)
        alpha[i] = (1.0 - u) if muscle < fraction else 0.0
        phi[i] = angle if angle < _TWO_PI else 0.0
    return rest, alpha, phi


@nb.njit(**_JIT)
def _degree(n, a, b):  # pragma: no cover
    degree = np.zeros(n, np.int64)
    for k in range(a.shape[0]):
        degree[a[k]] += 1
        degree[b[k]] += 1
    return degree


@nb.njit(**_JIT)
def _max(a, b):  # pragma: no cover
    """Python's ``max(a, b)`` of floats (NaN in ``a`` kept)."""
    return b if b > a else a


@nb.njit(**_JIT)
def _min(a, b):  # pragma: no cover
    """Python's ``min(a, b)`` of floats."""
    return b if b < a else a


@nb.njit(**_JIT)
def _clip(x, low, high):  # pragma: no cover
    """Python's ``min(max(x, low), high)``."""
    return _min(_max(x, low), high)


@nb.njit(**_JIT)
def _length(pos, i, j):  # pragma: no cover
    return np.hypot(pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1])


@nb.njit(**_JIT)
def _without(a, b, rest, alpha, phi, gone):  # pragma: no cover
    """The link columns without link ``gone``."""
    m = a.shape[0] - 1
    out_a, out_b = np.empty(m, np.int64), np.empty(m, np.int64)
    out_rest, out_alpha, out_phi = np.empty(m), np.empty(m), np.empty(m)
    c = 0
    for k in range(m + 1):
        if k != gone:
            out_a[c], out_b[c], out_rest[c], out_alpha[c], out_phi[c] = a[k], b[k], rest[k], alpha[k], phi[k]
            c += 1
    return out_a, out_b, out_rest, out_alpha, out_phi


@nb.njit(**_JIT)
def _free_one(pos, a, b, rest, alpha, phi):  # pragma: no cover
    """evo.ga.topology._free_one with every mass a member: without the longest link that is no bridge."""
    bridge, _ = _bridges_and_cuts(pos.shape[0], a, b)
    longest, best = -1, 0.0
    for k in range(a.shape[0]):
        if bridge[k]:
            continue
        length = _length(pos, a[k], b[k])
        if longest < 0 or length > best:  # Python's max(): the first of the longest
            longest, best = k, length
    if longest < 0:
        raise ValueError("max() arg is an empty sequence")
    return _without(a, b, rest, alpha, phi, longest)


@nb.njit(**_JIT)
def _with_mass(pos, anchor, reach, angle):  # pragma: no cover
    """``pos`` with one mass more, ``reach`` from mass ``anchor`` at ``angle`` turns (copied row by row:
    a slice assignment compiles a shape check and its message)."""
    n = pos.shape[0]
    out = np.empty((n + 1, 2))
    for u in range(n):
        out[u, 0], out[u, 1] = pos[u, 0], pos[u, 1]
    out[n, 0] = pos[anchor, 0] + reach * math.cos(angle * _TWO_PI)
    out[n, 1] = pos[anchor, 1] + reach * math.sin(angle * _TWO_PI)
    return out


@nb.njit(**_JIT)
def _grow(pos, a, b, rest, alpha, phi, rng, lim):  # pragma: no cover
    """evo.ga.topology._grow: one mass more, near a random mass with a spare degree, linked to it."""
    cap = int(lim[MAX_DEGREE])
    n = pos.shape[0]
    spare = np.flatnonzero(_degree(n, a, b) < cap)
    if a.shape[0] >= int(lim[MAX_LINKS]) or spare.size == 0:
        a, b, rest, alpha, phi = _free_one(pos, a, b, rest, alpha, phi)
        spare = np.flatnonzero(_degree(n, a, b) < cap)
    anchor = spare[draws.integers(rng, 0, spare.shape[0])]
    angle = draws.random(rng)
    fraction = draws.random(rng)
    low, high = lim[REST_LOW], lim[REST_HIGH]
    reach = low + fraction * (0.5 * (low + high) - low)
    grown = _with_mass(pos, anchor, reach, angle)
    lengths = np.empty(1)
    lengths[0] = _length(grown, anchor, n)
    new_rest, new_alpha, new_phi = new_links_genes(rng, lim, lengths)
    return (grown, appended(a, anchor), appended(b, n), appended(rest, new_rest[0]),
            appended(alpha, new_alpha[0]), appended(phi, new_phi[0]))  # fmt: skip


@nb.njit(**_JIT)
def _repaired(pos, a, b, rest, alpha, phi, rng, lim):  # pragma: no cover
    """The link and position columns of evo.ga.topology.repair, and whether it could be done here
    (False, without a draw, when masses would have to be removed at random)."""
    n = pos.shape[0]
    if n > int(lim[MASSES_MAX]):
        return pos.copy(), a.copy(), b.copy(), rest.copy(), alpha.copy(), phi.copy(), False
    unique = _distinct(a, b)
    m = unique.shape[0]
    unique_a, unique_b = np.empty(m, np.int64), np.empty(m, np.int64)
    for k in range(m):
        unique_a[k], unique_b[k] = a[unique[k]], b[unique[k]]
    order = draws.permutation(rng, m)
    cap, most = int(lim[MAX_DEGREE]), int(lim[MAX_LINKS])
    kept, join_i, join_j, lengths = _span(n, unique_a, unique_b, order, pos, cap, most)
    new_rest, new_alpha, new_phi = new_links_genes(rng, lim, lengths)
    size = count_true(kept) + join_i.shape[0]
    out_a, out_b = np.empty(size, np.int64), np.empty(size, np.int64)
    out_rest, out_alpha, out_phi = np.empty(size), np.empty(size), np.empty(size)
    c = 0
    for k in range(m):  # kept links in their original order, then the new ones
        if kept[k]:
            old = unique[k]
            out_a[c], out_b[c] = unique_a[k], unique_b[k]
            out_rest[c], out_alpha[c], out_phi[c] = rest[old], alpha[old], phi[old]
            c += 1
    for k in range(join_i.shape[0]):
        out_a[c], out_b[c] = join_i[k], join_j[k]
        out_rest[c], out_alpha[c], out_phi[c] = new_rest[k], new_alpha[k], new_phi[k]
        c += 1
    grown = pos
    masses_min = int(lim[MASSES_MIN])
    while grown.shape[0] < masses_min:
        grown, out_a, out_b, out_rest, out_alpha, out_phi = _grow(
            grown, out_a, out_b, out_rest, out_alpha, out_phi, rng, lim
        )
    return grown, out_a, out_b, out_rest, out_alpha, out_phi, True


@nb.njit(**_JIT)
def repair(body, rng, lim):  # pragma: no cover
    """:func:`evo.ga.topology.repair` of ``body`` (not edited; the result may share its positions array):
    ``(repaired body, ok)``. ok is False, with no draw made, when the body has more than ``masses_max``
    masses (Python then removes some with ``rng.choice``, which :mod:`evo.ga.kernels.draws` does not make)."""
    pos, a, b, rest, alpha, phi, ok = _repaired(
        body[0], body[1], body[2], body[3], body[4], body[5], rng, lim
    )
    return (pos, a, b, rest, alpha, phi, body[6], body[7], body[8]), ok


@nb.njit(**_JIT)
def _split(pos, fraction):  # pragma: no cover
    """evo.ga.crossover._split: (left mass mask, cut x in px)."""
    n = pos.shape[0]
    count = min(max(round(fraction * n), 1), max(n - 1, 1))
    return _left_part(pos[:, 0].copy(), count)


@nb.njit(**_JIT)
def _child(first, left_first, cut_first, second, left_second, cut_second, rng, lim):  # pragma: no cover
    """evo.ga.crossover._child then the left parent's wave and repair: (body, ok)."""
    right_second = ~left_second
    pos, a, b, links_f, links_s, crossing, n_left = _cut_child(
        first[0], first[1], first[2], left_first,
        second[0], second[1], second[2], right_second,
        cut_first - cut_second, lim[REST_LOW],
    )  # fmt: skip
    genes = _gathered(links_f, first[3], first[4], first[5], links_s, second[3], second[4], second[5])
    n, m = pos.shape[0], a.shape[0]
    if 0 < n_left < n:
        across = max(1, round(0.5 * crossing))
        join_i, join_j, lengths = _join_pairs(pos[:n_left], pos[n_left:], across, _PER_MASS_ACROSS)
        new_rest, new_alpha, new_phi = new_links_genes(rng, lim, lengths)
    else:
        join_i, join_j = np.empty(0, np.int64), np.empty(0, np.int64)
        new_rest, new_alpha, new_phi = np.empty(0), np.empty(0), np.empty(0)
    size = m + join_i.shape[0]
    all_a, all_b = np.empty(size, np.int64), np.empty(size, np.int64)
    rest, alpha, phi = np.empty(size), np.empty(size), np.empty(size)
    for v in range(m):  # loops, not slice assignments (see _grow)
        all_a[v], all_b[v], rest[v], alpha[v], phi[v] = a[v], b[v], genes[0, v], genes[1, v], genes[2, v]
    for v in range(size - m):
        all_a[m + v], all_b[m + v] = join_i[v], join_j[v] + n_left
        rest[m + v], alpha[m + v], phi[m + v] = new_rest[v], new_alpha[v], new_phi[v]
    pos, all_a, all_b, rest, alpha, phi, ok = _repaired(pos, all_a, all_b, rest, alpha, phi, rng, lim)
    return (pos, all_a, all_b, rest, alpha, phi, first[6], first[7], True), ok


@nb.njit(**_JIT)
def _copied(body):  # pragma: no cover
    """Body.of(parent): fresh arrays, renumbered False."""
    return (
        body[0].copy(), body[1].copy(), body[2].copy(), body[3].copy(), body[4].copy(), body[5].copy(),
        body[6], body[7], False,
    )  # fmt: skip


@nb.njit(**_JIT)
def _with_wave(body, omega, beta):  # pragma: no cover
    return (body[0], body[1], body[2], body[3], body[4], body[5], omega, beta, body[8])


@nb.njit(**_JIT)
def crossover_bodies(rng, pa, pb, lim, rate_cut, rate_wave):  # pragma: no cover
    """:func:`evo.ga.crossover.crossover_bodies` of parents ``pa`` and ``pb`` (bodies as the parent
    creatures have them, renumbered False; not edited): ``(body0, body1, ok)``, fresh arrays. ok is False
    when a repair could not be done here (:func:`repair`); the bodies are then meaningless and the draws
    made so far stop where that repair began."""
    cut_draw = draws.random(rng)
    wave_draw = draws.random(rng)
    if cut_draw < rate_cut:
        fraction = draws.uniform(rng, 0.25, 0.75)
        left_a, cut_a = _split(pa[0], fraction)
        left_b, cut_b = _split(pb[0], fraction)
        body0, ok = _child(pa, left_a, cut_a, pb, left_b, cut_b, rng, lim)
        if not ok:
            return body0, body0, False
        body1, ok = _child(pb, left_b, cut_b, pa, left_a, cut_a, rng, lim)
        if not ok:
            return body0, body1, False
    else:
        body0, body1 = _copied(pa), _copied(pb)
    if wave_draw < rate_wave:
        u_omega = draws.random(rng)
        u_beta = draws.random(rng)
        w_omega, w_beta = 1.0 - u_omega, 1.0 - u_beta
        body0 = _with_wave(
            body0, u_omega * pa[6] + (1.0 - u_omega) * pb[6], u_beta * pa[7] + (1.0 - u_beta) * pb[7]
        )
        body1 = _with_wave(
            body1, w_omega * pa[6] + (1.0 - w_omega) * pb[6], w_beta * pa[7] + (1.0 - w_beta) * pb[7]
        )
    return body0, body1, True
