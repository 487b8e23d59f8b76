"""Perturbed worlds and creatures: the audit's fixed set (dt halved, the other stable integrators, physics
±10 %, the wave's phase, the start position, the terrain) and robust scoring's seeded samples.

Each is a pure function of its inputs; docs/audit.md says what each perturbation tests. Units: px, rad.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from evo.analysis.stability import check_step
from evo.model import Creature
from evo.sim.placement import stand_on_ground
from evo.sim.world import INTEGRATORS, World

__all__ = [
    "PHYSICS",
    "Perturbation",
    "audit_perturbations",
    "has_terrain",
    "moved",
    "perturbed_world",
    "stable_integrators",
]

PHYSICS = ("gravity", "damping", "stiffness")  # world fields scaled by ±RELATIVE
RELATIVE = 0.10
PHASES = (0.5 * math.pi, math.pi)  # rad added to the wave's start phase
SHIFTS = (-40.0, 40.0)  # px the start position moves along x
TERRAIN_JITTER = 2.0  # px: the standard deviation of each terrain vertex's height change
TERRAIN_SAMPLES = 2


@dataclass(frozen=True)
class Perturbation:
    """One perturbed copy of a creature's evaluation.

    Attributes:
        name: what changed, e.g. ``"gravity +10%"``, ``"integrator rk4"``, ``"shift -40 px"``.
        kind: ``dt``, ``integrator``, ``gravity``, ``damping``, ``stiffness``, ``phase``, ``shift`` or
            ``terrain``.
        world: the world to simulate in.
        creature: the creature to simulate (stood on the ground of ``world``).
    """

    name: str
    kind: str
    world: World
    creature: Creature


def has_terrain(world: World) -> bool:
    """Whether the world has terrain segments or a ground other than flat (a terrain task)."""
    return bool(world.terrain) or not world.ground.is_flat


def stable_integrators(creature: Creature, world: World) -> tuple[str, ...]:
    """The integrators other than ``world.integrator`` whose step of ``world.dt`` is stable for the
    creature's highest natural frequency (:func:`evo.analysis.stability.check_step`), soda contact's
    reflecting walls being what every integrator shares."""
    out = []
    for name in INTEGRATORS:
        if name == world.integrator:
            continue
        if check_step(creature, dataclasses.replace(world, integrator=name)).stable:
            out.append(name)
    return tuple(out)


def perturbed_world(
    world: World, *, scale: dict[str, float] | None = None, terrain_rng: np.random.Generator | None = None
) -> World:
    """``world`` with its physics fields scaled (``{"gravity": 1.1}``) and, given a generator, its terrain
    jittered."""
    changes = {name: getattr(world, name) * factor for name, factor in (scale or {}).items()}
    if terrain_rng is not None:
        changes.update(_jittered_terrain(world, terrain_rng))
    return world.updated(changes) if changes else world


def moved(creature: Creature, world: World, *, phase: float = 0.0, shift: float = 0.0) -> Creature:
    """``creature`` with ``phase`` rad added to its wave's start phase and moved ``shift`` px along x,
    then stood on ``world``'s ground."""
    if phase or shift:
        positions = np.asarray(creature.positions) + np.array([shift, 0.0])
        creature = creature.replace(wave_phase=creature.wave_phase + phase, positions=positions)
    return stand_on_ground(creature, world)


def _jittered_terrain(world: World, rng: np.random.Generator) -> dict:
    """Terrain polylines with each vertex's height moved by N(0, TERRAIN_JITTER) px (vertices at y = 0
    stay on the floor), or an analytic ground's size changed by up to ±RELATIVE."""
    out: dict = {}
    if world.terrain:
        lines = []
        for line in world.terrain:
            points = np.asarray(line, dtype=float)
            lifted = points[:, 1] != 0.0
            points[:, 1] += np.where(lifted, rng.normal(0.0, TERRAIN_JITTER, len(points)), 0.0)
            lines.append([[float(x), float(y)] for x, y in points])
        out["terrain"] = lines
    ground = world.ground
    if not ground.is_flat:
        table = ground.to_value()
        if isinstance(table, dict):
            factor = 1.0 + rng.uniform(-RELATIVE, RELATIVE)
            for key in ("angle", "amplitude", "height"):
                if key in table:
                    table[key] = table[key] * factor
            out["ground"] = table
    return out


def audit_perturbations(creature: Creature, world: World, seed: int = 0) -> list[Perturbation]:
    """The audit's perturbations of ``creature`` in ``world``, in report order: dt halved, each other
    stable integrator, gravity, damping and stiffness -10 % and +10 %, the wave's phase shifted, the start
    shifted along x, and (terrain tasks) the terrain jittered, seeded with ``seed``."""
    out = [
        Perturbation("dt / 2", "dt", dataclasses.replace(world, dt=world.dt / 2), creature),
    ]
    for name in stable_integrators(creature, world):
        out.append(
            Perturbation(
                f"integrator {name}", "integrator", dataclasses.replace(world, integrator=name), creature
            )
        )
    for field in PHYSICS:
        for sign in (-1, 1):
            w = perturbed_world(world, scale={field: 1.0 + sign * RELATIVE})
            out.append(Perturbation(f"{field} {sign * RELATIVE:+.0%}", field, w, moved(creature, w)))
    for phase in PHASES:
        out.append(
            Perturbation(f"wave phase {phase:+.2f} rad", "phase", world, moved(creature, world, phase=phase))
        )
    for shift in SHIFTS:
        out.append(
            Perturbation(f"start {shift:+.0f} px", "shift", world, moved(creature, world, shift=shift))
        )
    if has_terrain(world):
        rng = np.random.default_rng(seed)
        for k in range(TERRAIN_SAMPLES):
            w = perturbed_world(world, terrain_rng=rng)
            out.append(Perturbation(f"terrain jitter #{k + 1}", "terrain", w, moved(creature, w)))
    return out
