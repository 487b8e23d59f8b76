"""Backends: in-process and forked workers give the same results, errors come back as data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from backend_jobs import (
    dies,
    evaluate_payload,
    fails_late_on_one_and_at_once_on_a_later_one,
    fails_on_the_fifth,
    logs,
)

from evo.fitness.evaluate import evaluate
from evo.ga.loop import Evolution, LoopSettings
from evo.run import backends
from evo.run.backends import EvaluationFailed, ForkPool, InProcess, Task, make_backend
from evo.run.backends.fork import CONTENDED
from evo.run.folder.writer import run_logging
from evo.run.job import BreedContext, breed_and_evaluate
from evo.sim import warm_up


def test_one_and_two_workers_give_bit_identical_results_in_task_order(spec, tasks):
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    assert expected == [evaluate(t.payload[0], spec, t.payload[1]) for t in tasks]
    for chunksize in (0, 1, 5):
        with ForkPool(evaluate_payload, spec, workers=2, chunksize=chunksize) as pool:
            assert pool.run(tasks) == expected
            assert pool.run(list(reversed(tasks))) == expected[::-1]


def test_tasks_can_arrive_from_a_generator_while_earlier_ones_are_run(spec, tasks):
    seen = []
    weighted = [Task(t.index, t.payload, weight=2) for t in tasks]
    with make_backend(evaluate_payload, spec, workers=2, chunksize=2) as pool:
        results = pool.run((t for t in weighted), seen.append, expected=len(tasks))
    with make_backend(evaluate_payload, spec, workers=1) as local:
        assert results == local.run(iter(tasks))
    assert sum(seen) == 2 * len(tasks) and seen.count(0) == 1  # 0: every task sent out


def _plain_error_on_the_fifth(payload, spec):
    if payload[1] == 1004:
        raise KeyError("x")
    return evaluate_payload(payload, spec)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_task_comes_back_as_data_naming_the_plugin_and_what_failed(spec, tasks, workers):
    with (
        make_backend(fails_on_the_fifth, spec, workers) as backend,
        pytest.raises(EvaluationFailed) as caught,
    ):
        backend.run(tasks)
    assert caught.value.index == 4
    assert caught.value.plugin == "distance"
    assert "ZeroDivisionError: division by zero" in caught.value.message
    assert caught.value.detail == ("the creature", 1004)
    with (
        make_backend(_plain_error_on_the_fifth, spec, workers) as backend,
        pytest.raises(EvaluationFailed, match="KeyError: 'x'") as caught,
    ):
        backend.run(tasks)
    assert caught.value.index == 4 and caught.value.plugin is None and caught.value.detail is None


@pytest.mark.parametrize("workers, chunksize, slow, fast", [(1, 0, 2, 3), (2, 1, 2, 3), (2, 2, 3, 4)])
def test_the_first_failing_task_in_order_is_reported_whatever_fails_first(
    spec, tasks, tmp_path, workers, chunksize, slow, fast
):
    context = (spec, str(tmp_path / "fast-failed"), slow, fast)
    with (
        make_backend(fails_late_on_one_and_at_once_on_a_later_one, context, workers, chunksize) as backend,
        pytest.raises(EvaluationFailed, match="KeyError: 'slow'") as caught,
    ):
        backend.run(tasks)
    assert caught.value.index == slow


def test_a_worker_that_dies_raises_instead_of_hanging(spec, tasks):
    with (
        ForkPool(dies, spec, workers=2) as pool,
        pytest.raises(EvaluationFailed, match="worker process died"),
    ):
        pool.run(tasks)


def test_log_records_of_workers_reach_the_run_log(spec, tasks, tmp_path: Path):
    path = tmp_path / "run.log"
    with run_logging(path), ForkPool(logs, spec, workers=2, chunksize=1) as pool:
        pool.run(tasks)
    text = path.read_text()
    assert text.count("evaluated seed") == len(tasks)
    pids = {line.split()[2] for line in text.splitlines() if "evaluated seed" in line}
    assert str(os.getpid()) not in pids and len(pids) >= 1
    assert "worker" in text and "started" in text


def as_lists(results: list) -> list:
    """Each brood's children as (positions list or None, evaluation)."""
    return [[(r.creature and r.creature.positions.tolist(), r.evaluation) for r in kids] for kids in results]


