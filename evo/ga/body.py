"""The editable body shared by the genome and the variation operators, its link genes, and turning it
back into a placed, clipped creature (the graph work on it: :mod:`evo.ga.topology`).

A :class:`Body` is a mutable working copy of a creature's genes; :func:`finish` turns it back into a
frozen, clipped :class:`~evo.model.Creature` standing on the floor (docs/internals.md, "Bodies").
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass, field

import numpy as np

from evo.ga.kernels.genes import finished_genes
from evo.ga.settings import GenomeSection
from evo.model import Creature, shared_constant

__all__ = [
    "Body",
    "LINK_EXTRAS",
    "MASS_EXTRAS",
    "extras_of",
    "TWO_PI",
    "wrap_phase",
    "new_link_genes",
    "new_links_genes",
    "place_on_floor",
    "settle",
    "finish",
    "assemble",
]

TWO_PI = 2.0 * math.pi

# Optional per-link and per-mass physics a Creature may carry (seed 002: stiffness multiplier, dashpot,
# mass), with the value a new link or mass gets. A body carries them along with their links and masses;
# the ``physics`` mutation varies them within their [genome] ranges.
LINK_EXTRAS = {"stiffness": 1.0, "dashpot": 0.0}
MASS_EXTRAS = {"mass": 1.0}


def extras_of(creature: Creature, defaults: dict[str, float]) -> dict[str, np.ndarray]:
    """The optional arrays of ``creature`` named in ``defaults`` that differ from their default."""
    if getattr(creature, "has_default_physics", False):  # the applet's model: none differs (cached)
        return {}
    out = {}
    for name, default in defaults.items():
        values = getattr(creature, name, None)
        if values is not None and np.any(np.asarray(values) != default):
            out[name] = np.asarray(values, dtype=np.float64)
    return out


def wrap_phase(phi: np.ndarray) -> np.ndarray:
    """Phases (rad) wrapped into [0, 2π); ``np.mod`` alone can return 2π for tiny negative inputs."""
    out = np.mod(np.asarray(phi, dtype=np.float64), TWO_PI)
    out[out >= TWO_PI] = 0.0
    return out


def new_link_genes(
    rng: np.random.Generator, genome: GenomeSection, length: float
) -> tuple[float, float, float]:
    """(rest px, alpha, phi rad) of a new link of current length ``length`` px.

    The rest length is the current length clipped to ``genome.rest`` (so the link starts unstressed when
    it can); with probability ``genome.muscle_fraction`` it is a muscle with alpha uniform in (0, 1].
    phi is uniform in [0, 2π) for springs too (it matters once toggle_muscle makes one a muscle).
    """
    muscle, alpha, phi = rng.random(3).tolist()
    rest = min(max(float(length), genome.rest[0]), genome.rest[1])
    phi *= TWO_PI
    return rest, (1.0 - alpha) if muscle < genome.muscle_fraction else 0.0, phi if phi < TWO_PI else 0.0


def new_links_genes(
    rng: np.random.Generator, genome: GenomeSection, lengths: list[float]
) -> list[tuple[float, float, float]]:
    """:func:`new_link_genes` of links of current lengths ``lengths`` (px), one after the other: the
    same values from the same draws (``rng.random(3 * k)`` is ``k`` draws of ``rng.random(3)``)."""
    if not lengths:
        return []
    draws = rng.random(3 * len(lengths)).tolist()
    low, high, muscle_fraction = genome.rest[0], genome.rest[1], genome.muscle_fraction
    out = []
    for k, length in enumerate(lengths):
        muscle, alpha, phi = draws[3 * k : 3 * k + 3]
        phi *= TWO_PI
        out.append(
            (
                min(max(float(length), low), high),
                (1.0 - alpha) if muscle < muscle_fraction else 0.0,
                phi if phi < TWO_PI else 0.0,
            )
        )
    return out


@dataclass
class Body:
    """Editable genes: (n, 2) positions (px), per-link genes as lists, omega (rad/frame) and beta.

    ``renumbered`` records that masses were removed or reordered (so drawing polygons no longer apply).
    ``link_extra`` and ``mass_extra`` hold optional per-link and per-mass values (:data:`LINK_EXTRAS`,
    :data:`MASS_EXTRAS`) that follow their links and masses; absent means all at the default.
    """

    positions: np.ndarray
    a: list[int]
    b: list[int]
    rest: list[float]
    alpha: list[float]
    phi: list[float]
    omega: float = 0.0
    beta: float = 0.0
    renumbered: bool = False
    link_extra: dict[str, list[float]] = field(default_factory=dict)
    mass_extra: dict[str, list[float]] = field(default_factory=dict)

    @classmethod
    def of(cls, creature: Creature) -> Body:
        if getattr(creature, "has_default_physics", False):  # no per-link or per-mass column (cached)
            link_extra, mass_extra = {}, {}
        else:
            link_extra = {k: v.tolist() for k, v in extras_of(creature, LINK_EXTRAS).items()}
            mass_extra = {k: v.tolist() for k, v in extras_of(creature, MASS_EXTRAS).items()}
        return cls(
            np.array(creature.positions, dtype=np.float64),
            creature.link_a.tolist(),
            creature.link_b.tolist(),
            creature.rest.tolist(),
            creature.alpha.tolist(),
            creature.phi.tolist(),
            creature.omega,
            creature.beta,
            False,
            link_extra,
            mass_extra,
        )

    @property
    def n_masses(self) -> int:
        return int(self.positions.shape[0])

    @property
    def n_links(self) -> int:
        return len(self.a)

    def degree(self) -> np.ndarray:
        """(n_masses,) number of links at each mass."""
        return np.bincount(np.array(self.a + self.b, dtype=np.int64), minlength=self.n_masses)

    def length(self, i: int, j: int) -> float:
        """Current distance between masses i and j (px)."""
        return float(np.hypot(*(self.positions[j] - self.positions[i])))

    def add_link(self, i: int, j: int, genes: tuple[float, float, float]) -> None:
        self.a.append(int(i))
        self.b.append(int(j))
        for column, value in zip((self.rest, self.alpha, self.phi), genes, strict=True):
            column.append(float(value))
        for name, column in self.link_extra.items():
            column.append(LINK_EXTRAS[name])

    def add_links(self, i: list[int], j: list[int], genes: list[tuple[float, float, float]]) -> None:
        """:meth:`add_link` of each ``(i[k], j[k], genes[k])``, in order (ints and floats given)."""
        self.a.extend(i)
        self.b.extend(j)
        if genes:
            rest, alpha, phi = zip(*genes, strict=True)
            self.rest.extend(rest)
            self.alpha.extend(alpha)
            self.phi.extend(phi)
        for name, column in self.link_extra.items():
            column.extend([LINK_EXTRAS[name]] * len(i))

    def add_mass(self, position: np.ndarray) -> int:
        """Append a mass at ``position`` (px); returns its index."""
        self.positions = np.vstack([self.positions, np.reshape(position, (1, 2))])
        for name, column in self.mass_extra.items():
            column.append(MASS_EXTRAS[name])
        return self.n_masses - 1

    def keep_links(self, keep: list[int]) -> None:
        """Keep only the links with these indices, in this order."""
        for name in ("a", "b", "rest", "alpha", "phi"):
            column = getattr(self, name)
            setattr(self, name, [column[k] for k in keep])
        for name, column in self.link_extra.items():
            self.link_extra[name] = [column[k] for k in keep]

    def remove_masses(self, gone: list[int]) -> None:
        """Delete masses and every link touching them; the remaining masses keep their order."""
        alive = np.ones(self.n_masses, dtype=bool)
        alive[list(gone)] = False
        new_index = np.cumsum(alive) - 1
        a, b = np.array(self.a, dtype=np.int64), np.array(self.b, dtype=np.int64)
        keep = np.flatnonzero(alive[a] & alive[b])
        self.a, self.b = new_index[a[keep]].tolist(), new_index[b[keep]].tolist()
        for name in ("rest", "alpha", "phi"):
            setattr(self, name, np.array(getattr(self, name), dtype=np.float64)[keep].tolist())
        for extra, rows in ((self.link_extra, keep), (self.mass_extra, alive)):
            for name, column in extra.items():
                extra[name] = np.array(column, dtype=np.float64)[rows].tolist()
        self.positions = self.positions[alive]
        self.renumbered = True


def place_on_floor(positions: np.ndarray) -> np.ndarray:
    """(n, 2) positions shifted so that the lowest mass is at y = 0 and the leftmost at x = 0 (px)."""
    positions = np.asarray(positions, dtype=np.float64)
    if positions.shape[0] == 0:
        return positions.copy()
    return positions - positions.min(axis=0)


def settle(body: Body, genome: GenomeSection) -> None:
    """Do to ``body``, in place, what :func:`finish` does to the genes: clip them into their ranges and
    place the body on the floor, so that editing it further gives what editing ``Body.of(finish(...))``
    would (the same values; a per-link or per-mass column that holds only defaults is kept)."""
    body.positions, genes = finished_genes(
        np.asarray(body.positions, dtype=np.float64),
        np.array((body.rest, body.alpha, body.phi), dtype=np.float64).reshape(3, -1),
        genome.rest,
    )
    body.rest, body.alpha, body.phi = genes.tolist()
    body.omega = min(max(float(body.omega), genome.omega[0]), genome.omega[1])
    body.beta = min(max(float(body.beta), genome.beta[0]), genome.beta[1])
    for extra, ranges in (
        (body.link_extra, {"stiffness": genome.link_stiffness, "dashpot": genome.link_dashpot}),
        (body.mass_extra, {"mass": genome.mass}),
    ):
        for name, column in extra.items():
            extra[name] = _clipped(column, ranges[name], len(column), 0.0).tolist()


def finish(body: Body, template: Creature, genome: GenomeSection, *, world: dict | None = None) -> Creature:
    """The creature of ``body``: genes clipped into the ``genome`` ranges (rest, alpha in [0, 1], phi
    wrapped into [0, 2π), omega, beta), at rest (zero velocities, no fixed masses), placed on the floor.

    The name, the wave's phase and direction and the world (unless ``world`` is given) come from
    ``template``. ``meta`` is empty (the generation loop records provenance); the polygons, which only
    serve drawing and index masses, are kept unless the body was renumbered.
    """
    n, m = body.n_masses, body.n_links
    positions, genes = finished_genes(
        np.asarray(body.positions, dtype=np.float64),
        np.array(body.rest + body.alpha + body.phi, dtype=np.float64).reshape(3, m),
        genome.rest,
    )
    links = np.array(body.a + body.b, dtype=np.int64).reshape(2, m)
    stiffness, dashpot = body.link_extra.get("stiffness"), body.link_extra.get("dashpot")
    mass = body.mass_extra.get("mass")
    physics = None
    if stiffness is not None or dashpot is not None or mass is not None:
        physics = (
            _clipped(stiffness, genome.link_stiffness, m, 1.0),
            _clipped(dashpot, genome.link_dashpot, m, 0.0),
            _clipped(mass, genome.mass, n, 1.0),
        )
    omega = min(max(float(body.omega), genome.omega[0]), genome.omega[1])
    beta = min(max(float(body.beta), genome.beta[0]), genome.beta[1])
    return assemble(positions, links, genes, omega, beta, body.renumbered, template, world, physics)


def assemble(
    positions: np.ndarray,
    links: np.ndarray,
    genes: np.ndarray,
    omega: float,
    beta: float,
    renumbered: bool,
    template: Creature,
    world: dict | None = None,
    physics: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> Creature:
    """The creature :func:`finish` makes of finished genes: (n, 2) float64 ``positions`` on the floor,
    (2, m) int64 ``links``, (3, m) float64 ``genes`` (rest, alpha, phi) already clipped, and ``omega`` and
    ``beta`` clipped; the arrays become the creature's own, read-only. ``physics``: the clipped read-only
    (stiffness, dashpot, mass) columns, or None for the applet's physics. The name, wave and world
    (unless ``world`` is given) come from ``template``; the polygons too unless ``renumbered``."""
    # the Creature the constructor would make of these fields, all fresh or shared read-only arrays of
    # the right dtypes and shapes with the genes clipped, assembled without its copies and checks
    # (tests/ga/test_body.py checks it against the constructor)
    creature = object.__new__(Creature)
    creature.__dict__.update(_array_fields(positions, links, genes, physics))
    creature.__dict__.update(_plain_fields(omega, beta, renumbered, template, world))
    # its cached sizes and physics flag, known here (a run reads each of every child)
    creature.__dict__["n_masses"] = positions.shape[0]
    creature.__dict__["n_links"] = links.shape[1]
    if physics is None:
        creature.__dict__["has_default_physics"] = True
    return creature


def _array_fields(
    positions: np.ndarray,
    links: np.ndarray,
    genes: np.ndarray,
    physics: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """A child's array fields, as :func:`assemble` and :func:`assemble_later` make them: ``positions``,
    ``links`` and ``genes`` made read-only and their rows, the shared defaults of a body at rest, and
    the applet's physics unless ``physics``."""
    for array in (positions, genes, links):  # their rows below are read-only views
        array.setflags(write=False)
    velocities, fixed, *defaults = _defaults(positions.shape[0], links.shape[1])
    if physics is not None:
        defaults = list(physics)
    return {
        "positions": positions,
        "velocities": velocities,
        "fixed": fixed,
        "link_a": links[0],
        "link_b": links[1],
        "rest": genes[0],
        "alpha": genes[1],
        "phi": genes[2],
        "stiffness": defaults[0],
        "dashpot": defaults[1],
        "mass": defaults[2],
    }


