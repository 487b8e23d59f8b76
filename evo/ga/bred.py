""":class:`BredGeneration`: a GA generation selected, bred and scored on arrays, as the ``shards`` backend's
workers hand it to :meth:`evo.ga.loop.Evolution.tell_bred` (evo/run/shards)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["BredGeneration"]


class BredGeneration(NamedTuple):
    """One generation after the first of a single-objective run, made from the population before it.

    Attributes:
        generation: its number.
        elites: (elites,) the population's rows kept as they are, best first (DEAP's selBest).
        parents: (broods, 2) each pair brood's parents' rows in the population (a lone parent twice).
        flags: (broods, 4) each brood's two parents?, mate?, mutate the first?, mutate the second?
        new: (broods, 2) which of each brood's children are new (the others are their parent's copies;
            a brood of one parent has one child).
        children: the new children's arrays end to end, in order, as the compiled breeding call gives
            them: sizes (n, 2) masses and links, positions (masses, 2), links (2, links), genes (3,
            links) rest, alpha and phi, waves (n, 2) omega and beta, renumbered (n,).
        fitness: (n,) each new child's objective value (the worst where it exploded).
        exploded: (n,) whether each new child's simulation exploded.
        rng: the run's generator's state after the generation's draws.
    """

    generation: int
    elites: np.ndarray
    parents: np.ndarray
    flags: np.ndarray
    new: np.ndarray
    children: tuple[np.ndarray, ...]
    fitness: np.ndarray
    exploded: np.ndarray
    rng: dict[str, Any]

    def check(self, members: int) -> None:
        """Raise ValueError where the arrays do not fit together and a population of ``members``."""
        broods = self.parents.shape[0]
        sizes, positions, links, genes, waves, renumbered = self.children
        n = sizes.shape[0]
        rows = np.concatenate([self.elites.ravel(), self.parents.ravel()])
        fits = (
            self.parents.shape == (broods, 2)
            and self.flags.shape == (broods, 4)
            and self.new.shape == (broods, 2)
            and int(self.new.sum()) == n
            and not (self.new[:, 1] & ~self.flags[:, 0]).any()
            and (rows.size == 0 or (rows.min() >= 0 and rows.max() < members))
            and self.elites.size + broods + int(self.flags[:, 0].sum()) == members
            and sizes.shape == (n, 2)
            and positions.shape == (int(sizes[:, 0].sum()), 2)
            and links.shape == (2, int(sizes[:, 1].sum()))
            and genes.shape == (3, links.shape[1])
            and waves.shape == (n, 2)
            and renumbered.shape == self.fitness.shape == self.exploded.shape == (n,)
        )
        if not fits:
            raise ValueError(
                f"generation {self.generation}: the bred arrays do not fit a population of {members}"
            )
