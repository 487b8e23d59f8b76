"""MAP-Elites as a :class:`~evo.ga.search.Search` like :class:`evo.ga.loop.Evolution`: ``ask`` -> breed
and evaluate elsewhere -> ``tell``; ``state()`` / ``from_state()`` between iterations. pyribs keeps the
archive and its ``Scheduler`` asks evo's :class:`~evo.qd.emitter.GraphEmitter` s for children; the
archive's solutions are serial numbers into this object's store of creatures (docs/qd.md).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from evo.ga.brood import RANDOM, SEEDED, Brood
from evo.ga.individual import Individual
from evo.ga.search import ChildResult, Plan, checked_results
from evo.ga.seeds import plugin_seeds
from evo.model import Creature
from evo.qd.archive import FiniteScheduler, cvt_centroids, make_archive
from evo.qd.emitter import GraphEmitter
from evo.qd.state import Elite, QDSettings, QDState, archive_statistics

__all__ = ["QualityDiversity"]


class QualityDiversity:
    """The state of a MAP-Elites run between iterations, and the two steps that move it on.

    Args:
        settings: the loop's :class:`~evo.qd.state.QDSettings`.
        seed_models: creatures for the first batch (brought within the genome limits).
        centroids: a CVT's (cells, measures) centroids in the unit cube; None computes them from the seed.

    Attributes:
        generation: the last iteration told (-1 before the first).
        archive: the pyribs archive; ``scheduler`` its scheduler; ``emitters`` evo's emitters.
        logbook: one record per iteration (``settings.columns``).
    """

    def __init__(
        self,
        settings: QDSettings,
        *,
        seed_models: Sequence[Creature] = (),
        centroids: np.ndarray | None = None,
    ):
        self.settings = settings
        self.seed_models = tuple(seed_models)
        self.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(settings.seed)))
        self.generation = -1
        self.logbook: list[dict[str, Any]] = []
        spec = settings.archive
        if spec.kind == "cvt" and centroids is None:
            centroids = cvt_centroids(spec, settings.seed)
        self.centroids = None if centroids is None else np.asarray(centroids, dtype=np.float64)
        self.archive = make_archive(spec, settings.seed, self.centroids)
        self._store: dict[int, Elite] = {}  # serial number -> the elite it stands for in the archive
        self._elites: list[Elite] = []  # the same, in cell order
        self._next_serial = 0
        self.emitters = [
            GraphEmitter(
                self.archive,
                rng=self.rng,
                batch_size=settings.batch_size,
                ga=settings.ga,
                elites=self._parents,
                serials=self._serial,
            )
            for _ in range(settings.emitters)
        ]
        self.scheduler = FiniteScheduler(self.archive, self.emitters)
        # the ask under way: its plan, each brood's parents, the children's serials
        self._pending: tuple[Plan, list[tuple[Individual, ...]], np.ndarray] | None = None

    # -- what it holds -------------------------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        """The logbook's (history.csv's) columns."""
        return self.settings.columns

    @property
    def elites(self) -> tuple[Elite, ...]:
        """The archive's occupants, in cell order."""
        return tuple(self._elites)

    @property
    def population(self) -> list[Individual]:
        """The archive's creatures, in cell order (what MAP-Elites has instead of a population)."""
        return [e.individual for e in self._elites]

    @property
    def hall_of_fame(self) -> list[Individual]:
        """The ``[ga] hall_of_fame`` best elites, best first (ties: the lower cell first)."""
        ranked = sorted(self._elites, key=lambda e: (-e.objective, e.index))
        return [e.individual for e in ranked[: self.settings.ga.hall_of_fame]]

    @property
    def best(self) -> Individual | None:
        """The best elite (first of :attr:`hall_of_fame`), or None while the archive is empty."""
        ranked = self.hall_of_fame
        return ranked[0] if ranked else None

    def _parents(self) -> list[Individual]:
        return self.population

    def _serial(self) -> int:
        self._next_serial += 1
        return self._next_serial - 1

    def _draw_seed(self) -> int:
        return int(self.rng.integers(2**63))

    def _initial(self) -> list[tuple[Brood, tuple[Individual, ...]]]:
        """Iteration 0, as the GA's generation 0: seed models, mutants of them up to half, random."""
        s, models = self.settings, self.seed_models
        plan: list[tuple[Brood, tuple[Individual, ...]]] = []
        for i in range(s.initial):
            if models and (i < len(models) or i < s.initial // 2):
                brood = Brood(
                    SEEDED, self._draw_seed(), (models[i % len(models)],), mutate=(i >= len(models),)
                )
            else:
                brood = Brood(RANDOM, self._draw_seed())
            plan.append((brood, ()))
        return plan

    # -- the two steps ---------------------------------------------------------------------------
    def ask(self) -> Plan:
        """The broods of the next iteration, in order; every child they make is new and evaluated.

        Returns:
            The :class:`~evo.ga.search.Plan`, its broods for iteration 0 one per creature of the first
            batch (seed models, their mutants, random creatures), then those the emitters plan from the
            archive's elites. Each carries a plugin seed per child.

        Raises:
            RuntimeError: ``ask`` called again before :meth:`tell`.
        """
        if self._pending is not None:
            raise RuntimeError("ask() called twice without tell()")
        g = self.generation + 1
        if g == 0:
            plan = self._initial()
            serials = np.array([self._serial() for _ in plan], dtype=np.int64)
        else:
            plans = self.scheduler.ask_plans()
            serials = np.concatenate([p.serials for p in plans]).astype(np.int64, copy=False)
            plan = [planned for p in plans for planned in p.broods]
        counts = [1 if brood.kind in (RANDOM, SEEDED) else len(brood.parents) for brood, _ in plan]
        made = plugin_seeds(self.settings.seed, g, sum(counts)).tolist()
        broods, index = [], 0
        for (brood, _), count in zip(plan, counts, strict=True):
            seeds = tuple(made[index : index + count])
            index += count
            broods.append(dataclasses.replace(brood, plugin_seeds=seeds))
        asked = Plan(g, tuple(broods))
        self._pending = (asked, [parents for _, parents in plan], serials)
        return asked

    def tell(self, results: Sequence[ChildResult]) -> dict[str, Any]:
        """Give one :class:`~evo.ga.search.ChildResult` per child of the plan :meth:`ask` gave, in order:
        the creature and its :class:`~evo.fitness.Evaluation`, with the spec's measures. Creatures that
        exploded, or whose objective or measures are not finite, stay out of the archive.

        Args:
            results: one result per child, in the order of the plan (:func:`checked_results`).

        Returns:
            The iteration's logbook record: ``{column: value}`` for :attr:`columns` (the GA's statistics
            over the elites, then the archive's figures such as ``coverage`` and ``qd_score``).

        Raises:
            RuntimeError: ``tell`` without a preceding :meth:`ask`.
            ValueError: not one result per child, or a result that does not fit its child.
        """
        if self._pending is None:
            raise RuntimeError("tell() called without ask()")
        plan, parents_of, serials = self._pending
        s, g = self.settings, plan.generation
        results = checked_results(plan, results, len(s.weights), len(s.archive.measures))
        children: list[tuple[Individual, tuple[float, ...]]] = []
        for brood, parents in zip(plan.broods, parents_of, strict=True):
            for k, seed in enumerate(brood.plugin_seeds):
                result = results[len(children)]
                if brood.mate:
                    origin = (parents[k].id, parents[1 - k].id)
                else:
                    origin = (parents[k].id,) if parents else ()
                evaluation = result.evaluation
                child = Individual.told(
                    result.creature, s.weights, evaluation.fitness, id=f"g{g}-{len(children)}",
                    parents=origin, born=g, exploded=evaluation.exploded, seed=seed,
                    model_text=result.model_text,
                )  # fmt: skip
                children.append((child, evaluation.measures))
        self._add(children, serials, first=g == 0)
        self.generation = g
        self._pending = None
        record = self._record(g, [child for child, _ in children])
        self.logbook.append(dict(record))  # (told records are never changed: states share them)
        return record

    def _add(
        self, children: list[tuple[Individual, tuple[float, ...]]], serials: np.ndarray, first: bool
    ) -> None:
        """Offer the children to the archive (through the scheduler, so that the emitters are told), then
        keep the store to the archive's occupants."""
        s, dims = self.settings, len(self.settings.archive.measures)
        count = len(children)
        objective = np.zeros(count)
        measures = np.full((count, dims), 0.5)
        valid = np.zeros(count, dtype=bool)
        for i, (child, values) in enumerate(children):
            value = s.sign * child.values[0]
            ok = not child.exploded and math.isfinite(value) and len(values) == dims
            if ok and all(math.isfinite(v) for v in values):
                objective[i], measures[i], valid[i] = value, values, True
        scaled = s.archive.scaled(measures)
        if first:
            if valid.any():
                self.archive.add(solution=serials[valid], objective=objective[valid], measures=scaled[valid])
        else:
            self.scheduler.tell(objective, scaled, valid=valid)
        new = {
            int(serial): (child, tuple(float(v) for v in values), float(objective[i]))
            for i, (serial, (child, values)) in enumerate(zip(serials, children, strict=True))
            if valid[i]
        }
        data = self.archive.data(["solution", "index"])
        store: dict[int, Elite] = {}
        for serial, index in zip(data["solution"].tolist(), data["index"].tolist(), strict=True):
            if serial in new:
                child, values, value = new[serial]
                store[serial] = Elite(int(index), values, value, child)
            else:
                store[serial] = self._store[serial]
        self._store = store
        self._elites = sorted(store.values(), key=lambda e: e.index)

    def _record(self, generation: int, evaluated: list[Individual]) -> dict[str, Any]:
        """The GA's statistics over the archive's elites (in cell order), then the archive's figures."""
        s = self.settings
        elites = self._elites
        values = np.array([e.individual.values for e in elites], dtype=np.float64).reshape(len(elites), -1)
        record: dict[str, Any] = {"generation": generation, "evaluations": len(evaluated)}
        for k, (name, weight) in enumerate(zip(s.objectives, s.weights, strict=True)):
            column = values[:, k][np.isfinite(values[:, k])]
            empty = column.size == 0
            best = math.nan if empty else float(column.max() if weight > 0 else column.min())
            record[f"{name}_best"] = best
            record[f"{name}_mean"] = math.nan if empty else float(np.mean(column))
            record[f"{name}_std"] = math.nan if empty else float(np.std(column))
            record[f"{name}_min"] = math.nan if empty else float(np.min(column))
        masses = [e.individual.creature.n_masses for e in elites]
        links = [e.individual.creature.n_links for e in elites]
        record["masses_mean"] = float(np.mean(masses)) if elites else math.nan
        record["links_mean"] = float(np.mean(links)) if elites else math.nan
        record["exploded"] = sum(1 for ind in evaluated if ind.exploded)
        record.update(archive_statistics(elites, s.archive))
        return record

    # -- state -------------------------------------------------------------------------------------
    def state(self) -> QDState:
        """The whole state now (valid between a ``tell`` and the next ``ask``). Elites never change, so
        it may be turned into JSON later, in another thread (:mod:`evo.io.checkpoint.qd`).

        Returns:
            The :class:`~evo.qd.state.QDState`; :meth:`from_state` of it continues exactly.

        Raises:
            RuntimeError: called between :meth:`ask` and :meth:`tell`.
        """
        if self._pending is not None:
            raise RuntimeError("the state is only complete between tell() and ask()")
        s = self.settings
        return QDState(
            generation=self.generation,
            seed=s.seed,
            objectives=tuple(s.objectives),
            weights=tuple(s.weights),
            measures=tuple(s.archive.measures),
            rng=self.rng.bit_generator.state,
            elites=tuple(self._elites),
            logbook=tuple(self.logbook),
            centroids=self.centroids,
        )

    @classmethod
    def from_state(
        cls, state: QDState, settings: QDSettings, *, seed_models: Sequence[Creature] = ()
    ) -> QualityDiversity:
        """Continue from a state saved by :meth:`state` (``settings`` must match the saved run's).

        Args:
            state: the saved :class:`~evo.qd.state.QDState` (a CVT's centroids included).
            settings: the run's :class:`~evo.qd.state.QDSettings`.
            seed_models: as for the constructor (used only by iteration 0).

        Returns:
            A :class:`QualityDiversity` with the saved archive, whose next :meth:`ask` makes the draws the
            saved run would have made.

        Raises:
            ValueError: the state was made with another seed, weights or measures, or its elites do not
                fall in the cells it says with these settings.
        """
        if tuple(state.weights) != settings.weights or int(state.seed) != settings.seed:
            raise ValueError("the checkpoint was made with another seed or other fitness weights")
        if tuple(state.measures) != tuple(settings.archive.measures):
            raise ValueError(f"the checkpoint's archive has the measures {list(state.measures)}")
        search = cls(settings, seed_models=seed_models, centroids=state.centroids)
        search.rng.bit_generator.state = state.rng
        search.generation = int(state.generation)
        search.logbook = [dict(record) for record in state.logbook]
        elites = sorted(state.elites, key=lambda e: e.index)
        if elites:
            serials = np.array([search._serial() for _ in elites], dtype=np.int64)
            scaled = settings.archive.scaled([e.measures for e in elites])
            cells = search.archive.index_of(scaled)
            if [int(c) for c in cells] != [e.index for e in elites]:
                raise ValueError("the checkpoint's elites do not fall in the cells it gives them")
            objective = np.array([e.objective for e in elites])
            search.archive.add(solution=serials, objective=objective, measures=scaled)
            search._store = {int(serial): e for serial, e in zip(serials, elites, strict=True)}
            search._elites = elites
        return search
