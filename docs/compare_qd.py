"""The GA against MAP-Elites on examples/diverse_walkers.toml, with the same number of evaluations (docs/qd.md).

    python docs/compare_qd.py [--seeds 1 2 3 4 5] [--workers 2] [--json docs/qd_compare.json] [--svg docs/qd_compare.svg]

For each seed: MAP-Elites is the example as it is (``evo.evolve``); the GA is the same config with
``[run] algorithm = "ga"`` (population 200, the [ga] defaults), run with ``evo.Evolution`` ask/tell on the
same worker pool until it has made as many evaluations, and every creature it evaluated is put into an
archive of the example's shape. Both archives are then measured the same way: coverage, QD score, the best
distance, and the number of distinct body plans among the 10 best creatures each method gives back (for the
GA its hall of fame; for MAP-Elites its 10 best cells), a body plan being the number of masses and the link
graph up to isomorphism (a Weisfeiler-Lehman hash). Prints a Markdown table; writes the numbers as JSON and
the seed-1 archives as an SVG of two heatmaps.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from pathlib import Path

import numpy as np

import evo
from evo.ga.brood import Brood
from evo.qd.archive import make_archive
from evo.qd.state import ArchiveSpec, Elite, archive_statistics
from evo.run.backends import Task, make_backend
from evo.run.config import qd_settings
from evo.run.job import BreedContext, breed_and_evaluate
from evo.sim import warm_up

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "diverse_walkers.toml"
TOP = 10


def body_plan(creature: evo.Creature, rounds: int = 3) -> tuple[int, int, str]:
    """(masses, links, a Weisfeiler-Lehman hash of the link graph): equal for isomorphic bodies."""
    n = creature.n_masses
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(creature.link_a.tolist(), creature.link_b.tolist(), strict=True):
        neighbours[a].append(b)
        neighbours[b].append(a)
    labels = [str(len(neighbours[i])) for i in range(n)]
    for _ in range(rounds):
        labels = [
            hashlib.sha1((labels[i] + "|" + ",".join(sorted(labels[j] for j in neighbours[i]))).encode()).hexdigest()[:12]
            for i in range(n)
        ]
    return n, creature.n_links, hashlib.sha1(",".join(sorted(labels)).encode()).hexdigest()[:12]


def map_elites(config: evo.Config, workers: int) -> dict:
    result = evo.evolve(config, workers=workers, progress=False)
    archive = result.archive
    evaluations = int(result.history["evaluations"].sum())
    top = archive.best(TOP)
    return {
        "evaluations": evaluations,
        "coverage": archive.coverage,
        "qd_score": archive.qd_score,
        "best": max(c.objective for c in archive.cells),
        "plans_top10": len({body_plan(c.member.creature) for c in top}),
        "cells": {c.index: c.objective for c in archive.cells},
    }


def ga_with_archive(config: evo.Config, budget: int, workers: int) -> dict:
    """The GA of ``config`` until ``budget`` evaluations, every evaluated creature put into the archive."""
    ga_config = config.replace(run={"algorithm": "ga"})
    spec_me = config.evaluation_spec()  # with the measures
    settings = qd_settings(config, ("distance",), (1.0,))
    shape: ArchiveSpec = settings.archive
    archive = make_archive(shape, config.run.seed)
    evolution = evo.Evolution(ga_config.loop_settings())
    context = BreedContext(spec_me, ga_config.genome, ga_config.ga)
    store: dict[int, Elite] = {}
    evaluated = 0
    with make_backend(breed_and_evaluate, context, workers, before_fork=lambda: warm_up(spec_me.world)) as backend:
        while evaluated < budget:
            broods: list[Brood] = evolution.ask()
            results = backend.run([Task(i, b, b.evaluations) for i, b in enumerate(broods)])
            for kids in results:
                for creature, outcome in kids:
                    if creature is None or evaluated >= budget:
                        continue
                    evaluated += 1
                    if outcome.exploded or not math.isfinite(outcome.fitness[0]):
                        continue
                    scaled = shape.scaled([outcome.measures])
                    archive.add(solution=[evaluated], objective=[outcome.fitness[0]], measures=scaled)
                    cell = int(archive.index_of(scaled)[0])
                    store[evaluated] = Elite(cell, tuple(outcome.measures), outcome.fitness[0], creature)
            evolution.tell(results)
    data = archive.data(["solution", "index", "objective"])
    elites = [store[int(s)] for s in data["solution"]]
    stats = archive_statistics(elites, shape)
    hall = list(evolution.hall_of_fame)[:TOP]
    return {
        "evaluations": evaluated,
        "generations": evolution.generation + 1,
        "coverage": stats["coverage"],
        "qd_score": stats["qd_score"],
        "best": stats["obj_max"],
        "plans_top10": len({body_plan(ind.creature) for ind in hall}),
        "plans_top10_of_archive": len(
            {body_plan(e.individual) for e in sorted(elites, key=lambda e: -e.objective)[:TOP]}
        ),
        "cells": {e.index: e.objective for e in elites},
    }


# -- the figure ----------------------------------------------------------------------------------------
VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"]


def colour(value: float, low: float, high: float) -> str:
    t = 0.0 if high <= low else min(max((value - low) / (high - low), 0.0), 1.0)
    return VIRIDIS[min(int(t * len(VIRIDIS)), len(VIRIDIS) - 1)]


def heatmaps_svg(panels: list[tuple[str, dict]], spec: ArchiveSpec, cell: int = 26) -> str:
    bins_x, bins_y = spec.bins
    (x_low, x_high), (y_low, y_high) = spec.ranges
    values = [v for _, cells in panels for v in cells.values()]
    low, high = min(values), max(values)
    left, top, gap = 60, 40, 70
    panel_w, panel_h = bins_x * cell, bins_y * cell
    width = left + len(panels) * (panel_w + gap) + 40
    height = top + panel_h + 70
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for p, (title, cells) in enumerate(panels):
        x0 = left + p * (panel_w + gap)
        out.append(f'<text x="{x0 + panel_w / 2}" y="{top - 14}" text-anchor="middle" font-size="14">{title}</text>')
        out.append(f'<rect x="{x0}" y="{top}" width="{panel_w}" height="{panel_h}" fill="#f1f3f5" stroke="#adb5bd"/>')
        for index, value in cells.items():
            i, j = np.unravel_index(index, spec.bins)
            x, y = x0 + i * cell, top + (bins_y - 1 - j) * cell
            out.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{colour(value, low, high)}">'
                f"<title>{spec.measures[0]} bin {i}, {spec.measures[1]} bin {j}: {value:.0f} px</title></rect>"
            )
        for i in range(bins_x):
            count = x_low + (i + 0.5) * (x_high - x_low) / bins_x
            out.append(f'<text x="{x0 + (i + 0.5) * cell}" y="{top + panel_h + 14}" text-anchor="middle">{count:.0f}</text>')
        out.append(f'<text x="{x0 + panel_w / 2}" y="{top + panel_h + 32}" text-anchor="middle">{spec.measures[0]}</text>')
        for j in range(0, bins_y + 1, 3):
            value = y_low + j * (y_high - y_low) / bins_y
            out.append(f'<text x="{x0 - 6}" y="{top + panel_h - j * cell + 4}" text-anchor="end">{value:.0f}</text>')
        out.append(
            f'<text x="{x0 - 40}" y="{top + panel_h / 2}" text-anchor="middle" '
            f'transform="rotate(-90 {x0 - 40} {top + panel_h / 2})">{spec.measures[1]} (px)</text>'
        )
    bar_x, bar_y = left, top + panel_h + 44
    for k, c in enumerate(VIRIDIS):
        out.append(f'<rect x="{bar_x + k * 30}" y="{bar_y}" width="30" height="10" fill="{c}"/>')
    out.append(f'<text x="{bar_x + 10 * 30 + 8}" y="{bar_y + 9}">distance (px): {low:.0f} to {high:.0f}; grey: empty</text>')
    out.append("</svg>")
    return "\n".join(out)


def mean_sd(values: list[float]) -> str:
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / max(len(values) - 1, 1))
    return f"{m:.3g} ± {sd:.2g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--iterations", type=int, help="override the example's [run] generations (a quick try)")
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "qd_compare.json")
    parser.add_argument("--svg", type=Path, default=ROOT / "docs" / "qd_compare.svg")
    args = parser.parse_args()
    base = evo.Config.from_toml(EXAMPLE)
    rows = []
    for seed in args.seeds:
        config = base.replace(run={"seed": seed, "generations": args.iterations or base.run.generations})
        started = time.perf_counter()
        me = map_elites(config, args.workers)
        middle = time.perf_counter()
        ga = ga_with_archive(config, me["evaluations"], args.workers)
        print(
            f"seed {seed}: MAP-Elites {middle - started:.0f} s, GA {time.perf_counter() - middle:.0f} s "
            f"({ga['generations']} generations), {me['evaluations']} evaluations each",
            flush=True,
        )
        rows.append({"seed": seed, "map_elites": me, "ga": ga})
    spec = qd_settings(base, ("distance",), (1.0,)).archive
    first = rows[0]
    args.svg.write_text(
        heatmaps_svg(
            [
                (f"GA: every evaluated creature (seed {first['seed']})", first["ga"]["cells"]),
                (f"MAP-Elites archive (seed {first['seed']})", first["map_elites"]["cells"]),
            ],
            spec,
        )
        + "\n"
    )
    args.json.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"\n{len(rows)} seeds, {rows[0]['map_elites']['evaluations']} evaluations per run; mean ± sd\n")
    print("| | GA | MAP-Elites |")
    print("| --- | ---: | ---: |")
    for key, label in (
        ("coverage", "coverage"),
        ("qd_score", "QD score"),
        ("best", "best distance (px)"),
        ("plans_top10", "distinct body plans in the top 10"),
    ):
        ga = [r["ga"][key] for r in rows]
        me = [r["map_elites"][key] for r in rows]
        print(f"| {label} | {mean_sd(ga)} | {mean_sd(me)} |")
    extra = [r["ga"]["plans_top10_of_archive"] for r in rows]
    print(f"\nGA, 10 best cells of its archive: {mean_sd(extra)} distinct body plans")
    for r in rows:
        print(
            f"seed {r['seed']}: GA coverage {r['ga']['coverage']:.3f} QD {r['ga']['qd_score']:.0f} "
            f"best {r['ga']['best']:.0f} plans {r['ga']['plans_top10']} | ME coverage "
            f"{r['map_elites']['coverage']:.3f} QD {r['map_elites']['qd_score']:.0f} best "
            f"{r['map_elites']['best']:.0f} plans {r['map_elites']['plans_top10']}"
        )


if __name__ == "__main__":
    main()
