"""A run folder whose checkpoint (a version-1 checkpoint.json, the form a hand can edit) was edited
(fuzzed) is read, or refused in one line, by read_run, open_run, evo inspect and --resume; never another
exception. Edits of checkpoint.npz: tests/io/test_checkpoint_edits.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fuzz_strategies import FUZZ, loads_or_refuses, mutated
from hypothesis import given, settings
from hypothesis import strategies as st

import evo
from evo.cli.inspect import leaderboard
from evo.io.checkpoint.disk import read_checkpoint_document
from evo.io.run_folder.contents import read_run
from evo.run.folder.writer import prepare


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, dict]:
    base = tmp_path_factory.mktemp("fuzzed-run")
    config = {
        "run": {"name": "fuzz", "generations": 2, "population": 4},
        "evaluation": {"frames": 50},
        "pool": {"workers": 1},
    }
    evo.evolve(evo.Config.from_dict(config), out=base / "made", progress=False)
    shutil.copytree(base / "made", base / "edited")
    (base / "edited" / "checkpoint.npz").unlink()  # edited as a version-1 checkpoint.json, the JSON form
    return base / "edited", {**read_checkpoint_document(base / "made"), "version": 1}


@settings(FUZZ, max_examples=100)
@given(data=st.data())
def test_an_edited_checkpoint_is_read_or_refused_in_one_line(run, data):
    folder, checkpoint = run
    doc = data.draw(mutated(st.just(checkpoint)))
    (folder / "checkpoint.json").write_text(json.dumps(doc, allow_nan=True))
    for read in (read_run, evo.open_run, leaderboard, _resume):
        loads_or_refuses(lambda read=read: read(folder), folder)


def _resume(folder: Path) -> None:
    """What --resume reads before it starts (the lock it takes is released again)."""
    config = evo.Config.from_toml(folder / "config.toml")
    prepare(config, out=folder, resume=True).release()
