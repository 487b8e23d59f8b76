"""One evaluation: simulate a creature, then score it with a fitness plugin.

This is the narrow seam between the GA and the simulator. Everything it takes is plain data
(:class:`EvaluationSpec` holds a :class:`~evo.fitness.PluginRef`, never a function), so the same call
runs in the parent or in a worker process and gives bit-identical results.

Exploded creatures are not scored: their fitness is the worst value of each objective, ``-inf`` where the
weight is positive (maximised) and ``+inf`` where it is negative (minimised). A plugin that raises, or
returns the wrong number of values, a non-number or NaN, raises :class:`PluginFailed`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.fitness.protocol import Plugin, PluginRef, SimulationResult
from evo.fitness.registry import load_ref
from evo.model import Creature
from evo.sim import World, simulate

__all__ = ["Evaluation", "EvaluationSpec", "PluginFailed", "evaluate", "worst_fitness"]


@dataclass(frozen=True)
class EvaluationSpec:
    """How every creature of a run is evaluated (plain, picklable data).

    Attributes:
        world: the world to simulate in.
        frames: frames to simulate (a whole number of steps of ``world.dt``).
        plugin: the fitness plugin, by reference.
        params: keyword arguments for the plugin (a plain dict).
    """

    world: World
    frames: int
    plugin: PluginRef
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Evaluation:
    """The outcome of one evaluation: one float per objective, whether the creature exploded, and whether
    its evaluation ran past the run's time limit (then it has the worst fitness, ``[evaluation]
    on_timeout = "worst"``)."""

    fitness: tuple[float, ...]
    exploded: bool
    timed_out: bool = False


class PluginFailed(Exception):
    """A plugin raised or returned something that is not a fitness.

    Attributes:
        plugin: the plugin's name.
        message: one line, e.g. ``plugin 'distance' raised ZeroDivisionError: division by zero``.
    """

    def __init__(self, plugin: str, message: str):
        super().__init__(message)
        self.plugin = plugin
        self.message = message

    def __reduce__(self) -> tuple:  # picklable, so a worker can send it back to the parent
        return (type(self), (self.plugin, self.message))


def worst_fitness(weights: tuple[float, ...]) -> tuple[float, ...]:
    """The worst value of each objective: -inf when maximised (weight > 0), +inf when minimised."""
    return tuple(-math.inf if w > 0 else math.inf for w in weights)


def evaluate(creature: Creature, spec: EvaluationSpec, seed: int) -> Evaluation:
    """Simulate ``creature`` for ``spec.frames`` frames and score it with ``spec.plugin``.

    The simulation records every ``plugin.record_every`` frames. ``seed`` seeds ``result.rng`` (the
    simulation itself is deterministic).
    """
    plugin = load_ref(spec.plugin)
    trajectory = simulate(creature, spec.world, spec.frames, record_every=plugin.record_every)
    if trajectory.exploded:
        return Evaluation(worst_fitness(plugin.weights), True)
    result = SimulationResult(
        positions=trajectory.positions,
        velocities=trajectory.velocities,
        frames=trajectory.frames,
        total_frames=spec.frames,
        exploded=False,
        model=creature,
        world=spec.world,
        seed=int(seed),
    )
    try:
        value = plugin.func(result, **spec.params)
    except (Exception, SystemExit) as exc:  # sys.exit() in a plugin must not end the run (or a worker)
        detail = " ".join(str(exc).split())
        raise PluginFailed(
            plugin.name,
            f"plugin '{plugin.name}' raised {type(exc).__name__}" + (f": {detail}" if detail else ""),
        ) from exc
    return Evaluation(fitness_values(plugin, value), False)


def fitness_values(plugin: Plugin, value: Any) -> tuple[float, ...]:
    """Check a plugin's return value against its weights; a tuple of floats or :class:`PluginFailed`."""
    arity = len(plugin.weights)
    if isinstance(value, tuple | list | np.ndarray):
        values = (
            list(np.asarray(value, dtype=object).ravel()) if isinstance(value, np.ndarray) else list(value)
        )
    else:
        values = [value]
    if len(values) != arity:
        expected = "one number" if arity == 1 else f"a tuple of {arity} numbers"
        raise PluginFailed(
            plugin.name,
            f"plugin '{plugin.name}' returned {len(values)} value(s); expected {expected} "
            f"(objectives {', '.join(plugin.objectives)})",
        )
    out = []
    for objective, v in zip(plugin.objectives, values, strict=True):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise PluginFailed(
                plugin.name,
                f"plugin '{plugin.name}' returned {_short(v)} ({type(v).__name__}) for '{objective}'; "
                "expected a number",
            )
        f = float(v)
        if math.isnan(f):
            raise PluginFailed(plugin.name, f"plugin '{plugin.name}' returned NaN for '{objective}'")
        out.append(f)
    return tuple(out)


def _short(value: Any) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= 40 else text[:37] + "..."
