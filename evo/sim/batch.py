"""``simulate_batch``: many creatures of one topology simulated together, one creature per SIMD lane.

Each trajectory is bit-identical to what :func:`evo.sim.simulate` gives for that creature alone;
integrators without a batched kernel (and batches too small to pay) run through ``simulate``. See
docs/batch.md for the lane layout and the figures.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np

from evo.errors import EvoInputError
from evo.model import Creature
from evo.sim.kernels import batch_euler as _batch_kernel
from evo.sim.kernels import batch_explicit as _batch_explicit
from evo.sim.kernels import explicit as _explicit
from evo.sim.kernels import forces as _forces
from evo.sim.simulate import Trajectory, boundaries, simulate, speed_limit, steps_for
from evo.sim.world import World

__all__ = ["BATCHED_INTEGRATORS", "MAX_LANES", "MIN_LANES", "simulate_batch", "topology_key"]

# integrators with a batched kernel; the others (backward-euler, psm) run creature by creature
BATCHED_INTEGRATORS = tuple(_explicit.METHODS)
# Fewer creatures than this run one by one: a lane loop of 1-7 creatures does not vectorise and is
# slower than the scalar kernel. More than MAX_LANES are split into even kernel calls (64 lanes keep
# a 60-mass / 200-link creature's arrays in a 1 MiB L2 cache).
MIN_LANES = 8
MAX_LANES = 64
# records are gathered lane-innermost, up to this many at a time and in at most RING_BYTES (so that the
# ring stays in cache beside the kernel's arrays), then copied out to each creature's own
RING_RECORDS = 16
RING_BYTES = 2**19


def topology_key(creature: Creature) -> str:
    """A hash of what creatures must share to be simulated in one batch: the number of masses, the
    link ends ``link_a``, ``link_b`` (in order) and the ``fixed`` flags. 32 hex digits."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.array([creature.n_masses, creature.n_links], dtype="<i8").tobytes())
    digest.update(np.ascontiguousarray(creature.link_a, dtype="<i8").tobytes())
    digest.update(np.ascontiguousarray(creature.link_b, dtype="<i8").tobytes())
    digest.update(np.ascontiguousarray(creature.fixed, dtype=np.uint8).tobytes())
    return digest.hexdigest()


def _check_topology(creatures: list[Creature]) -> None:
    """Raise ValueError unless every creature has the first one's masses, link ends and fixed flags."""
    first = creatures[0]
    sizes = [(c.n_masses, c.n_links) for c in creatures]
    same = np.array([size == sizes[0] for size in sizes])
    if same.all():
        for name in ("link_a", "link_b", "fixed"):
            values = np.array([getattr(c, name) for c in creatures])
            same &= (values == values[0]).all(axis=1)
    if not same.all():
        index = int(np.argmin(same))
        raise ValueError(
            f"simulate_batch needs creatures of one topology; creature {index} ({creatures[index].name!r})"
            f" has other masses, links or fixed flags than creature 0 ({first.name!r})"
        )


