"""The generation loop without a simulator: fitness is a cheap function of the genome."""

import json
import math
import random

import numpy as np
import pytest

from evo.fitness import Evaluation
from evo.ga.brood import breed
from evo.ga.individual import Individual
from evo.ga.loop import Evolution, HallOfFame, LoopSettings, plugin_seed
from evo.ga.search import ChildResult
from evo.io.checkpoint.document import evolution_from_dict, evolution_to_dict
from evo.model import Creature

SINGLE = LoopSettings(population=14, seed=5, objectives=("size",), weights=(1.0,))
DOUBLE = LoopSettings(population=12, seed=5, objectives=("size", "masses"), weights=(1.0, -1.0))


def width(creature: Creature) -> float:
    return float(np.ptp(creature.positions[:, 0]) + 10.0 * creature.omega)


def single(creature: Creature) -> Evaluation:
    return Evaluation((width(creature),), False)


def double(creature: Creature) -> Evaluation:
    return Evaluation((width(creature), float(creature.n_masses)), False)


def children(evolution: Evolution) -> list[list]:
    """Breed what ask() planned: per brood, its children (None for an unchanged copy)."""
    s = evolution.settings
    return [breed(brood, s.genome, s.ga) for brood in evolution.ask().broods]


def results(kids: list[list], score=single) -> list[ChildResult]:
    """One result per child, in the plan's order (``ChildResult()`` for an unchanged copy)."""
    return [ChildResult() if c is None else ChildResult(c, score(c)) for made in kids for c in made]


def step(evolution: Evolution, score=single) -> dict:
    return evolution.tell(results(children(evolution), score))


def run(settings: LoopSettings, generations: int, score=single) -> Evolution:
    evolution = Evolution(settings)
    for _ in range(generations):
        step(evolution, score)
    return evolution


def test_the_same_seed_makes_the_same_generations():
    a, b = run(SINGLE, 4), run(SINGLE, 4)
    assert json.dumps(evolution_to_dict(a)) == json.dumps(evolution_to_dict(b))
    c = run(LoopSettings(population=14, seed=6, objectives=("size",), weights=(1.0,)), 4)
    assert json.dumps(evolution_to_dict(a)) != json.dumps(evolution_to_dict(c))


@pytest.mark.parametrize("settings, score", [(SINGLE, single), (DOUBLE, double)], ids=["single", "nsga2"])
def test_a_state_restored_from_json_continues_exactly_like_the_original(settings, score):
    original = run(settings, 3, score)
    saved = json.loads(json.dumps(evolution_to_dict(original), allow_nan=False))
    restored = evolution_from_dict(saved, settings)
    assert json.dumps(evolution_to_dict(restored)) == json.dumps(evolution_to_dict(original))
    for _ in range(3):
        assert step(original, score) == step(restored, score)
    assert json.dumps(evolution_to_dict(restored)) == json.dumps(evolution_to_dict(original))


@pytest.mark.parametrize("settings, score", [(SINGLE, single), (DOUBLE, double)], ids=["single", "nsga2"])
def test_an_ask_taken_back_leaves_the_state_as_it_was_and_the_run_goes_on_unchanged(settings, score):
    original, other = run(settings, 2, score), run(settings, 2, score)
    before = json.dumps(evolution_to_dict(other))
    other.ask()
    other.take_back()
    assert json.dumps(evolution_to_dict(other)) == before
    for _ in range(2):
        assert step(other, score) == step(original, score)
    with pytest.raises(RuntimeError):
        other.take_back()  # nothing under way


