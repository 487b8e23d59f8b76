"""``evo audit MODEL``: re-simulate a creature under perturbations, print each score, the robust score and
the exploits flagged with their frames and evidence (docs/audit.md)."""

from __future__ import annotations

import argparse
import json
import math

from evo.audit import audit
from evo.audit.report import QUANTILE, AuditReport, with_rank_flags
from evo.cli._common import add_world_arguments, creature_and_world
from evo.cli._fitness import plugin_spec
from evo.errors import EvoInputError
from evo.fitness.evaluate import EvaluationSpec
from evo.io.models import load_model

NAME = "audit"
HELP = "re-simulate a creature under perturbations: each score, a robust score, and the exploits flagged"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="MODEL",
        nargs="+",
        help="model file (.json or .xml); several are also ranked against each other under each integrator",
    )
    parser.add_argument(
        "--plugin", default="distance", metavar="NAME", help="fitness plugin (default: distance)"
    )
    parser.add_argument("--params", metavar="JSON", help="the plugin's keyword arguments, a JSON object")
    parser.add_argument(
        "--plugin-path", action="append", default=[], metavar="PATH", help="a folder or .py file of plugins"
    )
    parser.add_argument("--frames", type=int, metavar="N", help="frames (default: the run's, or 3000)")
    parser.add_argument("--seed", type=int, default=None, help="the plugin's seed (default: the run's, or 0)")
    parser.add_argument(
        "--task", metavar="NAME", help="score as the task NAME does (its world, frames, plugin and params)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    add_world_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.frames is not None and args.frames < 1:
        raise EvoInputError(f"--frames: expected an integer >= 1, got {args.frames}")
    audited = [_audited(path, args) for path in args.model]
    reports = [report for report, _ in audited]
    ranks = None
    if len(reports) > 1:  # several creatures: does their ranking depend on the integrator?
        reports, ranks = with_rank_flags(reports, audited[0][1])
    if args.json:
        docs = [{"model": path, **r.to_dict()} for path, r in zip(args.model, reports, strict=True)]
        print(json.dumps(docs[0] if ranks is None else {"models": docs, "ranks": ranks}, indent=1))
        return 0
    for path, report, (_, spec) in zip(args.model, reports, audited, strict=True):
        _print(path, report, spec)
    if ranks is not None:
        names = list(ranks)
        width = max(len(p) for p in args.model)
        print("ranks: " + "  ".join(names))
        for k, path in enumerate(args.model):
            print(f"  {path.ljust(width)}  " + "  ".join(str(ranks[n][k]).rjust(len(n)) for n in names))
    return 0


def _audited(path: str, args: argparse.Namespace) -> tuple[AuditReport, EvaluationSpec]:
    creature = load_model(path)
    if args.task:
        from evo.tasks import task_named

        given = [f"--{o.replace('_', '-')}" for o in ("params", "frames", "world") if getattr(args, o)]
        if given or args.set or args.plugin != "distance":
            drop = ", ".join(given) or "--plugin/--set"
            raise EvoInputError(f"--task fixes the world, frames, plugin and params; drop {drop}")
        spec, seed = task_named(args.task).spec, args.seed or 0
    else:
        creature, world = creature_and_world(creature, args, path)
        spec, seed = plugin_spec(creature, args, world, args.frames)
    return audit(creature, spec, plugin_seed=seed), spec


def _print(path: str, report: AuditReport, spec: EvaluationSpec) -> None:
    what = f"{spec.plugin.name}, {spec.frames} frames"
    print(f"{path}: {report.objective} {_figure(report.score)} ({what})")
    width = max(len(s.name) for s in report.perturbed)
    for s in report.perturbed:
        print(f"  {s.name.ljust(width)}  {_figure(s.score)}")
    share = f"quantile {QUANTILE:g} of the {len(report.perturbed)} above"
    print(f"robust score ({share}): {_figure(report.robust)}")
    if not report.flags:
        print("flags: none")
    for flag in report.flags:
        where = f" at frame {flag.frame:g}" if flag.frame is not None else ""
        print(f"FLAG {flag.kind}{where}: {flag.evidence}")


def _figure(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else "exploded"
