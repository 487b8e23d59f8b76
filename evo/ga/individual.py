"""DEAP's fitness and individual, as ordinary classes of an importable module.

DEAP's own habit is ``creator.create("FitnessMax", base.Fitness, weights=(1.0,))``, which adds classes to
a module's globals at run time. Here a fitness class is made once per weights tuple by
:func:`fitness_class` (cached, so every individual of a run shares one class), and :class:`Individual`
is a plain class holding a creature. DEAP's tools only need ``individual.fitness``; its ``HallOfFame``
deep-copies individuals, which :meth:`Individual.__deepcopy__` makes cheap (the creature is immutable
and shared).

Neither class is pickled: worker processes receive creatures and seeds, and checkpoints store
:meth:`Individual.to_dict`.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence
from functools import cache
from typing import Any

from deap import base

from evo.io.models import creature_from_dict, creature_to_dict
from evo.io.runs import decode_numbers, encode_numbers
from evo.model import Creature

__all__ = ["Individual", "fitness_class", "model_json", "worst_values"]


def model_json(creature: Creature) -> str:
    """The creature's model document as compact JSON text (what checkpoints hold)."""
    return json.dumps(creature_to_dict(creature), separators=(",", ":"), allow_nan=False)


@cache
def fitness_class(weights: tuple[float, ...]) -> type[base.Fitness]:
    """The DEAP fitness class for ``weights`` (positive: maximise, negative: minimise)."""
    weights = tuple(float(w) for w in weights)
    if not weights or any(w == 0.0 or not math.isfinite(w) for w in weights):
        raise ValueError(f"fitness weights must be finite and non-zero, got {weights}")
    name = "Fitness" + "".join("Max" if w > 0 else "Min" for w in weights)
    return type(name, (base.Fitness,), {"weights": weights, "__module__": __name__})


def worst_values(weights: Sequence[float]) -> tuple[float, ...]:
    """The worst possible raw fitness: -inf for a maximised objective, +inf for a minimised one."""
    return tuple(-math.inf if w > 0 else math.inf for w in weights)


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
        "_model",
        "_text",
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
        self._model: dict[str, Any] | None = None  # creature_to_dict(creature), made once
        self._text: str | None = None  # model_json(creature), made once (perhaps by a worker process)

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
        worst = worst_values(self.weights)
        clean = tuple(w if math.isnan(v) else float(v) for v, w in zip(values, worst, strict=True))
        self.values = clean
        self.fitness.values = clean
        self.exploded = bool(exploded)
        self.seed = seed

    def __deepcopy__(self, memo: dict) -> Individual:
        twin = Individual.__new__(Individual)
        for name in self.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.fitness = copy.deepcopy(self.fitness, memo)
        return twin

    def __repr__(self) -> str:
        return f"Individual({self.id or '?'}, values={self.values}, masses={self.creature.n_masses})"

    # -- checkpoints -----------------------------------------------------------------------------
    def _head(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "parents": list(self.parents),
            "born": self.born,
            "seed": self.seed,
            "exploded": self.exploded,
            "fitness": None if self.values is None else encode_numbers(self.values),
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (non-finite fitness values as strings, see :mod:`evo.io.runs`)."""
        return {**self._head(), "model": self.model_dict()}

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON text, reusing the model's text once it has been made."""
        head = json.dumps(self._head(), separators=(",", ":"), allow_nan=False)
        return f'{head[:-1]},"model":{self.model_text()}}}'

    def model_dict(self) -> dict[str, Any]:
        """The creature as a model document (computed once and shared by copies: do not modify it)."""
        if self._model is None:
            self._model = (
                json.loads(self._text) if self._text is not None else creature_to_dict(self.creature)
            )
        return self._model

    def model_text(self) -> str:
        """:func:`model_json` of the creature, computed once (or given by :meth:`set_model_text`)."""
        if self._text is None:
            self._text = json.dumps(self.model_dict(), separators=(",", ":"), allow_nan=False)
        return self._text

    def set_model_text(self, text: str | None) -> None:
        """Adopt ``model_json(self.creature)`` made elsewhere (a worker process), if given."""
        if text is not None:
            self._text = text

    @classmethod
    def from_dict(cls, doc: dict[str, Any], weights: tuple[float, ...]) -> Individual:
        """The inverse of :meth:`to_dict`; the fitness is set again from the same raw values."""
        ind = cls(
            creature_from_dict(doc["model"], source="checkpoint.json"),
            weights,
            id=str(doc["id"]),
            parents=tuple(str(p) for p in doc["parents"]),
            born=int(doc["born"]),
        )
        if doc.get("fitness") is not None:
            ind.set_fitness(decode_numbers(doc["fitness"]), exploded=bool(doc["exploded"]), seed=doc["seed"])
        return ind
