"""Collisions with walls, ceiling and terrain segments, and the wave's reverse and autoreverse (issue 2, §7).

Each collision test builds its first step so that the mass crosses the surface within that one step:
with semi-implicit Euler and no damping the velocity that meets the surface is exactly v0 + g dt, so the
velocity after the step can be compared with v_n -> -c_o v_n, v_t -> c_t v_t to rounding (1e-9).
"""

import math
from pathlib import Path

import numpy as np
import pytest

from evo.io.models import load_model
from evo.model import Creature
from evo.sim.simulate import simulate
from evo.sim.world import World

GENOMES = Path(__file__).resolve().parents[2] / "genomes"

C_O, C_T = 0.6, 0.3  # restitutions chosen away from the defaults, so the test sees which is which


def one_mass(x, y, vx=0.0, vy=0.0):
    return Creature(
        positions=[[x, y]], velocities=[[vx, vy]], fixed=[False],
        link_a=[], link_b=[], rest=[], alpha=[], phi=[],
    )  # fmt: skip


def world(**overrides):
    base = {"damping": 0.0, "restitution_normal": C_O, "restitution_tangential": C_T}
    return World().updated({**base, **overrides})


def split(velocity, normal):
    """(normal, tangential) components of a 2-vector for a unit normal."""
    tangent = np.array([normal[1], -normal[0]])
    return float(velocity @ normal), float(velocity @ tangent)


@pytest.mark.parametrize(
    "start, v0, gravity, side",
    [
        ((100.0, 152.0), (0.3, -4.0), 0.5, +1),  # dropped from above, gravity down
        ((100.0, 148.0), (-0.7, 4.0), 0.0, -1),  # thrown up into the underside, no gravity
    ],
)
def test_a_mass_bounces_off_a_sloped_segment_along_its_normal(start, v0, gravity, side):
    p1, p2 = np.array([0.0, 100.0]), np.array([200.0, 200.0])
    w = world(gravity=gravity, terrain=[p1.tolist(), p2.tolist()])
    trajectory = simulate(one_mass(*start, *v0), w, frames=1)
    edge = (p2 - p1) / np.linalg.norm(p2 - p1)
    normal = side * np.array([-edge[1], edge[0]])  # unit normal on the side the mass came from
    incoming = np.array(v0) + np.array([0.0, -gravity])
    vn_in, vt_in = split(incoming, normal)
    vn_out, vt_out = split(trajectory.velocities[1, 0], normal)
    assert vn_in < 0.0  # it really was moving into the segment
    assert vn_out == pytest.approx(-C_O * vn_in, abs=1e-9)
    assert vt_out == pytest.approx(C_T * vt_in, abs=1e-9)
    height = float((trajectory.positions[1, 0] - p1) @ normal)
    assert 0.0 <= height < 1e-6  # put back on the segment, on the side it came from


def test_a_mass_dropped_on_a_horizontal_bar_comes_to_rest_on_top_of_it():
    w = world(gravity=0.5, damping=0.02, terrain=[[0.0, 50.0], [300.0, 50.0]])
    trajectory = simulate(one_mass(150.0, 80.0, vx=0.2), w, frames=2000)
    heights = trajectory.positions[:, 0, 1]
    assert heights.min() >= 50.0
    assert heights[-1] == pytest.approx(50.0, abs=1e-6)
    assert trajectory.positions[-1, 0, 0] == pytest.approx(150.0, abs=10.0)


def test_a_mass_dropped_into_a_v_shaped_valley_settles_in_its_bottom():
    valley = [[0.0, 150.0], [100.0, 50.0], [200.0, 150.0]]
    w = world(gravity=0.5, damping=0.02, terrain=valley)
    trajectory = simulate(one_mass(60.0, 200.0), w, frames=3000)
    x, y = trajectory.positions[:, 0, 0], trajectory.positions[:, 0, 1]
    floor_of_valley = 50.0 + np.abs(x - 100.0)
    assert np.all(y >= floor_of_valley - 1e-6)
    assert (x[-1], y[-1]) == pytest.approx((100.0, 50.0), abs=1.0)


