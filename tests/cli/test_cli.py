"""The model commands of ``python -m evo`` (simulate, validate, convert): output formats and every error path.

Errors must be one line on stderr, exit status 2, no traceback, and no output file left behind.
"""

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from evo.cli import main

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
WALKER = GENOMES / "walker.json"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_prints_only_the_json_summary_on_stdout(capsys):
    code, out, err = run_cli(capsys, "simulate", WALKER, "--frames", 300, "--json")
    assert code == 0
    summary = json.loads(out)  # the whole of stdout
    assert "distance:" in err  # the human lines
    assert isinstance(summary["frames"], int)
    for key in ("frames", "masses", "links", "start_centroid", "end_centroid", "distance", "exploded"):
        assert key in summary
    assert summary["frames"] == 300 and summary["masses"] == 6 and summary["links"] == 11
    assert summary["distance"] == pytest.approx(summary["end_centroid"][0] - summary["start_centroid"][0])
    assert summary["exploded"] is False


def test_the_trace_has_one_row_per_mass_per_recorded_frame_starting_at_the_initial_state(tmp_path, capsys):
    trace = tmp_path / "trace.csv"
    code, _, _ = run_cli(capsys, "simulate", WALKER, "--frames", 100, "--every", 10, "--trace", trace)
    assert code == 0
    with trace.open() as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["frame", "mass", "x", "y", "vx", "vy"]
    body = [[float(cell) for cell in row] for row in rows[1:]]
    assert len(body) == 11 * 6
    model = json.loads(WALKER.read_text())
    first = body[0]
    assert first[:4] == [0.0, 0.0, model["masses"][0]["x"], model["masses"][0]["y"]]
    assert sorted({row[0] for row in body}) == [float(f) for f in range(0, 101, 10)]


@pytest.mark.parametrize(
    "frames, every, dt, expected",
    [
        (49381, "12345.25", "0.25", ["0", "12345.25", "24690.5", "37035.75", "49381"]),
        (2469134, "1234567", "1", ["0", "1234567", "2469134"]),
    ],
)
def test_the_trace_writes_every_frame_number_exactly(tmp_path, capsys, frames, every, dt, expected):
    trace = tmp_path / "trace.csv"
    argv = ["simulate", WALKER, "--frames", frames, "--every", every, "--set", f"dt={dt}", "--trace", trace]
    assert run_cli(capsys, *argv)[0] == 0
    with trace.open() as handle:
        rows = list(csv.reader(handle))[1:]
    assert [row[0] for row in rows[::6]] == expected  # not 12345.2 nor 1.23457e+06


def test_world_overrides_come_from_a_world_file_and_set_in_that_order(tmp_path, capsys):
    world_file = tmp_path / "w.toml"
    world_file.write_text("[world]\ngravity = 0.0\ndamping = 0.5\n")
    _, out, _ = run_cli(capsys, "simulate", WALKER, "--frames", 50, "--world", world_file, "--json")
    still = json.loads(out.strip().splitlines()[-1])
    _, out, _ = run_cli(
        capsys, "simulate", WALKER, "--frames", 50, "--world", world_file, "--set", "gravity=0.5", "--json"
    )
    falling = json.loads(out.strip().splitlines()[-1])
    # without gravity the creature (starting 1 px above the floor) cannot come down; with it, it does
    assert falling["end_centroid"][1] < still["end_centroid"][1]


def test_the_world_is_layered_defaults_then_the_model_then_the_world_file_then_set(tmp_path):
    from evo.cli._common import world_for
    from evo.io.models import load_model

    doc = json.loads(WALKER.read_text())
    doc["world"] = {"gravity": 0.1, "damping_cursor": 10, "stiffness": 0.3}
    model = tmp_path / "m.json"
    model.write_text(json.dumps(doc))
    creature = load_model(model)
    file = world_file(tmp_path, "[world]\ngravity = 0.2\nstiffness_cursor = 50\n")

    def world(world_path, sets):
        return world_for(creature, argparse.Namespace(world=world_path, set=sets), str(model))

    assert world(None, []).gravity == 0.1 and world(None, []).restitution_normal == 0.75  # a default
    assert world(None, []).damping == pytest.approx(8.7698e-5 * 10**2)  # the model's cursor
    assert world(file, []).gravity == 0.2 and world(file, []).stiffness == pytest.approx(4.4209e-5 * 50**2)
    assert world(file, []).damping == world(None, []).damping  # what the file leaves alone stays the model's
    assert world(file, ["gravity=0.3", "damping=0.5"]).gravity == 0.3
    assert world(file, ["damping=0.5"]).damping == 0.5


def test_a_run_config_serves_as_a_world_file_through_its_world_table(tmp_path, capsys):
    config = world_file(tmp_path, "[run]\nname = 'x'\n\n[world]\ngravity = 0.1\n\n[ga]\nelite = 2\n")
    code, out, _ = run_cli(capsys, "simulate", WALKER, "--frames", 50, "--world", config, "--json")
    _, expected, _ = run_cli(capsys, "simulate", WALKER, "--frames", 50, "--set", "gravity=0.1", "--json")
    assert code == 0 and out == expected


