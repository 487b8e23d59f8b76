"""One search on a task: a method and a seed at the task's budget, its best creature made a result record;
with a folder, the run's ordinary run folder (refine alone: the refined model) and the record beside it.
"""

from __future__ import annotations

import logging
from pathlib import Path

from evo.errors import EvoInputError
from evo.io.models import save_model
from evo.refine import refine
from evo.run.evolve import evolve
from evo.tasks.record import ResultRecord, write_record
from evo.tasks.suite import Task

__all__ = ["RECORD_NAME", "run_task"]

log = logging.getLogger("evo.tasks")

RECORD_NAME = "result.json"  # the result record's name inside the run folder


def run_task(
    task: Task,
    method: str = "ga",
    seed: int = 1,
    *,
    out: str | Path | None = None,
    workers: int = 1,
    progress: bool = False,
    force: bool = False,
) -> ResultRecord:
    """Search ``task`` with ``method`` and ``seed`` at the task's budget.

    Args:
        task: the task.
        method: one of ``task.methods`` (random, ga, map-elites, memetic, and refine for fixed-body tasks).
        seed: the run's seed.
        out: the run folder to write (with the record as ``result.json`` in it); None: nothing written.
        workers: evaluation processes (the result is the same for any number).
        progress: draw progress bars.
        force: start over in an existing run folder.

    Returns:
        The :class:`ResultRecord` of the best creature found.

    Raises:
        EvoInputError: an unknown method, or one the task does not take; a bad folder.
    """
    if method not in task.methods:
        raise EvoInputError(
            f"{task.label} takes the methods {', '.join(task.methods)}, not {method!r}"
            + (" (refine alone needs a fixed-body task)" if method == "refine" else "")
        )
    if method == "refine":
        record = _refined(task, seed)
        if out is not None:
            folder = Path(out)
            if (folder / RECORD_NAME).exists() and not force:
                raise EvoInputError(f"{folder} holds a result already; --force to overwrite it")
            save_model(record.creature, folder / "refined.json")
            write_record(record, folder / RECORD_NAME)
        return record
    config = task.config(method, seed, workers)
    result = evolve(config, out=out, progress=progress, force=force)
    best = result.best
    if best is None:
        raise EvoInputError(f"{task.label}: the {method} run found no creature")
    evaluations = int(result.history["evaluations"].sum())
    record = ResultRecord.of(task, best.creature, method=method, seed=seed, evaluations=evaluations)
    if out is not None:
        write_record(record, Path(out) / RECORD_NAME)
    log.info("%s %s seed %d: %s %.6g", task.label, method, seed, record.objective, record.score)
    return record


def _refined(task: Task, seed: int) -> ResultRecord:
    """Refine alone: CMA-ES over the task body's gait for the whole budget."""
    body = task.body()
    if body is None:  # task.methods has no refine then
        raise EvoInputError(f"{task.label} has no body to refine")
    config = task.config("ga", seed)
    found = refine(body, fitness=task.spec, budget=task.section.budget, seed=seed, genome=config.genome)
    return ResultRecord.of(task, found.best, method="refine", seed=seed, evaluations=found.evaluations)
