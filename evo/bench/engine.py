"""The ``engine`` section of ``python -m evo bench``: issue 29's targets 1, 2, 3 and 6 in one run, as CPU-time
ratios of whole runs (this process and its workers) measured interleaved, so that a busy machine barely
moves them; and whether the run folders are byte-identical across workers, backends and batching.
How to read it: docs/performance.md, "Issue 29"."""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evo.bench import best_time
from evo.bench.evolution import bench_config, walkers_config
from evo.fitness import load_ref
from evo.io.folder_digest import folder_digest
from evo.run.backends import default_workers
from evo.run.callbacks import Callback
from evo.run.evolve import run_prepared
from evo.run.folder import FolderWriter, prepare
from evo.run.shards.engine import CALLS_PER_WORKER, FEWEST
from evo.run.shards.shared import claims

__all__ = [
    "balanced_halves", "cpu_parts", "engine_section", "generation_children", "laid_out",
    "lane_threads_speedup", "process_halves_speedup", "run_record_every", "shipping_share", "whole_run",
]  # fmt: skip

GENERATIONS = 120  # examples/walkers.toml whole, as issue 29's target 1 is stated
REPEATS = 3  # at most, whatever --repeats says: a walkers run is seconds, and there are six kinds
IGNORED = ("run.log", "config.toml")  # the log's times and the [pool] table differ between the runs


def cpu_parts() -> tuple[float, float]:
    """CPU seconds of this process, and of its finished (waited-for) children: the workers of a pool
    that was shut down."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (:func:`cpu_parts`, summed)."""
    return sum(cpu_parts())


def whole_run(config, folder: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its workers) of a whole run of ``config`` into
    ``folder``: the pool's start, generation 0, every generation and its files, the pool's end."""
    start, cpu = time.perf_counter(), _cpu()
    prepared = prepare(config, out=folder, force=True)
    run_prepared(prepared, [FolderWriter(prepared)])
    return time.perf_counter() - start, _cpu() - cpu


def generation_children(config) -> list[list]:
    """The creatures a run of ``config`` evaluates, generation by generation (an untimed in-process run
    without batching that records them: the children are the same in any run of the config)."""
    from evo.fitness.evaluate import evaluate

    per_generation: list[list] = [[]]

    def recording(creature, spec, seed):
        per_generation[-1].append(creature)
        return evaluate(creature, spec, seed)

    class _Cut(Callback):  # a new list for each generation told
        def on_generation_told(self, status: Any) -> None:
            per_generation.append([])

    prepared = prepare(config.replace(pool={"workers": 1, "batch": False}))
    run_prepared(prepared, [_Cut()], evaluate=recording)
    return [children for children in per_generation if children]


def bare_batched_kernel(config, generations: list[list], every: float | None = None) -> float:
    """CPU seconds of :func:`evo.sim.simulate_batch` alone on each generation's children, one call per
    generation (after a warm-up), recording every ``every`` frames (default: the plugin's
    ``record_every``, as issue 29 states target 1)."""
    from evo.sim import simulate_batch, warm_up

    every = every or load_ref(config.plugin).record_every
    warm_up(config.world)
    simulate_batch(generations[0][:8], config.world, 10, every)
    start = _cpu()
    for children in generations:
        simulate_batch(children, config.world, config.evaluation.frames, every)
    return _cpu() - start


def run_record_every(config) -> float:
    """Frames between the records a run's lanes make: the plugin's compiled reducer's interval where it
    says what it reads (:func:`evo.fitness.reducers.sparse_record_every`), else the plugin's own."""
    from evo.run.batching import bound_reducer

    bound = bound_reducer(config.evaluation_spec())
    if bound is not None and bound.record_every:
        return bound.record_every
    return load_ref(config.plugin).record_every


def laid_out(generations: list[list]) -> list:
    """Each generation's children laid end to end with their rows (:class:`evo.sim.laid.Laid`), as a run
    hands them to its lanes: from generation 1 on, where every child is at rest, free and of the applet's
    physics (as the compiled brood makes them); None for the others."""
    from evo.sim.laid import Laid

    return [
        (Laid.of(children), np.arange(len(children)))
        if g and children and all(map(Laid.holds, children))
        else None
        for g, children in enumerate(generations)
    ]


def _kernel_calls_seconds(config, generations: list[list], laid: list, threads: Any = None) -> float:
    """Wall seconds of each generation's children through :func:`evo.sim.batch.lane_runs` (recording as
    the run does, from ``laid``: :func:`laid_out`'s, one per generation), on ``threads`` (None: this one)."""
    from evo.sim.batch import lane_runs

    every = run_record_every(config)
    start = time.perf_counter()
    for children, rows in zip(generations, laid, strict=False):
        _, calls = lane_runs(
            children, config.world, config.evaluation.frames, every, threads=threads, laid=rows
        )
        for _ in calls:
            pass
    return time.perf_counter() - start


