"""The baselines: every search method on every task over the task's seeds, as a table (mean, spread,
best) read from ``baselines/table.json`` and the best record of each method under ``baselines/records/``;
``docs/tasks_baselines.py`` makes both (docs/tasks.md, "Baselines").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.io.task_files import read_json_document
from evo.tasks.record import ResultRecord
from evo.tasks.suite import Task

__all__ = ["BASELINES", "Baseline", "baselines_table", "format_table", "read_baselines", "summarize"]

BASELINES = Path(__file__).resolve().parent / "baselines"
TABLE = "table.json"


@dataclass(frozen=True)
class Baseline:
    """One method on one task: the score of each seed (-inf: exploded), and the best seed's record file."""

    task: str
    task_version: int
    method: str
    seeds: tuple[int, ...]
    scores: tuple[float, ...]
    evaluations: tuple[int, ...]
    record: str

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores)

    @property
    def spread(self) -> float:
        """The sample standard deviation over the seeds (0 for one seed)."""
        return statistics.stdev(self.scores) if len(self.scores) > 1 else 0.0

    @property
    def best(self) -> float:
        return max(self.scores)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "task_version": self.task_version,
            "method": self.method,
            "seeds": list(self.seeds),
            "scores": [s if math.isfinite(s) else None for s in self.scores],
            "evaluations": list(self.evaluations),
            "record": self.record,
        }


def summarize(records: Sequence[ResultRecord], record_name: str) -> Baseline:
    """The baseline of one method on one task from its records (one per seed)."""
    first = records[0]
    return Baseline(
        task=first.task,
        task_version=first.task_version,
        method=first.method,
        seeds=tuple(r.seed for r in records),
        scores=tuple(r.score for r in records),
        evaluations=tuple(r.evaluations for r in records),
        record=record_name,
    )


def read_baselines(folder: str | Path | None = None) -> list[Baseline]:
    """The shipped baselines (``baselines/table.json``); [] when there is no table yet."""
    path = Path(folder or BASELINES) / TABLE
    if not path.exists():
        return []
    doc = read_json_document(path, "baseline table")
    rows = doc.get("baselines")
    if not isinstance(rows, list):
        raise EvoInputError("expected a list", source=str(path), field="baselines")
    out = []
    for k, row in enumerate(rows):
        try:
            scores = tuple(-math.inf if s is None else float(s) for s in row["scores"])
            out.append(
                Baseline(
                    task=str(row["task"]),
                    task_version=int(row["task_version"]),
                    method=str(row["method"]),
                    seeds=tuple(int(s) for s in row["seeds"]),
                    scores=scores,
                    evaluations=tuple(int(e) for e in row["evaluations"]),
                    record=str(row["record"]),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EvoInputError(
                f"not a baseline row ({exc})", source=str(path), field=f"baselines[{k}]"
            ) from None
    return out


def baselines_table(tasks: Iterable[Task], baselines: Iterable[Baseline]) -> list[dict[str, Any]]:
    """One row per task and method, in suite order: the task, the method, seeds, mean, spread, best and
    budget; a method without a baseline (or with one for another version) has None figures."""
    found: Mapping[tuple[str, str], Baseline] = {(b.task, b.method): b for b in baselines}
    rows = []
    for task in tasks:
        for method in task.methods:
            b = found.get((task.id, method))
            if b is not None and b.task_version != task.version:
                b = None
            rows.append(
                {
                    "task": task.label,
                    "method": method,
                    "budget": task.section.budget,
                    "seeds": len(b.scores) if b else 0,
                    "mean": b.mean if b else None,
                    "spread": b.spread if b else None,
                    "best": b.best if b else None,
                    "objective": task.spec.plugin.name,
                }
            )
    return rows


def format_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The rows as aligned text lines (a header first)."""

    def figure(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    head = ("task", "method", "budget", "seeds", "mean", "spread", "best", "objective")
    cells = [head] + [
        (
            r["task"],
            r["method"],
            str(r["budget"]),
            str(r["seeds"]),
            figure(r["mean"]),
            figure(r["spread"]),
            figure(r["best"]),
            r["objective"],
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    right = {2, 3, 4, 5, 6}
    return [
        "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]
