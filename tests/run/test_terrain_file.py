"""A run keeps the name of the terrain file it read, beside the polylines: in config.toml (which loads back
as the same config), in its elites' world, in ``evo validate``'s summary and in a race of its elites; a
folder written before the name was kept still resumes."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import evo
from evo.errors import EvoInputError
from evo.race.from_run import race_of_run
from evo.run.config import load_config

ROOT = Path(__file__).resolve().parents[2]
HILLS = ROOT / "genomes" / "classic" / "hills.xml"


def small(tmp_path: Path, generations: int = 2) -> evo.Config:
    """walkers.toml, small and on the classic hills, from a config beside the terrain file's copy."""
    (tmp_path / "hills.xml").write_bytes(HILLS.read_bytes())
    text = (ROOT / "examples" / "walkers.toml").read_text()
    config = tmp_path / "hills_run.toml"
    config.write_text(text)
    return evo.Config.from_toml(config).replace(
        run={"generations": generations, "population": 6}, evaluation={"frames": 100}, pool={"workers": 1},
        world={"terrain": "hills.xml"},
    )  # fmt: skip


def test_the_resolved_config_names_the_terrain_file_beside_its_polylines_and_loads_back_equal(tmp_path):
    config = small(tmp_path)
    assert config.world.terrain_file == str(tmp_path / "hills.xml")
    world = tomllib.loads(config.to_toml())["world"]
    assert world["terrain_file"] == str(tmp_path / "hills.xml")
    assert world["terrain"][0] == [[300.0, 0.0], [450.0, 20.0], [600.0, 0.0]]
    written = tmp_path / "written" / "config.toml"
    written.parent.mkdir()
    written.write_text(config.to_toml())
    assert load_config(written).world == config.world  # the polylines are not read again
    assert "3 terrain polyline(s) from " + str(tmp_path / "hills.xml") in config.describe()[2]


def test_a_new_terrain_drops_the_old_file_name(tmp_path):
    config = small(tmp_path)
    assert config.replace(world={"terrain": [[0, 0], [10, 5]]}).world.terrain_file is None
    assert config.replace(world={"terrain": []}).world.terrain_file is None
    assert config.replace(world={"gravity": 0.3}).world.terrain_file == str(tmp_path / "hills.xml")
    assert config.world.updated({"terrain": [[0, 0], [10, 5]]}).terrain_file is None


def test_a_terrain_file_name_without_a_terrain_is_refused_in_one_line(tmp_path):
    config = small(tmp_path).replace(world={"terrain": []})
    with pytest.raises(
        EvoInputError, match=r"\[world\] terrain_file: names the file a terrain was read from"
    ):
        config.replace(world={"terrain_file": "hills.xml"})


def test_the_run_writes_the_name_and_its_elites_and_a_race_of_them_carry_it(tmp_path):
    config = small(tmp_path)
    run = tmp_path / "run"
    evo.evolve(config, out=run, progress=False)
    saved = tomllib.loads((run / "config.toml").read_text())["world"]
    assert saved["terrain_file"] == str(tmp_path / "hills.xml")
    elite = evo.load_model(next((run / "elites").glob("01_*.json")))
    assert elite.world["terrain_file"] == str(tmp_path / "hills.xml")
    race = race_of_run(run, top=2)  # a label, not a world value a race file must refuse
    assert race.terrain == config.world.terrain


def test_a_folder_written_before_the_name_was_kept_resumes_and_gains_it(tmp_path):
    config = small(tmp_path)
    run = tmp_path / "run"
    evo.evolve(config, out=run, progress=False)
    old = "".join(
        line
        for line in (run / "config.toml").read_text().splitlines(True)
        if not line.startswith("terrain_file")
    )
    (run / "config.toml").write_text(old)  # as a run folder of 0.1 has it
    evo.evolve(config.replace(run={"generations": 3}), out=run, progress=False, resume=True)
    assert tomllib.loads((run / "config.toml").read_text())["world"]["terrain_file"] == str(
        tmp_path / "hills.xml"
    )
    assert len((run / "history.csv").read_text().splitlines()) == 1 + 3