@pytest.mark.parametrize("settings, score", [(SINGLE, single), (DOUBLE, double)], ids=["single", "nsga2"])
def test_a_tell_in_two_parts_with_the_next_ask_between_them_runs_as_tell_does(settings, score):
    """tell_later: the population moves on at once, the next ask comes before the second part (the hall
    of fame and the logbook), and the run, its records and its states are those of plain tells; during
    that ask the state is the one told (its generator's state the one before the ask)."""
    plain, later = Evolution(settings), Evolution(settings)
    finish, told, expected, got = None, "", [], []
    for g in range(5):
        expected.append(step(plain, score))
        kids = children(later)  # generation g's ask: the second part of g - 1's tell still due
        if finish is not None:
            assert len(later.logbook) == g - 1
            assert json.dumps(evolution_to_dict(later)) == told  # read: the second part done first
            assert len(later.logbook) == g
            got.append(finish())
        finish = later.tell_later(results(kids, score))
        told = json.dumps(evolution_to_dict(plain))
    got.append(finish())
    assert got == expected and finish() is got[-1]  # once: the same record
    assert json.dumps(evolution_to_dict(later)) == told
    later.ask()
    assert json.dumps(evolution_to_dict(later)) == told
    later.take_back()
    assert json.dumps(evolution_to_dict(later)) == told
    plain.ask()
    with pytest.raises(RuntimeError):  # after a plain tell, the state is not complete during the ask
        plain.state()


def test_an_ask_interrupted_after_its_draws_leaves_the_generator_as_it_was(monkeypatch):
    from evo.ga import loop

    original, interrupted = run(SINGLE, 2), run(SINGLE, 2)
    real = loop.plugin_seeds

    def late(*args):
        real(*args)
        raise KeyboardInterrupt  # after every draw of the run's generator

    monkeypatch.setattr(loop, "plugin_seeds", late)
    before = json.dumps(evolution_to_dict(interrupted))
    with pytest.raises(KeyboardInterrupt):
        interrupted.ask()
    assert json.dumps(evolution_to_dict(interrupted)) == before
    monkeypatch.setattr(loop, "plugin_seeds", real)
    assert step(interrupted) == step(original)


def test_the_second_part_of_a_tell_is_done_by_whatever_reads_what_it_makes():
    evolution = run(SINGLE, 2)
    for read in (lambda e: e.state(), lambda e: e.best, lambda e: e.tell(results(children(e)))):
        finish = evolution.tell_later(results(children(evolution)))
        generation, rows = evolution.generation, len(evolution.logbook)
        read(evolution)  # the next tell: its own row after the one due
        assert len(evolution.logbook) > rows and evolution.logbook[rows] == finish()
        assert evolution.logbook[rows]["generation"] == generation


def test_elitism_keeps_the_best_fitness_from_ever_getting_worse():
    evolution = Evolution(SINGLE)
    bests = [step(evolution)["size_best"] for _ in range(6)]
    assert bests == sorted(bests)
    assert evolution.best.values[0] == bests[-1]
    assert len(evolution.population) == SINGLE.population


def test_only_changed_offspring_are_evaluated_and_each_gets_its_own_seed():
    evolution = run(SINGLE, 2)
    broods = evolution.ask().broods
    seeds = [seed for brood in broods for seed in brood.plugin_seeds if seed is not None]
    assert 0 < len(seeds) <= SINGLE.population - SINGLE.ga.elite
    assert seeds == [plugin_seed(SINGLE.seed, 2, i) for i in range(len(seeds))]
    with pytest.raises(RuntimeError):
        evolution.ask()
    with pytest.raises(ValueError):
        evolution.tell([])
    with pytest.raises(ValueError):  # a copy's result where a new child's is due; nothing is told
        evolution.tell([ChildResult()] * sum(len(brood.plugin_seeds) for brood in broods))
    s = evolution.settings
    kids = [breed(brood, s.genome, s.ga) for brood in broods]
    for brood, made in zip(broods, kids, strict=True):
        assert [c is None for c in made] == [seed is None for seed in brood.plugin_seeds]
    evolution.tell(results(kids))
    new = [ind for ind in evolution.population if ind.born == 2]
    assert sorted(ind.id for ind in new) == sorted(f"g2-{i}" for i in range(len(seeds)))
    assert all(ind.parents and ind.seed == seeds[int(ind.id.split("-")[1])] for ind in new)


