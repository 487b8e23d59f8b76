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
