"""Broods: a generation's children described as plain data, made wherever the brood is carried out.

:func:`breed` turns a :class:`Brood` into one or two creatures (``None`` for an untouched copy), drawing
only from ``numpy.random.default_rng(brood.seed)``, so it gives the same children in any process
(docs/internals.md, "Broods").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.ga.kernels.brood import compiled_broods, compiled_children, hand_on
from evo.ga.kernels.creatures import compiled_random_creature
from evo.ga.kernels.pcg import brood_generator
from evo.ga.settings import GASection, GenomeSection
from evo.ga.variation import BreedSettings, Variation
from evo.model import Creature
from evo.sim.placement import is_level, stand_on_ground
from evo.sim.world import World

__all__ = ["Brood", "BreedSettings", "PAIR", "RANDOM", "SEEDED", "Variation", "breed", "breed_many"]

RANDOM = "random"  # one random creature within the genome limits
SEEDED = "seeded"  # one seed model brought within the limits, mutated if mutate[0]
PAIR = "pair"  # the children of one or two parents: crossover if mate, then mutate[k] per child


@dataclass(frozen=True)
class Brood:
    """How to make one or two children.

    Attributes:
        kind: :data:`RANDOM`, :data:`SEEDED` or :data:`PAIR`.
        seed: seeds the generator every operator of this brood draws from.
        parents: () for RANDOM, (model,) for SEEDED, (a,) or (a, b) for PAIR.
        mate: PAIR only: cross a and b over.
        mutate: one flag per child: mutate it.
        plugin_seeds: one per child: the seed its fitness plugin is called with, or None for a child
            that is an unchanged copy of its parent (not evaluated).
    """

    kind: str
    seed: int
    parents: tuple[Creature, ...] = ()
    mate: bool = False
    mutate: tuple[bool, ...] = (False,)
    plugin_seeds: tuple[int | None, ...] = ()

    @property
    def evaluations(self) -> int:
        """How many of its children need an evaluation."""
        return len(self.plugin_seeds) - self.plugin_seeds.count(None)


def breed(
    brood: Brood,
    genome: GenomeSection,
    ga: GASection,
    variation: Variation | None = None,
    *,
    world: World | None = None,
    settings: BreedSettings | None = None,
) -> list[Creature | None]:
    """The brood's children, in order; ``None`` for a child that is an unchanged copy of its parent.

    The operators place every creature on the floor (lowest mass at y = 0, leftmost at x = 0); each new
    child is then lifted onto ``world``'s ground and terrain where a mass would start below them
    (:func:`evo.sim.placement.stand_on_ground`; never on flat ground without terrain, nor without a
    world). The lift draws no random number.

    Args:
        brood: what to make, from :meth:`evo.Evolution.ask` (or :meth:`evo.QualityDiversity.ask`).
        genome: the ``[genome]`` limits (``config.genome``).
        ga: the ``[ga]`` rates and sigmas (``config.ga``).
        variation: the mutation and crossover operators; None: :meth:`Variation.default`.
        world: the run's world, to stand the children on its ground; None leaves them on the floor.
        settings: ``BreedSettings.of(genome, ga, variation)``, made once by a caller that breeds many
            broods (it then stands for the three arguments before it); None: made here.

    Returns:
        One entry per child of the brood (one, or two for a mated pair): a new
        :class:`~evo.model.Creature`, or None where no operator touched the child.

    Raises:
        ValueError: a brood of an unknown kind.
    """
    if settings is None:
        settings = BreedSettings.of(genome, ga, variation)
    return _stood(_children(brood, settings), world)


def _stood(children: list[Creature | None], world: World | None) -> list[Creature | None]:
    """The new children lifted onto ``world``'s ground (:func:`evo.sim.placement.stand_on_ground`)."""
    if world is None or is_level(world):  # stand_on_ground would leave every child as it is
        return children
    return [None if child is None else stand_on_ground(child, world) for child in children]


