"""A chunk of broods bred first and all their new children simulated together in SIMD lanes, whatever
their topologies (:func:`evo.sim.simulate_batch`, bit-identical to one at a time); and the parent's side:
broods ordered by their parents' size and cut into chunks of similar evaluation counts."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evo.fitness import load_ref
from evo.fitness.evaluate import Evaluation, recording, worst_fitness
from evo.fitness.reducers import BoundReducer, LaneScores, bind_reducer, reduce_outputs, reduce_trajectories
from evo.ga.brood import Brood, breed_many
from evo.ga.search import ChildResult
from evo.model import Creature
from evo.sim import Trajectory, topology_key
from evo.sim.batch import MIN_LANES, LaneCall, lane_runs
from evo.sim.laid import Laid, laid_runs

__all__ = [
    "Bred", "COUNTS", "bound_reducer", "bred_broods", "chunk_ids", "chunk_shares", "prepare_broods",
    "warm_reducer",
]  # fmt: skip

# a creature's step costs about as much as this many links more (its wave, its masses, the call)
LINKS_PER_CREATURE_COST = 8
# the interpreter's switch interval (s) from the start of a chunk's kernel calls, while its creatures are
# made beside them, until the calls are all read back: the lane threads need the GIL for a moment around
# each call, and would otherwise wait up to 5 ms for the thread doing Python work meanwhile
WINDOW_SWITCH_INTERVAL = 1e-4
# evaluations simulated in this process, in batches and one by one (the bench reports the share)
COUNTS = {"batched": 0, "single": 0, "reduced": 0}


@dataclass
class Bred:
    """A brood's children (None for an unchanged copy) and the trajectories made for some of them, by
    child number; ``scored``: the evaluations the plugin's compiled reducer made, by child number, and
    ``results``, once it has scored every new child of a ``brood`` that :func:`prepare_broods`
    simulated, the brood's :class:`~evo.ga.search.ChildResult` s, made as the kernel calls are read back
    (round twenty-one)."""

    children: list[Creature | None]
    trajectories: dict[int, Trajectory] = field(default_factory=dict)
    scored: dict[int, Evaluation] = field(default_factory=dict)
    brood: Brood | None = None
    results: list[ChildResult] | None = None


def prepare_broods(
    broods: Sequence[Brood],
    context: Any,
    simulate: Callable[[list[Creature], Any], list] | None = None,
    beside: Callable[[], None] | None = None,
    between: Callable[[], None] | None = None,
) -> list[Bred | None]:
    """Breed every brood of a chunk (:func:`bred_broods`), then simulate all its new children together in
    lanes (:func:`evo.sim.batch.lane_runs`) and score them with the plugin's compiled reducer straight
    from the kernel's records where it has one (with lane threads, each call's lanes by the thread that
    ran it, just after: :func:`_reducing`; else all in one pass); those it would simulate one by one
    (:func:`evo.sim.batch.kernel_groups`) are left to be simulated when evaluated. A brood whose
    breeding fails gets None (its job breeds it again and meets the same error there, in order).

    Args:
        broods: the chunk's broods, in order.
        context: the run's :class:`~evo.run.job.BreedContext`.
        simulate: makes what the children's evaluations take instead, ``simulate(children, context)``
            (one value per child; a robust run's samples); an error leaves them to their evaluations.
        beside: the caller's own work, called once (it must not raise): with lane threads, just after
            the kernel calls start, beside them (:class:`_EarlyCalls`); else just after the compiled
            breeding call, or once the broods are bred.
        between: more of the caller's work, called after each kernel call this thread reads back while
            lane threads run the others, the switch interval lowered (the generation before reported
            once its checkpoint is written, round twenty); what it raises is raised here, the calls no
            thread has taken dropped (as on any error or interrupt while the calls are read). Not
            called without lane threads: the interpreter's switch interval would keep the GIL from
            this thread between its own calls while the writer's thread does Python work.

    Returns:
        One :class:`Bred` (or None) per brood.
    """
    spec = context.spec
    threads = getattr(context, "lane_threads", None)
    recorded = _lanes_recording(context) if simulate is None else (1.0, 1, None, False)
    every, nth, bound, sparse = recorded
    reduce = None if bound is None or threads is None else _reducing(bound, nth)
    handing = None if reduce is None else _Handing(bound.weights, sparse)  # type: ignore[union-attr]
    early = _EarlyCalls(broods, spec, every, threads, beside, reduce, handing)
    try:
        return _prepared(broods, context, early, recorded, simulate, between)
    finally:  # the calls are all read back (or dropped)
        early.window_closed()


def _prepared(
    broods: Sequence[Brood],
    context: Any,
    early: _EarlyCalls,
    recorded: tuple[float, int, BoundReducer | None, bool],
    simulate: Callable[[list[Creature], Any], list] | None,
    between: Callable[[], None] | None,
) -> list[Bred | None]:
    """:func:`prepare_broods`' work (``recorded``: :func:`_lanes_recording`'s), its window closed by the
    caller once it is done."""
    spec, threads = context.spec, early.threads
    every, nth, bound, sparse = recorded
    out = bred_broods(broods, context, early if simulate is None else None)
    early.beside()  # if the compiled breeding did not call it (no brood bred there)
    members: list[tuple[Bred, int, Creature]] = []
    rows: list[int | None] = []
    by_brood = early.laid[1] if early.laid else [None] * len(broods)
    for brood, bred, at in zip(broods, out, by_brood, strict=True):
        if bred is None:
            continue
        for k, (child, seed) in enumerate(zip(bred.children, brood.plugin_seeds, strict=True)):
            if child is not None and seed is not None:
                members.append((bred, k, child))
                rows.append(None if at is None else at[k])
        bred.brood = brood
    creatures = [child for _, _, child in members]
    # every child to simulate was made by that call, as it stands: its lanes are packed from its arrays
    laid = (early.laid[0], np.array(rows, dtype=np.int64)) if early.laid and None not in rows else None
    if simulate is not None:
        try:
            made = simulate(creatures, context)
        except Exception:  # made again one by one, where the error is reported in order
            return out
        for (bred, child, _), value in zip(members, made, strict=True):
            bred.trajectories[child] = value
        return out
    started = early.taken(None if laid is None else laid[1])
    handing = early.handing  # (never ready where the calls started are dropped: theirs hand nothing on)
    if started is not None:
        singles, calls = started  # the same children, in the same order: their calls are under way
    else:
        handing = None if handing is None else _Handing(handing.weights, sparse)
        try:
            idle = None if handing is None else handing.idle
            singles, calls = lane_runs(
                creatures, spec.world, spec.frames, every, threads=threads, laid=laid,
                after_each=early.reduce, when_idle=idle,
            )  # fmt: skip
        except Exception:  # simulated one by one instead, where the error is reported in order
            COUNTS["single"] += len(members)
            return out
    COUNTS["single"] += len(singles)
    done: list[LaneCall] = []  # the calls to score: each once it is read back, else all once all are
    reduced = 0  # how many of them their threads scored (handed to their broods as they are read)
    read: set[int] = set()  # the calls read back, by id
    error: Exception | None = None  # what the caller's work between the calls raised
    try:
        if handing is not None:  # from here a lane thread left without a call hands on those done
            handing.ready(members)
        for call in calls:
            if bound is None:
                for index, trajectory in zip(call.members, call.trajectories(), strict=True):
                    bred, child, _ = members[index]
                    bred.trajectories[child] = trajectory
                COUNTS["batched"] += len(call.members)
            else:
                done.append(call.without_scratch())
                read.add(id(call))
                if isinstance(call.after, LaneScores) and reduced == len(done) - 1:  # by its thread
                    if handing is not None and handing.hand(call):  # here, or already by a lane thread
                        reduced += 1
            if between is not None and early.open:  # (without lane threads: after the first brood)
                try:
                    between()
                except Exception as exc:
                    error = exc
                    break
    except Exception:  # the children left are simulated one by one, where the error is reported in order
        pass
    finally:  # the calls no thread has taken are dropped (an error, an interrupt)
        calls.close()  # type: ignore[attr-defined]
        handed = [] if handing is None else handing.close()  # (no lane thread hands on any more)
    if error is not None:
        raise error
    everything = reduced < len(done)  # all in one pass, which meets a thread's error again: as without
    for call in handed:  # lane threads; what was handed on of their calls is taken back (and of any not
        if everything or id(call) not in read:  # read back: its children are simulated one by one)
            _unscored(call, members)
    if everything:
        with contextlib.suppress(Exception):  # as above: their children are simulated one by one
            _score_calls(done, bound, nth, members, sparse)
    return out


def _lanes_recording(context: Any) -> tuple[float, int, BoundReducer | None, bool]:
    """How a chunk's lanes record: (frames between the kernel's records, every nth of which the plugin
    sees; the plugin's compiled reducer bound once per worker, or None; whether the kernel records only
    the reducer's few records)."""
    every, nth = recording(context.spec)
    bound = context.reducer
    sparse = bound is not None and nth == 1 and bound.record_every not in (None, every)
    return (bound.record_every if sparse else every), nth, bound, sparse  # type: ignore[union-attr]


