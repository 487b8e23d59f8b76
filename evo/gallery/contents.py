"""What the gallery reads from a run folder (see docs/runs.md for the folder, docs/gallery.md for this).

``config.toml``, ``history.csv``, ``checkpoint.json``, ``elites/*.json`` and the first line of
``run.log`` (the date) are read; only ``elites/`` is required. The best creature of every generation
comes from ``generations/genNNNN.json`` when the run folder holds such files (one model file per
generation, written like an elite); otherwise it is reconstructed from what the folder keeps, see
:func:`generation_bests`.
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
from evo.io.models import creature_from_dict, dumps_model, load_model
from evo.io.runs import RunFolder, decode_numbers, model_digest
from evo.model import Creature

__all__ = ["Entry", "GenerationBest", "RunContents", "generation_bests", "read_run"]

GENERATIONS = "generations"  # optional: generations/gen0012.json, the best creature of generation 12
_LOG_DATE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
_GENERATION_FILE = re.compile(r"^gen(\d+)\.json$")


@dataclass(frozen=True)
class Entry:
    """One creature the gallery shows: its model, the text offered for download and its provenance.

    Attributes:
        fitness: objective values from its meta or the checkpoint (None where unknown or non-finite).
        generation: the generation it was born in (None when unknown).
    """

    creature: Creature
    text: str
    file_name: str
    fitness: tuple[float | None, ...]
    generation: int | None
    digest: str


@dataclass(frozen=True)
class GenerationBest:
    """The best creature of one generation: ``entry`` (None when none is known) and whether it is
    exactly the generation's best (``exact``) or the best creature kept that was born by then."""

    generation: int
    entry: Entry | None
    exact: bool


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


def _values(raw: Any) -> tuple[float | None, ...]:
    try:
        values = decode_numbers(raw or ())
    except (TypeError, ValueError):
        return ()
    return tuple(v if math.isfinite(v) else None for v in values)


def _entry_from_file(path: Path) -> Entry:
    creature = load_model(path)
    text = path.read_text(encoding="utf-8")
    born = creature.meta.get("generation")
    return Entry(
        creature=creature,
        text=text,
        file_name=path.name,
        fitness=_values(creature.meta.get("fitness")),
        generation=born if isinstance(born, int) else None,
        digest=model_digest(creature),
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
    generations_dir = folder.path / GENERATIONS
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
    )


def _population_entries(run: RunContents) -> list[Entry]:
    """The last population of the checkpoint, as entries with the run's world (for reconstruction)."""
    out = []
    world = run.section("world")
    for doc in (run.checkpoint or {}).get("population", []):
        try:
            creature = creature_from_dict(doc["model"], source="checkpoint.json")
            fitness = _values(doc.get("fitness"))
            born = int(doc["born"])
        except (KeyError, TypeError, ValueError, EvoInputError):
            continue
        meta = {**creature.meta, "id": doc.get("id"), "generation": born, "fitness": doc.get("fitness")}
        creature = creature.replace(world=creature.world or world, meta=meta)
        name = f"population_{doc.get('id', 'unknown')}.json"
        out.append(Entry(creature, dumps_model(creature), name, fitness, born, model_digest(creature)))
    return out


def generation_bests(run: RunContents) -> list[GenerationBest]:
    """The best creature of each generation of ``history.csv``, judged by the first objective.

    With ``generations/genNNNN.json`` files these are exact. Otherwise the candidates are the elites and
    the checkpoint's last population: for generation g, a candidate born by g whose first objective
    equals the history's best of g is that generation's best (``exact``); failing that, the best
    candidate born by g stands in for it (``exact`` False: the real best was not kept by the run).
    """
    rows = run.history
    if not rows or not run.objectives:
        return []
    first, sign = run.objectives[0], (1.0 if not run.weights or run.weights[0] > 0 else -1.0)
    candidates = {e.digest: e for e in [*_population_entries(run), *run.elites]}  # elites win a tie
    ranked = sorted(
        (
            e
            for e in candidates.values()
            if e.fitness and e.fitness[0] is not None and e.generation is not None
        ),
        key=lambda e: -sign * e.fitness[0],
    )
    out = []
    for row in rows:
        g = int(row.get("generation", len(out)))
        if g in run.saved_bests:
            out.append(GenerationBest(g, run.saved_bests[g], True))
            continue
        target = row.get(f"{first}_best", math.nan)
        born = [e for e in ranked if e.generation <= g]
        exact = [e for e in born if math.isclose(e.fitness[0], target, rel_tol=1e-12, abs_tol=1e-12)]
        if exact:
            out.append(GenerationBest(g, exact[0], True))
        else:
            out.append(GenerationBest(g, born[0] if born else None, False))
    return out