def lane_threads_speedup(config, generations: list[list], repeats: int) -> float:
    """How much faster two lane threads run a run's kernel calls alone than one thread: wall seconds of
    each generation's children through :func:`evo.sim.batch.lane_runs` (recording as the run does, from
    their arrays laid end to end as the run has them: :func:`laid_out`), cut for one thread and run in
    this one, over the same cut for two lane threads and run on them, least of ``repeats`` interleaved.
    No Python runs between the calls: the most the ``threads`` backend's second worker can give a run of
    this design on this machine (the children a run simulates one by one are left out of both)."""
    from evo.sim.batch import LaneThreads

    laid = laid_out(generations)
    with LaneThreads(2) as pool:
        _kernel_calls_seconds(config, [generations[0][:16]], laid, pool)  # compiled (or loaded) first
        alone = two = float("inf")
        for _ in range(repeats):
            alone = min(alone, _kernel_calls_seconds(config, generations, laid))
            two = min(two, _kernel_calls_seconds(config, generations, laid, pool))
    return alone / two


def balanced_halves(costs: list[float]) -> tuple[list[int], list[int]]:
    """The positions of ``costs`` in two halves of near-equal sums: the costliest first, each to the half
    with the smaller sum so far (ties to the first), each half in the order its positions were given."""
    halves: tuple[list[int], list[int]] = ([], [])
    sums = [0.0, 0.0]
    for at in sorted(range(len(costs)), key=lambda k: -costs[k]):
        half = 0 if sums[0] <= sums[1] else 1
        halves[half].append(at)
        sums[half] += costs[at]
    return sorted(halves[0]), sorted(halves[1])


def _run_half(
    calls: list[list],
    world: Any,
    steps: tuple[int, int],
    start: Any,
    between: Any,
    out: Any,
    counter: Any = None,
) -> None:
    """In a forked process: each generation's kernel calls of one half, ``between`` (a barrier of the
    two halves) passed after each generation, once ``start`` (the parent's barrier) is passed; then the
    times it began and ended (``time.perf_counter``, one clock for every process) sent on ``out``, or
    None if it failed (the barriers broken, so that no process waits for it). With ``counter`` (a shared
    ``multiprocessing.Value``), ``calls`` are every generation's whole cut, the same in both processes,
    and each takes its calls one at a time from the counter, as the ``shards`` workers take theirs."""
    try:
        start.wait()
        began, base = time.perf_counter(), 0
        for generation in calls:
            for at in range(len(generation)) if counter is None else claims(counter, base, len(generation)):
                run, batch, rows = generation[at]
                run(batch, world, *steps, *rows)
            base += len(generation) + 2  # (each process takes one number past the last call)
            if between is not None:
                between.wait()
        out.send((began, time.perf_counter()))
    except BaseException:
        for barrier in (start, between):
            if barrier is not None:
                barrier.abort()
        out.send(None)


def _shards_cut(children: list, rows: Any, world: Any, workers: int) -> list:
    """A generation's kernel calls as ``workers`` shards workers cut them (about
    :data:`~evo.run.shards.engine.CALLS_PER_WORKER` a worker, costliest first: ``ShardState._cut``), each
    (run, its creatures, the rows it reads)."""
    from evo.sim.batch import _costliest_first, _kernel_calls, _rows

    cut = _kernel_calls(children, world, CALLS_PER_WORKER * workers, rows)[1]
    order, _ = _costliest_first(cut, children, rows)
    return [(cut[i][0], [children[k] for k in cut[i][1]], _rows(rows, cut[i][1])) for i in order]


