"""A shards worker's population as arrays (:class:`evo.run.shards.state.ShardState`), run here in one
process: each generation it selects, breeds and scores is the one the shipped ask, breeding, evaluation
and tell make (told with :meth:`evo.ga.loop.Evolution.tell_bred`), generation after generation, and its
breeding reuses the compiled brood's one specialisation; the meeting point and the room two workers
share."""

from __future__ import annotations

import dataclasses
import multiprocessing
import threading
import time

import numpy as np
import pytest

from evo.ga.loop import Evolution
from evo.io.checkpoint.document import evolution_to_dict
from evo.run.config import parse_config, resolve
from evo.run.evolve import evolve
from evo.run.job import BreedContext, breed_and_evaluate
from evo.run.shards.engine import _room_sizes
from evo.run.shards.shared import Cut, MeetingPoint, Room, Stalled, Watch, claims
from evo.run.shards.state import ShardState, Shared, Unsupported, _laid


@pytest.fixture(scope="module")
def started():
    """A run after generation 0 (its config and evolution), and its breeding context."""
    doc = {
        "run": {"name": "state", "seed": 11, "generations": 1, "population": 25},
        "evaluation": {"frames": 300, "plugin": "distance", "params": {"settle_frames": 0}},
        "pool": {"workers": 1},
        "ga": {"elite": 3},
    }
    config = resolve(parse_config(doc, source="<state>"))
    result = evolve(config, progress=False)
    context = BreedContext(config.evaluation_spec(), config.genome, config.ga, batch=True)
    return config, result.evolution, context


def shipped_generation(evolution: Evolution, context: BreedContext) -> None:
    plan = evolution.ask()
    evolution.tell([child for brood in plan.broods for child in breed_and_evaluate(brood, context)])


def test_the_arrays_make_the_generations_the_shipped_loop_makes(started):
    _, evolution, context = started
    shipped = Evolution.from_state(evolution.state(), evolution.settings)
    told = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(told, context, Shared.alone(told.settings.population), cut=3)
    for g in (1, 2, 3):
        shipped_generation(shipped, context)
        bred = state.make(g)
        assert bred.generation == g and state.generation == g
        record = told.tell_bred(bred)
        assert record == shipped.logbook[-1]
        assert evolution_to_dict(told) == evolution_to_dict(shipped)  # individuals, hall of fame, generator
        assert np.array_equal(state.fit, [ind.fitness.wvalues[0] for ind in told.population])
    assert bred.elites.size == 3 and bred.new.any() and not bred.new.all()  # copies among the children


@pytest.mark.parametrize("elite", [3, 2])  # 22 parents in pairs; 23, the last one alone
def test_draws_made_ahead_make_the_same_generations_and_move_the_generator_as_the_shipped_ask(started, elite):
    _, evolution, context = started
    settings = dataclasses.replace(
        evolution.settings, ga=dataclasses.replace(evolution.settings.ga, elite=elite)
    )
    shipped = Evolution.from_state(evolution.state(), settings)
    told = Evolution.from_state(evolution.state(), settings)
    state = ShardState(told, context, Shared.alone(settings.population), cut=3)
    for g in (1, 2, 3):
        state.draw_ahead()
        after_draws = told.rng.bit_generator.state
        state.draw_ahead()  # (once a generation: a second call draws nothing)
        assert told.rng.bit_generator.state == after_draws
        shipped_generation(shipped, context)
        bred = state.make(g)
        assert bred.rng == after_draws  # (breeding draws from the broods' seeds alone)
        told.tell_bred(bred)
        assert evolution_to_dict(told) == evolution_to_dict(shipped)
    assert bred.flags[-1, 0] == (elite == 3)  # the last brood a pair, or a lone parent's


def test_a_generation_moved_on_after_the_next_one_s_draws_tells_the_generator_its_own_draws_left(started):
    _, evolution, context = started  # (worker 1's order: its calls, the draws ahead at the meeting point)
    shipped = Evolution.from_state(evolution.state(), evolution.settings)
    told = Evolution.from_state(evolution.state(), evolution.settings)
    own = Evolution.from_state(evolution.state(), evolution.settings)  # (a worker's copy of the run)
    state = ShardState(own, context, Shared.alone(evolution.settings.population), cut=3)
    for g in (1, 2, 3):
        planned = state.planned()
        children, laid = state.bred(*planned[1:])
        after_draws = own.rng.bit_generator.state
        state.scored(laid, g % 2)
        state.draw_ahead()
        assert own.rng.bit_generator.state != after_draws
        bred = state.moved_on(g, planned, children, laid)
        assert bred.rng == after_draws
        shipped_generation(shipped, context)
        told.tell_bred(bred)
        assert evolution_to_dict(told) == evolution_to_dict(shipped)


