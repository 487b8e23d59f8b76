"""numba helpers shared by the general kernels: forces, the penalty ground, soda contacts.

The general kernels (:mod:`.explicit`, :mod:`.implicit`, :mod:`.psm`) all take the same arrays, indexed
by the ``L_*``, ``F_*`` and ``I_*`` constants below. The forces (seed 002 §1.1–1.2) and the array layout:
docs/integrators.md, "The forces" and "For developers".
"""

from __future__ import annotations

import math

import numba as nb

from evo.sim.ground import KIND_FLAT, KIND_HILLS, KIND_SLOPE
from evo.sim.kernels.euler import _JIT, HUGE, _segments, _too_fast, _walls

# the parameter arrays' named indices (fp float64, ip int64), shared by every kernel
from evo.sim.kernels.params import (  # noqa: F401 (the names kernels import from here)
    F_CN,
    F_CT,
    F_DAMPING,
    F_DT,
    F_GROUND_K,
    F_GX,
    F_GY,
    F_MAX_SPEED2,
    F_MU,
    F_NEWTON_TOL,
    F_OMEGA,
    F_SIGN,
    F_SLIP,
    F_STIFFNESS,
    F_THETA0,
    F_XMAX,
    F_XMIN,
    F_YMAX,
    I_AUTOREVERSE,
    I_GROUND,
    I_METHOD,
    I_NEWTON_ITERATIONS,
    I_PENALTY,
    I_PSM_ORDER,
    I_STEPS,
    I_STRIDE,
    N_FLOAT_PARAMS,
    N_INT_PARAMS,
)

# columns of link_data
L_REST, L_AMP, L_COS_PHI, L_SIN_PHI, L_K, L_D = range(6)
N_LINK_COLUMNS = 6


@nb.njit(**_JIT)
def _polyline_shape(points, x, y):
    """Signed distance to a polyline (positive on the left of its direction) and its derivatives.

    Returns (H, Hx, Hy, Hxx, Hxy, Hyy). Nearest point inside a segment: H is linear there. Nearest point
    a vertex: H = ±|p − v|, whose Hessian is ±(I − u uᵀ)/|p − v|; the side is that of the mean of the
    two segments' left normals.
    """
    best = math.inf
    best_s = -1
    best_t = 0.0
    for s in range(points.shape[0] - 1):
        ax = points[s, 0]
        ay = points[s, 1]
        ex = points[s + 1, 0] - ax
        ey = points[s + 1, 1] - ay
        len2 = ex * ex + ey * ey
        if len2 == 0.0:
            continue
        t = ((x - ax) * ex + (y - ay) * ey) / len2
        t = min(1.0, max(0.0, t))
        dx = x - (ax + t * ex)
        dy = y - (ay + t * ey)
        d2 = dx * dx + dy * dy
        if d2 < best:
            best = d2
            best_s = s
            best_t = t
    if best_s < 0:
        return y, 0.0, 1.0, 0.0, 0.0, 0.0
    ex = points[best_s + 1, 0] - points[best_s, 0]
    ey = points[best_s + 1, 1] - points[best_s, 1]
    seg_len = math.sqrt(ex * ex + ey * ey)
    nx = -ey / seg_len
    ny = ex / seg_len
    if 0.0 < best_t < 1.0:
        h = (x - points[best_s, 0]) * nx + (y - points[best_s, 1]) * ny
        return h, nx, ny, 0.0, 0.0, 0.0
    v = best_s if best_t == 0.0 else best_s + 1
    # the other segment at vertex v (if any) adds its left normal to the side test
    other = v - 1 if best_t == 0.0 else v
    px = nx
    py = ny
    if 0 <= other < points.shape[0] - 1:
        fx = points[other + 1, 0] - points[other, 0]
        fy = points[other + 1, 1] - points[other, 1]
        f_len = math.sqrt(fx * fx + fy * fy)
        if f_len > 0.0:
            px += -fy / f_len
            py += fx / f_len
    dx = x - points[v, 0]
    dy = y - points[v, 1]
    dist = math.sqrt(dx * dx + dy * dy)
    side = 1.0 if dx * px + dy * py >= 0.0 else -1.0
    if dist == 0.0:
        return 0.0, nx, ny, 0.0, 0.0, 0.0
    ux = dx / dist
    uy = dy / dist
    c = side / dist
    return side * dist, side * ux, side * uy, c * (1.0 - ux * ux), -c * ux * uy, c * (1.0 - uy * uy)


