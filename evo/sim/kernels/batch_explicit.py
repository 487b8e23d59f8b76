"""The explicit integrators of :mod:`evo.sim.kernels.explicit` for a batch of creatures of any topologies.

:func:`run_explicit_batch` is :func:`evo.sim.kernels.explicit.run_explicit` with the creature (the lane) as
the last, contiguous axis of every array (link ends and free flags included); each lane does the scalar
kernel's operations in its order.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from evo.sim.kernels.euler import _JIT, HUGE, _segments, _walls
from evo.sim.kernels.explicit import EXPLICIT, FINITE_DIFFERENCE, MIDPOINT, SEMI_IMPLICIT
from evo.sim.kernels.forces import (
    F_CN,
    F_CT,
    F_DAMPING,
    F_DT,
    F_GROUND_K,
    F_GX,
    F_GY,
    F_MU,
    F_SLIP,
    F_XMAX,
    F_XMIN,
    F_YMAX,
    I_GROUND,
    I_METHOD,
    I_PENALTY,
    I_STEPS,
    I_STRIDE,
    ground_force,
)
from evo.sim.kernels.lanes import (
    LANE_DOUBLES,
    STACK_DOUBLES,
    _stack_doubles,
    check_lanes_fit_stack,
    finish_records,
    park_lane,
    record_lanes,
    wave_sin_cos,
)

# force evaluations per step of each method of evo.sim.kernels.explicit.METHODS (finite-difference: at most)
STAGES = np.array([1, 1, 2, 2, 4])


@nb.njit(inline="always", **_JIT)
def _link_force(k, lane, a, b, state, with_dashpot):
    """The force of link k (ends at the flat slots a, b of x, y, vx, vy: row x n_lanes + lane) on mass a in
    one lane, as :func:`evo.sim.kernels.forces.accelerations` computes it: (0, 0) for a link of length 0,
    which the scalar kernel skips (adding 0 instead is the same, as a force sum, which starts at +0 and
    only grows by + and -, is never -0). ``state``: (x, y, vx, vy, rest, amp, cos φ, sin φ, S·k̄, dashpot,
    sin θ, cos θ)."""
    x, y, vx, vy, rest, amp, cos_phi, sin_phi, link_k, dashpot, st, ct = state
    dx = x[b] - x[a]
    dy = y[b] - y[a]
    length = math.sqrt(dx * dx + dy * dy)
    rest_now = rest[k, lane] + amp[k, lane] * (st[lane] * cos_phi[k, lane] + ct[lane] * sin_phi[k, lane])
    f = link_k[k, lane] * (length - rest_now) / length
    if with_dashpot:
        d = dashpot[k, lane]
        damp = d * (dx * (vx[b] - vx[a]) + dy * (vy[b] - vy[a])) / (length * length)
        f = f + damp if d != 0.0 else f
    return (f * dx if length != 0.0 else 0.0), (f * dy if length != 0.0 else 0.0)


@nb.njit(**_JIT)
def _accelerations(pos, vel, theta, free, inv_mass, slot_a, slot_b, uniform, uniform_b, rest, amp, cos_phi,
                   sin_phi, link_k, dashpot, has_dashpot, alive, ground_params, ground_points, fp, ip, wave,
                   wave_leader, acc):  # fmt: skip
    """acc = g − f̄·v + (link forces + ground force) / M on free masses, 0 on fixed ones, per lane.

    ``theta`` (n_lanes,) rad; ``pos``, ``vel``, ``acc`` (2, n_masses, n_lanes); ``wave`` (2, n_lanes)
    scratch for sin θ and cos θ; ``slot_a``, ``slot_b`` (n_links, n_lanes) uint32: each lane's link ends
    as flat slots, row x n_lanes + lane. The same operations as
    :func:`evo.sim.kernels.forces.accelerations`: per mass, link forces added in link order from zero, a link
    of length 0 skipped, then the ground force (penalty contact; skipped on exploded lanes).
    """
    n = pos.shape[1]
    lanes = pos.shape[2]
    sums_x = _stack_doubles(STACK_DOUBLES)
    sums_y = _stack_doubles(STACK_DOUBLES)
    fx = nb.carray(sums_x, (n, lanes))
    fy = nb.carray(sums_y, (n, lanes))
    flat_fx = nb.carray(sums_x, (n * lanes,))
    flat_fy = nb.carray(sums_y, (n * lanes,))
    link_x = nb.carray(_stack_doubles(LANE_DOUBLES), (lanes,))  # one link's force on each lane
    link_y = nb.carray(_stack_doubles(LANE_DOUBLES), (lanes,))
    st = wave[0]
    ct = wave[1]
    wave_sin_cos(theta, wave_leader, st, ct)
    for i in range(n):
        for lane in range(lanes):
            fx[i, lane] = 0.0
            fy[i, lane] = 0.0
    x, y, vx, vy = pos[0], pos[1], vel[0], vel[1]
    flat = n * lanes
    state = (x.reshape(flat), y.reshape(flat), vx.reshape(flat), vy.reshape(flat), rest, amp, cos_phi,
             sin_phi, link_k, dashpot, st, ct)  # fmt: skip
    # per mass and lane, the link forces are added in link order from zero, as in run_explicit: a link
    # with the same ends in every lane adds its force onto two rows (a vector loop); another has its
    # force computed on every lane (a vector loop, the ends gathered per lane), then added onto each
    # lane's own two end masses (lane by lane), or, when its end b is one row in every lane, subtracted
    # from that row in the vector loop and added onto each lane's end a. The ends are flat slots.
    for k in range(slot_a.shape[0]):
        if uniform[k]:
            a0 = slot_a[k, 0]
            b0 = slot_b[k, 0]
            if has_dashpot:
                for lane in range(lanes):
                    force_x, force_y = _link_force(k, lane, a0 + lane, b0 + lane, state, True)
                    flat_fx[a0 + lane] += force_x
                    flat_fy[a0 + lane] += force_y
                    flat_fx[b0 + lane] -= force_x
                    flat_fy[b0 + lane] -= force_y
            else:
                for lane in range(lanes):
                    force_x, force_y = _link_force(k, lane, a0 + lane, b0 + lane, state, False)
                    flat_fx[a0 + lane] += force_x
                    flat_fy[a0 + lane] += force_y
                    flat_fx[b0 + lane] -= force_x
                    flat_fy[b0 + lane] -= force_y
            continue
        if uniform_b[k]:
            b0 = slot_b[k, 0]
            if has_dashpot:
                for lane in range(lanes):
                    link_x[lane], link_y[lane] = _link_force(k, lane, slot_a[k, lane], b0 + lane, state, True)
                    flat_fx[b0 + lane] -= link_x[lane]
                    flat_fy[b0 + lane] -= link_y[lane]
            else:
                for lane in range(lanes):
                    link_x[lane], link_y[lane] = _link_force(
                        k, lane, slot_a[k, lane], b0 + lane, state, False
                    )
                    flat_fx[b0 + lane] -= link_x[lane]
                    flat_fy[b0 + lane] -= link_y[lane]
            for lane in range(lanes):
                flat_fx[slot_a[k, lane]] += link_x[lane]
                flat_fy[slot_a[k, lane]] += link_y[lane]
            continue
        if has_dashpot:
            for lane in range(lanes):
                link_x[lane], link_y[lane] = _link_force(
                    k, lane, slot_a[k, lane], slot_b[k, lane], state, True
                )
        else:
            for lane in range(lanes):
                link_x[lane], link_y[lane] = _link_force(
                    k, lane, slot_a[k, lane], slot_b[k, lane], state, False
                )
        for lane in range(lanes):
            a = slot_a[k, lane]
            b = slot_b[k, lane]
            flat_fx[a] += link_x[lane]
            flat_fy[a] += link_y[lane]
            flat_fx[b] -= link_x[lane]
            flat_fy[b] -= link_y[lane]
    penalty = ip[I_PENALTY] != 0
    gx = fp[F_GX]
    gy = fp[F_GY]
    damping = fp[F_DAMPING]
    for i in range(n):
        if penalty:
            for lane in range(lanes):
                if free[i, lane] and alive[lane]:
                    ground_x, ground_y = ground_force(
                        ip[I_GROUND], ground_params, ground_points, x[i, lane], y[i, lane], vx[i, lane],
                        vy[i, lane], fp[F_GROUND_K], fp[F_MU], fp[F_SLIP],
                    )  # fmt: skip
                    fx[i, lane] += ground_x
                    fy[i, lane] += ground_y
        for lane in range(lanes):
            if free[i, lane]:
                acc[0, i, lane] = gx - damping * vx[i, lane] + inv_mass[i, lane] * fx[i, lane]
                acc[1, i, lane] = gy - damping * vy[i, lane] + inv_mass[i, lane] * fy[i, lane]
            else:
                acc[0, i, lane] = 0.0
                acc[1, i, lane] = 0.0


@nb.njit(**_JIT)
def _copy(dst, src):
    """dst[...] = src for (2, n_masses, n_lanes) arrays (a plain loop compiles to far less code)."""
    for d in range(src.shape[0]):
        for i in range(src.shape[1]):
            for lane in range(src.shape[2]):
                dst[d, i, lane] = src[d, i, lane]


@nb.njit(**_JIT)
def _stage(p0, v0, free, dx, dv, h, pt, vt):
    """pt = p0 + h·dx, vt = v0 + h·dv on free masses; fixed masses stay where they are, at rest."""
    for i in range(p0.shape[1]):
        for d in range(2):
            for lane in range(p0.shape[2]):
                if free[i, lane]:
                    pt[d, i, lane] = p0[d, i, lane] + h * dx[d, i, lane]
                    vt[d, i, lane] = v0[d, i, lane] + h * dv[d, i, lane]
                else:
                    pt[d, i, lane] = p0[d, i, lane]
                    vt[d, i, lane] = 0.0


@nb.njit(**_JIT)
def _contacts(pos, vel, old, free, alive, segments, fp, ip, touched, changed, one):
    """:func:`evo.sim.kernels.forces.soda_contacts` on every live lane: ``touched`` and ``changed`` (n_lanes,)
    are set where a side wall was touched and where a contact moved a mass (or a position is NaN).

    ``_walls`` changes nothing unless a mass is outside the box, so it is only called then. ``one``
    (2, 1, 2) is scratch for one mass's position and velocity.
    """
    y_min = -HUGE if ip[I_PENALTY] != 0 else 0.0
    x_min = fp[F_XMIN]
    x_max = fp[F_XMAX]
    y_max = fp[F_YMAX]
    has_segments = segments.shape[0] > 0
    up = 1.0 if fp[F_GY] < 0.0 else (-1.0 if fp[F_GY] > 0.0 else 0.0)  # against gravity, for _segments
    one_pos = one[0]
    one_vel = one[1]
    for i in range(pos.shape[1]):
        for lane in range(pos.shape[2]):
            if not (free[i, lane] and alive[lane]):
                continue
            x = pos[0, i, lane]
            y = pos[1, i, lane]
            outside = y < y_min or y > y_max or x < x_min or x > x_max
            if outside or has_segments:
                one_pos[0, 0] = x
                one_pos[0, 1] = y
                one_vel[0, 0] = vel[0, i, lane]
                one_vel[0, 1] = vel[1, i, lane]
                if outside and _walls(0, one_pos, one_vel, y_min, x_min, x_max, y_max, fp[F_CN], fp[F_CT]):
                    touched[lane] = True
                if has_segments:
                    old_x = old[0, i, lane]
                    old_y = old[1, i, lane]
                    _segments(0, one_pos, one_vel, old_x, old_y, segments, fp[F_CN], fp[F_CT], up)
                pos[0, i, lane] = one_pos[0, 0]
                pos[1, i, lane] = one_pos[0, 1]
                vel[0, i, lane] = one_vel[0, 0]
                vel[1, i, lane] = one_vel[0, 1]
            if pos[0, i, lane] != x or pos[1, i, lane] != y:
                changed[lane] = True


@nb.njit(**_JIT)
def _end_of_step(step, pos, vel, old, free, alive, segments, fp, ip, autoreverse, sign, touching_before,
                 have_acc, ring, written, records, layout, n_rec, exploded_at, flags, one,
                 max_speed2):  # fmt: skip
    """:func:`evo.sim.kernels.forces.end_of_step` per live lane; returns (lanes exploded in this step, record
    slices written). ``flags`` (3, n_lanes) bool and ``one`` (2, 1, 2) are scratch."""
    lanes = pos.shape[2]
    touched = flags[0]
    changed = flags[1]
    too_fast = flags[2]
    for lane in range(lanes):
        touched[lane] = False
        changed[lane] = False
        too_fast[lane] = False
    _contacts(pos, vel, old, free, alive, segments, fp, ip, touched, changed, one)
    for i in range(pos.shape[1]):
        for lane in range(lanes):
            speed2 = vel[0, i, lane] * vel[0, i, lane] + vel[1, i, lane] * vel[1, i, lane]
            too_fast[lane] |= free[i, lane] != 0 and not (speed2 <= max_speed2[lane])
    exploded = 0
    for lane in range(lanes):
        if alive[lane] and too_fast[lane]:
            exploded_at[lane] = step
            alive[lane] = False
            park_lane(lane, pos[0], pos[1], vel[0], vel[1])
            exploded += 1
    for lane in range(lanes):  # on an exploded lane the wave and the state no longer matter
        if autoreverse[lane] and touched[lane] and not touching_before[lane]:
            sign[lane] = -sign[lane]
        touching_before[lane] = touched[lane]
        if changed[lane]:
            have_acc[lane] = False
    if step % ip[I_STRIDE] == 0:
        written = record_lanes(alive, n_rec, pos, vel, ring, written, records, layout)
    return exploded, written


@nb.njit(**_JIT)
def run_explicit_batch(lanes_in, general, segments, ground_params, ground_points, fp, ip, out):
    """Run ``ip[I_STEPS]`` steps of the method ``ip[I_METHOD]`` on every lane of ``lanes_in`` (a
    :class:`evo.sim.kernels.lanes.Lanes`), as run_explicit per lane.

    ``general`` (a :class:`evo.sim.kernels.lanes.GeneralLanes`) adds each lane's 1/M (n_masses, n_lanes)
    and per link S·k̄ and dashpot (n_links, n_lanes); lanes are padded as in
    :func:`evo.sim.kernels.batch_euler.run_euler_batch`. The wave entries of ``fp`` are not used (each
    lane has its own). Records go into ``out`` (a :class:`evo.sim.kernels.lanes.LaneRecords`, see
    :func:`evo.sim.kernels.lanes.record_lanes`), with the records written and the step at which each lane
    exploded (or -1). An exploded lane is parked and no longer recorded.
    """
    (pos, vel, free, link_a, link_b, uniform, uniform_b, rest, amp, cos_phi, sin_phi, omega, theta0,
     wave_sign, autoreverse, wave_leader, max_speed2) = lanes_in  # fmt: skip
    inv_mass, link_k, dashpot = general
    ring, records, layout, n_rec, exploded_at = out
    method = ip[I_METHOD]
    n = pos.shape[1]
    lanes = pos.shape[2]
    check_lanes_fit_stack(n, lanes)
    h = fp[F_DT]
    has_dashpot = False
    for k in range(dashpot.shape[0]):
        for lane in range(lanes):
            if dashpot[k, lane] != 0.0:
                has_dashpot = True
    theta = theta0.copy()
    sign = wave_sign.copy()
    dtheta = np.empty(lanes)
    theta_stage = np.empty(lanes)
    buf = np.zeros((11, 2, n, lanes))
    acc, acc2, p0, v0, pt, vt, k2, k3, k4, vs, old = (buf[0], buf[1], buf[2], buf[3], buf[4], buf[5],
                                                      buf[6], buf[7], buf[8], buf[9], buf[10])  # fmt: skip
    have_acc = np.zeros(lanes, dtype=np.bool_)  # finite-difference: acc holds a(x, v) of the lane's state
    alive = np.ones(lanes, dtype=np.bool_)
    touching_before = np.zeros(lanes, dtype=np.bool_)
    flags = np.zeros((3, lanes), dtype=np.bool_)  # scratch for _end_of_step
    one = np.empty((2, 1, 2))  # scratch for one mass's position and velocity
    wave = np.empty((2, lanes))  # scratch for sin θ, cos θ
    n_alive = lanes
    for lane in range(lanes):
        n_rec[lane] = 0
        exploded_at[lane] = -1
    written = record_lanes(alive, n_rec, pos, vel, ring, 0, records, layout)
    slot_a = np.empty(link_a.shape, dtype=np.uint32)  # row x lanes + lane: each lane's own link ends, flat
    slot_b = np.empty(link_b.shape, dtype=np.uint32)
    for k in range(link_a.shape[0]):
        for lane in range(lanes):
            slot_a[k, lane] = link_a[k, lane] * lanes + lane
            slot_b[k, lane] = link_b[k, lane] * lanes + lane
    args = (free, inv_mass, slot_a, slot_b, uniform, uniform_b, rest, amp, cos_phi, sin_phi, link_k, dashpot,
            has_dashpot, alive, ground_params, ground_points, fp, ip, wave, wave_leader)  # fmt: skip
    for step in range(1, ip[I_STEPS] + 1):
        _copy(old, pos)
        for lane in range(lanes):
            dtheta[lane] = sign[lane] * omega[lane] * h
        # The method's force evaluations, through one call site: the jitted code holds one copy of
        # the inlined force loop instead of seven, which halves the compile time.
        for stage in range(STAGES[method]):
            at_pos, at_vel, out, fraction = pos, vel, acc, 0.0  # state, acceleration, θ + fraction·dθ
            if method == FINITE_DIFFERENCE:
                if stage == 0:
                    if have_acc.all():
                        continue
                    out = acc2  # a(x, v) for the lanes whose acc is stale
                else:
                    for i in range(n):
                        for d in range(2):
                            for lane in range(lanes):
                                if free[i, lane]:
                                    pos[d, i, lane] += h * vel[d, i, lane] + 0.5 * h * h * acc[d, i, lane]
                                    vs[d, i, lane] = vel[d, i, lane] + h * acc[d, i, lane]
                                else:
                                    vs[d, i, lane] = 0.0
                    at_vel, out, fraction = vs, acc2, 1.0
            elif method >= MIDPOINT:  # MIDPOINT or RK4
                if stage == 0:
                    _copy(p0, pos)
                    _copy(v0, vel)
                    at_pos, at_vel = p0, v0
                else:
                    if stage == 1:
                        _stage(p0, v0, free, v0, acc, 0.5 * h, pt, vt)
                        _copy(vs, vt)  # v at stage 2
                        out, fraction = (acc2, 0.5) if method == MIDPOINT else (k2, 0.5)
                    elif stage == 2:
                        _stage(p0, v0, free, vs, k2, 0.5 * h, pt, vt)
                        _copy(acc2, vt)  # v at stage 3
                        out, fraction = k3, 0.5
                    else:
                        _stage(p0, v0, free, acc2, k3, h, pt, vt)
                        out, fraction = k4, 1.0
                    at_pos, at_vel = pt, vt
            for lane in range(lanes):
                theta_stage[lane] = theta[lane] if fraction == 0.0 else theta[lane] + fraction * dtheta[lane]
            _accelerations(at_pos, at_vel, theta_stage, *args, out)
            if method == FINITE_DIFFERENCE and stage == 0:
                for d in range(2):
                    for i in range(n):
                        for lane in range(lanes):
                            if not have_acc[lane]:
                                acc[d, i, lane] = acc2[d, i, lane]
        if method <= EXPLICIT:  # SEMI_IMPLICIT or EXPLICIT
            for i in range(n):
                for d in range(2):
                    for lane in range(lanes):
                        if free[i, lane]:
                            v_new = vel[d, i, lane] + h * acc[d, i, lane]
                            pos[d, i, lane] += h * (v_new if method == SEMI_IMPLICIT else vel[d, i, lane])
                            vel[d, i, lane] = v_new
        elif method == FINITE_DIFFERENCE:
            for i in range(n):
                for d in range(2):
                    for lane in range(lanes):
                        if free[i, lane]:
                            vel[d, i, lane] += 0.5 * h * (acc[d, i, lane] + acc2[d, i, lane])
            _copy(acc, acc2)
            for lane in range(lanes):
                have_acc[lane] = True
        elif method == MIDPOINT:
            _stage(p0, v0, free, vt, acc2, h, pos, vs)
            for d in range(2):
                for i in range(n):
                    for lane in range(lanes):
                        if free[i, lane]:
                            vel[d, i, lane] = vs[d, i, lane]
        else:  # RK4
            w = h / 6.0
            for i in range(n):
                for d in range(2):
                    for lane in range(lanes):
                        if free[i, lane]:
                            pos[d, i, lane] = p0[d, i, lane] + w * (
                                v0[d, i, lane]
                                + 2.0 * vs[d, i, lane]
                                + 2.0 * acc2[d, i, lane]
                                + vt[d, i, lane]
                            )
                    for lane in range(lanes):
                        if free[i, lane]:
                            vel[d, i, lane] = v0[d, i, lane] + w * (
                                acc[d, i, lane] + 2.0 * k2[d, i, lane] + 2.0 * k3[d, i, lane] + k4[d, i, lane]
                            )
        for lane in range(lanes):
            theta[lane] += dtheta[lane]
        exploded, written = _end_of_step(
            step, pos, vel, old, free, alive, segments, fp, ip, autoreverse, sign, touching_before, have_acc,
            ring, written, records, layout, n_rec, exploded_at, flags, one, max_speed2,
        )  # fmt: skip
        n_alive -= exploded
        if n_alive == 0:
            break
    finish_records(ring, written, n_rec, records, layout)
