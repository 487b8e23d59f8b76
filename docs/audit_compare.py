"""Robust scoring against plain scoring on tasks of the suite, and the audit of both winners (docs/audit.md).

    nice python docs/audit_compare.py [--tasks flat-walk bumps-race] [--seeds 1 2 3] [--samples 4]

For each task and seed: the GA at the task's budget (``evo tasks run TASK --method ga``), and the same run
with ``[evaluation] robust = {samples = K}`` (the same children, each simulated K times). Both winners
are audited on the task (``evo audit --task``). Writes docs/audit_compare.json, a poster of each seed-1
winner under docs/audit/, and the Markdown table into docs/audit.md between ``<!-- compare -->`` markers.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from evo.audit import audit
from evo.gallery.poster import poster_svg
from evo.run.evolve import evolve
from evo.sim import simulate
from evo.tasks import task_named

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "audit.md"
PICTURES = ROOT / "docs" / "audit"


def winner(task, seed: int, robust: dict | None):
    config = task.config("ga", seed)
    if robust is not None:
        config = config.replace(evaluation={"robust": robust})
    start = time.process_time()
    best = evolve(config, out=None, progress=False).best
    return best.creature, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=["flat-walk", "bumps-race"])
    parser.add_argument("--seeds", nargs="*", type=int, default=[1, 2, 3])
    parser.add_argument("--samples", type=int, default=4)
    args = parser.parse_args()
    PICTURES.mkdir(exist_ok=True)
    rows = []
    for name in args.tasks:
        task = task_named(name)
        for seed in args.seeds:
            for label, robust in (("plain", None), ("robust", {"samples": args.samples})):
                creature, cpu = winner(task, seed, robust)
                report = audit(creature, task.spec)
                rows.append(
                    {
                        "task": task.label,
                        "seed": seed,
                        "scoring": label,
                        "score": report.score,
                        "audit_robust": report.robust,
                        "worst": min(s.score for s in report.perturbed),
                        "flags": [f.to_dict() for f in report.flags],
                        "cpu_seconds": round(cpu, 1),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
                if seed == args.seeds[0]:
                    world = task.spec.world
                    trajectory = simulate(creature, world, task.spec.frames, record_every=5)
                    named = creature.replace(name=f"{task.id}, {label} scoring, seed {seed}")
                    path = PICTURES / f"{task.id}_{label}.svg"
                    path.write_text(poster_svg(named, world, trajectory), encoding="utf-8")
    (ROOT / "docs" / "audit_compare.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    lines = [
        "| task | seed | scoring | task score | audit's robust score | worst perturbed | flags |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        flags = "; ".join(f"{f['kind']}" + (f" (frame {f['frame']:g})" if f["frame"] is not None else "") for f in r["flags"])
        lines.append(
            f"| {r['task']} | {r['seed']} | {r['scoring']} | {r['score']:.0f} | {r['audit_robust']:.0f} | "
            f"{r['worst']:.0f} | {flags or 'none'} |"
        )
    summary = []
    for name in args.tasks:
        for label in ("plain", "robust"):
            mine = [r for r in rows if r["task"].startswith(name + " ") and r["scoring"] == label]
            summary.append(
                f"- {name}, {label}: task score {statistics.fmean(r['score'] for r in mine):.0f} on average, the "
                f"audit's robust score {statistics.fmean(r['audit_robust'] for r in mine):.0f}, "
                f"{sum(len(r['flags']) for r in mine)} flag(s) over {len(mine)} winners, "
                f"{statistics.fmean(r['cpu_seconds'] for r in mine):.1f} s CPU per run"
            )
    block = "\n".join(lines) + "\n\n" + "\n".join(summary) + "\n"
    text = DOC.read_text(encoding="utf-8")
    text = re.sub(r"<!-- compare -->.*<!-- /compare -->", lambda _: f"<!-- compare -->\n{block}<!-- /compare -->", text, flags=re.S)
    DOC.write_text(text, encoding="utf-8")
    print(block)


if __name__ == "__main__":
    main()