@nb.njit(**_JIT)
def ground_shape(kind, params, points, x, y):
    """(H, Hx, Hy, Hxx, Hxy, Hyy) of the ground at (x, y) px; H > 0 is the air."""
    if kind == KIND_FLAT:
        return y, 0.0, 1.0, 0.0, 0.0, 0.0
    if kind == KIND_SLOPE:
        return params[1] * y - params[0] * x, -params[0], params[1], 0.0, 0.0, 0.0
    if kind == KIND_HILLS:
        a = params[0]
        k = params[1]
        s = math.sin(k * x)
        c = math.cos(k * x)
        return y - a * (1.0 - c), -a * k * s, 1.0, -a * k * k * c, 0.0, 0.0
    return _polyline_shape(points, x, y)


@nb.njit(**_JIT)
def ground_force(kind, params, points, x, y, vx, vy, stiffness, mu, slip):
    """(Fx, Fy): the penalty force and friction of the ground on a point at (x, y) moving at (vx, vy)."""
    h, hx, hy, _, _, _ = ground_shape(kind, params, points, x, y)
    g2 = hx * hx + hy * hy
    if h >= 0.0 or g2 == 0.0:
        return 0.0, 0.0
    g = math.sqrt(g2)
    normal = -stiffness * h / g  # ‖F_n‖ > 0
    tx = hy / g
    ty = -hx / g
    friction = -mu * normal * math.tanh((vx * tx + vy * ty) / slip)
    return normal * hx / g + friction * tx, normal * hy / g + friction * ty


@nb.njit(**_JIT)
def ground_force_jacobian(kind, params, points, x, y, vx, vy, stiffness, mu, slip):
    """The ground force and its exact derivatives: (Fx, Fy, dF/dx as xx, xy, yx, yy, dF/dv as xx, xy, yx, yy).

    With n = ∇H/|∇H|, τ = (n_y, −n_x), N = −S·H/|∇H| and u = v·τ/ε, the friction −μ·N·tanh(u)·τ changes
    with position through N, and through the turning of the tangent along a curved ground:
    ∂τ/∂x = −n·mᵀ with m = ∇²H·τ/|∇H|.
    """
    h, hx, hy, hxx, hxy, hyy = ground_shape(kind, params, points, x, y)
    g2 = hx * hx + hy * hy
    if h >= 0.0 or g2 == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    g = math.sqrt(g2)
    normal = -stiffness * h / g
    tx = hy / g
    ty = -hx / g
    vt = (vx * tx + vy * ty) / slip
    th = math.tanh(vt)
    friction = -mu * normal * th
    fx = normal * hx / g + friction * tx
    fy = normal * hy / g + friction * ty
    # Hessian times gradient
    qx = hxx * hx + hxy * hy
    qy = hxy * hx + hyy * hy
    # normal force F_n = -S H g / |g|^2
    s = -stiffness
    jxx = s * (hx * hx / g2 + h * (hxx / g2 - 2.0 * hx * qx / (g2 * g2)))
    jxy = s * (hx * hy / g2 + h * (hxy / g2 - 2.0 * hx * qy / (g2 * g2)))
    jyx = s * (hy * hx / g2 + h * (hxy / g2 - 2.0 * hy * qx / (g2 * g2)))
    jyy = s * (hy * hy / g2 + h * (hyy / g2 - 2.0 * hy * qy / (g2 * g2)))
    # friction: -mu N tanh(v.t / eps) t with N = -S H / |g|
    dnx = s * (hx / g - h * qx / (g2 * g))
    dny = s * (hy / g - h * qy / (g2 * g))
    nx = hx / g
    ny = hy / g
    mx = (hxx * tx + hxy * ty) / g
    my = (hxy * tx + hyy * ty) / g
    c = -mu * normal * (1.0 - th * th) / slip
    vn = vx * nx + vy * ny
    # -mu [tanh(u) τ ∇Nᵀ − N tanh(u) n mᵀ] + c τ (vᵀ ∂τ/∂x) with vᵀ ∂τ/∂x = −(v·n) mᵀ
    jxx += -mu * th * tx * dnx + mu * normal * th * nx * mx - c * vn * tx * mx
    jxy += -mu * th * tx * dny + mu * normal * th * nx * my - c * vn * tx * my
    jyx += -mu * th * ty * dnx + mu * normal * th * ny * mx - c * vn * ty * mx
    jyy += -mu * th * ty * dny + mu * normal * th * ny * my - c * vn * ty * my
    return fx, fy, jxx, jxy, jyx, jyy, c * tx * tx, c * tx * ty, c * ty * tx, c * ty * ty


