"""Variation operators: one function per mutation in the :data:`MUTATIONS` registry, :func:`mutate` that
applies them at their rates, and :func:`crossover` (defined in :mod:`evo.ga.crossover`).

Each mutation is written once as an edit of a :class:`~evo.ga.body.Body` (:data:`BODY_MUTATIONS`). What
every operator promises (limits, randomness, placement): docs/internals.md, "Variation operators".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evo.ga.body import TWO_PI, Body, finish, new_link_genes, new_links_genes, wrap_phase
from evo.ga.crossover import crossover
from evo.ga.kernels.links import free_pairs
from evo.ga.settings import MUTATION_NAMES, GASection, GenomeSection
from evo.ga.topology import cut_structure
from evo.model import Creature

__all__ = [
    "MUTATIONS", "BODY_MUTATIONS", "Mutation", "BodyMutation", "MutationPlan", "mutate", "mutate_body",
    "crossover",
]  # fmt: skip

Mutation = Callable[[Creature, np.random.Generator, GenomeSection, GASection], Creature]
BodyMutation = Callable[[Body, np.random.Generator, GenomeSection, GASection], None]


def _chosen_links(
    rng: np.random.Generator, count: int, fraction: float, among: list[bool] | None = None
) -> list[int]:
    """Indices of links each chosen with probability ``fraction`` (at least one when there is any),
    optionally only among those where ``among`` is True (one draw per link, compared in Python)."""
    draws = rng.random(count).tolist()
    if among is None:  # every link may be chosen (the same draws as an ``among`` of all True)
        picked = [k for k, u in enumerate(draws) if u < fraction]
        if count and not picked:
            picked = [int(rng.integers(count))]
        return picked
    picked = [k for k, u in enumerate(draws) if u < fraction and among[k]]
    if not picked:
        candidates = [k for k, flag in enumerate(among) if flag]
        if candidates:
            picked = [candidates[int(rng.integers(len(candidates)))]]
    return picked


def _muscles(body: Body) -> list[bool]:
    return [alpha > 0.0 for alpha in body.alpha]


# -- parameter perturbations (each edits a Body in place) ------------------------------------------


def _perturb_rest(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Scale the rest lengths of a ``gene_fraction`` of the links by exp(N(0, sigma_rest)), clipped."""
    chosen = _chosen_links(rng, body.n_links, ga.gene_fraction)
    factors = np.exp(ga.sigma_rest * rng.standard_normal(len(chosen))).tolist()
    rest, low, high = body.rest, genome.rest[0], genome.rest[1]
    for k, factor in zip(chosen, factors, strict=True):
        rest[k] *= factor
    # every gene clipped, as np.minimum(np.maximum(...)) would (min/max of floats, NaN kept)
    body.rest = [min(max(r, low), high) for r in rest]


