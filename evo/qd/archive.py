"""pyribs' archive and scheduler for a MAP-Elites run: a ``GridArchive`` or ``CVTArchive`` over measures
scaled to the unit cube, whose solutions are serial numbers into evo's own store of creatures, and a
scheduler that keeps exploded creatures out (pyribs refuses non-finite objectives and measures).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from ribs.archives import ArchiveBase, CVTArchive, GridArchive, k_means_centroids
from ribs.emitters import EmitterBase
from ribs.schedulers import Scheduler

from evo.qd.emitter import EmitterPlan
from evo.qd.state import ArchiveSpec, cvt_seed

__all__ = ["SOLUTION_DTYPE", "FiniteScheduler", "cvt_centroids", "make_archive"]

SOLUTION_DTYPE = np.int64  # an archive's solution: the serial number of a creature in evo's store


def cvt_centroids(spec: ArchiveSpec, run_seed: int) -> np.ndarray:
    """(cells, measures) centroids in the unit cube: k-means (pyribs' ``k_means_centroids``: Lloyd from a
    random start) of ``cvt_samples`` uniform points, every draw from :func:`~evo.qd.state.cvt_seed`."""
    centroids, _ = k_means_centroids(
        centroids=spec.cells,
        ranges=[(0.0, 1.0)] * len(spec.measures),
        samples=spec.cvt_samples,
        seed=cvt_seed(run_seed),
    )
    return np.asarray(centroids, dtype=np.float64)


def make_archive(spec: ArchiveSpec, run_seed: int, centroids: np.ndarray | None = None) -> ArchiveBase:
    """An empty pyribs archive of ``spec``: solutions are int64 serial numbers, measures lie in the unit
    cube; ``centroids`` (cvt) is the (cells, measures) array of its centroids there."""
    common = {
        "solution_dim": (),
        "ranges": [(0.0, 1.0)] * len(spec.measures),
        "qd_score_offset": spec.score_offset,
        "seed": cvt_seed(run_seed),
        "solution_dtype": SOLUTION_DTYPE,
        "objective_dtype": np.float64,
        "measures_dtype": np.float64,
    }
    if spec.kind == "grid":
        return GridArchive(dims=list(spec.bins), **common)
    if centroids is None:
        raise ValueError("a CVT archive needs its centroids")
    return CVTArchive(
        centroids=np.asarray(centroids, dtype=np.float64), nearest_neighbors="brute_force", **common
    )


class FiniteScheduler(Scheduler):
    """pyribs' ``Scheduler`` whose ``tell`` takes a ``valid`` field: solutions marked False (exploded
    creatures, non-finite objectives or measures) are not offered to the archive, and their add status is
    0 (not added). Batch mode only, no result archive."""

    def __init__(self, archive: ArchiveBase, emitters: Sequence[EmitterBase]):
        super().__init__(archive, list(emitters))

    def ask_plans(self) -> list[EmitterPlan]:
        """pyribs' ``ask`` (its bookkeeping for ``tell`` included), returning what each emitter's ``ask``
        returned -- evo's plans (:class:`EmitterPlan`): serials and broods -- in order."""
        if self._last_called in ("ask", "ask_dqd"):
            raise RuntimeError(f"ask cannot be called immediately after {self._last_called}")
        self._last_called = "ask"
        plans = [emitter.ask() for emitter in self._emitters]
        for i, plan in enumerate(plans):
            self._num_emitted[i] = len(plan.serials)
        serials = [plan.serials for plan in plans]
        self._cur_solutions = np.concatenate(serials) if serials else np.empty(0, dtype=SOLUTION_DTYPE)
        return plans

    def _add_to_archives(self, data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        data = dict(data)
        valid = np.asarray(data.pop("valid"), dtype=bool)
        status = np.zeros(len(valid), dtype=np.int32)
        value = np.full(len(valid), np.nan)
        if valid.any():
            info = self.archive.add(**{name: arr[valid] for name, arr in data.items()})
            status[valid], value[valid] = info["status"], info["value"]
        return {"status": status, "value": value}
