"""What generation 0 will change in a config's seed models that break the ``[genome]`` limits: one warning
line per such model, printed by ``evo validate CONFIG`` and ``evo run`` (docs/runs.md, "Generation 0")."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["seed_model_changes", "warn_seed_model_changes"]


def seed_model_changes(config: Any) -> list[tuple[str, list[str]]]:
    """(path, the limits it breaks) for each seed model of ``config`` outside its ``[genome]`` limits."""
    from evo.ga.creatures import problems
    from evo.io.models import load_model

    out = []
    for path in config.genome.seed_models:
        broken = problems(load_model(path), config.genome)
        if broken:
            out.append((path, broken))
    return out


def warn_seed_model_changes(command: str, source: str, config: Any) -> None:
    """Print one warning line on stderr per seed model that generation 0 will change, and how."""
    for path, broken in seed_model_changes(config):
        print(
            f"evo {command}: warning: {source}: [genome] seed_models: {path} is outside the [genome] limits, "
            f"so generation 0 brings it within them (extra masses and links removed, values clipped, fixed "
            f"masses freed): {'; '.join(broken)}",
            file=sys.stderr,
        )
