"""``score``: hand one simulated creature to its fitness plugin and check what comes back. Every
evaluation path calls it (evaluate, lanes, refine, the studio, every worker); the plugin gets sealed
copies, so nothing it does reaches the creature or the records the run keeps (docs/plugins.md)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from evo.fitness.failure import PluginFailed, is_evos_own, plugin_failure, signals_watched
from evo.fitness.measures import builtin_measures, measure_stride
from evo.fitness.protocol import Plugin, SimulationResult
from evo.fitness.spec import Evaluation, EvaluationSpec, worst_fitness
from evo.fitness.views import read_only_view, sealed
from evo.model import Creature
from evo.sim import Trajectory
from evo.sim.simulate import steps_for

__all__ = ["fitness_values", "read_only_view", "recording_of", "score", "sealed"]


def recording_of(plugin: Plugin, spec: EvaluationSpec) -> tuple[float, int]:
    """(frames between the simulation's records, k): the plugin sees every k-th record. k is 1 unless the
    spec asks for measures, which need records more often (:func:`~evo.fitness.measures.measure_stride`)."""
    every, k = plugin.record_every, 1
    if spec.measures:
        steps = steps_for(plugin.record_every, spec.world.dt, "record_every")
        stride = measure_stride(steps, spec.world.dt)
        if stride < steps:
            every, k = stride * spec.world.dt, steps // stride
    return every, k


def score(
    plugin: Plugin,
    creature: Creature,
    trajectory: Trajectory,
    spec: EvaluationSpec,
    seed: int,
    *,
    centroids: np.ndarray | None = None,
) -> Evaluation:
    """Score ``creature``'s ``trajectory`` (recorded every :func:`recording_of` frames) with ``plugin``.

    The plugin gets :func:`read_only_view` of the creature and :func:`sealed` copies of the records, so
    it changes nothing of the caller's, whatever it writes or ``setflags``. An exploded trajectory gets
    the worst fitness, the plugin not called.

    Args:
        plugin: the spec's plugin, loaded (:func:`evo.fitness.load_ref`).
        creature: the creature simulated.
        trajectory: its simulation in ``spec.world``.
        spec: the frames, params and measures.
        seed: the plugin's seed (``result.seed``, ``result.rng``).
        centroids: ``trajectory``'s centroids ((records, 2) px) when computed already, for a spec without
            measures (:attr:`SimulationResult.centroids` then needs no second computation).

    Returns:
        The :class:`Evaluation`: one value per objective, whether it exploded, the spec's measures.

    Raises:
        PluginFailed: the plugin raised (anything but evo's own time limit or a real Ctrl-C, which pass
            through), or returned something that is not a fitness (or a measure).
    """
    if trajectory.exploded:
        return Evaluation(worst_fitness(plugin.weights), True)
    _, k = recording_of(plugin, spec)
    positions, velocities, frames = trajectory.positions, trajectory.velocities, trajectory.frames
    if k > 1:
        positions, velocities, frames = positions[::k], velocities[::k], frames[::k]
    result = SimulationResult(
        positions=sealed(positions),
        velocities=sealed(velocities),
        frames=sealed(frames),
        total_frames=spec.frames,
        exploded=False,
        model=read_only_view(creature),
        world=spec.world,
        seed=int(seed),
    )
    if centroids is not None and k == 1:
        result.__dict__["centroids"] = sealed(centroids)  # where functools.cached_property keeps it
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
