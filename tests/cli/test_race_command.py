"""``evo race`` (issue 20): the ranking printed, ``--json`` as one object, pictures, ``--from RUN_DIR``;
``evo convert --contender``, ``evo validate`` of a race, and one-line errors for misuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evo.cli import main
from evo.io.models import load_model
from evo.io.soda_race import read_race

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
EXAMPLE = GENOMES / "classic" / "race.xml"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_ranking_is_printed_finishers_first(capsys):
    code, out, _ = run_cli(capsys, "race", EXAMPLE)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith("4 contenders, 5000 frames, finish line at x = 1500 px")
    assert lines[1].startswith("  1. roller (contender 3): finished at frame ")
    assert lines[2].startswith("  2. strider (contender 1): finished at frame ")
    assert "hopper (contender 2): +" in lines[3] and "in 5000 frames" in lines[3]


def test_json_is_one_object_with_the_documented_keys(capsys):
    code, out, err = run_cli(capsys, "race", EXAMPLE, "--json", "--frames", "1500", "--finish", "none")
    assert code == 0 and "contenders" in err  # the human lines go to stderr
    doc = json.loads(out)
    assert (
        set(doc) == {"contenders", "finish_x", "frames"} and doc["finish_x"] is None and doc["frames"] == 1500
    )
    assert [c["rank"] for c in doc["contenders"]] == [1, 2, 3, 4]
    assert sorted(c["index"] for c in doc["contenders"]) == [1, 2, 3, 4]
    for c in doc["contenders"]:
        assert set(c) == {"index", "name", "rank", "finished", "frames", "distance", "exploded"}
        assert c["finished"] is False and c["frames"] == 1500
    distances = [c["distance"] for c in doc["contenders"]]
    assert distances == sorted(distances, reverse=True)


def test_a_given_finish_line_is_used(capsys):
    _, out, _ = run_cli(capsys, "race", EXAMPLE, "--json", "--frames", "1500", "--finish", "300")
    doc = json.loads(out)
    assert doc["finish_x"] == 300.0 and any(c["finished"] for c in doc["contenders"])


def test_gif_and_svg_pictures_are_written(capsys, tmp_path):
    gif, svg = tmp_path / "race.gif", tmp_path / "race.svg"
    code, _, _ = run_cli(
        capsys, "race", EXAMPLE, "--frames", "300", "--gif", gif, "--svg", svg, "--every", "50"
    )
    assert code == 0 and gif.read_bytes()[:6] == b"GIF89a"
    from PIL import Image

    assert Image.open(gif).n_frames == 7  # frames 0, 50, ..., 250 and the last
    text = svg.read_text(encoding="utf-8")
    assert text.startswith("<svg") and "1. " in text and "finish line at x = 1500 px" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["race"], "give a race file"),
        (["race", EXAMPLE, "--frames", "0"], "--frames: expected an integer in 1.."),
        (["race", EXAMPLE, "--finish", "far"], "--finish expects an x in px or 'none'"),
        (["race", EXAMPLE, "--top", "2"], "--top goes with --from"),
        (["race", "--from", "somewhere"], "--from RUN_DIR needs --out"),
        (["race", GENOMES / "classic" / "strider.xml"], "expected a <race>"),
        (["convert", GENOMES / "walker.json", "x.json", "--contender", "1"],
         "needs a Sodarace race file"),
        (["convert", EXAMPLE, "x.json", "--contender", "5"], "--contender must lie in 1..4"),
    ],
)  # fmt: skip
def test_misuse_is_one_line_and_status_2(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_convert_pulls_out_a_contender_in_the_races_world(capsys, tmp_path):
    out = tmp_path / "roller.json"
    assert run_cli(capsys, "convert", EXAMPLE, out, "--contender", "3")[0] == 0
    roller = load_model(out)
    race = read_race(EXAMPLE)
    assert roller.name == "roller" and roller.world["terrain"] == [
        [list(p) for p in line] for line in race.terrain
    ]
    code, out_text, _ = run_cli(capsys, "race", EXAMPLE, "--json")
    finish = next(c for c in json.loads(out_text)["contenders"] if c["index"] == 3)
    _, sim, _ = run_cli(capsys, "simulate", out, "--frames", finish["frames"], "--json")
    assert json.loads(sim.splitlines()[-1])["distance"] == finish["distance"]


def test_validate_reports_a_race(capsys):
    code, out, _ = run_cli(capsys, "validate", EXAMPLE)
    assert code == 0 and "a race of 4 contenders, timeout 5000 frames, finish line at x = 1500 px" in out


def test_simulate_of_a_race_file_says_how_to_run_it(capsys):
    code, _, err = run_cli(capsys, "simulate", EXAMPLE)
    assert code == 2 and "a race file: evo race FILE runs it" in err


def test_from_a_run_writes_a_race_that_evo_race_reads(capsys, tmp_path):
    from evo import evolve

    folder = tmp_path / "run"
    config = {
        "run": {"name": "r", "seed": 5, "generations": 1, "population": 10},
        "evaluation": {"frames": 400, "plugin": "distance", "params": {"settle_frames": 50}},
        "pool": {"workers": 1},
    }
    evolve(config, out=folder, progress=False)
    race = tmp_path / "race.xml"
    code, out, _ = run_cli(capsys, "race", "--from", folder, "--out", race, "--top", "3")
    assert code == 0 and out.startswith(f"wrote {race}: 3 contenders, 400 frames")
    code, out, _ = run_cli(capsys, "race", race, "--json", "--frames", "400")
    doc = json.loads(out)
    assert len(doc["contenders"]) == 3 and doc["finish_x"] is None
    elites = sorted((folder / "elites").glob("*.json"))
    for c in doc["contenders"]:
        _, sim, _ = run_cli(capsys, "simulate", elites[c["index"] - 1], "--frames", "400", "--json")
        assert json.loads(sim.splitlines()[-1])["distance"] == c["distance"]
