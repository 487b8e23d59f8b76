"""Variation operators: one function per mutation in the :data:`MUTATIONS` registry, :func:`mutate` that
applies them at their rates, and :func:`crossover` (defined in :mod:`evo.ga.crossover`).

Every operator has the signature ``(creature, rng, genome, ga) -> Creature`` and

- returns a new creature within the ``genome`` limits (``problems(child, genome) == []``) and leaves its
  input untouched (creatures are frozen; operators work on copies);
- draws all its randomness from ``rng`` (same generator state, same child);
- keeps the parent's name and world, empties ``meta`` (the generation loop records provenance), and
  places the child on the floor (lowest mass at y = 0, leftmost at x = 0, zero velocities);
- returns an equivalent copy when it cannot act within the limits (e.g. add_mass at the mass limit).

Units: px, rad, rad/frame. Sigmas come from :class:`~evo.ga.settings.GASection`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from evo.ga.crossover import crossover
from evo.ga.settings import MUTATION_NAMES, GASection, GenomeSection
from evo.ga.structure import TWO_PI, Body, cut_structure, finish, new_link_genes
from evo.model import Creature

__all__ = ["MUTATIONS", "Mutation", "mutate", "crossover"]

Mutation = Callable[[Creature, np.random.Generator, GenomeSection, GASection], Creature]


def _same(creature: Creature, genome: GenomeSection) -> Creature:
    """The parent, re-finished: a copy with empty meta, clipped and placed on the floor."""
    return finish(Body.of(creature), creature, genome, keep_polys=True)


def _chosen_links(
    rng: np.random.Generator, count: int, fraction: float, among: np.ndarray | None = None
) -> np.ndarray:
    """Indices of about ``fraction`` of the links (at least one), optionally only those in ``among``."""
    pool = np.arange(count) if among is None else np.flatnonzero(among)
    if pool.size == 0:
        return pool
    size = max(1, int(round(fraction * pool.size)))
    return np.sort(rng.choice(pool, size=size, replace=False))


def _with_genes(creature: Creature, genome: GenomeSection, **genes: object) -> Creature:
    body = Body.of(creature)
    for name in ("rest", "alpha", "phi"):
        if name in genes:
            setattr(body, name, np.asarray(genes[name], dtype=np.float64).tolist())
    wave = {k: genes[k] for k in ("omega", "beta") if k in genes}
    return finish(body, creature, genome, keep_polys=True, **wave)


# -- parameter perturbations ---------------------------------------------------------------------


def perturb_rest(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Scale the rest lengths of a ``gene_fraction`` of the links by exp(N(0, sigma_rest)), clipped."""
    chosen = _chosen_links(rng, creature.n_links, ga.gene_fraction)
    rest = np.array(creature.rest)
    rest[chosen] *= np.exp(ga.sigma_rest * rng.standard_normal(chosen.size))
    return _with_genes(creature, genome, rest=rest)


