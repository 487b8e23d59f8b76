"""The hall of fame (and a generation's best) as model files: their provenance, names and texts."""

from __future__ import annotations

import math

from evo.fitness import Plugin
from evo.ga.individual import Individual
from evo.io.checkpoint.document import model_document
from evo.io.models import dumps_model
from evo.io.provenance import Provenance
from evo.io.run_folder.folder import elite_file_name, model_digest
from evo.model import Creature
from evo.run.config import Config

__all__ = ["EliteFiles", "generation_best", "provenance_of"]


def provenance_of(config: Config, ind: Individual, objectives: tuple[str, ...]) -> Provenance:
    """The provenance an elite's (or a generation best's) model file records."""
    return Provenance(
        run=config.run.name,
        id=ind.id,
        generation=ind.born,
        plugin=config.evaluation.plugin,
        frames=config.evaluation.frames,
        parents=tuple(ind.parents),
        plugin_paths=tuple(config.evaluation.plugin_paths),
        params=dict(config.evaluation.params),
        seed=ind.seed,
        fitness=tuple(ind.values or ()),
        objectives=objectives,
    )


class EliteFiles:
    """The hall of fame as model files: names in rank order, texts made once per individual. An elite's
    rank is in its file name only, so an elite that moves in rank keeps its bytes."""

    def __init__(self, config: Config, plugin: Plugin):
        self.config = config
        self.objectives = tuple(plugin.objectives)
        self.world = config.world.to_dict()
        self._digests: dict[str, str] = {}
        self._texts: dict[str, str] = {}
        self._last: tuple[str, str] = ("", "")  # (id, text) of the last text made: a best told again

    def creature(self, ind: Individual) -> Creature:
        meta = provenance_of(self.config, ind, self.objectives).to_meta()
        return ind.creature.replace(name=f"{self.config.run.name}-{ind.id}", world=self.world, meta=meta)

    def names(self, members: list[Individual]) -> list[tuple[str, Individual]]:
        """(file name, individual), best first."""
        digests = {m.id: self._digests.get(m.id) or model_digest(model_document(m)) for m in members}
        self._digests = digests
        return [
            (elite_file_name(rank, len(members), ind.born, digests[ind.id]), ind)
            for rank, ind in enumerate(members, start=1)
        ]

    def texts(self, named: list[tuple[str, Individual]]) -> list[tuple[str, str]]:
        """(file name, model text) of each elite."""
        texts = {ind.id: self.text(ind) for _, ind in named}
        self._texts = texts
        return [(name, texts[ind.id]) for name, ind in named]

    def text(self, ind: Individual) -> str:
        """The model text of ``ind``, made once while it is an elite or the last one asked for (a
        generation's best is most often the one before's: told individuals never change)."""
        text = self._texts.get(ind.id)
        if text is None:
            last_id, text = self._last
            if not ind.id or last_id != ind.id or not text:  # (an individual without an id: made anew)
                text = dumps_model(self.creature(ind))
                self._last = (ind.id, text)
        return text


def generation_best(population: list[Individual]) -> Individual | None:
    """The fittest evaluated individual of a generation with finite fitness (DEAP's weighted order)."""
    finite = [ind for ind in population if ind.values and all(map(math.isfinite, ind.values))]
    # DEAP's ``a > b`` is ``not a.wvalues <= b.wvalues``: for weighted values without NaN (finite values
    # times finite weights) that is ``a.wvalues > b.wvalues``, compared here without DEAP's Python
    return max(finite, key=_weighted, default=None)


def _weighted(ind: Individual) -> tuple[float, ...]:
    return ind.fitness.wvalues
