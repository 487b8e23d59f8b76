"""Children of any topologies simulated together in lanes in a run: the same files as one by one, bit for
bit, with one worker or two."""

from __future__ import annotations

import dataclasses
import filecmp
import time
from pathlib import Path

import numba as nb
import numpy as np
import pytest

import evo
from evo.fitness import fitness_plugin, load_ref, plugin_of
from evo.fitness.evaluate import Evaluation, evaluate
from evo.fitness.reducers import centroid, compiled_reducer, index_at
from evo.ga.brood import breed
from evo.ga.loop import Evolution
from evo.ga.search import ChildResult
from evo.run import batching
from evo.run.config import load_config
from evo.run.job import BreedContext, breed_and_evaluate
from evo.sim import simulate
from evo.sim.batch import MIN_LANES

# bodies of 3 to 9 masses: the children of a generation are of many topologies
SMALL = {
    "run": {"name": "small", "seed": 4, "generations": 5, "population": 48},
    "evaluation": {"frames": 300, "plugin": "distance", "params": {"settle_frames": 0}},
    "world": {"max_speed": 50.0},
    "genome": {"masses": [3, 9]},
}


def config(**pool) -> evo.Config:
    return evo.Config.from_dict({**SMALL, "pool": pool})


def different(a: Path, b: Path) -> list[str]:
    compare = filecmp.dircmp(a, b, ignore=["run.log", "config.toml"])
    out = [*compare.left_only, *compare.right_only]
    out += filecmp.cmpfiles(a, b, compare.common_files, shallow=False)[1]
    for sub in compare.common_dirs:
        out += [f"{sub}/{name}" for name in different(a / sub, b / sub)]
    return out


def test_a_run_batched_and_one_by_one_writes_the_same_files(tmp_path):
    before = dict(batching.COUNTS)
    evo.evolve(config(workers=1, batch=True), out=tmp_path / "batched", progress=False)
    batched = batching.COUNTS["batched"] - before["batched"]
    single = batching.COUNTS["single"] - before["single"]
    assert batched >= 0.9 * (batched + single) > 0  # nearly every child in lanes, whatever its topology
    assert batching.COUNTS["reduced"] - before["reduced"] >= 0.9 * batched  # scored by the compiled reducer
    evo.evolve(config(workers=1, batch=False), out=tmp_path / "single", progress=False)
    assert different(tmp_path / "batched", tmp_path / "single") == []


@pytest.mark.parametrize("backend", [None, "fork"])  # the default for a shipped plugin: threads
def test_one_and_two_workers_write_the_same_files_with_batching(tmp_path, backend):
    evo.evolve(config(workers=1, batch=True), out=tmp_path / "one", progress=False)
    two = config(workers=2, batch=True, **({"backend": backend} if backend else {}))
    evo.evolve(two, out=tmp_path / "two", progress=False)
    assert different(tmp_path / "one", tmp_path / "two") == []


@pytest.mark.parametrize("backend", ["threads", "fork"])
@pytest.mark.parametrize("world", [{"integrator": "rk4"}, {"width": 200.0, "terrain": [[[40, 0], [90, 8]]]}])
def test_other_worlds_write_the_same_files_in_lanes_and_one_by_one_with_two_workers(tmp_path, world, backend):
    small = {**SMALL, "run": {**SMALL["run"], "generations": 3}, "world": {**SMALL["world"], **world}}
    lanes = {"workers": 2, "batch": True, "backend": backend}
    for name, pool in (("lanes", lanes), ("single", {"workers": 1, "batch": False})):
        evo.evolve(evo.Config.from_dict({**small, "pool": pool}), out=tmp_path / name, progress=False)
    assert different(tmp_path / "lanes", tmp_path / "single") == []


