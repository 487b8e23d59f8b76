"""Pictures of a race (``evo race --gif / --svg``): every contender on the race's terrain with the finish
line, each labelled in its own colour, drawn as :mod:`evo.gallery.replay` draws one creature."""

from __future__ import annotations

import numpy as np

from evo.gallery.data import wave_angles
from evo.gallery.poster import FONT, SVG_NAMESPACE, _points, _scene, _tag
from evo.gallery.replay import (
    MASS,
    SKY,
    SUPERSAMPLE,
    Camera,
    creature_shapes,
    draw_bounds,
    draw_ground,
    extents,
    fit_scale,
    outline_points,
    polygon_shapes,
)
from evo.race import RaceResult, Standing

__all__ = ["RACE_COLOURS", "race_gif_frames", "race_svg"]

# one colour per contender (as the gallery's race), repeated beyond eight
RACE_COLOURS = (
    (224, 49, 49),
    (25, 113, 194),
    (47, 158, 68),
    (240, 140, 0),
    (132, 94, 247),
    (12, 166, 120),
    (214, 51, 108),
    (73, 80, 87),
)
FINISH = (201, 42, 42)


def _poses(result: RaceResult, record: int) -> list[np.ndarray]:
    """Each contender's positions at ``record`` (a finished contender stays where it crossed)."""
    return [
        np.nan_to_num(t.positions[min(record, len(t.frames) - 1)], nan=0.0, posinf=1e6, neginf=-1e6)
        for t in result.trajectories
    ]


def _camera(result: RaceResult, poses: list[np.ndarray], width: float, height: float, span) -> Camera:
    xs = [float(p[:, 0].mean()) for p in poses]
    lead, last = max(xs), min(xs)
    scale = min(fit_scale(span, width, height, 0.5), 0.9 * width / (lead - last + span[0] + 60))
    return Camera((lead + last) / 2, 0.36 * height / scale, scale, width, height)


def race_gif_frames(result: RaceResult, *, every: int = 20, size: tuple[int, int] = (640, 300)) -> list:
    """One Pillow image every ``every`` frames of the race (records are one a frame), to its end."""
    from PIL import Image, ImageDraw, ImageFont

    k = SUPERSAMPLE
    w, h = size[0] * k, size[1] * k
    span = (
        max(extents(np.nan_to_num(t.positions[:1]))[0] for t in result.trajectories),
        max(extents(np.nan_to_num(t.positions[:1]))[1] for t in result.trajectories),
    )
    thetas = [
        wave_angles(c, wd, t)
        for c, wd, t in zip(result.creatures, result.worlds, result.trajectories, strict=True)
    ]
    last = max(len(t.frames) for t in result.trajectories) - 1
    try:
        font = ImageFont.load_default(size=12 * k)
    except TypeError:  # Pillow < 10.1
        font = ImageFont.load_default()
    world = result.worlds[0]
    images = []
    for record in [*range(0, last, max(1, every)), last]:
        poses = _poses(result, record)
        cam = _camera(result, poses, w, h, (span[0] * k, span[1]))
        cam = Camera(cam.x, cam.y, cam.scale, w, h)
        image = Image.new("RGB", (w, h), SKY)
        draw = ImageDraw.Draw(image)
        draw_ground(draw, world, cam, k)
        draw_bounds(draw, world, cam, k)
        if result.finish_x is not None:
            x = cam.px(result.finish_x)
            draw.line((x, 0, x, h), fill=FINISH, width=2 * k)
        for n, (creature, p) in enumerate(zip(result.creatures, poses, strict=True)):
            colour = RACE_COLOURS[n % len(RACE_COLOURS)]
            theta = float(thetas[n][min(record, len(thetas[n]) - 1)])
            for corners, fill, curvy in polygon_shapes(creature, p, cam):
                draw.polygon(outline_points(corners, curvy), fill=fill)
            lines, dots = creature_shapes(creature, p, theta, cam, k)
            for x1, y1, x2, y2, line_colour, width in lines:
                draw.line((x1, y1, x2, y2), fill=line_colour, width=max(1, round(width)))
            for x, y, radius, _fixed in dots:
                draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour)
            top = float(cam.py(p[:, 1].max())) - 14 * k
            draw.text((float(cam.px(p[:, 0].mean())), top), str(n + 1), fill=colour, font=font, anchor="ms")
        draw.text((8 * k, 6 * k), f"frame {record}", fill=MASS, font=font)
        images.append(image.resize(size, Image.Resampling.LANCZOS))
    return images


