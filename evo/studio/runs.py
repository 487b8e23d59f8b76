"""A run folder in the studio: its hall of fame (GA) or its archive's cells (MAP-Elites) with their
scores, read with :func:`evo.open_run`; any of them opens as a design."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from evo.model import Creature
from evo.run.callbacks import Member
from evo.run.evolve import RunResult, open_run

__all__ = ["RunView"]


def _number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _row(index: int, member: Member) -> dict[str, Any]:
    return {
        "index": index,
        "name": member.creature.name,
        "id": member.id,
        "fitness": [_number(v) for v in member.fitness],
        "objectives": list(member.objectives),
        "generation": member.generation,
    }


class RunView:
    """A run folder as the page lists it (read again on each call: a run may still be growing).

    Args:
        folder: the run folder.
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _members(self, result: RunResult) -> list[Member]:
        if result.archive is not None:
            return [cell.member for cell in result.archive.cells]
        return list(result.hall_of_fame)

    def listing(self) -> dict[str, Any]:
        """``{"kind", "folder", "generation", "elites", "cells"}``: ``elites`` rows ``{"index", "name",
        "fitness", "generation", ...}`` (best first for a GA run); ``cells`` a MAP-Elites run's cells with
        their measures (empty for a GA run).

        Raises:
            EvoInputError: not a run folder, or one that cannot be read.
        """
        result = open_run(self.folder)
        members = self._members(result)
        cells = []
        if result.archive is not None:
            cells = [
                {
                    **_row(i, cell.member),
                    "cell": cell.index,
                    "grid": cell.grid,
                    "measures": dict(cell.measures),
                }
                for i, cell in enumerate(result.archive.cells)
            ]
        return {
            "kind": "map-elites" if result.archive is not None else "ga",
            "folder": str(self.folder),
            "generation": result.generation,
            "elites": [_row(i, m) for i, m in enumerate(members)],
            "cells": cells,
        }

    def elite(self, index: int) -> Creature:
        """The creature of row ``index`` of :meth:`listing`.

        Raises:
            IndexError: no such row.
        """
        members = self._members(open_run(self.folder))
        if not 0 <= index < len(members):
            raise IndexError(index)
        return members[index].creature
