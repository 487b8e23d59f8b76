"""A pair brood bred in one compiled call (evo.ga.kernels.brood) gives the children of the Python
operators bit for bit and draw for draw: the same genes, links, waves, names, worlds and polygons, for
random and evolved parents, mated or not, every combination of mutation flags, and any [genome] and [ga]
settings; where it does not apply it steps aside and breed() uses the Python operators."""

import dataclasses
import threading

import numpy as np
import pytest
from ga_strategies import ga_sections, genome_sections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.ga.brood import PAIR, BreedSettings, Brood, _python_children, breed
from evo.ga.creatures import random_creature
from evo.ga.kernels import brood as brood_kernels
from evo.ga.mutation import mutate
from evo.ga.settings import MUTATION_NAMES, GASection, GenomeSection

ARRAYS = (
    "positions",
    "velocities",
    "fixed",
    "link_a",
    "link_b",
    "rest",
    "alpha",
    "phi",
    "stiffness",
    "dashpot",
    "mass",
)
SCALARS = ("omega", "beta", "wave_phase", "wave_reverse", "autoreverse", "name", "world", "meta", "polys")
FLAGS = [(True, True), (True, False), (False, True), (False, False)]


def assert_same_creature(x, y):
    """Every field equal, arrays byte for byte (signed zeros and NaN payloads included)."""
    assert (x is None) == (y is None)
    if x is None:
        return
    for name in ARRAYS:
        u, v = np.asarray(getattr(x, name)), np.asarray(getattr(y, name))
        assert u.dtype == v.dtype and u.shape == v.shape, name
        assert u.tobytes() == v.tobytes(), name
        assert not u.flags.writeable, name
    for name in SCALARS:
        u, v = getattr(x, name), getattr(y, name)
        assert type(u) is type(v) and (u == v or (u != u and v != v)), name
    assert getattr(x, "has_default_physics", False) == getattr(y, "has_default_physics", False)


def evolved(genome, ga, seed, rounds=4):
    """A creature that has been mutated ``rounds`` times, so its links no longer grow a spanning tree."""
    rng = np.random.default_rng(seed)
    creature = random_creature(rng, genome)
    for _ in range(rounds):
        creature = mutate(creature, rng, genome, ga)
    return creature


def compiled(brood, genome, ga):
    """The compiled brood's children of ``brood`` (None where it steps aside), or the AssertionError of
    settings it cannot make at all."""
    ops = BreedSettings.of(genome, ga).compiled
    assert ops is not None
    return brood_kernels.compiled_children(brood.seed, brood.parents, brood.mate, brood.mutate, ops)


def python(brood, genome, ga):
    return _python_children(brood, BreedSettings.of(genome, ga))


def compare(brood, genome, ga):
    """The compiled children against the Python ones; returns whether the compiled path made them."""
    compiled_ones = compiled(brood, genome, ga)
    python_ones = python(brood, genome, ga)
    if compiled_ones is None:
        return False
    assert len(compiled_ones) == len(python_ones)
    for x, y in zip(compiled_ones, python_ones, strict=True):
        assert_same_creature(x, y)
    return True


GENOMES = {
    "default": GenomeSection(),
    "large": GenomeSection(masses=(2, 30), max_links=60),
    "tight": GenomeSection(masses=(4, 8), max_links=9, max_degree=3),
    "degree 2": GenomeSection(masses=(3, 10), max_degree=2, max_links=12),
}
EVERY_MUTATION = GASection(**{f"rate_{name}": 1.0 for name in MUTATION_NAMES if name != "physics"})
GAS = {
    "default": GASection(),
    "every mutation": EVERY_MUTATION,
    "mating always": GASection(rate_cut_crossover=1.0, rate_wave_crossover=1.0),
    "nothing fires": GASection(**{f"rate_{n}": 0.0 for n in ("rest", "alpha", "phi", "omega", "beta")}),
}


@pytest.mark.parametrize("genome_name", list(GENOMES))
@pytest.mark.parametrize("ga_name", list(GAS))
def test_pair_broods_give_the_python_operators_children_bit_for_bit(genome_name, ga_name):
    genome, ga = GENOMES[genome_name], GAS[ga_name]
    made = 0
    for s in range(60):
        a, b = evolved(genome, ga, 2 * s, rounds=s % 5), evolved(genome, ga, 2 * s + 1, rounds=(s + 2) % 5)
        for mate in (False, True):
            for flags in FLAGS:
                made += compare(Brood(PAIR, 1000 * s + 7, (a, b), mate, flags, (1, 1)), genome, ga)
        made += compare(Brood(PAIR, 1000 * s + 9, (a,), False, (True,), (1,)), genome, ga)
    assert made >= 0.9 * 60 * 9  # the compiled path made (nearly) every brood