def process_halves_speedup(
    config, generations: list[list], repeats: int, *, barrier: bool = True, claimed: bool = False
) -> float:
    """How much faster two processes run a run's kernel calls than one, with nothing but a barrier after
    each generation between them (none without ``barrier``): each generation's kernel calls, cut for two
    threads as the ``threads`` backend cuts them, split into two halves balanced on their times measured
    here (:func:`balanced_halves`), against the calls cut for one thread run in this process; wall
    seconds, least of ``repeats`` interleaved. No GIL, no cut, no Python between the calls: about the
    most any design whose generations wait for their children gets from a second core of this machine on
    these calls. ``claimed``: instead, each generation's calls cut as two ``shards`` workers cut them,
    taken one at a time from a shared counter (:func:`_shards_cut`, :func:`evo.run.shards.shared.claims`),
    against the cut of one shards worker run in this process: the most the shards design's kernel calls
    give."""
    import multiprocessing

    from evo.sim.batch import _kernel_calls, _rows, steps_for

    every = run_record_every(config)
    world, frames = config.world, config.evaluation.frames
    steps = (steps_for(frames, world.dt), steps_for(every, world.dt, "record_every"))
    laid = laid_out(generations)
    pairs = list(zip(generations, laid, strict=True))
    if claimed:
        cut = [_shards_cut(children, rows, world, 2) for children, rows in pairs]
        alone = [_shards_cut(children, rows, world, 1) for children, rows in pairs]
    else:
        cut = [
            [
                (run, [children[k] for k in members], _rows(rows, members))
                for run, members in _kernel_calls(children, world, 2, rows)[1]
            ]
            for children, rows in pairs
        ]
    for run, batch, _ in cut[0][:1]:  # compiled (or loaded) before the timing
        run(batch[:8], world, *steps)
    halves: tuple[list, list] = ([], [])
    for calls in [] if claimed else cut:  # each call timed once, then the generation's calls split by those
        costs = []
        for run, batch, rows in calls:
            start = time.perf_counter()
            run(batch, world, *steps, *rows)
            costs.append(time.perf_counter() - start)
        for half, positions in zip(halves, balanced_halves(costs), strict=True):
            half.append([calls[at] for at in positions])
    parts = (cut, cut) if claimed else halves

    fork = multiprocessing.get_context("fork")

    def one() -> float:
        if not claimed:
            return _kernel_calls_seconds(config, generations, laid)
        start = time.perf_counter()
        for calls in alone:
            for run, batch, rows in calls:
                run(batch, world, *steps, *rows)
        return time.perf_counter() - start

    def two() -> float:  # from the start barrier to the later half's end (not the processes' exits)
        start, between = fork.Barrier(3), fork.Barrier(2) if barrier else None
        counter = fork.Value("q", 0) if claimed else None
        pipes = [fork.Pipe(duplex=False) for _ in parts]
        processes = [
            fork.Process(target=_run_half, args=(part, world, steps, start, between, sending, counter))
            for part, (_, sending) in zip(parts, pipes, strict=True)
        ]
        for process in processes:
            process.start()
        for _, sending in pipes:  # the processes' copies only: a process that dies ends its pipe
            sending.close()
        try:
            start.wait(timeout=120)
            spans = [receiving.recv() for receiving, _ in pipes]  # (each half's start and end)
        except (threading.BrokenBarrierError, EOFError):
            spans = [None]
        if None in spans:  # the other process may wait at a barrier for the one that died
            for process in processes:
                process.terminate()
        for process in processes:
            process.join()
        if None in spans:
            raise RuntimeError("a process running half of the kernel calls failed")
        return max(end for _, end in spans) - min(began for began, _ in spans)

    least_one = both = float("inf")
    for _ in range(repeats):
        least_one = min(least_one, one())
        both = min(both, two())
    return least_one / both


def _kernel_cpu(config, children: list, out: Any) -> None:
    """In a forked process: CPU seconds of :func:`evo.sim.simulate_batch` on ``children``, sent on ``out``."""
    from evo.sim import simulate_batch

    every = load_ref(config.plugin).record_every
    start = time.thread_time()
    simulate_batch(children, config.world, config.evaluation.frames, every)
    out.send(time.thread_time() - start)


def concurrent_kernels(config, children: list, repeats: int) -> float:
    """CPU seconds per evaluation of the bare batched kernel in two processes at once (each on half of
    ``children``) over that of one process alone on all of them, least of ``repeats`` interleaved: what
    two workers' simulation costs more than one worker's on this machine's cores whatever the design
    around it (shared caches and memory bandwidth, cores that are hardware threads of one)."""
    import multiprocessing

    fork = multiprocessing.get_context("fork")
    bare_batched_kernel(config, [children[:8]])  # compiled before the processes fork

    def run(shares: list[list]) -> float:
        pipes = [fork.Pipe(duplex=False) for _ in shares]
        processes = [
            fork.Process(target=_kernel_cpu, args=(config, share, sending))
            for share, (_, sending) in zip(shares, pipes, strict=True)
        ]
        for process in processes:
            process.start()
        spent = sum(receiving.recv() for receiving, _ in pipes)
        for process in processes:
            process.join()
        return spent

    half = len(children) // 2
    alone = two = float("inf")
    for _ in range(repeats):
        alone = min(alone, run([children]))
        two = min(two, run([children[:half], children[half:]]))
    return two / alone


def shipping_share(config, generations: int = 12) -> dict[str, float]:
    """What a fork worker's chunk spends on pickling: a run of ``config`` driven by hand for
    ``generations`` generations, then the last generation's broods (half of them: one worker's chunk of
    two) and their results pickled and unpickled, against the CPU seconds of breeding and evaluating
    them. The bound on what sending parents as arrays and results as arrays could save."""
    import pickle

    from evo.run.job import BreedContext, breed_and_evaluate
    from evo.run.job import prepare as prepare_chunk

    context = BreedContext(config.evaluation_spec(), config.genome, config.ga)
    evolution = prepare(config.replace(pool={"workers": 1})).evolution
    for _ in range(generations):
        broods = list(evolution.ask().broods)
        results = [
            breed_and_evaluate(b, context, x)
            for b, x in zip(broods, prepare_chunk(broods, context), strict=True)
        ]
        evolution.tell([r for kids in results for r in kids])
    chunk = broods[: len(broods) // 2]
    tasks = list(enumerate(chunk))
    start = time.thread_time()
    done = [
        breed_and_evaluate(b, context, x) for b, x in zip(chunk, prepare_chunk(chunk, context), strict=True)
    ]
    work = time.thread_time() - start

    def least(repeat: Any) -> float:  # CPU seconds, least of 5 (one slow repeat is the machine, not pickle)
        return best_time(repeat, 5, clock=time.thread_time)

    def round_trip(value: Any) -> Any:
        return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))

    shipping = least(lambda: (round_trip(tasks), round_trip(done)))
    kids = [r.creature for results in done for r in results if r.creature is not None]
    objects = least(lambda: round_trip(done))
    arrays = least(lambda: _rebuilt(round_trip(_packed(done)), kids))
    return {
        "chunk_cpu_s": work,
        "pickling_cpu_s": shipping,
        "share": shipping / work,
        "results_as_objects_cpu_s": objects,
        "results_as_arrays_cpu_s": arrays,
    }


