"""The ``distance`` fitness plugin: how far the creature's centroid travels along x."""

import numba as nb

from evo import fitness_plugin
from evo.fitness.reducers import centroid, compiled_reducer, index_at


@fitness_plugin("distance", weights=(1.0,), record_every=10)
def distance(result, *, settle_frames: int = 200) -> float:
    """Centroid x displacement (px) from frame `settle_frames` to the end.

    Positive to the right. The first `settle_frames` frames (the creature dropping onto the floor and
    finding its feet) do not count; if the run is shorter than that, the displacement is 0.
    """
    x = result.centroids[:, 0]
    return float(x[-1] - x[result.index_at(settle_frames)])


# reads only the record at settle_frames (constants[0]) and the last: a run may record fewer
@compiled_reducer(distance, reads=lambda constants: [constants[0]])
@nb.njit(cache=True, nogil=True)
def distance_reducer(positions, frames, total_frames, constants, out):  # pragma: no cover
    """:func:`distance` compiled; ``constants``: (settle_frames,)."""
    start = index_at(frames, constants[0])
    out[0] = centroid(positions, positions.shape[0] - 1, 0) - centroid(positions, start, 0)
