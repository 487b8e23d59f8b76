"""A ``shards`` worker's copy of a run between generations, as arrays (:class:`ShardState`): it selects,
breeds every brood in one compiled call (or takes worker 1's generation from the room, :mod:`.shared`),
takes kernel calls one at a time from a shared counter, scores them into shared arrays, meets the others
and moves on (docs/runs.md, "Workers"). All it calls is imported here, before any worker forks (a fork
copies no other thread, nor a lock one of them held)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from evo.fitness.reducers import reduce_outputs
from evo.fitness.spec import worst_fitness
from evo.ga.bred import BredGeneration
from evo.ga.kernels.brood import _pairs
from evo.ga.kernels.crossover import REST_HIGH, REST_LOW
from evo.ga.kernels.mutation import apply_pending
from evo.ga.kernels.parents import gathered
from evo.run.batching import _lanes_recording, _output
from evo.run.shards.shared import Cut, Shared, Unsupported, claims
from evo.sim.batch import _costliest_first, _in_turn, _kernel_calls, steps_for
from evo.sim.laid import Laid

__all__ = ["Cut", "Shared", "ShardState", "Unsupported", "dealt", "taken"]


def dealt(costs: list[int], weights: tuple[float, ...]) -> list[list[int]]:
    """Calls of these ``costs`` (costliest first) dealt to parties of these ``weights`` (their shares of
    the work, summing to about 1): each call in turn to the party whose load over weight is least (the
    first of equals). Returns each party's call positions, in order. The same for every party that
    computes it: who runs a call never changes a score."""
    loads = [0.0] * len(weights)
    out: list[list[int]] = [[] for _ in weights]
    for i, cost in enumerate(costs):
        party = min(range(len(weights)), key=lambda p: ((loads[p] + cost) / weights[p], p))
        loads[party] += cost
        out[party].append(i)
    return out


def _laid(
    children: tuple,
    theta0: np.ndarray,
    sign: np.ndarray,
    autoreverse: np.ndarray,
    trig: np.ndarray | None = None,
) -> Laid:
    """The new children (:meth:`ShardState.bred`'s arrays) laid for the kernel, with these waves (and
    ``trig``, the (2, links) cosines and sines of their links' phases another worker laid them with)."""
    sizes, positions, links, genes, waves, _ = children
    laid = Laid.of_children(sizes, positions, links, genes, waves, (), trig)
    return laid._replace(theta0=theta0, sign=sign, autoreverse=autoreverse)


def _starts(counts: np.ndarray) -> np.ndarray:
    """Where each of the creatures whose counts these are begins, end to end, and the end."""
    return np.concatenate([np.zeros(1, np.int64), np.cumsum(counts, dtype=np.int64)])


def taken(ends: tuple, rows: np.ndarray) -> tuple:
    """The creatures ``rows`` of parents' arrays end to end (:func:`evo.ga.kernels.parents.gathered`'s
    form), gathered end to end in that order, of the types that function gives (one compiled
    specialisation of the brood for both)."""
    pos, a, b, rest, alpha, phi, waves, mass_at, link_at = ends

    def segments(at: np.ndarray) -> np.ndarray:
        start, lengths = at[rows], at[rows + 1] - at[rows]
        before = np.concatenate([np.zeros(1, np.int64), np.cumsum(lengths)[:-1]])
        return np.repeat(start - before, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)

    masses, links = segments(mass_at), segments(link_at)
    out = (
        np.ascontiguousarray(pos[masses]), a[links], b[links], rest[links], alpha[links], phi[links],
        np.ascontiguousarray(waves[rows]), _starts(mass_at[rows + 1] - mass_at[rows]),
        _starts(link_at[rows + 1] - link_at[rows]),
    )  # fmt: skip
    for array in out[:7]:  # (the starts writable, as gathered gives them: the compiled brood's types)
        array.setflags(write=False)
    return out


class ShardState:
    """A worker's population as arrays: its members' arrays end to end, each one's wave (phase,
    direction, autoreverse) and weighted fitness. Made from the run's :class:`~evo.ga.loop.Evolution`
    between generations (forked with it: the worker draws from its copy of the run's generator, the same
    draws in the same order as the ``evo run`` process's ``ask`` would make), ``context`` the run's
    :class:`~evo.run.job.BreedContext`, ``cut`` how many kernel calls to cut a generation's children
    into (about: :func:`evo.sim.batch.lane_calls`); ``arrays``: the population's arrays as
    :meth:`arrays` gave them (another process's copy: ``evolution`` then needs only its settings, its
    generator and its generation)."""

    def __init__(self, evolution: Any, context: Any, shared: Shared, cut: int, arrays: tuple | None = None):
        self.evolution, self.context, self.shared, self.cut = evolution, context, shared, cut
        if arrays is None:
            population = evolution.population
            creatures = [ind.creature for ind in population]
            self.ends = gathered(creatures)
            self.theta0 = np.array([float(c.wave_phase) for c in creatures])
            self.sign = np.array([-1.0 if c.wave_reverse else 1.0 for c in creatures])
            self.auto = np.array([c.autoreverse for c in creatures], dtype=np.uint8)
            self.fit = np.array([ind.fitness.wvalues[0] for ind in population])
        else:
            self.ends, self.theta0, self.sign, self.auto, self.fit = arrays
            for array in self.ends[:7]:  # (as gathered gives them: the compiled brood's types)
                array.setflags(write=False)
        s = evolution.settings
        self.elite = min(s.ga.elite, s.population - 1)
        self.weight = s.weights[0]
        self.worst = worst_fitness(s.weights)[0] * self.weight
        self.base = 0  # the shared counter's value at this generation's start
        # how the kernel calls record and the reducer reads them (the same every generation)
        every, self.nth, self.bound, _ = _lanes_recording(context)
        self.world = world = context.spec.world
        self.steps = steps_for(context.spec.frames, world.dt)
        self.stride = steps_for(every, world.dt, "record_every")
        self.generation = evolution.generation  # the last generation these arrays are the population of
        self.me = 0  # which worker of ``shared`` this is (a forked worker sets its own)
        # the generator's state before the next generation's draws, and those draws, where made ahead
        self._ahead: tuple[dict, tuple] | None = None  # (draw_ahead)

    def arrays(self) -> tuple:
        """The population's arrays (its members end to end, their waves, their weighted fitness), as
        another process's copy is made from them."""
        return self.ends, self.theta0, self.sign, self.auto, self.fit

    def planned(self) -> tuple[np.ndarray, ...]:
        """The next generation's elites, and per pair brood its parents' rows, flags (two, mate, mutate
        the first, the second), seed, and which children are new: :meth:`evo.ga.loop.Evolution.ask`'s
        selection (DEAP's selBest, then selTournament: the first of the best) on the fitness array; its
        draws are :meth:`draw_ahead`'s where made, else made now."""
        aspirants, first, second, flags, seeds, new = self._draws() if self._ahead is None else self._ahead[1]
        self._ahead = None
        fit = self.fit
        elites = np.argsort(-fit, kind="stable")[: self.elite]
        winners = aspirants[np.arange(aspirants.shape[0]), np.argmax(fit[aspirants], axis=1)]
        rows = np.stack([winners[first], winners[second]], axis=1)
        return elites, rows, flags, seeds, new

    def draw_ahead(self) -> None:
        """Make the next generation's selection draws now (they need no fitness: the tournaments'
        aspirants, each pair brood's flags and seed), the generator moved past them as :meth:`planned`
        would move it; :meth:`planned` then only picks the elites and winners. Worker 1 makes them where
        it waits at the meeting point for another worker's last kernel call, off the chain of work
        between two generations' kernel calls (docs/performance.md, "Round thirty-eight")."""
        if self._ahead is None:
            before = self.evolution.rng.bit_generator.state
            self._ahead = before, self._draws()

    def _draws(self) -> tuple[np.ndarray, ...]:
        """The next generation's draws (:meth:`evo.ga.loop.Evolution.selection_draws`) as arrays: the
        aspirants (tournaments x size), per pair brood the positions among the winners of its first and
        second parent (a lone parent twice), its flags, seed and which children are new."""
        evolution, count = self.evolution, self.fit.size
        size = evolution.settings.ga.tournament_size
        drawn, pairs = evolution.selection_draws(count)
        aspirants = np.array(drawn, dtype=np.int64).reshape(-1, size)
        flags = np.zeros((len(pairs), 4), np.bool_)
        seeds = np.empty(len(pairs), np.int64)
        for i, (mate, mutate, seed) in enumerate(pairs):
            two = len(mutate) == 2
            flags[i] = two, mate, mutate[0], two and mutate[1]
            seeds[i] = seed
        first = 2 * np.arange(len(pairs), dtype=np.int64)
        second = np.where(flags[:, 0], first + 1, first)
        new = np.stack([flags[:, 1] | flags[:, 2], flags[:, 0] & (flags[:, 1] | flags[:, 3])], axis=1)
        return aspirants, first, second, flags, seeds, new

    def bred(self, rows: np.ndarray, flags: np.ndarray, seeds: np.ndarray, new: np.ndarray) -> tuple:
        """Every pair brood bred in one compiled call: the new children's arrays (as
        :attr:`~evo.ga.bred.BredGeneration.children`), and the same laid for the kernel.

        Raises:
            Unsupported: a brood the compiled operators leave to Python."""
        ops = self.context.breed_settings.compiled
        ok, *children, arg, pending = _pairs(seeds, rows, flags, *self.ends, ops)
        if not ok.all():
            raise Unsupported("a brood the compiled operators leave to Python")
        apply_pending(children[3][0], arg, pending, ops.limits[REST_LOW], ops.limits[REST_HIGH])
        templates = rows[new]  # each new child's wave is its own parent's
        laid = _laid(tuple(children), self.theta0[templates], self.sign[templates], self.auto[templates])
        return tuple(children), laid

    def _cut(self, laid: Any) -> tuple[list, list[int], tuple]:
        """The generation's kernel calls (about :attr:`cut` of them, each a ``(run, members)`` pair),
        costliest first, their costs, and the rows they read.

        Raises:
            Unsupported: children the kernel simulates one by one."""
        count = laid.masses.shape[0]
        laid_rows = (laid, np.arange(count, dtype=np.int64))
        if not count:
            return [], [], laid_rows
        singles, cut = _kernel_calls(None, self.world, self.cut, laid_rows)
        if singles:
            raise Unsupported("children the kernel simulates one by one")
        order, costs = _costliest_first(cut, None, laid_rows)
        return [cut[i] for i in order], [costs[i] for i in order], laid_rows

    def _score(self, calls: list, laid_rows: tuple, parity: int) -> None:
        """Run ``calls`` and score them by the plugin's compiled reducer into the shared arrays of this
        ``parity``.

        Raises:
            Unsupported: lanes the reducer leaves to the plugin's Python."""
        fitness, exploded = self.shared.fitness[parity], self.shared.exploded[parity]
        world, steps, stride, nth, bound = self.world, self.steps, self.stride, self.nth, self.bound
        for call in _in_turn(calls, None, world, steps, stride, laid_rows):
            scores = reduce_outputs(bound, [_output(call)], call.frames(), nth)
            if scores.python.any():
                raise Unsupported("lanes the plugin's compiled reducer leaves to its Python")
            fitness[call.members] = scores.fitness[:, 0]
            exploded[call.members] = scores.exploded

    def scored(self, laid: Any, parity: int, calls: list | None = None) -> None:
        """This worker's share of the generation's kernel calls: the whole cut (``calls``, as
        :meth:`_cut` makes them, or made here) dealt one call at a time, costliest first, from the shared
        counter, each scored by the plugin's compiled reducer into the shared arrays of this ``parity``
        (each worker takes one number past the last call, so the next generation's deal starts at the same
        count in every worker).

        Raises:
            Unsupported: children the kernel simulates one by one, or lanes the reducer leaves to the
                plugin's Python."""
        shared, base, me = self.shared, self.base, self.me
        laid_rows = (laid, np.arange(laid.masses.shape[0], dtype=np.int64))
        cut = self._cut(laid)[0] if calls is None else calls
        self.base = base + len(cut) + shared.workers
        watch = shared.watch
        for at in claims(shared.counter, base, len(cut), watch if me == 0 else None):
            started = time.monotonic()
            self._score([cut[at]], laid_rows, parity)
            if watch is not None:
                watch.beat(me, time.monotonic() - started)

    def scored_share(self, laid: Any, parity: int, weights: tuple[float, ...], me: int) -> np.ndarray:
        """Party ``me``'s share of the generation's kernel calls, where each party's share is set in
        advance (:func:`dealt`, by ``weights``: every party computes the same deal), scored into this
        worker's arrays of this ``parity`` (:attr:`shared` of this process alone). Returns the children
        scored (their rows, in call order).

        Raises:
            Unsupported: as :meth:`scored`."""
        cut, costs, laid_rows = self._cut(laid)
        mine = [cut[i] for i in dealt(costs, weights)[me]]
        self._score(mine, laid_rows, parity)
        return np.array([k for _, members in mine for k in members], dtype=np.int64)

    def make(self, g: int, meanwhile: Callable[[], bool] | None = None) -> BredGeneration:
        """Generation ``g`` whole, as one worker of :attr:`shared` makes it: :meth:`planned`, :meth:`bred`,
        its share of the kernel calls :meth:`scored`, the meeting point (where there is one), and
        :meth:`moved_on`. Where :attr:`shared` has a :class:`Room`, worker 1 leaves its selection,
        children, their cut into kernel calls and the generator's state there and worker 0 takes them
        instead of making them, and only scores and tells. ``meanwhile``: work of this worker's own, one
        piece a call (whether there was one), done where it waits -- for worker 1's generation, and at the
        meeting point while another worker is still at its kernel calls. A worker that moves on arranges
        the next population's arrays before the meeting point where another is still at its calls (they
        need no score), else after it; worker 1, waiting there, also makes the next generation's selection
        draws (:meth:`draw_ahead`).

        Raises:
            Unsupported: as :meth:`bred` and :meth:`scored`.
            Stalled: in worker 0, the others made no progress for too long (their
                :class:`~evo.run.shards.shared.Watch`).
            threading.BrokenBarrierError: another worker broke the meeting point."""
        room, barrier, watch = self.shared.room, self.shared.barrier, self.shared.watch
        given, puts = room is not None and self.me == 0, room is not None and self.me == 1
        watching = watch if self.me == 0 else None  # (worker 0 watches the others: Watch)
        calls = None
        if given:
            planned, children, waves, rng, trig, cut = room.take(meanwhile, barrier, watching)
            laid, calls = _laid(children, *waves, trig), cut.calls()
        else:
            try:
                planned = self.planned()
                children, laid = self.bred(*planned[1:])
                if puts:
                    calls = self._cut(laid)[0]
            except BaseException:
                if puts:
                    room.put(None)
                raise
            if puts:
                state = self.evolution.rng.bit_generator.state  # (after the generation's draws)
                waves = laid.theta0, laid.sign, laid.autoreverse
                trig = np.stack([laid.cos_phi, laid.sin_phi])
                room.put(planned, children, waves, state, trig, Cut.of(calls))  # type: ignore[arg-type]
                watch.beat(self.me)  # type: ignore[union-attr]
        self.scored(laid, g % 2, calls)
        if barrier is None:
            return self.moved_on(g, planned, children, laid)
        others, moving = self.shared.workers - 1, None
        if not given and barrier.n_waiting < others:  # (another is still at its calls)
            moving = self._moving(planned, children, laid)
        if watch is not None:
            watch.beat(self.me)
        phase = barrier.arrive()  # (its calls are done: a partner need not wait for its books)
        if puts and not barrier.passed(phase):  # (the next generation's draws, while another's calls end)
            self.draw_ahead()
        while meanwhile is not None and not barrier.passed(phase) and meanwhile():
            pass
        barrier.leave(phase, watching)
        if given:
            return self._told(g, planned, children, self._scores(g, children[0].shape[0]), rng)
        return self.moved_on(g, planned, children, laid, moving)

    def _scores(self, g: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Generation ``g``'s ``count`` new children's fitness and explosions, copied from the shared
        arrays."""
        return self.shared.fitness[g % 2][:count].copy(), self.shared.exploded[g % 2][:count].copy()

    def moved_on(
        self, g: int, planned: tuple, children: tuple, laid: Any, moving: tuple | None = None
    ) -> BredGeneration:
        """After the generation's meeting point: the next population's arrays (the elites, then each
        brood's children, an unchanged child its parent's row: ``moving``, :meth:`_moving`'s, where
        made before), and the generation as the ``evo run`` process tells it."""
        moving = moving or self._moving(planned, children, laid)
        members, self.ends, self.theta0, self.sign, self.auto = moving
        fitness, exploded = self._scores(g, children[0].shape[0])
        fits = np.concatenate([self.fit, np.where(exploded, self.worst, fitness * self.weight)])
        self.fit = fits[members]
        # (the generator as this generation's draws left it: the next one's may be made already)
        rng = self.evolution.rng.bit_generator.state if self._ahead is None else self._ahead[0]
        return self._told(g, planned, children, (fitness, exploded), rng)

    def _moving(self, planned: tuple, children: tuple, laid: Any) -> tuple:
        """What :meth:`moved_on` makes of the generation without its scores: the next population's rows
        (of this one's members, then the new children), their arrays end to end and their waves."""
        elites, rows, flags, _, new = planned
        sizes, positions, links, genes, waves, _ = children
        count = sizes.shape[0]
        child_row = np.full(new.shape, -1, np.int64)
        child_row[new] = self.fit.size + np.arange(count)  # row-major: brood order, child order
        per_brood = np.stack([np.ones(len(flags), np.bool_), flags[:, 0]], axis=1)  # one child or two
        members = np.concatenate([elites, np.where(new, child_row, rows)[per_brood]])
        joined = [
            np.concatenate([a, b])
            for a, b in zip(self.ends[:7], (positions, *links, *genes, waves), strict=True)
        ]
        starts = [
            np.concatenate([at, more[1:] + at[-1]])
            for at, more in zip(self.ends[7:], (laid.mass_at, laid.link_at), strict=True)
        ]
        return (
            members,
            taken((*joined, *starts), members),
            np.concatenate([self.theta0, laid.theta0])[members],
            np.concatenate([self.sign, laid.sign])[members],
            np.concatenate([self.auto, laid.autoreverse])[members],
        )

    def _told(self, g: int, planned: tuple, children: tuple, scores: tuple, rng: dict) -> BredGeneration:
        """Generation ``g`` as the ``evo run`` process tells it (its selection, children, their fitness
        and explosions, the generator's state after its draws), now the last one this worker made."""
        elites, rows, flags, _, new = planned
        self.generation = g
        return BredGeneration(g, elites, rows, flags, new, children, *scores, rng)
