"""``evo gallery``: a run folder -> ``gallery/index.html``, one self-contained page.

Each creature shown (the elites, the best of every generation, a MAP-Elites run's archive cells) is
simulated here with :func:`evo.sim.simulate`, in the world stored in its model file, for the frames its
evaluation used (``meta.frames``), and its trajectory is decimated and quantised by :mod:`evo.gallery.data`.
"""

from __future__ import annotations

import math
import os
from html import escape
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.fitness import find_plugin
from evo.gallery.chart import curve_chart_svg, fitness_chart_svg
from evo.gallery.contents import generation_bests
from evo.gallery.data import DEFAULT_MAX_RECORDS, creature_payload, record_trajectory
from evo.gallery.page import header_html, render_page
from evo.gallery.pinned import pinned_genes
from evo.gallery.replay import ground_line
from evo.io.atomic import atomic_write_text
from evo.io.run_folder.contents import Entry, RunContents, archive_entries, read_run
from evo.io.worlds import resolve_world
from evo.run.config import ParsedConfig, run_folder_config
from evo.run.raw_scores import raw_scores
from evo.schema import section_to_dict
from evo.sim import DEFAULT_FRAMES
from evo.sim.world import World

__all__ = ["build_gallery", "gallery_path", "write_gallery"]

GALLERY = Path("gallery") / "index.html"
NATURAL_SHOWN = 3  # natural frequencies shown beside each creature's omega
GROUND_MARGIN = 600.0  # px beyond the creatures' reach that the drawn ground outline covers
ARCHIVE_RECORDS = 300  # records kept of each archive cell's creature (they are many; the elites get more)
ARCHIVE_BUDGET = 60_000  # records of all cells together: a large archive gets fewer per cell (60 at least)


def gallery_path(run_dir: str | os.PathLike) -> Path:
    return Path(run_dir) / GALLERY


