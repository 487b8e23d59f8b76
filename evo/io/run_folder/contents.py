"""Reading a run folder written by ``evo run``: its config, history, elites, checkpoint, generation bests and
(MAP-Elites) archive, as typed records (docs/runs.md describes the folder). A folder with a checkpoint is
read as of that checkpoint, even while a run writes it; without one, ``elites/`` is required.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import re
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.io.bounded import read_input_bytes, read_input_text
from evo.io.checkpoint.disk import read_checkpoint_document
from evo.io.checkpoint.document import decode_numbers
from evo.io.checkpoint.qd import is_qd_checkpoint
from evo.io.models import creature_from_dict, dumps_model, loads_model
from evo.io.provenance import Provenance
from evo.io.run_folder.folder import RunFolder, elite_file_name, model_digest
from evo.model import Creature
from evo.sim.world import World

__all__ = [
    "CHECKPOINT_ERRORS",
    "Entry",
    "RunContents",
    "archive_entries",
    "checkpoint_path",
    "finite_values",
    "read_run",
]

_LOG_HEAD = 4096  # bytes of run.log read for its first line
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
    text = read_input_text(path)
    try:
        rows = csv.DictReader(io.StringIO(text, newline=""))
        return [{k: _number(v) for k, v in row.items() if k} for row in rows]
    except csv.Error as exc:
        raise EvoInputError(f"cannot read the history: {exc}", source=str(path)) from None


def _read_config(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(read_input_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise EvoInputError(f"cannot read the config: {exc}", source=str(path)) from None


def finite_values(raw: Any) -> tuple[float | None, ...]:
    try:
        values = decode_numbers(raw or ())
    except (TypeError, ValueError):
        return ()
    return tuple(v if math.isfinite(v) else None for v in values)


def _entry_from_file(path: Path) -> Entry:
    """The entry of a model file; FileNotFoundError when it is not (or no longer) there."""
    text = read_input_text(path)  # NoSuchInput is a FileNotFoundError
    creature = loads_model(text, source=str(path))
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
    with contextlib.suppress(EvoInputError):
        first = read_input_bytes(folder.log, limit=_LOG_HEAD, partial=True).split(b"\n", 1)[0]
        match = _LOG_DATE.match(first.decode("utf-8", errors="replace"))
        if match:
            return match.group(1)
    for path in (folder.config, folder.checkpoint):
        if path.is_file():
            return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return None


# what a malformed checkpoint raises while it is read (wrong types, missing keys, odd values)
CHECKPOINT_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError)


def _one_line(exc: BaseException) -> str:
    """``KeyError: 'objectives'``: an exception's type and message, on one short line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text if len(text) <= 100 else text[:97] + '...'}"


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()


def checkpoint_path(folder: RunFolder) -> Path:
    """The folder's checkpoint file: ``checkpoint.npz``, or a version-1 ``checkpoint.json`` where only that
    is there."""
    if not folder.checkpoint.is_file() and folder.legacy_checkpoint.is_file():
        return folder.legacy_checkpoint
    return folder.checkpoint


def _read_checkpoint(folder: RunFolder) -> dict[str, Any] | None:
    """The checkpoint, validated, or None when there is none (a run removed by ``--force`` meanwhile
    included)."""
    try:
        return read_checkpoint_document(folder.path)
    except EvoInputError:
        if not (folder.checkpoint.is_file() or folder.legacy_checkpoint.is_file()):
            return None
        raise


def _history_of(checkpoint: dict[str, Any]) -> list[dict[str, float]]:
    """The rows of history.csv, from the checkpoint's logbook (the file is derived from it)."""
    return [{k: float(decode_numbers([v])[0]) for k, v in record.items()} for record in checkpoint["logbook"]]


def _elite_of_file(path: Path, member: dict[str, Any], digest: str) -> Entry | None:
    """The entry of an elite file if it is the checkpoint's ``member`` (same id and body), else None: the
    file may be missing, or be another generation's while a live run rewrites ``elites/``."""
    try:
        text = read_input_text(path)
        creature = loads_model(text, source=str(path))
    except (OSError, EvoInputError):
        return None
    provenance = Provenance.from_meta(creature.meta)
    if provenance is None or provenance.id != str(member["id"]) or model_digest(creature) != digest:
        return None
    return Entry(
        creature=creature,
        text=text,
        file_name=path.name,
        fitness=finite_values(creature.meta.get("fitness")),
        generation=provenance.generation,
        digest=digest,
        provenance=provenance,
    )


