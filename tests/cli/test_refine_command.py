"""``evo refine MODEL --plugin NAME``: the refined model is written with a meta saying where it came from,
``--json`` prints one object, and ``evo simulate`` of the written file gives the fitness reported
(issue 21)."""

import json
from pathlib import Path

from evo.cli import main
from evo.io.models import load_model
from evo.sim import World

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_refine_makes_the_galloper_half_again_as_fast_and_simulate_agrees(tmp_path, capsys):
    out = tmp_path / "fast.json"
    code, stdout, _ = run_cli(
        capsys, "refine", GENOMES / "galloper.json", "--plugin", "distance", "--budget", 600,
        "--out", out, "--json", "--quiet",
    )  # fmt: skip
    assert code == 0
    report = json.loads(stdout)
    assert set(report) == {"start_fitness", "fitness", "evaluations", "model"}
    assert report["model"] == str(out) and report["evaluations"] <= 600
    assert report["fitness"] >= 1.5 * report["start_fitness"]
    code, stdout, _ = run_cli(capsys, "simulate", out, "--plugin", "distance", "--json")
    assert code == 0 and json.loads(stdout.splitlines()[-1])["fitness"] == [report["fitness"]]
    code, stdout, _ = run_cli(capsys, "simulate", GENOMES / "galloper.json", "--plugin", "distance", "--json")
    assert json.loads(stdout.splitlines()[-1])["fitness"] == [report["start_fitness"]]
    refined = load_model(out)
    record = refined.meta["refined"]
    assert record["from"] == str(GENOMES / "galloper.json")
    assert record["genes"] == ["phi", "alpha", "rest", "omega", "beta"]
    assert record["gain"] == report["fitness"] / report["start_fitness"]
    start = load_model(GENOMES / "galloper.json")
    assert refined.n_links == start.n_links and (refined.link_a == start.link_a).all()


def test_a_classic_xml_model_is_refined_in_its_own_world(tmp_path, capsys):
    source = GENOMES / "classic" / "strider.xml"
    out = tmp_path / "strider.json"
    code, stdout, err = run_cli(
        capsys, "refine", source, "--plugin", "distance", "--budget", 40, "--genes", "phi,omega",
        "--out", out, "--quiet",
    )  # fmt: skip
    assert code == 0, err
    assert "strider" in stdout and str(out) in stdout
    refined, start = load_model(out), load_model(source)
    assert World.from_model(refined) == World.from_model(start)
    assert (refined.rest == start.rest).all() and (refined.alpha == start.alpha).all()


def test_bad_genes_and_budgets_are_one_line_errors_and_nothing_is_written(tmp_path, capsys):
    out = tmp_path / "x.json"
    for argv, words in (
        (("--genes", "phi,gamma"), "--genes: unknown gene 'gamma'"),
        (("--budget", "5"), "--budget: expected a budget of at least"),
        (("--plugin", "nosuch"), "nosuch"),
    ):
        args = ["refine", GENOMES / "galloper.json", "--plugin", "distance", "--out", out, "--quiet", *argv]
        code, _, err = run_cli(capsys, *args)
        assert code == 2 and err.count("\n") == 1 and err.startswith("evo refine: error: ") and words in err
        assert not out.exists()


def test_an_elite_of_a_run_is_refined_under_its_runs_frames_params_and_seed(tmp_path, capsys):
    config = tmp_path / "t.toml"
    config.write_text(
        '[run]\nname = "t"\nseed = 3\ngenerations = 2\npopulation = 16\n[evaluation]\nframes = 900\n'
        'plugin = "speed"\n[evaluation.params]\nsettle_frames = 100\n[pool]\nworkers = 1\n'
    )
    assert main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    elite = sorted((tmp_path / "run" / "elites").glob("*.json"))[0]
    start = load_model(elite).meta
    out = tmp_path / "refined.json"
    code, stdout, _ = run_cli(
        capsys, "refine", elite, "--plugin", "speed", "--budget", 120, "--out", out, "--json"
    )
    report = json.loads(stdout)
    assert code == 0 and report["start_fitness"] == start["fitness"][0]
    meta = load_model(out).meta
    assert meta["fitness"] == [report["fitness"]] and meta["refined"]["plugin"] == "speed"
    assert (meta["frames"], meta["params"], meta["seed"]) == (900, {"settle_frames": 100}, start["seed"])
    code, stdout, _ = run_cli(capsys, "simulate", out, "--plugin", "speed", "--json")
    assert json.loads(stdout.splitlines()[-1])["fitness"] == [report["fitness"]]


def test_bad_params_are_one_line_errors_as_for_simulate(tmp_path, capsys):
    huge = "1" + "0" * 5000  # more digits than Python reads
    for params, expected in (
        ("{", "--params: not valid JSON"),
        ("[1]", "--params: expected a JSON object"),
        ('{"settle_frames": ' + huge + "}", "--params: not valid JSON: an integer of 5001 digits"),
    ):
        for command in ("refine", "simulate"):
            code, _, err = run_cli(
                capsys, command, GENOMES / "walker.json", "--plugin", "distance", "--params", params,
                *(("--budget", 10, "--out", tmp_path / "x.json") if command == "refine" else ()),
            )  # fmt: skip
            assert code == 2 and expected in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.json").exists()
