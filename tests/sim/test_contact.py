"""The penalty ground with friction and the ground shapes (issue 5 §2; seed 002 §1.2).

Penalty contact: force −S·H·∇H/‖∇H‖² where H < 0 and friction −μ·‖F_n‖·tanh(v_τ/ε)·τ. The friction is
regularised, so a block that "sticks" still creeps at the speed where μ·N·tanh(v/ε) balances the pull down
the slope, v = ε·atanh(tan θ / μ); the tests hold it to that speed.
"""

import math

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.model import Creature
from evo.sim import Ground, World, simulate

G = 0.5  # px/frame²


def one_mass(x: float, y: float, mass: float = 1.0, vx: float = 0.0) -> Creature:
    return Creature(
        positions=[[x, y]], velocities=[[vx, 0.0]], fixed=[False], link_a=[], link_b=[], rest=[],
        alpha=[], phi=[], mass=[mass],
    )  # fmt: skip


def penalty_world(**changes) -> World:
    base = {"gravity": G, "damping": 0.05, "contact": "penalty", "ground_stiffness": 10.0,
            "ground_friction": 1.0, "ground_slip_speed": 0.1, "max_speed": 100.0}  # fmt: skip
    return World().updated({**base, **changes})


# -- a mass at rest sinks m·g / S ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("integrator", "dt"),
    [("euler", 0.25), ("finite-difference", 0.25), ("midpoint", 0.1), ("rk4", 0.25),
     ("backward-euler", 1.0), ("psm", 0.25)],
)  # fmt: skip
def test_a_resting_mass_sinks_m_g_over_the_ground_stiffness_into_the_flat_ground(integrator, dt):
    mass = 2.0
    world = penalty_world(integrator=integrator, dt=dt)
    trajectory = simulate(one_mass(100.0, 5.0, mass), world, 1000, record_every=10)
    assert not trajectory.exploded
    depth = -trajectory.positions[-1, 0, 1]
    # the static balance is exact whatever the integrator: S·depth = m·g (to 1e-6 after the settling)
    assert depth == pytest.approx(mass * G / world.ground_stiffness, rel=1e-6)


@pytest.mark.parametrize(
    ("ground", "x", "surface"),
    [
        ({"type": "hills", "amplitude": 20.0, "wavelength": 300.0}, 300.0, 0.0),  # a valley
        ({"type": "hills", "amplitude": 20.0, "wavelength": 300.0}, 150.0, 40.0),  # a crest
        ({"type": "steps", "height": 15.0, "width": 60.0}, 100.0, 15.0),  # the middle of the first tread
        ([[0.0, 30.0], [200.0, 30.0], [300.0, 80.0]], 120.0, 30.0),  # a polyline segment
    ],
)
def test_a_resting_mass_sinks_m_g_over_s_below_any_ground_shape(ground, x, surface):
    world = penalty_world(ground=ground, integrator="backward-euler", dt=1.0)
    trajectory = simulate(one_mass(x, surface + 3.0), world, 1500, record_every=1500)
    final_x, final_y = trajectory.positions[-1, 0]
    assert final_x == pytest.approx(x, abs=1e-6)  # level there, nothing to slide along
    assert surface - final_y == pytest.approx(G / world.ground_stiffness, rel=1e-6)


def test_penalty_contact_replaces_the_soda_floor_and_the_side_walls_still_reflect():
    world = penalty_world(width=200.0, gravity=0.0, damping=0.0, integrator="rk4", dt=0.25)
    trajectory = simulate(one_mass(190.0, 50.0, vx=2.0), world, 20, record_every=0.25)
    x = trajectory.positions[:, 0, 0]
    assert x.max() <= 200.0 and trajectory.velocities[-1, 0, 0] < 0.0


# -- a block on a slope -----------------------------------------------------------------------------------

MU = 0.5
SLIP = 0.01  # px/frame
S_GROUND = 50.0


def block_on_slope(theta: float) -> tuple[Creature, np.ndarray]:
    """A 10 px square of four unit masses with damped links, resting on a slope of angle theta (rad),
    its bottom edge already sunk to the static depth. Returns it and the unit vector up the slope."""
    up = np.array([math.cos(theta), math.sin(theta)])
    normal = np.array([-math.sin(theta), math.cos(theta)])
    sink = 2 * G * math.cos(theta) / S_GROUND  # each bottom mass carries two masses' weight
    corners = [
        100 * up - sink * normal,
        110 * up - sink * normal,
        110 * up + 10 * normal,
        100 * up + 10 * normal,
    ]
    diagonal = 10 * math.sqrt(2)
    body = Creature(
        positions=corners, velocities=np.zeros((4, 2)), fixed=[False] * 4,
        link_a=[0, 1, 2, 3, 0, 1], link_b=[1, 2, 3, 0, 2, 3], rest=[10, 10, 10, 10, diagonal, diagonal],
        alpha=[0] * 6, phi=[0] * 6, dashpot=[1.0] * 6,
    )  # fmt: skip
    return body, up


def slope_world(theta: float, integrator: str, dt: float) -> World:
    return World(
        gravity=G, damping=0.0, stiffness=2.0, dt=dt, integrator=integrator, contact="penalty",
        ground={"type": "slope", "angle": math.degrees(theta)}, ground_stiffness=S_GROUND,
        ground_friction=MU, ground_slip_speed=SLIP, max_speed=100.0,
    )  # fmt: skip


SLOPE_INTEGRATORS = [("backward-euler", 0.5), ("rk4", 0.05), ("psm", 0.02)]