def test_breeding_the_same_brood_twice_makes_the_same_children():
    evolution = run(SINGLE, 1)
    s = evolution.settings
    for brood in evolution.ask().broods:
        once, twice = breed(brood, s.genome, s.ga), breed(brood, s.genome, s.ga)
        assert [None if c is None else json.dumps(c.positions.tolist() + c.rest.tolist()) for c in once] == [
            None if c is None else json.dumps(c.positions.tolist() + c.rest.tolist()) for c in twice
        ]


def test_plugin_seeds_derive_from_run_seed_generation_and_index():
    seeds = {plugin_seed(s, g, i) for s in (1, 2) for g in (0, 1) for i in (0, 1)}
    assert len(seeds) == 8
    for run_seed, generation, index in [(1, 0, 0), (7, 3, 11), (2**63 + 5, 10**6, 4)]:
        expected = np.random.SeedSequence([run_seed, generation, index]).generate_state(1, np.uint64)[0]
        assert plugin_seed(run_seed, generation, index) == int(expected) < 2**64


def test_exploded_creatures_get_the_worst_fitness_are_counted_and_left_out_of_statistics():
    evolution = Evolution(SINGLE)
    made = children(evolution)
    outcomes = [
        ChildResult(c, Evaluation((-math.inf,), True) if k % 3 == 0 else single(c))
        for k, (c,) in enumerate(made)
    ]
    record = evolution.tell(outcomes)
    finite = [o.evaluation.fitness[0] for o in outcomes if not o.evaluation.exploded]
    assert record["exploded"] == len(made) - len(finite)
    assert record["size_mean"] == pytest.approx(np.mean(finite))
    assert record["size_min"] == min(finite)
    assert all(math.isfinite(m.values[0]) for m in evolution.hall_of_fame)
    doc = json.loads(json.dumps(evolution_to_dict(evolution), allow_nan=False))
    assert sum(ind["fitness"] == ["-inf"] for ind in doc["population"]) == record["exploded"]


def test_a_generation_where_everything_exploded_has_nan_statistics_and_no_elites():
    evolution = Evolution(SINGLE)
    made = children(evolution)
    record = evolution.tell([ChildResult(c, Evaluation((-math.inf,), True)) for (c,) in made])
    assert record["exploded"] == len(made)
    assert math.isnan(record["size_best"]) and math.isnan(record["size_mean"])
    assert len(evolution.hall_of_fame) == 0
    step(evolution)  # and the run goes on


def test_several_objectives_select_with_nsga2_and_keep_the_population_size():
    evolution = run(DOUBLE, 4, double)
    assert len(evolution.population) == DOUBLE.population
    assert all(len(ind.values) == 2 for ind in evolution.population)
    assert set(evolution.logbook[-1]) >= {"size_best", "masses_best", "masses_min"}
    # masses are minimised: "best" is the smallest
    assert evolution.logbook[-1]["masses_best"] == evolution.logbook[-1]["masses_min"]


def test_selection_leaves_pythons_global_random_state_alone():
    evolution = run(SINGLE, 1)
    random.seed(123)
    expected = random.random()
    random.seed(123)
    step(evolution)
    assert random.random() == expected


def _member(name: str, value: float, group: str) -> Individual:
    ind = Individual(Creature([[0.0, 0.0]], [[0.0, 0.0]], [False], [], [], [], [], []), (1.0,), id=name)
    ind.set_fitness((value,))
    ind.parents = (group,)  # the test's notion of "alike"
    return ind


