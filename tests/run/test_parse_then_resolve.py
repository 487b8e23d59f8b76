"""A config is parsed once (text to frozen tables, touching nothing outside the text) and resolved once
(plugin, files, CPUs), traced call by call through ``evo.evolve``; what parsing leaves to resolve."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import evo
from evo.errors import EvoInputError
from evo.run import config as config_module
from evo.run import parse as parse_module
from evo.run.config import ParsedConfig, load_config, parse_config, resolve

ROOT = Path(__file__).resolve().parents[2]
EVO = ROOT / "evo"
CONFIG_FILE = str(EVO / "run" / "config.py")
OUTSIDE = (str(EVO / "io") + "/", str(EVO / "sim") + "/")

TINY = """\
[run]
name = "traced"
population = 4
generations = 2
seed = 3

[evaluation]
frames = 60
plugin = "distance"
params = { settle_frames = 0 }

[world]
max_speed = 50.0
"""


class CallTrace:
    """Every Python call in this thread while it is on: the config module's entries and what parsing
    reached."""

    def __init__(self):
        self.parses = 0
        self.resolves = 0
        self.parsing_depth = 0  # > 0 while a parse_config frame is on the stack
        self.reached_while_parsing: set[str] = set()
        self.reentries: list[str] = []
        self.config_calls = 0  # calls into config.py from another module

    def __call__(self, frame, event, arg):
        if event == "call":
            code = frame.f_code
            if code is parse_module.parse_config.__code__:
                self.parses += 1
                self.parsing_depth += 1
            elif code is config_module.resolve.__code__:
                self.resolves += 1
            if self.parsing_depth and code.co_filename.startswith(OUTSIDE):
                self.reached_while_parsing.add(f"{code.co_filename}:{code.co_name}")
            if code.co_filename == CONFIG_FILE and frame.f_back.f_code.co_filename != CONFIG_FILE:
                self.config_calls += 1
                if _entered_again(frame):
                    self.reentries.append(code.co_name)
        elif event == "return" and frame.f_code is parse_module.parse_config.__code__:
            self.parsing_depth -= 1


def _entered_again(frame) -> bool:
    """Whether ``frame`` (in config.py) is called from outside config.py while a config.py frame is
    lower on the stack: the module is re-entered by a call that climbed back up to it."""
    caller = frame.f_back
    if caller is None or caller.f_code.co_filename == CONFIG_FILE:
        return False
    below = caller.f_back
    while below is not None:
        if below.f_code.co_filename == CONFIG_FILE:
            return True
        below = below.f_back
    return False


def test_evolve_parses_the_config_once_resolves_it_once_and_parsing_reaches_neither_io_nor_sim(tmp_path):
    path = tmp_path / "traced.toml"
    path.write_text(TINY, encoding="utf-8")
    trace = CallTrace()
    sys.setprofile(trace)
    try:
        result = evo.evolve(path, out=tmp_path / "run", workers=1, backend="inprocess", progress=False)
    finally:
        sys.setprofile(None)
    assert result.generation == 1 and result.config.pool.workers == 1
    assert (trace.parses, trace.resolves) == (1, 1)
    assert trace.reached_while_parsing == set()
    assert trace.config_calls > 2 and trace.reentries == []  # load_config, resolve, the run's reads


def test_the_trace_sees_a_call_into_io_while_parsing_and_a_climb_back_into_config_py():
    from evo.io.numbers import decode_number

    space: dict = {}
    code = "def outer():\n    return step()\n\ndef inner():\n    return 1\n"
    exec(compile(code, CONFIG_FILE, "exec"), space)  # two functions that claim config.py as their file
    space["step"] = lambda: space["inner"]()  # defined here, in the test's file
    trace = CallTrace()
    trace.parsing_depth = 1  # as inside parse_config
    sys.setprofile(trace)
    try:
        decode_number("inf")
        space["outer"]()  # config.py -> this test -> config.py: entered again
        space["inner"]()  # called from here with no config.py frame below: not a re-entry
    finally:
        sys.setprofile(None)
    assert any(name.endswith("numbers.py:decode_number") for name in trace.reached_while_parsing)
    assert trace.reentries == ["inner"]


def test_parsing_looks_at_nothing_the_file_names_and_resolve_names_the_file_and_key(tmp_path):
    text = (
        '[evaluation]\nplugin = "no_such_plugin"\nplugin_paths = ["missing_folder"]\n'
        '[world]\nterrain = "missing.xml"\n[genome]\nseed_models = ["missing.json"]\n'
    )
    parsed = parse_config(text, source="c.toml")
    assert isinstance(parsed, ParsedConfig)
    assert parsed.world["terrain"] == "missing.xml" and parsed.genome.seed_models == ("missing.json",)
    assert parsed.pool.workers is None  # the CPUs are counted by resolve
    with pytest.raises(EvoInputError, match=r"^c\.toml: \[evaluation\] plugin_paths: expected a folder"):
        resolve(parsed, tmp_path)
    (tmp_path / "missing_folder").mkdir()
    with pytest.raises(EvoInputError, match=r"^c\.toml: \[evaluation\] plugin: .*no_such_plugin"):
        resolve(parsed, tmp_path)


def test_a_bad_value_is_refused_by_the_parse_in_one_line_naming_the_file_and_key():
    with pytest.raises(EvoInputError, match=r"^c\.toml: \[run\] population: expected an integer"):
        parse_config("[run]\npopulation = 1\n", source="c.toml")
    with pytest.raises(EvoInputError, match=r"^c\.toml: not valid TOML"):
        parse_config(b"[run\n", source="c.toml")


def test_overrides_replace_the_files_keys_before_the_check_and_none_removes_one(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[pool]\nworkers = 3\nbackend = "dask"\naddress = "tcp://h:1"\n', encoding="utf-8")
    config = load_config(path, overrides={"pool": {"workers": 2, "backend": "fork", "address": None}})
    assert (config.pool.workers, config.pool.backend, config.pool.address) == (2, "fork", None)
    with pytest.raises(EvoInputError, match=r"\[pool\] workers: expected an integer"):
        parse_config(path.read_text(), source=str(path), overrides={"pool": {"workers": 0}})


def test_the_resolved_config_written_back_parses_and_resolves_to_the_same_config_and_text():
    config = load_config(ROOT / "examples" / "walkers.toml")
    again = resolve(parse_config(config.to_toml(), source=config.source, default_name="x"))
    assert again == config and again.to_toml() == config.to_toml()
