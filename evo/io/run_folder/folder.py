"""The run folder of ``evo run``: what it holds and how each file is written (see docs/runs.md).

config.toml, checkpoint.npz (the source of truth), history.csv, elites/, generations/, failed/, run.log,
a MAP-Elites run's archive; every file written atomically, non-finite numbers as ``"inf"``, ``"-inf"``,
``"nan"``. The layout and each file's contents: docs/runs.md, "The run folder".
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import math
import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError, digits_problem
from evo.io.atomic import atomic_write_text, link_or_write, make_durable
from evo.io.bounded import read_input_text
from evo.io.checkpoint.disk import (
    CHECKPOINT_FILE,
    LEGACY_CHECKPOINT_FILE,
    read_checkpoint_document,
    remove_stale_temporaries,
    write_checkpoint_file,
)
from evo.io.models import creature_to_dict, dumps_model
from evo.io.numbers import encode_number
from evo.io.run_lock import LOCK
from evo.model import Creature

__all__ = [
    "RunFolder",
    "archive_file_name",
    "elite_file_name",
]

# the names evo writes into a run folder; --force removes these and nothing else
CONFIG = "config.toml"
CHECKPOINT = CHECKPOINT_FILE  # checkpoint.npz
LEGACY_CHECKPOINT = LEGACY_CHECKPOINT_FILE  # checkpoint.json, written by evo before 0.2 (read, not resumed)
HISTORY = "history.csv"
LOG = "run.log"
ELITES = "elites"
FAILED = "failed"
GENERATIONS = "generations"  # generations/gen0012.json: the best creature of generation 12
ARCHIVE = "archive.json"  # a MAP-Elites run's archive: every occupied cell
ARCHIVE_CELLS = "archive"  # ... and each cell's creature: archive/cell0042_g12-3.json
_OWN_NAMES = (
    CONFIG,
    CHECKPOINT,
    LEGACY_CHECKPOINT,
    HISTORY,
    LOG,
    ELITES,
    FAILED,
    GENERATIONS,
    ARCHIVE,
    ARCHIVE_CELLS,
)
_OWN_FOLDERS = (ELITES, FAILED, GENERATIONS, ARCHIVE_CELLS)


def _csv_cell(value: Any) -> str:
    """Full-precision, locale-free text of one history cell (``repr`` of floats, so it reads back exactly)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(encode_number(value))
    return str(value)


