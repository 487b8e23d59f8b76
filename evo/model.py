"""The creature: point masses, springs and muscles, and the global wave that drives the muscles.

Units are those of seed 000 (px, frames; y up, the floor is y = 0). This module holds the data and its
structural checks only; files are read and written in :mod:`evo.io`. The muscle law, the seed 002
stiffness, dashpot and mass fields, and polygons: docs/model-format.md.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_POLYGON_COLOR",
    "Creature",
    "Polygon",
    "Topology",
    "closed_curve",
    "is_color",
    "is_connected",
    "topology",
]

# px (and px/frame): the largest coordinate, speed or rest length a creature may have; the simulator squares
# differences of coordinates, which overflow near 1e154, and nothing sane is a billion pixels away
MAX_COORDINATE = 1e9
DEFAULT_POLYGON_COLOR = "#ced4da"  # the fill of a polygon that names no colour
_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def is_color(value: Any) -> bool:
    """True for a colour as the model files write it: ``#rgb`` or ``#rrggbb`` (hex digits, any case)."""
    return isinstance(value, str) and _COLOR.fullmatch(value) is not None


@dataclass(frozen=True)
class Polygon:
    """A filled polygon drawn under the links (drawing only; no physics).

    Attributes:
        masses: its corners, mass indices in drawing order.
        color: ``#rgb`` or ``#rrggbb`` as the file gave it, or None (drawn in DEFAULT_POLYGON_COLOR).
        curvy: drawn as the smooth closed curve through the corners (:func:`closed_curve`) rather than
            with straight edges.
    """

    masses: tuple[int, ...]
    color: str | None = None
    curvy: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "masses", tuple(int(i) for i in self.masses))
        object.__setattr__(self, "curvy", bool(self.curvy))

    @property
    def fill(self) -> str:
        """The colour it is drawn in."""
        return self.color or DEFAULT_POLYGON_COLOR


