"""``simulate``: run a creature in a world and get its recorded trajectory back.

This is the Python face of the numba kernel: it checks and packs arrays, allocates the record buffers
and calls :func:`evo.sim._kernel.run` once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evo.errors import EvoInputError
from evo.model import Creature
from evo.sim import _kernel
from evo.sim.world import World

__all__ = ["Trajectory", "PackedCreature", "pack", "simulate", "steps_for"]


@dataclass(frozen=True)
class Trajectory:
    """What a simulation recorded.

    Attributes:
        frames: (n_records,) frame number of each record (frame 0 is the initial state).
        positions: (n_records, n_masses, 2) px.
        velocities: (n_records, n_masses, 2) px/frame.
        exploded: True if the run stopped early (speed above ``max_speed``, or NaN/inf).
        exploded_frame: the frame at which it stopped, or None.
        wave_sign: +1 or -1, the direction the wave was running at the end.
    """

    frames: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    exploded: bool
    exploded_frame: float | None

    @property
    def centroids(self) -> np.ndarray:
        """(n_records, 2) mean position of all masses, px."""
        return self.positions.mean(axis=1)


@dataclass(frozen=True)
class PackedCreature:
    """Kernel-ready arrays of a creature (see :mod:`evo.sim._kernel`)."""

    positions: np.ndarray
    velocities: np.ndarray
    free: np.ndarray  # uint8
    link_a: np.ndarray  # uint32
    link_b: np.ndarray  # uint32
    rest: np.ndarray
    amp: np.ndarray  # rest * alpha * beta
    cos_phi: np.ndarray
    sin_phi: np.ndarray
    omega: float
    theta0: float
    wave_sign: float
    autoreverse: bool


def pack(creature: Creature) -> PackedCreature:
    """Convert a creature to the contiguous typed arrays the kernel takes."""
    rest = np.ascontiguousarray(creature.rest, dtype=np.float64)
    return PackedCreature(
        positions=np.array(creature.positions, dtype=np.float64, order="C"),
        velocities=np.array(creature.velocities, dtype=np.float64, order="C"),
        free=np.ascontiguousarray(~creature.fixed, dtype=np.uint8),
        link_a=np.ascontiguousarray(creature.link_a, dtype=np.uint32),
        link_b=np.ascontiguousarray(creature.link_b, dtype=np.uint32),
        rest=rest,
        amp=rest * creature.alpha * creature.beta,
        cos_phi=np.cos(creature.phi),
        sin_phi=np.sin(creature.phi),
        omega=float(creature.omega),
        theta0=float(creature.wave_phase),
        wave_sign=-1.0 if creature.wave_reverse else 1.0,
        autoreverse=bool(creature.autoreverse),
    )


def steps_for(frames: float, dt: float, what: str = "frames") -> int:
    """Number of steps of ``dt`` frames in ``frames`` frames; it must be a whole number."""
    steps = frames / dt
    whole = round(steps)
    if whole < 0 or not math.isclose(steps, whole, rel_tol=0, abs_tol=1e-9 * max(1.0, steps)):
        raise EvoInputError(f"{what} = {frames} is not a whole number of steps of dt = {dt} frames")
    return int(whole)


def simulate(creature: Creature, world: World, frames: int, record_every: float = 1) -> Trajectory:
    """Simulate ``creature`` in ``world`` for ``frames`` frames, recording every ``record_every`` frames.

    Deterministic: the same inputs give a bit-identical trajectory.
    """
    n_steps = steps_for(frames, world.dt)
    stride = steps_for(record_every, world.dt, "record_every")
    if stride <= 0:
        raise EvoInputError(f"record_every must be > 0 frames, got {record_every}")
    p = pack(creature)
    n = creature.n_masses
    n_records = n_steps // stride + 1
    rec_pos = np.empty((n_records, n, 2))
    rec_vel = np.empty((n_records, n, 2))
    gx, gy = world.gravity_vector
    segments = np.array(world.segments(), dtype=np.float64).reshape(-1, 4)
    huge = _kernel.HUGE
    max_speed2 = huge if world.max_speed is None else world.max_speed**2
    kernel = _kernel.run_rk4 if world.integrator == "rk4" else _kernel.run_euler
    n_rec, exploded_step = kernel(
        p.positions, p.velocities, p.free, p.link_a, p.link_b, p.rest, p.amp, p.cos_phi, p.sin_phi,
        p.omega, p.theta0, p.wave_sign, p.autoreverse,
        gx, gy, float(world.damping), float(world.stiffness),
        float(world.restitution_normal), float(world.restitution_tangential), float(world.dt),
        n_steps, stride,
        0.0 if world.width is not None else -huge,
        float(world.width) if world.width is not None else huge,
        float(world.height) if world.height is not None else huge,
        segments, max_speed2, rec_pos, rec_vel,
    )  # fmt: skip
    exploded = exploded_step >= 0
    return Trajectory(
        frames=np.arange(n_rec, dtype=np.float64) * stride * world.dt,
        positions=rec_pos[:n_rec],
        velocities=rec_vel[:n_rec],
        exploded=bool(exploded),
        exploded_frame=float(exploded_step * world.dt) if exploded else None,
    )
