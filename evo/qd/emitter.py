"""evo's pyribs emitter: parents sampled from the archive, children made by evo's graph operators.

``ask`` returns its :class:`EmitterPlan`: the serial numbers of the children it plans (int64, pyribs'
solutions) with their :class:`~evo.ga.brood.Brood` s, bred and evaluated wherever the run's backend runs
them (:meth:`evo.qd.archive.FiniteScheduler.ask_plans` asks every emitter)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from ribs.archives import ArchiveBase
from ribs.emitters import EmitterBase

from evo.ga.brood import PAIR, RANDOM, Brood
from evo.ga.individual import Individual
from evo.ga.settings import GASection

__all__ = ["EmitterPlan", "GraphEmitter"]


@dataclass(frozen=True)
class EmitterPlan:
    """What one emitter's :meth:`GraphEmitter.ask` plans: the (children,) int64 ``serials`` the children
    will have in the archive, and per brood, in order, the brood and its parents (none for RANDOM)."""

    serials: np.ndarray
    broods: tuple[tuple[Brood, tuple[Individual, ...]], ...]


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

    def _seed(self) -> int:
        return int(self.rng.integers(2**63))

    def ask(self) -> EmitterPlan:  # type: ignore[override]  # pyribs' emitters return the solutions alone
        """Plan ``batch_size`` children: their serials and broods."""
        rng, ga = self.rng, self.ga
        parents = list(self._elites())
        plan: list[tuple[Brood, tuple[Individual, ...]]] = []
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
        count = sum(1 if brood.kind == RANDOM else len(brood.parents) for brood, _ in plan)
        return EmitterPlan(np.array([self._serials() for _ in range(count)], dtype=np.int64), tuple(plan))
