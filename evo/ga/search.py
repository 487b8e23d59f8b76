"""The seam between a search and its evaluation: a :class:`Search` asks for a :class:`Plan` and is told
one :class:`ChildResult` per child, checked by the one validator :func:`checked_results`. The GA, MAP-Elites
and refine implement it; the run loop drives any :class:`RunSearch` (docs/internals.md, "The seam")."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from evo.fitness.spec import Evaluation
from evo.ga.brood import Brood
from evo.ga.individual import Individual
from evo.model import Creature

__all__ = ["ChildResult", "Plan", "RunSearch", "Search", "SearchState", "checked_results"]

Told = TypeVar("Told", covariant=True)


@dataclass(frozen=True)
class Plan:
    """One generation's work, in order; every random draw is made already.

    The children of a plan are those of its broods (one per plugin seed, in order), then its candidates.
    New fields may be added with defaults (what workers need to breed a generation themselves, issue
    29): a consumer reads the fields it knows and :attr:`seeds` stays the children's order.

    Attributes:
        generation: the generation (MAP-Elites: iteration) it makes.
        broods: children to breed, then evaluate (:class:`~evo.ga.brood.Brood`; the GA, MAP-Elites).
        candidates: creatures to evaluate as they are (refine's CMA-ES samples).
        candidate_seeds: the plugin seed of each candidate.
    """

    generation: int
    broods: tuple[Brood, ...] = ()
    candidates: tuple[Creature, ...] = ()
    candidate_seeds: tuple[int, ...] = ()

    @property
    def seeds(self) -> tuple[int | None, ...]:
        """The plugin seed of each child in order; None for a brood's unchanged copy (not evaluated)."""
        return (*(s for brood in self.broods for s in brood.plugin_seeds), *self.candidate_seeds)

    @property
    def evaluations(self) -> int:
        """How many children need an evaluation."""
        return sum(brood.evaluations for brood in self.broods) + len(self.candidates)

    # -- deprecated since 0.2.0: ``ask()`` returned the list of broods ---------------------------------
    def __iter__(self) -> Iterator[Brood]:
        return iter(_deprecated_broods(self))

    def __len__(self) -> int:
        return len(_deprecated_broods(self))

    def __getitem__(self, index: int) -> Brood:
        return _deprecated_broods(self)[index]


def _deprecated_broods(plan: Plan) -> tuple[Brood, ...]:
    warnings.warn(
        "ask() returns a Plan since evo 0.2.0; using it as the list of broods goes in 0.3.0: use plan.broods",
        DeprecationWarning,
        stacklevel=3,
    )
    return plan.broods


@dataclass(frozen=True)
class ChildResult:
    """What became of one child of a :class:`Plan`.

    Attributes:
        creature: the child (None for an unchanged copy of its parent, which keeps its fitness).
        evaluation: its :class:`~evo.fitness.Evaluation` (None for an unchanged copy).
        model_text: the child's model JSON when it was made elsewhere already (else None).
    """

    creature: Creature | None = None
    evaluation: Evaluation | None = None
    model_text: str | None = None


class Search(Protocol[Told]):
    """Anything that asks for work and is told how it went: ``ask`` -> evaluate elsewhere -> ``tell``."""

    def ask(self) -> Plan:
        """Plan the next generation.

        Returns:
            The :class:`Plan`, every random draw made.

        Raises:
            RuntimeError: asked again before :meth:`tell`.
        """
        ...

    def tell(self, results: Sequence[ChildResult]) -> Told:
        """Take the results of the plan the last :meth:`ask` gave and move on.

        Args:
            results: one per child of the plan, in order (:func:`checked_results`).

        Returns:
            What the search reports of the generation (the GA and MAP-Elites: its logbook record; refine:
            its :class:`~evo.refine.RefineProgress`).

        Raises:
            RuntimeError: no :meth:`ask` under way.
            ValueError: not one result per child, or one that does not fit its child.
        """
        ...


class SearchState(Protocol):
    """What every run search's :meth:`RunSearch.state` holds, whatever else it does: the last generation
    told, the run seed, the plugin's objectives and weights, the generator's state and the logbook."""

    @property
    def generation(self) -> int: ...

    @property
    def seed(self) -> int: ...

    @property
    def objectives(self) -> tuple[str, ...]: ...

    @property
    def weights(self) -> tuple[float, ...]: ...

    @property
    def rng(self) -> dict[str, Any]: ...

    @property
    def logbook(self) -> tuple[dict[str, Any], ...]: ...


class RunSearch(Search[dict[str, Any]], Protocol):
    """A search that ``evo.evolve`` runs: the GA (:class:`~evo.ga.loop.Evolution`) and MAP-Elites
    (:class:`~evo.qd.loop.QualityDiversity`). ``tell`` returns the generation's logbook record."""

    generation: int
    logbook: Sequence[Mapping[str, Any]]

    @property
    def columns(self) -> list[str]:
        """The logbook's (history.csv's) columns."""
        ...

    @property
    def population(self) -> list[Individual]: ...

    @property
    def hall_of_fame(self) -> Sequence[Individual]: ...

    def state(self) -> SearchState:
        """The whole state between a ``tell`` and the next ``ask``.

        Returns:
            The state as plain data (a checkpoint writes it): :class:`~evo.ga.loop.EvolutionState`,
            :class:`~evo.qd.state.QDState`.
        """
        ...


def checked_results(
    plan: Plan, results: Sequence[ChildResult], arity: int, measures: int = 0
) -> list[ChildResult]:
    """``results`` checked against ``plan``: one :class:`ChildResult` per child, none for an unchanged
    copy and an :class:`~evo.fitness.Evaluation` of ``arity`` objectives and ``measures`` measures (or
    none: exploded, timed out) for every other child. Lists of (creature, outcome) pairs per brood, the
    form before 0.2.0, are taken with a DeprecationWarning.

    Raises:
        ValueError: not one result per child, or a result that does not fit its child.
    """
    if results and not isinstance(results[0], ChildResult):
        results = _from_pairs(plan, results, measures)
    seeds = plan.seeds
    if len(results) != len(seeds):
        raise ValueError(
            f"expected {len(seeds)} child results, one per child of the plan, got {len(results)}"
        )
    for k, (seed, result) in enumerate(zip(seeds, results, strict=True)):
        if not isinstance(result, ChildResult):
            raise ValueError(f"child {k} came back as {type(result).__name__}, not as a ChildResult")
        if seed is None:
            if result.creature is not None or result.evaluation is not None:
                raise ValueError(f"child {k} is an unchanged copy: expected ChildResult(), got {result!r}")
            continue
        evaluation = result.evaluation
        if not isinstance(result.creature, Creature) or not isinstance(evaluation, Evaluation):
            raise ValueError(f"child {k} came back without its creature and Evaluation: {result!r}")
        if len(evaluation.fitness) != arity:
            raise ValueError(f"expected {arity} fitness value(s) per child, got {evaluation.fitness!r}")
        if len(evaluation.measures) not in (0, measures):
            raise ValueError(f"expected {measures} measure(s) per child, got {evaluation.measures!r}")
    return list(results)


def _from_pairs(plan: Plan, nested: Sequence[Any], measures: int) -> list[ChildResult]:
    """The results of the form before 0.2.0: per brood, (creature, outcome[, model text]) per child, an
    outcome an Evaluation, a number or tuple of numbers (the GA), or a (fitness, measures) pair (QD)."""
    warnings.warn(
        "tell() takes one ChildResult per child since evo 0.2.0; lists of (creature, outcome) pairs per "
        "brood go in 0.3.0",
        DeprecationWarning,
        stacklevel=4,
    )
    if len(nested) != len(plan.broods):
        raise ValueError(f"expected the children of {len(plan.broods)} broods, got {len(nested)}")
    out = []
    for brood, kids in zip(plan.broods, nested, strict=True):
        if len(kids) != len(brood.plugin_seeds):
            raise ValueError(f"a brood of {len(brood.plugin_seeds)} children came back with {len(kids)}")
        for seed, kid in zip(brood.plugin_seeds, kids, strict=True):
            if len(kid) < 2:
                raise ValueError(f"a child came back as {kid!r}, not as (creature, outcome)")
            if seed is None:
                out.append(ChildResult())
                continue
            text = kid[2] if len(kid) > 2 else None
            out.append(ChildResult(kid[0], _evaluation(kid[1], measures), text))
    return out


def _evaluation(outcome: Any, measures: int) -> Evaluation:
    if isinstance(outcome, Evaluation):
        return outcome
    values: Any = outcome
    measured: tuple[float, ...] = ()
    if measures:
        values, measured = outcome[0], tuple(float(v) for v in outcome[1])
    if isinstance(values, numbers.Real):
        values = (values,)
    return Evaluation(tuple(float(v) for v in values), False, measured)
