"""Creatures laid end to end (:class:`evo.sim.laid.Laid`): the calls cut and the lanes packed from its
arrays must be exactly those cut and packed from the creatures, and ``lane_runs`` with a Laid must give
every lane's numbers bit for bit as without one, on one thread or two, whatever the rows' order."""

from __future__ import annotations

import numpy as np
import pytest
from test_batch_mixed import WALKER_WORLD, random_creature

from evo.sim import World
from evo.sim import batch as batch_module
from evo.sim.batch import MIN_LANES, LaneThreads, kernel_groups, lane_calls, lane_runs
from evo.sim.laid import Laid


def at_rest(seed: int, count: int, sizes=(2, 14)) -> list:
    """``count`` creatures at rest, none fixed, the applet's physics (as the compiled brood makes them):
    random sizes, and a third of them in runs of one topology (calls of their own)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(sizes[0], sizes[1] + 1))
        creature = random_creature(rng, n, int(rng.integers(0, 2 * n)), f"c{len(out)}")
        creature = creature.replace(velocities=np.zeros((n, 2)))
        out.append(creature)
        if rng.random() < 0.05:  # a run of its topology, its genes changed
            for k in range(int(rng.integers(MIN_LANES, 2 * MIN_LANES))):
                out.append(creature.replace(rest=creature.rest * (1.0 + 0.01 * k), phi=creature.phi + k))
    return out[:count]


def assert_same_packing(creatures: list, laid: Laid, rows: np.ndarray, members: list[int]) -> None:
    world = World().updated(WALKER_WORLD)
    made = batch_module._pack([creatures[k] for k in members], world, general=False)
    packed = laid.pack(rows[members])
    assert made.keys() == packed.keys()
    for name, array in made.items():
        assert packed[name].dtype == array.dtype and np.array_equal(packed[name], array), name


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_laid_out_generation_is_cut_and_packed_as_its_creatures_are(seed):
    creatures = at_rest(seed, 190)
    world = World().updated(WALKER_WORLD)
    order = np.random.default_rng(seed).permutation(len(creatures))  # the rows in any order
    laid = Laid.of([creatures[k] for k in order])
    rows = np.argsort(order)  # creature k's row
    assert laid.groups(rows, world) == kernel_groups(creatures, world)
    ends = [(c.link_a.tobytes(), c.link_b.tobytes()) for c in creatures]
    assert any(len({ends[k] for k in call}) == 1 for call in lane_calls(creatures))  # calls of their own
    for threads in (1, 2, 3):
        assert laid.calls(rows, threads) == lane_calls(creatures, threads)
    for members in lane_calls(creatures, 2):
        assert_same_packing(creatures, laid, rows, members)


def test_creatures_that_share_link_ends_but_not_their_masses_count_are_told_apart():
    """A mass no link names changes the creature's kind (its own call) though every link end is the same."""
    rng = np.random.default_rng(5)
    base = random_creature(rng, 5, 3, "base").replace(velocities=np.zeros((5, 2)))
    bigger = base.replace(
        positions=np.vstack([base.positions, [[1.0, 1.0]]]),
        velocities=np.zeros((6, 2)),
        fixed=np.zeros(6, dtype=bool),
    )
    creatures = [base] * MIN_LANES + [bigger] * MIN_LANES
    laid = Laid.of(creatures)
    rows = np.arange(len(creatures))
    assert laid.calls(rows) == lane_calls(creatures) == [list(range(8)), list(range(8, 16))]


@pytest.mark.parametrize("threads", [None, 2])
def test_lane_runs_with_a_laid_out_generation_give_every_lane_bit_for_bit(threads):
    creatures = at_rest(4, 120)
    world = World().updated(WALKER_WORLD)
    order = np.random.default_rng(4).permutation(len(creatures))
    laid = (Laid.of([creatures[k] for k in order]), np.argsort(order))

    def lanes(**given) -> list:
        pool = LaneThreads(threads) if threads else None
        try:
            singles, calls = lane_runs(creatures, world, 90, 3, threads=pool, **given)
            read = [(call.members, call.trajectories()) for call in calls]  # as they are done
            return [singles, *sorted(read, key=lambda call: call[0])]
        finally:
            if pool is not None:
                pool.shutdown()

    plain, laid_out = lanes(), lanes(laid=laid)
    assert plain[0] == laid_out[0] and len(plain) == len(laid_out) > 2
    for (members, trajectories), (same, others) in zip(plain[1:], laid_out[1:], strict=True):
        assert members == same
        for a, b in zip(trajectories, others, strict=True):
            assert np.array_equal(a.positions, b.positions) and np.array_equal(a.velocities, b.velocities)
            assert a.exploded == b.exploded


def test_lane_runs_pack_from_the_laid_arrays_not_from_the_creatures(monkeypatch):
    """With a Laid, the Euler kernel's lanes come from its arrays: creatures whose own arrays were
    replaced after it was laid out are simulated as they were laid out."""
    creatures = at_rest(6, 40)
    world = World().updated(WALKER_WORLD)
    laid = (Laid.of(creatures), np.arange(len(creatures)))
    moved = [c.replace(positions=c.positions + 5.0) for c in creatures]

    def last_positions(batch: list, **given) -> np.ndarray:
        _, calls = lane_runs(batch, world, 30, 30, **given)
        return np.concatenate([t.positions[0].ravel() for call in calls for t in call.trajectories()])

    assert np.array_equal(last_positions(moved, laid=laid), last_positions(creatures))
    assert not np.array_equal(last_positions(moved), last_positions(creatures))


