"""Generation 0's random creatures drawn in compiled code (evo.ga.kernels.creatures): the very creature
``random_creature`` makes from the brood's seed, every array bit for bit, over genomes of every size."""

from __future__ import annotations

import numpy as np
import pytest

from evo.ga.brood import RANDOM, Brood, breed
from evo.ga.creatures import random_creature
from evo.ga.kernels import creatures as kernel
from evo.ga.kernels.creatures import compiled_random_creature
from evo.ga.kernels.pcg import brood_generator
from evo.ga.settings import GASection, GenomeSection

ARRAYS = ("positions", "velocities", "fixed", "link_a", "link_b", "rest", "alpha", "phi")
GENOMES = {
    "default": GenomeSection(),
    "two or three masses": GenomeSection(masses=(2, 3)),
    "bench": GenomeSection(masses=(18, 22), max_links=64, max_degree=7, link_density=0.7),
    "big and dense": GenomeSection(masses=(30, 40), max_links=200, max_degree=7, link_density=0.9),
    "few links": GenomeSection(masses=(10, 14), max_links=13, max_degree=2, link_density=1.0),
    "wide wave": GenomeSection(omega=(0.01, 0.5), beta=(0.0, 1.0), muscle_fraction=1.0, box=(400.0, 30.0)),
}


def assert_same(got, want) -> None:
    for name in ARRAYS:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert a.tobytes() == b.tobytes(), name
    for name in ("omega", "beta", "wave_phase", "wave_reverse", "name", "world", "meta", "polys"):
        assert getattr(got, name) == getattr(want, name), name
    assert got.has_default_physics and want.has_default_physics


@pytest.mark.parametrize("name", GENOMES)
def test_a_compiled_random_creature_is_random_creature_of_the_brood_generator_bit_for_bit(name):
    genome = GENOMES[name]
    for seed in [0, 1, 2**63 - 1, *range(12345, 12345 + 150 * 7919, 7919)]:
        assert_same(compiled_random_creature(seed, genome), random_creature(brood_generator(seed), genome))


def test_what_the_compiled_draw_does_not_cover_is_left_to_python():
    assert compiled_random_creature(2**63, GenomeSection()) is None  # default_rng's own seeding
    assert compiled_random_creature(-1, GenomeSection()) is None
    assert compiled_random_creature(5, GenomeSection(omega_init="resonant")) is None  # a modal analysis after


def test_a_random_brood_breeds_the_compiled_creature_and_the_python_one_when_it_must(monkeypatch):
    genome, ga = GenomeSection(), GASection()
    brood = Brood(RANDOM, seed=99, plugin_seeds=(7,))
    (child,) = breed(brood, genome, ga)
    assert_same(child, random_creature(brood_generator(99), genome))
    monkeypatch.setattr("evo.ga.brood.compiled_random_creature", lambda seed, genome: None)
    (again,) = breed(brood, genome, ga)
    assert_same(again, child)


def test_the_kernel_draws_exactly_as_many_numbers_as_random_creature():
    """After the body the stream is where numpy's is after random_creature's draws (nothing drawn more
    or less, so any draw after it would agree too)."""
    genome = GENOMES["bench"]
    for seed in range(20):
        state = kernel.pcg.seeded(seed)
        kernel.random_body(state, kernel._numbers(genome))
        rng = brood_generator(seed)
        random_creature(rng, genome)
        assert kernel.pcg.random(state) == rng.random()
        assert np.array_equal(kernel.pcg.integers(state, 0, 1000), rng.integers(0, 1000))
