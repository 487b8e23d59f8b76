"""The semi-implicit Euler fast path for the applet's model, and the soda collisions every kernel shares.

:func:`run_euler` runs the whole time loop in one jitted call for unit masses, unit stiffness multipliers,
no dashpots and soda contact; everything else goes through the general kernels. Pure functions of arrays.
Array layout and the one-sin-per-step trick: docs/integrators.md, "For developers".
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from evo.sim.kernels import params as _p

_JIT = dict(cache=True, error_model="numpy", nogil=True, boundscheck=False)
_MAX_PASSES = 4  # terrain crossings resolved per mass and step
HUGE = 1.0e300  # stands for "no wall" (and "no speed limit"); comparisons stay finite


@nb.njit(**_JIT)
def _walls(i, pos, vel, y_min, x_min, x_max, y_max, c_n, c_t):
    """Put mass i back inside the box (floor y = y_min, ceiling, side walls) and reflect its velocity.

    Split relative to the wall, v_n -> -c_n v_n (only if it points into the wall) and v_t -> c_t v_t.
    Returns True when a side wall was touched.
    """
    side_wall = False
    if pos[i, 1] < y_min:
        pos[i, 1] = y_min
        if vel[i, 1] < 0.0:
            vel[i, 1] = -c_n * vel[i, 1]
        vel[i, 0] *= c_t
    if pos[i, 1] > y_max:
        pos[i, 1] = y_max
        if vel[i, 1] > 0.0:
            vel[i, 1] = -c_n * vel[i, 1]
        vel[i, 0] *= c_t
    if pos[i, 0] < x_min:
        pos[i, 0] = x_min
        if vel[i, 0] < 0.0:
            vel[i, 0] = -c_n * vel[i, 0]
        vel[i, 1] *= c_t
        side_wall = True
    if pos[i, 0] > x_max:
        pos[i, 0] = x_max
        if vel[i, 0] > 0.0:
            vel[i, 0] = -c_n * vel[i, 0]
        vel[i, 1] *= c_t
        side_wall = True
    return side_wall


@nb.njit(**_JIT)
def _segments(i, pos, vel, old_x, old_y, segments, c_n, c_t, up):
    """If mass i crossed terrain segments this step, put it back on them and reflect its velocity.

    The earliest crossing along the path old -> new is resolved first: the mass goes back onto that
    segment's line (a hair on the side it came from) and its velocity is split relative to the segment.
    The corrected position may cross another segment (in a V-shaped valley it does), so the search is
    repeated; after ``_MAX_PASSES`` passes the mass is put back where it started the step, which was
    on the right side of every segment.

    A mass that starts the step exactly on a segment's line (placed there, as creatures standing on
    terrain are) came from the side the segment supports it from, against gravity: ``up`` is +1 when
    gravity points down, -1 when it points up, and 0 without gravity, when such a mass has no side and
    is not stopped.
    """
    for _ in range(_MAX_PASSES):
        nx = pos[i, 0]
        ny = pos[i, 1]
        first = -1
        first_t = 2.0
        first_side = 0.0
        for s in range(segments.shape[0]):
            x1 = segments[s, 0]
            y1 = segments[s, 1]
            ex = segments[s, 2] - x1
            ey = segments[s, 3] - y1
            seg_len2 = ex * ex + ey * ey
            if seg_len2 == 0.0:
                continue
            d_old = ex * (old_y - y1) - ey * (old_x - x1)
            d_new = ex * (ny - y1) - ey * (nx - x1)
            if d_old == 0.0:
                # on the line: the supported side is the one whose normal (-ey, ex) points up
                side = 1.0 if ex * up > 0.0 else (-1.0 if ex * up < 0.0 else 0.0)
                if side * d_new >= 0.0:
                    continue
                t = 0.0
            else:
                if d_old * d_new > 0.0:
                    continue
                side = 1.0 if d_old > 0.0 else -1.0
                # where the path old -> new meets the segment's line
                t = d_old / (d_old - d_new)
            qx = old_x + t * (nx - old_x)
            qy = old_y + t * (ny - old_y)
            u = ((qx - x1) * ex + (qy - y1) * ey) / seg_len2
            if 0.0 <= u <= 1.0 and t < first_t:
                first = s
                first_t = t
                first_side = side
        if first < 0:
            return
        x1 = segments[first, 0]
        y1 = segments[first, 1]
        ex = segments[first, 2] - x1
        ey = segments[first, 3] - y1
        seg_len = math.sqrt(ex * ex + ey * ey)
        d_new = ex * (ny - y1) - ey * (nx - x1)
        side = first_side
        # unit normal pointing to the side the mass came from
        unx = -ey / seg_len * side
        uny = ex / seg_len * side
        # back on the surface: project the new position on the line, a hair on the old side
        depth = (d_new / seg_len) * side  # signed distance of the new position (negative: crossed)
        pos[i, 0] = nx + unx * (1e-9 - depth)
        pos[i, 1] = ny + uny * (1e-9 - depth)
        vn = vel[i, 0] * unx + vel[i, 1] * uny
        tx = vel[i, 0] - vn * unx
        ty = vel[i, 1] - vn * uny
        if vn < 0.0:
            vn = -c_n * vn
        vel[i, 0] = c_t * tx + vn * unx
        vel[i, 1] = c_t * ty + vn * uny
    pos[i, 0] = old_x
    pos[i, 1] = old_y


@nb.njit(**_JIT)
def _too_fast(vel, free, max_speed2):
    """True if any free mass moves faster than sqrt(max_speed2), or has a NaN/inf velocity."""
    for i in range(vel.shape[0]):
        if free[i] and not (vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1] <= max_speed2):
            return True
    return False


@nb.njit(**_JIT)
def run_euler(pos, vel, free, link_a, link_b, rest, amp, cos_phi, sin_phi, segments, fp, ip, rec_pos,
              rec_vel):  # fmt: skip
    """Semi-implicit Euler (v += a dt, then x += v dt, then collisions) for ``ip[I_STEPS]`` steps of
    ``fp[F_DT]``; the world's numbers, the wave's (ω, θ₀, sign, autoreverse) and the speed limit are read
    from ``fp`` and ``ip`` (:mod:`evo.sim.kernels.params`).

    ``pos`` and ``vel`` are updated in place. Records go into ``rec_pos`` / ``rec_vel``
    (n_records, n_masses, 2) every ``ip[I_STRIDE]`` steps, record 0 being the initial state.
    Returns (number of records written, step at which the run exploded or -1).

    Each step works in three passes over the links, on x, y, vx, vy kept as separate arrays: gather
    the link vectors (scalar loads), turn them into forces (a contiguous loop that LLVM vectorises,
    square root and division included, thanks to ``error_model="numpy"``), then scatter the forces
    onto the masses. Per mass, the forces are added in link order starting from gravity, exactly as a
    single fused loop would. The floor contact is written out here rather than called: a numba call
    with array arguments inside the step costs more than the work it does.
    """
    gx, gy, damping = fp[_p.F_GX], fp[_p.F_GY], fp[_p.F_DAMPING]
    stiffness, dt = fp[_p.F_STIFFNESS], fp[_p.F_DT]
    c_n, c_t, x_min, x_max, y_max = fp[_p.F_CN], fp[_p.F_CT], fp[_p.F_XMIN], fp[_p.F_XMAX], fp[_p.F_YMAX]
    omega, max_speed2, autoreverse = fp[_p.F_OMEGA], fp[_p.F_MAX_SPEED2], ip[_p.I_AUTOREVERSE] != 0
    n_steps, stride = ip[_p.I_STEPS], ip[_p.I_STRIDE]
    n = pos.shape[0]
    n_links = link_a.shape[0]
    theta = fp[_p.F_THETA0]
    sign = fp[_p.F_SIGN]
    rec_pos[0] = pos
    rec_vel[0] = vel
    n_rec = 1
    x = pos[:, 0].copy()
    y = pos[:, 1].copy()
    vx = vel[:, 0].copy()
    vy = vel[:, 1].copy()
    fx = np.empty(n)
    fy = np.empty(n)
    link_x = np.empty(n_links)  # link vector b - a, then the force on a
    link_y = np.empty(n_links)
    has_segments = segments.shape[0] > 0
    up = 1.0 if gy < 0.0 else (-1.0 if gy > 0.0 else 0.0)  # against gravity, for _segments
    touching_before = False
    has_other_surfaces = has_segments or x_min > -HUGE or x_max < HUGE or y_max < HUGE
    exploded_at = -1
    for step in range(1, n_steps + 1):
        st = math.sin(theta)
        ct = math.cos(theta)
        for k in range(n_links):
            a = link_a[k]
            b = link_b[k]
            link_x[k] = x[b] - x[a]
            link_y[k] = y[b] - y[a]
        for k in range(n_links):
            dx = link_x[k]
            dy = link_y[k]
            length = math.sqrt(dx * dx + dy * dy)
            rest_now = rest[k] + amp[k] * (st * cos_phi[k] + ct * sin_phi[k])
            f = stiffness * (length - rest_now) / length if length > 0.0 else 0.0
            link_x[k] = f * dx
            link_y[k] = f * dy
        for i in range(n):
            fx[i] = gx
            fy[i] = gy
        for k in range(n_links):
            a = link_a[k]
            b = link_b[k]
            fx[a] += link_x[k]
            fy[a] += link_y[k]
            fx[b] -= link_x[k]
            fy[b] -= link_y[k]
        touched_side = False
        speed2_sum = 0.0
        for i in range(n):
            if free[i]:
                old_x = x[i]
                old_y = y[i]
                new_vx = vx[i] + (fx[i] - damping * vx[i]) * dt
                new_vy = vy[i] + (fy[i] - damping * vy[i]) * dt
                new_x = old_x + new_vx * dt
                new_y = old_y + new_vy * dt
                if new_y < 0.0:  # the floor, by far the most common contact
                    new_y = 0.0
                    if new_vy < 0.0:
                        new_vy = -c_n * new_vy
                    new_vx = c_t * new_vx
                if has_other_surfaces:
                    pos[i, 0] = new_x
                    pos[i, 1] = new_y
                    vel[i, 0] = new_vx
                    vel[i, 1] = new_vy
                    if new_y > y_max or new_x < x_min or new_x > x_max:
                        if _walls(i, pos, vel, 0.0, x_min, x_max, y_max, c_n, c_t):
                            touched_side = True
                    if has_segments:
                        _segments(i, pos, vel, old_x, old_y, segments, c_n, c_t, up)
                    new_x = pos[i, 0]
                    new_y = pos[i, 1]
                    new_vx = vel[i, 0]
                    new_vy = vel[i, 1]
                x[i] = new_x
                y[i] = new_y
                vx[i] = new_vx
                vy[i] = new_vy
                speed2_sum += new_vx * new_vx + new_vy * new_vy
        theta += sign * omega * dt
        # NaN and inf propagate into the sum; only when it is large is each mass checked
        if not (speed2_sum <= max_speed2):
            for i in range(n):
                if free[i] and not (vx[i] * vx[i] + vy[i] * vy[i] <= max_speed2):
                    exploded_at = step
            if exploded_at >= 0:
                break
        if autoreverse and touched_side and not touching_before:
            sign = -sign  # once per contact, when it starts
        touching_before = touched_side
        if step % stride == 0:
            for i in range(n):
                rec_pos[n_rec, i, 0] = x[i]
                rec_pos[n_rec, i, 1] = y[i]
                rec_vel[n_rec, i, 0] = vx[i]
                rec_vel[n_rec, i, 1] = vy[i]
            n_rec += 1
    for i in range(n):
        pos[i, 0] = x[i]
        pos[i, 1] = y[i]
        vel[i, 0] = vx[i]
        vel[i, 1] = vy[i]
    return n_rec, exploded_at
