"""The Parker–Sochacki method (seed 003) for any network of springs, muscles and dashpots: :func:`run_psm`.

Each step sums every unknown's Maclaurin series to order ``psm_order``, made polynomial by the auxiliary
variable 1/L per link, and halves a step whose series converges badly. The recurrences, the step
splitting and the penalty ground: docs/integrators.md, "Parker–Sochacki for any network".
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from evo.sim.kernels.euler import _JIT
from evo.sim.kernels.forces import (
    F_DAMPING,
    F_DT,
    F_GROUND_K,
    F_GX,
    F_GY,
    F_MU,
    F_OMEGA,
    F_SIGN,
    F_SLIP,
    F_THETA0,
    I_GROUND,
    I_PENALTY,
    I_PSM_ORDER,
    I_STEPS,
    L_AMP,
    L_COS_PHI,
    L_D,
    L_K,
    L_REST,
    L_SIN_PHI,
    end_of_step,
    ground_shape,
)

# A step is split in halves while the last term of the series is more than this fraction of the one
# before it (the series is not converging fast enough: the step reaches too close to a singularity,
# e.g. a link nearly collapsing, or a steep contact), down to MIN_PART of the step.
MAX_TAIL_RATIO = 0.5
MIN_PART = 1.0 / 256.0


@nb.njit(**_JIT)
def _ground_coefficient(i, j, h, xs, vs, inv_mass, frame, ground, fp, force):
    """Add the j-th series coefficient of the ground force on mass i (in contact) to ``force[i]``.

    ``ground`` holds per mass the series of N, u = v·τ/ε, tanh(u) and tanh(u)² (rows 0..3).
    """
    normal, slide, tanh_u, tanh2 = ground[0], ground[1], ground[2], ground[3]
    nx, ny, tx, ty = frame[i, 0], frame[i, 1], frame[i, 2], frame[i, 3]
    slide[i, j] = (vs[j, i, 0] * tx + vs[j, i, 1] * ty) / fp[F_SLIP]
    if j == 0:
        tanh_u[i, 0] = math.tanh(slide[i, 0])
        if fp[F_MU] * normal[i, 0] * inv_mass[i] * h > fp[F_SLIP]:
            frame[i, 4] = 1.0  # the friction's own drag rate μ·N/(M·ε) times h exceeds 1
    else:
        normal[i, j] = -fp[F_GROUND_K] * (xs[j, i, 0] * nx + xs[j, i, 1] * ny)
        if j == 1 and abs(slide[i, 1]) * h > 1.0:
            frame[i, 4] = 1.0  # u would change by more than 1 in the step: beyond tanh's series
        t = 0.0
        if frame[i, 4] == 0.0:
            for l in range(j):
                t += ((1.0 if l == 0 else 0.0) - tanh2[i, l]) * (j - l) * slide[i, j - l]
        tanh_u[i, j] = t / j
    t2 = 0.0
    nt = 0.0
    for l in range(j + 1):
        t2 += tanh_u[i, l] * tanh_u[i, j - l]
        nt += normal[i, l] * tanh_u[i, j - l]
    tanh2[i, j] = t2
    friction = -fp[F_MU] * nt
    force[i, 0] += normal[i, j] * nx + friction * tx
    force[i, 1] += normal[i, j] * ny + friction * ty


@nb.njit(**_JIT)
def _coefficients(pos, vel, theta, rate, h, free, inv_mass, link_a, link_b, link_data,
                  ground_params, ground_points, fp, ip,
                  xs, vs, series, diffs, ground, frame, contact, active, force):  # fmt: skip
    """Fill ``xs``, ``vs`` ((order + 1, n, 2)) with the series of the positions and velocities from the
    state (pos, vel) at wave angle theta (rad; rate = dθ/dt), for a step of h frames.

    Work arrays: ``series`` (6, n_links, order + 1) for a, a², a³, c, q, l_r; ``diffs`` (2, n_links,
    order + 1, 2) for d and e; ``ground`` (4, n, order + 1); ``frame`` (n, 5); ``contact`` (n,);
    ``active`` (n_links,); ``force`` (n, 2). Returns the ratio of the last two terms' sizes,
    Σ(|X_n| + h·|V_n|)·hⁿ / Σ(|X_{n−1}| + h·|V_{n−1}|)·hⁿ⁻¹ over the free masses (0 when the series ends).
    """
    n = pos.shape[0]
    m = link_a.shape[0]
    order = xs.shape[0] - 1
    a1, a2, a3, cs, qs, rs = series[0], series[1], series[2], series[3], series[4], series[5]
    ds, es = diffs[0], diffs[1]
    normal = ground[0]
    penalty = ip[I_PENALTY] != 0
    for i in range(n):
        xs[0, i, 0] = pos[i, 0]
        xs[0, i, 1] = pos[i, 1]
        contact[i] = 0
        if free[i]:
            vs[0, i, 0] = vel[i, 0]
            vs[0, i, 1] = vel[i, 1]
            if penalty:
                h0, hx, hy, _, _, _ = ground_shape(ip[I_GROUND], ground_params, ground_points,
                                                   pos[i, 0], pos[i, 1])  # fmt: skip
                g = math.sqrt(hx * hx + hy * hy)
                if h0 < 0.0 and g > 0.0:
                    contact[i] = 1
                    frame[i, 0], frame[i, 1] = hx / g, hy / g
                    frame[i, 2], frame[i, 3], frame[i, 4] = hy / g, -hx / g, 0.0
                    normal[i, 0] = -fp[F_GROUND_K] * h0 / g
    st = math.sin(theta)
    ct = math.cos(theta)
    for k in range(m):
        dx = pos[link_b[k], 0] - pos[link_a[k], 0]
        dy = pos[link_b[k], 1] - pos[link_a[k], 1]
        length = math.sqrt(dx * dx + dy * dy)
        active[k] = length > 0.0
        if not active[k]:
            continue
        a1[k, 0] = 1.0 / length
        amp = link_data[k, L_AMP]
        sin_psi = st * link_data[k, L_COS_PHI] + ct * link_data[k, L_SIN_PHI]
        cos_psi = ct * link_data[k, L_COS_PHI] - st * link_data[k, L_SIN_PHI]
        rs[k, 0] = link_data[k, L_REST] + amp * sin_psi
        scale = amp
        for j in range(1, order + 1):
            scale *= rate / j
            turn = j % 4
            derivative = (
                sin_psi if turn == 0 else cos_psi if turn == 1 else -sin_psi if turn == 2 else -cos_psi
            )
            rs[k, j] = scale * derivative
    for j in range(order):
        force[:, :] = 0.0
        for k in range(m):
            if not active[k]:
                continue
            a = link_a[k]
            b = link_b[k]
            for d in range(2):
                ds[k, j, d] = xs[j, b, d] - xs[j, a, d]
                es[k, j, d] = vs[j, b, d] - vs[j, a, d]
            c = 0.0
            sq = 0.0
            for l in range(j + 1):
                c += ds[k, l, 0] * es[k, j - l, 0] + ds[k, l, 1] * es[k, j - l, 1]
                sq += a1[k, l] * a1[k, j - l]
            cs[k, j] = c
            a2[k, j] = sq
            cube = 0.0
            rest_a = 0.0
            for l in range(j + 1):
                cube += a2[k, l] * a1[k, j - l]
                rest_a += rs[k, l] * a1[k, j - l]
            a3[k, j] = cube
            stiff = link_data[k, L_K]
            q = -stiff * rest_a
            if j == 0:
                q += stiff
            dashpot = link_data[k, L_D]
            if dashpot != 0.0:
                ca2 = 0.0
                for l in range(j + 1):
                    ca2 += cs[k, l] * a2[k, j - l]
                q += dashpot * ca2
            qs[k, j] = q
            fx = 0.0
            fy = 0.0
            next_a = 0.0
            for l in range(j + 1):
                fx += qs[k, l] * ds[k, j - l, 0]
                fy += qs[k, l] * ds[k, j - l, 1]
                next_a += a3[k, l] * cs[k, j - l]
            a1[k, j + 1] = -next_a / (j + 1)
            force[a, 0] += fx
            force[a, 1] += fy
            force[b, 0] -= fx
            force[b, 1] -= fy
        inv_j = 1.0 / (j + 1)
        for i in range(n):
            if free[i]:
                if contact[i]:
                    _ground_coefficient(i, j, h, xs, vs, inv_mass, frame, ground, fp, force)
                for d in range(2):
                    acc = inv_mass[i] * force[i, d] - fp[F_DAMPING] * vs[j, i, d]
                    if j == 0:
                        acc += fp[F_GX] if d == 0 else fp[F_GY]
                    xs[j + 1, i, d] = vs[j, i, d] * inv_j
                    vs[j + 1, i, d] = acc * inv_j
    last = 0.0
    before = 0.0
    for i in range(n):
        if free[i]:
            for d in range(2):
                last += abs(xs[order, i, d]) + h * abs(vs[order, i, d])
                before += abs(xs[order - 1, i, d]) + h * abs(vs[order - 1, i, d])
    return last * h / before if before > 0.0 else 0.0


@nb.njit(**_JIT)
def run_psm(pos, vel, free, inv_mass, link_a, link_b, link_data, segments, ground_params, ground_points,
            fp, ip, rec_pos, rec_vel):  # fmt: skip
    """Parker–Sochacki of order ``ip[I_PSM_ORDER]``; contract of :func:`.explicit.run_explicit`."""
    n = pos.shape[0]
    m = link_a.shape[0]
    order = ip[I_PSM_ORDER]
    h = fp[F_DT]
    theta = fp[F_THETA0]
    sign = fp[F_SIGN]
    xs = np.zeros((order + 1, n, 2))
    vs = np.zeros((order + 1, n, 2))
    series = np.zeros((6, m, order + 1))
    diffs = np.zeros((2, m, order + 1, 2))
    ground = np.zeros((4, n, order + 1))
    frame = np.zeros((n, 5))  # per mass in contact: normal (x, y), tangent (x, y), friction held (1.0)
    contact = np.zeros(n, dtype=np.uint8)
    active = np.zeros(m, dtype=np.uint8)
    force = np.zeros((n, 2))
    old = np.empty((n, 2))
    touching_before = False
    rec_pos[0] = pos
    rec_vel[0] = vel
    n_rec = 1
    for step in range(1, ip[I_STEPS] + 1):
        old[:, :] = pos
        rate = sign * fp[F_OMEGA]
        left = 1.0  # the part of the step still to go, and the part tried next (powers of 2)
        part = 1.0
        while left > 0.0:
            part = min(part, left)
            ratio = _coefficients(pos, vel, theta, rate, part * h, free, inv_mass, link_a, link_b, link_data,
                                  ground_params, ground_points, fp, ip, xs, vs, series, diffs, ground, frame,
                                  contact, active, force)  # fmt: skip
            if ratio > MAX_TAIL_RATIO and part > MIN_PART:
                part *= 0.5
                continue
            sub = part * h
            for i in range(n):
                if free[i]:
                    for d in range(2):
                        x = xs[order, i, d]
                        v = vs[order, i, d]
                        for j in range(order - 1, -1, -1):
                            x = x * sub + xs[j, i, d]
                            v = v * sub + vs[j, i, d]
                        pos[i, d] = x
                        vel[i, d] = v
            theta += rate * sub
            left -= part
        exploded, _, sign, touching_before, n_rec = end_of_step(
            step, pos, vel, old, free, segments, fp, ip, sign, touching_before, rec_pos, rec_vel, n_rec
        )
        if exploded:
            return n_rec, step
    return n_rec, -1
