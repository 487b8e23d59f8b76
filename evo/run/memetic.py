"""The memetic step of a GA run (``[ga] refine``): after every ``every``-th generation, the ``top`` best
distinct individuals are tuned with :func:`evo.refine.refine` and replaced by their refined selves, in the
run's own process, from seeds of the run seed and the generation (deterministic and resumable)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import numpy as np
from deap import tools

from evo.ga.individual import Individual
from evo.ga.loop import Evolution
from evo.refine import refine
from evo.run.backends.base import EvaluationTimeout, evaluation_time_limit
from evo.run.config import Config

__all__ = ["REFINE_STREAM", "refine_generation"]

log = logging.getLogger("evo.run.memetic")

# the spawn key's first word: keeps the refinement's seeds apart from every other stream of the run
REFINE_STREAM = 0x5EF1


def _time_limit(seconds: float):  # noqa: ANN202
    """evo.run's time limit, raising the ``TimeoutError`` :func:`evo.refine.evaluate_lanes` expects."""

    @contextlib.contextmanager
    def limit(evaluation: int) -> Iterator[None]:
        try:
            with evaluation_time_limit(seconds, evaluation):
                yield
        except EvaluationTimeout:
            raise TimeoutError from None

    return limit


def refine_generation(config: Config, evolution: Evolution, record: dict[str, Any]) -> dict[str, Any]:
    """Refine the top individuals of the generation just told, when ``[ga] refine`` asks for it.

    Each of the ``top`` best distinct individuals with a finite fitness is refined for ``budget``
    evaluations (all genes, the run's world, frames, plugin, params, ``[genome]`` ranges and its own
    plugin seed; CMA-ES seeded from ``SeedSequence(run seed, spawn_key=(REFINE_STREAM, generation,
    rank))``); one that improves takes its place in the population (id ``g<generation>-r<rank>``, its
    parent the individual it was refined from) and is offered to the hall of fame.

    Args:
        config: the run's config.
        evolution: the run's state, just told.
        record: the generation's logbook record, as ``tell`` returned it.

    Returns:
        The record, with the refinement's evaluations added and the statistics of the new population
        (the same record when nothing was refined).
    """
    schedule, g = config.ga.refine, evolution.generation
    if schedule is None or (g + 1) % schedule["every"] != 0:
        return record
    spec = config.evaluation_spec()
    limit = _time_limit(config.evaluation.timeout) if config.evaluation.timeout > 0 else None
    top, seen = [], set()
    for ind in tools.selBest(evolution.population, len(evolution.population)):
        if ind.id not in seen and all(np.isfinite(ind.values)) and len(top) < schedule["top"]:
            top.append(ind)
        seen.add(ind.id)
    refined: dict[str, Individual] = {}
    evaluations = 0
    for rank, ind in enumerate(top):
        sequence = np.random.SeedSequence(config.run.seed, spawn_key=(REFINE_STREAM, g, rank))
        result = refine(
            ind.creature,
            fitness=spec,
            budget=schedule["budget"],
            seed=np.random.Generator(np.random.PCG64(sequence)),
            genome=config.genome,
            plugin_seed=int(ind.seed or 0),
            time_limit=limit,
        )
        evaluations += result.evaluations
        if result.fitness * ind.weights[0] <= ind.values[0] * ind.weights[0]:
            continue
        child = Individual(
            result.best.replace(meta=dict(ind.creature.meta)),
            ind.weights,
            id=f"g{g}-r{rank}",
            parents=(ind.id,),
            born=g,
        )
        child.set_fitness((result.fitness,), seed=ind.seed)
        refined[ind.id] = child
        log.info("generation %d: refined %s from %.6g to %.6g", g, ind.id, ind.values[0], result.fitness)
    return evolution.replace_refined(refined, evaluations)
