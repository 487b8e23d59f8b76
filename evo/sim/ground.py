"""The ground: a curve H(x, y) = 0 with the air where H > 0 (seed 002 §1.2).

``[world] ground`` is a table ``{type = ...}`` or a bare polyline ``[[x, y], ...]``:

- ``{type = "flat"}`` (default): H = y, the floor y = 0.
- ``{type = "slope", angle = A}``: the straight line through the origin rising at A degrees
  (−90 < A < 90; negative falls to the right), H = y·cos A − x·sin A.
- ``{type = "hills", amplitude = a, wavelength = w}``: the height a·(1 − cos(2πx/w)) (px), so valleys
  touch y = 0 at x = 0, ±w, … and crests reach 2a; H = y − a·(1 − cos(2πx/w)).
- ``{type = "steps", height = h, width = w, count = n}``: a staircase from x = 0, y = 0 climbing h px
  every w px (n steps, default 20; a negative h goes down), flat beyond both ends.
- ``{type = "polyline", points = [[x, y], ...]}`` or a bare list of points, listed from left to right:
  the air is on the left of the direction of travel (above a left-to-right line), and the line is
  continued horizontally beyond its first and last points.

For steps and polylines H is the signed distance to the line (its gradient has length 1 wherever the
nearest point is unique). Under ``contact = "penalty"`` the ground pushes masses out with the penalty
force of :mod:`evo.sim.kernels.forces`; under ``contact = "soda"`` it becomes polyline segments that reflect
like terrain (see :meth:`Ground.soda_polyline`), besides the box floor y = 0 which is always there.
``extent = [x_from, x_to]`` (px) is the stretch of x that slopes and hills are sampled on for soda; hills
are sampled into 8 segments per wavelength there, at most :data:`MAX_HILL_SEGMENTS` in all.

Units: px and degrees.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.errors import EvoInputError, closest, unknown_key_message
from evo.schema import is_finite_number

__all__ = ["GROUND_TYPES", "Ground", "parse_ground"]

GROUND_TYPES = ("flat", "slope", "hills", "steps", "polyline")
# the kernels' codes for the analytic shapes; steps and polylines are both "polyline"
KIND_FLAT, KIND_SLOPE, KIND_HILLS, KIND_POLYLINE = 0, 1, 2, 3
DEFAULT_EXTENT = (-2000.0, 20000.0)  # px, where slopes and hills are sampled under soda contact
HILL_SEGMENTS_PER_WAVELENGTH = 8
MAX_HILL_SEGMENTS = 100_000  # segments of sampled hills over their extent (soda contact, drawings)
FAR = 1.0e6  # px: how far the polyline kernels continue a ground beyond its ends

_KEYS = {
    "flat": ("type",),
    "slope": ("type", "angle", "extent"),
    "hills": ("type", "amplitude", "wavelength", "extent"),
    "steps": ("type", "height", "width", "count"),
    "polyline": ("type", "points"),
}

Point = tuple[float, float]


@dataclass(frozen=True)
class Ground:
    """One ground shape; only the fields of its ``type`` matter (see the module docstring).

    Attributes:
        type: one of :data:`GROUND_TYPES`.
        angle: slope angle, degrees.
        amplitude, wavelength: hills, px.
        height, width, count: steps (px, px, number of steps).
        points: polyline vertices, px, left to right.
        extent: (x_from, x_to) px sampled under soda contact (slope, hills).
    """

    type: str = "flat"
    angle: float = 0.0
    amplitude: float = 0.0
    wavelength: float = 1.0
    height: float = 0.0
    width: float = 1.0
    count: int = 20
    points: tuple[Point, ...] = ()
    extent: tuple[float, float] = DEFAULT_EXTENT

    @property
    def is_flat(self) -> bool:
        return self.type == "flat"

    def to_value(self) -> dict[str, Any]:
        """The TOML/JSON table of this ground (what :func:`parse_ground` reads back)."""
        out: dict[str, Any] = {"type": self.type}
        for key in _KEYS[self.type][1:]:
            value = getattr(self, key)
            if key == "points":
                value = [list(p) for p in value]
            elif key == "extent":
                if value == DEFAULT_EXTENT:
                    continue
                value = list(value)
            out[key] = value
        return out

    def outline(self) -> list[Point]:
        """The ground as a left-to-right polyline (exact for steps and polylines, sampled otherwise)."""
        x0, x1 = self.extent
        if self.type == "flat":
            return [(x0, 0.0), (x1, 0.0)]
        if self.type == "slope":
            t = math.tan(math.radians(self.angle))
            return [(x0, x0 * t), (x1, x1 * t)]
        if self.type == "hills":
            step = self.wavelength / HILL_SEGMENTS_PER_WAVELENGTH
            k0, k1 = math.floor(x0 / step), math.ceil(x1 / step)
            xs = np.arange(k0, k1 + 1) * step
            ys = self.amplitude * (1.0 - np.cos(2.0 * math.pi * xs / self.wavelength))
            return list(zip(xs.tolist(), ys.tolist(), strict=True))
        if self.type == "steps":
            h, w = self.height, self.width
            out = [(0.0, 0.0)]
            for j in range(1, self.count + 1):
                out += [(j * w, (j - 1) * h), (j * w, j * h)]
            out.append(((self.count + 1) * w, self.count * h))
            return out
        return list(self.points)

    def soda_polyline(self) -> list[Point]:
        """The reflecting polyline that stands for this ground under soda contact (empty when flat).

        Steps and polylines are continued horizontally to ``extent`` where it reaches beyond them.
        """
        if self.is_flat:
            return []
        line = self.outline()
        if self.type in ("steps", "polyline"):
            x0, x1 = self.extent
            if x0 < line[0][0]:
                line = [(x0, line[0][1]), *line]
            if x1 > line[-1][0]:
                line = [*line, (x1, line[-1][1])]
        return line

    def kernel_arrays(self) -> tuple[int, np.ndarray, np.ndarray]:
        """(kind code, (4,) float parameters, (m, 2) polyline points) for the numba kernels.

        Parameters: slope (sin A, cos A); hills (amplitude, 2π/wavelength). The polyline gets a point
        :data:`FAR` px beyond each end at the end's height, standing for the horizontal continuation.
        """
        params = np.zeros(4)
        points = np.zeros((0, 2))
        if self.type == "flat":
            return KIND_FLAT, params, points
        if self.type == "slope":
            a = math.radians(self.angle)
            params[0], params[1] = math.sin(a), math.cos(a)
            return KIND_SLOPE, params, points
        if self.type == "hills":
            params[0], params[1] = self.amplitude, 2.0 * math.pi / self.wavelength
            return KIND_HILLS, params, points
        line = self.outline()
        line = [(line[0][0] - FAR, line[0][1]), *line, (line[-1][0] + FAR, line[-1][1])]
        return KIND_POLYLINE, params, np.ascontiguousarray(line, dtype=np.float64)


def _number(value: Any, field: str, source: str | None, *, low: float, high: float = math.inf,
            open_low: bool = False, open_high: bool = False) -> float:  # fmt: skip
    ok = is_finite_number(value)
    if ok:
        ok = (value > low if open_low else value >= low) and (value < high if open_high else value <= high)
    if not ok:
        bounds = []
        if not math.isinf(low):
            bounds.append(f"> {low:g}" if open_low else f">= {low:g}")
        if not math.isinf(high):
            bounds.append(f"< {high:g}" if open_high else f"<= {high:g}")
        expected = f"a number {' and '.join(bounds)}" if bounds else "a finite number"
        raise EvoInputError(f"expected {expected}, got {value!r}", source=source, field=field)
    return float(value)


def _points(value: Any, field: str, source: str | None) -> tuple[Point, ...]:
    def is_point(p: Any) -> bool:
        return isinstance(p, list | tuple) and len(p) == 2 and all(map(is_finite_number, p))

    if not isinstance(value, list | tuple) or len(value) < 2 or not all(map(is_point, value)):
        raise EvoInputError("expected a polyline of at least two [x, y] points", source=source, field=field)
    points = tuple((float(p[0]), float(p[1])) for p in value)
    if not points[0][0] < points[-1][0]:
        raise EvoInputError(
            "expected the points from left to right (first x < last x)", source=source, field=field
        )
    return points


def parse_ground(value: Any, *, source: str | None = None, field: str = "world.ground") -> Ground:
    """A :class:`Ground` from a table ``{type = ..., ...}``, a bare polyline, or a Ground (returned)."""
    if isinstance(value, Ground):
        return value
    if isinstance(value, list | tuple):
        return Ground(type="polyline", points=_points(value, field, source))
    if not isinstance(value, Mapping):
        raise EvoInputError(
            "expected a table {type = ...} or a polyline [[x, y], ...]", source=source, field=field
        )
    kind = value.get("type", "flat")
    if kind not in GROUND_TYPES:
        hint = closest(kind, GROUND_TYPES) if isinstance(kind, str) else None
        message = f"expected one of {', '.join(GROUND_TYPES)}, got {kind!r}"
        raise EvoInputError(message + (f"; did you mean '{hint}'?" if hint else ""), source=source,
                            field=f"{field}.type")  # fmt: skip
    for key in value:
        if key not in _KEYS[kind]:
            raise EvoInputError(
                unknown_key_message(key, f"{field} (type {kind})", _KEYS[kind]), source=source
            )

    def need(key: str) -> Any:
        if key not in value:
            raise EvoInputError(f"missing (type {kind} needs it)", source=source, field=f"{field}.{key}")
        return value[key]

    changes: dict[str, Any] = {"type": kind}
    if "extent" in value:
        ext = value["extent"]
        ok = isinstance(ext, list | tuple) and len(ext) == 2
        lo = _number(ext[0], f"{field}.extent", source, low=-math.inf) if ok else 0.0
        hi = _number(ext[1], f"{field}.extent", source, low=-math.inf) if ok else 0.0
        if not ok or not lo < hi:
            raise EvoInputError(
                "expected [x_from, x_to] with x_from < x_to", source=source, field=f"{field}.extent"
            )
        changes["extent"] = (lo, hi)
    if kind == "slope":
        changes["angle"] = _number(need("angle"), f"{field}.angle", source, low=-90.0, high=90.0,
                                   open_low=True, open_high=True)  # fmt: skip
    elif kind == "hills":
        changes["amplitude"] = _number(need("amplitude"), f"{field}.amplitude", source, low=0.0)
        changes["wavelength"] = _number(
            need("wavelength"), f"{field}.wavelength", source, low=0.0, open_low=True
        )
        x0, x1 = changes.get("extent", DEFAULT_EXTENT)
        shortest = (x1 - x0) * HILL_SEGMENTS_PER_WAVELENGTH / MAX_HILL_SEGMENTS
        if not changes["wavelength"] >= shortest:
            raise EvoInputError(
                f"expected a wavelength >= {shortest:.3g} px over the extent [{x0:g}, {x1:g}] (sampled into "
                f"{HILL_SEGMENTS_PER_WAVELENGTH} segments per wavelength, {MAX_HILL_SEGMENTS} at most), "
                f"got {value['wavelength']!r}",
                source=source,
                field=f"{field}.wavelength",
            )
    elif kind == "steps":
        changes["height"] = _number(need("height"), f"{field}.height", source, low=-math.inf)
        changes["width"] = _number(need("width"), f"{field}.width", source, low=0.0, open_low=True)
        count = value.get("count", 20)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10000:
            raise EvoInputError(f"expected a whole number in 1..10000, got {count!r}", source=source,
                                field=f"{field}.count")  # fmt: skip
        changes["count"] = count
    elif kind == "polyline":
        changes["points"] = _points(need("points"), f"{field}.points", source)
    return Ground(**changes)
