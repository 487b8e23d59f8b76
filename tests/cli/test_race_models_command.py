"""``evo race MODEL MODEL...`` (issue 30): any model files ranked, their race distances equal to ``evo
simulate`` of each file, the plugin's fitness beside them labelled with the frame each counts from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evo.cli import main

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
WALKER, GALLOPER, CRAWLER = (
    GENOMES / "walker.json",
    GENOMES / "galloper.json",
    GENOMES / "classic" / "crawler.xml",
)
HILLS = GENOMES / "classic" / "hills.xml"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def simulated(capsys, model: Path, *extra) -> dict:
    code, out, _ = run_cli(
        capsys, "simulate", model, "--frames", 600, "--json", "--plugin", "distance", *extra
    )
    assert code == 0
    return json.loads(out.splitlines()[-1])


def test_a_json_model_and_a_classic_xml_model_race_with_the_distances_of_evo_simulate(capsys):
    code, out, err = run_cli(capsys, "race", WALKER, CRAWLER, GALLOPER, "--frames", 600, "--json")
    assert code == 0
    doc = json.loads(out)
    assert [c["rank"] for c in doc["contenders"]] == [1, 2, 3] and doc["finish_x"] is None
    distances = [c["distance"] for c in doc["contenders"]]
    assert distances == sorted(distances, reverse=True)
    for row in doc["contenders"]:
        alone = simulated(capsys, Path(row["file"]))
        assert row["distance"] == alone["distance"], "bit for bit as evo simulate"
        assert row["fitness"]["values"] == alone["fitness"], "the plugin scores as evo simulate --plugin"
        assert row["distance_counted_from_frame"] == 0 and row["fitness"]["counted_from_frame"] == 200
    assert "race distance: centroid x from frame 0" in err
    assert "fitness: the distance plugin, counted from frame 200 (settle_frames)" in err


def test_the_ranking_says_race_distance_and_fitness_side_by_side(capsys):
    code, out, _ = run_cli(capsys, "race", CRAWLER, WALKER, "--frames", 600)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "race of 2 models: 2 contenders, 600 frames, no finish line"
    assert lines[2].startswith(f"  1. walker ({WALKER}): race distance +")
    assert " · fitness distance " in lines[2] and " · fitness distance " in lines[3]


def test_a_given_terrain_and_plugin_apply_to_every_model(capsys, tmp_path: Path):
    world = tmp_path / "world.toml"
    world.write_text(f'[world]\nterrain = "{HILLS}"\n', encoding="utf-8")
    code, out, _ = run_cli(
        capsys, "race", WALKER, GALLOPER, "--frames", 600, "--terrain", HILLS, "--finish", "none",
        "--plugin", "distance", "--params", '{"settle_frames": 50}', "--json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    for row in doc["contenders"]:
        alone = simulated(capsys, Path(row["file"]), "--world", world, "--params", '{"settle_frames": 50}')
        assert row["distance"] == alone["distance"]
        assert row["fitness"]["values"] == alone["fitness"] and row["fitness"]["counted_from_frame"] == 50


def test_a_race_file_still_runs_as_before_and_from_run_still_needs_out(capsys):
    code, out, _ = run_cli(
        capsys, "race", GENOMES / "classic" / "race.xml", "--frames", 200, "--finish", "none"
    )
    assert code == 0 and out.splitlines()[0].endswith("4 contenders, 200 frames, no finish line")
    assert "fitness" not in out, "a race file shows fitness only with --plugin"
    assert main(["race", "--from", "nowhere"]) == 2
    assert "--from RUN_DIR needs --out RACE.xml" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["race"], "give a race file (evo race RACE.xml), model files"),
        (["race", str(WALKER)], "to race models, give two or more model files"),
        (["race", str(WALKER), str(CRAWLER), "--plugin", "nonesuch"], "nonesuch"),
        (["race", str(GENOMES / "classic" / "race.xml"), "--terrain", str(HILLS)], "--terrain goes with"),
        (["race", str(WALKER), "missing.json"], "missing.json"),
    ],
)
def test_misuse_is_one_line_and_status_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_race_of_models_writes_a_gif(capsys, tmp_path: Path):
    gif = tmp_path / "race.gif"
    code, out, _ = run_cli(capsys, "race", WALKER, CRAWLER, "--frames", 100, "--every", 50, "--gif", gif)
    assert code == 0 and gif.read_bytes()[:6] == b"GIF89a" and f"wrote {gif}" in out
