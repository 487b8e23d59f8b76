"""``audit()``: a creature re-simulated under the audit's perturbations, each score, the robust score (a low
quantile) and the flags of its nominal run (docs/audit.md)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from evo.audit.flags import Flag, energy_blow_up, ground_penetration, integrator_dependence, launch, lunge
from evo.audit.perturb import audit_perturbations
from evo.audit.robust import low_quantile
from evo.fitness import load_ref
from evo.fitness.evaluate import EvaluationSpec, evaluate
from evo.model import Creature
from evo.sim import simulate
from evo.sim.placement import stand_on_ground

__all__ = ["QUANTILE", "AuditReport", "Scored", "audit", "integrator_ranks", "with_rank_flags"]

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
    objective, sign = _objective(spec)
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
            sign,
        ),
    ]
    return AuditReport(
        objective=objective,
        score=float(nominal.fitness[0]),
        perturbed=tuple(scored),
        robust=low_quantile([s.score for s in scored], QUANTILE, sign > 0),
        flags=tuple(f for f in flags if f is not None),
    )


def _objective(spec: EvaluationSpec) -> tuple[str, float]:
    """The plugin's first objective and its sign (1: maximised, -1: minimised)."""
    plugin = load_ref(spec.plugin)
    name = plugin.objectives[0] if plugin.objectives else plugin.name
    return name, 1.0 if plugin.weights[0] > 0 else -1.0


def integrator_ranks(reports: Sequence[AuditReport], spec: EvaluationSpec) -> dict[str, list[int]]:
    """The creatures of ``reports`` ranked (1: the best) under the spec's integrator and under each
    integrator (and dt / 2) that every report has: ``{"euler": [1, 2, 3], "rk4": [3, 1, 2], ...}``."""
    names = [{s.name for s in r.perturbed if s.kind in ("dt", "integrator")} for r in reports]
    common = sorted(set.intersection(*names)) if names else []
    columns = {spec.world.integrator: [r.score for r in reports]}
    for name in common:
        columns[name.removeprefix("integrator ")] = [
            next(s.score for s in r.perturbed if s.name == name) for r in reports
        ]
    sign = _objective(spec)[1]
    out = {}
    for name, scores in columns.items():
        order = sorted(range(len(scores)), key=lambda i: -sign * scores[i])  # stable: ties keep their order
        ranks = [0] * len(scores)
        for rank, i in enumerate(order, start=1):
            ranks[i] = rank
        out[name] = ranks
    return out


def with_rank_flags(reports: Sequence[AuditReport], spec: EvaluationSpec) -> tuple[list[AuditReport], dict]:
    """Audits of several creatures compared: each creature whose rank among them moves by more than a
    quarter of their number (at least 2 places) under another integrator (or dt / 2) gets an
    integrator-dependence flag saying so. Returns the reports and the ranks (:func:`integrator_ranks`)."""
    ranks = integrator_ranks(reports, spec)
    shift = max(1, len(reports) // 4)  # ranks may swap with a neighbour or two without a flag
    nominal_name = spec.world.integrator
    nominal = ranks[nominal_name]
    out = []
    for i, report in enumerate(reports):
        moved = {name: r[i] for name, r in ranks.items() if abs(r[i] - nominal[i]) > shift}
        if not moved:
            out.append(report)
            continue
        others = ", ".join(f"{rank} with {name}" for name, rank in moved.items())
        evidence = f"ranks {nominal[i]} of {len(reports)} with {nominal_name}; {others}"
        flag = Flag("integrator dependence", None, evidence)
        out.append(dataclasses.replace(report, flags=(*report.flags, flag)))
    return out, ranks