def race_svg(result: RaceResult, *, width: int = 960) -> str:
    """A still of the whole race: the track from the starts to the finish line, each contender faint at
    its start and solid where it ended, its centroid's path dotted in its colour, and the ranking."""
    starts = [np.nan_to_num(t.positions[0]) for t in result.trajectories]
    ends = [np.nan_to_num(t.positions[-1], nan=0.0, posinf=1e6, neginf=-1e6) for t in result.trajectories]
    xs = np.concatenate([p[:, 0] for p in starts + ends])
    left, right = float(xs.min()) - 40, float(xs.max()) + 40
    if result.finish_x is not None:
        left, right = min(left, result.finish_x - 40), max(right, result.finish_x + 40)
    tallest = max(float(p[:, 1].max()) for p in starts + ends)
    scene_h = 200
    scale = min(2.0, (width - 20) / max(right - left, 1.0), 0.6 * scene_h / max(tallest + 20, 30.0))
    cam = Camera((left + right) / 2, 0.3 * scene_h / scale, scale, width, scene_h)
    board = 18 * len(result.standings) + 10
    height = 34 + scene_h + board
    out = [
        f'<svg xmlns="{SVG_NAMESPACE}" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        "<title>race</title>",
        _tag("rect", width=width, height=height, fill="#ffffff"),
    ]
    finish = f", finish line at x = {result.finish_x:g} px" if result.finish_x is not None else ""
    title = f"race: {len(result.standings)} contenders, {result.frames:g} frames{finish}"
    out.append(_tag("text", title, x=10, y=22, font_size=14, fill=MASS, **FONT))
    out.append('<g transform="translate(0 34)">')
    out += _scene(result.creatures[0], result.worlds[0], cam, float(starts[0][:, 0].mean()), [])
    if result.finish_x is not None:
        x = cam.px(result.finish_x)
        out.append(_tag("line", x1=x, x2=x, y1=0, y2=scene_h, stroke=FINISH, stroke_width=2))
    for n, creature in enumerate(result.creatures):
        colour = RACE_COLOURS[n % len(RACE_COLOURS)]
        trajectory = result.trajectories[n]
        centroid = np.nan_to_num(trajectory.positions).mean(axis=1)
        path = _points(cam, centroid[:: max(1, len(centroid) // 200)])
        out.append(_tag("polyline", points=path, fill="none", stroke=colour, stroke_dasharray="2 4"))
        for positions, opacity in ((starts[n], 0.3), (ends[n], 1.0)):
            lines, dots = creature_shapes(creature, positions, 0.0, cam, 1.0)
            out.append(f'<g opacity="{opacity:.2f}">')
            for x1, y1, x2, y2, _colour, line_width in lines:
                out.append(_tag("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=colour, stroke_width=line_width))
            for x, y, r, _fixed in dots:
                out.append(_tag("circle", cx=x, cy=y, r=r, fill=colour))
            out.append("</g>")
    out.append("</g>")
    for row, standing in enumerate(result.standings):
        colour = RACE_COLOURS[(standing.index - 1) % len(RACE_COLOURS)]
        text = f"{standing.rank}. {standing.name} (contender {standing.index}): {_how(standing)}"
        out.append(
            _tag("text", text, x=10, y=34 + scene_h + 18 * (row + 1), font_size=12, fill=colour, **FONT)
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _how(standing: Standing) -> str:
    if standing.finished:
        return f"finished at frame {standing.frames:g}"
    exploded = f", EXPLODED at frame {standing.exploded_frame:g}" if standing.exploded else ""
    return f"{standing.distance:+.1f} px{exploded}"
