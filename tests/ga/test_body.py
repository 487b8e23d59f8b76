"""finish: the creature it assembles without the constructor's copies and checks is the very creature the
constructor makes of the same fields (frozen arrays, dtypes, shapes, the default-physics flag)."""

from __future__ import annotations

import dataclasses

import numpy as np
from ga_strategies import build, ga_sections, genome_sections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.ga.body import Body, finish
from evo.ga.creatures import random_creature
from evo.ga.mutation import mutate
from evo.ga.settings import GenomeSection
from evo.model import Creature

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PHYSICS = {"link_stiffness": (0.5, 2.0), "link_dashpot": (0.0, 0.3), "mass": (0.5, 3.0)}


def rebuilt(creature: Creature) -> Creature:
    """The same creature made by the constructor from its fields."""
    return Creature(**{f.name: getattr(creature, f.name) for f in dataclasses.fields(Creature)})


def assert_same_as_constructed(creature: Creature) -> None:
    reference = rebuilt(creature)
    for f in dataclasses.fields(Creature):
        mine, theirs = getattr(creature, f.name), getattr(reference, f.name)
        if isinstance(theirs, np.ndarray):
            assert isinstance(mine, np.ndarray), f.name
            assert (mine.dtype, mine.shape) == (theirs.dtype, theirs.shape), f.name
            assert not mine.flags.writeable, f.name
            np.testing.assert_array_equal(mine, theirs)
        else:
            assert type(mine) is type(theirs) and mine == theirs, f.name
    assert creature.has_default_physics == reference.has_default_physics
    assert creature.structural_errors() == []


@PROPERTY
@given(genome=genome_sections(), ga=ga_sections(), seed=st.integers(0, 2**32 - 1), physics=st.booleans())
def test_a_finished_creature_equals_the_one_the_constructor_makes_of_its_fields(genome, ga, seed, physics):
    if physics:
        genome = dataclasses.replace(genome, **PHYSICS)
        ga = dataclasses.replace(ga, rate_physics=1.0)
    rng = np.random.default_rng(seed)
    child = mutate(random_creature(rng, genome), rng, genome, ga)
    assert_same_as_constructed(child)


def test_a_finished_creature_owns_frozen_arrays_and_shares_only_read_only_defaults():
    template = build(
        [(0.0, 0.0), (10.0, 0.0), (5.0, 8.0)], [(0, 1, 10, 0, 0), (1, 2, 9, 0.5, 1), (0, 2, 9, 0, 0)]
    )
    genome = GenomeSection()
    one, two = finish(Body.of(template), template, genome), finish(Body.of(template), template, genome)
    assert_same_as_constructed(one)
    assert not np.shares_memory(one.positions, two.positions)
    assert not np.shares_memory(one.rest, template.rest)
    assert one.stiffness is two.stiffness and not one.stiffness.flags.writeable  # the shared default
    np.testing.assert_array_equal(one.stiffness, np.ones(3))


@PROPERTY
@given(genome=genome_sections(), ga=ga_sections(), seed=st.integers(0, 2**32 - 1))
def test_a_creature_assembled_later_is_the_one_assemble_makes_once_read_and_a_plain_creature_then(
    genome, ga, seed
):
    import copy
    import pickle
    import threading

    from evo.fitness.views import read_only_view
    from evo.ga.body import assemble, assemble_later

    rng = np.random.default_rng(seed)
    template = mutate(random_creature(rng, genome), rng, genome, ga)
    arrays = (
        template.positions + 1.0,
        np.stack([template.link_a, template.link_b]),
        np.stack([template.rest, template.alpha, template.phi]),
    )
    now = assemble(*(a.copy() for a in arrays), 0.1, 0.5, False, template, {"gravity": 0.25})
    later = assemble_later(*arrays, 0.1, 0.5, False, template, {"gravity": 0.25})
    assert type(later) is not Creature and isinstance(later, Creature)
    assert (later.n_masses, later.n_links, later.omega, later.has_default_physics) == (
        now.n_masses, now.n_links, now.omega, True
    )  # fmt: skip
    with np.testing.assert_raises(AttributeError):
        later.__deepcopy__  # noqa: B018 (an attribute that is no field makes nothing)
    assert "_own" in later.__dict__
    readers = [threading.Thread(target=lambda: later.alpha) for _ in range(4)]  # one makes them, once
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert type(later) is Creature and "_own" not in later.__dict__
    assert_same_as_constructed(later)
    for f in dataclasses.fields(Creature):
        mine, theirs = getattr(later, f.name), getattr(now, f.name)
        if isinstance(theirs, np.ndarray):
            np.testing.assert_array_equal(mine, theirs)
            assert not np.shares_memory(mine, arrays[0]) and not np.shares_memory(mine, arrays[2])
        else:
            assert mine == theirs, f.name
    # pickled, copied or handed to a plugin before a read, it is made first
    for fresh in (lambda: assemble_later(*arrays, 0.1, 0.5, False, template),):
        assert pickle.loads(pickle.dumps(fresh())).positions.tolist() == arrays[0].tolist()
        assert type(copy.deepcopy(fresh())) is Creature
        assert read_only_view(fresh()).rest.tolist() == arrays[2][0].tolist()