def broods_of_a_converged_population(population=96):
    """A generation's broods whose parents are few topologies (a run's later generations look so)."""
    c = config(workers=1).replace(run={"population": population})
    evolution = Evolution(c.loop_settings())
    results = []
    for brood in evolution.ask().broods:
        (kid,) = breed(brood, c.genome, c.ga)
        results.append(ChildResult(kid, Evaluation((float(kid.positions[:, 0].max()),), False)))
    evolution.tell(results)
    return list(evolution.ask().broods), c


def test_chunks_cover_every_brood_once_in_order_of_parent_size_of_similar_cost_and_none_too_small():
    broods, _ = broods_of_a_converged_population()
    # one chunk: the broods' own order (its lanes are cut from all of them, whatever their order)
    for one in (1, [1.0]):
        assert batching.chunk_ids(broods, one) == [(i, 0) for i in range(len(broods))]
    for chunks in (4, 40):
        ids = batching.chunk_ids(broods, chunks=chunks)
        assert sorted(rank for rank, _ in ids) == list(range(len(broods)))
        by_rank = sorted((rank, chunk, i) for i, (rank, chunk) in enumerate(ids))
        in_order = [chunk for _, chunk, _ in by_rank]
        assert in_order == sorted(in_order) and in_order[-1] + 1 <= max(1, chunks)
        sizes = [broods[i].parents[0].n_masses for _, _, i in by_rank]
        assert sizes == sorted(sizes)
        per_chunk = np.bincount(in_order, weights=[broods[i].evaluations for _, _, i in by_rank])
        assert per_chunk.min() >= 2 * MIN_LANES
    ids = batching.chunk_ids(broods, chunks=4)
    assert len({c for _, c in ids}) == 4
    # chunks of similar cost: the smallest parents' chunk holds more evaluations than the largest's
    links = np.zeros(4)
    evaluations = np.zeros(4)
    for brood, (_, chunk) in zip(broods, ids, strict=True):
        links[chunk] += brood.evaluations * brood.parents[0].n_links
        evaluations[chunk] += brood.evaluations
    mean_links = links / evaluations
    assert mean_links[0] < mean_links[-1] and evaluations[0] > evaluations[-1]


def test_prepared_broods_hold_the_children_breed_makes_and_the_scores_or_trajectories_of_evaluate():
    broods, c = broods_of_a_converged_population()
    spec = c.evaluation_spec()
    context = BreedContext(spec, c.genome, c.ga)
    prepared = batching.prepare_broods(broods, context)
    batched = 0
    for brood, bred in zip(broods, prepared, strict=True):
        children = breed(brood, c.genome, c.ga, world=spec.world)
        assert len(bred.children) == len(children)
        for k, (child, again) in enumerate(zip(bred.children, children, strict=True)):
            assert (child is None) == (again is None)
            if child is None:
                continue
            assert np.array_equal(child.positions, again.positions) and np.array_equal(child.rest, again.rest)
            if k in bred.trajectories:
                batched += 1
                alone = simulate(child, spec.world, spec.frames, record_every=10)
                assert np.array_equal(bred.trajectories[k].positions, alone.positions)
                seed = brood.plugin_seeds[k]
                assert evaluate(child, spec, seed, bred.trajectories[k]) == evaluate(child, spec, seed)
            if k in bred.scored:  # the distance plugin's compiled reducer: what evaluate gives
                batched += 1
                assert bred.scored[k] == evaluate(child, spec, brood.plugin_seeds[k])
    assert batched > 0


