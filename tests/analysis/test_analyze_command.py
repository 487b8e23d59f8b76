"""``evo analyze``: its report, its JSON line and SVG, and its frequencies against those measured by
simulating small free oscillations (FFT of a trace, damping 0, RK4 with dt = 0.05 frame): within 2%."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from analysis_builders import hexagon, make_creature, pandoras_toybox

from evo.analysis import natural_modes
from evo.cli import main
from evo.io.models import save_model
from evo.sim import World, simulate

ROOT = Path(__file__).resolve().parents[2]


def _analyze(capsys, path, *options):
    assert main(["analyze", str(path), "--json", *options]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return out, json.loads(out[-1])


def _hanging_truss():
    """Three masses hanging from two fixed ones: gravity pre-stresses every link."""
    positions = [[100.0, 400.0], [200.0, 400.0], [120.0, 340.0], [180.0, 340.0], [150.0, 290.0]]
    links = [(0, 2), (1, 3), (0, 3), (2, 3), (2, 4), (3, 4)]
    lengths = [np.hypot(*np.subtract(positions[b], positions[a])) for a, b in links]
    return make_creature(positions, links, lengths, fixed=[True, True, False, False, False], omega=0.3)


def _measured_frequency(creature, world, eq_positions, shape, frames=3000, dt_record=0.5):
    """Start at the equilibrium displaced a little along one mode; FFT of the motion projected on it."""
    amplitude = 1e-3 * np.max(np.abs(eq_positions)) / np.max(np.abs(shape))
    start = creature.replace(positions=eq_positions + amplitude * shape, velocities=np.zeros_like(shape))
    trace = simulate(start, world, frames, record_every=dt_record)
    assert not trace.exploded
    signal = np.tensordot(trace.positions - eq_positions, shape, axes=([1, 2], [0, 1]))
    signal = (signal - signal.mean()) * np.hanning(signal.size)
    n_fft = 16 * signal.size
    spectrum = np.abs(np.fft.rfft(signal, n_fft))
    omegas = 2.0 * np.pi * np.fft.rfftfreq(n_fft, d=dt_record)
    return omegas[np.argmax(spectrum)]


def _test_world(**changes):
    return World(damping=0.0, integrator="rk4", dt=0.05, stiffness=0.4, **changes)


@pytest.mark.parametrize(
    "name, creature, world",
    [
        ("hanging truss", _hanging_truss(), _test_world(gravity=0.5)),
        ("free hexagon", hexagon(50.0, jitter=1.0), _test_world(gravity_direction="off")),
    ],
)
def test_analyze_frequencies_match_simulated_small_oscillations_within_2_percent(
    tmp_path, capsys, name, creature, world
):
    path = tmp_path / "model.json"
    save_model(creature, path)
    settings = world.to_dict()
    sets = [
        f"--set={key}={settings[key]}"
        for key in ("damping", "integrator", "dt", "gravity_direction", "stiffness")
    ]
    _, result = _analyze(capsys, path, *sets)
    frequencies = np.array(result["frequencies"])
    modes = natural_modes(creature, world)
    eq_positions = np.array(result["equilibrium"]["positions"])
    np.testing.assert_allclose(eq_positions, modes.equilibrium.positions)
    for number, index in enumerate(modes.vibrating[:3]):
        measured = _measured_frequency(creature, world, eq_positions, modes.shapes[index])
        assert measured == pytest.approx(frequencies[number], rel=0.02), (name, number)


def test_analyze_prints_residual_energy_zero_modes_and_omega_placement(tmp_path, capsys):
    path = tmp_path / "truss.json"
    save_model(_hanging_truss(), path)
    out, result = _analyze(capsys, path, "--set", "gravity=0.5")
    text = "\n".join(out[:-1])
    assert "residual" in text and "energy" in text and "zero modes: 0" in text
    assert "creature omega = 0.3 rad/frame" in text
    assert result["equilibrium"]["converged"] and result["equilibrium"]["residual"] < 1e-9
    assert len(result["equilibrium"]["positions"]) == 5 and len(result["equilibrium"]["positions"][0]) == 2
    assert result["frequencies"] == sorted(result["frequencies"]) and len(result["frequencies"]) == 6
    assert result["zero_modes"] == 0 and result["gravity_used"] is True
    np.testing.assert_allclose(result["periods"], 2 * np.pi / np.array(result["frequencies"]))
    assert result["omega_placement"]["below"] == int(np.sum(np.array(result["frequencies"]) <= 0.3))


def test_analyze_reports_gravity_left_out_and_mechanism_and_draws_svg(tmp_path, capsys):
    path, svg = tmp_path / "box.json", tmp_path / "out" / "modes.svg"
    save_model(pandoras_toybox(60.0, 40.0, 12.0), path)
    out, result = _analyze(capsys, path, "--svg", str(svg), "--phase", "0.5")
    assert any("gravity left out" in line for line in out)
    assert result["zero_modes"] == 4 and result["rigid_modes"] == 3 and result["mechanisms"] == 1
    assert result["phase"] == 0.5
    text = svg.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>")
    assert "mechanism" in text and text.count("<line") >= 6 * 3


def test_analyze_rejects_bad_world_values_with_exit_status_2(tmp_path, capsys):
    path = tmp_path / "box.json"
    save_model(pandoras_toybox(60.0, 40.0, 12.0), path)
    assert main(["analyze", str(path), "--set", "stifness=2"]) == 2
    assert "stiffness" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["walker.json", "pandoras_box.json", "pendulum.json"])
def test_every_text_of_the_modes_svg_fits_inside_its_panel(tmp_path, capsys, name):
    """Text widths estimated at 0.55 em a character (sans-serif averages about 0.5 em)."""
    import xml.etree.ElementTree as ET

    from evo.analysis.drawing import HEADER, PANEL

    svg = tmp_path / "modes.svg"
    _analyze(capsys, ROOT / "genomes" / name, "--svg", str(svg))
    root = ET.parse(svg).getroot()
    width, default_size = float(root.get("width")), float(root.get("font-size"))
    texts = list(root.iter("{http://www.w3.org/2000/svg}text"))
    assert len(texts) >= 3
    for text in texts:
        x, y = float(text.get("x")), float(text.get("y"))
        size = float(text.get("font-size", default_size))
        right = width if y < HEADER else (x // PANEL + 1) * PANEL
        assert x + 0.55 * size * len(text.text) <= right, text.text


def test_the_default_euler_step_rings_at_two_arcsin_half_omega_as_docs_analysis_says():
    """Semi-implicit Euler with dt = 1 frame turns a mode of natural frequency omega into one of
    2 asin(omega / 2) per frame (docs/analysis.md, Limits): measured within 0.5%."""
    world = World(damping=0.0, stiffness=0.4, gravity=0.5)  # integrator euler, dt 1
    creature = _hanging_truss()
    modes = natural_modes(creature, world)
    eq_positions = modes.equilibrium.positions
    for index in (modes.vibrating[0], modes.vibrating[-1]):
        omega = float(np.sqrt(modes.eigenvalues[index]))
        measured = _measured_frequency(creature, world, eq_positions, modes.shapes[index], dt_record=1.0)
        assert measured == pytest.approx(2.0 * np.arcsin(omega / 2.0), rel=0.005)
        assert measured > omega


def test_analyze_svg_draws_the_polygons_of_a_classic_model(tmp_path, capsys):
    svg = tmp_path / "roller.svg"
    _analyze(capsys, ROOT / "genomes" / "classic" / "roller.xml", "--svg", str(svg))
    text = svg.read_text()
    assert text.count('fill="#ae3ec9"') >= 1 and text.count('fill="#e599f7"') >= 1
    assert text.count('<path d="M') == 2 * text.count("<g>") and " C" in text
