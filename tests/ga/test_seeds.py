"""The plugin seeds of a generation, made at once, are SeedSequence's own, word for word."""

from __future__ import annotations

import numpy as np
import pytest

from evo.ga.seeds import plugin_seed, plugin_seeds


def seed_sequence(run_seed: int, generation: int, index: int) -> int:
    return int(np.random.SeedSequence([run_seed, generation, index]).generate_state(1, np.uint64)[0])


@pytest.mark.parametrize("run_seed", [0, 1, 11, 2**32 - 1, 2**32, 2**40 + 7, 2**63 - 1, 2**64 + 3, 10**30])
@pytest.mark.parametrize("generation", [0, 1, 119, 2**32 + 5])
def test_a_generations_seeds_equal_seed_sequence_for_every_index(run_seed, generation):
    seeds = plugin_seeds(run_seed, generation, 64)
    assert seeds.dtype == np.uint64
    assert seeds.tolist() == [seed_sequence(run_seed, generation, i) for i in range(64)]


def test_one_seed_is_the_same_as_in_the_whole_generation():
    assert plugin_seed(3, 4, 17) == int(plugin_seeds(3, 4, 30)[17]) == seed_sequence(3, 4, 17)
    assert plugin_seeds(3, 4, 0).size == 0
    with pytest.raises(ValueError):
        plugin_seeds(-1, 0, 3)
