"""DEAP's fitness and the individual, as ordinary classes of an importable module (no ``creator``).

An :class:`Individual` holds an immutable creature, so DEAP's deep copies are cheap and share it. Neither
class is pickled: workers receive creatures and seeds, and :mod:`evo.io.checkpoint` stores individuals.
"""

from __future__ import annotations

import copy
import math
import operator
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from deap import base

from evo.model import Creature

__all__ = ["Individual", "fitness_class", "worst_values"]


@cache
def fitness_class(weights: tuple[float, ...]) -> type[base.Fitness]:
    """The DEAP fitness class for ``weights`` (positive: maximise, negative: minimise)."""
    weights = tuple(float(w) for w in weights)
    if not weights or any(w == 0.0 or not math.isfinite(w) for w in weights):
        raise ValueError(f"fitness weights must be finite and non-zero, got {weights}")
    name = "Fitness" + "".join("Max" if w > 0 else "Min" for w in weights)
    return type(
        name, (base.Fitness,), {"weights": weights, "__module__": __name__, "__init__": _fitness_init}
    )


def _fitness_init(self: base.Fitness, values: Sequence[float] = ()) -> None:
    """DEAP's ``Fitness.__init__`` without its check that ``weights`` is a sequence (an abstract-class
    test that costs more than the rest of making an individual; :func:`fitness_class` made them a tuple)."""
    if len(values) > 0:
        self.values = values


def worst_values(weights: Sequence[float]) -> tuple[float, ...]:
    """The worst possible raw fitness: -inf for a maximised objective, +inf for a minimised one."""
    return _worst(tuple(weights))


