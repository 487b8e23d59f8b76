"""The ``distance`` fitness plugin: how far the creature's centroid travels along x."""

from evo import fitness_plugin


@fitness_plugin("distance", weights=(1.0,), record_every=10)
def distance(result, *, settle_frames: int = 200) -> float:
    """Centroid x displacement (px) from frame `settle_frames` to the end.

    Positive to the right. The first `settle_frames` frames (the creature dropping onto the floor and
    finding its feet) do not count; if the run is shorter than that, the displacement is 0.
    """
    x = result.centroids[:, 0]
    return float(x[-1] - x[result.index_at(settle_frames)])
