"""``refine``: tune a fixed body's gait with CMA-ES, every generation of candidates simulated together in
SIMD lanes and scored as a run scores its children (the plugin, the time limit, exploded = worst)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.fitness import Plugin, load_ref
from evo.fitness.evaluate import Evaluation, EvaluationSpec, recording
from evo.ga.search import ChildResult, Plan, checked_results
from evo.ga.settings import GenomeSection
from evo.model import Creature
from evo.refine.cma import CMAES, population_size
from evo.refine.genes import GENES, GeneSpace
from evo.refine.lanes import TimeLimit, evaluate_lanes, in_lanes, scores
from evo.sim import World, simulate

__all__ = ["RefineProgress", "RefineResult", "Refinement", "evaluate_lanes", "refine"]


@dataclass(frozen=True)
class RefineProgress:
    """Where a refinement stands after one CMA-ES generation (what each callback is given).

    Attributes:
        generation: the CMA-ES generation just evaluated (0 is the first after the start).
        evaluations: candidates evaluated so far, the start creature included.
        budget: the most evaluations the refinement may make.
        best_fitness: the best value of the objective so far (the plugin's own value, not weighted).
        best: the best creature so far (the start creature until a candidate beats it).
        sigma: CMA-ES's step size now (in units of the genes' ranges).
        batched: the generation's candidates simulated together in SIMD lanes (the others one by one:
            :func:`~evo.refine.lanes.in_lanes`), for benchmarks.
    """

    generation: int
    evaluations: int
    budget: int
    best_fitness: float
    best: Creature
    sigma: float
    batched: int = 0


@dataclass(frozen=True)
class RefineResult:
    """What :func:`refine` found.

    Attributes:
        best: the best creature (the start creature when nothing beat it), its ``meta["refined"]`` saying
            what it was refined from, which genes, the plugin and the gain.
        fitness: its value of the objective (the plugin's own value).
        start_fitness: the start creature's value.
        evaluations: candidates evaluated, the start creature included.
        genes: the genes tuned.
        history: one :class:`RefineProgress` per CMA-ES generation.
        stopped: whether a callback stopped it before the budget was spent.
    """

    best: Creature
    fitness: float
    start_fitness: float
    evaluations: int
    genes: tuple[str, ...]
    history: tuple[RefineProgress, ...]
    stopped: bool = False

    @property
    def gain(self) -> float:
        """fitness / start_fitness (nan unless the start's value is finite and positive)."""
        if not (math.isfinite(self.start_fitness) and self.start_fitness > 0):
            return math.nan
        return self.fitness / self.start_fitness


def _json_number(value: float) -> float | str:
    """A float as model files write it: non-finite ones as the strings "inf", "-inf", "nan"."""
    return float(value) if math.isfinite(value) else str(float(value))


def _spec_for(creature: Creature, fitness: str | EvaluationSpec, world: World | None) -> EvaluationSpec:
    if isinstance(fitness, EvaluationSpec):
        return fitness
    from evo.fitness import check_params, find_plugin
    from evo.sim import DEFAULT_FRAMES

    found = find_plugin(fitness, (), field="fitness")
    return EvaluationSpec(
        world=world or World.from_model(creature),
        frames=DEFAULT_FRAMES,
        plugin=found.ref(),
        params=check_params(found, {}, source=None, where="params"),
    )


def refine(
    creature: Creature,
    *,
    fitness: str | EvaluationSpec,
    world: World | None = None,
    budget: int = 3000,
    genes: Iterable[str] = GENES,
    sigma: float = 0.1,
    seed: int | np.random.Generator = 0,
    callbacks: Sequence[Callable[[RefineProgress], Any]] = (),
    genome: GenomeSection | None = None,
    plugin_seed: int = 0,
    time_limit: TimeLimit | None = None,
    population: int | None = None,
) -> RefineResult:
    """Tune the gait of ``creature`` with CMA-ES, its topology kept (docs/refine.md).

    Args:
        creature: the body to tune.
        fitness: a fitness plugin's name (scored with its default params over ``DEFAULT_FRAMES`` frames),
            or a whole :class:`~evo.fitness.EvaluationSpec` (then ``world`` is ignored).
        world: the world to walk in (default: the creature's own, :meth:`World.from_model`).
        budget: the most evaluations, the start creature's included (at least 1 + one CMA-ES generation).
        genes: the genes to tune, among ``phi``, ``alpha`` (of the muscles), ``rest``, ``omega``, ``beta``.
        sigma: CMA-ES's first step size, as a fraction of each gene's ``[genome]`` range (of one turn
            for phases).
        seed: the seed, or the generator, that every sample is drawn from.
        callbacks: each is called with a :class:`RefineProgress` after every CMA-ES generation; one that
            returns True stops the refinement.
        genome: the ``[genome]`` limits that scale and bound the genes (default: the defaults).
        plugin_seed: the seed the plugin gets for every candidate.
        time_limit: see :func:`evaluate_lanes` (a run passes its ``[evaluation] timeout``'s).
        population: λ, the samples of each CMA-ES generation (default :func:`population_size`, 16 for up
            to 148 genes); a whole number of 8 fills the kernel's SIMD lanes (docs/refine.md weighs 32).

    Returns:
        The :class:`RefineResult`.

    Raises:
        EvoInputError: an unknown plugin or gene, a plugin of several objectives, nothing to tune, a
            budget too small for one generation, a step size that is not positive or a population below 2.
        PluginFailed: the plugin raised.
    """
    spec = _spec_for(creature, fitness, world)
    plugin = load_ref(spec.plugin)
    if len(plugin.weights) != 1:
        raise EvoInputError(
            f"refine needs a plugin of one objective; '{plugin.name}' has {len(plugin.weights)}",
            field="fitness",
        )
    space = GeneSpace.of(creature, tuple(genes), genome or GenomeSection())
    lambda_ = population_size(space.dimension) if population is None else int(population)
    if lambda_ < 2:
        raise EvoInputError(
            f"expected a population of at least 2 samples, got {population}", field="population"
        )
    if budget < 1 + lambda_:
        raise EvoInputError(
            f"expected a budget of at least {1 + lambda_} evaluations (the start and one generation of "
            f"{lambda_} for {space.dimension} genes), got {budget}",
            field="budget",
        )
    if not (math.isfinite(sigma) and sigma > 0):
        raise EvoInputError(f"expected a step size > 0, got {sigma}", field="sigma")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    with _one_blas_thread():
        return _search(
            creature, spec, plugin, space, budget, sigma, rng, callbacks, plugin_seed, time_limit, lambda_
        )


def _one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """CMA-ES's small eigendecompositions on one BLAS thread: on a busy machine a second thread turns
    0.15 ms into 5-50 ms (docs/refine.md). Needs threadpoolctl (with the ``qd`` extra); else a no-op."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - the test extras include it
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


class Refinement:
    """refine's CMA-ES as a :class:`~evo.ga.search.Search`: ``ask`` plans a generation of candidates (the
    body of ``creature`` with genes sampled around CMA-ES's mean), ``tell`` ranks their results and moves
    the mean, returning the :class:`RefineProgress`. :func:`refine` drives it; ``start`` is the start
    creature's evaluation (the first of ``evaluations``)."""

    def __init__(
        self,
        creature: Creature,
        start: Evaluation,
        *,
        space: GeneSpace,
        strategy: CMAES,
        weight: float,
        world: World,
        budget: int,
        plugin_seed: int,
    ):
        self.space, self.strategy, self.weight, self.world = space, strategy, weight, world
        self.budget, self.plugin_seed = budget, plugin_seed
        self.best, self.best_fitness = creature, start.fitness[0]
        self.evaluations, self.generation = 1, -1
        self._pending: tuple[Plan, np.ndarray] | None = None

    def ask(self) -> Plan:
        """The next generation's candidates, each with the plugin seed."""
        if self._pending is not None:
            raise RuntimeError("ask() called twice without tell()")
        samples = self.space.repair(self.strategy.ask())
        candidates = tuple(self.space.creatures_at(samples))
        plan = Plan(
            self.generation + 1, candidates=candidates, candidate_seeds=(self.plugin_seed,) * len(samples)
        )
        self._pending = (plan, samples)
        return plan

    def tell(self, results: Sequence[ChildResult]) -> RefineProgress:
        """One result per candidate of the plan, in order (:func:`~evo.ga.search.checked_results`)."""
        if self._pending is None:
            raise RuntimeError("tell() called without ask()")
        plan, samples = self._pending
        results = checked_results(plan, results, 1)
        values = np.array([r.evaluation.fitness[0] for r in results])  # type: ignore[union-attr]
        self.evaluations += len(values)
        ranked = self.weight * values
        k = int(np.argmax(ranked))
        if ranked[k] > self.weight * self.best_fitness:
            self.best, self.best_fitness = plan.candidates[k], float(values[k])
        self.strategy.tell(samples, np.where(np.isnan(ranked), -np.inf, ranked))
        self.generation, self._pending = plan.generation, None
        batched = len(values) if in_lanes(len(values), self.world) else 0
        return RefineProgress(
            self.generation, self.evaluations, self.budget, self.best_fitness, self.best,
            float(self.strategy.sigma), batched,
        )  # fmt: skip


def _search(
    creature: Creature,
    spec: EvaluationSpec,
    plugin: Plugin,
    space: GeneSpace,
    budget: int,
    sigma: float,
    rng: np.random.Generator,
    callbacks: Sequence[Callable[[RefineProgress], Any]],
    plugin_seed: int,
    time_limit: TimeLimit | None,
    lambda_: int,
) -> RefineResult:
    every, _ = recording(spec)  # the start is no candidate: simulated alone
    trajectory = simulate(creature, spec.world, spec.frames, every)
    start = scores([creature], [trajectory], spec, plugin_seed, time_limit)[0]
    search = Refinement(
        creature, start, space=space, strategy=CMAES(space.start(), sigma, rng, lambda_),
        weight=plugin.weights[0], world=spec.world, budget=budget, plugin_seed=plugin_seed,
    )  # fmt: skip
    history, stopped = [], False
    while search.evaluations + lambda_ <= budget:
        plan = search.ask()
        outcomes = evaluate_lanes(plan.candidates, spec, plugin_seed, time_limit=time_limit)
        progress = search.tell([ChildResult(c, o) for c, o in zip(plan.candidates, outcomes, strict=True)])
        history.append(progress)
        if any([bool(callback(progress)) for callback in callbacks]):
            stopped = True
            break
    best, best_value, evaluations = search.best, search.best_fitness, search.evaluations
    genes_done = space.genes
    meta = dict(best.meta)
    meta["refined"] = {
        "from": creature.name,
        "genes": list(genes_done),
        "plugin": plugin.name,
        "start_fitness": _json_number(start.fitness[0]),
        "fitness": _json_number(best_value),
        "evaluations": evaluations,
    }
    best = best.replace(meta=meta)
    return RefineResult(best, best_value, start.fitness[0], evaluations, genes_done, tuple(history), stopped)
