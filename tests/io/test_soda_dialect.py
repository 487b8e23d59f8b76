"""The applet's muscle law and evo's: a file muscle's rest length is the applet's at every frame, in both
wave directions and across autoreverse turns, and writing a file gives the same numbers back."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evo.analysis import frozen_rest_lengths
from evo.gallery.data import wave_angles
from evo.io.soda_dialect import file_muscle_phase, file_speed, file_wave_phase, muscle_phase
from evo.io.soda_xml import dumps_soda_xml, read_soda_xml
from evo.model import Creature
from evo.sim import World, simulate

FRAMES = (0, 1, 17, 1000)
# (muscle phase p, muscle amplitude a, wave amplitude A, wave phase w0, speed): cycles, cycles/frame
MUSCLES = [
    (0.25, 0.3, 0.8, 0.0, 0.02),
    (0.0, 1.0, 1.0, 0.1, 0.013),
    (0.875, 0.6, 0.5, 0.9, 0.05),
    (0.5, 0.45, 0.7, 0.333, 0.0071),
    (1.0, 0.2, 0.9, 1.0, 0.5),
    (0.037, 0.75, 0.25, 0.6180339887, 0.0123456789),
]


def file_text(p, a, big_a, w0, speed, direction="forward", autoreverse="off", box=""):
    return f"""<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE model SYSTEM "sodaconstructor.dtd">
<model>
  {box}
  <environment gravity="0" friction="1" springyness="0.5"/>
  <wave amplitude="{big_a}" phase="{w0}" speed="{speed}"/>
  <settings gravitydirection="off" wavedirection="{direction}" autoreverse="{autoreverse}"/>
  <nodes><node id="anchor" x="0" y="100"/><mass id="bob" x="40" y="100"/></nodes>
  <links><muscle a="anchor" b="bob" restlength="40" amplitude="{a}" phase="{p}"/></links>
</model>"""


def read(tmp_path, text):
    path = tmp_path / "muscle.xml"
    path.write_bytes(text.encode("latin-1"))
    return read_soda_xml(path)


def applet_rest_length(l0, p, a, big_a, w):
    """The applet's law: the muscle phase p is a delay behind the wave phase w (both in cycles)."""
    return l0 * (1.0 + a * big_a * math.sin(2.0 * math.pi * (p - w)))


def evo_rest_length(creature, t):
    """evo's law at frame t (no autoreverse): l0 (1 + alpha beta sin(theta0 + s omega t + phi))."""
    sign = -1.0 if creature.wave_reverse else 1.0
    return float(frozen_rest_lengths(creature, creature.wave_phase + sign * creature.omega * t)[0])


@pytest.mark.parametrize("direction, sign", [("forward", 1.0), ("reverse", -1.0)])
@pytest.mark.parametrize("p, a, big_a, w0, speed", MUSCLES)
def test_a_file_muscles_rest_length_is_the_applets_at_every_frame_in_both_directions(
    tmp_path, p, a, big_a, w0, speed, direction, sign
):
    creature = read(tmp_path, file_text(p, a, big_a, w0, speed, direction))
    for t in FRAMES:
        w = w0 + sign * speed * t  # the wave phase moves by speed a frame, backwards in reverse
        expected = applet_rest_length(40.0, p, a, big_a, w)
        assert evo_rest_length(creature, t) == pytest.approx(expected, rel=0, abs=1e-12), t


