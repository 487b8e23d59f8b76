"""The MAP-Elites state machine without a simulator: fitness and measures are cheap functions of a genome."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from ribs.emitters import EmitterBase
from ribs.schedulers import Scheduler

from evo.fitness import Evaluation
from evo.ga.brood import PAIR, RANDOM, breed
from evo.ga.loop import plugin_seed
from evo.ga.search import ChildResult
from evo.ga.settings import GenomeSection
from evo.io.checkpoint.qd import qd_state_from_dict, qd_state_to_dict
from evo.model import Creature
from evo.qd import ArchiveSpec, QDSettings, archive_statistics
from evo.qd.loop import QualityDiversity

GENOME = GenomeSection(masses=(3, 8))
GRID = ArchiveSpec("grid", ("masses", "omega"), ((2.5, 8.5), (0.02, 0.2)), bins=(6, 5), score_offset=-10.0)
CVT = ArchiveSpec("cvt", ("masses", "omega"), ((2.5, 8.5), (0.02, 0.2)), cells=12, cvt_samples=600)


def settings(spec: ArchiveSpec = GRID, seed: int = 5, **changes) -> QDSettings:
    values = dict(
        seed=seed, initial=12, objectives=("size",), weights=(1.0,), archive=spec, batch_size=5, emitters=2
    )
    values.update(changes)
    return QDSettings(genome=GENOME, **values)


def width(creature: Creature) -> float:
    return float(np.ptp(creature.positions[:, 0]) + 10.0 * creature.omega)


def score(creature: Creature) -> Evaluation:
    """A fitness of the body, measures (masses, omega); creatures of exactly 4 masses explode."""
    if creature.n_masses == 4:
        return Evaluation((-math.inf,), True)
    return Evaluation((width(creature),), False, (float(creature.n_masses), float(creature.omega)))


def step(search: QualityDiversity, evaluate=score) -> dict:
    s = search.settings
    broods = search.ask().broods
    return search.tell([ChildResult(c, evaluate(c)) for b in broods for c in breed(b, s.genome, s.ga)])


def run(qd_settings: QDSettings, iterations: int) -> QualityDiversity:
    search = QualityDiversity(qd_settings)
    for _ in range(iterations):
        step(search)
    return search


def test_the_first_iteration_is_the_initial_batch_and_the_next_ones_come_from_the_emitters():
    search = QualityDiversity(settings())
    first = search.ask().broods
    assert len(first) == 12 and {b.kind for b in first} == {RANDOM}
    assert [b.plugin_seeds for b in first] == [(plugin_seed(5, 0, i),) for i in range(12)]
    search.tell([ChildResult(c, score(c)) for b in first for c in breed(b, GENOME, search.settings.ga)])
    broods = search.ask().broods
    assert {b.kind for b in broods} == {PAIR}
    children = sum(len(b.plugin_seeds) for b in broods)
    assert children == 2 * 5  # emitters x batch_size
    assert all(s is not None for b in broods for s in b.plugin_seeds), "every child is new and evaluated"
    assert all(b.mate or all(b.mutate) for b in broods), "a child that is not mated is mutated"
    parents = {id(p) for b in broods for p in b.parents}
    elites = {id(e.individual.creature) for e in search.elites}
    assert parents <= elites, "parents are the archive's elites"


def test_evo_drives_pyribs_scheduler_with_its_own_emitter():
    search = QualityDiversity(settings())
    assert isinstance(search.scheduler, Scheduler) and len(search.emitters) == 2
    assert all(isinstance(e, EmitterBase) and e.archive is search.archive for e in search.emitters)


def test_the_same_seed_makes_the_same_archive_and_another_seed_another():
    a, b = run(settings(), 5), run(settings(), 5)
    assert json.dumps(qd_state_to_dict(a.state())) == json.dumps(qd_state_to_dict(b.state()))
    c = run(settings(seed=6), 5)
    assert json.dumps(qd_state_to_dict(a.state())) != json.dumps(qd_state_to_dict(c.state()))


def test_exploded_creatures_never_enter_the_archive_and_are_counted():
    search = run(settings(), 6)
    assert search.elites and all(e.measures[0] != 4.0 for e in search.elites)
    assert sum(r["exploded"] for r in search.logbook) > 0
    assert all(math.isfinite(e.objective) for e in search.elites)


def test_a_cell_keeps_the_best_creature_that_fell_in_it():
    search = QualityDiversity(settings())
    seen: dict[int, float] = {}

    def remember(creature: Creature) -> Evaluation:
        evaluation = score(creature)
        if not evaluation.exploded:
            cell = int(search.archive.index_of(GRID.scaled([evaluation.measures]))[0])
            seen[cell] = max(seen.get(cell, -math.inf), evaluation.fitness[0])
        return evaluation

    for _ in range(6):
        step(search, remember)
    assert {e.index: e.objective for e in search.elites} == seen


def test_the_history_row_holds_the_archives_figures():
    search = run(settings(), 4)
    record = search.logbook[-1]
    objectives = [e.objective for e in search.elites]
    assert record["num_elites"] == len(objectives) and record["coverage"] == len(objectives) / 30
    assert record["qd_score"] == pytest.approx(sum(o + 10.0 for o in objectives))  # offset -10
    assert record["norm_qd_score"] == pytest.approx(record["qd_score"] / 30)
    assert record["obj_max"] == max(objectives) == record["size_best"]
    assert record["obj_mean"] == pytest.approx(np.mean(objectives)) == pytest.approx(record["size_mean"])
    assert record["evaluations"] == 10 and list(record) == search.columns
    assert archive_statistics(search.elites, GRID) == {
        k: record[k] for k in archive_statistics(search.elites, GRID)
    }


def test_a_minimised_objective_is_negated_so_that_the_archive_keeps_the_smallest():
    search = run(settings(weights=(-1.0,)), 4)
    for elite in search.elites:
        assert elite.objective == -elite.individual.values[0]
    best = search.hall_of_fame[0]
    assert best.values[0] == min(e.individual.values[0] for e in search.elites)


@pytest.mark.parametrize("spec", [GRID, CVT], ids=["grid", "cvt"])
def test_a_state_restored_from_json_continues_exactly_like_the_original(spec):
    original = run(settings(spec), 3)
    text = json.dumps(qd_state_to_dict(original.state()))
    restored = QualityDiversity.from_state(qd_state_from_dict(json.loads(text), (1.0,)), settings(spec))
    for _ in range(3):
        assert step(restored) == step(original)
    assert json.dumps(qd_state_to_dict(restored.state())) == json.dumps(qd_state_to_dict(original.state()))


def test_cvt_centroids_come_from_the_seed_and_a_restored_run_keeps_its_saved_ones(monkeypatch):
    a, b = QualityDiversity(settings(CVT)), QualityDiversity(settings(CVT))
    assert a.centroids.shape == (12, 2) and np.array_equal(a.centroids, b.centroids)
    assert not np.array_equal(a.centroids, QualityDiversity(settings(CVT, seed=9)).centroids)
    assert a.centroids.min() >= 0.0 and a.centroids.max() <= 1.0  # in the unit cube of the scaled measures
    state = run(settings(CVT), 2).state()
    import evo.qd.loop

    monkeypatch.setattr(evo.qd.loop, "cvt_centroids", lambda *args: pytest.fail("recomputed the centroids"))
    restored = QualityDiversity.from_state(state, settings(CVT))
    assert np.array_equal(restored.centroids, state.centroids)


def test_a_state_of_another_seed_or_other_measures_is_refused():
    state = run(settings(), 2).state()
    with pytest.raises(ValueError, match="another seed"):
        QualityDiversity.from_state(state, settings(seed=6))
    other = ArchiveSpec("grid", ("masses", "beta"), ((2.5, 8.5), (0.0, 1.0)), bins=(6, 5))
    with pytest.raises(ValueError, match="measures"):
        QualityDiversity.from_state(state, settings(other))


def test_ask_and_tell_must_alternate():
    search = QualityDiversity(settings())
    with pytest.raises(RuntimeError):
        search.tell([])
    search.ask()
    with pytest.raises(RuntimeError):
        search.ask()
    with pytest.raises(RuntimeError):
        search.state()


def test_a_child_told_as_a_fitness_and_measures_pair_as_before_0_2_is_taken_with_a_warning():
    search = QualityDiversity(settings())
    broods = search.ask().broods
    with pytest.warns(DeprecationWarning, match="ChildResult"):
        record = search.tell(
            [
                [(c, (width(c), (float(c.n_masses), c.omega))) for c in breed(b, GENOME, search.settings.ga)]
                for b in broods
            ]
        )
    assert record["num_elites"] > 0 and record["exploded"] == 0


# -- the archive's rules (docs/qd.md, "How it works": tell; "How pyribs and evo share the work") ----------
def _constant(objective_of, measures=(5.0, 0.1)):
    """An evaluation whose measures are always ``measures`` and whose objective is ``objective_of(k)`` for
    the k-th creature evaluated."""
    count = [0]

    def evaluate(creature: Creature) -> Evaluation:
        count[0] += 1
        return Evaluation((float(objective_of(count[0] - 1)),), False, measures)

    return evaluate


def test_children_of_one_batch_in_one_cell_the_best_wins_and_the_first_on_a_tie():
    best = QualityDiversity(settings())
    step(best, _constant(lambda k: 10.0 if k == 7 else 1.0))
    assert [e.individual.id for e in best.elites] == ["g0-7"]
    tied = QualityDiversity(settings())
    step(tied, _constant(lambda k: 3.0))
    assert [e.individual.id for e in tied.elites] == ["g0-0"], "the first in batch order on a tie"
    later = QualityDiversity(settings())
    step(later, _constant(lambda k: 3.0))
    step(later, _constant(lambda k: 3.0 if k != 4 else 2.0))  # iteration 1 only ties or does worse
    assert [e.individual.id for e in later.elites] == ["g0-0"], "a tie never replaces the elite"
    step(later, _constant(lambda k: 3.0 if k not in (2, 6) else 3.5))
    assert [e.individual.id for e in later.elites] == ["g2-2"], "strictly higher replaces, first on a tie"


@pytest.mark.parametrize(
    "measures, cell",
    [((100.0, 5.0), (5, 4)), ((-100.0, -5.0), (0, 0)), ((8.5, 0.02), (5, 0)), ((2.5, 0.2), (0, 4))],
)
def test_a_measure_outside_its_range_counts_in_the_nearest_edge_cell(measures, cell):
    search = QualityDiversity(settings())
    step(search, _constant(lambda k: 1.0, measures))
    assert [GRID.grid_index(e.index) for e in search.elites] == [cell]
    assert search.elites[0].measures == measures, "the measures themselves are kept as they were"