# (module, class or "", function, phase): what cpu_breakdown times, CPU seconds of the calling thread
# cpu_breakdown's phases that lane threads share as they share the kernel calls (round twenty): each
# call's lanes scored by the thread that ran it, and the compiled breeding call made in parts
SCORING_ON_THREADS = "scoring: the compiled reducer (with lane threads, on the calls' threads)"
BRED_IN_PARTS = "breeding: the compiled call (in parts on lane threads)"

_PHASES = (
    ("evo.sim.kernels.batch_euler", "", "run_euler_batch", "the batched kernel"),
    ("evo.sim.batch", "", "_run_euler", "lanes: packing, records"),
    ("evo.run.batching", "", "reduce_outputs", SCORING_ON_THREADS),
    ("evo.run.batching", "", "_score_calls", "scoring: the chunk's evaluations handed on"),
    ("evo.ga.kernels.brood", "", "_bred", BRED_IN_PARTS),
    ("evo.run.batching", "", "bred_broods", "breeding: the rest (creatures made)"),
    ("evo.run.generations", "", "_tasks", "chunking"),
    ("evo.ga.loop", "Evolution", "ask", "selection (ask)"),
    ("evo.ga.loop", "Evolution", "tell_later", "tell (hall of fame, statistics)"),
    ("evo.run.generations", "_Later", "__call__", "the generation before's status, callbacks"),
    ("evo.run.folder.writer", "FolderWriter", "_write_checkpoint", "files: checkpoint, history (thread)"),
    ("evo.run.folder.writer", "FolderWriter", "_derived", "files: elites, generation best (thread)"),
    # the generations made from arrays (the shards backend's path; one worker's by default: round thirty)
    ("evo.run.shards.state", "ShardState", "planned", "arrays: selection"),
    ("evo.run.shards.state", "ShardState", "bred", "arrays: breeding (one compiled call)"),
    ("evo.run.shards.state", "ShardState", "scored", "arrays: the calls' lanes and scoring"),
    ("evo.run.shards.state", "ShardState", "moved_on", "arrays: moving on"),
    ("evo.ga.loop", "Evolution", "tell_bred_in_pieces", "arrays: tell (hall of fame, statistics)"),
    ("evo.run.shards.books", "", "told_status", "arrays: the generation's status"),
    ("evo.run.shards.engine", "", "reported_and_stopped", "arrays: the report before, callbacks"),
)
# the phases of the generations made from arrays
ARRAY_PHASES = tuple(phase for _, _, _, phase in _PHASES if phase.startswith("arrays: "))


# the phases lane threads share out as they do the kernel calls
ON_THE_THREADS = ("the batched kernel", "lanes: packing, records", SCORING_ON_THREADS, BRED_IN_PARTS)
# cpu_breakdown's part of breeding, tell and other that lane threads overlap with the kernel calls
BESIDE_THE_CALLS = "bookkeeping and creatures made beside the kernel calls (of the above)"


