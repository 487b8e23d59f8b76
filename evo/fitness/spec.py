"""The plain records of one evaluation: how a run evaluates (:class:`EvaluationSpec`) and what one
evaluation gives (:class:`Evaluation`), picklable and the same in any process."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evo.fitness.protocol import PluginRef
from evo.sim import World

__all__ = ["Evaluation", "EvaluationSpec", "worst_fitness"]


@dataclass(frozen=True)
class EvaluationSpec:
    """How every creature of a run is evaluated (plain, picklable data).

    Attributes:
        world: the world to simulate in.
        frames: frames to simulate (a whole number of steps of ``world.dt``).
        plugin: the fitness plugin, by reference.
        params: keyword arguments for the plugin (a plain dict).
        measures: the measures to report (:mod:`evo.fitness.measures` built-ins or the plugin's own),
            for quality-diversity runs; () for none.
        settle_frames: frames the built-in measures leave out at the start.
    """

    world: World
    frames: int
    plugin: PluginRef
    params: Mapping[str, Any]
    measures: tuple[str, ...] = ()
    settle_frames: float = 200.0


@dataclass(frozen=True)
class Evaluation:
    """The outcome of one evaluation: one float per objective, whether the creature exploded, one float
    per measure of the spec (empty when the spec asks for none, or the creature exploded), and whether its
    evaluation ran past the run's time limit (then it has the worst fitness, ``[evaluation] on_timeout =
    "worst"``)."""

    fitness: tuple[float, ...]
    exploded: bool
    measures: tuple[float, ...] = ()
    timed_out: bool = False


def worst_fitness(weights: tuple[float, ...]) -> tuple[float, ...]:
    """The worst value of each objective: -inf when maximised (weight > 0), +inf when minimised."""
    return tuple(-math.inf if w > 0 else math.inf for w in weights)
