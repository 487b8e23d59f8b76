"""One creature's replay as an animated GIF (Pillow), and the drawing it shares with the SVG poster
(:mod:`evo.gallery.poster`).

The drawing follows the gallery page (docs/gallery.md, "evo replay"). Coordinates are px with y up; the
picture's y goes down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evo.gallery.data import wave_angles
from evo.model import Creature, closed_curve
from evo.sim.simulate import Trajectory
from evo.sim.world import World

__all__ = [
    "Camera",
    "creature_shapes",
    "draw_bounds",
    "draw_ground",
    "extents",
    "fit_scale",
    "gif_frames",
    "ground_line",
    "marker_spacing",
    "outline_points",
    "phase_colour",
    "polygon_shapes",
    "save_gif",
]

SKY, GROUND, GROUND_LINE = (247, 249, 252), (236, 228, 211), (141, 123, 90)
MARKER, LABEL, SPRING, MASS, FIXED = (
    (168, 154, 124),
    (124, 111, 85),
    (61, 67, 74),
    (33, 37, 41),
    (201, 42, 42),
)
WALL, TERRAIN = (134, 142, 150), (107, 91, 62)
SHORT, LONG = (28, 126, 214), (232, 89, 12)
SUPERSAMPLE = 2  # GIF frames are drawn this many times larger, then scaled down (antialiasing)


def phase_colour(s: float) -> tuple[int, int, int]:
    """Colour of a muscle whose phase sin(theta + phi) is ``s`` in [-1, 1] (the page's colours)."""
    u = (max(-1.0, min(1.0, s)) + 1.0) / 2.0
    return tuple(round(a + (b - a) * u) for a, b in zip(SHORT, LONG, strict=True))  # type: ignore[return-value]


def marker_spacing(scale: float) -> float:
    """Distance (px) between floor markers, so that they are at least 70 picture px apart."""
    for m in (10, 25, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000):
        if m * scale >= 70:
            return float(m)
    return 50000.0


@dataclass(frozen=True)
class Camera:
    """World point (x, y) at the picture's centre, ``scale`` picture px per px, picture w x h."""

    x: float
    y: float
    scale: float
    width: float
    height: float

    def px(self, x: float | np.ndarray) -> float | np.ndarray:
        return (x - self.x) * self.scale + self.width / 2

    def py(self, y: float | np.ndarray) -> float | np.ndarray:
        return self.height / 2 - (y - self.y) * self.scale

    @property
    def left(self) -> float:
        return self.x - self.width / 2 / self.scale

    @property
    def right(self) -> float:
        return self.x + self.width / 2 / self.scale


def extents(positions: np.ndarray) -> tuple[float, float]:
    """(widest x extent over the records, highest y), px."""
    xs, ys = positions[:, :, 0], positions[:, :, 1]
    return float(np.max(xs.max(axis=1) - xs.min(axis=1))), float(max(ys.max(), 1.0))


def fit_scale(span: tuple[float, float], width: float, height: float, fill: float) -> float:
    return max(0.03, min(4.0, fill * width / max(span[0], 20.0), fill * height / max(span[1] + 20.0, 30.0)))


def ground_line(world: World, left: float, right: float) -> list[tuple[float, float]]:
    """The points of a non-flat ground's outline over [left, right] px, with one more on each side
    where there is one; [] for the flat ground."""
    if world.ground.is_flat:
        return []
    outline = world.ground.outline()
    inside = [p for p in outline if left <= p[0] <= right]
    return [p for p in outline if p[0] < left][-1:] + inside + [p for p in outline if p[0] > right][:1]


def polygon_shapes(
    creature: Creature, positions: np.ndarray, cam: Camera
) -> list[tuple[np.ndarray, str, bool]]:
    """The polygons of three corners or more as (corners (k, 2) in picture px, fill colour, curvy)."""
    xs, ys = cam.px(positions[:, 0]), cam.py(positions[:, 1])
    return [
        (np.stack([xs[list(poly.masses)], ys[list(poly.masses)]], axis=1), poly.fill, poly.curvy)
        for poly in creature.polys
        if len(poly.masses) >= 3
    ]


def outline_points(corners: np.ndarray, curvy: bool, per_side: int = 12) -> list[tuple[float, float]]:
    """A polygon's outline as points: its corners, or ``per_side`` points along each cubic Bézier of the
    closed Catmull-Rom curve through them (for Pillow, which draws no curves)."""
    if not curvy:
        return [(float(x), float(y)) for x, y in corners]
    t = np.linspace(0.0, 1.0, per_side, endpoint=False)[:, None]
    out = []
    for start, (c1, c2, end) in zip(corners, closed_curve(corners), strict=True):
        s = 1.0 - t
        curve = s**3 * start + 3 * s**2 * t * c1 + 3 * s * t**2 * c2 + t**3 * end
        out += [(float(x), float(y)) for x, y in curve]
    return out


def creature_shapes(creature: Creature, positions: np.ndarray, theta: float, cam: Camera, pixel: float):
    """Lines (x1, y1, x2, y2, colour, width) springs first, then muscles; then dots (x, y, r, fixed)."""
    xs, ys = cam.px(positions[:, 0]), cam.py(positions[:, 1])
    lines = []
    order = sorted(range(creature.n_links), key=lambda i: bool(creature.is_muscle[i]))
    for i in order:
        a, b = int(creature.link_a[i]), int(creature.link_b[i])
        if creature.is_muscle[i]:
            colour, width = (
                phase_colour(math.sin(theta + creature.phi[i])),
                max(2.5, min(6.0, 3.5 * cam.scale)),
            )
        else:
            colour, width = SPRING, max(1.0, min(3.0, 1.5 * cam.scale))
        lines.append((xs[a], ys[a], xs[b], ys[b], colour, width * pixel))
    radius = max(2.0, min(6.0, 3.0 * cam.scale)) * pixel
    dots = [(xs[i], ys[i], radius, bool(creature.fixed[i])) for i in range(creature.n_masses)]
    return lines, dots


def draw_ground(draw, world: World, cam: Camera, k: int) -> None:
    """The ground (a non-flat outline, or the floor) and the floor line, on a Pillow ``draw`` of the
    camera's size; ``k`` the supersampling factor."""
    w, h = cam.width, cam.height
    line = ground_line(world, cam.left, cam.right)
    if line:
        pts = [(cam.px(x), cam.py(y)) for x, y in line]
        draw.polygon([(pts[0][0], h), *pts, (pts[-1][0], h)], fill=GROUND)
        draw.line(pts, fill=GROUND_LINE, width=2 * k)
    else:
        draw.rectangle((0, cam.py(0.0), w, h), fill=GROUND)
    if world.contact == "soda":
        draw.line((0, cam.py(0.0), w, cam.py(0.0)), fill=GROUND_LINE, width=2 * k)


def draw_bounds(draw, world: World, cam: Camera, k: int) -> None:
    """The side walls, the ceiling and the terrain's polylines, on a Pillow ``draw``."""
    w, h = cam.width, cam.height
    for x in [0.0, world.width] if world.width is not None else []:
        draw.line((cam.px(x), 0, cam.px(x), h), fill=WALL, width=3 * k)
    if world.height is not None:
        draw.line((0, cam.py(world.height), w, cam.py(world.height)), fill=WALL, width=3 * k)
    for poly in world.terrain:
        draw.line([(cam.px(x), cam.py(y)) for x, y in poly], fill=TERRAIN, width=3 * k)


def gif_frames(
    creature: Creature, world: World, trajectory: Trajectory, *, size: tuple[int, int] = (480, 270)
) -> list:
    """One Pillow RGB image per record of ``trajectory``, with a follow camera (a list of PIL images)."""
    from PIL import Image, ImageDraw, ImageFont

    k = SUPERSAMPLE
    w, h = size[0] * k, size[1] * k
    positions = np.nan_to_num(trajectory.positions, nan=0.0, posinf=1e6, neginf=-1e6)
    scale = fit_scale(extents(positions), size[0], size[1], 0.55) * k
    start = float(positions[0, :, 0].mean())
    thetas = wave_angles(creature, world, trajectory)
    try:
        font = ImageFont.load_default(size=12 * k)
    except TypeError:  # Pillow < 10.1: the fixed-size bitmap font
        font = ImageFont.load_default()
    frames = []
    for r in range(positions.shape[0]):
        p = positions[r]
        cam = Camera(float(p[:, 0].mean()), 0.36 * h / scale, scale, w, h)
        image = Image.new("RGB", (w, h), SKY)
        draw = ImageDraw.Draw(image)
        draw_ground(draw, world, cam, k)
        spacing = marker_spacing(scale / k)
        for j in range(
            math.ceil((cam.left - start) / spacing), math.floor((cam.right - start) / spacing) + 1
        ):
            x = cam.px(start + j * spacing)
            y = cam.py(0.0)
            draw.line((x, y, x, y + 8 * k), fill=MARKER, width=k)
            draw.text((x, y + 10 * k), f"{j * spacing:g}", fill=LABEL, font=font, anchor="ma")
        draw_bounds(draw, world, cam, k)
        for corners, fill, curvy in polygon_shapes(creature, p, cam):
            draw.polygon(outline_points(corners, curvy), fill=fill)
        lines, dots = creature_shapes(creature, p, float(thetas[r]), cam, k)
        for x1, y1, x2, y2, colour, width in lines:
            draw.line((x1, y1, x2, y2), fill=colour, width=max(1, round(width)))
        for x, y, radius, fixed in dots:
            box = (x - radius, y - radius, x + radius, y + radius)
            draw.rectangle(box, fill=FIXED) if fixed else draw.ellipse(box, fill=MASS)
        label = f"{creature.name}   frame {trajectory.frames[r]:g}   x {p[:, 0].mean() - start:+.0f} px"
        draw.text((8 * k, 6 * k), label, fill=MASS, font=font)
        frames.append(image.resize(size, Image.Resampling.LANCZOS))
    return frames


def save_gif(frames: list, path, *, frame_ms: int = 40) -> None:
    """Write the frames as a looping GIF (bytes built in memory, then written atomically)."""
    import io

    from evo.io.atomic import atomic_write_bytes

    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=frame_ms, loop=0)
    atomic_write_bytes(path, buffer.getvalue())