def history_csv(columns: Sequence[str], records: Iterable[Mapping[str, Any]]) -> str:
    """The text of ``history.csv``: a header, then one row per record (missing cells are empty)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow([_csv_cell(record[c]) if c in record else "" for c in columns])
    return out.getvalue()


def model_digest(model: Creature | Mapping[str, Any]) -> str:
    """Six hex digits identifying a creature's body and wave (not its name, world or meta); ``model`` is a
    creature or its model document."""
    doc = creature_to_dict(model) if isinstance(model, Creature) else model
    body = {k: doc[k] for k in ("masses", "links", "wave")}
    return hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()[:6]


def elite_file_name(rank: int, count: int, generation: int, digest: str) -> str:
    """``01_gen0012_ab12cd.json``: the rank (zero-padded so names sort in rank order), the generation the
    creature was born in, and its :func:`model_digest`."""
    width = max(2, len(str(count)))
    return f"{rank:0{width}d}_gen{generation:04d}_{digest}.json"


def archive_file_name(index: int, cells: int, creature_id: str) -> str:
    """``cell0042_g12-3.json``: an archive cell (zero-padded to the archive's size, at least 4 digits) and
    the id of the creature in it."""
    width = max(4, len(str(max(cells - 1, 0))))
    return f"cell{index:0{width}d}_{creature_id}.json"


def _best_name(generation: int) -> str:
    """The name of a generation's best in ``generations/``."""
    return f"gen{generation:04d}.json"


class RunFolder:
    """The files of one run, under ``path``. Nothing is created until :meth:`create` is called."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._elite_bytes: dict[str, bytes] = {}  # what write_elites last left in elites/, by file name

    # -- paths -------------------------------------------------------------------------------
    @property
    def config(self) -> Path:
        return self.path / CONFIG

    @property
    def checkpoint(self) -> Path:
        return self.path / CHECKPOINT

    @property
    def legacy_checkpoint(self) -> Path:
        return self.path / LEGACY_CHECKPOINT

    @property
    def history(self) -> Path:
        return self.path / HISTORY

    @property
    def log(self) -> Path:
        return self.path / LOG

    @property
    def elites(self) -> Path:
        return self.path / ELITES

    @property
    def failed(self) -> Path:
        return self.path / FAILED

    @property
    def generations(self) -> Path:
        return self.path / GENERATIONS

    @property
    def archive(self) -> Path:
        return self.path / ARCHIVE

    @property
    def archive_cells(self) -> Path:
        return self.path / ARCHIVE_CELLS

    def read_config_text(self) -> str:
        """The text of ``config.toml``; raises :class:`EvoInputError` if it cannot be read."""
        return read_input_text(self.config)

    # -- life cycle --------------------------------------------------------------------------
    def holds_anything(self) -> bool:
        """True when the path is a file, or a folder holding anything but a run's lock file."""
        if not self.path.exists():
            return False
        return not self.path.is_dir() or any(p.name != LOCK for p in self.path.iterdir())

    def holds_only_a_lock(self) -> bool:
        """True for a folder holding nothing but a lock file: a run killed as it started."""
        return self.path.is_dir() and (self.path / LOCK).is_file() and not self.holds_anything()

    def holds_a_run(self) -> bool:
        return self.checkpoint.exists() or self.legacy_checkpoint.exists() or self.config.exists()

    def check_not_foreign(self) -> None:
        """Raise :class:`EvoInputError` if the path is a file, or a folder of files that are not an evo
        run (nothing is changed): checked before the folder is locked, so that nothing is put there."""
        if self.path.exists() and not self.path.is_dir():
            raise EvoInputError("exists and is not a folder", source=str(self.path))
        if self.holds_anything() and not self.holds_a_run():
            message = "the folder holds files that are not an evo run; choose a new or an empty folder"
            raise EvoInputError(message, source=str(self.path))

    def check_own_files(self) -> None:
        """Raise :class:`EvoInputError` if a name evo writes in the folder (``run.lock``, ``elites/``,
        ``run.log``, ...) is a symbolic link (evo never writes through one), or is there but of the wrong
        kind (a FIFO as ``run.log`` or ``checkpoint.json`` would hang evo); nothing is changed."""
        for name in (LOCK, *_OWN_NAMES):
            path = self.path / name
            if path.is_symlink():
                raise EvoInputError(
                    f"{name} is a symbolic link, and evo writes nothing through a link; remove it "
                    "(or choose another folder)",
                    source=str(self.path),
                )
            if not path.exists():
                continue
            folder = name in _OWN_FOLDERS
            if (folder and not path.is_dir()) or (not folder and not path.is_file()):
                kind = "a folder" if folder else "a regular file"
                raise EvoInputError(
                    f"{name} is not {kind}; remove it (or choose another folder)", source=str(self.path)
                )

    def check_new(self, *, force: bool) -> None:
        """Raise :class:`EvoInputError` unless a new run may be written here (nothing is changed)."""
        if self.path.exists() and not self.path.is_dir():
            raise EvoInputError("exists and is not a folder", source=str(self.path))
        if self.holds_anything() and not force:
            if self.holds_a_run():
                message = (
                    "the folder already holds a run; use --resume to continue it or --force to start over"
                )
            else:
                message = "the folder holds files that are not an evo run; choose a new or an empty folder"
            raise EvoInputError(message, source=str(self.path))

    def check_resumable(self) -> None:
        """Raise :class:`EvoInputError` unless there is a run to resume: a checkpoint, or the config.toml of a
        run stopped before its first checkpoint (which then starts over)."""
        if not (self.checkpoint.is_file() or self.legacy_checkpoint.is_file() or self.config.is_file()):
            how = "use --force to start over" if self.holds_anything() else "run without --resume to start"
            raise EvoInputError(f"no checkpoint to resume from; {how}", source=str(self.path))

    def remove_stale_temporaries(self) -> None:
        """Remove the temporary files of writes that a killed run left unfinished."""
        remove_stale_temporaries(self.path, (ELITES, GENERATIONS, ARCHIVE_CELLS, FAILED))

    def create(self, config_text: str, *, force: bool) -> None:
        """Make the folder (or, with ``force``, empty evo's own files out of it) and write config.toml."""
        self.check_new(force=force)
        if force:
            self.remove_stale_temporaries()
            for name in _OWN_NAMES:
                target = self.path / name
                if target.is_dir() and not target.is_symlink():
                    shutil.rmtree(target)
                elif target.exists() or target.is_symlink():
                    target.unlink()
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_config(config_text)  # first: a full disk leaves nothing behind
        self.elites.mkdir(exist_ok=True)

    def write_config(self, config_text: str) -> None:
        atomic_write_text(self.config, config_text, inside=self.path)

    # -- checkpoint ----------------------------------------------------------------------------
    def write_checkpoint(self, arrays: Mapping[str, Any]) -> None:
        """Write ``checkpoint.npz`` (:func:`evo.io.checkpoint.disk.checkpoint_arrays`) durably."""
        write_checkpoint_file(self.path, arrays)

    def read_checkpoint(self, **checks: Any) -> dict[str, Any]:
        """The checkpoint as one validated document (:func:`evo.io.checkpoint.disk.read_checkpoint_document`;
        ``checks``: ``resuming``, ``objectives``, ``weights``).

        Raises:
            EvoInputError: there is none, or it cannot be read or is not valid.
        """
        doc = read_checkpoint_document(self.path, **checks)
        if doc is None:
            raise EvoInputError("no such file", source=str(self.checkpoint))
        return doc

    # -- derived files -------------------------------------------------------------------------
    def write_history(self, columns: Sequence[str], records: Iterable[Mapping[str, Any]]) -> None:
        atomic_write_text(self.history, history_csv(columns, records), inside=self.path)

    def write_elites(self, elites: Sequence[tuple[str, str]]) -> None:
        """Make ``elites/`` hold exactly these (file name, model text) pairs.

        A file whose text is already there under another name (an elite that moved in rank) is renamed
        rather than written again; files not in ``elites`` are removed, and a link or other non-regular
        file under an elite's name is replaced. A file this folder object wrote last time that is still a
        regular file of the same size is taken as unchanged without being read again (an elite's name
        carries its model's digest); any other file is read.
        """
        self.elites.mkdir(parents=True, exist_ok=True)
        current: dict[str, str] = {}
        with os.scandir(self.elites) as found:
            entries = list(found)
        for entry in entries:
            if entry.name.startswith(".") and entry.name.endswith(".moving"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                continue
            if not entry.name.endswith(".json"):
                continue
            known = self._elite_bytes.get(entry.name)
            with contextlib.suppress(OSError, EvoInputError):
                if not entry.is_file(follow_symlinks=False):  # a link or anything else is replaced
                    continue
                if known is not None and entry.stat(follow_symlinks=False).st_size == len(known):
                    current[entry.name] = known.decode("utf-8")
                else:
                    current[entry.name] = read_input_text(entry.path)
        wanted = dict(elites)
        movable = {text: name for name, text in current.items() if wanted.get(name) != text}
        moves, writes = [], []
        for name, text in elites:
            if current.get(name) == text:
                continue
            source = movable.pop(text, None)
            if source is not None:
                moves.append((source, name))
            else:
                writes.append((name, text))
        self._elite_bytes = {}  # until this call ends well, every file is read again next time
        staged = []
        for source, name in moves:  # two steps, so that elites swapping ranks do not overwrite each other
            temporary = self.elites / f".{source}.moving"
            os.replace(self.elites / source, temporary)
            staged.append((temporary, name))
        for temporary, name in staged:
            os.replace(temporary, self.elites / name)
        for name, text in writes:
            if (self.elites / name).is_symlink():  # replaced, never written through
                os.unlink(self.elites / name)
            atomic_write_text(self.elites / name, text, inside=self.path)
        for entry in entries:
            if entry.name.endswith(".json") and entry.name not in wanted:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
        self._elite_bytes = {name: text.encode("utf-8") for name, text in wanted.items()}

    def write_generation_best(
        self, generation: int, model_text: str, *, durable: bool = True, like: int | None = None
    ) -> None:
        """Keep the best creature of a generation as ``generations/genNNNN.json`` (for the gallery);
        ``durable=False``: atomically but without ``fsync`` s, until :meth:`make_bests_durable`;
        ``like``: a generation whose file was written with these very bytes (the same best), to which
        this one is a hard link if that file still holds them and the file system allows
        (:func:`evo.io.atomic.link_or_write`)."""
        path = self.generations / _best_name(generation)
        if like is None:
            atomic_write_text(path, model_text, inside=self.path, durable=durable)
        else:
            source = self.generations / _best_name(like)
            link_or_write(source, path, model_text.encode("utf-8"), inside=self.path, durable=durable)

    def make_bests_durable(self, generations: list[int]) -> None:
        """Make the ``genNNNN.json`` of ``generations``, written with ``durable=False``, durable (an
        ``fsync`` of each and one of ``generations/``).

        Raises:
            OSError: one cannot be synced.
        """
        make_durable(self.generations, [_best_name(generation) for generation in generations])

    def write_archive(self, doc: Mapping[str, Any]) -> None:
        """Write ``archive.json`` atomically (a JSON-able document, floats at full precision)."""
        text = json.dumps(doc, allow_nan=False, separators=(",", ":")) + "\n"
        atomic_write_text(self.archive, text, inside=self.path)

    def read_archive(self) -> dict[str, Any] | None:
        """The parsed ``archive.json``, or None when there is none.

        Raises:
            EvoInputError: it cannot be read or is not an archive document.
        """
        source = str(self.archive)
        if not self.archive.is_file():
            return None
        try:
            doc = json.loads(read_input_text(self.archive))
        except json.JSONDecodeError as exc:
            raise EvoInputError(f"cannot read the archive: {exc}", source=source) from None
        except ValueError as exc:  # an integer literal of more than 4300 digits
            raise EvoInputError(
                f"cannot read the archive: {digits_problem(exc) or exc}", source=source
            ) from None
        is_archive = isinstance(doc, dict) and doc.get("format") == "evo-archive"
        if not is_archive or not isinstance(doc.get("elites"), list):
            raise EvoInputError('expected an "evo-archive" document', source=source)
        return doc

    def write_archive_cells(self, names: Sequence[str], text_of: Callable[[str], str]) -> None:
        """Make ``archive/`` hold exactly the model files ``names``; ``text_of(name)`` gives the text of a
        file that is not there yet. A name stands for one creature in one cell, so a file already there
        (written atomically) is never written again."""
        self.archive_cells.mkdir(parents=True, exist_ok=True)
        wanted = set(names)
        present = {path.name for path in self.archive_cells.glob("*.json")}
        for name in names:
            if name not in present:
                atomic_write_text(self.archive_cells / name, text_of(name), inside=self.path)
        for name in present - wanted:
            (self.archive_cells / name).unlink(missing_ok=True)

    def elite_files(self) -> list[Path]:
        """The elite model files in rank order."""
        return sorted(self.elites.glob("*.json"))

    def save_failed(self, creature: Creature, generation: int, index: int) -> Path:
        """Save a creature whose evaluation failed as ``failed/gen0003_017.json``; returns the path."""
        target = self.failed / f"gen{generation:04d}_{index:03d}.json"
        atomic_write_text(target, dumps_model(creature), inside=self.path)
        return target
