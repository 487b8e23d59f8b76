"""``simulate_batch`` on creatures of different topologies (masses, links, fixed flags) in one batch: each
lane, padded to the batch's largest creature, must give exactly what ``simulate`` gives it alone.

Creatures are drawn by Hypothesis (sizes, links, wave, physics) and simulated in worlds with walls, a
ceiling, terrain, gravity up, penalty ground and every integrator that has a batched kernel.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_batch import assert_identical, run_both

from evo.model import Creature
from evo.sim import World, simulate
from evo.sim import batch as batch_module
from evo.sim.batch import BATCHED_INTEGRATORS, MIN_LANES, LaneThreads, lane_calls, simulate_batch
from evo.sim.kernels import batch_euler

WALKER_WORLD = {"gravity": 0.5, "damping": 0.025, "stiffness": 0.4, "max_speed": 50.0}


def random_creature(rng: np.random.Generator, n_masses: int, extra_links: int, name: str) -> Creature:
    """A ring of ``n_masses`` masses plus ``extra_links`` random chords (in a shuffled link order, so that
    the link order onto a mass differs from creature to creature), muscles with random phases."""
    pairs = [(i, (i + 1) % n_masses) for i in range(n_masses if n_masses > 2 else 1)]
    for _ in range(extra_links):
        a, b = rng.choice(n_masses, 2, replace=False)
        pairs.append((int(a), int(b)))
    pairs = [pairs[k] for k in rng.permutation(len(pairs))]
    pairs = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in pairs]
    positions = rng.uniform([0.0, 0.0], [80.0, 60.0], (n_masses, 2))
    link_a = np.array([a for a, _ in pairs])
    link_b = np.array([b for _, b in pairs])
    rest = np.hypot(*(positions[link_b] - positions[link_a]).T) * rng.uniform(0.8, 1.2, len(pairs))
    return Creature(
        positions=positions,
        velocities=rng.normal(0.0, 0.3, (n_masses, 2)),
        fixed=np.zeros(n_masses, dtype=bool),
        link_a=link_a,
        link_b=link_b,
        rest=rest,
        alpha=rng.uniform(0.0, 1.0, len(pairs)) * (rng.random(len(pairs)) < 0.6),
        phi=rng.uniform(0.0, 2 * np.pi, len(pairs)),
        omega=float(rng.uniform(0.02, 0.2)),
        beta=float(rng.uniform(0.2, 1.0)),
        wave_phase=float(rng.uniform(0.0, 6.0)),
        wave_reverse=bool(rng.random() < 0.3),
        autoreverse=bool(rng.random() < 0.5),
        name=name,
    )


def population(seed: int, count: int, sizes=(2, 14), exploding: int = 0, physics: bool = False):
    """``count`` creatures of random sizes; ``exploding`` of them torn apart or with a NaN; with
    ``physics``, every third one gets stiffness multipliers, dashpots, masses and a fixed mass."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        n = int(rng.integers(sizes[0], sizes[1] + 1))
        creature = random_creature(rng, n, int(rng.integers(0, 2 * n)), f"c{k}")
        if physics and k % 3 == 0:
            creature = creature.replace(
                stiffness=rng.uniform(0.5, 1.5, creature.n_links),
                dashpot=rng.uniform(0.0, 0.2, creature.n_links) * (k % 2 == 0),
                mass=rng.uniform(0.5, 2.0, creature.n_masses),
                fixed=np.arange(creature.n_masses) == n - 1,
            )
        out.append(creature)
    for k in rng.choice(count, exploding, replace=False):
        c = out[k]
        if k % 2:
            positions = c.positions.copy()
            positions[0, 0] = np.nan
            out[k] = c.replace(positions=positions)
        else:
            out[k] = c.replace(positions=c.positions * 4.0)  # torn apart: every link far too long
    return out


