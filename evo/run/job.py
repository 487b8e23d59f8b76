"""The job ``evo run`` gives its worker pool: breed a brood's children, then evaluate the new ones.

Running the variation operators where the evaluations run keeps the parent process light (it only
selects), so that two workers keep two cores busy even when a creature's simulation is as cheap as its
mutation. Everything here is plain data: a :class:`~evo.ga.brood.Brood` in, creatures and
:class:`~evo.fitness.evaluate.Evaluation` s out; the :class:`BreedContext` reaches each worker once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evo.fitness import load_ref
from evo.fitness.evaluate import Evaluation, worst_fitness
from evo.ga.brood import Brood, Variation, breed
from evo.ga.settings import GASection, GenomeSection
from evo.io.checkpoint import model_json
from evo.model import Creature
from evo.run.backends.base import EvaluationTimeout, evaluation_time_limit

__all__ = ["BreedContext", "ChildFailed", "breed_and_evaluate"]


@dataclass(frozen=True)
class BreedContext:
    """What every brood of a run needs: the evaluation spec, the genome limits, the GA settings.

    ``evaluate`` is :func:`evo.fitness.evaluate.evaluate` unless a test or a benchmark replaces it. With
    ``model_text``, each new child also comes back as its ``model_json`` text (made in the worker, so the
    parent only splices it into the checkpoint). ``timeout`` is the time limit of one child's evaluation
    in seconds (0: none); past it, ``on_timeout = "stop"`` fails the brood (:class:`ChildFailed`) and
    ``"worst"`` gives the child the worst fitness.
    """

    spec: Any
    genome: GenomeSection
    ga: GASection
    variation: Variation = field(default_factory=Variation.default)
    evaluate: Callable[..., Any] | None = None
    model_text: bool = False
    timeout: float = 0.0
    on_timeout: str = "stop"


class ChildFailed(Exception):
    """A child's evaluation raised (or timed out). ``plugin`` and ``message`` come from the cause (a
    :class:`~evo.fitness.evaluate.PluginFailed` has both) unless given; ``detail`` is ``(child number in
    the brood, creature, plugin seed)``, so the parent can save the creature."""

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
        self.message = message or getattr(cause, "message", None) or f"{type(cause).__name__}: {cause}"
        self.detail = (child, creature, seed)


def breed_and_evaluate(brood: Brood, context: BreedContext) -> list[tuple[Any, ...]]:
    """The brood's children as (creature, evaluation) pairs, or (creature, evaluation, model text) with
    ``context.model_text``; ``(None, None)`` for an unchanged copy."""
    evaluate = context.evaluate
    if evaluate is None:
        from evo.fitness.evaluate import evaluate
    out: list[tuple[Any, ...]] = []
    children = breed(brood, context.genome, context.ga, context.variation, world=context.spec.world)
    for k, (child, seed) in enumerate(zip(children, brood.plugin_seeds, strict=True)):
        if seed is None:
            out.append((None, None))
            continue
        try:
            with evaluation_time_limit(context.timeout, k):
                outcome = evaluate(child, context.spec, seed)
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
        out.append((child, outcome, model_json(child)) if context.model_text else (child, outcome))
    return out
