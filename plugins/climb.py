"""The ``climb`` fitness plugin: distance travelled over the ground and terrain (e.g. up a slope)."""

import math

import numba as nb
import numpy as np

from evo import fitness_plugin
from evo.fitness.reducers import centroid, compiled_reducer, index_at, numpy_sum


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


def _climb_constants(params, world):
    """(settle_frames, step, 1 on a slope (0 on flat ground), the slope's tan, 1 if the floor y = 0
    counts, then each terrain segment's x1, y1, x2, y2); None where the compiled path would not match:
    hills, steps and polylines (numpy's vector cos and interp), or a step the Python function rejects."""
    step = float(params["step"])
    if world.ground.type not in ("flat", "slope") or not step > 0:
        return None
    slope = world.ground.type == "slope"
    tan = math.tan(math.radians(world.ground.angle)) if slope else 0.0
    head = [float(params["settle_frames"]), step, float(slope), tan, float(world.contact != "penalty")]
    return np.array(head + [float(v) for segment in world.segments() for v in segment], dtype=np.float64)


# reads only the record at settle_frames (constants[0]) and the last: a run may record fewer
@compiled_reducer(climb, _climb_constants, reads=lambda constants: [constants[0]])
@nb.njit(cache=True, nogil=True, error_model="numpy")
def climb_reducer(positions, frames, total_frames, constants, out):  # pragma: no cover
    """:func:`climb` compiled on flat or sloped ground with terrain segments (see _climb_constants)."""
    x0 = centroid(positions, index_at(frames, constants[0]), 0)
    x1 = centroid(positions, positions.shape[0] - 1, 0)
    if x0 == x1:
        out[0] = 0.0
        return
    count = max(2, int(np.ceil(abs(x1 - x0) / constants[1])) + 1)
    low, high = min(x0, x1), max(x0, x1)
    step = (high - low) / (count - 1)  # np.linspace, step for step
    xs = np.arange(count) * 1.0
    if step == 0:
        xs = xs / (count - 1) * (high - low)
    else:
        xs = xs * step
    xs = xs + low
    xs[count - 1] = high
    ys = xs * constants[3] if constants[2] else np.zeros(count)
    if constants[4]:
        ys = np.maximum(ys, 0.0)
    for s in range(5, constants.shape[0], 4):
        sx1, sy1, sx2, sy2 = constants[s], constants[s + 1], constants[s + 2], constants[s + 3]
        if sx1 == sx2:
            continue
        if sx1 > sx2:
            sx1, sy1, sx2, sy2 = sx2, sy2, sx1, sy1
        for i in range(count):
            if xs[i] >= sx1 and xs[i] <= sx2:
                ys[i] = max(ys[i], sy1 + (sy2 - sy1) * (xs[i] - sx1) / (sx2 - sx1))
    pieces = np.empty(count - 1)
    for i in range(count - 1):
        pieces[i] = math.hypot(xs[i + 1] - xs[i], ys[i + 1] - ys[i])
    length = numpy_sum(pieces)
    out[0] = length if x1 > x0 else -length
