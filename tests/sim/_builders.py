"""Small helpers for the paper's experiments: build creatures in code, and read periods, peaks and
equilibria off recorded trajectories.

Everything goes through the public API (:class:`evo.model.Creature`, :class:`evo.sim.World`,
:func:`evo.sim.simulate`). Units are the paper's: px and frames.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evo.model import Creature
from evo.sim import Trajectory, World, simulate
from evo.sim.world import DAMPING_PER_CURSOR2, GRAVITY_PER_CURSOR2, STIFFNESS_PER_CURSOR2

GENOMES = Path(__file__).resolve().parents[2] / "genomes"

# A link is (a, b, rest) for a spring or (a, b, rest, alpha, phi) for a muscle.
Link = tuple


def gravity_of(cursor: float) -> float:
    """g for a gravity cursor position (seed 000 §3.6), px/frame^2."""
    return GRAVITY_PER_CURSOR2 * cursor**2


def stiffness_of(cursor: float) -> float:
    """k̄ for a stiffness cursor position, 1/frame^2."""
    return STIFFNESS_PER_CURSOR2 * cursor**2


def damping_of(cursor: float) -> float:
    """f̄ for a damping (friction) cursor position, 1/frame."""
    return DAMPING_PER_CURSOR2 * cursor**2


def creature(
    positions: Sequence[Sequence[float]],
    links: Sequence[Link],
    *,
    fixed: Sequence[int] = (),
    velocities: Sequence[Sequence[float]] | None = None,
    omega: float = 0.0,
    beta: float = 0.0,
    name: str = "experiment",
) -> Creature:
    """A creature from plain lists: ``positions`` (n, 2) px, ``links`` as (a, b, rest[, alpha, phi]),
    ``fixed`` the indices of fixed masses, ``velocities`` (n, 2) px/frame (default at rest)."""
    n = len(positions)
    full = [tuple(link) + (0.0, 0.0)[len(link) - 3 :] for link in links]
    is_fixed = np.zeros(n, dtype=bool)
    is_fixed[list(fixed)] = True
    return Creature(
        positions=np.asarray(positions, dtype=float).reshape(n, 2),
        velocities=np.zeros((n, 2)) if velocities is None else np.asarray(velocities, dtype=float),
        fixed=is_fixed,
        link_a=[link[0] for link in full],
        link_b=[link[1] for link in full],
        rest=[link[2] for link in full],
        alpha=[link[3] for link in full],
        phi=[link[4] for link in full],
        omega=omega,
        beta=beta,
        name=name,
    )


def world(**params) -> World:
    """A world from keyword parameters (values or ``*_cursor`` positions), through ``World.updated``."""
    return World().updated(params)


def run(body: Creature, in_world: World, frames: float, record_every: float = 1) -> Trajectory:
    """``simulate`` that also insists the run did not explode."""
    trajectory = simulate(body, in_world, frames, record_every=record_every)
    assert not trajectory.exploded, f"exploded at frame {trajectory.exploded_frame}"
    assert np.all(np.isfinite(trajectory.positions))
    return trajectory


def upward_crossings(times: np.ndarray, signal: np.ndarray, level: float = 0.0) -> np.ndarray:
    """Times at which ``signal`` rises through ``level``, linearly interpolated between samples."""
    s = np.asarray(signal, dtype=float) - level
    k = np.nonzero((s[:-1] < 0.0) & (s[1:] >= 0.0))[0]
    fraction = -s[k] / (s[k + 1] - s[k])
    return times[k] + fraction * (times[k + 1] - times[k])


def period_from_crossings(times: np.ndarray, signal: np.ndarray, level: float = 0.0) -> float:
    """Mean period: (last upward crossing − first) / number of whole cycles between them."""
    crossings = upward_crossings(times, signal, level)
    assert crossings.size >= 3, "fewer than two whole oscillations recorded"
    return float((crossings[-1] - crossings[0]) / (crossings.size - 1))


def peaks(signal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Local maxima of a sampled signal, refined by the parabola through the three samples around each.

    Returns (positions in samples, peak values). The refinement removes the error of reading a peak off
    the nearest whole frame, which would otherwise be of order (ω·Δt)²/8 of the amplitude.
    """
    s = np.asarray(signal, dtype=float)
    k = np.nonzero((s[1:-1] > s[:-2]) & (s[1:-1] >= s[2:]))[0] + 1
    left, mid, right = s[k - 1], s[k], s[k + 1]
    curvature = left - 2.0 * mid + right
    shift = 0.5 * (left - right) / curvature
    value = mid - 0.25 * (left - right) * shift
    return k + shift, value


def link_lengths(positions: np.ndarray, body: Creature) -> np.ndarray:
    """(n_links,) current length of every link for one (n_masses, 2) configuration, px."""
    d = positions[body.link_b] - positions[body.link_a]
    return np.hypot(d[:, 0], d[:, 1])


def settle(body: Creature, in_world: World, frames: int) -> np.ndarray:
    """Run ``frames`` frames and return the final (n_masses, 2) positions, checking the creature has come
    to rest (every speed below 1e-9 px/frame)."""
    trajectory = run(body, in_world, frames, record_every=frames)
    speeds = np.hypot(*trajectory.velocities[-1].T)
    assert speeds.max() < 1e-9, f"not at rest after {frames} frames: max speed {speeds.max():.3g} px/frame"
    return trajectory.positions[-1]


def fit_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of log(y) against log(x)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def polar(radius: float, angle: float, centre: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """The point at ``radius`` and ``angle`` (rad, from +x counter-clockwise) around ``centre``."""
    return centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle)


def along_the_line(positions: np.ndarray) -> np.ndarray:
    """(R, 3) signed coordinates of the masses along the motor's line, measured from their centroid."""
    centred = positions - positions.mean(axis=1, keepdims=True)
    direction = np.linalg.svd(centred.reshape(-1, 2), full_matrices=False)[2][0]
    across = centred @ np.array([-direction[1], direction[0]])
    assert np.abs(across).max() < 1e-6, "the motor has not folded into a line"
    return centred @ direction


def autocorrelation(signal: np.ndarray, lag: int) -> float:
    a, b = signal[:-lag], signal[lag:]
    return float(np.dot(a, b) / math.sqrt(np.dot(a, a) * np.dot(b, b)))