def bred_broods(
    broods: Sequence[Brood], context: Any, laid: list | Callable[[Any, list], Any] | None = None
) -> list[Bred | None]:
    """Every brood of a chunk bred (:func:`evo.ga.brood.breed_many`: the pair broods in one compiled
    call), nothing simulated yet: one :class:`Bred` per brood, or None where its breeding fails (its job
    breeds it again and meets the same error there, in order). ``laid``: as ``breed_many``'s; the
    context's lane threads, where it has them, breed the compiled call's parts at once."""
    made = breed_many(
        broods,
        context.genome,
        context.ga,
        world=context.spec.world,
        settings=context.breed_settings,
        laid=laid,
        threads=getattr(context, "lane_threads", None),
    )
    return [None if children is None else Bred(children) for children in made]


class _EarlyCalls:
    """What :func:`prepare_broods` gives the compiled breeding call as its ``laid``: called with that
    call's Laid and rows by brood before the children's creatures are made, it starts their kernel calls
    on the lane threads (:func:`evo.sim.laid.laid_runs`) where every child to simulate is in it, and until
    :meth:`window_closed` lets those threads take the GIL sooner from the thread making the creatures and
    then reading the calls back (the interpreter's switch interval at most
    :data:`WINDOW_SWITCH_INTERVAL`: docs/performance.md, rounds eighteen and twenty). The caller's
    ``beside`` work is done there too, first (once: :meth:`beside`)."""

    def __init__(
        self,
        broods: Sequence[Brood],
        spec: Any,
        every: float,
        threads: Any,
        beside: Callable | None = None,
        reduce: Callable | None = None,
        handing: _Handing | None = None,
    ):
        self.broods, self.spec, self.every, self.threads = broods, spec, every, threads
        self.reduce, self.handing = reduce, handing
        self._beside = beside
        self.laid: tuple[Laid, list] | None = None
        self.runs: tuple[np.ndarray, tuple[list[int], Any]] | None = None
        self.open = False  # whether this chunk's window is open (the switch interval lowered)

    def __call__(self, record: Laid, by_brood: list) -> None:
        self.laid = record, by_brood
        rows = _rows_to_simulate(self.broods, by_brood) if self.threads is not None else None
        if rows is not None:
            try:
                spec = self.spec
                runs = laid_runs(
                    record, rows, spec.world, spec.frames, self.every, threads=self.threads,
                    after_each=self.reduce, when_idle=None if self.handing is None else self.handing.idle,
                )  # fmt: skip
            except Exception:  # lane_runs meets the same error after breeding
                runs = None
            if runs is not None:
                self.runs = rows, runs
                self.open = True
                _switching(+1)
        self.beside()

    def beside(self) -> None:
        """The caller's work, once (in the window when the calls started)."""
        work, self._beside = self._beside, None
        if work is not None:
            work()

    def window_closed(self) -> None:
        """The calls are all read back (or dropped: the calls no thread has taken are, where an error or
        an interrupt came first): the switch interval is the interpreter's again (once no other chunk of
        this process has its window open)."""
        if self.runs is not None:
            self.runs[1][1].close()  # type: ignore[attr-defined]
        if self.open:
            self.open = False
            _switching(-1)

    def taken(self, rows: np.ndarray | None) -> tuple[list[int], Any] | None:
        """The started calls where the children to simulate are those they run (their rows, in order);
        else None, and the calls no thread has taken yet are dropped (a child bred otherwise than the
        compiled call said: an error met again in order)."""
        if self.runs is None:
            return None
        started, runs = self.runs
        if rows is not None and np.array_equal(started, rows):
            return runs
        runs[1].close()
        return None


