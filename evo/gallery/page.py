"""The gallery's one HTML file: the template and scripts under ``evo/gallery/static/`` with the run's
header, charts and data put in.

Everything is inline and the page loads nothing (its Content-Security-Policy forbids it); the data is
escaped JSON in a ``<script>`` element (docs/gallery.md).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import PurePath
from typing import Any

from evo.io.assets import package_text

__all__ = ["SCRIPTS", "header_html", "render_page", "static_text"]

SCRIPTS = ("replay.js", "views.js", "archive.js", "evolution.js")  # in this order: later ones use the earlier


def static_text(name: str) -> str:
    """The text of a file shipped under ``evo/gallery/static/``."""
    return package_text("evo.gallery", "static", name)


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return str(value)


def _pairs(rows: list[tuple[str, Any]]) -> str:
    items = "".join(
        f"<div><dt>{escape(str(k))}</dt><dd>{escape(_value(v))}</dd></div>" for k, v in rows if v is not None
    )
    return f"<dl>{items}</dl>"


def header_html(run: dict[str, Any]) -> str:
    """The run's header: name, plugin and params, population, generations, seed, date, evaluations and
    the world parameters (those that differ from the defaults first; the rest folded away)."""
    params = ", ".join(f"{k}={_value(v)}" for k, v in run["params"].items())
    plugin = f"{run['plugin']}({params})" if run.get("plugin") else "–"
    subtitle = " · ".join(
        part
        for part in (
            f"fitness plugin {plugin}",
            f"objectives {', '.join(run['objectives'])}" if run["objectives"] else "",
            f"started {run['date']}" if run.get("date") else "",
        )
        if part
    )
    done = run.get("generations_done")
    planned = run.get("generations_planned")
    generations = (
        f"{done} of {planned}" if done is not None and planned not in (None, done) else done or planned
    )
    facts = [
        ("population", run.get("population")),
        ("generations", generations),
        ("seed", run.get("seed")),
        ("evaluations", run.get("evaluations")),
        ("exploded", run.get("exploded")),
        ("frames per evaluation", run.get("frames")),
        ("elites shown", run.get("elites_shown")),
        ("run folder", run.get("folder")),
    ]
    changed, same = _terrain_told(run["world_changed"]), _terrain_told(run["world_default"])
    world = _pairs(list(changed.items())) if changed else "<p>the default world</p>"
    rest = (
        f"<details><summary>all {len(changed) + len(same)} world parameters</summary>"
        f"{_pairs(list({**changed, **same}.items()))}</details>"
    )
    pinned = "".join(
        f'<p class="note">{escape(note)}: the range may be what stops them; widen it to let evolution go '
        "further</p>\n"
        for note in run.get("pinned", [])
    )
    return (
        f'<h1>{escape(run["name"])}</h1>\n<p class="subtitle">{escape(subtitle)}</p>\n{_pairs(facts)}\n'
        f"{pinned}<h2>World</h2>\n{world}\n{rest}"
    )


def _terrain_told(world: dict[str, Any]) -> dict[str, Any]:
    """The world's parameters with its terrain told in words (the file it was read from, polylines and
    segments), not coordinates."""
    terrain = world.get("terrain")
    if not terrain:
        return world
    lines = [line for line in terrain if isinstance(line, list | tuple)]
    segments = sum(max(len(line) - 1, 0) for line in lines)
    xs = [float(point[0]) for line in lines for point in line]
    span = f", x {min(xs):g}..{max(xs):g} px" if xs else ""
    told = {k: v for k, v in world.items() if k != "terrain_file"}
    named = world.get("terrain_file")
    file = f"{PurePath(named).name} — " if isinstance(named, str) and named else ""
    return {**told, "terrain": f"{file}{len(lines)} polyline(s) of {segments} segment(s){span}"}


def render_page(
    *, title: str, header: str, charts: str, payload: dict[str, Any], notes: dict[str, str]
) -> str:
    """The whole page. ``header`` and ``charts`` are trusted markup; ``notes`` maps the template's
    ``GENERATIONS_NOTE`` and ``FINISH_NOTE`` to trusted markup (or "")."""
    data = json.dumps(payload, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    data = data.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    script = "\n".join(static_text(name) for name in SCRIPTS)
    page = static_text("page.html")
    parts = {
        "<!--TITLE-->": escape(title),
        "<!--STYLE-->": static_text("gallery.css"),
        "<!--HEADER-->": header,
        "<!--CHARTS-->": charts,
        "<!--GENERATIONS_NOTE-->": notes.get("GENERATIONS_NOTE", ""),
        "<!--FINISH_NOTE-->": notes.get("FINISH_NOTE", ""),
    }
    for marker, text in parts.items():
        page = page.replace(marker, text, 1)
    # data and scripts last, so that no marker-like text inside them is ever replaced
    head, _, tail = page.partition("<!--DATA-->")
    tail_head, _, tail_tail = tail.partition("<!--SCRIPT-->")
    return head + data + tail_head + script.replace("</script", "<\\/script") + tail_tail
