"""The GA as a :class:`~evo.ga.search.Search`: ``ask`` -> breed and evaluate elsewhere -> ``tell``.

:class:`Evolution` selects parents and plans broods; ``tell`` takes each child's result and moves the
population, hall of fame and logbook on (:class:`EvolutionState` between generations). Selection,
variation and randomness: docs/runs.md, "The generation loop", "Determinism"."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from deap import tools

from evo.ga.bred import BredGeneration
from evo.ga.brood import PAIR, RANDOM, SEEDED, Brood
from evo.ga.hall_of_fame import HallOfFame
from evo.ga.individual import Individual
from evo.ga.logbook import column_statistics, history_columns
from evo.ga.search import ChildResult, Plan, checked_results
from evo.ga.seeds import plugin_seed, plugin_seeds
from evo.ga.settings import GASection, GenomeSection
from evo.model import Creature

__all__ = ["Evolution", "EvolutionState", "HallOfFame", "LoopSettings", "history_columns", "plugin_seed"]


@dataclass(frozen=True)
class LoopSettings:
    """What the loop needs from a config: sizes, the run seed, the plugin's objectives and weights."""

    population: int
    seed: int
    objectives: tuple[str, ...]
    weights: tuple[float, ...]
    genome: GenomeSection = field(default_factory=GenomeSection)
    ga: GASection = field(default_factory=GASection)

    @property
    def multi_objective(self) -> bool:
        return len(self.weights) > 1


# a brood planned by ``ask``: kind, seed, parents' creatures, mate, mutate, parent individuals (None: none)
_Plan = tuple[str, int, tuple[Creature, ...], bool, tuple[bool, ...], list[Individual | None]]
_DOUBLE = 1.0 / 9007199254740992.0  # 2**-53: a PCG64 double is its raw draw's top 53 bits times this
# a pair brood's draws: mate?, mutate? per child, the operators' seed
_Pairing = tuple[bool, tuple[bool, ...], int]


@dataclass(frozen=True)
class _Drawn:
    """A generation's ask's draws, made before it (:meth:`Evolution.draw_ahead`): the generator's state
    before them, the tournaments' aspirants (``size`` each, positions in a population of ``members``),
    each pair brood's flags and seed (:meth:`Evolution._pair_draws`) and the plugin seeds."""

    generation: int
    before: dict[str, Any]
    members: int
    size: int
    aspirants: list[int]
    pairs: list[_Pairing]
    made: list[int]


def _fitness_key(ind: Individual) -> tuple[float, ...]:
    """What ``ind.fitness`` compares by (its weighted values; a fitness never holds NaN here)."""
    return ind.fitness.wvalues


