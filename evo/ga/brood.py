"""Broods: a generation's children described as plain data, made wherever the brood is carried out.

:func:`breed` turns a :class:`Brood` into one or two creatures (``None`` for an untouched copy), drawing
only from ``numpy.random.default_rng(brood.seed)``, so it gives the same children in any process
(docs/internals.md, "Broods").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evo.ga.pcg import brood_generator
from evo.ga.settings import GASection, GenomeSection
from evo.model import Creature
from evo.sim.placement import is_level, stand_on_ground
from evo.sim.world import World

__all__ = ["Brood", "PAIR", "RANDOM", "SEEDED", "Variation", "breed"]

RANDOM = "random"  # one random creature within the genome limits
SEEDED = "seeded"  # one seed model brought within the limits, mutated if mutate[0]
PAIR = "pair"  # the children of one or two parents: crossover if mate, then mutate[k] per child


@dataclass(frozen=True)
class Variation:
    """The variation operators: ``mutate(creature, rng, genome, ga) -> creature`` and
    ``crossover(a, b, rng, genome, ga) -> (child, child)``. Defaults: :mod:`evo.ga.mutation`."""

    mutate: Callable[..., Creature]
    crossover: Callable[..., tuple[Creature, Creature]]

    @classmethod
    def default(cls) -> Variation:
        global _DEFAULT
        if _DEFAULT is None:
            from evo.ga.mutation import crossover, mutate

            _DEFAULT = cls(mutate=mutate, crossover=crossover)
        return _DEFAULT


_DEFAULT: Variation | None = None  # Variation.default(), made once (frozen, so it may be shared)


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
        return sum(s is not None for s in self.plugin_seeds)


def breed(
    brood: Brood,
    genome: GenomeSection,
    ga: GASection,
    variation: Variation | None = None,
    *,
    world: World | None = None,
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

    Returns:
        One entry per child of the brood (one, or two for a mated pair): a new
        :class:`~evo.model.Creature`, or None where no operator touched the child.

    Raises:
        ValueError: a brood of an unknown kind.
    """
    children = _children(brood, genome, ga, variation or Variation.default())
    if world is None or is_level(world):  # stand_on_ground would leave every child as it is
        return children
    return [None if child is None else stand_on_ground(child, world) for child in children]


def _children(
    brood: Brood, genome: GenomeSection, ga: GASection, variation: Variation
) -> list[Creature | None]:
    default = _is_default(variation)
    if default and brood.kind == PAIR:  # one compiled call, the same draws (evo.ga.brood_kernels)
        from evo.ga.brood_kernels import compiled_children

        children = compiled_children(brood, genome, ga)
        if children is not None:
            return children
    return _python_children(brood, genome, ga, variation, default)


def _python_children(
    brood: Brood, genome: GenomeSection, ga: GASection, variation: Variation, default: bool
) -> list[Creature | None]:
    """The brood's children made by the Python operators (``default``: they are the default ones)."""
    from evo.ga.creatures import random_creature, seeded_creature

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
        return _mated(brood, rng, genome, ga)
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


def _is_default(variation: Variation) -> bool:
    default = Variation.default()
    return variation is default or (
        variation.mutate is default.mutate and variation.crossover is default.crossover
    )


def _mated(
    brood: Brood, rng: np.random.Generator, genome: GenomeSection, ga: GASection
) -> list[Creature | None]:
    """The children of a mated pair under the default operators: a mutated child is edited on its
    crossover body (settled as :func:`~evo.ga.body.finish` would leave it) and made into a creature once,
    giving what ``mutate(crossover(...)[k])`` gives from the same draws."""
    from evo.ga.body import finish, settle
    from evo.ga.crossover import crossover_bodies
    from evo.ga.mutation import mutate_body

    a, b = brood.parents
    bodies = crossover_bodies(a, b, rng, genome, ga)
    for body, flag in zip(bodies, brood.mutate, strict=True):
        if flag:
            settle(body, genome)
            mutate_body(body, rng, genome, ga)
    return [finish(body, parent, genome, world=a.world) for body, parent in zip(bodies, (a, b), strict=True)]