def test_the_hall_of_fame_keeps_near_duplicates_out_but_a_better_one_replaces_them():
    hof = HallOfFame(3, similar=lambda a, b: a.id == b.id or a.parents == b.parents)
    hof.update([_member("a", 1.0, "x"), _member("b", 2.0, "y"), _member("c", 1.5, "x")])
    assert [m.id for m in hof] == ["b", "c"]  # c is alike a and better: it replaced a
    hof.update([_member("d", 0.5, "y"), _member("e", 0.7, "z"), _member("f", -math.inf, "w")])
    assert [m.id for m in hof] == ["b", "c", "e"]  # d is alike the better b; f is not finite
    hof.update([_member("g", 3.0, "q")])
    assert [m.id for m in hof] == ["g", "b", "c"]  # full: the worst made room
    hof.update([_member("b", 2.0, "y")])  # a copy of a member changes nothing
    assert [m.id for m in hof] == ["g", "b", "c"]


def test_a_broods_seed_is_what_rng_integers_2_63_draws_and_leaves_the_same_state():
    for seed in range(500):
        evolution = Evolution(LoopSettings(population=4, seed=seed, objectives=("size",), weights=(1.0,)))
        reference = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        for k in range(12):
            assert evolution._draw_seed() == int(reference.integers(2**63))
            if k % 3 == 0:  # draws of other kinds between them, the buffered 32-bit ones included
                assert evolution.rng.random(3).tolist() == reference.random(3).tolist()
                assert int(evolution.rng.integers(5)) == int(reference.integers(5))
        assert evolution.rng.bit_generator.state == reference.bit_generator.state


def _reference_pairs(rng: np.random.Generator, parents: list, mating: float, mutating: float) -> list:
    """What evo 0.2 drew for a generation's pairs: one ``rng.random`` call and one seed per pair."""
    plan = []
    for i in range(0, len(parents), 2):
        pair = parents[i : i + 2]
        draws = rng.random(3 if len(pair) == 2 else len(pair)).tolist()
        mate = len(pair) == 2 and draws.pop(0) < mating
        mutate = tuple(u < mutating for u in draws)
        plan.append((mate, mutate, int(rng.integers(2**63)), [id(p) for p in pair]))
    return plan


@pytest.mark.parametrize("count", [1, 2, 3, 8, 13, 200])
@pytest.mark.parametrize("rates", [(0.5, 0.5), (0.9, 0.1), (0.0, 1.0), (1.0, 0.0)])
def test_a_generations_pairs_are_drawn_at_once_as_pair_after_pair_would_draw_them(count, rates):
    from evo.ga.settings import GASection

    mating, mutating = rates
    ga = GASection(crossover_rate=mating, mutation_rate=mutating)
    for seed in range(40):
        settings = LoopSettings(population=count, seed=seed, objectives=("d",), weights=(1.0,), ga=ga)
        evolution = Evolution(settings)
        reference = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        if seed % 2:  # a buffered 32-bit draw before them is left alone by both
            assert int(evolution.rng.integers(7)) == int(reference.integers(7))
        parents = [_member(f"p{i}", float(i), "x") for i in range(count)]
        plan = evolution._pairs(parents)
        got = [(mate, mutate, seed, [id(p) for p in pair]) for _, seed, _, mate, mutate, pair in plan]
        assert got == _reference_pairs(reference, parents, mating, mutating)
        assert evolution.rng.bit_generator.state == reference.bit_generator.state


def test_tournaments_pick_what_deaps_sel_tournament_picks():
    """The aspirants drawn apart from the fitness, then the winners among them: DEAP's selTournament's
    picks, Python's generator left where it leaves it."""
    from deap import tools

    from evo.ga.loop import _drawn_aspirants, _winners

    rng = np.random.default_rng(3)
    for trial in range(200):
        size = int(rng.integers(1, 300))
        values = rng.integers(0, 6, size).tolist()  # many ties: the first of equals wins in both
        people = [_member(f"i{k}", float(v), "x") for k, v in enumerate(values)]
        k, tournsize = int(rng.integers(0, 50)), int(rng.integers(1, 5))
        random.seed(trial)
        expected = [id(p) for p in tools.selTournament(people, k, tournsize)]
        after_deap = random.random()  # the same draws leave Python's generator in the same state
        random.seed(trial)
        aspirants = _drawn_aspirants(size, k, tournsize, random.getrandbits)
        assert random.random() == after_deap and len(aspirants) == k * tournsize
        assert [id(p) for p in _winners(people, aspirants, tournsize)] == expected
    with pytest.raises(IndexError):
        _drawn_aspirants(0, 1, 2, random.getrandbits)


