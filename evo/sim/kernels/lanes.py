"""What the batched kernels share: lanes' stack buffers, records, rows, the wave and parked lanes.

Pure functions of arrays in which the creature (the lane) is the last, contiguous axis; used by
:mod:`evo.sim.kernels.batch_euler` and :mod:`evo.sim.kernels.batch_explicit`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from evo.sim.kernels.euler import _JIT


class Lanes(NamedTuple):
    """Every lane's arrays, the lane the last axis, packed once per kernel call (:mod:`evo.sim.batch`).

    ``pos``, ``vel``: (2, n_masses, n_lanes) px and px/frame (x then y), updated in place; ``free``
    (n_masses, n_lanes) uint8; ``link_a``, ``link_b`` (n_links, n_lanes) uint32, each lane's link ends;
    ``uniform`` (n_links,) uint8, 1 where a link has the same ends in every lane, ``uniform_b`` 1 where only
    its end b does; ``rest``, ``amp``, ``cos_phi``, ``sin_phi``: (n_links, n_lanes); ``omega``,
    ``theta0``, ``wave_sign``, ``max_speed2`` (the speed limit squared): (n_lanes,) float64;
    ``autoreverse`` (n_lanes,) uint8; ``wave_leader`` (n_lanes,) int64 (:func:`wave_sin_cos`).
    """

    pos: np.ndarray
    vel: np.ndarray
    free: np.ndarray
    link_a: np.ndarray
    link_b: np.ndarray
    uniform: np.ndarray
    uniform_b: np.ndarray
    rest: np.ndarray
    amp: np.ndarray
    cos_phi: np.ndarray
    sin_phi: np.ndarray
    omega: np.ndarray
    theta0: np.ndarray
    wave_sign: np.ndarray
    autoreverse: np.ndarray
    wave_leader: np.ndarray
    max_speed2: np.ndarray


class GeneralLanes(NamedTuple):
    """What the general kernel reads besides :class:`Lanes`: ``inv_mass`` (n_masses, n_lanes) 1/M, and
    per link ``link_k`` (S·k̄) and ``dashpot`` (n_links, n_lanes)."""

    inv_mass: np.ndarray
    link_k: np.ndarray
    dashpot: np.ndarray


class LaneRecords(NamedTuple):
    """Where a batched kernel writes: ``ring`` (ring_size, 4, n_masses, n_lanes) scratch, ``records`` (2,
    total) and ``layout`` (2 + n_masses, n_lanes) int64 (:func:`record_lanes`), ``n_rec`` (n_lanes,) the
    records each lane wrote and ``exploded_at`` (n_lanes,) the step at which it exploded, or -1."""

    ring: np.ndarray
    records: np.ndarray
    layout: np.ndarray
    n_rec: np.ndarray
    exploded_at: np.ndarray


# float64s in each force accumulator on the stack (64 KiB): n_masses * n_lanes must fit
STACK_DOUBLES = 8192
# lanes at most in one call: one link's forces on every lane are held in two stack rows of this size
LANE_DOUBLES = 64


@intrinsic
def _stack_doubles(typingctx, count):
    """A pointer to ``count`` (a literal int) float64 on the stack of the calling function.

    The force accumulators live there rather than on the heap because LLVM then knows that they
    overlap no input array: the fused force loop vectorises without runtime overlap checks, which
    otherwise cost a quarter of its time.
    """
    if not isinstance(count, types.IntegerLiteral):
        return None
    size = count.literal_value

    def codegen(context, builder, signature, args):
        with builder.goto_entry_block():
            pointer = builder.alloca(ir.DoubleType(), size=ir.Constant(ir.IntType(64), size))
        return pointer

    return types.CPointer(types.float64)(count), codegen


@nb.njit(**_JIT)
def check_lanes_fit_stack(n, lanes):
    """Check that (n, lanes) force accumulators fit in :data:`STACK_DOUBLES` and that there are at most
    :data:`LANE_DOUBLES` lanes; raises ValueError if not."""
    if n * lanes > STACK_DOUBLES or lanes > LANE_DOUBLES:
        raise ValueError("too many masses x lanes for the stack force buffers")


@nb.njit(**_JIT)
def _flush(ring, start, stop, n_rec, records, layout):
    """Copy the record slices ``start`` .. ``stop`` - 1 of the ring to each lane's own records, eight
    lanes (a cache line of the ring) at a time; a lane takes only the records it made, of its own masses,
    each ring row to its mass's place (``layout[2 + row, lane]``)."""
    size = ring.shape[0]
    rows = ring.shape[2]  # the ring may hold more mass rows than a lane records
    lanes = ring.shape[3]
    for first in range(0, lanes, 8):
        last = min(first + 8, lanes)
        for r in range(start, stop):
            slot = r % size
            for i in range(rows):
                for lane in range(first, last):
                    n = layout[1, lane]
                    mass = layout[2 + i, lane]
                    if r < n_rec[lane] and mass < n:
                        at = layout[0, lane] + 2 * (r * n + mass)
                        records[0, at] = ring[slot, 0, i, lane]
                        records[0, at + 1] = ring[slot, 1, i, lane]
                        records[1, at] = ring[slot, 2, i, lane]
                        records[1, at + 1] = ring[slot, 3, i, lane]