def closed_curve(points: Any) -> np.ndarray:
    """The closed uniform Catmull-Rom spline through ``points`` ((k, 2) array) as k cubic Bézier segments.

    Returns a (k, 3, 2) array: row i holds the two control points and the end point of the segment from
    point i to point i + 1 (the last segment closes the curve at point 0). The curve passes through every
    point, leaving point i along (p[i+1] - p[i-1]) / 2, so the control points are
    p[i] + (p[i+1] - p[i-1]) / 6 and p[i+1] - (p[i+2] - p[i]) / 6. The gallery page's script draws the
    same segments.
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    before, after, after2 = np.roll(p, 1, axis=0), np.roll(p, -1, axis=0), np.roll(p, -2, axis=0)
    return np.stack([p + (after - before) / 6.0, after - (after2 - p) / 6.0, after], axis=1)


# set by evo/__init__.py: draws a creature for Jupyter (the drawing code lives above this layer)
HTML_RENDERER: Any = None


def _frozen(array: Any, dtype: Any, shape_tail: tuple[int, ...] = ()) -> np.ndarray:
    out = np.array(array, dtype=dtype, copy=True)
    if out.ndim == 1 and shape_tail and out.size == 0:
        out = out.reshape((0, *shape_tail))
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class Creature:
    """A Sodaconstructor-style creature.

    Attributes:
        positions: (n_masses, 2) array, initial x, y of each mass (px).
        velocities: (n_masses, 2) array, initial velocity (px/frame).
        fixed: (n_masses,) bool array; fixed masses never move.
        link_a, link_b: (n_links,) int arrays, the two masses each link joins.
        rest: (n_links,) array, rest length l0 (px, >= 0; 0 is a zip spring).
        alpha: (n_links,) array, relative muscle amplitude in [0, 1]; 0 means a spring.
        phi: (n_links,) array, muscle phase (rad).
        omega: wave angular speed (rad/frame).
        beta: wave amplitude in [0, 1].
        wave_phase: the wave's own phase at frame 0 (rad).
        wave_reverse: run the wave backwards (theta decreases with time).
        autoreverse: reverse the wave each time a mass touches a side wall.
        name: a display name.
        world: world-parameter overrides this creature was made or scored in (a plain mapping).
        meta: free-form provenance, kept unchanged through load and save.
        polys: :class:`Polygon` objects, for drawing only (a plain sequence of mass indices is taken as a
            polygon without colour, not curvy).
        stiffness: (n_links,) array, multiplier S of the world's stiffness k̄ per link (> 0; default 1).
        dashpot: (n_links,) array, dashpot constant D per link (>= 0, force per px/frame; default 0).
        mass: (n_masses,) array, mass M of each mass (> 0; default 1). Gravity and the world's damping
            are accelerations and do not depend on it; link and ground forces are divided by it.

    Leaving ``stiffness``, ``dashpot`` or ``mass`` out (None) gives the defaults. :meth:`replace` keeps
    them attached to their links and masses when links or masses are added or removed (see there).
    """

    positions: np.ndarray
    velocities: np.ndarray
    fixed: np.ndarray
    link_a: np.ndarray
    link_b: np.ndarray
    rest: np.ndarray
    alpha: np.ndarray
    phi: np.ndarray
    omega: float = 0.0
    beta: float = 0.0
    wave_phase: float = 0.0
    wave_reverse: bool = False
    autoreverse: bool = False
    name: str = "creature"
    world: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    polys: tuple = ()
    stiffness: np.ndarray | None = None
    dashpot: np.ndarray | None = None
    mass: np.ndarray | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "positions", _frozen(self.positions, np.float64, (2,)))
        set_(self, "velocities", _frozen(self.velocities, np.float64, (2,)))
        set_(self, "fixed", _frozen(self.fixed, bool))
        for name in ("link_a", "link_b"):
            set_(self, name, _frozen(getattr(self, name), np.int64))
        for name in ("rest", "alpha", "phi"):
            set_(self, name, _frozen(getattr(self, name), np.float64))
        set_(self, "omega", float(self.omega))
        set_(self, "beta", float(self.beta))
        set_(self, "wave_phase", float(self.wave_phase))
        set_(self, "polys", tuple(p if isinstance(p, Polygon) else Polygon(tuple(p)) for p in self.polys))
        n = self.positions.shape[0]
        m = self.link_a.shape[0]
        if self.stiffness is None and self.dashpot is None and self.mass is None:
            self.__dict__["has_default_physics"] = True  # nothing to look at: every value is its default
        for name, size, default in (("stiffness", m, 1.0), ("dashpot", m, 0.0), ("mass", n, 1.0)):
            value = getattr(self, name)
            set_(self, name, _frozen(np.full(size, default) if value is None else value, np.float64))
        if self.positions.shape != (n, 2) or self.velocities.shape != (n, 2):
            raise ValueError("positions and velocities must both have shape (n_masses, 2)")
        if self.fixed.shape != (n,):
            raise ValueError("fixed must have shape (n_masses,)")
        for name in ("link_b", "rest", "alpha", "phi", "stiffness", "dashpot"):
            if getattr(self, name).shape != (m,):
                raise ValueError(f"{name} must have shape (n_links,)")
        if self.mass.shape != (n,):
            raise ValueError("mass must have shape (n_masses,)")

    def __reduce_ex__(self, protocol: int) -> tuple:
        """Pickled (between processes: a worker's children, a brood's parents) as one bytes object of
        every array's bytes and the plain fields, about a fifth of the default pickle's cost either way;
        unpickled as read-only views of those bytes, bit for bit the same values."""
        if type(self) is not Creature:
            return super().__reduce_ex__(protocol)
        d = self.__dict__
        default = d.get("has_default_physics") is True
        arrays = (d["positions"], d["velocities"], d["link_a"], d["link_b"], d["rest"], d["alpha"], d["phi"])
        if not default:
            arrays += (d["stiffness"], d["dashpot"], d["mass"])
        numbers = b"".join([a.tobytes() for a in arrays])
        plain = (d["omega"], d["beta"], d["wave_phase"], d["wave_reverse"], d["autoreverse"], d["name"],
                 d["world"], d["meta"], d["polys"])  # fmt: skip
        return (_unpickled, (numbers, d["fixed"].tobytes(), default, plain))

    def _repr_html_(self) -> str | None:
        """An animated replay in a notebook (once ``evo`` is imported)."""
        return HTML_RENDERER(self) if HTML_RENDERER is not None else None

    def __repr__(self) -> str:
        return (
            f"Creature({self.name!r}: {self.n_masses} masses, {self.n_links} links, "
            f"{self.n_muscles} muscles, omega {self.omega:.4g} rad/frame)"
        )

    # -- sizes -------------------------------------------------------------------------------
    # cached in the instance: a frozen creature's sizes never change, and a run asks them ~10 times a child
    @functools.cached_property
    def n_masses(self) -> int:
        return int(self.positions.shape[0])

    @functools.cached_property
    def n_links(self) -> int:
        return int(self.link_a.shape[0])

    @property
    def is_muscle(self) -> np.ndarray:
        """(n_links,) bool: which links are muscles (alpha > 0)."""
        return self.alpha > 0.0

    @property
    def n_muscles(self) -> int:
        return int(np.count_nonzero(self.is_muscle))

    @functools.cached_property
    def has_default_physics(self) -> bool:
        """True when all links have stiffness 1 and no dashpot and all masses weigh 1 (the applet's model)."""
        return bool(
            np.all(self.stiffness == 1.0) and np.all(self.dashpot == 0.0) and np.all(self.mass == 1.0)
        )

    def replace(self, **changes: Any) -> Creature:
        """A copy with some fields changed (arrays are copied and frozen again).

        Per-link and per-mass values that are not given follow their links and masses. When the number of
        links changes (``link_a``/``link_b`` given, ``stiffness``/``dashpot`` not), each new link takes
        the values of an old link joining the same two masses (the first not yet taken), and the defaults
        if there is none; with the same number of links they stay by index. When the number of masses
        changes (``positions`` given, ``mass`` not), a new mass takes the mass of the old one at the same
        index if the old masses are a prefix of the new ones, of the old mass at the very same position
        otherwise, and 1 if there is none.

        Args:
            **changes: new values of fields, by name (``positions=...``, ``omega=0.1``, ``name="x"``).

        Returns:
            A new :class:`Creature`; this one is unchanged.

        Raises:
            ValueError: arrays whose shapes do not fit together (checked as by the constructor).
            TypeError: a name that is not a field.
        """
        if ("link_a" in changes or "link_b" in changes) and not {"stiffness", "dashpot"} & changes.keys():
            new_a = np.asarray(changes.get("link_a", self.link_a), dtype=np.int64).reshape(-1)
            new_b = np.asarray(changes.get("link_b", self.link_b), dtype=np.int64).reshape(-1)
            changes["stiffness"], changes["dashpot"] = self._carry_link_values(new_a, new_b)
        if "positions" in changes and "mass" not in changes:
            changes["mass"] = self._carry_masses(np.asarray(changes["positions"], dtype=np.float64))
        return dataclasses.replace(self, **changes)

    def _carry_link_values(self, new_a: np.ndarray, new_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if new_a.shape[0] == self.n_links:
            return self.stiffness, self.dashpot
        stiffness = np.ones(new_a.shape[0])
        dashpot = np.zeros(new_a.shape[0])
        if self.n_links == 0 or (np.all(self.stiffness == 1.0) and np.all(self.dashpot == 0.0)):
            return stiffness, dashpot
        unused: dict[tuple[int, int], list[int]] = {}
        for k in range(self.n_links):
            pair = (int(min(self.link_a[k], self.link_b[k])), int(max(self.link_a[k], self.link_b[k])))
            unused.setdefault(pair, []).append(k)
        for k in range(new_a.shape[0]):
            olds = unused.get((int(min(new_a[k], new_b[k])), int(max(new_a[k], new_b[k]))))
            if olds:
                old = olds.pop(0)
                stiffness[k], dashpot[k] = self.stiffness[old], self.dashpot[old]
        return stiffness, dashpot

    def _carry_masses(self, positions: np.ndarray) -> np.ndarray:
        positions = positions.reshape(-1, 2)
        n_new, n_old = positions.shape[0], self.n_masses
        if n_new == n_old:
            return self.mass
        mass = np.ones(n_new)
        if np.all(self.mass == 1.0):
            return mass
        if n_new >= n_old and np.array_equal(positions[:n_old], self.positions):
            mass[:n_old] = self.mass
            return mass
        where = {(float(x), float(y)): i for i, (x, y) in enumerate(self.positions)}
        for i, (x, y) in enumerate(positions):
            old = where.get((float(x), float(y)))
            if old is not None:
                mass[i] = self.mass[old]
        return mass

    def structural_errors(self) -> list[tuple[str, str]]:
        """Problems with the creature as (field path, what was expected) pairs; empty if valid.

        Returns:
            One ``(field, expected)`` pair per problem, the field as a model file names it
            (``links[3].rest``), e.g. ``("links[3].rest", "a length >= 0, got -1.0")``.
        """
        errors: list[tuple[str, str]] = []
        n = self.n_masses
        if n == 0:
            errors.append(("masses", "at least one mass"))
        if not np.all(np.isfinite(self.positions)):
            errors.append(("masses", "finite coordinates"))
        elif np.any(np.abs(self.positions) > MAX_COORDINATE):
            errors.append(("masses", f"coordinates within ±{MAX_COORDINATE:g} px"))
        if not np.all(np.isfinite(self.velocities)):
            errors.append(("masses", "finite velocities"))
        elif np.any(np.abs(self.velocities) > MAX_COORDINATE):
            errors.append(("masses", f"velocities within ±{MAX_COORDINATE:g} px/frame"))
        for k in range(self.n_links):
            a, b = int(self.link_a[k]), int(self.link_b[k])
            for key, idx in (("a", a), ("b", b)):
                if not 0 <= idx < n:
                    errors.append((f"links[{k}].{key}", f"a mass index in 0..{n - 1}, got {idx}"))
            if a == b:
                errors.append((f"links[{k}]", f"two different masses, got a self-link on {a}"))
            if not (0.0 <= self.rest[k] <= MAX_COORDINATE):
                errors.append(
                    (f"links[{k}].rest", f"a length in [0, {MAX_COORDINATE:g}] px, got {self.rest[k]}")
                )
            if not 0.0 <= self.alpha[k] <= 1.0:
                errors.append((f"links[{k}].alpha", f"a number in [0, 1], got {self.alpha[k]}"))
            if not np.isfinite(self.phi[k]):
                errors.append((f"links[{k}].phi", "a finite phase in radians"))
            if not (self.stiffness[k] > 0.0 and np.isfinite(self.stiffness[k])):
                errors.append((f"links[{k}].stiffness", f"a multiplier > 0, got {self.stiffness[k]}"))
            if not (self.dashpot[k] >= 0.0 and np.isfinite(self.dashpot[k])):
                errors.append((f"links[{k}].dashpot", f"a dashpot constant >= 0, got {self.dashpot[k]}"))
        for i in range(n):
            if not (self.mass[i] > 0.0 and np.isfinite(self.mass[i])):
                errors.append((f"masses[{i}].mass", f"a mass > 0, got {self.mass[i]}"))
        for k, poly in enumerate(self.polys):
            if not all(0 <= i < n for i in poly.masses):
                errors.append((f"polys[{k}]", f"mass indices in 0..{n - 1}, got {list(poly.masses)}"))
            if poly.color is not None and not is_color(poly.color):
                errors.append((f"polys[{k}].color", f"a colour #rrggbb or #rgb, got {poly.color!r}"))
        if not 0.0 <= self.beta <= 1.0:
            errors.append(("wave.beta", f"a number in [0, 1], got {self.beta}"))
        if not (np.isfinite(self.omega) and self.omega >= 0.0):
            errors.append(("wave.omega", f"a number >= 0 (rad/frame), got {self.omega}"))
        if not np.isfinite(self.wave_phase):
            errors.append(("wave.phase", "a finite phase in radians"))
        return errors


@dataclass(frozen=True)
class Topology:
    """The paper's topology index epsilon_ij in compressed sparse row form.

    For mass i, its neighbours are ``neighbours[indptr[i]:indptr[i + 1]]`` (that is epsilon_i1 ..
    epsilon_iN_i, N_i = indptr[i + 1] - indptr[i]) and ``links`` gives, in the same slots, the index of
    the link that joins them. Parallel links appear once each.
    """

    indptr: np.ndarray  # (n_masses + 1,)
    neighbours: np.ndarray  # (2 * n_links,)
    links: np.ndarray  # (2 * n_links,)

    def degree(self) -> np.ndarray:
        """(n_masses,) the paper's N_i."""
        return np.diff(self.indptr)

    def epsilon(self, i: int) -> np.ndarray:
        """The neighbours of mass i (the paper's epsilon_i1 .. epsilon_iN_i, zero-based)."""
        return self.neighbours[self.indptr[i] : self.indptr[i + 1]]


def topology(creature: Creature) -> Topology:
    """Build the CSR topology index of a creature (ch. 5 of seed 000)."""
    n = creature.n_masses
    ends = np.concatenate([creature.link_a, creature.link_b])
    others = np.concatenate([creature.link_b, creature.link_a])
    link_ids = np.concatenate([np.arange(creature.n_links)] * 2)
    order = np.lexsort((others, ends))
    counts = np.bincount(ends, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return Topology(indptr=indptr, neighbours=others[order], links=link_ids[order])


def is_connected(creature: Creature) -> bool:
    """True when every mass can be reached from mass 0 through links."""
    n = creature.n_masses
    if n <= 1:
        return True
    topo = topology(creature)
    seen = np.zeros(n, dtype=bool)
    stack = [0]
    seen[0] = True
    while stack:
        i = stack.pop()
        for j in topo.epsilon(i):
            if not seen[j]:
                seen[j] = True
                stack.append(int(j))
    return bool(seen.all())


@functools.lru_cache(maxsize=256, typed=True)  # typed: 0.0 and False make different arrays
def shared_constant(shape: int | tuple[int, int], value: float | bool) -> np.ndarray:
    """A read-only array of ``shape`` filled with ``value`` (of its type), shared by every creature that
    needs one (evo.ga.body's finished creatures, unpickled ones): at rest, not fixed, default physics."""
    out = np.full(shape, value)
    out.setflags(write=False)
    return out


def _unpickled(numbers: bytes, fixed: bytes, default: bool, plain: tuple) -> Creature:
    """The creature :meth:`Creature.__reduce_ex__` packed: its arrays are read-only views of the bytes."""
    n = len(fixed)
    values = np.frombuffer(numbers, dtype=np.float64)
    m = (values.size - 4 * n - (0 if default else n)) // (5 if default else 7)
    links = values[4 * n : 4 * n + 2 * m].view(np.int64)
    genes = 4 * n + 2 * m
    creature = object.__new__(Creature)
    omega, beta, wave_phase, wave_reverse, autoreverse, name, world, meta, polys = plain
    fields = {
        "positions": values[: 2 * n].reshape(n, 2),
        "velocities": values[2 * n : 4 * n].reshape(n, 2),
        "fixed": np.frombuffer(fixed, dtype=np.bool_),
        "link_a": links[:m],
        "link_b": links[m:],
        "rest": values[genes : genes + m],
        "alpha": values[genes + m : genes + 2 * m],
        "phi": values[genes + 2 * m : genes + 3 * m],
        "omega": omega,
        "beta": beta,
        "wave_phase": wave_phase,
        "wave_reverse": wave_reverse,
        "autoreverse": autoreverse,
        "name": name,
        "world": world,
        "meta": meta,
        "polys": polys,
    }
    if default:
        fields.update(
            stiffness=shared_constant(m, 1.0), dashpot=shared_constant(m, 0.0), mass=shared_constant(n, 1.0)
        )
        fields["has_default_physics"] = True
    else:
        extra = genes + 3 * m
        fields.update(
            stiffness=values[extra : extra + m],
            dashpot=values[extra + m : extra + 2 * m],
            mass=values[extra + 2 * m : extra + 2 * m + n],
        )
    creature.__dict__.update(fields)
    return creature