WORLDS = {
    "open": {},
    "box": {"width": 120.0, "height": 70.0},
    "terrain": {"width": 150.0, "terrain": (((10.0, 0.0), (60.0, 15.0), (140.0, 0.0)),)},
    "gravity up": {"gravity_direction": "up", "height": 80.0},
    "penalty hills": {"contact": "penalty", "ground": {"type": "hills", "amplitude": 4, "wavelength": 70}},
}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(MIN_LANES, 21),
    integrator=st.sampled_from(BATCHED_INTEGRATORS),
    surroundings=st.sampled_from(sorted(WORLDS)),
    exploding=st.integers(0, 3),
    physics=st.booleans(),
)
def test_every_lane_of_a_mixed_topology_batch_is_bit_identical_to_its_own_simulate_run(
    seed, count, integrator, surroundings, exploding, physics
):
    creatures = population(seed, count, exploding=exploding, physics=physics)
    world = World().updated({**WALKER_WORLD, "integrator": integrator, **WORLDS[surroundings]})
    frames = 120 if integrator in ("midpoint", "rk4", "finite-difference") else 240
    run_both(creatures, world, frames=frames, record_every=3)


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_small_creatures_padded_beside_large_ones_explode_and_reverse_exactly_where_simulate_says(integrator):
    creatures = population(7, 17, sizes=(2, 30), exploding=3)
    world = World().updated({**WALKER_WORLD, "integrator": integrator, "width": 110.0, "max_speed": 12.0})
    scalar = run_both(creatures, world, frames=400, record_every=2)
    assert len({c.n_masses for c in creatures}) > 5 and len({c.n_links for c in creatures}) > 5
    exploded = [t.exploded for t in scalar]
    assert 3 <= sum(exploded) < len(creatures)  # lanes stop while lanes of other sizes run on
    assert all(t.positions.shape[1:] == (c.n_masses, 2) for c, t in zip(creatures, scalar, strict=True))


def test_a_mixed_batch_runs_in_kernel_calls_not_creature_by_creature(monkeypatch):
    calls: list[int] = []
    for name in ("_run_euler", "_run_explicit"):
        real = getattr(batch_module, name)
        monkeypatch.setattr(
            batch_module, name, lambda c, *a, _real=real: calls.append(len(c)) or _real(c, *a)
        )
    monkeypatch.setattr(batch_module, "simulate", lambda *args: pytest.fail("simulated one by one"))
    creatures = population(8, 3 * MIN_LANES + 2, physics=True)  # 9 with other physics
    trajectories = simulate_batch(creatures, World().updated(WALKER_WORLD), 50)
    assert sum(calls) == len(creatures) and len(calls) >= 2  # default physics and the rest: two kernels
    monkeypatch.undo()
    assert_identical(trajectories, [simulate(c, World().updated(WALKER_WORLD), 50) for c in creatures])


def test_lane_calls_of_mixed_creatures_sort_them_by_size_cover_each_once_and_fit_the_stack(monkeypatch):
    creatures = population(9, 150, sizes=(2, 40))
    calls = lane_calls(creatures)
    assert sorted(k for call in calls for k in call) == list(range(len(creatures)))
    assert max(len(call) for call in calls) - min(len(call) for call in calls) <= 1
    for call in calls:
        rows = max(creatures[k].n_masses for k in call) + 1
        assert len(call) <= batch_module.MAX_LANES and rows * len(call) <= batch_euler.STACK_DOUBLES
    links = [creatures[k].n_links for call in calls for k in call]
    assert links == sorted(links)  # a call pads its lanes to links of nearly the same count
    monkeypatch.setattr(batch_module._batch_kernel, "STACK_DOUBLES", 41 * 10)
    assert all(len(call) <= 10 for call in lane_calls(creatures))


def makespan(creatures, calls, threads: int) -> int:
    return batch_module._makespan([batch_module._members_cost(creatures, c) for c in calls], threads)


def test_calls_for_two_threads_are_cut_to_end_together_and_still_cover_each_creature_once():
    """185 creatures of 20 masses and mixed links fit three calls of up to 64 lanes; three calls keep one
    of two threads busy alone for the last third, so for two threads they are cut into an even number."""
    creatures = population(13, 185, sizes=(20, 20))
    alone, paired = lane_calls(creatures), lane_calls(creatures, threads=2)
    assert len(alone) == 3 and len(paired) % 2 == 0
    assert sorted(k for call in paired for k in call) == list(range(len(creatures)))
    assert makespan(creatures, paired, 2) < 0.9 * makespan(creatures, alone, 2)
    assert lane_calls(creatures, threads=1) == alone
    assert batch_module._makespan([3, 5, 3, 4, 3], 2) == 10  # costliest first: 5 + 3, then 4 + 3 + 3


