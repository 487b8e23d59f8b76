"""The ``speed`` fitness plugin: mean horizontal speed of the centroid once the creature has settled."""

import numba as nb

from evo import fitness_plugin
from evo.fitness.reducers import centroid, compiled_reducer, index_at


@fitness_plugin("speed", weights=(1.0,), record_every=10)
def speed(result, *, settle_frames: int = 200) -> float:
    """Mean horizontal centroid speed (px/frame) after frame `settle_frames`.

    The time average of the centroid's x velocity from the first record at or after `settle_frames` to
    the end, i.e. its x displacement over that span divided by the span's length in frames. Positive to
    the right; 0 if nothing is left of the run after settling.
    """
    start = result.index_at(settle_frames)
    elapsed = result.frames[-1] - result.frames[start]
    if elapsed <= 0:
        return 0.0
    x = result.centroids[:, 0]
    return float((x[-1] - x[start]) / elapsed)


# reads only the record at settle_frames (constants[0]) and the last: a run may record fewer
@compiled_reducer(speed, reads=lambda constants: [constants[0]])
@nb.njit(cache=True, nogil=True)
def speed_reducer(positions, frames, total_frames, constants, out):  # pragma: no cover
    """:func:`speed` compiled; ``constants``: (settle_frames,)."""
    start = index_at(frames, constants[0])
    last = frames.shape[0] - 1
    elapsed = frames[last] - frames[start]
    if elapsed <= 0:
        out[0] = 0.0
    else:
        out[0] = (centroid(positions, last, 0) - centroid(positions, start, 0)) / elapsed
