"""The ``race`` fitness plugin: a Sodarace-style race to a finish line."""

import numba as nb
import numpy as np

from evo import fitness_plugin
from evo.fitness.reducers import centroid, compiled_reducer


@fitness_plugin("race", weights=(1.0,), record_every=5)
def race(result, *, finish_x: float = 400.0, penalty: float = 1.0) -> float:
    """Minus the frames taken to cross a finish line `finish_x` px to the right of the start.

    The start is the centroid's x at frame 0 and the creature crosses the line when its centroid does;
    the crossing frame is interpolated between records. Bigger is better: a creature that finishes at
    frame T scores -T. One that does not finish is ranked by how far its centroid got (its greatest x
    progress): it scores -(frames simulated) - penalty * (px still to go), below every finisher.
    """
    progress = result.centroids[:, 0] - result.centroids[0, 0]
    frames = result.frames
    crossed = np.flatnonzero(progress >= finish_x)
    if crossed.size:
        k = int(crossed[0])
        if k == 0:
            return 0.0
        before, after = progress[k - 1], progress[k]
        fraction = (finish_x - before) / (after - before)
        return -float(frames[k - 1] + fraction * (frames[k] - frames[k - 1]))
    remaining = finish_x - float(progress.max())
    return -float(result.total_frames) - penalty * remaining


@compiled_reducer(race)
@nb.njit(cache=True, nogil=True)
def race_reducer(positions, frames, total_frames, constants, out):  # pragma: no cover
    """:func:`race` compiled; ``constants``: (finish_x, penalty)."""
    finish_x, penalty = constants[0], constants[1]
    start = centroid(positions, 0, 0)
    best = -np.inf
    before = 0.0
    for k in range(positions.shape[0]):
        progress = centroid(positions, k, 0) - start
        if progress >= finish_x:
            if k == 0:
                out[0] = 0.0
                return
            fraction = (finish_x - before) / (progress - before)
            out[0] = -(frames[k - 1] + fraction * (frames[k] - frames[k - 1]))
            return
        best = max(best, progress)
        before = progress
    out[0] = -total_frames - penalty * (finish_x - best)
