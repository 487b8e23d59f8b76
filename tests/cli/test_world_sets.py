"""``--set`` on the command line: walls and autoreverse can be turned off (``width=none``, ``height=none``,
``autoreverse=off``), and a bad value is one line naming the key."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from evo.cli import main
from evo.cli._common import creature_and_world
from evo.errors import EvoInputError
from evo.io.models import load_model, save_model

WALKER = Path(__file__).resolve().parents[2] / "genomes" / "walker.json"


@pytest.fixture
def walled(tmp_path):
    path = tmp_path / "walled.json"
    creature = load_model(WALKER)
    save_model(creature.replace(world={"width": 400.0, "height": 300.0}, autoreverse=True), path)
    return path


def test_width_height_none_and_autoreverse_off_turn_walls_and_autoreverse_off(walled):
    creature = load_model(walled)
    kept, world = creature_and_world(creature, argparse.Namespace(set=[]), str(walled))
    assert (world.width, world.height, kept.autoreverse) == (400.0, 300.0, True)
    sets = ["width=none", "height=off", "autoreverse=off"]
    off, world = creature_and_world(creature, argparse.Namespace(set=sets), str(walled))
    assert (world.width, world.height, off.autoreverse) == (None, None, False)
    on, _ = creature_and_world(off, argparse.Namespace(set=["autoreverse=on"]), str(walled))
    assert on.autoreverse is True


def test_a_walled_walker_goes_further_without_its_walls(walled, capsys):
    distances = []
    for extra in ([], ["--set", "width=none", "--set", "autoreverse=off"]):
        assert main(["simulate", str(walled), "--frames", "3000", "--json", *extra]) == 0
        distances.append(json.loads(capsys.readouterr().out.splitlines()[-1])["distance"])
    assert distances[1] > 1000 and distances[0] < 400  # the wall at x = 400 stopped it


@pytest.mark.parametrize(
    "item, message",
    [
        ("autoreverse=maybe", "--set autoreverse: expected one of on, true, off, false, got 'maybe'"),
        ("gravity=none", "gravity"),
    ],
)
def test_a_bad_set_value_is_one_line_naming_the_key(walled, item, message):
    with pytest.raises(EvoInputError, match=message):
        creature_and_world(load_model(walled), argparse.Namespace(set=[item]), str(walled))


def test_masses_that_start_below_the_ground_are_named_in_one_warning(tmp_path, capsys):
    creature = load_model(WALKER)
    positions = creature.positions.copy()
    positions[2, 1], positions[4, 1] = -7.5, -3.0
    sunk = tmp_path / "sunk.json"
    save_model(creature.replace(positions=positions), sunk)
    for command in (["simulate", str(sunk), "--frames", "100"], ["validate", str(sunk)]):
        assert main(command) == 0
        warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
        assert warnings == [
            f"evo {command[0]}: warning: {sunk}: masses 2, 4 (0-based) start below the floor, the deepest "
            "by 7.5 px: the ground pushes them out from the first frame"
        ]
    assert main(["simulate", str(sunk), "--frames", "100", "--set", "terrain=[[0, 5], [2000, 5]]"]) == 0
    (warning,) = capsys.readouterr().err.splitlines()
    assert warning == (
        f"evo simulate: warning: {sunk}: masses 2, 4 (0-based) start below the floor, the deepest by 7.5 px: "
        "the creature is lifted 12.5 px"
    )
    assert main(["simulate", str(WALKER), "--frames", "100"]) == 0
    assert capsys.readouterr().err == ""