def _planned(plan) -> list:
    """What a plan says, comparable across two runs: each brood's kind, seed, flags, plugin seeds and
    its parents (their masses' positions and link ends)."""
    return [
        (b.kind, b.seed, b.mate, b.mutate, b.plugin_seeds, [_body(p) for p in b.parents]) for b in plan.broods
    ]


def _body(creature: Creature) -> tuple[bytes, bytes, bytes]:
    return creature.positions.tobytes(), creature.link_a.tobytes(), creature.link_b.tobytes()


@pytest.mark.parametrize("when", ["after the tell", "before the tell", "twice", "both"])
@pytest.mark.parametrize("settings, score", [(SINGLE, single), (DOUBLE, double)], ids=["single", "nsga2"])
def test_the_next_asks_draws_made_ahead_change_nothing_it_plans_or_saves(settings, score, when):
    """Round twenty-two: draw_ahead (beside a generation's work) makes the next ask's draws, which then
    only picks; the plans, the states saved between the generations and the generator after each ask are
    those of a run that never drew ahead (fails where an ask drew again after draws made ahead, or a
    state gave the generator past them). NSGA-II's asks draw nothing ahead."""
    plain, ahead = Evolution(settings), Evolution(settings)
    for g in range(6):
        plan = plain.ask()
        if when in ("before the tell", "both") and g > 0:
            ahead.draw_ahead()  # (a pending ask: nothing for it, the one after is drawn)
        assert _planned(ahead.ask()) == _planned(plan)
        assert ahead.rng.bit_generator.state == plain.rng.bit_generator.state
        if when in ("before the tell", "both", "twice"):
            ahead.draw_ahead()
            if when == "twice":
                ahead.draw_ahead()
        kids = [breed(brood, settings.genome, settings.ga) for brood in plan.broods]
        assert ahead.tell(results(kids, score)) == plain.tell(results(kids, score))
        if when in ("after the tell", "both"):
            ahead.draw_ahead()
        moved = ahead.rng.bit_generator.state != plain.rng.bit_generator.state
        # made ahead (single-objective only; during generation 0's ask there is no population to draw in)
        assert moved == (settings is SINGLE and (g > 0 or when in ("after the tell", "both")))
        assert json.dumps(evolution_to_dict(ahead)) == json.dumps(evolution_to_dict(plain))


def test_draws_made_ahead_are_given_back_by_take_back_and_left_out_of_a_resume():
    """An ask that used draws made ahead and was taken back leaves the generator before them, and a
    state saved while they are made resumes to the same plans as the run that made them."""
    plain, ahead = run(SINGLE, 2), run(SINGLE, 2)
    ahead.draw_ahead()
    saved = json.loads(json.dumps(evolution_to_dict(ahead)))
    assert saved == json.loads(json.dumps(evolution_to_dict(plain)))
    ahead.ask()
    ahead.take_back()
    assert ahead.rng.bit_generator.state == plain.rng.bit_generator.state
    ahead.ask()
    ahead.draw_ahead()  # the ask after the one under way: dropped with it
    ahead.take_back()
    assert ahead.rng.bit_generator.state == plain.rng.bit_generator.state
    ahead.draw_ahead()
    expected = _planned(ahead.ask())
    for evolution in (plain, evolution_from_dict(saved, SINGLE)):
        assert _planned(evolution.ask()) == expected
        assert evolution.rng.bit_generator.state == ahead.rng.bit_generator.state


