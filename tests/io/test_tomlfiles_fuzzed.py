"""Fuzzed TOML: run configs, ``--world`` files and ``--set`` values each load or are refused in one line;
a config that loads writes out a config.toml that loads to the same config."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from fuzz_strategies import FUZZ, SET_ITEMS, config_texts, loads_or_refuses
from hypothesis import given
from hypothesis import strategies as st

from evo.cli import main
from evo.io.tomlfiles import read_world_file
from evo.io.worlds import resolve_world
from evo.run.config import load_config, parse_config, resolve

ROOT = Path(__file__).resolve().parents[2]
WALKER = str(ROOT / "genomes" / "walker.json")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzzed-toml")


def _load_and_write_back(path: Path):
    config = load_config(path)
    again = resolve(parse_config(config.to_toml(), source=str(path), default_name=path.stem))
    assert again == config
    return config


@FUZZ
@given(data=config_texts())
def test_a_damaged_run_config_loads_or_is_refused_in_one_line(folder, data):
    path = folder / "config.toml"
    path.write_bytes(data)
    loads_or_refuses(lambda: _load_and_write_back(path), folder)


@FUZZ
@given(data=config_texts())
def test_a_damaged_world_file_loads_or_is_refused_in_one_line(folder, data):
    path = folder / "world.toml"
    path.write_bytes(data)
    loads_or_refuses(lambda: resolve_world([(read_world_file(path), str(path), "world")]), folder)


@FUZZ
@given(items=st.lists(SET_ITEMS, min_size=1, max_size=2))
def test_set_values_simulate_or_are_refused_in_one_line_with_status_2(folder, items):
    argv = ["simulate", WALKER, "--frames", "10", "--every", "5"]
    for item in items:
        argv += ["--set", item]
    stderr = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
        status = loads_or_refuses(lambda: main(argv), folder)
    err = stderr.getvalue()
    assert status in (0, 2), err
    if status == 2:  # one error line (after any warning about the step, which is not an error)
        said = [line for line in err.strip().splitlines() if not line.startswith("evo simulate: warning: ")]
        assert len(said) == 1 and said[0].startswith("evo simulate: error: "), err
