"""The run folder's lock: one writer at a time, released by the kernel when its holder dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from evo.errors import EvoInputError
from evo.io import run_lock
from evo.io.run_lock import LOCK, FolderInUse, RunLock

HOLD = """
import sys, time
from evo.io.run_lock import RunLock
lock = RunLock.acquire(sys.argv[1])
print("locked", flush=True)
time.sleep(60)
"""


def test_a_second_lock_on_a_folder_in_use_is_refused_in_one_line_naming_the_holders_pid(tmp_path):
    folder = tmp_path / "run"
    with RunLock.acquire(folder) as lock:
        assert lock.held and (folder / LOCK).read_text() == f"{os.getpid()}\n"
        with pytest.raises(FolderInUse) as refused:
            RunLock.acquire(folder)
        assert refused.value.pid == os.getpid()
        assert f"in use by another evo run (process {os.getpid()})" in str(refused.value)
        assert "\n" not in str(refused.value) and str(folder) in str(refused.value)
    assert not (folder / LOCK).exists() and not lock.held
    RunLock.acquire(folder).release()  # free again


def test_a_lock_taken_for_a_folder_that_did_not_exist_leaves_nothing_behind(tmp_path):
    folder = tmp_path / "a" / "b" / "run"
    RunLock.acquire(folder).release()
    assert list(tmp_path.iterdir()) == []


def test_a_lock_of_a_process_killed_with_sigkill_is_released_by_the_kernel(tmp_path):
    folder = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(FolderInUse, match=f"process {holder.pid}"):
            RunLock.acquire(folder)
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert (folder / LOCK).exists()  # the file stays behind, the lock does not
    with RunLock.acquire(folder) as lock:
        assert lock.held and (folder / LOCK).read_text() == f"{os.getpid()}\n"


def test_a_folder_where_the_lock_file_cannot_be_written_is_one_line_and_left_as_it_was(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    folder.mkdir()
    real_open = os.open

    def read_only(path, flags, *args):
        if str(path).endswith(LOCK) and flags & os.O_CREAT:
            raise OSError(30, "Read-only file system", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(run_lock.os, "open", read_only)
    with pytest.raises(EvoInputError, match="cannot lock the run folder: Read-only file system") as refused:
        RunLock.acquire(folder)
    assert "\n" not in str(refused.value) and list(folder.iterdir()) == []


def test_a_lock_file_removed_by_its_holder_between_open_and_flock_is_not_trusted(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    first = RunLock.acquire(folder)
    real_flock = run_lock.fcntl.flock
    calls = []

    def holder_releases_first(fd, operation):
        calls.append(fd)
        if len(calls) == 1:  # the file this process opened is unlinked and unlocked under it
            first.release()
        return real_flock(fd, operation)

    monkeypatch.setattr(run_lock.fcntl, "flock", holder_releases_first)
    second = RunLock.acquire(folder)
    monkeypatch.setattr(run_lock.fcntl, "flock", real_flock)
    try:
        assert len(calls) == 2 and (folder / LOCK).exists()
        with pytest.raises(FolderInUse):  # the lock is on the file that is there, so it excludes others
            RunLock.acquire(folder)
    finally:
        second.release()


def test_the_pid_is_read_even_if_the_holder_writes_it_a_moment_after_locking(tmp_path):
    folder = tmp_path / "run"
    with RunLock.acquire(folder):
        os.truncate(folder / LOCK, 0)
        started = time.monotonic()
        with pytest.raises(FolderInUse, match="another process") as refused:
            RunLock.acquire(folder)
        assert refused.value.pid is None and time.monotonic() - started < 5