def test_children_the_compiled_brood_made_are_simulated_from_its_arrays_laid_end_to_end(monkeypatch):
    """Every child to simulate came out of the chunk's compiled breeding call: ``lane_runs`` gets that
    call's arrays (:class:`evo.sim.laid.Laid`) and each child's row in them; generation 0's random
    creatures, bred in Python, are simulated from the creatures themselves."""
    from evo.sim.laid import Laid

    seen: list = []
    real = batching.lane_runs

    def noted(creatures, *args, laid=None, **kwargs):
        seen.append((list(creatures), laid))
        return real(creatures, *args, laid=laid, **kwargs)

    monkeypatch.setattr(batching, "lane_runs", noted)
    broods, c = broods_of_a_converged_population()
    context = BreedContext(c.evaluation_spec(), c.genome, c.ga)
    batching.prepare_broods(broods, context)
    ((creatures, (record, rows)),) = seen
    assert len(rows) == len(creatures) > MIN_LANES
    for child, row in zip(creatures, rows.tolist(), strict=True):
        alone = Laid.of([child])
        for name in ("positions", "link_a", "link_b", "rest", "alpha", "cos_phi", "omega", "beta", "theta0"):
            part = getattr(record, name)
            if name in ("positions",):
                part = part[record.mass_at[row] : record.mass_at[row + 1]]
            elif part.size == record.masses.size:
                part = part[row : row + 1]
            else:
                part = part[record.link_at[row] : record.link_at[row + 1]]
            assert np.array_equal(part, getattr(alone, name)), name
    seen.clear()
    first = Evolution(c.loop_settings()).ask().broods  # random creatures
    batching.prepare_broods(list(first), context)
    assert [laid for _, laid in seen] == [None]


def prepared_scores(prepared: list) -> list:
    """Each brood's children's scores and trajectories' positions, to compare two preparations."""
    return [
        None
        if bred is None
        else (
            sorted(bred.scored.items()),
            [(k, t.positions.tobytes()) for k, t in sorted(bred.trajectories.items())],
        )
        for bred in prepared
    ]


def test_with_lane_threads_the_children_s_calls_start_before_their_creatures_are_made(monkeypatch):
    """With lane threads, the compiled breeding call hands its children's arrays on before it makes
    their creatures, and a lane thread starts their kernel calls then (with the interpreter's switch
    interval lowered until the creatures are made, then as it was): the scores are those of one thread."""
    import sys
    import threading

    from evo.ga.kernels import brood as brood_kernels
    from evo.sim import batch as batch_module
    from evo.sim.batch import LaneThreads

    broods, c = broods_of_a_converged_population()
    context = BreedContext(c.evaluation_spec(), c.genome, c.ga)
    alone = prepared_scores(batching.prepare_broods(broods, context))
    events: list = []
    real_run, real_assemble = batch_module._run_euler, brood_kernels.assemble

    def run(*args):
        if threading.current_thread() is not threading.main_thread():
            events.append("lane thread's call")
        return real_run(*args)

    def assemble(*args):
        if not events or events[-1] != "a creature made":
            events.append("a creature made")
        if len(events) == 1:  # the first creature waits for the lane thread's first call to start
            deadline = time.monotonic() + 60
            while "lane thread's call" not in events and time.monotonic() < deadline:
                time.sleep(0.001)
        events.append(sys.getswitchinterval())
        return real_assemble(*args)

    monkeypatch.setattr(batch_module, "_run_euler", run)
    monkeypatch.setattr(brood_kernels, "assemble", assemble)
    before = sys.getswitchinterval()
    with LaneThreads(2) as pool:
        threaded = prepared_scores(batching.prepare_broods(broods, context.with_lane_threads(pool)))
    assert threaded == alone and any(scored for scored, _ in threaded)
    assert "lane thread's call" in events[: events.index("a creature made") + 3]
    intervals = [value for value in events if isinstance(value, float)]
    assert intervals and intervals == pytest.approx([batching.WINDOW_SWITCH_INTERVAL] * len(intervals))
    assert sys.getswitchinterval() == before