def test_lane_runs_cut_the_calls_for_as_many_threads_as_its_lane_threads_run(monkeypatch):
    """A :class:`LaneThreads` says how many threads it runs: three are cut for three; an executor that
    does not say is cut for two."""
    from concurrent.futures import ThreadPoolExecutor

    creatures = population(13, 185, sizes=(20, 20))
    for kernel in ("_run_euler", "_run_explicit"):  # the cut, not the kernels, is what is compared
        monkeypatch.setattr(batch_module, kernel, lambda batch, *args: None)

    def cut(threads) -> list[list[int]]:
        with threads:
            _, calls = batch_module.lane_runs(creatures, World().updated(WALKER_WORLD), 2, threads=threads)
            return [call.members for call in calls]

    assert lane_calls(creatures, threads=3) != lane_calls(creatures, threads=2)
    assert cut(LaneThreads(3)) == lane_calls(creatures, threads=3)
    assert cut(ThreadPoolExecutor(3)) == lane_calls(creatures, threads=2)
    with pytest.raises(ValueError, match="at least 1 thread"):
        LaneThreads(0)


def test_creatures_of_one_topology_get_kernel_calls_of_their_own_where_they_fill_enough_lanes():
    base = population(10, 3, sizes=(6, 6))
    creatures = [base[k % 3].replace(rest=base[k % 3].rest * (1.0 + 0.01 * k)) for k in range(3 * MIN_LANES)]
    creatures += population(11, 5)  # and a few of other topologies
    calls = lane_calls(creatures)
    kinds = [{k % 3 if k < 3 * MIN_LANES else "other" for k in call} for call in calls]
    assert sorted(kinds, key=str) == sorted([{0}, {1}, {2}, {"other"}], key=str)
    run_both(creatures, World().updated(WALKER_WORLD), frames=60)


@pytest.mark.parametrize("integrator", ["euler", "midpoint"])
def test_lanes_that_share_a_wave_until_a_side_wall_reverses_one_stay_bit_identical(integrator):
    creatures = population(12, 12, sizes=(4, 8))
    wave = {"omega": 0.07, "wave_phase": 0.0, "wave_reverse": False}
    creatures = [c.replace(**wave, autoreverse=k % 3 != 0) for k, c in enumerate(creatures)]
    creatures[5] = creatures[5].replace(wave_phase=-0.0)  # the same θ but for its sign
    leaders = batch_module._wave_leaders(
        np.full(12, 0.07), np.array([c.wave_phase for c in creatures]), np.ones(12)
    )
    assert leaders.tolist() == [0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0]
    world = World().updated({**WALKER_WORLD, "integrator": integrator, "width": 90.0})
    scalar = run_both(creatures, world, frames=300)
    x = [t.positions[1:, :, 0] for t in scalar]
    first_touch = {
        k: int(np.argmax((x[k].min(axis=1) == 0.0) | (x[k].max(axis=1) == 90.0)))
        for k in range(len(creatures))
        if creatures[k].autoreverse and (x[k].min() == 0.0 or x[k].max() == 90.0)
    }
    assert len(set(first_touch.values())) > 1  # lanes of one wave turned it at different frames


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_each_lane_gets_its_records_as_contiguous_views_of_its_own_block_padded_or_exploded(integrator):
    creatures = population(13, 2 * MIN_LANES, sizes=(2, 16), exploding=3)
    world = World().updated({**WALKER_WORLD, "integrator": integrator})
    batched = simulate_batch(creatures, world, 60, record_every=2)
    assert sum(t.exploded for t in batched) >= 1 and len({c.n_masses for c in creatures}) > 4
    for creature, trajectory in zip(creatures, batched, strict=True):
        for records in (trajectory.positions, trajectory.velocities):
            assert records.shape == (len(trajectory.frames), creature.n_masses, 2)
            assert records.flags.c_contiguous and records.base is not None  # a view, not a copy
    arrays = [a for t in batched for a in (t.positions, t.velocities)]
    assert not any(np.shares_memory(a, b) for k, a in enumerate(arrays) for b in arrays[k + 1 :])
    assert_identical(batched, [simulate(c, world, 60, record_every=2) for c in creatures])