def test_worker_1_waiting_at_the_meeting_point_draws_ahead_and_worker_0_tells_the_shipped_generations(
    started, monkeypatch
):
    _, evolution, context = started  # (the two workers as two threads of this process, one meeting point)
    settings = evolution.settings
    shipped = Evolution.from_state(evolution.state(), settings)
    told = Evolution.from_state(evolution.state(), settings)
    shared = Shared.forked(2, settings.population, _room_sizes(evolution))  # (as a stint makes it)
    zero, one = (
        ShardState(Evolution.from_state(evolution.state(), settings), context, shared, cut=4) for _ in "01"
    )
    one.me = 1
    ahead: list[int] = []
    draw_ahead = ShardState.draw_ahead

    def spied(self: ShardState) -> None:
        ahead.append(self.me)
        draw_ahead(self)

    monkeypatch.setattr(ShardState, "draw_ahead", spied)
    made = (1, 2, 3)
    worker_1 = threading.Thread(target=lambda: [one.make(g) for g in made], daemon=True)
    worker_1.start()
    for g in made:  # worker 0 comes once worker 1 waits at the meeting point, its calls all taken
        deadline = time.monotonic() + 30
        while shared.barrier.n_waiting < 1 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert shared.barrier.n_waiting == 1
        bred = zero.make(g)
        shipped_generation(shipped, context)
        told.tell_bred(bred)  # (the generator as worker 1 left it in the room)
        assert evolution_to_dict(told) == evolution_to_dict(shipped)
    worker_1.join(30)
    assert ahead == [1, 1, 1]  # (each generation's wait: the next one's draws, the last one's unused)


def test_the_breeding_reuses_the_shipped_specialisation_of_the_compiled_brood(started):
    from evo.ga.kernels.brood import _pairs, _parent

    _, evolution, context = started
    shipped_generation(Evolution.from_state(evolution.state(), evolution.settings), context)
    known = len(_pairs.signatures), len(_parent.signatures)
    told = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(told, context, Shared.alone(told.settings.population), cut=2)
    for g in (1, 2):  # from the told members' arrays, then from the arrays moved on
        state.make(g)
    assert (len(_pairs.signatures), len(_parent.signatures)) == known


def test_tell_bred_refuses_what_does_not_follow_or_fit(started):
    _, evolution, context = started
    told = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(told, context, Shared.alone(told.settings.population), cut=2)
    bred = state.make(1)
    with pytest.raises(ValueError, match="generation 2 cannot follow generation 0"):
        told.tell_bred(bred._replace(generation=2))
    with pytest.raises(ValueError, match="do not fit a population of 25"):
        told.tell_bred(bred._replace(elites=bred.elites[:1]))
    with pytest.raises(ValueError, match="do not fit"):
        told.tell_bred(bred._replace(fitness=bred.fitness[:-1]))
    told.ask()
    with pytest.raises(RuntimeError, match="ask"):
        told.tell_bred(bred)
    told.take_back()
    told.tell_bred(bred)
    assert told.generation == 1


def test_tell_bred_in_pieces_tells_what_tell_bred_tells_one_piece_at_a_time(started):
    _, evolution, context = started
    whole = Evolution.from_state(evolution.state(), evolution.settings)
    pieces = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(
        Evolution.from_state(evolution.state(), evolution.settings), context, Shared.alone(25), 2
    )
    for g in (1, 2):
        bred = state.make(g)
        record = whole.tell_bred(bred)
        steps = pieces.tell_bred_in_pieces(bred, piece=4)
        count = 0
        with pytest.raises(StopIteration) as told:
            while True:
                next(steps)
                count += 1
        assert count >= 25 // 4  # (the children, the members offered to the hall of fame, in fours)
        assert told.value.value == record and pieces.logbook[-1] == record
        assert evolution_to_dict(pieces) == evolution_to_dict(whole)
    with pytest.raises(ValueError, match="cannot follow"):  # checked at the first piece, nothing changed
        next(pieces.tell_bred_in_pieces(bred))
    assert evolution_to_dict(pieces) == evolution_to_dict(whole)


