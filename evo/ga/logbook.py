"""The run's logbook: its columns (those of ``history.csv``) and a generation's per-column statistics."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evo.ga.individual import Individual

__all__ = ["column_statistics", "history_columns"]


def history_columns(objectives: Sequence[str]) -> list[str]:
    """The logbook's (and history.csv's) columns, in order."""
    columns = ["generation", "evaluations"]
    for name in objectives:
        columns += [f"{name}_best", f"{name}_mean", f"{name}_std", f"{name}_min"]
    return columns + ["masses_mean", "links_mean", "exploded"]


def column_statistics(population: Sequence[Individual]) -> dict[str, list[float]]:
    """Per-column mean, std, min and max of (objective values..., masses, links) over the finite values
    of each column (NaN for a column with none): ``np.mean`` ... ``np.max`` of each column's finite
    values, bit for bit. The columns are made contiguous rows once; when every value is finite, each
    statistic is one reduction along the rows (numpy reduces each contiguous row as it reduces a 1-d
    array: tests/ga/test_logbook.py), else each column's finite values are reduced one column at a time."""
    rows = [(*ind.values, ind.creature.n_masses, ind.creature.n_links) for ind in population]
    columns = np.ascontiguousarray(np.asarray(rows, dtype=np.float64).reshape(len(rows), -1).T)
    if columns.size and np.isfinite(columns).all():
        return {
            "mean": columns.mean(axis=1).tolist(),
            "std": columns.std(axis=1).tolist(),
            "min": columns.min(axis=1).tolist(),
            "max": columns.max(axis=1).tolist(),
        }
    out: dict[str, list[float]] = {"mean": [], "std": [], "min": [], "max": []}
    for column in columns:
        finite = column[np.isfinite(column)]
        for name, reduce in (("mean", np.mean), ("std", np.std), ("min", np.min), ("max", np.max)):
            out[name].append(float(reduce(finite)) if finite.size else math.nan)
    return out
