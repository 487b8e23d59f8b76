"""The task suite's own plugins (issue 31): ``efficiency`` is distance per muscle work and ``pace`` counts
laps between two lines of a walled box."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from evo.fitness import EvaluationSpec, evaluate, find_plugin
from evo.io.models import load_model
from evo.tasks import SUITE, task_named

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
PLUGINS = (str(SUITE / "plugins"),)


def spec_of(name: str, task: str, **params) -> EvaluationSpec:
    base = task_named(task).spec
    plugin = find_plugin(name, PLUGINS).ref()
    return dataclasses.replace(base, plugin=plugin, params={"settle_frames": 200, **params})


def test_efficiency_is_the_distance_when_the_muscles_do_no_work_and_less_when_they_do():
    galloper = load_model(GENOMES / "galloper.json")
    distance = evaluate(galloper, task_named("flat-walk").spec, 0).fitness[0]
    efficiency = evaluate(galloper, spec_of("efficiency", "efficiency"), 0).fitness[0]
    assert 0 < efficiency < distance  # 1000 d / (W + 1000) with W > 0
    still = galloper.replace(alpha=galloper.alpha * 0.0)
    d_still = evaluate(still, task_named("flat-walk").spec, 0).fitness[0]
    assert evaluate(still, spec_of("efficiency", "efficiency"), 0).fitness[0] == pytest.approx(d_still)


def test_the_pacer_paces_and_does_not_when_its_muscles_are_still():
    pacer = load_model(SUITE / "bodies" / "pacer.json")
    spec = spec_of("pace", "pace-box")
    laps = evaluate(pacer, spec, 0).fitness[0]
    assert laps > 0
    still = pacer.replace(alpha=pacer.alpha * 0.0)
    assert evaluate(still, spec, 0).fitness[0] < 0.1 * laps
    wider = evaluate(pacer, spec_of("pace", "pace-box", margin=0.0), 0).fitness[0]
    assert wider != laps  # the lines moved to the walls: another count


def test_pace_scores_three_hundred_px_per_lap_plus_the_progress_into_the_next():
    pace = find_plugin("pace", PLUGINS).func
    world = task_named("pace-box").spec.world

    def result(xs):
        centroids = np.array([[x, 0.0] for x in xs])
        return SimpleNamespace(world=world, centroids=centroids, index_at=lambda frame: 0)

    assert pace(result([300, 460, 300, 140, 300, 460])) == 900.0  # three laps, then at a line
    assert pace(result([300, 460, 300])) == 300.0 + 0.5 * 300.0  # one lap, half way back
    assert pace(result([300, 375])) == pytest.approx(0.5 * 300.0)  # half way to the first line
