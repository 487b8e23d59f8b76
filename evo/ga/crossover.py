"""Crossover: exchange body parts across a vertical cut, and blend the wave parameters.

:func:`crossover` is re-exported by :mod:`evo.ga.mutation`; see there for the contract every operator
keeps (valid children, inputs untouched, randomness only from ``rng``).
"""

from __future__ import annotations

import numpy as np

from evo.ga.body import LINK_EXTRAS, MASS_EXTRAS, Body, extras_of, finish, new_link_genes, repair
from evo.ga.graph_kernels import join_pairs
from evo.ga.settings import GASection, GenomeSection
from evo.model import Creature

__all__ = ["crossover", "crossover_bodies", "cut_crossover", "wave_crossover"]

PER_MASS_ACROSS = 2  # most new links across the cut that one mass may receive


def _split(creature: Creature, fraction: float) -> tuple[np.ndarray, float]:
    """(left mass mask, cut x in px): the ``fraction`` of masses with the smallest x (ties by index),
    at least one mass on each side when there are two or more, and the cut halfway across the gap."""
    n = creature.n_masses
    order = np.argsort(creature.positions[:, 0], kind="stable")
    count = min(max(round(fraction * n), 1), max(n - 1, 1))
    left = np.zeros(n, dtype=bool)
    left[order[:count]] = True
    xs = creature.positions[order, 0]
    cut = 0.5 * (xs[count - 1] + xs[count]) if count < n else float(xs[-1])
    return left, float(cut)


def _part(creature: Creature, keep: np.ndarray, shift: float) -> Body:
    """The masses in ``keep`` (shifted by ``shift`` px in x, in their order) and the links among them."""
    new_index = np.cumsum(keep) - 1
    links = np.flatnonzero(keep[creature.link_a] & keep[creature.link_b])
    positions = creature.positions[keep] + np.array([shift, 0.0])
    return Body(
        positions,
        new_index[creature.link_a[links]].tolist(),
        new_index[creature.link_b[links]].tolist(),
        creature.rest[links].tolist(),
        creature.alpha[links].tolist(),
        creature.phi[links].tolist(),
        renumbered=True,
        link_extra={k: v[links].tolist() for k, v in extras_of(creature, LINK_EXTRAS).items()},
        mass_extra={k: v[keep].tolist() for k, v in extras_of(creature, MASS_EXTRAS).items()},
    )


def _merged(
    left: dict[str, list[float]],
    right: dict[str, list[float]],
    sizes: tuple[int, int],
    defaults: dict[str, float],
) -> dict[str, list[float]]:
    """Concatenated optional columns of two parts; a column one part lacks is filled with the default."""
    return {
        name: left.get(name, [defaults[name]] * sizes[0]) + right.get(name, [defaults[name]] * sizes[1])
        for name in sorted(left.keys() | right.keys())
    }


def _gap(left: np.ndarray, right: np.ndarray, spacing: float) -> float:
    """How far (px, >= 0) to move the right part (all its x >= every left x) further right so that no
    mass across the cut is closer than ``spacing``: near-coincident masses joined by a link of much
    longer rest length push violently and can make the Euler step unstable."""
    if left.shape[0] == 0 or right.shape[0] == 0:
        return 0.0
    dx = right[None, :, 0] - left[:, None, 0]
    dy = np.abs(right[None, :, 1] - left[:, None, 1])
    needed = np.sqrt(np.maximum(spacing * spacing - dy * dy, 0.0)) - dx
    return float(max(needed.max(), 0.0))


def _crossing(creature: Creature, left: np.ndarray) -> int:
    """Number of links of ``creature`` that the cut separating ``left`` from the rest goes through."""
    return int(np.count_nonzero(left[creature.link_a] != left[creature.link_b]))


def _join(left: Body, right: Body, count: int, rng: np.random.Generator, genome: GenomeSection) -> Body:
    """One body of two parts, with ``count`` new links across: the nearest pairs first, at most
    ``PER_MASS_ACROSS`` per mass. Repair adds any still needed and enforces the caps."""
    offset = left.n_masses
    body = Body(
        np.vstack([left.positions, right.positions]),
        left.a + [i + offset for i in right.a],
        left.b + [i + offset for i in right.b],
        left.rest + right.rest,
        left.alpha + right.alpha,
        left.phi + right.phi,
        renumbered=True,
        link_extra=_merged(left.link_extra, right.link_extra, (left.n_links, right.n_links), LINK_EXTRAS),
        mass_extra=_merged(left.mass_extra, right.mass_extra, (left.n_masses, right.n_masses), MASS_EXTRAS),
    )
    if left.n_masses and right.n_masses:
        pairs = join_pairs(left.positions, right.positions, count, PER_MASS_ACROSS)
        for i, j, length in zip(*(column.tolist() for column in pairs), strict=True):
            body.add_link(i, j + offset, new_link_genes(rng, genome, length))
    return body


