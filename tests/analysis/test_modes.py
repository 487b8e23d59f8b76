"""Stiffness and mass matrices and natural frequencies against finite differences and seed 004's closed
forms (relative tolerance 1e-9 unless stated)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest
from analysis_builders import hexagon, make_creature, pandoras_toybox, random_creature, tension_spring

from evo.analysis import (
    damped_frequencies,
    lowest_natural_frequency,
    mass_matrix,
    modes_at,
    natural_modes,
    place_frequency,
    solve_equilibrium,
    static_model,
    stiffness_matrix,
)
from evo.analysis.forces import forces
from evo.model import Creature
from evo.sim import World

TIGHT = 1e-12


def _two_dof_closed_form(m: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Seed 004: det(K - w^2 M) = a w^4 + b w^2 + c = 0 for two degrees of freedom; returns w ascending."""
    a = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    b = -(k[0, 0] * m[1, 1] + k[1, 1] * m[0, 0] - k[0, 1] * m[1, 0] - k[1, 0] * m[0, 1])
    c = k[0, 0] * k[1, 1] - k[0, 1] * k[1, 0]
    root = np.sqrt(b * b - 4.0 * a * c)
    return np.sqrt(np.array([(-b - root) / (2.0 * a), (-b + root) / (2.0 * a)]))


@pytest.mark.parametrize("seed, n_fixed, gravity", [(0, 0, False), (1, 1, True), (2, 2, True), (3, 3, True)])
def test_stiffness_matrix_matches_central_differences_of_the_forces(seed, n_fixed, gravity):
    creature = random_creature(seed, n_fixed=n_fixed)
    rng = np.random.default_rng(seed)
    model = static_model(
        creature,
        World(stiffness=0.3, gravity=0.7),
        phase=0.4,
        gravity=gravity,
        link_stiffness=rng.uniform(0.5, 2.0, creature.n_links),
        mass=rng.uniform(0.5, 3.0, creature.n_masses),
    )
    q = creature.positions.copy()
    k = stiffness_matrix(model, q)
    h = 1e-5
    numeric = np.zeros_like(k)
    for j in range(q.size):
        plus, minus = q.copy(), q.copy()
        plus.ravel()[j] += h
        minus.ravel()[j] -= h
        df = forces(model, plus, include_fixed=True) - forces(model, minus, include_fixed=True)
        numeric[:, j] = -df.ravel() / (2.0 * h)
    np.testing.assert_allclose(k, numeric, rtol=0, atol=1e-8 * np.max(np.abs(k)))
    np.testing.assert_allclose(k, k.T, atol=1e-14 * np.max(np.abs(k)))
    parts = stiffness_matrix(model, q, "elastic") + stiffness_matrix(model, q, "geometric")
    np.testing.assert_allclose(parts, k, atol=1e-14 * np.max(np.abs(k)))


def test_mass_matrix_is_diagonal_over_free_coordinates():
    creature = make_creature(
        [[0, 0], [1, 0], [2, 0]], [(0, 1), (1, 2)], [1.0, 1.0], fixed=[False, True, False]
    )
    m = mass_matrix(creature, mass=np.array([2.0, 5.0, 3.0]))
    np.testing.assert_array_equal(m, np.diag([2.0, 2.0, 3.0, 3.0]))


def _fixed_free_chain(l1=40.0, l2=25.0, vertical=False):
    if vertical:  # hanging from the fixed mass
        positions = [[0.0, 500.0], [0.0, 500.0 - l1], [0.0, 500.0 - l1 - l2]]
    else:
        positions = [[100.0, 300.0], [100.0 + l1, 300.0], [100.0 + l1 + l2, 300.0]]
    return make_creature(positions, [(0, 1), (1, 2)], [l1, l2], fixed=[True, False, False])


