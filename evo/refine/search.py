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
from evo.fitness import load_ref
from evo.fitness.evaluate import Evaluation, EvaluationSpec, recording, worst_fitness
from evo.fitness.score import score, sealed
from evo.ga.settings import GenomeSection
from evo.model import Creature
from evo.refine.cma import CMAES, population_size
from evo.refine.genes import GENES, GeneSpace
from evo.sim import Trajectory, World, simulate, simulate_batch
from evo.sim.batch import BATCHED_INTEGRATORS, MIN_LANES
from evo.sim.simulate import centroids_of

__all__ = ["LANES", "LANES", "RefineProgress", "RefineResult", "evaluate_lanes", "refine"]

# candidates simulated in this process, in lanes and one by one (the bench reports the share)
LANES = {"batched": 0, "single": 0}

TimeLimit = Callable[[int], contextlib.AbstractContextManager[Any]]


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
    """

    generation: int
    evaluations: int
    budget: int
    best_fitness: float
    best: Creature
    sigma: float


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


def _no_limit(evaluation: int) -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext()


def evaluate_lanes(
    creatures: Sequence[Creature],
    spec: EvaluationSpec,
    seed: int,
    *,
    time_limit: TimeLimit | None = None,
) -> list[Evaluation]:
    """Evaluate creatures of one topology: simulated together (:func:`evo.sim.simulate_batch`, the very
    trajectories ``simulate`` gives), then each scored by the spec's plugin with the plugin seed ``seed``.

    Args:
        creatures: the candidates, all of one topology.
        spec: the world, frames, plugin and params.
        seed: the plugin seed of every candidate.
        time_limit: ``time_limit(k)`` is a context manager the k-th scoring runs in, raising
            ``TimeoutError`` once it has run too long (a run's memetic step passes its ``[evaluation]
            timeout``, :mod:`evo.run.memetic`); a candidate that runs past it gets the worst fitness.

    Returns:
        One :class:`~evo.fitness.Evaluation` per creature, in order (exploded ones with the worst fitness).

    Raises:
        PluginFailed: the plugin raised or returned something that is not a fitness.
    """
    every, _ = recording(spec)
    trajectories = simulate_batch(creatures, spec.world, spec.frames, every)
    lanes = len(creatures) >= MIN_LANES and spec.world.integrator in BATCHED_INTEGRATORS
    LANES["batched" if lanes else "single"] += len(creatures)
    return _scores(creatures, trajectories, spec, seed, time_limit)


def _scores(
    creatures: Sequence[Creature],
    trajectories: Sequence[Trajectory],
    spec: EvaluationSpec,
    seed: int,
    time_limit: TimeLimit | None,
) -> list[Evaluation]:
    limit = time_limit or _no_limit
    plugin = load_ref(spec.plugin)
    # without measures the plugin sees every record: their centroids computed once for all
    centroids = [None] * len(trajectories) if spec.measures else _centroids(trajectories)
    out = []
    for k, (creature, trajectory) in enumerate(zip(creatures, trajectories, strict=True)):
        try:
            with limit(k):
                out.append(score(plugin, creature, trajectory, spec, seed, centroids=centroids[k]))
        except TimeoutError:
            out.append(Evaluation(worst_fitness(plugin.weights), False, timed_out=True))
    return out


def _centroids(trajectories: Sequence[Trajectory]) -> list[np.ndarray | None]:
    """Each trajectory's :attr:`SimulationResult.centroids` ((records, 2) px; None for an exploded one),
    from one ``centroids_of`` call over the generation's records stacked (the same numbers, bit for bit, a
    test checks: the sum over masses runs in the same order), instead of one small call per candidate."""
    alive = [k for k, t in enumerate(trajectories) if not t.exploded]
    out: list[np.ndarray | None] = [None] * len(trajectories)
    if not alive or len({trajectories[k].positions.shape for k in alive}) > 1:
        return out  # (records of unequal lengths: each plugin computes its own)
    positions = np.stack([trajectories[k].positions for k in alive])  # (alive, records, masses, 2)
    lanes, records = positions.shape[:2]
    every = centroids_of(positions.reshape(lanes * records, *positions.shape[2:])).reshape(lanes, records, 2)
    every = sealed(every)  # one copy for all: its rows reach the plugins as they are
    for row, k in enumerate(alive):
        out[k] = every[row]
    return out


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


def _search(
    creature: Creature,
    spec: EvaluationSpec,
    plugin: Any,
    space: GeneSpace,
    budget: int,
    sigma: float,
    rng: np.random.Generator,
    callbacks: Sequence[Callable[[RefineProgress], Any]],
    plugin_seed: int,
    time_limit: TimeLimit | None,
    lambda_: int,
) -> RefineResult:
    weight = plugin.weights[0]

    every, _ = recording(spec)  # the start is no candidate: simulated alone, not counted in LANES
    trajectory = simulate(creature, spec.world, spec.frames, every)
    start = _scores([creature], [trajectory], spec, plugin_seed, time_limit)[0]
    best, best_value = creature, start.fitness[0]
    evaluations, history, stopped = 1, [], False
    strategy = CMAES(space.start(), sigma, rng, lambda_)
    generation = 0
    while evaluations + lambda_ <= budget:
        samples = space.repair(strategy.ask())
        candidates = space.creatures_at(samples)
        outcomes = evaluate_lanes(candidates, spec, plugin_seed, time_limit=time_limit)
        values = np.array([o.fitness[0] for o in outcomes])
        evaluations += lambda_
        ranked = weight * values
        k = int(np.argmax(ranked))
        if ranked[k] > weight * best_value:
            best, best_value = candidates[k], float(values[k])
        strategy.tell(samples, np.where(np.isnan(ranked), -np.inf, ranked))
        progress = RefineProgress(generation, evaluations, budget, best_value, best, float(strategy.sigma))
        history.append(progress)
        generation += 1
        if any([bool(callback(progress)) for callback in callbacks]):
            stopped = True
            break
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
