"""Standing a body on the ground (evo.sim.placement): the surface heights against each ground's formula,
and the lift that leaves no mass below them (issue 13, part 4)."""

import math

import numpy as np
import pytest

from evo.model import Creature
from evo.sim import World, simulate
from evo.sim.ground import HILL_SEGMENTS_PER_WAVELENGTH
from evo.sim.placement import CLEARANCE, ground_lift, is_level, stand_on_ground, surface_heights

HILLS = {"type": "hills", "amplitude": 10.0, "wavelength": 200.0}
X = np.array([-40.0, 0.0, 12.5, 25.0, 33.0, 50.0, 100.0, 150.0, 199.0])


def body(points):
    """A chain of springs through ``points`` (px), at rest."""
    n = len(points)
    return Creature(
        positions=points, velocities=np.zeros((n, 2)), fixed=[False] * n,
        link_a=list(range(n - 1)), link_b=list(range(1, n)),
        rest=[10.0] * (n - 1), alpha=[0.0] * (n - 1), phi=[0.0] * (n - 1),
    )  # fmt: skip


def test_under_penalty_contact_the_surface_is_the_grounds_own_curve():
    hills = surface_heights(World(ground=HILLS, contact="penalty"), X)
    np.testing.assert_allclose(hills, 10.0 * (1.0 - np.cos(2.0 * math.pi * X / 200.0)), rtol=0, atol=1e-12)
    slope = surface_heights(World(ground={"type": "slope", "angle": 20.0}, contact="penalty"), X)
    np.testing.assert_allclose(slope, X * math.tan(math.radians(20.0)), rtol=0, atol=1e-12)


def test_under_soda_contact_the_surface_is_the_sampled_polyline_and_never_below_the_floor():
    heights = surface_heights(World(ground=HILLS), X)
    exact = 10.0 * (1.0 - np.cos(2.0 * math.pi * X / 200.0))
    vertex = np.isclose(X % (200.0 / HILL_SEGMENTS_PER_WAVELENGTH), 0.0)
    np.testing.assert_allclose(heights[vertex], exact[vertex], rtol=0, atol=1e-12)
    # between vertices a chord: within the sagitta a·(1 - cos(π/8)) of the cosine
    assert np.all(np.abs(heights - exact) <= 10.0 * (1.0 - math.cos(math.pi / 8)) + 1e-12)
    falling = surface_heights(World(ground={"type": "slope", "angle": -20.0}), X)
    np.testing.assert_allclose(
        falling, np.maximum(0.0, X * math.tan(math.radians(-20.0))), rtol=1e-12, atol=0
    )


def test_a_staircase_riser_counts_with_its_top_and_the_treads_continue_flat():
    world = World(ground={"type": "steps", "height": 5.0, "width": 30.0, "count": 3})
    heights = surface_heights(world, np.array([-50.0, 10.0, 30.0, 45.0, 60.0, 89.0, 90.0, 500.0]))
    np.testing.assert_array_equal(heights, [0.0, 0.0, 5.0, 5.0, 10.0, 10.0, 15.0, 15.0])


def test_terrain_counts_as_a_surface_under_either_contact():
    for contact in ("soda", "penalty"):
        world = World(terrain=[[[0.0, -5.0], [100.0, 15.0]]], contact=contact)
        np.testing.assert_allclose(surface_heights(world, np.array([0.0, 50.0, 100.0])), [0.0, 5.0, 15.0])


def test_the_deepest_mass_is_lifted_onto_the_surface_and_no_other_is_left_below():
    world = World(ground=HILLS, contact="penalty")
    creature = body([[0.0, 0.0], [60.0, 0.0], [100.0, 5.0], [130.0, 40.0]])
    lifted = stand_on_ground(creature, world)
    clearance = lifted.positions[:, 1] - surface_heights(world, lifted.positions[:, 0])
    assert clearance.min() == pytest.approx(CLEARANCE, abs=1e-12)  # the mass under the crest, 15 px deep
    np.testing.assert_array_equal(lifted.positions[:, 0], creature.positions[:, 0])
    np.testing.assert_allclose(lifted.positions[:, 1] - creature.positions[:, 1], 15.0, rtol=0, atol=1e-8)


def test_a_body_lifted_onto_a_reflecting_segment_clears_it_by_a_hair():
    world = World(terrain=[[[0.0, 0.0], [100.0, 30.0]]])
    lift = ground_lift(world, np.array([[0.0, 0.0], [50.0, 5.0], [90.0, 40.0]]))
    assert lift == pytest.approx(10.0 + CLEARANCE, abs=1e-12)
    assert ground_lift(world, np.array([[0.0, 1.0], [50.0, 16.0]])) == 0.0  # already above


@pytest.mark.parametrize(
    "world",
    [
        World(ground=HILLS),
        World(ground=HILLS, contact="penalty"),
        World(ground={"type": "slope", "angle": 25.0}, contact="penalty"),
        World(ground={"type": "steps", "height": 7.0, "width": 13.0}),
        World(terrain=[[[0.0, 0.0], [37.0, 11.0], [90.0, 2.0]]]),
    ],
    ids=["soda hills", "penalty hills", "penalty slope", "steps", "terrain"],
)
def test_a_lifted_body_is_never_lifted_again(world):
    # what makes `evo simulate` of a run's elite start where the run started it, to the last bit
    rng = np.random.default_rng(5)
    for _ in range(20):
        once = stand_on_ground(body(rng.uniform(0.0, 90.0, (6, 2)).tolist()), world)
        assert ground_lift(world, once.positions) == 0.0
        assert stand_on_ground(once, world) is once


def test_a_level_world_never_moves_a_body_even_one_below_the_floor():
    creature = body([[0.0, -3.0], [20.0, 0.0]])
    for world in (World(), World(contact="penalty")):
        assert is_level(world)
        assert ground_lift(world, creature.positions) == 0.0
        assert stand_on_ground(creature, world) is creature


def test_a_body_standing_on_the_hills_polyline_stays_on_it_under_soda_contact():
    world = World(ground=HILLS)
    creature = stand_on_ground(body([[80.0, 0.0], [100.0, 0.0], [120.0, 0.0]]), world)
    trajectory = simulate(creature, world, 200)
    positions = trajectory.positions.reshape(-1, 2)
    depth = surface_heights(world, positions[:, 0]) - positions[:, 1]
    assert not trajectory.exploded
    assert depth.max() <= 1e-6