INTEGRATORS = ["euler", "rk4", "psm", "backward-euler", "finite-difference"]


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize("direction", ["down", "up"])
def test_a_mass_that_starts_exactly_on_a_bar_rests_on_it_as_on_the_floor_or_ceiling(integrator, direction):
    # It starts on the bar's line, so its path has no "side it came from": the side the bar supports it
    # from is the one against gravity (above it for gravity down, below it for gravity up). It must then
    # move exactly as a mass starting on the floor y = 0 (gravity down) or the ceiling (gravity up).
    bar_y = 50.0
    common = {"gravity": 0.5, "damping": 0.02, "gravity_direction": direction, "integrator": integrator}
    on_bar = simulate(
        one_mass(150.0, bar_y), world(**common, dt=0.5, terrain=[[0, bar_y], [300, bar_y]]), 200
    )
    if direction == "down":
        on_box = simulate(one_mass(150.0, 0.0), world(**common, dt=0.5), 200)
        heights = on_box.positions[:, 0, 1] + bar_y
    else:
        on_box = simulate(one_mass(150.0, bar_y), world(**common, dt=0.5, height=bar_y), 200)
        heights = on_box.positions[:, 0, 1]
    np.testing.assert_allclose(on_bar.positions[:, 0, 1], heights, rtol=0, atol=1e-6)


def test_a_mass_that_starts_exactly_on_a_bar_leaves_it_when_thrown_away_from_it():
    w = world(gravity=0.5, terrain=[[0.0, 50.0], [300.0, 50.0]])
    up = simulate(one_mass(150.0, 50.0, vy=3.0), w, frames=4)
    assert up.positions[1, 0, 1] == 50.0 + 3.0 - 0.5  # free flight, no contact
    down = simulate(one_mass(150.0, 50.0, vy=-3.0), w, frames=4)
    assert down.positions[1:, 0, 1].min() >= 50.0  # held up by the bar it lies on


def test_without_gravity_a_mass_on_a_bar_has_no_side_and_passes_through():
    w = world(gravity=0.0, terrain=[[0.0, 50.0], [300.0, 50.0]])
    trajectory = simulate(one_mass(150.0, 50.0, vy=-1.0), w, frames=3)
    assert trajectory.positions[-1, 0, 1] == pytest.approx(47.0)


@pytest.mark.parametrize(
    "start, v0, on_wall, normal",
    [
        ((2.0, 40.0), (-3.0, 0.8), (0.0, None), (1.0, 0.0)),  # left wall x = 0
        ((98.0, 40.0), (3.0, -0.8), (100.0, None), (-1.0, 0.0)),  # right wall x = width
        ((30.0, 79.0), (0.6, 2.5), (None, 80.0), (0.0, -1.0)),  # ceiling y = height
        ((30.0, 1.0), (0.6, -2.5), (None, 0.0), (0.0, 1.0)),  # floor y = 0
    ],
)
def test_side_walls_ceiling_and_floor_reflect_with_c_o_and_keep_c_t_of_the_tangential_speed(
    start, v0, on_wall, normal
):
    w = world(gravity=0.0, width=100.0, height=80.0)
    trajectory = simulate(one_mass(*start, *v0), w, frames=1)
    normal = np.array(normal)
    vn_in, vt_in = split(np.array(v0), normal)
    vn_out, vt_out = split(trajectory.velocities[1, 0], normal)
    assert vn_out == pytest.approx(-C_O * vn_in, abs=1e-12)
    assert vt_out == pytest.approx(C_T * vt_in, abs=1e-12)
    for axis, value in enumerate(on_wall):
        if value is not None:
            assert trajectory.positions[1, 0, axis] == value


# -- the wave --------------------------------------------------------------------------------------
REST, ALPHA, BETA, PHI, OMEGA, THETA0 = 50.0, 0.8, 0.5, 0.7, 0.1, 0.3


def hanging_muscle(**wave):
    """A free mass joined by one muscle to a fixed mass, far from every wall, in a world without gravity."""
    return Creature(
        positions=[[100.0, 100.0], [150.0, 100.0]], velocities=[[0.0, 0.0], [0.0, 0.0]],
        fixed=[True, False], link_a=[0], link_b=[1], rest=[REST], alpha=[ALPHA], phi=[PHI],
        omega=OMEGA, beta=BETA, wave_phase=THETA0, **wave,
    )  # fmt: skip


def rest_length_seen_by_the_free_mass(trajectory, stiffness, damping):
    """Per step k (1..), the rest length the muscle had in step k, solved from the mass's acceleration:
    a = -k (L - l_r) d / L - f v, with d, L and v taken at the start of the step (semi-implicit Euler)."""
    d = trajectory.positions[:-1, 1] - trajectory.positions[:-1, 0]
    length = np.linalg.norm(d, axis=1)
    v = trajectory.velocities[:, 1]
    accel = v[1:] - v[:-1] + damping * v[:-1]
    return length + np.einsum("ij,ij->i", accel, d) / length / stiffness