def simulate_batch(
    creatures: Sequence[Creature], world: World, frames: int, record_every: float = 1
) -> list[Trajectory]:
    """Simulate creatures of one topology in ``world`` for ``frames`` frames, recording every
    ``record_every`` frames: the trajectories :func:`evo.sim.simulate` would give, in order.

    Args:
        creatures: creatures that share the number of masses, ``link_a``, ``link_b`` and ``fixed`` (see
            :func:`topology_key`); anything else may differ.
        world: the world every creature is simulated in.
        frames: frames to simulate (a whole number of steps of ``world.dt``).
        record_every: frames between records (a whole number of steps); record 0 is frame 0.

    Returns:
        One :class:`~evo.sim.simulate.Trajectory` per creature, in order, bit-identical to
        :func:`evo.sim.simulate`'s (docs/batch.md); [] for no creatures.

    Raises:
        ValueError: the creatures do not share one topology.
        EvoInputError: frames or record_every that are not whole numbers of steps (or record_every <= 0),
            or, for the creatures simulated one by one, a creature over the size limits.
    """
    creatures = list(creatures)
    if not creatures:
        return []
    _check_topology(creatures)
    n_steps = steps_for(frames, world.dt)
    stride = steps_for(record_every, world.dt, "record_every")
    if stride <= 0:
        raise EvoInputError(f"record_every must be > 0 frames, got {record_every}")
    if world.integrator not in BATCHED_INTEGRATORS:
        return [simulate(creature, world, frames, record_every) for creature in creatures]
    fast = world.integrator == "euler" and world.contact == "soda"
    groups: dict[bool, list[int]] = {True: [], False: []}
    for index, creature in enumerate(creatures):
        groups[fast and creature.has_default_physics].append(index)
    out: list = [None] * len(creatures)  # filled in input order
    lane_limit = min(MAX_LANES, _batch_kernel.STACK_DOUBLES // max(1, creatures[0].n_masses))
    for use_euler_kernel, indices in groups.items():
        if len(indices) < MIN_LANES or lane_limit < MIN_LANES:
            for index in indices:
                out[index] = simulate(creatures[index], world, frames, record_every)
            continue
        n_calls = math.ceil(len(indices) / lane_limit)
        for chunk in np.array_split(np.array(indices), n_calls):
            batch = [creatures[index] for index in chunk]
            run = _run_euler if use_euler_kernel else _run_explicit
            for index, trajectory in zip(chunk, run(batch, world, n_steps, stride), strict=True):
                out[index] = trajectory
    return out


# -- packing: one creature per lane, the lane the last axis ---------------------------------------------


def _lanes(values: list[np.ndarray]) -> np.ndarray:
    """(..., n_lanes) contiguous float64 from one (...) array per lane."""
    return np.ascontiguousarray(np.moveaxis(np.array(values, dtype=np.float64), 0, -1))


def _pack_state(creatures: list[Creature]) -> tuple[np.ndarray, np.ndarray]:
    """Positions and velocities (2, n_masses, n_lanes), fixed masses at rest (as :func:`evo.sim.pack`)."""
    pos = np.ascontiguousarray(
        np.array([c.positions for c in creatures], dtype=np.float64).transpose(2, 1, 0)
    )
    vel = np.ascontiguousarray(
        np.array([c.velocities for c in creatures], dtype=np.float64).transpose(2, 1, 0)
    )
    vel[:, creatures[0].fixed, :] = 0.0
    return pos, vel


def _pack_links(creatures: list[Creature]) -> tuple[np.ndarray, ...]:
    """rest, amp = rest·alpha·beta, cos φ, sin φ (n_links, n_lanes), computed as :func:`evo.sim.pack` does."""
    rest = _lanes([c.rest for c in creatures])
    beta = np.array([c.beta for c in creatures], dtype=np.float64)
    amp = rest * _lanes([c.alpha for c in creatures]) * beta
    cos_phi = _lanes([np.cos(c.phi) for c in creatures])
    sin_phi = _lanes([np.sin(c.phi) for c in creatures])
    return rest, amp, cos_phi, sin_phi


def _pack_wave(creatures: list[Creature]) -> tuple[np.ndarray, ...]:
    """omega, theta0, wave_sign (n_lanes,) float64 and autoreverse (n_lanes,) uint8."""
    omega = np.array([c.omega for c in creatures], dtype=np.float64)
    theta0 = np.array([c.wave_phase for c in creatures], dtype=np.float64)
    sign = np.array([-1.0 if c.wave_reverse else 1.0 for c in creatures])
    autoreverse = np.array([c.autoreverse for c in creatures], dtype=np.uint8)
    return omega, theta0, sign, autoreverse


def _walls_of(world: World, creatures: list[Creature]) -> tuple[np.ndarray, float, float, float, np.ndarray]:
    """(segments (k, 4), x_min, x_max, y_max, max_speed² per lane) as :func:`evo.sim.simulate` passes
    them (each creature's speed limit depends on its size when the world sets none)."""
    segments, x_min, x_max, y_max = boundaries(world)
    max_speed2 = np.array([speed_limit(world, c.positions) ** 2 for c in creatures], dtype=np.float64)
    return segments, x_min, x_max, y_max, max_speed2


def _records(lanes: int, n_steps: int, stride: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ring (ring_records, 4, n, lanes) scratch, rec_pos, rec_vel (lanes, n_records, n, 2))."""
    n_records = n_steps // stride + 1
    ring_records = max(1, min(RING_RECORDS, n_records, RING_BYTES // (32 * max(1, n) * lanes)))
    try:
        return (
            np.empty((ring_records, 4, n, lanes)),
            np.empty((lanes, n_records, n, 2)),
            np.empty((lanes, n_records, n, 2)),
        )
    except MemoryError:
        raise EvoInputError(
            f"{lanes} x {n_records} records of {n} masses do not fit in memory; record less often"
            " (record_every) or simulate fewer creatures at once"
        ) from None


def _trajectories(rec_pos, rec_vel, n_rec, exploded_at, stride: int, dt: float) -> list[Trajectory]:
    out = []
    for lane in range(rec_pos.shape[0]):
        count = int(n_rec[lane])
        step = int(exploded_at[lane])
        out.append(
            Trajectory(
                frames=np.arange(count, dtype=np.float64) * stride * dt,
                positions=rec_pos[lane, :count],
                velocities=rec_vel[lane, :count],
                exploded=step >= 0,
                exploded_frame=float(step * dt) if step >= 0 else None,
            )
        )
    return out


# -- the two kernels -------------------------------------------------------------------------------------


def _run_euler(creatures: list[Creature], world: World, n_steps: int, stride: int) -> list[Trajectory]:
    """The semi-implicit Euler fast path (default physics, soda contact) on one batch."""
    first = creatures[0]
    free = np.ascontiguousarray(~first.fixed, dtype=np.uint8)
    link_a = np.ascontiguousarray(first.link_a, dtype=np.uint32)
    link_b = np.ascontiguousarray(first.link_b, dtype=np.uint32)
    pos, vel = _pack_state(creatures)
    rest, amp, cos_phi, sin_phi = _pack_links(creatures)
    omega, theta0, sign, autoreverse = _pack_wave(creatures)
    segments, x_min, x_max, y_max, max_speed2 = _walls_of(world, creatures)
    ring, rec_pos, rec_vel = _records(len(creatures), n_steps, stride, first.n_masses)
    n_rec = np.empty(len(creatures), dtype=np.int64)
    exploded_at = np.empty(len(creatures), dtype=np.int64)
    gx, gy = world.gravity_vector
    _batch_kernel.run_euler_batch(
        pos, vel, free, link_a, link_b, rest, amp, cos_phi, sin_phi, omega, theta0, sign, autoreverse,
        float(gx), float(gy), float(world.damping), float(world.stiffness),
        float(world.restitution_normal), float(world.restitution_tangential), float(world.dt),
        n_steps, stride, x_min, x_max, y_max, segments, max_speed2,
        ring, rec_pos, rec_vel, n_rec, exploded_at,
    )  # fmt: skip
    return _trajectories(rec_pos, rec_vel, n_rec, exploded_at, stride, world.dt)


def _run_explicit(creatures: list[Creature], world: World, n_steps: int, stride: int) -> list[Trajectory]:
    """The general explicit kernel (any physics, soda or penalty contact) on one batch."""
    first = creatures[0]
    free = np.ascontiguousarray(~first.fixed, dtype=np.uint8)
    link_a = np.ascontiguousarray(first.link_a, dtype=np.uint32)
    link_b = np.ascontiguousarray(first.link_b, dtype=np.uint32)
    pos, vel = _pack_state(creatures)
    rest, amp, cos_phi, sin_phi = _pack_links(creatures)
    omega, theta0, sign, autoreverse = _pack_wave(creatures)
    link_k = _lanes([c.stiffness for c in creatures]) * float(world.stiffness)
    dashpot = _lanes([c.dashpot for c in creatures])
    inv_mass = _lanes([1.0 / c.mass for c in creatures])
    segments, x_min, x_max, y_max, max_speed2 = _walls_of(world, creatures)
    kind, ground_params, ground_points = world.ground.kernel_arrays()
    gx, gy = world.gravity_vector
    fp = np.zeros(_forces.N_FLOAT_PARAMS)
    fp[_forces.F_GX], fp[_forces.F_GY], fp[_forces.F_DAMPING] = gx, gy, world.damping
    fp[_forces.F_CN], fp[_forces.F_CT] = world.restitution_normal, world.restitution_tangential
    fp[_forces.F_DT] = world.dt
    fp[_forces.F_XMIN], fp[_forces.F_XMAX], fp[_forces.F_YMAX] = x_min, x_max, y_max
    fp[_forces.F_GROUND_K], fp[_forces.F_MU] = world.ground_stiffness, world.ground_friction
    fp[_forces.F_SLIP], fp[_forces.F_NEWTON_TOL] = world.ground_slip_speed, world.newton_tolerance
    ip = np.zeros(_forces.N_INT_PARAMS, dtype=np.int64)
    ip[_forces.I_STEPS], ip[_forces.I_STRIDE] = n_steps, stride
    ip[_forces.I_METHOD] = _explicit.METHODS[world.integrator]
    ip[_forces.I_PENALTY], ip[_forces.I_GROUND] = world.contact == "penalty", kind
    ring, rec_pos, rec_vel = _records(len(creatures), n_steps, stride, first.n_masses)
    n_rec = np.empty(len(creatures), dtype=np.int64)
    exploded_at = np.empty(len(creatures), dtype=np.int64)
    _batch_explicit.run_explicit_batch(
        pos, vel, free, inv_mass, link_a, link_b,
        rest, amp, cos_phi, sin_phi, link_k, dashpot, omega, theta0, sign, autoreverse,
        segments, ground_params, ground_points, fp, ip, max_speed2,
        ring, rec_pos, rec_vel, n_rec, exploded_at,
    )  # fmt: skip
    return _trajectories(rec_pos, rec_vel, n_rec, exploded_at, stride, world.dt)
