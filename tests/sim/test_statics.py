"""Seed 000 chapter 10 (static and quasi-static shapes) and §7.3 (overlapping masses).

The structures are left to settle with gravity off and damping on, and their final shapes are compared with
the paper's closed forms: the hexagon (10.10), the tension spring (10.22–10.23) and its inverse recipe,
Pandora's ToyBox (10.13) and the 3-point linear motor (10.31, period doubling).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _builders import (
    along_the_line,
    autocorrelation,
    creature,
    link_lengths,
    polar,
    run,
    settle,
    stiffness_of,
    world,
)

CENTRE = (500.0, 500.0)  # far from the floor: nothing here may touch it
NO_GRAVITY = {"gravity_direction": "off"}

# Settled shapes are compared to 1e-6 px: the creatures are brought to rest (speeds < 1e-9 px/frame), and
# the semi-implicit Euler's fixed points are exactly the static equilibria of (10.2).
AT_REST = 1e-6


# -- regular hexagon (§10.2) ------------------------------------------------------------------------


def hexagon(diagonal_rest: float, start_radius: float, jitter: np.ndarray | None = None):
    """Six zip springs round the border and three diagonals of rest ``diagonal_rest`` (px)."""
    corners = np.array([polar(start_radius, i * math.pi / 3, CENTRE) for i in range(6)])
    if jitter is not None:
        corners = corners + jitter
    links = [(i, (i + 1) % 6, 0.0) for i in range(6)] + [(i, i + 3, diagonal_rest) for i in range(3)]
    return creature(corners, links)


@pytest.mark.parametrize("start", ["regular", "shrunk", "stretched", "jittered"])
@pytest.mark.parametrize("diagonal_rest", [60.0, 150.0, 300.0])
def test_a_hexagon_of_zip_springs_settles_with_diagonals_two_thirds_of_their_rest(diagonal_rest, start):
    radius = {"regular": 0.5, "shrunk": 0.25, "stretched": 0.7, "jittered": 0.5}[start] * diagonal_rest
    jitter = None
    if start == "jittered":
        jitter = np.random.default_rng(7).normal(0.0, 0.05 * diagonal_rest, (6, 2))
    body = hexagon(diagonal_rest, radius, jitter)
    final = settle(body, world(damping=0.1, **NO_GRAVITY), 3000)
    lengths = link_lengths(final, body)
    b = 2 * diagonal_rest / 3
    np.testing.assert_allclose(lengths[6:], b, atol=AT_REST)  # diagonals: b = 2l/3 (10.10)
    np.testing.assert_allclose(lengths[:6], b / 2, atol=AT_REST)  # sides of a regular hexagon of diameter b
    # and all six corners on the circle of diameter b around their centroid
    radii = np.hypot(*(final - final.mean(axis=0)).T)
    np.testing.assert_allclose(radii, b / 2, atol=AT_REST)


# -- tension springs (§10.4) ------------------------------------------------------------------------


def tension_spring(rests, compressed_rest, wobble: float = 2.0):
    """A chain of springs of rests ``rests`` from mass 0 to mass N, and one spring of rest
    ``compressed_rest`` from mass 0 to mass N. The chain starts short and slightly zig-zagged."""
    n = len(rests)
    spacing = np.array(rests) + 1.0  # zip springs (rest 0) in the chain still get some room
    xs = np.concatenate([[0.0], np.cumsum(spacing)]) * 0.9 * compressed_rest / spacing.sum() + CENTRE[0]
    ys = np.full(n + 1, CENTRE[1])
    ys[1:-1] += wobble * (-1.0) ** np.arange(1, n)
    links = [(i, i + 1, r) for i, r in enumerate(rests)] + [(0, n, compressed_rest)]
    return creature(np.column_stack([xs, ys]), links)


@pytest.mark.parametrize(
    "rests, compressed_rest",
    [
        ((40.0,), 100.0),
        ((20.0, 30.0), 120.0),
        ((10.0, 20.0, 30.0), 100.0),
        ((15.0,) * 5, 200.0),
        ((5.0, 50.0, 5.0, 40.0, 10.0, 30.0, 20.0), 400.0),
    ],
    ids=["N1", "N2", "N3", "N5", "N7-uneven"],
)
def test_a_tension_spring_settles_at_n_l0_plus_the_rests_over_n_plus_one(rests, compressed_rest):
    body = tension_spring(rests, compressed_rest)
    final = settle(body, world(damping=0.1, **NO_GRAVITY), 6000)
    lengths = link_lengths(final, body)
    n = len(rests)
    stretch = (compressed_rest - sum(rests)) / (n + 1)  # (10.22)
    assert lengths[-1] == pytest.approx((n * compressed_rest + sum(rests)) / (n + 1), abs=AT_REST)  # (10.23)
    np.testing.assert_allclose(lengths[:-1], np.array(rests) + stretch, atol=AT_REST)  # (10.21)
    assert lengths[:-1].sum() == pytest.approx(lengths[-1], abs=AT_REST)  # (10.15): the chain is straight


@pytest.mark.parametrize(
    "targets, chosen_l0_rest",
    [((30.0, 30.0, 30.0), 120.0), ((25.0, 60.0, 40.0, 35.0), 170.0), ((80.0, 20.0), 110.0)],
)
def test_the_inverse_recipe_gives_rests_that_settle_at_the_target_lengths(targets, chosen_l0_rest):
    # §10.4, inverse problem: (1) pick l0 rest > l0 = Σ l_i, (2) Δl = l0 rest − l0, (3) l_i rest = l_i − Δl.
    total = sum(targets)
    stretch = chosen_l0_rest - total
    rests = tuple(t - stretch for t in targets)
    assert min(rests) >= 0.0
    body = tension_spring(rests, chosen_l0_rest)
    final = settle(body, world(damping=0.1, **NO_GRAVITY), 6000)
    lengths = link_lengths(final, body)
    np.testing.assert_allclose(lengths[:-1], targets, atol=AT_REST)
    assert lengths[-1] == pytest.approx(total, abs=AT_REST)


# -- Pandora's ToyBox (§10.3) -----------------------------------------------------------------------

BOX_DIAGONAL_REST = 200.0
# Stiffness cursor 30 (k̄ ≈ 0.04): at the default k̄ = 0.4 some starts lock into a period-2 flip of the box
# through its centre, a known limit cycle of the explicit integrator at large k̄·dt² (see the report).
BOX_WORLD = {"stiffness_cursor": 30, "damping": 0.05, **NO_GRAVITY}
BOX_STARTS = {
    "square": [(0, 0), (100, 0), (100, 100), (0, 100)],
    "wide": [(0, 0), (180, 0), (180, 60), (0, 60)],
    "tall": [(0, 0), (50, 0), (50, 150), (0, 150)],
    "kite": [(0, 0), (120, -20), (160, 90), (-10, 70)],
    "parallelogram": [(0, 0), (150, 0), (200, 80), (50, 80)],
    "trapezoid": [(0, 0), (150, 0), (110, 80), (40, 80)],
}


def settled_box(start: str) -> np.ndarray:
    corners = np.array(BOX_STARTS[start], dtype=float) + CENTRE
    links = [
        (0, 1, 0.0),
        (1, 2, 0.0),
        (2, 3, 0.0),
        (3, 0, 0.0),
        (0, 2, BOX_DIAGONAL_REST),
        (1, 3, BOX_DIAGONAL_REST),
    ]
    return settle(creature(corners, links), world(**BOX_WORLD), 8000)


def aspect(corners: np.ndarray) -> float:
    return float(np.hypot(*(corners[1] - corners[0])) / np.hypot(*(corners[2] - corners[1])))


@pytest.mark.parametrize("start", sorted(BOX_STARTS))
def test_pandoras_box_settles_as_a_rectangle_with_its_diagonals_halved(start):
    corners = settled_box(start)
    sides = [corners[(i + 1) % 4] - corners[i] for i in range(4)]
    for i in range(4):  # every corner a right angle
        cosine = np.dot(sides[i], sides[(i + 1) % 4]) / np.hypot(*sides[i]) / np.hypot(*sides[(i + 1) % 4])
        assert abs(cosine) < 1e-9
    diagonals = np.hypot(*(corners[2] - corners[0])), np.hypot(*(corners[3] - corners[1]))
    radius = diagonals[0] / 2  # r of Fig. 10.4: every corner on the circle of diameter the diagonal
    k = stiffness_of(30)
    for i in range(4):
        # the two zip springs pull corner i with k̄·(neighbour − corner) each; (10.13): |R| = 2·k̄·r
        pull = k * (corners[(i + 1) % 4] - corners[i]) + k * (corners[(i - 1) % 4] - corners[i])
        assert np.hypot(*pull) == pytest.approx(2 * k * radius, abs=AT_REST * k)
    for diagonal in diagonals:
        # and R is what compresses the diagonal: k̄·(d − D) = 2·k̄·r, hence D = d/2 whatever the shape
        assert k * (BOX_DIAGONAL_REST - diagonal) == pytest.approx(2 * k * radius, abs=AT_REST * k)
        assert diagonal == pytest.approx(BOX_DIAGONAL_REST / 2, abs=AT_REST)


def test_pandoras_box_keeps_whatever_rectangle_it_starts_from():
    # Indifferent equilibrium: a rectangular start only moves along the radii, so it keeps its aspect ratio;
    # other starts end as some other rectangle. All of them are equilibria of the same box.
    aspects = {start: aspect(settled_box(start)) for start in BOX_STARTS}
    assert aspects["square"] == pytest.approx(1.0, rel=1e-9)
    assert aspects["wide"] == pytest.approx(3.0, rel=1e-9)
    assert aspects["tall"] == pytest.approx(1 / 3, rel=1e-9)
    distinct = np.unique(np.round(list(aspects.values()), 3))
    assert distinct.size == len(BOX_STARTS)


# -- 3-point linear motor (§10.5) -------------------------------------------------------------------

MOTOR_REST = 40.0
MOTOR_PHASES = (0.0, 2 * math.pi / 3, 4 * math.pi / 3)
MOTOR_WORLD = {"stiffness": 0.4, "damping": 0.1, **NO_GRAVITY}


def linear_motor(period: int):
    """Three equal muscles (α = β = 1) timed at 0, 1/3 and 2/3 of a wave of ``period`` frames."""
    corners = [polar(MOTOR_REST / math.sqrt(3), math.pi / 2 + i * 2 * math.pi / 3, CENTRE) for i in range(3)]
    links = [(i, (i + 1) % 3, MOTOR_REST, 1.0, MOTOR_PHASES[i]) for i in range(3)]
    return creature(corners, links, omega=2 * math.pi / period, beta=1.0)


@pytest.mark.parametrize("period", [100, 200, 400])
def test_the_3pt_linear_motor_moves_with_twice_the_muscles_period(period):
    trajectory = run(linear_motor(period), world(**MOTOR_WORLD), 30 * period)
    s = along_the_line(trajectory.positions[10 * period :])  # after it has folded into a line
    relative = s[:, 1] - s[:, 0]
    relative = relative - relative.mean()
    # After one muscle period the motion is the mirror image, after two it repeats (rounding aside).
    assert autocorrelation(relative, period) < -0.999
    assert autocorrelation(relative, 2 * period) > 0.999
    # The strongest Fourier component is at 2T: the bin nearest to 1/(2T) (20 periods of the muscles give
    # exactly 10 cycles of the motion in the window, so that bin is exact).
    spectrum = np.abs(np.fft.rfft(relative[: 20 * period]))
    assert int(np.argmax(spectrum)) == 10


def test_the_3pt_linear_motor_follows_the_papers_quasi_static_solution():
    period = 400
    trajectory = run(linear_motor(period), world(**MOTOR_WORLD), 10 * period)
    later = slice(5 * period, None)
    s = along_the_line(trajectory.positions[later])
    t = trajectory.frames[later]
    link_of = {(0, 1): 0, (1, 2): 1, (0, 2): 2}  # pair of masses -> link (link 2 joins masses 2 and 0)

    def rest_of(i: int, j: int, frame: float) -> float:
        phase = MOTOR_PHASES[link_of[(min(i, j), max(i, j))]]
        return MOTOR_REST * (1 + math.sin(2 * math.pi * frame / period + phase))  # (10.24)

    worst = 0.0
    for n in range(s.shape[0]):
        a, b, c = np.argsort(s[n])  # masses from one end of the line to the other
        ab, ac, bc = rest_of(a, b, t[n]), rest_of(a, c, t[n]), rest_of(b, c, t[n])
        # (10.31), written for whichever ordering a < b < c the masses are in at this frame
        expected_b = (2 * ab + ac - bc) / 3
        expected_c = (ab + 2 * ac + bc) / 3
        worst = max(worst, abs(s[n, b] - s[n, a] - expected_b), abs(s[n, c] - s[n, a] - expected_c))
    # Quasi-static means neglecting inertia and damping: the masses lag by (neglected force)/stiffness, at
    # most max|a + f̄·v|/k̄ per mass. That is the tolerance, taken from the run itself.
    velocities = trajectory.velocities[later]
    accelerations = np.diff(velocities, axis=0)
    neglected = np.hypot(*(accelerations + MOTOR_WORLD["damping"] * velocities[:-1]).transpose(2, 0, 1))
    assert worst < neglected.max() / MOTOR_WORLD["stiffness"]
    assert worst < 0.01 * MOTOR_REST


# -- overlapping masses (§7.3) ----------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.0, 0.8], ids=["spring", "muscle"])
def test_two_masses_on_the_same_point_exert_no_force_on_each_other(alpha):
    body = creature([CENTRE, CENTRE], [(0, 1, 50.0, alpha, 0.3)], omega=0.1, beta=1.0)
    trajectory = run(body, world(**NO_GRAVITY), 200)
    assert np.all(np.isfinite(trajectory.velocities))
    np.testing.assert_array_equal(trajectory.positions, np.broadcast_to(CENTRE, trajectory.positions.shape))
    np.testing.assert_array_equal(trajectory.velocities, 0.0)


def test_overlapping_masses_fall_together_under_gravity_without_nan():
    body = creature([(100.0, 300.0), (100.0, 300.0)], [(0, 1, 50.0)])
    trajectory = run(body, world(gravity=0.5, damping=0.0), 20)
    np.testing.assert_array_equal(trajectory.positions[:, 0], trajectory.positions[:, 1])
    # semi-implicit Euler free fall: y_n = y_0 − g·n(n+1)/2 (dt = 1)
    n = np.arange(21)
    np.testing.assert_allclose(trajectory.positions[:, 0, 1], 300.0 - 0.5 * n * (n + 1) / 2, rtol=1e-12)