_WINDOWS = {"open": 0, "saved": 0.0}  # chunks of this process making creatures beside their calls
_WINDOWS_LOCK = threading.Lock()


def _switching(change: int) -> None:
    """Open (+1) or close (-1) a window: the first to open lowers the interpreter's switch interval to at
    most :data:`WINDOW_SWITCH_INTERVAL`, the last to close puts back what it was."""
    with _WINDOWS_LOCK:
        if change > 0 and _WINDOWS["open"] == 0:
            _WINDOWS["saved"] = sys.getswitchinterval()
            sys.setswitchinterval(min(_WINDOWS["saved"], WINDOW_SWITCH_INTERVAL))
        _WINDOWS["open"] += change
        if change < 0 and _WINDOWS["open"] == 0:
            sys.setswitchinterval(_WINDOWS["saved"])


def _rows_to_simulate(broods: Sequence[Brood], by_brood: list) -> np.ndarray | None:
    """The rows, in a compiled breeding call's Laid, of the children :func:`prepare_broods` will simulate,
    in its order, from that call's rows by brood (before the creatures are made); None where a child to
    simulate may not be in it (a brood bred otherwise)."""
    rows: list[int] = []
    for brood, at in zip(broods, by_brood, strict=True):
        for k, seed in enumerate(brood.plugin_seeds):
            if seed is None:
                continue
            if at is None:
                return None
            if at[k] is not None:
                rows.append(at[k])
    return np.array(rows, dtype=np.int64)


