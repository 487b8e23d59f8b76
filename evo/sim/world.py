"""World parameters: one frozen dataclass declared with :func:`evo.schema.setting`, the same names
everywhere (TOML ``[world]``, a model's ``world``, ``--set name=value``), and the applet's cursor keys.

Units: px and frames. Layers (defaults < model ``world`` < ``--world FILE.toml`` < ``--set``) are applied
by :func:`evo.io.worlds.resolve_world`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evo.errors import EvoInputError, unknown_key_message
from evo.schema import check_fields, field_label, is_finite_number, number_problem, setting, shown
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
GRAVITY_DIRECTIONS = ("down", "up", "off")
_CURSORS = {
    "gravity_cursor": ("gravity", GRAVITY_PER_CURSOR2),
    "damping_cursor": ("damping", DAMPING_PER_CURSOR2),
    "stiffness_cursor": ("stiffness", STIFFNESS_PER_CURSOR2),
}

Polyline = tuple[tuple[float, float], ...]
_POLYLINES = "a polyline [[x, y], ...] or a list of polylines"


def _terrain(value: Any, *, source: str | None, field: str) -> tuple[Polyline, ...]:
    """Accept one polyline [[x, y], ...] or a list of polylines (evo.io reads a Soda XML path first)."""
    if isinstance(value, str):  # config and model files may name a Soda XML file: evo.io reads it
        raise EvoInputError(
            f"expected {_POLYLINES}; a terrain file ({value!r}) is read from config and model files only",
            source=source,
            field=field,
        )
    if not isinstance(value, list | tuple):
        raise EvoInputError(f"expected {_POLYLINES}, got {shown(value)}", source=source, field=field)
    if not value:
        return ()
    lines = [value] if _is_point(value[0]) else value
    out = []
    for k, line in enumerate(lines):
        if not isinstance(line, list | tuple) or len(line) < 2 or not all(map(_is_point, line)):
            raise EvoInputError(
                f"expected {_POLYLINES}, each of at least two finite [x, y] points, got {shown(line)} "
                f"(polyline {k})",
                source=source,
                field=field,
            )
        out.append(tuple((float(p[0]), float(p[1])) for p in line))
    return tuple(out)


def _is_point(p: Any) -> bool:
    return isinstance(p, list | tuple) and len(p) == 2 and all(map(is_finite_number, p))


@dataclass(frozen=True)
class World:
    """The physical world a creature lives in: each field's ``doc`` says what it is, with its units
    (docs/config.md lists them all). Constructing one checks and converts every field; a problem raises
    :class:`EvoInputError` naming the field.
    """

    gravity: float = setting(0.5, low=0.0, doc="g, px/frame^2 (applied to free masses only)")
    gravity_direction: str = setting(
        "down", choices=GRAVITY_DIRECTIONS, doc="direction of gravity: down, up (reversed) or off"
    )
    damping: float = setting(
        0.025, low=0.0, doc="specific viscous damping f, 1/frame (force -f v per unit mass)"
    )
    stiffness: float = setting(
        0.4, low=0.0, open_low=True, doc="specific stiffness k, 1/frame^2 (the same for every link)"
    )
    restitution_normal: float = setting(
        0.75, low=0.0, high=1.0, doc="c_o, the fraction of normal velocity kept (and reversed) at a wall"
    )
    restitution_tangential: float = setting(
        0.10, low=0.0, high=1.0, doc="c_t, the fraction of tangential velocity kept at a wall"
    )
    dt: float = setting(1.0, low=0.0, open_low=True, doc="frames per integration step")
    integrator: str = setting(
        "euler",
        choices=INTEGRATORS,
        doc="euler (semi-implicit Euler), explicit-euler, finite-difference (seed 000's scheme 9.13), "
        "midpoint (appendix C), rk4, backward-euler (implicit, Newton) or psm (Parker-Sochacki series)",
    )
    width: float | None = setting(
        None, low=0.0, open_low=True, doc="side walls at x = 0 and x = width, px (None: no side walls)"
    )
    height: float | None = setting(
        None, low=0.0, open_low=True, doc="ceiling at y = height, px (None: no ceiling)"
    )
    terrain: tuple[Polyline, ...] = setting(
        (), parse=_terrain, doc="fixed segments masses collide with, as polylines of (x, y) points, px"
    )
    terrain_file: str | None = setting(
        None,
        doc="the Soda XML file the terrain was read from, an absolute path (a label for reports: the "
        "polylines of terrain are what is simulated; None: not read from a file)",
    )
    max_speed: float | None = setting(
        None,
        low=0.0,
        open_low=True,
        doc="px/frame; a faster mass (or any NaN/inf) stops the run, flagged exploded",
    )
    contact: str = setting(
        "soda",
        choices=CONTACTS,
        doc="soda (walls and ground reflect with the restitutions after each step) or penalty (the "
        "ground pushes with a spring force and rubs with friction; walls, ceiling and terrain reflect)",
    )
    ground: Ground = setting(
        Ground(), parse=parse_ground, doc="the ground shape (a table or a polyline in files)"
    )
    ground_stiffness: float = setting(
        1.0,
        low=0.0,
        open_low=True,
        doc="S_ground, force per px of depth under the ground (penalty contact), 1/frame^2 for a unit "
        "mass: a resting mass M sinks M g / S_ground px",
    )
    ground_friction: float = setting(1.0, low=0.0, doc="mu, friction force / normal force (penalty contact)")
    ground_slip_speed: float = setting(
        0.1,
        low=0.0,
        open_low=True,
        doc="epsilon, px/frame: friction is mu |F_n| tanh(v_t / epsilon), viscous below epsilon",
    )
    psm_order: int = setting(9, low=2, high=20, doc="order n of the Parker-Sochacki series (psm)")
    newton_iterations: int = setting(
        10, low=1, high=100, doc="most Newton iterations per step (backward-euler)"
    )
    newton_tolerance: float = setting(
        1e-10,
        low=0.0,
        open_low=True,
        doc="Newton stops when no velocity changes by more than this times (1 + the largest speed), px/frame",
    )

    def __post_init__(self) -> None:
        values = {name: getattr(self, name) for name in self.field_names()}
        for name, value in check_fields(World, values).items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_model(cls, creature: Any) -> World:
        """The default world updated with a creature's own ``world`` mapping (errors name ``world.key``).

        Args:
            creature: anything with a ``world`` mapping, usually an :class:`~evo.model.Creature`.

        Returns:
            The :class:`World`: the defaults, then the creature's overrides.

        Raises:
            EvoInputError: an unknown key, a bad value, or a value given with its cursor.
        """
        return cls().updated(creature.world, where="world")

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names of the world's fields, in order (the keys of ``[world]`` but the cursors).

        Returns:
            A tuple of field names.
        """
        return tuple(f.name for f in dataclasses.fields(cls))

    @property
    def gravity_vector(self) -> tuple[float, float]:
        """(gx, gy) acceleration on free masses, px/frame^2."""
        sign = {"down": -1.0, "up": 1.0, "off": 0.0}[self.gravity_direction]
        return 0.0, sign * self.gravity

    def segments(self) -> list[tuple[float, float, float, float]]:
        """Terrain as a flat list of (x1, y1, x2, y2) segments.

        Returns:
            One (x1, y1, x2, y2) tuple (px) per segment of every terrain polyline, in order.
        """
        out = []
        for line in self.terrain:
            for (x1, y1), (x2, y2) in zip(line[:-1], line[1:], strict=True):
                out.append((x1, y1, x2, y2))
        return out

    def to_dict(self, *, only_changed: bool = False) -> dict[str, Any]:
        """A plain mapping (TOML/JSON friendly). None values are left out.

        Args:
            only_changed: keep only the fields whose value differs from :class:`World`'s default (what a
                model's ``world`` needs to hold).

        Returns:
            ``{field: value}``, terrain as lists of ``[x, y]`` and the ground as its table (or polyline);
            ``World().updated(...)`` of it gives an equal world.
        """
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
        """A copy with the keys of ``mapping`` applied, checked and converted (cursors too).

        Errors name ``source`` (a file) and the key (``[world] gravity``, ``world.gravity``,
        ``--set.gravity``: see :func:`evo.schema.field_label`).

        Args:
            mapping: world keys (the fields, or the ``*_cursor`` forms) and their new values.
            source: the file the mapping came from, for errors.
            where: how errors name the table (``"world"``, ``"[world]"``, ``"--set"``).

        Returns:
            A new :class:`World`; this one is unchanged.

        Raises:
            EvoInputError: not a mapping, an unknown key (the closest valid one suggested), a bad value,
                a value given together with its cursor, or a ``terrain_file`` without a terrain.
        """
        changes = check_fields(
            World, _without_cursors(mapping, source=source, where=where), source=source, where=where
        )
        if "terrain" in changes and "terrain_file" not in changes:  # a new terrain: no longer that file's
            changes["terrain_file"] = None
        if changes.get("terrain_file") is not None and not changes.get("terrain", self.terrain):
            raise EvoInputError(
                "names the file a terrain was read from, but there is no terrain; give the file as "
                f'terrain = "{changes["terrain_file"]}"',
                source=source,
                field=field_label(where, "terrain_file"),
            )
        return dataclasses.replace(self, **changes)


def _without_cursors(
    mapping: Mapping[str, Any], *, source: str | None = None, where: str = "world"
) -> dict[str, Any]:
    """The keys of a world mapping checked, and the cursors turned into the values they stand for."""
    if not isinstance(mapping, Mapping):
        raise EvoInputError(
            f"expected a table of world parameters, got {shown(mapping)}", source=source, field=where
        )
    valid = set(World.field_names()) | set(_CURSORS)
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if key not in valid:
            raise EvoInputError(unknown_key_message(key, where, valid), source=source)
        if key not in _CURSORS:
            out[key] = value
            continue
        target, per = _CURSORS[key]
        field = field_label(where, key)
        if target in mapping:
            raise EvoInputError(f"give either '{target}' or '{key}', not both", source=source, field=field)
        problem = number_problem(value, low=0, high=CURSOR_MAX)
        if problem:
            raise EvoInputError(problem, source=source, field=field)
        out[target] = per * float(value) ** 2
    return out