def test_fixed_free_chain_longitudinal_frequencies_match_the_two_dof_closed_form():
    world = World(stiffness=0.4, gravity_direction="off")
    mass, s = np.array([1.0, 1.5, 0.7]), np.array([2.0, 0.5])
    modes = natural_modes(_fixed_free_chain(), world, mass=mass, link_stiffness=s)
    kbar = world.stiffness
    k = kbar * np.array([[s[0] + s[1], -s[1]], [-s[1], s[1]]])
    expected = _two_dof_closed_form(np.diag(mass[1:]), k)
    np.testing.assert_allclose(modes.frequencies, expected, rtol=1e-9)
    # no pre-stress: the chain swings freely about the pivot (rigid) and bends at the middle (mechanism)
    assert (modes.zero_modes, modes.rigid_modes, modes.mechanisms) == (2, 1, 1)


def test_hanging_chain_swings_as_seed_004_double_pendulum_from_gravity_pre_load():
    world = World(stiffness=0.4, gravity=0.5)
    mass, s = np.array([1.0, 1.5, 0.7]), np.array([2.0, 0.5])
    modes = natural_modes(_fixed_free_chain(vertical=True), world, mass=mass, link_stiffness=s)
    eq = modes.equilibrium
    assert eq.gravity_used and eq.converged
    g = world.gravity
    t1, t2 = (mass[1] + mass[2]) * g, mass[2] * g
    np.testing.assert_allclose(eq.tensions, [t1, t2], rtol=1e-10)
    l1, l2 = eq.lengths
    m = np.diag(mass[1:])
    transverse = _two_dof_closed_form(m, np.array([[t1 / l1 + t2 / l2, -t2 / l2], [-t2 / l2, t2 / l2]]))
    axial = _two_dof_closed_form(m, world.stiffness * np.array([[s[0] + s[1], -s[1]], [-s[1], s[1]]]))
    np.testing.assert_allclose(modes.frequencies, np.sort(np.r_[transverse, axial]), rtol=1e-9)
    assert modes.zero_modes == 0


@pytest.mark.parametrize("kbar", [0.4, 40.0, 4000.0])
def test_pendulum_small_oscillation_frequency_is_sqrt_g_over_l_from_geometric_stiffness(kbar):
    world = World(stiffness=kbar, gravity=0.5)
    rest = 100.0
    creature = make_creature([[0.0, 500.0], [0.0, 500.0 - rest]], [(0, 1)], [rest], fixed=[True, False])
    modes = natural_modes(creature, world)
    length = modes.equilibrium.lengths[0]
    pendulum, axial = modes.frequencies
    # (a stiff link's tension is a small difference of lengths: ~1e-14 px of round-off times kbar)
    np.testing.assert_allclose(pendulum, np.sqrt(world.gravity / length), rtol=1e-9)
    np.testing.assert_allclose(axial, np.sqrt(kbar), rtol=1e-12)
    # sqrt(g / l) with the rest length, as the link gets stiff: L = l + g / k
    np.testing.assert_allclose(pendulum, np.sqrt(world.gravity / rest), rtol=world.gravity / (kbar * rest))
    # only the geometric part sees the swing: without it the pendulum is a zero mode
    k = modes.stiffness_matrix
    elastic = stiffness_matrix(modes.equilibrium.model, modes.equilibrium.positions, "elastic")[2:, 2:]
    np.testing.assert_allclose(np.linalg.eigvalsh(elastic)[0], 0.0, atol=1e-12 * kbar)
    assert np.linalg.eigvalsh(k)[0] > 0.0


