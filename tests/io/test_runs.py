"""Reading a run folder as of its last checkpoint, even while a run writes it (or after it was killed
between two files of a generation)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import evo
from evo.io.run_folder.contents import read_run

CONFIG = {
    "run": {"name": "tiny", "seed": 7, "generations": 3, "population": 10},
    "evaluation": {"frames": 300, "plugin": "distance", "params": {"settle_frames": 0}},
    "world": {"max_speed": 50.0, "ground": {"type": "hills", "amplitude": 5.0, "wavelength": 300.0}},
    "pool": {"workers": 1},
}


def _run(folder: Path, generations: int) -> None:
    config = evo.Config.from_dict({**CONFIG, "run": {**CONFIG["run"], "generations": generations}})
    evo.evolve(config, out=folder, progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """A run of 3 generations, and the same run stopped after 2."""
    base = tmp_path_factory.mktemp("runs")
    _run(base / "three", 3)
    _run(base / "two", 2)
    return base / "three", base / "two"


def _view(path: Path) -> tuple:
    run = read_run(path)
    elites = [(e.file_name, e.text, e.fitness, e.generation) for e in run.elites]
    return elites, run.history, sorted(run.saved_bests)


def test_elites_made_from_the_checkpoint_are_the_files_the_run_writes_byte_for_byte(runs, tmp_path):
    three, _ = runs
    bare = tmp_path / "bare"
    shutil.copytree(three, bare)
    shutil.rmtree(bare / "elites")  # every elite must now be made from the checkpoint and config.toml
    files = sorted((three / "elites").glob("*.json"))
    made = read_run(bare).elites
    assert [e.file_name for e in made] == [p.name for p in files]
    assert [e.text for e in made] == [p.read_text() for p in files]
    assert _view(bare) == _view(three)


def test_a_folder_whose_checkpoint_is_newer_than_its_other_files_reads_as_of_the_checkpoint(runs, tmp_path):
    three, two = runs
    torn = tmp_path / "torn"
    shutil.copytree(two, torn)  # as if killed after the checkpoint of generation 2, before the rest
    shutil.copy(three / "checkpoint.npz", torn / "checkpoint.npz")
    shutil.copy(three / "history.csv", torn / "history.csv")  # appended to before the checkpoint
    elites, history, bests = _view(torn)
    assert (elites, history) == _view(three)[:2] and len(history) == 3
    assert bests == [0, 1]  # generation 2's best was never written; it is not made up
    assert evo.open_run(torn).history.tolist() == evo.open_run(three).history.tolist()
    assert [m.id for m in evo.open_run(torn).hall_of_fame] == [m.id for m in evo.open_run(three).hall_of_fame]


def test_an_elite_file_of_another_generation_under_the_expected_name_is_not_taken(runs, tmp_path):
    three, _ = runs
    mixed = tmp_path / "mixed"
    shutil.copytree(three, mixed)
    first = sorted((mixed / "elites").glob("*.json"))[0]
    doc = json.loads(first.read_text())
    doc["meta"]["id"] = "g99-0"  # same name and body, another individual
    first.write_text(json.dumps(doc))
    assert _view(mixed) == _view(three)


LIVE = """
[run]
name = "live"
seed = 2
generations = 30
population = 8
[evaluation]
frames = 200
[world]
max_speed = 50.0
[pool]
workers = 1
"""


def test_reading_a_run_while_it_is_written_always_gives_one_generation(tmp_path):
    config = tmp_path / "live.toml"
    config.write_text(LIVE)
    folder = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "evo", "run", str(config), "--out", str(folder), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reads = set()
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if not (folder / "checkpoint.npz").exists():
                time.sleep(0.01)
                continue
            run = read_run(folder)
            checkpoint = run.checkpoint
            generation = checkpoint["generation"]
            assert [e.provenance.id for e in run.elites] == [m["id"] for m in checkpoint["hall_of_fame"]]
            assert [row["generation"] for row in run.history] == list(range(generation + 1))
            assert max(run.saved_bests, default=-1) <= generation
            result = evo.open_run(folder)
            assert len(result.history) == result.generation + 1
            reads.add(generation)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == 0, err
    assert len(reads) >= 2, "the run ended before it could be read while running"
    assert not (folder / "run.lock").exists()