@nb.njit(**_JIT)
def accelerations(pos, vel, theta, free, inv_mass, link_a, link_b, link_data, ground_params, ground_points,
                  fp, ip, acc):  # fmt: skip
    """acc = g − f̄·v + (link forces + ground force) / M on free masses, 0 on fixed ones; θ in rad."""
    st = math.sin(theta)
    ct = math.cos(theta)
    acc[:, :] = 0.0
    for k in range(link_a.shape[0]):
        a = link_a[k]
        b = link_b[k]
        dx = pos[b, 0] - pos[a, 0]
        dy = pos[b, 1] - pos[a, 1]
        length = math.sqrt(dx * dx + dy * dy)
        if length == 0.0:
            continue
        rest_now = link_data[k, L_REST] + link_data[k, L_AMP] * (
            st * link_data[k, L_COS_PHI] + ct * link_data[k, L_SIN_PHI]
        )
        f = link_data[k, L_K] * (length - rest_now) / length
        dashpot = link_data[k, L_D]
        if dashpot != 0.0:
            f += dashpot * (dx * (vel[b, 0] - vel[a, 0]) + dy * (vel[b, 1] - vel[a, 1])) / (length * length)
        acc[a, 0] += f * dx
        acc[a, 1] += f * dy
        acc[b, 0] -= f * dx
        acc[b, 1] -= f * dy
    penalty = ip[I_PENALTY] != 0
    kind = ip[I_GROUND]
    for i in range(pos.shape[0]):
        if free[i]:
            fx = acc[i, 0]
            fy = acc[i, 1]
            if penalty:
                gx, gy = ground_force(kind, ground_params, ground_points, pos[i, 0], pos[i, 1],
                                      vel[i, 0], vel[i, 1], fp[F_GROUND_K], fp[F_MU], fp[F_SLIP])  # fmt: skip
                fx += gx
                fy += gy
            acc[i, 0] = fp[F_GX] - fp[F_DAMPING] * vel[i, 0] + inv_mass[i] * fx
            acc[i, 1] = fp[F_GY] - fp[F_DAMPING] * vel[i, 1] + inv_mass[i] * fy
        else:
            acc[i, 0] = 0.0
            acc[i, 1] = 0.0


@nb.njit(**_JIT)
def soda_contacts(pos, vel, old, free, segments, fp, ip):
    """Reflect every free mass off the box and the segments it crossed since ``old`` (n, 2) positions.

    The floor y = 0 is left out under penalty contact (the ground does its work). Returns
    (a side wall was touched, anything was changed).
    """
    y_min = -HUGE if ip[I_PENALTY] != 0 else 0.0
    touched = False
    changed = False
    has_segments = segments.shape[0] > 0
    up = 1.0 if fp[F_GY] < 0.0 else (-1.0 if fp[F_GY] > 0.0 else 0.0)  # against gravity, for _segments
    for i in range(pos.shape[0]):
        if free[i]:
            x = pos[i, 0]
            y = pos[i, 1]
            if _walls(i, pos, vel, y_min, fp[F_XMIN], fp[F_XMAX], fp[F_YMAX], fp[F_CN], fp[F_CT]):
                touched = True
            if has_segments:
                _segments(i, pos, vel, old[i, 0], old[i, 1], segments, fp[F_CN], fp[F_CT], up)
            if pos[i, 0] != x or pos[i, 1] != y:
                changed = True
    return touched, changed


@nb.njit(**_JIT)
def end_of_step(step, pos, vel, old, free, segments, fp, ip, sign, touching_before, rec_pos, rec_vel, n_rec):
    """What every general kernel does after a step: soda contacts, the explosion check, autoreverse
    (the wave flips once per side-wall contact, when it starts) and the record every ``stride`` steps.

    Returns (exploded, anything changed by a contact, wave sign, touching a side wall, records written).
    """
    touched, changed = soda_contacts(pos, vel, old, free, segments, fp, ip)
    if _too_fast(vel, free, fp[F_MAX_SPEED2]):
        return True, changed, sign, touched, n_rec
    if ip[I_AUTOREVERSE] != 0 and touched and not touching_before:
        sign = -sign
    if step % ip[I_STRIDE] == 0:
        rec_pos[n_rec] = pos
        rec_vel[n_rec] = vel
        n_rec += 1
    return False, changed, sign, touched, n_rec