def test_the_caller_s_work_beside_is_done_once_while_the_lane_thread_runs_the_calls(monkeypatch):
    """``beside`` (the generation before's bookkeeping, in a run) is called once: with lane threads, in
    the window, once the children's calls are started and before their creatures are made; without,
    once the broods are bred. It changes no score."""
    import sys

    from evo.ga.kernels import brood as brood_kernels
    from evo.sim.batch import LaneThreads

    broods, c = broods_of_a_converged_population()
    context = BreedContext(c.evaluation_spec(), c.genome, c.ga)
    alone = prepared_scores(batching.prepare_broods(broods, context))
    events: list = []
    real_assemble = brood_kernels.assemble

    def assemble(*args):
        events.append("a creature made")
        return real_assemble(*args)

    def beside():
        started = sum(len(early.runs[0]) for early in made if early.runs is not None)
        events.append(("beside", sys.getswitchinterval(), started))

    made: list = []
    real_early = batching._EarlyCalls

    def early(*args):
        made.append(real_early(*args))
        return made[-1]

    monkeypatch.setattr(brood_kernels, "assemble", assemble)
    monkeypatch.setattr(batching, "_EarlyCalls", early)
    with LaneThreads(2) as pool:
        threaded = batching.prepare_broods(broods, context.with_lane_threads(pool), beside=beside)
    assert prepared_scores(threaded) == alone
    calls = [e for e in events if e != "a creature made"]
    assert len(calls) == 1 and events[0] == calls[0]  # before the first creature
    _, interval, started = calls[0]
    assert interval == pytest.approx(batching.WINDOW_SWITCH_INTERVAL) and started > 0
    events.clear(), made.clear()
    assert prepared_scores(batching.prepare_broods(broods, context, beside=beside)) == alone
    assert [e for e in events if e != "a creature made"] == [("beside", sys.getswitchinterval(), 0)]


def test_with_lane_threads_each_call_s_lanes_are_scored_by_the_thread_that_ran_it(monkeypatch):
    """The plugin's compiled reducer scores each kernel call's lanes on the thread that ran the call, just
    after it (nothing left to one pass over all the calls), and the scores are those of that one pass;
    where it raises there, the one pass scores them (and meets the error: the children are evaluated
    one by one, as they would be). The compiled breeding call is made in parts, on both threads."""
    import threading

    from evo.fitness import reducers
    from evo.ga.kernels import brood as brood_kernels
    from evo.sim.batch import LaneThreads

    broods, c = broods_of_a_converged_population(population=160)
    context = BreedContext(c.evaluation_spec(), c.genome, c.ga)
    alone = prepared_scores(batching.prepare_broods(broods, context))
    assert sum(len(entry[0]) for entry in alone if entry) > 0  # scored by the reducer
    passes: list = []  # (how many calls one reduce_outputs scores, the thread)
    real_reduce = reducers.reduce_outputs

    def reduce_outputs(bound, outputs, *args):
        passes.append((len(outputs), threading.current_thread().name))
        return real_reduce(bound, outputs, *args)

    bred_on: list = []
    real_pairs = brood_kernels._pairs

    def pairs(*args):
        bred_on.append(threading.current_thread().name)
        return real_pairs(*args)

    monkeypatch.setattr(batching, "reduce_outputs", reduce_outputs)
    monkeypatch.setattr(brood_kernels, "_pairs", pairs)
    with LaneThreads(2) as pool:
        threaded = batching.prepare_broods(broods, context.with_lane_threads(pool))
    assert prepared_scores(threaded) == alone
    assert_results_made_as_read(broods, threaded, context)
    assert len(passes) >= 2 and all(count == 1 for count, _ in passes)  # one per call, none over all
    assert any(name.startswith("evo-lanes") for _, name in passes)
    assert sorted(bred_on) == sorted([threading.current_thread().name, "evo-lanes_0"])

    def failing(bound, outputs, *args):  # every call's own scoring fails: the one pass meets it again
        passes.append((len(outputs), threading.current_thread().name))
        raise FloatingPointError("no scores")

    monkeypatch.setattr(batching, "reduce_outputs", failing)
    passes.clear()
    with LaneThreads(2) as pool:
        unscored = batching.prepare_broods(broods, context.with_lane_threads(pool))
    assert passes[-1][0] > 1 and all(count == 1 for count, _ in passes[:-1])
    assert all(not bred.scored and not bred.trajectories for bred in unscored if bred is not None)
    assert all(bred.results is None for bred in unscored if bred is not None)

    def first_fails(bound, outputs, *args):  # one call's own scoring fails: all are scored in one pass
        passes.append((len(outputs), threading.current_thread().name))
        if len(passes) == 1:
            raise FloatingPointError("no scores")
        return real_reduce(bound, outputs, *args)

    monkeypatch.setattr(batching, "reduce_outputs", first_fails)
    passes.clear()
    with LaneThreads(2) as pool:
        again = batching.prepare_broods(broods, context.with_lane_threads(pool))
    calls = len(passes) - 1
    assert calls >= 2 and passes[-1][0] == calls  # the one pass: every call, as without lane threads
    assert prepared_scores(again) == alone
    assert_results_made_as_read(broods, again, context)

    monkeypatch.setattr(batching, "reduce_outputs", reduce_outputs)
    real_scored, handed = batching._scored, []

    def first_hand_fails(call, evaluations, members, sparse=False):  # fails halfway through its first call
        handed.append(len(call.members))
        if len(handed) == 1:
            real_scored(call, evaluations[:3] + [None] * (len(evaluations) - 3), members, sparse)
            raise MemoryError("no room")
        return real_scored(call, evaluations, members, sparse)

    monkeypatch.setattr(batching, "_scored", first_hand_fails)
    passes.clear()
    with LaneThreads(2) as pool:
        handed_back = batching.prepare_broods(broods, context.with_lane_threads(pool))
    assert passes[-1][0] == len(passes) - 1 >= 2  # the calls read after it go to the one pass, with it
    assert prepared_scores(handed_back) == alone  # what it handed on halfway was taken back
    assert_results_made_as_read(broods, handed_back, context)