def test_only_creatures_at_rest_free_and_of_the_applet_s_physics_are_laid_out():
    creature = at_rest(7, 1)[0]
    n, m = creature.n_masses, creature.n_links
    assert Laid.of([creature]).masses.tolist() == [n]
    for odd in (
        creature.replace(velocities=np.ones((n, 2))),
        creature.replace(fixed=np.eye(1, n, dtype=bool)[0]),
        creature.replace(stiffness=np.full(m, 2.0)),
    ):
        with pytest.raises(ValueError, match="creature 1 .* cannot be laid out"):
            Laid.of([creature, odd])


def test_no_creatures_lay_out_as_empty_arrays():
    laid = Laid.of([])
    assert laid.masses.shape == (0,) and laid.positions.shape == (0, 2) and laid.link_a.shape == (0,)
    assert laid.mass_at.tolist() == [0] and laid.calls(np.zeros(0, np.int64)) == []


def test_laid_runs_give_lane_runs_lanes_without_the_creatures_their_calls_started_before_they_are_read(
    monkeypatch,
):
    """``laid_runs`` cuts and runs the calls of the rows alone (the creatures are never read), the same
    calls, lanes and numbers as ``lane_runs`` of the creatures; with threads, a thread has started on
    them before the iterator is read."""
    import threading

    from evo.sim.laid import laid_runs

    creatures = at_rest(8, 120)
    world = World().updated(WALKER_WORLD)
    order = np.random.default_rng(8).permutation(len(creatures))
    laid, rows = Laid.of([creatures[k] for k in order]), np.argsort(order)
    ran = threading.Event()
    real = batch_module._run_euler

    def noted(batch, *args):
        assert batch is None  # packed from the Laid alone
        ran.set()
        return real(batch, *args)

    monkeypatch.setattr(batch_module, "_run_euler", noted)  # the cut names the module's kernel function
    pool = LaneThreads(2)
    try:
        singles, calls = laid_runs(laid, rows, world, 90, 3, threads=pool)
        assert ran.wait(60)  # a thread runs a call before the iterator is read
        got = sorted(((call.members, call.trajectories()) for call in calls), key=lambda c: c[0])
        monkeypatch.undo()
        plain_singles, plain = lane_runs(creatures, world, 90, 3, threads=pool)
        plain = sorted(((call.members, call.trajectories()) for call in plain), key=lambda c: c[0])
    finally:
        pool.shutdown()
    assert singles == plain_singles and [m for m, _ in got] == [m for m, _ in plain] and len(got) > 2
    for (_, trajectories), (_, others) in zip(got, plain, strict=True):
        for a, b in zip(trajectories, others, strict=True):
            assert np.array_equal(a.positions, b.positions) and np.array_equal(a.velocities, b.velocities)


def test_closing_laid_runs_calls_drops_those_no_thread_has_taken(monkeypatch):
    import threading

    from evo.sim.laid import laid_runs

    creatures = at_rest(9, 120)
    world = World().updated(WALKER_WORLD)
    laid, rows = Laid.of(creatures), np.arange(len(creatures))
    go, started, ran = threading.Event(), threading.Event(), []
    real = batch_module._run_euler

    def held(batch, *args):  # the pool thread's first call waits until the iterator is closed
        started.set()
        assert go.wait(60)
        ran.append(1)
        return real(batch, *args)

    monkeypatch.setattr(batch_module, "_run_euler", held)
    pool = LaneThreads(2)
    try:
        _, calls = laid_runs(laid, rows, world, 30, 3, threads=pool)
        assert started.wait(60)
        calls.close()
        go.set()
    finally:
        pool.shutdown()  # waits for the thread's task
    assert len(lane_calls(creatures, 2)) > 2 and ran == [1]


def test_laid_runs_leave_other_kernels_than_the_euler_fast_path_to_the_creatures():
    from evo.sim.laid import laid_runs

    creatures = at_rest(10, 20)
    laid, rows = Laid.of(creatures), np.arange(len(creatures))
    for other in ({"integrator": "rk4"}, {"contact": "penalty"}):
        world = World().updated({**WALKER_WORLD, **other})
        assert laid_runs(laid, rows, world, 30, 3) is None
    world = World().updated(WALKER_WORLD)
    assert laid_runs(laid, rows, world, 30, 3) is not None


@pytest.mark.parametrize("max_speed", [None, 40.0])
def test_a_laid_out_creature_s_speed_limit_is_its_own(max_speed):
    creatures = at_rest(11, 30)
    world = World().updated({**WALKER_WORLD, "max_speed": max_speed})
    order = np.random.default_rng(11).permutation(len(creatures))
    laid, rows = Laid.of([creatures[k] for k in order]), np.argsort(order)
    limits = laid.max_speed2(rows, world)
    assert limits.dtype == np.float64
    assert np.array_equal(limits, batch_module._max_speed2(world, creatures))
