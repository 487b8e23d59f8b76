"""The ``climb`` fitness plugin: distance travelled over the ground and terrain (e.g. up a slope)."""

import math

import numpy as np

from evo import fitness_plugin


def ground_heights(world, x):
    """Height (px) of the world's ``ground`` shape at each x of the array `x` (0 for the flat floor)."""
    ground = world.ground
    if ground.type == "flat":
        return np.zeros_like(x)
    if ground.type == "slope":
        return x * math.tan(math.radians(ground.angle))
    if ground.type == "hills":
        return ground.amplitude * (1.0 - np.cos(2.0 * math.pi * x / ground.wavelength))
    line = np.asarray(ground.outline(), dtype=float)  # steps and polylines, level beyond both ends
    return np.interp(x, line[:, 0], line[:, 1])


def surface_heights(world, x):
    """Height (px) of the walkable surface at each x of the array `x`.

    The surface is the highest of the ground (``[world] ground``; with ``contact = "soda"`` the floor
    y = 0 is there as well) and the terrain segments spanning x. Vertical segments are skipped.
    """
    x = np.asarray(x, dtype=float)
    heights = ground_heights(world, x)
    if world.contact != "penalty":  # the applet's box floor is always there
        heights = np.maximum(heights, 0.0)
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
    """Distance (px) travelled along the ground and terrain surface from frame `settle_frames` to the end.

    The slope is the world's `ground` (e.g. ``{type = "slope", angle = 20}``) or `terrain` polylines
    ([[x, y], ...], y up); the surface at x is the highest of them (see `surface_heights`). The score is
    the length of that surface between the centroid's x after settling and its x at the end, sampled
    every `step` px: positive when the creature moves right (make the slope rise to the right), negative
    when it moves left. On flat ground it equals `distance`; climbing 100 px up a 45° ramp scores about
    141.
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
