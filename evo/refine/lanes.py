"""Evaluate the candidates of one topology together: simulated in SIMD lanes (:func:`evo.sim.simulate_batch`),
then each scored by :func:`evo.fitness.score.score`, as a run scores its children (docs/refine.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from evo.fitness import load_ref
from evo.fitness.evaluate import Evaluation, EvaluationSpec, recording, worst_fitness
from evo.fitness.score import score, sealed
from evo.model import Creature
from evo.sim import Trajectory, World, simulate_batch
from evo.sim.batch import BATCHED_INTEGRATORS, MIN_LANES
from evo.sim.simulate import centroids_of

__all__ = ["TimeLimit", "evaluate_lanes", "in_lanes", "scores"]

# time_limit(k): the context manager the k-th scoring runs in, raising TimeoutError once it runs too long
TimeLimit = Callable[[int], contextlib.AbstractContextManager[Any]]


def _no_limit(evaluation: int) -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext()


def evaluate_lanes(
    creatures: Sequence[Creature],
    spec: EvaluationSpec,
    seed: int,
    *,
    time_limit: TimeLimit | None = None,
) -> list[Evaluation]:
    """Evaluate creatures of one topology: simulated together (:func:`evo.sim.simulate_batch`, the very
    trajectories ``simulate`` gives), then each scored by the spec's plugin with the plugin seed ``seed``.

    Args:
        creatures: the candidates, all of one topology.
        spec: the world, frames, plugin and params.
        seed: the plugin seed of every candidate.
        time_limit: ``time_limit(k)`` is a context manager the k-th scoring runs in, raising
            ``TimeoutError`` once it has run too long (a run's memetic step passes its ``[evaluation]
            timeout``, :mod:`evo.run.memetic`); a candidate that runs past it gets the worst fitness.

    Returns:
        One :class:`~evo.fitness.Evaluation` per creature, in order (exploded ones with the worst fitness).

    Raises:
        PluginFailed: the plugin raised or returned something that is not a fitness.
    """
    every, _ = recording(spec)
    trajectories = simulate_batch(creatures, spec.world, spec.frames, every)
    return scores(creatures, trajectories, spec, seed, time_limit)


def in_lanes(count: int, world: World) -> bool:
    """Whether :func:`evaluate_lanes` simulates ``count`` creatures in ``world`` together, in SIMD lanes
    (else one by one: too few of them, or an integrator without a batched kernel)."""
    return count >= MIN_LANES and world.integrator in BATCHED_INTEGRATORS


def scores(
    creatures: Sequence[Creature],
    trajectories: Sequence[Trajectory],
    spec: EvaluationSpec,
    seed: int,
    time_limit: TimeLimit | None,
) -> list[Evaluation]:
    """Each creature's :func:`~evo.fitness.score.score` of its trajectory, the k-th within
    ``time_limit(k)`` (past it: the worst fitness, ``timed_out``)."""
    limit = time_limit or _no_limit
    plugin = load_ref(spec.plugin)
    # without measures the plugin sees every record: their centroids computed once for all
    centroids = [None] * len(trajectories) if spec.measures else _centroids(trajectories)
    out = []
    for k, (creature, trajectory) in enumerate(zip(creatures, trajectories, strict=True)):
        try:
            with limit(k):
                out.append(score(plugin, creature, trajectory, spec, seed, centroids=centroids[k]))
        except TimeoutError:
            out.append(Evaluation(worst_fitness(plugin.weights), False, timed_out=True))
    return out


def _centroids(trajectories: Sequence[Trajectory]) -> list[np.ndarray | None]:
    """Each trajectory's :attr:`SimulationResult.centroids` ((records, 2) px; None for an exploded one),
    from one ``centroids_of`` call over the generation's records stacked (the same numbers, bit for bit, a
    test checks: the sum over masses runs in the same order), instead of one small call per candidate."""
    alive = [k for k, t in enumerate(trajectories) if not t.exploded]
    out: list[np.ndarray | None] = [None] * len(trajectories)
    if not alive or len({trajectories[k].positions.shape for k in alive}) > 1:
        return out  # (records of unequal lengths: each plugin computes its own)
    positions = np.stack([trajectories[k].positions for k in alive])  # (alive, records, masses, 2)
    lanes, records = positions.shape[:2]
    every = centroids_of(positions.reshape(lanes * records, *positions.shape[2:])).reshape(lanes, records, 2)
    every = sealed(every)  # one copy for all: its rows reach the plugins as they are
    for row, k in enumerate(alive):
        out[k] = every[row]
    return out
