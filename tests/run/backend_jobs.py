"""Jobs for the backend tests (fork pool, in-process, dask): module-level, so that any worker can load
them, and the spec and tasks they run on."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import numpy as np

from evo.fitness import find_plugin
from evo.fitness.evaluate import EvaluationSpec, PluginFailed, evaluate
from evo.ga.creatures import random_creature
from evo.ga.settings import GenomeSection
from evo.run.backends import Task
from evo.sim import World


def distance_spec() -> EvaluationSpec:
    """300 frames of the ``distance`` plugin in the default world."""
    plugin = find_plugin("distance")
    return EvaluationSpec(World(), 300, plugin.ref(), dict(plugin.params))


def random_tasks() -> list[Task]:
    """13 tasks: a random creature and its plugin seed, 1000 + the task's index."""
    rng = np.random.default_rng(4)
    genome = GenomeSection()
    return [Task(i, (random_creature(rng, genome), 1000 + i)) for i in range(13)]


def evaluate_payload(payload, spec):
    creature, seed = payload
    return evaluate(creature, spec, seed)


def fails_on_the_fifth(payload, spec):
    if payload[1] == 1004:
        error = PluginFailed("distance", "plugin 'distance' raised ZeroDivisionError: division by zero")
        error.detail = ("the creature", 1004)
        raise error
    return evaluate_payload(payload, spec)


def fails_late_on_one_and_at_once_on_a_later_one(payload, context):
    """Task ``slow`` fails once task ``fast`` (later in order) has failed, or after 2 s; ``fast`` at once."""
    spec, marker, slow, fast = context
    if payload[1] == 1000 + slow:
        deadline = time.monotonic() + 2.0
        while not os.path.exists(marker) and time.monotonic() < deadline:
            time.sleep(0.01)
        raise KeyError("slow")
    if payload[1] == 1000 + fast:
        Path(marker).touch()
        raise KeyError("fast")
    return evaluate_payload(payload, spec)


def dies(payload, spec):
    os._exit(3)


def dies_once(payload, spec):
    """The worker evaluating task 6 dies, the first time only (the marker file named by
    ``EVO_TEST_DIE_ONCE`` says it did)."""
    marker = os.environ["EVO_TEST_DIE_ONCE"]
    if payload[1] == 1006 and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(3)
    return evaluate_payload(payload, spec)


def stuck_once(payload, spec):
    """The worker evaluating task 6 is stuck for 30 s (``EVO_TEST_STUCK_SECONDS`` if set; its other
    threads go on), the first time only (the marker file named by ``EVO_TEST_STUCK_ONCE`` says it was)."""
    marker = os.environ["EVO_TEST_STUCK_ONCE"]
    if payload[1] == 1006 and not os.path.exists(marker):
        Path(marker).touch()
        time.sleep(float(os.environ.get("EVO_TEST_STUCK_SECONDS", "30")))
    return evaluate_payload(payload, spec)


def logs(payload, spec):
    logging.getLogger("evo.test_pool").info("evaluated seed %d in process %d", payload[1], os.getpid())
    return evaluate_payload(payload, spec)


def holds_run_data(token: str) -> bool:
    """Whether this dask worker holds the run ``token``'s static data (its ``RunData`` plugin)."""
    from evo.run.backends.dask_worker import _BLOBS

    return token in _BLOBS


def sleeps_or_spins(payload, seconds):
    """Waits ``seconds`` without using the CPU for an even payload (what a worker whose core is taken
    looks like), spins for them on an odd one (a worker with its core to itself)."""
    if payload % 2 == 0:
        time.sleep(seconds)
    else:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
    return payload


def where_evaluated(payload, spec):
    """(the process that evaluated the payload, its evaluation)."""
    return os.getpid(), evaluate_payload(payload, spec)


def fails_on(payload, context):
    """Evaluates ``payload`` unless its plugin seed is one of ``context``'s failing seeds."""
    spec, failing = context
    if payload[1] in failing:
        raise KeyError(f"seed {payload[1]}")
    return evaluate_payload(payload, spec)


def slow_in_a_worker(payload, context):
    """(the process that evaluated the payload, its evaluation), after 0.3 s in a process other than
    ``context``'s parent."""
    spec, parent = context
    if os.getpid() != parent:
        time.sleep(0.3)
    return where_evaluated(payload, spec)


def unpicklable_on_the_third(payload, spec):
    """Evaluates the payload; for task 2 (plugin seed 1002) returns a result no pickle can carry."""
    if payload[1] == 1002:
        return lambda: None
    return evaluate_payload(payload, spec)


STARTED_HERE: list[float] = []  # when the calling process started each of its own jobs (parent_timed)
PARENT = os.getpid()


def parent_timed(payload, spec):
    """``evaluate_payload``, noting in the calling process (not a forked worker) when each job starts."""
    if os.getpid() == PARENT:
        STARTED_HERE.append(time.monotonic())
    return evaluate_payload(payload, spec)
