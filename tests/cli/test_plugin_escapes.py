"""Plugins that misbehave at import in the command line: ``os._exit(0)``, a hang and ``os.chdir`` end, hang
or move nothing (each command runs in a process of its own here, so that an escape cannot end pytest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GALLOPER = str(ROOT / "genomes" / "galloper.json")

ESCAPES = {
    "exits": "import os\nos._exit(0)\n",
    "hangs": "import time\ntime.sleep(600)\n",
}
# moves the working folder at import, then declares a plugin as a good one would
MOVES = """
import os
from evo.fitness import fitness_plugin

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "elsewhere"))


@fitness_plugin("moved", weights=(1.0,), record_every=10)
def moved(result) -> float:
    return float(result.centroids[-1, 0] - result.centroids[0, 0])
"""


def _evo(cwd: Path, *args: str, limit: float = 8.0) -> subprocess.CompletedProcess:
    """``evo ARGS`` in a fresh interpreter whose plugin imports may take ``limit`` s."""
    code = (
        "import sys, evo.fitness.contained as c; c.IMPORT_TIME_LIMIT = float(sys.argv[1]);"
        "from evo.cli import main; sys.exit(main(sys.argv[2:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(limit), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=240,
    )


def _config(folder: Path, plugin: str, workers: int = 1) -> Path:
    lines = [
        "[run]", 'name = "escape"', "seed = 1", "generations = 1", "population = 4",
        "[evaluation]", "frames = 40", f'plugin = "{plugin}"', 'plugin_paths = ["plug.py"]',
        "[pool]", f"workers = {workers}",
    ]  # fmt: skip
    (folder / "c.toml").write_text("\n".join(lines) + "\n")
    return folder / "c.toml"


@pytest.mark.parametrize("escape", sorted(ESCAPES))
def test_a_plugin_that_exits_or_hangs_at_import_is_one_line_in_every_command_that_imports_it(
    tmp_path, escape
):
    (tmp_path / "plug.py").write_text(ESCAPES[escape])
    _config(tmp_path, "distance")
    commands = [
        ["plugins", "--plugin-path", "plug.py"],
        ["validate", "c.toml"],
        ["run", "c.toml", "--out", "relrun"],
        ["refine", GALLOPER, "--plugin", "distance", "--plugin-path", "plug.py", "--budget", "20"],
    ]
    for args in commands:
        done = _evo(tmp_path, *args, limit=2.0)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "plug.py" in lines[0], (args, done.stderr)
        word = "ended the process" if escape == "exits" else "longer than 2 s"
        assert word in lines[0], (args, lines)
    assert not (tmp_path / "relrun").exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_plugin_that_changes_folder_at_import_moves_no_run_folder(tmp_path, workers):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "plug.py").write_text(MOVES)
    _config(tmp_path, "moved", workers)
    done = _evo(tmp_path, "run", "c.toml", "--out", "relrun", "--quiet", limit=60.0)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "relrun" / "checkpoint.npz").is_file()
    assert list((tmp_path / "elsewhere").iterdir()) == []


# moves the working folder each time it scores: the paths were made absolute before
MOVES_WHEN_CALLED = MOVES.replace("\nos.chdir(", "\nFOLDER = (").replace(
    "    return float(", "    os.chdir(FOLDER)\n    return float("
)


@pytest.mark.parametrize("plugin", [MOVES, MOVES_WHEN_CALLED], ids=["at-import", "when-called"])
def test_refine_out_and_simulate_trace_stay_where_they_were_asked_for(tmp_path, plugin):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "plug.py").write_text(plugin)
    common = ["--plugin", "moved", "--plugin-path", "plug.py"]
    done = _evo(tmp_path, "refine", GALLOPER, *common, "--budget", "20", "--frames", "40", "--out", "r.json")
    assert done.returncode == 0, done.stderr
    done = _evo(tmp_path, "simulate", GALLOPER, *common, "--frames", "40", "--trace", "t.csv")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.json").is_file() and (tmp_path / "t.csv").is_file()
    assert list((tmp_path / "elsewhere").iterdir()) == []
