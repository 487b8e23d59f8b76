"""Numbers the simulator cannot run are refused before it runs (issue 32): a mass at x = 1e160 fails
``evo validate`` and every command that loads it in one line; a creature built in Python that far out
explodes instead of overflowing; and every numeric flag is bounded, with the reason in its one line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

import evo
from evo.cli import build_parser, main
from evo.io.models import load_model

ROOT = Path(__file__).resolve().parents[2]
GALLOPER = ROOT / "genomes" / "galloper.json"


def _far(tmp_path: Path, x: float) -> str:
    doc = json.loads(GALLOPER.read_text())
    doc["masses"][0]["x"] = x
    path = tmp_path / f"far{x:g}.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("x", [1e160, 1e308, -1e10])
def test_a_mass_too_far_out_fails_validate_and_every_command_that_loads_it_in_one_line(tmp_path, capsys, x):
    model = _far(tmp_path, x)
    for args in (
        ["validate", model],
        ["simulate", model, "--frames", "20"],
        ["replay", model, "--frames", "20", "--svg", str(tmp_path / "r.svg")],
        [
            "refine",
            model,
            "--plugin",
            "distance",
            "--budget",
            "20",
            "--quiet",
            "--out",
            str(tmp_path / "o.json"),
        ],
        ["analyze", model],
    ):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "masses[0].x: expected a number in [-1e+09, 1e+09]" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [Path(model).name]


@pytest.mark.parametrize("x", [1e160, 1e308])
def test_a_creature_built_in_python_that_far_out_explodes_instead_of_overflowing(x):
    creature = load_model(GALLOPER)
    positions = np.array(creature.positions)
    positions[0, 0] = x
    far = creature.replace(positions=positions)
    assert ("masses", "coordinates within ±1e+09 px") in far.structural_errors()
    trajectory = evo.simulate(far, frames=50)
    assert trajectory.exploded


OUT_OF_RANGE = [
    (["refine", str(GALLOPER), "--plugin", "distance", "--sigma", "1e308"], "--sigma", "(0, 1]"),
    (["refine", str(GALLOPER), "--plugin", "distance", "--sigma", "0"], "--sigma", "(0, 1]"),
    (["refine", str(GALLOPER), "--plugin", "distance", "--seed", "-1"], "--seed", "0..9223372036854775807"),
    (["refine", str(GALLOPER), "--plugin", "distance", "--seed", "9" * 30], "--seed", "0.."),
    (["refine", str(GALLOPER), "--plugin", "distance", "--budget", "0"], "--budget", "1.."),
    (["refine", str(GALLOPER), "--plugin", "distance", "--frames", "-5"], "--frames", "1.."),
    (["simulate", str(GALLOPER), "--seed", "-1", "--plugin", "distance"], "--seed", "0.."),
    (["simulate", str(GALLOPER), "--frames", str(2**60)], "--frames", "1.."),
    (["simulate", str(GALLOPER), "--every=-inf"], "--every", "(0, "),
    (["replay", str(GALLOPER), "--frame-ms", "0"], "--frame-ms", "1..60000"),
    (["replay", str(GALLOPER), "--every", "nan"], "--every", "(0, "),
    (["analyze", str(GALLOPER), "--modes", "0"], "--modes", "1..10000"),
    (["analyze", str(GALLOPER), "--phase", "1e308"], "--phase", "[-1e+06, 1e+06]"),
    (["analyze", str(GALLOPER), "--svg-modes", "1000"], "--svg-modes", "1..64"),
    (["gallery", "runs/x", "--top", "0"], "--top", "1.."),
    (["race", "x.xml", "--frames", "0"], "--frames", "1.."),
    (["race", "--from", "runs/x", "--top", "-3"], "--top", "1.."),
    (["convert", str(GALLOPER), "x.xml", "--contender", "0"], "--contender", "1.."),
]


@pytest.mark.parametrize(
    "args, flag, span", OUT_OF_RANGE, ids=[" ".join(a[:1] + a[-2:-1]) for a, _, _ in OUT_OF_RANGE]
)
def test_a_numeric_flag_out_of_its_range_is_one_line_with_the_range_and_why(capsys, args, flag, span):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag}: expected " in err and span in err and "(" in err, err


# numeric flags bounded elsewhere, and flags of commands this issue does not own
BOUNDED_ELSEWHERE = {
    ("run", "--workers"): "the [pool] schema's bounds, which --workers overrides",
    ("bench", "--repeats"): "evo bench (issue 29)",
    ("warm", "--workers"): "evo warm (issue 29): clamped to 1..the number of kernels to compile",
    ("studio", "--port"): "the studio server (issue 32's studio part)",
    ("audit", "--frames"): "evo audit (issue 31)",
    ("audit", "--seed"): "evo audit (issue 31)",
}


def test_every_numeric_flag_has_a_bounded_type():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    plain = []
    for command, command_parser in sub.choices.items():
        for action in command_parser._actions:
            if action.type in (int, float) and action.option_strings:
                flag = action.option_strings[-1]
                if (command, flag) not in BOUNDED_ELSEWHERE:
                    plain.append((command, flag))
    assert plain == []
