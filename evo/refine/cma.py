"""CMA-ES as ask/tell: DEAP's :class:`deap.cma.Strategy` (Hansen and Ostermeier 2001), drawing its samples
from a generator passed in instead of numpy's global one (why DEAP's: docs/refine.md)."""

from __future__ import annotations

import math

import numpy as np
from deap import cma

__all__ = ["CMAES", "population_size"]


def population_size(dimension: int, lanes: int = 8) -> int:
    """λ: DEAP's default ``4 + 3 ln d``, rounded up to a whole number of ``lanes`` (the SIMD width of the
    batched kernel, so that a generation fills its lanes), and at least 2 lanes' worth."""
    default = int(4 + 3 * math.log(max(1, dimension)))
    return max(2 * lanes, -(-default // lanes) * lanes)


class _Point(np.ndarray):
    """A sample with the ``fitness`` DEAP's ``update`` sorts by (larger is better)."""

    fitness: float


class CMAES(cma.Strategy):
    """DEAP's strategy with two changes: :meth:`ask` draws from ``rng`` (``generate`` would draw from
    ``numpy.random``), and :meth:`tell` takes plain arrays.

    Args:
        centroid: (d,) array, the mean to start from.
        sigma: the first step size (in the vector's units).
        rng: the generator every sample is drawn from.
        lambda_: samples per generation (default :func:`population_size`).
    """

    def __init__(
        self, centroid: np.ndarray, sigma: float, rng: np.random.Generator, lambda_: int | None = None
    ):
        dimension = len(centroid)
        super().__init__(
            np.asarray(centroid, dtype=np.float64),
            float(sigma),
            lambda_=int(lambda_ or population_size(dimension)),
        )
        self.rng = rng

    def generate(self, ind_init):  # noqa: ANN001, ANN201 -- DEAP's signature
        return [ind_init(x) for x in self.ask()]

    def ask(self) -> np.ndarray:
        """(λ, d) array: this generation's samples, centroid + σ · B D z with z ~ N(0, I) from ``rng``."""
        z = self.rng.standard_normal((self.lambda_, self.dim))
        return self.centroid + self.sigma * np.dot(z, self.BD.T)

    def tell(self, samples: np.ndarray, values: np.ndarray) -> None:
        """Move the distribution on from the samples ((λ, d) array, as evaluated, after any repair) and
        their values ((λ,) array, larger is better; -inf for the worst). Ties keep the samples' order."""
        population = []
        for x, value in zip(np.asarray(samples, dtype=np.float64), values, strict=True):
            point = np.array(x).view(_Point)
            point.fitness = float(value)
            population.append(point)
        super().update(population)  # a stable sort by fitness, best first, then the best mu