def test_the_children_are_fresh_read_only_creatures_and_the_parents_are_untouched():
    genome, ga = GenomeSection(), EVERY_MUTATION
    a, b = evolved(genome, ga, 1), evolved(genome, ga, 2)
    before = [np.array(getattr(p, name)).tobytes() for p in (a, b) for name in ARRAYS]
    children = compiled(Brood(PAIR, 5, (a, b), True, (True, True), (1, 1)), genome, ga)
    assert [np.array(getattr(p, name)).tobytes() for p in (a, b) for name in ARRAYS] == before
    for child in children:
        assert child is not a and child is not b
        assert not np.shares_memory(child.positions, a.positions)
        assert not child.rest.flags.writeable


def test_breed_uses_the_compiled_path_only_where_it_applies():
    genome = GenomeSection(link_stiffness=(0.5, 2.0))
    a, b = evolved(genome, GASection(), 1), evolved(genome, GASection(), 2)
    brood = Brood(PAIR, 3, (a, b), True, (True, True), (1, 1))
    assert compiled(brood, genome, GASection()) is not None
    # the physics mutation is not compiled: breed makes the brood in Python
    physics = GASection(rate_physics=0.5)
    assert BreedSettings.of(genome, physics).compiled is None
    for x, y in zip(breed(brood, genome, physics), python(brood, genome, physics), strict=True):
        assert_same_creature(x, y)
    # seeds numpy takes but the compiled generator does not
    assert compiled(dataclasses.replace(brood, seed=1 << 63), genome, GASection()) is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    genome=genome_sections(),
    ga=ga_sections(),
    seed=st.integers(0, 2**63 - 1),
    mate=st.booleans(),
    flags=st.sampled_from(FLAGS),
    rounds=st.integers(0, 4),
)
def test_any_settings_give_the_python_operators_children(genome, ga, seed, mate, flags, rounds):
    ga = dataclasses.replace(ga, rate_physics=0.0)
    a, b = evolved(genome, ga, seed % 9973, rounds), evolved(genome, ga, seed % 7919 + 1, rounds)
    brood = Brood(PAIR, seed, (a, b), mate, flags, (1, 1))
    compare(brood, genome, ga)
    for x, y in zip(breed(brood, genome, ga), python(brood, genome, ga), strict=True):
        assert_same_creature(x, y)


def test_parents_the_compiled_operators_cannot_read_go_to_the_python_ones():
    genome = GenomeSection()
    a, b = evolved(genome, GASection(), 1), evolved(genome, GASection(), 2)
    bad = object.__new__(type(a))
    bad.__dict__.update(a.__dict__)
    links = a.link_b.copy()
    links[0] = a.n_masses + 5  # a link to a mass that is not there
    links.setflags(write=False)
    bad.__dict__["link_b"] = links
    brood = Brood(PAIR, 3, (bad, b), False, (True, False), (1, None))
    assert compiled(brood, genome, GASection()) is None  # it reads no such link
    for x, y in zip(breed(brood, genome, GASection()), python(brood, genome, GASection()), strict=True):
        assert_same_creature(x, y)


def test_a_non_default_variation_has_no_compiled_record_and_the_default_one_has_named_fields():
    from evo.ga.variation import DEFAULT_VARIATION, Variation

    custom = Variation(mutate=lambda *a: mutate(*a), crossover=DEFAULT_VARIATION.crossover)
    assert BreedSettings.of(GenomeSection(), GASection(), custom).compiled is None
    ops = BreedSettings.of(GenomeSection(), GASection()).compiled
    assert ops.rate_cut == GASection().rate_cut_crossover and ops.rate_wave == GASection().rate_wave_crossover
    assert ops.limits[0] == GenomeSection().rest[0] and ops.sigmas[0] == GASection().gene_fraction


def test_the_mutation_kernel_codes_are_named_after_the_mutations_whatever_their_order():
    from evo.ga.kernels.mutation import MUTATION_CODES, MutationCode

    for name, code in MUTATION_CODES.items():
        assert code is MutationCode[name.upper()] and code.name.lower() == name
        assert MUTATION_NAMES[code] == name
    ga = GASection(rate_rest=0.0, rate_beta=0.5)
    ops = BreedSettings.of(GenomeSection(), ga).compiled
    on = [name for name in MUTATION_NAMES if ga.rate(name) > 0.0]
    assert "rest" not in on and "beta" in on
    assert [MutationCode(code).name.lower() for code in ops.codes] == on


