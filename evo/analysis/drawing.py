"""Mode shapes as plain SVG text: one panel per mode, the equilibrium in grey (its polygons filled) and the
creature displaced along the mode (both ways) in colour. No file I/O here; the ``analyze`` command writes
the text. :func:`svg_polygon_path` is the polygon outline every SVG of evo draws."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import numpy as np

from evo.analysis.modes import Modes
from evo.model import Creature, closed_curve

__all__ = ["ModePanel", "mode_panels", "modes_svg", "svg_polygon_path"]

PANEL = 240  # px per panel side
MARGIN = 40  # px kept round the drawing inside a panel (its title takes two lines)
HEADER = 40  # px above the panels: the creature's name and the key
MIN_COLUMNS = 2  # the picture is at least this many panels wide, so that the header fits
# largest displacement drawn: this fraction of the creature's size, or of its shortest link if less
RELATIVE_AMPLITUDE = 0.1
RELATIVE_TO_SHORTEST_LINK = 0.3


@dataclass(frozen=True)
class ModePanel:
    """One mode to draw: a title and a detail line (each short enough for a panel) and a (n_masses, 2)
    displacement shape."""

    title: str
    shape: np.ndarray
    detail: str = ""


def mode_panels(modes: Modes, count: int = 4, max_special: int = 2) -> list[ModePanel]:
    """The panels worth drawing: up to ``max_special`` unstable modes and mechanisms, then the lowest
    vibrating modes, ``count`` panels in all."""
    panels: list[ModePanel] = []
    order = np.argsort(modes.eigenvalues)
    unstable = [i for i in order if modes.eigenvalues[i] < -modes.zero_threshold]
    for i in unstable[:max_special]:
        rate = float(np.sqrt(-modes.eigenvalues[i]))
        panels.append(ModePanel("unstable mode", modes.shapes[i], f"grows at {rate:.3g} /frame"))
    for shape in modes.mechanism_shapes()[: max(0, max_special - len(panels))]:
        panels.append(ModePanel("mechanism", shape, "ω = 0: deforms at no cost"))
    for number, i in enumerate(modes.vibrating, start=1):
        if len(panels) >= count:
            break
        omega = float(np.sqrt(modes.eigenvalues[i]))
        panels.append(
            ModePanel(
                f"mode {number}",
                modes.shapes[i],
                f"ω {omega:.4g} rad/frame, T {2 * np.pi / omega:.4g} frames",
            )
        )
    return panels[:count]


@dataclass(frozen=True)
class _Frame:
    """Creature coordinates (px, y up) to SVG coordinates (y down) inside one panel."""

    x: float
    y: float
    scale: float
    centre: np.ndarray

    def __call__(self, points: np.ndarray) -> np.ndarray:
        return np.stack(
            [
                self.x + self.scale * (points[:, 0] - self.centre[0]),
                self.y - self.scale * (points[:, 1] - self.centre[1]),
            ],
            axis=1,
        )


def svg_polygon_path(points: np.ndarray, curvy: bool) -> str:
    """The ``d`` of an SVG path closing through ``points`` ((k, 2), SVG coordinates): straight edges, or
    (``curvy``) the closed Catmull-Rom spline of :func:`evo.model.closed_curve`, one cubic Bézier a side."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if points.shape[0] == 0:
        return ""
    out = [f"M{points[0, 0]:.2f} {points[0, 1]:.2f}"]
    if curvy:
        for (ax, ay), (bx, by), (cx, cy) in closed_curve(points):
            out.append(f"C{ax:.2f} {ay:.2f} {bx:.2f} {by:.2f} {cx:.2f} {cy:.2f}")
    else:
        out += [f"L{x:.2f} {y:.2f}" for x, y in points[1:]]
    return " ".join(out) + " Z"


def _polygons(creature: Creature, points: np.ndarray) -> list[str]:
    """The creature's polygons (three corners or more) filled in their colours, at ``points`` (SVG)."""
    return [
        f'<path d="{svg_polygon_path(points[list(poly.masses)], poly.curvy)}" fill="{escape(poly.fill)}" '
        f'fill-opacity="0.6"/>'
        for poly in creature.polys
        if len(poly.masses) >= 3
    ]


