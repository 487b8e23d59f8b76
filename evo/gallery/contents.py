"""The best creature of every generation, for the gallery's evolution view.

Run folders written by ``evo run`` keep ``generations/genNNNN.json`` (exact). For older folders without
them, :func:`generation_bests` rebuilds the bests from the elites and the checkpoint's last population.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evo.errors import EvoInputError
from evo.io.models import creature_from_dict, dumps_model
from evo.io.run_folder.contents import Entry, RunContents, finite_values
from evo.io.run_folder.folder import model_digest

__all__ = ["GenerationBest", "generation_bests"]


@dataclass(frozen=True)
class GenerationBest:
    """The best creature of one generation: ``entry`` (None when none is known) and whether it is
    exactly the generation's best (``exact``) or the best creature kept that was born by then."""

    generation: int
    entry: Entry | None
    exact: bool


def _population_entries(run: RunContents, world: Mapping[str, Any]) -> list[Entry]:
    """The last population of the checkpoint, as entries with the run's world (for reconstruction)."""
    out = []
    for doc in (run.checkpoint or {}).get("population", []):
        try:
            creature = creature_from_dict(doc["model"], source="checkpoint.json")
            fitness = finite_values(doc.get("fitness"))
            born = int(doc["born"])
        except (KeyError, TypeError, ValueError, EvoInputError):
            continue
        meta = {**creature.meta, "id": doc.get("id"), "generation": born, "fitness": doc.get("fitness")}
        creature = creature.replace(world=creature.world or world, meta=meta)
        name = f"population_{doc.get('id', 'unknown')}.json"
        out.append(Entry(creature, dumps_model(creature), name, fitness, born, model_digest(creature)))
    return out


def generation_bests(run: RunContents, world: Mapping[str, Any] | None = None) -> list[GenerationBest]:
    """The best creature of each generation of ``history.csv``, judged by the first objective; ``world`` is
    the run's ``[world]`` table as parsed (default: config.toml's as read), given to rebuilt creatures.

    With ``generations/genNNNN.json`` files these are exact. Otherwise the candidates are the elites and
    the checkpoint's last population: for generation g, a candidate born by g whose first objective
    equals the history's best of g is that generation's best (``exact``); failing that, the best
    candidate born by g stands in for it (``exact`` False: the real best was not kept by the run).
    """
    rows = run.history
    if not rows or not run.objectives:
        return []
    first, sign = run.objectives[0], (1.0 if not run.weights or run.weights[0] > 0 else -1.0)
    world = run.section("world") if world is None else world  # the [world] table of config.toml
    candidates = {e.digest: e for e in [*_population_entries(run, world), *run.elites]}  # elites win a tie
    ranked = sorted(
        (
            e
            for e in candidates.values()
            if e.fitness and e.fitness[0] is not None and e.generation is not None
        ),
        key=lambda e: -sign * e.fitness[0],
    )
    out = []
    for row in rows:
        g = int(row.get("generation", len(out)))
        if g in run.saved_bests:
            out.append(GenerationBest(g, run.saved_bests[g], True))
            continue
        target = row.get(f"{first}_best", math.nan)
        born = [e for e in ranked if e.generation <= g]
        exact = [e for e in born if math.isclose(e.fitness[0], target, rel_tol=1e-12, abs_tol=1e-12)]
        if exact:
            out.append(GenerationBest(g, exact[0], True))
        else:
            out.append(GenerationBest(g, born[0] if born else None, False))
    return out
