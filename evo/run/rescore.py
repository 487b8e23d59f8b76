"""Score a creature with a fitness plugin as its run did: the plugin, params, frames, seed and plugin paths
of its typed ``meta`` (:class:`~evo.io.provenance.Provenance`) are the defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evo.fitness import Evaluation, EvaluationSpec, check_params, evaluate, find_plugin
from evo.io.provenance import Provenance
from evo.model import Creature
from evo.sim import DEFAULT_FRAMES, World

__all__ = ["rescore", "scoring"]


def scoring(
    creature: Creature,
    plugin: str,
    *,
    world: World | None = None,
    frames: int | None = None,
    params: Mapping[str, Any] | None = None,
    seed: int | None = None,
    plugin_paths: Sequence[str] = (),
    where: str = "params",
) -> tuple[EvaluationSpec, int]:
    """(EvaluationSpec, seed) that score ``creature`` with ``plugin``. When its meta says it was scored by
    that plugin in a run, the run's params, frames, seed and plugin paths are the defaults (``params``
    add to or override them), so its fitness comes out bit for bit.

    Raises:
        EvoInputError: an unknown plugin (the message says how to add a folder) or bad params.
    """
    provenance = Provenance.from_meta(creature.meta)
    from_run = provenance is not None and provenance.plugin == plugin
    paths = list(plugin_paths)
    if from_run:
        paths += [p for p in provenance.plugin_paths if Path(p).exists()]
    found = find_plugin(
        plugin, paths, field="--plugin", how_to_add="add its folder or file with --plugin-path"
    )
    given = dict(provenance.params) if from_run else {}
    given.update(params or {})
    checked = check_params(found, given, source=None, where=where)
    if frames is None:
        frames = provenance.frames if from_run else DEFAULT_FRAMES
    if seed is None:
        seed = provenance.seed if from_run and provenance.seed is not None else 0
    world = world or World.from_model(creature)
    return EvaluationSpec(world=world, frames=int(frames), plugin=found.ref(), params=checked), int(seed)


def rescore(creature: Creature, plugin: str | None = None, **options: Any) -> Evaluation:
    """Evaluate ``creature`` with ``plugin`` (default: the plugin its meta names) as :func:`scoring` sets
    it up; an elite of a run gets exactly the fitness in its meta.

    Raises:
        EvoInputError: no plugin given and none in the meta, an unknown plugin or bad params.
        PluginFailed: the plugin raised.
    """
    if plugin is None:
        provenance = Provenance.from_meta(creature.meta)
        if provenance is None:
            from evo.errors import EvoInputError

            raise EvoInputError("the creature's meta names no plugin: give one")
        plugin = provenance.plugin
    spec, seed = scoring(creature, plugin, **options)
    return evaluate(creature, spec, seed)
