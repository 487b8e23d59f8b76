"""The ``jump`` fitness plugin: how high the whole creature gets off the floor."""

from evo import fitness_plugin


@fitness_plugin("jump", weights=(1.0,), record_every=2)
def jump(result, *, settle_frames: int = 100) -> float:
    """Greatest height (px) reached by the lowest mass, after frame `settle_frames`.

    At each record the creature's height is that of its lowest mass (the floor is y = 0), so only a
    creature with every mass in the air scores above its resting height. Frames before `settle_frames`
    do not count, so a creature that starts in the air is not rewarded for falling.
    """
    lowest = result.positions[result.index_at(settle_frames) :, :, 1].min(axis=1)
    return float(lowest.max())
