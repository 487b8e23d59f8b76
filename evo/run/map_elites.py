"""A MAP-Elites run in the run layer: its state machine made from a config (new or from a checkpoint), and
its archive as a typed record of a :class:`~evo.run.evolve.RunResult` (docs/qd.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evo.fitness import Plugin
from evo.ga.individual import Individual
from evo.model import Creature
from evo.qd import ArchiveSpec, QDState, archive_statistics, require_ribs
from evo.run.callbacks import Member, member_of
from evo.run.config import Config, qd_settings

if TYPE_CHECKING:
    from evo.qd.loop import QualityDiversity

__all__ = ["Archive", "ArchiveCell", "archive_of", "hall_of_fame_of", "new_search", "search_from_state"]


def new_search(config: Config, plugin: Plugin, seed_models: Sequence[Creature] = ()) -> QualityDiversity:
    """A MAP-Elites run of ``config`` before its first iteration (a CVT's centroids are computed here).

    Raises:
        EvoInputError: pyribs is not installed (one line saying how to install it).
    """
    require_ribs()
    from evo.qd.loop import QualityDiversity

    settings = qd_settings(config, tuple(plugin.objectives), tuple(plugin.weights))
    return QualityDiversity(settings, seed_models=seed_models)


def search_from_state(
    state: QDState, config: Config, weights: Sequence[float], seed_models: Sequence[Creature] = ()
) -> QualityDiversity:
    """The MAP-Elites run of ``config`` continued from a saved state.

    Raises:
        EvoInputError: pyribs is not installed.
        ValueError: the state does not belong to this config.
    """
    require_ribs()
    from evo.qd.loop import QualityDiversity

    settings = qd_settings(config, tuple(state.objectives), tuple(float(w) for w in weights))
    return QualityDiversity.from_state(state, settings, seed_models=seed_models)


@dataclass(frozen=True)
class ArchiveCell:
    """One occupied cell of an archive.

    Attributes:
        index: the cell (pyribs' integer index); ``grid`` the bin of each measure (grid archives).
        measures: the measure values of its creature, by name.
        objective: what the archive compares (the first objective, negated when it is minimised).
        member: the creature with its fitness and lineage.
    """

    index: int
    grid: tuple[int, ...] | None
    measures: Mapping[str, float]
    objective: float
    member: Member


@dataclass(frozen=True)
class Archive:
    """The archive of a MAP-Elites run (``result.archive``).

    Attributes:
        kind: ``"grid"`` or ``"cvt"``; ``measures`` the measure names; ``ranges`` their (low, high).
        bins: a grid's bins per measure; ``centroids`` a CVT's (cells, measures) centroids, in the
            measures' units.
        total_cells: cells in the archive; ``cells`` the occupied ones, in index order.
        stats: coverage, qd_score, norm_qd_score, obj_max, obj_mean, num_elites (docs/qd.md).
    """

    kind: str
    measures: tuple[str, ...]
    ranges: tuple[tuple[float, float], ...]
    bins: tuple[int, ...]
    centroids: np.ndarray | None
    total_cells: int
    cells: tuple[ArchiveCell, ...]
    stats: Mapping[str, float]

    @property
    def coverage(self) -> float:
        """Occupied cells / all cells."""
        return float(self.stats["coverage"])

    @property
    def qd_score(self) -> float:
        """Sum over occupied cells of (objective - score_offset)."""
        return float(self.stats["qd_score"])

    def best(self, count: int = 10) -> list[ArchiveCell]:
        """The ``count`` cells with the highest objective, best first.

        Args:
            count: how many cells at most.

        Returns:
            The :class:`ArchiveCell` s, best first (ties: the lower index first); fewer when fewer cells
            are occupied.
        """
        return sorted(self.cells, key=lambda c: (-c.objective, c.index))[:count]

    def grid_objectives(self) -> np.ndarray:
        """A grid's objectives as an array of shape ``bins`` (NaN where a cell is empty).

        Returns:
            A float array of shape ``bins`` (one axis per measure) holding each occupied cell's
            ``objective``: the first objective, negated when it is minimised.

        Raises:
            ValueError: the archive is a CVT.
        """
        if self.kind != "grid":
            raise ValueError("a CVT archive has no grid; use its cells and centroids")
        out = np.full(self.bins, np.nan)
        for cell in self.cells:
            out[cell.grid] = cell.objective
        return out

    def __repr__(self) -> str:
        where = f"{len(self.cells)} of {self.total_cells} cells over {', '.join(self.measures)}"
        return f"Archive({self.kind}: {where}; coverage {self.coverage:.3g}, QD score {self.qd_score:.6g})"


def archive_of(state: QDState, spec: ArchiveSpec) -> Archive:
    """The :class:`Archive` of a MAP-Elites state."""
    cells = tuple(
        ArchiveCell(
            index=e.index,
            grid=spec.grid_index(e.index),
            measures=dict(zip(spec.measures, e.measures, strict=True)),
            objective=e.objective,
            member=member_of(e.individual, state.objectives),
        )
        for e in sorted(state.elites, key=lambda e: e.index)
    )
    return Archive(
        kind=spec.kind,
        measures=tuple(spec.measures),
        ranges=tuple(spec.ranges),
        bins=tuple(spec.bins),
        centroids=None if state.centroids is None else spec.unscaled(state.centroids),
        total_cells=spec.total_cells,
        cells=cells,
        stats=archive_statistics(state.elites, spec),
    )


def hall_of_fame_of(state: QDState, size: int) -> list[Individual]:
    """The ``size`` best elites' individuals of a state, best first (as the running loop ranks them)."""
    ranked = sorted(state.elites, key=lambda e: (-e.objective, e.index))
    return [e.individual for e in ranked[:size]]