@pytest.mark.parametrize("surroundings", ["open", "box", "terrain", "gravity up"])
def test_lanes_whose_masses_are_put_on_rows_in_link_order_stay_bit_identical(surroundings):
    from evo.bench.batch import BENCH_GENOME, mixed

    rng = np.random.default_rng(14)
    creatures = mixed({}, 2 * MIN_LANES, rng) + mixed(BENCH_GENOME, MIN_LANES, rng)  # spanning trees
    creatures[3] = creatures[3].replace(positions=creatures[3].positions * 5.0)  # torn apart: explodes
    positions = creatures[5].positions.copy()
    positions[0, 0] = -0.0
    creatures[5] = creatures[5].replace(positions=positions, velocities=np.full_like(positions, -0.0))
    creatures = [c.replace(autoreverse=k % 2 == 0) for k, c in enumerate(creatures)]
    world = World().updated({**WALKER_WORLD, **WORLDS[surroundings]})
    packed = batch_module._pack(creatures[: 2 * MIN_LANES], world, general=False)
    for lane, creature in enumerate(creatures[: 2 * MIN_LANES]):  # each lane's masses, each on one row
        rows = packed["mass_of_row"][:, lane]
        assert sorted(rows[rows < creature.n_masses]) == list(range(creature.n_masses))
    assert np.any(packed["mass_of_row"][:-1] != np.arange(packed["pos"].shape[1] - 1)[:, None])
    assert packed["uniform_b"].sum() >= 2  # links whose end b is one row in every lane: the vector path
    scalar = run_both(creatures, world, frames=240, record_every=3)
    assert scalar[3].exploded and not all(t.exploded for t in scalar)


@pytest.mark.parametrize("general", [False, True])
def test_each_lane_holds_its_own_creature_s_numbers_and_the_padding_is_inert(general):
    creatures = population(21, 2 * MIN_LANES, physics=True)
    world = World().updated(WALKER_WORLD)
    p = batch_module._pack(creatures, world, general=general)
    rows = p["pos"].shape[1]
    assert rows == max(c.n_masses for c in creatures) + 1
    for lane, c in enumerate(creatures):
        row = np.full(c.n_masses, -1)
        for r in range(rows):
            if p["mass_of_row"][r, lane] < rows:
                row[p["mass_of_row"][r, lane]] = r
        assert sorted(row) == sorted(set(row)) and row.min() >= 0  # every mass on a row of its own
        assert (p["pos"][:, row, lane] == c.positions.T).all()
        free = ~np.asarray(c.fixed)
        assert (p["free"][row, lane] == free).all()
        assert (p["vel"][:, row, lane] == np.where(free, c.velocities.T, 0.0)).all()
        m = c.n_links
        assert (p["link_a"][:m, lane] == row[c.link_a]).all() and (
            p["link_b"][:m, lane] == row[c.link_b]
        ).all()
        assert p["rest"][:m, lane].tobytes() == c.rest.tobytes()
        assert p["amp"][:m, lane].tobytes() == (c.rest * c.alpha * c.beta).tobytes()
        assert (p["cos_phi"][:m, lane] == np.cos(c.phi)).all() and (
            p["sin_phi"][:m, lane] == np.sin(c.phi)
        ).all()
        padded = np.setdiff1d(np.arange(rows), row)  # rows no mass of this lane is on: fixed at the origin
        assert not p["pos"][:, padded, lane].any() and not p["vel"][:, padded, lane].any()
        assert not p["free"][padded, lane].any() and (p["mass_of_row"][padded, lane] == rows).all()
        assert (p["link_a"][m:, lane] == rows - 1).all() and (p["link_b"][m:, lane] == rows - 1).all()
        assert not p["amp"][m:, lane].any()
        if general:
            assert (p["link_k"][:m, lane] == c.stiffness * world.stiffness).all()
            assert (p["dashpot"][:m, lane] == c.dashpot).all() and not p["dashpot"][m:, lane].any()
            assert (p["inv_mass"][row, lane] == 1.0 / c.mass).all() and not p["inv_mass"][padded, lane].any()
    same_a = (p["link_a"] == p["link_a"][:, :1]).all(axis=1)
    same_b = (p["link_b"] == p["link_b"][:, :1]).all(axis=1)
    assert (p["uniform"] == (same_a & same_b)).all() and (p["uniform_b"] == (same_b & ~same_a)).all()
    assert any(not c.fixed.all() and c.fixed.any() for c in creatures)  # fixed masses were packed
