"""Compiled reducers: every shipped plugin's reducer equals its Python function bit for bit on many
creatures simulated in lanes, and plugins without one keep the Python path."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from evo.fitness import EvaluationSpec, discover, evaluate, find_plugin, fitness_plugin
from evo.fitness.evaluate import recording
from evo.fitness.protocol import declare
from evo.fitness.reducers import (
    bind_reducer,
    compiled_reducer,
    numpy_mean,
    numpy_sum,
    reduce_lanes,
    reduce_outputs,
    reduce_trajectories,
    reducer_of,
    sparse_record_every,
)
from evo.ga.creatures import random_creature
from evo.ga.settings import GenomeSection
from evo.sim import World
from evo.sim.batch import lane_runs, simulate_batch
from evo.sim.ground import Ground

FRAMES = 600
SHIPPED = ("climb", "distance", "jump", "race", "speed", "stance")
SLOPE = World(ground=Ground(type="slope", angle=8.0), terrain=(((60.0, 0.0), (160.0, 18.0), (260.0, 4.0)),))
# (world, params): a few settings per plugin, a short finish line for race so that some creatures cross it
SETTINGS = {
    "climb": [(World(), {}), (SLOPE, {"step": 2.5}), (World(contact="penalty"), {"settle_frames": 50})],
    "distance": [(World(), {}), (World(), {"settle_frames": 1000})],
    "jump": [(World(), {}), (World(), {"settle_frames": 0})],
    "race": [(World(), {"finish_x": 4.0}), (World(), {"finish_x": 1e6, "penalty": 0.5})],
    "speed": [(World(), {}), (World(), {"settle_frames": 599})],
    "stance": [(World(), {}), (World(), {"settle_frames": 10})],
}


def creatures(count: int = 40) -> list:
    """Random creatures of the default genome, and a few that explode (a huge first velocity)."""
    rng = np.random.default_rng(29)
    out = [random_creature(rng, GenomeSection()) for _ in range(count)]
    for k in (3, 17)[: 1 + (count > 17)]:
        velocities = out[k].velocities.copy()
        velocities[0] = (1e4, 0.0)
        out[k] = out[k].replace(velocities=velocities)
    return out


def bits(values) -> bytes:
    return np.asarray(values, dtype=np.float64).tobytes()


def test_every_shipped_plugin_offers_a_reducer():
    assert all(reducer_of(find_plugin(name)) is not None for name in SHIPPED)


@pytest.mark.parametrize("name", sorted(n for n, p in discover().items() if reducer_of(p) is not None))
def test_every_reducer_evo_finds_equals_its_plugin_bit_for_bit_on_creatures_simulated_in_lanes(name):
    plugin = find_plugin(name)
    bodies = creatures()
    for world, params in SETTINGS.get(name, [(World(), {})]):
        for measures in ((), ("masses", *plugin.measures)):
            spec = EvaluationSpec(world, FRAMES, plugin.ref(), params, measures=measures)
            every, k = recording(spec)
            trajectories = simulate_batch(bodies, world, FRAMES, every)
            bound = bind_reducer(plugin, params, world, FRAMES)
            assert bound is not None
            scores = reduce_trajectories(bound, trajectories, k)
            for lane, (creature, trajectory) in enumerate(zip(bodies, trajectories, strict=True)):
                expected = evaluate(creature, spec, 0, trajectory)
                assert bool(scores.exploded[lane]) == expected.exploded
                assert not scores.python[lane]
                assert bits(scores.fitness[lane]) == bits(expected.fitness), (name, world, params, lane)
                if measures and not expected.exploded:
                    own = [expected.measures[measures.index(m)] for m in plugin.measures]
                    assert bits(scores.measures[lane]) == bits(own)


def test_the_sparsest_records_keep_every_record_a_reducer_reads_and_the_last():
    # (record_every, dt, frames, frames read) -> the interval: the plugin's records 0, 10, ... up to the
    # last one whole; the record at or after each frame read and the last stay among the sparse ones
    assert sparse_record_every(10, 1.0, 3000, [200]) == 200  # records 20 and 300 of the plugin's
    assert sparse_record_every(10, 1.0, 3000, [205]) == 30  # record 21 (frame 210): gcd(21, 300) = 3
    assert sparse_record_every(10, 1.0, 3005, [200]) == 200  # the last record is still frame 3000
    assert sparse_record_every(10, 1.0, 3000, [0]) == 3000  # the first and the last only
    assert sparse_record_every(10, 1.0, 3000, [5000]) == 3000  # past the end: the last (index_at's rule)
    assert sparse_record_every(10, 1.0, 3000, []) == 3000
    assert sparse_record_every(10, 1.0, 3000, [200, 1010]) == 10  # records 20, 101 and 300: no gain
    assert sparse_record_every(10, 0.5, 3000, [200]) == 200  # in steps of dt: 400 of 20
    assert sparse_record_every(10, 1.0, 5, [0]) == 10  # no record after the first: nothing to thin out
    assert sparse_record_every(10, 1.0, 3000.5, [0]) == 10  # a setting the simulation rejects, unchanged


@pytest.mark.parametrize("name", sorted(n for n in SHIPPED if reducer_of(find_plugin(n)).reads is not None))
def test_a_reducer_that_says_what_it_reads_gives_the_same_numbers_from_the_fewer_records_a_run_makes(name):
    plugin = find_plugin(name)
    assert reducer_of(plugin).reads is not None  # distance, speed and climb read two records each
    bodies = creatures()
    settings = SETTINGS[name] + [(World(), {"settle_frames": s}) for s in (0, 205, 590, 5000)]
    thinned = 0
    for world, params in settings:
        bound = bind_reducer(plugin, params, world, FRAMES)
        spec = EvaluationSpec(world, FRAMES, plugin.ref(), params)
        sparse = simulate_batch(bodies, world, FRAMES, bound.record_every)
        assert bound.record_every % plugin.record_every == 0
        thinned += bound.record_every > plugin.record_every
        scores = reduce_trajectories(bound, sparse)
        for lane, creature in enumerate(bodies):
            expected = evaluate(creature, spec, 0)  # the plugin's function on all its records
            assert bool(scores.exploded[lane]) == expected.exploded and not scores.python[lane]
            assert bits(scores.fitness[lane]) == bits(expected.fitness), (name, params, lane)
    assert thinned == len(settings) - 1  # all but settle_frames 590: records 59 and 60 share no step


def test_the_lanes_include_exploded_creatures_which_get_the_worst_fitness():
    plugin = find_plugin("distance")
    trajectories = simulate_batch(creatures(), World(max_speed=5.0), FRAMES, 10)
    scores = reduce_trajectories(bind_reducer(plugin, {}, World(), FRAMES), trajectories)
    assert scores.exploded.any() and not scores.exploded.all()
    assert np.all(scores.fitness[scores.exploded] == -np.inf)
    assert np.all(np.isfinite(scores.fitness[~scores.exploded]))


def test_climb_declines_ground_it_cannot_match_and_a_plugin_without_a_reducer_has_none():
    climb = find_plugin("climb")
    assert (
        bind_reducer(climb, {}, World(ground=Ground(type="hills", amplitude=5.0, wavelength=90.0)), 100)
        is None
    )
    assert bind_reducer(climb, {"step": 0.0}, World(), 100) is None  # the Python function's own error

    def plain(result, *, settle_frames: int = 0):
        return float(result.positions[-1, 0, 0])

    assert bind_reducer(declare("plain", plain), {}, World(), 100) is None


def test_a_user_plugin_offers_a_reducer_with_the_decorator_and_a_nan_goes_back_to_python():
    @fitness_plugin("height_or_nan", weights=(1.0,), record_every=10)
    def height_or_nan(result, *, give_nan: float = 0.0):
        return float(result.positions[-1, 0, 1])

    @compiled_reducer(height_or_nan)
    @nb.njit
    def height_reducer(positions, frames, total_frames, constants, out):
        out[0] = np.nan if constants[0] else positions[positions.shape[0] - 1, 0, 1]

    plugin = height_or_nan.__fitness_plugin__
    bodies = creatures(8)
    trajectories = simulate_batch(bodies, World(), 100, 10)
    scores = reduce_trajectories(bind_reducer(plugin, {}, World(), 100), trajectories)
    expected = [-np.inf if t.exploded else t.positions[-1, 0, 1] for t in trajectories]
    assert bits(scores.fitness[:, 0]) == bits(expected) and scores.exploded[3]
    assert not scores.python.any()
    nan = reduce_trajectories(bind_reducer(plugin, {"give_nan": 1.0}, World(), 100), trajectories)
    assert np.array_equal(nan.python, ~nan.exploded)  # redone in Python, which reports the failure
    with pytest.raises(TypeError, match="numba.njit"):
        compiled_reducer(height_or_nan)(lambda *args: None)
    with pytest.raises(TypeError, match="reads must be a function"):
        compiled_reducer(height_or_nan, reads=[0.0])(height_reducer)


def test_numpy_sum_and_mean_follow_numpys_pairwise_summation_bit_for_bit():
    rng = np.random.default_rng(3)
    for n in [*range(1, 140), 255, 256, 257, 1000, 4099]:
        values = rng.normal(size=n) * 10.0 ** rng.integers(-6, 6, size=n)
        assert bits(numpy_sum(values)) == bits(values.sum())
        assert bits(numpy_mean(values)) == bits(values.mean())
    assert bits(numpy_sum(-np.zeros(5))) == bits((-np.zeros(5)).sum())


def test_several_kernel_calls_reduced_at_once_score_each_lane_as_its_call_alone_does():
    plugin = find_plugin("distance")
    bodies = creatures(60)  # of several sizes: more than one kernel call
    world = World(max_speed=30.0)  # some explode
    bound = bind_reducer(plugin, {}, world, FRAMES)
    _, calls = lane_runs(bodies, world, FRAMES, 10)
    calls = [call.without_scratch() for call in calls]
    assert len(calls) >= 2
    outputs = [(c.out.records, c.out.layout, c.out.n_rec, c.out.exploded_at) for c in calls]
    longest = max(calls, key=lambda c: int(c.out.n_rec.max()))
    together = reduce_outputs(bound, outputs, longest.frames())
    alone = [reduce_lanes(bound, *out, call.frames()) for out, call in zip(outputs, calls, strict=True)]
    for name in ("fitness", "measures", "exploded", "python"):
        assert bits(getattr(together, name)) == bits(np.concatenate([getattr(s, name) for s in alone]))
    assert together.exploded.any() and not together.exploded.all()
