"""Recorded trajectories made small enough to ship inside one HTML page.

A creature is simulated here (the page never simulates), then decimated, quantised to 0.1 px and
delta-encoded as base64 varints, with one byte of wave angle per record for the muscles' colours
(docs/gallery.md, "Where the replays come from").
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

from evo.model import Creature
from evo.sim import simulate
from evo.sim.simulate import Trajectory
from evo.sim.world import World

__all__ = [
    "POSITION_LIMIT",
    "POSITION_SCALE",
    "creature_payload",
    "decode_positions",
    "encode_positions",
    "record_step",
    "record_trajectory",
    "wave_angles",
]

POSITION_SCALE = 10  # integer units per px: 0.1 px
POSITION_LIMIT = 1.0e6  # px: positions are clipped to +-this before quantising
DEFAULT_MAX_RECORDS = 1000


def record_step(frames: float, dt: float, max_records: int = DEFAULT_MAX_RECORDS) -> float:
    """Frames between records: a whole number of steps of ``dt``, at least 2 frames when ``frames`` is
    long enough to need decimating, and such that ``frames / step`` <= ``max_records``."""
    if max_records < 1:
        raise ValueError(f"max_records must be >= 1, got {max_records}")
    steps_per_record = max(1, math.ceil(frames / (max_records * dt) - 1e-9))
    return steps_per_record * dt


def record_trajectory(
    creature: Creature, world: World, frames: float, max_records: int = DEFAULT_MAX_RECORDS
) -> Trajectory:
    """Simulate ``creature`` in ``world`` for ``frames`` frames, keeping at most ``max_records + 1``
    records (frame 0 included)."""
    return simulate(creature, world, frames, record_every=record_step(frames, world.dt, max_records))


def _zigzag(values: np.ndarray) -> np.ndarray:
    v = values.astype(np.int64)
    return ((v << 1) ^ (v >> 63)).astype(np.uint64)


def _varints(values: np.ndarray) -> bytes:
    """Base-128 varints of non-negative integers below 2**35, vectorised."""
    z = np.asarray(values, dtype=np.uint64).ravel()
    sizes = np.ones(z.size, dtype=np.int64)
    for k in range(1, 5):
        sizes += z >= np.uint64(1 << (7 * k))
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    starts = np.cumsum(sizes) - sizes
    for k in range(5):
        where = sizes > k
        if not np.any(where):
            break
        low = (z[where] >> np.uint64(7 * k)) & np.uint64(0x7F)
        more = (sizes[where] > k + 1).astype(np.uint64) << np.uint64(7)
        out[starts[where] + k] = (low | more).astype(np.uint8)
    return out.tobytes()


def encode_positions(positions: np.ndarray) -> str:
    """Base64 text of (n_records, n_masses, 2) positions (px), quantised and delta-encoded as
    docs/gallery.md says ("Where the replays come from"). :func:`decode_positions` reads it back to
    within 0.05 px."""
    p = np.asarray(positions, dtype=np.float64)
    p = np.nan_to_num(p, nan=0.0, posinf=POSITION_LIMIT, neginf=-POSITION_LIMIT)
    q = np.rint(np.clip(p, -POSITION_LIMIT, POSITION_LIMIT) * POSITION_SCALE).astype(np.int64)
    deltas = np.diff(q, axis=0, prepend=np.zeros((1, *q.shape[1:]), dtype=np.int64))
    return base64.b64encode(_varints(_zigzag(deltas))).decode("ascii")


def decode_positions(text: str, n_records: int, n_masses: int) -> np.ndarray:
    """The inverse of :func:`encode_positions` (as the page's JavaScript does it): (n_records, n_masses,
    2) px."""
    data = base64.b64decode(text)
    values: list[int] = []
    value, shift = 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
        else:
            values.append((value >> 1) ^ -(value & 1))
            value, shift = 0, 0
    deltas = np.asarray(values, dtype=np.int64).reshape(n_records, n_masses, 2)
    return np.cumsum(deltas, axis=0) / POSITION_SCALE


def wave_angles(creature: Creature, world: World, trajectory: Trajectory) -> np.ndarray:
    """(n_records,) the wave angle theta (rad) at each record.

    theta advances by ±omega per frame; with ``autoreverse`` the direction flips when a mass starts
    touching a side wall, which is detected here at record resolution (for drawing only).
    """
    frames = np.asarray(trajectory.frames, dtype=np.float64)
    sign = -1.0 if creature.wave_reverse else 1.0
    if not creature.autoreverse or world.width is None or frames.size < 2:
        return creature.wave_phase + sign * creature.omega * frames
    x = trajectory.positions[:, :, 0]
    touching = np.any((x <= 0.0) | (x >= world.width), axis=1)
    theta = np.empty(frames.size)
    theta[0] = creature.wave_phase
    for k in range(1, frames.size):
        theta[k] = theta[k - 1] + sign * creature.omega * (frames[k] - frames[k - 1])
        if touching[k] and not touching[k - 1]:
            sign = -sign
    return theta


def _angle_bytes(theta: np.ndarray) -> str:
    turns = np.mod(theta / (2.0 * math.pi), 1.0)
    return base64.b64encode(
        (np.rint(turns * 256.0).astype(np.int64) % 256).astype(np.uint8).tobytes()
    ).decode("ascii")


def _finite_or_none(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def creature_payload(
    creature: Creature, world: World, frames: float, trajectory: Trajectory
) -> dict[str, Any]:
    """What the page needs to draw one creature's replay: its links and polygons, the encoded trajectory,
    the wave angles and a few measures for the camera and the leaderboard (px, frames)."""
    positions = trajectory.positions
    n_records, n_masses = positions.shape[:2]
    finite = np.where(np.isfinite(positions), positions, 0.0)
    xs, ys = finite[:, :, 0], finite[:, :, 1]
    centroid_x = xs.mean(axis=1)
    widths = xs.max(axis=1) - xs.min(axis=1)
    heights = ys.max(axis=1) - ys.min(axis=1)
    return {
        "masses": n_masses,
        "links": creature.n_links,
        "muscles": creature.n_muscles,
        "a": creature.link_a.tolist(),
        "b": creature.link_b.tolist(),
        "muscle": [int(m) for m in creature.is_muscle],
        "phi": [round(float(p), 4) for p in creature.phi],
        "fixed": np.flatnonzero(creature.fixed).tolist(),
        # filled polygons, drawn under the links: corners (mass indices), fill colour, smooth or not
        "polys": [
            {"masses": list(poly.masses), "color": poly.fill, "curvy": poly.curvy}
            for poly in creature.polys
            if len(poly.masses) >= 3
        ],
        "omega": float(creature.omega),
        "beta": float(creature.beta),
        "frames": float(frames),
        "step": float(trajectory.frames[1] - trajectory.frames[0]) if n_records > 1 else float(frames),
        "records": int(n_records),
        "pos": encode_positions(positions),
        "theta": _angle_bytes(wave_angles(creature, world, trajectory)),
        # the size the cameras fit: the creature's width and height in 90 % of the records (px)
        "span": [
            round(float(np.percentile(widths, 90)), 1),
            round(float(max(np.percentile(heights, 90), 1.0)), 1),
        ],
        # the leftmost and rightmost x any mass reaches (px): the stretch the track and a still camera show
        "reach": [round(float(xs.min()), 1), round(float(xs.max()), 1)],
        "start_x": round(float(centroid_x[0]), 2),
        "distance": round(float(centroid_x[-1] - centroid_x[0]), 2),
        "exploded_frame": _finite_or_none(trajectory.exploded_frame),
    }
