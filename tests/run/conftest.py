"""Fixtures the backend tests share (fork pool, in-process, dask): the spec and tasks of backend_jobs."""

from __future__ import annotations

import pytest
from backend_jobs import distance_spec, random_tasks

from evo.fitness.evaluate import EvaluationSpec
from evo.run.backends import Task


@pytest.fixture(scope="module")
def spec() -> EvaluationSpec:
    return distance_spec()


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return random_tasks()