class Evolution:
    """The state of a run between generations, and the two steps that move it on.

    Args:
        settings: the loop's :class:`LoopSettings` (:meth:`evo.Config.loop_settings`).
        seed_models: creatures for generation 0 (brought within the genome limits, then mutants of them
            up to half the population).

    Attributes:
        generation: the last generation told (-1 before the first).
        population: the current population (told individuals); ``hall_of_fame`` the best distinct ones.
        logbook: DEAP's logbook, one record per generation (:func:`history_columns`).
    """

    def __init__(
        self,
        settings: LoopSettings,
        *,
        seed_models: Sequence[Creature] = (),
    ):
        self.settings = settings
        self.seed_models = tuple(seed_models)
        self.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(settings.seed)))
        self.generation = -1  # the last generation told; -1 before the first
        self.population: list[Individual] = []
        self.hall_of_fame = HallOfFame(settings.ga.hall_of_fame, similar=self._similar)
        self.logbook = tools.Logbook()
        self.logbook.header = history_columns(settings.objectives)
        # the ask under way: survivors, its plan, each brood's parent individuals
        self._pending: tuple[list[Individual], Plan, list[list[Individual | None]]] | None = None
        self._before_ask: dict[str, Any] = {}  # the generator's state before the ask under way
        self._unfinished: Callable[[], dict[str, Any]] | None = None  # a tell_later's second part
        self._told_later = False  # the last tell was tell_later: state() holds during the next ask
        self._distances: dict[tuple[str, str], float] = {}
        self._ahead: _Drawn | None = None  # the next ask's draws, made beside the work before it

    # -- helpers -------------------------------------------------------------------------------
    def _similar(self, a: Individual, b: Individual) -> bool:
        """Near-duplicates: ``distance`` below ``similarity`` (memoised by id: an individual's creature
        never changes, and copies share their id; the memo holds the distance, or where
        :func:`~evo.ga.creatures.distance_floor` already reaches ``similarity``, that lower bound)."""
        from evo.ga.creatures import distance, distance_floor

        if a.id == b.id:
            return True
        key = (a.id, b.id) if a.id < b.id else (b.id, a.id)
        d = self._distances.get(key)
        if d is None:
            limit = self.settings.ga.similarity
            d = distance_floor(a.creature, b.creature, muscles=False)  # (no creature's genes read)
            if d < limit:
                d = distance_floor(a.creature, b.creature)
            if d < limit:
                d = distance(a.creature, b.creature)
            self._distances[key] = d
        return d < self.settings.ga.similarity

    def _forget_distances(self) -> None:
        """Keep the memo to pairs that may be asked again: members and the current population (once it
        holds more pairs than a few generations ask for: a memo only saves work, so its size only
        matters for memory)."""
        if len(self._distances) <= 4 * (self.settings.population + len(self.hall_of_fame)):
            return
        alive = {ind.id for ind in self.population} | {ind.id for ind in self.hall_of_fame}
        self._distances = {k: d for k, d in self._distances.items() if k[0] in alive and k[1] in alive}

    def _python_random(self) -> None:
        random.seed(int(self.rng.integers(2**63)))

    def _aspirants(self, n: int, k: int) -> list[int]:
        """The positions of ``k`` tournaments' aspirants in a population of ``n`` (:func:`_drawn_aspirants`
        from Python's generator seeded from the run's; Python's own state left as it was)."""
        state = random.getstate()
        try:
            self._python_random()
            return _drawn_aspirants(n, k, self.settings.ga.tournament_size, random.getrandbits)
        finally:
            random.setstate(state)

    def _pareto_tournament(self, population: list[Individual], k: int) -> list[Individual]:
        rank: dict[int, tuple[int, float]] = {}
        for level, front in enumerate(tools.sortNondominated(population, len(population))):
            tools.emo.assignCrowdingDist(front)
            for ind in front:
                rank[id(ind)] = (level, -ind.fitness.crowding_dist)
        pairs = self.rng.integers(len(population), size=(k, 2))
        picked = []
        for i, j in pairs:
            a, b = population[int(i)], population[int(j)]
            picked.append(b if rank[id(b)] < rank[id(a)] else a)
        return picked

    def _draw_seed(self) -> int:
        # rng.integers(2**63) of a PCG64: numpy's Lemire method keeps the top 63 bits of one raw uint64
        # draw (range 2**63: no rejection), so this is its value and its state, at a sixth of the cost
        # (tests/ga/test_loop.py)
        return int(self.rng.bit_generator.random_raw()) >> 1

    def _initial(self) -> list[_Plan]:
        """Generation 0: the seed models, mutants of them up to half the population, random creatures."""
        s, models = self.settings, self.seed_models
        plan: list[_Plan] = []
        for i in range(s.population):
            if models and (i < len(models) or i < s.population // 2):
                model = models[i % len(models)]
                plan.append((SEEDED, self._draw_seed(), (model,), False, (i >= len(models),), [None]))
            else:
                plan.append((RANDOM, self._draw_seed(), (), False, (False,), [None]))
        return plan

    def _pairs(self, parents: list[Individual]) -> list[_Plan]:
        """Consecutive parents in pairs: mate?, mutate? per child, the operators' seed.

        A pair draws, in this order: mate? (a pair of two only), mutate? per child (``rng.random()`` each)
        and its seed (:meth:`_draw_seed`): four raw PCG64 draws, two for a lone last parent, so the whole
        generation's are one ``random_raw`` call, turned into doubles as ``rng.random`` turns them (the top
        53 bits times 2**-53) and into seeds as :meth:`_draw_seed` does (tests/ga/test_loop.py)."""
        return _paired(parents, self._pair_draws(len(parents)))

    def _pair_draws(self, n: int) -> list[_Pairing]:
        """The draws of :meth:`_pairs` for ``n`` parents (``2 n`` raw draws, as doubles and as seeds), as
        each pair brood's mate?, mutate? per child and seed, a lone last parent's last."""
        raw = self.rng.bit_generator.random_raw(2 * n)
        uniform, seeds = ((raw >> np.uint64(11)) * _DOUBLE).tolist(), (raw >> np.uint64(1)).tolist()
        mating, mutating = self.settings.ga.crossover_rate, self.settings.ga.mutation_rate
        out: list[_Pairing] = []
        for at in range(0, 2 * (n - 1), 4):
            mutate = (uniform[at + 1] < mutating, uniform[at + 2] < mutating)
            out.append((uniform[at] < mating, mutate, seeds[at + 3]))
        if n % 2:
            at = 2 * (n - 1)
            out.append((False, (uniform[at] < mutating,), seeds[at + 1]))
        return out

    # -- what it holds -------------------------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        """The logbook's (history.csv's) columns (:func:`history_columns`)."""
        return history_columns(self.settings.objectives)

    # -- the two steps ---------------------------------------------------------------------------
    def ask(self) -> Plan:
        """Select and plan the next generation: the broods to breed (and evaluate), in order.

        Every draw of the run's generator is made here (parents, mating, mutation, seeds), or before, by
        :meth:`draw_ahead` (the same numbers: this then only picks the tournaments' winners).

        Returns:
            The :class:`~evo.ga.search.Plan` of the next generation: its broods in order, for generation
            0 one per creature, then one per pair of parents. Each carries a plugin seed per new child.

        Raises:
            RuntimeError: ``ask`` called again before :meth:`tell`.
        """
        if self._pending is not None:
            raise RuntimeError("ask() called twice without tell()")
        ahead = self._ahead  # the state this ask starts from is the one before the draws made ahead
        self._before_ask = self.rng.bit_generator.state if ahead is None else ahead.before
        try:
            drawn, self._ahead = ahead, None
            if drawn is not None and not self._fits(drawn):  # (not this ask's: its draws are made again)
                self.rng.bit_generator.state, drawn = drawn.before, None
            self._pending = self._planned(drawn)
        except BaseException:  # all or nothing: an interrupted ask leaves the generator as it was
            self.rng.bit_generator.state = self._before_ask
            self._ahead = None  # (its draws, if any, made again by the next ask)
            raise
        return self._pending[1]

    def _fits(self, drawn: _Drawn) -> bool:
        """Whether draws made ahead are those the next ask makes (its generation, population, settings)."""
        s = self.settings
        return (
            drawn.generation == self.generation + 1
            and drawn.members == len(self.population)
            and drawn.size == s.ga.tournament_size
            and not s.multi_objective
        )

    def draw_ahead(self) -> None:
        """Make the next :meth:`ask`'s random draws now (a run does it beside a generation's kernel calls,
        so that its ask, between the last call of one generation and the first of the next, only picks):
        the tournaments' aspirants, the pairs' draws and the plugin seeds, the same numbers that ask would
        draw (single-objective selection after generation 0; otherwise nothing is drawn). The generator
        then stands past them; :meth:`state` and :meth:`take_back` give and restore the state before
        them, so a checkpoint, a resume and every result are those of a run that never drew ahead.
        Drawn ahead twice, the second call does nothing."""
        s = self.settings
        g = self.generation + 1 + (self._pending is not None)  # the next ask's generation
        if self._ahead is not None or s.multi_objective or g == 0 or len(self.population) != s.population:
            return
        before = self.rng.bit_generator.state
        try:  # all or nothing: interrupted, the generator is as it was and nothing is drawn ahead
            aspirants, pairs = self.selection_draws(len(self.population))
            count = sum(mate or flag for mate, mutate, _ in pairs for flag in mutate)  # the new children
            made = plugin_seeds(s.seed, g, count).tolist()
            size = s.ga.tournament_size
            self._ahead = _Drawn(g, before, len(self.population), size, aspirants, pairs, made)
        except BaseException:
            self.rng.bit_generator.state = before
            self._ahead = None
            raise

    def selection_draws(self, members: int) -> tuple[list[int], list[_Pairing]]:
        """A single-objective ask's selection draws after generation 0, made now, the generator moved past
        them as that ask moves it (:meth:`draw_ahead` makes them so, and the workers of the ``shards``
        backend, which select and breed on arrays: evo/run/shards).

        Args:
            members: the population's size.

        Returns:
            The tournaments' aspirants (positions in the population, ``tournament_size`` each, as DEAP's
            selTournament draws them), and each pair brood's mate?, mutate? per child and seed.
        """
        s = self.settings
        k = s.population - min(s.ga.elite, s.population - 1)
        return self._aspirants(members, k), self._pair_draws(k)

    def drop_ahead(self) -> None:
        """Forget the draws :meth:`draw_ahead` made, the generator back before them: the next ask makes
        them again (the same numbers)."""
        if self._ahead is not None:
            self.rng.bit_generator.state, self._ahead = self._ahead.before, None

    def _planned(
        self, drawn: _Drawn | None = None
    ) -> tuple[list[Individual], Plan, list[list[Individual | None]]]:
        """The next generation's survivors, plan and each brood's parent individuals (:meth:`ask`), from
        the draws made ahead for it where ``drawn`` (:meth:`draw_ahead`)."""
        s = self.settings
        g = self.generation + 1
        survivors: list[Individual] = []
        if g == 0:
            plan = self._initial()
        elif s.multi_objective:
            plan = self._pairs(self._pareto_tournament(self.population, s.population))
        else:
            elite = min(s.ga.elite, s.population - 1)
            # DEAP's selBest (a stable sort, best first), comparing the weighted values directly
            best = sorted(self.population, key=_fitness_key, reverse=True)[:elite]
            survivors = [copy.deepcopy(ind) for ind in best]
            # DEAP's selTournament (the aspirants drawn, then their winners), then the pairs' draws: made
            # here, or ahead (the same numbers)
            k = s.population - elite
            aspirants = self._aspirants(len(self.population), k) if drawn is None else drawn.aspirants
            parents = _winners(self.population, aspirants, s.ga.tournament_size)
            plan = _paired(parents, self._pair_draws(k) if drawn is None else drawn.pairs)
        changes = [
            [parent is None or mate or mutate[k] for k, parent in enumerate(parents)]
            for _, _, _, mate, mutate, parents in plan
        ]
        count = sum(map(sum, changes))
        if drawn is not None and len(drawn.made) == count:
            made = drawn.made
        else:  # one per new child, in order
            made = plugin_seeds(s.seed, g, count).tolist()
        broods, parents_of, index = [], [], 0
        for (kind, seed, creatures, mate, mutate, parents), changed in zip(plan, changes, strict=True):
            seeds: list[int | None] = []
            for flag in changed:
                seeds.append(made[index] if flag else None)
                index += flag
            broods.append(Brood(kind, seed, creatures, mate, mutate, tuple(seeds)))
            parents_of.append(parents)
        return survivors, Plan(g, tuple(broods)), parents_of

    def take_back(self) -> None:
        """Undo the :meth:`ask` under way, as if it had not been made: its draws and its broods go (a run
        stopped while a generation was out with the workers). The state is then the one a resumed run has.

        Raises:
            RuntimeError: no :meth:`ask` is under way.
        """
        if self._pending is None:
            raise RuntimeError("take_back() without an ask() under way")
        self._ahead = None  # (first: draws made ahead meanwhile were made past this ask's)
        self.rng.bit_generator.state = self._before_ask
        self._pending = None

    def tell(self, results: Sequence[ChildResult]) -> dict[str, Any]:
        """Give one :class:`~evo.ga.search.ChildResult` per child of the plan :meth:`ask` gave, in order:
        ``ChildResult()`` for a child that is an unchanged copy (it keeps its parent's fitness), the
        creature and its :class:`~evo.fitness.Evaluation` for every other.

        Args:
            results: one result per child, in the order of the plan (:func:`checked_results`).

        Returns:
            The generation's logbook record: ``{column: value}`` for the columns of
            :func:`history_columns` (one row of ``history.csv``).

        Raises:
            RuntimeError: ``tell`` without a preceding :meth:`ask`.
            ValueError: not one result per child, or a result that does not fit its child.
        """
        record = self.tell_later(results)()
        self._told_later = False
        return record

    def tell_later(self, results: Sequence[ChildResult]) -> Callable[[], dict[str, Any]]:
        """:meth:`tell` in two parts, for a run loop that does the second beside the next generation's work:
        the population moves on now (the next :meth:`ask` reads nothing else, so it may follow at once),
        and the function returned offers it to the hall of fame and records the logbook's row, once (later
        calls return the same record). Whatever reads those (:meth:`state`, the next tell, a refinement)
        does the second part first if it is still due. Between that next ``ask`` and its tell,
        :meth:`state` is this tell's (its generator's state the one before that ask). Until the second
        part is done, the attributes ``hall_of_fame`` and ``logbook`` are those of the tell before.

        Args:
            results: one result per child, in the order of the plan, as :meth:`tell` takes them.

        Returns:
            The second part: ``finish() -> record``, the record :meth:`tell` returns.

        Raises:
            RuntimeError: without a preceding :meth:`ask`.
            ValueError: not one result per child, or a result that does not fit its child.
        """
        if self._pending is None:
            raise RuntimeError("tell() called without ask()")
        self._finish_told()
        survivors, plan, parents_of = self._pending
        s = self.settings
        results = checked_results(plan, results, len(s.weights))
        g = plan.generation
        children: list[Individual] = []
        todo: list[Individual] = []
        make, deepcopy = Individual.maker(s.weights), copy.deepcopy  # (lookups made once: round 23)
        add_child, add_new = children.append, todo.append
        at = 0
        for brood, parents in zip(plan.broods, parents_of, strict=True):
            mate = brood.mate
            for k, seed in enumerate(brood.plugin_seeds):
                result, parent = results[at], parents[k]
                at += 1
                if seed is None:
                    add_child(deepcopy(parent))
                    continue
                if mate:
                    origin = (parent.id, parents[1 - k].id)
                else:
                    origin = () if parent is None else (parent.id,)
                evaluation = result.evaluation
                child = make(
                    result.creature, evaluation.fitness, f"g{g}-{len(todo)}", origin, g, evaluation.exploded,
                    seed, result.model_text,
                )  # fmt: skip
                add_child(child)
                add_new(child)
        if s.multi_objective and g > 0:
            population = tools.selNSGA2(self.population + children, s.population)
        else:
            population = survivors + children
        offered = population if not s.multi_objective else population + children
        self.population = list(population)
        self.generation = g
        self._pending = None
        self._told_later = True
        done: list[dict[str, Any]] = []

        def finish() -> dict[str, Any]:
            if not done:
                self._unfinished = None
                self.hall_of_fame.update(offered)
                self._forget_distances()
                record = self._record(g, todo)  # the population is still this tell's
                self.logbook.record(**record)
                done.append(record)
            return done[0]

        self._unfinished = finish
        return finish

    def tell_bred(self, bred: BredGeneration) -> dict[str, Any]:
        """Tell a generation that was selected, bred and scored elsewhere from this state, as arrays (the
        ``shards`` backend's workers: evo/run/shards): the next generation exactly as :meth:`ask`, then
        breeding and evaluating its broods, then :meth:`tell` make it -- the same individuals, ids, seeds,
        hall of fame, logbook record and generator state -- without a plan or a result per child. A
        single-objective run after generation 0, with no :meth:`ask` under way.

        Args:
            bred: the generation (:class:`~evo.ga.bred.BredGeneration`).

        Returns:
            The generation's logbook record, as :meth:`tell` returns it.

        Raises:
            RuntimeError: an :meth:`ask` is under way.
            ValueError: a multi-objective run, generation 0, not the next generation, or arrays that do
                not fit this population.
        """
        pieces = self.tell_bred_in_pieces(bred)
        while True:
            try:
                next(pieces)
            except StopIteration as told:
                return told.value

    def tell_bred_in_pieces(self, bred: BredGeneration, piece: int = 48) -> Generator[None, None, dict]:
        """:meth:`tell_bred` in pieces, one per ``next``: for work between them (the ``shards`` backend's
        ``evo run`` process keeps its books where it would wait for its partners:
        evo/run/shards/engine.py). Nothing else may use this evolution before the last piece is done.

        Args:
            bred: the generation, as :meth:`tell_bred` takes it.
            piece: about how many children (or members offered to the hall of fame) a piece handles.

        Returns:
            A generator whose return value (``StopIteration.value``) is the generation's logbook record.

        Raises:
            RuntimeError: as :meth:`tell_bred`, from the first piece, before anything changes.
            ValueError: as :meth:`tell_bred`, from the first piece, before anything changes.
        """
        from evo.fitness.spec import worst_fitness
        from evo.ga.kernels.brood import assembled_children

        if self._pending is not None:
            raise RuntimeError("tell_bred() with an ask() under way")
        s, g = self.settings, bred.generation
        if s.multi_objective or self.generation < 0 or g != self.generation + 1:
            raise ValueError(f"tell_bred: generation {g} cannot follow generation {self.generation} here")
        bred.check(len(self.population))
        self._finish_told()
        population = self.population
        slots: list[Individual | None] = []  # each child in order: a parent to copy, or None: new
        templates: list[Creature] = []
        worlds: list[dict | None] = []
        origins: list[tuple[str, ...]] = []
        for (a, b), (two, mate, *_), made in zip(
            bred.parents.tolist(), bred.flags.tolist(), bred.new.tolist(), strict=True
        ):
            pair = population[a], population[b]
            for k in range(2 if two else 1):
                parent = pair[k]
                if not made[k]:
                    slots.append(parent)
                    continue
                slots.append(None)
                templates.append(parent.creature)
                worlds.append(pair[0].creature.world if mate else None)
                origins.append((parent.id, pair[1 - k].id) if mate else (parent.id,))
        yield
        sizes, positions, links, genes, waves, renumbered = bred.children
        mass_at, link_at = (np.concatenate([[0], np.cumsum(sizes[:, k])]).tolist() for k in (0, 1))
        creatures: list[Creature] = []
        for at in range(0, len(templates), piece):  # (bred's own arrays: assembled_children)
            end = min(at + piece, len(templates))
            masses, ends = slice(mass_at[at], mass_at[end]), slice(link_at[at], link_at[end])
            some = sizes[at:end], positions[masses], links[:, ends], genes[:, ends], waves[at:end]
            creatures += assembled_children(
                (*some, renumbered[at:end]), templates[at:end], worlds[at:end], later=True
            )
            yield
        seeds = plugin_seeds(s.seed, g, len(creatures)).tolist()
        make, deepcopy, worst = Individual.maker(s.weights), copy.deepcopy, worst_fitness(s.weights)
        fitness, exploded = bred.fitness.tolist(), bred.exploded.tolist()
        population_next = [deepcopy(population[e]) for e in bred.elites.tolist()]
        todo: list[Individual] = []
        for at in range(0, len(slots), piece):
            for slot in slots[at : at + piece]:
                if slot is not None:
                    population_next.append(deepcopy(slot))
                    continue
                c = len(todo)
                score = worst if exploded[c] else (fitness[c],)
                child = make(creatures[c], score, f"g{g}-{c}", origins[c], g, exploded[c], seeds[c], None)
                population_next.append(child)
                todo.append(child)
            yield
        self.population = population_next
        self.generation = g
        self.rng.bit_generator.state = bred.rng
        self._ahead, self._told_later = None, False
        for at in range(0, len(population_next), piece):  # (one update, offered in turn)
            self.hall_of_fame.update(population_next[at : at + piece])
            yield
        self._forget_distances()
        record = self._record(g, todo)
        self.logbook.record(**record)
        return record

    def _finish_told(self) -> None:
        """The second part of a :meth:`tell_later`, if it is still due."""
        if self._unfinished is not None:
            self._unfinished()

    def _record(self, generation: int, evaluated: list[Individual]) -> dict[str, Any]:
        compiled = column_statistics(self.population)
        record: dict[str, Any] = {"generation": generation, "evaluations": len(evaluated)}
        for k, (name, weight) in enumerate(zip(self.settings.objectives, self.settings.weights, strict=True)):
            record[f"{name}_best"] = compiled["max"][k] if weight > 0 else compiled["min"][k]
            record[f"{name}_mean"] = compiled["mean"][k]
            record[f"{name}_std"] = compiled["std"][k]
            record[f"{name}_min"] = compiled["min"][k]
        record["masses_mean"] = compiled["mean"][-2]
        record["links_mean"] = compiled["mean"][-1]
        record["exploded"] = sum(1 for ind in evaluated if ind.exploded)
        return record

    @property
    def best(self) -> Individual | None:
        """The best individual found so far (first of the hall of fame)."""
        self._finish_told()
        return self.hall_of_fame[0] if len(self.hall_of_fame) else None

    # -- memetic refinement ([ga] refine; the step is evo/run/memetic.py) -----------------------------
    def replace_refined(self, refined: dict[str, Individual], evaluations: int) -> dict[str, Any]:
        """Put each refined individual in place of the members of the id it is keyed by, offer it to the
        hall of fame, and add ``evaluations`` to the last logbook record (its statistics made again).

        Args:
            refined: the new individual, by the id of the one it replaces.
            evaluations: the evaluations the refinement made.

        Returns:
            The last logbook record, updated.
        """
        self._finish_told()
        record = self.logbook[-1]
        if refined:
            self.population = [refined.get(ind.id, ind) for ind in self.population]
            self.hall_of_fame.update(list(refined.values()))
            self._forget_distances()
            kept = ("generation", "evaluations", "exploded")
            again = self._record(self.generation, [])
            record = {**record, **{k: v for k, v in again.items() if k not in kept}}
        record = {**record, "evaluations": record["evaluations"] + evaluations}
        self.logbook[-1] = record  # (a new record: states taken before share the one they were given)
        return dict(record)

    # -- state -------------------------------------------------------------------------------------
    def state(self) -> EvolutionState:
        """The whole state now, cheaply (valid between a ``tell`` and the next ``ask``, and after a
        :meth:`tell_later` until the next tell: then the state that ask started from). Told individuals
        never change, so the state may be turned into JSON later, in another thread
        (:mod:`evo.io.checkpoint`).

        Returns:
            The :class:`EvolutionState`; :meth:`from_state` of it continues exactly.

        Raises:
            RuntimeError: called between :meth:`ask` and :meth:`tell` (after a plain tell).
        """
        if self._pending is not None and not self._told_later:
            raise RuntimeError("the state is only complete between tell() and ask()")
        self._finish_told()
        return EvolutionState(
            generation=self.generation,
            seed=self.settings.seed,
            objectives=tuple(self.settings.objectives),
            weights=tuple(self.settings.weights),
            rng=copy.deepcopy(self._before_ask) if self._pending is not None else self._rng_state(),
            population=tuple(self.population),
            hall_of_fame=tuple(self.hall_of_fame),
            logbook=tuple(self.logbook),  # (told records are never changed: states share them)
        )

    def _rng_state(self) -> dict[str, Any]:
        """The generator's state as the next ask finds it (before the draws made ahead for it)."""
        return self.rng.bit_generator.state if self._ahead is None else copy.deepcopy(self._ahead.before)

    @classmethod
    def from_state(
        cls, state: EvolutionState, settings: LoopSettings, *, seed_models: Sequence[Creature] = ()
    ) -> Evolution:
        """Continue from a state saved by :meth:`state` (``settings`` must match the saved run's).

        Args:
            state: the saved :class:`EvolutionState`.
            settings: the run's :class:`LoopSettings`.
            seed_models: as for the constructor (used only by generation 0).

        Returns:
            An :class:`Evolution` whose next :meth:`ask` makes the draws the saved run would have made.

        Raises:
            ValueError: the state was made with another seed or other fitness weights.
        """
        if tuple(state.weights) != settings.weights or int(state.seed) != settings.seed:
            raise ValueError("the checkpoint was made with another seed or other fitness weights")
        evolution = cls(settings, seed_models=seed_models)
        evolution.rng.bit_generator.state = state.rng
        evolution.generation = int(state.generation)
        evolution.population = list(state.population)
        evolution.hall_of_fame.restore(list(state.hall_of_fame))
        for record in state.logbook:
            evolution.logbook.record(**record)
        return evolution


def _drawn_aspirants(n: int, k: int, size: int, getrandbits: Callable[[int], int]) -> list[int]:
    """The draws of DEAP's ``selTournament(population, k, size)`` in a population of ``n``: ``k`` times
    ``size`` positions, each as Python's ``random.choice`` draws it (``getrandbits`` of the population
    size's bit length until below it: tests/ga/test_loop.py), whatever the fitness (they may be drawn
    before it is known); :func:`_winners` then picks among them."""
    if not n:
        raise IndexError("Cannot choose from an empty sequence")
    bits = n.bit_length()
    out = []
    for _ in range(k * size):
        r = getrandbits(bits)
        while r >= n:
            r = getrandbits(bits)
        out.append(r)
    return out


def _winners(population: list[Individual], aspirants: list[int], size: int) -> list[Individual]:
    """Each tournament's winner among its ``size`` aspirants in turn (:func:`_drawn_aspirants`): the
    first of the best weighted values, compared directly (as DEAP's selTournament picks)."""
    keys = [ind.fitness.wvalues for ind in population]
    picked = []
    for at in range(0, len(aspirants), size):
        best = aspirants[at]
        for r in aspirants[at + 1 : at + size]:
            if keys[r] > keys[best]:
                best = r
        picked.append(population[best])
    return picked


def _paired(parents: list[Individual], pairs: list[_Pairing]) -> list[_Plan]:
    """:meth:`Evolution._pairs` of its draws (:meth:`Evolution._pair_draws`): consecutive parents in
    pairs, a lone last one alone."""
    plan: list[_Plan] = []
    for at, (mate, mutate, seed) in enumerate(pairs):
        pair = parents[2 * at : 2 * at + 2]
        plan.append((PAIR, seed, tuple(parent.creature for parent in pair), mate, mutate, pair))
    return plan


@dataclass(frozen=True)
class EvolutionState:
    """Everything :class:`Evolution` holds between generations, as plain data.

    ``rng`` is the state of the run's generator (``bit_generator.state``); ``logbook`` one record (a dict:
    :func:`history_columns`) per generation, the run's own (read them; copy one to change it);
    ``population`` and ``hall_of_fame`` are told individuals, the hall of fame best first.
    """

    generation: int
    seed: int
    objectives: tuple[str, ...]
    weights: tuple[float, ...]
    rng: dict[str, Any]
    population: tuple[Individual, ...]
    hall_of_fame: tuple[Individual, ...]
    logbook: tuple[dict[str, Any], ...]
