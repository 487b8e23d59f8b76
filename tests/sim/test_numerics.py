"""Properties of the integrators themselves: determinism and order of convergence."""

from __future__ import annotations

import numpy as np
import pytest
from _builders import GENOMES, creature, fit_slope, run, world

from evo.io.models import load_model
from evo.sim import World, simulate


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
@pytest.mark.parametrize("genome", ["walker", "inchworm", "galloper", "linear_motor_3pt"])
def test_the_same_input_gives_a_bit_identical_trajectory(genome, integrator):
    body = load_model(GENOMES / f"{genome}.json")
    in_world = World().updated(body.world).updated({"integrator": integrator})
    first = simulate(body, in_world, 1500)
    second = simulate(body, in_world, 1500)
    assert np.array_equal(first.frames, second.frames)
    assert np.array_equal(first.positions, second.positions)
    assert np.array_equal(first.velocities, second.velocities)
    assert first.exploded == second.exploded


# A smooth problem: a 2-D spring pendulum (elastic, swinging and stretching at once) that never touches the
# floor, optionally driven by its spring being a muscle, so the time-dependent rest length is exercised too.
PIVOT = (0.0, 1000.0)
SMOOTH_WORLD = {"stiffness": 0.05, "damping": 0.01, "gravity": 0.3}
HORIZON = 64  # frames
STEPS = (1.0, 1 / 2, 1 / 4, 1 / 8)  # dt must divide a frame


def spring_pendulum(muscle: bool):
    link = (0, 1, 200.0, 0.3, 0.7) if muscle else (0, 1, 200.0)
    return creature(
        [PIVOT, (120.0, 800.0)],
        [link],
        fixed=[0],
        velocities=[(0.0, 0.0), (1.0, 0.5)],
        omega=0.05 if muscle else 0.0,
        beta=1.0 if muscle else 0.0,
    )


def final_state(body, integrator: str, dt: float) -> np.ndarray:
    trajectory = run(body, world(**SMOOTH_WORLD, integrator=integrator, dt=dt), HORIZON, record_every=HORIZON)
    return np.concatenate([trajectory.positions[-1, 1], trajectory.velocities[-1, 1]])


def errors(body, integrator: str) -> list[float]:
    # reference: rk4 at dt = 1/512, whose own error (~1e-12 px here) is far below the coarsest runs' errors
    reference = final_state(body, "rk4", 1 / 512)
    return [float(np.abs(final_state(body, integrator, dt) - reference).max()) for dt in STEPS]


@pytest.mark.parametrize("muscle", [False, True], ids=["spring", "muscle"])
def test_rk4_converges_at_fourth_order(muscle):
    errs = errors(spring_pendulum(muscle), "rk4")
    # 4 ± 0.3: measured slopes here are 3.97–4.02; the tolerance leaves room for the pre-asymptotic
    # part at dt = 1 (ω·dt ≈ 0.22) without admitting a third-order method.
    assert fit_slope(STEPS, errs) == pytest.approx(4.0, abs=0.3)
    assert errs[-1] < 1e-5  # and the finest run is accurate in absolute terms (px, px/frame)


@pytest.mark.parametrize("muscle", [False, True], ids=["spring", "muscle"])
def test_semi_implicit_euler_converges_at_first_order(muscle):
    errs = errors(spring_pendulum(muscle), "euler")
    # 1 ± 0.2: measured ~1.05; the global error of symplectic Euler is O(dt).
    assert fit_slope(STEPS, errs) == pytest.approx(1.0, abs=0.2)
