"""The job ``evo run`` gives its worker pool: breed a brood's children, then evaluate the new ones.

Plain data in and out; the :class:`BreedContext` reaches each worker once (on a dask worker with its
plugin's files: :func:`with_plugin_files`, :func:`setup_worker`). Why breeding happens in the workers:
docs/runs.md, "Workers".
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from traceback import format_exception

from evo.audit.robust import RobustSettings, robust_evaluation, simulate_samples
from evo.errors import EvoInputError
from evo.fitness import load_ref
from evo.fitness.evaluate import Evaluation, EvaluationSpec, worst_fitness
from evo.fitness.evaluate import evaluate as evaluate_one
from evo.fitness.failure import describe
from evo.fitness.reducers import BoundReducer
from evo.fitness.registry import is_shipped
from evo.ga.brood import BreedSettings, Brood, Variation, breed
from evo.ga.search import ChildResult
from evo.ga.settings import GASection, GenomeSection
from evo.io.plugin_files import PluginFiles, held_at, read_plugin_files, write_plugin_files
from evo.model import Creature
from evo.run.backends.base import EvaluationTimeout, evaluation_time_limit
from evo.run.batching import Bred, bound_reducer, bred_broods, prepare_broods, warm_reducer
from evo.sim import warm_up
from evo.sim.batch import BATCHED_INTEGRATORS

__all__ = [
    "BreedContext",
    "ChildFailed",
    "breed_and_evaluate",
    "parent_may_evaluate",
    "prepare",
    "setup_worker",
    "threads_may_evaluate",
    "warm",
    "with_plugin_files",
]

log = logging.getLogger("evo.run.job")

# evaluate(creature, spec, plugin seed): what a brood's children are evaluated with
Evaluator = Callable[[Creature, EvaluationSpec, int], Evaluation]


@dataclass(frozen=True)
class BreedContext:
    """What every brood of a run needs: the evaluation spec, the genome limits, the GA settings.

    ``evaluate`` is :func:`evo.fitness.evaluate.evaluate` unless a test or a benchmark replaces it.
    ``timeout`` is the time limit of one child's evaluation
    in seconds (0: none); past it, ``on_timeout = "stop"`` fails the brood (:class:`ChildFailed`) and
    ``"worst"`` gives the child the worst fitness. ``plugin_files`` carries the source of a ``file:``
    plugin to workers that may not see it (:func:`with_plugin_files`). With ``batch``, the children of
    a chunk are simulated together in lanes (:func:`prepare`; the results are the same), their kernel
    calls run on ``lane_threads`` where it is given (the ``threads`` backend's executor; not carried to
    other processes). With ``robust`` each child is scored in its perturbed worlds
    (:func:`evo.audit.robust.robust_evaluation`).
    """

    spec: EvaluationSpec
    genome: GenomeSection
    ga: GASection
    variation: Variation = field(default_factory=Variation.default)
    evaluate: Evaluator | None = None
    timeout: float = 0.0
    on_timeout: str = "stop"
    plugin_files: PluginFiles | None = None
    batch: bool = True
    robust: RobustSettings | None = None
    lane_threads: Executor | None = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def breed_settings(self) -> BreedSettings:
        """The settings record breeding reads, made once per context (per worker)."""
        return BreedSettings.of(self.genome, self.ga, self.variation)

    @functools.cached_property
    def reducer(self) -> BoundReducer | None:
        """The plugin's compiled reducer bound to the spec, made once per context (per worker); None where
        the plugin has none or the spec asks for measures (:func:`evo.run.batching.bound_reducer`)."""
        return bound_reducer(self.spec)

    def with_lane_threads(self, executor: Executor | None) -> BreedContext:
        """This context with its lanes' kernel calls run on ``executor`` (:class:`~evo.run.backends.
        threads.Threads`); None: one after another in the calling thread."""
        return dataclasses.replace(self, lane_threads=executor)

    def __getstate__(self) -> dict:
        """What is pickled: the fields, without the reducer (compiled code, bound again where it lands)."""
        state = dict(self.__dict__)
        state.pop("reducer", None)
        state["lane_threads"] = None  # this process's threads: another process has its own, or none
        return state


class ChildFailed(Exception):
    """A child's evaluation raised (or timed out). ``plugin`` and ``message`` come from the cause (a
    :class:`~evo.fitness.evaluate.PluginFailed` has both) unless given; ``detail`` is ``(child number in
    the brood, creature, plugin seed, traceback text)``, so the parent can save the creature and log the
    traceback."""

    def __init__(
        self,
        cause: BaseException,
        child: int,
        creature: Creature,
        seed: int,
        *,
        plugin: str | None = None,
        message: str | None = None,
    ):
        super().__init__(str(cause))
        self.plugin = plugin or getattr(cause, "plugin", None)
        self.message = message or getattr(cause, "message", None) or describe(cause)
        self.traceback = getattr(cause, "traceback", "") or "".join(format_exception(cause))
        self.detail = (child, creature, seed, self.traceback)


def breed_and_evaluate(brood: Brood, context: BreedContext, bred: Bred | None = None) -> list[ChildResult]:
    """The brood's children as :class:`~evo.ga.search.ChildResult` s (``ChildResult()`` for an unchanged
    copy). ``bred`` is what :func:`prepare` made for the brood: its children, and the trajectories of those
    simulated in a batch."""
    if bred is not None and bred.results is not None:  # every new child scored by the compiled reducer
        return bred.results
    evaluate = context.evaluate or evaluate_one
    out: list[ChildResult] = []
    if bred is None:
        children = breed(
            brood, context.genome, context.ga, world=context.spec.world, settings=context.breed_settings
        )
        trajectories = {}
    else:
        children, trajectories = bred.children, bred.trajectories
    scored = {} if bred is None else bred.scored  # by the plugin's compiled reducer (evo.run.batching)
    for k, (child, seed) in enumerate(zip(children, brood.plugin_seeds, strict=True)):
        if seed is None:
            out.append(ChildResult())
            continue
        if k in scored:
            out.append(ChildResult(child, scored[k]))
            continue
        try:
            if context.timeout <= 0:  # no time limit, hence no monitor and nothing known to hang
                outcome = _evaluated(k, child, seed, context, evaluate, trajectories)
            else:
                with evaluation_time_limit(context.timeout, k):
                    outcome = _evaluated(k, child, seed, context, evaluate, trajectories)
        except EvaluationTimeout as exc:
            plugin = load_ref(context.spec.plugin)
            if context.on_timeout != "worst":
                message = (
                    f"plugin '{plugin.name}' gave no result within {context.timeout:g} s "
                    "([evaluation] timeout)"
                )
                raise ChildFailed(exc, k, child, seed, plugin=plugin.name, message=message) from None
            outcome = Evaluation(worst_fitness(plugin.weights), exploded=False, timed_out=True)
        except Exception as exc:
            raise ChildFailed(exc, k, child, seed) from exc
        out.append(ChildResult(child, outcome))
    return out


def _evaluated(
    k: int, child: Creature, seed: int, context: BreedContext, evaluate: Evaluator, trajectories: dict
) -> Evaluation:
    if context.robust is not None:  # trajectories: each child's samples, simulated in lanes
        return robust_evaluation(child, context.spec, seed, context.robust, trajectories.get(k))
    if k in trajectories:  # simulated in lanes already
        return evaluate_one(child, context.spec, seed, trajectories[k])
    return evaluate(child, context.spec, seed)


def prepare(
    broods: list[Brood],
    context: BreedContext,
    beside: Callable[[], None] | None = None,
    between: Callable[[], None] | None = None,
) -> list[Bred | None]:
    """The chunk step of the job (called by :func:`~evo.run.backends.base.run_chunk`): with
    ``context.batch``, breed the chunk's broods and simulate their children together in lanes
    (:func:`evo.run.batching.prepare_broods`, ``beside`` called beside their kernel calls, ``between``
    with lane threads after each call this thread reads); otherwise only breed them
    (:func:`evo.run.batching.bred_broods`: the job evaluates each child on its own), ``beside`` called
    first."""
    if not context.batch or context.evaluate is not None:
        if beside is not None:
            beside()
        return bred_broods(broods, context)
    if context.robust is not None:
        return prepare_broods(broods, context, simulate=_robust_samples, beside=beside)
    return prepare_broods(broods, context, beside=beside, between=between)


def _robust_samples(creatures: list[Creature], context: BreedContext) -> list:
    """Each child's robust samples, every sample's children together in lanes."""
    return simulate_samples(creatures, context.spec, context.robust)


breed_and_evaluate.prepare = prepare  # type: ignore[attr-defined]


def parent_may_evaluate(context: BreedContext) -> bool:
    """Whether the ``evo run`` process may breed and evaluate a share of each generation itself, as one of
    its fork pool's workers (:class:`~evo.run.backends.fork.ForkPool`'s ``share``): only where nothing
    but evo's own code runs there -- one of evo's shipped plugins, scored by evo's own evaluation -- which
    neither crashes its process nor hangs in C code out of the time limit's reach. A plugin of the
    user's stays in worker processes, where a crash or an ``os._exit`` of its code ends one worker (``a
    worker process died``), not the run, and a worker stuck past the time limit is killed."""
    if context.evaluate is not None:
        return False
    kind, _, where = context.spec.plugin.origin.partition(":")
    return kind == "file" and is_shipped(Path(where).resolve())


def threads_may_evaluate(context: BreedContext) -> bool:
    """Whether a run of more than one worker defaults to the ``threads`` backend
    (:class:`~evo.run.backends.threads.Threads`): where only evo's own code runs in the ``evo run``
    process (:func:`parent_may_evaluate`) and the work is the kernel's, which threads share -- children
    simulated in lanes (``[pool] batch``, not robust, an integrator with a batched kernel). Elsewhere
    Python holds the GIL most of the time, and worker processes (``fork``) spread it."""
    return (
        parent_may_evaluate(context)
        and context.batch
        and context.robust is None
        and context.spec.world.integrator in BATCHED_INTEGRATORS
    )


def with_plugin_files(context: BreedContext) -> BreedContext:
    """The context carrying the source of its plugin (and of the files beside it) when the plugin comes
    from a file, so that a worker on another machine can load it (:func:`setup_worker`).

    Raises:
        EvoInputError: a plugin file that cannot be read, or a folder too big to send.
    """
    kind, _, where = context.spec.plugin.origin.partition(":")
    if kind != "file":
        return context
    return dataclasses.replace(context, plugin_files=read_plugin_files(where))


def setup_worker(context: BreedContext, folder: str | os.PathLike) -> BreedContext:
    """Make a worker ready for the context's broods: write the carried plugin files under ``folder`` and
    point the plugin at that copy (not for one of evo's shipped plugins that this machine holds with the
    same text: it is loaded from there), load the plugin, and compile (or load from numba's cache) and
    run the kernel once.

    Args:
        context: the run's context, as the worker received it.
        folder: a folder of the worker's machine for the plugin files.

    Returns:
        The context to run broods with.

    Raises:
        EvoInputError: the plugin cannot be loaded here (one line naming it and where it came from).
    """
    start = time.perf_counter()
    spec = context.spec
    ref = spec.plugin
    shipped = context.plugin_files
    try:
        if shipped is not None and not _shipped_here(shipped):
            copy = write_plugin_files(shipped, folder)
            ref = dataclasses.replace(ref, origin=f"file:{copy}")
            context = dataclasses.replace(context, spec=dataclasses.replace(spec, plugin=ref))
        load_ref(ref)
    except (EvoInputError, OSError) as exc:
        where = shipped.origin if shipped is not None else spec.plugin.origin
        detail = exc.message if isinstance(exc, EvoInputError) else str(exc)
        raise EvoInputError(f"cannot load plugin '{ref.name}' (from {where}): {detail}") from None
    warm(context)
    log.info(
        "process %d: plugin '%s' loaded and kernels warm in %.2f s",
        os.getpid(),
        ref.name,
        time.perf_counter() - start,
    )
    return context


def _shipped_here(files: PluginFiles) -> bool:
    """Whether the plugin file is one of evo's shipped plugins, found in this machine's shipped folder with
    the same text as every file sent: it is then loaded from there, as any shipped plugin is (no copy,
    and no import in a child process first, which costs a worker about half a second)."""
    origin = Path(files.origin)
    return is_shipped(origin) and held_at(files, origin.parent)


def warm(context: BreedContext) -> None:
    """Compile (or load from numba's cache) what the context's broods call: the simulator's kernel in its
    world and, under the default operators, the compiled breeding (before workers fork, so that they
    inherit both)."""
    from evo.ga.kernels.brood import warm_breeding
    from evo.ga.kernels.creatures import warm_random_creatures

    warm_up(context.spec.world)
    warm_random_creatures()  # generation 0's broods
    if context.variation == Variation.default():
        warm_breeding(context.genome, context.ga)
    if context.batch and context.robust is None and context.evaluate is None:
        warm_reducer(context.spec)  # the plugin's compiled reducer scores the lanes' children
