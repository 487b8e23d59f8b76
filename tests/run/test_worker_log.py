"""The run log's handler for forked workers: a worker killed while it writes a record (so holding the
pipe's write lock for ever) costs records, never a hang of the run or of its exit."""

from __future__ import annotations

import logging
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

from evo.run import worker_log
from evo.run.backends import EvaluationFailed, ForkPool, Task
from evo.run.folder.writer import run_logging
from evo.run.worker_log import WorkerLogHandler

# a run whose failing worker holds the log's write lock when the failure kills the pool (as a worker
# killed halfway through writing its own record does), then logs the failure and exits
DIES_WRITING = """
import logging, sys, time
from pathlib import Path
from evo.run.backends import EvaluationFailed, Task
from evo.run.backends.fork import ForkPool
from evo.run.folder.writer import run_logging


def job(payload, context):
    if payload == 0:
        (handler,) = logging.getLogger("evo").handlers
        handler.write_lock.acquire()
        raise ValueError("boom")
    time.sleep(0.5)
    return payload


with run_logging(Path(sys.argv[1])):
    try:
        with ForkPool(job, None, 2, chunksize=1) as pool:
            pool.run([Task(i, i) for i in range(4)])
    except EvaluationFailed as exc:
        logging.getLogger("evo.run").error("the run failed: %s", exc)
print("closed", flush=True)
"""


def test_a_run_whose_worker_dies_holding_the_log_lock_logs_its_failure_and_exits(tmp_path: Path):
    (tmp_path / "dies.py").write_text(DIES_WRITING)
    log = tmp_path / "run.log"
    # before: the parent's record waited in a feeder thread on the dead worker's lock, and the exit
    # joined that thread for ever (after "closed" was printed)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "dies.py"), str(log)], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout) == (0, "closed\n"), done.stderr
    assert "ERROR evo.run: the run failed: task failed on task 0: ValueError: boom" in log.read_text()


def square(payload: int, context: object) -> int:
    logging.getLogger("evo.test_pool").info("squared %d in process %d", payload, os.getpid())
    return payload * payload


def _hold(lock: object) -> None:
    lock.acquire()  # and exit without releasing it, as a process killed while writing


def test_workers_forked_after_one_died_holding_the_log_lock_drop_their_records_and_end(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setattr(worker_log, "WAIT", 0.2)
    path = tmp_path / "run.log"
    with run_logging(path):
        (handler,) = logging.getLogger("evo").handlers
        assert isinstance(handler, WorkerLogHandler)
        holder = multiprocessing.get_context("fork").Process(target=_hold, args=(handler.write_lock,))
        holder.start()
        holder.join()
        # before: each worker's feeder thread waited on the lock, and the pool's close waited on
        # workers whose exit joined that thread
        with ForkPool(square, None, workers=2, chunksize=1) as pool:
            assert pool.run([Task(i, i) for i in range(6)]) == [0, 1, 4, 9, 16, 25]
        logging.getLogger("evo.run").info("the parent still logs")
    text = path.read_text()
    assert "the parent still logs" in text
    assert "squared" not in text and "started" not in text  # the workers' records were dropped


def test_records_of_workers_and_of_the_parent_reach_the_target_with_their_text(tmp_path: Path):
    path = tmp_path / "run.log"
    with run_logging(path), ForkPool(square, None, workers=2, chunksize=1) as pool:
        assert pool.run([Task(i, i) for i in range(4)]) == [0, 1, 4, 9]
        try:
            raise KeyError("k")
        except KeyError:
            logging.getLogger("evo.run").exception("the parent's %s", "traceback")
    text = path.read_text()
    pids = {line.split()[2] for line in text.splitlines() if "squared" in line}
    assert text.count("squared") == 4 and str(os.getpid()) not in pids
    assert "the parent's traceback" in text and "KeyError: 'k'" in text


def test_a_failure_of_a_worker_is_reported_even_when_its_log_records_are_dropped(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(worker_log, "WAIT", 0.2)
    with run_logging(tmp_path / "run.log"):
        (handler,) = logging.getLogger("evo").handlers
        handler.write_lock.acquire()  # held by the parent here: the workers cannot write
        try:
            with ForkPool(_fails, None, workers=2, chunksize=1) as pool:
                try:
                    pool.run([Task(i, i) for i in range(4)])
                except EvaluationFailed as exc:
                    assert exc.index == 2 and "no 2" in exc.message
                else:
                    raise AssertionError("the pool did not report the failure")
        finally:
            handler.write_lock.release()


def _fails(payload: int, context: object) -> int:
    if payload == 2:
        raise ValueError("no 2")
    return payload


def test_the_handler_takes_the_level_of_its_target(tmp_path: Path):
    target = logging.FileHandler(tmp_path / "x.log")
    target.setLevel(logging.WARNING)
    handler = WorkerLogHandler(target)
    try:
        assert handler.level == logging.WARNING
    finally:
        handler.close()
    assert not handler._thread.is_alive()


def test_closing_wakes_the_reading_thread_which_writes_every_record_left_in_the_pipe_first(
    tmp_path: Path, monkeypatch
):
    """close() does not wait for the reading thread's next look at the pipe (``POLL``, here far longer
    than ``JOIN``): the thread is woken, writes the records still in the pipe, and ends within the join."""
    monkeypatch.setattr(worker_log, "POLL", 600.0)
    path = tmp_path / "run.log"
    with run_logging(path), ForkPool(square, None, workers=2, chunksize=1) as pool:
        (handler,) = logging.getLogger("evo").handlers
        assert pool.run([Task(i, i) for i in range(6)]) == [0, 1, 4, 9, 16, 25]
    assert not handler._thread.is_alive()
    assert path.read_text().count("squared") == 6