def test_draws_made_ahead_and_dropped_are_made_again_the_same_and_selection_draws_are_an_ask_s():
    """drop_ahead gives the generator back its state before the draws made ahead (nothing is lost: the
    next ask makes them again), and selection_draws makes the draws an ask makes for its selection: the
    generator then stands where draw_ahead left it."""
    plain, ahead = run(SINGLE, 2), run(SINGLE, 2)
    before = plain.rng.bit_generator.state
    ahead.draw_ahead()
    drawn, past = ahead._ahead, ahead.rng.bit_generator.state
    ahead.drop_ahead()
    ahead.drop_ahead()  # (nothing made ahead: nothing to do)
    assert ahead.rng.bit_generator.state == before and ahead._ahead is None
    aspirants, pairs = plain.selection_draws(len(plain.population))
    assert (aspirants, pairs) == (drawn.aspirants, drawn.pairs)
    assert plain.rng.bit_generator.state == past  # (the plugin seeds come from the run's seed)
    plain.rng.bit_generator.state = before
    assert _planned(ahead.ask()) == _planned(plain.ask())


def test_draws_made_ahead_for_another_population_are_made_again():
    """Draws made ahead that no longer fit the next ask (a population of another size meanwhile) are
    given back to the generator, and the ask draws its own, as without them."""
    plain, ahead = run(SINGLE, 2), run(SINGLE, 2)
    ahead.draw_ahead()
    for evolution in (plain, ahead):
        evolution.population = evolution.population[:-1]
    assert _planned(ahead.ask()) == _planned(plain.ask())
    assert ahead.rng.bit_generator.state == plain.rng.bit_generator.state


def test_an_ask_after_drawing_ahead_draws_nothing_itself(monkeypatch):
    """The ask uses the draws made ahead: it calls none of the drawing steps (fails where it drew again,
    which would give the same plans)."""
    from evo.ga import loop

    ahead = run(SINGLE, 2)
    ahead.draw_ahead()
    drawn = []
    for owner, name in ((Evolution, "_aspirants"), (Evolution, "_pair_draws"), (loop, "plugin_seeds")):
        real = getattr(owner, name)
        monkeypatch.setattr(
            owner, name, lambda *a, _real=real, _name=name, **k: drawn.append(_name) or _real(*a, **k)
        )
    state = ahead.rng.bit_generator.state
    ahead.ask()
    assert drawn == [] and ahead.rng.bit_generator.state == state


@pytest.mark.parametrize("where", ["ask's start", "drawing ahead"])
def test_an_interrupt_around_draws_made_ahead_leaves_the_generator_as_a_run_without_them(monkeypatch, where):
    """An interrupt (KeyboardInterrupt) at the start of an ask that has draws made ahead, or while they
    are made, leaves the state a run that never drew ahead saves, and the next ask plans what it plans."""
    from evo.ga import loop

    plain, ahead = run(SINGLE, 2), run(SINGLE, 2)
    owner, name = (Evolution, "_fits") if where == "ask's start" else (loop, "plugin_seeds")
    if where == "ask's start":
        ahead.draw_ahead()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(owner, name, interrupted)
        with pytest.raises(KeyboardInterrupt):
            ahead.ask() if where == "ask's start" else ahead.draw_ahead()
    assert json.dumps(evolution_to_dict(ahead)) == json.dumps(evolution_to_dict(plain))
    assert _planned(ahead.ask()) == _planned(plain.ask())
    assert ahead.rng.bit_generator.state == plain.rng.bit_generator.state


def test_a_state_keeps_its_logbook_when_the_run_refines_after_it():
    """States share the run's told records (no copy of the whole logbook per state); a refinement's
    change to the last record makes a new one, so a state taken before it still reads the record it had."""
    evolution = run(SINGLE, 3)
    before = evolution.state()
    told = dict(before.logbook[-1])
    best = evolution.population[0]
    record = evolution.replace_refined({best.id: best}, evaluations=7)
    assert record["evaluations"] == told["evaluations"] + 7
    assert evolution.logbook[-1] == record and evolution.state().logbook[-1] == record
    assert before.logbook[-1] == told  # unchanged
    assert [dict(r) for r in before.logbook[:-1]] == [dict(r) for r in evolution.logbook[:-1]]
