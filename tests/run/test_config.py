"""The run configuration: defaults, the resolved TOML round trip, every error path, and its documentation."""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
import shutil
import textwrap
import typing
from pathlib import Path

import pytest

from evo.cli import main
from evo.errors import EvoInputError
from evo.run import backends
from evo.run.config import TABLES, Config, ParsedConfig, load_config, parse_config, resolve
from evo.schema import describe
from evo.sim import World
from evo.sim.ground import Ground

ROOT = Path(__file__).resolve().parents[2]
USER_PLUGINS = ROOT / "tests" / "fixtures" / "user_plugins"


def write_config(folder: Path, text: str, name: str = "walkers.toml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_an_empty_config_takes_every_default_and_its_name_from_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(backends, "busy_cpus", lambda cpus: 0)  # no other process busy on this machine
    config = load_config(write_config(tmp_path, "", name="tiny-run.toml"))
    assert config.run.name == "tiny-run" and config.run.seed == 1
    assert (config.run.generations, config.run.population) == (40, 120)
    assert (config.evaluation.frames, config.evaluation.plugin) == (3000, "distance")
    assert config.evaluation.params == {"settle_frames": 200}
    assert config.plugin.name == "distance" and config.plugin.origin.endswith("plugins/distance.py")
    assert config.world == World()
    assert config.pool.workers == len(os.sched_getaffinity(0)) and config.pool.chunksize is None


def test_the_default_number_of_workers_is_the_cpus_this_process_may_use(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # a big machine, of which this process gets two
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 7})
    monkeypatch.setattr(backends, "busy_cpus", lambda cpus: 0)
    assert load_config(write_config(tmp_path, "")).pool.workers == 2


