"""Breeding on the run's ground: every child the GA makes -- random, seeded, crossed over, mutated --
starts with no mass below the surface, and flat ground keeps today's positions (issue 13, part 4); and
the default operators' path for a mated pair gives the children of the general one."""

import dataclasses

import numpy as np
import pytest
from ga_strategies import ga_sections, genome_sections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.fitness import Evaluation
from evo.ga.brood import PAIR, SEEDED, Brood, breed
from evo.ga.creatures import problems, random_creature
from evo.ga.loop import Evolution, LoopSettings
from evo.ga.mutation import mutate
from evo.ga.search import ChildResult
from evo.io.checkpoint.document import model_json
from evo.model import Creature
from evo.sim import World
from evo.sim.placement import surface_heights

SETTINGS = LoopSettings(population=16, seed=3, objectives=("width",), weights=(1.0,))
HILLS = {"type": "hills", "amplitude": 12.0, "wavelength": 150.0}
WORLDS = {
    "soda hills": World(ground=HILLS),
    "penalty hills": World(ground=HILLS, contact="penalty"),
    "steps": World(ground={"type": "steps", "height": 15.0, "width": 40.0}),
    "terrain": World(terrain=[[[-10.0, 0.0], [60.0, 25.0], [200.0, 0.0]]]),
}


def generations(world, count=3):
    """The children of ``count`` generations bred on ``world``, by generation; fitness is the width."""
    evolution = Evolution(SETTINGS)
    out = []
    for _ in range(count):
        kids = [breed(brood, SETTINGS.genome, SETTINGS.ga, world=world) for brood in evolution.ask().broods]
        out.append([kid for group in kids for kid in group if kid is not None])
        evolution.tell(
            [
                ChildResult() if kid is None else ChildResult(kid, width(kid))
                for group in kids
                for kid in group
            ]
        )
    return out


def width(creature):
    return Evaluation((float(np.ptp(creature.positions[:, 0])),), False)


def clearance(creature, world):
    """(n_masses,) height of each mass above the surface under it, px."""
    return creature.positions[:, 1] - surface_heights(world, creature.positions[:, 0])


@pytest.mark.parametrize("name", WORLDS)
def test_every_child_of_every_generation_starts_on_the_surface_and_none_below_it(name):
    world = WORLDS[name]
    lifted = 0
    for children in generations(world):
        assert children
        for child in children:
            gap = clearance(child, world)
            assert gap.min() >= -1e-9  # no mass below the surface
            assert gap.min() <= 1e-6  # and the body touches it: lifted no higher than needed
            lifted += child.positions[:, 1].min() > 1e-6
    assert lifted > 0  # some children did start under a rise and were lifted


def test_a_seeded_model_under_a_crest_is_lifted_onto_the_crest():
    # a flat-bottomed body 112.5 px wide, placed from x = 0: its third foot stands on the crest, x = 75
    points = [[0.0, 0.0], [37.5, 0.0], [75.0, 0.0], [112.5, 0.0], [56.25, 30.0]]
    links = [(0, 1), (1, 2), (2, 3), (0, 4), (1, 4), (2, 4), (3, 4)]
    model = Creature(
        positions=points, velocities=np.zeros((5, 2)), fixed=[False] * 5,
        link_a=[a for a, _ in links], link_b=[b for _, b in links],
        rest=[37.5] * 7, alpha=[0.0] * 7, phi=[0.0] * 7, omega=0.1, beta=0.5,
    )  # fmt: skip
    brood = Brood(kind=SEEDED, seed=7, parents=(model,), plugin_seeds=(1,))
    (flat,) = breed(brood, SETTINGS.genome, SETTINGS.ga, world=World())
    (hills,) = breed(brood, SETTINGS.genome, SETTINGS.ga, world=World(ground=HILLS))
    np.testing.assert_array_equal(flat.positions, model.positions)  # within the limits: only placed
    np.testing.assert_allclose(hills.positions - flat.positions, [[0.0, 24.0]] * 5, rtol=0, atol=1e-6)
    assert clearance(hills, World(ground=HILLS)).min() == pytest.approx(0.0, abs=1e-6)


def test_on_flat_ground_the_children_are_exactly_those_bred_without_a_world():
    evolution = Evolution(SETTINGS)
    broods = evolution.ask().broods
    for brood in broods[:6]:
        plain = breed(brood, SETTINGS.genome, SETTINGS.ga)
        flat = breed(brood, SETTINGS.genome, SETTINGS.ga, world=World(max_speed=50.0))
        assert [model_json(c) for c in plain] == [model_json(c) for c in flat]
    parents = tuple(kid for brood in broods[:2] for kid in breed(brood, SETTINGS.genome, SETTINGS.ga))
    pair = Brood(kind=PAIR, seed=11, parents=parents, mate=True, mutate=(True, True), plugin_seeds=(1, 2))
    plain = breed(pair, SETTINGS.genome, SETTINGS.ga)
    flat = breed(pair, SETTINGS.genome, SETTINGS.ga, world=World())
    assert [model_json(c) for c in plain] == [model_json(c) for c in flat]


class _Wrapped:
    """The default operators behind other callables, so that breed takes its general path."""

    @staticmethod
    def variation():
        from evo.ga.brood import Variation
        from evo.ga.mutation import crossover, mutate

        return Variation(mutate=lambda *a: mutate(*a), crossover=lambda *a: crossover(*a))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    genome=genome_sections(),
    ga=ga_sections(),
    seed=st.integers(0, 2**32 - 1),
    mutated=st.tuples(st.booleans(), st.booleans()),
    physics=st.booleans(),
)
def test_a_mated_pair_bred_on_bodies_gives_the_children_of_crossover_then_mutate(
    genome, ga, seed, mutated, physics
):
    # the default operators breed a mated pair without making the crossover's children into creatures
    # first; the children, and the files they make, are those of the general path, draw for draw
    if physics:
        genome = dataclasses.replace(
            genome, link_stiffness=(0.5, 2.0), link_dashpot=(0.0, 0.3), mass=(0.5, 3.0)
        )
        ga = dataclasses.replace(ga, rate_physics=1.0)
    rng = np.random.default_rng(seed)
    parents = (random_creature(rng, genome), random_creature(rng, genome))
    if physics:
        parents = tuple(mutate(p, rng, genome, ga) for p in parents)
    brood = Brood(kind=PAIR, seed=seed, parents=parents, mate=True, mutate=mutated, plugin_seeds=(1, 2))
    fast = breed(brood, genome, ga)
    general = breed(brood, genome, ga, _Wrapped.variation())
    assert [model_json(c) for c in fast] == [model_json(c) for c in general]
    for mine, theirs in zip(fast, general, strict=True):
        for f in dataclasses.fields(Creature):
            a, b = getattr(mine, f.name), getattr(theirs, f.name)
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b, f.name
        assert problems(mine, genome) == []
