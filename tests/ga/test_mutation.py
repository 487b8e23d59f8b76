"""Mutation operators, mutate and crossover: always valid children, inputs untouched, deterministic."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from ga_strategies import build, ga_sections, genome_sections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.errors import EvoInputError
from evo.ga.body import TWO_PI
from evo.ga.creatures import problems, random_creature
from evo.ga.crossover import cut_crossover, wave_crossover
from evo.ga.mutation import MUTATIONS, crossover, mutate
from evo.ga.settings import MUTATION_NAMES, GASection, GenomeSection
from evo.ga.topology import cut_structure
from evo.model import Creature, topology
from evo.schema import parse_section

ARRAYS = ("positions", "velocities", "fixed", "link_a", "link_b", "rest", "alpha", "phi")
SEEDS = st.integers(0, 2**32 - 1)
PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def snapshot(creature: Creature) -> dict:
    out = {name: getattr(creature, name).copy() for name in ARRAYS}
    out.update(omega=creature.omega, beta=creature.beta, world=dict(creature.world), meta=dict(creature.meta))
    return out


def assert_unchanged(creature: Creature, before: dict) -> None:
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(creature, name), before[name])
    assert (creature.omega, creature.beta) == (before["omega"], before["beta"])
    assert creature.world == before["world"] and creature.meta == before["meta"]


def assert_same(a: Creature, b: Creature) -> None:
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (a.omega, a.beta) == (b.omega, b.beta)


def assert_valid_child(child: Creature, genome: GenomeSection, world: dict) -> None:
    assert problems(child, genome) == []
    assert child.meta == {} and child.world == world
    assert child.positions[:, 1].min() == 0.0 and child.positions[:, 0].min() == 0.0
    assert not child.velocities.any()


def parent(seed: int, genome: GenomeSection) -> Creature:
    creature = random_creature(np.random.default_rng(seed), genome)
    return creature.replace(world={"gravity": 0.3}, meta={"id": seed})


# -- every operator, by property ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(MUTATIONS))
@PROPERTY
@given(genome=genome_sections(), ga=ga_sections(), seed=SEEDS)
def test_every_mutation_returns_a_valid_child_and_leaves_its_input_alone(name, genome, ga, seed):
    creature = parent(seed, genome)
    before = snapshot(creature)
    child = MUTATIONS[name](creature, np.random.default_rng(seed + 1), genome, ga)
    assert_unchanged(creature, before)
    assert_valid_child(child, genome, creature.world)
    again = MUTATIONS[name](creature, np.random.default_rng(seed + 1), genome, ga)
    assert_same(child, again)


@PROPERTY
@given(genome=genome_sections(), ga=ga_sections(), seeds=st.tuples(SEEDS, SEEDS, SEEDS))
def test_crossover_gives_two_valid_children_with_the_first_parents_world(genome, ga, seeds):
    a, b = parent(seeds[0], genome), parent(seeds[1], genome).replace(world={"gravity": 0.9})
    before = snapshot(a), snapshot(b)
    children = crossover(a, b, np.random.default_rng(seeds[2]), genome, ga)
    assert_unchanged(a, before[0])
    assert_unchanged(b, before[1])
    for child in children:
        assert_valid_child(child, genome, a.world)
    again = crossover(a, b, np.random.default_rng(seeds[2]), genome, ga)
    for first, second in zip(children, again, strict=True):
        assert_same(first, second)


STEPS = st.sampled_from([*MUTATIONS, "mutate", "crossover"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(genome=genome_sections(), ga=ga_sections(), seed=SEEDS, steps=st.lists(STEPS, min_size=1, max_size=12))
def test_chains_of_operators_stay_valid(genome, ga, seed, steps):
    rng = np.random.default_rng(seed)
    creature, partner = random_creature(rng, genome), random_creature(rng, genome)
    for step in steps:
        if step == "crossover":
            creature, partner = crossover(creature, partner, rng, genome, ga)
        elif step == "mutate":
            creature = mutate(creature, rng, genome, ga)
        else:
            creature = MUTATIONS[step](creature, rng, genome, ga)
        assert problems(creature, genome) == [], step
        assert problems(partner, genome) == [], step


def test_the_registry_holds_every_mutation_with_a_rate():
    assert tuple(MUTATIONS) == MUTATION_NAMES
    ga = GASection()
    assert all(ga.rate(name) >= 0.0 for name in MUTATIONS)


def test_operators_use_no_global_random_state():
    genome, ga = GenomeSection(), GASection()
    a, b = parent(1, genome), parent(2, genome)
    np.random.seed(5)
    random.seed(5)
    state = (np.random.get_state()[1].copy(), random.getstate())
    rng = np.random.default_rng(0)
    for operator in MUTATIONS.values():
        operator(a, rng, genome, ga)
    mutate(a, rng, genome, ga)
    crossover(a, b, rng, genome, ga)
    assert np.array_equal(np.random.get_state()[1], state[0]) and random.getstate() == state[1]


# -- structural operators change the structure when they can ---------------------------------------


def spare_masses(creature: Creature, genome: GenomeSection) -> int:
    return int(np.count_nonzero(topology(creature).degree() < genome.max_degree))


def free_pairs(creature: Creature, genome: GenomeSection) -> int:
    spare = topology(creature).degree() < genome.max_degree
    linked = {
        (min(a, b), max(a, b))
        for a, b in zip(creature.link_a.tolist(), creature.link_b.tolist(), strict=True)
    }
    n = creature.n_masses
    return sum(1 for i in range(n) for j in range(i + 1, n) if spare[i] and spare[j] and (i, j) not in linked)


@PROPERTY
@given(genome=genome_sections(), seed=SEEDS)
def test_structural_mutations_change_the_structure_whenever_the_limits_allow(genome, seed):
    ga = GASection()
    creature = parent(seed, genome)
    rng = np.random.default_rng(seed)
    n, m = creature.n_masses, creature.n_links

    grown = MUTATIONS["add_mass"](creature, rng, genome, ga)
    can_grow = n < genome.masses[1] and genome.max_links - m >= 2 and spare_masses(creature, genome) >= 2
    assert grown.n_masses == n + (1 if can_grow else 0)
    if can_grow:
        assert topology(grown).degree()[-1] >= 2  # the new mass is the last one

    shrunk = MUTATIONS["remove_mass"](creature, rng, genome, ga)
    assert shrunk.n_masses == n - (1 if n > genome.masses[0] else 0)

    linked = MUTATIONS["add_link"](creature, rng, genome, ga)
    can_link = m < genome.max_links and free_pairs(creature, genome) > 0
    assert linked.n_links == m + (1 if can_link else 0)

    unlinked = MUTATIONS["remove_link"](creature, rng, genome, ga)
    bridge, _ = cut_structure(n, creature.link_a.tolist(), creature.link_b.tolist())
    assert unlinked.n_links == m - (0 if bridge.all() else 1)

    toggled = MUTATIONS["toggle_muscle"](creature, rng, genome, ga)
    assert abs(toggled.n_muscles - creature.n_muscles) == (1 if m else 0)

    moved = MUTATIONS["move_mass"](creature, rng, genome, dataclasses.replace(ga, sigma_move=5.0))
    shape = moved.positions - moved.positions[0]
    assert not np.allclose(shape, creature.positions - creature.positions[0])


# -- single operators ------------------------------------------------------------------------------

GENOME = GenomeSection(masses=(2, 12), rest=(5.0, 150.0))
GA = GASection()
TRIANGLE_WITH_TAIL = build(
    [(0, 0), (40, 0), (20, 30), (60, 30), (90, 30)],
    [(0, 1, 40, 0.5, 1.0), (1, 2, 36, 0, 0), (2, 0, 36, 0.3, 2.0), (2, 3, 40, 0, 0), (3, 4, 30, 0.8, 6.0)],
)


@pytest.mark.parametrize("seed", range(30))
def test_remove_link_only_removes_links_of_the_triangle(seed):
    child = MUTATIONS["remove_link"](TRIANGLE_WITH_TAIL, np.random.default_rng(seed), GENOME, GA)
    pairs = set(zip(child.link_a.tolist(), child.link_b.tolist(), strict=True))
    assert child.n_links == 4 and {(2, 3), (3, 4)} <= pairs


def test_remove_link_leaves_a_tree_alone():
    tree = TRIANGLE_WITH_TAIL.replace(
        link_a=[0, 1, 2, 3], link_b=[1, 2, 3, 4], rest=[40, 36, 40, 30], alpha=[0] * 4, phi=[0] * 4
    )
    child = MUTATIONS["remove_link"](tree, np.random.default_rng(0), GENOME, GA)
    assert child.n_links == 4


@pytest.mark.parametrize("seed", range(30))
def test_remove_mass_never_removes_the_cut_vertices(seed):
    child = MUTATIONS["remove_mass"](TRIANGLE_WITH_TAIL, np.random.default_rng(seed), GENOME, GA)
    # masses 2 and 3 hold the tail: removing either would disconnect it; removing 0 or 1 leaves 3 links,
    # removing 4 leaves 4
    assert child.n_masses == 4 and problems(child, GENOME) == [] and child.n_links in (3, 4)


@pytest.mark.parametrize("seed", range(20))
def test_add_mass_links_the_new_mass_to_two_or_three_others_without_stress(seed):
    child = MUTATIONS["add_mass"](TRIANGLE_WITH_TAIL, np.random.default_rng(seed), GENOME, GA)
    new = child.n_masses - 1
    at_new = (child.link_a == new) | (child.link_b == new)
    assert child.n_masses == 6 and 2 <= at_new.sum() <= 3
    lengths = np.hypot(*(child.positions[child.link_b] - child.positions[child.link_a]).T)
    np.testing.assert_allclose(child.rest[at_new], np.clip(lengths[at_new], *GENOME.rest))


def test_phi_perturbation_wraps_into_zero_to_two_pi():
    creature = TRIANGLE_WITH_TAIL.replace(phi=[TWO_PI - 1e-3, 0, 1e-3, 0, 3.0])
    ga = dataclasses.replace(GA, sigma_phi=20.0, gene_fraction=1.0)
    for seed in range(20):
        child = MUTATIONS["phi"](creature, np.random.default_rng(seed), GENOME, ga)
        assert np.all((child.phi >= 0.0) & (child.phi < TWO_PI))
        assert not np.array_equal(child.phi[child.is_muscle], creature.phi[creature.is_muscle])
        np.testing.assert_array_equal(child.phi[~child.is_muscle], creature.phi[~creature.is_muscle])


def test_alpha_perturbation_keeps_muscles_muscles_and_springs_springs():
    ga = dataclasses.replace(GA, sigma_alpha=5.0, gene_fraction=1.0)
    child = MUTATIONS["alpha"](TRIANGLE_WITH_TAIL, np.random.default_rng(0), GENOME, ga)
    np.testing.assert_array_equal(child.is_muscle, TRIANGLE_WITH_TAIL.is_muscle)
    assert np.all(child.alpha <= 1.0)


def test_rest_perturbation_stays_in_the_range():
    ga = dataclasses.replace(GA, sigma_rest=3.0, gene_fraction=1.0)
    child = MUTATIONS["rest"](TRIANGLE_WITH_TAIL, np.random.default_rng(0), GENOME, ga)
    assert np.all((child.rest >= GENOME.rest[0]) & (child.rest <= GENOME.rest[1]))
    assert not np.array_equal(child.rest, TRIANGLE_WITH_TAIL.rest)


def test_omega_and_beta_perturbations_stay_in_their_ranges():
    ga = dataclasses.replace(GA, sigma_omega=5.0, sigma_beta=5.0)
    for seed in range(10):
        rng = np.random.default_rng(seed)
        omega = MUTATIONS["omega"](TRIANGLE_WITH_TAIL, rng, GENOME, ga).omega
        beta = MUTATIONS["beta"](TRIANGLE_WITH_TAIL, rng, GENOME, ga).beta
        assert GENOME.omega[0] <= omega <= GENOME.omega[1] and GENOME.beta[0] <= beta <= GENOME.beta[1]


def test_toggle_muscle_turns_a_spring_into_a_muscle_and_back():
    spring = TRIANGLE_WITH_TAIL.replace(alpha=[0.0] * 5)
    muscle = MUTATIONS["toggle_muscle"](spring, np.random.default_rng(0), GENOME, GA)
    assert muscle.n_muscles == 1
    k = int(np.flatnonzero(muscle.is_muscle)[0])
    assert 0.0 < muscle.alpha[k] <= 1.0 and 0.0 <= muscle.phi[k] < TWO_PI
    back = muscle
    while back.n_muscles:  # the same seed picks the same link
        back = MUTATIONS["toggle_muscle"](back, np.random.default_rng(0), GENOME, GA)
    assert back.n_muscles == 0


def test_mutate_with_one_rate_applies_only_that_operator():
    rates = {f"rate_{name}": 0.0 for name in MUTATION_NAMES}
    ga = dataclasses.replace(GA, **{**rates, "rate_add_link": 1.0})
    child = mutate(TRIANGLE_WITH_TAIL, np.random.default_rng(0), GENOME, ga)
    assert child.n_links == TRIANGLE_WITH_TAIL.n_links + 1 and child.n_masses == 5
    np.testing.assert_array_equal(child.rest[:5], TRIANGLE_WITH_TAIL.rest)


def test_mutate_always_changes_something_when_a_rate_is_positive():
    rates = {f"rate_{name}": 0.0 for name in MUTATION_NAMES}
    ga = dataclasses.replace(GA, **{**rates, "rate_toggle_muscle": 1e-9})
    child = mutate(TRIANGLE_WITH_TAIL, np.random.default_rng(0), GENOME, ga)
    assert child.n_muscles != TRIANGLE_WITH_TAIL.n_muscles
    still = mutate(TRIANGLE_WITH_TAIL, np.random.default_rng(0), GENOME, dataclasses.replace(ga, **rates))
    assert_same(still, TRIANGLE_WITH_TAIL)


# -- crossover --------------------------------------------------------------------------------------


def ladder(rest: float, rungs: int, omega: float, beta: float) -> Creature:
    """A braced ladder lying on the floor: 2 * rungs masses, every link of rest length ``rest``."""
    positions = [(rest * i, rest * j) for i in range(rungs) for j in (0, 1)]
    links = [(2 * i, 2 * i + 1, rest, 0.5, 1.0) for i in range(rungs)]
    links += [(2 * i + j, 2 * i + 2 + j, rest, 0.0, 0.0) for i in range(rungs - 1) for j in (0, 1)]
    return build(positions, links, omega=omega, beta=beta)


@pytest.mark.parametrize("seed", range(10))
def test_cut_crossover_joins_the_left_of_one_parent_to_the_right_of_the_other(seed):
    genome = GenomeSection(masses=(2, 20), max_links=60)
    a, b = ladder(20.0, 5, 0.05, 0.3), ladder(40.0, 5, 0.15, 0.9)
    first, second = cut_crossover(a, b, np.random.default_rng(seed), genome)
    for child, left in ((first, a), (second, b)):
        assert problems(child, genome) == []
        inherited = set(np.round(child.rest, 6).tolist())
        assert {20.0, 40.0} <= inherited  # links from both parents
        assert (child.omega, child.beta) == (left.omega, left.beta)
    assert first.n_masses + second.n_masses == a.n_masses + b.n_masses


def test_wave_crossover_blends_omega_and_beta_between_the_parents():
    genome = GenomeSection()
    a, b = ladder(20.0, 3, 0.05, 0.3), ladder(40.0, 3, 0.15, 0.9)
    first, second = wave_crossover(a, b, np.random.default_rng(0), genome)
    for child in (first, second):
        assert 0.05 <= child.omega <= 0.15 and 0.3 <= child.beta <= 0.9
    assert first.omega + second.omega == pytest.approx(0.2) and first.beta + second.beta == pytest.approx(1.2)
    np.testing.assert_array_equal(first.rest, a.rest)


def test_crossover_without_cut_or_wave_returns_copies():
    ga = dataclasses.replace(GA, rate_cut_crossover=0.0, rate_wave_crossover=0.0)
    a, b = ladder(20.0, 3, 0.05, 0.3), ladder(40.0, 3, 0.15, 0.9)
    first, second = crossover(a, b, np.random.default_rng(0), GenomeSection(), ga)
    assert_same(first, a)
    assert_same(second, b)


@pytest.mark.parametrize("seed", range(5))
def test_optional_link_and_mass_values_follow_their_links_and_masses(seed):
    creature = TRIANGLE_WITH_TAIL.replace(
        stiffness=[0.5, 0.6, 0.7, 0.8, 0.9], dashpot=[0.1, 0.2, 0.3, 0.4, 0.5], mass=[2.0, 3.0, 4.0, 5.0, 6.0]
    )
    by_pair = {
        (min(a, b), max(a, b)): (s, d)
        for a, b, s, d in zip(
            creature.link_a.tolist(),
            creature.link_b.tolist(),
            creature.stiffness.tolist(),
            creature.dashpot.tolist(),
            strict=True,
        )
    }
    ga = dataclasses.replace(GA, rate_cut_crossover=1.0)
    genome = WIDE_PHYSICS
    rng = np.random.default_rng(seed)
    same_numbering = [
        op(creature, rng, genome, ga)
        for name, op in MUTATIONS.items()
        if name not in ("remove_mass", "physics")
    ]
    renumbered = [
        MUTATIONS["remove_mass"](creature, rng, genome, ga),
        *crossover(creature, creature, rng, genome, ga),
    ]
    for child in same_numbering + renumbered:
        assert problems(child, genome) == []
        for a, b, s, d in zip(child.link_a, child.link_b, child.stiffness, child.dashpot, strict=True):
            if (
                child in same_numbering
            ):  # a link between the same masses keeps its values; new ones the defaults
                assert (s, d) == by_pair.get((min(a, b), max(a, b)), (1.0, 0.0))
            else:
                assert (s, d) in {*by_pair.values(), (1.0, 0.0)}
        assert set(child.mass.tolist()) <= {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}
    for name in ("rest", "alpha", "phi", "omega", "beta", "toggle_muscle", "add_link", "remove_link"):
        child = MUTATIONS[name](creature, np.random.default_rng(seed), genome, GA)
        np.testing.assert_array_equal(child.mass, creature.mass)
    grown = MUTATIONS["add_mass"](creature, np.random.default_rng(seed), genome, GA)
    np.testing.assert_array_equal(grown.mass, [2.0, 3.0, 4.0, 5.0, 6.0, 1.0])


WIDE_PHYSICS = dataclasses.replace(
    GENOME, link_stiffness=(0.25, 4.0), link_dashpot=(0.0, 1.0), mass=(0.5, 8.0)
)


def test_the_physics_mutation_varies_stiffness_dashpot_and_mass_within_their_genome_ranges():
    creature = TRIANGLE_WITH_TAIL
    changed = set()
    for seed in range(40):
        child = MUTATIONS["physics"](creature, np.random.default_rng(seed), WIDE_PHYSICS, GA)
        assert problems(child, WIDE_PHYSICS) == []
        for name, (low, high) in (
            ("stiffness", WIDE_PHYSICS.link_stiffness),
            ("dashpot", WIDE_PHYSICS.link_dashpot),
            ("mass", WIDE_PHYSICS.mass),
        ):
            values = getattr(child, name)
            assert ((values >= low) & (values <= high)).all()
            if not np.array_equal(values, getattr(creature, name)):
                changed.add(name)
        np.testing.assert_array_equal(child.rest, creature.rest)
    assert changed == {"stiffness", "dashpot", "mass"}


def test_the_physics_mutation_is_a_no_op_while_the_genome_ranges_are_points():
    child = MUTATIONS["physics"](TRIANGLE_WITH_TAIL, np.random.default_rng(0), GENOME, GA)
    assert child.has_default_physics


def test_mutate_leaves_physics_alone_at_its_default_rate_of_zero():
    assert GA.rate_physics == 0.0
    rng = np.random.default_rng(3)
    for _ in range(50):
        assert mutate(TRIANGLE_WITH_TAIL, rng, WIDE_PHYSICS, GA).has_default_physics


@pytest.mark.parametrize(
    "key, value", [("link_stiffness", (2.0, 3.0)), ("link_dashpot", (0.1, 0.2)), ("mass", (0.1, 0.5))]
)
def test_a_physics_range_must_contain_the_value_new_links_and_masses_get(key, value):
    with pytest.raises(EvoInputError, match=key):
        parse_section(GenomeSection, {key: list(value)}, source="c.toml", table_name="genome")


@pytest.mark.parametrize("physics", [0.0, 0.3])
def test_the_operator_drawn_when_none_fires_is_the_one_rng_choice_would_draw_from_the_same_draws(physics):
    from evo.ga.mutation import MutationPlan

    ga = GASection(rate_physics=physics)
    plan = MutationPlan.of(ga)
    rates, cumulative = plan.rates, plan.cumulative
    for seed in range(3000):
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        picked = int(cumulative.searchsorted(ours.random(), side="right"))
        assert picked == numpys.choice(rates.size, p=rates / rates.sum())
        assert ours.bit_generator.state == numpys.bit_generator.state
