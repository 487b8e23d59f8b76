"""A run folder's checkpoint on disk: ``checkpoint.npz`` (version 2: the state's head as JSON, the
individuals as arrays, a checksum) with ``history.csv`` as its append-only logbook, and the version-1
``checkpoint.json`` read for inspection; both read as one validated checkpoint document (docs/runs.md).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.ga.individual import Individual
from evo.io.atomic import atomic_write_text
from evo.io.bounded import read_input_bytes
from evo.io.checkpoint.arrays import individual_documents, pack_individuals
from evo.io.checkpoint.document import CHECKPOINT_FORMAT, decode_number
from evo.io.checkpoint.schema import validate_checkpoint
from evo.io.npz_file import fsync_folder, read_npz, write_npz

__all__ = [
    "CHECKPOINT_FILE",
    "LEGACY_CHECKPOINT_FILE",
    "NPZ_VERSION",
    "HistoryLog",
    "LegacyCheckpoint",
    "checkpoint_arrays",
    "read_checkpoint_document",
    "remove_stale_temporaries",
    "write_checkpoint_file",
]

CHECKPOINT_FILE = "checkpoint.npz"
LEGACY_CHECKPOINT_FILE = "checkpoint.json"  # version 1: read, never resumed
NPZ_VERSION = 2
MAX_JSON_BYTES = 1 << 30
_INT_COLUMNS = ("generation", "evaluations", "exploded", "num_elites")


class LegacyCheckpoint(EvoInputError):
    """A version-1 (JSON) checkpoint where only version 2 will do (resuming)."""


def _text_array(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def checkpoint_arrays(
    head: Mapping[str, Any],
    groups: Mapping[str, Sequence[Individual]],
    extra: Mapping[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """The arrays of a ``checkpoint.npz``.

    Args:
        head: the JSON-able keys (``generation``, ``seed``, ``objectives``, ``weights``, ``rng``, ``history``
            ...); ``format`` and ``version`` are added.
        groups: the individuals of each group (``population``, ``hall_of_fame``; ``elites``).
        extra: further arrays (a MAP-Elites run's cells, measures, centroids).

    Returns:
        The named arrays, ``head`` first (UTF-8 JSON as uint8).
    """
    doc = {"format": CHECKPOINT_FORMAT, "version": NPZ_VERSION, **head, "groups": list(groups)}
    arrays = {"head": _text_array(json.dumps(doc, allow_nan=False, separators=(",", ":")))}
    objectives = len(head["objectives"])
    for name, individuals in groups.items():
        arrays.update(pack_individuals(name, individuals, objectives))
    arrays.update(extra or {})
    return arrays


def write_checkpoint_file(folder: str | os.PathLike, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``checkpoint.npz`` durably. ``EVO_TEST_PAUSE_IN_CHECKPOINT`` (seconds) holds the write inside
    its window (temporary file written, not yet in place): the kill tests stop the run there.

    Raises:
        OSError: it cannot be written (the previous checkpoint is left as it was).
    """
    pause = None
    delay = os.environ.get("EVO_TEST_PAUSE_IN_CHECKPOINT")
    if delay:
        import time

        def pause() -> None:
            Path(folder, ".in-checkpoint-window").touch()
            time.sleep(float(delay))

    write_npz(Path(folder) / CHECKPOINT_FILE, arrays, pause=pause)


class HistoryLog:
    """``history.csv`` grown by appending one row per generation (fsynced), and the running SHA-256 of its
    bytes, which the checkpoint records (``mark``) so that the logbook is verified when read back."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._hash = hashlib.sha256()
        self._bytes = 0
        self._rows = 0

    def start(self, text: str, rows: int) -> None:
        """Write history.csv anew (atomically): ``text`` is its header and ``rows`` rows."""
        atomic_write_text(self.path, text)
        data = text.encode("utf-8")
        self._hash, self._bytes, self._rows = hashlib.sha256(data), len(data), rows

    def append(self, rows_text: str) -> None:
        """Append rows (CSV text ending in a newline) durably."""
        data = rows_text.encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)  # never through a symlink
        with os.fdopen(fd, "ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        self._hash.update(data)
        self._bytes += len(data)
        self._rows += rows_text.count("\n")

    @property
    def rows(self) -> int:
        return self._rows

    def mark(self) -> dict[str, Any]:
        """What the checkpoint records of the history: rows, bytes, SHA-256 of those bytes."""
        return {"rows": self._rows, "bytes": self._bytes, "sha256": self._hash.hexdigest()}


def _history_rows(path: Path, mark: Any, source: str) -> list[dict[str, Any]]:
    """The logbook a checkpoint's ``history`` mark covers, verified against its SHA-256."""
    ok = isinstance(mark, dict) and set(mark) == {"rows", "bytes", "sha256"}
    ok = ok and all(isinstance(mark[k], int) and not isinstance(mark[k], bool) for k in ("rows", "bytes"))
    if not ok or not 0 <= mark["bytes"] <= MAX_JSON_BYTES:
        raise EvoInputError("history: expected rows, bytes and sha256 of history.csv", source=source)
    if not path.is_file():  # not there, or not a regular file (a FIFO, a device)
        raise EvoInputError("history.csv, which holds the checkpoint's logbook, is missing", source=source)
    data = read_input_bytes(path, limit=mark["bytes"], partial=True)  # rows appended since: not read
    if len(data) != mark["bytes"] or hashlib.sha256(data).hexdigest() != mark["sha256"]:
        raise EvoInputError(
            "history.csv does not match the checkpoint (edited or cut short)", source=str(path)
        )
    try:
        reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
        header, *lines = list(reader) or [[]]
    except (UnicodeDecodeError, csv.Error, ValueError) as exc:
        raise EvoInputError(f"cannot read the history: {exc}", source=str(path)) from None
    rows = []
    for number, line in enumerate(lines, start=2):
        row: dict[str, Any] = {}
        for key, cell in zip(header, line, strict=False):
            if cell:
                try:
                    row[key] = int(cell) if key in _INT_COLUMNS else decode_number(float(cell))
                except ValueError:
                    raise EvoInputError(
                        f"history: line {number}, {key}: expected a number, got {cell[:40]!r}",
                        source=str(path),
                    ) from None
        rows.append(row)
    return rows


def _json_object(text: str | bytes, source: str) -> Any:
    """Parse JSON text, refusing repeated keys, deep nesting and huge integers in one line."""

    def no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            keys = [k for k, _ in pairs]
            raise EvoInputError(
                f"not valid JSON: the key {next(k for k in keys if keys.count(k) > 1)!r} is "
                "given twice in one object",
                source=source,
            )
        return out

    try:
        return json.loads(text, object_pairs_hook=no_repeats)
    except RecursionError:
        raise EvoInputError("not valid JSON: nested too deeply", source=source) from None
    except json.JSONDecodeError as exc:
        raise EvoInputError(f"not valid JSON: {exc.msg} at line {exc.lineno}", source=source) from None
    except (ValueError, UnicodeDecodeError) as exc:  # a 5000-digit integer
        raise EvoInputError(f"not valid JSON: {' '.join(str(exc).split())[:100]}", source=source) from None


def _document_of_npz(path: Path) -> dict[str, Any]:
    source = str(path)
    arrays = read_npz(path)
    head_array = arrays.pop("head", None)
    if head_array is None or head_array.dtype != np.uint8 or head_array.ndim != 1:
        raise EvoInputError("head: expected the checkpoint's JSON head", source=source)
    head = _json_object(head_array.tobytes(), source)
    if (
        not isinstance(head, dict)
        or head.get("format") != CHECKPOINT_FORMAT
        or head.get("version") != NPZ_VERSION
    ):
        raise EvoInputError(f'expected an "{CHECKPOINT_FORMAT}" of version {NPZ_VERSION}', source=source)
    groups = head.pop("groups", None)
    allowed = ["elites"] if "algorithm" in head else ["population", "hall_of_fame"]
    if groups != allowed:
        raise EvoInputError(f"groups: expected {allowed}, got {groups!r}", source=source)
    objectives = head.get("objectives")
    mark = head.pop("history", None)
    doc = {**head, "logbook": _history_rows(path.parent / "history.csv", mark, source)}
    try:
        count = len(objectives) if isinstance(objectives, list) else -1
        for group in groups:
            doc[group] = individual_documents(arrays, group, count)
        if "algorithm" in head:
            n = len(doc["elites"])
            cells = arrays["elites.cell"]
            measures = arrays["elites.measures"]
            objective = arrays["elites.objective"]
            if (
                cells.shape != (n,)
                or cells.dtype.kind != "i"
                or objective.shape != (n,)
                or measures.shape[:1] != (n,)
            ):
                raise ValueError("elites.cell, elites.measures, elites.objective: expected one row per elite")
            for k, elite in enumerate(doc["elites"]):
                elite.update(cell=int(cells[k]), measures=measures[k].tolist(), objective=float(objective[k]))
            centroids = arrays.get("centroids")
            doc["centroids"] = None if centroids is None else centroids.tolist()
    except (KeyError, ValueError, TypeError, RecursionError) as exc:
        raise EvoInputError(
            f"malformed arrays: {type(exc).__name__}: {' '.join(str(exc).split())[:100]}", source=source
        ) from None
    return doc


def read_checkpoint_document(
    folder: str | os.PathLike,
    *,
    resuming: bool = False,
    objectives: tuple[str, ...] | None = None,
    weights: tuple[float, ...] | None = None,
) -> dict[str, Any] | None:
    """The folder's checkpoint as one validated document (the JSON checkpoint's keys), or None if it has
    none: ``checkpoint.npz`` with its logbook from ``history.csv``, else a version-1 ``checkpoint.json``.

    Args:
        folder: the run folder.
        resuming: refuse a version-1 checkpoint (:class:`LegacyCheckpoint`).
        objectives, weights: the plugin's, which a resumed checkpoint's must equal.

    Raises:
        EvoInputError: unreadable, edited (checksum), or invalid: one line naming the file and field.
    """
    folder = Path(folder)
    npz, legacy = folder / CHECKPOINT_FILE, folder / LEGACY_CHECKPOINT_FILE
    if npz.is_file():
        doc, source = _document_of_npz(npz), str(npz)
    elif legacy.is_file():
        source = str(legacy)
        if resuming:
            raise LegacyCheckpoint(
                "checkpoint format version 1 (JSON), written by evo before 0.2; this evo resumes version "
                f"{NPZ_VERSION} ({CHECKPOINT_FILE}) only: inspect it, or start over with --force",
                source=source,
            )
        try:
            doc = _json_object(read_input_bytes(legacy, source=source, limit=MAX_JSON_BYTES), source)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise EvoInputError(f"cannot read the checkpoint: {exc}", source=source) from None
        if not isinstance(doc, dict) or doc.get("format") != CHECKPOINT_FORMAT:
            raise EvoInputError(f'expected a "{CHECKPOINT_FORMAT}" document', source=source)
        if doc.get("version") != 1:
            raise EvoInputError(
                f"checkpoint version {doc.get('version')!r}; this evo reads versions 1 and 2", source=source
            )
    else:
        return None
    validate_checkpoint(doc, source=source, objectives=objectives, weights=weights)
    return doc


def remove_stale_temporaries(folder: str | os.PathLike, names: Sequence[str] = ()) -> list[Path]:
    """Remove the temporary files a killed run left behind (``.<file>.<random>.tmp`` beside the folder's
    files and in ``names``, its sub-folders); returns what was removed."""
    folder = Path(folder)
    removed = []
    for where in (folder, *(folder / name for name in names)):
        if where.is_symlink() or not where.is_dir():
            continue
        for path in where.glob(".*.tmp"):
            if path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)
                removed.append(path)
    (folder / ".in-checkpoint-window").unlink(missing_ok=True)
    if removed:
        fsync_folder(folder)
    return removed
