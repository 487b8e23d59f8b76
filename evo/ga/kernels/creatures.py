"""A random creature's body drawn in one compiled call: draw for draw, number for number what
:func:`evo.ga.creatures.random_creature` draws from ``default_rng(seed)`` (Mitchell's best-candidate masses,
the Prim-style spanning tree, the candidate links, the genes, the wave), for generation 0's broods. The
creature is then finished in Python as there (:func:`evo.ga.body.finish`); docs/internals.md, "Broods".
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from evo.ga.body import TWO_PI, Body, finish
from evo.ga.kernels import pcg
from evo.ga.kernels.arrays import stable_order
from evo.ga.settings import GenomeSection
from evo.model import Creature

__all__ = ["compiled_random_creature", "warm_random_creatures"]

_JIT = dict(cache=True, nogil=True)
CANDIDATES_PER_MASS = 12  # best-candidate sampling: tries per new mass (evo.ga.creatures uses it too)
_TEMPLATE = Creature(np.zeros((0, 2)), np.zeros((0, 2)), [], [], [], [], [], [], name="creature")


@nb.njit(**_JIT)
def _scatter(state, n, width, height):  # pragma: no cover
    """evo.ga.creatures._scatter: the first point, then per mass the try farthest from those placed."""
    points = np.empty((n, 2))
    points[0, 0] = pcg.random(state) * width
    points[0, 1] = pcg.random(state) * height
    tries = np.empty((CANDIDATES_PER_MASS, 2))
    for i in range(1, n):
        for c in range(CANDIDATES_PER_MASS):
            tries[c, 0] = pcg.random(state) * width
            tries[c, 1] = pcg.random(state) * height
        best, farthest = 0, -np.inf
        for c in range(CANDIDATES_PER_MASS):
            nearest = np.inf
            for p in range(i):  # numpy's min: NaN wins
                d = math.hypot(tries[c, 0] - points[p, 0], tries[c, 1] - points[p, 1])
                if d < nearest or d != d:
                    nearest = d
                    if d != d:
                        break
            if nearest > farthest or (nearest != nearest and farthest == farthest):  # argmax: first max
                best, farthest = c, nearest
                if nearest != nearest:
                    break
        points[i, 0] = tries[best, 0]
        points[i, 1] = tries[best, 1]
    return points


@nb.njit(**_JIT)
def _links(state, positions, max_degree, max_links, link_density):  # pragma: no cover
    """evo.ga.creatures._links: (k, 2) int64 pairs, the spanning tree's then the candidates drawn."""
    n = positions.shape[0]
    dist = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            dist[i, j] = math.hypot(positions[i, 0] - positions[j, 0], positions[i, 1] - positions[j, 1])
    degree = np.zeros(n, np.int64)
    in_tree = np.zeros(n, np.bool_)
    in_tree[pcg.integers(state, 0, n)] = True
    pairs = np.empty((max(n - 1, 0) + n * n, 2), np.int64)
    k = 0
    linked = np.zeros((n, n), np.bool_)
    for _ in range(n):
        if in_tree.all():
            break
        bi, bj, low = 0, 0, np.inf  # argmin of the masked distances, first in row-major order
        for i in range(n):
            if not (in_tree[i] and degree[i] < max_degree):
                continue
            for j in range(n):
                if not in_tree[j] and dist[i, j] < low:
                    bi, bj, low = i, j, dist[i, j]
        pairs[k, 0], pairs[k, 1] = bi, bj
        k += 1
        degree[bi] += 1
        degree[bj] += 1
        in_tree[bj] = True
        linked[min(bi, bj), max(bi, bj)] = True
    # each mass with its max_degree nearest others (a stable sort, itself last), less the tree's links
    take = min(max_degree, n, n - 1)
    wanted = np.zeros((n, n), np.bool_)
    used = np.zeros(n, np.bool_)
    for i in range(n):
        used[:] = False
        for _ in range(take):
            pick, low = -1, np.inf
            for j in range(n):
                value = np.inf if j == i else dist[i, j] + 0.0
                if not used[j] and (pick < 0 or value < low):
                    pick, low = j, value
            used[pick] = True
            a, b = min(i, pick), max(i, pick)
            if not linked[a, b]:
                wanted[a, b] = True
    count = 0
    for a in range(n):
        for b in range(n):
            if wanted[a, b]:
                count += 1
    keys = np.empty(count)
    ends = np.empty((count, 2), np.int64)
    c = 0
    for a in range(n):
        for b in range(n):
            if wanted[a, b]:
                keys[c], ends[c, 0], ends[c, 1] = dist[a, b], a, b
                c += 1
    order = stable_order(keys)  # by (distance, pair): pairs are in (a, b) order already
    draws = np.empty(count)
    for c in range(count):
        draws[c] = pcg.random(state)
    for c in range(count):
        a, b = ends[order[c], 0], ends[order[c], 1]
        room = k < max_links and degree[a] < max_degree and degree[b] < max_degree
        if draws[c] < link_density and room:
            pairs[k, 0], pairs[k, 1] = a, b
            k += 1
            degree[a] += 1
            degree[b] += 1
    return pairs[:k].copy()


