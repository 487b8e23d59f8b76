"""One evaluation: simulate a creature, then score it with a fitness plugin.

The narrow seam between the GA and the simulator: plain data in (:class:`EvaluationSpec`), plain data
out (:class:`Evaluation`), bit-identical in any process. Exploded creatures get the worst fitness; a bad
plugin raises :class:`PluginFailed` (docs/internals.md, "One evaluation").
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from evo.fitness.failure import PluginFailed, is_evos_own, plugin_failure, signals_watched
from evo.fitness.measures import builtin_measures, measure_stride
from evo.fitness.protocol import Plugin, PluginRef, SimulationResult
from evo.fitness.registry import load_ref
from evo.model import Creature
from evo.sim import Trajectory, World, simulate
from evo.sim.simulate import steps_for

__all__ = [
    "Evaluation",
    "EvaluationSpec",
    "PluginFailed",
    "evaluate",
    "read_only_view",
    "recording",
    "worst_fitness",
]


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


def recording(spec: EvaluationSpec) -> tuple[float, int]:
    """(frames between the simulation's records, k): the plugin sees every k-th record. k is 1 unless the
    spec asks for measures, which need records more often (:func:`~evo.fitness.measures.measure_stride`)."""
    plugin = load_ref(spec.plugin)
    every, k = plugin.record_every, 1
    if spec.measures:
        steps = steps_for(plugin.record_every, spec.world.dt, "record_every")
        stride = measure_stride(steps, spec.world.dt)
        if stride < steps:
            every, k = stride * spec.world.dt, steps // stride
    return every, k


def evaluate(
    creature: Creature, spec: EvaluationSpec, seed: int, trajectory: Trajectory | None = None
) -> Evaluation:
    """Simulate ``creature`` for ``spec.frames`` frames and score it with ``spec.plugin``.

    The plugin sees a record every ``plugin.record_every`` frames. When the spec asks for measures the
    simulation records more often (:func:`recording`) and the plugin gets every k-th record, the very
    same numbers. ``seed`` seeds ``result.rng`` (the simulation itself is deterministic).

    Args:
        creature: the creature.
        spec: the world, frames, plugin and params.
        seed: the plugin's seed.
        trajectory: the creature's simulation, when it was made already (in lanes,
            :func:`evo.sim.simulate_batch`): ``simulate`` of it with :func:`recording`.

    Returns:
        The :class:`Evaluation`: one value per objective (the worst values, unscored, when the creature
        exploded), whether it exploded, and the spec's measures.

    Raises:
        PluginFailed: the plugin raised, or returned something that is not a fitness (or a measure).
        EvoInputError: the plugin cannot be loaded in this process, or the creature cannot be simulated
            (over the size limits, or a record interval that is not a whole number of steps).
    """
    plugin = load_ref(spec.plugin)
    every, k = recording(spec)
    if trajectory is None:
        trajectory = simulate(creature, spec.world, spec.frames, record_every=every)
    if trajectory.exploded:
        return Evaluation(worst_fitness(plugin.weights), True)
    positions, velocities, frames = trajectory.positions, trajectory.velocities, trajectory.frames
    if k > 1:
        positions, velocities, frames = (
            np.ascontiguousarray(a[::k]) for a in (positions, velocities, frames)
        )
    result = SimulationResult(
        positions=positions,
        velocities=velocities,
        frames=frames,
        total_frames=spec.frames,
        exploded=False,
        model=read_only_view(creature),
        world=spec.world,
        seed=int(seed),
    )
    with signals_watched() as received:
        try:
            value = plugin.func(result, **spec.params)
        except BaseException as exc:  # sys.exit(), GeneratorExit, its own BaseException: the plugin's failure
            if is_evos_own(exc, received):  # a time limit, or a real Ctrl-C
                raise
            raise plugin_failure(plugin.name, plugin.func, exc) from exc
    values = fitness_values(plugin, value)
    arity = len(plugin.weights)
    fitness, own = values[:arity], dict(zip(plugin.measures, values[arity:], strict=True))
    if not spec.measures:
        return Evaluation(fitness, False)
    computed = builtin_measures(
        spec.measures, trajectory.positions, trajectory.frames, creature, spec.world, spec.settle_frames
    )
    return Evaluation(fitness, False, tuple(own[m] if m in own else computed[m] for m in spec.measures))


def fitness_values(plugin: Plugin, value: Any) -> tuple[float, ...]:
    """Check a plugin's return value against its weights (and its measures, which follow the objectives):
    a tuple of floats, or :class:`PluginFailed`. Objectives may be infinite, measures may not."""
    arity = len(plugin.weights) + len(plugin.measures)
    if isinstance(value, tuple | list | np.ndarray):
        values = (
            list(np.asarray(value, dtype=object).ravel()) if isinstance(value, np.ndarray) else list(value)
        )
    else:
        values = [value]
    if len(values) != arity:
        expected = "one number" if arity == 1 else f"a tuple of {arity} numbers"
        names = f"objectives {', '.join(plugin.objectives)}"
        if plugin.measures:
            names += f", then measures {', '.join(plugin.measures)}"
        raise PluginFailed(
            plugin.name,
            f"plugin '{plugin.name}' returned {len(values)} value(s); expected {expected} ({names})",
        )
    out = []
    names = (*plugin.objectives, *plugin.measures)
    for k, (objective, v) in enumerate(zip(names, values, strict=True)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise PluginFailed(
                plugin.name,
                f"plugin '{plugin.name}' returned {_short(v)} ({type(v).__name__}) for '{objective}'; "
                "expected a number",
            )
        try:
            f = float(v)
        except (OverflowError, ValueError, TypeError) as exc:  # 10**400; a Real whose float() fails
            raise PluginFailed(
                plugin.name,
                f"plugin '{plugin.name}' returned {_short(v)} for '{objective}'; expected a number that "
                f"fits a float ({type(exc).__name__})",
            ) from None
        if math.isnan(f):
            raise PluginFailed(plugin.name, f"plugin '{plugin.name}' returned NaN for '{objective}'")
        if k >= len(plugin.weights) and not math.isfinite(f):
            message = f"plugin '{plugin.name}' returned {f} for measure '{objective}'; expected a finite one"
            raise PluginFailed(plugin.name, message)
        out.append(f)
    return tuple(out)


def _short(value: Any) -> str:
    try:
        text = " ".join(repr(value).split())
    except BaseException:  # noqa: BLE001 -- whatever a returned object's __repr__ (or int's limit) does
        return f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def read_only_view(creature: Creature) -> Creature:
    """The creature as a plugin is handed it: the same (read-only) arrays, its ``meta`` and ``world`` as
    read-only mappings, so that nothing a plugin does reaches the creature the run keeps and saves."""
    view = object.__new__(type(creature))  # copy.copy's result, without its protocol's detour
    view.__dict__.update(creature.__dict__)
    view.__dict__["meta"] = _frozen_mapping(creature.meta)
    view.__dict__["world"] = _frozen_mapping(creature.world)
    return view


_EMPTY = MappingProxyType({})


def _frozen_mapping(value: Any) -> Any:
    if isinstance(value, Mapping):
        if not value:
            return _EMPTY  # a child's (and most creatures') meta and world
        return MappingProxyType({k: _frozen_mapping(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen_mapping(v) for v in value)
    return value
