"""Trajectory decimation, quantisation and delta encoding for the gallery page (evo/gallery/data.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evo.gallery.data import (
    POSITION_LIMIT,
    creature_payload,
    decode_positions,
    encode_positions,
    record_step,
    record_trajectory,
    wave_angles,
)
from evo.io.models import load_model
from evo.model import DEFAULT_POLYGON_COLOR
from evo.sim import simulate
from evo.sim.world import World

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def test_positions_read_back_within_half_a_quantum():
    rng = np.random.default_rng(1)
    walk = np.cumsum(rng.normal(0.0, 3.0, size=(400, 7, 2)), axis=0) + 500.0
    back = decode_positions(encode_positions(walk), 400, 7)
    assert np.max(np.abs(back - walk)) <= 0.05 + 1e-9


def test_large_jumps_and_non_finite_positions_are_clipped_not_lost():
    positions = np.array([[[0.0, 0.0]], [[5e5, -5e5]], [[np.inf, np.nan]], [[-3e7, 1.0]]])
    back = decode_positions(encode_positions(positions), 4, 1)
    assert back[1].tolist() == [[5e5, -5e5]]
    assert back[2].tolist() == [[POSITION_LIMIT, 0.0]]
    assert back[3].tolist() == [[-POSITION_LIMIT, 1.0]]


def test_slow_motion_takes_about_one_byte_per_coordinate():
    steps = np.full((1000, 10, 2), 0.4)  # 4 quanta per record
    text = encode_positions(np.cumsum(steps, axis=0))
    assert len(text) <= math.ceil(1000 * 10 * 2 / 3) * 4 + 8


@pytest.mark.parametrize(
    ("frames", "dt", "max_records", "step"),
    [
        (3000, 1.0, 1000, 3.0),
        (3000, 1.0, 3000, 1.0),
        (1000, 1.0, 1000, 1.0),
        (3000, 0.5, 1000, 3.0),
        (70, 0.7, 10, 7.0),
        (100, 0.7, 10, 10.5),
    ],
)
def test_record_step_keeps_at_most_max_records_and_whole_steps(frames, dt, max_records, step):
    got = record_step(frames, dt, max_records)
    assert got == pytest.approx(step)
    assert frames / got <= max_records + 1e-9
    assert (got / dt) == pytest.approx(round(got / dt))


def test_a_recorded_walker_has_one_record_every_three_frames_over_3000_frames():
    walker = load_model(ROOT / "genomes" / "walker.json")
    trajectory = record_trajectory(walker, World(), 3000)
    assert trajectory.positions.shape[0] == 1001
    assert np.diff(trajectory.frames).tolist() == [3.0] * 1000
    full = simulate(walker, World(), 3000)
    assert np.array_equal(trajectory.positions, full.positions[::3])


def test_wave_angle_is_omega_times_frame_plus_phase_without_autoreverse():
    walker = load_model(ROOT / "genomes" / "walker.json").replace(wave_phase=0.3)
    trajectory = record_trajectory(walker, World(), 300, max_records=100)
    theta = wave_angles(walker, World(), trajectory)
    assert np.allclose(theta, 0.3 + walker.omega * trajectory.frames)
    reverse = walker.replace(wave_reverse=True)
    assert np.allclose(wave_angles(reverse, World(), trajectory), 0.3 - walker.omega * trajectory.frames)


def test_autoreverse_flips_the_wave_when_a_mass_starts_touching_a_side_wall():
    walker = load_model(ROOT / "genomes" / "walker.json").replace(autoreverse=True)
    world = World(width=1000.0)
    trajectory = record_trajectory(walker, world, 100, max_records=100)
    positions = trajectory.positions.copy()
    positions[50:, 0, 0] = 1000.0  # pretend mass 0 reaches the right wall at record 50
    fake = type(trajectory)(trajectory.frames, positions, trajectory.velocities, False, None)
    theta = wave_angles(walker, world, fake)
    slopes = np.diff(theta)
    assert np.allclose(slopes[:49], walker.omega) and np.allclose(slopes[50:], -walker.omega)


def test_payload_describes_links_and_the_run_of_the_creature():
    walker = load_model(ROOT / "genomes" / "walker.json")
    trajectory = record_trajectory(walker, World(), 600)
    doc = creature_payload(walker, World(), 600, trajectory)
    assert doc["masses"] == walker.n_masses and len(doc["a"]) == walker.n_links
    assert sum(doc["muscle"]) == walker.n_muscles == doc["muscles"]
    assert doc["records"] == 601 and doc["step"] == 1.0
    centroid = trajectory.positions.mean(axis=1)[:, 0]
    assert doc["distance"] == pytest.approx(centroid[-1] - centroid[0], abs=0.01)
    back = decode_positions(doc["pos"], doc["records"], doc["masses"])
    assert np.max(np.abs(back - trajectory.positions)) <= 0.05 + 1e-9


def test_payload_reach_is_the_leftmost_and_rightmost_x_of_any_mass():
    walker = load_model(ROOT / "genomes" / "walker.json")
    walker = walker.replace(velocities=walker.velocities + [-3.0, 0.0])  # thrown to the left first
    trajectory = record_trajectory(walker, World(), 600)
    doc = creature_payload(walker, World(), 600, trajectory)
    xs = trajectory.positions[:, :, 0]
    assert doc["reach"] == [pytest.approx(xs.min(), abs=0.05), pytest.approx(xs.max(), abs=0.05)]
    assert doc["reach"][0] < doc["start_x"] - 100.0


def test_the_drawn_ground_covers_a_creature_that_goes_left_before_it_goes_right():
    from evo.gallery.build import GROUND_MARGIN, _track
    from evo.io.worlds import resolve_world

    world = resolve_world(
        [({"ground": {"type": "hills", "amplitude": 30.0, "wavelength": 200.0}}, None, "world")]
    )
    creature = {"start_x": 50.0, "span": [80.0, 40.0], "distance": 300.0, "reach": [-1200.0, 420.0]}
    ground = _track(world, [creature], None, {})["ground"]
    assert ground[0][0] <= -1200.0 - GROUND_MARGIN + 1e-9 and ground[-1][0] >= 420.0 + GROUND_MARGIN - 1e-9


def test_payload_carries_the_polygons_with_their_fill_and_curve():
    hopper = load_model(ROOT / "genomes" / "classic" / "hopper.xml")
    world = World().updated(hopper.world)
    doc = creature_payload(hopper, world, 30, record_trajectory(hopper, world, 30))
    assert doc["polys"] == [
        {"masses": [0, 1, 2], "color": "#74c0fc", "curvy": False},
        {"masses": [2, 4, 3], "color": "#c2255c", "curvy": True},
        {"masses": [1, 5, 4, 2], "color": "#fab005", "curvy": False},
    ]
    plain = hopper.replace(polys=[(0, 1, 2), (0, 1)])  # no colour: the default fill; two corners: nothing
    assert creature_payload(plain, world, 30, record_trajectory(plain, world, 30))["polys"] == [
        {"masses": [0, 1, 2], "color": DEFAULT_POLYGON_COLOR, "curvy": False}
    ]
