"""``evo inspect RUN_DIR``: the leaderboard of a run -- its elites, best first."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

NAME = "inspect"
HELP = "print the leaderboard of a run folder (its elites, best first)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder (runs/<name>/)")
    parser.add_argument("--json", action="store_true", help="print the leaderboard as JSON instead")


def _fitness_text(values: list[Any]) -> str:
    out = []
    for v in values:
        out.append(f"{v:.6g}" if isinstance(v, int | float) and not isinstance(v, bool) else str(v))
    return ", ".join(out)


def leaderboard(run_dir: Path) -> list[dict[str, Any]]:
    """One row per elite, in rank order: the hall of fame of the run's last checkpoint (a consistent
    generation even while the run is being written), or its elite files when it has no checkpoint."""
    from evo.io.runs import read_run

    contents = read_run(run_dir, require_elites=False)
    rows = []
    for rank, entry in enumerate(contents.elites, start=1):
        creature = entry.creature
        meta = creature.meta if isinstance(creature.meta, dict) else {}
        rows.append(
            {
                "rank": rank,
                "fitness": list(meta.get("fitness", [])),
                "objectives": list(meta.get("objectives", [])),
                "generation": meta.get("generation"),
                "masses": creature.n_masses,
                "links": creature.n_links,
                "muscles": creature.n_muscles,
                "omega": creature.omega,
                "beta": creature.beta,
                "file": str(Path(run_dir) / "elites" / entry.file_name),
            }
        )
    return rows


def run(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir)
    rows = leaderboard(run_dir)
    if args.json:
        print(json.dumps(rows))
        return 0
    if not rows:
        print(f"{run_dir}: no elites yet")
        return 0
    objectives = ", ".join(rows[0]["objectives"]) or "fitness"
    header = ["rank", objectives, "gen", "masses", "links", "muscles", "ω (rad/frame)", "β", "file"]
    table = [
        [
            str(r["rank"]),
            _fitness_text(r["fitness"]),
            "" if r["generation"] is None else str(r["generation"]),
            str(r["masses"]),
            str(r["links"]),
            str(r["muscles"]),
            f"{r['omega']:.4f}",
            f"{r['beta']:.3f}",
            Path(r["file"]).name,
        ]
        for r in rows
    ]
    widths = [max(len(h), *(len(row[k]) for row in table)) for k, h in enumerate(header)]
    left = {len(header) - 1}  # the file name reads better left-aligned

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if k in left else c.rjust(w)
            for k, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    print(f"{run_dir}: {len(rows)} elites")
    print(line(header))
    for row in table:
        print(line(row))
    return 0
