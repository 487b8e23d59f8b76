"""``simulate_batch``: same-topology creatures simulated together, one per SIMD lane, must give exactly
(``np.array_equal``, not allclose) what ``simulate`` gives each of them alone.

The creatures are mutants of genomes/walker.json (6 masses, 11 links) made with a seeded Generator;
13 of them, an odd number above ``MIN_LANES``, so the kernels run both their vector and remainder lanes.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pytest

from evo.io.models import load_model
from evo.model import Creature
from evo.sim import World, simulate
from evo.sim import batch as batch_module
from evo.sim.batch import MIN_LANES, simulate_batch, topology_key

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
WALKER = load_model(GENOMES / "walker.json")
LANES = 13
FRAMES = 300


def mutants(base: Creature, count: int, seed: int) -> list[Creature]:
    """Children of ``base`` with its topology: rest, alpha, phi, omega, beta and positions perturbed."""
    rng = np.random.default_rng(seed)
    return [
        base.replace(
            rest=base.rest * rng.uniform(0.9, 1.1, base.n_links),
            alpha=np.clip(base.alpha + rng.uniform(-0.1, 0.1, base.n_links), 0.0, 1.0),
            phi=base.phi + rng.normal(0.0, 0.3, base.n_links),
            omega=base.omega * rng.uniform(0.8, 1.2),
            beta=min(1.0, base.beta * rng.uniform(0.8, 1.2)),
            positions=base.positions + rng.normal(0.0, 0.5, base.positions.shape),
        )
        for _ in range(count)
    ]


def walker_world(**params) -> World:
    return World().updated({**WALKER.world, **params})


def bits(array: np.ndarray) -> np.ndarray:
    """The float64s as int64 bit patterns: equal only if bit for bit equal (NaN, -0.0 and all)."""
    return np.ascontiguousarray(array, dtype=np.float64).view(np.int64)


def assert_identical(batched, scalar) -> None:
    assert len(batched) == len(scalar)
    for lane, (got, want) in enumerate(zip(batched, scalar, strict=True)):
        assert np.array_equal(got.frames, want.frames), lane
        assert np.array_equal(bits(got.positions), bits(want.positions)), lane
        assert np.array_equal(bits(got.velocities), bits(want.velocities)), lane
        assert (got.exploded, got.exploded_frame) == (want.exploded, want.exploded_frame), lane


def run_both(creatures, world, frames=FRAMES, record_every=1):
    batched = simulate_batch(creatures, world, frames, record_every)
    scalar = [simulate(creature, world, frames, record_every) for creature in creatures]
    assert_identical(batched, scalar)
    return scalar


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_each_lane_of_a_batch_of_walker_mutants_is_bit_identical_to_its_own_simulate_run(integrator):
    creatures = mutants(WALKER, LANES, seed=1)
    scalar = run_both(creatures, walker_world(integrator=integrator), record_every=3)
    assert not any(t.exploded for t in scalar)
    assert len({t.positions[-1, 0, 0] for t in scalar}) == LANES  # the mutants really differ


@pytest.mark.parametrize(("integrator", "gravity"), [("euler", "down"), ("rk4", "down"), ("euler", "up")])
def test_walls_a_ceiling_terrain_and_autoreverse_stay_bit_identical_in_a_batch(integrator, gravity):
    creatures = mutants(WALKER, LANES, seed=2)
    for lane in (1, 4, 6, 11):
        creatures[lane] = creatures[lane].replace(autoreverse=True)
    creatures[4] = creatures[4].replace(wave_reverse=True, wave_phase=0.7)
    terrain = (((20.0, 0.0), (60.0, 12.0), (130.0, 0.0)),)
    world = walker_world(
        integrator=integrator, gravity_direction=gravity, width=150.0, height=60.0, terrain=terrain
    )
    scalar = run_both(creatures, world, frames=400)
    assert max(t.positions[..., 1].max() for t in scalar) == 60.0  # the ceiling was touched
    if gravity == "down":  # and, walking on the floor, both side walls, one by an autoreverse lane
        x = np.concatenate([t.positions[1:, :, 0].ravel() for t in scalar])
        assert x.min() == 0.0 and x.max() == 150.0
        assert any(0.0 in scalar[lane].positions[1:, :, 0] for lane in (1, 4, 6, 11))


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_exploding_lanes_stop_where_simulate_stops_and_leave_the_other_lanes_untouched(integrator):
    creatures = mutants(WALKER, LANES, seed=3)
    creatures[2] = creatures[2].replace(positions=creatures[2].positions * 2.5)  # torn apart at once
    creatures[7] = creatures[7].replace(positions=creatures[7].positions + [0.0, 1500.0])  # falls, later
    nan_positions = creatures[9].positions.copy()
    nan_positions[3, 0] = np.nan
    creatures[9] = creatures[9].replace(positions=nan_positions)  # NaN must not leak into other lanes
    scalar = run_both(creatures, walker_world(integrator=integrator, max_speed=22.0))
    exploded = {lane: t.exploded_frame for lane, t in enumerate(scalar) if t.exploded}
    assert sorted(exploded) == [2, 7, 9]
    assert exploded[7] > 30.0  # one lane explodes while the others run on
    assert all(len(scalar[lane].frames) == FRAMES + 1 for lane in range(LANES) if lane not in exploded)


@pytest.mark.parametrize(
    "params",
    [
        {"integrator": "explicit-euler"},
        {"integrator": "finite-difference", "width": 250.0},
        {"integrator": "midpoint"},
        {"integrator": "euler", "contact": "penalty"},
        {
            "integrator": "rk4",
            "contact": "penalty",
            "ground": {"type": "hills", "amplitude": 5, "wavelength": 90},
        },
    ],
    ids=lambda params: "-".join(str(value) for value in params.values())[:40],
)
def test_the_other_explicit_integrators_dashpots_masses_and_penalty_ground_stay_bit_identical(params):
    creatures = mutants(WALKER, LANES, seed=4)
    rng = np.random.default_rng(5)
    for lane in range(0, LANES, 2):
        creatures[lane] = creatures[lane].replace(
            stiffness=rng.uniform(0.5, 1.5, WALKER.n_links),
            dashpot=rng.uniform(0.0, 0.2, WALKER.n_links) * (lane % 4 == 0),
            mass=rng.uniform(0.5, 2.0, WALKER.n_masses),
        )
    run_both(creatures, walker_world(**params), frames=150, record_every=2)


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_fixed_masses_stay_put_at_rest_in_every_lane(integrator):
    pinned = WALKER.replace(fixed=np.arange(WALKER.n_masses) == 3)
    creatures = [
        c.replace(velocities=np.full((WALKER.n_masses, 2), 0.5)) for c in mutants(pinned, LANES, seed=12)
    ]
    scalar = run_both(creatures, walker_world(integrator=integrator), frames=100)
    for creature, trajectory in zip(creatures, scalar, strict=True):
        assert np.all(trajectory.positions[:, 3] == creature.positions[3])
        assert np.all(trajectory.velocities[:, 3] == 0.0)


def test_default_and_non_default_physics_in_one_euler_batch_run_on_both_kernels(monkeypatch):
    calls = []
    for name in ("_run_euler", "_run_explicit"):
        real = getattr(batch_module, name)
        monkeypatch.setattr(
            batch_module, name, lambda *args, _real=real, _name=name: calls.append(_name) or _real(*args)
        )
    creatures = mutants(WALKER, 2 * MIN_LANES, seed=6)
    for lane in range(1, 2 * MIN_LANES, 2):
        creatures[lane] = creatures[lane].replace(mass=np.full(WALKER.n_masses, 1.5))
    run_both(creatures, walker_world(), frames=100)
    assert sorted(calls) == ["_run_euler", "_run_explicit"]


@pytest.mark.parametrize("count", [1, 2, MIN_LANES + 1])
def test_batches_of_one_and_of_odd_sizes_are_bit_identical_on_the_batched_kernel(monkeypatch, count):
    monkeypatch.setattr(batch_module, "MIN_LANES", 1)
    for integrator in ("euler", "rk4"):
        run_both(mutants(WALKER, count, seed=7), walker_world(integrator=integrator), frames=60)


def test_batches_larger_than_max_lanes_are_split_into_even_kernel_calls(monkeypatch):
    monkeypatch.setattr(batch_module, "MAX_LANES", 8)
    sizes = []
    real = batch_module._run_euler
    monkeypatch.setattr(batch_module, "_run_euler", lambda c, *args: sizes.append(len(c)) or real(c, *args))
    run_both(mutants(WALKER, 19, seed=8), walker_world(), frames=60)
    assert sizes == [7, 6, 6]


def test_a_call_pads_its_lanes_to_whole_blocks_where_three_or_more_lanes_are_past_the_last_one():
    """The kernels run lanes in blocks of LANE_BLOCK and those past the last whole block apart, the third
    and later at several times a blocked lane's cost (docs/performance.md, round twenty-four): calls of
    more than a block and two lanes run whole blocks, and 24 lanes at least."""
    block, cheap, fewest = batch_module.LANE_BLOCK, batch_module.CHEAP_REST, batch_module.FEWEST_PADDED
    assert (block, cheap, fewest) == (8, 2, 24)
    for lanes in range(1, 3 * batch_module.MAX_LANES):
        padded = batch_module.padded_lanes(lanes)
        rest = lanes % block
        assert padded >= lanes and padded - lanes <= max(block - 1 - cheap, fewest - lanes)
        if lanes <= block + cheap or (lanes >= fewest and rest <= cheap):
            assert padded == lanes, lanes
        else:
            assert padded % block == 0 and padded >= fewest, lanes
    assert [batch_module.padded_lanes(n) for n in (10, 11, 16, 23, 25, 26, 27, 31, 33, 35, 63)] == [
        10, 24, 24, 24, 25, 26, 32, 32, 33, 40, 64
    ]  # fmt: skip


def spy_kernel_lanes(monkeypatch, module: str, name: str) -> list[int]:
    """The lanes each call of that kernel runs (its packed arrays' last axis), as it is called."""
    kernel_module = getattr(batch_module, module)
    real = getattr(kernel_module, name)
    seen: list[int] = []

    def spy(lanes, *args):
        seen.append(lanes.pos.shape[-1])
        return real(lanes, *args)

    monkeypatch.setattr(kernel_module, name, spy)
    return seen


@pytest.mark.parametrize("count", [11, 19, 29, 37])
@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_a_padded_call_gives_each_creature_its_own_bits_and_hands_back_no_padding_lane(
    monkeypatch, integrator, count
):
    kernel = (
        ("_batch_kernel", "run_euler_batch")
        if integrator == "euler"
        else ("_batch_explicit", "run_explicit_batch")
    )
    seen = spy_kernel_lanes(monkeypatch, *kernel)
    creatures = mutants(WALKER, count, seed=count)
    creatures[-1] = creatures[-1].replace(
        positions=creatures[-1].positions + [0.0, 1500.0]
    )  # its padding stops early too
    world = walker_world(integrator=integrator, max_speed=22.0)
    run_both(creatures, world, frames=100, record_every=2)
    assert seen == [batch_module.padded_lanes(count)] and seen[0] > count
    _, calls = batch_module.lane_runs(creatures, world, 100, record_every=2)
    (call,) = list(calls)
    n_records = 100 // 2 + 1
    assert call.out.layout.shape[1] == len(call.out.n_rec) == len(call.out.exploded_at) == count
    assert call.out.layout.flags.c_contiguous  # (as the compiled reducers take it)
    # the padding lanes wrote over their creature's records: no records of their own
    assert call.out.records.shape[1] == 2 * n_records * sum(c.n_masses for c in creatures)
    assert call.out.exploded_at[-1] >= 0 and call.out.exploded_at[0] < 0


def test_a_call_is_not_padded_past_the_lanes_the_kernel_s_stack_holds(monkeypatch):
    seen = spy_kernel_lanes(monkeypatch, "_batch_kernel", "run_euler_batch")
    # a stack that holds 12 lanes of the walker's masses: 11 lanes run alone, not 24
    monkeypatch.setattr(batch_module._batch_kernel, "STACK_DOUBLES", (WALKER.n_masses + 1) * 12)
    run_both(mutants(WALKER, 11, seed=3), walker_world(), frames=60)
    assert seen == [11]


def test_the_cost_of_a_call_counts_the_lanes_it_runs_padded_or_not(monkeypatch):
    """The cut's cost of a call counts the lanes the kernel runs: padded to a whole block, or, where the
    stack holds fewer lanes of its largest creature, its creatures alone (the kernel runs no more)."""
    lanes, links, masses = 11, 20, WALKER.n_masses
    padded = (batch_module.padded_lanes(lanes) + batch_module.CALL_LANES) * (links + 1)
    alone = (lanes + batch_module.CALL_LANES) * (links + 1)
    assert batch_module.padded_lanes(lanes) == 24 and padded > alone
    assert batch_module._call_cost(lanes, links, masses) == padded
    monkeypatch.setattr(batch_module._batch_kernel, "STACK_DOUBLES", (masses + 1) * 12)
    assert batch_module._call_cost(lanes, links, masses) == alone
    assert batch_module._call_cost(lanes, links, masses - 4) == padded  # 24 lanes of those fit
    creatures = mutants(WALKER, lanes, seed=3)
    assert batch_module._members_cost(creatures, list(range(lanes))) == (lanes + batch_module.CALL_LANES) * (
        max(c.n_links for c in creatures) + 1
    )


@pytest.mark.parametrize("ring", [1, 3])
def test_records_come_out_the_same_whatever_the_size_of_the_ring_they_pass_through(monkeypatch, ring):
    monkeypatch.setattr(batch_module, "RING_RECORDS", ring)
    creatures = mutants(WALKER, LANES, seed=13)
    creatures[5] = creatures[5].replace(positions=creatures[5].positions + [0.0, 1500.0])  # stops early
    for integrator in ("euler", "rk4"):
        run_both(creatures, walker_world(integrator=integrator, max_speed=22.0), frames=100, record_every=2)


def fake_simulate(calls):
    def simulate_one(creature, world, frames, record_every=1):
        calls.append(creature.name)
        return creature.name

    return simulate_one


@pytest.mark.parametrize(
    "case", ["backward-euler", "psm", "fewer creatures than MIN_LANES", "too many masses for the stack"]
)
def test_what_the_batch_cannot_run_goes_creature_by_creature_through_simulate(monkeypatch, case):
    calls: list[str] = []
    monkeypatch.setattr(batch_module, "simulate", fake_simulate(calls))
    count = MIN_LANES - 1 if case.startswith("fewer") else MIN_LANES + 2
    creatures = [c.replace(name=f"c{k}") for k, c in enumerate(mutants(WALKER, count, seed=9))]
    world = walker_world(integrator=case if case in ("backward-euler", "psm") else "euler")
    if case.startswith("too many"):
        monkeypatch.setattr(batch_module._batch_kernel, "STACK_DOUBLES", WALKER.n_masses * (MIN_LANES - 1))
    assert simulate_batch(creatures, world, 10) == [c.name for c in creatures]
    assert calls == [c.name for c in creatures]


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_creatures_of_other_links_fixed_masses_or_sizes_share_a_batch_bit_identically(
    monkeypatch, integrator
):
    monkeypatch.setattr(batch_module, "MIN_LANES", 1)
    creatures = mutants(WALKER, 3, seed=10)
    other_links = WALKER.replace(link_b=np.roll(WALKER.link_b, 1))
    pinned = WALKER.replace(fixed=np.arange(WALKER.n_masses) == 0)
    fewer_masses = WALKER.replace(
        positions=WALKER.positions[:5], velocities=WALKER.velocities[:5], fixed=WALKER.fixed[:5],
        link_a=WALKER.link_a[:3], link_b=WALKER.link_b[:3], rest=WALKER.rest[:3], alpha=WALKER.alpha[:3],
        phi=WALKER.phi[:3],
    )  # fmt: skip
    run_both([*creatures[:2], other_links, pinned, fewer_masses], walker_world(integrator=integrator), 100)
    assert simulate_batch([], World(), 10) == []


def test_the_topology_key_groups_children_of_one_topology_and_tells_other_topologies_apart():
    keys = {topology_key(creature) for creature in mutants(WALKER, 5, seed=11)}
    assert len(keys) == 1
    assert topology_key(WALKER) in keys
    others = [
        WALKER.replace(link_b=np.roll(WALKER.link_b, 1)),
        WALKER.replace(fixed=np.arange(WALKER.n_masses) == 0),
        WALKER.replace(link_a=WALKER.link_b, link_b=WALKER.link_a),
    ]
    assert len({topology_key(c) for c in others} | keys) == 1 + len(others)


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_without_max_speed_each_lane_explodes_at_its_own_size_bound_as_simulate_says(integrator):
    # stretched copies of the walker: a lane's bound is max(200 px/frame, its body's size per frame), so
    # the same fling stops some lanes and not others; every lane must stop exactly where simulate stops it
    creatures = []
    for k, stretch in enumerate(np.linspace(1.0, 60.0, LANES)):
        positions = WALKER.positions * np.array([stretch, 1.0])
        velocities = np.zeros_like(positions)
        velocities[:, 0] = 150.0 + 10.0 * k  # px/frame: above 200 for the later lanes
        creatures.append(WALKER.replace(positions=positions, velocities=velocities, name=f"fling{k}"))
    world = walker_world(integrator=integrator, max_speed=None)
    scalar = run_both(creatures, world, frames=30)  # asserts the lanes bit-identical
    assert {t.exploded for t in scalar} == {True, False}


def test_lane_runs_leave_the_kernel_records_raw_and_any_lanes_trajectories_equal_simulate():
    """``lane_runs``: what ``simulate_batch`` does, each kernel call's records left for a compiled consumer;
    the trajectories of any subset of a call's lanes are ``simulate``'s, and the record frames are theirs."""
    creatures = mutants(WALKER, LANES, seed=5)
    world = walker_world()
    singles, calls = batch_module.lane_runs(creatures, world, FRAMES, record_every=2)
    assert singles == []
    calls = list(calls)
    assert sorted(i for call in calls for i in call.members) == list(range(LANES))
    for call in calls:
        picked = call.members[1::3]
        lanes = list(range(1, len(call.members), 3))
        want = [simulate(creatures[i], world, FRAMES, record_every=2) for i in picked]
        assert_identical(call.trajectories(lanes), want)
        assert np.array_equal(call.frames(), want[0].frames)


def test_lane_runs_checks_its_arguments_at_once_not_when_the_calls_run():
    from evo.errors import EvoInputError

    with pytest.raises(EvoInputError, match="record_every"):
        batch_module.lane_runs(mutants(WALKER, LANES, 5), walker_world(), FRAMES, record_every=0)


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_lane_runs_on_threads_yield_the_same_calls_bit_for_bit(monkeypatch, integrator):
    """With ``threads``, the kernel calls are taken costliest first (by the executor's task and the reading
    thread), and the calls come back (as they are done) with the members and records they have
    without."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(batch_module, "MAX_LANES", 8)  # several calls, of different costs
    galloper = load_model(GENOMES / "galloper.json")
    creatures = mutants(WALKER, 11, seed=21) + mutants(galloper, 9, seed=22)
    creatures[3] = creatures[3].replace(positions=creatures[3].positions + [0.0, 1500.0])  # explodes
    world = walker_world(integrator=integrator, max_speed=22.0)
    _, alone = batch_module.lane_runs(creatures, world, 120, record_every=3)
    alone = list(alone)
    order = []
    real = batch_module._run_euler if integrator == "euler" else batch_module._run_explicit

    def noted(batch, *args):
        cost = batch_module._members_cost(batch, range(len(batch)))
        order.append((cost, threading.get_ident()))
        return real(batch, *args)

    taken = []  # the calls' costs in the order they are taken (under the calls' lock)
    take = batch_module._SharedCalls.take

    def noted_take(self):
        at = take(self)
        if at is not None:
            taken.append(batch_module._members_cost(self.creatures, self.cut[at][1]))
        return at

    monkeypatch.setattr(batch_module, "_run_euler" if integrator == "euler" else "_run_explicit", noted)
    monkeypatch.setattr(batch_module._SharedCalls, "take", noted_take)
    with ThreadPoolExecutor(2) as threads:
        _, threaded = batch_module.lane_runs(creatures, world, 120, record_every=3, threads=threads)
        threaded = list(threaded)
    assert len(alone) >= 3 and len(order) == len(alone) == len(taken)
    assert taken == sorted(taken, reverse=True)  # the costliest call not yet taken, every time
    assert max(order)[1] == threading.get_ident()  # the costliest is the reader's, taken before the rest
    threaded.sort(key=lambda call: call.members)
    assert [c.members for c in threaded] == sorted(c.members for c in alone)
    for got in threaded:
        want = next(call for call in alone if call.members == got.members)
        assert_identical(got.trajectories(), want.trajectories())
    assert any(t.exploded for call in alone for t in call.trajectories())


def test_a_kernel_call_failing_on_a_thread_raises_where_its_call_is_read(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(batch_module, "MAX_LANES", 8)
    real = batch_module._run_euler

    def second_fails(batch, *args):
        if batch[0] is creatures[8]:
            raise MemoryError("no room")
        return real(batch, *args)

    creatures = mutants(WALKER, 24, seed=23)
    monkeypatch.setattr(batch_module, "_run_euler", second_fails)
    with ThreadPoolExecutor(2) as threads:
        _, calls = batch_module.lane_runs(creatures, walker_world(), 60, threads=threads)
        first = next(calls)
        assert first.members == list(range(8))
        with pytest.raises(MemoryError, match="no room"):
            next(calls)


def test_the_thread_reading_lane_runs_runs_calls_beside_the_lane_threads(monkeypatch):
    """``LaneThreads(count)``: ``count`` threads run the calls, the reader and ``count - 1`` of the pool
    (its first call starts without waiting for a thread to wake); ``LaneThreads(1)``: the reader alone.
    Each call comes back once."""
    import threading

    monkeypatch.setattr(batch_module, "MAX_LANES", 8)
    real = batch_module._run_euler
    ran: list[tuple[int, int]] = []  # (thread, first member's position)
    creatures = mutants(WALKER, 48, seed=24)
    position = {id(c): k for k, c in enumerate(creatures)}

    def noted(batch, *args):
        ran.append((threading.get_ident(), position[id(batch[0])]))
        return real(batch, *args)

    monkeypatch.setattr(batch_module, "_run_euler", noted)
    _, alone = batch_module.lane_runs(creatures, walker_world(), 30)
    alone = [call.members for call in alone]
    for count, threads in ((2, 2), (1, 1), (3, 3)):
        ran.clear()
        with batch_module.LaneThreads(count) as pool:
            _, calls = batch_module.lane_runs(creatures, walker_world(), 30, threads=pool)
            assert len(ran) == 0  # nothing runs before the calls are read
            got = [call.members for call in calls]
            pool_threads = {thread.ident for thread in pool._threads}
        assert len(ran) == len(got) >= 6 and sorted(got) == sorted(alone)
        runners = {thread for thread, _ in ran}
        reader = threading.get_ident()
        assert reader in runners  # the reader ran calls itself
        assert runners - {reader} <= pool_threads and len(pool_threads) <= count - 1
        assert len(runners) <= threads


def test_the_reader_runs_calls_until_none_is_left_then_is_given_each_as_it_is_done(monkeypatch):
    """The thread reading the calls runs calls while any is left to take (holding the GIL only between
    them), then gets those done, while a lane thread's call before them in the cut still runs (round
    twenty-one): that call here waits until the reader has had the other five, which it never would in
    the cut's order."""
    import threading

    monkeypatch.setattr(batch_module, "MAX_LANES", 8)
    real = batch_module._run_euler
    creatures = mutants(WALKER, 48, seed=24)  # six calls of eight lanes, of equal costs
    position = {id(c): k for k, c in enumerate(creatures)}
    reader = threading.get_ident()
    pool_started, five_read = threading.Event(), threading.Event()
    waited: list[bool] = []
    got: list[int] = []  # each call read, by its position in the cut
    read_when_run: list[int] = []  # how many calls the reader had when it started each of its own

    def gated(batch, *args):
        if threading.get_ident() == reader:
            read_when_run.append(len(got))
            assert pool_started.wait(60)  # the pool's task took its call (the second) before the reader's
        else:
            pool_started.set()
            waited.append(five_read.wait(60))  # (a kernel compiled cold meanwhile takes seconds)
        return real(batch, *args)

    monkeypatch.setattr(batch_module, "_run_euler", gated)
    with batch_module.LaneThreads(2) as pool:
        _, calls = batch_module.lane_runs(creatures, walker_world(), 30, threads=pool)
        for call in calls:
            got.append(position[id(creatures[call.members[0]])] // 8)
            if len(got) == 5:
                five_read.set()
    assert waited == [True]  # the lane thread's one call ended only once the reader had the five others
    assert got == [0, 2, 3, 4, 5, 1]
    assert read_when_run == [0] * 5  # it ran its five before it was given any


def test_lane_runs_let_go_runs_no_call_not_yet_taken_and_need_no_pool_task_to_run(monkeypatch):
    """Stopping (an interrupt while the reader runs a call; closing the iterator) leaves the calls not
    yet taken unrun; and the reader runs every call itself when the executor's tasks never start (a pool
    shut down: its tasks are cancelled)."""
    from concurrent.futures import Executor

    monkeypatch.setattr(batch_module, "MAX_LANES", 8)
    real = batch_module._run_euler
    started = []
    interrupt = [True]

    def noted(batch, *args):
        started.append(len(batch))
        if interrupt[0] and len(started) == 2:
            raise KeyboardInterrupt
        return real(batch, *args)

    class Held(Executor):  # keeps its tasks until the test runs them
        def __init__(self):
            self.tasks = []

        def submit(self, fn, *args, **kwargs):
            self.tasks.append(functools.partial(fn, *args, **kwargs))

    monkeypatch.setattr(batch_module, "_run_euler", noted)
    creatures = mutants(WALKER, 48, seed=25)
    held = Held()  # an executor without a count is taken for two: one task beside the reader
    _, calls = batch_module.lane_runs(creatures, walker_world(), 30, threads=held)
    with pytest.raises(KeyboardInterrupt):  # in the reader's second call
        next(calls)
    assert len(held.tasks) == 1
    held.tasks[0]()  # the pool's task starting late finds no call left to take
    assert started == [8, 8]
    interrupt[0] = False
    started.clear()
    never = Held()  # its task never runs: the reader runs every call
    _, calls = batch_module.lane_runs(creatures, walker_world(), 30, threads=never)
    assert [call.members for call in calls] == [list(range(k, k + 8)) for k in range(0, 48, 8)]
    assert len(never.tasks) == 1 and started == [8] * 6


@pytest.mark.parametrize("count", [None, 2, 3])
def test_after_each_call_the_thread_that_ran_it_does_the_caller_s_work_on_it(monkeypatch, count):
    """``after_each``: the thread that ran a kernel call calls it with the call right after, and the
    call comes back with what it returned as ``after``; the records are those without it; what it
    raises is raised where that call is read. Without threads, the reader does it, in turn."""
    import threading

    monkeypatch.setattr(batch_module, "MAX_LANES", 8)
    real = batch_module._run_euler
    ran: dict[int, int] = {}  # a call's first member's position -> the thread that ran it
    creatures = mutants(WALKER, 40, seed=26)
    position = {id(c): k for k, c in enumerate(creatures)}

    def noted(batch, *args):
        ran[position[id(batch[0])]] = threading.get_ident()
        return real(batch, *args)

    failing: list[int] = []  # the first member of the call whose after_each raises

    def after(call):
        assert call.after is None
        if call.members[0] in failing:
            raise ArithmeticError("not this one")
        return threading.get_ident(), float(call.out.records.sum())

    monkeypatch.setattr(batch_module, "_run_euler", noted)
    _, plain = batch_module.lane_runs(creatures, walker_world(), 30)
    plain = list(plain)
    pool = None if count is None else batch_module.LaneThreads(count)
    try:
        _, calls = batch_module.lane_runs(creatures, walker_world(), 30, threads=pool, after_each=after)
        got = list(calls)  # each call once, as it is done (in turn without threads)
        assert sorted(call.members for call in got) == sorted(call.members for call in plain)
        for call in got:
            want = next(want for want in plain if want.members == call.members)
            thread, total = call.after
            assert thread == ran[call.members[0]]  # the thread that ran the call
            assert total == float(want.out.records.sum()) and want.after is None
            assert_identical(call.trajectories(), want.trajectories())
            assert call.without_scratch().after == call.after
        failing.append(plain[-1].members[0])
        _, calls = batch_module.lane_runs(creatures, walker_world(), 30, threads=pool, after_each=after)
        read = []
        with pytest.raises(ArithmeticError, match="not this one"):  # where that call is read
            for call in calls:
                read.append(call.members)
        assert plain[-1].members not in read and len(read) < len(plain)
    finally:
        if pool is not None:
            pool.shutdown()
    assert len(got) == len(plain) >= 5


def test_a_lane_thread_left_without_a_call_is_given_every_call_done_by_then(monkeypatch):
    """``when_idle``: a pool's thread that finds no call left to take calls it with each call done by then,
    in the cut's order (its ``after`` made), beside the reader's call still running; the reader's thread
    never calls it, and the calls read are the same objects. Without threads it is never called."""
    import threading

    monkeypatch.setattr(batch_module, "MAX_LANES", 8)
    real = batch_module._run_euler
    creatures = mutants(WALKER, 48, seed=27)
    reader = threading.get_ident()
    idle_called = threading.Event()
    given: list[tuple[int, list[int], bool]] = []  # (thread, the call's members, whether it was done)
    waited: list[bool] = []
    readers: list[int] = []  # the first creature of each call the reader ran

    def gated(batch, *args):
        if threading.get_ident() == reader:  # the reader's first call ends once the pool's thread is idle
            readers.append(id(batch[0]))
            waited.append(idle_called.wait(60))
        return real(batch, *args)

    def idle(call):
        given.append((threading.get_ident(), call.members, call.after == len(call.members)))
        idle_called.set()

    monkeypatch.setattr(batch_module, "_run_euler", gated)
    after = lambda call: len(call.members)  # noqa: E731
    with batch_module.LaneThreads(2) as pool:
        _, calls = batch_module.lane_runs(
            creatures, walker_world(), 30, threads=pool, after_each=after, when_idle=idle
        )
        got = list(calls)  # (all done when the reader is first given any: in the cut's order)
    assert waited == [True] and len(got) == 6
    threads = {thread for thread, _, _ in given}
    assert len(threads) == 1 and reader not in threads and all(done for _, _, done in given)
    # the five calls the pool's thread ran, in the cut's order (and the reader's, were it done by then)
    theirs = [members for _, members, _ in given if id(creatures[members[0]]) not in readers]
    assert theirs == [call.members for call in got if id(creatures[call.members[0]]) not in readers]
    assert len(theirs) == 5 and len(given) in (5, 6)
    given.clear()
    monkeypatch.setattr(batch_module, "_run_euler", real)
    _, calls = batch_module.lane_runs(creatures, walker_world(), 30, after_each=after, when_idle=idle)
    assert len(list(calls)) == 6 and given == []


def _numpy_cut(masses: np.ndarray, links: np.ndarray, first: np.ndarray, threads: int) -> list[list[int]]:
    """The lane cut as round twenty made it, in numpy's arrays (the oracle of ``_cut``, which round
    twenty-one wrote in Python's integers)."""
    stack = batch_module._batch_kernel.STACK_DOUBLES

    def even(members: np.ndarray, n_calls: int) -> list[list[int]]:
        limit = max(1, min(batch_module.MAX_LANES, stack // (int(masses[members].max()) + 1)))
        n_calls = max(n_calls, math.ceil(len(members) / limit))
        return [chunk.tolist() for chunk in np.array_split(members, n_calls)]

    order = np.argsort(first, kind="stable")
    _, counts = np.unique(first, return_counts=True)
    calls, small, start = [], [], 0
    for count in counts.tolist():
        members = order[start : start + count]
        start += count
        if count >= batch_module.OWN_CALL_LANES:
            calls += even(members, 0)
        else:
            small.append(members)
    if small:
        mixed = np.concatenate(small)
        mixed = mixed[np.lexsort((mixed, masses[mixed], links[mixed]))]
        widest = links[mixed]
        limit = max(1, min(batch_module.MAX_LANES, stack // (int(masses[mixed].max()) + 1)))
        fewest = math.ceil(len(mixed) / limit)

        def costs(n_calls: int) -> np.ndarray:
            sizes = np.full(n_calls, len(mixed) // n_calls)
            sizes[: len(mixed) % n_calls] += 1
            ends = widest[np.cumsum(sizes) - 1]
            most = [int(masses[part].max()) for part in np.split(mixed, np.cumsum(sizes)[:-1])]
            return np.array(
                [
                    batch_module._call_cost(int(n), int(w), m)
                    for n, w, m in zip(sizes, ends, most, strict=True)
                ]
            )

        if threads <= 1:
            best = min(range(fewest, min(len(mixed), fewest + 4) + 1), key=lambda n: int(costs(n).sum()))
        else:
            own = [
                batch_module._call_cost(len(call), int(links[call].max()), int(masses[call].max()))
                for call in calls
            ]

            def ends(n_calls: int) -> tuple[int, int]:
                mine = costs(n_calls)
                return batch_module._makespan([*own, *mine.tolist()], threads), int(mine.sum())

            best = min(range(fewest, min(len(mixed), fewest + max(4, threads)) + 1), key=ends)
        calls += even(mixed, best)
    return calls


def test_the_cut_in_python_integers_makes_the_calls_numpy_made():
    """``_cut`` (round twenty-one: Python's integers) against round twenty's numpy form, on random
    generations: kinds of creatures sharing link ends, many and few of each, in order or shuffled, for
    one to three threads; some of creatures so large that the stack holds fewer lanes than a call would
    be padded to (each call's cost then counts its creatures alone)."""
    rng = np.random.default_rng(21)
    for round_ in range(400):
        n = int(rng.integers(1, 400))
        kinds = int(rng.integers(1, n + 1))
        which = rng.integers(0, kinds, n)
        if rng.random() < 0.5:
            which = np.sort(which)
        first = np.empty(n, np.int64)
        seen: dict[int, int] = {}
        for k, kind in enumerate(which.tolist()):
            first[k] = seen.setdefault(kind, k)
        masses = rng.integers(2, 30 if round_ < 300 else 400, kinds)[which].astype(np.int64)
        links = rng.integers(1, 60, kinds)[which].astype(np.int64)
        for threads in (1, 2, 3):
            got = batch_module._cut(masses, links, first, threads)
            assert got == _numpy_cut(masses, links, first, threads)
            assert all(type(k) is int for call in got for k in call)
