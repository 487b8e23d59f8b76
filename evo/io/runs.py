"""Reading a run folder written by ``evo run``: its config, history, elites, checkpoint, generation bests and
(MAP-Elites) archive, as typed records (docs/runs.md describes the folder). Only ``elites/`` is required.
"""

from __future__ import annotations

import csv
import math
import re
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.io.checkpoint import decode_numbers
from evo.io.models import load_model
from evo.io.provenance import Provenance
from evo.io.run_folder import RunFolder, model_digest
from evo.model import Creature

__all__ = ["Entry", "RunContents", "archive_entries", "finite_values", "read_run"]

_LOG_DATE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
_GENERATION_FILE = re.compile(r"^gen(\d+)\.json$")


@dataclass(frozen=True)
class Entry:
    """One creature of a run folder: its model, the file's text and its provenance.

    Attributes:
        fitness: objective values from its meta or the checkpoint (None where unknown or non-finite).
        generation: the generation it was born in (None when unknown).
        provenance: its typed ``meta`` (None for a model without one).
    """

    creature: Creature
    text: str
    file_name: str
    fitness: tuple[float | None, ...]
    generation: int | None
    digest: str
    provenance: Provenance | None = None


@dataclass
class RunContents:
    path: Path
    config: dict[str, Any]
    history: list[dict[str, float]]
    objectives: tuple[str, ...]
    weights: tuple[float, ...]
    elites: list[Entry]
    checkpoint: dict[str, Any] | None
    started: str | None
    saved_bests: dict[int, Entry] = field(default_factory=dict)
    archive: dict[str, Any] | None = None  # archive.json of a MAP-Elites run

    def section(self, name: str) -> dict[str, Any]:
        value = self.config.get(name, {})
        return value if isinstance(value, dict) else {}


def _number(cell: str) -> float:
    try:
        return float(cell)
    except ValueError:
        return math.nan


def _read_history(path: Path) -> list[dict[str, float]]:
    if not path.is_file():
        return []
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return [{k: _number(v) for k, v in row.items() if k} for row in csv.DictReader(handle)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise EvoInputError(f"cannot read the history: {exc}", source=str(path)) from None


def _read_config(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EvoInputError(f"cannot read the config: {exc}", source=str(path)) from None


def finite_values(raw: Any) -> tuple[float | None, ...]:
    try:
        values = decode_numbers(raw or ())
    except (TypeError, ValueError):
        return ()
    return tuple(v if math.isfinite(v) else None for v in values)


def _entry_from_file(path: Path) -> Entry:
    creature = load_model(path)
    text = path.read_text(encoding="utf-8")
    provenance = Provenance.from_meta(creature.meta)
    return Entry(
        creature=creature,
        text=text,
        file_name=path.name,
        fitness=finite_values(creature.meta.get("fitness")),
        generation=provenance.generation if provenance else None,
        digest=model_digest(creature),
        provenance=provenance,
    )


def _started(folder: RunFolder) -> str | None:
    try:
        with folder.log.open(encoding="utf-8") as handle:
            match = _LOG_DATE.match(handle.readline())
        if match:
            return match.group(1)
    except (OSError, UnicodeDecodeError):
        pass
    for path in (folder.config, folder.checkpoint):
        if path.is_file():
            return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return None


def read_run(path: str | Path) -> RunContents:
    """Read a run folder; raises :class:`EvoInputError` when it holds no elites or a file is unreadable."""
    folder = RunFolder(path)
    if not folder.path.is_dir():
        raise EvoInputError("no such run folder", source=str(folder.path))
    files = folder.elite_files()
    if not files:
        raise EvoInputError(
            "no elites/*.json model files: is this a run folder of evo run?", source=str(path)
        )
    elites = [_entry_from_file(p) for p in files]
    checkpoint = folder.read_checkpoint() if folder.checkpoint.is_file() else None
    history = _read_history(folder.history)
    objectives = tuple(
        (checkpoint or {}).get("objectives") or elites[0].creature.meta.get("objectives") or ()
    )
    if not objectives:
        objectives = tuple(k[: -len("_best")] for k in (history[0] if history else {}) if k.endswith("_best"))
    weights = tuple(float(w) for w in (checkpoint or {}).get("weights") or (1.0,) * len(objectives))
    saved = {}
    generations_dir = folder.generations
    if generations_dir.is_dir():
        for file in sorted(generations_dir.glob("gen*.json")):
            match = _GENERATION_FILE.match(file.name)
            if match:
                saved[int(match.group(1))] = _entry_from_file(file)
    return RunContents(
        path=folder.path,
        config=_read_config(folder.config),
        history=history,
        objectives=objectives,
        weights=weights,
        elites=elites,
        checkpoint=checkpoint,
        started=_started(folder),
        saved_bests=saved,
        archive=folder.read_archive(),
    )


def archive_entries(run: RunContents) -> dict[str, Entry]:
    """The model file of each occupied cell of a MAP-Elites run (``archive.json``'s ``file``), by the
    creature's id; empty for a GA run. A cell whose file is missing is left out.

    Raises:
        EvoInputError: a cell's file cannot be read as a model.
    """
    out: dict[str, Entry] = {}
    for cell in (run.archive or {}).get("elites", []):
        name = cell.get("file") if isinstance(cell, dict) else None
        if not isinstance(name, str) or Path(name).is_absolute() or ".." in Path(name).parts:
            continue
        path = run.path / name
        if path.is_file():
            out[str(cell.get("id"))] = _entry_from_file(path)
    return out