def cpu_breakdown(config, folder: Path, backend: str | None = None) -> dict[str, float]:
    """Where a whole 1-worker run of ``config`` (on ``backend``, default the default: from arrays where
    it can) into ``folder`` spends its CPU: seconds of each phase of
    :data:`_PHASES` (thread CPU time inside the named functions, less that of phases called within:
    the lanes' phase less the kernel it calls, breeding less the generation before's bookkeeping done
    inside it: its tell's second part, its status and callbacks), ``total`` (this process, every
    thread) and ``other`` (the rest: start-up, generation 0's random creatures, the job's bookkeeping,
    the pool's ends); and, of those, :data:`BESIDE_THE_CALLS`:
    from the compiled breeding's handing on of the children's arrays to the end of making their creatures
    (the generation before's bookkeeping done first), which runs beside their kernel calls on lane
    threads (rounds eighteen and nineteen)."""
    import importlib
    import inspect
    import threading

    from evo.run.batching import _EarlyCalls

    spent = {phase: 0.0 for *_, phase in _PHASES}
    patched: list[tuple[Any, str, Any]] = []
    window = {"spent": 0.0}  # from the compiled breeding's handing on of its arrays to the creatures' end
    nested = threading.local()  # per thread: the CPU time of phases called within the one under way

    def opened(early: Any, *args: Any) -> None:
        window[id(early)] = time.thread_time()
        handed(early, *args)

    def made(early: Any, *args: Any) -> Any:  # the creatures are made: the calls' iterator is taken
        start = window.pop(id(early), None)
        if start is not None:
            window["spent"] += time.thread_time() - start
        return taken(early, *args)

    handed, taken = _EarlyCalls.__call__, _EarlyCalls.taken
    patched += [(_EarlyCalls, "__call__", handed), (_EarlyCalls, "taken", taken)]
    _EarlyCalls.__call__, _EarlyCalls.taken = opened, made  # type: ignore[method-assign]

    def timed(function: Any, phase: str, deferred: bool = False) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            outer = getattr(nested, "spent", 0.0)
            nested.spent = 0.0
            start = time.thread_time()
            try:
                out = function(*args, **kwargs)
            finally:
                took = time.thread_time() - start
                spent[phase] += took - nested.spent
                nested.spent = outer + took
            return timed(out, phase) if deferred else out  # the work it hands back, timed too

        return wrapper

    def pieces(function: Any, phase: str) -> Any:  # a generator function: each piece timed as done
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            steps = function(*args, **kwargs)
            while True:
                step = timed(functools.partial(next, steps), phase)
                try:
                    step()
                except StopIteration as done:
                    return done.value
                yield

        return wrapper

    for module, owner, name, phase in _PHASES:
        target = importlib.import_module(module)
        if owner:
            target = getattr(target, owner)
        original = getattr(target, name)
        patched.append((target, name, original))
        if inspect.isgeneratorfunction(original):
            setattr(target, name, pieces(original, phase))
        else:
            setattr(target, name, timed(original, phase, deferred=name in ("_derived", "tell_later")))
    try:
        pool = {"workers": 1} | ({"backend": backend} if backend else {})
        _, total = whole_run(config.replace(pool=pool), folder)
    finally:
        for target, name, original in reversed(patched):
            setattr(target, name, original)
    spent["total"] = total
    spent["other"] = total - sum(value for key, value in spent.items() if key != "total")
    spent[BESIDE_THE_CALLS] = window["spent"]
    return spent


def _packed(done: list) -> tuple:
    """A chunk's results as a few arrays: each child's genome end to end, its fitness and explosion."""
    kids = [r for results in done for r in results if r.creature is not None]
    creatures = [r.creature for r in kids]
    return (
        np.array([[c.n_masses, c.n_links] for c in creatures]),
        np.concatenate([c.positions for c in creatures]),
        np.concatenate([np.stack([c.link_a, c.link_b]) for c in creatures], axis=1),
        np.concatenate([np.stack([c.rest, c.alpha, c.phi]) for c in creatures], axis=1),
        np.array([[c.omega, c.beta] for c in creatures]),
        np.array([r.evaluation.fitness for r in kids]),
        np.array([r.evaluation.exploded for r in kids]),
    )


def _rebuilt(packed: tuple, templates: list) -> list:
    """The creatures of :func:`_packed`'s arrays, made as breeding makes them (the parent would take
    each child's name, wave and polygons from its parent, here from ``templates``)."""
    from evo.ga.body import assemble

    sizes, positions, links, genes, waves, _, _ = packed
    out, i, j = [], 0, 0
    for (n, m), (omega, beta), template in zip(sizes.tolist(), waves.tolist(), templates, strict=True):
        own = positions[i : i + n].copy(), links[:, j : j + m].copy(), genes[:, j : j + m].copy()
        out.append(assemble(*own, omega, beta, False, template))
        i, j = i + n, j + m
    return out


def _default_count(config):
    """``config`` with the worker count a run started now gets by default."""
    return config.replace(pool={"workers": default_workers()})


class _Busy:
    """Another process busy on one core (a Python loop) while the block runs."""

    def __enter__(self) -> _Busy:
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        self.process.wait()


def _bare_kernels(config, children: list, sparse: float, into: dict[str, list[float]]) -> None:
    """:func:`bare_batched_kernel` once recording as the plugin asks (``into["kernel"]``) and once as
    the run's lanes do (every ``sparse`` frames: ``into["same records"]``), measured between the whole
    runs' rounds (:func:`_runs`) so that target 1 compares figures of the same spell of the host."""
    into["kernel"].append(bare_batched_kernel(config, children))
    into["same records"].append(bare_batched_kernel(config, children, sparse))


def _runs(
    config, repeats: int, tmp: Path, kinds: dict[str, Any], each_round: Callable[[], Any] | None = None
) -> dict[str, dict[str, float]]:
    """Each kind's whole runs, interleaved ``repeats`` times: the least wall and CPU seconds, and the
    folder digest of its last run. A kind is (config, busy), the config made in the busy block when it is
    a function. ``each_round``: called before each round's runs (what the runs are compared with,
    measured among them: a slower spell of the host then weighs on both)."""
    best: dict[str, dict[str, Any]] = {}
    for _ in range(repeats):
        if each_round is not None:
            each_round()
        for name, (cfg, busy) in kinds.items():
            if busy:
                with _Busy():
                    time.sleep(0.3)  # the busy process running, as the default worker count would see it
                    made = cfg() if callable(cfg) else cfg
                    wall, cpu = whole_run(made, tmp / name)
            else:
                made = cfg
                wall, cpu = whole_run(cfg, tmp / name)
            seen = best.setdefault(name, {"wall": wall, "cpu": cpu})
            seen["workers"] = made.pool.workers
            seen["wall"], seen["cpu"] = min(seen["wall"], wall), min(seen["cpu"], cpu)
            seen["digest"] = folder_digest(tmp / name, IGNORED)
    return best


