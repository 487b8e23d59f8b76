"""``simulate``: run a creature in a world and get its recorded trajectory back.

The Python face of the numba kernels: it checks and packs arrays, allocates the record buffers and calls
one kernel once (which kernel for which world: docs/integrators.md, "For developers").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evo.errors import EvoInputError
from evo.model import Creature
from evo.schema import shown
from evo.sim.kernels import euler as _kernel
from evo.sim.kernels import explicit as _explicit
from evo.sim.kernels import forces as _forces
from evo.sim.kernels import implicit as _implicit
from evo.sim.kernels import psm as _psm
from evo.sim.limits import Limits, check_size
from evo.sim.world import World

__all__ = [
    "DEFAULT_FRAMES",
    "DEFAULT_MAX_SPEED",
    "PackedCreature",
    "Trajectory",
    "boundaries",
    "centroids_of",
    "kernel_params",
    "pack",
    "simulate",
    "speed_limit",
    "steps_for",
    "tiny_creature",
    "warm_up",
]

# px/frame: the explosion bound of a world without ``max_speed`` (or the creature's size per frame, when
# larger). Sane creatures stay below ~100 px/frame (the shipped genomes below 30, evolved walkers below
# 65); blown-up runs diverge to inf or NaN, or saturate at 380-20000 px/frame against the floor and walls
# (docs/simulator.md, "Blow-ups").
DEFAULT_MAX_SPEED = 200.0


@dataclass(frozen=True)
class Trajectory:
    """What a simulation recorded.

    Attributes:
        frames: (n_records,) frame number of each record (frame 0 is the initial state).
        positions: (n_records, n_masses, 2) px.
        velocities: (n_records, n_masses, 2) px/frame.
        exploded: True if the run stopped early (a speed above :func:`speed_limit`, or NaN/inf).
        exploded_frame: the frame at which it stopped, or None.
    """

    frames: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    exploded: bool
    exploded_frame: float | None

    @property
    def centroids(self) -> np.ndarray:
        """(n_records, 2) mean position of all masses, px."""
        return centroids_of(self.positions)


def centroids_of(positions: np.ndarray) -> np.ndarray:
    """(records, 2) mean of (records, masses, 2) positions over the masses.

    ``einsum`` rather than ``positions.mean(axis=1)``, which costs ~5x more for these shapes (a tenth of
    an evaluation's time), and rather than a BLAS product, whose threads stall on a busy machine.
    """
    n = positions.shape[1]
    return np.einsum("rmk->rk", positions) / n if n else positions[:, 0]


@dataclass(frozen=True)
class PackedCreature:
    """Kernel-ready arrays of a creature (see :mod:`evo.sim.kernels.euler`)."""

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
    inv_mass: np.ndarray  # (n_masses,) 1/M
    link_data: np.ndarray  # (n_links, 6): rest, amp, cos_phi, sin_phi, stiffness multiplier, dashpot


def pack(creature: Creature) -> PackedCreature:
    """Convert a creature to the contiguous typed arrays the kernel takes."""
    rest = np.ascontiguousarray(creature.rest, dtype=np.float64)
    amp = rest * creature.alpha * creature.beta
    cos_phi, sin_phi = np.cos(creature.phi), np.sin(creature.phi)
    link_data = np.stack([rest, amp, cos_phi, sin_phi, creature.stiffness, creature.dashpot], axis=1)
    velocities = np.array(creature.velocities, dtype=np.float64, order="C")
    velocities[creature.fixed] = 0.0  # fixed masses never move, whatever velocity a file gives them
    return PackedCreature(
        positions=np.array(creature.positions, dtype=np.float64, order="C"),
        velocities=velocities,
        free=np.ascontiguousarray(~creature.fixed, dtype=np.uint8),
        link_a=np.ascontiguousarray(creature.link_a, dtype=np.uint32),
        link_b=np.ascontiguousarray(creature.link_b, dtype=np.uint32),
        rest=rest,
        amp=amp,
        cos_phi=cos_phi,
        sin_phi=sin_phi,
        omega=float(creature.omega),
        theta0=float(creature.wave_phase),
        wave_sign=-1.0 if creature.wave_reverse else 1.0,
        autoreverse=bool(creature.autoreverse),
        inv_mass=np.ascontiguousarray(1.0 / creature.mass, dtype=np.float64),
        link_data=np.ascontiguousarray(link_data.reshape(-1, _forces.N_LINK_COLUMNS), dtype=np.float64),
    )


def _general_kernel(integrator: str):
    """(kernel, method code) of the general kernel for an integrator of :data:`evo.sim.world.INTEGRATORS`."""
    if integrator in _explicit.METHODS:
        return _explicit.run_explicit, _explicit.METHODS[integrator]
    if integrator == "backward-euler":
        return _implicit.run_backward_euler, 0
    if integrator == "psm":
        return _psm.run_psm, 0
    raise EvoInputError(f"no kernel for integrator {integrator!r}")


DEFAULT_FRAMES = 3000  # frames a creature is simulated for unless told otherwise (a run, evo simulate)

# The most steps one simulation may take: beyond 2**53 a step count is no longer exact as a float.
MAX_STEPS = 2**53


def steps_for(frames: float, dt: float, what: str = "frames") -> int:
    """Number of steps of ``dt`` frames in ``frames`` frames; it must be a whole number."""
    try:
        steps = frames / dt
    except OverflowError:  # an integer beyond the float range
        steps = math.inf
    if not (math.isfinite(steps) and abs(steps) <= MAX_STEPS):
        raise EvoInputError(
            f"{what} = {shown(frames)} takes {steps:g} steps of dt = {dt} frames; at most {MAX_STEPS:g} "
            "are possible"
        )
    whole = round(steps)
    if whole < 0 or not math.isclose(steps, whole, rel_tol=0, abs_tol=1e-9 * max(1.0, steps)):
        raise EvoInputError(f"{what} = {frames} is not a whole number of steps of dt = {dt} frames")
    return int(whole)


def boundaries(world: World) -> tuple[np.ndarray, float, float, float]:
    """What the kernels take for the world's surfaces besides the floor: the segments ((k, 4) float64:
    terrain, and a soda ground's polyline) and the box (x_min, x_max, y_max; +-HUGE where open).

    Args:
        world: the world.

    Returns:
        ``(segments, x_min, x_max, y_max)``.
    """
    segment_list = world.segments()
    if world.contact == "soda":
        line = world.ground.soda_polyline()
        segment_list += [(*a, *b) for a, b in zip(line[:-1], line[1:], strict=False)]
    segments = np.array(segment_list, dtype=np.float64).reshape(-1, 4)
    huge = _kernel.HUGE
    x_min = 0.0 if world.width is not None else -huge
    x_max = float(world.width) if world.width is not None else huge
    y_max = float(world.height) if world.height is not None else huge
    return segments, x_min, x_max, y_max


def kernel_params(world: World, n_steps: int, stride: int) -> tuple[np.ndarray, ...]:
    """What every kernel reads of ``world``, built once per call: ``(segments, ground_params,
    ground_points, fp, ip)``, the float64 ``fp`` and int64 ``ip`` with the named indices of
    :mod:`evo.sim.kernels.params` (a creature's wave, autoreverse and speed limit, and the method, are the
    caller's to set)."""
    segments, x_min, x_max, y_max = boundaries(world)
    kind, ground_params, ground_points = world.ground.kernel_arrays()
    gx, gy = world.gravity_vector
    fp = np.zeros(_forces.N_FLOAT_PARAMS)
    fp[_forces.F_GX], fp[_forces.F_GY], fp[_forces.F_DAMPING] = gx, gy, world.damping
    fp[_forces.F_CN], fp[_forces.F_CT] = world.restitution_normal, world.restitution_tangential
    fp[_forces.F_DT], fp[_forces.F_STIFFNESS] = world.dt, world.stiffness
    fp[_forces.F_XMIN], fp[_forces.F_XMAX], fp[_forces.F_YMAX] = x_min, x_max, y_max
    fp[_forces.F_GROUND_K], fp[_forces.F_MU] = world.ground_stiffness, world.ground_friction
    fp[_forces.F_SLIP], fp[_forces.F_NEWTON_TOL] = world.ground_slip_speed, world.newton_tolerance
    ip = np.zeros(_forces.N_INT_PARAMS, dtype=np.int64)
    ip[_forces.I_STEPS], ip[_forces.I_STRIDE] = n_steps, stride
    ip[_forces.I_PENALTY], ip[_forces.I_GROUND] = world.contact == "penalty", kind
    ip[_forces.I_PSM_ORDER], ip[_forces.I_NEWTON_ITERATIONS] = world.psm_order, world.newton_iterations
    return segments, ground_params, ground_points, fp, ip


def speed_limit(world: World, positions: np.ndarray | None = None) -> float:
    """The speed (px/frame) above which a run counts as exploded: ``world.max_speed``, else the larger of
    :data:`DEFAULT_MAX_SPEED` and the size of a body starting at ``positions`` (n, 2), the diagonal of
    their bounding box, per frame: no mass of a sane creature crosses its whole body in one frame."""
    if world.max_speed is not None:
        return min(float(world.max_speed), 1e150)  # squared by the kernels: 1e300 would overflow
    if positions is None or len(positions) == 0:
        return DEFAULT_MAX_SPEED
    extent = np.ptp(np.asarray(positions, dtype=np.float64), axis=0)
    size = math.hypot(float(extent[0]), float(extent[1]))
    # squared by the kernels (and by simulate): a body 1e160 px wide explodes, it does not overflow
    return min(max(DEFAULT_MAX_SPEED, size), 1e150) if math.isfinite(size) else DEFAULT_MAX_SPEED


def simulate(
    creature: Creature,
    world: World | None = None,
    frames: float = DEFAULT_FRAMES,
    record_every: float = 1,
    *,
    limits: Limits | None = None,
) -> Trajectory:
    """Simulate ``creature`` in ``world`` for ``frames`` frames, recording every ``record_every`` frames.

    Args:
        creature: the creature (its initial positions and velocities are the state at frame 0).
        world: the world; None: :meth:`World.from_model` (the defaults with the creature's own ``world``).
        frames: frames to simulate (a whole number of steps of ``world.dt``).
        record_every: frames between records (a whole number of steps); record 0 is frame 0.
        limits: the most masses, links and record memory (:class:`~evo.sim.limits.Limits`); None: the
            defaults, or the environment's ``EVO_MAX_MASSES`` and ``EVO_MAX_LINKS``.

    Returns:
        The :class:`Trajectory` (numpy arrays). Deterministic: the same inputs give a bit-identical one.
        A free mass faster than :func:`speed_limit` of the world and the creature's starting positions
        (or a NaN/inf) stops the run, flagged exploded with its frame.

    Raises:
        EvoInputError: frames or record_every that are not whole numbers of steps, a creature over the
            limits, or records that do not fit in free memory (checked before anything is allocated).
    """
    if world is None:
        world = World.from_model(creature)
    n_steps = steps_for(frames, world.dt)
    stride = steps_for(record_every, world.dt, "record_every")
    if stride <= 0:
        raise EvoInputError(f"record_every must be > 0 frames, got {record_every}")
    n = creature.n_masses
    n_records = n_steps // stride + 1
    check_size(n, creature.n_links, n_records, limits or Limits.from_environment())
    p = pack(creature)
    try:
        rec_pos = np.empty((n_records, n, 2))
        rec_vel = np.empty((n_records, n, 2))
    except MemoryError:
        raise EvoInputError(
            f"{n_records} records of {n} masses do not fit in memory; record less often (record_every)"
        ) from None
    segments, ground_params, ground_points, fp, ip = kernel_params(world, n_steps, stride)
    fp[_forces.F_MAX_SPEED2] = speed_limit(world, p.positions) ** 2
    fp[_forces.F_OMEGA], fp[_forces.F_THETA0], fp[_forces.F_SIGN] = p.omega, p.theta0, p.wave_sign
    ip[_forces.I_AUTOREVERSE] = p.autoreverse
    if world.integrator == "euler" and world.contact == "soda" and creature.has_default_physics:
        n_rec, exploded_step = _kernel.run_euler(
            p.positions, p.velocities, p.free, p.link_a, p.link_b, p.rest, p.amp, p.cos_phi, p.sin_phi,
            segments, fp, ip, rec_pos, rec_vel,
        )  # fmt: skip
    else:
        kernel, ip[_forces.I_METHOD] = _general_kernel(world.integrator)
        link_data = p.link_data.copy()
        link_data[:, _forces.L_K] *= float(world.stiffness)
        n_rec, exploded_step = kernel(
            p.positions, p.velocities, p.free, p.inv_mass, p.link_a, p.link_b, link_data, segments,
            ground_params, ground_points, fp, ip, rec_pos, rec_vel,
        )  # fmt: skip
    exploded = exploded_step >= 0
    return Trajectory(
        frames=np.arange(n_rec, dtype=np.float64) * stride * world.dt,
        positions=rec_pos[:n_rec],
        velocities=rec_vel[:n_rec],
        exploded=bool(exploded),
        exploded_frame=float(exploded_step * world.dt) if exploded else None,
    )


def tiny_creature(mass: float = 1.0) -> Creature:
    """Two masses joined by one muscle, to compile the kernels with (``mass`` 1: the default physics, which
    has kernels of its own)."""
    return Creature(
        positions=[[0.0, 10.0], [10.0, 10.0]],
        velocities=[[0.0, 0.0], [0.0, 0.0]],
        fixed=[False, False],
        link_a=[0],
        link_b=[1],
        rest=[10.0],
        alpha=[0.5],
        phi=[0.0],
        omega=0.1,
        beta=0.5,
        mass=None if mass == 1.0 else [mass, mass],
    )


def warm_up(world: World) -> None:
    """Compile (or load from numba's cache) and run the kernel once in ``world``."""
    simulate(tiny_creature(), world, 2 * world.dt, record_every=world.dt)