def test_a_lane_thread_left_without_a_call_hands_on_the_calls_done_while_the_reader_runs_its_last(
    monkeypatch,
):
    """With lane threads, a lane thread that finds no call left to take hands on the calls done by then
    (their evaluations and the broods' ChildResults, round twenty-three) while the reader still runs its
    call (and that call too, if it ends meanwhile), the reader the rest. Each call is handed on once:
    the scores, the results and the counts are those of one thread. Where the lane thread's handing on
    fails, what it handed on is taken back and every call is scored in one pass, as without lane
    threads."""
    import threading

    from evo.sim import batch as batch_module
    from evo.sim.batch import LaneThreads

    broods, c = broods_of_a_converged_population(population=160)
    context = BreedContext(c.evaluation_spec(), c.genome, c.ga)
    counts = dict(batching.COUNTS)
    alone = prepared_scores(batching.prepare_broods(broods, context))
    alone_counts = {k: batching.COUNTS[k] - counts[k] for k in counts}
    reader = threading.get_ident()
    real_run, real_scored = batch_module._run_euler, batching._scored
    handed_on_lane = threading.Event()
    handed: list[tuple[bool, tuple[int, ...]]] = []  # (by a lane thread, the call's members)
    waited: list[bool] = []
    fail_on_lane = [False]

    reader_in = threading.Event()  # the reader has taken a call (the lane thread waits for it)

    def run(batch, *args):
        if threading.get_ident() == reader and not waited:  # the reader's first call: it ends last
            reader_in.set()
            waited.append(handed_on_lane.wait(60))
        elif threading.get_ident() != reader:  # (on a busy machine it could take every call first)
            reader_in.wait(60)
        return real_run(batch, *args)

    def scored(call, *args, **kwargs):
        on_lane = threading.get_ident() != reader
        handed.append((on_lane, tuple(call.members)))
        if on_lane and fail_on_lane[0]:
            handed_on_lane.set()
            raise MemoryError("no room")
        real_scored(call, *args, **kwargs)
        if on_lane:
            handed_on_lane.set()

    monkeypatch.setattr(batch_module, "_run_euler", run)
    monkeypatch.setattr(batching, "_scored", scored)
    counts = dict(batching.COUNTS)
    with LaneThreads(2) as pool:
        threaded = batching.prepare_broods(broods, context.with_lane_threads(pool))
    assert waited == [True]
    assert prepared_scores(threaded) == alone
    assert_results_made_as_read(broods, threaded, context)
    assert {k: batching.COUNTS[k] - counts[k] for k in counts} == alone_counts
    calls = [members for _, members in handed]
    assert len(calls) == len(set(calls)) >= 3  # each call handed on once
    assert any(on_lane for on_lane, _ in handed)  # (the reader's own call too, if it ended meanwhile)

    fail_on_lane[0], waited[:] = True, []
    handed.clear()
    handed_on_lane.clear()
    reader_in.clear()
    counts = dict(batching.COUNTS)
    with LaneThreads(2) as pool:
        again = batching.prepare_broods(broods, context.with_lane_threads(pool))
    assert waited == [True] and any(on_lane for on_lane, _ in handed)
    assert prepared_scores(again) == alone  # the one pass, after what was handed on was taken back
    assert_results_made_as_read(broods, again, context)
    assert {k: batching.COUNTS[k] - counts[k] for k in counts} == alone_counts


