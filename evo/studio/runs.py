"""A run folder in the studio: its hall of fame (GA) or its archive's cells (MAP-Elites) with their
scores, read with :func:`evo.open_run`; any of them opens as a design."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evo.analysis.summary import finite
from evo.io.run_folder.contents import Entry, archive_entries, read_run
from evo.model import Creature
from evo.run.callbacks import Member
from evo.run.evolve import RunResult, open_run

__all__ = ["RunView"]


def _row(index: int, member: Member) -> dict[str, Any]:
    return {
        "index": index,
        "name": member.creature.name,
        "id": member.id,
        "fitness": [finite(v) for v in member.fitness],
        "objectives": list(member.objectives),
        "generation": member.generation,
    }


class RunView:
    """A run folder as the page lists it (read again on each call: a run may still be growing). A row's
    creature is its model file in the folder (name, meta and the run's world with it) where there is one,
    else the checkpoint's.

    Args:
        folder: the run folder.
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _rows(self) -> tuple[RunResult, list[tuple[Member, Entry | None]]]:
        result = open_run(self.folder)
        contents = read_run(self.folder, require_elites=False)
        if result.archive is not None:
            files = archive_entries(contents)
            return result, [(cell.member, files.get(cell.member.id)) for cell in result.archive.cells]
        members = list(result.hall_of_fame)
        entries = contents.elites if len(contents.elites) == len(members) else [None] * len(members)
        return result, list(zip(members, entries, strict=True))

    def listing(self) -> dict[str, Any]:
        """``{"kind", "folder", "generation", "elites", "cells"}``: ``elites`` rows ``{"index", "name",
        "fitness", "generation", "file", ...}`` (best first for a GA run; ``file`` the name of its model
        file in the run folder, or None); ``cells`` a MAP-Elites run's cells with their measures (empty
        for a GA run).

        Raises:
            EvoInputError: not a run folder, or one that cannot be read.
        """
        result, rows = self._rows()
        elites = []
        for i, (member, entry) in enumerate(rows):
            row = _row(i, member)
            row["file"] = str(entry.file_name) if entry is not None else None
            if entry is not None:
                row["name"] = entry.creature.name
            elites.append(row)
        cells = []
        if result.archive is not None:
            cells = [
                {**elites[i], "cell": cell.index, "grid": cell.grid, "measures": dict(cell.measures)}
                for i, cell in enumerate(result.archive.cells)
            ]
        return {
            "kind": "map-elites" if result.archive is not None else "ga",
            "folder": str(self.folder),
            "generation": result.generation,
            "elites": elites,
            "cells": cells,
        }

    def elite(self, index: int) -> Creature:
        """The creature of row ``index`` of :meth:`listing` (its model file's, where there is one).

        Raises:
            IndexError: no such row.
        """
        _, rows = self._rows()
        if not 0 <= index < len(rows):
            raise IndexError(index)
        member, entry = rows[index]
        return entry.creature if entry is not None else member.creature
