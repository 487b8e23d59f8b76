"""What the processes of a ``shards`` stint share (:class:`Shared`): a counter of kernel calls, the
generation's scores, a lean :class:`MeetingPoint` and the :class:`Room` in which worker 1 leaves each
generation -- its selection, children and their cut into kernel calls (:class:`Cut`) -- for worker 0
(docs/performance.md, "Round thirty-one", "Round thirty-three")."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from evo.sim import batch

# how long a wait on the partners lasts before the Watch is checked (and the room, whether they broke off)
_PATIENCE = 0.05

__all__ = ["Cut", "MeetingPoint", "Room", "Shared", "Stalled", "Unsupported", "Watch", "claims"]


class Unsupported(Exception):
    """A generation the workers leave to the ``evo run`` process (its message says why)."""


class Stalled(Unsupported):
    """The ``evo run`` process's partners made no progress for longer than its :class:`Watch` allows: the
    generation is made here, and the partners are ended."""


class Watch:
    """How the ``evo run`` process (worker 0) watches its partners' progress while it waits for them (for
    worker 1's generation, at the meeting point, for the counter's lock): each partner beats -- a count
    of its own in shared memory -- as it goes (each kernel call it ends, its generation left in the room,
    its arrival at the meeting point), and :meth:`check` raises :class:`Stalled` once none has beaten for
    longer than :meth:`limit`: :data:`FLOOR` seconds, or :data:`FACTOR` times the longest of the
    ``hint`` (the seconds a generation took before the stint) and this process's own longest kernel call
    in it, whichever is longer. Only a generation's selection, compiled breeding, cut and moving on, or
    one kernel call, run between two beats, so a partner that long silent is stopped (``SIGSTOP``) or
    stuck (a deadlock), not slow. A partner waiting
    at the meeting point beats no more, but another is then still at its calls: the count is of any
    partner's beats. Only silence this process watched counts (checks no further apart than
    :data:`WATCHED` seconds): not its own calls and books, nor a time it was stopped itself (Ctrl-Z, then
    ``fg``, stops the partners with it)."""

    FLOOR = 60.0
    FACTOR = 20.0
    WATCHED = 1.0

    def __init__(self, parties: int, hint: float = 0.0):
        fork = multiprocessing.get_context("fork")
        self.beats = np.frombuffer(fork.RawArray("q", parties), dtype=np.int64)  # (each its own slot)
        self.hint, self.longest = hint, 0.0
        self._seen: bytes | None = None  # the beats when last checked, and since when they are so
        self._since = self._last = 0.0  # (and when last checked)

    def beat(self, me: int, seconds: float = 0.0) -> None:
        """Party ``me`` went on (``seconds``: the kernel call it just ended took, as this process counts
        its own)."""
        if me:
            self.beats[me] += 1
        else:
            self.longest = max(self.longest, seconds)

    @classmethod
    def allowed(cls, scale: float) -> float:
        """How long partners may be silent where a generation, or a kernel call, takes ``scale`` seconds:
        :data:`FLOOR`, or :data:`FACTOR` times ``scale`` if that is longer."""
        return max(cls.FLOOR, cls.FACTOR * scale)

    def limit(self) -> float:
        """How long the partners may make no progress."""
        return self.allowed(max(self.hint, self.longest))

    def check(self) -> None:
        """Raise :class:`Stalled` when no partner has beaten for longer than :meth:`limit`.

        Raises:
            Stalled: they made no progress for that long."""
        now, beats = time.monotonic(), self.beats.tobytes()
        if beats != self._seen or now - self._last > self.WATCHED:  # (this process busy, or stopped)
            self._seen, self._since = beats, now
        self._last = now
        if now - self._since > (limit := self.limit()):
            raise Stalled(f"the worker processes made no progress for {limit:.3g} s (stopped or stuck)")


class Shared(NamedTuple):
    """What the workers of one stint share: how many they are, the next kernel call's number (one
    counter for the whole stint), the generation's meeting point, and two generations' scores (by the
    generation's parity: one worker may start the next before the other has read this one's)."""

    workers: int
    counter: Any  # multiprocessing.Value("q")
    barrier: Any  # MeetingPoint(workers)
    fitness: tuple[np.ndarray, np.ndarray]
    exploded: tuple[np.ndarray, np.ndarray]
    room: Room | None = None  # where worker 1 leaves each generation for worker 0
    watch: Watch | None = None  # how worker 0 sees that its partners go on

    @classmethod
    def forked(
        cls, workers: int, size: int, most: tuple[int, int] | None = None, hint: float = 0.0
    ) -> Shared:
        """What ``workers`` processes (a population of ``size``) forked after it is made share: the
        counter, the meeting point, the scores and the partners' :class:`Watch` (``hint``: the seconds a
        generation took before) in shared memory (``multiprocessing``'s fork context); with ``most`` (the
        most masses and links a child may have), the :class:`Room` worker 1 leaves each generation in,
        which worker 0 then does not make."""
        fork = multiprocessing.get_context("fork")
        scores = tuple(np.frombuffer(fork.RawArray("d", size)) for _ in range(2))
        exploded = tuple(np.frombuffer(fork.RawArray("b", size), dtype=np.bool_) for _ in range(2))
        room = None if most is None or workers < 2 else Room(size, *most)
        meeting = MeetingPoint(workers)
        counter = fork.Value("q", 0)
        return cls(workers, counter, meeting, scores, exploded, room, Watch(workers, hint))  # type: ignore[arg-type]

    @classmethod
    def alone(cls, size: int) -> Shared:
        """What one :class:`ShardState` run in this process shares with nobody (a population of
        ``size``; no meeting point): one worker's generations (evo/run/shards/engine.py), tests and
        experiments."""
        exploded = (np.zeros(size, np.bool_), np.zeros(size, np.bool_))
        return cls(1, multiprocessing.Value("q", 0), None, (np.zeros(size), np.zeros(size)), exploded)


def claims(counter: Any, base: int, count: int, watch: Watch | None = None) -> Iterator[int]:
    """The positions of a generation's ``count`` kernel calls this process takes, one at a time, from the
    shared ``counter`` (a ``multiprocessing.Value``, whose value was ``base`` at the generation's start)
    until none is left; the last number it takes is past them, so that every process that took part
    leaves the counter one past the calls (the next generation's ``base``: the calls plus the processes).
    ``watch``: checked while the counter's lock is held by another (:meth:`Watch.check`)."""
    lock = counter.get_lock()
    while True:
        while not lock.acquire(timeout=_PATIENCE):
            if watch is not None:
                watch.check()
        try:
            number = counter.value
            counter.value = number + 1
        finally:
            lock.release()
        if number - base >= count:
            return
        yield number - base


class MeetingPoint:
    """Where ``parties`` processes forked after it is made wait for each other, as
    ``multiprocessing.Barrier`` (``wait``, ``abort``, ``broken``, ``n_waiting``) without its handshake,
    in which the last to arrive waits for each sleeper to wake: here it opens the gate of the phase
    (one of two in turn: no one can be a phase ahead of a sleeper) and goes on. A party may also
    :meth:`arrive`, do other work, and :meth:`leave` (the others go on once all have arrived)."""

    def __init__(self, parties: int):
        fork = multiprocessing.get_context("fork")
        self.parties = parties
        self._lock = fork.Lock()
        self._gates = (fork.Semaphore(0), fork.Semaphore(0))
        self._state = np.frombuffer(fork.RawArray("q", 3), dtype=np.int64)  # arrived, phase, broken

    @property
    def n_waiting(self) -> int:
        """How many wait here now (a glance: it may change at once)."""
        return int(self._state[0])

    @property
    def broken(self) -> bool:
        return bool(self._state[2])

    def wait(self) -> None:
        """Wait until all parties are here.

        Raises:
            threading.BrokenBarrierError: it was aborted, before or meanwhile."""
        self.leave(self.arrive())

    def arrive(self) -> int:
        """Say this party is here, without waiting for the others: the phase it arrived in, for
        :meth:`passed` and :meth:`leave` (the last to arrive opens the phase's gate).

        Raises:
            threading.BrokenBarrierError: it was aborted."""
        state = self._state
        with self._lock:
            if state[2]:
                raise threading.BrokenBarrierError
            phase = int(state[1])
            state[0] += 1
            last = state[0] == self.parties
            if last:
                state[0], state[1] = 0, phase + 1
        if last:
            gate = self._gates[phase % 2]
            for _ in range(self.parties - 1):
                gate.release()
            return -1 - phase  # (the last: its gate is its own to pass)
        return phase

    def passed(self, phase: int) -> bool:
        """Whether all parties are here in the phase :meth:`arrive` returned (a glance)."""
        return phase < 0 or int(self._state[1]) != phase

    def leave(self, phase: int, watch: Watch | None = None) -> None:
        """Wait until all parties are here in the phase :meth:`arrive` returned (``watch``: checked
        meanwhile, :meth:`Watch.check`).

        Raises:
            threading.BrokenBarrierError: it was aborted, before or meanwhile.
            Stalled: the ``watch`` saw no partner go on for too long."""
        if phase < 0:
            return
        gate = self._gates[phase % 2]
        while not gate.acquire(timeout=_PATIENCE):
            if watch is not None:
                watch.check()
        if self._state[1] == phase:  # (opened by abort, not by the last to arrive)
            raise threading.BrokenBarrierError

    def abort(self) -> None:
        """Break it: those waiting, and all who come later, raise ``BrokenBarrierError``."""
        self._state[2] = 1
        for gate in self._gates:
            for _ in range(self.parties):
                gate.release()


class Room:
    """Where worker 1 leaves each generation for worker 0, which keeps its books meanwhile and selects,
    breeds, cuts and moves on nothing (docs/performance.md, "Round thirty-one", "Round thirty-three"): the
    selection, the new children's arrays, their waves, their links' cosines and sines of phase, the cut
    into kernel calls and the generator's state after the generation's draws, in shared memory for a
    population of ``size`` and children of at most ``masses`` masses and ``links`` links each, and a
    semaphore released once per generation put. One generation at a time: worker 1 puts the next only
    after the meeting point, which worker 0 reaches after taking this one's."""

    # each array: its type, its shape (s: the population, m: its masses, n: its links) and what its
    # counted axis (the first; the second for links and genes) counts (c children, m masses, n links,
    # e elites, b broods, k kernel calls): the children's six (ShardState.bred), the selection's five
    # (planned, but its elites first), the children's waves (theta0, sign, autoreverse), their links'
    # cosines and sines of phase (Laid's), and the cut (Cut's three)
    _ARRAYS = (
        (np.int64, "s2", "c"), (np.float64, "m2", "m"), (np.int64, "2n", "n"), (np.float64, "3n", "n"),
        (np.float64, "s2", "c"), (np.bool_, "s", "c"),
        (np.int64, "s", "e"), (np.int64, "s2", "b"), (np.bool_, "s4", "b"), (np.int64, "s", "b"),
        (np.bool_, "s2", "b"),
        (np.float64, "s", "c"), (np.float64, "s", "c"), (np.uint8, "s", "c"),
        (np.float64, "2n", "n"),
        (np.int64, "s", "c"), (np.int64, "s", "k"), (np.bool_, "s", "k"),
    )  # fmt: skip
    _COUNTS = "cmnebk"
    _AXIS = tuple(int(shape[0].isdigit()) for _, shape, _ in _ARRAYS)  # each array's counted axis
    _COUNT = tuple("cmnebk".index(what) for _, _, what in _ARRAYS)  # and which of _COUNTS it is

    def __init__(self, size: int, masses: int, links: int):
        fork = multiprocessing.get_context("fork")
        extents = {"s": size, "m": size * masses, "n": size * links}

        def room(dtype: Any, *shape: int) -> np.ndarray:
            nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
            return np.frombuffer(fork.RawArray("b", nbytes), dtype=dtype).reshape(shape)

        self.head = room(np.int64, len(self._COUNTS) + 1)  # the counts; 1 put, 0 too large, -1 not made
        self.generator = room(np.uint64, 6)  # PCG64's state and increment (two words each), the rest
        self.arrays = tuple(
            room(dtype, *(extents.get(axis) or int(axis) for axis in shape))
            for dtype, shape, _ in self._ARRAYS
        )
        self.ready = fork.Semaphore(0)

    def _first(self, k: int, count: int) -> tuple:
        """The index of the first ``count`` along array ``k``'s counted axis."""
        return (slice(None),) * self._AXIS[k] + (slice(0, count),)

    def put(
        self,
        planned: tuple | None,
        children: tuple = (),
        waves: tuple = (),
        rng: dict | None = None,
        trig: np.ndarray | None = None,
        cut: Cut | None = None,
    ) -> None:
        """Leave a generation -- :meth:`ShardState.planned`'s selection, :meth:`ShardState.bred`'s
        children, their waves (theta0, sign, autoreverse), the generator's state after its draws, the
        (2, links) cosines and sines of their links' phases and their cut into kernel calls -- or None
        (not made: worker 1 then says why, as a worker that stops does), and say so."""
        if planned is None:
            self.head[-1] = -1
            self.ready.release()
            return
        elites, rows, flags, seeds, new = planned
        given = (*children, elites, rows, flags, seeds, new, *waves, trig, *cut)  # type: ignore[misc]
        counts = [0] * len(self._COUNTS)
        for k, array in enumerate(given):
            counts[self._COUNT[k]] = array.shape[self._AXIS[k]]
        fits = all(counts[self._COUNT[k]] <= room.shape[self._AXIS[k]] for k, room in enumerate(self.arrays))
        if fits:
            for k, (room, array) in enumerate(zip(self.arrays, given, strict=True)):
                room[self._first(k, counts[self._COUNT[k]])] = array
            state = rng["state"]  # type: ignore[index]
            words = [state["state"] & _WORD, state["state"] >> 64, state["inc"] & _WORD, state["inc"] >> 64]
            self.generator[:] = [*words, rng["has_uint32"], rng["uinteger"]]  # type: ignore[index]
        self.head[:] = [*counts, int(fits)]
        self.ready.release()

    def take(
        self, meanwhile: Callable[[], bool] | None, barrier: Any, watch: Watch | None = None
    ) -> tuple[tuple, tuple, tuple, dict, np.ndarray, Cut]:
        """The generation once put (copies: its selection, children, waves, generator state, links'
        cosines and sines and cut, as :meth:`put` takes them), ``meanwhile`` called while it is not
        (``watch`` checked once nothing is left to do meanwhile: :meth:`Watch.check`).

        Raises:
            Unsupported: too large for this room.
            threading.BrokenBarrierError: not made (worker 1 says why), or the meeting point broke
                meanwhile (a worker stopped).
            Stalled: the ``watch`` saw no partner go on for too long."""
        while not self.ready.acquire(block=False):
            if meanwhile is not None and meanwhile():
                continue
            meanwhile = None
            if self.ready.acquire(timeout=_PATIENCE):
                break
            if barrier.broken:
                raise threading.BrokenBarrierError
            if watch is not None:
                watch.check()
        *counts, put = self.head.tolist()
        if put < 0:
            raise threading.BrokenBarrierError
        if not put:
            raise Unsupported("children larger than the room shared with worker 0")
        got = [room[self._first(k, counts[self._COUNT[k]])].copy() for k, room in enumerate(self.arrays)]
        words = [int(word) for word in self.generator]
        rng = {
            "bit_generator": "PCG64",
            "state": {"state": words[0] | words[1] << 64, "inc": words[2] | words[3] << 64},
            "has_uint32": words[4],
            "uinteger": words[5],
        }
        return tuple(got[6:11]), tuple(got[:6]), tuple(got[11:14]), rng, got[14], Cut(*got[15:])


_WORD = (1 << 64) - 1


class Cut(NamedTuple):
    """A generation's kernel calls as arrays (:meth:`ShardState._cut`'s, in its order): its children in
    call order, each call's count of them, and whether it runs the Euler fast path's kernel (the run
    functions looked up in :mod:`evo.sim.batch` when used, as its cut does)."""

    members: np.ndarray
    sizes: np.ndarray
    euler: np.ndarray

    @classmethod
    def of(cls, calls: list) -> Cut:
        """The calls (``(run, members)`` pairs) as arrays."""
        members = [k for _, call in calls for k in call]
        return cls(
            np.array(members, dtype=np.int64),
            np.array([len(call) for _, call in calls], dtype=np.int64),
            np.array([run is batch._run_euler for run, _ in calls], dtype=np.bool_),
        )

    def calls(self) -> list:
        """The calls as :meth:`of` took them."""
        members, ends = self.members.tolist(), np.cumsum(self.sizes).tolist()
        starts = [0, *ends[:-1]]
        runs = [batch._run_euler if euler else batch._run_explicit for euler in self.euler.tolist()]
        return [(run, members[a:b]) for run, a, b in zip(runs, starts, ends, strict=True)]