def _plain_fields(
    omega: float, beta: float, renumbered: bool, template: Creature, world: dict | None
) -> dict:
    """A child's fields that are no arrays, as :func:`assemble` and :func:`assemble_later` set them."""
    return {
        "omega": omega,
        "beta": beta,
        "wave_phase": float(template.wave_phase),
        "wave_reverse": template.wave_reverse,
        "autoreverse": template.autoreverse,
        "name": template.name,
        "world": dict(template.world if world is None else world),
        "meta": {},
        "polys": () if renumbered else template.polys,
    }


# the fields a creature of assemble_later makes on first read (all of them at once)
_MADE_LATER = frozenset(
    ("positions", "velocities", "fixed", "link_a", "link_b", "rest", "alpha", "phi")
    + ("stiffness", "dashpot", "mass")
)
_MAKING = threading.Lock()  # one creature's arrays made at a time (the run folder's writer reads some)


class _Later(Creature):
    """A creature of :func:`assemble_later` whose arrays are not made yet: the first read of one makes
    them all, as :func:`assemble` makes them, and the creature is a plain :class:`~evo.model.Creature`
    from then on."""

    def __getattr__(self, name: str) -> object:  # (only for fields not in its __dict__)
        if name not in _MADE_LATER:
            raise AttributeError(name)
        _make_now(self)
        return self.__dict__[name]

    def __reduce_ex__(self, protocol: int) -> tuple:
        _make_now(self)
        return Creature.__reduce_ex__(self, protocol)


