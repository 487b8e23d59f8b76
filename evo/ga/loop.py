"""The generation loop as an explicit state machine: ``ask`` -> evaluate elsewhere -> ``tell``.

:class:`Evolution` never simulates anything. ``ask()`` makes the next generation's creatures (random or
seeded ones for generation 0, then selection and variation) and returns the individuals that need an
evaluation, each with the seed its plugin must be called with; ``tell(outcomes)`` takes their fitness,
forms the new population, updates the hall of fame and appends one record to the logbook. Between a
``tell`` and the next ``ask`` the whole state is :meth:`Evolution.to_dict` (JSON-able), and
:meth:`Evolution.from_dict` restores it exactly, so a resumed run makes the same draws as one that was
never stopped.

Randomness: one ``numpy.random.Generator`` (PCG64) seeded from ``SeedSequence(seed)``; DEAP's
``selTournament`` draws from Python's ``random``, which is seeded from that generator before each call
(and restored after). A plugin gets ``plugin_seed(seed, generation, index)``.

Selection:
* one objective: the ``elite`` best are copied unchanged; the rest of the population are offspring of
  parents picked by ``tools.selTournament`` (``tournament_size``);
* several objectives (NSGA-II): parents are picked by binary tournaments on (Pareto rank, crowding
  distance), and the next population is ``tools.selNSGA2`` of parents and offspring together.

Variation: consecutive parents are mated with probability ``crossover_rate`` (the operator returns two
children), then each child is mutated with probability ``mutation_rate``. A child that neither touched
is a copy of its parent and keeps its fitness (it is not evaluated again).

Statistics (``history.csv``) are over the individuals of the new population whose fitness is finite, so
an exploded creature's -inf does not swamp the mean; the ``exploded`` column counts the creatures of
this generation's evaluations that exploded.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from deap import tools

from evo.ga.individual import Individual
from evo.ga.settings import GASection, GenomeSection
from evo.io.runs import decode_number, encode_number
from evo.model import Creature

__all__ = ["Evolution", "HallOfFame", "LoopSettings", "Variation", "history_columns", "plugin_seed"]


def plugin_seed(run_seed: int, generation: int, index: int) -> int:
    """The seed a plugin is called with for creature ``index`` of ``generation``: a uint64 of
    ``SeedSequence([run_seed, generation, index])``."""
    sequence = np.random.SeedSequence([run_seed, generation, index])
    return int(sequence.generate_state(1, np.uint64)[0])


def history_columns(objectives: Sequence[str]) -> list[str]:
    """The logbook's (and history.csv's) columns, in order."""
    columns = ["generation", "evaluations"]
    for name in objectives:
        columns += [f"{name}_best", f"{name}_mean", f"{name}_std", f"{name}_min"]
    return columns + ["masses_mean", "links_mean", "exploded"]


@dataclass(frozen=True)
class Variation:
    """The variation operators: ``mutate(creature, rng, genome, ga) -> creature`` and
    ``crossover(a, b, rng, genome, ga) -> (child, child)``. Defaults: :mod:`evo.ga.operators`."""

    mutate: Callable[..., Creature]
    crossover: Callable[..., tuple[Creature, Creature]]

    @classmethod
    def default(cls) -> Variation:
        from evo.ga.operators import crossover, mutate

        return cls(mutate=mutate, crossover=crossover)


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


class HallOfFame(tools.HallOfFame):
    """DEAP's hall of fame that keeps near-duplicates out without ever losing the best creature.

    DEAP rejects any newcomer similar to a member, even a better one. Here a newcomer better than every
    member it is similar to replaces them; one similar to a better member stays out. Only individuals
    with finite fitness enter.
    """

    def update(self, population: Sequence[Individual]) -> None:
        for ind in population:
            if not all(math.isfinite(v) for v in ind.fitness.values):
                continue
            if len(self) >= self.maxsize and not ind.fitness > self[-1].fitness:
                continue
            if any(member.id == ind.id for member in self):  # a copy of a member
                continue
            alike = [k for k, member in enumerate(self) if self.similar(ind, member)]
            if not alike:
                if len(self) >= self.maxsize:
                    self.remove(-1)
                self.insert(ind)
            elif all(ind.fitness > self[k].fitness for k in alike):
                for k in reversed(alike):
                    self.remove(k)
                self.insert(ind)

    def restore(self, members: Sequence[Individual]) -> None:
        """Put back members saved best first, in the same order."""
        self.items = list(members)
        self.keys = [m.fitness for m in reversed(self.items)]


def _finite_columns(data: Sequence[Sequence[float]], reduce: Callable[[np.ndarray], float]) -> list[float]:
    table = np.asarray(data, dtype=np.float64).reshape(len(data), -1)
    out = []
    for column in table.T:
        finite = column[np.isfinite(column)]
        out.append(float(reduce(finite)) if finite.size else math.nan)
    return out


def _statistics() -> tools.Statistics:
    """Per-column statistics of (objective values..., masses, links) over finite values."""
    stats = tools.Statistics(key=lambda ind: (*ind.values, ind.creature.n_masses, ind.creature.n_links))
    stats.register("mean", _finite_columns, reduce=np.mean)
    stats.register("std", _finite_columns, reduce=np.std)
    stats.register("min", _finite_columns, reduce=np.min)
    stats.register("max", _finite_columns, reduce=np.max)
    return stats


class Evolution:
    """The state of a run between generations, and the two steps that move it on."""

    def __init__(
        self,
        settings: LoopSettings,
        *,
        seed_models: Sequence[Creature] = (),
        variation: Variation | None = None,
    ):
        self.settings = settings
        self.seed_models = tuple(seed_models)
        self.variation = variation or Variation.default()
        self.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(settings.seed)))
        self.generation = -1  # the last generation told; -1 before the first
        self.population: list[Individual] = []
        self.hall_of_fame = HallOfFame(settings.ga.hall_of_fame, similar=self._similar)
        self.logbook = tools.Logbook()
        self.logbook.header = history_columns(settings.objectives)
        self._stats = _statistics()
        self._pending: tuple[list[Individual], list[Individual], list[Individual]] | None = None
        self._asking = False
        self._distances: dict[tuple[str, str], float] = {}

    # -- helpers -------------------------------------------------------------------------------
    def _similar(self, a: Individual, b: Individual) -> bool:
        """Near-duplicates: ``distance`` below ``similarity`` (memoised by id: an individual's creature
        never changes, and copies share their id)."""
        from evo.ga.genome import distance

        if a.id == b.id:
            return True
        key = (a.id, b.id) if a.id < b.id else (b.id, a.id)
        d = self._distances.get(key)
        if d is None:
            d = self._distances[key] = distance(a.creature, b.creature)
        return d < self.settings.ga.similarity

    def _forget_distances(self) -> None:
        """Keep the memo to pairs that may be asked again: members and the current population."""
        alive = {ind.id for ind in self.population} | {ind.id for ind in self.hall_of_fame}
        self._distances = {k: d for k, d in self._distances.items() if k[0] in alive and k[1] in alive}

    def _new(self, creature: Creature, generation: int, parents: tuple[str, ...]) -> Individual:
        return Individual(creature, self.settings.weights, parents=parents, born=generation)

    def _python_random(self) -> None:
        random.seed(int(self.rng.integers(2**63)))

    def _tournament(self, population: list[Individual], k: int) -> list[Individual]:
        state = random.getstate()
        try:
            self._python_random()
            return tools.selTournament(population, k, tournsize=self.settings.ga.tournament_size)
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

    def _initial(self) -> Iterator[Individual]:
        """Generation 0: the seed models brought within limits, mutants of them (up to half the
        population), then random creatures."""
        from evo.ga.genome import random_creature, seeded_creature

        s, rng = self.settings, self.rng
        for i in range(s.population):
            if self.seed_models and (i < len(self.seed_models) or i < s.population // 2):
                model = self.seed_models[i % len(self.seed_models)]
                creature = seeded_creature(model, rng, s.genome)
                if i >= len(self.seed_models):
                    creature = self.variation.mutate(creature, rng, s.genome, s.ga)
            else:
                creature = random_creature(rng, s.genome)
            yield self._new(creature, 0, ())

    def _vary(self, parents: list[Individual], generation: int) -> Iterator[Individual]:
        """Offspring of ``parents``, pair by pair: unchanged ones are copies (fitness kept), changed ones
        are new. Each pair draws: mate?, then (if mated) the crossover, then mutate? and the mutation of
        each child in turn."""
        s, rng = self.settings, self.rng
        for i in range(0, len(parents), 2):
            pair = parents[i : i + 2]
            kids: list[tuple[Creature, tuple[str, ...], Individual | None]] = [
                (p.creature, (p.id,), p) for p in pair
            ]
            if len(pair) == 2 and rng.random() < s.ga.crossover_rate:
                a, b = pair
                one, two = self.variation.crossover(a.creature, b.creature, rng, s.genome, s.ga)
                kids = [(one, (a.id, b.id), None), (two, (b.id, a.id), None)]
            for creature, origin, same in kids:
                if rng.random() < s.ga.mutation_rate:
                    creature, same = self.variation.mutate(creature, rng, s.genome, s.ga), None
                yield copy.deepcopy(same) if same is not None else self._new(creature, generation, origin)

    # -- the two steps ---------------------------------------------------------------------------
    def ask(self) -> list[Individual]:
        """Make the next generation; return the individuals to evaluate (``.seed`` set), in order."""
        return list(self.ask_stream())

    def ask_stream(self) -> Iterator[Individual]:
        """:meth:`ask` one individual at a time, so that evaluating the first can start while the rest
        are made (the draws are the same). Must be run to its end before :meth:`tell`."""
        if self._asking or self._pending is not None:
            raise RuntimeError("ask() called twice without tell()")
        self._asking = True
        s = self.settings
        g = self.generation + 1
        if g == 0:
            survivors, children = [], self._initial()
        elif s.multi_objective:
            survivors, children = [], self._vary(self._pareto_tournament(self.population, s.population), g)
        else:
            elite = min(s.ga.elite, s.population - 1)
            survivors = [copy.deepcopy(ind) for ind in tools.selBest(self.population, elite)]
            children = self._vary(self._tournament(self.population, s.population - elite), g)
        made: list[Individual] = []
        todo: list[Individual] = []
        for ind in children:
            made.append(ind)
            if not ind.evaluated:
                ind.id = f"g{g}-{len(todo)}"
                ind.seed = plugin_seed(s.seed, g, len(todo))
                todo.append(ind)
                yield ind
        self._pending = (survivors, made, todo)
        self._asking = False

    def tell(self, outcomes: Sequence[Any]) -> dict[str, Any]:
        """Give the fitness of what :meth:`ask` returned (objects with ``.fitness`` and ``.exploded``,
        in the same order); returns the generation's logbook record."""
        if self._pending is None:
            raise RuntimeError("tell() called without ask()")
        survivors, children, todo = self._pending
        if len(outcomes) != len(todo):
            raise ValueError(f"expected {len(todo)} outcomes, got {len(outcomes)}")
        for ind, outcome in zip(todo, outcomes, strict=True):
            ind.set_fitness(outcome.fitness, exploded=outcome.exploded, seed=ind.seed)
        g = self.generation + 1
        s = self.settings
        if s.multi_objective and g > 0:
            population = tools.selNSGA2(self.population + children, s.population)
        else:
            population = survivors + children
        self.hall_of_fame.update(population if not s.multi_objective else population + children)
        self.population = list(population)
        self._forget_distances()
        self.generation = g
        self._pending = None
        record = self._record(g, todo)
        self.logbook.record(**record)
        return record

    def _record(self, generation: int, evaluated: list[Individual]) -> dict[str, Any]:
        compiled = self._stats.compile(self.population)
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
        return self.hall_of_fame[0] if len(self.hall_of_fame) else None

    # -- checkpoints ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The whole state as a JSON-able dict (valid between a ``tell`` and the next ``ask``)."""
        return self.snapshot()()

    def snapshot(self) -> Callable[[], dict[str, Any]]:
        """Capture the state now, cheaply; calling the result builds :meth:`to_dict`'s dict (later, in
        another thread if need be: told individuals never change)."""
        if self._pending is not None or self._asking:
            raise RuntimeError("the state is only complete between tell() and ask()")
        generation, seed = self.generation, self.settings.seed
        objectives, weights = list(self.settings.objectives), list(self.settings.weights)
        rng = self.rng.bit_generator.state
        population, members = list(self.population), list(self.hall_of_fame)
        records = [dict(rec) for rec in self.logbook]

        def build() -> dict[str, Any]:
            return {
                "generation": generation,
                "seed": seed,
                "objectives": objectives,
                "weights": weights,
                "rng": rng,
                "population": [ind.to_dict() for ind in population],
                "hall_of_fame": [ind.to_dict() for ind in members],
                "logbook": [{k: _encode(v) for k, v in rec.items()} for rec in records],
            }

        return build

    @classmethod
    def from_dict(
        cls,
        doc: dict[str, Any],
        settings: LoopSettings,
        *,
        seed_models: Sequence[Creature] = (),
        variation: Variation | None = None,
    ) -> Evolution:
        """Restore a state saved by :meth:`to_dict` (``settings`` must match the saved run's)."""
        if tuple(doc["weights"]) != settings.weights or int(doc["seed"]) != settings.seed:
            raise ValueError("the checkpoint was made with another seed or other fitness weights")
        evo = cls(settings, seed_models=seed_models, variation=variation)
        evo.rng.bit_generator.state = doc["rng"]
        evo.generation = int(doc["generation"])
        evo.population = [Individual.from_dict(d, settings.weights) for d in doc["population"]]
        evo.hall_of_fame.restore([Individual.from_dict(d, settings.weights) for d in doc["hall_of_fame"]])
        for rec in doc["logbook"]:
            evo.logbook.record(**{k: _decode(k, v) for k, v in rec.items()})
        return evo


_INT_COLUMNS = ("generation", "evaluations", "exploded")


def _encode(value: Any) -> Any:
    return value if isinstance(value, int) else encode_number(value)


def _decode(key: str, value: Any) -> Any:
    return int(value) if key in _INT_COLUMNS else decode_number(value)