def perturb_alpha(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Add N(0, sigma_alpha) to the amplitude of a ``gene_fraction`` of the muscles, kept in [0.01, 1]
    so that they stay muscles (toggle_muscle turns muscles into springs)."""
    chosen = _chosen_links(rng, creature.n_links, ga.gene_fraction, among=creature.is_muscle)
    alpha = np.array(creature.alpha)
    alpha[chosen] = np.clip(alpha[chosen] + ga.sigma_alpha * rng.standard_normal(chosen.size), 0.01, 1.0)
    return _with_genes(creature, genome, alpha=alpha)


def perturb_phi(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Add N(0, sigma_phi) rad to the phase of a ``gene_fraction`` of the muscles, wrapped into [0, 2π)."""
    chosen = _chosen_links(rng, creature.n_links, ga.gene_fraction, among=creature.is_muscle)
    phi = np.array(creature.phi)
    phi[chosen] += ga.sigma_phi * rng.standard_normal(chosen.size)
    return _with_genes(creature, genome, phi=phi)  # finish() wraps


def perturb_omega(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Scale omega (rad/frame) by exp(N(0, sigma_omega)), clipped to ``genome.omega``."""
    omega = creature.omega * math.exp(ga.sigma_omega * rng.standard_normal())
    if creature.omega == 0.0:  # a zero omega cannot be scaled: draw one from the range instead
        omega = rng.uniform(*genome.omega)
    return _with_genes(creature, genome, omega=omega)


def perturb_beta(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Add N(0, sigma_beta) to beta, clipped to ``genome.beta``."""
    return _with_genes(creature, genome, beta=creature.beta + ga.sigma_beta * rng.standard_normal())


# -- structural mutations --------------------------------------------------------------------------


def move_mass(creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> Creature:
    """Move one mass by N(0, sigma_move) px per axis; its links take their new lengths as rest lengths
    (clipped), so the move changes the body's shape, not just its starting pose."""
    body = Body.of(creature)
    i = int(rng.integers(body.n_masses))
    body.positions[i] += ga.sigma_move * rng.standard_normal(2)
    for k in range(body.n_links):
        if i in (body.a[k], body.b[k]):
            body.rest[k] = body.length(body.a[k], body.b[k])
    return finish(body, creature, genome, keep_polys=True)


def add_mass(creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> Creature:
    """Add a mass near a random mass and link it to 2 or 3 of the nearest masses with a spare degree.

    It is placed at a random angle, between ``rest[0]`` and the middle of the rest range away from the
    anchor; new links are unstressed (rest = length, clipped) and muscles with ``muscle_fraction``.
    A copy comes back when the mass or link limits leave no room, or fewer than two masses have a spare
    degree.
    """
    body = Body.of(creature)
    spare = np.flatnonzero(body.degree() < genome.max_degree)
    room = min(3, genome.max_links - body.n_links, spare.size)
    if body.n_masses >= genome.masses[1] or room < 2:
        return _same(creature, genome)
    anchor = int(rng.choice(spare))
    angle, fraction = rng.random(2)
    low, high = genome.rest
    reach = low + fraction * 0.5 * (high - low)
    new_position = body.positions[anchor] + reach * np.array(
        [math.cos(angle * TWO_PI), math.sin(angle * TWO_PI)]
    )
    body.positions = np.vstack([body.positions, new_position])
    new = body.n_masses - 1
    others = spare[spare != anchor]
    nearest = others[np.argsort(np.hypot(*(body.positions[others] - new_position).T), kind="stable")]
    count = int(rng.integers(2, room + 1))
    for j in [anchor, *nearest[: count - 1].tolist()]:
        body.add_link(int(j), new, new_link_genes(rng, genome, body.length(int(j), new)))
    return finish(body, creature, genome)


def remove_mass(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Remove a random mass that is not a cut vertex (so the rest stays connected), with its links; the
    remaining masses keep their order. A copy comes back at the lower mass limit."""
    if creature.n_masses <= genome.masses[0]:
        return _same(creature, genome)
    body = Body.of(creature)
    _, cut = cut_structure(body.n_masses, body.a, body.b)
    body.remove_masses([int(rng.choice(np.flatnonzero(~cut)))])  # a connected graph has >= 2 non-cut vertices
    return finish(body, creature, genome)


def add_link(creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> Creature:
    """Link two unlinked masses with spare degrees, chosen with probability proportional to
    1 / (distance + rest[0] + 1 px) so that near pairs are favoured; the link starts unstressed."""
    body = Body.of(creature)
    if body.n_links >= genome.max_links:
        return _same(creature, genome)
    spare = body.degree() < genome.max_degree
    free = np.triu(spare[:, None] & spare[None, :], k=1)
    free[np.array(body.a + body.b, dtype=np.int64), np.array(body.b + body.a, dtype=np.int64)] = False
    i_side, j_side = np.nonzero(free)
    if i_side.size == 0:
        return _same(creature, genome)
    gaps = np.hypot(*(body.positions[j_side] - body.positions[i_side]).T)
    weights = 1.0 / (gaps + genome.rest[0] + 1.0)
    pick = int(rng.choice(i_side.size, p=weights / weights.sum()))
    i, j = int(i_side[pick]), int(j_side[pick])
    body.add_link(i, j, new_link_genes(rng, genome, body.length(i, j)))
    return finish(body, creature, genome, keep_polys=True)


def remove_link(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Remove a random link that is not a bridge (so the creature stays connected); a copy comes back
    when every link is a bridge (the creature is a tree)."""
    body = Body.of(creature)
    bridge, _ = cut_structure(body.n_masses, body.a, body.b)
    if bridge.all():
        return _same(creature, genome)
    gone = int(rng.choice(np.flatnonzero(~bridge)))
    body.keep_links([k for k in range(body.n_links) if k != gone])
    return finish(body, creature, genome, keep_polys=True)


def toggle_muscle(
    creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> Creature:
    """Turn a random link from muscle into spring (alpha = 0) or back (alpha uniform in (0, 1], a new phi
    uniform in [0, 2π))."""
    if creature.n_links == 0:
        return _same(creature, genome)
    k = int(rng.integers(creature.n_links))
    draw_alpha, draw_phi = rng.random(2)
    alpha, phi = np.array(creature.alpha), np.array(creature.phi)
    if alpha[k] > 0.0:
        alpha[k] = 0.0
    else:
        alpha[k], phi[k] = 1.0 - draw_alpha, draw_phi * TWO_PI
    return _with_genes(creature, genome, alpha=alpha, phi=phi)


MUTATIONS: dict[str, Mutation] = {
    "rest": perturb_rest,
    "alpha": perturb_alpha,
    "phi": perturb_phi,
    "omega": perturb_omega,
    "beta": perturb_beta,
    "move_mass": move_mass,
    "add_mass": add_mass,
    "remove_mass": remove_mass,
    "add_link": add_link,
    "remove_link": remove_link,
    "toggle_muscle": toggle_muscle,
}
assert tuple(MUTATIONS) == MUTATION_NAMES


def mutate(creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> Creature:
    """Apply each operator of :data:`MUTATIONS` (in registry order) with probability ``ga.rate_<name>``.

    If none fires, one is drawn with probability proportional to the rates, so that a creature passed
    to ``mutate`` changes whenever some rate is positive. Returns a valid creature; the input is unchanged.
    """
    rates = np.array([ga.rate(name) for name in MUTATIONS])
    fired = rng.random(rates.size) < rates
    if not fired.any() and rates.sum() > 0.0:
        fired[int(rng.choice(rates.size, p=rates / rates.sum()))] = True
    child = _same(creature, genome) if not fired.any() else creature
    for name, on in zip(MUTATIONS, fired, strict=True):
        if on:
            child = MUTATIONS[name](child, rng, genome, ga)
    return child
