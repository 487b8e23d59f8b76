"""The inputs fuzzing found that crashed evo (a traceback, or an error of several lines), replayed: each is
now read, or refused in one line. The corpus is tests/fixtures/crashers/; a file's name says what it holds
and which reader takes it (``model_``, ``config_``, ``world_`` (a ``--world`` file), ``checkpoint_``,
``set_``: one ``--set`` per line)."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest
from fuzz_strategies import loads_or_refuses

import evo
from evo.cli import main
from evo.cli.inspect import leaderboard
from evo.io.models import load_model
from evo.io.run_folder.contents import read_run
from evo.io.tomlfiles import read_world_file
from evo.io.worlds import resolve_world
from evo.run.config import load_config
from evo.sim import World, simulate

ROOT = Path(__file__).resolve().parents[2]
CRASHERS = sorted((ROOT / "tests" / "fixtures" / "crashers").iterdir())
WALKER = str(ROOT / "genomes" / "walker.json")


def _model(path: Path) -> None:
    creature = load_model(path)
    world = World.from_model(creature)
    simulate(creature, world, 20 * world.dt)


def _run_folder(path: Path, folder: Path) -> None:
    run = folder / "run"
    run.mkdir()
    shutil.copy(path, run / "checkpoint.json")
    (run / "config.toml").write_text('[run]\nname = "crash"\n[evaluation]\nframes = 50\n')
    (run / "elites").mkdir()  # an elite file, as a run folder has (not this checkpoint's: it is made up)
    shutil.copy(ROOT / "genomes" / "inchworm.json", run / "elites" / "01_gen0000_000000.json")
    for read in (read_run, evo.open_run, leaderboard):
        loads_or_refuses(lambda read=read: read(run), run)


def _set_values(path: Path, folder: Path) -> None:
    argv = ["simulate", WALKER, "--frames", "10"]
    for line in path.read_text().splitlines():
        argv += ["--set", line]
    stderr = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
        status = loads_or_refuses(lambda: main(argv), folder)
    assert status in (0, 2) and len(stderr.getvalue().strip().splitlines()) <= 1, stderr.getvalue()


def _validated(path: Path, folder: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = loads_or_refuses(lambda: main(["validate", str(path)]), folder)
    stdout.getvalue().encode("utf-8")
    assert status in (0, 2) and len(stderr.getvalue().strip().splitlines()) <= 1, stderr.getvalue()


def test_the_corpus_holds_a_crasher_of_every_reader():
    kinds = {path.name.split("_", 1)[0] for path in CRASHERS}
    assert kinds == {"model", "config", "world", "checkpoint", "set"}


@pytest.mark.parametrize("path", CRASHERS, ids=[path.name for path in CRASHERS])
def test_a_former_crasher_is_read_or_refused_in_one_line(path, tmp_path):
    kind = path.name.split("_", 1)[0]
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    if kind == "model":
        loads_or_refuses(lambda: _model(copy), tmp_path)
        _validated(copy, tmp_path)  # evo validate prints the name: it must be text a terminal can take
    elif kind == "config":
        loads_or_refuses(lambda: load_config(copy), tmp_path)
    elif kind == "world":
        loads_or_refuses(lambda: resolve_world([(read_world_file(copy), str(copy), "world")]), tmp_path)
    elif kind == "checkpoint":
        _run_folder(copy, tmp_path)
    else:
        _set_values(copy, tmp_path)
