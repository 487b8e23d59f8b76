"""A run folder that tries to make evo write where it was not told to: symbolic links among the names evo
writes, a plugin that changes the working folder, a full disk when the lock is taken (docs/runs.md,
"What survives what")."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from test_run_command import evo_run, snapshot, write_config

from evo.io import atomic, run_lock

WANDER = """
import os
from evo.fitness import fitness_plugin


@fitness_plugin("wander", record_every=10)
def wander(result):
    os.chdir(os.environ["EVO_TEST_WANDER_TO"])
    return float(result.centroids[-1][0] - result.centroids[0][0])
"""


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_run_lock_that_is_a_link_is_refused_and_its_target_is_untouched(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=1)
    target = tmp_path / "precious.txt"
    target.write_text("mine\n")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.lock").symlink_to(target)
    assert evo_run(config, "--out", folder, "--quiet") == 2
    assert "run.lock is a symbolic link" in _one_line(capsys.readouterr().err)
    assert target.read_text() == "mine\n"
    assert sorted(p.name for p in folder.iterdir()) == ["run.lock"]


@pytest.mark.parametrize("name", ["elites", "generations", "failed", "run.log", "history.csv"])
def test_a_name_evo_writes_that_is_a_link_is_refused_on_resume_and_nothing_is_written_through_it(
    tmp_path, capsys, name
):
    config = write_config(tmp_path / "c.toml", generations=2)
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder, "--quiet") == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.json").write_text("{}\n")
    own = folder / name
    if own.is_dir():
        for path in own.iterdir():
            path.unlink()
        own.rmdir()
    elif own.exists():
        own.unlink()
    own.symlink_to(elsewhere if "." not in name else elsewhere / "keep.json")
    write_config(tmp_path / "c.toml", generations=4)
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 2
    assert f"{name} is a symbolic link" in _one_line(capsys.readouterr().err)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.json"]
    assert (elsewhere / "keep.json").read_text() == "{}\n"
    assert own.is_symlink() and not (folder / "run.lock").exists()


def test_force_refuses_a_folder_holding_a_link_too(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=1)
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder, "--quiet") == 0
    before = snapshot(folder)
    (folder / "run.log").unlink()
    (folder / "run.log").symlink_to(tmp_path / "c.toml")
    text = config.read_text()
    assert evo_run(config, "--out", folder, "--force", "--quiet") == 2
    assert "run.log is a symbolic link" in _one_line(capsys.readouterr().err)
    assert config.read_text() == text and snapshot(folder) == before


def test_a_plugin_that_changes_the_working_folder_does_not_move_the_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "wander.py").write_text(WANDER)
    config = write_config(tmp_path / "c.toml", plugin="wander", generations=3, plugin_paths=("wander.py",))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("EVO_TEST_WANDER_TO", str(elsewhere))
    monkeypatch.chdir(tmp_path)
    try:
        assert evo_run(config, "--out", "run", "--workers", "1") == 0
    finally:
        os.chdir(tmp_path)
    out = capsys.readouterr().out
    assert out.startswith("run: 3 generations; best wander") and "(run/elites/01_gen" in out
    assert list(elsewhere.iterdir()) == []
    folder = tmp_path / "run"
    assert {"checkpoint.npz", "history.csv", "elites", "generations", "run.log"} <= {
        p.name for p in folder.iterdir()
    }
    assert not (folder / "run.lock").exists()
    assert len((folder / "history.csv").read_text().splitlines()) == 4


def test_a_full_disk_when_the_lock_is_written_is_one_line_and_leaves_no_lock_behind(
    tmp_path, monkeypatch, capsys
):
    config = write_config(tmp_path / "c.toml", generations=1)

    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(run_lock.os, "pwrite", full)
    folder = tmp_path / "runs" / "new"
    assert evo_run(config, "--out", folder, "--quiet") == 2
    line = _one_line(capsys.readouterr().err)
    assert "cannot write the run folder's lock file: No space left on device" in line
    assert not (tmp_path / "runs").exists()  # the folders made for the run are gone again


def test_a_full_disk_on_an_existing_folder_leaves_it_as_it_was(tmp_path, monkeypatch, capsys):
    config = write_config(tmp_path / "c.toml", generations=1)
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder, "--quiet") == 0
    names = sorted(p.name for p in folder.iterdir())
    monkeypatch.setattr(
        run_lock.os, "ftruncate", lambda fd, size: (_ for _ in ()).throw(OSError(errno.ENOSPC, "full"))
    )
    write_config(tmp_path / "c.toml", generations=2)
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 2
    assert _one_line(capsys.readouterr().err).endswith("cannot write the run folder's lock file: full")
    assert sorted(p.name for p in folder.iterdir()) == names and not Path(folder / "run.lock").exists()


@pytest.mark.timeout(120)  # a FIFO that is opened fails the test instead of hanging it
@pytest.mark.parametrize("name", ["run.log", "checkpoint.json", "history.csv", "run.lock"])
def test_a_fifo_among_the_files_evo_writes_is_refused_and_never_opened(tmp_path, capsys, name):
    config = write_config(tmp_path / "c.toml", generations=2)
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder, "--quiet") == 0
    (folder / name).unlink(missing_ok=True)
    os.mkfifo(folder / name)
    write_config(tmp_path / "c.toml", generations=3)
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 2
    assert f"{name} is not a regular file" in _one_line(capsys.readouterr().err)
    assert (folder / name).exists() and not (folder / name).is_file()  # left as it was


def test_a_file_where_evo_keeps_a_folder_is_refused(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=1)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "elites").write_text("not a folder\n")
    (folder / "config.toml").write_text(config.read_text())
    assert evo_run(config, "--out", folder, "--force", "--quiet") == 2
    assert "elites is not a folder" in _one_line(capsys.readouterr().err)
    assert (folder / "elites").read_text() == "not a folder\n"


def test_a_full_disk_when_the_config_is_written_at_the_start_is_one_line_and_leaves_nothing(
    tmp_path, monkeypatch, capsys
):
    config = write_config(tmp_path / "c.toml", generations=1)

    def full(path, data, inside=None, durable=True):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(atomic, "atomic_write_bytes", full)
    assert evo_run(config, "--out", tmp_path / "runs" / "new", "--quiet") == 1
    assert _one_line(capsys.readouterr().err) == (
        "evo run: error: cannot write the run folder: No space left on device"
    )
    assert not (tmp_path / "runs").exists()
