"""``evo inspect RUN_DIR``: the leaderboard of a run -- its elites, best first; for a MAP-Elites run the
archive's figures first, and each elite's cell and measures."""

from __future__ import annotations

import argparse
import json
import math
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
    from evo.io.run_folder.contents import read_run
    from evo.run.raw_scores import raw_scores

    contents = read_run(run_dir, require_elites=False)
    seeds = [(e.creature, e.provenance.seed if e.provenance else None) for e in contents.elites]
    raw = raw_scores(contents.config, seeds)  # a robust run: each elite in the unperturbed world too
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
        if "cell" in meta:
            rows[-1].update(cell=meta["cell"], measures=dict(meta.get("measures") or {}))
        if raw is not None:
            rows[-1]["raw_fitness"] = [v if math.isfinite(v) else str(v) for v in raw[rank - 1] or ()]
    return rows


def archive_summary(run_dir: Path) -> dict[str, Any] | None:
    """The figures of a MAP-Elites run's ``archive.json`` (None for a GA run)."""
    from evo.io.run_folder.folder import RunFolder

    doc = RunFolder(run_dir).read_archive()
    if doc is None:
        return None
    return {
        k: doc.get(k)
        for k in ("archive", "generation", "objective", "maximise", "cells", "measures", "stats")
    }


def _archive_lines(run_dir: Path, summary: dict[str, Any]) -> list[str]:
    axes = summary["measures"] or []
    shape = " x ".join(str(a.get("bins", "?")) for a in axes) if summary["archive"] == "grid" else "CVT"
    over = ", ".join(f"{a['name']} [{a['low']:g}, {a['high']:g}]" for a in axes)
    stats = summary["stats"] or {}
    return [
        f"{run_dir}: MAP-Elites archive, {shape} ({summary['cells']} cells) over {over}; iteration "
        f"{summary['generation']}",
        f"  {stats.get('num_elites')} cells occupied (coverage {_number(stats.get('coverage'))}), "
        f"QD score {_number(stats.get('qd_score'))} (normalised {_number(stats.get('norm_qd_score'))}), "
        f"{summary['objective']} best {_number(stats.get('obj_max'))} mean {_number(stats.get('obj_mean'))}",
    ]


def _number(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


def run(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir)
    rows = leaderboard(run_dir)
    summary = archive_summary(run_dir)
    if args.json:
        print(json.dumps(rows if summary is None else {"archive": summary, "elites": rows}))
        return 0
    if summary is not None:
        print("\n".join(_archive_lines(run_dir, summary)))
    if not rows:
        print(f"{run_dir}: no elites yet")
        return 0
    measures = [a["name"] for a in summary["measures"]] if summary is not None else []
    objectives = ", ".join(rows[0]["objectives"]) or "fitness"
    robust = "raw_fitness" in rows[0]
    if robust:  # the fitness the run selected on, then the same creature in the unperturbed world
        objectives = f"{objectives} (robust)"
    header = ["rank", objectives, *(["raw"] if robust else []), *(["cell", *measures] if summary else [])]
    # the body's own columns, less those a measure already shows (masses, omega)
    body = [
        (name, value)
        for name, value in (
            ("gen", lambda r: "" if r["generation"] is None else str(r["generation"])),
            ("masses", lambda r: str(r["masses"])),
            ("links", lambda r: str(r["links"])),
            ("muscles", lambda r: str(r["muscles"])),
            ("ω (rad/frame)", lambda r: f"{r['omega']:.4f}"),
            ("β", lambda r: f"{r['beta']:.3f}"),
        )
        if name.split(" ")[0] not in measures and not (name.startswith("ω") and "omega" in measures)
    ]
    header += [name for name, _ in body] + ["file"]
    table = []
    for r in rows:
        cells = [str(r["rank"]), _fitness_text(r["fitness"])]
        cells += [_fitness_text(r["raw_fitness"])] if robust else []
        if summary is not None:
            values = r.get("measures", {})
            cells += [str(r.get("cell", "")), *(_number(values.get(m, "")) for m in measures)]
        table.append(cells + [value(r) for _, value in body] + [Path(r["file"]).name])
    widths = [max(len(h), *(len(row[k]) for row in table)) for k, h in enumerate(header)]
    left = {len(header) - 1}  # the file name reads better left-aligned

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if k in left else c.rjust(w)
            for k, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    print(f"{run_dir}: {len(rows)} elites" + (" (the best cells)" if summary is not None else ""))
    print(line(header))
    for row in table:
        print(line(row))
    for note in _pinned(run_dir):
        print(f"note: {note}: the range may be what stops them; widen it to let evolution go further")
    return 0


def _pinned(run_dir: Path) -> list[str]:
    """:func:`evo.gallery.pinned.pinned_genes` of the run's elites, with its ``[genome]`` table."""
    from evo.gallery.pinned import pinned_genes
    from evo.io.run_folder.contents import read_run
    from evo.run.config import run_folder_config
    from evo.schema import section_to_dict

    contents = read_run(run_dir, require_elites=False)
    config = run_folder_config(contents)
    genome = section_to_dict(config.genome) if config else {}
    return pinned_genes([entry.creature for entry in contents.elites], genome)
