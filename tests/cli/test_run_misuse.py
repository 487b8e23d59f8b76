"""``evo run`` under misuse: a second process on a folder in use, SIGTERM (once, to the whole process
group, and twice), a full disk or a read-only folder, and a worker that dies (docs/runs.md, "What
survives what")."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_run_command import _wait_for_checkpoint, _wait_for_report, evo_run, snapshot, write_config

import evo
from evo.io import run_lock
from evo.io.checkpoint import disk as checkpoint_file
from evo.io.checkpoint.disk import read_checkpoint_document
from evo.io.run_lock import FolderInUse

ROOT = Path(__file__).resolve().parents[2]
HANGING = str(ROOT / "tests" / "fixtures" / "hanging_plugins")


def _start(config: Path, folder: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "evo", "run", str(config), "--out", str(folder), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=config.parent,
        start_new_session=True,  # its own process group, as under a batch scheduler
    )


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    return proc.returncode, err


def test_a_second_run_resume_or_force_on_a_folder_in_use_is_refused_and_the_run_is_untouched(
    tmp_path, capsys
):
    # long enough for the three refusals below, each importing the plugin file in a child process first
    config = write_config(
        tmp_path / "c.toml", plugin="slow_distance", params={"pause": 0.1}, generations=6, workers=1
    )
    folder = tmp_path / "run"
    first = _start(config, folder)
    try:
        _wait_for_checkpoint(folder, 0, first)
        capsys.readouterr()
        for args in ([], ["--resume"], ["--force"]):
            assert evo_run(config, "--out", folder, *args) == 2
            err = capsys.readouterr().err
            assert len(err.strip().splitlines()) == 1
            assert f"the folder is in use by another evo run (process {first.pid})" in err
        with pytest.raises(FolderInUse, match=f"process {first.pid}"):
            evo.evolve(config, out=folder, resume=True, progress=False)
    finally:
        returncode, err = _finish(first)
    assert returncode == 0, err
    assert evo_run(config, "--out", tmp_path / "straight", "--quiet") == 0
    assert snapshot(folder) == snapshot(tmp_path / "straight")
    assert not (folder / "run.lock").exists() and not (folder / "failed").exists()


def test_sigterm_to_the_whole_process_group_finishes_the_generation_and_exits_143(tmp_path):
    config = write_config(
        tmp_path / "c.toml", plugin="slow_distance", params={"pause": 0.02}, generations=6, workers=2
    )
    folder = tmp_path / "run"
    proc = _start(config, folder)
    try:
        _wait_for_report(folder, 1, proc)
        os.killpg(proc.pid, signal.SIGTERM)  # the workers get it too, and leave it to the parent
    finally:
        returncode, err = _finish(proc)
    assert returncode == 143, err
    assert err.count("SIGTERM: stopping after this generation's checkpoint") == 1  # not the workers'
    assert "(send SIGTERM again to abandon it)" in err and "Ctrl-C" not in err
    assert "stopped after generation" in err and "Traceback" not in err
    stopped_at = read_checkpoint_document(folder)["generation"]
    assert stopped_at < 5 and not (folder / "run.lock").exists()
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 0


def test_a_second_signal_abandons_the_generation_under_way_and_keeps_the_last_checkpoint(tmp_path):
    config = write_config(
        tmp_path / "c.toml", plugin="slow_distance", params={"pause": 0.1}, generations=3, workers=1
    )
    folder = tmp_path / "run"
    proc = _start(config, folder)
    try:
        _wait_for_checkpoint(folder, 0, proc)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
    finally:
        returncode, err = _finish(proc)
    assert returncode == 143, err
    assert "evo run: interrupted; the last checkpoint stays as it was" in err and "Traceback" not in err
    assert read_checkpoint_document(folder)["generation"] == 0
    assert not (folder / "run.lock").exists()
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 0


@pytest.mark.parametrize(
    "code, words",
    [(errno.ENOSPC, "No space left on device"), (errno.EROFS, "Read-only file system")],
    ids=["full-disk", "read-only-folder"],
)
def test_a_folder_that_can_no_longer_be_written_stops_the_run_with_one_line_and_it_resumes_exactly(
    tmp_path, monkeypatch, capsys, code, words
):
    config = write_config(tmp_path / "c.toml", generations=4, workers=1, checkpoint_interval=0)
    folder = tmp_path / "run"
    real_write = checkpoint_file.write_npz
    written = []

    def failing(path, arrays, pause=None):
        written.append(path)
        if len(written) == 3:  # the checkpoint of generation 2
            raise OSError(code, os.strerror(code), str(path))
        return real_write(path, arrays, pause=pause)

    monkeypatch.setattr(checkpoint_file, "write_npz", failing)
    assert evo_run(config, "--out", folder, "--quiet") == 1
    err = capsys.readouterr().err
    assert (
        len(err.strip().splitlines()) == 1 and f"cannot write the run folder: [Errno {code}] {words}" in err
    )
    assert read_checkpoint_document(folder)["generation"] == 1
    assert not (folder / "run.lock").exists()
    monkeypatch.setattr(checkpoint_file, "write_npz", real_write)
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 0
    assert evo_run(config, "--out", tmp_path / "straight", "--quiet") == 0
    assert snapshot(folder) == snapshot(tmp_path / "straight")


def test_a_read_only_folder_is_refused_in_one_line_before_anything_is_written(tmp_path, monkeypatch, capsys):
    config = write_config(tmp_path / "c.toml", generations=2, workers=1)
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder, "--quiet") == 0
    before = snapshot(folder)
    real_open = os.open

    def read_only(path, flags, *args):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(run_lock.os, "open", read_only)
    capsys.readouterr()
    assert evo_run(config, "--out", folder, "--resume") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot lock the run folder: Read-only file system" in err
    monkeypatch.setattr(run_lock.os, "open", real_open)
    assert snapshot(folder) == before


def test_a_worker_that_dies_stops_the_run_with_one_line(tmp_path, capsys):
    config = write_config(
        tmp_path / "c.toml",
        plugin="hangs",
        plugin_paths=(HANGING,),
        params={"how": "exit", "every": 3},
        generations=2,
        workers=2,
    )
    assert evo_run(config, "--out", tmp_path / "run", "--quiet") == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "a worker process died" in err and "Traceback" not in err
    assert not (tmp_path / "run" / "run.lock").exists()