def test_broods_bred_and_evaluated_by_workers_match_the_parents_own(spec):
    settings = LoopSettings(population=12, seed=2, objectives=("distance",), weights=(1.0,))
    evolution = Evolution(settings)
    context = BreedContext(spec, settings.genome, settings.ga)
    for _ in range(2):
        tasks = [Task(i, brood, brood.evaluations) for i, brood in enumerate(evolution.ask().broods)]
        with InProcess(breed_and_evaluate, context) as local:
            expected = local.run(tasks)
        with ForkPool(
            breed_and_evaluate, context, workers=2, before_fork=lambda: warm_up(spec.world)
        ) as pool:
            results = pool.run(tasks)
        assert as_lists(results) == as_lists(expected)
        evolution.tell([r for kids in results for r in kids])


def test_a_fork_pool_says_it_was_contended_when_one_worker_got_much_less_of_its_core_than_another():
    from backend_jobs import sleeps_or_spins

    with InProcess(sleeps_or_spins, 0.0) as local:
        assert local.contended is False
    with ForkPool(sleeps_or_spins, 0.08, workers=2, chunksize=1) as pool:
        assert pool.contended is False  # nothing measured yet
        assert pool.run([Task(i, 2 * i) for i in range(4)]) == [0, 2, 4, 6]
        least, most = pool.core_shares
        assert 0.0 <= least <= most < 0.5  # CPU over wall seconds of sleeping chunks
        assert pool.contended is False  # all alike
        assert pool.run([Task(i, i) for i in range(4)]) == [0, 1, 2, 3]
        least, most = pool.core_shares
        assert least < 0.5 and most > least  # the spinning chunks got some of their cores, the others not
        assert pool.contended is (most - least > CONTENDED)


def test_busy_cpus_counts_the_cpus_other_processes_keep_busy_less_this_process_own_use(monkeypatch):
    """The default worker count's measurement: each CPU's busy share over the window (from /proc/stat's
    idle and total ticks), summed, less this process's own CPU time, counted from 0.6 of a CPU."""
    cpus = frozenset({0, 1, 2})
    readings = iter(
        [
            {0: (100, 1000), 1: (100, 1000), 2: (100, 1000)},
            {0: (100, 1010), 1: (110, 1010), 2: (106, 1010)},  # 0: all busy, 1: idle, 2: 40 % busy
        ]
    )
    own = iter([5.0, 5.0])  # this process used nothing meanwhile
    monkeypatch.setattr(backends, "_cpu_ticks", lambda c: next(readings))
    monkeypatch.setattr(backends, "_own_seconds", lambda: next(own))
    assert backends.busy_cpus(cpus, window=0.01) == 1  # 1.4 CPUs busy: one counted
    readings = iter([{0: (0, 0), 1: (0, 0)}, {0: (0, 100), 1: (0, 100)}])  # both busy...
    own = iter([0.0, 0.1])  # ... half of it this process, over a 0.1 s window: one CPU left busy
    monkeypatch.setattr(backends, "_cpu_ticks", lambda c: next(readings))
    monkeypatch.setattr(backends, "_own_seconds", lambda: next(own))
    assert backends.busy_cpus(frozenset({0, 1}), window=0.1) == 1
    monkeypatch.setattr(backends, "_cpu_ticks", lambda c: None)  # no /proc/stat: nothing known busy
    monkeypatch.setattr(backends, "_own_seconds", lambda: 0.0)
    assert backends.busy_cpus(cpus, window=0.01) == 0


def test_the_default_worker_count_leaves_out_a_core_a_busy_process_holds():
    """A process looping on one of the CPUs costs the default one worker
    (two workers beside it on two cores were measured slower than one: docs/performance.md)."""
    import subprocess
    import sys
    import time

    cpus = backends.usable_cpus()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)  # running
        assert backends.default_workers() <= max(1, len(cpus) - 1)
    finally:
        busy.kill()
        busy.wait()
