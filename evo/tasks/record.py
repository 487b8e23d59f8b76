"""Result records: the best creature of a search on a task, its score and the hashes that let anyone
re-check it in seconds (:func:`verify_record`; docs/tasks.md, "Result records").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.io.models import creature_from_dict, creature_to_dict
from evo.io.task_files import read_json_document, write_json_document
from evo.model import Creature
from evo.tasks.suite import Task, creature_hash, task_named

__all__ = ["FORMAT", "ResultRecord", "read_record", "verify_record", "write_record"]

FORMAT = "evo-task-result"
FORMAT_VERSION = 1
_FIELDS = {
    "task": str,
    "task_version": int,
    "method": str,
    "seed": int,
    "evaluations": int,
    "objective": str,
    "evo_version": str,
    "physics_hash": str,
    "creature_hash": str,
    "plugin_seed": int,
}


@dataclass(frozen=True)
class ResultRecord:
    """What a search on a task found: its best creature and score, and how to re-check them.

    Attributes:
        task, task_version: the task's id and version.
        method, seed: the search method and its seed; ``evaluations`` how many it spent.
        score: the task's score of ``creature`` (its plugin's objective, ``objective``).
        evo_version: the evo that made the record.
        physics_hash: :meth:`Task.physics_hash` when the record was made.
        creature_hash: :func:`creature_hash` of ``creature``.
        plugin_seed: the seed the task's plugin was called with.
        creature: the creature.
    """

    task: str
    task_version: int
    method: str
    seed: int
    evaluations: int
    score: float
    objective: str
    evo_version: str
    physics_hash: str
    creature_hash: str
    creature: Creature
    plugin_seed: int = 0

    @classmethod
    def of(cls, task: Task, creature: Creature, *, method: str, seed: int, evaluations: int) -> ResultRecord:
        """The record of ``creature`` found by ``method`` on ``task``, scored now."""
        return cls(
            task=task.id,
            task_version=task.version,
            method=method,
            seed=seed,
            evaluations=evaluations,
            score=task.score(creature),
            objective=task.spec.plugin.name,
            evo_version=version("evo"),
            physics_hash=task.physics_hash(),
            creature_hash=creature_hash(creature),
            creature=creature,
        )

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON document (the score as a number, or null when the creature exploded)."""
        doc: dict[str, Any] = {"format": FORMAT, "format_version": FORMAT_VERSION}
        for name in ("task", "task_version", "method", "seed", "evaluations"):
            doc[name] = getattr(self, name)
        doc["score"] = self.score if math.isfinite(self.score) else None
        for name in ("objective", "plugin_seed", "evo_version", "physics_hash", "creature_hash"):
            doc[name] = getattr(self, name)
        doc["creature"] = creature_to_dict(self.creature)
        return doc

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], source: str | None = None) -> ResultRecord:
        """Check a record document. Raises :class:`EvoInputError` naming the field."""
        if doc.get("format") != FORMAT or doc.get("format_version") != FORMAT_VERSION:
            raise EvoInputError(
                f"expected format {FORMAT!r} version {FORMAT_VERSION}, got {doc.get('format')!r} "
                f"version {doc.get('format_version')!r}",
                source=source,
                field="format",
            )
        values: dict[str, Any] = {}
        for name, kind in _FIELDS.items():
            value = doc.get(name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise EvoInputError(f"expected {kind.__name__}, got {value!r}", source=source, field=name)
            values[name] = value
        score = doc.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
            raise EvoInputError(f"expected a number or null, got {score!r}", source=source, field="score")
        values["score"] = -math.inf if score is None else float(score)
        if "creature" not in doc:
            raise EvoInputError("missing", source=source, field="creature")
        values["creature"] = creature_from_dict(doc["creature"], source=source)
        return cls(**values)


def read_record(path: str | Path) -> ResultRecord:
    """Read a result record file; errors name the file and the field."""
    return ResultRecord.from_dict(read_json_document(path, "result record"), source=str(path))


def write_record(record: ResultRecord, path: str | Path) -> None:
    """Write a result record as JSON (atomically)."""
    write_json_document(path, record.to_dict())


def verify_record(record: ResultRecord, source: str | None = None, folder: str | None = None) -> str:
    """Re-simulate a record's creature on its task and check the hashes.

    Args:
        record: the record.
        source: the file it came from, for messages.
        folder: the suite's folder (default: the shipped suite).

    Returns:
        One line saying that the score reproduces and the hashes match.

    Raises:
        EvoInputError: one line saying why the record is refused: an unknown task, another version of
            it, another physics, a creature that is not the one hashed, or a score that does not
            reproduce.
    """
    task = task_named(record.task, folder)
    if record.task_version != task.version:
        raise EvoInputError(
            f"refused: the record is for {record.task} v{record.task_version}, the suite's task is "
            f"{task.label}; run the search again on {task.label}",
            source=source,
        )
    physics = task.physics_hash()
    if record.physics_hash != physics:
        raise EvoInputError(
            f"refused: physics hash {record.physics_hash[:12]}... is not {task.label}'s {physics[:12]}...",
            source=source,
        )
    actual = creature_hash(record.creature)
    if record.creature_hash != actual:
        raise EvoInputError(
            f"refused: the creature's hash is {actual[:12]}..., not the recorded "
            f"{record.creature_hash[:12]}... (the creature was changed)",
            source=source,
        )
    score = task.score(record.creature, record.plugin_seed)
    if score != record.score:
        raise EvoInputError(
            f"refused: score {record.score!r} does not reproduce; re-simulated, the creature scores "
            f"{score!r} on {task.label}",
            source=source,
        )
    where = f"{source}: " if source else ""
    return (
        f"{where}verified: {task.label} score {score:.6g} ({record.objective}, {record.method} seed "
        f"{record.seed}) reproduces; physics and creature hashes match (made by evo {record.evo_version})"
    )
