"""The variation operators (:class:`Variation`) and :class:`BreedSettings`, the frozen record of everything
breeding reads, made once from a run's ``[genome]`` and ``[ga]`` tables and passed down (evosax's
``params``): no module keeps settings of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evo.ga.crossover import crossover
from evo.ga.kernels.brood import Operators, compiled_operators
from evo.ga.mutation import MutationPlan, mutate
from evo.ga.settings import GASection, GenomeSection
from evo.model import Creature

__all__ = ["BreedSettings", "DEFAULT_VARIATION", "Variation"]


@dataclass(frozen=True)
class Variation:
    """The variation operators: ``mutate(creature, rng, genome, ga) -> creature`` and
    ``crossover(a, b, rng, genome, ga) -> (child, child)``. Defaults: :mod:`evo.ga.mutation`."""

    mutate: Callable[..., Creature]
    crossover: Callable[..., tuple[Creature, Creature]]

    @classmethod
    def default(cls) -> Variation:
        """:data:`DEFAULT_VARIATION` (frozen, so it is shared)."""
        return DEFAULT_VARIATION

    @property
    def is_default(self) -> bool:
        """Whether these are the default operators (the compiled brood makes their children)."""
        return self.mutate is DEFAULT_VARIATION.mutate and self.crossover is DEFAULT_VARIATION.crossover


DEFAULT_VARIATION = Variation(mutate=mutate, crossover=crossover)


@dataclass(frozen=True, eq=False)
class BreedSettings:
    """What breeding reads, made once per run (or per worker) by :meth:`of`.

    Attributes:
        genome: the ``[genome]`` limits.
        ga: the ``[ga]`` rates and sigmas.
        variation: the operators.
        mutations: the mutations ``ga`` turns on (:class:`~evo.ga.mutation.MutationPlan`).
        compiled: the compiled brood's record (:class:`~evo.ga.kernels.brood.Operators`), or None where
            the compiled brood does not apply (operators that are not the default ones, or the
            ``physics`` mutation on).
    """

    genome: GenomeSection
    ga: GASection
    variation: Variation
    mutations: MutationPlan
    compiled: Operators | None

    @classmethod
    def of(cls, genome: GenomeSection, ga: GASection, variation: Variation | None = None) -> BreedSettings:
        """The settings of a run with these tables and operators (None: the default operators)."""
        variation = variation or DEFAULT_VARIATION
        mutations = MutationPlan.of(ga)
        compiled = compiled_operators(genome, ga, mutations) if variation.is_default else None
        return cls(genome, ga, variation, mutations, compiled)
