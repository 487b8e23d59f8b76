"""Paths named inside files (a terrain in a model's ``world``, ``[world] terrain``, ``--set terrain=``) and
on the command line are read only if they are regular files of bounded size: a device, a FIFO or a folder
is one line, never a read until memory runs out nor a wait for a writer (docs/runs.md, "What survives
what")."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from evo.cli import main
from evo.errors import EvoInputError
from evo.io.bounded import read_input_bytes, read_input_text

ROOT = Path(__file__).resolve().parents[2]
WALKER = ROOT / "genomes" / "walker.json"
TERRAIN_XML = ROOT / "genomes" / "classic" / "hills.xml"

pytestmark = pytest.mark.timeout(120)  # a FIFO that is waited on fails the test instead of hanging it


@pytest.fixture(params=["device", "fifo", "folder"])
def not_a_file(request, tmp_path) -> tuple[str, str]:
    """(path, what the message calls it) of something that is not a regular file."""
    if request.param == "device":
        return "/dev/zero", "is a character device"
    if request.param == "fifo":
        path = tmp_path / "pipe.xml"
        os.mkfifo(path)
        return str(path), "is a FIFO (named pipe)"
    path = tmp_path / "folder.xml"
    path.mkdir()
    return str(path), "is a folder"


def _one_line_status(argv: list[str], capsys) -> tuple[int, str]:
    capsys.readouterr()
    status = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return status, err[0]


def test_only_a_regular_file_is_read(not_a_file):
    path, what = not_a_file
    with pytest.raises(EvoInputError, match=re.escape(f"{what}; expected a regular file")):
        read_input_bytes(path)


def test_a_file_over_the_limit_is_refused_and_one_under_it_is_read(tmp_path):
    path = tmp_path / "m.json"
    path.write_text("x" * 101)
    with pytest.raises(EvoInputError, match="is 101 bytes; expected a file of at most 100 bytes"):
        read_input_text(path, limit=100)
    assert read_input_text(path, limit=101) == "x" * 101


def _model_with_terrain(folder: Path, terrain: str) -> Path:
    doc = json.loads(WALKER.read_text())
    doc["world"] = {"terrain": terrain}
    path = folder / "m.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("command", ["validate", "convert", "simulate"])
def test_a_terrain_in_a_models_world_that_is_not_a_file_is_one_line(command, not_a_file, tmp_path, capsys):
    path, what = not_a_file
    model = _model_with_terrain(tmp_path, path)
    argv = {
        "validate": ["validate", str(model)],
        "convert": ["convert", str(model), str(tmp_path / "out.xml")],
        "simulate": ["simulate", str(model), "--frames", "10"],
    }[command]
    status, line = _one_line_status(argv, capsys)
    assert status == 2 and "world.terrain: terrain file" in line and what in line, line
    assert not (tmp_path / "out.xml").exists()


def test_a_terrain_given_with_set_that_is_not_a_file_is_one_line(not_a_file, capsys):
    path, what = not_a_file
    argv = ["simulate", str(WALKER), "--frames", "10", "--set", f"terrain={path}"]
    status, line = _one_line_status(argv, capsys)
    assert status == 2 and "--set.terrain: terrain file" in line and what in line, line


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_world_terrain_in_a_config_that_is_not_a_file_is_one_line(command, not_a_file, tmp_path, capsys):
    path, what = not_a_file
    config = tmp_path / "c.toml"
    config.write_text(f'[run]\nname = "t"\n[world]\nterrain = {json.dumps(path)}\n[pool]\nworkers = 1\n')
    argv = ["validate", str(config)] if command == "validate" else ["run", str(config), "--out", "r"]
    status, line = _one_line_status(argv, capsys)
    assert status == 2 and "[world] terrain: terrain file" in line and what in line, line
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("command", ["inspect", "gallery"])
def test_a_run_whose_config_names_a_terrain_that_is_not_a_file_is_one_line(command, tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text('[run]\nname = "t"\ngenerations = 1\npopulation = 4\n[evaluation]\nframes = 50\n'
                      '[pool]\nworkers = 1\n')  # fmt: skip
    folder = tmp_path / "run"
    assert main(["run", str(config), "--out", str(folder), "--quiet"]) == 0
    saved = (folder / "config.toml").read_text()
    (folder / "config.toml").write_text(saved.replace("[world]\n", '[world]\nterrain = "/dev/zero"\n'))
    argv = [command, str(folder)]
    capsys.readouterr()
    status = main(argv)
    err = capsys.readouterr().err
    if command == "inspect":  # the leaderboard does not need the world: it is not read at all
        assert status == 0 and err == ""
    else:
        assert status == 2 and len(err.strip().splitlines()) == 1, err
        assert "terrain file /dev/zero: is a character device" in err


def test_a_classic_model_file_that_is_a_fifo_is_one_line(tmp_path, capsys):
    path = tmp_path / "m.xml"
    os.mkfifo(path)
    status, line = _one_line_status(["validate", str(path)], capsys)
    assert status == 2 and "is a FIFO (named pipe)" in line