@pytest.mark.parametrize("reverse, sign", [(False, +1.0), (True, -1.0)])
def test_a_muscle_follows_sin_of_wave_phase_plus_or_minus_omega_t_plus_phi(reverse, sign):
    w = world(gravity=0.0, damping=0.05, stiffness=0.3)
    trajectory = simulate(hanging_muscle(wave_reverse=reverse), w, frames=200)
    seen = rest_length_seen_by_the_free_mass(trajectory, 0.3, 0.05)
    t = np.arange(200.0)  # step k+1 uses the wave at frame k
    expected = REST * (1.0 + ALPHA * BETA * np.sin(THETA0 + sign * OMEGA * t + PHI))
    np.testing.assert_allclose(seen, expected, rtol=0, atol=1e-9)


def floating_triangle(**wave):
    return Creature(
        positions=[[100.0, 100.0], [150.0, 100.0], [125.0, 140.0]], velocities=np.zeros((3, 2)),
        fixed=[False] * 3, link_a=[0, 1, 2], link_b=[1, 2, 0], rest=[50.0, 47.0, 47.0],
        alpha=[0.6, 0.3, 0.0], phi=[0.4, 2.0, 0.0], omega=0.08, beta=0.7, **wave,
    )  # fmt: skip


def test_the_reversed_wave_equals_the_forward_wave_with_mirrored_phases():
    w = world(gravity=0.0, damping=0.03)
    reversed_run = simulate(floating_triangle(wave_phase=0.9, wave_reverse=True), w, frames=300)
    # sin(theta0 - wt + phi) = sin((pi - theta0) + wt - phi)
    mirrored = floating_triangle(wave_phase=math.pi - 0.9)
    mirrored = mirrored.replace(phi=-mirrored.phi)
    forward_run = simulate(mirrored, w, frames=300)
    np.testing.assert_allclose(reversed_run.positions, forward_run.positions, rtol=0, atol=1e-9)
    assert np.abs(reversed_run.positions[-1] - simulate(floating_triangle(), w, 300).positions[-1]).max() > 1


def drifting_pair(autoreverse):
    """Two masses joined by a muscle, drifting left at 1 px/frame towards the wall x = 0."""
    return Creature(
        positions=[[10.5, 100.0], [40.5, 100.0]], velocities=[[-1.0, 0.0], [-1.0, 0.0]], fixed=[False, False],
        link_a=[0], link_b=[1], rest=[30.0], alpha=[0.9], phi=[0.5], omega=0.2, beta=0.8,
        autoreverse=autoreverse,
    )  # fmt: skip


def test_autoreverse_flips_the_wave_after_the_first_side_wall_contact_and_not_before():
    w = world(gravity=0.0, damping=0.01, width=400.0)
    plain = simulate(drifting_pair(False), w, frames=60)
    flipping = simulate(drifting_pair(True), w, frames=60)
    touching = np.flatnonzero((plain.positions[:, :, 0] == 0.0).any(axis=1))
    assert touching.size, "the creature never reached the wall"
    contact = int(touching[0])
    # The sign flips at the end of the contact step; step contact+1 still uses the wave angle reached at
    # the contact frame, so the first frame that can differ is contact + 2.
    np.testing.assert_array_equal(plain.positions[: contact + 2], flipping.positions[: contact + 2])
    assert not np.array_equal(plain.positions[contact + 2], flipping.positions[contact + 2])
    assert np.abs(plain.positions[-1] - flipping.positions[-1]).max() > 0.1


def test_autoreverse_changes_nothing_without_side_walls():
    w = world(gravity=0.0, damping=0.01)
    plain = simulate(drifting_pair(False), w, frames=60)
    flipping = simulate(drifting_pair(True), w, frames=60)
    np.testing.assert_array_equal(plain.positions, flipping.positions)


def test_autoreverse_flips_once_per_contact_so_a_walker_paces_between_the_walls():
    # pacer.xml walks right in a 600 px box with autoreverse on. Flipping the wave on every step of a
    # contact (instead of once when it starts) left it pressed against the right wall for good; flipping
    # once per contact sends it back to touch the left wall.
    pacer = load_model(GENOMES / "classic" / "pacer.xml")
    world = World().updated(pacer.world)
    trajectory = simulate(pacer, world, 6000, record_every=10)
    right_x = trajectory.positions[:, :, 0].max(axis=1)
    left_x = trajectory.positions[:, :, 0].min(axis=1)
    first_right = int(np.argmax(right_x >= world.width - 2.0))
    assert right_x[first_right] >= world.width - 2.0
    assert left_x[first_right:].min() <= 2.0