def _score_calls(
    calls: list[LaneCall],
    bound: BoundReducer,
    every: int,
    members: list[tuple[Bred, int, Creature]],
    sparse: bool = False,
) -> None:
    """Score a chunk's kernel calls' lanes with the plugin's compiled reducer, straight from the kernels'
    records (no trajectory made), in one pass over them all (:func:`evo.fitness.reducers.reduce_outputs`),
    then each call's (:func:`_scored`)."""
    longest = max(calls, key=lambda call: int(call.out.n_rec.max()))
    outputs = [_output(call) for call in calls]
    evaluations = _evaluations(reduce_outputs(bound, outputs, longest.frames(), every), bound.weights)
    at = 0
    for call in calls:
        _scored(call, evaluations[at : at + len(call.members)], members, sparse)
        at += len(call.members)


def _scored(
    call: LaneCall,
    evaluations: list[Evaluation | None],
    members: list[tuple[Bred, int, Creature]],
    sparse: bool = False,
) -> None:
    """A kernel call's lanes' evaluations handed to their broods; the lanes the reducer leaves to the
    Python path get their trajectories, unless the kernels recorded only the reducer's records
    (``sparse``): those are simulated again when evaluated."""
    left = [] if sparse else [lane for lane, value in enumerate(evaluations) if value is None]
    for lane, trajectory in zip(left, call.trajectories(left), strict=True):
        bred, child, _ = members[call.members[lane]]
        bred.trajectories[child] = trajectory
    for index, value in zip(call.members, evaluations, strict=True):
        if value is not None:
            bred, child, _ = members[index]
            scored = bred.scored
            scored[child] = value
            brood = bred.brood
            if brood is not None and len(scored) == brood.evaluations:  # the brood's last
                bred.results = [
                    ChildResult() if seed is None else ChildResult(creature, scored[k])
                    for k, (creature, seed) in enumerate(zip(bred.children, brood.plugin_seeds, strict=True))
                ]
    COUNTS["batched"] += len(call.members)
    COUNTS["reduced"] += len(evaluations) - evaluations.count(None)


def _unscored(call: LaneCall, members: list[tuple[Bred, int, Creature]], counted: bool = True) -> None:
    """What :func:`_scored` handed on of a call's lanes taken back from their broods (and from the
    counts, where it ``counted`` them: it counts last)."""
    for index in call.members:
        bred, child, _ = members[index]
        if bred.scored.pop(child, None) is not None and counted:
            COUNTS["reduced"] -= 1
        bred.trajectories.pop(child, None)
        bred.results = None
    if counted:
        COUNTS["batched"] -= len(call.members)