def _dask_once(config, repeats: int, tmp: Path) -> dict[str, float]:
    """What the local dask cluster costs once beyond the fork pool: CPU seconds of 1-generation runs of
    both (least of the repeats), the cluster started first. (Until round thirty-two this also bounded
    target 3's ratio, when a dask generation ran the fork pool's chunks; it now makes the generations
    from arrays: docs/performance.md.)"""
    once = config.replace(run={"generations": 1})
    kinds = {
        "fork": (once.replace(pool={"workers": 2, "backend": "fork"}), False),
        "dask": (once.replace(pool={"workers": 2, "backend": "dask"}), False),
    }
    from evo.run.backends.dask_pool import started_first

    with started_first():  # the whole start and close, not a start cut short by a 1-generation run's end
        runs = _runs(once, repeats, tmp, kinds)
    return {"dask_once_cpu_s": runs["dask"]["cpu"] - runs["fork"]["cpu"]}


def _shares(title: str, parts: dict[str, float]) -> str:
    """``title``, then each phase of a :func:`cpu_breakdown` that took any CPU as a share of the total."""
    total = parts["total"]
    return title + ", ".join(
        f"{name} {100 * value / total:.1f} %"
        for name, value in parts.items()
        if name != "total" and (value > 0 or name == "other")
    )


