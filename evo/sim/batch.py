"""``simulate_batch``: many creatures of any topologies simulated together, one creature per SIMD lane.

Each trajectory is bit-identical to what :func:`evo.sim.simulate` gives for that creature alone;
integrators without a batched kernel (and batches too small to pay) run through ``simulate``. See
docs/batch.md for the lane layout and the figures.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.model import Creature
from evo.sim.kernels import batch_euler as _batch_kernel
from evo.sim.kernels import batch_explicit as _batch_explicit
from evo.sim.kernels import explicit as _explicit
from evo.sim.kernels import forces as _forces
from evo.sim.kernels import lanes as _lanes
from evo.sim.simulate import Trajectory, kernel_params, simulate, speed_limit, steps_for
from evo.sim.world import World

__all__ = [
    "BATCHED_INTEGRATORS",
    "LaneCall",
    "LaneThreads",
    "MAX_LANES",
    "MIN_LANES",
    "kernel_groups",
    "lane_calls",
    "lane_runs",
    "padded_lanes",
    "simulate_batch",
    "topology_key",
]

# integrators with a batched kernel; the others (backward-euler, psm) run creature by creature
BATCHED_INTEGRATORS = tuple(_explicit.METHODS)
# Fewer creatures than this run one by one: a lane loop of 1-7 creatures does not vectorise and is
# slower than the scalar kernel. More than MAX_LANES are split into even kernel calls (64 lanes keep
# a 60-mass / 200-link creature's arrays in a 1 MiB L2 cache).
MIN_LANES = 8
MAX_LANES = 64
# lane_calls counts a kernel call as this many lanes more (its setup and its loops' remainders)
CALL_LANES = 8
# the kernels' loops over lanes run LANE_BLOCK lanes at a time in SIMD registers and the lanes past the
# last whole block apart, at several times a lane's cost in a block from the third on: a call with more
# than CHEAP_REST such lanes is padded to the next whole block, its padding lanes running its last
# creature again (the same numbers: only the time changes), and a call of 11 to 23 lanes to
# FEWEST_PADDED (16 lanes ran slower than 24); measured lane by lane on 2-core AMD EPYC (AVX-512) VMs
# (docs/performance.md, "Round twenty-four"; docs/engine_experiments.py lane-counts)
LANE_BLOCK = 8
CHEAP_REST = 2
FEWEST_PADDED = 24
# creatures that share their link ends with this many others in all get kernel calls of their own
OWN_CALL_LANES = 8
# records are gathered lane-innermost, up to this many at a time and in at most RING_BYTES (so that the
# ring stays in cache beside the kernel's arrays), then copied out to each creature's own
RING_RECORDS = 16
RING_BYTES = 2**19


class LaneThreads(ThreadPoolExecutor):
    """A pool of ``count`` threads for :func:`lane_runs` (the ``threads`` backend's): a thread pool that
    says how many threads it runs, so that the calls are cut for that many. :func:`lane_runs` runs them
    on ``count`` threads at once: the one that reads its calls and ``count - 1`` of the pool (which
    starts a thread only when it has no idle one)."""

    def __init__(self, count: int, thread_name_prefix: str = "evo-lanes"):
        if count < 1:
            raise ValueError(f"LaneThreads needs at least 1 thread, got {count}")
        super().__init__(count, thread_name_prefix=thread_name_prefix)
        self.count = count


def topology_key(creature: Creature) -> str:
    """A hash of what creatures must share to be simulated in one batch: the number of masses, the
    link ends ``link_a``, ``link_b`` (in order) and the ``fixed`` flags. 32 hex digits."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.array([creature.n_masses, creature.n_links], dtype="<i8").tobytes())
    digest.update(np.ascontiguousarray(creature.link_a, dtype="<i8").tobytes())
    digest.update(np.ascontiguousarray(creature.link_b, dtype="<i8").tobytes())
    digest.update(np.ascontiguousarray(creature.fixed, dtype=np.uint8).tobytes())
    return digest.hexdigest()


def simulate_batch(
    creatures: Sequence[Creature], world: World, frames: int, record_every: float = 1
) -> list[Trajectory]:
    """Simulate creatures of any topologies in ``world`` for ``frames`` frames, recording every
    ``record_every`` frames: the trajectories :func:`evo.sim.simulate` would give, in order.

    Args:
        creatures: the creatures; they may differ in anything (masses, links, fixed flags, physics).
        world: the world every creature is simulated in.
        frames: frames to simulate (a whole number of steps of ``world.dt``).
        record_every: frames between records (a whole number of steps); record 0 is frame 0.

    Returns:
        One :class:`~evo.sim.simulate.Trajectory` per creature, in order, bit-identical to
        :func:`evo.sim.simulate`'s (docs/batch.md); [] for no creatures.

    Raises:
        EvoInputError: frames or record_every that are not whole numbers of steps (or record_every <= 0),
            or, for the creatures simulated one by one, a creature over the size limits.
    """
    creatures = list(creatures)
    if not creatures:
        return []
    singles, calls = lane_runs(creatures, world, frames, record_every)
    out: list = [None] * len(creatures)  # filled in input order
    for index in singles:
        out[index] = simulate(creatures[index], world, frames, record_every)
    for call in calls:
        for index, trajectory in zip(call.members, call.trajectories(), strict=True):
            out[index] = trajectory
    return out


_NO_RING = np.empty((0, 4, 0, 0))


@dataclass(frozen=True)
class LaneCall:
    """One batched kernel call's raw output: lane ``j`` simulated ``creatures[members[j]]`` (of the list
    given to :func:`lane_runs`), and ``out`` (:class:`~evo.sim.kernels.lanes.LaneRecords`) holds its
    records, recorded every ``stride`` steps of ``dt`` frames. Consumers that reduce the records in
    compiled code (:func:`evo.fitness.reducers.reduce_lanes`) read ``out`` directly; :meth:`trajectories`
    makes the :class:`~evo.sim.simulate.Trajectory` s :func:`simulate_batch` returns (views, no copy).
    ``after``: what the runs' ``after_each`` made of it, on the thread that ran the call (or None)."""

    members: list[int]
    out: _lanes.LaneRecords
    stride: int
    dt: float
    after: Any = None

    def frames(self) -> np.ndarray:
        """(records of the longest lane,) float64: each record's frame, as every trajectory has them."""
        return np.arange(int(self.out.n_rec.max()), dtype=np.float64) * self.stride * self.dt

    def without_scratch(self) -> LaneCall:
        """The same call without its kernel's scratch ring (to keep many calls' records at once)."""
        return LaneCall(self.members, self.out._replace(ring=_NO_RING), self.stride, self.dt, self.after)

    def trajectories(self, lanes: Sequence[int] | None = None) -> list[Trajectory]:
        """The trajectories of ``lanes`` (default: every lane, in order)."""
        o = self.out
        if lanes is None:
            return _trajectories(o.records, o.layout, o.n_rec, o.exploded_at, self.stride, self.dt)
        pick = list(lanes)
        layout = o.layout[:2, pick]
        return _trajectories(o.records, layout, o.n_rec[pick], o.exploded_at[pick], self.stride, self.dt)


def lane_runs(
    creatures: Sequence[Creature],
    world: World,
    frames: int,
    record_every: float = 1,
    *,
    threads: Executor | None = None,
    laid: tuple[Any, np.ndarray] | None = None,
    after_each: Callable[[LaneCall], Any] | None = None,
    when_idle: Callable[[LaneCall], None] | None = None,
) -> tuple[list[int], Iterator[LaneCall]]:
    """What :func:`simulate_batch` does, left raw: the positions in ``creatures`` to simulate one by one
    (:func:`evo.sim.simulate`), and the batched kernel calls of the others, run one by one as the
    iterator is consumed. The arguments are those of :func:`simulate_batch`, checked here, at once.

    With ``threads`` (an executor: a :class:`LaneThreads` of ``count`` threads, or another, taken for
    two), the creatures are cut into calls that ``count`` threads end close together (:func:`lane_calls`),
    and the calls are run, the costliest first, by ``count - 1`` tasks of the executor and by the thread
    that reads the iterator, which yields them once none is left to take, as they are done (those done
    together in the cut's order), so that what it does with one runs beside the last calls still
    running: the kernels release the GIL, so calls run side by side on ``count`` cores. Every lane's
    numbers are the same either way; each call's ``members`` say whose lanes it holds.

    With ``laid`` (a :class:`evo.sim.laid.Laid` of creatures at rest and free with the applet's physics,
    and the row of each of ``creatures`` in it), the calls are cut and their lanes packed from its
    arrays, as from the creatures themselves (round seventeen).

    With ``after_each``, the thread that runs a call then calls it with the call (without its ``after``)
    and the call is yielded with what it returned as ``after`` (compiled work that releases the GIL runs
    beside the other calls so: round twenty); what it raises is raised when the call is read.

    With ``when_idle`` and ``threads``, each of the executor's threads that finds no call left to take
    then calls it with every call done by then (in the cut's order; each with its ``after``), beside the
    calls still running: Python work on a call that would otherwise wait for the reading thread
    (round twenty-three). It must not raise, and may be called for a call the iterator has yielded or
    is yet to yield, and after the iterator is closed.

    Raises:
        EvoInputError: as :func:`simulate_batch`.
    """
    return _runs(
        list(creatures), world, frames, record_every, threads, laid, after_each, now=False,
        when_idle=when_idle,
    )  # fmt: skip


def _runs(
    creatures: list[Creature] | None,
    world: World,
    frames: int,
    record_every: float,
    threads: Executor | None,
    laid: tuple[Any, np.ndarray] | None,
    after_each: Callable[[LaneCall], Any] | None = None,
    *,
    now: bool,
    when_idle: Callable[[LaneCall], None] | None = None,
) -> tuple[list[int], Iterator[LaneCall]]:
    """:func:`lane_runs` (and :func:`evo.sim.laid.laid_runs`: ``creatures`` None, and with ``now`` the
    threads' tasks take the calls at once, the iterator then a started generator whose closing drops the
    calls no thread has taken): the arguments checked, the calls cut and run."""
    n_steps = steps_for(frames, world.dt)
    stride = steps_for(record_every, world.dt, "record_every")
    if stride <= 0:
        raise EvoInputError(f"record_every must be > 0 frames, got {record_every}")
    count = 1 if threads is None else getattr(threads, "count", 2)
    singles, cut = _kernel_calls(creatures, world, count, laid)
    if threads is None or len(cut) < 2:
        return singles, _in_turn(cut, creatures, world, n_steps, stride, laid, after_each)
    reading = _threaded(
        cut, creatures, world, n_steps, stride, threads, count, laid, after_each, now=now, when_idle=when_idle
    )
    if now:
        next(reading)  # its tasks are handed out, and from here closing it stops the calls not yet taken
    return singles, reading  # type: ignore[return-value]


def _euler_fast_path(world: World) -> bool:
    """Whether ``world`` runs creatures of the applet's physics on the semi-implicit Euler fast path (its
    integrator and the soda contact), in lanes as alone."""
    return world.integrator == "euler" and world.contact == "soda"


def _in_turn(
    cut: list[tuple[Callable, list[int]]],
    creatures: list[Creature] | None,
    world: World,
    n_steps: int,
    stride: int,
    laid: tuple[Any, np.ndarray] | None,
    after_each: Callable[[LaneCall], Any] | None = None,
) -> Iterator[LaneCall]:
    """The calls of ``cut`` run one after another by the thread that reads them."""
    for run, members in cut:
        records = run(_batch(creatures, members), world, n_steps, stride, *_rows(laid, members))
        yield _followed(LaneCall(members, records, stride, world.dt), after_each)


def _followed(call: LaneCall, after_each: Callable[[LaneCall], Any] | None) -> LaneCall:
    """The call with what ``after_each`` makes of it as its ``after`` (itself without one)."""
    return call if after_each is None else replace(call, after=after_each(call))


def _batch(creatures: list[Creature] | None, members: list[int]) -> list[Creature] | None:
    """A call's creatures (None where its lanes are packed from a Laid alone)."""
    return None if creatures is None else [creatures[k] for k in members]


def _rows(laid: tuple[Any, np.ndarray] | None, members: list[int]) -> tuple:
    """What a run function takes beside a call's creatures: (the Laid, their rows in it), or nothing."""
    return () if laid is None else (laid[0], laid[1][members])


def _call_costs(
    cut: list[tuple[Callable, list[int]]],
    creatures: list[Creature] | None,
    laid: tuple[Any, np.ndarray] | None,
) -> list[int]:
    """:func:`_call_cost` of each call of ``cut`` (from the Laid's link counts where given)."""
    if laid is None:
        return [_members_cost(creatures, members) for _, members in cut]  # type: ignore[arg-type]
    links, masses = laid[0].links[laid[1]], laid[0].masses[laid[1]]
    return [
        _call_cost(len(members), int(links[members].max()), int(masses[members].max())) for _, members in cut
    ]


def _costliest_first(
    cut: list[tuple[Callable, list[int]]],
    creatures: list[Creature] | None,
    laid: tuple[Any, np.ndarray] | None,
) -> tuple[list[int], list[int]]:
    """The positions of ``cut``'s calls, costliest first (equal costs in ``cut``'s order), and each call's
    :func:`_call_costs` cost (in ``cut``'s order): the order the lane threads and the shards workers take
    them in."""
    costs = _call_costs(cut, creatures, laid)
    return sorted(range(len(cut)), key=lambda at: -costs[at]), costs


def _kernel_calls(
    creatures: list[Creature] | None,
    world: World,
    threads: int = 1,
    laid: tuple[Any, np.ndarray] | None = None,
) -> tuple[list[int], list[tuple[Callable, list[int]]]]:
    """How :func:`lane_runs` cuts ``creatures`` for ``threads`` threads: the positions to simulate one by
    one, and the kernel calls as (the function that runs a call's creatures, their positions), in order
    (:func:`kernel_groups`, then :func:`lane_calls` per kernel; or the same of ``laid``'s arrays, the
    creatures then unread: None will do)."""
    if laid is None:
        groups = kernel_groups(creatures, world)  # type: ignore[arg-type]
        n = len(creatures)  # type: ignore[arg-type]
    else:
        record, rows = laid
        groups = record.groups(rows, world)
        n = len(rows)
    in_lanes = {index for indices in groups.values() for index in indices}
    singles = [index for index in range(n) if index not in in_lanes]
    cut = [
        (_run_euler if use_euler_kernel else _run_explicit, [indices[k] for k in chunk])
        for use_euler_kernel, indices in groups.items()
        for chunk in (
            lane_calls([creatures[index] for index in indices], threads)  # type: ignore[index]
            if laid is None
            else record.calls(rows[indices], threads)
        )
    ]
    return singles, cut


def _threaded(
    cut: list[tuple[Callable, list[int]]],
    creatures: list[Creature] | None,
    world: World,
    n_steps: int,
    stride: int,
    threads: Executor,
    count: int,
    laid: tuple[Any, np.ndarray] | None,
    after_each: Callable[[LaneCall], Any] | None = None,
    *,
    now: bool = False,
    read: Callable[[_SharedCalls, int], Iterator[LaneCall]] | None = None,
    when_idle: Callable[[LaneCall], None] | None = None,
) -> Iterator[LaneCall | None]:
    """The calls of ``cut`` (kernel, members) run by ``count`` workers at once --
    ``count - 1`` tasks of ``threads`` and the calling thread itself -- each taking the costliest call
    not yet taken whenever it is free (longest processing time first: they end close together), and
    yielded as they are done. The caller takes the costliest call before the tasks are handed out (it
    starts without waiting for a thread to wake) and runs calls until none is left to take, holding the
    GIL only for moments between them (the other threads need it around each of theirs); it is then
    given the calls done (in ``cut``'s order) and each other one as it ends: what it does with them runs
    while the other threads' last calls do, not after the last (docs/performance.md, "Round sixteen",
    "Round twenty-one"): :func:`_done_first`, unless ``read`` (the calls and their count) says another
    way. With ``now``, the tasks are handed out at the first ``next``, which yields None, and the caller
    joins them from the second on (round eighteen). ``when_idle``: as :func:`lane_runs`'."""
    order, _ = _costliest_first(cut, creatures, laid)
    calls = _SharedCalls(cut, creatures, world, n_steps, stride, order, laid, after_each, when_idle)
    try:
        first = None if now else calls.take()  # the costliest call is the reader's: it starts at once
        for _ in range(count - 1):
            threads.submit(calls.run_all)
        if now:
            yield None
        if first is not None:
            calls.run(first, catch=Exception)
        yield from (read or _done_first)(calls, len(cut))
    finally:  # calls not yet taken are not wanted once the caller stops (an error, or it let go)
        calls.stop()


def _done_first(calls: _SharedCalls, count: int) -> Iterator[LaneCall]:
    """The reading thread's part of :func:`_threaded`: run calls until none is left to take (the GIL free
    for the other threads meanwhile), then yield those done (in the cut's order) and each other one as it
    ends, the others' last calls running meanwhile."""
    while calls.run_next(catch=Exception):
        pass
    left = list(range(count))  # the calls not yet yielded, in the cut's order
    while left:
        ready = [at for at in left if calls.done(at)] or [calls.next_done(left)]
        for at in ready:
            left.remove(at)
            yield calls.result(at)


class _SharedCalls:
    """The kernel calls of :func:`_threaded`, taken in ``order`` by whichever thread is free first: each
    call (its records, and ``after_each`` of it; or what either raised) once it is done. A thread's task
    (:meth:`run_all`) ends with ``when_idle`` of each call done by then."""

    def __init__(
        self,
        cut: list[tuple[Callable, list[int]]],
        creatures: list[Creature] | None,
        world: World,
        n_steps: int,
        stride: int,
        order: list[int],
        laid: tuple[Any, np.ndarray] | None = None,
        after_each: Callable[[LaneCall], Any] | None = None,
        when_idle: Callable[[LaneCall], None] | None = None,
    ):
        self.cut, self.creatures, self.order, self.laid = cut, creatures, order, laid
        self.after_each, self.when_idle = after_each, when_idle
        self.world, self.n_steps, self.stride = world, n_steps, stride
        self.taken = 0
        self.lock = threading.Lock()
        self.finished = [threading.Event() for _ in cut]
        self.ended: queue.SimpleQueue[int] = queue.SimpleQueue()  # each call's position once it is done
        self.calls: list[LaneCall | None] = [None] * len(cut)
        self.errors: list[BaseException | None] = [None] * len(cut)

    def take(self) -> int | None:
        """The costliest call not yet taken (its position in the cut), now taken; None when none is left."""
        with self.lock:
            if self.taken >= len(self.order):
                return None
            self.taken += 1
            return self.order[self.taken - 1]

    def run(self, at: int, catch: type[BaseException] = BaseException) -> None:
        """Run call ``at`` (and ``after_each`` of it). What it raises is kept for :meth:`result` when it is a
        ``catch`` (else it is raised here, the call marked done)."""
        run, members = self.cut[at]
        try:
            records = run(
                _batch(self.creatures, members), self.world, self.n_steps, self.stride,
                *_rows(self.laid, members),
            )  # fmt: skip
            self.calls[at] = _followed(
                LaneCall(members, records, self.stride, self.world.dt), self.after_each
            )
        except catch as exc:
            self.errors[at] = exc
        finally:
            self.finished[at].set()
            self.ended.put(at)

    def run_next(self, catch: type[BaseException] = BaseException) -> bool:
        """Take and run the costliest call not yet taken (:meth:`run`); False when none is left."""
        at = self.take()
        if at is None:
            return False
        self.run(at, catch)
        return True

    def run_all(self) -> None:
        """A thread's task: run calls until none is left, then ``when_idle`` of each call done by then,
        in the cut's order (while the others' last calls still run)."""
        while self.run_next():
            pass
        if self.when_idle is not None:
            for at, call in enumerate(self.calls):
                if call is not None and self.finished[at].is_set():
                    self.when_idle(call)

    def done(self, at: int) -> bool:
        return self.finished[at].is_set()

    def next_done(self, among: list[int]) -> int:
        """The first of the calls ``among`` (all taken) to be done, once it is."""
        while True:
            at = self.ended.get()
            if at in among:
                return at

    def result(self, at: int) -> LaneCall:
        """Call ``at`` once it is done; raises what it raised."""
        self.finished[at].wait()
        error = self.errors[at]
        if error is not None:
            raise error
        return self.calls[at]  # type: ignore[return-value]

    def stop(self) -> None:
        """No call not yet taken is run."""
        with self.lock:
            self.taken = len(self.order)


def kernel_groups(creatures: Sequence[Creature], world: World) -> dict[bool, list[int]]:
    """Which creatures :func:`simulate_batch` runs in lanes, by kernel: {True: the Euler fast path's
    (``euler``, soda contact, default physics), False: the general explicit kernel's}. The others -- all
    under an integrator without a batched kernel, a kernel's group of fewer than ``MIN_LANES``, a creature
    whose masses x ``MIN_LANES`` lanes overflow the stack buffers -- run one by one through ``simulate``.

    Args:
        creatures: the creatures, in order.
        world: the world they are simulated in.

    Returns:
        Positions in ``creatures`` per kernel (a kernel without lanes is left out).
    """
    if world.integrator not in BATCHED_INTEGRATORS:
        return {}
    fast = _euler_fast_path(world)
    groups: dict[bool, list[int]] = {True: [], False: []}
    for index, creature in enumerate(creatures):
        if (creature.n_masses + 1) * MIN_LANES <= _batch_kernel.STACK_DOUBLES:
            groups[fast and creature.has_default_physics].append(index)
    return {kernel: indices for kernel, indices in groups.items() if len(indices) >= MIN_LANES}


def lane_calls(creatures: Sequence[Creature], threads: int = 1) -> list[list[int]]:
    """How :func:`simulate_batch` cuts creatures into kernel calls. Creatures that share their link ends
    with at least ``OWN_CALL_LANES - 1`` others get calls of their own, in which every link is one vector;
    the rest, sorted by size (links, then masses), are cut into the even calls that pad the fewest
    link-lanes (a call costing ``CALL_LANES`` lanes more). No call has more than ``MAX_LANES`` lanes, and
    (its largest creature's masses + 1) x lanes fits the kernels' stack buffers. For calls run on
    ``threads`` threads at once, the rest are cut into the even calls that end soonest on them (the
    costliest call first to the least loaded thread), the fewest padded link-lanes among those.

    Args:
        creatures: the creatures of one kernel, each with at most STACK_DOUBLES / MIN_LANES - 1 masses.
        threads: how many threads run the calls at once.

    Returns:
        The calls, each a list of positions in ``creatures`` (every position once).
    """
    masses = np.fromiter((c.n_masses for c in creatures), np.int64, len(creatures))
    links = np.fromiter((c.n_links for c in creatures), np.int64, len(creatures))
    first = np.empty(len(creatures), np.int64)  # the first creature with the same link ends
    seen: dict[tuple, int] = {}
    for k, c in enumerate(creatures):
        first[k] = seen.setdefault((c.n_masses, c.n_links, c.link_a.tobytes(), c.link_b.tobytes()), k)
    return _cut(masses, links, first, threads)


def _cut(masses: np.ndarray, links: np.ndarray, first: np.ndarray, threads: int) -> list[list[int]]:
    """:func:`lane_calls` of creatures given as arrays: (n,) ``masses`` and ``links`` counts, and for each
    the position of the first creature with the same masses count and link ends (itself if none). In
    Python's integers: a generation's few hundred creatures and few candidate cuts cost less so than in
    numpy's small arrays (it runs between a generation's breeding and its first kernel call)."""
    sizes_of, widths = masses.tolist(), links.tolist()
    kinds: dict[int, list[int]] = {}  # each kind's creatures in order, the kinds in order of their first
    for position, alike in enumerate(first.tolist()):
        kinds.setdefault(alike, []).append(position)
    calls: list[list[int]] = []
    mixed: list[int] = []
    for members in kinds.values():
        if len(members) >= OWN_CALL_LANES:
            calls += _even_calls(sizes_of, members, 0)
        else:
            mixed += members
    if mixed:
        mixed.sort(key=lambda k: (widths[k], sizes_of[k], k))  # by links, masses, position
        widest = [widths[k] for k in mixed]
        count = len(mixed)
        most_masses = max(sizes_of[k] for k in mixed)
        limit = _stack_lanes(most_masses)
        fewest = -(-count // limit)

        def costs(n_calls: int) -> list[int]:  # link-lanes computed, padding and call overhead included
            size, more = divmod(count, n_calls)  # the cuts of np.array_split
            out, start = [], 0
            for k in range(n_calls):
                lanes = size + (k < more)
                end = start + lanes
                most = most_masses  # its own most masses matter where its padding may pass the limit
                if padded_lanes(lanes) > limit:
                    most = max(sizes_of[j] for j in mixed[start:end])
                out.append(_call_cost(lanes, widest[end - 1], most))
                start = end
            return out

        if threads <= 1:
            best = min(range(fewest, min(count, fewest + 4) + 1), key=lambda n: sum(costs(n)))
        else:
            # (a kind's creatures share their masses count and link ends)
            own = [_call_cost(len(call), widths[call[0]], sizes_of[call[0]]) for call in calls]

            def ends(n_calls: int) -> tuple[int, int]:  # when the threads end them, then link-lanes
                mine = costs(n_calls)
                return _makespan([*own, *mine], threads), sum(mine)

            best = min(range(fewest, min(count, fewest + max(4, threads)) + 1), key=ends)
        calls += _even_calls(sizes_of, mixed, best)
    return calls


def _call_cost(lanes: int, links: int, most_masses: int) -> int:
    """A kernel call's cost in link-lanes: the lanes it runs (:func:`_lanes_run` of its ``lanes``
    creatures of at most ``most_masses`` masses) and ``CALL_LANES`` more, times its largest links + 1."""
    return (_lanes_run(lanes, most_masses) + CALL_LANES) * (links + 1)


def _members_cost(creatures: Sequence[Creature], members: Sequence[int]) -> int:
    """:func:`_call_cost` of the kernel call of ``members`` (positions in ``creatures``)."""
    return _call_cost(
        len(members), max(creatures[k].n_links for k in members), max(creatures[k].n_masses for k in members)
    )


def _makespan(costs: list[int], threads: int) -> int:
    """When ``threads`` threads end calls of these costs, handed out costliest first to the least loaded."""
    loads = [0] * threads
    for cost in sorted(costs, reverse=True):
        loads[loads.index(min(loads))] += cost
    return max(loads)


def _lane_limit(masses: list[int], members: list[int]) -> int:
    return _stack_lanes(max(masses[k] for k in members))


def _stack_lanes(most_masses: int) -> int:
    """The most lanes of creatures of up to ``most_masses`` masses a kernel call holds (its stack buffers
    hold the force accumulators of ``most_masses + 1`` rows per lane), :data:`MAX_LANES` at most."""
    return max(1, min(MAX_LANES, _batch_kernel.STACK_DOUBLES // (most_masses + 1)))


def _even_calls(masses: list[int], members: list[int], n_calls: int) -> list[list[int]]:
    """``members`` cut into ``n_calls`` even calls (at least as many as the lane limit asks for), as
    ``np.array_split`` cuts them: the first ``len % n_calls`` one longer."""
    n_calls = max(n_calls, -(-len(members) // _lane_limit(masses, members)))
    size, more = divmod(len(members), n_calls)
    out, start = [], 0
    for k in range(n_calls):
        end = start + size + (k < more)
        out.append(members[start:end])
        start = end
    return out


# -- packing: one creature per lane, the lane the last axis ---------------------------------------------


def _wave_leaders(omega: np.ndarray, theta0: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """(n_lanes,) int64: for each lane, the first lane whose wave starts with the same bits of θ₀, ω and
    sign (itself if none): their θ stay equal, bit for bit, until a side wall reverses one of them, and
    the kernels then compute sin θ and cos θ once for both (checking, every time, that θ still agree)."""
    first: dict[tuple, int] = {}
    keys = zip(omega.view(np.int64).tolist(), theta0.view(np.int64).tolist(), sign.tolist(), strict=True)
    return np.array([first.setdefault(key, lane) for lane, key in enumerate(keys)], dtype=np.int64)


def _pack(creatures: list[Creature], world: World, general: bool) -> dict[str, np.ndarray]:
    """Every lane's arrays, the lane the last axis, padded to the largest creature plus one spare mass
    row: a padded mass is not free and at rest at the origin, a padded link joins the spare row to
    itself (its force, 0, lands on no real mass). Each lane's numbers are computed as :func:`evo.sim.pack`
    computes them (element by element, so on all lanes' values at once); ``general`` adds S·k̄, the
    dashpots and 1/M. Each lane's masses are put on rows in link order
    (:func:`evo.sim.kernels.lanes.rows_in_link_order`), which changes no mass's sum of forces (each
    still adds its links in link order); ``mass_of_row`` (rows, lanes) says whose records a row holds."""
    lanes = len(creatures)
    masses = np.fromiter((c.n_masses for c in creatures), np.int64, lanes)
    links = np.fromiter((c.n_links for c in creatures), np.int64, lanes)
    phi = np.concatenate([c.phi for c in creatures]).astype(np.float64, copy=False)
    pos, vel, free, ends, genes, mass_of_row, uniform, uniform_b, row = _lanes.pack_lanes(
        masses,
        links,
        np.concatenate([c.positions for c in creatures]).astype(np.float64, copy=False),
        np.concatenate([c.velocities for c in creatures]).astype(np.float64, copy=False),
        np.concatenate([c.fixed for c in creatures]).astype(np.bool_, copy=False),
        np.concatenate([c.link_a for c in creatures]).astype(np.int64, copy=False),
        np.concatenate([c.link_b for c in creatures]).astype(np.int64, copy=False),
        np.concatenate([c.rest for c in creatures]).astype(np.float64, copy=False),
        np.concatenate([c.alpha for c in creatures]).astype(np.float64, copy=False),
        np.array([c.beta for c in creatures], dtype=np.float64),
        np.cos(phi),
        np.sin(phi),
    )
    waves = (
        np.array([c.omega for c in creatures], dtype=np.float64),
        np.array([c.wave_phase for c in creatures], dtype=np.float64),
        np.array([-1.0 if c.wave_reverse else 1.0 for c in creatures]),
        np.array([c.autoreverse for c in creatures], dtype=np.uint8),
    )
    packed = _packed_lanes((pos, vel, free, ends, genes, mass_of_row, uniform, uniform_b), *waves)
    if general:  # S·k̄ and the dashpots of every link, 1/M of every mass, scattered as the lanes' genes
        at_mass = (row, np.repeat(np.arange(lanes), masses))
        at_link = _slots(links)
        link = np.zeros((2, ends.shape[1], lanes))
        link[0][at_link] = np.concatenate([c.stiffness for c in creatures]) * float(world.stiffness)
        link[1][at_link] = np.concatenate([c.dashpot for c in creatures])
        inv_mass = np.zeros((pos.shape[1], lanes))
        inv_mass[at_mass] = 1.0 / np.concatenate([c.mass for c in creatures])
        packed.update(link_k=link[0], dashpot=link[1], inv_mass=inv_mass)
    return packed


def _packed_lanes(
    lanes: tuple, omega: np.ndarray, theta0: np.ndarray, sign: np.ndarray, autoreverse: np.ndarray
) -> dict[str, np.ndarray]:
    """The Euler fast path's arrays by name from ``pack_lanes``' first eight results (``lanes``) and each
    lane's wave: (lanes,) ``omega``, ``theta0``, ``sign`` and ``autoreverse``, and their wave leaders."""
    pos, vel, free, ends, genes, mass_of_row, uniform, uniform_b = lanes
    return {
        "pos": pos,
        "vel": vel,
        "free": free,
        "link_a": ends[0],
        "link_b": ends[1],
        "uniform": uniform,
        "uniform_b": uniform_b,
        "mass_of_row": mass_of_row,
        "rest": genes[0],
        "amp": genes[1],
        "cos_phi": genes[2],
        "sin_phi": genes[3],
        "omega": omega,
        "theta0": theta0,
        "sign": sign,
        "autoreverse": autoreverse,
        "wave_leader": _wave_leaders(omega, theta0, sign),
    }


def _slots(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, lane) of each of ``counts[lane]`` items per lane, lane after lane: two (sum,) int64 arrays."""
    lanes = np.repeat(np.arange(len(counts)), counts)
    return np.arange(len(lanes)) - np.repeat(np.cumsum(counts) - counts, counts), lanes


def _max_speed2(world: World, creatures: list[Creature]) -> np.ndarray:
    """(lanes,) each creature's speed limit squared, as :func:`evo.sim.simulate` computes it (it depends
    on the creature's size when the world sets none)."""
    return _speed_limits2(world, [c.positions for c in creatures])


def _speed_limits2(world: World, bodies: Sequence[np.ndarray]) -> np.ndarray:
    """(len(bodies),) the speed limit squared of each body starting at its (n, 2) positions
    (:func:`evo.sim.speed_limit`: the world's own where it sets one)."""
    if world.max_speed is not None:  # the same for every creature
        return np.full(len(bodies), speed_limit(world) ** 2)
    return np.array([speed_limit(world, positions) ** 2 for positions in bodies], dtype=np.float64)


def padded_lanes(lanes: int) -> int:
    """The lanes a kernel call of ``lanes`` creatures runs (docs/performance.md, "Round twenty-four"):
    ``lanes`` where at most :data:`CHEAP_REST` of them are past the last whole :data:`LANE_BLOCK`, else
    the next whole block; :data:`FEWEST_PADDED` for more than a block and a cheap rest below that."""
    if lanes <= LANE_BLOCK + CHEAP_REST:
        return lanes
    if lanes < FEWEST_PADDED:
        return FEWEST_PADDED
    rest = lanes % LANE_BLOCK
    return lanes if rest <= CHEAP_REST else lanes + LANE_BLOCK - rest


def _lanes_run(n: int, most_masses: int) -> int:
    """How many lanes a call of ``n`` creatures of at most ``most_masses`` masses runs:
    :func:`padded_lanes`, unless that passes the lanes the kernel's stack buffers hold (then ``n``)."""
    lanes = padded_lanes(n)
    return n if lanes > _stack_lanes(most_masses) else lanes


def _padding(n: int, most_masses: int) -> np.ndarray:
    """The lanes of a call of ``n`` creatures of at most ``most_masses`` masses (:func:`_lanes_run`), each
    by the creature it runs: its own, then the last one again in each padding lane."""
    return np.minimum(np.arange(_lanes_run(n, most_masses)), n - 1)


def _padded(creatures: list[Creature]) -> tuple[np.ndarray, list[Creature]]:
    """A call's lanes by creature (:func:`_padding`) and the creature each lane runs."""
    creature_at = _padding(len(creatures), max(c.n_masses for c in creatures))
    return creature_at, [creatures[k] for k in creature_at]


def _lane_records(
    creatures: list[Creature] | None,
    n_steps: int,
    stride: int,
    mass_of_row: np.ndarray,
    masses: np.ndarray | None = None,
    creature_at: np.ndarray | None = None,
) -> _lanes.LaneRecords:
    """Where a kernel call writes (:func:`_records`, and the per-lane counts). With ``creature_at`` (each
    lane's creature, :func:`_padding`), a padding lane writes its records where its creature's lane
    does: the same numbers, over them (no record of its own)."""
    ring, records, layout = _records(creatures, n_steps, stride, mass_of_row, masses, creature_at)
    lanes = layout.shape[1]
    return _lanes.LaneRecords(
        ring, records, layout, np.empty(lanes, dtype=np.int64), np.empty(lanes, dtype=np.int64)
    )


def _records(
    creatures: list[Creature] | None,
    n_steps: int,
    stride: int,
    mass_of_row: np.ndarray,
    masses: np.ndarray | None = None,
    creature_at: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ring (ring_records, 4, rows, lanes) scratch, records (2, total) float64, layout (2 + rows, lanes)
    int64): each lane's positions and velocities, (n_records, its n_masses, 2) C-ordered from
    ``layout[0, lane]`` in ``records[0]`` and ``records[1]``, with ``layout[1, lane]`` masses, row i of the
    kernel holding mass ``layout[2 + i, lane]`` (``mass_of_row``). A trajectory is then a view of its own
    block, with no copy, whatever its size beside the batch's largest."""
    if masses is None:  # each creature's masses (given: the same numbers, from a Laid; creatures unread)
        masses = np.array([c.n_masses for c in creatures], dtype=np.int64)  # type: ignore[union-attr]
    rows, lanes = mass_of_row.shape
    n_records = n_steps // stride + 1
    ring_records = max(1, min(RING_RECORDS, n_records, RING_BYTES // (32 * rows * lanes)))
    sizes = 2 * n_records * masses
    blocks = np.stack([np.cumsum(sizes) - sizes, masses])
    if creature_at is not None:  # (padding lanes: their creature's block)
        blocks = blocks[:, creature_at]
    layout = np.concatenate([blocks, mass_of_row])
    try:
        return np.empty((ring_records, 4, rows, lanes)), np.empty((2, int(sizes.sum()))), layout
    except MemoryError:
        raise EvoInputError(
            f"{lanes} x {n_records} records of up to {rows - 1} masses do not fit in memory; record less"
            " often (record_every) or simulate fewer creatures at once"
        ) from None


def _trajectories(records, layout, n_rec, exploded_at, stride: int, dt: float) -> list[Trajectory]:
    """One trajectory per lane: C-contiguous views of its block of ``records`` (see :func:`_records`)."""
    out = []
    for start, n, count, step in zip(
        layout[0].tolist(), layout[1].tolist(), n_rec.tolist(), exploded_at.tolist(), strict=True
    ):
        end = start + 2 * n * count
        out.append(
            Trajectory(
                frames=np.arange(count, dtype=np.float64) * stride * dt,
                positions=records[0, start:end].reshape(count, n, 2),
                velocities=records[1, start:end].reshape(count, n, 2),
                exploded=step >= 0,
                exploded_frame=float(step * dt) if step >= 0 else None,
            )
        )
    return out


# -- the two kernels -------------------------------------------------------------------------------------


def lanes_of(packed: dict[str, np.ndarray], max_speed2: np.ndarray) -> _lanes.Lanes:
    """The :class:`~evo.sim.kernels.lanes.Lanes` record of a :func:`_pack` result."""
    names = [name for name in _lanes.Lanes._fields if name not in ("wave_sign", "max_speed2")]
    return _lanes.Lanes(
        **{name: packed[name] for name in names}, wave_sign=packed["sign"], max_speed2=max_speed2
    )


def _run_euler(
    creatures: list[Creature] | None,
    world: World,
    n_steps: int,
    stride: int,
    laid: Any = None,
    rows: np.ndarray | None = None,
) -> _lanes.LaneRecords:
    """The semi-implicit Euler fast path (default physics, soda contact) on one batch; packed from
    ``laid``'s ``rows`` (the creatures' rows in a :class:`evo.sim.laid.Laid`) when given, the creatures
    then unread (None will do)."""
    segments, _, _, fp, ip = kernel_params(world, n_steps, stride)
    if laid is None:
        assert creatures is not None
        n = len(creatures)
        creature_at, batch = _padded(creatures)
        p = _pack(batch, world, general=False)
        out = _lane_records(creatures, n_steps, stride, p["mass_of_row"], creature_at=creature_at)
        lanes = lanes_of(p, _max_speed2(world, batch))
    else:
        assert rows is not None
        n = len(rows)
        creature_at = _padding(n, int(laid.masses[rows].max()))
        padded = rows[creature_at]
        p = laid.pack(padded)
        out = _lane_records(None, n_steps, stride, p["mass_of_row"], laid.masses[rows], creature_at)
        lanes = lanes_of(p, laid.max_speed2(padded, world))
    _batch_kernel.run_euler_batch(lanes, segments, fp, ip, out)
    return _unpadded(out, n)


def _unpadded(out: _lanes.LaneRecords, n: int) -> _lanes.LaneRecords:
    """A kernel call's records without its padding lanes (those after its ``n`` creatures')."""
    if out.layout.shape[1] == n:
        return out
    layout = np.ascontiguousarray(out.layout[:, :n])  # (compiled readers take C-ordered arrays)
    return out._replace(layout=layout, n_rec=out.n_rec[:n], exploded_at=out.exploded_at[:n])


def _run_explicit(
    creatures: list[Creature], world: World, n_steps: int, stride: int, *_laid: Any
) -> _lanes.LaneRecords:
    """The general explicit kernel (any physics, soda or penalty contact) on one batch, packed from the
    creatures (a Laid and rows, :func:`_run_euler`'s, are taken and not read)."""
    creature_at, batch = _padded(creatures)
    p = _pack(batch, world, general=True)
    segments, ground_params, ground_points, fp, ip = kernel_params(world, n_steps, stride)
    ip[_forces.I_METHOD] = _explicit.METHODS[world.integrator]
    general = _lanes.GeneralLanes(p["inv_mass"], p["link_k"], p["dashpot"])
    out = _lane_records(creatures, n_steps, stride, p["mass_of_row"], creature_at=creature_at)
    lanes = lanes_of(p, _max_speed2(world, batch))
    _batch_explicit.run_explicit_batch(lanes, general, segments, ground_params, ground_points, fp, ip, out)
    return _unpadded(out, len(creatures))