def _make_now(creature: Creature) -> None:
    """Make the arrays of a creature of :func:`assemble_later` (once; other threads wait for them)."""
    with _MAKING:
        fields = creature.__dict__
        own = fields.pop("_own", None)
        if own is None:  # made meanwhile
            return
        fields.update(_array_fields(*(array.copy() for array in own)))
        object.__setattr__(creature, "__class__", Creature)


def assemble_later(
    positions: np.ndarray,
    links: np.ndarray,
    genes: np.ndarray,
    omega: float,
    beta: float,
    renumbered: bool,
    template: Creature,
    world: dict | None = None,
) -> Creature:
    """:func:`assemble` with the applet's physics, its arrays made (copies of these, which must not change
    meanwhile) the first time one of them is read: the same creature, field for field, at a fraction of
    the cost for one whose arrays are never read (most children of a run: they are selected out before
    a checkpoint, a hall of fame or a file reads them; tests/ga/test_body.py)."""
    creature = object.__new__(_Later)
    creature.__dict__.update(
        {
            **_plain_fields(omega, beta, renumbered, template, world),
            "n_masses": positions.shape[0],
            "n_links": links.shape[1],
            "has_default_physics": True,
            "_own": (positions, links, genes),
        }
    )
    return creature


@functools.lru_cache(maxsize=256)
def _defaults(n: int, m: int) -> tuple[np.ndarray, ...]:
    """The shared read-only arrays of a creature of n masses and m links at rest with default physics:
    (n, 2) velocities, (n,) fixed, (m,) stiffness, (m,) dashpot, (n,) mass."""
    return (
        shared_constant((n, 2), 0.0),
        shared_constant(n, False),
        shared_constant(m, 1.0),
        shared_constant(m, 0.0),
        shared_constant(n, 1.0),
    )


def _clipped(
    column: list[float] | None, bounds: tuple[float, float], size: int, default: float
) -> np.ndarray:
    """A read-only per-link or per-mass column clipped to ``bounds``; a shared (size,) array of
    ``default`` where the body has none."""
    if column is None:
        return shared_constant(size, default)
    out = np.minimum(np.maximum(np.array(column, dtype=np.float64), bounds[0]), bounds[1])
    out.setflags(write=False)
    return out
