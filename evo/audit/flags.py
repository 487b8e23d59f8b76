"""The audit's exploit detectors over one trajectory: energy blow-up (before the explosion), launch,
end-of-window lunge and ground penetration; integrator dependence compares scores. Each flag has the
frame and the evidence. Thresholds are named below; docs/audit.md explains them. Units: px, frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evo.model import Creature
from evo.sim.placement import surface_heights
from evo.sim.simulate import Trajectory
from evo.sim.world import World

__all__ = [
    "Flag",
    "energy_blow_up",
    "ground_penetration",
    "integrator_dependence",
    "launch",
    "lunge",
]

BLOW_UP_FACTOR = 20.0  # total energy above its median by this factor (over its minimum) is a blow-up
BLOW_UP_FLOOR = 50.0  # px^2/frame^2 per mass: energy below this is never a blow-up (10 px/frame)
LAUNCH_HEIGHT = 40.0  # px: a flight whose lowest mass rises higher than this above the surface
AIRBORNE = 1.0  # px: the lowest mass at least this far above the surface is in the air
LUNGE_WINDOW = 0.10  # the last 10 % of the scored frames ...
LUNGE_SHARE = 0.40  # ... holding 40 % or more of the distance (four times their share) is a lunge
LUNGE_DISTANCE = 50.0  # px: less scored distance than this is never a lunge
PENETRATION = 0.5  # px below a surface a mass may be (soda contact puts masses back on it each step)
PENETRATION_SINK = 3.0  # penalty contact: this many times the resting sink M g / S_ground more
DEPENDENCE = 0.5  # a score losing more than half its size under another stable integrator or dt / 2
DEPENDENCE_FLOOR = 10.0  # ... or more than half of this, for scores near 0 (px for distance plugins)


@dataclass(frozen=True)
class Flag:
    """One suspected exploit: its kind, the frame it starts at (None: not tied to a frame) and the
    evidence, one sentence with the figures."""

    kind: str
    frame: float | None
    evidence: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "frame": self.frame, "evidence": self.evidence}


def _energy(trajectory: Trajectory, creature: Creature, world: World) -> np.ndarray:
    """(records,) kinetic + gravitational + elastic energy, mass px^2/frame^2 (unit masses: per mass)."""
    mass = np.asarray(creature.mass)
    v2 = (trajectory.velocities**2).sum(axis=2)
    kinetic = 0.5 * (v2 * mass).sum(axis=1)
    gx, gy = world.gravity_vector
    potential = -((trajectory.positions[:, :, 0] * gx + trajectory.positions[:, :, 1] * gy) * mass).sum(
        axis=1
    )
    a, b = np.asarray(creature.link_a), np.asarray(creature.link_b)
    delta = trajectory.positions[:, a, :] - trajectory.positions[:, b, :]
    length = np.hypot(delta[..., 0], delta[..., 1])
    sign = -1.0 if creature.wave_reverse else 1.0
    theta = (
        sign * creature.omega * trajectory.frames[:, None] + creature.wave_phase + np.asarray(creature.phi)
    )
    rest = np.asarray(creature.rest) * (1.0 + np.asarray(creature.alpha) * creature.beta * np.sin(theta))
    k = world.stiffness * np.asarray(creature.stiffness)
    elastic = 0.5 * (k * (length - rest) ** 2).sum(axis=1)
    return kinetic + potential + elastic


def energy_blow_up(trajectory: Trajectory, creature: Creature, world: World) -> Flag | None:
    """The first frame at which the total energy (over its minimum) passes BLOW_UP_FACTOR times its
    median (or its starting value, when larger): a blow-up building up, found before the speed limit
    stops the run (if it does)."""
    finite = np.isfinite(trajectory.positions).all(axis=(1, 2)) & np.isfinite(trajectory.velocities).all(
        axis=(1, 2)
    )
    energy = _energy(trajectory, creature, world)[finite]
    frames = trajectory.frames[finite]
    if energy.size < 2:
        return None
    excess = energy - energy.min()
    level = max(float(np.median(excess)), float(excess[0]))  # a creature may start with energy to spend
    threshold = max(BLOW_UP_FACTOR * level, BLOW_UP_FLOOR * creature.n_masses)
    over = np.flatnonzero(excess > threshold)
    exploded = f"; the run exploded at frame {trajectory.exploded_frame:g}" if trajectory.exploded else ""
    if over.size == 0:
        if trajectory.exploded:
            return Flag(
                "energy blow-up",
                trajectory.exploded_frame,
                f"the run exploded at frame {trajectory.exploded_frame:g}",
            )
        return None
    first = int(over[0])
    evidence = (
        f"energy {excess[first]:.3g} above its minimum at frame {frames[first]:g}, "
        f"{excess[first] / max(level, 1e-300):.0f}x its median (or start) {level:.3g}{exploded}"
    )
    return Flag("energy blow-up", float(frames[first]), evidence)


def _heights(trajectory: Trajectory, world: World) -> np.ndarray:
    """(records, masses) each mass's height above the highest surface under it, px."""
    x, y = trajectory.positions[:, :, 0], trajectory.positions[:, :, 1]
    surface = surface_heights(world, x.ravel()).reshape(x.shape)
    return y - surface


