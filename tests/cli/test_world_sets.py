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
