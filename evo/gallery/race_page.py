"""``evo gallery RACE.xml``: a Sodarace race file as one self-contained page -- evo's ranking, a card per
contender and the race played at once on the race's terrain, with its finish line (docs/gallery.md)."""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Any

from evo.gallery.build import _track
from evo.gallery.data import DEFAULT_MAX_RECORDS, creature_payload, record_step
from evo.gallery.page import render_page
from evo.io.atomic import atomic_write_text
from evo.io.models import dumps_model
from evo.io.soda_race import read_race
from evo.race import RaceResult, run_race
from evo.sim import Trajectory

__all__ = ["build_race_page", "race_page_path", "write_race_page"]


def race_page_path(race_path: str | os.PathLike) -> Path:
    """Where ``evo gallery RACE.xml`` writes the page: ``RACE.html`` beside the race file."""
    return Path(race_path).with_suffix(".html")


def _decimated(trajectory: Trajectory, step: int) -> Trajectory:
    """Every ``step``-th record (the page's replays need evenly spaced records)."""
    keep = list(range(0, len(trajectory.frames), step))
    return Trajectory(trajectory.frames[keep], trajectory.positions[keep], trajectory.velocities[keep],
                      trajectory.exploded, trajectory.exploded_frame)  # fmt: skip


def _ranking_html(result: RaceResult) -> str:
    rows = []
    for s in result.standings:
        if s.finished:
            how = f"finished at frame {s.frames:g}"
        else:
            how = f"{s.distance:+.1f} px in {s.frames:g} frames"
        if s.exploded:
            how += f" · EXPLODED at frame {s.exploded_frame:g}"
        rows.append(
            f"<tr><td>{s.rank}</td><td>{escape(s.name)}</td><td>{s.index}</td><td>{escape(how)}</td>"
            f"<td>{s.distance:+.1f}</td></tr>"
        )
    head = "<tr><th>rank</th><th>name</th><th>contender</th><th>result</th><th>distance (px)</th></tr>"
    body = "".join(rows)
    table = f'<table id="race-ranking"><thead>{head}</thead><tbody>{body}</tbody></table>'
    return f'<div class="table-wrap">{table}</div>'


def build_race_page(
    race_path: str | os.PathLike,
    *,
    frames: float | None = None,
    finish_x: float | None | str = "terrain",
    max_records: int = DEFAULT_MAX_RECORDS,
) -> str:
    """The page of a race file (arguments as :func:`evo.race.run_race`); every number on it is evo's."""
    race = read_race(race_path)
    result = run_race(race, frames=frames, finish_x=finish_x)
    creatures: dict[str, dict[str, Any]] = {}
    by_index = {s.index: s for s in result.standings}
    for k, (creature, world, trajectory) in enumerate(
        zip(result.creatures, result.worlds, result.trajectories, strict=True)
    ):
        step = max(1, round(record_step(result.frames, world.dt, max_records) / world.dt))
        shown = _decimated(trajectory, step)
        doc = creature_payload(creature, world, result.frames, shown)
        standing = by_index[k + 1]
        doc.update(
            name=creature.name,
            file=f"contender-{k + 1}.json",
            model=dumps_model(creature),
            objectives=["distance"],
            fitness=[standing.distance],
            generation=None,
            id=f"contender {k + 1}",
            parents=[],
            natural=[],
            finish=None if result.finish_x is None else round(result.finish_x - doc["start_x"], 2),
        )
        creatures[f"r{k + 1}"] = doc
    keys = [f"r{s.index}" for s in result.standings]
    track = _track(result.worlds[0], list(creatures.values()), None, {})
    track["finish_x"] = result.finish_x
    name = Path(race_path).stem
    line = f"finish line at x = {result.finish_x:g} px" if result.finish_x is not None else "no finish line"
    header = (
        f'<h1>{escape(name)}</h1>\n<p class="subtitle">Sodarace race file {escape(str(race_path))}: '
        f"{len(result.standings)} contenders, {result.frames:g} frames, {escape(line)}</p>"
    )
    payload = {
        "run": {"name": name, "objectives": ["distance"], "plugin": None, "params": {}},
        "track": track,
        "creatures": creatures,
        "elites": keys,
        "generations": [],
        "archive": None,
        "race": {"finish_x": result.finish_x, "frames": result.frames},
    }
    return render_page(
        title=f"{name} · evo race",
        header=header,
        charts=_ranking_html(result),
        payload=payload,
        notes={"GENERATIONS_NOTE": "", "FINISH_NOTE": f"; {escape(line)}"},
    )


def write_race_page(
    race_path: str | os.PathLike, out: str | os.PathLike | None = None, **options: Any
) -> Path:
    """Write :func:`build_race_page` atomically to ``out`` (default :func:`race_page_path`); its path."""
    path = Path(out) if out is not None else race_page_path(race_path)
    atomic_write_text(path, build_race_page(race_path, **options))
    return path