def _cut_bodies(a: Creature, b: Creature, rng: np.random.Generator, genome: GenomeSection) -> list[Body]:
    """The two repaired child bodies of :func:`cut_crossover`, each with its left parent's wave."""
    fraction = rng.uniform(0.25, 0.75)
    left_a, cut_a = _split(a, fraction)
    left_b, cut_b = _split(b, fraction)
    bodies = []
    for (first, left_first, cut_first), (second, left_second, cut_second) in (
        ((a, left_a, cut_a), (b, left_b, cut_b)),
        ((b, left_b, cut_b), (a, left_a, cut_a)),
    ):
        left = _part(first, left_first, 0.0)
        right = _part(second, ~left_second, cut_first - cut_second)
        right.positions[:, 0] += _gap(left.positions, right.positions, genome.rest[0])
        across = max(1, round(0.5 * (_crossing(first, left_first) + _crossing(second, left_second))))
        body = _join(left, right, across, rng, genome)
        body.omega, body.beta = first.omega, first.beta
        repair(body, rng, genome)
        bodies.append(body)
    return bodies


def _blend_waves(bodies: list[Body], a: Creature, b: Creature, rng: np.random.Generator) -> None:
    """Give the two bodies blends of the parents' omega and beta (see :func:`wave_crossover`)."""
    u_omega, u_beta = rng.random(2).tolist()
    for body, u, v in ((bodies[0], u_omega, u_beta), (bodies[1], 1.0 - u_omega, 1.0 - u_beta)):
        body.omega = u * a.omega + (1.0 - u) * b.omega
        body.beta = v * a.beta + (1.0 - v) * b.beta


def cut_crossover(
    a: Creature, b: Creature, rng: np.random.Generator, genome: GenomeSection
) -> tuple[Creature, Creature]:
    """Children (left of a + right of b, left of b + right of a) across a vertical cut.

    The cut leaves the same random fraction (uniform in [0.25, 0.75]) of each parent's masses on its left;
    the right part is shifted in x so that both parents' cut lines coincide, then further right if needed
    to keep masses across the cut at least ``rest[0]`` apart. Each part keeps its links and their genes;
    as many new unstressed links as the parents had across the cut (their mean, at least one) join the
    nearest masses across it, then :func:`~evo.ga.body.repair` brings the child within the limits
    (mass count, degree and link caps, connected). Each child keeps the wave and name of the
    parent that gave its left part; both take parent a's world.
    """
    first, second = _cut_bodies(a, b, rng, genome)
    return finish(first, a, genome, world=a.world), finish(second, b, genome, world=a.world)


def wave_crossover(
    a: Creature, b: Creature, rng: np.random.Generator, genome: GenomeSection
) -> tuple[Creature, Creature]:
    """Blend omega and beta: with u uniform in [0, 1] (one per parameter), child 1 gets
    u * a + (1 - u) * b and child 2 (1 - u) * a + u * b; bodies and muscles are unchanged."""
    bodies = [Body.of(a), Body.of(b)]
    _blend_waves(bodies, a, b, rng)
    return finish(bodies[0], a, genome), finish(bodies[1], b, genome)


def crossover(
    a: Creature, b: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> tuple[Creature, Creature]:
    """Mate two creatures: :func:`cut_crossover` with probability ``ga.rate_cut_crossover``, then
    :func:`wave_crossover` with probability ``ga.rate_wave_crossover`` (the wave blend uses the parents'
    omega and beta). Both children take parent a's world; their ``meta`` is empty."""
    first, second = crossover_bodies(a, b, rng, genome, ga)
    return finish(first, a, genome, world=a.world), finish(second, b, genome, world=a.world)


def crossover_bodies(
    a: Creature, b: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> list[Body]:
    """The two working copies :func:`crossover` makes its children of (with the same draws), before
    :func:`~evo.ga.body.finish`: child k is ``finish(bodies[k], (a, b)[k], genome, world=a.world)``.

    Args:
        a, b: the parents.
        rng: the generator every draw comes from.
        genome: the ``[genome]`` limits.
        ga: the ``[ga]`` rates.

    Returns:
        The two bodies, repaired to the limits (genes not yet clipped, positions not yet on the floor).
    """
    cut_draw, wave_draw = rng.random(2).tolist()
    if cut_draw < ga.rate_cut_crossover:
        bodies = _cut_bodies(a, b, rng, genome)
    else:
        bodies = [Body.of(a), Body.of(b)]
    if wave_draw < ga.rate_wave_crossover:
        _blend_waves(bodies, a, b, rng)
    return bodies