class _Handing:
    """A chunk's kernel calls' evaluations handed to their broods (:func:`_scored`), each call once: by the
    thread that reads the calls back as it reads them (:meth:`hand`), or by a lane thread left without
    a call to take (:meth:`idle`, the calls' ``when_idle``), beside the calls still running: at a
    generation's end, the calls the other thread ran while the reader ran its last one are handed on
    before that call ends rather than after it (docs/performance.md, "Round twenty-three"). One call at
    a time, under a lock; the same evaluations whoever hands a call on, in whatever order."""

    def __init__(self, weights: tuple[float, ...], sparse: bool):
        self.weights, self.sparse = weights, sparse
        self.lock = threading.Lock()
        self.members: list[tuple[Bred, int, Creature]] | None = None  # once the creatures are made
        self.handed: dict[int, LaneCall] = {}  # by id, in the order they were handed on
        self.failed: dict[int, LaneCall] = {}  # (kept: their ids are not reused meanwhile)
        self.closed = False

    def ready(self, members: list[tuple[Bred, int, Creature]]) -> None:
        """The chunk's children to simulate, each (its Bred, its number, its creature), by lane member:
        calls may be handed on from here."""
        with self.lock:
            self.members = members

    def idle(self, call: LaneCall) -> None:
        """A lane thread's: ``call`` handed on if it was scored on its thread, the children are made
        and the reader still reads the calls (it never raises)."""
        if not isinstance(call.after, LaneScores):
            return
        with self.lock:
            if self.members is not None and not self.closed:
                self._hand(call)

    def hand(self, call: LaneCall) -> bool:
        """The reading thread's: ``call`` (scored on its thread) handed on, if it is not already; whether
        it is (False: handing it on failed, and what it handed on was taken back)."""
        with self.lock:
            return self._hand(call)

    def _hand(self, call: LaneCall) -> bool:
        key = id(call)
        if key in self.handed or key in self.failed:
            return key in self.handed
        members = self.members
        assert members is not None
        try:
            _scored(call, _evaluations(call.after, self.weights), members, self.sparse)
        except Exception:  # what it handed on is taken back: the calls go to the one pass
            _unscored(call, members, counted=False)
            self.failed[key] = call
            return False
        self.handed[key] = call
        return True

    def close(self) -> list[LaneCall]:
        """No call is handed on from here; the calls that were, in the order they were."""
        with self.lock:
            self.closed = True
            return list(self.handed.values())


def _reducing(bound: BoundReducer, every: int) -> Callable[[LaneCall], LaneScores | None]:
    """What a lane thread does after each kernel call it runs (``after_each``): score its lanes with the
    plugin's compiled reducer (:func:`evo.fitness.reducers.reduce_outputs` of that call alone, with its
    own records' frames: a lane reads only its own records, so its scores are those of one pass over all
    the calls), in compiled code that releases the GIL, beside the other threads' calls; the thread that
    reads the calls makes the evaluations as it reads them (Python, which would wait for the GIL on a
    lane thread). None where it raises: the chunk's calls are then all scored in one pass, which meets
    the error, as without lane threads."""

    def reduce(call: LaneCall) -> LaneScores | None:
        try:
            return reduce_outputs(bound, [_output(call)], call.frames(), every)
        except Exception:
            return None

    return reduce


def _output(call: LaneCall) -> tuple[np.ndarray, ...]:
    """A kernel call's output as :func:`evo.fitness.reducers.reduce_outputs` takes it."""
    out = call.out
    return out.records, out.layout, out.n_rec, out.exploded_at


def warm_reducer(spec: Any) -> bool:
    """Compile (or load from numba's cache) the plugin's compiled reducer and the loop over lanes that
    calls it, by scoring one still creature (before workers fork, so that they inherit both). Returns
    whether the run's children are scored by a reducer at all."""
    bound = bound_reducer(spec)
    if bound is None:
        return False
    still = Trajectory(np.zeros(2), np.zeros((2, 1, 2)), np.zeros((2, 1, 2)), False, None)
    _, k = recording(spec)
    return _evaluations(reduce_trajectories(bound, [still], k), bound.weights)[0] is not None


def bound_reducer(spec: Any) -> BoundReducer | None:
    """The plugin's compiled reducer bound to the spec, or None (no reducer, or measures asked for)."""
    return (
        None if spec.measures else bind_reducer(load_ref(spec.plugin), spec.params, spec.world, spec.frames)
    )


