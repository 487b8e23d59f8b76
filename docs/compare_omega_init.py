"""Summarise the omega_init comparison of docs/analysis.md: a Markdown table and an SVG of two fitness curves.

    python docs/compare_omega_init.py FOLDER [--seeds 10] [--svg docs/omega_init.svg]

FOLDER holds the run folders ``random_<seed>`` and ``resonant_<seed>`` made by the loop in docs/analysis.md.
Averages over the seeds the ``distance_best`` and ``distance_mean`` columns of each run's history.csv; the
difference is resonant - random per seed, +- its standard error.
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

MODES = ("random", "resonant")
COLOURS = {"random": "#868e96", "resonant": "#d9480f"}
SHOWN = (0, 1, 2, 4, 9, 14, 19)


def column(folder: Path, name: str) -> list[float]:
    with (folder / "history.csv").open(encoding="utf-8", newline="") as handle:
        return [float(row[name]) for row in csv.DictReader(handle)]


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def standard_error(xs: list[float]) -> float:
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))


def table(data: dict, seeds: list[int]) -> str:
    lines = [
        "| generation | best, random | best, resonant | difference | resonant best ahead "
        "| mean, random | mean, resonant | difference |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for g in SHOWN:
        cells = [str(g)]
        for stat in ("best", "mean"):
            random = [data["random", stat][s][g] for s in seeds]
            resonant = [data["resonant", stat][s][g] for s in seeds]
            diff = [b - a for a, b in zip(random, resonant, strict=True)]
            cells += [f"{mean(random):.0f}", f"{mean(resonant):.0f}"]
            cells.append(f"{mean(diff):+.0f} ± {standard_error(diff):.0f}".replace("-", "−"))
            if stat == "best":
                cells.append(f"{sum(d > 0 for d in diff)}/{len(seeds)}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def svg(data: dict, seeds: list[int], width: int = 720, height: int = 300) -> str:
    left, right, top, bottom = 60, 150, 20, 40
    curves = {
        (mode, stat): [
            mean([data[mode, stat][s][g] for s in seeds]) for g in range(len(data[mode, stat][seeds[0]]))
        ]
        for mode in MODES
        for stat in ("best", "mean")
    }
    n = len(next(iter(curves.values())))
    high = max(max(c) for c in curves.values())
    step = 10 ** math.floor(math.log10(high)) / 2
    high = math.ceil(high / step) * step
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(g: float) -> float:
        return left + g / max(n - 1, 1) * plot_w

    def y(v: float) -> float:
        return top + (1 - max(v, 0.0) / high) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fbfbfd" stroke="#dee2e6"/>',
    ]
    v = 0.0
    while v <= high + 1e-9:
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e9ecef"/>'
        )
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
        v += step
    for g in range(0, n, 5):
        out.append(f'<text x="{x(g):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{g}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">generation</text>')
    out.append(
        f'<text x="14" y="{top + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + plot_h / 2})">distance (px), mean of {len(seeds)} seeds</text>'
    )
    for k, ((mode, stat), values) in enumerate(curves.items()):
        points = " ".join(f"{x(g):.1f},{y(val):.1f}" for g, val in enumerate(values))
        dash = ' stroke-dasharray="5 3"' if stat == "mean" else ""
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{COLOURS[mode]}" stroke-width="2"{dash}/>'
        )
        ly = top + 14 + 18 * k
        out.append(
            f'<line x1="{left + plot_w + 12}" x2="{left + plot_w + 36}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{COLOURS[mode]}" stroke-width="2"{dash}/>'
        )
        out.append(f'<text x="{left + plot_w + 42}" y="{ly}">{stat}, {mode}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--svg", type=Path)
    args = parser.parse_args()
    seeds = list(range(1, args.seeds + 1))
    data = {
        (mode, stat): {s: column(args.folder / f"{mode}_{s}", f"distance_{stat}") for s in seeds}
        for mode in MODES
        for stat in ("best", "mean")
    }
    print(table(data, seeds))
    for mode in MODES:
        last = ", ".join(f"{data[mode, 'best'][s][19]:.0f}" for s in seeds)
        print(f"best of generation 19, {mode}: {last}")
    if args.svg:
        args.svg.write_text(svg(data, seeds), encoding="utf-8")


if __name__ == "__main__":
    main()
