"""``evo audit``: a creature re-simulated under perturbations with its exploits flagged, and robust scoring
over seeded perturbed worlds for ``[evaluation] robust`` (docs/audit.md)."""

from evo.audit.flags import Flag
from evo.audit.perturb import Perturbation, audit_perturbations, stable_integrators
from evo.audit.report import AuditReport, Scored, audit
from evo.audit.robust import RobustSettings, low_quantile, robust_evaluation

__all__ = [
    "AuditReport",
    "Flag",
    "Perturbation",
    "RobustSettings",
    "Scored",
    "audit",
    "audit_perturbations",
    "low_quantile",
    "robust_evaluation",
    "stable_integrators",
]
