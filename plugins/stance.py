"""The ``stance`` fitness plugin: how far a creature walks, with its height and reach as measures, so that
a MAP-Elites run can keep the best walker of every stance (docs/qd.md)."""

import numba as nb
import numpy as np

from evo import fitness_plugin
from evo.fitness.reducers import centroid, compiled_reducer, index_at, numpy_mean


@fitness_plugin(
    "stance", weights=(1.0,), record_every=10, measures={"height": (0.0, 150.0), "reach": (0.0, 200.0)}
)
def stance(result, *, settle_frames: int = 200) -> tuple[float, float, float]:
    """Centroid x displacement (px) from frame `settle_frames` to the end; measures height and reach (px).

    After `settle_frames`: `height` is the mean height of the creature's highest mass, `reach` the mean
    horizontal distance between its leftmost and rightmost masses.
    """
    start = result.index_at(settle_frames)
    after = result.positions[start:]
    x = result.centroids[:, 0]
    height = after[:, :, 1].max(axis=1).mean()
    reach = (after[:, :, 0].max(axis=1) - after[:, :, 0].min(axis=1)).mean()
    return float(x[-1] - x[start]), float(height), float(reach)


@compiled_reducer(stance)
@nb.njit(cache=True, nogil=True)
def stance_reducer(positions, frames, total_frames, constants, out):  # pragma: no cover
    """:func:`stance` compiled; ``constants``: (settle_frames,)."""
    start = index_at(frames, constants[0])
    count = positions.shape[0] - start
    highest = np.empty(count)
    spread = np.empty(count)
    for r in range(count):
        top = positions[start + r, 0, 1]
        left = right = positions[start + r, 0, 0]
        for i in range(1, positions.shape[1]):
            top = max(top, positions[start + r, i, 1])
            left = min(left, positions[start + r, i, 0])
            right = max(right, positions[start + r, i, 0])
        highest[r] = top
        spread[r] = right - left
    out[0] = centroid(positions, positions.shape[0] - 1, 0) - centroid(positions, start, 0)
    out[1] = numpy_mean(highest)
    out[2] = numpy_mean(spread)