def breed_many(
    broods: Sequence[Brood],
    genome: GenomeSection,
    ga: GASection,
    variation: Variation | None = None,
    *,
    world: World | None = None,
    settings: BreedSettings | None = None,
    laid: list | Callable[[Any, list], Any] | None = None,
    threads: Executor | None = None,
) -> list[list[Creature | None] | None]:
    """:func:`breed` of each brood, the same children, with the pair broods the compiled operators apply to
    bred in one compiled call (:func:`evo.ga.kernels.brood.compiled_broods`) instead of one call each.
    The arguments are :func:`breed`'s, with a sequence of broods; with ``laid`` (a list), the children of
    that compiled call, as they stand, laid end to end are appended to it: (:class:`evo.sim.laid.Laid`, and
    per brood its children's rows in it, None for a child not in it; None for a brood none of whose are).
    ``laid`` may instead be a function, called with those two as soon as the compiled call is done,
    before the children's creatures are made (so that their kernel calls may start meanwhile); it must
    not raise. With ``threads`` (:class:`evo.sim.batch.LaneThreads`), that compiled call is made in
    parts on its threads at once (the same children).

    Returns:
        Per brood, in order: what :func:`breed` returns, or None where it raises (breeding that brood again
        with :func:`breed` raises the error).
    """
    if settings is None:
        settings = BreedSettings.of(genome, ga, variation)
    out: list[list[Creature | None] | None] = [None] * len(broods)
    bred_here = False  # whether the compiled call below made or stepped aside from every pair brood
    if settings.compiled is not None:
        pairs = [index for index, brood in enumerate(broods) if brood.kind == PAIR]
        level = world is None or is_level(world)  # else the children may be lifted after the call

        def handed(record: Any, pair_rows: list) -> None:  # the pair broods' rows, as rows of ``broods``
            rows: list[list[int | None] | None] = [None] * len(broods)
            for index, at in zip(pairs, pair_rows, strict=True):
                rows[index] = at
            hand_on(laid, record, rows)  # type: ignore[arg-type]

        try:
            made = compiled_broods(
                [broods[i] for i in pairs],
                settings.compiled,
                handed if laid is not None and level else None,
                threads,
            )
        except Exception:  # each brood is bred alone below, where its error is raised and caught
            made = []
        bred_here = bool(made)
        for index, children in zip(pairs, made, strict=False):
            out[index] = children
    for index, brood in enumerate(broods):
        try:
            children = out[index]
            if children is None:
                tried = bred_here and brood.kind == PAIR
                children = _python_children(brood, settings) if tried else _children(brood, settings)
            children = _stood(children, world)
        except Exception:
            children = None
        out[index] = children
    return out


def _children(brood: Brood, settings: BreedSettings) -> list[Creature | None]:
    if settings.compiled is not None and brood.kind == PAIR:  # one compiled call, the same draws
        children = compiled_children(brood.seed, brood.parents, brood.mate, brood.mutate, settings.compiled)
        if children is not None:
            return children
    return _python_children(brood, settings)


def _python_children(brood: Brood, settings: BreedSettings) -> list[Creature | None]:
    """The brood's children made by the Python operators."""
    from evo.ga.creatures import random_creature, seeded_creature

    genome, ga, variation = settings.genome, settings.ga, settings.variation
    if brood.kind == RANDOM:  # whatever the operators: random_creature draws from the brood's seed alone
        made = compiled_random_creature(brood.seed, genome)
        if made is not None:
            return [made]
    default = variation.is_default
    # the default operators keep no generator beyond the brood: the thread's one, default_rng's stream
    rng = brood_generator(brood.seed) if default else np.random.default_rng(brood.seed)
    if brood.kind == RANDOM:
        return [random_creature(rng, genome)]
    if brood.kind == SEEDED:
        child = seeded_creature(brood.parents[0], rng, genome)
        return [variation.mutate(child, rng, genome, ga) if brood.mutate[0] else child]
    if brood.kind != PAIR:
        raise ValueError(f"unknown kind of brood {brood.kind!r}")
    if brood.mate and default:
        return _mated(brood, rng, settings)
    kids: list[Creature] = list(brood.parents)
    changed = [False] * len(kids)
    if brood.mate:
        kids = list(variation.crossover(kids[0], kids[1], rng, genome, ga))
        changed = [True, True]
    for k, flag in enumerate(brood.mutate):
        if flag:
            kids[k] = variation.mutate(kids[k], rng, genome, ga)
            changed[k] = True
    return [kid if touched else None for kid, touched in zip(kids, changed, strict=True)]


def _mated(brood: Brood, rng: np.random.Generator, settings: BreedSettings) -> list[Creature | None]:
    """The children of a mated pair under the default operators: a mutated child is edited on its
    crossover body (settled as :func:`~evo.ga.body.finish` would leave it) and made into a creature once,
    giving what ``mutate(crossover(...)[k])`` gives from the same draws."""
    from evo.ga.body import finish, settle
    from evo.ga.crossover import crossover_bodies
    from evo.ga.mutation import mutate_body

    genome, ga = settings.genome, settings.ga
    a, b = brood.parents
    bodies = crossover_bodies(a, b, rng, genome, ga)
    for body, flag in zip(bodies, brood.mutate, strict=True):
        if flag:
            settle(body, genome)
            mutate_body(body, rng, genome, ga, settings.mutations)
    return [finish(body, parent, genome, world=a.world) for body, parent in zip(bodies, (a, b), strict=True)]
