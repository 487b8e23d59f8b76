"""Result records (issue 31): a search writes an ordinary run folder and a record; verify re-simulates it
and accepts it in one line, and refuses an edited creature, score or task version in one line, exit 2."""

from __future__ import annotations

import dataclasses
import json

import pytest

from evo.cli import main
from evo.errors import EvoInputError
from evo.io.models import creature_to_dict
from evo.tasks import (
    ResultRecord,
    creature_hash,
    read_record,
    run_task,
    task_named,
    verify_record,
    write_record,
)


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    task = task_named("gait-galloper")
    record = ResultRecord.of(task, task.body(), method="ga", seed=1, evaluations=1)
    path = tmp_path_factory.mktemp("records") / "result.json"
    write_record(record, path)
    return path


def edited(path, tmp_path, change):
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out


def test_a_record_round_trips_and_verifies_in_one_line(record_file, capsys):
    record = read_record(record_file)
    assert record.task == "gait-galloper" and record.task_version == 1 and record.objective == "distance"
    assert record.score == task_named("gait-galloper").score(record.creature) > 500
    assert main(["tasks", "verify", str(record_file)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "reproduces" in out and "hashes match" in out


@pytest.mark.parametrize(
    "what, change, reason",
    [
        ("score", lambda d: d.update(score=d["score"] + 1.0), "does not reproduce"),
        (
            "creature",
            lambda d: d["creature"]["masses"][0].update(x=d["creature"]["masses"][0]["x"] + 5),
            "changed",
        ),
        ("version", lambda d: d.update(task_version=2), "v2"),
        ("physics", lambda d: d.update(physics_hash="0" * 64), "physics hash"),
    ],
)
def test_an_edited_record_is_refused_in_one_line_with_exit_status_2(
    record_file, tmp_path, capsys, what, change, reason
):
    path = edited(record_file, tmp_path, change)
    assert main(["tasks", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refused" in err and reason in err and str(path) in err


def test_a_creature_edited_along_with_its_hash_is_caught_by_the_re_simulation(record_file, tmp_path):
    record = read_record(record_file)
    faster = record.creature.replace(omega=record.creature.omega * 1.1)
    forged = dataclasses.replace(record, creature=faster, creature_hash=creature_hash(faster))
    with pytest.raises(EvoInputError, match="does not reproduce"):
        verify_record(forged)


def test_a_record_that_is_not_one_is_refused_naming_the_field(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps({"format": "evo-task-result", "format_version": 1, "task": 3}), encoding="utf-8"
    )
    assert main(["tasks", "verify", str(path)]) == 2
    assert "task: expected str" in capsys.readouterr().err


def test_tasks_run_writes_a_run_folder_and_a_record_whose_score_is_the_runs_best(tmp_path, capsys):
    out = tmp_path / "run"
    assert (
        main(["tasks", "run", "flat-walk", "--method", "ga", "--seed", "2", "--out", str(out), "--quiet"])
        == 0
    )
    assert (
        (out / "config.toml").exists() and (out / "history.csv").exists() and any((out / "elites").iterdir())
    )
    record = read_record(out / "result.json")
    assert record.method == "ga" and record.seed == 2 and 0 < record.evaluations <= 1200
    best = json.loads(sorted((out / "elites").iterdir())[0].read_text(encoding="utf-8"))
    assert creature_to_dict(record.creature)["links"] == best["links"]
    assert main(["tasks", "verify", str(out / "result.json")]) == 0


def test_refine_alone_runs_on_a_fixed_body_task_and_is_refused_elsewhere(tmp_path):
    record = run_task(task_named("gait-galloper"), "refine", 1, out=tmp_path / "r")
    assert record.score > task_named("gait-galloper").score(task_named("gait-galloper").body())
    assert read_record(tmp_path / "r" / "result.json").creature_hash == record.creature_hash
    with pytest.raises(EvoInputError, match="fixed-body"):
        run_task(task_named("flat-walk"), "refine", 1)