def test_the_default_number_of_workers_leaves_out_the_cpus_other_processes_keep_busy(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(backends, "busy_cpus", lambda cpus: 1 if cpus == {0, 1, 2, 3} else -99)
    assert load_config(write_config(tmp_path, "")).pool.workers == 3
    monkeypatch.setattr(backends, "busy_cpus", lambda cpus: 4)  # every CPU busy: still one
    assert load_config(write_config(tmp_path, "")).pool.workers == 1


def test_the_shipped_example_loads():
    config = load_config(ROOT / "examples" / "walkers.toml")
    assert config.run.name == "walkers" and config.evaluation.plugin == "distance"


def test_values_are_read_into_frozen_sections(tmp_path):
    path = write_config(
        tmp_path,
        """
        [run]
        name = "hill"
        seed = 9
        generations = 3
        population = 10
        [evaluation]
        frames = 900
        plugin = "posture"
        plugin_paths = ["plugins"]
        [evaluation.params]
        noise = 1
        [world]
        gravity_cursor = 20
        terrain = [[0, 0], [300, 100]]
        [pool]
        workers = 1
        chunksize = 4
        """,
    )
    (tmp_path / "plugins").symlink_to(USER_PLUGINS)
    config = load_config(path)
    assert config.evaluation.plugin_paths == (str(tmp_path / "plugins"),)
    assert config.evaluation.params == {"settle_frames": 50, "noise": 1.0}
    assert config.world.terrain == (((0.0, 0.0), (300.0, 100.0)),)
    assert config.world.gravity == pytest.approx(3.50169e-4 * 400)
    assert (config.pool.workers, config.pool.chunksize) == (1, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.run.seed = 2


def test_the_resolved_toml_loads_back_equal_from_another_folder(tmp_path, monkeypatch):
    source = write_config(
        tmp_path,
        """
        [run]
        seed = 4
        [evaluation]
        plugin = "posture"
        plugin_paths = ["fixtures"]
        [world]
        terrain = [[[0, 0], [50, 10.5]], [[60, 0], [70, 1e-3]]]
        restitution_normal = 0.5
        [genome]
        seed_models = ["models/a.json"]
        """,
    )
    (tmp_path / "fixtures").symlink_to(USER_PLUGINS)
    (tmp_path / "models").mkdir()
    shutil.copy(ROOT / "genomes" / "walker.json", tmp_path / "models" / "a.json")
    config = load_config(source)
    assert config.genome.seed_models == (str(tmp_path / "models" / "a.json"),)
    elsewhere = tmp_path / "runs" / "walkers"
    elsewhere.mkdir(parents=True)
    (elsewhere / "config.toml").write_text(config.to_toml())
    monkeypatch.chdir(elsewhere)
    again = load_config("config.toml")
    assert again == config
    assert again.run.name == "walkers"
    assert again.to_toml().split("\n", 2)[2] == config.to_toml().split("\n", 2)[2]


def test_the_evaluation_spec_is_plain_picklable_data(tmp_path):
    config = load_config(write_config(tmp_path, "[evaluation.params]\nsettle_frames = 10\n"))
    spec = config.evaluation_spec()
    assert type(spec.params) is dict and spec.params == {"settle_frames": 10}
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert pickle.loads(pickle.dumps(config)) == config


def test_parse_config_keeps_what_the_file_says_and_resolve_looks_it_up_from_a_base_folder():
    parsed = parse_config({"evaluation": {"plugin_paths": ["user_plugins"]}})
    assert isinstance(parsed, ParsedConfig) and parsed.evaluation.plugin_paths == ("user_plugins",)
    assert parsed.pool.workers is None and parsed.run.name == "run"
    config = resolve(parsed, USER_PLUGINS.parent)
    assert config.run.name == "run" and config.evaluation.plugin_paths == (str(USER_PLUGINS),)
    assert isinstance(config, Config) and config.pool.workers >= 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("[run]\npopulaton = 3", "unknown key 'populaton' in [run]; did you mean 'population'?"),
        ("[run]\npopulation = 1", "[run] population: expected an integer in [2, 100000], got 1"),
        ("[run]\ngenerations = 2.0", "[run] generations: expected an integer >= 1, got 2.0"),
        ("[run]\nseed = -1", "[run] seed: expected an integer >= 0, got -1"),
        (
            "[run]\nname = 'a/b'",
            "[run] name: expected a folder name (letters, digits, '.', '_', '-'), got 'a/b'",
        ),
        ("[wrold]\ngravity = 1", "unknown table [wrold]; did you mean [world]?"),
        (
            "[extras]\nx = 1",
            "unknown table [extras]; tables are [run], [evaluation], [world], [genome], [ga], [pool]",
        ),
        ("seed = 3", "key 'seed' outside any table; it belongs in [run]"),
        ("run = 3", "'run' must be a table [run], got 3"),
        ("[evaluation]\nframes = 0", "[evaluation] frames: expected an integer in [1, 10000000], got 0"),
        (
            "[evaluation]\nplugin = 'distanse'",
            "[evaluation] plugin: unknown plugin 'distanse'; did you mean 'distance'?",
        ),
        (
            "[evaluation]\nplugin_paths = 'x'",
            "[evaluation] plugin_paths: expected a list of strings, got 'x'",
        ),
        (
            "[evaluation]\nplugin_paths = ['nope']",
            "[evaluation] plugin_paths: expected a folder or a .py file, got 'nope'",
        ),
        ("[evaluation]\nparams = 3", "[evaluation] params: expected a table, got 3"),
        (
            "[evaluation.params]\nsetle_frames = 3",
            "unknown key 'setle_frames' in [evaluation.params] (parameters of plugin 'distance'); "
            "did you mean 'settle_frames'?",
        ),
        (
            "[evaluation.params]\nsettle_frames = 'x'",
            "[evaluation.params] settle_frames: expected an integer",
        ),
        ("[world]\ngravty = 1", "unknown key 'gravty' in [world]; did you mean 'gravity'?"),
        ("[world]\ngravity = -1", "[world] gravity: expected a number >= 0, got -1"),
        (
            "[world]\ndt = 0.7",
            "[evaluation] frames: 3000 frames is not a whole number of steps of dt = 0.7 frames",
        ),
        (
            "[world]\ndt = 0.3\n[evaluation]\nframes = 300",
            "[world] dt: plugin 'distance' records every 10 frames, which is not a whole number of steps",
        ),
        ("[genome]\nmases = [2, 4]", "unknown key 'mases' in [genome]; did you mean 'masses'?"),
        (
            "[ga]\nelite = 5\n[run]\npopulation = 5",
            "[ga] elite: expected fewer than [run] population = 5, got 5",
        ),
        (
            "[genome]\nseed_models = ['missing.json']",
            "[genome] seed_models: {dir}/missing.json: no such file",
        ),
        (
            "[genome]\nseed_models = ['walkers.toml']",
            "[genome] seed_models: {dir}/walkers.toml: not valid JSON",
        ),
        (
            "[evaluation]\nplugin_paths = ['broken.py']",
            "[evaluation] plugin_paths: {dir}/broken.py: loading it raised RuntimeError: boom",
        ),
        ("[pool]\nworkers = 0", "[pool] workers: expected an integer in [1, 1024], got 0"),
        ("[pool]\nworker = 2", "unknown key 'worker' in [pool]; did you mean 'workers'?"),
        ("[run", "not valid TOML"),
    ],
)
def test_every_config_error_is_one_line_naming_the_file_and_the_key(tmp_path, text, message):
    path = write_config(tmp_path, text + "\n")
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    message = message.format(dir=tmp_path)
    with pytest.raises(EvoInputError) as info:
        load_config(path)
    error = str(info.value)
    assert error.startswith(f"{path}: ") and message in error, error
    assert "\n" not in error


