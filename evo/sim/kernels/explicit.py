"""The explicit one-step integrators, in one numba kernel: :func:`run_explicit`.

``euler`` (semi-implicit), ``explicit-euler``, ``finite-difference`` (seed 000's scheme 9.13, centred),
``midpoint`` and ``rk4``, each step followed by the soda collisions. The schemes and their orders:
docs/integrators.md, "Choosing an integrator" and "The finite-difference scheme 9.13".
"""

from __future__ import annotations

import numba as nb
import numpy as np

from evo.sim.kernels.euler import _JIT
from evo.sim.kernels.forces import (
    F_DT,
    F_OMEGA,
    F_SIGN,
    F_THETA0,
    I_METHOD,
    I_STEPS,
    accelerations,
    end_of_step,
)

METHODS = {"euler": 0, "explicit-euler": 1, "finite-difference": 2, "midpoint": 3, "rk4": 4}
SEMI_IMPLICIT, EXPLICIT, FINITE_DIFFERENCE, MIDPOINT, RK4 = range(5)


@nb.njit(**_JIT)
def _stage(p0, v0, free, dx, dv, h, pt, vt):
    """pt = p0 + h·dx, vt = v0 + h·dv on free masses; fixed masses stay where they are, at rest."""
    for i in range(p0.shape[0]):
        if free[i]:
            for d in range(2):
                pt[i, d] = p0[i, d] + h * dx[i, d]
                vt[i, d] = v0[i, d] + h * dv[i, d]
        else:
            pt[i, 0] = p0[i, 0]
            pt[i, 1] = p0[i, 1]
            vt[i, 0] = 0.0
            vt[i, 1] = 0.0


@nb.njit(**_JIT)
def run_explicit(pos, vel, free, inv_mass, link_a, link_b, link_data, segments, ground_params, ground_points,
                 fp, ip, rec_pos, rec_vel):  # fmt: skip
    """Run ``ip[I_STEPS]`` steps of the method ``ip[I_METHOD]`` (see :data:`METHODS`).

    ``pos`` and ``vel`` are updated in place; records every ``ip[I_STRIDE]`` steps, record 0 the
    initial state. Returns (records written, step at which the run exploded or -1).
    """
    method = ip[I_METHOD]
    n = pos.shape[0]
    h = fp[F_DT]
    theta = fp[F_THETA0]
    sign = fp[F_SIGN]
    buf = np.zeros((11, n, 2))
    acc, acc2, p0, v0, pt, vt, k2, k3, k4, vs, old = (buf[0], buf[1], buf[2], buf[3], buf[4], buf[5],
                                                      buf[6], buf[7], buf[8], buf[9], buf[10])  # fmt: skip
    have_acc = False  # finite-difference: acc holds a(x, v) at the current state
    touching_before = False
    rec_pos[0] = pos
    rec_vel[0] = vel
    n_rec = 1
    for step in range(1, ip[I_STEPS] + 1):
        old[:, :] = pos
        dtheta = sign * fp[F_OMEGA] * h
        if method <= EXPLICIT:  # SEMI_IMPLICIT or EXPLICIT
            accelerations(pos, vel, theta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, acc)  # fmt: skip
            for i in range(n):
                if free[i]:
                    for d in range(2):
                        v_new = vel[i, d] + h * acc[i, d]
                        pos[i, d] += h * (v_new if method == SEMI_IMPLICIT else vel[i, d])
                        vel[i, d] = v_new
        elif method == FINITE_DIFFERENCE:
            if not have_acc:
                accelerations(pos, vel, theta, free, inv_mass, link_a, link_b, link_data,
                              ground_params, ground_points, fp, ip, acc)  # fmt: skip
            for i in range(n):
                if free[i]:
                    for d in range(2):
                        pos[i, d] += h * vel[i, d] + 0.5 * h * h * acc[i, d]
                        vs[i, d] = vel[i, d] + h * acc[i, d]
                else:
                    vs[i, 0] = 0.0
                    vs[i, 1] = 0.0
            accelerations(pos, vs, theta + dtheta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, acc2)  # fmt: skip
            for i in range(n):
                if free[i]:
                    for d in range(2):
                        vel[i, d] += 0.5 * h * (acc[i, d] + acc2[i, d])
            acc[:, :] = acc2
            have_acc = True
        elif method == MIDPOINT:
            p0[:, :] = pos
            v0[:, :] = vel
            accelerations(p0, v0, theta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, acc)  # fmt: skip
            _stage(p0, v0, free, v0, acc, 0.5 * h, pt, vt)
            accelerations(pt, vt, theta + 0.5 * dtheta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, acc2)  # fmt: skip
            _stage(p0, v0, free, vt, acc2, h, pos, vs)
            for i in range(n):
                if free[i]:
                    vel[i, 0] = vs[i, 0]
                    vel[i, 1] = vs[i, 1]
        else:  # RK4
            p0[:, :] = pos
            v0[:, :] = vel
            accelerations(p0, v0, theta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, acc)  # fmt: skip
            _stage(p0, v0, free, v0, acc, 0.5 * h, pt, vt)
            vs[:, :] = vt  # v at stage 2
            accelerations(pt, vt, theta + 0.5 * dtheta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, k2)  # fmt: skip
            _stage(p0, v0, free, vs, k2, 0.5 * h, pt, vt)
            acc2[:, :] = vt  # v at stage 3
            accelerations(pt, vt, theta + 0.5 * dtheta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, k3)  # fmt: skip
            _stage(p0, v0, free, acc2, k3, h, pt, vt)
            accelerations(pt, vt, theta + dtheta, free, inv_mass, link_a, link_b, link_data,
                          ground_params, ground_points, fp, ip, k4)  # fmt: skip
            w = h / 6.0
            for i in range(n):
                if free[i]:
                    for d in range(2):
                        pos[i, d] = p0[i, d] + w * (v0[i, d] + 2.0 * vs[i, d] + 2.0 * acc2[i, d] + vt[i, d])
                        vel[i, d] = v0[i, d] + w * (acc[i, d] + 2.0 * k2[i, d] + 2.0 * k3[i, d] + k4[i, d])
        theta += dtheta
        exploded, changed, sign, touching_before, n_rec = end_of_step(
            step, pos, vel, old, free, segments, fp, ip, sign, touching_before, rec_pos, rec_vel, n_rec
        )
        if exploded:
            return n_rec, step
        if changed:
            have_acc = False
    return n_rec, -1
