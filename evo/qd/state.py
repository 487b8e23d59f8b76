"""The plain data of a MAP-Elites run: the archive's shape, the loop's settings, its elites and its whole
state between iterations (what :mod:`evo.io.checkpoint.qd` turns into JSON). No pyribs here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evo.ga.individual import Individual
from evo.ga.loop import history_columns
from evo.ga.settings import GASection, GenomeSection

__all__ = [
    "QD_COLUMNS",
    "ArchiveSpec",
    "Elite",
    "QDSettings",
    "QDState",
    "archive_statistics",
    "cvt_seed",
    "qd_history_columns",
]

# the archive's figures, appended to history.csv's columns (pyribs' ArchiveStats names)
QD_COLUMNS = ("coverage", "qd_score", "norm_qd_score", "obj_max", "obj_mean", "num_elites")
_CVT_STREAM = 0x43565421  # mixed into the run seed for the CVT's own seed, so the run's draws stay apart


def qd_history_columns(objectives: Sequence[str]) -> list[str]:
    """The columns of a MAP-Elites run's history: the GA's (over the archive's elites), then the
    archive's figures."""
    return [*history_columns(objectives), *QD_COLUMNS]


def cvt_seed(run_seed: int) -> int:
    """The seed (a uint32) of a CVT's samples and k-means, derived from the run's seed."""
    return int(np.random.SeedSequence([run_seed, _CVT_STREAM]).generate_state(1, np.uint32)[0])


@dataclass(frozen=True)
class ArchiveSpec:
    """The shape of an archive.

    Attributes:
        kind: ``"grid"`` or ``"cvt"``.
        measures: the measure names, in order.
        ranges: (low, high) of each measure; a value outside counts in the nearest cell.
        bins: grid: bins of each measure.
        cells: cvt: the number of cells; ``cvt_samples``: the points k-means clusters into them.
        score_offset: subtracted from each elite's objective in the QD score.
    """

    kind: str
    measures: tuple[str, ...]
    ranges: tuple[tuple[float, float], ...]
    bins: tuple[int, ...] = ()
    cells: int = 0
    cvt_samples: int = 0
    score_offset: float = 0.0

    @property
    def total_cells(self) -> int:
        return self.cells if self.kind == "cvt" else math.prod(self.bins)

    def scaled(self, measures: Any) -> np.ndarray:
        """(n, measures) values -> (n, measures) points of the unit cube the archive works in."""
        low, high = np.array(self.ranges, dtype=np.float64).T
        return (np.asarray(measures, dtype=np.float64).reshape(-1, len(self.measures)) - low) / (high - low)

    def unscaled(self, points: Any) -> np.ndarray:
        """The inverse of :meth:`scaled`."""
        low, high = np.array(self.ranges, dtype=np.float64).T
        return low + np.asarray(points, dtype=np.float64) * (high - low)

    def grid_index(self, index: int) -> tuple[int, ...] | None:
        """The bin of each measure of grid cell ``index`` (None for a CVT)."""
        if self.kind != "grid":
            return None
        return tuple(int(i) for i in np.unravel_index(int(index), self.bins))


@dataclass(frozen=True)
class QDSettings:
    """What the MAP-Elites loop needs from a config.

    Attributes:
        seed: the run's seed; every draw comes from a generator seeded with it.
        initial: creatures in the first batch (``[run] population``).
        objectives, weights: the plugin's; the archive keeps the first objective (negated when its
            weight is negative, so that the archive always maximises).
        archive: the archive's shape.
        batch_size: children per emitter per iteration; ``emitters`` the number of emitters.
        genome, ga: the genome limits and the variation operators' rates.
    """

    seed: int
    initial: int
    objectives: tuple[str, ...]
    weights: tuple[float, ...]
    archive: ArchiveSpec
    batch_size: int = 32
    emitters: int = 2
    genome: GenomeSection = field(default_factory=GenomeSection)
    ga: GASection = field(default_factory=GASection)

    @property
    def sign(self) -> float:
        """+1 when the first objective is maximised, -1 when minimised."""
        return 1.0 if self.weights[0] > 0 else -1.0

    @property
    def columns(self) -> list[str]:
        return qd_history_columns(self.objectives)


@dataclass(frozen=True)
class Elite:
    """The occupant of one archive cell.

    Attributes:
        index: the cell (pyribs' integer index).
        measures: its measure values, in the units of each measure.
        objective: what the archive compares (the first objective, negated if minimised).
        individual: the creature with its fitness and lineage.
    """

    index: int
    measures: tuple[float, ...]
    objective: float
    individual: Individual


@dataclass(frozen=True)
class QDState:
    """Everything the MAP-Elites loop holds between iterations, as plain data.

    ``rng`` is the run generator's ``bit_generator.state``; ``elites`` are ordered by cell; ``centroids``
    is a CVT's (cells, measures) array in the unit cube (None for a grid); ``logbook`` one record per
    iteration (:func:`qd_history_columns`), the run's own (read them; copy one to change it).
    """

    generation: int
    seed: int
    objectives: tuple[str, ...]
    weights: tuple[float, ...]
    measures: tuple[str, ...]
    rng: dict[str, Any]
    elites: tuple[Elite, ...]
    logbook: tuple[dict[str, Any], ...]
    centroids: np.ndarray | None = None


def archive_statistics(elites: Sequence[Elite], spec: ArchiveSpec) -> dict[str, float | int]:
    """pyribs' archive figures, computed from the elites in cell order (``math.fsum``), so they do not
    depend on the order creatures entered the archive: coverage (occupied / cells), qd_score (sum of
    objective - offset), norm_qd_score (qd_score / cells), obj_max, obj_mean (nan when empty), num_elites."""
    objectives = [e.objective for e in elites]
    count = len(objectives)
    qd_score = math.fsum(o - spec.score_offset for o in objectives)
    return {
        "coverage": count / spec.total_cells,
        "qd_score": qd_score,
        "norm_qd_score": qd_score / spec.total_cells,
        "obj_max": max(objectives) if objectives else math.nan,
        "obj_mean": math.fsum(objectives) / count if count else math.nan,
        "num_elites": count,
    }
