"""One evaluation: simulate a creature, then :func:`~evo.fitness.score.score` it with a fitness plugin.

The narrow seam between the GA and the simulator: plain data in (:class:`EvaluationSpec`), plain data
out (:class:`Evaluation`), bit-identical in any process. Exploded creatures get the worst fitness; a bad
plugin raises :class:`PluginFailed` (docs/internals.md, "One evaluation").
"""

from __future__ import annotations

from evo.fitness.failure import PluginFailed
from evo.fitness.registry import load_ref
from evo.fitness.score import fitness_values, read_only_view, recording_of, score
from evo.fitness.spec import Evaluation, EvaluationSpec, worst_fitness
from evo.model import Creature
from evo.sim import Trajectory, simulate

__all__ = [
    "Evaluation",
    "EvaluationSpec",
    "PluginFailed",
    "evaluate",
    "fitness_values",
    "read_only_view",
    "recording",
    "score",
    "worst_fitness",
]


def recording(spec: EvaluationSpec) -> tuple[float, int]:
    """(frames between the simulation's records, k): the plugin sees every k-th record
    (:func:`~evo.fitness.score.recording_of` for the spec's plugin)."""
    return recording_of(load_ref(spec.plugin), spec)


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
    if trajectory is None:
        every, _ = recording_of(plugin, spec)
        trajectory = simulate(creature, spec.world, spec.frames, record_every=every)
    return score(plugin, creature, trajectory, spec, seed)
