"""A pair brood bred in one compiled call (crossover, settling, mutation, finishing of both children), draw
for draw what :func:`evo.ga.brood.breed` does with the default operators, for parents of the applet's physics
and settings without the ``physics`` mutation; None where it does not apply or a repair would draw
``rng.choice`` (``breed`` then uses the Python operators: the same children). docs/internals.md, "Broods".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, NamedTuple

import numba as nb
import numpy as np

from evo.ga.body import assemble, assemble_later
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
from evo.ga.kernels.parents import parents_arrays, remember_children
from evo.ga.settings import GASection, GenomeSection
from evo.model import Creature

if TYPE_CHECKING:
    from evo.ga.mutation import MutationPlan

__all__ = [
    "Operators",
    "assembled_children",
    "compiled_broods",
    "compiled_parent",
    "compiled_children",
    "compiled_operators",
    "warm_breeding",
]

_JIT = dict(cache=True, nogil=True)
# a chunk with this many pair broods or more for the compiled call is bred in parts on the lane threads
# at once (fewer: one call, not worth handing a part to another thread)
SPLIT_FROM = 16
# a brood's breeding costs about as much as this many of its parents' links more (its generator, the call)
_BROOD_COST = 8


@nb.njit(**_JIT)
def _finished_parts(body, lim):  # pragma: no cover
    """What evo.ga.body.finish (and settle) make of a body's genes: positions on the floor, the (3, m) genes
    clipped, omega and beta clipped."""
    pos, a, b, rest, alpha, phi, omega, beta, renumbered = body
    genes = np.empty((3, a.size))
    for v in range(a.size):  # a loop, not row assignments: those compile a shape check and its message
        genes[0, v], genes[1, v], genes[2, v] = rest[v], alpha[v], phi[v]
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
    for k in range(m):  # see _finished_parts
        links[0, k], links[1, k] = a[k], b[k]
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


class _Request(NamedTuple):
    """A brood as :func:`compiled_broods` reads it."""

    seed: int
    parents: Sequence[Creature]
    mate: bool
    mutate: Sequence[bool]


def compiled_children(
    seed: int, parents: Sequence[Creature], mate: bool, mutate: Sequence[bool], ops: Operators
) -> list[Creature | None] | None:
    """The children :func:`evo.ga.brood.breed` makes of a PAIR brood (its ``seed``, ``parents``, ``mate``
    and ``mutate`` flags) under the default operators with the compiled settings ``ops`` (before standing
    them on the world's ground), or None where the compiled path does not apply (a seed outside
    [0, 2**63), not one or two parents, fewer flags than parents, a parent of other physics) or bails
    out; the caller then breeds in Python. :func:`compiled_broods` with one brood (which leaves the arrays
    a chunk's call kept for the next one as they are)."""
    return compiled_broods([_Request(seed, parents, mate, mutate)], ops, remember=False)[0]


@nb.njit(**_JIT)
def _parent(k, pos, a, b, rest, alpha, phi, waves, mass_at, link_at):  # pragma: no cover
    """Parent ``k``'s body (the fields of :data:`~evo.ga.kernels.crossover.BODY`, renumbered False) from the
    parents' arrays end to end (:func:`evo.ga.kernels.parents.parents_arrays`): read-only views, as a
    creature's own arrays are."""
    i, j = mass_at[k], mass_at[k + 1]
    u, v = link_at[k], link_at[k + 1]
    return (pos[i:j], a[u:v], b[u:v], rest[u:v], alpha[u:v], phi[u:v], waves[k, 0], waves[k, 1], False)


@nb.njit(**_JIT)
def _pairs(
    seeds, parents, flags, pos, a, b, rest, alpha, phi, waves, mass_at, link_at, ops
):  # pragma: no cover
    """Pair broods bred (crossover, settling, mutation, finishing), each from a generator of its own seed.

    ``parents`` (broods, 2): rows of the parents' arrays (:func:`~evo.ga.kernels.parents.parents_arrays`),
    the second the first for one parent; ``flags`` (broods, 4): two parents, mate, mutate the first,
    mutate the second. Returns
    whether each brood was bred here (False: invalid parents, or a repair that draws ``rng.choice``) and
    the new children of those that were, in order, end to end: (ok (broods,), sizes (children, 2)
    masses and links, positions (masses, 2), links (2, links), genes (3, links), waves (children, 2)
    omega and beta, renumbered (children,), arg (links,), pending (links,)); a pending rest gene is left
    raw for :func:`apply_pending`."""
    n = seeds.size
    lim = ops.limits
    ok = np.zeros(n, np.bool_)
    made = []
    for k in range(n):
        pa = _parent(parents[k, 0], pos, a, b, rest, alpha, phi, waves, mass_at, link_at)
        pb = _parent(parents[k, 1], pos, a, b, rest, alpha, phi, waves, mass_at, link_at)
        two, mate, mutate_a, mutate_b = flags[k, 0], flags[k, 1], flags[k, 2], flags[k, 3]
        if not (_valid(pa) and _valid(pb)):  # the Python operators raise their own errors for such parents
            continue
        rng = pcg.seeded(seeds[k])
        pa, pb = _copied(pa), _copied(pb)
        if mate:
            first, second, crossed = crossover_bodies(rng, pa, pb, lim, ops.rate_cut, ops.rate_wave)
            if not crossed:
                continue
        else:
            first, second = pa, pb
        ok[k] = True
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
        if mate or mutate_a:
            made.append(_finished(*child_a, lim))
        if two and (mate or mutate_b):
            made.append(_finished(*child_b, lim))
    c = len(made)
    sizes = np.zeros((c, 2), np.int64)
    for k in range(c):
        sizes[k, 0] = made[k][0].shape[0]
        sizes[k, 1] = made[k][1].shape[1]
    masses, links = sizes[:, 0].sum(), sizes[:, 1].sum()
    positions = np.empty((masses, 2))
    ends = np.empty((2, links), np.int64)
    genes = np.empty((3, links))
    out_waves = np.empty((c, 2))
    renumbered = np.empty(c, np.bool_)
    arg = np.empty(links)
    pending = np.empty(links, np.bool_)
    i = j = 0
    for k in range(c):
        placed, kid_ends, kid_genes, omega, beta, kid_renumbered, kid_arg, kid_pending, _ = made[k]
        for u in range(placed.shape[0]):
            positions[i + u, 0] = placed[u, 0]
            positions[i + u, 1] = placed[u, 1]
        for v in range(kid_ends.shape[1]):
            ends[0, j + v] = kid_ends[0, v]
            ends[1, j + v] = kid_ends[1, v]
            genes[0, j + v] = kid_genes[0, v]
            genes[1, j + v] = kid_genes[1, v]
            genes[2, j + v] = kid_genes[2, v]
            arg[j + v] = kid_arg[v]
            pending[j + v] = kid_pending[v]
        out_waves[k, 0] = omega
        out_waves[k, 1] = beta
        renumbered[k] = kid_renumbered
        i += placed.shape[0]
        j += kid_ends.shape[1]
    return ok, sizes, positions, ends, genes, out_waves, renumbered, arg, pending


def _compiled_parents(parents: Sequence[Creature], mutate: Sequence[bool], seed: int) -> bool:
    """Whether :func:`compiled_children` breeds a brood of these parents, flags and seed in compiled code
    (before its compiled call, which may still bail out)."""
    if not (0 <= seed < 1 << 63 and 1 <= len(parents) <= 2 and len(mutate) >= len(parents)):
        return False
    return all(map(compiled_parent, parents))


def compiled_parent(creature: Creature) -> bool:
    """Whether the compiled brood reads ``creature`` as a parent: the applet's physics, int64 links."""
    return getattr(creature, "has_default_physics", False) and creature.link_a.dtype == np.int64


def assembled_children(
    children: tuple, templates: Sequence[Creature], worlds: Sequence[dict | None], *, later: bool = False
) -> list[Creature]:
    """The creatures of a compiled breeding call's new children (``children``: its sizes, positions,
    links, genes, waves and renumbered flags, end to end), in their rows' order, as :func:`finish`
    makes them: each one's arrays copies of the call's (a view would keep the whole call's arrays alive
    as long as any one child lives), its name and wave from its template, its world from ``worlds``
    where not None (else the template's), its polygons unless renumbered. With ``later``, each one's
    arrays are copied the first time one is read (:func:`evo.ga.body.assemble_later`: the call's arrays
    must not change meanwhile)."""
    sizes, positions, links, genes, waves, renumbered = children
    counts, wave_values, flags = sizes.tolist(), waves.tolist(), renumbered.tolist()
    made: list[Creature] = []
    i = j = 0
    for (n, m), (omega, beta), flag, template, world in zip(
        counts, wave_values, flags, templates, worlds, strict=True
    ):
        if later:
            own = positions[i : i + n], links[:, j : j + m], genes[:, j : j + m]
            made.append(assemble_later(*own, omega, beta, flag, template, world))
        else:
            own = positions[i : i + n].copy(), links[:, j : j + m].copy(), genes[:, j : j + m].copy()
            made.append(assemble(*own, omega, beta, flag, template, world))
        i, j = i + n, j + m
    return made


def compiled_broods(
    broods: Sequence,
    ops: Operators,
    laid: list | Callable[[Any, list], Any] | None = None,
    threads: Executor | None = None,
    *,
    remember: bool = True,
) -> list[list[Creature | None] | None]:
    """:func:`compiled_children` of every PAIR brood of ``broods`` (objects with ``seed``, ``parents``,
    ``mate`` and ``mutate``), bred in one compiled call: the same children, array for array, without a
    compiled call and its argument checks per brood. None for a brood the compiled path does not apply
    to or bails out of (the caller breeds it in Python, as :func:`evo.ga.brood.breed` does).

    With ``laid`` (a function), it is called with the new children's arrays end to end as they come out
    of the compiled call, before their creatures are made: (an :class:`evo.sim.laid.Laid`, and per brood
    its children's rows in it, None for an unchanged copy; None for a brood not bred here); a list gets
    those two appended as one tuple. With ``threads`` (an executor of ``count`` threads, as
    :class:`evo.sim.batch.LaneThreads`), a chunk of at least :data:`SPLIT_FROM` broods for that call is
    bred in up to ``count`` parts of similar cost at once, one by the calling thread (:func:`_bred`): the
    same arrays. The parents a call before on this thread made are read from the arrays it left them in,
    which this call then keeps for the next in their place, unless not to ``remember``
    (:mod:`evo.ga.kernels.parents`)."""
    out: list[list[Creature | None] | None] = [None] * len(broods)
    rows: dict[int, int] = {}  # a parent of many broods goes in once
    creatures: list[Creature] = []
    picked: list[int] = []
    pairs: list[tuple[int, int]] = []
    flags: list[tuple[bool, bool, bool, bool]] = []
    seeds: list[int] = []
    for index, brood in enumerate(broods):
        parents, mutate = brood.parents, brood.mutate
        if not _compiled_parents(parents, mutate, brood.seed):
            continue
        ends = []
        for parent in parents:
            row = rows.get(id(parent))
            if row is None:
                row = rows[id(parent)] = len(creatures)
                creatures.append(parent)
            ends.append(row)
        two = len(parents) == 2
        picked.append(index)
        pairs.append((ends[0], ends[-1]))
        flags.append((two, bool(brood.mate), bool(mutate[0]), two and bool(mutate[1])))
        seeds.append(brood.seed)
    if not picked:
        return out
    ends, rows_of = parents_arrays(creatures)  # (the children of this thread's call before: as it left them)
    bred = _bred(
        np.array(seeds, np.int64), rows_of[np.array(pairs, np.int64)], np.array(flags, np.bool_), ends, ops,
        threads,
    )  # fmt: skip
    ok, sizes, positions, links, genes, waves, renumbered, arg, pending = bred
    lim = ops.limits
    apply_pending(genes[0], arg, pending, lim[REST_LOW], lim[REST_HIGH])
    child_rows: list[list[int | None] | None] = [None] * len(broods)  # each child's row in the chunk
    templates: list[Creature] = []  # the creature each child takes its name, wave and world from
    for index, good, (_, mate, *mutated) in zip(picked, ok.tolist(), flags, strict=True):
        if good:
            child_rows[index] = at = []
            for k, template in enumerate(broods[index].parents):
                made = mate or mutated[k]
                at.append(len(templates) if made else None)
                if made:
                    templates.append(template)
    if laid is not None:
        from evo.sim.laid import Laid

        hand_on(laid, Laid.of_children(sizes, positions, links, genes, waves, templates), child_rows)
    worlds = [  # a mated child's world is its brood's first parent's
        broods[index].parents[0].world if broods[index].mate else None
        for index, at in enumerate(child_rows)
        if at is not None
        for c in at
        if c is not None
    ]
    made = assembled_children((sizes, positions, links, genes, waves, renumbered), templates, worlds)
    for index, at in enumerate(child_rows):  # (child_rows stays as handed on: laid may keep it)
        if at is not None:
            out[index] = [None if c is None else made[c] for c in at]
    if remember:  # for the next call on this thread (evo.ga.kernels.parents)
        remember_children(made, range(len(made)), sizes, positions, links, genes, waves)
    return out


def _bred(
    seeds: np.ndarray, rows_of: np.ndarray, flags: np.ndarray, ends: tuple, ops: Operators, threads: Any
) -> tuple:
    """:func:`_pairs` of the broods, in one call, or with ``threads`` in parts of similar cost (their
    parents' links) run at once, the first by this thread, the others by ``count - 1`` of the executor's:
    each brood draws from its own seed alone, so the parts' arrays end to end are the whole call's
    (docs/performance.md, "Round twenty")."""
    count = 1 if threads is None else getattr(threads, "count", 2)
    if count < 2 or seeds.size < SPLIT_FROM:
        return _pairs(seeds, rows_of, flags, *ends, ops)
    link_at = ends[-1]
    first, second = (link_at[rows_of[:, k] + 1] - link_at[rows_of[:, k]] for k in (0, 1))
    links = first + np.where(flags[:, 0], second, 0)  # one parent: one child
    cost = np.cumsum(links + _BROOD_COST)
    cuts = [0, *np.searchsorted(cost, cost[-1] * np.arange(1, count) / count).tolist(), seeds.size]
    parts = [(a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True) if b > a]
    others = [threads.submit(_pairs, seeds[a:b], rows_of[a:b], flags[a:b], *ends, ops) for a, b in parts[1:]]
    a, b = parts[0]
    made = [_pairs(seeds[a:b], rows_of[a:b], flags[a:b], *ends, ops)]
    made += [other.result() for other in others]
    if len(made) == 1:
        return made[0]
    axes = (0, 0, 0, 1, 1, 0, 0, 0, 0)  # ok, sizes, positions, links, genes, waves, renumbered, arg, pending
    return tuple(np.concatenate([part[k] for part in made], axis=axis) for k, axis in enumerate(axes))


def hand_on(laid: list | Callable[[Any, list], Any], record: Any, rows: list) -> None:
    """Give children laid end to end and their rows to ``laid``: appended to a list as one tuple (round
    seventeen's form), else called with the two."""
    if isinstance(laid, list):
        laid.append((record, rows))
    else:
        laid(record, rows)


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
