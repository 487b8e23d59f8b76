"""Random and seeded creatures, the validity check, the structural distance and the [genome]/[ga] tables."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
from ga_strategies import build, genome_sections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.errors import EvoInputError
from evo.ga.body import TWO_PI, wrap_phase
from evo.ga.creatures import distance, problems, random_creature, seeded_creature
from evo.ga.settings import MUTATION_NAMES, GASection, GenomeSection
from evo.ga.topology import cut_structure
from evo.io.models import load_model
from evo.model import topology
from evo.schema import parse_section, section_to_dict
from evo.sim import World, simulate

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


SQUARE = build(
    [(0, 0), (40, 0), (40, 40), (0, 40)],
    [(0, 1, 40, 0, 0), (1, 2, 40, 0.5, 1.0), (2, 3, 40, 0, 0), (3, 0, 40, 0.5, 2.0), (0, 2, 56.6, 0, 0)],
)


# -- random creatures ------------------------------------------------------------------------------


@PROPERTY
@given(genome=genome_sections(), seed=st.integers(0, 2**32 - 1))
def test_random_creatures_are_valid_at_rest_on_the_floor_and_unstressed(genome, seed):
    creature = random_creature(np.random.default_rng(seed), genome, name="x")
    assert problems(creature, genome) == []
    assert creature.name == "x" and creature.meta == {}
    assert creature.positions[:, 1].min() == 0.0 and creature.positions[:, 0].min() == 0.0
    assert not creature.velocities.any()
    lengths = np.hypot(*(creature.positions[creature.link_b] - creature.positions[creature.link_a]).T)
    np.testing.assert_allclose(creature.rest, np.clip(lengths, *genome.rest), rtol=1e-12, atol=1e-9)
    muscles = creature.is_muscle
    assert np.all(creature.alpha[muscles] <= 1.0) and np.all(creature.alpha[~muscles] == 0.0)


@settings(max_examples=40, deadline=None)
@given(genome=genome_sections(), seed=st.integers(0, 2**32 - 1))
def test_the_same_seed_gives_the_same_random_creature(genome, seed):
    first = random_creature(np.random.default_rng(seed), genome)
    second = random_creature(np.random.default_rng(seed), genome)
    for name in ("positions", "link_a", "link_b", "rest", "alpha", "phi"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
    assert (first.omega, first.beta) == (second.omega, second.beta)


def test_random_creatures_use_no_global_random_state():
    np.random.seed(5)
    random.seed(5)
    before = (np.random.get_state()[1].copy(), random.getstate())
    random_creature(np.random.default_rng(1), GenomeSection())
    assert np.array_equal(np.random.get_state()[1], before[0]) and random.getstate() == before[1]


def test_full_link_density_links_more_than_the_spanning_tree_and_respects_the_caps():
    genome = GenomeSection(masses=(12, 12), link_density=1.0, max_degree=4, max_links=40)
    creature = random_creature(np.random.default_rng(3), genome)
    assert creature.n_links > creature.n_masses - 1
    assert topology(creature).degree().max() <= 4
    tree = random_creature(np.random.default_rng(3), dataclasses.replace(genome, link_density=0.0))
    assert tree.n_links == tree.n_masses - 1


@pytest.mark.parametrize("seed", range(6))
def test_a_random_creature_with_default_limits_does_not_explode_in_the_default_world(seed):
    creature = random_creature(np.random.default_rng(seed), GenomeSection(link_density=1.0))
    run = simulate(creature, World(), 3000, record_every=10)
    assert not run.exploded and np.isfinite(run.positions).all()
    assert np.hypot(*run.velocities.transpose(2, 0, 1)).max() < 50.0  # px/frame; a blow-up reaches 1e3+


# -- seeded creatures ------------------------------------------------------------------------------


def test_a_model_within_the_limits_keeps_its_structure_and_genes():
    model = load_model(GENOMES / "walker.json")
    genome = GenomeSection(omega=(0.0, 1.0), beta=(0.0, 1.0), rest=(0.0, 500.0), max_degree=5)
    seeded = seeded_creature(model, np.random.default_rng(0), genome)
    assert problems(seeded, genome) == []
    for name in ("link_a", "link_b", "rest", "alpha"):
        np.testing.assert_array_equal(getattr(seeded, name), getattr(model, name))
    np.testing.assert_allclose(seeded.positions, model.positions - model.positions.min(axis=0))
    assert (seeded.omega, seeded.beta, seeded.name) == (model.omega, model.beta, model.name)


def test_a_broken_model_is_repaired_fixed_masses_freed_and_genes_clipped():
    positions = [(0, 5), (30, 5), (60, 5), (200, 5), (230, 5)]
    links = [(0, 1, 30, 0, 7.0), (1, 0, 30, 0, 0), (1, 2, 500, 2.0, -1.0), (3, 4, 1, 0.5, 0)]
    model = build(positions, links, omega=3.0, beta=0.0, fixed=[True, False, False, False, False])
    genome = GenomeSection(masses=(3, 8))
    seeded = seeded_creature(model, np.random.default_rng(0), genome)
    assert problems(seeded, genome) == []
    assert seeded.omega == genome.omega[1] and seeded.beta == genome.beta[0]


@PROPERTY
@given(big=genome_sections(), small=genome_sections(), seed=st.integers(0, 2**32 - 1))
def test_any_creature_seeded_into_other_limits_is_valid(big, small, seed):
    rng = np.random.default_rng(seed)
    seeded = seeded_creature(random_creature(rng, big), rng, small)
    assert problems(seeded, small) == []
    assert seeded.positions[:, 1].min() == 0.0


# -- problems ----------------------------------------------------------------------------------------


def test_a_valid_creature_has_no_problems():
    assert problems(SQUARE, GenomeSection()) == []


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(link_b=[1, 2, 3, 3, 2]), "self-links"),
        (dict(link_a=[0, 1, 2, 3, 2], link_b=[1, 2, 3, 0, 1]), "duplicate"),
        (dict(link_a=[0, 0, 0, 0, 1], link_b=[1, 1, 1, 1, 0]), "not connected"),
        (dict(fixed=[True, False, False, False]), "fixed masses"),
        (dict(rest=[40, 40, 40, 40, 5]), "rest 5.0 outside"),
        (dict(alpha=[0, 1.5, 0, 0, 0]), "alpha 1.5 outside"),
        (dict(phi=[0, TWO_PI, 0, 0, 0]), "phi"),
        (dict(omega=0.5), "omega 0.5 outside"),
        (dict(beta=0.1), "beta 0.1 outside"),
        (dict(link_a=[0, 0, 0, 1, 2], link_b=[1, 2, 3, 2, 3]), "has 3 links, expected at most 2"),
    ],
)
def test_each_kind_of_problem_is_reported(change, words):
    genome = GenomeSection(max_degree=2 if "links, expected" in words else 4)
    found = problems(SQUARE.replace(**change), genome)
    assert any(words in line for line in found), found


def test_mass_and_link_counts_are_checked_against_the_limits():
    assert "4 masses, expected 5..12" in problems(SQUARE, GenomeSection(masses=(5, 12)))
    assert "5 links, expected at most 4" in problems(SQUARE, GenomeSection(masses=(2, 5), max_links=4))


def test_phases_wrap_into_zero_to_two_pi_even_for_tiny_negative_values():
    wrapped = wrap_phase(np.array([-1e-20, -0.5, TWO_PI, 7.0, 0.0]))
    assert np.all((wrapped >= 0.0) & (wrapped < TWO_PI))
    np.testing.assert_allclose(wrapped, [0.0, TWO_PI - 0.5, 0.0, 7.0 - TWO_PI, 0.0])


def test_bridges_and_cut_vertices_of_a_triangle_with_a_tail():
    bridge, cut = cut_structure(5, [0, 1, 2, 2, 3], [1, 2, 0, 3, 4])
    assert bridge.tolist() == [False, False, False, True, True]
    assert cut.tolist() == [False, False, True, True, False]


# -- distance ----------------------------------------------------------------------------------------


@PROPERTY
@given(genome=genome_sections(), seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)))
def test_distance_is_zero_to_itself_symmetric_and_between_zero_and_one(genome, seeds):
    a, b = (random_creature(np.random.default_rng(s), genome) for s in seeds)
    assert distance(a, a) == 0.0 and distance(b, b) == 0.0
    assert distance(a, b) == distance(b, a)
    assert 0.0 <= distance(a, b) <= 1.0


def reference_distance(a, b):
    """distance() as 0.1.0 wrote it (np.mean, np.array_equal): the hall of fame's decisions, and so the
    runs, depend on its exact value."""
    from evo.ga.creatures import _quantiles, _relative

    terms = [
        _relative(a.n_masses, b.n_masses),
        _relative(a.n_links, b.n_links),
        _relative(a.n_muscles, b.n_muscles),
        _relative(a.omega, b.omega),
        abs(a.beta - b.beta),
    ]
    qa, qb = _quantiles(a.rest), _quantiles(b.rest)
    scale = np.maximum(np.abs(qa), np.abs(qb))
    terms.append(float(np.mean(np.divide(np.abs(qa - qb), scale, out=np.zeros_like(scale), where=scale > 0))))
    same = (
        a.n_masses == b.n_masses and np.array_equal(a.link_a, b.link_a) and np.array_equal(a.link_b, b.link_b)
    )
    if same and a.n_links:
        both = a.is_muscle & b.is_muscle
        turn = np.abs(a.phi - b.phi) % TWO_PI
        circular = np.minimum(turn, TWO_PI - turn) / np.pi
        terms.append(float(np.mean(0.5 * np.abs(a.alpha - b.alpha) + 0.5 * np.where(both, circular, 0.0))))
    else:
        terms.append(float(np.mean(np.abs(_quantiles(a.alpha) - _quantiles(b.alpha)))))
    return float(sum(terms) / len(terms))


@PROPERTY
@given(genome=genome_sections(), seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)))
def test_distance_is_bit_for_bit_the_one_of_the_first_release(genome, seeds):
    from evo.ga.mutation import mutate

    a, b = (random_creature(np.random.default_rng(s), genome) for s in seeds)
    rng = np.random.default_rng(seeds[0])
    rates = {f"rate_{name}": float(name in ("alpha", "phi")) for name in MUTATION_NAMES}
    params = mutate(a, rng, genome, dataclasses.replace(GASection(), **rates))
    for x, y in ((a, b), (a, a), (a, params), (params, b)):  # params: the same links, other genes
        assert distance(x, y) == reference_distance(x, y)


@PROPERTY
@given(genome=genome_sections(), seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)))
def test_the_distance_floor_never_exceeds_the_distance_so_a_floor_at_the_limit_decides_exactly(genome, seeds):
    """distance_floor (the hall of fame's shortcut) is the first five terms of the reference over seven:
    never above the distance, so ``floor >= similarity`` means ``distance >= similarity`` bit for bit."""
    from evo.ga.creatures import distance_floor
    from evo.ga.mutation import mutate

    a, b = (random_creature(np.random.default_rng(s), genome) for s in seeds)
    rates = {f"rate_{name}": float(name in ("alpha", "phi")) for name in MUTATION_NAMES}
    params = mutate(a, np.random.default_rng(seeds[1]), genome, dataclasses.replace(GASection(), **rates))
    for x, y in ((a, b), (a, a), (a, params), (params, b), (b, a)):
        floor, d = distance_floor(x, y), distance(x, y)
        assert floor <= d and floor == distance_floor(y, x)
        assert distance_floor(x, y, muscles=False) <= floor
        for limit in (floor, np.nextafter(floor, 1.0), GASection().similarity):
            assert (floor >= limit) <= (d >= limit)


def test_a_small_phase_change_is_a_near_duplicate_and_a_new_body_is_not():
    genome = GenomeSection()
    a = random_creature(np.random.default_rng(1), genome)
    nudged = a.replace(phi=wrap_phase(a.phi + 0.01))
    assert 0.0 < distance(a, nudged) < GASection().similarity
    other = random_creature(np.random.default_rng(2), genome)
    assert distance(a, other) > GASection().similarity


# -- the [genome] and [ga] tables ------------------------------------------------------------------


@pytest.mark.parametrize("section", [GenomeSection, GASection])
def test_every_setting_has_a_doc_line_and_round_trips_through_toml(section):
    for f in dataclasses.fields(section):
        assert f.metadata.get("doc"), f.name
    default = section()
    assert parse_section(section, section_to_dict(default), source=None, table_name="t") == default


def test_every_mutation_has_a_rate():
    ga = GASection()
    assert all(0.0 <= ga.rate(name) <= 1.0 for name in MUTATION_NAMES)


@pytest.mark.parametrize(
    "table, message",
    [
        (
            {"masses": [6, 5]},
            "c.toml: [genome] masses: expected a [low, high] pair with low <= high, got [6, 5]",
        ),
        ({"rest": [50.0, 10.0]}, "[genome] rest: expected a [low, high] pair"),
        ({"max_links": 3}, "[genome] max_links: expected at least masses[1] - 1 = 11 links"),
        ({"masses": [1, 4]}, "[genome] masses: expected a list of 2 integers in [2, 1000], got [1, 4]"),
        ({"max_degree": 1}, "[genome] max_degree: expected an integer >= 2, got 1"),
        ({"omega_init": "fast"}, "[genome] omega_init: expected one of 'random'"),
        ({"link_densty": 0.3}, "unknown key 'link_densty' in [genome]; did you mean 'link_density'?"),
    ],
)
def test_bad_genome_tables_give_one_line_naming_the_key(table, message):
    with pytest.raises(EvoInputError) as info:
        parse_section(GenomeSection, table, source="c.toml", table_name="genome")
    assert message in str(info.value)


def test_a_typo_in_a_ga_rate_suggests_the_right_name():
    with pytest.raises(EvoInputError, match="did you mean 'rate_add_mass'"):
        parse_section(GASection, {"rate_ad_mass": 0.1}, source="c.toml", table_name="ga")


def test_max_degree_default_keeps_the_euler_step_stable_in_the_default_world():
    world = World()
    assert world.stiffness * 2 * GenomeSection().max_degree * world.dt**2 < 4.0


def test_the_shipped_walker_is_brought_within_the_default_limits():
    model = load_model(GENOMES / "walker.json")  # two masses of degree 5
    seeded = seeded_creature(model, np.random.default_rng(0), GenomeSection())
    assert problems(seeded, GenomeSection()) == []
    assert seeded.n_masses == model.n_masses and topology(seeded).degree().max() <= 4
