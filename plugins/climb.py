"""The ``climb`` fitness plugin: distance travelled over the terrain of the world (e.g. up a slope)."""

import numpy as np

from evo.plugins import fitness_plugin


def surface_heights(world, x):
    """Height (px) of the walkable surface at each x of the array `x`.

    The surface is the highest terrain segment spanning x, or the floor (y = 0) where none is higher.
    Vertical segments are skipped.
    """
    x = np.asarray(x, dtype=float)
    heights = np.zeros_like(x)
    for x1, y1, x2, y2 in world.segments():
        if x1 == x2:
            continue
        if x1 > x2:
            x1, y1, x2, y2 = x2, y2, x1, y1
        inside = (x >= x1) & (x <= x2)
        y = y1 + (y2 - y1) * (x - x1) / (x2 - x1)
        heights = np.where(inside, np.maximum(heights, y), heights)
    return heights


@fitness_plugin("climb", weights=(1.0,), record_every=10)
def climb(result, *, settle_frames: int = 200, step: float = 1.0) -> float:
    """Distance (px) travelled along the terrain surface from frame `settle_frames` to the end.

    The world must hold the slope as `terrain` polylines ([[x, y], ...], y up); the surface at x is the
    highest terrain segment spanning x, or the floor y = 0. The score is the length of that surface
    between the centroid's x after settling and its x at the end, sampled every `step` px: positive when
    the creature moves right (write the slope rising to the right), negative when it moves left. On flat
    ground it equals `distance`; on a slope, climbing 100 px up a 45° ramp scores about 141.
    """
    if not step > 0:
        raise ValueError(f"step must be > 0 px, got {step}")
    x = result.centroids[:, 0]
    x0, x1 = float(x[result.index_at(settle_frames)]), float(x[-1])
    if x0 == x1:
        return 0.0
    count = max(2, int(np.ceil(abs(x1 - x0) / step)) + 1)
    xs = np.linspace(min(x0, x1), max(x0, x1), count)
    ys = surface_heights(result.world, xs)
    length = float(np.hypot(np.diff(xs), np.diff(ys)).sum())
    return length if x1 > x0 else -length
