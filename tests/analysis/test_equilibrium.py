"""Static equilibria against seed 000 chapter 10 (closed forms to 1e-9 relative unless stated)."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_builders import (
    hexagon,
    linear_motor,
    make_creature,
    motor_rest_lengths,
    pandoras_toybox,
    random_creature,
    tension_spring,
)

from evo.analysis import modes_at, solve_equilibrium
from evo.analysis.forces import TINY_LENGTH, forces
from evo.errors import EvoInputError
from evo.sim import World

WORLD = World()  # gravity 0.5 down, stiffness 0.4: gravity is left out for creatures without fixed masses
TIGHT = 1e-12


@pytest.mark.parametrize("rest", [30.0, 50.0, 120.0])
def test_hexagon_settles_with_diagonals_two_thirds_of_their_rest_length(rest):
    eq = solve_equilibrium(hexagon(rest, jitter=0.05 * rest, seed=int(rest)), WORLD, tolerance=TIGHT)
    assert eq.converged and eq.method == "newton"
    # eq. 10.10: b = 2 l / 3 across, so the border (zip springs) has sides b / 2
    np.testing.assert_allclose(eq.lengths[6:], 2.0 * rest / 3.0, rtol=1e-9)
    np.testing.assert_allclose(eq.lengths[:6], rest / 3.0, rtol=1e-9)


@pytest.mark.parametrize(
    "chain_rest, strut_rest",
    [([10.0], 30.0), ([5.0, 7.0], 40.0), ([5.0, 7.0, 3.0, 9.0], 60.0), ([4.0] * 8, 80.0), ([0.0] * 3, 20.0)],
)
def test_tension_spring_direct_problem_matches_eq_10_22_and_10_23(chain_rest, strut_rest):
    n = len(chain_rest)
    eq = solve_equilibrium(tension_spring(chain_rest, strut_rest), WORLD, tolerance=TIGHT)
    assert eq.converged
    stretch = (strut_rest - sum(chain_rest)) / (n + 1)  # eq. 10.22
    np.testing.assert_allclose(eq.lengths[:n], np.asarray(chain_rest) + stretch, rtol=1e-9)
    np.testing.assert_allclose(eq.lengths[n], (n * strut_rest + sum(chain_rest)) / (n + 1), rtol=1e-9)
    # every link carries the same force: tension in the chain, compression in the strut (eq. 10.19)
    np.testing.assert_allclose(eq.tensions[:n], WORLD.stiffness * stretch, rtol=1e-9)
    np.testing.assert_allclose(eq.tensions[n], -WORLD.stiffness * stretch, rtol=1e-9)


@pytest.mark.parametrize(
    "targets, strut_rest",
    [([12.0, 8.0], 26.0), ([6.0, 6.0, 6.0], 20.0), ([10.0, 4.0, 7.0, 5.0, 9.0], 38.0)],
)
def test_tension_spring_inverse_problem_gives_the_wanted_final_lengths(targets, strut_rest):
    targets = np.asarray(targets)
    stretch = strut_rest - targets.sum()  # step 2 of the inverse problem
    chain_rest = targets - stretch  # step 3
    assert np.all(chain_rest >= 0.0)
    eq = solve_equilibrium(tension_spring(chain_rest, strut_rest), WORLD, tolerance=TIGHT)
    assert eq.converged
    np.testing.assert_allclose(eq.lengths[:-1], targets, rtol=1e-9)
    np.testing.assert_allclose(eq.lengths[-1], targets.sum(), rtol=1e-9)


@pytest.mark.parametrize("width, height", [(40.0, 12.0), (30.0, 30.0), (10.0, 35.0)])
def test_pandoras_toybox_is_an_indifferent_equilibrium_with_r_equal_2kr(width, height):
    rest = 60.0
    eq = solve_equilibrium(pandoras_toybox(rest, width, height), WORLD, tolerance=TIGHT)
    assert eq.converged
    # the box stays a rectangle (of whatever aspect), inscribed in a circle whose diameter is the
    # compressed diagonals
    sides = eq.lengths[:4]
    np.testing.assert_allclose(sides[2:], sides[:2], rtol=1e-9)
    diameter = eq.lengths[4]
    np.testing.assert_allclose(sides[0] ** 2 + sides[1] ** 2, diameter**2, rtol=1e-9)
    # eq. 10.13: the two side springs on a corner add up to R = 2 k r, which compresses the diagonal
    k, r = WORLD.stiffness, 0.5 * diameter
    p = eq.positions
    resultant = k * (p[0] - p[1]) + k * (p[2] - p[1])  # zip springs: force k times the side vector
    np.testing.assert_allclose(np.hypot(*resultant), 2.0 * k * r, rtol=1e-9)
    np.testing.assert_allclose(-eq.tensions[5], 2.0 * k * r, rtol=1e-9)
    np.testing.assert_allclose(diameter, rest / 2.0, rtol=1e-9)
    modes = modes_at(eq)
    assert (modes.zero_modes, modes.rigid_modes, modes.mechanisms, modes.unstable_modes) == (4, 3, 1, 0)


def _motor_positions(length, theta):
    r12, r23, r13 = motor_rest_lengths(length, theta)
    return (2 * r12 + r13 - r23) / 3.0, (r12 + 2 * r13 + r23) / 3.0  # eq. 10.31


def _motor_configuration_is_fig_10_9(theta, length=10.0):
    """Conditions 10.32: 0 < x2 < x3 (mass 2 between masses 1 and 3)."""
    x2, x3 = _motor_positions(length, theta)
    return 0.0 < x2 < x3


VALID_MOTOR_PHASES = [
    t for t in np.linspace(0.0, 2.0 * np.pi, 25)[:-1] if _motor_configuration_is_fig_10_9(t)
]


@pytest.mark.parametrize("theta", VALID_MOTOR_PHASES)
def test_linear_motor_quasi_static_positions_follow_eq_10_31(theta):
    length = 10.0
    x2, x3 = _motor_positions(length, theta)
    start = linear_motor(length, 1.05 * x2, 0.97 * x3 + 0.03 * x2)
    eq = solve_equilibrium(start, WORLD, phase=theta, tolerance=TIGHT)
    assert eq.converged
    p = eq.positions - eq.positions[0]
    np.testing.assert_allclose(p[1:, 0], [x2, x3], rtol=1e-9, atol=1e-9 * length)
    np.testing.assert_allclose(p[:, 1], 0.0, atol=1e-9 * length)


def test_linear_motor_phase_set_covers_several_configurations():
    assert len(VALID_MOTOR_PHASES) >= 6


def test_muscles_frozen_at_rest_length_ignore_the_wave():
    creature = linear_motor(10.0, 9.0, 21.0)
    eq = solve_equilibrium(creature, WORLD, tolerance=TIGHT)
    np.testing.assert_allclose(eq.rest_lengths, 10.0)
    assert eq.phase is None


def test_gravity_is_left_out_without_fixed_masses_and_the_result_says_so():
    eq = solve_equilibrium(hexagon(40.0), WORLD)
    assert not eq.gravity_used
    assert any("gravity left out" in note for note in eq.notes)
    with pytest.raises(EvoInputError):
        solve_equilibrium(hexagon(40.0), WORLD, gravity=True)


def test_hanging_mass_sags_by_g_over_k():
    world = World(gravity=0.5, stiffness=0.4)
    creature = make_creature([[0.0, 500.0], [0.0, 400.0]], [(0, 1)], [100.0], fixed=[True, False])
    eq = solve_equilibrium(creature, world, tolerance=TIGHT)
    assert eq.gravity_used and eq.converged
    np.testing.assert_allclose(eq.lengths[0], 100.0 + world.gravity / world.stiffness, rtol=1e-12)
    np.testing.assert_allclose(eq.positions[1, 0], 0.0, atol=1e-12)


def test_heavier_masses_and_stiffer_links_change_the_sag_as_m_g_over_k_s():
    world = World(gravity=0.5, stiffness=0.4)
    creature = make_creature([[0.0, 500.0], [0.0, 400.0]], [(0, 1)], [100.0], fixed=[True, False])
    eq = solve_equilibrium(creature, world, mass=np.array([1.0, 3.0]), link_stiffness=np.array([2.0]))
    np.testing.assert_allclose(eq.lengths[0], 100.0 + 3.0 * 0.5 / (0.4 * 2.0), rtol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_random_creatures_reach_equilibrium_with_forces_below_tolerance(seed):
    creature = random_creature(seed, n_fixed=2 * (seed % 2))
    eq = solve_equilibrium(creature, WORLD, phase=0.7)
    assert eq.converged, eq.notes
    f = forces(eq.model, eq.positions)
    assert np.max(np.abs(f)) <= eq.tolerance
    np.testing.assert_array_equal(eq.positions[creature.fixed], creature.positions[creature.fixed])


def test_dynamic_relaxation_takes_over_when_newton_is_not_allowed_to_finish():
    creature = random_creature(3)
    eq = solve_equilibrium(creature, WORLD, phase=0.7, max_iterations=0)
    assert eq.converged
    assert eq.method.startswith("relaxation") and eq.relaxation_steps > 0
    assert any("dynamic relaxation" in note for note in eq.notes)
    reference = solve_equilibrium(creature, WORLD, phase=0.7)
    np.testing.assert_allclose(np.sort(eq.lengths), np.sort(reference.lengths), rtol=1e-6)


def test_free_creature_does_not_drift_while_solving():
    creature = tension_spring([5.0, 7.0, 3.0], 40.0)
    eq = solve_equilibrium(creature, WORLD, tolerance=TIGHT)
    np.testing.assert_allclose(eq.positions[:, 1], 300.0, atol=1e-12)
    np.testing.assert_allclose(eq.positions[:, 0].mean(), creature.positions[:, 0].mean(), rtol=1e-12)


def test_a_link_whose_masses_coincide_is_named_in_the_notes():
    creature = make_creature(
        [[0.0, 10.0], [0.0, 10.0], [5.0, 20.0]], [(0, 1), (1, 2), (0, 2)], [5.0, 5.0, 5.0]
    )
    eq = solve_equilibrium(creature, WORLD)
    # the masses coincide up to rounding (1.1e-16 px on one machine, 0.0 on another): "zero length" is
    # TINY_LENGTH or less, the length below which a link's direction is undefined
    assert eq.converged and eq.lengths[0] <= TINY_LENGTH < eq.lengths[1]
    assert any("link 0 (0-1) of zero length" in note for note in eq.notes)
    assert not any("zero length" in note for note in solve_equilibrium(hexagon(40.0), WORLD).notes)
