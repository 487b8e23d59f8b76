"""World parameters: one frozen dataclass, the same names everywhere (TOML ``[world]``, a model's
``world``, ``--set name=value``).

Units: px and frames. Precedence when layering: defaults < model ``world`` < ``--world FILE.toml`` <
``--set``; see :func:`resolve_world`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evo.errors import EvoInputError, unknown_key_message
from evo.schema import is_finite_number, is_number
from evo.sim.ground import Ground, parse_ground

__all__ = [
    "GRAVITY_PER_CURSOR2",
    "DAMPING_PER_CURSOR2",
    "STIFFNESS_PER_CURSOR2",
    "CONTACTS",
    "INTEGRATORS",
    "World",
    "field_label",
]

# Seed 000 §3.6: the applet's cursor laws, value = parameter * p**2 with p = 0..107.
GRAVITY_PER_CURSOR2 = 3.50169e-4  # px/frame^2
DAMPING_PER_CURSOR2 = 8.7698e-5  # 1/frame
STIFFNESS_PER_CURSOR2 = 4.4209e-5  # 1/frame^2
CURSOR_MAX = 107

# see docs/integrators.md for what each one is and when to use it
INTEGRATORS = ("euler", "explicit-euler", "finite-difference", "midpoint", "rk4", "backward-euler", "psm")
CONTACTS = ("soda", "penalty")
PSM_ORDERS = (2, 20)
NEWTON_ITERATIONS = (1, 100)
GRAVITY_DIRECTIONS = ("down", "up", "off")
_CURSORS = {
    "gravity_cursor": ("gravity", GRAVITY_PER_CURSOR2),
    "damping_cursor": ("damping", DAMPING_PER_CURSOR2),
    "stiffness_cursor": ("stiffness", STIFFNESS_PER_CURSOR2),
}

Polyline = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class World:
    """The physical world a creature lives in.

    Attributes:
        gravity: g, px/frame^2 (applied to free masses only).
        gravity_direction: ``down``, ``up`` (reversed) or ``off``.
        damping: specific viscous damping f, 1/frame (force -f v per unit mass).
        stiffness: specific stiffness k, 1/frame^2 (the same for every link).
        restitution_normal: c_o, the fraction of normal velocity kept (and reversed) at a wall.
        restitution_tangential: c_t, the fraction of tangential velocity kept at a wall.
        dt: frames per integration step.
        integrator: one of :data:`INTEGRATORS`: ``euler`` (semi-implicit Euler, the default),
            ``explicit-euler``, ``finite-difference`` (seed 000's scheme 9.13), ``midpoint`` (appendix C),
            ``rk4``, ``backward-euler`` (implicit, Newton) or ``psm`` (Parker–Sochacki power series).
        width: side walls at x = 0 and x = width (None: no side walls).
        height: ceiling at y = height (None: no ceiling).
        terrain: fixed segments masses collide with, as polylines of (x, y) points.
        max_speed: px/frame; a faster mass (or any NaN/inf) stops the run, flagged exploded.
        contact: ``soda`` (walls and ground reflect with the restitutions after each step) or ``penalty``
            (the ground pushes with a spring force and rubs with friction; walls, ceiling and terrain
            still reflect).
        ground: the ground shape (:class:`evo.sim.ground.Ground`; a table or polyline in files).
        ground_stiffness: S_ground, force per px of depth under the ground (penalty contact), i.e.
            1/frame² for a unit mass: a resting mass M sinks M·g/S_ground px.
        ground_friction: μ, friction force / normal force (penalty contact).
        ground_slip_speed: ε, px/frame: friction is μ·|F_n|·tanh(v_t/ε), viscous below ε.
        psm_order: order n of the Parker–Sochacki series (``psm``), 2..20.
        newton_iterations: most Newton iterations per step (``backward-euler``).
        newton_tolerance: Newton stops when no velocity changes by more than this times (1 + the largest
            speed), px/frame.
    """

    gravity: float = 0.5
    gravity_direction: str = "down"
    damping: float = 0.025
    stiffness: float = 0.4
    restitution_normal: float = 0.75
    restitution_tangential: float = 0.10
    dt: float = 1.0
    integrator: str = "euler"
    width: float | None = None
    height: float | None = None
    terrain: tuple[Polyline, ...] = ()
    max_speed: float | None = None
    contact: str = "soda"
    ground: Ground = Ground()
    ground_stiffness: float = 1.0
    ground_friction: float = 1.0
    ground_slip_speed: float = 0.1
    psm_order: int = 9
    newton_iterations: int = 10
    newton_tolerance: float = 1e-10

    def __post_init__(self) -> None:
        if not isinstance(self.ground, Ground):
            object.__setattr__(self, "ground", parse_ground(self.ground, field="ground"))
        errors = _check(self)
        if errors:
            key, expected = errors[0]
            raise EvoInputError(expected, field=key)

    @classmethod
    def from_model(cls, creature: Any) -> World:
        """The default world updated with a creature's own ``world`` mapping (errors name ``world.key``)."""
        return cls().updated(creature.world, where="world")

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @property
    def gravity_vector(self) -> tuple[float, float]:
        """(gx, gy) acceleration on free masses, px/frame^2."""
        sign = {"down": -1.0, "up": 1.0, "off": 0.0}[self.gravity_direction]
        return 0.0, sign * self.gravity

    def segments(self) -> list[tuple[float, float, float, float]]:
        """Terrain as a flat list of (x1, y1, x2, y2) segments."""
        out = []
        for line in self.terrain:
            for (x1, y1), (x2, y2) in zip(line[:-1], line[1:], strict=True):
                out.append((x1, y1, x2, y2))
        return out

    def to_dict(self, *, only_changed: bool = False) -> dict[str, Any]:
        """A plain mapping (TOML/JSON friendly). None values are left out."""
        default = World()
        out: dict[str, Any] = {}
        for name in self.field_names():
            value = getattr(self, name)
            if value is None or (only_changed and value == getattr(default, name)):
                continue
            if name == "terrain":
                if not value:
                    continue
                value = [[list(p) for p in line] for line in value]
            elif name == "ground":
                value = value.to_value()
            out[name] = value
        return out

    def updated(
        self, mapping: Mapping[str, Any], *, source: str | None = None, where: str = "world"
    ) -> World:
        """A copy with the keys of ``mapping`` applied, validated, cursors converted.

        Errors name ``source`` (a file) and ``where.key``.
        """
        changes = normalise(mapping, source=source, where=where)
        merged = {**{n: getattr(self, n) for n in self.field_names()}, **changes}
        errors = _check_values(merged)
        if errors:
            key, expected = errors[0]
            raise EvoInputError(expected, source=source, field=field_label(where, key))
        return World(**merged)


def normalise(
    mapping: Mapping[str, Any], *, source: str | None = None, where: str = "world"
) -> dict[str, Any]:
    """Validate the keys of a world mapping and convert cursors and terrain; values are checked later."""
    names = set(World.field_names())
    valid = names | set(_CURSORS)
    out: dict[str, Any] = {}
    if not isinstance(mapping, Mapping):
        raise EvoInputError("expected a table of world parameters", source=source, field=where)
    for key, value in mapping.items():
        if key not in valid:
            raise EvoInputError(unknown_key_message(key, where, valid), source=source)
        if key in _CURSORS:
            target, per = _CURSORS[key]
            if target in mapping:
                raise EvoInputError(
                    f"give either '{target}' or '{key}', not both",
                    source=source,
                    field=field_label(where, key),
                )
            if not is_number(value) or not 0 <= value <= CURSOR_MAX:
                raise EvoInputError(
                    f"a cursor position in 0..{CURSOR_MAX}, got {value!r}",
                    source=source,
                    field=field_label(where, key),
                )
            out[target] = per * float(value) ** 2
        elif key == "terrain":
            out[key] = _terrain(value, source=source, field=field_label(where, "terrain"))
        elif key == "ground":
            out[key] = parse_ground(value, source=source, field=field_label(where, "ground"))
        else:
            out[key] = value
    return out


def field_label(where: str, key: str) -> str:
    """The name of a key in error messages: ``[world] gravity`` in a TOML table, ``world.gravity`` in a
    model file, ``--set.gravity`` on the command line."""
    return f"{where} {key}" if where.startswith("[") else f"{where}.{key}"


def _terrain(value: Any, *, source: str | None, field: str) -> tuple[Polyline, ...]:
    """Accept one polyline [[x, y], ...], a list of polylines, or a Sodaconstructor XML path."""
    expected = "a polyline [[x, y], ...] or a list of polylines"
    if isinstance(value, str):  # config and model files may name a Soda XML file: evo.io reads it
        raise EvoInputError(
            f"expected {expected}; a terrain file ({value!r}) is read from config and model files only",
            source=source,
            field=field,
        )
    if not isinstance(value, list | tuple):
        raise EvoInputError(expected, source=source, field=field)
    if not value:
        return ()
    lines = [value] if _is_point(value[0]) else value
    out = []
    for k, line in enumerate(lines):
        if not isinstance(line, list | tuple) or len(line) < 2 or not all(map(_is_point, line)):
            raise EvoInputError(
                f"{expected}; polyline {k} needs at least two [x, y] points",
                source=source,
                field=field,
            )
        out.append(tuple((float(p[0]), float(p[1])) for p in line))
    return tuple(out)


def _is_point(p: Any) -> bool:
    return isinstance(p, list | tuple) and len(p) == 2 and all(map(is_finite_number, p))


def _check(world: World) -> list[tuple[str, str]]:
    return _check_values({n: getattr(world, n) for n in World.field_names()})


def _check_values(v: Mapping[str, Any]) -> list[tuple[str, str]]:
    errors: list[tuple[str, str]] = []

    def number(key: str, low: float, high: float = math.inf, *, open_low: bool = False) -> None:
        x = v[key]
        ok = is_finite_number(x) and (x > low if open_low else x >= low) and x <= high
        if not ok:
            bound = f"> {low}" if open_low else f">= {low}"
            rng = f"in [{low}, {high}]" if math.isfinite(high) else bound
            errors.append((key, f"expected a number {rng}, got {x!r}"))

    number("gravity", 0.0)
    number("damping", 0.0)
    number("stiffness", 0.0, open_low=True)
    number("restitution_normal", 0.0, 1.0)
    number("restitution_tangential", 0.0, 1.0)
    number("dt", 0.0, open_low=True)
    if v["gravity_direction"] not in GRAVITY_DIRECTIONS:
        errors.append(
            (
                "gravity_direction",
                f"expected one of {', '.join(GRAVITY_DIRECTIONS)}, got {v['gravity_direction']!r}",
            )
        )
    if v["integrator"] not in INTEGRATORS:
        errors.append(("integrator", f"expected one of {', '.join(INTEGRATORS)}, got {v['integrator']!r}"))
    for key in ("width", "height", "max_speed"):
        if v[key] is not None:
            number(key, 0.0, open_low=True)
    if v["contact"] not in CONTACTS:
        errors.append(("contact", f"expected one of {', '.join(CONTACTS)}, got {v['contact']!r}"))
    if not isinstance(v["ground"], Ground):
        errors.append(("ground", f"expected a ground table or polyline, got {v['ground']!r}"))
    number("ground_stiffness", 0.0, open_low=True)
    number("ground_friction", 0.0)
    number("ground_slip_speed", 0.0, open_low=True)
    number("newton_tolerance", 0.0, open_low=True)
    for key, (low, high) in (("psm_order", PSM_ORDERS), ("newton_iterations", NEWTON_ITERATIONS)):
        x = v[key]
        if isinstance(x, bool) or not isinstance(x, int) or not low <= x <= high:
            errors.append((key, f"expected a whole number in {low}..{high}, got {x!r}"))
    return errors
