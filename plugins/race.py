"""The ``race`` fitness plugin: a Sodarace-style race to a finish line."""

import numpy as np

from evo import fitness_plugin


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