@nb.njit(**_JIT)
def record_lanes(alive, n_rec, pos, vel, ring, written, records, layout):
    """Record ``pos``, ``vel`` (2, n_masses, n_lanes) as the next record of every live lane; returns
    the number of record slices written so far (``written`` before).

    Live lanes have all recorded equally often, so their next record is one slice for all lanes, a
    contiguous copy into ``ring`` (ring_size, 4, n_masses, n_lanes); every ring_size slices, the ring
    is copied to ``records`` (2, total) float64: positions, then velocities, lane by lane, each lane's
    (n_records, its n_masses, 2) block C-ordered from ``layout[0, lane]`` with ``layout[1, lane]``
    masses, ring row i holding its mass ``layout[2 + i, lane]`` (>= its n_masses: a padded row) (see
    :func:`finish_records` for the last ones). ``n_rec`` (n_lanes,) counts each lane's records.
    """
    if not alive.any():
        return written
    slot = written % ring.shape[0]
    for c in range(2):
        for i in range(pos.shape[1]):
            for lane in range(pos.shape[2]):
                ring[slot, c, i, lane] = pos[c, i, lane]
                ring[slot, 2 + c, i, lane] = vel[c, i, lane]
    for lane in range(pos.shape[2]):
        if alive[lane]:
            n_rec[lane] += 1
    written += 1
    if written % ring.shape[0] == 0:
        _flush(ring, written - ring.shape[0], written, n_rec, records, layout)
    return written


@nb.njit(**_JIT)
def finish_records(ring, written, n_rec, records, layout):
    """Copy the record slices still in the ring to the lanes' records."""
    _flush(ring, written - written % ring.shape[0], written, n_rec, records, layout)


@nb.njit(**_JIT)
def rows_in_link_order(link_a, link_b, masses, links):
    """The lane row of every mass of creatures laid end to end: each creature's masses in the order in which
    its links first name them (end a before end b), then the masses no link names, in order.

    ``link_a``, ``link_b``: (total links,) each creature's own mass indices; ``masses``, ``links``:
    (n_creatures,) counts. Returns (total masses,) int64. A spanning tree grown one new mass per link (as
    random creatures are) then has end b of its link k on row k + 1 in every creature.
    """
    rows = np.full(masses.sum(), -1, dtype=np.int64)
    first_mass = 0
    first_link = 0
    for c in range(masses.shape[0]):
        next_row = 0
        for k in range(first_link, first_link + links[c]):
            if rows[first_mass + link_a[k]] < 0:
                rows[first_mass + link_a[k]] = next_row
                next_row += 1
            if rows[first_mass + link_b[k]] < 0:
                rows[first_mass + link_b[k]] = next_row
                next_row += 1
        for i in range(first_mass, first_mass + masses[c]):
            if rows[i] < 0:
                rows[i] = next_row
                next_row += 1
        first_mass += masses[c]
        first_link += links[c]
    return rows


