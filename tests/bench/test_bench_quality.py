"""The quality section: the GA and random search on the same walkers' genome, at equal evaluations."""

import argparse
import math

from evo.bench import SECTIONS
from evo.bench import quality as bench_quality


def test_the_quality_section_compares_the_ga_with_random_search_at_equal_evaluations():
    args = argparse.Namespace(quality_generations=2, quality_seeds=(1, 2), quality_workers=1)
    section = bench_quality.quality_section(args)
    data = section.data["quality"]
    assert [row["seed"] for row in data["rows"]] == [1, 2]
    for row in data["rows"]:
        assert row["evaluations"] > 200  # generation 0 (the whole population) and the children of 1
        assert math.isfinite(row["ga_best"]) and math.isfinite(row["random_best"])
    ga = [row["ga_best"] for row in data["rows"]]
    rand = [row["random_best"] for row in data["rows"]]
    assert math.isclose(data["ga_vs_random"], (sum(ga) / 2) / (sum(rand) / 2))
    assert "GA / random search" in section.lines[-1]
    assert SECTIONS["quality"] == "evo.bench.quality:quality_section"


def test_random_search_is_deterministic_and_improves_with_more_evaluations():
    few = bench_quality.random_search_best(3, 20, 1)
    assert bench_quality.random_search_best(3, 20, 1) == few
    assert bench_quality.random_search_best(3, 60, 1) >= few  # the first 20 creatures are the same
