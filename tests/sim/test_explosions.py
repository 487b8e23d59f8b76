"""Blow-ups are flagged by default: without ``max_speed`` a speed above DEFAULT_MAX_SPEED, or a NaN/inf,
stops the run at its frame (issue 13, part 3)."""

import glob

import numpy as np
import pytest
from _builders import GENOMES

from evo.io.models import load_model
from evo.io.worlds import resolve_world
from evo.model import Creature
from evo.sim import World, simulate
from evo.sim.simulate import DEFAULT_MAX_SPEED, speed_limit

INTEGRATORS = ["euler", "rk4", "psm", "backward-euler"]


def thrown(speed: float) -> Creature:
    """One free mass high above the floor, thrown sideways at ``speed`` px/frame."""
    return Creature(
        positions=[[0.0, 1.0e6]], velocities=[[speed, 0.0]], fixed=[False],
        link_a=[], link_b=[], rest=[], alpha=[], phi=[],
    )  # fmt: skip


def test_the_speed_limit_is_max_speed_when_given_else_200_or_the_bodys_size_per_frame():
    assert speed_limit(World()) == DEFAULT_MAX_SPEED == 200.0
    assert speed_limit(World(), np.array([[0.0, 0.0], [90.0, 120.0]])) == 200.0
    assert speed_limit(World(), np.array([[0.0, 0.0], [300.0, 400.0], [100.0, 50.0]])) == 500.0
    assert speed_limit(World(max_speed=50.0), np.array([[0.0, 0.0], [300.0, 400.0]])) == 50.0


def test_a_body_500_px_across_may_move_500_px_per_frame_before_it_counts_as_exploded():
    world = World(damping=0.0, gravity_direction="off")
    for speed, exploded in ((499.0, False), (501.0, True)):
        pair = Creature(
            positions=[[0.0, 1.0e6], [300.0, 1.0e6 + 400.0]], velocities=[[speed, 0.0], [0.0, 0.0]],
            fixed=[False, False], link_a=[], link_b=[], rest=[], alpha=[], phi=[],
        )  # fmt: skip
        assert simulate(pair, world, 10).exploded is exploded


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_without_max_speed_a_mass_faster_than_the_default_bound_explodes_at_that_frame(integrator):
    world = World(damping=0.0, gravity_direction="off", integrator=integrator, dt=0.5)
    fast = simulate(thrown(DEFAULT_MAX_SPEED * 1.001), world, 100)
    assert fast.exploded and fast.exploded_frame == 0.5  # the end of the first step
    slow = simulate(thrown(DEFAULT_MAX_SPEED * 0.999), world, 100)
    assert not slow.exploded and slow.frames[-1] == 100.0


def test_an_explicit_max_speed_replaces_the_default_bound_both_ways():
    world = World(damping=0.0, gravity_direction="off")
    assert not simulate(thrown(1000.0), world.updated({"max_speed": 2000.0}), 10).exploded
    assert simulate(thrown(40.0), world.updated({"max_speed": 30.0}), 10).exploded


def test_a_nan_velocity_explodes_at_the_first_step_without_max_speed():
    trajectory = simulate(thrown(float("nan")), World(), 10)
    assert trajectory.exploded and trajectory.exploded_frame == 1.0


@pytest.mark.parametrize(
    "path", sorted(glob.glob(str(GENOMES / "*.json")) + glob.glob(str(GENOMES / "classic" / "[ps]*.xml")))
)
def test_no_shipped_genome_reaches_half_the_default_bound_in_its_own_world(path):
    creature = load_model(path)
    trajectory = simulate(creature, resolve_world([(creature.world, path, "world")]), 3000)
    speeds = np.hypot(trajectory.velocities[..., 0], trajectory.velocities[..., 1])
    assert not trajectory.exploded
    assert speeds.max() < DEFAULT_MAX_SPEED / 2
