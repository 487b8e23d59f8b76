"""Every search behind the seam -- the GA, MAP-Elites and refine -- passes the same API test (evosax
style): ``ask`` gives a frozen :class:`Plan`, ``tell`` takes one :class:`ChildResult` per child, checked by
the one validator, and one driver runs them all alike (issue 28)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from evo.fitness import Evaluation
from evo.ga.brood import breed
from evo.ga.loop import Evolution, LoopSettings
from evo.ga.search import ChildResult, Plan, checked_results
from evo.ga.settings import GASection, GenomeSection
from evo.io.models import load_model
from evo.model import Creature
from evo.qd import ArchiveSpec, QDSettings
from evo.qd.loop import QualityDiversity
from evo.refine.cma import CMAES
from evo.refine.genes import GeneSpace
from evo.refine.search import Refinement
from evo.sim import World

GENOME = GenomeSection(masses=(3, 8))
GALLOPER = Path(__file__).resolve().parents[2] / "genomes" / "galloper.json"


def width(creature: Creature) -> float:
    return float(np.ptp(creature.positions[:, 0]) + 10.0 * creature.omega + np.sum(creature.phi))


def ga() -> Evolution:
    return Evolution(LoopSettings(population=10, seed=3, objectives=("size",), weights=(1.0,), genome=GENOME))


def map_elites() -> QualityDiversity:
    spec = ArchiveSpec("grid", ("masses", "omega"), ((2.5, 8.5), (0.02, 0.2)), bins=(6, 5))
    return QualityDiversity(
        QDSettings(genome=GENOME, seed=3, initial=8, objectives=("size",), weights=(1.0,), archive=spec,
                   batch_size=4, emitters=2)
    )  # fmt: skip


def refinement() -> Refinement:
    creature = load_model(GALLOPER)
    space = GeneSpace.of(creature, ("phi",), GenomeSection())
    strategy = CMAES(space.start(), 0.1, np.random.default_rng(3), 8)
    start = Evaluation((width(creature),), False)
    return Refinement(creature, start, space=space, strategy=strategy, weight=1.0, world=World(),
                      budget=100, plugin_seed=0)  # fmt: skip


# the registry the API test runs over: name -> (make the search, does it report measures)
SEARCHES = {"ga": (ga, False), "map-elites": (map_elites, True), "refine": (refinement, False)}


def evaluated(creature: Creature, measures: bool) -> Evaluation:
    values = (float(creature.n_masses), float(creature.omega)) if measures else ()
    return Evaluation((width(creature),), False, values)


def results_of(plan: Plan, measures: bool) -> list[ChildResult]:
    """What any evaluator gives any search: its broods bred, every new child and candidate evaluated."""
    out = []
    for brood in plan.broods:
        for child in breed(brood, GENOME, GASection()):
            out.append(ChildResult() if child is None else ChildResult(child, evaluated(child, measures)))
    return out + [ChildResult(c, evaluated(c, measures)) for c in plan.candidates]


@pytest.mark.parametrize("name", SEARCHES)
def test_every_search_asks_a_frozen_plan_and_is_told_one_result_per_child(name):
    make, measures = SEARCHES[name]
    search = make()
    for generation in range(3):
        plan = search.ask()
        assert isinstance(plan, Plan) and plan.generation == generation
        assert len(plan.seeds) == sum(len(b.plugin_seeds) for b in plan.broods) + len(plan.candidates)
        with pytest.raises(dataclasses.FrozenInstanceError):
            plan.generation = 7  # type: ignore[misc]
        with pytest.raises(RuntimeError):
            search.ask()
        results = results_of(plan, measures)
        assert len(results) == len(plan.seeds) and plan.evaluations > 0
        with pytest.raises(ValueError, match="one per child"):
            search.tell(results[:-1])
        search.tell(results)  # the failed tell changed nothing
    with pytest.raises(RuntimeError):
        search.tell([])
    if name != "refine":  # a RunSearch: its state has what every run search's holds
        state = search.state()
        assert (state.generation, state.seed, state.objectives, state.weights) == (2, 3, ("size",), (1.0,))
        assert len(state.logbook) == 3 and state.rng == search.state().rng
        assert [r["generation"] for r in search.logbook] == [0, 1, 2] and search.columns[0] == "generation"


@pytest.mark.parametrize("name", SEARCHES)
def test_a_result_of_the_wrong_arity_or_a_missing_evaluation_is_refused_before_anything_is_told(name):
    make, measures = SEARCHES[name]
    search = make()
    plan = search.ask()
    results = results_of(plan, measures)
    k = next(i for i, seed in enumerate(plan.seeds) if seed is not None)
    wrong = dataclasses.replace(results[k], evaluation=Evaluation((1.0, 2.0), False))
    with pytest.raises(ValueError, match="fitness value"):
        search.tell([*results[:k], wrong, *results[k + 1 :]])
    with pytest.raises(ValueError, match="without its creature and Evaluation"):
        search.tell([*results[:k], ChildResult(results[k].creature), *results[k + 1 :]])
    search.tell(results)


def test_the_validator_takes_a_copy_only_as_an_empty_result_and_measures_only_in_their_number():
    rare = GASection(crossover_rate=0.2, mutation_rate=0.2)  # unmated, unmutated children: copies
    search = Evolution(LoopSettings(population=10, seed=3, objectives=("size",), weights=(1.0,), ga=rare))
    search.tell(results_of(search.ask(), False))
    plan = search.ask()
    results = results_of(plan, False)
    copies = [i for i, seed in enumerate(plan.seeds) if seed is None]
    assert copies, "an unmated, unmutated child is an unchanged copy"
    creature = next(r.creature for r in results if r.creature is not None)
    with pytest.raises(ValueError, match="unchanged copy"):
        checked_results(plan, [*results[: copies[0]], ChildResult(creature), *results[copies[0] + 1 :]], 1)
    measured = [r if r.evaluation is None else dataclasses.replace(r, evaluation=evaluated(r.creature, True))
                for r in results]  # fmt: skip
    with pytest.raises(ValueError, match="measure"):
        checked_results(plan, measured, 1, measures=3)
    assert checked_results(plan, measured, 1, measures=2) == measured
