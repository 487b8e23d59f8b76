"""The baselines of the task suite: every search method on every task, over each task's seeds (docs/tasks.md).

    nice python docs/tasks_baselines.py [--jobs 2] [--tasks flat-walk jump ...] [--methods ga refine ...]

Each (task, method, seed) is one ``evo.tasks.run_task`` at the task's budget, in memory, one evaluation
process each, ``--jobs`` of them at a time. Writes the best seed's result record of each method to
evo/tasks/baselines/records/TASK_METHOD.json, the table to evo/tasks/baselines/table.json (what
``evo tasks table`` prints), the plot docs/tasks_baselines.svg, and the Markdown table into docs/tasks.md
between its ``<!-- baselines -->`` markers; prints the table and the wall time.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import platform
import re
import time
from pathlib import Path

from evo.io.task_files import write_json_document
from evo.tasks import load_suite, run_task, task_named, write_record
from evo.tasks.baselines import BASELINES, baselines_table, read_baselines, summarize

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "tasks.md"
PLOT = ROOT / "docs" / "tasks_baselines.svg"
COLOURS = {
    "random": "#999999",
    "ga": "#1f77b4",
    "map-elites": "#2ca02c",
    "memetic": "#d62728",
    "refine": "#ff7f0e",
}


def one(job: tuple[str, str, int]):
    name, method, seed = job
    start = time.process_time()
    record = run_task(task_named(name), method, seed)
    return job, record, time.process_time() - start


def markdown(rows: list[dict]) -> str:
    lines = [
        "| task | method | budget | seeds | mean | spread (sd) | best | objective |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        figures = [f"{r[k]:.1f}" if r[k] is not None else "-" for k in ("mean", "spread", "best")]
        lines.append(
            f"| {r['task']} | {r['method']} | {r['budget']} | {r['seeds']} | "
            + " | ".join(figures)
            + f" | {r['objective']} |"
        )
    return "\n".join(lines)


def plot(rows: list[dict]) -> str:
    """One group of bars per task: each method's mean over the seeds, as a share of the task's best
    score of any method and seed, with its spread as a whisker."""
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    bar, gap, height, left, top = 12, 18, 220, 50, 20
    width = left + len(tasks) * (5 * bar + gap) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 120}" font-family="sans-serif" font-size="10">',
        f'<line x1="{left}" y1="{top + height}" x2="{width - 10}" y2="{top + height}" stroke="black"/>',
    ]
    for k in range(0, 11, 2):
        y = top + height - k / 10 * height
        out.append(f'<text x="{left - 6}" y="{y + 3}" text-anchor="end">{k / 10:.1f}</text>')
        out.append(f'<line x1="{left}" y1="{y}" x2="{width - 10}" y2="{y}" stroke="#eee"/>')
    for i, task in enumerate(tasks):
        mine = [r for r in rows if r["task"] == task and r["mean"] is not None]
        best = max((r["best"] for r in mine), default=0.0)
        x0 = left + gap / 2 + i * (5 * bar + gap)
        for j, r in enumerate(mine):
            share = max(0.0, r["mean"] / best) if best > 0 else 0.0
            spread = r["spread"] / best if best > 0 else 0.0
            x = x0 + j * bar
            y = top + height - min(share, 1.0) * height
            out.append(
                f'<rect x="{x}" y="{y:.1f}" width="{bar - 2}" height="{top + height - y:.1f}" fill="{COLOURS[r["method"]]}"/>'
            )
            y1 = top + height - min(1.0, share + spread) * height
            y2 = top + height - max(0.0, share - spread) * height
            out.append(
                f'<line x1="{x + bar / 2 - 1}" y1="{y1:.1f}" x2="{x + bar / 2 - 1}" y2="{y2:.1f}" stroke="black"/>'
            )
        cx = x0 + 2.5 * bar
        out.append(
            f'<text x="{cx}" y="{top + height + 12}" text-anchor="end" transform="rotate(-40 {cx} {top + height + 12})">{task}</text>'
        )
    for j, (method, colour) in enumerate(COLOURS.items()):
        out.append(
            f'<rect x="{left + 90 * j}" y="{top + height + 80}" width="10" height="10" fill="{colour}"/>'
        )
        out.append(f'<text x="{left + 90 * j + 14}" y="{top + height + 89}">{method}</text>')
    out.append(f'<text x="{left}" y="12">mean over seeds / best score of the task (whisker: 1 sd)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tasks", nargs="*")
    parser.add_argument("--methods", nargs="*")
    args = parser.parse_args()
    tasks = [t for t in load_suite() if not args.tasks or t.id in args.tasks]
    jobs = [
        (t.id, m, s)
        for t in tasks
        for m in t.methods
        if not args.methods or m in args.methods
        for s in t.section.seeds
    ]
    start = time.perf_counter()
    done: dict[tuple[str, str], list] = {}
    cpu = 0.0
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for (name, method, _seed), record, seconds in pool.imap_unordered(one, jobs):
            done.setdefault((name, method), []).append(record)
            cpu += seconds
            print(f"{name} {method} seed {record.seed}: {record.score:.6g} ({seconds:.1f} s CPU)", flush=True)
    wall = time.perf_counter() - start
    kept = {(b.task, b.method): b for b in read_baselines()}
    for (name, method), records in done.items():
        records.sort(key=lambda r: r.seed)
        best = max(records, key=lambda r: r.score if math.isfinite(r.score) else -math.inf)
        file = f"records/{name}_{method}.json"
        write_record(best, BASELINES / file)
        kept[(name, method)] = summarize(records, file)
    order = {t.id: i for i, t in enumerate(load_suite())}
    rows_out = sorted(kept.values(), key=lambda b: (order.get(b.task, 99), b.method))
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs (shared)"
    write_json_document(
        BASELINES / "table.json",
        {
            "machine": machine,
            "wall_seconds": round(wall, 1),
            "cpu_seconds": round(cpu, 1),
            "baselines": [b.to_dict() for b in rows_out],
        },
    )
    rows = baselines_table(load_suite(), read_baselines())
    table = markdown(rows)
    PLOT.write_text(plot(rows), encoding="utf-8")
    text = DOC.read_text(encoding="utf-8")
    stamp = (
        f"\n\n(The last run of the script: {len(jobs)} searches, {wall / 60:.1f} min wall, {cpu / 60:.1f} min CPU, "
        f"{args.jobs} jobs, {machine}.)\n"
    )
    text = re.sub(
        r"<!-- baselines -->.*<!-- /baselines -->",
        lambda _: f"<!-- baselines -->\n{table}{stamp}<!-- /baselines -->",
        text,
        flags=re.S,
    )
    DOC.write_text(text, encoding="utf-8")
    print(table)
    print(f"{len(jobs)} searches in {wall:.0f} s wall, {cpu:.0f} s CPU")


if __name__ == "__main__":
    main()
