"""An evaluated individual made at once (``Individual.told``) is the one the constructor and
``set_fitness`` make."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest

from evo.ga.individual import Individual, fitness_class
from evo.io.models import load_model

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


@pytest.mark.parametrize(
    ("weights", "values"),
    [
        ((1.0,), (2.5,)),
        ((1.0,), (math.nan,)),
        ((-1.0, 2.0), (3, math.nan)),
        ((-2.0,), (-0.0,)),
        ((np.float64(-1.0),), (np.float64(2.0),)),  # numpy's scalars: floats all the same
    ],  # fmt: skip
)
def test_told_makes_the_individual_the_constructor_and_set_fitness_make(weights, values):
    creature = load_model(GENOMES / "walker.json")
    told = Individual.told(
        creature, list(weights), values, id="g3-7", parents=["g2-1", "g2-4"], born=3, exploded=True,
        seed=11, model_text="{}",
    )  # fmt: skip
    made = Individual(creature, weights, id="g3-7", parents=("g2-1", "g2-4"), born=3)
    made.set_fitness(values, exploded=True, seed=11)
    made.model_text = "{}"
    # the maker a tell makes its children with: the same individual, positional arguments
    make = Individual.maker(list(weights))
    from_maker = make(creature, values, "g3-7", ("g2-1", "g2-4"), 3, True, 11, "{}")
    for other in (told, from_maker):
        for name in Individual.__slots__:
            if name != "fitness":
                assert repr(getattr(other, name)) == repr(getattr(made, name)), name
        assert type(other.fitness) is type(made.fitness) is fitness_class(weights)
        assert repr(other.fitness.wvalues) == repr(made.fitness.wvalues) and other.fitness.valid
        assert other.fitness.values == made.fitness.values and other.weights == made.weights
        assert all(isinstance(v, float) for v in other.values)
    assert Individual.maker(tuple(weights)) is make  # made once per weights
    twin = copy.deepcopy(told)  # a copy shares the creature, not the fitness
    assert twin.creature is told.creature and twin.fitness is not told.fitness
    assert twin.fitness.wvalues == told.fitness.wvalues


def test_told_refuses_the_wrong_number_of_values_and_weights_deap_cannot_take():
    creature = load_model(GENOMES / "walker.json")
    with pytest.raises(ValueError, match="expected 1 fitness values, got 2"):
        Individual.told(creature, (1.0,), (1.0, 2.0), id="g0-0", parents=(), born=0)
    with pytest.raises(ValueError, match="non-zero"):
        Individual.told(creature, (0.0,), (1.0,), id="g0-0", parents=(), born=0)


def test_a_deep_copy_is_what_deaps_deep_copy_of_the_fitness_makes_and_shares_the_rest():
    """Round twenty-two: the copy's fitness, written out for evo's fitness classes, is what DEAP's
    ``Fitness.__deepcopy__`` makes (its class, the wvalues alone, valid as the original; an invalid
    one stays invalid); every other field is the original's; a fitness of another class is deep-copied
    by its own method."""
    from deap import base

    creature = load_model(GENOMES / "walker.json")
    told = Individual.told(creature, (1.0, -2.0), (3.0, 4.0), id="g1-2", parents=("g0-1",), born=1, seed=9)
    told.model_doc = {"k": 1}
    fresh = Individual(creature, (1.0,), id="g0-0")  # not evaluated
    for original in (told, fresh):
        twin = copy.deepcopy(original)
        deaps = base.Fitness.__deepcopy__(original.fitness, {})
        for name in Individual.__slots__:
            if name != "fitness":
                assert getattr(twin, name) is getattr(original, name), name
        assert type(twin.fitness) is type(deaps) is type(original.fitness)
        assert twin.fitness is not original.fitness and vars(twin.fitness) == vars(deaps)
        assert twin.fitness.valid == original.fitness.valid
    told.fitness.crowding_dist = 2.0  # (NSGA-II's: DEAP's copy leaves it out)
    assert not hasattr(copy.deepcopy(told).fitness, "crowding_dist")
    fresh.fitness = told.fitness  # one fitness shared: one copy of it, as copy.deepcopy makes
    a, b = copy.deepcopy([told, fresh])
    assert a.fitness is b.fitness and a.fitness is not told.fitness
    other = type("Other", (base.Fitness,), {"weights": (1.0,)})((5.0,))
    fresh.fitness = other
    copied = copy.deepcopy(fresh).fitness
    assert copied.wvalues == (5.0,) and type(copied) is type(other) and copied is not other
