"""Forces, potential energy and stiffness matrix of a creature whose muscles are frozen.

Seed 000 eq. 8.3 / 10.2 with masses and stiffness multipliers, and seed 004's elastic plus geometric
(pre-stress) stiffness. Positions are (n_masses, 2); the stiffness matrix acts on the flattened
``[x0, y0, x1, y1, ...]``. The formulas and units: docs/analysis.md, "The mechanics".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evo.model import Creature
from evo.sim.world import World

__all__ = [
    "StaticModel",
    "frozen_rest_lengths",
    "static_model",
    "link_lengths",
    "tensions",
    "forces",
    "energies",
    "stiffness_matrix",
    "rigid_motions",
    "orthonormal_columns",
    "TINY_LENGTH",
]

TINY_LENGTH = 1e-12  # px; below this a link's direction is undefined


def frozen_rest_lengths(creature: Creature, phase: float | None = None) -> np.ndarray:
    """(n_links,) rest lengths l_r (px) with the muscles frozen.

    ``phase`` is the wave angle theta (rad): a muscle's rest length is ``l0 (1 + alpha beta sin(theta +
    phi))``. ``None`` freezes every muscle at its own rest length l0.
    """
    rest = np.asarray(creature.rest, dtype=np.float64)
    if phase is None:
        return rest.copy()
    return rest * (1.0 + creature.alpha * creature.beta * np.sin(float(phase) + creature.phi))


@dataclass(frozen=True, eq=False)
class StaticModel:
    """A creature reduced to what statics needs.

    Attributes:
        link_a, link_b: (n_links,) mass indices.
        rest_length: (n_links,) frozen rest lengths l_r (px).
        link_stiffness: (n_links,) kbar * s_k (1/frame^2).
        mass: (n_masses,) masses (1 = the simulator's unit mass).
        free: (n_masses,) bool, True where a mass may move.
        gravity: (2,) gravitational acceleration actually applied (px/frame^2); zeros when off.
    """

    link_a: np.ndarray
    link_b: np.ndarray
    rest_length: np.ndarray
    link_stiffness: np.ndarray
    mass: np.ndarray
    free: np.ndarray
    gravity: np.ndarray

    @property
    def n_masses(self) -> int:
        return int(self.mass.shape[0])

    @property
    def free_dofs(self) -> np.ndarray:
        """Indices of the free coordinates in the flattened (2 n_masses,) vector."""
        idx = np.flatnonzero(self.free)
        return np.stack([2 * idx, 2 * idx + 1], axis=1).ravel()

    @property
    def stiffness_scale(self) -> float:
        """max(kbar s_k) / min(m_i) (1/frame^2): the natural scale of omega^2."""
        if self.link_stiffness.size == 0:
            return 0.0
        return float(np.max(self.link_stiffness) / np.min(self.mass))


def _per_item(given: np.ndarray | None, creature: Creature, attribute: str, size: int) -> np.ndarray:
    """``given``, else the creature's own per-link / per-mass array when its model has one, else ones."""
    if given is None:
        given = getattr(creature, attribute, None)
    return np.ones(size) if given is None else np.asarray(given, dtype=np.float64)


def static_model(
    creature: Creature,
    world: World,
    *,
    phase: float | None = None,
    gravity: bool = False,
    link_stiffness: np.ndarray | None = None,
    mass: np.ndarray | None = None,
) -> StaticModel:
    """Build a :class:`StaticModel`.

    ``link_stiffness`` (n_links,) multiplies the world's stiffness per link; ``mass`` (n_masses,) gives
    each mass. Left out, they come from the creature's ``stiffness`` and ``mass`` arrays when its model
    carries them, and are 1 otherwise. ``gravity`` says whether to apply the world's gravity.
    """
    n, m = creature.n_masses, creature.n_links
    s = _per_item(link_stiffness, creature, "stiffness", m)
    masses = _per_item(mass, creature, "mass", n)
    if s.shape != (m,) or not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError(f"link_stiffness must be ({m},) finite numbers >= 0")
    if masses.shape != (n,) or not np.all(np.isfinite(masses)) or np.any(masses <= 0):
        raise ValueError(f"mass must be ({n},) finite numbers > 0")
    g = np.array(world.gravity_vector if gravity else (0.0, 0.0), dtype=np.float64)
    return StaticModel(
        link_a=np.asarray(creature.link_a, dtype=np.int64),
        link_b=np.asarray(creature.link_b, dtype=np.int64),
        rest_length=frozen_rest_lengths(creature, phase),
        link_stiffness=float(world.stiffness) * s,
        mass=masses,
        free=~np.asarray(creature.fixed, dtype=bool),
        gravity=g,
    )


def _geometry(model: StaticModel, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = positions[model.link_b] - positions[model.link_a]
    return d, np.hypot(d[:, 0], d[:, 1])


def link_lengths(model: StaticModel, positions: np.ndarray) -> np.ndarray:
    """(n_links,) current lengths L (px)."""
    return _geometry(model, positions)[1]


def tensions(model: StaticModel, positions: np.ndarray) -> np.ndarray:
    """(n_links,) tensions T = kbar s (L - l_r), positive when stretched."""
    return model.link_stiffness * (link_lengths(model, positions) - model.rest_length)


def forces(model: StaticModel, positions: np.ndarray, *, include_fixed: bool = False) -> np.ndarray:
    """(n_masses, 2) total force (links + gravity) on each mass; zero on fixed masses unless
    ``include_fixed`` (then it is the force the support must react)."""
    d, length = _geometry(model, positions)
    safe = np.where(length > TINY_LENGTH, length, 1.0)
    # T/L * d, written so that a zip spring (l_r = 0) stays exact down to L = 0
    factor = model.link_stiffness * np.where(length > TINY_LENGTH, 1.0 - model.rest_length / safe, 0.0)
    factor = np.where(model.rest_length == 0.0, model.link_stiffness, factor)
    pull = factor[:, None] * d
    out = np.zeros_like(positions, dtype=np.float64)
    np.add.at(out, model.link_a, pull)
    np.add.at(out, model.link_b, -pull)
    out[model.free] += model.mass[model.free, None] * model.gravity[None, :]
    if not include_fixed:
        out[~model.free] = 0.0
    return out


def energies(model: StaticModel, positions: np.ndarray) -> tuple[float, float]:
    """(elastic, gravitational) potential energy; gravity's zero is the line through the origin
    perpendicular to g (y = 0 for the usual downward gravity)."""
    _, length = _geometry(model, positions)
    elastic = 0.5 * float(np.sum(model.link_stiffness * (length - model.rest_length) ** 2))
    free = model.free
    grav = -float(np.sum(model.mass[free] * (positions[free] @ model.gravity)))
    return elastic, grav + 0.0  # + 0.0: no negative zero


def stiffness_matrix(model: StaticModel, positions: np.ndarray, part: str = "total") -> np.ndarray:
    """(2 n_masses, 2 n_masses) Hessian of the potential energy, all masses (fixed ones included).

    ``part``: ``"total"``, ``"elastic"`` (kbar s u u^T) or ``"geometric"`` ((T/L)(I - u u^T)). Slice it
    with :attr:`StaticModel.free_dofs` for the free coordinates.
    """
    if part not in ("total", "elastic", "geometric"):
        raise ValueError(f"part must be total, elastic or geometric, got {part!r}")
    n = model.n_masses
    d, length = _geometry(model, positions)
    ok = length > TINY_LENGTH
    safe = np.where(ok, length, 1.0)
    u = np.where(ok[:, None], d / safe[:, None], np.array([1.0, 0.0]))
    uu = u[:, :, None] * u[:, None, :]
    perp = np.eye(2)[None, :, :] - uu
    k = model.link_stiffness
    zip_spring = model.rest_length == 0.0
    # (T / L) = kbar s (1 - l_r / L); exactly kbar s for a zip spring, whatever L
    geo_coef = np.where(zip_spring, k, k * (1.0 - model.rest_length / safe))
    geo_coef = np.where(ok | zip_spring, geo_coef, 0.0)
    blocks = np.zeros((model.link_a.shape[0], 2, 2))
    if part in ("total", "elastic"):
        blocks += k[:, None, None] * uu
    if part in ("total", "geometric"):
        blocks += geo_coef[:, None, None] * perp
    out = np.zeros((2 * n, 2 * n))
    rows_a = 2 * model.link_a[:, None] + np.arange(2)[None, :]
    rows_b = 2 * model.link_b[:, None] + np.arange(2)[None, :]
    for rows, cols, sign in (
        (rows_a, rows_a, 1.0),
        (rows_b, rows_b, 1.0),
        (rows_a, rows_b, -1.0),
        (rows_b, rows_a, -1.0),
    ):
        np.add.at(out, (rows[:, :, None], cols[:, None, :]), sign * blocks)
    return out


def rigid_motions(positions: np.ndarray, free: np.ndarray) -> np.ndarray:
    """(2 n_free, r) the infinitesimal rigid motions the supports allow, as columns over the free
    coordinates: x and y translations and a rotation about the centroid with no fixed mass, a rotation
    about the fixed mass with exactly one, nothing with more."""
    fixed = np.flatnonzero(~free)
    p = positions[free]
    columns = []
    if fixed.size == 0:
        columns.append(np.tile([1.0, 0.0], p.shape[0]))
        columns.append(np.tile([0.0, 1.0], p.shape[0]))
        centre = p.mean(axis=0) if p.shape[0] else np.zeros(2)
    else:
        centre = positions[fixed[0]]
    if fixed.size <= 1:
        r = p - centre
        columns.append(np.stack([-r[:, 1], r[:, 0]], axis=1).ravel())
    if not columns or p.shape[0] == 0:
        return np.zeros((2 * p.shape[0], 0))
    return np.stack(columns, axis=1)


def orthonormal_columns(columns: np.ndarray) -> np.ndarray:
    """An orthonormal basis (n, r') of the span of ``columns`` (n, r); r' < r when some are dependent."""
    if columns.shape[1] == 0:
        return columns
    u, s, _ = np.linalg.svd(columns, full_matrices=False)
    keep = s > 1e-9 * max(float(s[0]), 1e-300)
    return u[:, keep]
