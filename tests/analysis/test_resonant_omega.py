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
    world = World(stiffness=0.3)
    lowest = [
        lowest_natural_frequency(random_creature(np.random.default_rng(seed), GenomeSection()), world)
        for seed in range(8)
    ]
    low, high = sorted(lowest)[2], sorted(lowest)[5]  # some below, some within, some above the range
    genome = GenomeSection(omega_init="resonant", omega=(low, high))
    clipped = [random_creature(np.random.default_rng(seed), genome, world=world).omega for seed in range(8)]
    # a random omega (the "uniform" init) would fall strictly inside the range, never on its ends
    assert clipped == pytest.approx([min(max(f, low), high) for f in lowest], rel=1e-12)
    assert clipped.count(low) >= 2 and clipped.count(high) >= 2
