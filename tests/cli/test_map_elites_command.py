"""``evo run`` and ``evo inspect`` of a MAP-Elites run end to end: kill -9 and ``--resume`` give the files of
an uninterrupted run, byte for byte."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from test_run_command import _signal_after_report, evo_run, snapshot, write_config

from evo.cli import main
from evo.io.checkpoint.disk import read_checkpoint_document

QD = """
[qd]
measures = ["masses", "omega"]
batch_size = 3
emitters = 2
"""


def map_elites_config(path: Path, **changes) -> Path:
    config = write_config(path, **changes)
    text = config.read_text().replace("seed = 3\n", 'seed = 3\nalgorithm = "map-elites"\n')
    config.write_text(text + QD)
    return config


def archive_snapshot(folder: Path) -> dict[str, bytes]:
    files = snapshot(folder)
    files["archive.json"] = (folder / "archive.json").read_bytes()
    for path in sorted((folder / "archive").glob("*.json")):
        files[f"archive/{path.name}"] = path.read_bytes()
    return files


def test_a_map_elites_run_killed_with_9_resumes_to_the_same_files(tmp_path):
    config = map_elites_config(
        tmp_path / "c.toml", plugin="slow_distance", params={"pause": 0.02}, generations=7, workers=2
    )
    stopped = tmp_path / "stopped"
    returncode, _ = _signal_after_report(config, stopped, 2, signal.SIGKILL)
    assert returncode == -signal.SIGKILL
    assert read_checkpoint_document(stopped)["generation"] < 6, "it ended before the kill"
    assert evo_run(config, "--out", stopped, "--resume", "--quiet") == 0
    assert evo_run(config, "--out", tmp_path / "straight", "--quiet") == 0
    assert archive_snapshot(stopped) == archive_snapshot(tmp_path / "straight")


def test_inspect_shows_the_archive_and_its_best_cells(tmp_path, capsys):
    config = map_elites_config(tmp_path / "c.toml", generations=3)
    assert evo_run(config, "--out", tmp_path / "run") == 0
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert "cells of 90 occupied" in summary and "QD score" in summary
    assert summary.startswith(f"{tmp_path / 'run'}: 3 iterations; best distance")  # MAP-Elites' word
    assert main(["inspect", str(tmp_path / "run")]) == 0
    lines = capsys.readouterr().out.splitlines()
    archive = json.loads((tmp_path / "run" / "archive.json").read_text())
    occupied = len(archive["elites"])
    assert lines[0].startswith(
        f"{tmp_path / 'run'}: MAP-Elites archive, 9 x 10 (90 cells) over masses [3.5, 12.5]"
    )
    assert f"{occupied} cells occupied" in lines[1] and "QD score" in lines[1]
    assert lines[3].split()[:5] == ["rank", "distance", "cell", "masses", "omega"]
    best = max(archive["elites"], key=lambda e: e["objective"])
    assert lines[4].split()[2] == str(best["index"])
    assert main(["inspect", str(tmp_path / "run"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["archive"]["stats"]["num_elites"] == occupied and doc["elites"][0]["cell"] == best["index"]
