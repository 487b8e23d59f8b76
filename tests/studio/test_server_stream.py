"""The ``/ws`` stream plays exactly what ``evo.simulate`` computes for the design saved to a file, and a
grabbed mass follows the pointer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

import evo
from evo.io.models import creature_to_dict
from evo.sim.world import INTEGRATORS
from evo.studio.limits import StudioLimits
from evo.studio.player import Player
from evo.studio.socket import frames_message

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"


def _design(name: str = "crawler.xml", **world) -> dict:
    creature = evo.load_model(CLASSIC / name)
    if world:
        creature = creature.replace(world={**creature.world, **world})
    return json.loads(json.dumps(creature_to_dict(creature)))


def _saved_and_simulated(tmp_path, design: dict, frames: int) -> np.ndarray:
    path = tmp_path / "design.json"
    path.write_text(json.dumps(design))
    return evo.simulate(evo.load_model(path), frames=frames).positions


def _streamed(ws, design: dict, steps: list[int]) -> np.ndarray:
    ws.send_json({"type": "load", "model": design})
    frames = [m for m in ws.receive_until("status") if m["type"] == "frames"]
    for n in steps:
        ws.send_json({"type": "step", "frames": n})
        frames += [m for m in ws.receive_until("status") if m["type"] == "frames"]
    out, expected_first = [], 0
    for message in frames:
        assert message["first"] == expected_first  # consecutive frames, none left out
        out += message["positions"]
        expected_first += len(message["positions"])
    return np.array(out, dtype=np.float64)


@pytest.mark.parametrize(
    "world",
    [{}, {"integrator": "rk4"}],
    ids=["euler fast path", "rk4 general kernel"],
)
def test_streamed_frames_equal_evo_simulate_of_the_saved_model_bit_for_bit(studio, tmp_path, world):
    design = _design(**world)
    with studio.socket() as ws:
        streamed = _streamed(ws, design, [1, 7, 100, 300])  # across several horizon doublings
    assert streamed.shape[0] == 409
    expected = _saved_and_simulated(tmp_path, design, 408)
    assert streamed.tobytes() == expected.tobytes()


def test_played_frames_equal_evo_simulate_bit_for_bit(studio, tmp_path):
    design = _design("strider.xml")
    with studio.socket() as ws:
        ws.send_json({"type": "load", "model": design})
        ws.receive_until("status")
        ws.send_json({"type": "play", "fps": 3000})
        got = []
        while sum(len(m["positions"]) for m in got) < 300:
            message = ws.receive_json()
            if message["type"] == "frames":
                got.append(message)
        ws.send_json({"type": "pause"})
    assert got[0]["first"] == 1
    streamed = np.array([p for m in got for p in m["positions"]])
    expected = _saved_and_simulated(tmp_path, design, len(streamed))
    assert streamed.tobytes() == expected[1:].tobytes()


def test_a_load_while_playing_plays_the_new_design_from_frame_0(studio, tmp_path):
    design = _design("strider.xml")
    edited = {
        **design,
        "links": [{**design["links"][0], "rest": design["links"][0]["rest"] + 5.0}, *design["links"][1:]],
    }
    with studio.socket() as ws:
        ws.send_json({"type": "load", "model": design})
        ws.receive_until("status")
        ws.send_json({"type": "play", "fps": 600})
        ws.receive_until("frames")
        ws.send_json({"type": "load", "model": edited})
        while (message := ws.receive_json())["type"] != "frames" or message["first"] != 0:
            pass
        status = ws.receive_until("status")[-1]
        assert status["playing"] is True and status["step"] == 1.0
        got = [message]
        while sum(len(m["positions"]) for m in got) < 30:
            if (message := ws.receive_json())["type"] == "frames":
                got.append(message)
        ws.send_json({"type": "pause"})
    streamed = np.array([p for m in got for p in m["positions"]])
    expected = _saved_and_simulated(tmp_path, edited, len(streamed) - 1)
    assert streamed.tobytes() == expected.tobytes()


def test_reset_and_a_new_load_start_again_from_frame_0(studio, tmp_path):
    design = _design()
    with studio.socket() as ws:
        _streamed(ws, design, [50])
        ws.send_json({"type": "reset"})
        messages = ws.receive_until("status")
        assert messages[0]["first"] == 0 and messages[-1]["frame"] == 0
        ws.send_json({"type": "step", "frames": 5})
        frames = ws.receive_until("status")
    expected = _saved_and_simulated(tmp_path, design, 5)
    assert np.array(frames[0]["positions"]).tobytes() == expected[1:].tobytes()


@pytest.mark.parametrize("world", [{"dt": 8.0}, {"dt": 4.0, "integrator": "finite-difference"}])
def test_an_explosion_is_reported_at_the_frame_evo_simulate_reports_with_the_stability_warning(
    studio, tmp_path, world
):
    design = _design(**world, max_speed=50.0)
    with studio.socket() as ws:
        ws.send_json({"type": "load", "model": design})
        status = ws.receive_until("status")[-1]
        assert "stability limit" in status["stability"]["warning"]
        ws.send_json({"type": "step", "frames": 2000})
        status = ws.receive_until("status")[-1]
    path = tmp_path / "design.json"
    path.write_text(json.dumps(design))
    dt = world["dt"]
    expected = evo.simulate(evo.load_model(path), frames=2000 * dt, record_every=dt)
    assert expected.exploded
    assert status["exploded"] is True and status["exploded_frame"] == expected.exploded_frame
    assert status["frame"] == len(expected.positions) - 1  # the last record before the explosion


def test_a_bad_message_is_an_error_message_and_the_socket_stays_open(studio):
    with studio.socket() as ws:
        ws.send_json({"type": "step", "frames": 1})
        assert "no design loaded" in ws.receive_json()["error"]
        ws.send_json({"type": "fly"})
        assert "unknown message type" in ws.receive_json()["error"]
        ws.send_json({"type": "load", "model": {"masses": "many"}})
        assert ws.receive_json()["type"] == "error"
        ws.send_json({"type": "load", "model": _design()})
        assert ws.receive_json()["type"] == "frames"


def test_a_grabbed_mass_follows_the_pointer_and_leaves_with_its_velocity(studio):
    masses = [{"x": 0.0, "y": 0.0, "fixed": True}, {"x": 100.0, "y": 100.0}]
    lone = {"format": "evo-model", "version": 1, "masses": masses, "links": []}
    with studio.socket() as ws:
        ws.send_json({"type": "load", "model": lone})
        ws.receive_until("status")
        ws.send_json({"type": "step", "frames": 10})
        ws.receive_until("status")
        ws.send_json({"type": "grab", "mass": 1, "x": 500.0, "y": 200.0})
        ws.send_json({"type": "step", "frames": 1})
        held = ws.receive_until("status")[0]["positions"][0][1]
        ws.send_json({"type": "drag", "x": 510.0, "y": 205.0})
        ws.send_json({"type": "step", "frames": 1})
        dragged = ws.receive_until("status")[0]["positions"][0][1]
        ws.send_json({"type": "release", "vx": 10.0, "vy": 5.0})
        ws.send_json({"type": "step", "frames": 1})
        released = ws.receive_until("status")[0]
    assert held == [500.0, 200.0]
    assert dragged == [510.0, 205.0]
    assert released["first"] == 13
    # one semi-implicit Euler step from (510, 205) at (10, 5) px/frame: v += (g - f v) dt, then x += v dt
    # (g = (0, -0.5) px/frame^2, f = 0.025/frame)
    assert released["positions"][0][1] == pytest.approx([510.0 + 9.75, 205.0 + 4.375], abs=1e-12)


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize(
    "world",
    [
        {"dt": 0.25},
        {"dt": 0.5, "width": 900.0},
        {"dt": 0.25, "contact": "penalty", "height": 150.0},
        {"dt": 0.25, "terrain": [[[0.0, 5.0], [300.0, 40.0], [900.0, 0.0]]], "dashpots": True},
    ],
    ids=["dt 0.25", "side walls", "penalty contact and a ceiling", "terrain, dashpots and unequal masses"],
)
def test_a_player_gives_the_frames_of_one_simulation_whatever_the_chunks(integrator, world):
    world = dict(world)
    creature = evo.load_model(CLASSIC / "hopper.xml")
    if world.pop("dashpots", False):
        creature = creature.replace(
            dashpot=np.full(creature.n_links, 0.05), mass=np.linspace(1, 2, creature.n_masses)
        )
    creature = creature.replace(world={**creature.world, **world, "integrator": integrator}, autoreverse=True)
    player = Player(creature, StudioLimits())
    chunks = [player.advance(n)[1] for n in (3, 61, 1, 200, 5, 400)]
    played = np.concatenate([creature.positions[None], *chunks])
    expected = evo.simulate(creature, frames=670)
    assert played.tobytes() == expected.positions[: len(played)].tobytes()
    assert player.status().exploded == expected.exploded
    assert player.status().exploded_frame == expected.exploded_frame
    assert player.status().frame == len(expected.positions) - 1


def test_a_player_stops_at_the_frame_limit():
    creature = evo.load_model(CLASSIC / "hopper.xml")
    player = Player(creature, StudioLimits(frames=100))
    first, positions = player.advance(150)
    assert first == 1 and len(positions) == 100
    assert player.status().end and not player.status().exploded
    assert len(player.advance(10)[1]) == 0


@given(
    arrays(
        np.float64,
        array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=4).map(lambda s: (*s[:2], 2)),
        elements=st.floats(allow_nan=False, allow_infinity=False),
    )  # fmt: skip
)
def test_a_frames_message_carries_every_float_bit_for_bit(positions):
    message = json.loads(frames_message(7, positions))
    assert message["first"] == 7
    assert np.array(message["positions"], dtype=np.float64).tobytes() == positions.tobytes()


def test_a_frames_message_sends_the_nan_and_inf_of_a_blown_up_run_as_null():
    positions = np.array([[[1.5, np.nan], [np.inf, -np.inf]]])
    assert json.loads(frames_message(3, positions))["positions"] == [[[1.5, None], [None, None]]]
