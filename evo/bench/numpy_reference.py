"""A straightforward numpy-vectorised version of the simulator's semi-implicit Euler step.

The yardstick of ``python -m evo bench``: the physics of :mod:`evo.sim.kernels.euler` as one would write it
in numpy, keeping the kernel's order of floating-point operations so that the two agree to rounding (floor,
gravity, damping and ``max_speed`` only). See docs/performance.md."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evo.model import Creature
from evo.sim.simulate import Trajectory, pack, steps_for
from evo.sim.world import World

__all__ = ["simulate_numpy"]


@dataclass(frozen=True)
class _Links:
    """Per-link constants, (n_links,) each, and the interleaved scatter index (2 * n_links,)."""

    a: np.ndarray
    b: np.ndarray
    rest: np.ndarray
    amp: np.ndarray
    cos_phi: np.ndarray
    sin_phi: np.ndarray
    ends: np.ndarray  # a0, b0, a1, b1, ...: the kernel's summation order


def _check_supported(world: World) -> None:
    unsupported = []
    if world.integrator != "euler":
        unsupported.append(f"integrator = {world.integrator!r}")
    if world.width is not None or world.height is not None:
        unsupported.append("walls or ceiling")
    if world.terrain:
        unsupported.append("terrain")
    if unsupported:
        raise ValueError("the numpy reference step does not support " + ", ".join(unsupported))


def simulate_numpy(creature: Creature, world: World, frames: int, record_every: float = 1) -> Trajectory:
    """Simulate like :func:`evo.sim.simulate` (semi-implicit Euler, floor only), in plain numpy.

    Returns the same :class:`~evo.sim.Trajectory`: positions and velocities (n_records, n_masses, 2)
    recorded every ``record_every`` frames, record 0 being the initial state.
    """
    _check_supported(world)
    if creature.autoreverse:
        raise ValueError("the numpy reference step does not support autoreverse")
    n_steps = steps_for(frames, world.dt)
    stride = steps_for(record_every, world.dt, "record_every")
    if stride <= 0:
        raise ValueError(f"record_every must be > 0 frames, got {record_every}")
    p = pack(creature)
    n = creature.n_masses
    links = _Links(
        a=p.link_a.astype(np.intp),
        b=p.link_b.astype(np.intp),
        rest=p.rest,
        amp=p.amp,
        cos_phi=p.cos_phi,
        sin_phi=p.sin_phi,
        ends=np.stack([p.link_a, p.link_b], axis=1).ravel().astype(np.intp),
    )
    free = p.free.astype(bool)
    all_free = bool(free.all())
    x = p.positions[:, 0].copy()
    y = p.positions[:, 1].copy()
    vx = p.velocities[:, 0].copy()
    vy = p.velocities[:, 1].copy()
    gx, gy = world.gravity_vector
    damping, stiffness, dt = float(world.damping), float(world.stiffness), float(world.dt)
    c_n, c_t = float(world.restitution_normal), float(world.restitution_tangential)
    max_speed2 = np.inf if world.max_speed is None else float(world.max_speed) ** 2
    dtheta = p.wave_sign * p.omega * dt

    n_records = n_steps // stride + 1
    rec_pos = np.empty((n_records, n, 2))
    rec_vel = np.empty((n_records, n, 2))
    rec_pos[0] = p.positions
    rec_vel[0] = p.velocities
    n_rec = 1
    exploded_step = -1
    theta = p.theta0
    pair = np.empty((links.a.shape[0], 2))  # (n_links, 2): +f d at end a, -f d at end b
    for step in range(1, n_steps + 1):
        fx, fy = _spring_forces(x, y, links, math.sin(theta), math.cos(theta), stiffness, n, pair)
        if all_free:
            vx = vx + (fx + gx - damping * vx) * dt
            vy = vy + (fy + gy - damping * vy) * dt
            x = x + vx * dt
            y = y + vy * dt
        else:
            vx[free] = vx[free] + (fx[free] + gx - damping * vx[free]) * dt
            vy[free] = vy[free] + (fy[free] + gy - damping * vy[free]) * dt
            x[free] = x[free] + vx[free] * dt
            y[free] = y[free] + vy[free] * dt
        below = y < 0.0  # floor y = 0 (fixed masses never collide in the kernel)
        if not all_free:
            below &= free
        if below.any():
            y[below] = 0.0
            vy[below] = np.where(vy[below] < 0.0, -c_n * vy[below], vy[below])
            vx[below] = vx[below] * c_t
        theta += dtheta
        speed2 = vx * vx + vy * vy
        if not all_free:
            speed2 = speed2[free]
        if not np.all(speed2 <= max_speed2):  # also catches NaN
            exploded_step = step
            break
        if step % stride == 0:
            rec_pos[n_rec, :, 0] = x
            rec_pos[n_rec, :, 1] = y
            rec_vel[n_rec, :, 0] = vx
            rec_vel[n_rec, :, 1] = vy
            n_rec += 1
    exploded = exploded_step >= 0
    return Trajectory(
        frames=np.arange(n_rec, dtype=np.float64) * stride * world.dt,
        positions=rec_pos[:n_rec],
        velocities=rec_vel[:n_rec],
        exploded=exploded,
        exploded_frame=float(exploded_step * world.dt) if exploded else None,
    )


def _spring_forces(x, y, links: _Links, st, ct, stiffness, n, pair):
    """(fx, fy), each (n_masses,): the elastic force of every link on every mass, per unit mass.

    A link of zero length exerts no force (seed 000 §7.3).
    """
    dx = x[links.b] - x[links.a]
    dy = y[links.b] - y[links.a]
    length = np.sqrt(dx * dx + dy * dy)
    rest_now = links.rest + links.amp * (st * links.cos_phi + ct * links.sin_phi)
    f = np.divide(stiffness * (length - rest_now), length, out=np.zeros_like(length), where=length > 0.0)
    pair[:, 0] = f * dx
    pair[:, 1] = -pair[:, 0]
    fx = np.bincount(links.ends, weights=pair.ravel(), minlength=n)
    pair[:, 0] = f * dy
    pair[:, 1] = -pair[:, 0]
    fy = np.bincount(links.ends, weights=pair.ravel(), minlength=n)
    return fx, fy
