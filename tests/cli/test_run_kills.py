"""With ``checkpoint_interval = 0``, what a run reports as done is on disk: ``kill -9`` at random moments
and inside the checkpoint's write window (``EVO_TEST_PAUSE_IN_CHECKPOINT`` holds the write there) never
loses a generation that ``run.log`` reported, leaves no temporary file behind a ``--resume``, and the
resumed run equals an uninterrupted one byte for byte; with the default interval a kill loses the
generations since the last checkpoint and the resume is as exact; a process that dies in generation 1
keeps generation 0's checkpoint."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_run_command import evo_run, snapshot, write_config

from evo.io.checkpoint.disk import read_checkpoint_document

MARKER = ".in-checkpoint-window"  # made by the write when it reaches the window

DYING_PLUGIN = '''
import os
import signal
import time

from evo.fitness import fitness_plugin

_calls = 0


@fitness_plugin("dies", weights=(1.0,), record_every=10)
def dies(result) -> float:
    """Final centroid x (px); on call EVO_TEST_DIE_AT of its process, the process dies (EVO_TEST_DIE_HOW),
    once the file EVO_TEST_DIE_AFTER exists if that is set (the writer thread may still be at it)."""
    global _calls
    _calls += 1
    if _calls == int(os.environ.get("EVO_TEST_DIE_AT", "0")):
        after = os.environ.get("EVO_TEST_DIE_AFTER")
        deadline = time.monotonic() + 60.0
        while after and not os.path.exists(after) and time.monotonic() < deadline:
            time.sleep(0.01)
        if os.environ.get("EVO_TEST_DIE_HOW") == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        os._exit(3)
    return float(result.centroids[-1, 0])
'''


def _start(config: Path, folder: Path, *args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "evo", "run", str(config), "--out", str(folder), "--quiet", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=config.parent,
        env={**os.environ, **env},
    )


def _durable(folder: Path) -> int:
    """The generation of the checkpoint on disk (-1: none)."""
    doc = read_checkpoint_document(folder)
    return -1 if doc is None else doc["generation"]


def _reported(folder: Path) -> int:
    """The last generation run.log reports as finished (-1: none)."""
    log = folder / "run.log"
    text = log.read_text() if log.exists() else ""
    return max((int(g) for g in re.findall(r"generation (\d+): \d+ evaluations", text)), default=-1)


def _in_window_after(folder: Path, generation: int) -> bool:
    """Whether the checkpoint of ``generation + 1`` is being written: ``generation``'s in place and a
    temporary file beside it (the write that follows puts its own in place only after the pause)."""
    durable = _durable(folder)
    assert durable <= generation, "the write window was missed"
    return durable == generation and bool(list(folder.glob(".checkpoint.npz.*.tmp")))


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL


def _wait_for(predicate, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _config(tmp_path: Path, generations: int = 6, interval: float | None = 0.0) -> Path:
    """A run of 1 worker; ``interval``: its ``checkpoint_interval`` (0: every generation; None: the
    default)."""
    return write_config(
        tmp_path / "c.toml",
        plugin="slow_distance",
        params={"pause": 0.01},
        generations=generations,
        workers=1,
        checkpoint_interval=interval,
    )


def test_kill_9_inside_the_checkpoint_write_window_loses_nothing_reported_and_resumes_exactly(tmp_path):
    config = _config(tmp_path)
    folder = tmp_path / "killed"
    proc = _start(config, folder, EVO_TEST_PAUSE_IN_CHECKPOINT="0.3")
    try:
        # the write of generation 2 in its window (it runs while generation 3 is bred and evaluated):
        # generation 1 in place, generation 2's temporary file written
        _wait_for(lambda: _in_window_after(folder, 1), proc)
        _kill(proc)
    finally:
        proc.kill()
    assert _durable(folder) == 1 and _reported(folder) <= 1
    assert list(folder.glob(".checkpoint.npz.*.tmp")), "the kill was not inside the write window"
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 0
    assert not list(folder.rglob(".*.tmp")) and not (folder / MARKER).exists()
    assert evo_run(config, "--out", tmp_path / "straight", "--quiet") == 0
    assert snapshot(folder) == snapshot(tmp_path / "straight")


def test_kill_9_inside_the_first_checkpoints_window_is_resumed_by_starting_over(tmp_path):
    config = _config(tmp_path, generations=3)
    folder = tmp_path / "killed"
    proc = _start(config, folder, EVO_TEST_PAUSE_IN_CHECKPOINT="0.3")
    try:
        _wait_for(lambda: (folder / MARKER).exists(), proc)
        _kill(proc)
    finally:
        proc.kill()
    assert _durable(folder) == -1 and _reported(folder) == -1 and (folder / "config.toml").exists()
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 0  # as docs/runs.md's table says
    assert evo_run(config, "--out", tmp_path / "straight", "--quiet") == 0
    assert snapshot(folder) == snapshot(tmp_path / "straight")


def _kill_at_random_moments(config: Path, folder: Path, moments: random.Random, low: float, high: float):
    """Start the run (``--resume`` once its folder exists) and ``kill -9`` it a random moment (in
    [low, high) s) after it has started, four times or until it ends first; yields after each kill."""
    for kill in range(4):
        args = ("--resume",) if folder.exists() else ()
        log = folder / "run.log"
        logged = log.stat().st_size if log.exists() else 0
        proc = _start(config, folder, *args)
        try:  # a moment after the run has started (the interpreter's start is slow on a loaded machine)
            _wait_for(lambda log=log, logged=logged: log.exists() and log.stat().st_size > logged, proc)
            time.sleep(moments.uniform(low, high))
            if proc.poll() is not None:
                return
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=60)
        finally:
            proc.kill()
        if proc.returncode == 0:  # it ended just before the kill
            return
        assert proc.returncode == -signal.SIGKILL
        yield kill


def _resumes_exactly(config: Path, folder: Path, straight: Path) -> None:
    assert evo_run(config, "--out", folder, "--resume", "--quiet") == 0
    assert not list(folder.rglob(".*.tmp"))
    assert evo_run(config, "--out", straight, "--quiet") == 0
    assert snapshot(folder) == snapshot(straight)


def test_kill_9_at_random_moments_never_loses_a_reported_generation_and_resumes_exactly(tmp_path):
    config = _config(tmp_path, generations=8)
    folder = tmp_path / "killed"
    for kill in _kill_at_random_moments(config, folder, random.Random(22), 0.0, 2.0):
        assert _reported(folder) <= _durable(folder), f"kill {kill}: run.log reported an unsaved generation"
    _resumes_exactly(config, folder, tmp_path / "straight")


def test_kill_9_at_random_moments_between_sparse_checkpoints_leaves_a_whole_folder_that_resumes_exactly(
    tmp_path,
):
    """The default interval (1 s) against generations of ~0.1 s (3 s in all): most are never
    checkpointed, so a kill loses the generations since the last checkpoint; what is on disk is whole
    all the same (every generation's best up to the checkpoint, no temporary file once resumed), and
    resuming gives the run never stopped, byte for byte."""
    config = _config(tmp_path, generations=30, interval=None)
    folder = tmp_path / "killed"
    lost = 0
    for kill in _kill_at_random_moments(config, folder, random.Random(29), 0.2, 1.5):
        durable = _durable(folder)
        lost += _reported(folder) > durable
        bests = {int(p.stem[3:]) for p in (folder / "generations").glob("gen*.json")}
        assert set(range(durable)) <= bests, f"kill {kill}: a checkpointed generation's best is missing"
    assert lost, "no kill fell between two checkpoints: the test did not test them"
    _resumes_exactly(config, folder, tmp_path / "straight")


def test_a_process_that_dies_in_generation_1_with_one_worker_keeps_the_checkpoint_of_generation_0(tmp_path):
    (tmp_path / "dying.py").write_text(DYING_PLUGIN)
    config = write_config(tmp_path / "c.toml", plugin="dies", plugin_paths=("dying.py",), generations=3)
    for how, status in (("exit", 3), ("segfault", -signal.SIGSEGV)):
        folder = tmp_path / how
        # generation 0 is 8 calls; its checkpoint is written in a thread while generation 1 runs
        checkpoint = str(folder / "checkpoint.npz")
        proc = _start(
            config, folder, EVO_TEST_DIE_AT="10", EVO_TEST_DIE_HOW=how, EVO_TEST_DIE_AFTER=checkpoint
        )
        proc.communicate(timeout=120)
        assert proc.returncode == status
        assert (
            _durable(folder) == 0 and _reported(folder) <= 0
        )  # run.log's writer thread may not have got to it
        assert evo_run(config, "--out", folder, "--resume", "--quiet") == 0
        assert evo_run(config, "--out", tmp_path / f"straight-{how}", "--quiet") == 0
        assert snapshot(folder) == snapshot(tmp_path / f"straight-{how}")
