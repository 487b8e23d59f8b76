"""The threads backend: one process breeds and evaluates each generation as one chunk, its kernel calls on
``workers`` threads, with the folder one worker leaves; what the default for more than one worker wherever
only evo's own code runs in lanes, the shards backend, makes the generations its workers do not."""

from __future__ import annotations

import dataclasses
import os
import pickle
import threading
from pathlib import Path

from backend_jobs import evaluate_payload
from test_fork_pool import run_log, users_distance

from evo.ga.settings import GASection, GenomeSection
from evo.run.backends import InProcess, Threads, make_backend
from evo.run.job import BreedContext, threads_may_evaluate
from evo.sim.batch import LaneThreads


def lane_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("evo-lanes")]


def test_threads_may_evaluate_only_where_evo_s_own_code_runs_in_lanes(spec, tmp_path):
    from evo.audit.robust import RobustSettings

    context = BreedContext(spec, GenomeSection(), GASection())
    assert threads_may_evaluate(context)  # a shipped plugin, in lanes
    assert threads_may_evaluate(dataclasses.replace(context, timeout=60.0))  # the in-process timer
    users = dataclasses.replace(spec.plugin, origin=f"file:{tmp_path / 'distance.py'}")
    assert not threads_may_evaluate(
        dataclasses.replace(context, spec=dataclasses.replace(spec, plugin=users))
    )
    assert not threads_may_evaluate(dataclasses.replace(context, batch=False))
    assert not threads_may_evaluate(dataclasses.replace(context, robust=RobustSettings(samples=2)))
    psm = dataclasses.replace(spec, world=spec.world.updated({"integrator": "psm"}))
    assert not threads_may_evaluate(dataclasses.replace(context, spec=psm))
    assert not threads_may_evaluate(dataclasses.replace(context, evaluate=lambda *args: None))


def test_a_job_without_lanes_runs_on_the_threads_backend_as_in_process(spec, tasks):
    with InProcess(evaluate_payload, spec) as alone:
        want = alone.run(tasks)
    with make_backend(evaluate_payload, spec, 2, kind="threads") as backend:
        assert isinstance(backend, Threads) and backend.workers == 2 and backend.processes == 1
        assert backend.run(tasks) == want
        assert lane_threads() == []  # a context without lanes gets no threads


def test_the_threads_belong_to_the_backend_and_never_travel_with_the_context(spec):
    context = BreedContext(spec, GenomeSection(), GASection())
    with Threads(evaluate_payload, context, 2) as backend:
        assert context.lane_threads is None
        assert (
            isinstance(backend.context.lane_threads, LaneThreads) and backend.context.lane_threads.count == 2
        )
        assert backend.context == context  # the executor is not part of what the context says
        assert pickle.loads(pickle.dumps(backend.context)).lane_threads is None  # a dask worker's copy
        backend.context.lane_threads.submit(int).result()  # a thread started
        assert len(lane_threads()) == 1
    assert lane_threads() == []  # closing ends them
    with Threads(evaluate_payload, context, 1) as one:
        assert one.context.lane_threads is None  # one worker: the calling thread


def run_folder(tmp_path: Path, plugin: str, plugin_paths: list[str], workers: int, backend: str | None):
    """:func:`test_fork_pool.run_log` of 40 creatures (enough for several kernel calls a generation)."""
    return run_log(tmp_path, plugin, plugin_paths, workers, backend, population=40)


def test_two_workers_of_a_shipped_plugin_run_on_threads_and_leave_the_folders_of_one_and_of_fork(tmp_path):
    # (by default too: 3 generations are too few for the shards backend's workers, it runs as threads)
    log, threaded = run_folder(tmp_path, "distance", [], 2, None)
    assert f"process {os.getpid()} simulates each generation's kernel calls on 2 threads" in log
    assert "forked worker" not in log
    assert threaded == run_folder(tmp_path, "distance", [], 1, None)[1]
    assert threaded == run_folder(tmp_path, "distance", [], 2, "fork")[1]
    assert threaded == run_folder(tmp_path, "distance", [], 3, "threads")[1]
    assert lane_threads() == []
    copy = users_distance(tmp_path)  # the same plugin as the user's own file: worker processes
    forked, _ = run_folder(tmp_path, "my_distance", [str(copy)], 2, None)
    assert "kernel calls on" not in forked and "pool: 2 worker(s)" in forked


def test_a_kernel_call_that_fails_on_a_thread_leaves_its_children_to_run_one_by_one(tmp_path, monkeypatch):
    """A kernel call that raises on a lane thread costs its chunk the lanes, not the run: its children are
    simulated one by one, with the same results."""
    from evo.sim import batch as batch_module

    want = run_folder(tmp_path / "one", "distance", [], 1, None)[1]
    real = batch_module._run_euler
    failed = []

    def fails_once(batch, *args):
        if not failed:
            failed.append(threading.current_thread().name)
            raise MemoryError("no room for the lanes")
        return real(batch, *args)

    monkeypatch.setattr(batch_module, "_run_euler", fails_once)
    assert run_folder(tmp_path / "two", "distance", [], 2, "threads")[1] == want
    assert failed and failed[0].startswith("evo-lanes")
