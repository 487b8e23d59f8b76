"""``audit()``: a creature re-simulated under the audit's perturbations, each score, the robust score (a low
quantile) and the flags of its nominal run (docs/audit.md)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from evo.audit.flags import Flag, energy_blow_up, ground_penetration, integrator_dependence, launch, lunge
from evo.audit.perturb import audit_perturbations
from evo.audit.robust import low_quantile
from evo.fitness import load_ref
from evo.fitness.evaluate import EvaluationSpec, evaluate
from evo.model import Creature
from evo.sim import simulate
from evo.sim.placement import stand_on_ground

__all__ = ["QUANTILE", "AuditReport", "Scored", "audit"]

QUANTILE = 0.2  # the robust score: this quantile of the perturbed scores (numpy's "lower": a real score)


@dataclass(frozen=True)
class Scored:
    """One perturbation's outcome: its name and kind, the score (-inf: exploded) and whether it exploded."""

    name: str
    kind: str
    score: float
    exploded: bool


@dataclass(frozen=True)
class AuditReport:
    """What :func:`audit` found.

    Attributes:
        objective: the plugin's objective name.
        score: the creature's score in the nominal world.
        perturbed: one :class:`Scored` per perturbation, in order.
        robust: the QUANTILE-quantile of the perturbed scores.
        flags: the suspected exploits, each with its frame and evidence.
    """

    objective: str
    score: float
    perturbed: tuple[Scored, ...]
    robust: float
    flags: tuple[Flag, ...]

    def to_dict(self) -> dict:
        """A JSON-friendly mapping (an exploded score is null)."""

        def number(v: float) -> float | None:
            return v if math.isfinite(v) else None

        return {
            "objective": self.objective,
            "score": number(self.score),
            "robust": number(self.robust),
            "quantile": QUANTILE,
            "perturbations": [
                {"name": s.name, "kind": s.kind, "score": number(s.score), "exploded": s.exploded}
                for s in self.perturbed
            ],
            "flags": [f.to_dict() for f in self.flags],
        }


def audit(creature: Creature, spec: EvaluationSpec, *, seed: int = 0, plugin_seed: int = 0) -> AuditReport:
    """Audit ``creature`` under the evaluation ``spec`` (world, frames, plugin and params).

    Args:
        creature: the creature (stood on the spec's ground first).
        spec: how it is scored.
        seed: seeds the jittered terrains.
        plugin_seed: the seed the plugin is called with.

    Returns:
        The :class:`AuditReport`.
    """
    world = spec.world
    creature = stand_on_ground(creature, world)
    nominal = evaluate(creature, spec, plugin_seed)
    objective = _objective(spec)
    scored = []
    for p in audit_perturbations(creature, world, seed):
        outcome = evaluate(p.creature, dataclasses.replace(spec, world=p.world), plugin_seed)
        scored.append(Scored(p.name, p.kind, float(outcome.fitness[0]), outcome.exploded))
    trajectory = simulate(creature, world, spec.frames, record_every=world.dt)
    settle = float(spec.params.get("settle_frames", 0) or 0)
    flags = [
        energy_blow_up(trajectory, creature, world),
        launch(trajectory, world),
        lunge(trajectory, settle),
        ground_penetration(trajectory, creature, world),
        integrator_dependence(
            float(nominal.fitness[0]),
            world.integrator,
            {s.name.removeprefix("integrator "): s.score for s in scored if s.kind in ("dt", "integrator")},
        ),
    ]
    return AuditReport(
        objective=objective,
        score=float(nominal.fitness[0]),
        perturbed=tuple(scored),
        robust=low_quantile([s.score for s in scored], QUANTILE),
        flags=tuple(f for f in flags if f is not None),
    )


def _objective(spec: EvaluationSpec) -> str:
    plugin = load_ref(spec.plugin)
    return plugin.objectives[0] if plugin.objectives else plugin.name
