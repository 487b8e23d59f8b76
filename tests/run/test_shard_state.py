"""A shards worker's population as arrays (:class:`evo.run.shards.state.ShardState`), run here in one
process: each generation it selects, breeds and scores is the one the shipped ask, breeding, evaluation
and tell make (told with :meth:`evo.ga.loop.Evolution.tell_bred`), generation after generation, and its
breeding reuses the compiled brood's one specialisation."""

from __future__ import annotations

import numpy as np
import pytest

from evo.ga.loop import Evolution
from evo.io.checkpoint.document import evolution_to_dict
from evo.run.config import parse_config, resolve
from evo.run.evolve import evolve
from evo.run.job import BreedContext, breed_and_evaluate
from evo.run.shards.state import ShardState, Shared


@pytest.fixture(scope="module")
def started():
    """A run after generation 0 (its config and evolution), and its breeding context."""
    doc = {
        "run": {"name": "state", "seed": 11, "generations": 1, "population": 25},
        "evaluation": {"frames": 300, "plugin": "distance", "params": {"settle_frames": 0}},
        "pool": {"workers": 1},
        "ga": {"elite": 3},
    }
    config = resolve(parse_config(doc, source="<state>"))
    result = evolve(config, progress=False)
    context = BreedContext(config.evaluation_spec(), config.genome, config.ga, batch=True)
    return config, result.evolution, context


def shipped_generation(evolution: Evolution, context: BreedContext) -> None:
    plan = evolution.ask()
    evolution.tell([child for brood in plan.broods for child in breed_and_evaluate(brood, context)])


def test_the_arrays_make_the_generations_the_shipped_loop_makes(started):
    _, evolution, context = started
    shipped = Evolution.from_state(evolution.state(), evolution.settings)
    told = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(told, context, Shared.alone(told.settings.population), cut=3)
    for g in (1, 2, 3):
        shipped_generation(shipped, context)
        bred = state.make(g)
        assert bred.generation == g and state.generation == g
        record = told.tell_bred(bred)
        assert record == shipped.logbook[-1]
        assert evolution_to_dict(told) == evolution_to_dict(shipped)  # individuals, hall of fame, generator
        assert np.array_equal(state.fit, [ind.fitness.wvalues[0] for ind in told.population])
    assert bred.elites.size == 3 and bred.new.any() and not bred.new.all()  # copies among the children


def test_the_breeding_reuses_the_shipped_specialisation_of_the_compiled_brood(started):
    from evo.ga.kernels.brood import _pairs, _parent

    _, evolution, context = started
    shipped_generation(Evolution.from_state(evolution.state(), evolution.settings), context)
    known = len(_pairs.signatures), len(_parent.signatures)
    told = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(told, context, Shared.alone(told.settings.population), cut=2)
    for g in (1, 2):  # from the told members' arrays, then from the arrays moved on
        state.make(g)
    assert (len(_pairs.signatures), len(_parent.signatures)) == known


def test_tell_bred_refuses_what_does_not_follow_or_fit(started):
    _, evolution, context = started
    told = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(told, context, Shared.alone(told.settings.population), cut=2)
    bred = state.make(1)
    with pytest.raises(ValueError, match="generation 2 cannot follow generation 0"):
        told.tell_bred(bred._replace(generation=2))
    with pytest.raises(ValueError, match="do not fit a population of 25"):
        told.tell_bred(bred._replace(elites=bred.elites[:1]))
    with pytest.raises(ValueError, match="do not fit"):
        told.tell_bred(bred._replace(fitness=bred.fitness[:-1]))
    told.ask()
    with pytest.raises(RuntimeError, match="ask"):
        told.tell_bred(bred)
    told.take_back()
    told.tell_bred(bred)
    assert told.generation == 1
