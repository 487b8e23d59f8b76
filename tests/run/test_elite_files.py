"""evo.run.folder.elite_files: the generation's best is the one DEAP's fitness order picks."""

import math

import numpy as np
import pytest

from evo.ga.individual import Individual
from evo.model import Creature
from evo.run.folder.elite_files import generation_best

CREATURE = Creature(
    positions=[[0.0, 0.0], [10.0, 0.0]],
    velocities=[[0.0, 0.0], [0.0, 0.0]],
    fixed=[False, False],
    link_a=[0],
    link_b=[1],
    rest=[10.0],
    alpha=[0.0],
    phi=[0.0],
)


def deap_best(population):
    finite = [ind for ind in population if ind.values and all(map(math.isfinite, ind.values))]
    return max(finite, key=lambda ind: ind.fitness, default=None)


@pytest.mark.parametrize("weights", [(1.0,), (-1.0,), (1.0, -2.0), (0.5, 1.0, -1.0)])
@pytest.mark.parametrize("seed", range(5))
def test_generation_best_is_deaps_fittest_ties_and_non_finite_values_included(weights, seed):
    rng = np.random.default_rng(seed)
    population = []
    for k in range(60):
        ind = Individual(CREATURE, weights, id=f"g0-{k}")
        if k % 9 != 4:  # some never evaluated
            values = [float(v) for v in rng.integers(0, 3, size=len(weights))]  # many ties
            if k % 7 == 2:
                values[0] = [math.inf, -math.inf, math.nan][k % 3]
            ind.set_fitness(values)
        population.append(ind)
    assert generation_best(population) is deap_best(population)
    assert generation_best([]) is None


def test_the_text_of_the_individual_asked_for_last_is_made_once(monkeypatch):
    """A generation's best is most often the one before's: its model text is made once, however many
    generations ask for it in a row, and is the text made afresh; another individual's is its own."""
    from types import SimpleNamespace

    from evo.run import config as run_config
    from evo.run.folder import elite_files

    config = run_config.resolve(
        run_config.parse_config({"run": {"name": "texts"}, "pool": {"workers": 1}}, source="<texts>")
    )
    files = elite_files.EliteFiles(config, SimpleNamespace(objectives=("distance",)))
    first, second = (Individual(CREATURE, (1.0,), id=f"g0-{k}") for k in range(2))
    first.set_fitness([2.0])
    second.set_fitness([3.0])
    made = []
    real = elite_files.dumps_model

    def dumps(creature):
        made.append(creature.name)
        return real(creature)

    monkeypatch.setattr(elite_files, "dumps_model", dumps)
    texts = [files.text(first) for _ in range(3)] + [files.text(second), files.text(first)]
    assert made == ["texts-g0-0", "texts-g0-1", "texts-g0-0"]
    assert texts[0] == texts[2] == texts[4] == real(files.creature(first)) != texts[3]
