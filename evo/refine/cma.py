"""CMA-ES as ask/tell: DEAP's :class:`deap.cma.Strategy` (Hansen and Ostermeier 2001) step for step, its
samples drawn from a generator passed in, and its arithmetic done by :mod:`evo.refine.linalg` so that a
refinement gives the same bits on every CPU (why: docs/refine.md, "The same result on every machine").
"""

from __future__ import annotations

import math

import numpy as np

from evo.refine import linalg

__all__ = ["CMAES", "population_size"]


def population_size(dimension: int, lanes: int = 8) -> int:
    """λ: DEAP's default ``4 + 3 ln d``, rounded up to a whole number of ``lanes`` (the SIMD width of the
    batched kernel, so that a generation fills its lanes), and at least 2 lanes' worth."""
    default = int(4 + 3 * linalg.exact_log(max(1, dimension)))
    return max(2 * lanes, -(-default // lanes) * lanes)


class CMAES:
    """DEAP's strategy (superlinear weights, μ = λ / 2, its default learning rates) with :meth:`ask`
    drawing from ``rng`` and :meth:`tell` taking plain arrays; no LAPACK, BLAS or libm on the way.

    Args:
        centroid: (d,) array, the mean to start from.
        sigma: the first step size (in the vector's units).
        rng: the generator every sample is drawn from.
        lambda_: samples per generation (default :func:`population_size`).

    Attributes:
        centroid, sigma, C ((d, d) covariance), ps and pc (the evolution paths), B (eigenvectors as
        columns), diagD (square roots of the eigenvalues, ascending) and BD (B scaled by diagD), as DEAP
        names them.
    """

    def __init__(
        self, centroid: np.ndarray, sigma: float, rng: np.random.Generator, lambda_: int | None = None
    ):
        self.centroid = np.array(centroid, dtype=np.float64)
        self.dim = d = len(self.centroid)
        self.sigma = float(sigma)
        self.rng = rng
        self.lambda_ = int(lambda_ or population_size(d))
        self.pc = np.zeros(d)
        self.ps = np.zeros(d)
        self.chiN = math.sqrt(d) * (1 - 1.0 / (4.0 * d) + 1.0 / (21.0 * d * d))
        self.C = np.identity(d)
        self.update_count = 0
        self._decompose()
        mu = self.mu = self.lambda_ // 2
        log_top = linalg.exact_log(mu + 0.5)
        weights = np.array([log_top - linalg.exact_log(i) for i in range(1, mu + 1)])
        self.weights = weights / _ordered_sum(weights.tolist())
        self.mueff = 1.0 / _ordered_sum((self.weights * self.weights).tolist())
        self.cc = 4.0 / (d + 4.0)
        self.cs = (self.mueff + 2.0) / (d + self.mueff + 3.0)
        self.ccov1 = 2.0 / ((d + 1.3) * (d + 1.3) + self.mueff)
        self.ccovmu = 2.0 * (self.mueff - 2.0 + 1.0 / self.mueff) / ((d + 2.0) * (d + 2.0) + self.mueff)
        self.ccovmu = min(1 - self.ccov1, self.ccovmu)
        self.damps = 1.0 + 2.0 * max(0, math.sqrt((self.mueff - 1.0) / (d + 1.0)) - 1.0) + self.cs

    def _decompose(self) -> None:
        """B, diagD and BD of C (eigenvalues ascending, as DEAP sorts them)."""
        values, self.B = linalg.symmetric_eigen(self.C)
        self.cond = float(values[-1] / values[0]) if values[0] > 0 else math.inf
        self.diagD = np.sqrt(np.maximum(values, 0.0))  # sqrt is exact in IEEE arithmetic
        self.BD = self.B * self.diagD

    def generate(self, ind_init):  # noqa: ANN001, ANN201 -- DEAP's signature
        return [ind_init(x) for x in self.ask()]

    def ask(self) -> np.ndarray:
        """(λ, d) array: this generation's samples, centroid + σ · B D z with z ~ N(0, I) from ``rng``."""
        z = self.rng.standard_normal((self.lambda_, self.dim))
        return self.centroid + self.sigma * linalg.rows_times_transposed(z, self.BD)

    def tell(self, samples: np.ndarray, values: np.ndarray) -> None:
        """Move the distribution on from the samples ((λ, d) array, as evaluated, after any repair) and
        their values ((λ,) array, larger is better; -inf for the worst). Ties keep the samples' order."""
        samples = np.asarray(samples, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        if samples.shape != (len(values), self.dim):
            raise ValueError(f"expected ({len(values)}, {self.dim}) samples, got {samples.shape}")
        # best first, ties in the samples' order: what DEAP's list.sort(key=fitness, reverse=True) gives
        order = np.argsort(-values, kind="stable")
        self._update(np.ascontiguousarray(samples[order][: self.mu]))

    def _update(self, best: np.ndarray) -> None:
        """DEAP's ``Strategy.update`` from the μ best samples ((μ, d) array, best first)."""
        old_centroid = self.centroid
        self.centroid = linalg.weighted_rows(self.weights, best)
        c_diff = self.centroid - old_centroid
        whitened = linalg.times(self.B, (1.0 / self.diagD) * linalg.transposed_times(self.B, c_diff))
        self.ps = (1 - self.cs) * self.ps + math.sqrt(
            self.cs * (2 - self.cs) * self.mueff
        ) / self.sigma * whitened
        fading = math.sqrt(1.0 - linalg.int_power(1.0 - self.cs, 2 * (self.update_count + 1)))
        hsig = float(linalg.norm(self.ps) / fading / self.chiN < (1.4 + 2.0 / (self.dim + 1.0)))
        self.update_count += 1
        self.pc = (1 - self.cc) * self.pc + hsig * math.sqrt(
            self.cc * (2 - self.cc) * self.mueff
        ) / self.sigma * c_diff
        artmp = np.ascontiguousarray(best - old_centroid)
        keep = 1 - self.ccov1 - self.ccovmu + (1 - hsig) * self.ccov1 * self.cc * (2 - self.cc)
        rank_one = self.pc[:, None] * self.pc[None, :]  # an outer product: one multiplication per entry
        self.C = (
            keep * self.C
            + self.ccov1 * rank_one
            + self.ccovmu * linalg.rank_mu(self.weights, artmp) / (self.sigma * self.sigma)
        )
        step = (linalg.norm(self.ps) / self.chiN - 1.0) * self.cs / self.damps
        self.sigma *= linalg.exact_exp(step)
        self._decompose()


def _ordered_sum(values: list[float]) -> float:
    """A sum in list order (numpy's pairwise sum may group differently on another build)."""
    total = 0.0
    for value in values:
        total += value
    return total
