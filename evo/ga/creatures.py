"""Genomes: an individual is a :class:`~evo.model.Creature`, exactly what a model file holds.

:func:`random_creature` and :func:`seeded_creature` make creatures within the ``[genome]`` limits,
:func:`problems` says what puts one outside them, :func:`distance` compares two (the hall of fame's
near-duplicate test). Randomness comes only from the generator passed in (docs/internals.md, "Genomes").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evo.analysis import lowest_natural_frequency
from evo.ga.body import TWO_PI, Body, finish
from evo.ga.kernels.creatures import CANDIDATES_PER_MASS
from evo.ga.kernels.genes import BLOCK, distance_terms
from evo.ga.settings import GenomeSection
from evo.ga.topology import connected, repair
from evo.model import Creature
from evo.sim.world import World

__all__ = ["random_creature", "seeded_creature", "problems", "distance", "distance_floor"]


def _scatter(rng: np.random.Generator, n: int, box: tuple[float, float]) -> np.ndarray:
    """(n, 2) points in the box (px), spread out by Mitchell's best-candidate sampling: each new point is
    the one of several uniform tries farthest from the points already placed."""
    size = np.asarray(box, dtype=np.float64)
    points = np.empty((n, 2))
    points[0] = rng.random(2) * size
    for i in range(1, n):
        tries = rng.random((CANDIDATES_PER_MASS, 2)) * size
        gaps = tries[:, None, :] - points[None, :i, :]
        nearest = np.hypot(gaps[..., 0], gaps[..., 1]).min(axis=1)
        points[i] = tries[int(np.argmax(nearest))]
    return points


def _pair_distances(positions: np.ndarray) -> np.ndarray:
    gaps = positions[:, None, :] - positions[None, :, :]
    return np.hypot(gaps[..., 0], gaps[..., 1])


def _links(rng: np.random.Generator, positions: np.ndarray, genome: GenomeSection) -> list[tuple[int, int]]:
    """Pairs of masses to link: a spanning tree, then candidate neighbour pairs with ``link_density``.

    The tree is grown Prim-style from a random mass, always along the shortest link from a tree mass with
    a spare degree to a mass outside (a tree always has one of degree <= 1, so it never gets stuck).
    Candidates are each mass with each of its ``max_degree`` nearest others; each is linked with
    probability ``link_density``, shortest first, while the degree and link caps allow.
    """
    n = positions.shape[0]
    dist = _pair_distances(positions)
    degree = np.zeros(n, dtype=np.int64)
    in_tree = np.zeros(n, dtype=bool)
    in_tree[int(rng.integers(n))] = True
    pairs: list[tuple[int, int]] = []
    while not in_tree.all():
        source = in_tree & (degree < genome.max_degree)
        masked = np.where(source[:, None] & ~in_tree[None, :], dist, np.inf)
        i, j = np.unravel_index(int(np.argmin(masked)), masked.shape)
        pairs.append((int(i), int(j)))
        degree[[i, j]] += 1
        in_tree[j] = True
    linked = {(min(p), max(p)) for p in pairs}
    order = np.argsort(dist + np.diag(np.full(n, np.inf)), axis=1, kind="stable")[:, : genome.max_degree]
    candidates = sorted(
        {(min(i, int(j)), max(i, int(j))) for i in range(n) for j in order[i][: n - 1]} - linked,
        key=lambda p: (dist[p], p),
    )
    draws = rng.random(len(candidates))
    for (i, j), u in zip(candidates, draws, strict=True):
        room = (
            len(pairs) < genome.max_links and degree[i] < genome.max_degree and degree[j] < genome.max_degree
        )
        if u < genome.link_density and room:
            pairs.append((i, j))
            degree[[i, j]] += 1
    return pairs


def random_creature(
    rng: np.random.Generator, genome: GenomeSection, *, name: str = "creature", world: World | None = None
) -> Creature:
    """A random creature within the ``genome`` limits.

    Masses are spread over the ``genome.box`` (px), linked by :func:`_links`; each link's rest length is
    its current length clipped to ``genome.rest`` (so it starts unstressed where the range allows), it is
    a muscle with probability ``muscle_fraction`` (alpha uniform in (0, 1]), phi is uniform in [0, 2π).
    omega and beta are uniform in their ranges. The creature rests on the floor with its leftmost mass at
    x = 0. With ``genome.omega_init == "resonant"`` omega is then replaced by the creature's lowest non-zero
    natural frequency in ``world`` (default: the default world), clipped into ``genome.omega``; the random
    draws are the same either way.
    """
    n = int(rng.integers(genome.masses[0], genome.masses[1] + 1))
    positions = _scatter(rng, n, genome.box)
    pairs = _links(rng, positions, genome)
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    lengths = np.hypot(*(positions[b] - positions[a]).T)
    m = len(pairs)
    muscle = rng.random(m) < genome.muscle_fraction
    alpha = np.where(muscle, 1.0 - rng.random(m), 0.0)
    phi = rng.random(m) * TWO_PI
    omega = rng.uniform(*genome.omega)
    beta = rng.uniform(*genome.beta)
    body = Body(
        positions, a.tolist(), b.tolist(), lengths.tolist(), alpha.tolist(), phi.tolist(), omega, beta
    )
    template = Creature(np.zeros((0, 2)), np.zeros((0, 2)), [], [], [], [], [], [], name=name)
    creature = finish(body, template, genome)
    if genome.omega_init == "resonant":
        resonant = lowest_natural_frequency(creature, World() if world is None else world)
        if resonant is not None:
            creature = creature.replace(omega=float(np.clip(resonant, *genome.omega)))
    return creature


def seeded_creature(model: Creature, rng: np.random.Generator, genome: GenomeSection) -> Creature:
    """``model`` brought within the ``genome`` limits, at rest on the floor.

    Extra masses are removed at random and missing ones grown, self and duplicate links dropped, the
    degree and link caps enforced and the pieces reconnected (see :func:`evo.ga.topology.repair`); rest,
    alpha, omega and beta are clipped into their ranges and phi wrapped into [0, 2π). Fixed masses become
    free. A model already within the limits keeps its structure and genes (only its placement changes).
    """
    body = Body.of(model)
    repair(body, rng, genome)
    return finish(body, model, genome)


def problems(creature: Creature, genome: GenomeSection) -> list[str]:
    """What puts ``creature`` outside the ``genome`` limits, one line per kind of problem; empty if valid.

    Checked: mass count, link count, no fixed masses, finite positions, link ends are masses, no
    self-links, no duplicate links (the same unordered pair twice), degree <= max_degree, connected,
    rest within ``genome.rest``, alpha in [0, 1], phi in [0, 2π), omega and beta within their ranges,
    per-link stiffness and dashpot and per-mass mass within their ranges.
    """
    out: list[str] = []
    n, m = creature.n_masses, creature.n_links
    low, high = genome.masses
    if not low <= n <= high:
        out.append(f"{n} masses, expected {low}..{high}")
    if m > genome.max_links:
        out.append(f"{m} links, expected at most {genome.max_links}")
    if creature.fixed.any():
        out.append(f"fixed masses {np.flatnonzero(creature.fixed).tolist()}, expected none")
    if not np.isfinite(creature.positions).all():
        out.append("positions are not all finite")
    a, b = creature.link_a, creature.link_b
    if m and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        out.append(f"link ends outside 0..{n - 1}")
        return out
    if np.any(a == b):
        out.append(f"self-links {np.flatnonzero(a == b).tolist()}")
    if np.unique(np.minimum(a, b) * n + np.maximum(a, b)).size < m:
        out.append("duplicate links joining the same pair of masses")
    degree = np.bincount(np.concatenate([a, b]), minlength=n)
    if m and degree.max() > genome.max_degree:
        out.append(
            f"mass {int(np.argmax(degree))} has {degree.max()} links, expected at most {genome.max_degree}"
        )
    if not connected(n, a.tolist(), b.tolist()):
        out.append("not connected")
    for name, values, (lo, hi) in (
        ("rest", creature.rest, genome.rest),
        ("alpha", creature.alpha, (0.0, 1.0)),
        ("stiffness", creature.stiffness, genome.link_stiffness),
        ("dashpot", creature.dashpot, genome.link_dashpot),
    ):
        bad = np.flatnonzero(~((values >= lo) & (values <= hi)))
        if bad.size:
            out.append(f"link {bad[0]}: {name} {values[bad[0]]} outside [{lo}, {hi}]")
    bad = np.flatnonzero(~((creature.phi >= 0.0) & (creature.phi < TWO_PI)))
    if bad.size:
        out.append(f"link {bad[0]}: phi {creature.phi[bad[0]]} outside [0, 2π)")
    for name, value, (lo, hi) in (
        ("omega", creature.omega, genome.omega),
        ("beta", creature.beta, genome.beta),
    ):
        if not lo <= value <= hi:
            out.append(f"{name} {value} outside [{lo}, {hi}]")
    lo, hi = genome.mass
    bad = np.flatnonzero(~((creature.mass >= lo) & (creature.mass <= hi)))
    if bad.size:
        out.append(f"mass {bad[0]}: mass {creature.mass[bad[0]]} outside [{lo}, {hi}]")
    return out


_RANKS = np.linspace(0.0, 1.0, 9)  # the quantiles distance() compares


def _quantiles(values: np.ndarray) -> np.ndarray:
    """(9,) nearest-rank quantiles of ``values`` (zeros if empty); much cheaper than ``np.quantile``."""
    if values.size == 0:
        return np.zeros(_RANKS.size)
    return np.sort(values)[np.rint(_RANKS * (values.size - 1)).astype(np.int64)]


def _relative(x: float, y: float) -> float:
    """|x - y| / max(|x|, |y|), 0 when both are 0: in [0, 1] for numbers of one sign."""
    scale = max(abs(x), abs(y))
    return abs(x - y) / scale if scale > 0 else 0.0


def distance(a: Creature, b: Creature) -> float:
    """Structural dissimilarity of two creatures in [0, 1]: 0 for identical genes, symmetric, cheap.

    The mean of seven terms, each in [0, 1]: relative differences of the mass, link and muscle counts and
    of omega; the difference of beta; the relative difference of the rest-length distributions (nine
    quantiles); and of the muscle genes -- per link (|Δalpha| and the circular |Δphi| / π of links that are
    muscles in both) when both have the same links between the same masses, else via alpha quantiles.
    Positions are not compared directly: they only set the starting pose (rest lengths carry the shape).
    """
    sa, sb = _signature(a), _signature(b)
    terms = _scalar_terms(a, b, sa.muscles, sb.muscles)
    same = bool(sa.links == sb.links and a.n_links)  # the same links between the same masses
    if not same or a.n_links <= BLOCK:  # compiled: the numpy expressions below, value for value
        terms.extend(
            distance_terms(
                (sa.rest, sb.rest),
                same,
                (a.alpha, b.alpha) if same else (sa.alpha, sb.alpha),
                (a.phi, b.phi),
            )
        )
        return float(sum(terms) / len(terms))
    qa, qb = sa.rest, sb.rest
    scale = np.maximum(np.abs(qa), np.abs(qb))
    terms.append(_mean(np.divide(np.abs(qa - qb), scale, out=np.zeros_like(scale), where=scale > 0)))
    both = a.is_muscle & b.is_muscle
    turn = np.abs(a.phi - b.phi) % TWO_PI
    circular = np.minimum(turn, TWO_PI - turn) / np.pi
    terms.append(_mean(0.5 * np.abs(a.alpha - b.alpha) + 0.5 * np.where(both, circular, 0.0)))
    return float(sum(terms) / len(terms))


def _scalar_terms(a: Creature, b: Creature, muscles_a: int, muscles_b: int) -> list[float]:
    """The first five of :func:`distance`'s seven terms: the mass, link and muscle counts', omega's and
    beta's."""
    return [
        _relative(a.n_masses, b.n_masses),
        _relative(a.n_links, b.n_links),
        _relative(muscles_a, muscles_b),
        _relative(a.omega, b.omega),
        abs(a.beta - b.beta),
    ]


