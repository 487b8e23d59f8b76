"""`[genome] omega_init = "resonant"`: random creatures start with omega at their lowest natural frequency."""

from __future__ import annotations

import numpy as np
import pytest

from evo.analysis import lowest_natural_frequency
from evo.ga.creatures import random_creature
from evo.ga.settings import GenomeSection
from evo.sim import World


@pytest.mark.parametrize("seed", range(5))
def test_resonant_init_changes_only_omega_to_the_clipped_lowest_natural_frequency(seed):
    plain = random_creature(np.random.default_rng(seed), GenomeSection())
    genome = GenomeSection(omega_init="resonant", omega=(0.001, 5.0))
    world = World(stiffness=0.3)
    resonant = random_creature(np.random.default_rng(seed), genome, world=world)
    np.testing.assert_array_equal(resonant.positions, plain.positions)
    np.testing.assert_array_equal(resonant.rest, plain.rest)
    np.testing.assert_array_equal(resonant.phi, plain.phi)
    assert resonant.beta == plain.beta
    lowest = lowest_natural_frequency(plain, world)
    assert lowest is not None
    assert resonant.omega == pytest.approx(lowest, rel=1e-12)


def test_resonant_omega_is_clipped_into_the_genome_range():
    genome = GenomeSection(omega_init="resonant", omega=(0.02, 0.03))
    for seed in range(5):
        creature = random_creature(np.random.default_rng(seed), genome)
        assert 0.02 <= creature.omega <= 0.03
