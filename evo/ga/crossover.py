"""Crossover: exchange body parts across a vertical cut, and blend the wave parameters.

:func:`crossover` is re-exported by :mod:`evo.ga.mutation`; see there for the contract every operator
keeps (valid children, inputs untouched, randomness only from ``rng``).
"""

from __future__ import annotations

import numpy as np

from evo.ga.body import LINK_EXTRAS, MASS_EXTRAS, Body, extras_of, finish, new_links_genes
from evo.ga.kernels.graph import cut_child, gathered_genes, join_pairs, left_part
from evo.ga.settings import GASection, GenomeSection
from evo.ga.topology import repair
from evo.model import Creature

__all__ = ["crossover", "crossover_bodies", "cut_crossover", "wave_crossover"]

PER_MASS_ACROSS = 2  # most new links across the cut that one mass may receive


def _split(creature: Creature, fraction: float) -> tuple[np.ndarray, float]:
    """(left mass mask, cut x in px): the ``fraction`` of masses with the smallest x (ties by index),
    at least one mass on each side when there are two or more, and the cut halfway across the gap."""
    n = creature.n_masses
    count = min(max(round(fraction * n), 1), max(n - 1, 1))
    return left_part(np.ascontiguousarray(creature.positions[:, 0]), count)


def _columns(
    first: dict[str, np.ndarray],
    second: dict[str, np.ndarray],
    rows: tuple[np.ndarray, np.ndarray],
    defaults: dict[str, float],
) -> dict[str, list[float]]:
    """The optional per-link (or per-mass) columns of a child: the first parent's values at ``rows[0]``
    then the second's at ``rows[1]``, a column one parent lacks filled with the default."""
    out = {}
    for name in sorted(first.keys() | second.keys()):
        parts = [
            values[index] if values is not None else np.full(index.size, defaults[name])
            for values, index in ((first.get(name), rows[0]), (second.get(name), rows[1]))
        ]
        out[name] = np.concatenate(parts).tolist()
    return out


def _child(
    first: Creature,
    left_first: np.ndarray,
    cut_first: float,
    second: Creature,
    left_second: np.ndarray,
    cut_second: float,
    rng: np.random.Generator,
    genome: GenomeSection,
) -> Body:
    """The left part of ``first`` and the right part of ``second`` (shifted so that both cut lines
    coincide, then clear of the left part by ``rest[0]``), each with its links and their genes, and as
    many new unstressed links across as the parents had (their mean, at least one): the nearest pairs
    first, at most ``PER_MASS_ACROSS`` per mass. Repair adds any still needed and enforces the caps."""
    right_second = ~left_second
    positions, a, b, links_first, links_second, crossing, n_left = cut_child(
        (first.positions, first.link_a, first.link_b), left_first,
        (second.positions, second.link_a, second.link_b), right_second,
        cut_first - cut_second, genome.rest[0],
    )  # fmt: skip
    links = (links_first, links_second)
    rest, alpha, phi = gathered_genes(
        (first.rest, first.alpha, first.phi),
        links_first,
        (second.rest, second.alpha, second.phi),
        links_second,
    ).tolist()
    mass_first, mass_second = extras_of(first, MASS_EXTRAS), extras_of(second, MASS_EXTRAS)
    body = Body(
        positions,
        a.tolist(),
        b.tolist(),
        rest,
        alpha,
        phi,
        renumbered=True,
        link_extra=_columns(
            extras_of(first, LINK_EXTRAS), extras_of(second, LINK_EXTRAS), links, LINK_EXTRAS
        ),
        mass_extra=_columns(
            mass_first, mass_second, (left_first.nonzero()[0], right_second.nonzero()[0]), MASS_EXTRAS
        ) if mass_first or mass_second else {},
    )  # fmt: skip
    if 0 < n_left < body.n_masses:
        across = max(1, round(0.5 * crossing))
        pairs = join_pairs(positions[:n_left], positions[n_left:], across, PER_MASS_ACROSS)
        join_i, join_j, lengths = (column.tolist() for column in pairs)
        body.add_links(join_i, [j + n_left for j in join_j], new_links_genes(rng, genome, lengths))
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
        body = _child(first, left_first, cut_first, second, left_second, cut_second, rng, genome)
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
    nearest masses across it, then :func:`~evo.ga.topology.repair` brings the child within the limits
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
