"""The run's hall of fame: DEAP's, keeping near-duplicates out without ever losing the best creature."""

from __future__ import annotations

import math
from collections.abc import Sequence

from deap import tools

from evo.ga.individual import Individual

__all__ = ["HallOfFame"]


class HallOfFame(tools.HallOfFame):
    """DEAP's hall of fame that keeps near-duplicates out without ever losing the best creature.

    DEAP rejects any newcomer similar to a member, even a better one. Here a newcomer better than every
    member it is similar to replaces them; one similar to a better member stays out. Only individuals
    with finite fitness enter.
    """

    def update(self, population: Sequence[Individual]) -> None:
        items, size = self.items, self.maxsize  # DEAP changes ``items`` in place
        for ind in population:
            # not better than the last member of a full hall (``not ind.fitness > last``, compared by
            # weighted values as DEAP's Fitness does), then not finite: both only skip, cheaper first
            if len(items) >= size and ind.fitness.wvalues <= items[-1].fitness.wvalues:
                continue
            if not all(math.isfinite(v) for v in ind.fitness.values):
                continue
            if any(member.id == ind.id for member in self):  # a copy of a member
                continue
            alike = self._alike(ind)
            if alike is None:  # like a member at least as good: stays out
                continue
            if not alike:
                if len(self) >= self.maxsize:
                    self.remove(-1)
                self.insert(ind)
            else:  # better than every member it is like: replaces them
                for k in reversed(alike):
                    self.remove(k)
                self.insert(ind)

    def _alike(self, ind: Individual) -> list[int] | None:
        """The positions of the members ``ind`` is similar to, all worse than it; None as soon as one is
        not (the members after it need not be compared)."""
        alike = []
        for k, member in enumerate(self):
            if self.similar(ind, member):
                if not ind.fitness > member.fitness:
                    return None
                alike.append(k)
        return alike

    def restore(self, members: Sequence[Individual]) -> None:
        """Put back members saved best first, in the same order."""
        self.items = list(members)
        self.keys = [m.fitness for m in reversed(self.items)]
