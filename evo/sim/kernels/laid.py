"""Creatures laid end to end (:class:`evo.sim.laid.Laid`): which share their link ends, and a kernel call's
lanes packed from their rows, without a Python object per creature. Pure functions of arrays.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from evo.sim.kernels.euler import _JIT
from evo.sim.kernels.lanes import pack_lanes

_OFFSET = np.uint64(1469598103934665603)  # FNV-1a's offset basis and prime
_PRIME = np.uint64(1099511628211)


@nb.njit(**_JIT)
def first_alike(rows, masses, links, link_at, link_a, link_b):  # pragma: no cover
    """For each of ``rows`` (creatures laid end to end: ``masses``, ``links`` per creature, ``link_at``
    where each one's links begin in ``link_a``, ``link_b``), the position in ``rows`` of the first one
    with the same masses count and the same link ends in order (itself if none). Compared exactly; a
    hash of each creature's ends only skips the comparisons that must fail."""
    n = rows.size
    hashes = np.empty(n, np.uint64)
    for q in range(n):
        c = rows[q]
        h = (_OFFSET ^ np.uint64(masses[c])) * _PRIME
        for j in range(link_at[c], link_at[c + 1]):
            h = (h ^ np.uint64(link_a[j])) * _PRIME
            h = (h ^ np.uint64(link_b[j])) * _PRIME
        hashes[q] = h
    first = np.empty(n, np.int64)
    kinds = np.empty(n, np.int64)  # the position of each kind's first creature, in order
    count = 0
    for q in range(n):
        c = rows[q]
        first[q] = q
        for t in range(count):
            p = kinds[t]
            d = rows[p]
            if hashes[p] != hashes[q] or masses[d] != masses[c] or links[d] != links[c]:
                continue
            same = True
            for j in range(links[c]):
                u, v = link_at[d] + j, link_at[c] + j
                if link_a[u] != link_a[v] or link_b[u] != link_b[v]:
                    same = False
                    break
            if same:
                first[q] = p
                break
        if first[q] == q:
            kinds[count] = q
            count += 1
    return first


@nb.njit(**_JIT)
def pack_rows(
    rows, masses, links, mass_at, link_at, positions, link_a, link_b, rest, alpha, beta, cos_phi, sin_phi
):  # pragma: no cover
    """:func:`~evo.sim.kernels.lanes.pack_lanes` of the creatures ``rows`` (one per lane, in order) of
    creatures laid end to end, at rest and free (as every child the compiled brood makes): the same
    arrays, value for value, as packing those creatures' own arrays."""
    n = rows.size
    lane_masses = np.empty(n, np.int64)
    lane_links = np.empty(n, np.int64)
    for q in range(n):
        lane_masses[q] = masses[rows[q]]
        lane_links[q] = links[rows[q]]
    total_masses, total_links = lane_masses.sum(), lane_links.sum()
    pos = np.empty((total_masses, 2))
    ends_a = np.empty(total_links, np.int64)
    ends_b = np.empty(total_links, np.int64)
    genes = np.empty((4, total_links))
    lane_beta = np.empty(n)
    i = j = 0
    for q in range(n):
        c = rows[q]
        for u in range(lane_masses[q]):
            pos[i + u, 0] = positions[mass_at[c] + u, 0]
            pos[i + u, 1] = positions[mass_at[c] + u, 1]
        for v in range(lane_links[q]):
            w = link_at[c] + v
            ends_a[j + v] = link_a[w]
            ends_b[j + v] = link_b[w]
            genes[0, j + v] = rest[w]
            genes[1, j + v] = alpha[w]
            genes[2, j + v] = cos_phi[w]
            genes[3, j + v] = sin_phi[w]
        lane_beta[q] = beta[c]
        i += lane_masses[q]
        j += lane_links[q]
    at_rest = np.zeros((total_masses, 2))
    fixed = np.zeros(total_masses, np.bool_)
    return pack_lanes(
        lane_masses, lane_links, pos, at_rest, fixed, ends_a, ends_b, genes[0], genes[1], lane_beta,
        genes[2], genes[3],
    )  # fmt: skip