def _meet(point: MeetingPoint, me: int, arrived, seen) -> None:
    """Arrive at ``point`` phase after phase, writing down how many arrivals there were once let on."""
    for phase in range(seen.shape[1]):
        with arrived.get_lock():
            arrived.value += 1
        point.wait()
        seen[me, phase] = arrived.value


def test_the_meeting_point_lets_no_one_on_before_everyone_is_there_phase_after_phase():
    fork = multiprocessing.get_context("fork")
    point, arrived, phases = MeetingPoint(3), fork.Value("q", 0), 50
    seen = np.frombuffer(fork.RawArray("q", 3 * phases), dtype=np.int64).reshape(3, phases)
    workers = [fork.Process(target=_meet, args=(point, me, arrived, seen)) for me in (1, 2)]
    for worker in workers:
        worker.start()
    _meet(point, 0, arrived, seen)
    for worker in workers:
        worker.join(10)
    everyone = 3 * (np.arange(phases) + 1)  # all three arrived at this phase, not all at the next
    assert ((seen >= everyone) & (seen < everyone + 3)).all()
    assert point.n_waiting == 0 and not point.broken and all(w.exitcode == 0 for w in workers)


def _arrive_then_leave(point: MeetingPoint, arrived, out) -> None:
    phase = point.arrive()
    with arrived.get_lock():
        arrived.value += 1
    point.leave(phase)
    out.put("left")


def test_a_party_that_arrived_lets_the_others_on_while_it_is_busy_and_leaves_once_all_are_there():
    fork = multiprocessing.get_context("fork")
    point, arrived, out = MeetingPoint(3), fork.Value("q", 0), fork.Queue()
    phase = point.arrive()  # this process is here, and then busy with other work
    assert phase >= 0 and not point.passed(phase) and point.n_waiting == 1
    first = fork.Process(target=_arrive_then_leave, args=(point, arrived, out))
    first.start()
    deadline = time.monotonic() + 10
    while arrived.value < 1 and time.monotonic() < deadline:
        time.sleep(0.001)
    assert point.n_waiting == 2 and not point.passed(phase) and out.empty()  # (the third is not here)
    last = fork.Process(target=_arrive_then_leave, args=(point, arrived, out))
    last.start()  # the last to arrive: the two others are let on, the busy one without waiting here
    assert [out.get(timeout=10), out.get(timeout=10)] == ["left", "left"]
    assert point.passed(phase) and point.n_waiting == 0
    point.leave(phase)  # the busy one comes back: at once
    again = point.arrive()  # and the next phase is a new one
    assert again >= 0 and again != phase and not point.passed(again)
    point.abort()
    with pytest.raises(threading.BrokenBarrierError):
        point.leave(again)
    for process in (first, last):
        process.join(10)
    assert first.exitcode == last.exitcode == 0


def _wait_broken(point: MeetingPoint, out) -> None:
    try:
        point.wait()
    except threading.BrokenBarrierError:
        out.put("broken")


def test_an_aborted_meeting_point_breaks_those_waiting_and_all_who_come_later():
    fork = multiprocessing.get_context("fork")
    point, seen = MeetingPoint(3), fork.Queue()
    waiting = fork.Process(target=_wait_broken, args=(point, seen))
    waiting.start()
    deadline = time.monotonic() + 10
    while point.n_waiting < 1 and time.monotonic() < deadline:
        time.sleep(0.001)
    assert point.n_waiting == 1
    point.abort()
    assert seen.get(timeout=10) == "broken" and point.broken
    with pytest.raises(threading.BrokenBarrierError):
        point.wait()
    waiting.join(10)


