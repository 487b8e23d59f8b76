"""The task suite (issue 31): at least eight frozen, versioned tasks that load and make valid run configs,
each search method at the task's budget, and one-line refusals of a bad task file."""

from __future__ import annotations

import shutil

import pytest

from evo.errors import EvoInputError
from evo.tasks import METHODS, SUITE, load_suite, load_task, task_named

TASKS = load_suite()


def test_the_suite_ships_at_least_eight_versioned_tasks_named_as_their_files():
    assert len(TASKS) >= 8
    for task in TASKS:
        assert task.version >= 1 and task.id and task.section.title and task.section.goal
        assert len(task.section.seeds) >= 5
        assert task.source.endswith(f"{task.id}.toml")


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_every_method_of_a_task_stays_within_its_budget(task):
    budget = task.section.budget
    for method in task.methods:
        if method == "refine":
            assert task.body() is not None
            continue
        config = task.config(method, seed=3)
        assert config.run.seed == 3 and config.evaluation.frames == task.spec.frames
        if method == "map-elites":
            spent = (
                config.run.population
                + (config.run.generations - 1) * config.qd.emitters * config.qd.batch_size
            )
        else:
            spent = config.run.population * config.run.generations
            if config.ga.refine is not None:
                refinements = config.run.generations // config.ga.refine.every
                spent += refinements * config.ga.refine.top * config.ga.refine.budget
        assert spent <= budget


def test_refine_alone_is_a_method_of_the_fixed_body_tasks_only():
    with_body = {t.id for t in TASKS if t.section.body}
    assert len(with_body) >= 2
    assert {t.id for t in TASKS if "refine" in t.methods} == with_body
    assert all(t.methods[:4] == METHODS[:4] for t in TASKS)


def test_the_physics_hash_changes_with_the_world_and_not_with_the_task_title():
    flat, slope = task_named("flat-walk"), task_named("slope-climb")
    assert flat.physics_hash() != slope.physics_hash()
    assert flat.physics_hash() == task_named("gait-galloper").physics_hash()  # the same world and plugin


def test_a_task_is_named_with_its_version_or_refused_in_one_line():
    assert task_named("jump@v1").id == "jump"
    with pytest.raises(EvoInputError, match="not version"):
        task_named("jump@v2")
    with pytest.raises(EvoInputError, match="did you mean 'flat-walk'"):
        task_named("flat-wakl")


def test_a_bad_task_file_is_refused_naming_the_file_and_the_field(tmp_path):
    path = tmp_path / "flat-walk.toml"
    text = (SUITE / "flat-walk.toml").read_text(encoding="utf-8")
    path.write_text(text.replace("budget = 1200", "budget = 3"), encoding="utf-8")
    with pytest.raises(EvoInputError) as error:
        load_task(path)
    assert str(path) in str(error.value) and "[task] budget" in str(error.value)
    path.write_text(text.replace('plugin = "distance"', 'plugin = "distanse"'), encoding="utf-8")
    with pytest.raises(EvoInputError, match=r"\[evaluation\] plugin"):
        load_task(path)
    renamed = tmp_path / "other.toml"
    shutil.copy(SUITE / "jump.toml", renamed)
    with pytest.raises(EvoInputError, match=r"\[task\] id"):
        load_task(renamed)
