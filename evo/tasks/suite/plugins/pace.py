"""The ``pace`` fitness plugin of the task suite: laps between two lines of a walled box."""

import numpy as np

from evo.fitness import fitness_plugin


@fitness_plugin("pace", weights=(1.0,), record_every=10)
def pace(result, *, settle_frames: int = 200, margin: float = 0.25) -> float:
    """Laps (as px) between the box's lines at x = margin * width and x = (1 - margin) * width.

    From frame `settle_frames` on, each time the centroid reaches the line it is heading for, one lap
    of (1 - 2 margin) * width px is counted and the other line becomes the goal; the progress made
    towards the current goal is added. A creature that walks into a wall and stays scores at most one
    lap; one that paces wall to wall scores a lap per crossing. Needs a world with side walls (width).
    """
    width = result.world.width
    if width is None:
        raise ValueError("pace needs a world with side walls ([world] width)")
    if not 0.0 <= margin < 0.5:
        raise ValueError(f"margin must be in [0, 0.5), got {margin}")
    low, high = margin * width, (1.0 - margin) * width
    lap = high - low
    x = result.centroids[result.index_at(settle_frames) :, 0]
    goal = high if x[0] <= 0.5 * width else low
    laps = 0
    for value in x.tolist():
        if (goal == high and value >= high) or (goal == low and value <= low):
            laps += 1
            goal = low if goal == high else high
    start = low if goal == high else high
    progress = float(np.clip((x[-1] - start) / (goal - start), 0.0, 1.0)) if laps else 0.0
    if not laps:  # towards the first goal, from where it stood
        progress = float(np.clip((x[-1] - x[0]) / (goal - x[0]), 0.0, 1.0)) if goal != x[0] else 0.0
    return laps * lap + progress * lap
