"""The ``stance`` fitness plugin: how far a creature walks, with its height and reach as measures, so that
a MAP-Elites run can keep the best walker of every stance (docs/qd.md)."""

from evo import fitness_plugin


@fitness_plugin(
    "stance", weights=(1.0,), record_every=10, measures={"height": (0.0, 150.0), "reach": (0.0, 200.0)}
)
def stance(result, *, settle_frames: int = 200) -> tuple[float, float, float]:
    """Centroid x displacement (px) from frame `settle_frames` to the end; measures height and reach (px).

    After `settle_frames`: `height` is the mean height of the creature's highest mass, `reach` the mean
    horizontal distance between its leftmost and rightmost masses.
    """
    start = result.index_at(settle_frames)
    after = result.positions[start:]
    x = result.centroids[:, 0]
    height = after[:, :, 1].max(axis=1).mean()
    reach = (after[:, :, 0].max(axis=1) - after[:, :, 0].min(axis=1)).mean()
    return float(x[-1] - x[start]), float(height), float(reach)
