"""Fitness over generations as inline SVG: best, mean (with a ±std band) and min of one objective.

The chart is plain markup made here, so the page shows it even before (or without) its JavaScript. Every
generation has an invisible column with a ``<title>``, which browsers show as a tooltip.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

__all__ = ["curve_chart_svg", "fitness_chart_svg", "nice_ticks"]

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 18, 40
SERIES = (  # suffix, label, colour, dash
    ("best", "best", "#d9480f", ""),
    ("mean", "mean", "#1c7ed6", ""),
    ("min", "min", "#868e96", "4 3"),
)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(count, 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks, value = [], start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return str(x)
    if float(x).is_integer() and abs(x) < 1e7:
        return str(int(x))
    if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3):
        return f"{x:.3g}"
    return f"{x:.4g}"


def _series(rows: Sequence[dict[str, float]], key: str) -> list[float]:
    return [row.get(key, math.nan) for row in rows]


def fitness_chart_svg(rows: Sequence[dict[str, float]], objective: str, *, minimise: bool = False) -> str:
    """An ``<svg>`` element charting ``<objective>_best/_mean/_std/_min`` of the history rows against
    ``generation``; non-finite values leave gaps."""
    generations = [row.get("generation", float(i)) for i, row in enumerate(rows)]
    data = {suffix: _series(rows, f"{objective}_{suffix}") for suffix in ("best", "mean", "std", "min")}
    values = [v for s in ("best", "mean", "min") for v in data[s] if math.isfinite(v)]
    band = [(m - s, m + s) for m, s in zip(data["mean"], data["std"], strict=True) if math.isfinite(m + s)]
    values += [v for pair in band for v in pair]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    ticks = nice_ticks(low, high)
    if ticks:
        low, high = min(low, ticks[0]), max(high, ticks[-1])
    g_low, g_high = (min(generations), max(generations)) if generations else (0.0, 1.0)
    g_span = max(g_high - g_low, 1.0)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(g: float) -> float:
        return LEFT + (g - g_low) / g_span * plot_w

    def sy(v: float) -> float:
        return TOP + (high - v) / ((high - low) or 1.0) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(objective)} over generations">',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fbfbfd" stroke="#dee2e6"/>',
    ]
    for t in ticks:
        y = sy(t)
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e9ecef"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">{_fmt(t)}</text>')
    for g in nice_ticks(g_low, g_high, 8):
        if g_low <= g <= g_high and float(g).is_integer():
            x = sx(g)
            bottom = TOP + plot_h
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#adb5bd"/>')
            out.append(
                f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" class="tick">{int(g)}</text>'
            )
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 6}" text-anchor="middle" class="axis">generation</text>'
    )
    direction = "lower is better" if minimise else "higher is better"
    out.append(
        f'<text x="14" y="{TOP + plot_h / 2}" text-anchor="middle" class="axis" '
        f'transform="rotate(-90 14 {TOP + plot_h / 2})">{escape(objective)} ({direction})</text>'
    )
    upper = [
        (sx(g), sy(m + s))
        for g, m, s in zip(generations, data["mean"], data["std"], strict=True)
        if math.isfinite(m + s)
    ]
    lower = [
        (sx(g), sy(m - s))
        for g, m, s in zip(generations, data["mean"], data["std"], strict=True)
        if math.isfinite(m + s)
    ]
    if len(upper) > 1:
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in [*upper, *reversed(lower)])
        out.append(f'<polygon points="{points}" fill="#1c7ed6" fill-opacity="0.12" stroke="none"/>')
    for suffix, label, colour, dash in SERIES:
        runs, current = [], []
        for g, v in zip(generations, data[suffix], strict=True):
            if math.isfinite(v):
                current.append(f"{sx(g):.1f},{sy(v):.1f}")
            elif current:
                runs.append(current)
                current = []
        if current:
            runs.append(current)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        for points in runs:
            out.append(
                f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" '
                f'stroke-width="2"{extra}><title>{label}</title></polyline>'
            )
    for k, (_, label, colour, _) in enumerate(SERIES):
        x, y = LEFT + 10 + k * 90, TOP + 10
        out.append(f'<line x1="{x}" x2="{x + 18}" y1="{y}" y2="{y}" stroke="{colour}" stroke-width="3"/>')
        out.append(f'<text x="{x + 22}" y="{TOP + 14}" class="legend">{label}</text>')
    out.append(
        f'<rect x="{LEFT + 280}" y="{TOP + 4}" width="18" height="10" fill="#1c7ed6" fill-opacity="0.12"/>'
    )
    out.append(f'<text x="{LEFT + 302}" y="{TOP + 14}" class="legend">mean ± std</text>')
    column = plot_w / max(len(generations), 1)
    for g, b, m, lo in zip(generations, data["best"], data["mean"], data["min"], strict=True):
        tip = f"generation {int(g)}: best {_fmt(b)}, mean {_fmt(m)}, min {_fmt(lo)}"
        out.append(
            f'<rect x="{sx(g) - column / 2:.1f}" y="{TOP}" width="{column:.1f}" height="{plot_h}" '
            f'fill="transparent"><title>{escape(tip)}</title></rect>'
        )
    out.append("</svg>")
    return "\n".join(out)


def curve_chart_svg(
    rows: Sequence[dict[str, float]], column: str, label: str, *, colour: str = "#2f9e44", note: str = ""
) -> str:
    """An ``<svg>`` element charting one history column (a MAP-Elites run's ``coverage`` or ``qd_score``)
    against ``generation``; non-finite values leave gaps. ``note`` is a short line under the title."""
    generations = [row.get("generation", float(i)) for i, row in enumerate(rows)]
    values = _series(rows, column)
    finite = [v for v in values if math.isfinite(v)]
    low, high = (min(finite + [0.0]), max(finite)) if finite else (0.0, 1.0)
    ticks = nice_ticks(low, high)
    if ticks:
        low, high = min(low, ticks[0]), max(high, ticks[-1])
    g_low, g_high = (min(generations), max(generations)) if generations else (0.0, 1.0)
    g_span = max(g_high - g_low, 1.0)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(g: float) -> float:
        return LEFT + (g - g_low) / g_span * plot_w

    def sy(v: float) -> float:
        return TOP + (high - v) / ((high - low) or 1.0) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(label)} over iterations" data-column="{escape(column)}">',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fbfbfd" stroke="#dee2e6"/>',
    ]
    for t in ticks:
        y = sy(t)
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e9ecef"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">{_fmt(t)}</text>')
    for g in nice_ticks(g_low, g_high, 8):
        if g_low <= g <= g_high and float(g).is_integer():
            y = TOP + plot_h + 16
            out.append(f'<text x="{sx(g):.1f}" y="{y}" text-anchor="middle" class="tick">{int(g)}</text>')
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 6}" text-anchor="middle" class="axis">iteration</text>'
    )
    out.append(
        f'<text x="14" y="{TOP + plot_h / 2}" text-anchor="middle" class="axis" '
        f'transform="rotate(-90 14 {TOP + plot_h / 2})">{escape(label)}</text>'
    )
    if note:
        out.append(f'<text x="{LEFT + 10}" y="{TOP + 14}" class="legend">{escape(note)}</text>')
    points = [
        f"{sx(g):.1f},{sy(v):.1f}" for g, v in zip(generations, values, strict=True) if math.isfinite(v)
    ]
    if points:
        out.append(
            f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" stroke-width="2">'
            f"<title>{escape(label)}</title></polyline>"
        )
    column_w = plot_w / max(len(generations), 1)
    for g, v in zip(generations, values, strict=True):
        out.append(
            f'<rect x="{sx(g) - column_w / 2:.1f}" y="{TOP}" width="{column_w:.1f}" height="{plot_h}" '
            f'fill="transparent"><title>{escape(f"iteration {int(g)}: {label} {_fmt(v)}")}</title></rect>'
        )
    out.append("</svg>")
    return "\n".join(out)
