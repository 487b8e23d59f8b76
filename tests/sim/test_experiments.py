"""The shipped set-ups in ``genomes/``: they load, run from the command line, do what their ``meta`` says,
and the walkers walk on flat ground."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _builders import GENOMES, along_the_line, link_lengths, period_from_crossings, run, settle

from evo.cli import main
from evo.io.models import load_model
from evo.sim import World

PAPER_SETUPS = ("pendulum", "spring_mass", "hexagon", "pandoras_box", "tension_spring", "linear_motor_3pt")
WALKERS = ("inchworm", "galloper", "walker")


def load(name: str):
    body = load_model(GENOMES / f"{name}.json")
    return body, World().updated(body.world)


@pytest.mark.parametrize("name", PAPER_SETUPS + WALKERS)
def test_every_shipped_genome_validates_and_simulates_from_the_command_line(name, capsys):
    path = str(GENOMES / f"{name}.json")
    assert main(["validate", path]) == 0
    assert "ok" in capsys.readouterr().out
    assert main(["simulate", path, "--frames", "300", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["frames"] == 300 and not summary["exploded"]


@pytest.mark.parametrize("name", PAPER_SETUPS)
def test_each_paper_setup_says_what_it_is_and_where_the_paper_has_it(name):
    body, _ = load(name)
    assert body.meta["description"] and body.meta["paper_section"].startswith("seed 000 §")
    assert body.meta["expected"]


def test_the_pendulum_file_swings_with_the_papers_period():
    body, in_world = load("pendulum")
    expected = body.meta["expected"]["period_frames"]
    assert expected == pytest.approx(324.67, abs=0.01)  # Experiment 1
    trajectory = run(body, in_world, 3300)
    period = period_from_crossings(trajectory.frames, trajectory.positions[:, 1, 0] - body.positions[0, 0])
    assert period == pytest.approx(expected, rel=1e-3)  # see test_constants: α²/16 and Euler, < 0.02%


def test_the_spring_mass_file_oscillates_about_g_over_k_below_its_rest_length():
    body, in_world = load("spring_mass")
    expected = body.meta["expected"]
    trajectory = run(body, in_world, 3200)
    y = trajectory.positions[:, 1, 1]
    assert period_from_crossings(trajectory.frames, y, expected["equilibrium_y"]) == pytest.approx(
        expected["period_frames"], rel=1e-3
    )  # Euler's k̄/24 = 7e-5
    # undamped: the swing stays symmetric about the equilibrium (to Euler's bounded energy error)
    assert (y.max() + y.min()) / 2 == pytest.approx(expected["equilibrium_y"], abs=0.01)


def test_the_hexagon_file_settles_with_diagonals_of_two_thirds_their_rest():
    body, in_world = load("hexagon")
    lengths = link_lengths(settle(body, in_world, 3000), body)
    np.testing.assert_allclose(lengths[body.rest > 0], body.meta["expected"]["diagonal_px"], atol=1e-6)
    np.testing.assert_allclose(lengths[body.rest == 0], body.meta["expected"]["side_px"], atol=1e-6)


def test_the_pandoras_box_file_settles_as_its_own_rectangle():
    body, in_world = load("pandoras_box")
    corners = settle(body, in_world, 8000)
    lengths = link_lengths(corners, body)
    np.testing.assert_allclose(lengths[4:], body.meta["expected"]["diagonal_px"], atol=1e-6)
    assert lengths[0] / lengths[1] == pytest.approx(body.meta["expected"]["aspect_ratio"], rel=1e-9)
    assert np.dot(corners[1] - corners[0], corners[2] - corners[1]) == pytest.approx(0.0, abs=1e-6)


def test_the_tension_spring_file_settles_at_its_predicted_length():
    body, in_world = load("tension_spring")
    lengths = link_lengths(settle(body, in_world, 6000), body)
    assert lengths[-1] == pytest.approx(body.meta["expected"]["length_px"], abs=1e-6)


def test_the_linear_motor_file_repeats_every_two_muscle_periods():
    body, in_world = load("linear_motor_3pt")
    period = body.meta["expected"]["muscle_period_frames"]
    assert 2 * math.pi / body.omega == pytest.approx(period)
    s = along_the_line(run(body, in_world, 12 * period).positions[4 * period :])
    # after one muscle period every mass is at the mirror image of where it was; after two, back in place
    # (1e-6 px: the motion has settled onto its limit cycle after 4 periods, rounding is ~1e-12 px)
    np.testing.assert_allclose(s[period:], -s[:-period], atol=1e-6)
    np.testing.assert_allclose(s[2 * period :], s[: -2 * period], atol=1e-6)
    assert np.abs(s).max() > 0.5 * body.rest[0]  # and it does move


@pytest.mark.parametrize("name", WALKERS)
def test_each_walker_walks_steadily_forward_on_flat_ground(name):
    body, in_world = load(name)
    assert in_world.terrain == () and in_world.width is None  # flat, open ground
    trajectory = run(body, in_world, 3000, record_every=10)
    x = trajectory.centroids[:, 0]
    thirds = np.diff(x[[0, 100, 200, 300]])
    # More than 500 px (five body lengths and more) in 3000 frames; the measured distances are 975 px or
    # more, and they move by ~2% when the start is jittered by 0.05 px, so this margin is not fragile.
    assert x[-1] - x[0] > 500.0
    # steady: every third of the run covers at least half of an average third (no one-off lurch)
    assert thirds.min() > 0.5 * thirds.mean()
    # and it stays a ground creature: nothing flies off or sinks
    assert trajectory.positions[:, :, 1].max() < 200.0