def assert_results_made_as_read(broods: list, prepared: list, context: BreedContext) -> None:
    """Every brood whose new children the reducer all scored has its ChildResults made (round twenty-one;
    one of unchanged copies alone has none to wait for: the job makes its results):
    the job hands them on, the results it would make child by child."""
    complete = 0
    for brood, bred in zip(broods, prepared, strict=True):
        if bred is None or not bred.scored or len(bred.scored) < brood.evaluations:  # (or copies alone)
            assert bred is None or bred.results is None
            continue
        complete += 1
        assert breed_and_evaluate(brood, context, bred) is bred.results
        assert bred.results == breed_and_evaluate(brood, context, dataclasses.replace(bred, results=None))
    assert complete > len(broods) // 2


def test_the_caller_s_work_between_the_calls_runs_while_they_are_read_back_and_its_error_is_raised():
    """``between`` (the generation before's report, in a run) is called after each kernel call the reading
    thread gets back, the switch interval still lowered (the lane threads get the GIL soon from it);
    the interval is the interpreter's again once the calls are read. Without lane threads it is not
    called there (the job calls it after each brood). What it raises is raised from
    ``prepare_broods`` at once (the first call read), and the interval restored."""
    import sys

    from evo.sim.batch import LaneThreads

    broods, c = broods_of_a_converged_population(population=160)
    context = BreedContext(c.evaluation_spec(), c.genome, c.ga)
    alone = prepared_scores(batching.prepare_broods(broods, context))
    before = sys.getswitchinterval()
    seen: list = []
    with LaneThreads(2) as pool:
        threaded = batching.prepare_broods(
            broods, context.with_lane_threads(pool), between=lambda: seen.append(sys.getswitchinterval())
        )
    assert prepared_scores(threaded) == alone
    assert len(seen) >= 2 and seen == pytest.approx([batching.WINDOW_SWITCH_INTERVAL] * len(seen))
    assert sys.getswitchinterval() == before
    seen.clear()  # without lane threads (the interpreter's interval): left to the job, after each brood
    batching.prepare_broods(broods, context, between=lambda: seen.append(sys.getswitchinterval()))
    assert seen == []

    def stop():
        seen.append("stop")
        raise LookupError("the report's error")

    seen.clear()
    with LaneThreads(2) as pool, pytest.raises(LookupError, match="the report's error"):
        batching.prepare_broods(broods, context.with_lane_threads(pool), between=stop)
    assert seen == ["stop"] and sys.getswitchinterval() == before

    def interrupted():
        raise KeyboardInterrupt

    with LaneThreads(2) as pool, pytest.raises(KeyboardInterrupt):  # an interrupt goes on at once
        batching.prepare_broods(broods, context.with_lane_threads(pool), between=interrupted)
    assert sys.getswitchinterval() == before


