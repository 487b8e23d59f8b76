"""Measures: numbers that place a creature in a quality-diversity archive (docs/qd.md lists them).

The built-ins are computed from the body and from the recorded simulation, after ``settle_frames``;
plugins may add their own (``@fitness_plugin(..., measures=("height", "reach"))``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from evo.model import Creature
from evo.sim.simulate import centroids_of
from evo.sim.world import World

__all__ = [
    "BUILTIN_MEASURES",
    "CONTACT_TOLERANCE",
    "MEASURE_RECORD_EVERY",
    "Measure",
    "MeasureInput",
    "builtin_measures",
    "ground_heights",
    "measure_stride",
]

CONTACT_TOLERANCE = 1.0  # px: a mass this close to the ground (or below it) touches it
MEASURE_RECORD_EVERY = 2.0  # frames: the finest record step the measures ask for (Nyquist pi/2 rad/frame)
STILL = 1e-3  # px: a centroid height whose standard deviation is below this has no gait (frequency 0)


@dataclass(frozen=True)
class MeasureInput:
    """What a built-in measure reads.

    Attributes:
        positions: (records, masses, 2) array, px, from ``settle_frames`` on.
        frames: (records,) array, the frame of each record.
        creature: the creature simulated (its body and wave).
        world: the world it was simulated in.
    """

    positions: np.ndarray
    frames: np.ndarray
    creature: Creature
    world: World


@dataclass(frozen=True)
class Measure:
    """A built-in measure: its name, unit, default range, one-line doc and function.

    ``genome_range`` names the ``[genome]`` range the default range comes from (``"masses"``: that range
    widened by half a mass on each side, so that each count gets whole bins; ``"omega"``: that range;
    ``"omega2"``: from 0 to twice its top), else ``low`` and ``high`` are the default range.
    """

    name: str
    unit: str
    low: float
    high: float
    doc: str
    func: Callable[[MeasureInput], float]
    genome_range: str | None = None

    def default_range(
        self, masses: tuple[int, int] = (4, 12), omega: tuple[float, float] = (0.02, 0.2)
    ) -> tuple[float, float]:
        """The range a grid spans when the config gives none, for the given ``[genome]`` ranges."""
        if self.genome_range == "masses":
            return (masses[0] - 0.5, masses[1] + 0.5)
        if self.genome_range == "omega":
            return (float(omega[0]), float(omega[1]))
        if self.genome_range == "omega2":
            return (0.0, 2.0 * float(omega[1]))
        return (self.low, self.high)


def ground_heights(world: World, x: np.ndarray) -> np.ndarray:
    """Height (px) of the ground under each x: ``[world] ground`` (the floor y = 0 too under soda
    contact); terrain segments are not ground."""
    line = world.ground.outline()
    xs = np.array([p[0] for p in line], dtype=np.float64)
    ys = np.array([p[1] for p in line], dtype=np.float64)
    heights = np.interp(x, xs, ys)
    if world.contact == "soda":
        heights = np.maximum(heights, 0.0)
    return heights


def _masses(data: MeasureInput) -> float:
    return float(data.creature.n_masses)


def _muscle_share(data: MeasureInput) -> float:
    links = data.creature.n_links
    return float(data.creature.n_muscles / links) if links else 0.0


def _omega(data: MeasureInput) -> float:
    return float(data.creature.omega)


def _settled_height(data: MeasureInput) -> float:
    return float(centroids_of(data.positions)[:, 1].mean())


def _contact_fraction(data: MeasureInput) -> float:
    x, y = data.positions[:, :, 0], data.positions[:, :, 1]
    touching = y <= ground_heights(data.world, x) + CONTACT_TOLERANCE
    return float(touching.mean())


def _gait_frequency(data: MeasureInput) -> float:
    """The peak of the centroid height's spectrum (Hann window, mean and linear trend removed)."""
    y = centroids_of(data.positions)[:, 1]
    frames = data.frames
    if y.size < 4 or frames[-1] <= frames[0]:
        return 0.0
    t = frames - frames[0]
    slope, intercept = np.polyfit(t, y, 1)
    wobble = y - (slope * t + intercept)
    if float(wobble.std()) < STILL:
        return 0.0
    spectrum = np.abs(np.fft.rfft(wobble * np.hanning(y.size)))
    peak = 1 + int(np.argmax(spectrum[1:]))
    step = (frames[-1] - frames[0]) / (y.size - 1)
    return float(2.0 * math.pi * peak / (y.size * step))


BUILTIN_MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        Measure("masses", "masses", 3.5, 12.5, "number of masses", _masses, "masses"),
        Measure("muscle_share", "fraction", 0.0, 1.0, "muscles / links", _muscle_share),
        Measure("omega", "rad/frame", 0.02, 0.2, "the wave's angular speed ω", _omega, "omega"),
        Measure(
            "settled_height", "px", 0.0, 80.0, "mean height of the centroid after settling", _settled_height
        ),
        Measure(
            "contact_fraction",
            "fraction",
            0.0,
            1.0,
            f"share of (record, mass) pairs after settling with the mass within {CONTACT_TOLERANCE:g} px of "
            "the ground",
            _contact_fraction,
        ),
        Measure(
            "gait_frequency",
            "rad/frame",
            0.0,
            0.4,
            "dominant angular frequency of the centroid's height after settling (0 when it stays still)",
            _gait_frequency,
            "omega2",
        ),
    )
}


def measure_stride(plugin_steps: int, dt: float) -> int:
    """Integration steps between the records the measures read: the largest divisor of the plugin's
    ``plugin_steps`` that is at most :data:`MEASURE_RECORD_EVERY` frames (so the plugin's records are
    every k-th of them)."""
    target = max(1, int(math.floor(MEASURE_RECORD_EVERY / dt + 1e-9)))
    return max(d for d in range(1, min(plugin_steps, target) + 1) if plugin_steps % d == 0)


def builtin_measures(
    names: Sequence[str],
    positions: np.ndarray,
    frames: np.ndarray,
    creature: Creature,
    world: World,
    settle_frames: float,
) -> dict[str, float]:
    """The built-in measures among ``names``, from a recorded simulation (records after
    ``settle_frames``; the last record alone if the run is shorter).

    Args:
        names: measure names; those that are not built-ins are left out of the result.
        positions: (records, masses, 2) array, px.
        frames: (records,) array, the frame of each record.
        creature, world: what was simulated, where.
        settle_frames: frames left out at the start.

    Returns:
        {name: value} for each built-in name.
    """
    start = min(int(np.searchsorted(frames, settle_frames, side="left")), len(frames) - 1)
    data = MeasureInput(positions[start:], frames[start:], creature, world)
    return {name: BUILTIN_MEASURES[name].func(data) for name in names if name in BUILTIN_MEASURES}
