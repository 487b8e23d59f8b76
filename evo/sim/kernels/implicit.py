"""Backward (implicit) Euler with Newton's method and the analytic Jacobian: :func:`run_backward_euler`.

Each step solves for the new velocities (seed 002 §1.1) by Newton, with the exact derivatives of every
force and a dense Gaussian elimination: order 1, A-stable, meant for small stiff creatures. The equations
and the Jacobian: docs/integrators.md, "Backward Euler".
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
    F_NEWTON_TOL,
    F_OMEGA,
    F_SIGN,
    F_SLIP,
    F_THETA0,
    I_GROUND,
    I_NEWTON_ITERATIONS,
    I_PENALTY,
    I_STEPS,
    L_AMP,
    L_COS_PHI,
    L_D,
    L_K,
    L_REST,
    L_SIN_PHI,
    end_of_step,
    ground_force_jacobian,
)


@nb.njit(**_JIT)
def _add_block(jac, row, col, scale, e00, e01, e10, e11):
    """jac[2row:2row+2, 2col:2col+2] += scale * E."""
    r = 2 * row
    c = 2 * col
    jac[r, c] += scale * e00
    jac[r, c + 1] += scale * e01
    jac[r + 1, c] += scale * e10
    jac[r + 1, c + 1] += scale * e11


@nb.njit(**_JIT)
def residual_jacobian(pos, vel, theta, free, inv_mass, link_a, link_b, link_data, ground_params,
                      ground_points, fp, ip, h, acc, jac):  # fmt: skip
    """acc = a(pos, vel, θ) as in :func:`.forces.accelerations`, and jac = I − h²·∂a/∂x − h·∂a/∂v
    ((2n, 2n), rows and columns of fixed masses left as the identity)."""
    n = pos.shape[0]
    st = math.sin(theta)
    ct = math.cos(theta)
    h2 = h * h
    acc[:, :] = 0.0
    jac[:, :] = 0.0
    for i in range(2 * n):
        jac[i, i] = 1.0
    for k in range(link_a.shape[0]):
        a = link_a[k]
        b = link_b[k]
        dx = pos[b, 0] - pos[a, 0]
        dy = pos[b, 1] - pos[a, 1]
        length = math.sqrt(dx * dx + dy * dy)
        if length == 0.0:
            continue
        ux = dx / length
        uy = dy / length
        wx = vel[b, 0] - vel[a, 0]
        wy = vel[b, 1] - vel[a, 1]
        uw = ux * wx + uy * wy
        stiff = link_data[k, L_K]
        dashpot = link_data[k, L_D]
        rest_now = link_data[k, L_REST] + link_data[k, L_AMP] * (
            st * link_data[k, L_COS_PHI] + ct * link_data[k, L_SIN_PHI]
        )
        tension = stiff * (length - rest_now) + dashpot * uw
        acc[a, 0] += tension * ux
        acc[a, 1] += tension * uy
        acc[b, 0] -= tension * ux
        acc[b, 1] -= tension * uy
        # E = h² ∂F_a/∂d + h ∂F_a/∂w
        pxx = 1.0 - ux * ux
        pxy = -ux * uy
        pyy = 1.0 - uy * uy
        qx = (wx - uw * ux) * dashpot / length
        qy = (wy - uw * uy) * dashpot / length
        tl = tension / length
        e00 = h2 * (stiff * ux * ux + ux * qx + tl * pxx) + h * dashpot * ux * ux
        e01 = h2 * (stiff * ux * uy + ux * qy + tl * pxy) + h * dashpot * ux * uy
        e10 = h2 * (stiff * uy * ux + uy * qx + tl * pxy) + h * dashpot * uy * ux
        e11 = h2 * (stiff * uy * uy + uy * qy + tl * pyy) + h * dashpot * uy * uy
        # ∂F_a/∂x_b = E, ∂F_a/∂x_a = −E; F_b = −F_a; J = I − (those) / M
        if free[a]:
            _add_block(jac, a, a, inv_mass[a], e00, e01, e10, e11)
            if free[b]:
                _add_block(jac, a, b, -inv_mass[a], e00, e01, e10, e11)
        if free[b]:
            _add_block(jac, b, b, inv_mass[b], e00, e01, e10, e11)
            if free[a]:
                _add_block(jac, b, a, -inv_mass[b], e00, e01, e10, e11)
    penalty = ip[I_PENALTY] != 0
    kind = ip[I_GROUND]
    damping = fp[F_DAMPING]
    for i in range(n):
        if not free[i]:
            acc[i, 0] = 0.0
            acc[i, 1] = 0.0
            continue
        fx = acc[i, 0]
        fy = acc[i, 1]
        m = inv_mass[i]
        if penalty:
            gx, gy, jxx, jxy, jyx, jyy, kxx, kxy, kyx, kyy = ground_force_jacobian(
                kind, ground_params, ground_points, pos[i, 0], pos[i, 1], vel[i, 0], vel[i, 1],
                fp[F_GROUND_K], fp[F_MU], fp[F_SLIP],
            )  # fmt: skip
            fx += gx
            fy += gy
            _add_block(jac, i, i, -m, h2 * jxx + h * kxx, h2 * jxy + h * kxy, h2 * jyx + h * kyx,
                       h2 * jyy + h * kyy)  # fmt: skip
        acc[i, 0] = fp[F_GX] - damping * vel[i, 0] + m * fx
        acc[i, 1] = fp[F_GY] - damping * vel[i, 1] + m * fy
        jac[2 * i, 2 * i] += h * damping
        jac[2 * i + 1, 2 * i + 1] += h * damping


@nb.njit(**_JIT)
def solve_in_place(a, b):
    """Solve a·x = b by Gaussian elimination with partial pivoting; x is left in b, a is destroyed.

    Returns False if the matrix is singular.
    """
    n = a.shape[0]
    for col in range(n):
        pivot = col
        best = abs(a[col, col])
        for r in range(col + 1, n):
            if abs(a[r, col]) > best:
                best = abs(a[r, col])
                pivot = r
        if best == 0.0:
            return False
        if pivot != col:
            for c in range(col, n):
                a[col, c], a[pivot, c] = a[pivot, c], a[col, c]
            b[col], b[pivot] = b[pivot], b[col]
        inv = 1.0 / a[col, col]
        for r in range(col + 1, n):
            f = a[r, col] * inv
            if f != 0.0:
                for c in range(col + 1, n):
                    a[r, c] -= f * a[col, c]
                b[r] -= f * b[col]
    for r in range(n - 1, -1, -1):
        s = b[r]
        for c in range(r + 1, n):
            s -= a[r, c] * b[c]
        b[r] = s / a[r, r]
    return True


@nb.njit(**_JIT)
def run_backward_euler(pos, vel, free, inv_mass, link_a, link_b, link_data, segments, ground_params,
                       ground_points, fp, ip, rec_pos, rec_vel):  # fmt: skip
    """Backward Euler for ``ip[I_STEPS]`` steps; same contract as :func:`.explicit.run_explicit`."""
    n = pos.shape[0]
    h = fp[F_DT]
    theta = fp[F_THETA0]
    sign = fp[F_SIGN]
    tolerance = fp[F_NEWTON_TOL]
    jac = np.empty((2 * n, 2 * n))
    rhs = np.empty(2 * n)
    acc = np.empty((n, 2))
    x_new = np.empty((n, 2))
    v_new = np.empty((n, 2))
    old = np.empty((n, 2))
    touching_before = False
    rec_pos[0] = pos
    rec_vel[0] = vel
    n_rec = 1
    for step in range(1, ip[I_STEPS] + 1):
        old[:, :] = pos
        theta_new = theta + sign * fp[F_OMEGA] * h
        v_new[:, :] = vel
        for _ in range(ip[I_NEWTON_ITERATIONS]):
            for i in range(n):
                for d in range(2):
                    x_new[i, d] = pos[i, d] + h * v_new[i, d] if free[i] else pos[i, d]
            residual_jacobian(x_new, v_new, theta_new, free, inv_mass, link_a, link_b, link_data,
                              ground_params, ground_points, fp, ip, h, acc, jac)  # fmt: skip
            for i in range(n):
                for d in range(2):
                    rhs[2 * i + d] = vel[i, d] + h * acc[i, d] - v_new[i, d] if free[i] else 0.0
            if not solve_in_place(jac, rhs):
                break
            biggest_change = 0.0
            biggest_speed = 0.0
            for i in range(n):
                if free[i]:
                    for d in range(2):
                        v_new[i, d] += rhs[2 * i + d]
                        biggest_change = max(biggest_change, abs(rhs[2 * i + d]))
                        biggest_speed = max(biggest_speed, abs(v_new[i, d]))
            if not biggest_change > tolerance * (1.0 + biggest_speed):  # NaN stops too
                break
        for i in range(n):
            if free[i]:
                for d in range(2):
                    vel[i, d] = v_new[i, d]
                    pos[i, d] += h * v_new[i, d]
        theta = theta_new
        exploded, _, sign, touching_before, n_rec = end_of_step(
            step, pos, vel, old, free, segments, fp, ip, sign, touching_before, rec_pos, rec_vel, n_rec
        )
        if exploded:
            return n_rec, step
    return n_rec, -1