@pytest.mark.parametrize("direction, sign", [("forward", 1.0), ("reverse", -1.0)])
def test_the_simulator_pulls_with_the_applets_rest_length(tmp_path, direction, sign):
    """With no gravity, damping 1 and dt 1 a step moves the bob by the force, k (l_r - L) along the link,
    so each step shows the rest length the kernel used: l_r(t) = x(t) + (x(t+1) - x(t)) / k."""
    p, a, big_a, w0, speed = 0.3, 0.8, 0.9, 0.15, 0.021
    creature = read(tmp_path, file_text(p, a, big_a, w0, speed, direction))
    trajectory = simulate(creature, World().updated(creature.world), frames=1001)
    x = trajectory.positions[:, 1, 0]
    used = x[:-1] + (x[1:] - x[:-1]) / 0.5
    expected = [applet_rest_length(40.0, p, a, big_a, w0 + sign * speed * t) for t in range(1001)]
    # theta is accumulated step by step in the kernel: its rounding grows to ~1e-11 rad by frame 1000
    np.testing.assert_allclose(used, expected, rtol=0, atol=1e-8)
    # the old reading (phi = 2 pi p) would have missed it by a large fraction of the amplitude
    mirrored = [
        40.0 * (1 + a * big_a * math.sin(2 * math.pi * (w0 + sign * speed * t + p))) for t in range(1001)
    ]
    assert np.max(np.abs(used - np.array(mirrored))) > 10.0


def test_autoreverse_turns_the_wave_of_the_file_and_of_evo_at_the_same_frames(tmp_path):
    """In a 200 px box the bob hits the side wall; at each new contact the applet's wave phase w and evo's
    angle theta both turn back. evo's theta (from the trajectory, frame by frame) keeps l_r = the applet's."""
    p, a, big_a, w0, speed = 0.3, 1.0, 1.0, 0.4, 0.02
    text = file_text(p, a, big_a, w0, speed, "forward", "on", '<container width="200" height="400"/>')
    text = text.replace('<mass id="bob" x="40" y="100"/>', '<mass id="bob" x="100" y="100" vx="6"/>')
    text = text.replace('friction="1"', 'friction="0"').replace('springyness="0.5"', 'springyness="0.001"')
    text = text.replace('<node id="anchor" x="0" y="100"/>', '<node id="anchor" x="60" y="100"/>')
    creature = read(tmp_path, text)
    world = World().updated(creature.world)
    trajectory = simulate(creature, world, frames=3000)
    theta = wave_angles(creature, world, trajectory)
    x = trajectory.positions[:, 1, 0]
    touching = (x <= 0.0) | (x >= 200.0)
    w, direction, turns, applet = w0, 1.0, 0, []
    for t in range(trajectory.frames.size):
        applet.append(applet_rest_length(40.0, p, a, big_a, w))
        w += direction * speed
        if t + 1 < touching.size and touching[t + 1] and not touching[t]:
            direction, turns = -direction, turns + 1
    assert turns >= 3
    evo = [float(frozen_rest_lengths(creature, angle)[0]) for angle in theta]
    np.testing.assert_allclose(evo, applet, rtol=0, atol=1e-9)


@pytest.mark.parametrize("text", ["0", "0.25", "0.5", "0.875", "1", "0.123", "0.999", "0.0001", "0.3333333"])
def test_a_decimal_muscle_phase_is_written_back_as_the_same_decimal(text):
    assert float(file_muscle_phase(muscle_phase(float(text)))) == float(text) % 1.0
    assert file_wave_phase(2 * math.pi * float(text)) == repr(float(text))
    assert file_speed(2 * math.pi * float(text)) == repr(float(text))


@settings(max_examples=300, deadline=None)
@given(st.floats(0.0, 1.0))
def test_any_file_muscle_phase_reads_back_as_exactly_the_same_radians_after_writing(p):
    phi = muscle_phase(p)
    assert 0.0 <= phi <= 2 * math.pi
    assert muscle_phase(float(file_muscle_phase(phi))) == phi


def test_an_evo_muscle_written_to_a_file_and_read_back_keeps_its_rest_length_at_every_frame(tmp_path):
    creature = Creature(
        positions=[[0.0, 0.0], [30.0, 0.0]], velocities=np.zeros((2, 2)), fixed=[False, False],
        link_a=[0], link_b=[1], rest=[30.0], alpha=[0.7], phi=[5.1], omega=0.09, beta=0.6,
        wave_phase=1.3, wave_reverse=True,
    )  # fmt: skip
    path = tmp_path / "m.xml"
    path.write_text(dumps_soda_xml(creature), encoding="utf-8")
    back = read_soda_xml(path)
    for t in FRAMES:
        assert evo_rest_length(back, t) == pytest.approx(evo_rest_length(creature, t), rel=0, abs=1e-12)