@nb.njit(**_JIT)
def pack_lanes(
    masses, links, positions, velocities, fixed, link_a, link_b, rest, alpha, beta, cos_phi, sin_phi
):  # pragma: no cover
    """One creature per lane, the lane the last axis, from the creatures' arrays laid end to end: what
    ``evo.sim.batch._pack`` computes, value for value, in one pass.

    ``masses``, ``links``: (lanes,) counts; ``positions``, ``velocities``: (total masses, 2); ``fixed``:
    (total masses,) bool; ``link_a``, ``link_b``, ``rest``, ``alpha``, ``cos_phi``, ``sin_phi``: (total
    links,), each creature's own mass indices and genes; ``beta``: (lanes,). Returns (pos, vel (2, rows,
    lanes) float64, free (rows, lanes) uint8, ends (2, links, lanes) uint32, genes (4, links, lanes)
    float64: rest, rest·alpha·beta, cos φ, sin φ; mass_of_row (rows, lanes) int64, uniform, uniform_b
    (links,) uint8, row (total masses,) int64: each mass's row), with rows = the most masses + 1 and
    links = the most links: a padded mass is fixed at rest at the origin, a padded link joins the spare
    last row to itself, a padded row's ``mass_of_row`` is ``rows``; each lane's masses are on rows in
    link order (:func:`rows_in_link_order`)."""
    lanes = masses.shape[0]
    rows = masses.max() + 1
    n_links = links.max()
    row = rows_in_link_order(link_a, link_b, masses, links)
    pos = np.zeros((2, rows, lanes))
    vel = np.zeros((2, rows, lanes))
    free = np.zeros((rows, lanes), np.uint8)
    mass_of_row = np.full((rows, lanes), rows, np.int64)
    ends = np.full((2, n_links, lanes), rows - 1, np.uint32)
    genes = np.zeros((4, n_links, lanes))
    first_mass = 0
    first_link = 0
    for lane in range(lanes):
        for i in range(masses[lane]):
            m = first_mass + i
            r = row[m]
            mass_of_row[r, lane] = i
            pos[0, r, lane] = positions[m, 0]
            pos[1, r, lane] = positions[m, 1]
            if not fixed[m]:
                vel[0, r, lane] = velocities[m, 0]
                vel[1, r, lane] = velocities[m, 1]
                free[r, lane] = 1
        for k in range(links[lane]):
            j = first_link + k
            ends[0, k, lane] = row[first_mass + link_a[j]]
            ends[1, k, lane] = row[first_mass + link_b[j]]
            genes[0, k, lane] = rest[j]
            genes[1, k, lane] = rest[j] * alpha[j] * beta[lane]
            genes[2, k, lane] = cos_phi[j]
            genes[3, k, lane] = sin_phi[j]
        first_mass += masses[lane]
        first_link += links[lane]
    uniform = np.zeros(n_links, np.uint8)
    uniform_b = np.zeros(n_links, np.uint8)
    for k in range(n_links):
        same_a = True
        same_b = True
        for lane in range(1, lanes):
            same_a = same_a and ends[0, k, lane] == ends[0, k, 0]
            same_b = same_b and ends[1, k, lane] == ends[1, k, 0]
        uniform[k] = same_a and same_b
        uniform_b[k] = same_b and not same_a
    return pos, vel, free, ends, genes, mass_of_row, uniform, uniform_b, row


@nb.njit(**_JIT)
def wave_sin_cos(theta, wave_leader, st, ct):
    """st, ct = sin θ, cos θ per lane (n_lanes,), by libm as the scalar kernel; a lane whose θ has the same
    bits as its ``wave_leader``'s (an earlier lane that started with the same θ₀, ω and sign) takes the
    leader's values instead of calling libm again."""
    for lane in range(theta.shape[0]):
        leader = wave_leader[lane]
        value = theta[lane]
        if (
            leader != lane
            and theta[leader] == value
            and math.copysign(1.0, theta[leader]) == math.copysign(1.0, value)  # +0 and -0 differ
        ):
            st[lane] = st[leader]
            ct[lane] = ct[leader]
        else:
            st[lane] = math.sin(value)
            ct[lane] = math.cos(value)


@nb.njit(**_JIT)
def park_lane(lane, x, y, vx, vy):
    """Put every mass of an exploded lane at rest at the origin, where its forces stay finite."""
    for i in range(x.shape[0]):
        x[i, lane] = 0.0
        y[i, lane] = 0.0
        vx[i, lane] = 0.0
        vy[i, lane] = 0.0