def _perturb_alpha(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Add N(0, sigma_alpha) to the amplitude of a ``gene_fraction`` of the muscles, kept in [0.01, 1]
    so that they stay muscles (toggle_muscle turns muscles into springs)."""
    alpha = body.alpha
    chosen = _chosen_links(rng, body.n_links, ga.gene_fraction, among=_muscles(body))
    steps = (ga.sigma_alpha * rng.standard_normal(len(chosen))).tolist()
    for k, step in zip(chosen, steps, strict=True):  # min/max of floats are np.minimum/np.maximum's
        alpha[k] = min(max(alpha[k] + step, 0.01), 1.0)


def _perturb_phi(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Add N(0, sigma_phi) rad to the phase of a ``gene_fraction`` of the muscles, wrapped into [0, 2π)."""
    chosen = _chosen_links(rng, body.n_links, ga.gene_fraction, among=_muscles(body))
    steps = (ga.sigma_phi * rng.standard_normal(len(chosen))).tolist()
    phi = body.phi
    for k, step in zip(chosen, steps, strict=True):
        phi[k] += step
    # every phase wrapped, as wrap_phase would: a float's % is np.mod's, signed zeros included
    wrapped = [p % TWO_PI for p in phi]
    body.phi = [0.0 if p >= TWO_PI else p for p in wrapped]


def _perturb_omega(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Scale omega (rad/frame) by exp(N(0, sigma_omega)), clipped to ``genome.omega``; a zero omega,
    which scaling cannot move, is drawn uniformly from the range instead."""
    step = rng.standard_normal()
    omega = body.omega * math.exp(ga.sigma_omega * step) if body.omega > 0.0 else rng.uniform(*genome.omega)
    body.omega = min(max(omega, genome.omega[0]), genome.omega[1])


def _perturb_beta(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Add N(0, sigma_beta) to beta, clipped to ``genome.beta``."""
    body.beta = min(max(body.beta + ga.sigma_beta * rng.standard_normal(), genome.beta[0]), genome.beta[1])


# -- structural mutations --------------------------------------------------------------------------


def _move_mass(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Move one mass by N(0, sigma_move) px per axis; its links take their new lengths as rest lengths
    (clipped), so the move changes the body's shape, not just its starting pose."""
    i = int(rng.integers(body.n_masses))
    body.positions[i] += ga.sigma_move * rng.standard_normal(2)
    for k in range(body.n_links):
        if i == body.a[k] or i == body.b[k]:
            body.rest[k] = min(max(body.length(body.a[k], body.b[k]), genome.rest[0]), genome.rest[1])


def _add_mass(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Add a mass near a random mass and link it to 2 or 3 of the nearest masses with a spare degree.

    It is placed at a random angle, between ``rest[0]`` and the middle of the rest range away from the
    anchor; new links are unstressed (rest = length, clipped) and muscles with ``muscle_fraction``.
    Nothing changes when the mass or link limits leave no room, or fewer than two masses have a spare
    degree.
    """
    spare = np.flatnonzero(body.degree() < genome.max_degree)
    room = min(3, genome.max_links - body.n_links, spare.size)
    if body.n_masses >= genome.masses[1] or room < 2:
        return
    anchor = int(spare[rng.integers(spare.size)])
    angle, fraction = rng.random(2)
    low, high = genome.rest
    reach = low + fraction * 0.5 * (high - low)
    offset = reach * np.array([math.cos(angle * TWO_PI), math.sin(angle * TWO_PI)])
    new_position = body.positions[anchor] + offset
    new = body.add_mass(new_position)
    others = spare[spare != anchor]
    nearest = others[np.argsort(np.hypot(*(body.positions[others] - new_position).T), kind="stable")]
    count = int(rng.integers(2, room + 1))
    ends = [anchor, *nearest[: count - 1].tolist()]
    genes = new_links_genes(rng, genome, [body.length(j, new) for j in ends])
    body.add_links(ends, [new] * len(ends), genes)


def _remove_mass(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Remove a random mass that is not a cut vertex (so the rest stays connected), with its links; the
    remaining masses keep their order. Nothing changes at the lower mass limit."""
    if body.n_masses <= genome.masses[0]:
        return
    _, cut = cut_structure(body.n_masses, body.a, body.b)
    candidates = np.flatnonzero(~cut)  # a connected graph has at least two masses that are not cut vertices
    body.remove_masses([int(candidates[rng.integers(candidates.size)])])


def _add_link(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Link two unlinked masses with spare degrees, chosen with probability proportional to
    1 / (distance + rest[0] + 1 px) so that near pairs are favoured; the link starts unstressed.
    Nothing changes at the link limit or when no such pair exists."""
    if body.n_links >= genome.max_links:
        return
    i_side, j_side, cumulative = free_pairs(
        np.asarray(body.positions, dtype=np.float64), np.array(body.a, dtype=np.int64),
        np.array(body.b, dtype=np.int64), genome.max_degree, genome.rest[0],
    )  # fmt: skip
    if i_side.size == 0:
        return
    pick = min(int(cumulative.searchsorted(rng.random() * cumulative[-1], side="right")), i_side.size - 1)
    i, j = int(i_side[pick]), int(j_side[pick])
    body.add_link(i, j, new_link_genes(rng, genome, body.length(i, j)))


def _remove_link(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Remove a random link that is not a bridge (so the creature stays connected); nothing changes when
    every link is a bridge (the creature is a tree)."""
    bridge, _ = cut_structure(body.n_masses, body.a, body.b)
    if bridge.all():
        return
    candidates = np.flatnonzero(~bridge)
    gone = int(candidates[rng.integers(candidates.size)])
    body.keep_links([k for k in range(body.n_links) if k != gone])


def _toggle_muscle(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Turn a random link from muscle into spring (alpha = 0) or back (alpha uniform in (0, 1], a new phi
    uniform in [0, 2π))."""
    if body.n_links == 0:
        return
    k = int(rng.integers(body.n_links))
    draw_alpha, draw_phi = rng.random(2).tolist()
    if body.alpha[k] > 0.0:
        body.alpha[k] = 0.0
    else:
        body.alpha[k], body.phi[k] = 1.0 - draw_alpha, float(wrap_phase([draw_phi * TWO_PI])[0])


def _perturb_physics(body: Body, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> None:
    """Perturb a ``gene_fraction`` of the per-link stiffness multipliers and dashpots and of the per-mass
    masses, each only where its ``[genome]`` range is wider than a point: stiffness and mass scale by
    exp(N(0, sigma_physics)), a dashpot moves by N(0, sigma_physics * top of its range); ``finish``
    clips them into their ranges."""
    for name, default, (low, high), per_link in (
        ("stiffness", 1.0, genome.link_stiffness, True),
        ("dashpot", 0.0, genome.link_dashpot, True),
        ("mass", 1.0, genome.mass, False),
    ):
        if high <= low:
            continue
        extra = body.link_extra if per_link else body.mass_extra
        count = body.n_links if per_link else body.n_masses
        column = extra.setdefault(name, [default] * count)
        chosen = _chosen_links(rng, count, ga.gene_fraction)
        noise = rng.normal(0.0, ga.sigma_physics, len(chosen)).tolist()
        for index, step in zip(chosen, noise, strict=True):
            if name == "dashpot":
                column[index] += step * high
            else:
                column[index] *= math.exp(step)


BODY_MUTATIONS: dict[str, BodyMutation] = {
    "rest": _perturb_rest,
    "alpha": _perturb_alpha,
    "phi": _perturb_phi,
    "omega": _perturb_omega,
    "beta": _perturb_beta,
    "move_mass": _move_mass,
    "add_mass": _add_mass,
    "remove_mass": _remove_mass,
    "add_link": _add_link,
    "remove_link": _remove_link,
    "toggle_muscle": _toggle_muscle,
    "physics": _perturb_physics,
}


def _on_creatures(name: str, edit: BodyMutation) -> Mutation:
    """The creature-level operator of a body edit: copy, edit, finish."""

    def operator(
        creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection
    ) -> Creature:
        body = Body.of(creature)
        edit(body, rng, genome, ga)
        return finish(body, creature, genome)

    operator.__name__ = operator.__qualname__ = name
    operator.__doc__ = edit.__doc__
    return operator


MUTATIONS: dict[str, Mutation] = {name: _on_creatures(name, edit) for name, edit in BODY_MUTATIONS.items()}
assert tuple(MUTATIONS) == MUTATION_NAMES


@dataclass(frozen=True, eq=False)
class MutationPlan:
    """The mutations a ``[ga]`` table turns on, made once from it and passed down (never written to).

    Attributes:
        names: the operators with a positive rate, in registry order (:data:`MUTATION_NAMES`).
        rates: (k,) their rates.
        cumulative: (k,) the cumulative distribution ``rng.choice`` makes of ``p = rates / rates.sum()``,
            or None when no rate is positive.
    """

    names: tuple[str, ...]
    rates: np.ndarray
    cumulative: np.ndarray | None

    @classmethod
    def of(cls, ga: GASection) -> MutationPlan:
        """The plan of ``ga``'s rates."""
        names = tuple(name for name in MUTATION_NAMES if ga.rate(name) > 0.0)
        rates = np.array([ga.rate(name) for name in names])
        cumulative = None
        if rates.sum() > 0.0:
            cumulative = (rates / rates.sum()).cumsum()
            cumulative /= cumulative[-1]
            cumulative.setflags(write=False)
        rates.setflags(write=False)
        return cls(names, rates, cumulative)


def mutate(creature: Creature, rng: np.random.Generator, genome: GenomeSection, ga: GASection) -> Creature:
    """Apply each operator of :data:`MUTATIONS` (in registry order) with probability ``ga.rate_<name>``.

    If none fires, one is drawn with probability proportional to the rates, so that a creature passed
    to ``mutate`` changes whenever some rate is positive. The operators edit one working copy, which is
    turned into a creature once. Returns a valid creature; the input is unchanged.
    """
    body = Body.of(creature)
    mutate_body(body, rng, genome, ga)
    return finish(body, creature, genome)


def mutate_body(
    body: Body,
    rng: np.random.Generator,
    genome: GenomeSection,
    ga: GASection,
    plan: MutationPlan | None = None,
) -> None:
    """What :func:`mutate` does to its working copy: the operators it fires, applied to ``body`` in
    place, with the same draws (:func:`evo.ga.brood.breed` mutates a crossover's bodies with it).

    Args:
        body: the working copy, edited in place (genes as :func:`~evo.ga.body.finish` leaves them).
        rng: the generator every draw comes from.
        genome: the ``[genome]`` limits.
        ga: the ``[ga]`` rates and sigmas.
        plan: ``MutationPlan.of(ga)``, made once by the caller that mutates many bodies; None: made here.
    """
    # operators with rate 0 take no draw, so adding an operator that is off by default (``physics``)
    # leaves the random stream of existing configurations unchanged
    plan = plan or MutationPlan.of(ga)
    rates, cumulative = plan.rates, plan.cumulative
    fired = (rng.random(rates.size) < rates).tolist()
    if not any(fired) and cumulative is not None:
        # what rng.choice(rates.size, p=rates / rates.sum()) draws and returns, without its checks
        fired[int(cumulative.searchsorted(rng.random(), side="right"))] = True
    for name, on in zip(plan.names, fired, strict=True):
        if on:
            BODY_MUTATIONS[name](body, rng, genome, ga)
