"""``evo tasks list | run NAME | verify RECORD | table``: the task suite, a search on one task, the check of a
result record, and the baselines (docs/tasks.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evo.errors import EvoInputError
from evo.tasks import METHODS, load_suite, read_record, run_task, task_named, verify_record
from evo.tasks.baselines import baselines_table, format_table, read_baselines
from evo.tasks.runner import RECORD_NAME

NAME = "tasks"
HELP = "the task suite: list it, run a search on a task, verify a result record, print the baselines"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    listing = sub.add_parser("list", help="the tasks, their versions, budgets and goals")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    run = sub.add_parser("run", help="search a task at its budget; writes a run folder and its result record")
    run.add_argument("name", metavar="NAME", help="the task (evo tasks list names them)")
    run.add_argument("--method", default="ga", choices=METHODS, help="the search method (default: ga)")
    run.add_argument("--seed", type=int, default=1, help="the run's seed (default: 1)")
    run.add_argument("--out", metavar="DIR", help="the run folder (default: runs/NAME-METHOD-sSEED)")
    run.add_argument("--workers", type=int, default=1, metavar="N", help="evaluation processes (default: 1)")
    run.add_argument("--force", action="store_true", help="start over in an existing run folder")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    verify = sub.add_parser("verify", help="re-simulate a result record: does its score reproduce?")
    verify.add_argument("record", metavar="RECORD", help="a result record (result.json of evo tasks run)")
    table = sub.add_parser("table", help="every task with its baselines (mean, spread and best over seeds)")
    table.add_argument("--json", action="store_true", help="print the rows as JSON")


def run(args: argparse.Namespace) -> int:
    return {"list": _list, "run": _run, "verify": _verify, "table": _table}[args.action](args)


def _list(args: argparse.Namespace) -> int:
    tasks = load_suite()
    if args.json:
        rows = [
            {
                "id": t.id,
                "version": t.version,
                "title": t.section.title,
                "goal": t.section.goal,
                "budget": t.section.budget,
                "frames": t.spec.frames,
                "plugin": t.spec.plugin.name,
                "body": t.section.body,
                "methods": list(t.methods),
                "physics_hash": t.physics_hash(),
            }
            for t in tasks
        ]
        print(json.dumps({"tasks": rows}, indent=1))
        return 0
    width = max(len(t.label) for t in tasks)
    for t in tasks:
        body = f", body {Path(t.section.body).stem}" if t.section.body else ""
        print(
            f"{t.label.ljust(width)}  {t.section.title}: {t.spec.plugin.name}, {t.spec.frames} frames, "
            f"budget {t.section.budget} evaluations{body}"
        )
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise EvoInputError(f"--workers: expected an integer >= 1, got {args.workers}")
    task = task_named(args.name)
    out = Path(args.out) if args.out else Path("runs") / f"{task.id}-{args.method}-s{args.seed}"
    record = run_task(
        task, args.method, args.seed, out=out, workers=args.workers, progress=not args.quiet, force=args.force
    )
    print(
        f"{task.label} {args.method} seed {args.seed}: {record.objective} {record.score:.6g} after "
        f"{record.evaluations} evaluations; record {out / RECORD_NAME}"
    )
    return 0


def _verify(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    print(verify_record(record, source=args.record))
    return 0


def _table(args: argparse.Namespace) -> int:
    rows = baselines_table(load_suite(), read_baselines())
    if args.json:
        print(json.dumps({"rows": rows}, indent=1))
        return 0
    for line in format_table(rows):
        print(line)
    return 0