def test_a_missing_config_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(EvoInputError, match=r"nothing\.toml: no such file"):
        load_config(tmp_path / "nothing.toml")


def test_validate_prints_a_summary_of_a_config_and_exits_2_on_errors(tmp_path, capsys):
    good = write_config(tmp_path, "[run]\nseed = 5\npopulation = 8\n", name="good.toml")
    assert main(["validate", str(good)]) == 0
    out = capsys.readouterr().out
    assert f"{good}: ok" in out and "seed 5" in out and "8 creatures" in out and "plugin 'distance'" in out
    bad = write_config(tmp_path, "[run]\npopulaton = 8\n", name="bad.toml")
    assert main(["validate", str(bad)]) == 2
    assert "did you mean 'population'?" in capsys.readouterr().err


def test_the_plugins_command_lists_every_plugin_with_doc_params_and_origin(capsys):
    assert main(["plugins", "--path", str(USER_PLUGINS)]) == 0
    out = capsys.readouterr().out
    for name in ("climb", "distance", "jump", "posture", "race", "speed"):
        assert f"\n{name}: " in "\n" + out
    assert "Centroid x displacement (px) from frame `settle_frames` to the end." in out
    assert "parameters: finish_x = 400.0, penalty = 1.0" in out
    assert "objectives: height (maximise), sway (minimise)" in out
    assert f"from: file:{USER_PLUGINS / 'posture.py'}" in out


def test_the_plugins_command_reads_plugin_paths_from_a_config(tmp_path, capsys):
    (tmp_path / "mine").symlink_to(USER_PLUGINS)
    config = write_config(tmp_path, "[evaluation]\nplugin_paths = ['mine']\n")
    assert main(["plugins", "--config", str(config), "--json"]) == 0
    names = re.findall(r'"name": "(\w+)"', capsys.readouterr().out)
    assert "posture" in names and "distance" in names


def _documented_rows(text: str, table: str) -> dict[str, tuple[str, str]]:
    """key -> (default, allowed) of the table under ``## `[table]` `` in docs/config.md, backticks dropped."""
    section = text.split(f"## `[{table}]`", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \| (.*?) \|", section, flags=re.M)
    return {key: (default.replace("`", ""), allowed.replace("`", "")) for key, default, allowed in rows}


def _as_in_docs(value: object) -> str:
    """A default as docs/config.md writes it: TOML-like (``"down"``, ``[4, 12]``, ``{type = "flat"}``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(map(_as_in_docs, value)) + "]"
    if isinstance(value, Ground):
        return "{" + ", ".join(f"{k} = {_as_in_docs(v)}" for k, v in value.to_value().items()) + "}"
    return repr(value)


@pytest.mark.parametrize("table", sorted(TABLES))
def test_docs_config_md_gives_every_key_of_every_table_with_its_default_and_what_it_takes(table):
    """The defaults and the *allowed* column come from the code's settings, so the page cannot drift."""
    rows = _documented_rows((ROOT / "docs" / "config.md").read_text(), table)
    cls = TABLES[table]
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name == "params":  # [evaluation.params] has its own section
            continue
        assert f.name in rows, f"docs/config.md: [{table}] {f.name} is not documented"
        default, allowed = rows[f.name]
        if f.default not in (None, ""):  # a None or "" default is described in words
            assert default == _as_in_docs(f.default), f"[{table}] {f.name}"
        if not f.metadata.get("parse"):  # ground and terrain take richer forms, described in words
            assert allowed.startswith(describe(hints[f.name], f.metadata)), f"[{table}] {f.name}"