def launch(trajectory: Trajectory, world: World) -> Flag | None:
    """The highest flight: records with every mass in the air, whose lowest mass rises more than
    LAUNCH_HEIGHT px above the surface."""
    lowest = _heights(trajectory, world).min(axis=1)
    airborne = lowest > AIRBORNE
    if not airborne.any() or lowest.max() <= LAUNCH_HEIGHT:
        return None
    apex = int(np.argmax(lowest))
    start = apex
    while start > 0 and airborne[start - 1]:
        start -= 1
    end = apex
    while end + 1 < len(airborne) and airborne[end + 1]:
        end += 1
    frames = trajectory.frames
    evidence = (
        f"in the air from frame {frames[start]:g} to {frames[end]:g}; its lowest mass {lowest[apex]:.0f} px "
        f"above the surface at frame {frames[apex]:g} (threshold {LAUNCH_HEIGHT:g} px)"
    )
    return Flag("launch", float(frames[start]), evidence)


def lunge(trajectory: Trajectory, settle_frames: float) -> Flag | None:
    """A disproportionate share of the centroid's x distance in the last LUNGE_WINDOW of the scored
    frames (from ``settle_frames`` to the end)."""
    frames = trajectory.frames
    x = trajectory.centroids[:, 0]
    first = min(int(np.searchsorted(frames, settle_frames)), len(frames) - 1)
    end = len(frames) - 1
    window = frames[end] - frames[first]
    if window <= 0:
        return None
    cut = int(np.searchsorted(frames, frames[end] - LUNGE_WINDOW * window))
    total = x[end] - x[first]
    last = x[end] - x[cut]
    if abs(total) < LUNGE_DISTANCE or last * total <= 0 or last / total < LUNGE_SHARE:
        return None
    evidence = (
        f"{last / total:.0%} of the distance ({last:.0f} of {total:.0f} px) in the last "
        f"{frames[end] - frames[cut]:g} frames ({LUNGE_WINDOW:.0%} of the scored window)"
    )
    return Flag("end-of-window lunge", float(frames[cut]), evidence)


def ground_penetration(trajectory: Trajectory, creature: Creature, world: World) -> Flag | None:
    """The first record with a mass deeper below a surface than soda contact leaves one (PENETRATION)
    or, under penalty contact, PENETRATION_SINK times its resting sink."""
    depth = -_heights(trajectory, world)
    tolerance = np.full(creature.n_masses, PENETRATION)
    if world.contact == "penalty":
        tolerance += PENETRATION_SINK * np.asarray(creature.mass) * world.gravity / world.ground_stiffness
    deep = depth > tolerance
    if not deep.any():
        return None
    record, mass = (int(v) for v in np.argwhere(deep)[0])
    frame = float(trajectory.frames[record])
    x = trajectory.positions[record, mass, 0]
    evidence = (
        f"mass {mass} is {depth[record, mass]:.1f} px below the surface at frame {frame:g} (x = {x:.0f} px; "
        f"deepest {depth.max():.1f} px)"
    )
    return Flag("ground penetration", frame, evidence)


def integrator_dependence(
    nominal: float, integrator: str, others: dict[str, float], sign: float = 1.0
) -> Flag | None:
    """Scores under other stable integrators or a smaller step (``{"rk4": 410.0, "dt / 2": 2050.0}``,
    -inf: exploded) that lose more than DEPENDENCE of the nominal score's size, or explode: the
    creature's gait depends on the integration, not on its physics. ``sign`` is -1 for a minimised
    objective (a loss is then a rise); a gain is no evidence of an exploit."""
    if not np.isfinite(nominal):  # exploded already: the blow-up flag says so
        return None
    scale = max(abs(nominal), DEPENDENCE_FLOOR)
    apart = {
        name: v
        for name, v in others.items()
        if not np.isfinite(v) or sign * (nominal - v) > DEPENDENCE * scale
    }
    if not apart:
        return None
    shown = ", ".join(
        f"{name}: {v:.4g} ({(v - nominal) / scale:+.0%})" if np.isfinite(v) else f"{name}: exploded"
        for name, v in apart.items()
    )
    return Flag("integrator dependence", None, f"score {nominal:.4g} with {integrator}; {shown}")
