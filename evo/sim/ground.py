"""The ground: a curve H(x, y) = 0 with the air where H > 0 (seed 002 §1.2): flat, a slope, hills, steps
or a polyline (H the signed distance), read from ``[world] ground`` by :func:`parse_ground`; the keys of
each shape are in docs/integrators.md ("Ground shapes"). Under soda contact a ground becomes reflecting
segments (:meth:`Ground.soda_polyline`); under penalty contact the kernels push masses out along ∇H.
Units: px and degrees.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.errors import EvoInputError, unknown_key_message
from evo.schema import check_fields, is_finite_number, setting, shown

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

# the keys a table of each type must give (count and extent have defaults)
_NEEDED = {
    "flat": (),
    "slope": ("angle",),
    "hills": ("amplitude", "wavelength"),
    "steps": ("height", "width"),
    "polyline": ("points",),
}

Point = tuple[float, float]


def _points(value: Any, *, source: str | None, field: str) -> tuple[Point, ...]:
    """Polyline vertices: at least two finite [x, y] points, from left to right."""

    def is_point(p: Any) -> bool:
        return isinstance(p, list | tuple) and len(p) == 2 and all(map(is_finite_number, p))

    if not isinstance(value, list | tuple) or len(value) < 2 or not all(map(is_point, value)):
        raise EvoInputError(
            f"expected a polyline of at least two [x, y] points, got {shown(value)}",
            source=source,
            field=field,
        )
    points = tuple((float(p[0]), float(p[1])) for p in value)
    if not points[0][0] < points[-1][0]:
        raise EvoInputError(
            f"expected the points from left to right (first x < last x), got {shown(value)}",
            source=source,
            field=field,
        )
    return points


@dataclass(frozen=True)
class Ground:
    """One ground shape; only the fields of its ``type`` matter (see the module docstring). The
    settings are the rules :func:`parse_ground` checks a table with.

    Attributes:
        type: one of :data:`GROUND_TYPES`.
        angle: slope angle, degrees.
        amplitude, wavelength: hills, px.
        height, width, count: steps (px, px, number of steps).
        points: polyline vertices, px, left to right.
        extent: (x_from, x_to) px sampled under soda contact (slope, hills).
    """

    type: str = setting("flat", choices=GROUND_TYPES)
    angle: float = setting(0.0, low=-90.0, high=90.0, open_low=True, open_high=True)
    amplitude: float = setting(0.0, low=0.0)
    wavelength: float = setting(1.0, low=0.0, open_low=True)
    height: float = setting(0.0)
    width: float = setting(1.0, low=0.0, open_low=True)
    count: int = setting(20, low=1, high=10000)
    points: tuple[Point, ...] = setting((), parse=_points)
    extent: tuple[float, float] = setting(DEFAULT_EXTENT)

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


def parse_ground(value: Any, *, source: str | None = None, field: str = "world.ground") -> Ground:
    """A :class:`Ground` from a table ``{type = ..., ...}``, a bare polyline, or a Ground (returned)."""
    if isinstance(value, Ground):
        return value
    if isinstance(value, list | tuple):
        return Ground(type="polyline", points=_points(value, source=source, field=field))
    if not isinstance(value, Mapping):
        raise EvoInputError(
            f"expected a table {{type = ...}} or a polyline [[x, y], ...], got {shown(value)}",
            source=source,
            field=field,
        )
    kind = check_fields(Ground, {"type": value.get("type", "flat")}, source=source, where=field)["type"]
    for key in value:
        if key not in _KEYS[kind]:
            raise EvoInputError(
                unknown_key_message(key, f"{field} (type {kind})", _KEYS[kind]), source=source
            )
    for key in _NEEDED[kind]:
        if key not in value:
            raise EvoInputError(f"missing (type {kind} needs it)", source=source, field=f"{field}.{key}")
    changes = check_fields(Ground, value, source=source, where=field)
    x0, x1 = changes.get("extent", DEFAULT_EXTENT)
    if not x0 < x1:
        raise EvoInputError(
            f"expected [x_from, x_to] with x_from < x_to, got {shown(value['extent'])}",
            source=source,
            field=f"{field}.extent",
        )
    if kind == "hills":
        shortest = (x1 - x0) * HILL_SEGMENTS_PER_WAVELENGTH / MAX_HILL_SEGMENTS
        if not changes["wavelength"] >= shortest:
            raise EvoInputError(
                f"expected a wavelength >= {shortest:.3g} px over the extent [{x0:g}, {x1:g}] (sampled into "
                f"{HILL_SEGMENTS_PER_WAVELENGTH} segments per wavelength, {MAX_HILL_SEGMENTS} at most), "
                f"got {shown(value['wavelength'])}",
                source=source,
                field=f"{field}.wavelength",
            )
    return Ground(**changes)
