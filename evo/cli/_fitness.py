"""``evo simulate MODEL --plugin NAME``: score a model with a fitness plugin, as a run would have.

An elite's ``meta`` (plugin, params, frames, seed, plugin paths) and ``world`` are the defaults when
``--plugin`` names its plugin, so the fitness printed is the one in the meta, bit for bit
(docs/runs.md, "elites/").
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evo.errors import EvoInputError, digits_problem, one_line
from evo.model import Creature
from evo.schema import shown
from evo.sim.world import World


def params_of(text: str | None) -> dict[str, Any] | None:
    """The plugin keyword arguments of ``--params`` (a JSON object), or None when it is not given.

    Raises:
        EvoInputError: not JSON (an integer of more than 4300 digits included), or not an object.
    """
    if not text:
        return None
    try:
        params = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EvoInputError(f"--params: not valid JSON: {exc.msg}") from None
    except ValueError as exc:  # an integer literal of more than 4300 digits
        raise EvoInputError(f"--params: not valid JSON: {digits_problem(exc) or exc}") from None
    if not isinstance(params, dict):
        raise EvoInputError(f"--params: expected a JSON object, got {shown(text)}")
    return params


def plugin_spec(creature: Creature, args: argparse.Namespace, world: World, frames: int) -> tuple[Any, int]:
    """(EvaluationSpec, seed) for ``--plugin`` (see :func:`evo.run.rescore.scoring`)."""
    from evo.run.rescore import scoring

    params = params_of(args.params)
    return scoring(
        creature,
        args.plugin,
        world=world,
        frames=frames,
        params=params,
        seed=args.seed,
        plugin_paths=args.plugin_path,
        where="--params",
    )


def score(
    creature: Creature, spec: Any, seed: int, *, out: Any = None, debug: bool = False
) -> list[float | str] | None:
    """Evaluate and print one line (on ``out``, default stdout); the fitness as a JSON-safe list, or None
    if the plugin failed (its one-line error on stderr, and with ``debug`` the plugin's traceback first)."""
    from evo.fitness import load_ref
    from evo.fitness.evaluate import PluginFailed, evaluate
    from evo.io.numbers import encode_numbers

    try:
        outcome = evaluate(creature, spec, seed)
    except PluginFailed as exc:
        if debug and exc.traceback:
            print(exc.traceback, end="", file=sys.stderr)
        hint = " (--debug shows the traceback)" if exc.traceback and not debug else ""
        print(f"evo simulate: error: {one_line(exc.message)}{hint}", file=sys.stderr)
        return None
    names = load_ref(spec.plugin).objectives
    text = ", ".join(f"{n} {v:.6g}" for n, v in zip(names, outcome.fitness, strict=True))
    line = f"fitness ({spec.plugin.name}): {text}" + ("  (EXPLODED)" if outcome.exploded else "")
    settle = spec.params.get("settle_frames")
    if isinstance(settle, int | float) and settle:
        line += f"  (counted from frame {settle:g}, settle_frames)"
    print(line, file=out or sys.stdout)
    return encode_numbers(outcome.fitness)
