"""Stability of a time step (evo.analysis.stability): each integrator's limit on omega*dt against the
linear theory of a damped oscillator, the frequency bound against the exact eigenvalues of seed 004's
K and M, and the blow-up the warning is about (issue 13, part 3)."""

import glob
import math
from pathlib import Path

import numpy as np
import pytest
from analysis_builders import make_creature, random_creature, wheel

from evo.analysis.forces import static_model, stiffness_matrix
from evo.analysis.stability import (
    amplification,
    check_frequency,
    check_step,
    degree_frequency_bound,
    frequency_bound,
    stability_limit,
)
from evo.io.models import load_model
from evo.io.worlds import resolve_world
from evo.sim import World, simulate

GENOMES = Path(__file__).resolve().parents[2] / "genomes"

# Closed forms for x'' = -omega^2 x - f x' with h = dt, y = omega*h, c = f*h:
#   semi-implicit Euler: trace 2 - c - y^2, det 1 - c: stable while y^2 <= 4 - 2c;
#   forward Euler: |1 + h*lambda|^2 = 1 - c + y^2: stable while y^2 <= c;
#   rk4 and the order-4 Taylor series: |R(iy)| = 1 at y = 2*sqrt(2); order 3: at y = sqrt(3).
THEORY = [
    ("euler", 0.0, 9, 2.0),
    ("euler", 0.025, 9, math.sqrt(4.0 - 0.05)),
    ("euler", 0.3, 9, math.sqrt(4.0 - 0.6)),
    ("finite-difference", 0.0, 9, 2.0),
    ("explicit-euler", 0.025, 9, math.sqrt(0.025)),
    ("explicit-euler", 0.1, 9, math.sqrt(0.1)),
    ("rk4", 0.0, 9, 2.0 * math.sqrt(2.0)),
    ("psm", 0.0, 4, 2.0 * math.sqrt(2.0)),
    ("psm", 0.0, 3, math.sqrt(3.0)),
]


@pytest.mark.parametrize("integrator, damping_dt, order, limit", THEORY)
def test_each_integrators_limit_is_the_damped_oscillators_linear_stability_bound(
    integrator, damping_dt, order, limit
):
    # 1e-5: the scan counts a per-step growth up to 1e-6 as stable, which moves a sharp limit by less
    assert stability_limit(integrator, damping_dt, order) == pytest.approx(limit, abs=1e-5)


def test_backward_euler_never_amplifies_and_has_no_limit():
    assert stability_limit("backward-euler", 0.0) == math.inf
    assert max(amplification("backward-euler", y) for y in (0.1, 2.0, 30.0)) <= 1.0


def test_just_beyond_its_limit_a_step_amplifies_the_oscillation():
    for integrator, damping_dt, order, _ in THEORY:
        limit = stability_limit(integrator, damping_dt, order)
        assert amplification(integrator, limit * 0.999, damping_dt, order) <= 1.0 + 1e-6
        assert amplification(integrator, limit * 1.01, damping_dt, order) > 1.0 + 1e-6


def test_the_bound_is_exact_for_one_spring_free_or_tied_to_a_fixed_mass():
    spring = make_creature([[0.0, 0.0], [30.0, 40.0]], [(0, 1)], [50.0]).replace(mass=[2.0, 2.0])
    assert frequency_bound(spring, World(stiffness=0.3)) == pytest.approx(math.sqrt(2 * 0.3 / 2.0), rel=1e-12)
    tied = make_creature([[0.0, 0.0], [30.0, 40.0]], [(0, 1)], [50.0], fixed=[True, False])
    assert frequency_bound(tied, World(stiffness=0.3)) == pytest.approx(math.sqrt(0.3), rel=1e-12)


def exact_highest_frequency(creature, world):
    """sqrt of the largest eigenvalue of M^-1/2 K M^-1/2 (free coordinates, dense), rad/frame."""
    model = static_model(creature, world)
    dofs = model.free_dofs
    k = stiffness_matrix(model, np.asarray(creature.positions, dtype=float))[np.ix_(dofs, dofs)]
    m = np.repeat(model.mass[model.free], 2)
    return math.sqrt(max(np.linalg.eigvalsh(k / np.sqrt(np.outer(m, m)))[-1], 0.0))


@pytest.mark.parametrize("seed", range(8))
def test_the_bound_is_never_below_the_exact_highest_frequency_and_within_a_factor_two_of_its_square(seed):
    creature = random_creature(seed, n_fixed=seed % 3)
    rng = np.random.default_rng(seed)
    creature = creature.replace(
        mass=rng.uniform(0.5, 2.0, creature.n_masses), stiffness=rng.uniform(0.5, 3.0, creature.n_links)
    )
    world = World(stiffness=0.2)
    exact, bound = exact_highest_frequency(creature, world), frequency_bound(creature, world)
    assert exact <= bound * (1 + 1e-12)
    assert bound**2 <= 2.0 * exact**2


def test_penalty_contact_adds_the_grounds_stiffness_over_the_mass():
    creature = random_creature(3)
    soda, penalty = World(), World(contact="penalty", ground_stiffness=2.5)
    assert frequency_bound(creature, penalty) ** 2 == pytest.approx(
        frequency_bound(creature, soda) ** 2 + 2.5
    )


def test_the_genome_bound_is_the_max_degree_rule():
    world = World(stiffness=0.4)
    assert degree_frequency_bound(world, 4) == pytest.approx(math.sqrt(2 * 4 * 0.4))
    assert check_frequency(degree_frequency_bound(world, 4), world).stable  # the [genome] default
    assert not check_frequency(degree_frequency_bound(world, 5, link_stiffness=1.5), world).stable


def test_a_wheel_of_16_masses_and_120_links_is_warned_about_and_blows_up_as_warned():
    world = World(stiffness=0.19)
    for seed in range(3):
        creature = wheel(seed)
        check = check_step(creature, world)
        assert not check.stable and check.omega_dt > check.limit
        assert check.rk4_stable and check.smaller_dt == 0.5
        trajectory = simulate(creature, world, 3000)
        assert trajectory.exploded
        assert 0 < trajectory.exploded_frame < 3000
        assert trajectory.frames[-1] < trajectory.exploded_frame  # the run stopped there
        for fixed in (World(stiffness=0.19, integrator="rk4"), World(stiffness=0.19, dt=check.smaller_dt)):
            assert check_step(creature, fixed).stable
            calm = simulate(creature, fixed, 3000, record_every=10)
            assert not calm.exploded  # no mass ever faster than 200 px/frame (the wheel is 170 px across)
            assert calm.frames[-1] == 3000.0


@pytest.mark.parametrize(
    "path", sorted(glob.glob(str(GENOMES / "*.json")) + glob.glob(str(GENOMES / "classic" / "[ps]*.xml")))
)
def test_no_shipped_genome_is_warned_about(path):
    creature = load_model(path)
    assert check_step(creature, resolve_world([(creature.world, path, "world")])).stable