def _evaluations(scores: LaneScores, weights: tuple[float, ...]) -> list[Evaluation | None]:
    """Each lane's evaluation from its reducer scores, as the plugin's Python path makes it (the worst
    values where it exploded); None where the reducer leaves the lane to the Python path."""
    worst = worst_fitness(weights)
    out: list[Evaluation | None] = []
    for fitness, exploded, python in zip(
        scores.fitness.tolist(), scores.exploded.tolist(), scores.python.tolist(), strict=True
    ):
        out.append(None if python else Evaluation(worst if exploded else tuple(fitness), exploded))
    return out


def chunk_shares(workers: int, contended: bool = False, *, last: float = 1.0) -> list[float]:
    """The shares of a generation's cost its chunks take with ``workers`` worker processes: one chunk
    each (the fewest lanes left empty and chunk costs: docs/performance.md, "Issue 29"), or, when the
    workers were ``contended`` (one shared its core with another process, the others did not), guided
    self-scheduling: a first round of ``workers`` chunks holding two thirds of the work, then a round of
    ``workers`` holding the last third, so that a slowed worker takes fewer and the generation never
    waits for it longer than for a small chunk. One share for one worker (in-process: one chunk).
    Uncontended, the last chunk weighs ``last`` times as much as each other one (the ``evo run``
    process's own beside a local dask cluster:
    :attr:`evo.run.backends.dask_pool.DaskPool.last_weight`)."""
    if workers <= 1:
        return [1.0]
    if not contended:
        total = workers - 1 + last
        return [1.0 / total] * (workers - 1) + [last / total]
    return [2.0 / (3 * workers)] * workers + [1.0 / (3 * workers)] * workers


def chunk_ids(broods: Sequence[Brood], chunks: int | Sequence[float]) -> list[tuple[int, int]]:
    """(position of each brood in the evaluation order, its chunk): broods ordered by their first parent's
    size (masses, links; same-topology parents side by side), so that a chunk's children pad their lanes
    little, and cut into chunks of the given shares of the cost (evaluations x the parent's links, so
    that a chunk's cost is its share of the workers' time), each of at least twice ``MIN_LANES``
    evaluations where the generation allows (a smaller chunk's children would run one by one).

    Args:
        broods: the generation's broods, in order.
        chunks: how many chunks of equal cost to aim for (>= 1), or the shares of the cost (summing to
            about 1) of each chunk in turn (:func:`chunk_shares`).

    Returns:
        One (rank, chunk) per brood, in the broods' order: evaluate them by rank. For one chunk, the
        broods' own order (its lanes are cut by :func:`evo.sim.batch.lane_calls` from all of them
        whatever their order, so nothing is hashed or sorted for it).
    """
    shares = [1.0 / max(1, chunks)] * max(1, chunks) if isinstance(chunks, int) else list(chunks)
    if len(shares) <= 1:
        return [(i, 0) for i in range(len(broods))]
    keys: dict[int, str] = {}  # a parent of many broods is hashed once (the broods hold it alive)
    sizes: list[tuple] = []
    costs: list[int] = []  # a step costs about a fixed part plus a part per link
    evaluations = [brood.evaluations for brood in broods]
    for i, brood in enumerate(broods):
        parents = brood.parents
        if not parents:
            sizes.append((0, 0, "", i))
            costs.append(evaluations[i] * LINKS_PER_CREATURE_COST)
            continue
        first = parents[0]
        key = keys.get(id(first))
        if key is None:
            key = keys[id(first)] = topology_key(first)
        links = first.n_links
        sizes.append((first.n_masses, links, key, i))
        costs.append(evaluations[i] * (links + LINKS_PER_CREATURE_COST))
    order = sorted(range(len(broods)), key=sizes.__getitem__)
    total = sum(evaluations)
    whole = sum(costs)
    out = [(0, 0)] * len(broods)
    chunk, filled, in_chunk, done = 0, 0, 0, 0
    for rank, i in enumerate(order):
        per_chunk = max(1.0, shares[min(chunk, len(shares) - 1)] * whole)
        big_enough = filled >= per_chunk and in_chunk >= 2 * MIN_LANES
        if big_enough and total - done >= 2 * MIN_LANES:  # no small chunk left at the end
            chunk, filled, in_chunk = chunk + 1, 0, 0
        out[i] = (rank, chunk)
        filled += costs[i]
        in_chunk += evaluations[i]
        done += evaluations[i]
    return out
