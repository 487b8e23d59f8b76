"""What a Jupyter notebook shows for a creature (an animated SVG replay) and for a run (its fitness chart
and its best creatures). Self-contained markup: SVG with SMIL animation, no script, no file."""

from __future__ import annotations

import math
from html import escape
from typing import Any

import numpy as np

from evo.gallery.chart import fitness_chart_svg
from evo.gallery.replay import SPRING, ground_line, marker_spacing
from evo.model import Creature
from evo.sim import DEFAULT_FRAMES, World, simulate

__all__ = ["animated_svg", "creature_html", "run_html"]

KEYFRAMES = 150  # pictures per replay (the browser interpolates between them)
SPEED = 2.0  # frames are played at 120 per second (the applet ran at about 60)
MUSCLE = "#d9480f"
MASS = "#212529"


def _hex(colour: tuple[int, ...]) -> str:
    return "#" + "".join(f"{c:02x}" for c in colour)


def _values(series: np.ndarray) -> str:
    return ";".join(f"{v:.1f}" for v in series)


def _animate(attribute: str, series: np.ndarray, seconds: float) -> str:
    return (
        f'<animate attributeName="{attribute}" values="{_values(series)}" dur="{seconds:.2f}s" '
        'repeatCount="indefinite" calcMode="linear"/>'
    )


def animated_svg(
    creature: Creature,
    world: World | None = None,
    frames: float | None = None,
    *,
    width: int = 420,
    height: int = 200,
) -> str:
    """An ``<svg>`` replay of ``creature`` simulated for ``frames`` (default: its run's frames, else
    :data:`~evo.sim.DEFAULT_FRAMES`), the camera following its centroid, with distance marks."""
    world = world or World.from_model(creature)
    if frames is None:
        meta_frames = creature.meta.get("frames") if isinstance(creature.meta, dict) else None
        frames = meta_frames if isinstance(meta_frames, int) and meta_frames > 0 else DEFAULT_FRAMES
    steps = max(1, round(frames / world.dt))
    stride = max(1, steps // KEYFRAMES)
    frames = stride * (steps // stride) * world.dt
    trajectory = simulate(creature, world, frames, record_every=stride * world.dt)
    positions = trajectory.positions
    centre = positions[:, :, 0].mean(axis=1)
    reach = max(float(np.max(np.abs(positions[:, :, 0] - centre[:, None]))), 20.0)
    top = max(float(positions[:, :, 1].max()), 20.0)
    scale = min(0.45 * width / reach, 0.8 * height / (top + 10.0), 4.0)
    floor_y = height - 16.0
    xs = (positions[:, :, 0] - centre[:, None]) * scale + width / 2
    ys = floor_y - positions[:, :, 1] * scale
    seconds = max(2.0, float(trajectory.frames[-1]) / (60.0 * SPEED))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" style="background:#f8f9fa">'
    ]
    # the ground and the distance marks move with the camera
    shift = -(centre - centre[0]) * scale
    start = float(centre[0])
    spacing = marker_spacing(scale)
    left, right = float(centre.min()) - width / scale, float(centre.max()) + width / scale
    moves = ";".join(f"{s:.1f} 0" for s in shift)
    parts.append(
        f'<g><animateTransform attributeName="transform" type="translate" values="{moves}" '
        f'dur="{seconds:.2f}s" repeatCount="indefinite"/>'
    )

    def sx(x: float) -> float:
        return (x - start) * scale + width / 2

    outline = ground_line(world, left, right)
    if outline:
        points = " ".join(f"{sx(x):.1f},{floor_y - y * scale:.1f}" for x, y in outline)
        parts.append(f'<polyline points="{points}" fill="none" stroke="#6b5b3e" stroke-width="2"/>')
    else:
        parts.append(
            f'<line x1="{sx(left):.1f}" y1="{floor_y}" x2="{sx(right):.1f}" y2="{floor_y}" '
            'stroke="#6b5b3e" stroke-width="2"/>'
        )
    mark = math.ceil((left - start) / spacing) * spacing
    while mark <= right - start:
        x = mark * scale + width / 2
        parts.append(f'<line x1="{x:.1f}" y1="{floor_y}" x2="{x:.1f}" y2="{floor_y + 5}" stroke="#868e96"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{height - 2}" font-size="9" fill="#868e96" text-anchor="middle">'
            f"{mark:+.0f}</text>"
        )
        mark += spacing
    parts.append("</g>")
    order = sorted(range(creature.n_links), key=lambda i: bool(creature.is_muscle[i]))
    for i in order:
        a, b = int(creature.link_a[i]), int(creature.link_b[i])
        muscle = bool(creature.is_muscle[i])
        colour, stroke = (MUSCLE, 2.5) if muscle else (_hex(SPRING), 1.2)
        parts.append(f'<line stroke="{colour}" stroke-width="{stroke}" stroke-linecap="round">')
        for name, series in (("x1", xs[:, a]), ("y1", ys[:, a]), ("x2", xs[:, b]), ("y2", ys[:, b])):
            parts.append(_animate(name, series, seconds))
        parts.append("</line>")
    for i in range(creature.n_masses):
        parts.append(f'<circle r="3" fill="{MASS}">')
        parts.append(_animate("cx", xs[:, i], seconds) + _animate("cy", ys[:, i], seconds))
        parts.append("</circle>")
    label = f"{creature.name}: {creature.n_masses} masses, {creature.n_links} links, {frames:g} frames"
    parts.append(f'<text x="6" y="13" font-size="11" fill="#495057">{escape(label)}</text>')
    if trajectory.exploded:
        note = f"exploded at frame {trajectory.exploded_frame:g}"
        parts.append(f'<text x="6" y="27" font-size="11" fill="#c92a2a">{note}</text>')
    parts.append("</svg>")
    return "".join(parts)


def creature_html(creature: Creature) -> str:
    """``Creature._repr_html_``: the animated replay."""
    return animated_svg(creature)


def run_html(result: Any, top: int = 3) -> str:
    """``RunResult._repr_html_``: a headline, the first objective's fitness chart and the best creatures."""
    config = result.config
    objectives = result.objectives or tuple(
        name[: -len("_best")] for name in result.history.dtype.names or () if name.endswith("_best")
    )
    rows = [{name: float(row[name]) for name in result.history.dtype.names} for row in result.history]
    where = f" in {escape(str(result.folder))}" if result.folder else " (in memory)"
    head = (
        f"<h4>run {escape(config.run.name)}{where}: {result.generation + 1} of {config.run.generations} "
        f"generations of {config.run.population}, plugin '{escape(config.evaluation.plugin)}'</h4>"
    )
    parts = ["<div>", head]
    if objectives and rows:
        minimise = bool(result.evolution and result.evolution.settings.weights[0] < 0)
        parts.append(fitness_chart_svg(rows, objectives[0], minimise=minimise))
    world = config.world
    for rank, member in enumerate(result.hall_of_fame[:top], start=1):
        values = ", ".join(f"{n} {v:.6g}" for n, v in zip(member.objectives, member.fitness, strict=False))
        parts.append(f"<p>#{rank} {escape(member.id)} (generation {member.generation}): {escape(values)}</p>")
        parts.append(animated_svg(member.creature, world, config.evaluation.frames))
    parts.append("</div>")
    return "".join(parts)