def mixed_broods(genome, ga, count=40):
    """Pair broods of every kind the compiled call meets: mated or not, one or two parents, parents shared
    between broods, and broods it must leave to the Python operators (a seed numpy takes but the compiled
    generator does not, a parent of other physics, a link to a mass that is not there)."""
    rng = np.random.default_rng(11)
    parents = [evolved(genome, ga, s, rounds=s % 5) for s in range(12)]
    other = evolved(GenomeSection(link_stiffness=(0.5, 2.0)), GASection(rate_physics=1.0), 99)
    broken = object.__new__(type(parents[0]))
    broken.__dict__.update(parents[0].__dict__)
    links = parents[0].link_b.copy()
    links[0] = parents[0].n_masses + 5
    links.setflags(write=False)
    broken.__dict__["link_b"] = links
    broods = []
    for s in range(count):
        a, b = (parents[i] for i in rng.choice(len(parents), 2, replace=False))
        mate, flags = bool(s % 3), FLAGS[s % 4]
        broods.append(Brood(PAIR, 1000 * s + 3, (a, b), mate, flags, (1, 1)))
        if s % 5 == 0:
            broods.append(Brood(PAIR, 1000 * s + 5, (a,), False, (True,), (1,)))
    broods.insert(3, Brood(PAIR, 1 << 63, broods[0].parents, True, (True, True), (1, 1)))
    broods.insert(7, Brood(PAIR, 17, (other, broods[0].parents[0]), True, (True, True), (1, 1)))
    broods.insert(9, Brood(PAIR, 19, (broken, broods[0].parents[1]), False, (True, False), (1, None)))
    return broods


@pytest.mark.parametrize("ga_name", ["default", "every mutation", "mating always"])
def test_a_chunk_of_broods_bred_in_one_call_gives_each_brood_the_python_operators_children(ga_name):
    genome, ga = GenomeSection(), GAS[ga_name]
    ops = BreedSettings.of(genome, ga).compiled
    broods = mixed_broods(genome, ga)
    made = brood_kernels.compiled_broods(broods, ops)
    assert len(made) == len(broods)
    assert made[3] is None and made[7] is None and made[9] is None  # left to the Python operators
    bred = 0
    for brood, children in zip(broods, made, strict=True):
        if children is None:
            continue
        bred += 1
        expected = python(brood, genome, ga)
        assert len(children) == len(expected)
        for x, y in zip(children, expected, strict=True):
            assert_same_creature(x, y)
    assert bred >= 0.9 * (len(broods) - 3)
    # each child owns its arrays: none keeps the chunk's (or a sibling's) alive
    kids = [kid for children in made if children for kid in children if kid is not None]
    for name in ("positions", "link_a", "rest", "phi"):
        assert not any(np.shares_memory(getattr(kids[0], name), getattr(kid, name)) for kid in kids[1:])
    assert all(kid.positions.flags.owndata for kid in kids)
    # a brood's children depend on the brood alone: not on its place in the chunk nor on its neighbours
    order = np.random.default_rng(5).permutation(len(broods))
    shuffled = brood_kernels.compiled_broods([broods[i] for i in order], ops)
    for i, children in zip(order, shuffled, strict=True):
        assert (children is None) == (made[i] is None)
        for x, y in zip(children or (), made[i] or (), strict=True):
            assert_same_creature(x, y)
    alone = [brood_kernels.compiled_broods([brood], ops)[0] for brood in broods[:12]]
    for children, together in zip(alone, made, strict=False):
        for x, y in zip(children or (), together or (), strict=True):
            assert_same_creature(x, y)


def test_breed_many_gives_what_breed_gives_and_none_where_breed_raises():
    from evo.ga.brood import RANDOM, SEEDED, breed_many
    from evo.sim import World

    genome, ga = GenomeSection(), GASection()
    broods = mixed_broods(genome, ga, count=12)
    model = broods[0].parents[0]
    broods.append(Brood(RANDOM, 41, (), False, (False,), (1,)))
    broods.append(Brood(SEEDED, 43, (model,), False, (True,), (1,)))
    broods.append(Brood("no such kind", 47, (model,), False, (True,), (1,)))
    hills = World(ground={"type": "hills", "amplitude": 12.0, "wavelength": 150.0})
    for world in (None, hills):
        made = breed_many(broods, genome, ga, world=world)
        assert made[-1] is None
        with pytest.raises(ValueError, match="unknown kind"):
            breed(broods[-1], genome, ga, world=world)
        for brood, children in zip(broods[:-1], made[:-1], strict=True):
            expected = breed(brood, genome, ga, world=world)
            assert children is not None and len(children) == len(expected)
            for x, y in zip(children, expected, strict=True):
                assert_same_creature(x, y)


