"""A generation's statistics: each column's mean, std, min and max, as numpy gives them column by column."""

import math

import numpy as np
import pytest

from evo.ga.individual import Individual
from evo.ga.logbook import column_statistics, history_columns
from evo.model import Creature


def column_by_column(population):
    """The statistics as evo 0.2 made them: numpy's reductions of each column's finite values."""
    rows = [(*ind.values, ind.creature.n_masses, ind.creature.n_links) for ind in population]
    table = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)
    out = {"mean": [], "std": [], "min": [], "max": []}
    for column in table.T:
        finite = column[np.isfinite(column)]
        for name, reduce in (("mean", np.mean), ("std", np.std), ("min", np.min), ("max", np.max)):
            out[name].append(float(reduce(finite)) if finite.size else math.nan)
    return out


def creature(masses: int, links: int) -> Creature:
    positions = [[float(i), 0.0] for i in range(masses)]
    ends = [(i % masses, (i + 1) % masses) for i in range(links)]
    return Creature(
        positions,
        [[0.0, 0.0]] * masses,
        [False] * masses,
        [a for a, _ in ends],
        [b for _, b in ends],
        [1.0] * links,
        [0.0] * links,
        [0.0] * links,
    )


def population(rng: np.random.Generator, size: int, weights: tuple[float, ...], special: bool):
    shapes = [creature(m, m) for m in range(2, 7)]
    out = []
    for _ in range(size):
        values = rng.standard_normal(len(weights)) * 10.0 ** rng.integers(-3, 6)
        if special:  # signed zeros, infinities (exploded: the worst value) and NaN
            odd = rng.choice([0.0, -0.0, math.inf, -math.inf])
            values = np.where(rng.random(len(weights)) < 0.2, odd, values)
        else:
            values = np.round(values)  # zeros of both signs
        ind = Individual(shapes[int(rng.integers(len(shapes)))], weights)
        ind.set_fitness(tuple(values.tolist()))
        out.append(ind)
    return out


def bits(stats: dict[str, list[float]]) -> dict[str, bytes]:
    return {name: np.array(values, dtype=np.float64).tobytes() for name, values in stats.items()}


@pytest.mark.parametrize("weights", [(1.0,), (1.0, -1.0), (-1.0, 1.0, 1.0)])
@pytest.mark.parametrize("special", [False, True])
def test_the_statistics_are_numpys_column_by_column_bit_for_bit(weights, special):
    rng = np.random.default_rng(len(weights) + 10 * special)
    for size in [1, 2, 3, 7, 200, 1001, 5000]:
        people = population(rng, size, weights, special)
        assert bits(column_statistics(people)) == bits(column_by_column(people))


def test_a_column_without_a_finite_value_has_nan_statistics():
    people = population(np.random.default_rng(0), 5, (1.0,), False)
    for ind in people:
        ind.set_fitness((-math.inf,))
    stats = column_statistics(people)
    assert all(math.isnan(stats[name][0]) for name in ("mean", "std", "min", "max"))
    assert stats["min"][1] >= 2.0  # masses are still counted
    assert history_columns(("d",))[2:6] == ["d_best", "d_mean", "d_std", "d_min"]
