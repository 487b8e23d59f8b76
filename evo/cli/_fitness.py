"""``evo simulate MODEL --plugin NAME``: score a model with a fitness plugin, as a run would have.

An elite of a run records in its ``meta`` the plugin, its params, the frames, the seed and the plugin
paths it was evaluated with, and in its ``world`` the run's world. When ``--plugin`` names the plugin of
the meta, those are the defaults (``--params``, ``--frames``, ``--seed`` and ``--plugin-path`` add to or
override them), so the fitness printed is the one in the meta, bit for bit.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.model import Creature
from evo.sim.world import World


def plugin_spec(creature: Creature, args: argparse.Namespace, world: World, frames: int) -> tuple[Any, int]:
    """(EvaluationSpec, seed) for ``--plugin``; raises :class:`EvoInputError` on bad options."""
    from evo.fitness import check_params, find_plugin
    from evo.fitness.evaluate import EvaluationSpec

    meta = creature.meta if isinstance(creature.meta, dict) else {}
    from_run = meta.get("plugin") == args.plugin
    paths = list(args.plugin_path)
    if from_run:
        paths += [p for p in meta.get("plugin_paths", []) if isinstance(p, str) and Path(p).exists()]
    plugin = find_plugin(args.plugin, paths, field="--plugin")
    params = dict(meta.get("params", {})) if from_run and isinstance(meta.get("params"), dict) else {}
    if args.params:
        try:
            given = json.loads(args.params)
        except json.JSONDecodeError as exc:
            raise EvoInputError(f"--params: not valid JSON: {exc.msg}") from None
        if not isinstance(given, dict):
            raise EvoInputError(f"--params: expected a JSON object, got {args.params!r}")
        params.update(given)
    params = check_params(plugin, params, source=None, where="--params")
    seed = args.seed
    if seed is None:
        seed = meta.get("seed") if from_run and isinstance(meta.get("seed"), int) else 0
    return EvaluationSpec(world=world, frames=int(frames), plugin=plugin.ref(), params=params), int(seed)


def score(creature: Creature, spec: Any, seed: int) -> list[float | str] | None:
    """Evaluate and print one line; the fitness as a JSON-safe list, or None if the plugin failed."""
    from evo.fitness import load_ref
    from evo.fitness.evaluate import PluginFailed, evaluate
    from evo.io.checkpoint import encode_numbers

    try:
        outcome = evaluate(creature, spec, seed)
    except PluginFailed as exc:
        print(f"evo simulate: error: {exc.message}", file=sys.stderr)
        return None
    names = load_ref(spec.plugin).objectives
    text = ", ".join(f"{n} {v:.6g}" for n, v in zip(names, outcome.fitness, strict=True))
    print(f"fitness ({spec.plugin.name}): {text}" + ("  (EXPLODED)" if outcome.exploded else ""))
    return encode_numbers(outcome.fitness)