def test_the_room_hands_worker_0_a_copy_of_what_worker_1_made_or_that_it_did_not(started):
    _, evolution, context = started
    state = ShardState(
        Evolution.from_state(evolution.state(), evolution.settings), context, Shared.alone(25), 2
    )
    planned = state.planned()
    children, laid = state.bred(*planned[1:])
    waves = laid.theta0, laid.sign, laid.autoreverse
    rng = state.evolution.rng.bit_generator.state
    trig, calls = np.stack([laid.cos_phi, laid.sin_phi]), state._cut(laid)[0]
    cut = Cut.of(calls)
    assert len(calls) > 1 and cut.calls() == calls  # (the same calls: run functions and members)
    room, point = Room(25, 12, 40), MeetingPoint(2)
    room.put(planned, children, waves, rng, trig, cut)
    pieces = []
    got = room.take(lambda: bool(pieces.append(1)), point)
    assert not pieces  # (there already: nothing done meanwhile)
    for given, taken in zip(
        (planned, children, waves, (trig,), cut), (*got[:3], got[4:5], got[5]), strict=True
    ):
        assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(given, taken, strict=True))
    assert got[3] == rng and rng["state"]["state"] >= 1 << 64  # (both 64-bit words of the state)
    copies = (*got[0], *got[1], *got[2], got[4], *got[5])
    assert not any(np.shares_memory(a, r) for a in copies for r in room.arrays)
    # worker 0 lays the children with the cosines and sines worker 1 laid them with: the same Laid
    again = _laid(got[1], *got[2], got[4])
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(again, laid, strict=True))
    room.put(None)  # not made: worker 1 says why, as a worker that stops does
    with pytest.raises(threading.BrokenBarrierError):
        room.take(None, point)
    small = Room(25, 2, 3)
    small.put(planned, children, waves, rng, trig, cut)
    with pytest.raises(Unsupported, match="children larger than the room"):
        small.take(None, point)
    left = [3]  # nothing put: the work meanwhile, then the meeting point broken by a partner that stopped

    def meanwhile() -> bool:
        left[0] -= 1
        if left[0] == 0:
            point.abort()
        return left[0] > 0

    with pytest.raises(threading.BrokenBarrierError):
        room.take(meanwhile, point)
    assert left == [0]


def test_the_watch_says_stalled_only_once_no_partner_has_beaten_for_its_limit(monkeypatch):
    from evo.run.shards import shared

    clock = [100.0]
    monkeypatch.setattr(shared.time, "monotonic", lambda: clock[0])

    def watched(seconds: float) -> None:  # worker 0 waiting: a look every 50 ms
        for _ in range(round(seconds / 0.05)):
            clock[0] += 0.05
            watch.check()

    watch = Watch(3, hint=2.0)
    assert watch.limit() == 60.0  # the floor: 20 x the 2 s a generation took is less
    watch.beat(0, 4.0)  # worker 0's own kernel call of 4 s: 20 x 4 s
    assert watch.limit() == 80.0 and not watch.beats.any()  # (worker 0 beats no shared count)
    watched(79.0)
    watch.beat(2)  # any partner going on counts (one waiting at the meeting point beats no more)
    watched(79.0)  # (silent only since the look that saw the beat)
    clock[0] += 600.0  # this process busy with its own calls and books, or stopped with the partners
    watched(79.0)  # (what it did not watch does not count)
    with pytest.raises(Stalled, match="made no progress for 80 s"):
        watched(2.0)
    assert issubclass(Stalled, Unsupported)  # (the generation is made the other way, as for a reason)


def test_worker_0_s_waits_check_the_watch_where_a_partner_never_comes():
    watch, point, room = Watch(2), MeetingPoint(2), Room(25, 12, 40)
    watch.FLOOR = watch.FACTOR = 0.0  # (its limit 0 s: the first look that sees no beat since says so)
    phase = point.arrive()
    with pytest.raises(Stalled):
        point.leave(phase, watch)
    with pytest.raises(Stalled):
        room.take(None, point, watch)
    counter = multiprocessing.get_context("fork").Value("q", 0)
    held, done = threading.Event(), threading.Event()

    def holding() -> None:  # another holds the counter's lock (a partner stopped in the middle of a claim)
        with counter.get_lock():
            held.set()
            done.wait(10)

    holder = threading.Thread(target=holding)
    holder.start()
    try:
        held.wait(10)
        with pytest.raises(Stalled):
            next(claims(counter, 0, 4, watch))
    finally:
        done.set()
        holder.join()
    assert list(claims(counter, 0, 2, watch)) == [0, 1]  # (free again: taken as before)
