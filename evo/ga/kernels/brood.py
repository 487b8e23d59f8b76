"""A pair brood bred in one compiled call (crossover, settling, mutation, finishing of both children), draw
for draw what :func:`evo.ga.brood.breed` does with the default operators, for parents of the applet's physics
and settings without the ``physics`` mutation; None where it does not apply or a repair would draw
``rng.choice`` (``breed`` then uses the Python operators: the same children). docs/internals.md, "Broods".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numba as nb
import numpy as np

from evo.ga.body import assemble
from evo.ga.kernels import pcg
from evo.ga.kernels.crossover import (
    BETA_HIGH,
    BETA_LOW,
    OMEGA_HIGH,
    OMEGA_LOW,
    REST_HIGH,
    REST_LOW,
    _clip,
    _copied,
    crossover_bodies,
    genome_limits,
)
from evo.ga.kernels.genes import _finished_genes
from evo.ga.kernels.mutation import COMPILED, MUTATION_CODES, apply_pending, ga_sigmas, mutate_body
from evo.ga.settings import GASection, GenomeSection
from evo.model import Creature

if TYPE_CHECKING:
    from evo.ga.mutation import MutationPlan

__all__ = ["Operators", "compiled_children", "compiled_operators", "warm_breeding"]

_JIT = dict(cache=True, nogil=True)


@nb.njit(**_JIT)
def _finished_parts(body, lim):  # pragma: no cover
    """What evo.ga.body.finish (and settle) make of a body's genes: positions on the floor, the (3, m) genes
    clipped, omega and beta clipped."""
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    genes = np.empty((3, a.size))
    genes[0] = rest
    genes[1] = alpha
    genes[2] = phi
    placed, out = _finished_genes(pos, genes, lim[REST_LOW], lim[REST_HIGH])
    return (
        placed,
        out,
        _clip(omega, lim[OMEGA_LOW], lim[OMEGA_HIGH]),
        _clip(beta, lim[BETA_LOW], lim[BETA_HIGH]),
    )


@nb.njit(**_JIT)
def _settled(body, lim):  # pragma: no cover
    """evo.ga.body.settle: genes clipped, placed on the floor, omega and beta clipped (the genes rows of
    one new array, which :func:`evo.ga.kernels.mutation.mutate_body` copies before it writes)."""
    placed, out, omega, beta = _finished_parts(body, lim)
    return (placed, body[1], body[2], out[0], out[1], out[2], omega, beta, body[8])


@nb.njit(**_JIT)
def _finished(body, arg, pending, lim):  # pragma: no cover
    """evo.ga.body.finish's arrays: (positions, links (2, m), genes (3, m), omega, beta, renumbered,
    arg, pending, number pending), a pending rest gene left raw for :func:`apply_pending`."""
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    placed, out, omega, beta = _finished_parts(body, lim)
    m = a.size
    n_pending = 0
    for k in range(m):
        if pending[k]:
            out[0, k] = rest[k]
            n_pending += 1
    links = np.empty((2, m), np.int64)
    links[0] = a
    links[1] = b
    return placed, links, out, omega, beta, renumbered, arg, pending, n_pending


@nb.njit(**_JIT)
def _valid(body):  # pragma: no cover
    """Whether the compiled operators may read ``body`` (they do not check bounds): (n, 2) positions, link
    columns of one length, every link end a mass."""
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    n, m = pos.shape[0], a.shape[0]
    if pos.shape[1] != 2 or b.shape[0] != m or rest.shape[0] != m or alpha.shape[0] != m or phi.shape[0] != m:
        return False
    for k in range(m):  # noqa: SIM110 (a loop numba compiles; all() of a generator it does not)
        if not (0 <= a[k] < n and 0 <= b[k] < n):
            return False
    return True


@nb.njit(**_JIT)
def _unmutated(body):  # pragma: no cover
    m = body[1].size
    return body, np.zeros(m), np.zeros(m, np.bool_)


class Operators(NamedTuple):
    """The settings the compiled brood reads, by name (numba reads a NamedTuple's fields by name), made
    once per run by :func:`compiled_operators`."""

    limits: np.ndarray  # (11,) float64 [genome] limits, named by evo.ga.kernels.crossover.LIMITS
    sigmas: np.ndarray  # (7,) float64 [ga] fraction and sigmas, named by evo.ga.kernels.mutation.SIGMAS
    codes: np.ndarray  # (k,) int64 MutationCode of the mutations on, in registry order
    rates: np.ndarray  # (k,) float64 their rates
    cumulative: np.ndarray  # (k,) rng.choice's cumulative distribution of the rates; (0,) when all are 0
    rate_cut: float  # [ga] rate_cut_crossover
    rate_wave: float  # [ga] rate_wave_crossover


def compiled_operators(genome: GenomeSection, ga: GASection, plan: MutationPlan) -> Operators | None:
    """The record the compiled brood reads for these settings and their mutation ``plan``; None when
    the plan has a mutation that is not compiled (``physics``)."""
    if not set(plan.names) <= COMPILED:
        return None
    return Operators(
        limits=genome_limits(genome),
        sigmas=ga_sigmas(ga),
        codes=np.array([MUTATION_CODES[name] for name in plan.names], np.int64),
        rates=np.array(plan.rates, np.float64),
        cumulative=np.empty(0) if plan.cumulative is None else np.array(plan.cumulative, np.float64),
        rate_cut=float(ga.rate_cut_crossover),
        rate_wave=float(ga.rate_wave_crossover),
    )


@nb.njit(**_JIT)
def _pair(seed, pa, pb, two, mate, mutate_a, mutate_b, ops):  # pragma: no cover
    """Both (or the one) children of a pair brood; ``ok`` False when the brood must be made in Python."""
    lim = ops.limits
    if not (_valid(pa) and _valid(pb)):  # the Python operators raise their own errors for such parents
        return False, _finished(*_unmutated(_copied(pa)), lim), _finished(*_unmutated(_copied(pb)), lim)
    rng = pcg.seeded(seed)
    pa, pb = _copied(pa), _copied(pb)
    if mate:
        first, second, ok = crossover_bodies(rng, pa, pb, lim, ops.rate_cut, ops.rate_wave)
        if not ok:
            return False, _finished(*_unmutated(pa), lim), _finished(*_unmutated(pb), lim)
    else:
        first, second = pa, pb
    if mutate_a:
        if mate:
            first = _settled(first, lim)
        child_a = mutate_body(rng, first, ops)
    else:
        child_a = _unmutated(first)
    if two and mutate_b:
        if mate:
            second = _settled(second, lim)
        child_b = mutate_body(rng, second, ops)
    else:
        child_b = _unmutated(second)
    return True, _finished(*child_a, lim), _finished(*child_b, lim)


def _body(creature: Creature) -> tuple:
    return (
        creature.positions,
        creature.link_a,
        creature.link_b,
        creature.rest,
        creature.alpha,
        creature.phi,
        creature.omega,
        creature.beta,
        False,
    )


def compiled_children(
    seed: int, parents: Sequence[Creature], mate: bool, mutate: Sequence[bool], ops: Operators
) -> list[Creature | None] | None:
    """The children :func:`evo.ga.brood.breed` makes of a PAIR brood (its ``seed``, ``parents``, ``mate``
    and ``mutate`` flags) under the default operators with the compiled settings ``ops`` (before standing
    them on the world's ground), or None where the compiled path does not apply or bails out; the
    caller then breeds in Python."""
    if not 0 <= seed < 1 << 63:
        return None
    for parent in parents:
        if not getattr(parent, "has_default_physics", False) or parent.link_a.dtype != np.int64:
            return None
    lim = ops.limits
    two = len(parents) == 2
    pa = _body(parents[0])
    pb = _body(parents[1]) if two else pa
    ok, first, second = _pair(seed, pa, pb, two, bool(mate), bool(mutate[0]), two and bool(mutate[1]), ops)
    if not ok:
        return None
    world = parents[0].world if mate else None
    out = []
    for k, (made, template) in enumerate(zip((first, second), parents, strict=False)):
        if not (mate or mutate[k]):
            out.append(None)
            continue
        positions, links, genes, omega, beta, renumbered, arg, pending, n_pending = made
        if n_pending:
            apply_pending(genes[0], arg, pending, lim[REST_LOW], lim[REST_HIGH])
        out.append(assemble(positions, links, genes, omega, beta, renumbered, template, world))
    return out


def warm_breeding(
    genome: GenomeSection | None = None, ga: GASection | None = None, *, seeds: bool = True
) -> bool:
    """Compile (or load from numba's cache) the compiled brood: breed one mated, mutated pair of small
    random creatures (drawn from a generator of its own: no run's stream is touched); and the hash of a
    generation's plugin seeds (:func:`evo.ga.seeds.plugin_seeds`; not with ``seeds`` False, which ``evo
    warm`` compiles in another process). Returns whether the settings use the compiled brood at all
    (False: the ``physics`` mutation, bred in Python)."""
    from evo.ga.creatures import random_creature
    from evo.ga.mutation import MutationPlan
    from evo.ga.seeds import plugin_seeds

    if seeds:
        plugin_seeds(0, 0, 1)
    genome = genome or GenomeSection()
    ga = ga or GASection()
    ops = compiled_operators(genome, ga, MutationPlan.of(ga))
    if ops is None:
        return False
    rng = np.random.default_rng(0)
    parents = (random_creature(rng, genome), random_creature(rng, genome))
    compiled_children(1, parents, True, (True, True), ops)
    return True