def test_the_chunk_s_children_come_laid_end_to_end_row_by_row_as_they_stand(monkeypatch):
    """``compiled_broods(..., laid)`` hands on the children it made laid end to end, a row each, in the
    order it made them, before it makes their creatures; ``breed_many`` passes that on (rows by brood;
    none for a brood bred in Python), to a list or a function, where the children stand as made, and lays
    nothing out where the world's ground may lift them."""
    from evo.ga.brood import RANDOM, breed_many
    from evo.sim import World
    from evo.sim.laid import Laid

    genome, ga = GenomeSection(), GASection()
    ops = BreedSettings.of(genome, ga).compiled
    broods = mixed_broods(genome, ga)
    assembled: list = []
    real_assemble = brood_kernels.assemble
    monkeypatch.setattr(brood_kernels, "assemble", lambda *a: assembled.append(1) or real_assemble(*a))
    laid: list = []
    made = brood_kernels.compiled_broods(broods, ops, lambda *handed: laid.append((*handed, len(assembled))))
    ((record, rows, creatures_made_before),) = laid
    assert creatures_made_before == 0 < len(assembled)
    appended: list = []  # a list gets the two appended
    brood_kernels.compiled_broods(broods, ops, appended)
    assert [rows_appended for _, rows_appended in appended] == [rows]
    kids = [kid for children in made if children for kid in children if kid is not None]
    order = [row for at in rows if at for row in at if row is not None]
    assert order == list(range(len(kids))) == list(range(record.masses.size))
    for children, at in zip(made, rows, strict=True):
        assert (children is None) == (at is None)
        for kid, row in zip(children or (), at or (), strict=True):
            assert (kid is None) == (row is None)
    expected = Laid.of(kids)
    for name, array in expected._asdict().items():
        assert getattr(record, name).dtype == array.dtype, name
        assert np.array_equal(getattr(record, name), array), name
    broods.insert(0, Brood(RANDOM, 41, (), False, (False,), (1,)))  # bred in Python: no rows
    found: list = []
    again = breed_many(broods, genome, ga, world=World(), laid=found)
    ((record, rows),) = found
    assert rows[0] is None and rows[4] is None and again[0] is not None and again[4] is not None
    assert [row for at in rows if at for row in at if row is not None] == list(range(len(kids)))
    handed: list = []
    breed_many(broods, genome, ga, world=World(), laid=lambda *args: handed.append(args))
    ((record_handed, rows_handed),) = handed
    assert rows_handed == rows and np.array_equal(record_handed.positions, record.positions)
    hills = World(ground={"type": "hills", "amplitude": 12.0, "wavelength": 150.0})
    nothing: list = []
    breed_many(broods, genome, ga, world=hills, laid=nothing)
    assert nothing == []


@pytest.mark.parametrize("count", [2, 3])
def test_a_chunk_bred_in_parts_on_threads_gives_the_same_children_and_rows(monkeypatch, count):
    """With lane threads, ``compiled_broods`` breeds the chunk in ``count`` parts at once, one of them
    on the calling thread: the same children, array for array, and the same record laid end to end."""
    from evo.sim.batch import LaneThreads

    genome, ga = GenomeSection(), GASection()
    ops = BreedSettings.of(genome, ga).compiled
    broods = mixed_broods(genome, ga)
    calls: list = []
    real_pairs = brood_kernels._pairs

    def counted(seeds, *args):
        calls.append((seeds.size, threading.current_thread().name))
        return real_pairs(seeds, *args)

    monkeypatch.setattr(brood_kernels, "_pairs", counted)
    alone: list = []
    made = brood_kernels.compiled_broods(broods, ops, alone)
    ((picked, _),) = calls
    calls.clear()
    split: list = []
    with LaneThreads(count) as threads:
        parted = brood_kernels.compiled_broods(broods, ops, split, threads)
    assert len(calls) == count and sum(size for size, _ in calls) == picked
    names = sorted(name for _, name in calls)
    assert names.count(threading.current_thread().name) == 1
    assert sum(name.startswith("evo-lanes") for name in names) == count - 1
    assert max(size for size, _ in calls) < len(broods) * 0.7  # parts of similar cost
    for children, expected in zip(parted, made, strict=True):
        assert (children is None) == (expected is None)
        for x, y in zip(children or (), expected or (), strict=True):
            assert (x is None) == (y is None)
            if x is not None:
                assert_same_creature(x, y)
    ((record, rows),), ((expected_record, expected_rows),) = split, alone
    assert rows == expected_rows
    for name, array in expected_record._asdict().items():
        assert getattr(record, name).dtype == array.dtype, name
        assert np.array_equal(getattr(record, name), array), name
    calls.clear()
    with LaneThreads(2) as threads:  # a small chunk: one call
        few = brood_kernels.compiled_broods(broods[: brood_kernels.SPLIT_FROM - 1], ops, None, threads)
    assert len(calls) == 1 and len(few) == brood_kernels.SPLIT_FROM - 1