def test_mode_shapes_are_mass_normalised_and_solve_the_generalised_eigenproblem():
    creature = random_creature(7, n_fixed=2)
    mass = np.random.default_rng(7).uniform(0.5, 2.0, creature.n_masses)
    modes = natural_modes(creature, World(), mass=mass, phase=1.0)
    dofs = modes.equilibrium.model.free_dofs
    phi = modes.shapes.reshape(modes.shapes.shape[0], -1)[:, dofs].T
    np.testing.assert_allclose(phi.T @ modes.mass_matrix @ phi, np.eye(dofs.size), atol=1e-10)
    k, m = modes.stiffness_matrix, modes.mass_matrix
    residual = k @ phi - m @ phi * modes.eigenvalues[None, :]
    assert np.max(np.abs(residual)) < 1e-10 * np.max(np.abs(k))
    assert np.all(modes.shapes[:, creature.fixed] == 0.0)


def test_free_creatures_have_three_rigid_modes_and_prestressed_trusses_no_mechanism():
    for creature in (hexagon(50.0, jitter=1.0), tension_spring([5.0, 7.0, 3.0], 40.0)):
        modes = natural_modes(creature, World())
        assert (modes.zero_modes, modes.rigid_modes, modes.mechanisms, modes.unstable_modes) == (3, 3, 0, 0)


def test_pandoras_toybox_mechanism_keeps_the_diagonals_and_moves_the_corners_round_the_circle():
    eq = solve_equilibrium(pandoras_toybox(60.0, 40.0, 12.0), World(), tolerance=TIGHT)
    shape = modes_at(eq).mechanism_shapes()
    assert shape.shape == (1, 4, 2)
    p = eq.positions
    centre = p.mean(axis=0)
    for a, b in ((0, 2), (1, 3)):  # diagonals keep their length to first order
        assert abs((p[b] - p[a]) @ (shape[0, b] - shape[0, a])) < 1e-9
    radial = np.sum((p - centre) * shape[0], axis=1)  # each corner moves along the circle
    np.testing.assert_allclose(radial, 0.0, atol=1e-9)


def test_damped_frequency_is_sqrt_of_omega_squared_minus_quarter_f_squared():
    np.testing.assert_allclose(damped_frequencies([1.0, 0.3], 0.2), [np.sqrt(0.99), np.sqrt(0.08)])
    assert np.isnan(damped_frequencies([0.05], 0.2)[0])  # overdamped


def test_lowest_natural_frequency_and_where_omega_sits():
    world = World(stiffness=0.4, gravity=0.5)
    creature = make_creature([[0.0, 500.0], [0.0, 400.0]], [(0, 1)], [100.0], fixed=[True, False])
    lowest = lowest_natural_frequency(creature, world)
    assert lowest == pytest.approx(np.sqrt(0.5 / (100.0 + 0.5 / 0.4)), rel=1e-12)
    place = place_frequency(0.1, np.array([0.05, 0.2, 0.4]))
    assert place["below"] == 1 and place["nearest_mode"] == 1
    assert place_frequency(0.15, np.array([0.05, 0.2]))["nearest_mode"] == 2
    assert place_frequency(0.1, np.array([]))["nearest_mode"] is None


def test_per_link_stiffness_and_masses_are_taken_from_the_creature_when_its_model_has_them():
    @dataclass(frozen=True, eq=False)
    class WeightedCreature(Creature):
        stiffness: np.ndarray | None = None
        mass: np.ndarray | None = None

    plain = _fixed_free_chain(vertical=True)
    fields = {f.name: getattr(plain, f.name) for f in dataclasses.fields(Creature)}
    fields = {k: v for k, v in fields.items() if k not in ("stiffness", "mass")}
    weighted = WeightedCreature(**fields, stiffness=np.array([2.0, 0.5]), mass=np.array([1.0, 1.5, 0.7]))
    world = World(stiffness=0.4, gravity=0.5)
    from_model = natural_modes(weighted, world)
    given = natural_modes(plain, world, link_stiffness=np.array([2.0, 0.5]), mass=np.array([1.0, 1.5, 0.7]))
    np.testing.assert_allclose(from_model.frequencies, given.frequencies, rtol=1e-12)
    np.testing.assert_array_equal(mass_matrix(weighted), np.diag([1.5, 1.5, 0.7, 0.7]))