def _polyline(
    points: np.ndarray, links: tuple[np.ndarray, np.ndarray], stroke: str, width: float, dash: str = ""
) -> list[str]:
    out = []
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    for a, b in zip(*links, strict=True):
        (x1, y1), (x2, y2) = points[a], points[b]
        out.append(
            f'<line x1="{x1:.2f}" y1="{y1:.2f}" x2="{x2:.2f}" y2="{y2:.2f}" stroke="{stroke}" '
            f'stroke-width="{width}"{extra}/>'
        )
    return out


def modes_svg(creature: Creature, modes: Modes, count: int = 4, columns: int = 2) -> str:
    """SVG text drawing the first ``count`` interesting modes (see :func:`mode_panels`)."""
    positions = modes.equilibrium.positions
    panels = mode_panels(modes, count)
    links = (creature.link_a, creature.link_b)
    lo, hi = positions.min(axis=0), positions.max(axis=0)
    size = float(max(np.max(hi - lo), 1e-9))
    lengths = modes.equilibrium.lengths
    lengths = lengths[lengths > 1e-9 * size]
    reach = RELATIVE_AMPLITUDE * size
    if lengths.size:
        reach = min(reach, RELATIVE_TO_SHORTEST_LINK * float(np.min(lengths)))
    n_cols = max(1, min(columns, len(panels)))
    n_rows = max(1, -(-len(panels) // n_cols))
    width, height = max(n_cols, MIN_COLUMNS) * PANEL, n_rows * PANEL + HEADER
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="6" y="16" font-size="13">{escape(creature.name)}: vibration modes</text>',
        '<text x="6" y="32">grey: the equilibrium · blue, orange dashed: displaced both ways</text>',
    ]
    if not panels:
        lines.append(
            f'<text x="6" y="{HEADER + 16}">no modes to draw (no free masses, or every mode is rigid)</text>'
        )
    for k, panel in enumerate(panels):
        shape = np.asarray(panel.shape)
        biggest = float(np.max(np.hypot(shape[:, 0], shape[:, 1]))) if shape.size else 0.0
        amplitude = reach / biggest if biggest > 0 else 0.0
        plus, minus = positions + amplitude * shape, positions - amplitude * shape
        box_lo = np.minimum.reduce([positions.min(axis=0), plus.min(axis=0), minus.min(axis=0)])
        box_hi = np.maximum.reduce([positions.max(axis=0), plus.max(axis=0), minus.max(axis=0)])
        scale = (PANEL - 2 * MARGIN) / float(max(np.max(box_hi - box_lo), 1e-9))
        x0, y0 = (k % n_cols) * PANEL, (k // n_cols) * PANEL + HEADER
        to_svg = _Frame(x0 + PANEL / 2, y0 + PANEL / 2, scale, 0.5 * (box_lo + box_hi))
        lines.append(
            f'<g><rect x="{x0 + 2}" y="{y0 + 2}" width="{PANEL - 4}" height="{PANEL - 4}" '
            f'fill="none" stroke="#ddd"/>'
        )
        lines.append(f'<text x="{x0 + 8}" y="{y0 + 16}" font-weight="bold">{escape(panel.title)}</text>')
        if panel.detail:
            lines.append(f'<text x="{x0 + 8}" y="{y0 + 30}">{escape(panel.detail)}</text>')
        lines += _polygons(creature, to_svg(positions))
        lines += _polyline(to_svg(positions), links, "#bbb", 1.5)
        lines += _polyline(to_svg(minus), links, "#e07b39", 1.2, "4 3")
        lines += _polyline(to_svg(plus), links, "#1f5fa8", 1.8)
        for (x, y), fixed in zip(to_svg(plus), creature.fixed, strict=True):
            fill = "#222" if fixed else "#1f5fa8"
            lines.append(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{3.5 if fixed else 2.5}" fill="{fill}"/>')
        lines.append("</g>")
    lines.append("</svg>")
    return "\n".join(lines) + "\n"