def test_convert_goes_to_xml_and_back_and_validate_accepts_both(tmp_path, capsys):
    xml = tmp_path / "walker.xml"
    back = tmp_path / "back.json"
    assert run_cli(capsys, "convert", WALKER, xml)[0] == 0
    assert run_cli(capsys, "convert", xml, back)[0] == 0
    for path in (xml, back):
        code, out, _ = run_cli(capsys, "validate", path)
        assert code == 0 and "ok" in out
    original = json.loads(WALKER.read_text())
    again = json.loads(back.read_text())
    assert again["masses"] == original["masses"]
    assert len(again["links"]) == len(original["links"])


ODD_CLASSIC = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE model SYSTEM "sodaconstructor.dtd">
<model>
  <sound on="yes"/>
  <settings wavedirection="reverse" soundon="1"/>
  <nodes><mass id="a" x="0" y="0"/><mass id="b" x="40" y="0" colour="red"/></nodes>
  <links><muscle a="a" b="b" restlength="40" amplitude="0.5" phase="0.25"/></links>
</model>
"""


def test_what_a_classic_file_holds_that_evo_does_not_know_is_one_warning_line_each(tmp_path, capsys):
    path = tmp_path / "odd.xml"
    path.write_bytes(ODD_CLASSIC.encode("latin-1"))
    for command in (
        ["validate", path],
        ["simulate", path, "--frames", 10],
        ["convert", path, tmp_path / "o.json"],
    ):
        code, out, err = run_cli(capsys, *command)
        assert code == 0 and out
        assert err.splitlines() == [
            f"evo {command[0]}: warning: {path}: model: unknown element <sound> (ignored); valid: name, "
            "comment, container, environment, collisions, wave, settings, nodes, links, polys",
            f"evo {command[0]}: warning: {path}: settings: unknown attribute 'soundon' (ignored); valid: "
            "gravitydirection, wavedirection, autoreverse",
            f"evo {command[0]}: warning: {path}: nodes/mass[2]: unknown attribute 'colour' (ignored); valid: "
            "id, x, y, vx, vy",
        ]


@pytest.mark.parametrize("command", ["validate", "convert"])
def test_strict_turns_the_first_warning_into_a_one_line_error_and_writes_nothing(tmp_path, capsys, command):
    path = tmp_path / "odd.xml"
    path.write_bytes(ODD_CLASSIC.encode("latin-1"))
    target = tmp_path / "out.json"
    argv = [command, "--strict", path] + ([target] if command == "convert" else [])
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and not target.exists()
    assert err == (
        f"evo {command}: error: {path}: model: unknown element <sound>; valid: name, comment, container, "
        "environment, collisions, wave, settings, nodes, links, polys\n"
    )
    assert run_cli(capsys, command, "--strict", GENOMES / "classic" / "crawler.xml", *argv[3:])[0] == 0


def bad_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "evo-model", "version": 1, "masses": [')
    return path


def bad_field(tmp_path):
    doc = json.loads(WALKER.read_text())
    doc["links"][3]["rest"] = -2.0
    path = tmp_path / "field.json"
    path.write_text(json.dumps(doc))
    return path


def a_folder(tmp_path, name):
    """An output path that cannot be written: a folder of that name is in the way."""
    path = tmp_path / name
    path.mkdir()
    return path


def with_meta_frames(tmp_path, frames):
    doc = json.loads(WALKER.read_text())
    doc["meta"]["frames"] = frames
    path = tmp_path / "meta.json"
    path.write_text(json.dumps(doc))
    return path


def world_file(tmp_path, text):
    path = tmp_path / "world.toml"
    path.write_text(text)
    return path


ERRORS = [
    (lambda t: ["simulate", t / "missing.json"], "missing.json: no such file"),
    (lambda t: ["simulate", bad_json(t)], "bad.json: not valid JSON"),
    (lambda t: ["simulate", bad_field(t)], "field.json: links[3].rest: expected a number in [0, 1e+09]"),
    (lambda t: ["simulate", WALKER, "--frames", "0"], "--frames: expected an integer in 1.."),
    (lambda t: ["simulate", WALKER, "--every", "0"], "--every: expected a number in (0, "),
    (
        lambda t: ["simulate", with_meta_frames(t, 0)],
        "meta.json: meta.frames: expected a whole number of frames > 0",
    ),
    (lambda t: ["simulate", with_meta_frames(t, 2.5)], "meta.json: meta.frames: expected a whole number"),
    (lambda t: ["simulate", WALKER, "--every", "2.5", "--frames", "10"], "record_every = 2.5"),
    (lambda t: ["simulate", WALKER, "--every", "nan"], "--every: expected a number in (0, "),
    (lambda t: ["simulate", WALKER, "--every", "inf"], "--every: expected a number in (0, "),
    # the last record would be frame 98: the summary would miss the end of the run
    (lambda t: ["simulate", WALKER, "--frames", "100", "--every", "7"], "--frames 100 is not a multiple"),
    (lambda t: ["simulate", WALKER, "--set", "dt=1e-300"], "frames = 3000 takes 3e+303 steps"),
    (lambda t: ["simulate", WALKER, "--frames", str(10**13)], "records of 6 masses do not fit in memory"),
    (
        lambda t: ["simulate", WALKER, "--set", "gravty=1"],
        "unknown key 'gravty' in --set; did you mean 'gravity'?",
    ),
    (lambda t: ["simulate", WALKER, "--set", "gravity"], "--set expects NAME=VALUE"),
    (
        lambda t: ["simulate", WALKER, "--set", "stiffness=-1"],
        "--set.stiffness: expected a number > 0, got -1",
    ),
    (
        lambda t: ["simulate", WALKER, "--set", "integrator=verlet"],
        "--set.integrator: expected one of 'euler', 'explicit-euler', ",
    ),
    (
        lambda t: ["simulate", WALKER, "--set", "gravity=1", "--set", "gravity_cursor=20"],
        "give either 'gravity' or 'gravity_cursor', not both",
    ),
    (
        lambda t: ["simulate", WALKER, "--set", "gravity_cursor=200"],
        "--set.gravity_cursor: expected a number in [0, 107], got 200",
    ),
    (lambda t: ["simulate", WALKER, "--world", t / "nope.toml"], "nope.toml: no such file"),
    (lambda t: ["simulate", WALKER, "--world", world_file(t, "gravity = [")], "world.toml: not valid TOML"),
    (lambda t: ["simulate", WALKER, "--world", world_file(t, "dampng = 1")], "did you mean 'damping'?"),
    (lambda t: ["simulate", WALKER, "--world", world_file(t, "world = 5")], "world.toml: world: expected a"),
    (
        lambda t: ["simulate", WALKER, "--world", world_file(t, "gravity = 1\n[world]\ndamping = 0.1\n")],
        "world.toml: gravity: expected every world parameter inside the [world] table",
    ),
    (lambda t: ["validate", bad_field(t)], "field.json: links[3].rest"),
    (lambda t: ["convert", WALKER, t / "out.txt"], "expected a .json or .xml file name"),
    (lambda t: ["convert", bad_json(t), t / "out.xml"], "bad.json: not valid JSON"),
    (
        lambda t: ["convert", WALKER, a_folder(t, "out.json")],
        "out.json: is a folder; evo writes regular files only",
    ),
    (
        lambda t: ["convert", WALKER, a_folder(t, "out.xml")],
        "out.xml: is a folder; evo writes regular files only",
    ),
    (
        lambda t: ["simulate", WALKER, "--frames", "10", "--trace", a_folder(t, "t.csv")],
        "t.csv: is a folder; evo writes regular files only",
    ),
]


@pytest.mark.parametrize("argv, message", ERRORS)
def test_every_error_is_one_line_on_stderr_with_status_2_and_writes_nothing(tmp_path, capsys, argv, message):
    trace = tmp_path / "trace.csv"
    args = argv(tmp_path)
    if args[0] == "simulate" and "--trace" not in args:
        args = [*args, "--trace", trace]
    before = set(tmp_path.iterdir())
    code, _, err = run_cli(capsys, *args)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert set(tmp_path.iterdir()) == before  # no output file, not even a half-written one


def test_the_module_entry_point_exits_2_without_a_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "evo", "simulate", str(tmp_path / "none.json")], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr.strip().endswith("none.json: no such file")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["plugins", "validate", "run"])
def test_a_plugin_file_that_calls_sys_exit_at_import_fails_every_command_that_loads_it(tmp_path, command):
    (tmp_path / "quits.py").write_text("import sys\n\nsys.exit(0)\n")
    config = tmp_path / "c.toml"
    config.write_text(
        '[run]\nname = "q"\ngenerations = 1\npopulation = 4\n'
        '[evaluation]\nplugin = "distance"\nframes = 100\nplugin_paths = ["quits.py"]\n'
    )
    argv = {
        "plugins": ["plugins", "--plugin-path", str(tmp_path / "quits.py")],
        "validate": ["validate", str(config)],
        "run": ["run", str(config), "--out", str(tmp_path / "out"), "--quiet"],
    }[command]
    done = subprocess.run([sys.executable, "-m", "evo", *argv], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evo {command}: error: ")
    assert line.endswith(f"{tmp_path / 'quits.py'}: loading it raised SystemExit: 0 (line 3)")
    assert not (tmp_path / "out").exists()


def test_plugins_takes_plugin_path_like_every_command_and_the_old_path_flag_with_a_warning(capsys):
    user = str(GENOMES.parent / "tests" / "fixtures" / "user_plugins")
    assert main(["plugins", "--plugin-path", user]) == 0
    new = capsys.readouterr()
    assert "\nposture: " in new.out and new.err == ""
    assert main(["plugins", "--path", user]) == 0
    old = capsys.readouterr()
    assert old.out == new.out
    assert old.err == (
        "evo plugins: warning: --path is deprecated since evo 0.2.0 and goes in 0.3.0; use --plugin-path\n"
    )