def _elite_of_checkpoint(
    name: str, member: dict[str, Any], digest: str, config: dict[str, Any], objectives: tuple[str, ...],
    source: str,
) -> Entry:  # fmt: skip
    """The entry of a hall-of-fame member as ``evo run`` writes its file (the run's name, world and the
    provenance in ``meta``), made from the checkpoint and config.toml."""
    run = config.get("run", {})
    evaluation = config.get("evaluation", {})
    world = config.get("world", {})
    order = [*World.field_names(), *world]
    provenance = Provenance(
        run=str(run.get("name", "")),
        id=str(member["id"]),
        generation=int(member["born"]),
        plugin=str(evaluation.get("plugin", "")),
        frames=int(evaluation.get("frames", 0)),
        parents=tuple(str(p) for p in member["parents"]),
        plugin_paths=tuple(evaluation.get("plugin_paths", ())),
        params=dict(evaluation.get("params", {})),
        seed=member.get("seed"),
        fitness=decode_numbers(member["fitness"] or ()),
        objectives=objectives,
    )
    creature = creature_from_dict(member["model"], source=source).replace(
        name=f"{provenance.run}-{provenance.id}",
        world={key: world[key] for key in dict.fromkeys(order) if key in world},
        meta=provenance.to_meta(),
    )
    return Entry(
        creature=creature,
        text=dumps_model(creature),
        file_name=name,
        fitness=finite_values(member["fitness"]),
        generation=provenance.generation,
        digest=digest,
        provenance=provenance,
    )


def _elites_of(folder: RunFolder, checkpoint: dict[str, Any], config: dict[str, Any]) -> list[Entry]:
    """The checkpoint's hall of fame, best first: each elite's file when it holds that member, else the
    same entry made from the checkpoint (a live run may be rewriting ``elites/`` right now)."""
    members = checkpoint["hall_of_fame"]
    objectives = tuple(str(o) for o in checkpoint["objectives"])
    out = []
    for rank, member in enumerate(members, start=1):
        digest = model_digest(member["model"])
        name = elite_file_name(rank, len(members), int(member["born"]), digest)
        entry = _elite_of_file(folder.elites / name, member, digest)
        if entry is None:
            entry = _elite_of_checkpoint(
                name, member, digest, config, objectives, str(checkpoint_path(folder))
            )
        out.append(entry)
    return out


def _elite_files(folder: RunFolder, attempts: int = 5) -> list[Entry]:
    """The elite files as they are; read again when one went away meanwhile (a live run renames them)."""
    for attempt in range(attempts):
        try:
            return [_entry_from_file(p) for p in folder.elite_files()]
        except FileNotFoundError as exc:
            if attempt == attempts - 1:
                raise EvoInputError("an elite file went away while being read", source=exc.filename) from None
    return []


def read_run(path: str | Path, *, require_elites: bool = True) -> RunContents:
    """Read a run folder, consistently even while ``evo run`` writes it.

    With a checkpoint, everything is read as of that checkpoint (it is read first, and written
    atomically): the history is its logbook, the elites its hall of fame (their files, or the same
    entries made from it where a file is not there yet or not any more), the generation bests those up to
    its generation. Without one (an older folder), the elite files and history.csv are read as they are.

    Args:
        path: the run folder.
        require_elites: refuse a folder with neither a checkpoint nor elite files.

    Returns:
        The :class:`RunContents`.

    Raises:
        EvoInputError: not a run folder, or a file in it cannot be read.
    """
    folder = RunFolder(path)
    if not folder.path.is_dir():
        raise EvoInputError("no such run folder", source=str(folder.path))
    checkpoint = _read_checkpoint(folder)
    config = _read_config(folder.config)
    if checkpoint is not None:
        try:  # a checkpoint edited by hand, or not evo's: any surprise is one line naming it
            history = _history_of(checkpoint)
            if is_qd_checkpoint(checkpoint):  # a MAP-Elites run: its elites are derived from the archive
                elites = _elite_files(folder)
            else:
                elites = _elites_of(folder, checkpoint, config)
            last = int(checkpoint["generation"])
            objectives = tuple(str(o) for o in checkpoint["objectives"])
            weights = tuple(float(w) for w in checkpoint["weights"])
            if len(weights) != len(objectives):
                raise ValueError(f"{len(objectives)} objectives but {len(weights)} weights")
        except CHECKPOINT_ERRORS as exc:
            raise EvoInputError(
                f"cannot read the checkpoint: {_one_line(exc)}", source=str(checkpoint_path(folder))
            ) from None
    else:
        elites = _elite_files(folder)
        history = _read_history(folder.history)
        last = None
        objectives = _strings(elites[0].creature.meta.get("objectives")) if elites else ()
        if not objectives:
            objectives = tuple(
                k[: -len("_best")] for k in (history[0] if history else {}) if k.endswith("_best")
            )
        weights = (1.0,) * len(objectives)
    if not elites and (require_elites or not folder.holds_a_run()):
        raise EvoInputError(
            "no elites/*.json model files: is this a run folder of evo run?", source=str(path)
        )
    saved = {}
    generations_dir = folder.generations
    if generations_dir.is_dir():
        for file in sorted(generations_dir.glob("gen*.json")):
            match = _GENERATION_FILE.match(file.name)
            if match and (last is None or int(match.group(1)) <= last):
                with contextlib.suppress(FileNotFoundError):  # a --force may remove it meanwhile
                    saved[int(match.group(1))] = _entry_from_file(file)
    return RunContents(
        path=folder.path,
        config=config,
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
