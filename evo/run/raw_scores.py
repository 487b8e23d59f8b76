"""The raw scores of a robust run's elites: each re-scored in the run's own, unperturbed world, to be shown
beside the robust fitness the run selected on (``evo inspect``, the gallery; docs/audit.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evo.errors import EvoInputError
from evo.fitness.evaluate import evaluate
from evo.fitness.failure import PluginFailed
from evo.model import Creature
from evo.run.config import parse_config, resolve

__all__ = ["raw_scores", "robust_settings"]


def robust_settings(config: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``[evaluation] robust`` table of a run's resolved config (``config.toml`` as read), or None."""
    evaluation = config.get("evaluation")
    robust = evaluation.get("robust") if isinstance(evaluation, Mapping) else None
    return robust if isinstance(robust, Mapping) else None


def raw_scores(
    config: Mapping[str, Any], elites: Iterable[tuple[Creature, int | None]]
) -> list[tuple[float, ...] | None] | None:
    """Each elite's fitness in the run's unperturbed world, with the plugin seed it was scored with.

    Args:
        config: the run's resolved configuration (``config.toml`` as read).
        elites: (creature, plugin seed) pairs; a None seed is taken as 0.

    Returns:
        One fitness tuple per elite (None where its plugin failed or cannot be loaded here), or None for
        a run without ``[evaluation] robust``.
    """
    if robust_settings(config) is None:
        return None
    try:
        spec = resolve(parse_config(config)).evaluation_spec()
    except EvoInputError:
        return [None for _ in elites]
    out: list[tuple[float, ...] | None] = []
    for creature, seed in elites:
        try:
            out.append(tuple(evaluate(creature, spec, int(seed or 0)).fitness))
        except (PluginFailed, EvoInputError):
            out.append(None)
    return out
