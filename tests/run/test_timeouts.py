"""The evaluation time limit: in the main thread, in other threads, in forked workers (also when a worker
is stuck out of its reach), and in a run: stop with the creature saved, or the worst fitness and go on."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import evo
from evo.fitness import registry
from evo.fitness.evaluate import Evaluation
from evo.run.backends import EvaluationFailed, ForkPool, InProcess, Task
from evo.run.backends.base import EvaluationTimeout, evaluation_time_limit
from evo.run.folder.writer import RunFailed
from evo.run.job import BreedContext, breed_and_evaluate

ROOT = Path(__file__).resolve().parents[2]
HANGING = str(ROOT / "tests" / "fixtures" / "hanging_plugins")


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTERED", {})
    monkeypatch.setattr(registry, "_REFS", {})


def _spin() -> None:
    while True:
        pass


@pytest.mark.parametrize("hang", [_spin, lambda: time.sleep(1e9)], ids=["python-loop", "sleep"])
def test_the_time_limit_interrupts_python_code_and_blocking_calls_in_the_main_thread(hang):
    previous = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(EvaluationTimeout, match="no result within 0.2 s"), evaluation_time_limit(0.2):
        hang()
    assert 0.15 < time.monotonic() - started < 5
    assert signal.getsignal(signal.SIGALRM) is previous and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_plugin_that_catches_exception_does_not_swallow_the_timeout():
    def careless() -> None:
        while True:
            with contextlib.suppress(Exception):
                time.sleep(1e9)

    with pytest.raises(EvaluationTimeout), evaluation_time_limit(0.1):
        careless()


def test_a_body_that_ends_in_time_leaves_no_alarm_behind():
    with evaluation_time_limit(0.2):
        pass
    time.sleep(0.4)  # an alarm left armed would raise here
    with evaluation_time_limit(0):
        time.sleep(0.01)


def test_the_time_limit_interrupts_python_code_in_another_thread():
    outcome = []

    def worker() -> None:
        try:
            with evaluation_time_limit(0.2):
                _spin()
        except EvaluationTimeout as exc:
            outcome.append(str(exc))
        time.sleep(0.3)  # nothing raised late
        outcome.append("after")

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=20)
    assert not thread.is_alive() and outcome == ["no result within 0.2 s", "after"]


def test_in_another_thread_one_watcher_serves_every_evaluation_and_each_gets_its_own_limit():
    outcome = []

    def watchers() -> int:
        return sum(t.name == "evo-time-limit" for t in threading.enumerate())

    def worker() -> None:
        before = watchers()
        for _ in range(200):  # evaluations that end in time: none is interrupted, later or at once
            with evaluation_time_limit(0.05):
                pass
        outcome.append(watchers() - before)
        time.sleep(0.15)  # a limit left armed would raise here
        for limit in (0.1, 0.2):
            started = time.monotonic()
            try:
                with evaluation_time_limit(limit):
                    _spin()
            except EvaluationTimeout as exc:
                outcome.append((str(exc), time.monotonic() - started >= limit))
        outcome.append(watchers() - before)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=20)
    assert not thread.is_alive()
    assert outcome == [1, ("no result within 0.1 s", True), ("no result within 0.2 s", True), 1]


def test_in_another_thread_evaluations_that_end_in_time_do_not_wake_the_watcher_each_time():
    from evo.run.backends import base

    notified = []

    def worker() -> None:
        with evaluation_time_limit(5.0):  # makes this thread's watcher
            pass
        timer = base._thread_timers.timer
        notify = timer.changed.notify

        def counted(n: int = 1) -> None:
            notified.append(n)
            notify(n)

        timer.changed.notify = counted
        for _ in range(200):
            with evaluation_time_limit(5.0):
                pass
        started = time.monotonic()
        try:
            with evaluation_time_limit(0.1):  # an earlier deadline than the watcher sleeps to: woken
                _spin()
        except EvaluationTimeout:
            notified.append(("timed out", time.monotonic() - started >= 0.1))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=20)
    assert not thread.is_alive()
    assert notified[:-1] == [1] * (len(notified) - 1) and len(notified) <= 3
    assert notified[-1] == ("timed out", True)


def _hang_on_three(payload: int, context: float) -> int:
    with evaluation_time_limit(context):
        if payload == 3:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # out of the alarm's reach
            time.sleep(1e9)
    return payload * 10


def test_a_forked_worker_stuck_out_of_the_alarms_reach_is_replaced_and_its_evaluation_timed_out():
    tasks = [Task(i, i) for i in range(6)]
    started = time.monotonic()
    with ForkPool(_hang_on_three, 0.3, workers=2, chunksize=2, timeout=0.3) as pool:
        with pytest.raises(EvaluationFailed, match="EvaluationTimeout") as failed:
            pool.run(tasks)
        assert failed.value.index == 3
        assert pool.run([Task(i, i) for i in (0, 1, 2, 4, 5)]) == [0, 10, 20, 40, 50]  # a working pool again
    assert time.monotonic() - started < 30


def _stuck_on_even(payload: int, context: float) -> int:
    try:
        with evaluation_time_limit(context):
            if payload % 2 == 0:
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                time.sleep(1e9)
            time.sleep(0.5)
    except EvaluationTimeout:
        return -1
    return payload * 10


def test_a_second_worker_stuck_when_the_first_is_killed_is_killed_with_it():
    # task 0 sticks at once, task 2 half a second later on the other worker: when the first is killed
    # the second is stuck but not yet past the limit, and (ignoring SIGTERM) would hold the old pool open
    started = time.monotonic()
    with ForkPool(_stuck_on_even, 1.0, workers=2, chunksize=1, timeout=1.0) as pool:
        assert pool.run([Task(i, i) for i in range(4)]) == [-1, 10, -1, 30]
    assert time.monotonic() - started < 30


# -- in a run -------------------------------------------------------------------------------------
def _config(how: str, *, on_timeout: str = "stop", workers: int = 1, generations: int = 3, every: int = 5):
    return evo.Config.from_dict(
        {
            "run": {"name": "hangs", "seed": 4, "generations": generations, "population": 8},
            "evaluation": {
                "frames": 200,
                "plugin": "hangs",
                "plugin_paths": [HANGING],
                "params": {"how": how, "every": every},
                "timeout": 0.5,
                "on_timeout": on_timeout,
            },
            "world": {"max_speed": 50.0},
            "pool": {"workers": workers},
        }
    )


def _files(folder: Path) -> dict[str, bytes]:
    """The checkpoint, the history and the elites' names (their meta names the plugin's ``how``)."""
    out = {name: (folder / name).read_bytes() for name in ("checkpoint.npz", "history.csv")}
    out["elites"] = "\n".join(sorted(p.name for p in (folder / "elites").glob("*.json"))).encode()
    return out


@pytest.mark.parametrize("how, workers", [("loop", 1), ("sleep", 2)])
def test_a_hanging_plugin_stops_the_run_naming_the_plugin_and_the_creature_and_saves_it(
    tmp_path, how, workers
):
    folder = tmp_path / "run"
    with pytest.raises(RunFailed) as failed:
        evo.evolve(_config(how, workers=workers), out=folder, progress=False)
    message = str(failed.value)
    assert "\n" not in message
    assert "plugin 'hangs' gave no result within 0.5 s ([evaluation] timeout)" in message
    (saved,) = (folder / "failed").glob("*.json")
    assert f"creature g{saved.name[3:7].lstrip('0') or '0'}-" in message and str(saved) in message
    assert "[evaluation] timeout" in json.loads(saved.read_text())["meta"]["error"]
    assert not (folder / "run.lock").exists()


def _timed_out_per_generation(folder: Path) -> list[int]:
    lines = [line for line in (folder / "run.log").read_text().splitlines() if "evaluations, " in line]
    return [int(m.group(1)) if (m := re.search(r", (\d+) timed out", line)) else 0 for line in lines]


def test_with_on_timeout_worst_the_run_goes_on_and_every_backend_gives_the_same_run(tmp_path):
    one = tmp_path / "one"
    result = evo.evolve(_config("sleep", on_timeout="worst", generations=2, every=7), out=one, progress=False)
    assert result.generation == 1
    counts = _timed_out_per_generation(one)
    assert len(counts) == 2 and sum(counts) > 0
    two = _config("loop", on_timeout="worst", workers=2, generations=2, every=7)
    evo.evolve(two, out=tmp_path / "two", progress=False)
    stuck = _config("stuck", on_timeout="worst", workers=2, generations=2, every=7)
    evo.evolve(stuck, out=tmp_path / "stuck", progress=False)
    assert _files(one) == _files(tmp_path / "two") == _files(tmp_path / "stuck")
    assert (
        _timed_out_per_generation(tmp_path / "two") == _timed_out_per_generation(tmp_path / "stuck") == counts
    )
    assert "killing the worker" in (tmp_path / "stuck" / "run.log").read_text()


def test_a_timed_out_child_gets_the_worst_fitness_without_counting_as_exploded():
    spec = _config("sleep", on_timeout="worst", every=1).evaluation_spec()
    settings = _config("sleep").loop_settings()
    evolution = evo.Evolution(settings)
    (brood, *_) = evolution.ask().broods
    context = BreedContext(spec, settings.genome, settings.ga, timeout=0.2, on_timeout="worst")
    (kid, *_) = breed_and_evaluate(brood, context)
    assert kid.evaluation == Evaluation((-np.inf,), exploded=False, timed_out=True)


def test_a_plugin_that_swallows_the_first_timeout_gets_it_again(tmp_path):
    with pytest.raises(RunFailed, match="gave no result within 0.5 s"):
        evo.evolve(_config("swallow", generations=1, every=3), out=tmp_path / "run", progress=False)


def test_in_process_a_plain_function_backend_honours_the_time_limit_too():
    with InProcess(_hang_on_three, 0.2) as local:
        assert local.run([Task(i, i) for i in range(3)]) == [0, 10, 20]
