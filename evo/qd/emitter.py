"""evo's pyribs emitter: parents sampled from the archive, children made by evo's graph operators.

``ask`` returns the serial numbers of the children it plans (int64, pyribs' solutions) and keeps the
plan itself -- :class:`~evo.ga.brood.Brood` s, bred and evaluated wherever the run's backend runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from ribs.archives import ArchiveBase
from ribs.emitters import EmitterBase

from evo.ga.brood import PAIR, RANDOM, Brood
from evo.ga.individual import Individual
from evo.ga.settings import GASection

__all__ = ["GraphEmitter"]

Plan = tuple[Brood, tuple[Individual, ...]]


class GraphEmitter(EmitterBase):
    """Samples ``batch_size`` elites uniformly (with replacement) from the archive, pairs them in turn,
    mates a pair with probability ``crossover_rate`` (evo's cut and wave crossover) and mutates each
    child with probability ``mutation_rate`` -- always when its pair was not mated, so that every child
    is new. An empty archive gets random creatures instead.

    Every draw comes from ``rng``, the run's generator (shared by the emitters, saved in checkpoints);
    the operators themselves draw from each brood's seed.

    Args:
        archive: the pyribs archive (solutions are serial numbers).
        rng: the run's ``numpy.random.Generator``.
        batch_size: children per :meth:`ask`.
        ga: the variation rates.
        elites: returns the archive's elites as individuals, in cell order.
        serials: returns the next unused serial number each time it is called.
    """

    def __init__(
        self,
        archive: ArchiveBase,
        *,
        rng: np.random.Generator,
        batch_size: int,
        ga: GASection,
        elites: Callable[[], Sequence[Individual]],
        serials: Callable[[], int],
    ):
        limit = np.iinfo(np.int64).max
        super().__init__(archive, solution_dim=(), bounds=None, lower_bounds=0, upper_bounds=limit)
        self.rng = rng
        self.batch_size = int(batch_size)
        self.ga = ga
        self._elites = elites
        self._serials = serials
        self.planned: list[Plan] = []

    def _seed(self) -> int:
        return int(self.rng.integers(2**63))

    def ask(self) -> np.ndarray:
        """Plan ``batch_size`` children (in :attr:`planned`); returns their (batch_size,) serials."""
        rng, ga = self.rng, self.ga
        parents = list(self._elites())
        plan: list[Plan] = []
        if not parents:
            plan = [(Brood(RANDOM, self._seed()), ()) for _ in range(self.batch_size)]
        else:
            picks = rng.integers(len(parents), size=self.batch_size)
            for i in range(0, self.batch_size, 2):
                pair = tuple(parents[int(j)] for j in picks[i : i + 2])
                mate = len(pair) == 2 and bool(rng.random() < ga.crossover_rate)
                draws = rng.random(len(pair))
                mutate = tuple(bool(u < ga.mutation_rate) or not mate for u in draws)
                brood = Brood(PAIR, self._seed(), tuple(p.creature for p in pair), mate=mate, mutate=mutate)
                plan.append((brood, pair))
        self.planned = plan
        count = sum(1 if brood.kind == RANDOM else len(brood.parents) for brood, _ in plan)
        return np.array([self._serials() for _ in range(count)], dtype=np.int64)
