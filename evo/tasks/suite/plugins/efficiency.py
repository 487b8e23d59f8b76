"""The ``efficiency`` fitness plugin of the task suite: distance per unit of muscle work."""

import numpy as np

from evo.fitness import fitness_plugin


def muscle_work(result, start: int) -> float:
    """Work (px^2/frame^2 per unit mass) the muscles do from record `start` on: the sum over records
    and muscles of |k S (L - l_r)| |d l_r / dt| times the frames between records, with l_r(t) =
    l0 (1 + alpha beta sin(theta + phi)) the muscle's rest length and theta the wave's phase."""
    model, world = result.model, result.world
    muscles = np.flatnonzero(np.asarray(model.alpha) > 0.0)
    if muscles.size == 0 or model.beta == 0.0:
        return 0.0
    frames = result.frames[start:]
    positions = result.positions[start:]
    a, b = np.asarray(model.link_a)[muscles], np.asarray(model.link_b)[muscles]
    length = np.hypot(*(positions[:, a, :] - positions[:, b, :]).transpose(2, 0, 1))
    sign = -1.0 if model.wave_reverse else 1.0
    theta = sign * model.omega * frames[:, None] + model.wave_phase + np.asarray(model.phi)[muscles]
    rest0, alpha = np.asarray(model.rest)[muscles], np.asarray(model.alpha)[muscles]
    rest = rest0 * (1.0 + alpha * model.beta * np.sin(theta))
    rate = np.abs(rest0 * alpha * model.beta * model.omega * np.cos(theta))
    force = np.abs(world.stiffness * np.asarray(model.stiffness)[muscles] * (length - rest))
    step = float(frames[1] - frames[0]) if frames.size > 1 else 0.0
    return float((force * rate).sum() * step)


@fitness_plugin("efficiency", weights=(1.0,), record_every=5)
def efficiency(result, *, settle_frames: int = 200, work_offset: float = 1000.0) -> float:
    """1000 d / (W + work_offset): the centroid's x displacement d (px) from frame `settle_frames` to
    the end per the muscles' work W over the same frames (see `muscle_work`); the offset keeps a
    creature that barely moves its muscles from dividing by nothing."""
    start = result.index_at(settle_frames)
    x = result.centroids[:, 0]
    distance = float(x[-1] - x[start])
    return 1000.0 * distance / (muscle_work(result, start) + work_offset)
