"""A still SVG poster of one creature's run (``evo replay --svg``): the whole run at a glance, then
close-ups at equally spaced moments, drawn like the gallery page and the GIF (:mod:`evo.gallery.replay`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

import numpy as np

from evo.analysis.drawing import svg_polygon_path
from evo.gallery.data import wave_angles
from evo.gallery.replay import (
    FIXED,
    GROUND,
    GROUND_LINE,
    LABEL,
    MARKER,
    MASS,
    SKY,
    TERRAIN,
    WALL,
    Camera,
    creature_shapes,
    extents,
    fit_scale,
    ground_line,
    marker_spacing,
    polygon_shapes,
)
from evo.model import Creature
from evo.sim.simulate import Trajectory
from evo.sim.world import World

__all__ = ["poster_svg"]

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
FONT = {"font_family": "sans-serif"}


def _hex(colour: tuple[int, ...]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def _attr(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    if isinstance(value, tuple):
        return _hex(value)
    return escape(str(value))


def _tag(name: str, text: str | None = None, **attrs: object) -> str:
    """``<name a="1" b-c="2"/>``; an underscore in a keyword stands for a hyphen."""
    items = " ".join(f'{k.replace("_", "-")}="{_attr(v)}"' for k, v in attrs.items())
    return f"<{name} {items}/>" if text is None else f"<{name} {items}>{escape(text)}</{name}>"


def _points(cam: Camera, points) -> str:
    return " ".join(f"{cam.px(x):.1f},{cam.py(y):.1f}" for x, y in points)


def _scene(
    creature: Creature, world: World, cam: Camera, start: float, poses: list[tuple[np.ndarray, float, float]]
) -> list[str]:
    """One view: sky, ground, floor markers (px from ``start``), walls, ceiling, terrain, then each
    (positions, theta, opacity) pose of the creature: its polygons, links and masses."""
    w, h = cam.width, cam.height
    out = [_tag("rect", width=w, height=h, fill=SKY)]
    line = ground_line(world, cam.left, cam.right)
    floor = cam.py(0.0)
    if line:
        outline = _points(cam, line)
        corners = f"{cam.px(line[0][0]):.1f},{h} {outline} {cam.px(line[-1][0]):.1f},{h}"
        out.append(_tag("polygon", points=corners, fill=GROUND))
        out.append(_tag("polyline", points=outline, fill="none", stroke=GROUND_LINE, stroke_width=2))
    else:
        out.append(_tag("rect", x=0, y=floor, width=w, height=max(h - floor, 0.0), fill=GROUND))
    if world.contact == "soda":
        out.append(_tag("line", x1=0, x2=w, y1=floor, y2=floor, stroke=GROUND_LINE, stroke_width=2))
    spacing = marker_spacing(cam.scale)
    for j in range(math.ceil((cam.left - start) / spacing), math.floor((cam.right - start) / spacing) + 1):
        x = cam.px(start + j * spacing)
        out.append(_tag("line", x1=x, x2=x, y1=floor, y2=floor + 6, stroke=MARKER))
        label = f"{j * spacing:g}" + (" px" if j == 0 else "")
        out.append(
            _tag("text", label, x=x, y=floor + 18, font_size=11, text_anchor="middle", fill=LABEL, **FONT)
        )
    for x in [0.0, world.width] if world.width is not None else []:
        out.append(_tag("line", x1=cam.px(x), x2=cam.px(x), y1=0, y2=h, stroke=WALL, stroke_width=3))
    if world.height is not None:
        y = cam.py(world.height)
        out.append(_tag("line", x1=0, x2=w, y1=y, y2=y, stroke=WALL, stroke_width=3))
    for poly in world.terrain:
        out.append(_tag("polyline", points=_points(cam, poly), fill="none", stroke=TERRAIN, stroke_width=3))
    for positions, theta, opacity in poses:
        lines, dots = creature_shapes(creature, positions, theta, cam, 1.0)
        out.append(f'<g opacity="{opacity:.2f}">')
        for corners, fill, curvy in polygon_shapes(creature, positions, cam):
            out.append(_tag("path", d=svg_polygon_path(corners, curvy), fill=fill))
        for x1, y1, x2, y2, colour, width in lines:
            out.append(
                _tag(
                    "line",
                    x1=x1,
                    y1=y1,
                    x2=x2,
                    y2=y2,
                    stroke=colour,
                    stroke_width=width,
                    stroke_linecap="round",
                )
            )
        for x, y, r, fixed in dots:
            if fixed:
                out.append(_tag("rect", x=x - r, y=y - r, width=2 * r, height=2 * r, fill=FIXED))
            else:
                out.append(_tag("circle", cx=x, cy=y, r=r, fill=MASS))
        out.append("</g>")
    return out


def poster_svg(
    creature: Creature, world: World, trajectory: Trajectory, *, panels: int = 5, width: int = 960
) -> str:
    """The poster: a title; the whole run at a glance (the creature at the start and at each panel's
    moment, fainter earlier, solid at the end; the centroid's path dotted); then ``panels`` close-ups at
    equally spaced moments, each centred on the creature, with distance markers."""
    positions = np.nan_to_num(trajectory.positions, nan=0.0, posinf=1e6, neginf=-1e6)
    thetas = wave_angles(creature, world, trajectory)
    centroid = positions.mean(axis=1)
    start, end = float(centroid[0, 0]), float(centroid[-1, 0])
    span = extents(positions)
    picks = np.unique(np.linspace(0, positions.shape[0] - 1, panels + 1).round().astype(int))
    top, panel_h, gap = 34, 170, 8
    left, right = float(positions[:, :, 0].min()) - 20, float(positions[:, :, 0].max()) + 20
    scale = min(fit_scale(span, width, 150, 0.8), (width - 20) / max(right - left, 1.0))
    overview_h = int(min(150, max(70, (span[1] + 20) * scale / 0.6 + 30)))  # no more sky than needed
    height = top + overview_h + gap + panel_h + 24
    overview = Camera((left + right) / 2, 0.3 * overview_h / scale, scale, width, overview_h)
    title = (
        f"{creature.name}: {end - start:+.0f} px in {trajectory.frames[-1]:g} frames · "
        f"{creature.n_masses} masses, {creature.n_links} links, {creature.n_muscles} muscles · "
        f"ω {creature.omega:.3g}, β {creature.beta:.3g}"
    )
    if trajectory.exploded:  # the run stopped there: say so where the eye starts
        title = f"EXPLODED at frame {exploded_frame(trajectory):g} · " + title
    out = [
        f'<svg xmlns="{SVG_NAMESPACE}" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{escape(creature.name)}</title>",
        _tag("rect", width=width, height=height, fill="#ffffff"),
        _tag("text", title, x=10, y=22, font_size=14, fill=MASS, **FONT),
        f'<g transform="translate(0 {top})">',
    ]
    ghosts = [
        (positions[r], float(thetas[r]), 1.0 if r == picks[-1] else 0.2 + 0.5 * n / len(picks))
        for n, r in enumerate(picks)
    ]
    out += _scene(creature, world, overview, start, ghosts)
    path = _points(overview, centroid[:: max(1, len(centroid) // 300)])
    out.append(_tag("polyline", points=path, fill="none", stroke="#495057", stroke_dasharray="2 4"))
    out.append("</g>")
    panel_w = (width - gap * (len(picks) - 2)) / max(len(picks) - 1, 1)
    close = fit_scale(span, panel_w, panel_h, 0.75)
    for n, r in enumerate(picks[1:]):
        x0, y0 = n * (panel_w + gap), top + overview_h + gap
        cam = Camera(float(centroid[r, 0]), 0.3 * panel_h / close, close, panel_w, panel_h)
        out.append(f'<svg x="{x0:.1f}" y="{y0}" width="{panel_w:.1f}" height="{panel_h}">')
        out += _scene(creature, world, cam, start, [(positions[r], float(thetas[r]), 1.0)])
        out.append("</svg>")
        label = f"frame {trajectory.frames[r]:g}: {centroid[r, 0] - start:+.0f} px"
        x, y = x0 + panel_w / 2, y0 + panel_h + 16
        out.append(_tag("text", label, x=x, y=y, font_size=12, text_anchor="middle", fill=LABEL, **FONT))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def exploded_frame(trajectory: Trajectory) -> float:
    """The frame at which an exploded run stopped (its last record when the simulator did not say)."""
    frame = trajectory.exploded_frame
    return float(frame if frame is not None else trajectory.frames[-1])


def terrain_svg(terrain: Sequence[Sequence[tuple[float, float]]], name: str, *, width: int = 960) -> str:
    """A picture of a terrain file: its polylines over the floor, with distance markers (px)."""
    points = np.array([point for line in terrain for point in line], dtype=float).reshape(-1, 2)
    left, right = float(points[:, 0].min()) - 20, float(points[:, 0].max()) + 20
    top = max(float(points[:, 1].max()), 1.0)
    height = 240
    scale = max(0.03, min(4.0, (width - 20) / max(right - left, 1.0), 0.8 * height / (top + 40.0)))
    world = World(terrain=[[list(point) for point in line] for line in terrain])
    camera = Camera((left + right) / 2, 0.35 * height / scale, scale, width, height)
    segments = sum(len(line) - 1 for line in terrain)
    title = f"{name}: terrain, {len(terrain)} polyline(s) of {segments} segment(s)"
    title += f", x {left + 20:g}..{right - 20:g} px"
    tall = height + 34
    out = [
        f'<svg xmlns="{SVG_NAMESPACE}" width="{width}" height="{tall}" viewBox="0 0 {width} {tall}">',
        f"<title>{escape(name)}</title>",
        _tag("rect", width=width, height=tall, fill="#ffffff"),
        _tag("text", title, x=10, y=22, font_size=14, fill=MASS, **FONT),
        '<g transform="translate(0 34)">',
        *_scene(None, world, camera, 0.0, []),  # type: ignore[arg-type]  # no creature: no poses
        "</g>",
        "</svg>",
    ]
    return "\n".join(out) + "\n"