def engine_section(args: argparse.Namespace):
    """The ``engine`` section of ``python -m evo bench`` (``--sections engine``)."""
    from evo.bench import Section

    generations = int(getattr(args, "walkers_generations", GENERATIONS) or GENERATIONS)
    repeats = max(1, min(int(getattr(args, "repeats", REPEATS)), REPEATS))
    walkers = walkers_config(generations)
    bench = bench_config(generations=int(getattr(args, "generations", 3) or 3))
    population, frames = getattr(args, "population", None), getattr(args, "frames", None)
    if population or frames:  # smaller runs (the section's test)
        changes = {"run": {"population": population}} if population else {}
        walkers, bench = (
            c.replace(**changes, evaluation={"frames": frames or c.evaluation.frames})
            for c in (walkers, bench)
        )
    dask = importlib.util.find_spec("distributed") is not None
    out: dict[str, Any] = {"generations": generations, "repeats": repeats, "cpus": os.cpu_count()}
    lines = [
        f"whole runs (pool start, generation 0, every file written), CPU seconds of this process and its"
        f" workers, least of {repeats} interleaved repeats (the bare batched kernel measured before each"
        f" round of them); {os.cpu_count()} CPUs, load average"
        f" {os.getloadavg()[0]:.1f} at the start"
    ]
    with tempfile.TemporaryDirectory(prefix="evo-bench-engine-") as tmp:
        for label, config in (("walkers", walkers), ("bench", bench)):
            children = generation_children(config)
            evaluations = sum(len(c) for c in children)
            kinds = {
                "one": (config.replace(pool={"workers": 1}), False),  # the default: from arrays
                "one_inprocess": (config.replace(pool={"workers": 1, "backend": "inprocess"}), False),
                "two": (config.replace(pool={"workers": 2}), False),  # the default: shards
                "threads": (config.replace(pool={"workers": 2, "backend": "threads"}), False),
                "fork": (config.replace(pool={"workers": 2, "backend": "fork"}), False),
                "one_unbatched": (config.replace(pool={"workers": 1, "batch": False}), False),
            }
            if label == "walkers":
                kinds["one_busy"] = (config.replace(pool={"workers": 1}), True)
                # the default count as a run started beside the busy process picks it
                beside_busy = functools.partial(_default_count, config)
                kinds["default_busy"] = (beside_busy, True)
                if dask:
                    kinds["dask"] = (config.replace(pool={"workers": 2, "backend": "dask"}), False)
            sparse = run_record_every(config)  # the run's lanes record only what the reducer reads
            bare: dict[str, list[float]] = {"kernel": [], "same records": []}
            concurrent = concurrent_kernels(
                config, [c for generation in children[1:] for c in generation], repeats
            )
            threaded = lane_threads_speedup(config, children, repeats)
            in_processes = process_halves_speedup(config, children, repeats)
            unbound = process_halves_speedup(config, children, repeats, barrier=False)
            claimed = process_halves_speedup(config, children, repeats, claimed=True)
            each_round = functools.partial(_bare_kernels, config, children, sparse, bare)
            runs = _runs(config, repeats, Path(tmp) / label, kinds, each_round)
            kernel, same_records = min(bare["kernel"]), min(bare["same records"])
            row = {"evaluations": evaluations, "kernel_cpu_s": kernel} | {
                f"{name}_{key}": value for name, seen in runs.items() for key, value in seen.items()
            }
            row["run_vs_kernel_cpu"] = kernel / runs["one"]["cpu"]
            row["inprocess_vs_kernel_cpu"] = kernel / runs["one_inprocess"]["cpu"]
            row["inprocess_vs_one_cpu_per_evaluation"] = runs["one_inprocess"]["cpu"] / runs["one"]["cpu"]
            row["run_record_every"] = sparse
            row["kernel_same_records_cpu_s"] = same_records
            row["run_vs_kernel_same_records_cpu"] = same_records / runs["one"]["cpu"]
            row["two_vs_one_cpu_per_evaluation"] = runs["two"]["cpu"] / runs["one"]["cpu"]
            row["two_vs_one_wall"] = runs["one"]["wall"] / runs["two"]["wall"]
            row["fork_vs_one_cpu_per_evaluation"] = runs["fork"]["cpu"] / runs["one"]["cpu"]
            row["fork_vs_one_wall"] = runs["one"]["wall"] / runs["fork"]["wall"]
            row["threads_vs_one_cpu_per_evaluation"] = runs["threads"]["cpu"] / runs["one"]["cpu"]
            row["threads_vs_one_wall"] = runs["one"]["wall"] / runs["threads"]["wall"]
            row["two_kernels_vs_one_cpu"] = concurrent
            row["lane_threads_speedup"] = threaded
            row["process_halves_speedup"] = in_processes
            row["process_halves_unbound_speedup"] = unbound
            row["process_claimed_speedup"] = claimed
            row["two_vs_claimed_ceiling"] = row["two_vs_one_wall"] / claimed
            digests = {seen["digest"] for seen in runs.values()}
            row["identical_folders"] = len(digests) == 1
            lines.append(
                f"{label} ({config.run.population} x {config.run.generations} generations, {evaluations}"
                f" evaluations): target 1, 1 worker {row['run_vs_kernel_cpu']:.2f} x the bare batched kernel"
                f" per CPU-second (>= 0.9); target 2, 2 workers (the default: shards"
                + (
                    f", which runs a run with fewer than {FEWEST + 1} generations as threads"
                    if config.run.generations < FEWEST + 1
                    else ""
                )
                + f") {row['two_vs_one_cpu_per_evaluation']:.2f} x the CPU per evaluation of 1 (<= 1.05),"
                f" {row['two_vs_one_wall']:.2f} x its wall rate (>= 1.85); 2 threads"
                f" {row['threads_vs_one_cpu_per_evaluation']:.2f} x and {row['threads_vs_one_wall']:.2f} x;"
                f" 2 forked workers {row['fork_vs_one_cpu_per_evaluation']:.2f} x and"
                f" {row['fork_vs_one_wall']:.2f} x"
            )
            every = load_ref(config.plugin).record_every
            lines.append(
                f"  the run's lanes record every {sparse:g} frames (what the plugin's compiled reducer"
                f" reads), the bare kernel every {every:g} (the plugin's record_every): against a bare kernel"
                f" recording as the run does, 1 worker {row['run_vs_kernel_same_records_cpu']:.2f} x"
            )
            lines.append(
                "  1 worker on the inprocess backend (the 1-worker default before round thirty: each child"
                " made a creature, then simulated; the default makes the generations after the first from"
                f" arrays): {row['inprocess_vs_one_cpu_per_evaluation']:.2f} x the default's CPU per"
                " evaluation,"
                f" {row['inprocess_vs_kernel_cpu']:.2f} x the bare batched kernel per CPU-second"
            )
            lines.append(
                f"  the bare batched kernel alone in two processes at once costs {concurrent:.2f} x the CPU"
                f" per evaluation of one process: the floor of target 2 for worker processes on this machine"
            )
            if label == "walkers":
                busy = runs["one_busy"]["wall"] / runs["default_busy"]["wall"]
                row["default_vs_one_busy_wall"] = busy
                lines.append(
                    f"  another process busy on a core: the default worker count"
                    f" ({runs['default_busy']['workers']} beside it) runs {busy:.2f} x the wall rate of"
                    f" 1 worker (>= 1)"
                )
                if dask:
                    row["dask_vs_fork_wall"] = runs["fork"]["wall"] / runs["dask"]["wall"]
                    row["dask_vs_fork_cpu"] = runs["fork"]["cpu"] / runs["dask"]["cpu"]
                    row["dask_vs_two_wall"] = runs["two"]["wall"] / runs["dask"]["wall"]
                    row |= _dask_once(config, repeats, Path(tmp) / "dask_once")
                    lines.append(
                        f"  target 3, dask local cluster of 2: {row['dask_vs_fork_wall']:.2f} x the fork"
                        f" pool's wall rate (>= 0.95), {row['dask_vs_fork_cpu']:.2f} x per CPU-second"
                        f" ({row['dask_vs_two_wall']:.2f} x the wall rate of the default 2 workers);"
                        f" its start and close alone cost {row['dask_once_cpu_s']:.2f} CPU-s more than the"
                        " fork pool's (1-generation runs)"
                    )
            lines.append(
                f"  target 6, run folders byte-identical across {', '.join(runs)}: {row['identical_folders']}"
            )
            row["cpu_breakdown"] = default = cpu_breakdown(config, Path(tmp) / label / "breakdown")
            title = f"  where 1 worker's {default['total']:.2f} CPU-s go (the default): "
            lines.append(_shares(title, default))
            # the threads design's ceilings: from the path its main thread runs, the inprocess backend's
            inprocess = cpu_breakdown(config, Path(tmp) / label / "breakdown_inprocess", "inprocess")
            row["cpu_breakdown_inprocess"] = parts = inprocess
            lines.append(_shares(f"  and on the inprocess backend ({parts['total']:.2f} CPU-s): ", parts))
            # target 2's ceiling: the kernel, its packing, each call's scoring and the compiled breeding
            # run on the lane threads, the files on the writer's thread beside them, the rest on the
            # main thread between them
            on_threads = sum(parts[name] for name in ON_THE_THREADS) / parts["total"]
            # (the bookkeeping and creatures made beside the calls: while a lane thread runs them, they
            # take as long as the calls they overlap, a part of the work that runs on two threads)
            beside = parts[BESIDE_THE_CALLS] / parts["total"]
            files = sum(v for k, v in parts.items() if k.endswith("(thread)")) / parts["total"]
            serial = 1.0 - on_threads - files - beside
            row["two_threads_serial_share"] = serial
            row["two_threads_amdahl"] = 1.0 / (serial + (on_threads + beside) / threaded)
            lines.append(
                f"  target 2's ceiling in the threads design: the run's kernel calls alone run {threaded:.2f}"
                " x as fast on two lane threads as on one (nothing between them); with the rest of 1"
                " worker's inprocess CPU but the files and the work beside the calls"
                f" ({100 * serial:.0f} %: the creatures' and evaluations' bookkeeping, ask, tell) on the main"
                f" thread between them, Amdahl's law gives {row['two_threads_amdahl']:.2f} x"
            )
            # the serial share s at which 1 / (s + (1 - s) / p) is the target's 1.85 x
            needed = (1 / 1.85 - 1 / in_processes) / (1 - 1 / in_processes) if in_processes > 1.85 else 0.0
            row["two_workers_serial_share_needed"] = needed
            lines.append(
                f"  target 2's ceiling on this machine: the same kernel calls, each generation's split in two"
                f" halves of equal measured time, run {in_processes:.2f} x as fast in two processes as in"
                f" one, with nothing but a barrier between generations (no GIL, no cut, no Python); "
                + (
                    f"a run whose kernel calls scale so reaches 1.85 x with at most {100 * needed:.1f} % of"
                    f" 1 worker's CPU serial ({100 * serial:.0f} % here)"
                    if needed > 0
                    else "even the kernel calls alone do not reach 1.85 x here"
                )
            )
            lines.append(
                f"  and in the shards design: each generation's children cut as two shards workers cut them"
                f" ({CALLS_PER_WORKER} kernel calls a worker, costliest first), taken one at a time from a"
                f" shared counter by two processes with a barrier between generations, run {claimed:.2f} x"
                " as fast as one shards worker's cut in one process; the run's 2 workers reach"
                f" {row['two_vs_claimed_ceiling']:.2f} of that"
            )
            # whatever the design around them: the kernel calls in two processes without even a barrier, and
            # all the rest of a worker's CPU halved perfectly beside them (round twenty-three)
            # (of the default 1-worker run's CPU)
            in_calls = (default["the batched kernel"] + default["lanes: packing, records"]) / default["total"]
            row["kernel_calls_share"] = in_calls
            row["two_workers_ceiling_any_design"] = 1.0 / (in_calls / unbound + (1.0 - in_calls) / 2.0)
            lines.append(
                f"  and whatever the design around them: the same halves in two processes with no barrier at"
                f" all run {unbound:.2f} x; with {100 * in_calls:.0f} % of 1 worker's CPU in these kernel"
                f" calls (this run's share) at that speed-up and all the rest halved, two workers give about"
                f" {row['two_workers_ceiling_any_design']:.2f} x on this machine now (1.85 asked)"
            )
            out[label] = row
    out["shipping"] = ship = shipping_share(walkers.replace(run={"generations": generations}))
    lines.append(
        f"walkers: pickling a worker's chunk out and its results back costs {ship['share']:.1%} of the CPU"
        f" of breeding and evaluating it ({1e3 * ship['pickling_cpu_s']:.1f} ms of"
        f" {1e3 * ship['chunk_cpu_s']:.0f} ms); its results pickled as objects"
        f" {1e3 * ship['results_as_objects_cpu_s']:.2f} ms, as arrays and rebuilt into creatures"
        f" {1e3 * ship['results_as_arrays_cpu_s']:.2f} ms"
    )
    title = "engine: issue 29's targets, whole runs against the bare batched kernel"
    return Section(title, lines, {"engine": out})
