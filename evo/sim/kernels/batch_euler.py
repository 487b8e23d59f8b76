"""The semi-implicit Euler fast path of :mod:`evo.sim.kernels.euler` for a batch of creatures of any topology.

:func:`run_euler_batch` is :func:`evo.sim.kernels.euler.run_euler` with one more axis: every per-mass and
per-link array (link ends and free flags included) has the creature (the lane) as its last, contiguous
axis, so the loops over lanes vectorise. Each lane does the scalar kernel's operations in the same order.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from evo.sim.kernels import params as _p
from evo.sim.kernels.euler import _JIT, HUGE, _segments, _walls
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


@nb.njit(**_JIT)
def _surfaces(x, y, vx, vy, old_x, old_y, free, alive, x_min, x_max, y_max, segments, c_n, c_t, up, touched,
              one):  # fmt: skip
    """Walls, ceiling and terrain for every free mass of every live lane, after the floor, as run_euler.

    ``free`` (n_masses, n_lanes) uint8; ``old_x``, ``old_y`` (n_masses, n_lanes): positions before the
    step. ``touched`` (n_lanes,) is set
    where a side wall was touched. One mass and lane at a time, through the scalar kernel's own
    helpers, on ``one`` (2, 1, 2) scratch: a position and a velocity.
    """
    pos = one[0]
    vel = one[1]
    has_segments = segments.shape[0] > 0
    for i in range(x.shape[0]):
        for lane in range(x.shape[1]):
            if not (free[i, lane] and alive[lane]):
                continue
            new_x = x[i, lane]
            new_y = y[i, lane]
            outside = new_y > y_max or new_x < x_min or new_x > x_max
            if not (outside or has_segments):
                continue
            pos[0, 0] = new_x
            pos[0, 1] = new_y
            vel[0, 0] = vx[i, lane]
            vel[0, 1] = vy[i, lane]
            if outside and _walls(0, pos, vel, 0.0, x_min, x_max, y_max, c_n, c_t):
                touched[lane] = True
            if has_segments:
                _segments(0, pos, vel, old_x[i, lane], old_y[i, lane], segments, c_n, c_t, up)
            x[i, lane] = pos[0, 0]
            y[i, lane] = pos[0, 1]
            vx[i, lane] = vel[0, 0]
            vy[i, lane] = vel[0, 1]


@nb.njit(**_JIT)
def run_euler_batch(lanes_in, segments, fp, ip, out):
    """Semi-implicit Euler for ``ip[I_STEPS]`` steps of ``fp[F_DT]`` on every lane of ``lanes_in`` (a
    :class:`evo.sim.kernels.lanes.Lanes`), as :func:`run_euler` per lane; the world's numbers are read
    from ``fp`` and ``ip`` (:mod:`evo.sim.kernels.params`), ``segments`` (k, 4) is the terrain.

    Lanes of fewer masses or links are padded: a padded mass is not free, a padded link joins a padded
    mass to itself (its force is 0 and lands on no real mass). Records go every ``ip[I_STRIDE]`` steps
    into ``out`` (a :class:`evo.sim.kernels.lanes.LaneRecords`: each row's mass in ``layout``, rows may
    hold a lane's masses in any order; through the ring, see :func:`evo.sim.kernels.lanes.record_lanes`),
    record 0 the initial state, with the records written per lane and the step at which a lane exploded
    (or -1). An exploded lane is parked (:func:`evo.sim.kernels.lanes.park_lane`) and no longer recorded.
    """
    (pos, vel, free, link_a, link_b, uniform, uniform_b, rest, amp, cos_phi, sin_phi, omega, theta0,
     wave_sign, autoreverse, wave_leader, max_speed2) = lanes_in  # fmt: skip
    ring, records, layout, n_rec, exploded_at = out
    gx, gy, damping = fp[_p.F_GX], fp[_p.F_GY], fp[_p.F_DAMPING]
    stiffness, dt = fp[_p.F_STIFFNESS], fp[_p.F_DT]
    c_n, c_t, x_min, x_max, y_max = fp[_p.F_CN], fp[_p.F_CT], fp[_p.F_XMIN], fp[_p.F_XMAX], fp[_p.F_YMAX]
    n_steps, stride = ip[_p.I_STEPS], ip[_p.I_STRIDE]
    x, y, vx, vy = pos[0], pos[1], vel[0], vel[1]
    n = x.shape[0]
    lanes = x.shape[1]
    n_links = link_a.shape[0]
    check_lanes_fit_stack(n, lanes)
    sums_x = _stack_doubles(STACK_DOUBLES)
    sums_y = _stack_doubles(STACK_DOUBLES)
    fx = nb.carray(sums_x, (n, lanes))
    fy = nb.carray(sums_y, (n, lanes))
    flat_fx = nb.carray(sums_x, (n * lanes,))
    flat_fy = nb.carray(sums_y, (n * lanes,))
    flat_x = pos[0].reshape(n * lanes)
    flat_y = pos[1].reshape(n * lanes)
    slot_a = np.empty((n_links, lanes), dtype=np.uint32)  # row * lanes + lane: a lane's own end, flat
    slot_b = np.empty((n_links, lanes), dtype=np.uint32)
    for k in range(n_links):
        for lane in range(lanes):
            slot_a[k, lane] = link_a[k, lane] * lanes + lane
            slot_b[k, lane] = link_b[k, lane] * lanes + lane
    link_x = nb.carray(_stack_doubles(LANE_DOUBLES), (lanes,))  # one link's force on each lane
    link_y = nb.carray(_stack_doubles(LANE_DOUBLES), (lanes,))
    theta = theta0.copy()
    sign = wave_sign.copy()
    st = np.empty(lanes)
    ct = np.empty(lanes)
    old_x = np.empty((n, lanes))
    old_y = np.empty((n, lanes))
    speed2_sum = np.empty(lanes)
    alive = np.ones(lanes, dtype=np.bool_)
    touched = np.zeros(lanes, dtype=np.bool_)
    touching_before = np.zeros(lanes, dtype=np.bool_)
    one = np.empty((2, 1, 2))  # one mass's position and velocity, for _surfaces
    has_segments = segments.shape[0] > 0
    up = 1.0 if gy < 0.0 else (-1.0 if gy > 0.0 else 0.0)  # against gravity, for _segments
    has_side_walls = x_min > -HUGE or x_max < HUGE
    has_other_surfaces = has_segments or has_side_walls or y_max < HUGE
    n_alive = lanes
    for lane in range(lanes):
        n_rec[lane] = 0
        exploded_at[lane] = -1
    written = record_lanes(alive, n_rec, pos, vel, ring, 0, records, layout)
    for step in range(1, n_steps + 1):
        wave_sin_cos(theta, wave_leader, st, ct)
        for i in range(n):
            for lane in range(lanes):
                fx[i, lane] = gx
                fy[i, lane] = gy
        # per mass and lane, the link forces are added in link order after gravity, as in run_euler. A
        # link with the same ends in every lane adds its forces onto two rows (a vector loop); another
        # has its force computed on every lane (a vector loop, the ends gathered per lane), then added
        # onto each lane's own two end masses (a scatter, lane by lane), or, when its end b is one row
        # in every lane (as the packing arranges for most spanning-tree links), onto that row in the
        # vector loop and onto each lane's end a in the scatter
        for k in range(n_links):
            if uniform[k]:
                a = link_a[k, 0]
                b = link_b[k, 0]
                for lane in range(lanes):
                    dx = x[b, lane] - x[a, lane]
                    dy = y[b, lane] - y[a, lane]
                    length = math.sqrt(dx * dx + dy * dy)
                    rest_now = rest[k, lane] + amp[k, lane] * (
                        st[lane] * cos_phi[k, lane] + ct[lane] * sin_phi[k, lane]
                    )
                    f = stiffness * (length - rest_now) / length if length > 0.0 else 0.0
                    force_x = f * dx
                    force_y = f * dy
                    fx[a, lane] += force_x
                    fy[a, lane] += force_y
                    fx[b, lane] -= force_x
                    fy[b, lane] -= force_y
                continue
            if uniform_b[k]:
                b = link_b[k, 0]
                for lane in range(lanes):
                    a = slot_a[k, lane]
                    dx = x[b, lane] - flat_x[a]
                    dy = y[b, lane] - flat_y[a]
                    length = math.sqrt(dx * dx + dy * dy)
                    rest_now = rest[k, lane] + amp[k, lane] * (
                        st[lane] * cos_phi[k, lane] + ct[lane] * sin_phi[k, lane]
                    )
                    f = stiffness * (length - rest_now) / length if length > 0.0 else 0.0
                    link_x[lane] = f * dx
                    link_y[lane] = f * dy
                    fx[b, lane] -= f * dx
                    fy[b, lane] -= f * dy
                for lane in range(lanes):
                    a = slot_a[k, lane]
                    flat_fx[a] += link_x[lane]
                    flat_fy[a] += link_y[lane]
                continue
            for lane in range(lanes):
                a = slot_a[k, lane]
                b = slot_b[k, lane]
                dx = flat_x[b] - flat_x[a]
                dy = flat_y[b] - flat_y[a]
                length = math.sqrt(dx * dx + dy * dy)
                rest_now = rest[k, lane] + amp[k, lane] * (
                    st[lane] * cos_phi[k, lane] + ct[lane] * sin_phi[k, lane]
                )
                f = stiffness * (length - rest_now) / length if length > 0.0 else 0.0
                link_x[lane] = f * dx
                link_y[lane] = f * dy
            for lane in range(lanes):
                a = slot_a[k, lane]
                b = slot_b[k, lane]
                flat_fx[a] += link_x[lane]
                flat_fy[a] += link_y[lane]
                flat_fx[b] -= link_x[lane]
                flat_fy[b] -= link_y[lane]
        if has_other_surfaces:
            for i in range(n):
                for lane in range(lanes):
                    old_x[i, lane] = x[i, lane]
                    old_y[i, lane] = y[i, lane]
        for lane in range(lanes):
            touched[lane] = False
            speed2_sum[lane] = 0.0
        # each mass moves; with no other surface to come, its speed is summed in the same pass (masses
        # in order, as in run_euler)
        for i in range(n):
            for lane in range(lanes):
                if free[i, lane]:
                    new_vx = vx[i, lane] + (fx[i, lane] - damping * vx[i, lane]) * dt
                    new_vy = vy[i, lane] + (fy[i, lane] - damping * vy[i, lane]) * dt
                    new_x = x[i, lane] + new_vx * dt
                    new_y = y[i, lane] + new_vy * dt
                    if new_y < 0.0:  # the floor
                        new_y = 0.0
                        if new_vy < 0.0:
                            new_vy = -c_n * new_vy
                        new_vx = c_t * new_vx
                    x[i, lane] = new_x
                    y[i, lane] = new_y
                    vx[i, lane] = new_vx
                    vy[i, lane] = new_vy
                    if not has_other_surfaces:
                        speed2_sum[lane] += new_vx * new_vx + new_vy * new_vy
        if has_other_surfaces:
            _surfaces(x, y, vx, vy, old_x, old_y, free, alive, x_min, x_max, y_max, segments, c_n, c_t, up,
                      touched, one)  # fmt: skip
            for i in range(n):
                for lane in range(lanes):
                    if free[i, lane]:
                        speed2_sum[lane] += vx[i, lane] * vx[i, lane] + vy[i, lane] * vy[i, lane]
        for lane in range(lanes):
            theta[lane] += sign[lane] * omega[lane] * dt
        # NaN and inf propagate into the sums; only in a lane whose sum is large is each mass checked
        fast = False
        for lane in range(lanes):
            fast |= alive[lane] & (not (speed2_sum[lane] <= max_speed2[lane]))
        if fast:
            for lane in range(lanes):
                if alive[lane] and not (speed2_sum[lane] <= max_speed2[lane]):
                    for i in range(n):
                        if free[i, lane] and not (
                            vx[i, lane] * vx[i, lane] + vy[i, lane] * vy[i, lane] <= max_speed2[lane]
                        ):
                            exploded_at[lane] = step
                    if exploded_at[lane] >= 0:
                        alive[lane] = False
                        n_alive -= 1
                        park_lane(lane, x, y, vx, vy)
            if n_alive == 0:
                break
        if has_side_walls:
            for lane in range(lanes):  # on an exploded lane the wave no longer matters
                if autoreverse[lane] and touched[lane] and not touching_before[lane]:
                    sign[lane] = -sign[lane]  # once per contact, when it starts
                touching_before[lane] = touched[lane]
        if step % stride == 0:
            written = record_lanes(alive, n_rec, pos, vel, ring, written, records, layout)
    finish_records(ring, written, n_rec, records, layout)