@cache
def _worst(weights: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(-math.inf if w > 0 else math.inf for w in weights)


_new = object.__new__


@cache
def _maker(cls: type, weights: tuple[float, ...]) -> Callable[..., Individual]:
    """:meth:`Individual.maker` (one per class and weights)."""
    fitness_type = fitness_class(weights)
    weights = fitness_type.weights  # floats, as set_fitness multiplies by them
    worst = _worst(weights)
    arity, isnan, mul = len(worst), math.isnan, operator.mul

    def make(
        creature: Creature,
        values: Sequence[float],
        id: str,
        parents: tuple[str, ...],
        born: int,
        exploded: bool,
        seed: int | None,
        model_text: str | None,
    ) -> Individual:
        if len(values) != arity:
            raise ValueError(f"expected {arity} fitness values, got {len(values)}")
        clean = tuple([w if isnan(v) else float(v) for v, w in zip(values, worst, strict=True)])
        fitness = _new(fitness_type)  # what its __init__ leaves without values, then the values setter's
        fitness.wvalues = tuple(map(mul, clean, weights))
        ind = _new(cls)
        ind.creature, ind.fitness, ind.values, ind.id = creature, fitness, clean, id
        ind.parents, ind.born, ind.seed, ind.exploded = parents, born, seed, bool(exploded)
        ind.model_doc, ind.model_text = None, model_text
        return ind

    return make


class Individual:
    """One member of the population: a creature, its fitness and its provenance.

    Attributes:
        creature: the :class:`evo.model.Creature` (immutable, so copies share it).
        fitness: a DEAP fitness of :func:`fitness_class` (``weights``); invalid until evaluated.
        values: the raw objective values the plugin returned (kept apart from ``fitness.values``, which
            DEAP recomputes as wvalues / weights and which need not round-trip exactly).
        id: ``"g12-34"``, generation and index of its first evaluation; a copy that was not changed by
            variation keeps its parent's id.
        parents: ids of the individuals it was made from.
        born: the generation of its first evaluation.
        seed: the seed its plugin was called with.
        exploded: whether its simulation exploded.
    """

    __slots__ = (
        "creature",
        "fitness",
        "values",
        "id",
        "parents",
        "born",
        "seed",
        "exploded",
        "model_doc",
        "model_text",
    )

    def __init__(
        self,
        creature: Creature,
        weights: tuple[float, ...],
        *,
        id: str = "",
        parents: tuple[str, ...] = (),
        born: int = 0,
    ):
        self.creature = creature
        self.fitness = fitness_class(tuple(weights))()
        self.values: tuple[float, ...] | None = None
        self.id = id
        self.parents = tuple(parents)
        self.born = born
        self.seed: int | None = None
        self.exploded = False
        # the creature's model document and its compact JSON text, made once where first needed (perhaps
        # by a worker process) and shared by copies; see evo.io.checkpoint
        self.model_doc: dict[str, Any] | None = None
        self.model_text: str | None = None

    @property
    def weights(self) -> tuple[float, ...]:
        return self.fitness.weights

    @property
    def evaluated(self) -> bool:
        return self.values is not None

    def set_fitness(
        self, values: Sequence[float], *, exploded: bool = False, seed: int | None = None
    ) -> None:
        """Record an evaluation. NaN counts as the worst value of its objective."""
        fitness = self.fitness
        weights = fitness.weights
        worst = _worst(weights)
        if len(values) != len(worst):
            raise ValueError(f"expected {len(worst)} fitness values, got {len(values)}")
        clean = tuple([w if math.isnan(v) else float(v) for v, w in zip(values, worst, strict=True)])
        self.values = clean
        fitness.wvalues = tuple(map(operator.mul, clean, weights))  # what DEAP's ``values`` setter stores
        self.exploded = bool(exploded)
        self.seed = seed

    @classmethod
    def told(
        cls,
        creature: Creature,
        weights: tuple[float, ...],
        values: Sequence[float],
        *,
        id: str,
        parents: tuple[str, ...],
        born: int,
        exploded: bool = False,
        seed: int | None = None,
        model_text: str | None = None,
    ) -> Individual:
        """An evaluated individual: ``Individual(creature, weights, id=id, parents=parents, born=born)``
        with :meth:`set_fitness` (``values``, ``exploded``, ``seed``) and ``model_text`` (the children the
        GA's and MAP-Elites' ``tell`` make), its fields set directly: the same individual at about half
        the cost, on the run's path from one generation's last kernel call to the next one's first
        (docs/performance.md, "Round twenty-one"). :meth:`maker` gives the same with its lookups made
        once, for many.

        Raises:
            ValueError: not one value per weight, or weights :func:`fitness_class` refuses.
        """
        make = cls.maker(weights)
        return make(creature, values, id, tuple(parents), born, exploded, seed, model_text)

    @classmethod
    def maker(cls, weights: tuple[float, ...]) -> Callable[..., Individual]:
        """:meth:`told` for these weights as ``make(creature, values, id, parents, born, exploded, seed,
        model_text)`` (``parents`` a tuple), the fitness class and the worst values looked up once
        (a generation's tell makes a few hundred: round twenty-three).

        Raises:
            ValueError: weights :func:`fitness_class` refuses.
        """
        return _maker(cls, tuple(weights))

    def __deepcopy__(self, memo: dict) -> Individual:
        """A copy sharing the creature and every field but the fitness, a new one of the same values (what
        DEAP's ``Fitness.__deepcopy__`` makes: its class's, with the wvalues alone; written out where
        the fitness is a :func:`fitness_class`, as the unchanged copies of a generation's tell are)."""
        twin = _new(Individual)
        twin.creature, twin.values, twin.id, twin.parents = self.creature, self.values, self.id, self.parents
        twin.born, twin.seed, twin.exploded = self.born, self.seed, self.exploded
        twin.model_doc, twin.model_text = self.model_doc, self.model_text
        fitness = self.fitness
        kind = type(fitness)
        if vars(kind).get("__init__") is _fitness_init and "__deepcopy__" not in vars(kind):
            made = memo.get(id(fitness))  # (as copy.deepcopy would: one copy of a shared fitness)
            if made is None:
                made = memo[id(fitness)] = _new(kind)
                made.wvalues = fitness.wvalues
            twin.fitness = made
        else:
            twin.fitness = copy.deepcopy(fitness, memo)
        return twin

    def __repr__(self) -> str:
        return f"Individual({self.id or '?'}, values={self.values}, masses={self.creature.n_masses})"
