"""Evaluation backends: in-process and forked workers give the same outcomes, errors come back as data."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

from evo.evaluation import EvaluationSpec, PluginFailed, evaluate
from evo.ga.genome import random_creature
from evo.ga.settings import GenomeSection
from evo.plugins import find_plugin
from evo.pool import EvaluationFailed, ForkPool, InProcess, Task, make_backend
from evo.runner import run_logging
from evo.sim import World


@pytest.fixture(scope="module")
def spec() -> EvaluationSpec:
    plugin = find_plugin("distance")
    return EvaluationSpec(World(), 300, plugin.ref(), dict(plugin.params))


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    rng = np.random.default_rng(4)
    genome = GenomeSection()
    return [Task(i, random_creature(rng, genome), 1000 + i) for i in range(13)]


def test_one_and_two_workers_give_bit_identical_outcomes_in_task_order(spec, tasks):
    with InProcess(spec, evaluate) as local:
        expected = local.evaluate(tasks)
    for chunksize in (0, 1, 5):
        with ForkPool(spec, evaluate, workers=2, chunksize=chunksize) as pool:
            assert pool.evaluate(tasks) == expected
            assert pool.evaluate(list(reversed(tasks))) == expected[::-1]
    assert [o.fitness for o in expected] == [evaluate(t.creature, spec, t.seed).fitness for t in tasks]


def test_tasks_can_arrive_from_a_generator_while_earlier_ones_are_evaluated(spec, tasks):
    seen = []
    with make_backend(spec, workers=2, chunksize=2) as pool:
        outcomes = pool.evaluate((t for t in tasks), seen.append, expected=len(tasks))
    with make_backend(spec, workers=1) as local:
        assert outcomes == local.evaluate(iter(tasks), expected=len(tasks))
    assert sum(seen) == len(tasks)


def _fails_on_the_fifth(creature, spec, seed):
    if seed == 1004:
        raise PluginFailed("distance", "plugin 'distance' raised ZeroDivisionError: division by zero")
    return evaluate(creature, spec, seed)


def _plain_error_on_the_fifth(creature, spec, seed):
    if seed == 1004:
        raise KeyError("x")
    return evaluate(creature, spec, seed)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_evaluation_comes_back_as_data_naming_the_plugin_and_the_creature(spec, tasks, workers):
    with (
        make_backend(spec, workers, evaluate=_fails_on_the_fifth) as backend,
        pytest.raises(EvaluationFailed) as caught,
    ):
        backend.evaluate(tasks)
    assert caught.value.index == 4
    assert caught.value.plugin == "distance"
    assert "ZeroDivisionError: division by zero" in caught.value.message
    with (
        make_backend(spec, workers, evaluate=_plain_error_on_the_fifth) as backend,
        pytest.raises(EvaluationFailed, match="KeyError: 'x'") as caught,
    ):
        backend.evaluate(tasks)
    assert caught.value.index == 4 and caught.value.plugin is None


def _dies(creature, spec, seed):
    os._exit(3)


def test_a_worker_that_dies_raises_instead_of_hanging(spec, tasks):
    with (
        ForkPool(spec, _dies, workers=2) as pool,
        pytest.raises(EvaluationFailed, match="worker process died"),
    ):
        pool.evaluate(tasks)


def _logs(creature, spec, seed):
    logging.getLogger("evo.test_pool").info("evaluated seed %d in process %d", seed, os.getpid())
    return evaluate(creature, spec, seed)


def test_log_records_of_workers_reach_the_run_log(spec, tasks, tmp_path: Path):
    path = tmp_path / "run.log"
    with run_logging(path), ForkPool(spec, _logs, workers=2, chunksize=1) as pool:
        pool.evaluate(tasks)
    text = path.read_text()
    assert text.count("evaluated seed") == len(tasks)
    pids = {line.split()[2] for line in text.splitlines() if "evaluated seed" in line}
    assert str(os.getpid()) not in pids and len(pids) >= 1
    assert "worker" in text and "started" in text