def test_windows_of_two_chunks_at_once_keep_the_interval_low_until_the_last_closes():
    """Two chunks of one process making their creatures at once (two runs in two threads): the switch
    interval stays lowered until both are done, then is what it was before the first."""
    import sys

    before = sys.getswitchinterval()
    low = pytest.approx(batching.WINDOW_SWITCH_INTERVAL)
    try:
        batching._switching(+1)
        batching._switching(+1)
        batching._switching(-1)
        assert sys.getswitchinterval() == low
        batching._switching(-1)
        assert sys.getswitchinterval() == before
    finally:
        sys.setswitchinterval(before)


def test_calls_started_for_children_bred_otherwise_are_dropped_and_the_children_simulated_as_bred(
    monkeypatch,
):
    """A brood whose breeding fails after the compiled call (here: standing its children on the ground)
    has no children to simulate: the calls started for the call's children are dropped, and the others'
    are cut and run again, with the scores of one thread."""
    from evo.ga import brood as brood_module
    from evo.sim.batch import LaneThreads

    broods, c = broods_of_a_converged_population()
    context = BreedContext(c.evaluation_spec(), c.genome, c.ga)
    real = brood_module._stood
    failing = {"left": 1}

    def stood(children, world):  # the first brood with a new child fails
        if failing["left"] and any(child is not None for child in children):
            failing["left"] = 0
            raise RuntimeError("no ground here")
        return real(children, world)

    monkeypatch.setattr(brood_module, "_stood", stood)
    alone = prepared_scores(batching.prepare_broods(broods, context))
    closed: list = []
    real_taken = batching._EarlyCalls.taken

    def taken(early, rows):
        out = real_taken(early, rows)
        closed.append(early.runs is not None and out is None)
        return out

    monkeypatch.setattr(batching._EarlyCalls, "taken", taken)
    failing["left"] = 1
    with LaneThreads(2) as pool:
        threaded = prepared_scores(batching.prepare_broods(broods, context.with_lane_threads(pool)))
    assert closed == [True] and threaded == alone and alone.count(None) == 1


@fitness_plugin("rightward", weights=(1.0,), record_every=10)
def rightward(result, *, settle_frames: int = 0) -> float:
    """Centroid x displacement (px) from frame `settle_frames` to the end."""
    x = result.centroids[:, 0]
    return float(x[-1] - x[result.index_at(settle_frames)])


@compiled_reducer(rightward, reads=lambda constants: [constants[0]])
@nb.njit
def rightward_reducer(positions, frames, total_frames, constants, out):  # pragma: no cover
    moved = centroid(positions, positions.shape[0] - 1, 0) - centroid(
        positions, index_at(frames, constants[0]), 0
    )
    out[0] = np.nan if moved < 0 else moved  # declines a creature that moved left: the Python path scores it


def test_the_walkers_example_records_16_of_the_plugins_301_records_in_lanes():
    c = load_config(Path(__file__).resolve().parents[2] / "examples" / "walkers.toml")
    spec = c.evaluation_spec()
    assert (spec.frames, load_ref(c.plugin).record_every) == (3000, 10)
    assert BreedContext(spec, c.genome, c.ga).reducer.record_every == 200  # frames 0, 200, ..., 3000


def test_a_child_a_reducer_declines_from_a_runs_fewer_records_is_simulated_again_in_full():
    broods, c = broods_of_a_converged_population()
    spec = dataclasses.replace(c.evaluation_spec(), plugin=plugin_of(rightward).ref())
    context = BreedContext(spec, c.genome, c.ga)
    assert context.reducer.record_every == spec.frames  # the first record and the last only
    declined = scored = 0
    for brood, bred in zip(broods, batching.prepare_broods(broods, context), strict=True):
        results = breed_and_evaluate(brood, context, bred)
        for k, (child, seed) in enumerate(zip(bred.children, brood.plugin_seeds, strict=True)):
            if seed is None:
                continue
            assert k not in bred.trajectories  # none made of two records
            expected = evaluate(child, spec, seed)
            assert results[k].evaluation == expected
            scored += k in bred.scored
            declined += k not in bred.scored and expected.fitness[0] < 0
    assert scored > 0 and declined > 0


