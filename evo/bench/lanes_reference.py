"""A minimal hand-written lanes kernel for the Euler fast path, bit-identical to evo's scalar kernel, to
bench the batched kernel against on the same lanes (``evo bench``'s ``kernel`` section; docs/performance.md).
"""

from __future__ import annotations

import math
from typing import Any

import numba as nb
import numpy as np

from evo.model import Creature
from evo.sim.batch import _max_speed2, _pack
from evo.sim.world import World

__all__ = ["reference_lanes", "run_reference"]


@nb.njit(cache=True, error_model="numpy", nogil=True, boundscheck=False)
def run_reference(x, y, vx, vy, free, slot_a, slot_b, rest, amp, cos_phi, sin_phi, omega, theta0, sign,
                  world, max_speed2, n_steps, stride, records):  # fmt: skip
    """Semi-implicit Euler on (rows, lanes) ``x``, ``y``, ``vx``, ``vy`` in place, each lane as
    :func:`evo.sim.kernels.euler.run_euler` for a world with the floor only (no walls or terrain).

    The plain way: each lane's link ends as flat indices (row x lanes + lane) in ``slot_a``, ``slot_b``
    (n_links, lanes); per step sin θ, cos θ per lane by libm, the forces from gravity, per link a vector
    loop over lanes into a row, scattered onto its ends, then one pass moving every mass. ``world``:
    (gx, gy, damping, stiffness, c_n, c_t, dt). Records (n_records, 2, rows, lanes) every ``stride``
    steps, record 0 the start; a lane that explodes stops being recorded. Returns records written per
    lane (lanes,).
    """
    gx, gy, damping, stiffness = world[0], world[1], world[2], world[3]
    c_n, c_t, dt = world[4], world[5], world[6]
    rows, lanes = x.shape
    n_links = slot_a.shape[0]
    fx = np.empty(rows * lanes)
    fy = np.empty(rows * lanes)
    link_x = np.empty(lanes)
    link_y = np.empty(lanes)
    flat_x = x.reshape(rows * lanes)
    flat_y = y.reshape(rows * lanes)
    theta = theta0.copy()
    st = np.empty(lanes)
    ct = np.empty(lanes)
    speed2 = np.empty(lanes)
    n_rec = np.ones(lanes, dtype=np.int64)
    alive = np.ones(lanes, dtype=np.bool_)
    records[0, 0] = x
    records[0, 1] = y
    written = 1
    for step in range(1, n_steps + 1):
        for lane in range(lanes):
            st[lane] = math.sin(theta[lane])
            ct[lane] = math.cos(theta[lane])
        for i in range(rows * lanes):
            fx[i] = gx
            fy[i] = gy
        for k in range(n_links):
            for lane in range(lanes):
                a = slot_a[k, lane]
                b = slot_b[k, lane]
                dx = flat_x[b] - flat_x[a]
                dy = flat_y[b] - flat_y[a]
                length = math.sqrt(dx * dx + dy * dy)
                wave = st[lane] * cos_phi[k, lane] + ct[lane] * sin_phi[k, lane]
                rest_now = rest[k, lane] + amp[k, lane] * wave
                f = stiffness * (length - rest_now) / length if length > 0.0 else 0.0
                link_x[lane] = f * dx
                link_y[lane] = f * dy
            for lane in range(lanes):
                a = slot_a[k, lane]
                b = slot_b[k, lane]
                fx[a] += link_x[lane]
                fy[a] += link_y[lane]
                fx[b] -= link_x[lane]
                fy[b] -= link_y[lane]
        for lane in range(lanes):
            speed2[lane] = 0.0
        for i in range(rows):
            for lane in range(lanes):
                if free[i, lane]:
                    new_vx = vx[i, lane] + (fx[i * lanes + lane] - damping * vx[i, lane]) * dt
                    new_vy = vy[i, lane] + (fy[i * lanes + lane] - damping * vy[i, lane]) * dt
                    new_x = x[i, lane] + new_vx * dt
                    new_y = y[i, lane] + new_vy * dt
                    if new_y < 0.0:
                        new_y = 0.0
                        if new_vy < 0.0:
                            new_vy = -c_n * new_vy
                        new_vx = c_t * new_vx
                    x[i, lane] = new_x
                    y[i, lane] = new_y
                    vx[i, lane] = new_vx
                    vy[i, lane] = new_vy
                    speed2[lane] += new_vx * new_vx + new_vy * new_vy
        for lane in range(lanes):
            theta[lane] += sign[lane] * omega[lane] * dt
            if alive[lane] and not (speed2[lane] <= max_speed2[lane]):
                for i in range(rows):
                    speed = vx[i, lane] * vx[i, lane] + vy[i, lane] * vy[i, lane]
                    if free[i, lane] and not (speed <= max_speed2[lane]):
                        alive[lane] = False
                if not alive[lane]:
                    for i in range(rows):
                        x[i, lane] = y[i, lane] = vx[i, lane] = vy[i, lane] = 0.0
        if step % stride == 0:
            records[written, 0] = x
            records[written, 1] = y
            written += 1
            for lane in range(lanes):
                n_rec[lane] += alive[lane]
    return n_rec


def reference_lanes(
    creatures: list[Creature], world: World, n_steps: int, stride: int
) -> tuple[dict[str, Any], np.ndarray]:
    """(the arguments of :func:`run_reference`, the (rows, lanes) mass of each row) for ``creatures`` in
    ``world`` (Euler, soda contact, the floor only), packed as :mod:`evo.sim.batch` packs the batched
    kernel's lanes (the same rows), with a fresh records buffer: ``run_reference(**args)`` runs it."""
    p = _pack(creatures, world, general=False)
    rows, lanes = p["free"].shape
    slots = np.arange(lanes, dtype=np.int64)
    gx, gy = world.gravity_vector
    physics = [gx, gy, world.damping, world.stiffness, world.restitution_normal, world.restitution_tangential]
    args = {
        "x": p["pos"][0].copy(),
        "y": p["pos"][1].copy(),
        "vx": p["vel"][0].copy(),
        "vy": p["vel"][1].copy(),
        "free": p["free"],
        "slot_a": p["link_a"].astype(np.int64) * lanes + slots,
        "slot_b": p["link_b"].astype(np.int64) * lanes + slots,
        "rest": p["rest"],
        "amp": p["amp"],
        "cos_phi": p["cos_phi"],
        "sin_phi": p["sin_phi"],
        "omega": p["omega"],
        "theta0": p["theta0"],
        "sign": p["sign"],
        "world": np.array([*physics, world.dt], dtype=np.float64),
        "max_speed2": _max_speed2(world, creatures),
        "n_steps": n_steps,
        "stride": stride,
        "records": np.empty((n_steps // stride + 1, 2, rows, lanes)),
    }
    return args, p["mass_of_row"]
