"""Seed 000 chapter 3: the virtual experiments that pin down the applet's constants.

Each test rebuilds one experiment (pendulum, spring–mass, static extension, damped oscillation, bounce),
measures what the paper measured, and compares it first with theory (tight tolerances, derived from the
integrator's known errors) and, where the paper reports its own measurements, with those (looser tolerances,
set by how the paper measured: a stopwatch read to 1 s, lengths read to whole pixels).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _builders import (
    creature,
    damping_of,
    gravity_of,
    peaks,
    period_from_crossings,
    run,
    settle,
    stiffness_of,
    world,
)

PIVOT = (0.0, 1000.0)

# Experiments 1–5 (§3.1): gravity cursor, pendulum length (px), and the paper's measurement: total time of
# n oscillations on its stopwatch (s), n, and the period it derived (frames; 110.81 frames per second).
PENDULUM_EXPERIMENTS = {
    1: (20, 374.0, 293, 100, 324.67),
    2: (29, 374.0, 202, 100, 223.84),
    3: (40, 375.0, 220, 150, 162.52),
    4: (50, 375.0, 176, 150, 130.02),
    5: (60, 376.0, 196, 200, 108.59),
}

# Experiments 9–13 (§3.3): stiffness cursor, stopwatch time (s), oscillations, the paper's period (frames).
SPRING_EXPERIMENTS = {
    9: (6, 142, 100, 157.35),
    10: (8, 160, 150, 118.20),
    11: (10, 128, 150, 94.56),
    12: (12, 107, 150, 79.04),
    13: (14, 91, 150, 67.22),
}

# Experiments 6–8 (§3.2, Tables 3.2–3.4): stiffness cursor -> extension (px) read for p_g = 30, 40, ..., 100.
STATIC_EXPERIMENTS = {
    6: (20, (18, 32, 50, 72, 98, 128, 162, 200)),
    7: (25, (11, 20, 32, 46, 62, 81, 103, 128)),
    8: (30, (8, 14, 22, 32, 43, 56, 72, 88)),
}
GRAVITY_CURSORS = (30, 40, 50, 60, 70, 80, 90, 100)

# Experiments 14–23 (§3.4): damping cursor, stiffness cursor, cycles ν between the two peaks read, and the
# peaks the paper read, x_n and x_(n+ν) (px).
DECREMENT_EXPERIMENTS = {
    14: (1, 6, 72, 291, 177),
    15: (1, 8, 100, 290, 173),
    16: (2, 6, 24, 311, 160),
    17: (2, 8, 32, 312, 161),
    18: (3, 6, 20, 306, 88),
    19: (3, 8, 27, 308, 87),
    20: (4, 6, 17, 298, 46),
    21: (4, 8, 22, 303, 49),
    22: (5, 6, 10, 289, 51),
    23: (5, 8, 13, 295, 55),
}


def stopwatch_tolerance(seconds: float, oscillations: int) -> float:
    """Relative uncertainty of a period the paper timed: 1 s on the stopwatch over the whole run, plus its
    rounding of the period to 0.01 s."""
    return 1.0 / seconds + 0.005 / (seconds / oscillations)


# -- pendulum (Experiments 1–5, Appendix A) ---------------------------------------------------------


def pendulum_period(gravity_cursor: int, length: float, amplitude: float = 0.05) -> float:
    """Period (frames) of a pendulum of hanging length ``length`` on the stiffest spring, no damping,
    released ``amplitude`` rad from the vertical, read from the upward zero crossings of x over ~10 swings."""
    g, k = gravity_of(gravity_cursor), stiffness_of(107)
    bob = (PIVOT[0] + length * math.sin(amplitude), PIVOT[1] - length * math.cos(amplitude))
    # rest length shortened by the static stretch g/k̄, so that the hanging length is exactly ``length``
    body = creature([PIVOT, bob], [(0, 1, length - g / k)], fixed=[0])
    in_world = world(gravity_cursor=gravity_cursor, stiffness_cursor=107, damping=0.0)
    frames = math.ceil(10.5 * 2 * math.pi * math.sqrt(length / g))
    trajectory = run(body, in_world, frames)
    return period_from_crossings(trajectory.frames, trajectory.positions[:, 1, 0] - PIVOT[0])


@pytest.mark.parametrize("experiment", sorted(PENDULUM_EXPERIMENTS))
def test_a_pendulum_swings_with_period_two_pi_root_l_over_g(experiment):
    gravity_cursor, length, seconds, oscillations, paper_frames = PENDULUM_EXPERIMENTS[experiment]
    theory = 2 * math.pi * math.sqrt(length / gravity_of(gravity_cursor))
    measured = pendulum_period(gravity_cursor, length)
    # 0.1%: the finite 0.05 rad swing lengthens the period by α²/16 = 1.6e-4, semi-implicit Euler shortens it
    # by (ω·dt)²/24 < 2e-5, and the spring's stretch is compensated in the rest length (what is left of it,
    # the swing-dependent part, is < 1e-5 of l).
    assert measured == pytest.approx(theory, rel=1e-3)
    # The paper's own stopwatch measurement agrees within its resolution (≤ 1%).
    assert measured == pytest.approx(paper_frames, rel=stopwatch_tolerance(seconds, oscillations))


def test_experiment_1_gives_the_papers_324_67_frames_within_one_percent():
    assert pendulum_period(20, 374.0) == pytest.approx(324.67, rel=0.01)


# -- spring–mass period (Experiments 9–13, Appendix B) ----------------------------------------------


def spring_period(stiffness_cursor: int, gravity_cursor: int) -> float:
    """Period (frames) of a mass hanging on one spring, 100 px from equilibrium, no damping; read from the
    upward crossings of the equilibrium over ~20 oscillations."""
    k, g = stiffness_of(stiffness_cursor), gravity_of(gravity_cursor)
    rest = 300.0
    top = (0.0, 3000.0)  # high enough that even p_g = 60 on p_k = 6 (g/k̄ = 792 px) stays off the floor
    equilibrium = top[1] - rest - g / k
    body = creature([top, (0.0, equilibrium + 100.0)], [(0, 1, rest)], fixed=[0])
    in_world = world(gravity_cursor=gravity_cursor, stiffness_cursor=stiffness_cursor, damping=0.0)
    trajectory = run(body, in_world, math.ceil(20.5 * 2 * math.pi / math.sqrt(k)))
    return period_from_crossings(trajectory.frames, trajectory.positions[:, 1, 1], equilibrium)


@pytest.mark.parametrize("gravity_cursor", [0, 20, 60], ids=["no-gravity", "pg20", "pg60"])
@pytest.mark.parametrize("experiment", sorted(SPRING_EXPERIMENTS))
def test_a_mass_on_a_spring_oscillates_with_period_two_pi_over_root_k(experiment, gravity_cursor):
    stiffness_cursor, seconds, oscillations, paper_frames = SPRING_EXPERIMENTS[experiment]
    k = stiffness_of(stiffness_cursor)
    measured = spring_period(stiffness_cursor, gravity_cursor)
    # 0.1%: semi-implicit Euler oscillates at Ω with 2 − 2cos(Ω·dt) = k̄·dt², i.e. a period shorter by
    # k̄·dt²/24 ≤ 3.6e-4 for p_k ≤ 14. Gravity only shifts the equilibrium, so it must not matter.
    assert measured == pytest.approx(2 * math.pi / math.sqrt(k), rel=1e-3)
    # ... and that remaining difference is exactly the one the integrator predicts (crossing interpolation
    # over 20 periods is good to ~1e-5).
    assert measured == pytest.approx(2 * math.pi / (2 * math.asin(math.sqrt(k) / 2)), rel=2e-5)
    assert measured == pytest.approx(paper_frames, rel=stopwatch_tolerance(seconds, oscillations))


# -- static extension (Experiments 6–8) -------------------------------------------------------------


@pytest.mark.parametrize("experiment", sorted(STATIC_EXPERIMENTS))
def test_a_hanging_mass_stretches_its_spring_by_g_over_k(experiment):
    stiffness_cursor, paper_extensions = STATIC_EXPERIMENTS[experiment]
    k = stiffness_of(stiffness_cursor)
    rest = 300.0
    body = creature([PIVOT, (0.0, PIVOT[1] - rest)], [(0, 1, rest)], fixed=[0])
    for gravity_cursor, paper in zip(GRAVITY_CURSORS, paper_extensions, strict=True):
        # critical damping 2·sqrt(k̄) so the mass comes to rest within a few hundred frames
        in_world = world(
            gravity_cursor=gravity_cursor, stiffness_cursor=stiffness_cursor, damping=2 * math.sqrt(k)
        )
        final = settle(body, in_world, 600)
        extension = PIVOT[1] - final[1, 1] - rest
        # 1e-6 px: the semi-implicit Euler's fixed point is the exact static equilibrium; the mass is at rest
        # to 1e-9 px/frame, i.e. within ~1e-8 px of it.
        assert extension == pytest.approx(gravity_of(gravity_cursor) / k, abs=1e-6)
        # The paper read extensions to whole pixels (±1 px), and the §3.6 law it used differs by up to 1%
        # from the stiffness of its static tables (Table 3.5 against (3.26)): 1 px + 1.5%.
        assert extension == pytest.approx(paper, abs=1.0 + 0.015 * extension)


# -- logarithmic decrement (Experiments 14–23, formula 3.30) ----------------------------------------


def decrement(damping_cursor: int, stiffness_cursor: int, cycles: int) -> tuple[float, float]:
    """Release a hanging mass 300 px above equilibrium with damping on; return (δ, f̄ from formula 3.30)
    using the first peak after release and the one ``cycles`` later."""
    k, g = stiffness_of(stiffness_cursor), gravity_of(20)
    rest = 500.0
    top = (0.0, 2000.0)
    equilibrium = top[1] - rest - g / k
    body = creature([top, (0.0, equilibrium + 300.0)], [(0, 1, rest)], fixed=[0])
    in_world = world(gravity_cursor=20, stiffness_cursor=stiffness_cursor, damping_cursor=damping_cursor)
    trajectory = run(body, in_world, math.ceil((cycles + 2) * 2 * math.pi / math.sqrt(k)))
    _, values = peaks(trajectory.positions[:, 1, 1] - equilibrium)
    delta = math.log(values[0] / values[cycles])
    f_bar = 2 * math.sqrt(k) / math.sqrt(1 + (2 * cycles * math.pi / delta) ** 2)
    return delta, f_bar


@pytest.mark.parametrize("experiment", sorted(DECREMENT_EXPERIMENTS))
def test_the_logarithmic_decrement_gives_back_the_damping_through_formula_3_30(experiment):
    damping_cursor, stiffness_cursor, cycles, paper_first, paper_last = DECREMENT_EXPERIMENTS[experiment]
    delta, f_bar = decrement(damping_cursor, stiffness_cursor, cycles)
    # 0.2%: semi-implicit Euler multiplies the amplitude by sqrt(1 − f̄·dt) per step, a decay rate larger by
    # a factor (1 + f̄·dt/2) ≤ 1.0011 for p_f ≤ 5; its frequency shift (k̄/24 ≤ 1.2e-4) and the parabolic
    # peak refinement (< 1e-4) add less.
    assert f_bar == pytest.approx(damping_of(damping_cursor), rel=2e-3)
    # The paper's own δ: peaks read to ±0.5 px each, and the law's f̄_p is the mean of ratios that scatter
    # by up to 0.4% (Table 3.7), so allow 0.5/x_n + 0.5/x_(n+ν) + 1% of δ.
    paper_delta = math.log(paper_first / paper_last)
    tolerance = 0.5 / paper_first + 0.5 / paper_last + 0.01 * paper_delta
    assert delta == pytest.approx(paper_delta, abs=tolerance)


# -- collisions (§3.5) ------------------------------------------------------------------------------

DROP_HEIGHT = 422.0  # h1 of the paper's bounce experiment, px
DROP_GRAVITY = 0.5
C_NORMAL, C_TANGENTIAL = 0.75, 0.10


def bounce(dt: float, across: float):
    """Drop a lone mass from h1 with horizontal speed ``across`` (px/frame), no damping; record every step."""
    body = creature([(0.0, DROP_HEIGHT)], [], velocities=[(across, 0.0)])
    in_world = world(
        gravity=DROP_GRAVITY,
        damping=0.0,
        dt=dt,
        restitution_normal=C_NORMAL,
        restitution_tangential=C_TANGENTIAL,
    )
    trajectory = run(body, in_world, 160, record_every=dt)
    impacts = np.nonzero(trajectory.positions[1:, 0, 1] == 0.0)[0] + 1
    return trajectory, impacts


@pytest.mark.parametrize("dt", [1.0, 0.125])
def test_an_impact_reverses_and_scales_the_normal_velocity_by_c_o_and_the_tangential_by_c_t(dt):
    trajectory, impacts = bounce(dt, across=9.0)
    assert impacts.size >= 2
    v = trajectory.velocities[:, 0]
    for i in impacts[:2]:
        # The step that hits the floor first adds −g·dt to the velocity, then the impact acts on it; the law
        # v_n → −c_o·v_n, v_t → c_t·v_t holds exactly per impact, so only rounding (1e-12) is allowed.
        arriving = v[i - 1, 1] - DROP_GRAVITY * dt
        assert arriving < 0.0
        assert v[i, 1] == pytest.approx(-C_NORMAL * arriving, rel=1e-12)
        assert v[i, 0] == pytest.approx(C_TANGENTIAL * v[i - 1, 0], rel=1e-12)


@pytest.mark.parametrize("dt", [1.0, 0.125])
def test_a_dropped_mass_rebounds_to_c_o_squared_of_its_height(dt):
    trajectory, impacts = bounce(dt, across=0.0)
    first, second = impacts[:2]
    rebound = trajectory.positions[first:second, 0, 1].max()
    # Discrete time is the only error: the mass lands up to one step (|v|·dt) below the floor and is put back
    # on it, and semi-implicit Euler's apex is off by up to v·dt; with u = sqrt(2·g·h1) + g·dt this bounds
    # |h2/h1 − c_o²| by (c_o²/2 + c_o)·u·dt/h1 (5% of the ratio at dt = 1, 0.6% at dt = 1/8).
    u = math.sqrt(2 * DROP_GRAVITY * DROP_HEIGHT) + DROP_GRAVITY * dt
    tolerance = (C_NORMAL**2 / 2 + C_NORMAL) * u * dt / DROP_HEIGHT
    assert rebound / DROP_HEIGHT == pytest.approx(C_NORMAL**2, abs=tolerance)


@pytest.mark.parametrize("dt", [1.0, 0.125])
def test_the_papers_distance_method_recovers_c_t(dt):
    """(3.42): c_t = d2 / (2·d1) · sqrt(h1/h2), from the flight before and after the first bounce."""
    trajectory, impacts = bounce(dt, across=9.0)
    first, second = impacts[:2]
    x, y = trajectory.positions[:, 0, 0], trajectory.positions[:, 0, 1]
    d1, d2 = x[first] - x[0], x[second] - x[first]
    h2 = y[first:second].max()
    estimate = d2 / (2 * d1) * math.sqrt(DROP_HEIGHT / h2)
    # d1 and d2 are each read at whole steps (relative error dt/t1 and 2·dt/t2), and sqrt(h1/h2) carries half
    # the relative error of the rebound height bounded above.
    t1 = math.sqrt(2 * DROP_HEIGHT / DROP_GRAVITY)
    t2 = 2 * math.sqrt(2 * h2 / DROP_GRAVITY)
    u = math.sqrt(2 * DROP_GRAVITY * DROP_HEIGHT) + DROP_GRAVITY * dt
    height_error = (C_NORMAL**2 / 2 + C_NORMAL) * u * dt / DROP_HEIGHT / C_NORMAL**2
    assert estimate == pytest.approx(C_TANGENTIAL, rel=dt / t1 + 2 * dt / t2 + height_error / 2)