@pytest.mark.parametrize(("integrator", "dt"), SLOPE_INTEGRATORS)
@pytest.mark.parametrize("ratio", [0.5, 0.8, 0.95])
def test_a_block_on_a_slope_with_tan_theta_below_mu_only_creeps_at_the_regularised_speed(
    ratio, integrator, dt
):
    theta = math.atan(ratio * MU)
    body, up = block_on_slope(theta)
    trajectory = simulate(body, slope_world(theta, integrator, dt), 300, record_every=1)
    along = trajectory.velocities.mean(axis=1) @ up
    creep = SLIP * math.atanh(ratio)  # px/frame, where μ·N·tanh(v/ε) = m·g·sin θ
    assert np.all(np.abs(along[100:]) <= 1.01 * creep)
    assert abs(along[-1] - along[150]) < 1e-6  # not accelerating


@pytest.mark.parametrize(("integrator", "dt"), SLOPE_INTEGRATORS)
@pytest.mark.parametrize("ratio", [1.05, 1.2, 2.0])
def test_a_block_on_a_slope_with_tan_theta_above_mu_slides_at_g_times_sin_minus_mu_cos(ratio, integrator, dt):
    theta = math.atan(ratio * MU)
    body, up = block_on_slope(theta)
    trajectory = simulate(body, slope_world(theta, integrator, dt), 300, record_every=1)
    along = trajectory.velocities.mean(axis=1) @ up
    expected = -G * (math.sin(theta) - MU * math.cos(theta))  # px/frame² along `up`
    measured = (along[300] - along[100]) / 200
    assert measured == pytest.approx(expected, rel=5e-3)
    assert -along[-1] > 50 * SLIP * math.atanh(0.95)  # far faster than any creep


# -- the ground shapes ------------------------------------------------------------------------------------


def test_a_ground_table_round_trips_through_the_world_mapping():
    for value in (
        {"type": "flat"},
        {"type": "slope", "angle": -12.5},
        {"type": "hills", "amplitude": 8.0, "wavelength": 250.0, "extent": [0.0, 3000.0]},
        {"type": "steps", "height": 10.0, "width": 40.0, "count": 5},
        {"type": "polyline", "points": [[0.0, 0.0], [50.0, 10.0]]},
    ):
        world = World().updated({"ground": value})
        assert world.to_dict()["ground"] == value
        assert World().updated(world.to_dict()) == world
    assert World().updated({"ground": [[0, 0], [10, 5]]}).ground == Ground(
        type="polyline", points=((0, 0), (10, 5))
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"type": "hils"}, "did you mean 'hills'"),
        ({"type": "slope"}, "world.ground.angle: missing"),
        ({"type": "slope", "angle": 90}, "world.ground.angle"),
        ({"type": "hills", "amplitude": 3, "wavelenth": 9}, "did you mean 'wavelength'"),
        ({"type": "steps", "height": 5, "width": 0}, "world.ground.width"),
        (
            {"type": "steps", "height": "5", "width": 9},
            r"world.ground.height: expected a finite number, got '5'$",
        ),
        (
            {"type": "slope", "angle": 5, "extent": [None, 9]},
            r"world.ground.extent: expected a list of 2 finite numbers, got \[None, 9\]$",
        ),
        # sampled into 8 segments per wavelength for soda contact and drawing: at most 100000 segments
        (
            {"type": "hills", "amplitude": 3, "wavelength": 1e-300},
            r"world.ground.wavelength: expected .* >= 1.76",
        ),
        ({"type": "hills", "amplitude": 3, "wavelength": 1, "extent": [0, 1e6]}, "world.ground.wavelength"),
        ([[10, 0], [0, 5]], "left to right"),
    ],
)
def test_a_bad_ground_is_refused_with_the_field_and_what_was_expected(value, message):
    with pytest.raises(EvoInputError, match=message):
        World().updated({"ground": value})


def test_the_staircase_climbs_height_every_width_and_continues_flat():
    steps = Ground(type="steps", height=5.0, width=20.0, count=2)
    assert steps.outline() == [(0, 0), (20, 0), (20, 5), (40, 5), (40, 10), (60, 10)]
    soda = Ground(type="steps", height=5.0, width=20.0, count=2, extent=(-100.0, 100.0)).soda_polyline()
    assert soda[0] == (-100.0, 0.0) and soda[-1] == (100.0, 10.0)


def test_under_soda_contact_a_mass_dropped_on_a_step_comes_to_rest_on_its_tread():
    world = World(gravity=G, damping=0.02, ground={"type": "steps", "height": 15.0, "width": 60.0})
    trajectory = simulate(one_mass(100.0, 40.0), world, 1500, record_every=1)
    assert trajectory.positions[:, 0, 1].min() >= 15.0 - 1e-6
    assert trajectory.positions[-1, 0, 1] == pytest.approx(15.0, abs=1e-6)


def test_under_soda_contact_a_mass_placed_exactly_on_a_tread_stays_on_it():
    world = World(gravity=G, damping=0.02, ground={"type": "steps", "height": 15.0, "width": 60.0})
    trajectory = simulate(one_mass(100.0, 15.0), world, 300, record_every=1)
    assert trajectory.positions[:, 0, 1].min() >= 15.0


def test_under_soda_contact_a_slope_reflects_like_terrain_for_every_integrator():
    for integrator in ("euler", "rk4", "backward-euler", "psm"):
        world = World(gravity=G, damping=0.02, integrator=integrator, dt=0.5,
                      ground={"type": "slope", "angle": 20.0})  # fmt: skip
        trajectory = simulate(one_mass(200.0, 120.0), world, 400, record_every=1)
        x, y = trajectory.positions[:, 0, 0], trajectory.positions[:, 0, 1]
        assert np.all(y >= x * math.tan(math.radians(20.0)) - 1e-6), integrator
