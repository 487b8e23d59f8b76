"""The generation loop without a simulator: fitness is a cheap function of the genome."""

import json
import math
import random
from types import SimpleNamespace

import numpy as np
import pytest

from evo.ga.individual import Individual
from evo.ga.loop import Evolution, HallOfFame, LoopSettings, plugin_seed
from evo.model import Creature

SINGLE = LoopSettings(population=14, seed=5, objectives=("size",), weights=(1.0,))
DOUBLE = LoopSettings(population=12, seed=5, objectives=("size", "masses"), weights=(1.0, -1.0))


def width(creature: Creature) -> float:
    return float(np.ptp(creature.positions[:, 0]) + 10.0 * creature.omega)


def single(creature: Creature) -> SimpleNamespace:
    return SimpleNamespace(fitness=(width(creature),), exploded=False)


def double(creature: Creature) -> SimpleNamespace:
    return SimpleNamespace(fitness=(width(creature), float(creature.n_masses)), exploded=False)


def step(evolution: Evolution, score=single) -> dict:
    return evolution.tell([score(ind.creature) for ind in evolution.ask()])


def run(settings: LoopSettings, generations: int, score=single) -> Evolution:
    evolution = Evolution(settings)
    for _ in range(generations):
        step(evolution, score)
    return evolution


def test_the_same_seed_makes_the_same_generations():
    a, b = run(SINGLE, 4), run(SINGLE, 4)
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())
    c = run(LoopSettings(population=14, seed=6, objectives=("size",), weights=(1.0,)), 4)
    assert json.dumps(a.to_dict()) != json.dumps(c.to_dict())


@pytest.mark.parametrize("settings, score", [(SINGLE, single), (DOUBLE, double)], ids=["single", "nsga2"])
def test_a_state_restored_from_json_continues_exactly_like_the_original(settings, score):
    original = run(settings, 3, score)
    saved = json.loads(json.dumps(original.to_dict(), allow_nan=False))
    restored = Evolution.from_dict(saved, settings)
    assert json.dumps(restored.to_dict()) == json.dumps(original.to_dict())
    for _ in range(3):
        assert step(original, score) == step(restored, score)
    assert json.dumps(restored.to_dict()) == json.dumps(original.to_dict())


def test_elitism_keeps_the_best_fitness_from_ever_getting_worse():
    evolution = Evolution(SINGLE)
    bests = [step(evolution)["size_best"] for _ in range(6)]
    assert bests == sorted(bests)
    assert evolution.best.values[0] == bests[-1]
    assert len(evolution.population) == SINGLE.population


def test_only_changed_offspring_are_evaluated_and_each_gets_its_own_seed():
    evolution = run(SINGLE, 2)
    todo = evolution.ask()
    assert 0 < len(todo) <= SINGLE.population - SINGLE.ga.elite
    assert [ind.id for ind in todo] == [f"g2-{i}" for i in range(len(todo))]
    assert [ind.seed for ind in todo] == [plugin_seed(SINGLE.seed, 2, i) for i in range(len(todo))]
    assert all(ind.parents for ind in todo)
    with pytest.raises(RuntimeError):
        evolution.ask()
    with pytest.raises(ValueError):
        evolution.tell([])


def test_plugin_seeds_derive_from_run_seed_generation_and_index():
    seeds = {plugin_seed(s, g, i) for s in (1, 2) for g in (0, 1) for i in (0, 1)}
    assert len(seeds) == 8
    assert plugin_seed(1, 0, 0) == plugin_seed(1, 0, 0) < 2**64


def test_exploded_creatures_get_the_worst_fitness_are_counted_and_left_out_of_statistics():
    evolution = Evolution(SINGLE)
    todo = evolution.ask()
    outcomes = [
        SimpleNamespace(fitness=(-math.inf,), exploded=True) if k % 3 == 0 else single(ind.creature)
        for k, ind in enumerate(todo)
    ]
    record = evolution.tell(outcomes)
    finite = [o.fitness[0] for o in outcomes if not o.exploded]
    assert record["exploded"] == len(todo) - len(finite)
    assert record["size_mean"] == pytest.approx(np.mean(finite))
    assert record["size_min"] == min(finite)
    assert all(math.isfinite(m.values[0]) for m in evolution.hall_of_fame)
    doc = json.loads(json.dumps(evolution.to_dict(), allow_nan=False))
    assert sum(ind["fitness"] == ["-inf"] for ind in doc["population"]) == record["exploded"]


def test_a_generation_where_everything_exploded_has_nan_statistics_and_no_elites():
    evolution = Evolution(SINGLE)
    todo = evolution.ask()
    record = evolution.tell([SimpleNamespace(fitness=(-math.inf,), exploded=True) for _ in todo])
    assert record["exploded"] == len(todo)
    assert math.isnan(record["size_best"]) and math.isnan(record["size_mean"])
    assert len(evolution.hall_of_fame) == 0
    step(evolution)  # and the run goes on


def test_several_objectives_select_with_nsga2_and_keep_the_population_size():
    evolution = run(DOUBLE, 4, double)
    assert len(evolution.population) == DOUBLE.population
    assert all(len(ind.values) == 2 for ind in evolution.population)
    assert set(evolution.logbook[-1]) >= {"size_best", "masses_best", "masses_min"}
    # masses are minimised: "best" is the smallest
    assert evolution.logbook[-1]["masses_best"] == evolution.logbook[-1]["masses_min"]


def test_selection_leaves_pythons_global_random_state_alone():
    evolution = run(SINGLE, 1)
    random.seed(123)
    expected = random.random()
    random.seed(123)
    step(evolution)
    assert random.random() == expected


def _member(name: str, value: float, group: str) -> Individual:
    ind = Individual(Creature([[0.0, 0.0]], [[0.0, 0.0]], [False], [], [], [], [], []), (1.0,), id=name)
    ind.set_fitness((value,))
    ind.parents = (group,)  # the test's notion of "alike"
    return ind


def test_the_hall_of_fame_keeps_near_duplicates_out_but_a_better_one_replaces_them():
    hof = HallOfFame(3, similar=lambda a, b: a.id == b.id or a.parents == b.parents)
    hof.update([_member("a", 1.0, "x"), _member("b", 2.0, "y"), _member("c", 1.5, "x")])
    assert [m.id for m in hof] == ["b", "c"]  # c is alike a and better: it replaced a
    hof.update([_member("d", 0.5, "y"), _member("e", 0.7, "z"), _member("f", -math.inf, "w")])
    assert [m.id for m in hof] == ["b", "c", "e"]  # d is alike the better b; f is not finite
    hof.update([_member("g", 3.0, "q")])
    assert [m.id for m in hof] == ["g", "b", "c"]  # full: the worst made room
    hof.update([_member("b", 2.0, "y")])  # a copy of a member changes nothing
    assert [m.id for m in hof] == ["g", "b", "c"]