def _finite(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else None


def _world(entry: Entry, run: RunContents, config: ParsedConfig | None) -> World:
    layers = [(config.world if config else {}, str(run.path / "config.toml"), "world")]
    layers.append((entry.creature.world, entry.file_name, "world"))
    return resolve_world(layers)


def _frames(entry: Entry, config: ParsedConfig | None) -> float:
    value = entry.provenance.frames if entry.provenance else (config.evaluation.frames if config else None)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return float(DEFAULT_FRAMES)


def _natural_frequencies(entry: Entry, world: World, count: int = NATURAL_SHOWN) -> list[float]:
    """The ``count`` lowest non-zero natural frequencies (rad/frame, ascending) about the rest-length
    equilibrium, as ``evo analyze`` finds them; [] whenever the analysis cannot say."""
    try:
        from evo.analysis import natural_modes

        modes = natural_modes(entry.creature, world)
    except Exception:  # the gallery never fails because of an optional figure
        return []
    if not modes.equilibrium.converged:
        return []
    return [round(float(w), 6) for w in modes.frequencies[:count] if math.isfinite(w)]


def _creature(
    entry: Entry, run: RunContents, config: ParsedConfig | None, max_records: int
) -> tuple[dict[str, Any], World]:
    world = _world(entry, run, config)
    frames = _frames(entry, config)
    trajectory = record_trajectory(entry.creature, world, frames, max_records)
    provenance = entry.provenance
    doc = creature_payload(entry.creature, world, frames, trajectory)
    doc.update(
        name=entry.creature.name,
        file=entry.file_name,
        model=entry.text,
        objectives=list((provenance.objectives if provenance else ()) or run.objectives),
        fitness=list(entry.fitness),
        generation=entry.generation,
        id=provenance.id if provenance else None,
        parents=list(provenance.parents) if provenance else [],
        natural=_natural_frequencies(entry, world),
    )
    raw = raw_scores(run.config, [(entry.creature, provenance.seed if provenance else None)])
    if raw is not None:  # a robust run: the fitness it selected on, and the unperturbed world's beside it
        doc["raw"] = [_finite(v) for v in raw[0] or ()]
    return doc, world


def _track(world: World, creatures: list[dict[str, Any]], plugin: str | None, params: dict) -> dict[str, Any]:
    """Walls, ceiling, terrain, the ground outline (when not flat) over the stretch the creatures reach,
    and the race plugin's finish line (px to the right of each start)."""
    low = min(c["reach"][0] for c in creatures) - GROUND_MARGIN
    high = max(c["reach"][1] for c in creatures) + GROUND_MARGIN
    if world.width is not None:
        low, high = min(low, -GROUND_MARGIN), max(high, world.width + GROUND_MARGIN)
    ground = [[round(x, 2), round(y, 2)] for x, y in ground_line(world, low, high)] or None
    finish = None
    if plugin == "race":
        finish = _finite(params["finish_x"] if "finish_x" in params else _plugin_default(plugin, "finish_x"))
    return {
        "floor": world.contact == "soda",
        "ground": ground,
        "width": world.width,
        "height": world.height,
        "terrain": [[list(p) for p in line] for line in world.terrain],
        "finish": finish,
    }


def _plugin_default(plugin: str, name: str) -> Any:
    """The default of a plugin parameter, from the plugin's own signature (None if it cannot be found)."""
    try:
        return find_plugin(plugin).params.get(name)
    except EvoInputError:
        return None


def _run_facts(run: RunContents, config: ParsedConfig | None, top_count: int, world: World) -> dict[str, Any]:
    meta = run.elites[0].creature.meta
    checkpoint = run.checkpoint or {}
    history = run.history
    done = int(checkpoint["generation"]) + 1 if "generation" in checkpoint else (len(history) or None)
    default = World().to_dict()
    resolved = world.to_dict()
    return {
        "name": config.run.name if config else run.path.name,
        "plugin": config.evaluation.plugin if config else meta.get("plugin"),
        "params": dict((config.evaluation.params if config else None) or meta.get("params") or {}),
        "objectives": list(run.objectives),
        "weights": list(run.weights),
        "population": config.run.population if config else None,
        "generations_done": done,
        "generations_planned": config.run.generations if config else None,
        "seed": config.run.seed if config else checkpoint.get("seed"),
        "date": run.started,
        "evaluations": int(
            sum(r.get("evaluations", 0) for r in history if math.isfinite(r.get("evaluations", 0)))
        )
        if history
        else None,
        "exploded": int(sum(r.get("exploded", 0) for r in history if math.isfinite(r.get("exploded", 0))))
        if history
        else None,
        "frames": config.evaluation.frames if config else None,
        "elites_shown": f"{top_count} of {len(run.elites)}",
        "folder": str(run.path),
        "pinned": pinned_genes(
            [entry.creature for entry in run.elites], section_to_dict(config.genome) if config else {}
        ),
        "world_changed": {k: v for k, v in resolved.items() if default.get(k) != v},
        "world_default": {k: v for k, v in resolved.items() if default.get(k) == v},
    }


def build_gallery(
    run_dir: str | os.PathLike, *, top: int | None = None, max_records: int = DEFAULT_MAX_RECORDS
) -> str:
    """The gallery page of a run folder, as text (see the module docstring)."""
    if top is not None and top < 1:
        raise EvoInputError(f"--top must be at least 1, got {top}")
    run = read_run(run_dir)
    config = run_folder_config(run)  # parsed; its world resolved for each creature below
    elites = run.elites[:top] if top else run.elites
    creatures: dict[str, dict[str, Any]] = {}
    keys_by_digest: dict[str, str] = {}
    worlds = []

    def add(entry: Entry, key: str, records: int = max_records) -> str:
        if entry.digest in keys_by_digest:
            return keys_by_digest[entry.digest]
        doc, world = _creature(entry, run, config, records)
        creatures[key] = doc
        keys_by_digest[entry.digest] = key
        worlds.append(world)
        return key

    elite_keys = [add(entry, f"e{rank}") for rank, entry in enumerate(elites, start=1)]
    first = run.objectives[0] if run.objectives else None
    generations = []
    for best in generation_bests(run, dict(config.world) if config else {}):
        row = next((r for r in run.history if r.get("generation") == best.generation), {})
        generations.append(
            {
                "generation": best.generation,
                "best": _finite(row.get(f"{first}_best")),
                "mean": _finite(row.get(f"{first}_mean")),
                "min": _finite(row.get(f"{first}_min")),
                "key": add(best.entry, f"g{best.generation}") if best.entry else None,
                "exact": best.exact,
            }
        )
    occupied = len((run.archive or {}).get("elites", []))
    per_cell = max(60, min(ARCHIVE_RECORDS, ARCHIVE_BUDGET // max(occupied, 1)))
    archive = _archive_payload(run, add, min(max_records, per_cell))
    facts = _run_facts(run, config, len(elites), worlds[0])
    track = _track(worlds[0], list(creatures.values()), facts["plugin"], facts["params"])
    payload = {
        "run": facts,
        "track": track,
        "creatures": creatures,
        "elites": elite_keys,
        "generations": generations,
        "archive": archive,
    }
    charts = "\n".join(
        fitness_chart_svg(run.history, name, minimise=k < len(run.weights) and run.weights[k] < 0)
        for k, name in enumerate(run.objectives)
    )
    if archive is not None:
        charts += "\n" + curve_chart_svg(run.history, "qd_score", "QD score", colour="#ae3ec9")
        charts += "\n" + curve_chart_svg(run.history, "coverage", "coverage", note="occupied cells / cells")
    if not run.history:
        charts = '<p class="note">This run folder has no history.csv.</p>'
    approximate = [g for g in generations if g["key"] and not g["exact"]]
    note = ""
    if approximate:
        note = (
            f'<p class="note">* For {len(approximate)} of {len(generations)} generations the run folder '
            "no longer holds that generation's own best creature (only the hall of fame and the last "
            "population are kept); the best kept creature born by then is shown instead.</p>"
        )
    finish = (
        f"; the finish line is {escape(str(track['finish']))} px from the start" if track["finish"] else ""
    )
    return render_page(
        title=f"{facts['name']} · evo gallery",
        header=header_html(facts),
        charts=charts,
        payload=payload,
        notes={"GENERATIONS_NOTE": note, "FINISH_NOTE": finish},
    )


def _archive_payload(run: RunContents, add: Any, records: int) -> dict[str, Any] | None:
    """A MAP-Elites run's archive for the page's heatmap (None for a GA run): its shape, figures and
    every occupied cell with the key of its creature's replay."""
    doc = run.archive
    if doc is None:
        return None
    entries = archive_entries(run)
    cells = []
    for cell in doc.get("elites", []):
        entry = entries.get(str(cell.get("id")))
        cells.append(
            {
                "index": cell["index"],
                "grid": cell.get("grid"),
                "measures": cell["measures"],
                "objective": cell["objective"],
                "fitness": [_finite(v) for v in cell.get("fitness", [])],
                "id": cell.get("id"),
                "key": add(entry, f"c{cell['index']}", records) if entry is not None else None,
            }
        )
    return {
        "kind": doc.get("archive"),
        "objective": doc.get("objective"),
        "maximise": doc.get("maximise", True),
        "measures": doc.get("measures"),
        "cells_total": doc.get("cells"),
        "centroids": doc.get("centroids"),
        "stats": {
            k: _finite(v) if not isinstance(v, int) else v for k, v in (doc.get("stats") or {}).items()
        },
        "cells": cells,
    }


def write_gallery(
    run_dir: str | os.PathLike, *, top: int | None = None, max_records: int = DEFAULT_MAX_RECORDS
) -> Path:
    """Write ``RUN_DIR/gallery/index.html`` atomically; returns its path."""
    text = build_gallery(run_dir, top=top, max_records=max_records)
    path = gallery_path(run_dir)
    # a new page gets the permissions of any new file; never written through a linked gallery/
    atomic_write_text(path, text, inside=run_dir)
    return path