@nb.njit(**_JIT)
def random_body(state, numbers):  # pragma: no cover
    """(positions, a, b, rest, alpha, phi, omega, beta) of random_creature before it is finished;
    ``numbers``: masses low, high, box width, height, max_degree, max_links, link_density,
    muscle_fraction, omega low, high, beta low, high (float64)."""
    n = pcg.integers(state, np.int64(numbers[0]), np.int64(numbers[1]) + 1)
    positions = _scatter(state, n, numbers[2], numbers[3])
    pairs = _links(state, positions, np.int64(numbers[4]), np.int64(numbers[5]), numbers[6])
    m = pairs.shape[0]
    a = pairs[:, 0].copy()
    b = pairs[:, 1].copy()
    rest = np.empty(m)
    for k in range(m):
        rest[k] = math.hypot(positions[b[k], 0] - positions[a[k], 0], positions[b[k], 1] - positions[a[k], 1])
    muscle = np.empty(m, np.bool_)
    for k in range(m):
        muscle[k] = pcg.random(state) < numbers[7]
    alpha = np.zeros(m)
    for k in range(m):
        draw = pcg.random(state)
        if muscle[k]:
            alpha[k] = 1.0 - draw
    phi = np.empty(m)
    for k in range(m):
        phi[k] = pcg.random(state) * TWO_PI
    omega = pcg.uniform(state, numbers[8], numbers[9])
    beta = pcg.uniform(state, numbers[10], numbers[11])
    return positions, a, b, rest, alpha, phi, omega, beta


def _numbers(genome: GenomeSection) -> np.ndarray:
    return np.array(
        [
            *genome.masses,
            *genome.box,
            genome.max_degree,
            genome.max_links,
            genome.link_density,
            genome.muscle_fraction,
            *genome.omega,
            *genome.beta,
        ],
        dtype=np.float64,
    )


def compiled_random_creature(seed: int, genome: GenomeSection) -> Creature | None:
    """``random_creature(brood_generator(seed), genome)`` (a RANDOM brood's child), its draws made in
    compiled code; None where that does not apply (a seed outside 0..2**63 - 1, a resonant omega, genome
    numbers beyond what float64 holds exactly), the caller then makes it in Python."""
    if not 0 <= seed < 1 << 63 or genome.omega_init == "resonant":
        return None
    if max(genome.masses[1], genome.max_links, genome.max_degree) >= 1 << 53:
        return None
    positions, a, b, rest, alpha, phi, omega, beta = random_body(pcg.seeded(seed), _numbers(genome))
    body = Body(positions, a.tolist(), b.tolist(), rest.tolist(), alpha.tolist(), phi.tolist(), omega, beta)
    return finish(body, _TEMPLATE, genome)


def warm_random_creatures() -> None:
    """Compile (or load from numba's cache) :func:`random_body` by drawing one small creature."""
    compiled_random_creature(1, GenomeSection())
