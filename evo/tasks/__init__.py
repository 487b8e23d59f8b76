"""``evo tasks``: a shipped suite of frozen, versioned tasks, searches at each task's budget, result
records anyone can re-check, and the baselines (docs/tasks.md)."""

from evo.tasks.record import ResultRecord, read_record, verify_record, write_record
from evo.tasks.runner import run_task
from evo.tasks.suite import METHODS, SUITE, Task, creature_hash, load_suite, load_task, task_named

__all__ = [
    "METHODS",
    "SUITE",
    "ResultRecord",
    "Task",
    "creature_hash",
    "load_suite",
    "load_task",
    "read_record",
    "run_task",
    "task_named",
    "verify_record",
    "write_record",
]
