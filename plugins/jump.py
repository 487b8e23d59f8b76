"""The ``jump`` fitness plugin: how high the whole creature gets off the floor."""

import numba as nb

from evo import fitness_plugin
from evo.fitness.reducers import compiled_reducer, index_at


@fitness_plugin("jump", weights=(1.0,), record_every=2)
def jump(result, *, settle_frames: int = 100) -> float:
    """Greatest height (px) reached by the lowest mass, after frame `settle_frames`.

    At each record the creature's height is that of its lowest mass (the floor is y = 0), so only a
    creature with every mass in the air scores above its resting height. Frames before `settle_frames`
    do not count, so a creature that starts in the air is not rewarded for falling.
    """
    lowest = result.positions[result.index_at(settle_frames) :, :, 1].min(axis=1)
    return float(lowest.max())


@compiled_reducer(jump)
@nb.njit(cache=True, nogil=True)
def jump_reducer(positions, frames, total_frames, constants, out):  # pragma: no cover
    """:func:`jump` compiled; ``constants``: (settle_frames,)."""
    best = -1.0e308
    for r in range(index_at(frames, constants[0]), positions.shape[0]):
        lowest = positions[r, 0, 1]
        for i in range(1, positions.shape[1]):
            lowest = min(lowest, positions[r, i, 1])
        best = max(best, lowest)
    out[0] = best