@pytest.mark.parametrize("batch", [True, False])
def test_the_batch_setting_may_change_when_a_run_resumes(tmp_path, batch):
    first = config(workers=1, batch=batch).replace(run={"generations": 3})
    evo.evolve(first, out=tmp_path / "run", progress=False)
    evo.evolve(config(workers=1, batch=not batch), out=tmp_path / "run", resume=True, progress=False)
    evo.evolve(config(workers=1), out=tmp_path / "whole", progress=False)
    assert different(tmp_path / "run", tmp_path / "whole") == []


def chunk_costs(broods, ids, chunks: int) -> np.ndarray:
    """Each chunk's cost as :func:`evo.run.batching.chunk_ids` weighs it (evaluations x the first parent's
    links and a creature's cost)."""
    cost = np.zeros(chunks)
    for brood, (_, chunk) in zip(broods, ids, strict=True):
        cost[chunk] += brood.evaluations * (brood.parents[0].n_links + batching.LINKS_PER_CREATURE_COST)
    return cost


def test_contended_workers_get_two_rounds_of_chunks_of_decreasing_cost_and_others_one_chunk_each():
    broods, _ = broods_of_a_converged_population(400)
    shares = batching.chunk_shares(2, contended=True)
    assert batching.chunk_shares(1, contended=True) == [1.0] and batching.chunk_shares(3) == [1 / 3] * 3
    assert len(shares) == 4 and abs(sum(shares) - 1.0) < 1e-12
    ids = batching.chunk_ids(broods, shares)
    assert sorted(rank for rank, _ in ids) == list(range(len(broods)))
    cost = chunk_costs(broods, ids, 4)
    share = cost / cost.sum()
    assert share[0] > 1.5 * share[2] and share[1] > 1.5 * share[3]  # the first round holds the larger chunks
    assert abs(share[:2].sum() - 2 / 3) < 0.1


def test_the_last_chunk_may_weigh_more_than_the_others_and_holds_that_much_more_of_the_cost():
    """Beside a local dask cluster the ``evo run`` process runs the last chunk: it is cut larger."""
    broods, _ = broods_of_a_converged_population(400)
    shares = batching.chunk_shares(2, last=1.5)
    assert shares == [0.4, 0.6] and batching.chunk_shares(3, last=1.0) == [1 / 3] * 3
    assert batching.chunk_shares(2, contended=True, last=1.5) == batching.chunk_shares(2, contended=True)
    cost = chunk_costs(broods, batching.chunk_ids(broods, shares), 2)
    assert abs(cost[1] / cost.sum() - 0.6) < 0.05


def test_two_workers_cut_for_guided_scheduling_write_the_files_of_one(tmp_path, monkeypatch):
    from evo.run.backends import fork

    seen = []

    def contended(self):  # every generation cut in two rounds, as after a worker was slowed
        seen.append(True)
        return True

    monkeypatch.setattr(
        fork.ForkPool, "contended", property(contended, lambda self, value: None), raising=False
    )
    big = config(workers=2, batch=True, backend="fork").replace(run={"population": 80, "generations": 3})
    evo.evolve(big, out=tmp_path / "guided", progress=False)
    assert seen  # the generations asked for it
    evo.evolve(big.replace(pool={"workers": 1}), out=tmp_path / "one", progress=False)
    assert different(tmp_path / "guided", tmp_path / "one") == []


def test_the_reducer_is_warmed_for_a_plugin_that_has_one_and_not_when_measures_are_asked_for():
    import dataclasses

    spec = config(workers=1).evaluation_spec()
    assert batching.warm_reducer(spec) is True
    assert batching.warm_reducer(dataclasses.replace(spec, measures=("speed",))) is False