def distance_floor(a: Creature, b: Creature, *, muscles: bool = True) -> float:
    """A lower bound of :func:`distance` from its five scalar terms alone (no quantiles, no per-link
    terms), or without ``muscles`` from four (the muscle counts' term taken as 0: no gene read): their
    sum over seven, as ``distance`` sums and divides, is never more than ``distance`` (the terms left out
    are >= 0, and a float sum or quotient never rounds to less for a larger operand).
    ``distance_floor(a, b) >= limit`` is thus ``distance(a, b) >= limit`` exactly, at a fraction of its
    cost."""
    counts = (a.n_muscles, b.n_muscles) if muscles else (0, 0)
    return float(sum(_scalar_terms(a, b, *counts)) / 7)


def _mean(values: np.ndarray) -> float:
    """``float(np.mean(values))`` of a non-empty 1-d float64 array, bit for bit (the same reduction and
    division), without ``np.mean``'s wrapper."""
    return float(np.add.reduce(values)) / values.size


@dataclass(frozen=True)
class _Signature:
    """What :func:`distance` compares of one creature, made once (creatures never change)."""

    muscles: int
    rest: np.ndarray
    alpha: np.ndarray
    links: tuple[int, bytes, bytes]  # mass count and the link ends: equal exactly when the links are


_SIGNATURE = "_distance_signature"  # where a creature keeps its signature, as a cached_property would


def _signature(creature: Creature) -> _Signature:
    """The creature's signature, made on first use and kept on the (immutable) creature itself."""
    found = creature.__dict__.get(_SIGNATURE)
    if found is None:
        links = (creature.n_masses, creature.link_a.tobytes(), creature.link_b.tobytes())
        found = _Signature(creature.n_muscles, _quantiles(creature.rest), _quantiles(creature.alpha), links)
        creature.__dict__[_SIGNATURE] = found
    return found
