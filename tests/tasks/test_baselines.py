"""The shipped baselines (issue 31): evo tasks table prints every method of every task with its mean,
spread and best over at least five seeds, and evo tasks verify accepts every shipped baseline record."""

from __future__ import annotations

import pytest

from evo.cli import main
from evo.tasks import load_suite, read_record, verify_record
from evo.tasks.baselines import BASELINES, baselines_table, read_baselines

TASKS = load_suite()
BASELINE_ROWS = read_baselines()


def test_every_method_of_every_task_has_a_baseline_over_at_least_five_seeds():
    found = {(b.task, b.method): b for b in BASELINE_ROWS}
    for task in TASKS:
        for method in task.methods:
            b = found.get((task.id, method))
            assert b is not None, (task.id, method)
            assert b.task_version == task.version and len(b.seeds) >= 5 and len(set(b.seeds)) == len(b.seeds)
            assert b.best == max(b.scores) and min(b.scores) <= b.mean <= b.best
            assert all(0 < e <= task.section.budget for e in b.evaluations)


@pytest.mark.parametrize("baseline", BASELINE_ROWS, ids=[f"{b.task}-{b.method}" for b in BASELINE_ROWS])
def test_every_shipped_baseline_record_verifies_and_is_its_methods_best_seed(baseline):
    record = read_record(BASELINES / baseline.record)
    assert (record.task, record.method) == (baseline.task, baseline.method)
    assert record.score == baseline.best and record.seed in baseline.seeds
    assert "reproduces" in verify_record(record)


def test_evo_tasks_table_prints_every_task_with_its_baselines(capsys):
    assert main(["tasks", "table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = baselines_table(TASKS, BASELINE_ROWS)
    assert len(lines) == 1 + len(rows) == 1 + sum(len(t.methods) for t in TASKS)
    for line, row in zip(lines[1:], rows, strict=True):
        assert line.split()[:4] == [row["task"].split()[0], row["task"].split()[1], row["method"], "1200"]
        assert f"{row['best']:.1f}" in line and " - " not in line
