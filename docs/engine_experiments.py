"""The experiments behind docs/performance.md, "Issue 29" / "Round two": what a 2-worker run's wall time is
made of, other ways to cut a generation into chunks, two workers beside a busy process, the files'
``fsync`` s, and what one compiled brood costs; and, from round three, a LocalCluster's chunks sent to
its chunk runners against the same chunks sent as tasks; and, from rounds four and five, what the local
dask cluster costs once and per generation beside the fork pool, the bound that puts on a whole run's
ratio, and other ways of starting its workers (round five made forked workers evo's way); and, from
round six, whole runs checkpointed after every generation against once a second (``[run]
checkpoint_interval``), and where a 2-worker fork pool's generation waits between its chunks; and, from
round seven, 2-worker runs with the ``evo run`` process as one of the workers against two forked
workers; and, from round eight, a brood bred alone against a chunk's broods bred in one compiled call;
and, from round nine, the kernel recording what the compiled reducer reads against the plugin's interval,
a generation in one chunk against two, and a run's heap frozen for the collector or not; and, from round
twelve, how long a generation of the fork pool and of the local dask cluster waits for its worker; and,
from round thirteen, whole runs at 1 to 8 workers of both backends and their folders' digest (the same
on every machine it was run on), and where a cold compile of the brood spends its CPU; and, from round
fourteen, the local dask cluster started while the first generations run against started before them;
and, from round sixteen, a run's kernel calls on two threads with the reader running some of them; and,
from round seventeen, where those calls lose on two threads against two processes; and, from round
eighteen, the calls started beside the making of the children's creatures; and, from round twenty-one,
this tree against an earlier commit, each run in its own process, three ways of reading a chunk's
kernel calls back, and the steps of a generation's serial ends; and, from round twenty-two, what a
2-thread generation is made of by the kernel calls running at once, the next ask's draws made ahead
against in the ask, and how soon a generation's calls tell the next generation's pairs; and, from round
twenty-four, a kernel call's time by its count of lanes, padded to whole lane blocks or not, and whole
runs padded or not; and, from rounds twenty-five and twenty-six, the search quality of a GA that selects
its parents behind the latest generation, two whole runs at once, and such a GA run with two
generations in flight; and, from round twenty-seven, the generation sharded over two forked processes
that own the population as arrays, with the books kept behind them, kept leaner or not at all, and
where the leaner books spend their CPU; and, from round twenty-eight, the shards backend made of it
against the threads backend; and, from round thirty, one worker making its generations from arrays, the
shards backend with the ``evo run`` process as worker 0 against round twenty-eight's all-forked workers,
variants of those (the breeding split between the workers, each generation sent late), and children cut
into fewer or more kernel calls; and, from round thirty-one, the ``evo run`` process keeping its books in
its waits, worker 1 selecting and breeding for both and a lean meeting point, each added in turn; and,
from round thirty-three, the run's kernel calls alone on two processes, cut as the shards workers cut them;
and, from round thirty-five, where a run's wall goes before and after its generations made from arrays,
and the bare kernel beside a process busy on the other core; and, from round thirty-eight, a two-worker
generation's steps in both processes on one clock; and, from round thirty-nine, the generations' bests
written as shipped, as before it, not at all, and on a tmpfs.
Each prints one line or a few; a few minutes on 2 cores (``dask-costs`` about 10).

    .venv/bin/python docs/engine_experiments.py              # round two's
    .venv/bin/python docs/engine_experiments.py dask         # only the chunk runners against tasks
    .venv/bin/python docs/engine_experiments.py dask-costs   # the local cluster's costs (rounds four, five)
    .venv/bin/python docs/engine_experiments.py checkpoints  # every generation against once a second (six)
    .venv/bin/python docs/engine_experiments.py gaps         # a 2-worker generation's serial part (six)
    .venv/bin/python docs/engine_experiments.py share        # the run process as a worker or not (seven)
    .venv/bin/python docs/engine_experiments.py broods       # a brood bred alone or in its chunk (eight)
    .venv/bin/python docs/engine_experiments.py records      # the kernel recording fewer records (nine)
    .venv/bin/python docs/engine_experiments.py split        # one chunk a generation or two (nine)
    .venv/bin/python docs/engine_experiments.py collector    # a run's gc.freeze or none (nine)
    .venv/bin/python docs/engine_experiments.py dask-waits   # what a dask generation waits for (twelve)
    .venv/bin/python docs/engine_experiments.py workers [ROUNDS]  # 1 to 8 workers, the digest (thirteen)
    .venv/bin/python docs/engine_experiments.py compile      # the brood's cold compile by function (thirteen)
    .venv/bin/python docs/engine_experiments.py early-start [ROUNDS]  # dask started meanwhile (fourteen)
    .venv/bin/python docs/engine_experiments.py lane-threads [ROUNDS]  # the reader runs calls (sixteen)
    .venv/bin/python docs/engine_experiments.py lane-losses [ROUNDS]  # threads against processes (17)
    .venv/bin/python docs/engine_experiments.py beside-the-calls [ROUNDS]  # calls beside creatures (18)
    .venv/bin/python docs/engine_experiments.py told-beside [ROUNDS]  # bookkeeping beside the calls (19)
    .venv/bin/python docs/engine_experiments.py on-lane-threads [ROUNDS]  # breeding, scoring on both (20)
    .venv/bin/python docs/engine_experiments.py against REVISION [ROUNDS]  # this tree against a commit (21)
    .venv/bin/python docs/engine_experiments.py reading [ROUNDS]  # how the calls are read back (21)
    .venv/bin/python docs/engine_experiments.py serial-ends [ROUNDS]  # a generation's serial steps (21)
    .venv/bin/python docs/engine_experiments.py occupancy [ROUNDS]  # calls running at once (22)
    .venv/bin/python docs/engine_experiments.py drawing-ahead [ROUNDS]  # the ask's draws ahead (22)
    .venv/bin/python docs/engine_experiments.py resolvable [ROUNDS]  # the next pairs known early (22)
    .venv/bin/python docs/engine_experiments.py idle-handing [ROUNDS]  # idle lane threads hand on (23)
    .venv/bin/python docs/engine_experiments.py report-waits [ROUNDS]  # bests written as told (23)
    .venv/bin/python docs/engine_experiments.py lane-counts  # a kernel call by its lanes, padded or not (24)
    .venv/bin/python docs/engine_experiments.py padding [ROUNDS]  # whole runs padded or not (24)
    .venv/bin/python docs/engine_experiments.py selection-behind [SIZE]  # parents a generation behind (25)
    .venv/bin/python docs/engine_experiments.py two-at-once [ROUNDS]  # two runs at once, threads or not (25)
    .venv/bin/python docs/engine_experiments.py overlapped [ROUNDS]  # two generations in flight (26)
    .venv/bin/python docs/engine_experiments.py sharded [ROUNDS]  # two processes own the arrays (27)
    .venv/bin/python docs/engine_experiments.py sharded-books [ROUNDS]  # the lean books by part (27)
    .venv/bin/python docs/engine_experiments.py sharded-bench [ROUNDS]  # sharded, the bench config (27)
    .venv/bin/python docs/engine_experiments.py shards [ROUNDS]  # the shards backend, both configs (28)
    .venv/bin/python docs/engine_experiments.py shards-busy [ROUNDS]  # shards beside a busy core (29)
    .venv/bin/python docs/engine_experiments.py shards-parts [GENERATIONS]  # a shards generation by part (29)
    .venv/bin/python docs/engine_experiments.py shards-variants [ROUNDS]  # 1 from arrays, split, cuts (30)
    .venv/bin/python docs/engine_experiments.py shards-books [ROUNDS]  # books in waits, room, meeting (31)
    .venv/bin/python docs/engine_experiments.py shards-waits [GENERATIONS]  # 2 workers, 1, by part (31, 34)
    .venv/bin/python docs/engine_experiments.py dask-arrays [ROUNDS]  # dask from arrays, in chunks (32)
    .venv/bin/python docs/engine_experiments.py shards-ceilings [ROUNDS]  # calls alone, shards' cuts (33)
    .venv/bin/python docs/engine_experiments.py run-ends [ROUNDS]  # a run's start and end, 1 and 2 (35)
    .venv/bin/python docs/engine_experiments.py kernel-beside [ROUNDS]  # the kernel beside a busy core (35)
    .venv/bin/python docs/engine_experiments.py shards-tails [ROUNDS]  # the cut's last calls split (37)
    .venv/bin/python docs/engine_experiments.py shards-timeline [GENERATIONS]  # a generation, one clock (38)
    .venv/bin/python docs/engine_experiments.py bests-files [ROUNDS]  # the bests' files, ways to write (39)

The runs are examples/walkers.toml whole (120 generations; ``sharded-bench``: the bench config's, 40
generations; ``shards``: both), through evo.bench.engine.whole_run; CPU times from getrusage, the
least of the repeats.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evo.bench.engine import (
    IGNORED,
    cpu_breakdown,
    cpu_parts,
    generation_children,
    run_record_every,
    whole_run,
)
from evo.bench.evolution import walkers_config
from evo.io.folder_digest import folder_digest
from evo.run import generations
from evo.run.batching import chunk_shares

REPEATS = 2
# "1 worker" in these experiments: the inprocess backend, the 1-worker default until round thirty (since,
# the default makes a 1-worker run's generations from arrays where it can: docs/runs.md, "Workers")
ONE_WORKER = {"workers": 1, "backend": "inprocess"}
SHARES = {
    "one chunk per worker (the default)": chunk_shares,
    "two rounds of guided chunks": lambda workers, contended=False, last=1.0: chunk_shares(workers, True),
    "four equal chunks": lambda workers, contended=False, last=1.0: [1.0 / (2 * workers)] * (2 * workers),
}


def phases(folder: Path) -> tuple[float, float, float]:
    """(selection, breeding and evaluation, tell) wall seconds summed from a run folder's run.log."""
    text = (folder / "run.log").read_text()
    found = re.findall(
        r"selection ([\d.]+) s, breeding and evaluation ([\d.]+) s .*?statistics ([\d.]+) s", text
    )
    return tuple(sum(float(row[k]) for row in found) for k in range(3))  # type: ignore[return-value]


def two_workers(config, tmp: Path) -> None:
    best = None
    for _ in range(REPEATS):
        before = os.times()
        wall, cpu = whole_run(config.replace(pool={"workers": 2}), tmp / "two")
        after = os.times()
        parent = after.user + after.system - before.user - before.system
        seen = (wall, cpu, parent, *phases(tmp / "two"))
        best = seen if best is None or seen[0] < best[0] else best
    wall, cpu, parent, ask, evaluate, tell = best
    print(
        f"2 workers: {wall:.2f} s wall, {cpu:.2f} CPU-s ({parent:.2f} in the parent); ask {ask:.2f} s,"
        f" breeding and evaluation {evaluate:.2f} s, tell {tell:.2f} s (run.log)"
    )


def chunkings(config, tmp: Path, busy: bool = False) -> None:
    runs = {"1 worker": (1, chunk_shares)} | {name: (2, rule) for name, rule in SHARES.items()}
    walls: dict[str, float] = {}
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        for _ in range(REPEATS):
            for name, (workers, rule) in runs.items():
                generations.chunk_shares = rule
                wall, _ = whole_run(config.replace(pool={"workers": workers}), tmp / "chunks")
                walls[name] = min(walls.get(name, np.inf), wall)
    finally:
        generations.chunk_shares = chunk_shares
        if loop is not None:
            loop.kill()
            loop.wait()
    where = "beside a busy process" if busy else "idle"
    print(f"wall seconds, {where}: " + "; ".join(f"{name} {wall:.2f}" for name, wall in walls.items()))


def without_fsync(config, tmp: Path) -> None:
    real = os.fsync
    shares = {}
    for label, fsync in (("with fsync", real), ("without fsync", lambda fd: None)):
        os.fsync = fsync
        try:
            parts = cpu_breakdown(config, tmp / "files", "inprocess")
        finally:
            os.fsync = real
        files = sum(value for key, value in parts.items() if key.startswith("files"))
        shares[label] = f"{files:.2f} of {parts['total']:.2f} CPU-s ({100 * files / parts['total']:.1f} %)"
    print("the writer thread's files: " + "; ".join(f"{k} {v}" for k, v in shares.items()))


def checkpoints(config, tmp: Path, repeats: int = 3) -> None:
    """Whole runs of 1 and 2 workers, checkpointed after every generation (``checkpoint_interval = 0``)
    and at the default interval, interleaved; the least wall and CPU seconds of ``repeats`` each, and
    whether both intervals leave the same files."""
    intervals = {"every generation": 0.0, "the default (1 s)": 1.0}
    for workers in (1, 2):
        least: dict[str, tuple[float, float]] = {}
        for _ in range(repeats):
            for name, interval in intervals.items():
                run = config.replace(pool={"workers": workers}, run={"checkpoint_interval": interval})
                wall, cpu = whole_run(run, tmp / f"checkpoints-{interval}")
                old = least.get(name, (np.inf, np.inf))
                least[name] = (min(old[0], wall), min(old[1], cpu))
        (w0, c0), (w1, c1) = least.values()
        # every file but the log and config.toml (which holds the interval)
        same = folder_digest(tmp / "checkpoints-0.0", IGNORED) == folder_digest(
            tmp / "checkpoints-1.0", IGNORED
        )
        print(
            f"{workers} worker(s), least of {repeats}: every generation {w0:.2f} s wall, {c0:.2f} CPU-s; "
            f"the default interval {w1:.2f} s, {c1:.2f} CPU-s: {w0 / w1:.2f}x the wall rate, "
            f"{c0 / c1:.2f}x per CPU-second; the same files: {same}"
        )


_SPANS: Path | None = None  # where the workers of gaps() write when each chunk began and ended
_REAL_CHUNK = None


def _timed_chunk(chunk, timed_out=frozenset()):
    """In a worker: the fork pool's chunk, its start and end written to ``_SPANS``."""
    began = time.perf_counter()
    out = _REAL_CHUNK(chunk, timed_out)
    with open(_SPANS, "a") as f:
        f.write(f"{began:.6f} {time.perf_counter():.6f}\n")
    return out


def gaps(config, tmp: Path) -> None:
    """One whole 2-worker fork-pool run, its chunks and the parent's steps timed on one clock: how long a
    generation's chunks keep both workers busy, how long the faster one waits for the slower, and the
    serial part between the last chunk of a generation and the first of the next, step by step. With a
    shipped plugin one of the two chunks is the ``evo run`` process's own, which starts first (round
    seven: it waits for no pipe)."""
    import collections

    from evo.ga.loop import Evolution
    from evo.run.backends import fork

    global _SPANS, _REAL_CHUNK
    _SPANS, _REAL_CHUNK = tmp / "chunk-times.txt", fork._worker_chunk
    spans, real_chunk = _SPANS, _REAL_CHUNK
    spans.unlink(missing_ok=True)
    marks: dict[str, list[float]] = collections.defaultdict(list)
    patched = [(fork, "_worker_chunk", real_chunk)]

    def mark(owner, name: str) -> None:
        real = getattr(owner, name)
        patched.append((owner, name, real))

        def marked(*args, **kwargs):
            marks[name, "<"].append(time.perf_counter())
            try:
                return real(*args, **kwargs)
            finally:
                marks[name, ">"].append(time.perf_counter())

        setattr(owner, name, marked)

    fork._worker_chunk = _timed_chunk  # before the pool forks its workers
    real_here = fork.ForkPool._run_here
    patched.append((fork.ForkPool, "_run_here", real_here))

    def here(self, chunk, timed_out):  # the chunks the evo run process runs itself
        began = time.perf_counter()
        out = real_here(self, chunk, timed_out)
        with open(spans, "a") as f:
            f.write(f"{began:.6f} {time.perf_counter():.6f}\n")
        return out

    fork.ForkPool._run_here = here
    for owner, name in (
        (fork.ForkPool, "run"),
        (Evolution, "tell_later"),  # its first part (round nineteen: the rest beside the next)
        (Evolution, "ask"),
        (generations, "_tasks"),
    ):
        mark(owner, name)
    try:
        wall, _ = whole_run(config.replace(pool={"workers": 2}), tmp / "gaps")
    finally:
        for owner, name, real in patched:
            setattr(owner, name, real)
    chunks = sorted(tuple(map(float, line.split())) for line in spans.read_text().splitlines())
    per_generation = [chunks[i : i + 2] for i in range(0, len(chunks), 2)]
    busy = sum(max(c[1] for c in g) - min(c[0] for c in g) for g in per_generation)
    waiting = sum(max(c[1] for c in g) - min(c[1] for c in g) for g in per_generation)
    steps = collections.Counter()
    for g in range(1, len(per_generation)):
        t = max(c[1] for c in per_generation[g - 1])
        for step, when in (
            ("the results back in the parent", marks["run", ">"][g - 1]),
            ("tell", marks["tell_later", ">"][g - 1]),
            ("reporting, callbacks", marks["ask", "<"][g]),
            ("ask", marks["ask", ">"][g]),
            ("chunking", marks["_tasks", ">"][g]),
            ("the chunks out to the workers", min(c[0] for c in per_generation[g])),
        ):
            steps[step] += when - t
            t = when
    n = len(per_generation) - 1
    serial = sum(steps.values())
    # (the later chunk's time - the earlier one's) / their mean: is the slower one always the same?
    later = [2 * ((b[1] - b[0]) - (a[1] - a[0])) / (b[1] - b[0] + a[1] - a[0]) for a, b in per_generation[1:]]
    print(
        f"2 workers, {wall:.2f} s wall: the chunks run {busy:.2f} s (the faster one waits {waiting:.2f} s of "
        f"it; the chunk started second took longer in {sum(d > 0 for d in later)} of {n} generations, "
        f"{100 * float(np.median(later)):+.1f} % at the median); between generations {serial:.2f} s, "
        f"{1000 * serial / n:.1f} ms each: "
        + "; ".join(f"{step} {1000 * value / n:.2f} ms" for step, value in steps.items())
    )


def _alternating(kinds: dict[str, Any], pairs: int, tmp: Path) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU seconds) of whole runs of each kind (name: (config, patch of parent_may_evaluate)), in
    ``pairs`` rounds, the order of the kinds reversed every other round."""
    from evo.run import evolve

    real = evolve.parent_may_evaluate
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
    try:
        for n in range(pairs):
            for name in list(kinds)[:: 1 if n % 2 == 0 else -1]:
                run, share = kinds[name]
                evolve.parent_may_evaluate = real if share else (lambda context: False)
                out[name].append(whole_run(run, tmp / name))
    finally:
        evolve.parent_may_evaluate = real
    return out


def share(config, tmp: Path, pairs: int = 12) -> None:
    """2-worker runs of walkers (60 generations) with the ``evo run`` process as one of the workers (the
    default with a shipped plugin) against two forked workers, for the fork pool and the local dask
    cluster, in alternating pairs: the median ratio of each pair's wall rate and CPU seconds, how many
    pairs favour sharing, and whether the folders are the same."""
    short = config.replace(run={"generations": 60})
    for backend in ("fork", "dask"):
        run = short.replace(pool={"workers": 2, "backend": backend})
        got = _alternating({"forked": (run, False), "shared": (run, True)}, pairs, tmp / backend)
        wall = [f[0] / s[0] for f, s in zip(got["forked"], got["shared"], strict=True)]
        cpu = [s[1] / f[1] for f, s in zip(got["forked"], got["shared"], strict=True)]
        folders = {folder_digest(tmp / backend / name, IGNORED) for name in got}
        same = len(folders) == 1
        print(
            f"{backend}, 2 workers, {pairs} pairs: shared / forked wall rate median {np.median(wall):.3f}"
            f" ({sum(r > 1 for r in wall)} of {pairs} faster), CPU seconds median {np.median(cpu):.3f}"
            f" ({sum(r < 1 for r in cpu)} of {pairs} fewer); the same files: {same}"
        )


def one_brood(config, repeats: int = 50) -> None:
    """Generation 100's walkers bred as mated, mutated pairs: one compiled call per brood
    (``compiled_children``) against the whole generation's broods in one call (``compiled_broods``, as a
    run's chunk breeds them since round eight), the creatures made in both; least of ``repeats``."""
    from evo.ga.brood import PAIR, Brood
    from evo.ga.kernels.brood import compiled_broods, compiled_children, compiled_operators
    from evo.ga.mutation import MutationPlan

    late = generation_children(config.replace(run={"generations": 100}))[-1]
    ops = compiled_operators(config.genome, config.ga, MutationPlan.of(config.ga))
    broods = [
        Brood(PAIR, i + 1, (late[i], late[i + 1]), True, (True, True), (1, 1))
        for i in range(0, len(late) - 1, 2)
    ]

    def each() -> None:
        for b in broods:
            compiled_children(b.seed, b.parents, b.mate, b.mutate, ops)

    def least(function: Any) -> float:  # us per brood
        spent = []
        for _ in range(repeats):
            start = time.process_time()
            function()
            spent.append(time.process_time() - start)
        return min(spent) / len(broods) * 1e6

    each(), compiled_broods(broods, ops)  # loaded from numba's cache
    alone, together = least(each), least(lambda: compiled_broods(broods, ops))
    print(
        f"a brood of generation 100's walkers ({len(broods)} mated, mutated pairs), the creatures made:"
        f" {alone:.1f} us of CPU bred alone (one compiled call each), {together:.1f} us bred together (one"
        f" call for all), {alone / together:.2f}x"
    )


def dask_runners(config, tmp: Path) -> None:
    """Whole 2-worker runs, interleaved: the fork pool, a LocalCluster with its chunk runners (the
    default), and the same LocalCluster with chunks sent as tasks (``_start_runners`` made a no-op)."""
    from evo.run.backends.dask_pool import DaskPool
    from evo.run.backends.fork import ForkPool

    runners, timed = DaskPool._start_runners, {DaskPool: DaskPool.run, ForkPool: ForkPool.run}
    lasted: list[float] = []
    startups: list[dict[str, float]] = []

    def timer(pool: type):
        def run(self, *args, **kwargs):  # the generation's batch, wall seconds
            start = time.perf_counter()
            try:
                return timed[pool](self, *args, **kwargs)
            finally:
                lasted.append(time.perf_counter() - start)
                if getattr(self, "startup_seconds", None) and len(lasted) == 1:
                    startups.append(dict(self.startup_seconds))

        return run

    seen: dict[str, list[tuple[float, float, float]]] = {}
    for pool in timed:
        pool.run = timer(pool)
    try:
        for _ in range(3):
            for kind in ("fork", "runners", "tasks"):
                DaskPool._start_runners = runners if kind == "runners" else (lambda self: None)
                lasted.clear()
                backend = "fork" if kind == "fork" else "dask"
                wall, cpu = whole_run(config.replace(pool={"workers": 2, "backend": backend}), tmp / kind)
                seen.setdefault(kind, []).append((wall, cpu, float(np.median(lasted[3:])) if lasted else 0))
    finally:
        DaskPool._start_runners = runners
        for pool, run in timed.items():
            pool.run = run
    best = {kind: min(runs) for kind, runs in seen.items()}
    batches = {kind: min(batch for _, _, batch in runs) for kind, runs in seen.items()}
    fork, fork_batch = best["fork"][0], batches["fork"]
    print(
        "; ".join(
            f"{kind} {wall:.2f} s wall ({fork / wall:.2f}x the fork pool), {cpu:.2f} CPU-s, a generation's"
            f" batch {batches[kind] * 1e3:.1f} ms ({fork_batch / batches[kind]:.2f}x; median over the"
            f" generations after the third, least of the repeats)"
            for kind, (wall, cpu, _) in best.items()
        )
    )
    print(
        "dask start-up (least of the runs): the cluster"
        f" {min(seen['cluster'] for seen in startups):.2f} s, setting its workers up (plugin and kernels)"
        f" {min(seen['setup'] for seen in startups):.2f} s"
    )


def dask_costs(tmp: Path, long: int = 480) -> None:
    """Whole 2-worker runs of walkers, the fork pool and evo's local dask cluster interleaved, least of the
    repeats: wall seconds and CPU seconds of this process (the run, and the cluster's scheduler) and of the
    workers. The 1-generation runs give the cluster's cost once (its start, its workers' set-up, its close)
    over the fork pool's; the 120- and ``long``-generation runs (the latter once), what each later
    generation adds; from these, the bound on the 120-generation run's ratio on this machine's cores.
    Then whole runs with the workers started each way (:func:`dask_method`, each in a fresh interpreter:
    a forkserver outlives its run)."""
    cores = os.cpu_count() or 1
    seen: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    whole_run(walkers_config(2).replace(pool=ONE_WORKER), tmp / "warm")
    for gens in (1, 120, long):
        for _ in range(REPEATS if gens != long else 1):
            for backend in ("fork", "dask"):
                own, children = cpu_parts()
                wall, _ = whole_run(
                    walkers_config(gens).replace(pool={"workers": 2, "backend": backend}), tmp / backend
                )
                own2, children2 = cpu_parts()
                seen.setdefault((backend, gens), []).append((wall, own2 - own, children2 - children))
    best = {key: tuple(min(run[i] for run in runs) for i in range(3)) for key, runs in seen.items()}
    for gens in (1, 120, long):
        (fw, fp, fc), (dw, dp, dc) = best[("fork", gens)], best[("dask", gens)]
        print(
            f"{gens} generation(s): fork pool {fw:.2f} s wall, CPU {fp:.2f} s here + {fc:.2f} s workers;"
            f" local cluster {dw:.2f} s wall ({fw / dw:.2f}x), CPU {dp:.2f} s here + {dc:.2f} s workers"
        )
    (fw1, fp1, fc1), (dw1, dp1, dc1) = best[("fork", 1)], best[("dask", 1)]
    (fw, fp, fc), (dw, dp, dc) = best[("fork", 120)], best[("dask", 120)]
    (_, fpl, fcl), (_, dpl, dcl) = best[("fork", long)], best[("dask", long)]
    once = (dp1 + dc1) - (fp1 + fc1)
    per_generation = ((dpl + dcl) - (fpl + fcl) - ((dp + dc) - (fp + fc))) / (long - 120) * 1e3
    allowed = cores * fw / 0.95 - (fp + fc)
    print(
        f"the local cluster's cost once (1 generation): {dw1 - fw1:.2f} s wall, {once:.2f} CPU-s more than"
        f" the fork pool; each generation from the 121st to the {long}th, {per_generation:.1f} ms of CPU"
        f" more;"
        f" 0.95x on the 120-generation run would need it done in {fw / 0.95:.2f} s, on {cores} cores with at"
        f" most {allowed:.2f} CPU-s more than the fork pool's {fp + fc:.2f} (a run's wall time is at least"
        f" its CPU time over the cores)"
    )
    methods = ("fork pool", "evo", "spawn", "forkserver", "forkserver+evo", "fork", "threads")
    walls: dict[str, list[float]] = {}
    second = ""
    for _ in range(REPEATS):
        for method in methods:
            lines = subprocess.run(
                [sys.executable, __file__, "dask-method", method], capture_output=True, text=True, check=True
            ).stdout.splitlines()
            walls.setdefault(method, []).append(float(lines[-1].split()[-1]))
            second = second or next((line for line in lines if line.startswith("a second")), "")
    print(
        "workers started by: "
        + "; ".join(f"{method} {min(walls[method]):.2f} s" for method in methods)
        + " (whole 120-generation runs, wall, each in a fresh interpreter, least of the repeats); "
        + second
    )


class SpawnedCluster:
    """Round four's local cluster, for comparison: dask's LocalCluster, its workers started by its nannies
    in the way dask's ``distributed.worker.multiprocessing-method`` says (``spawn`` by default), or, with
    ``threads``, workers that are threads of this process. Stands in for evo's
    :class:`~evo.run.backends.dask_cluster.ForkedCluster`."""

    def __init__(self, workers: int, threads: bool = False):
        import dask
        import distributed

        from evo.run.backends.dask_cluster import LOCAL_CLUSTER_CONFIG

        where = {"scheduler_kwargs": {"dashboard_address": None}}  # threads: dask's in-process transport
        if not threads:
            where = {
                "host": "127.0.0.1",
                "scheduler_port": 0,
                "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"},
            }
        with dask.config.set(LOCAL_CLUSTER_CONFIG):
            self.cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=not threads,
                dashboard_address=None,
                **where,
            )

    def alive(self) -> int:
        return len(self.cluster.scheduler_info.get("workers", {}))

    def close(self, timeout: float = 10) -> None:
        self.cluster.close(timeout=timeout)


def dask_method(method: str) -> None:
    """One whole 2-worker run of walkers on the fork pool (``fork pool``), on evo's local cluster
    (``evo``: workers forked from this process before the cluster's threads start), or on round four's
    (:class:`SpawnedCluster`) with its workers started by ``method`` (dask's
    ``distributed.worker.multiprocessing-method``; ``forkserver+evo`` also preloads the modules a worker
    imports, so that each worker is forked with them; ``threads``: threads of this process); prints its
    wall seconds last. With ``fork`` (workers forked by the nannies from this process, which runs the
    cluster's threads), a second run then starts a second cluster in the same interpreter, and what became
    of it is printed first."""
    import dask
    import distributed  # noqa: F401 (imported before dask.config.set: its defaults outlive the block)

    from evo.run.backends import dask_pool

    backend = "fork" if method == "fork pool" else "dask"
    start = method.split("+")[0] if method not in ("fork pool", "evo", "threads") else "spawn"
    if method not in ("fork pool", "evo"):
        dask_pool.local_cluster = lambda workers: SpawnedCluster(workers, threads=method == "threads")
    with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
        with dask.config.set({"distributed.worker.multiprocessing-method": start}):
            if method.endswith("+evo"):
                from distributed.utils import get_mp_context

                get_mp_context().set_forkserver_preload(
                    ["distributed", "numpy", "numba", "evo.run.backends.dask_worker", "evo.run.job",
                     "evo.sim.batch", "evo.ga.kernels.brood", "evo.fitness.reducers"]
                )  # fmt: skip
            wall, _ = whole_run(
                walkers_config(120).replace(pool={"workers": 2, "backend": backend}), Path(tmp) / "a"
            )
        if method == "fork":  # set as evo sets its cluster's settings: for each cluster it starts
            try:
                with dask.config.set({"distributed.worker.multiprocessing-method": start}):
                    whole_run(
                        walkers_config(1).replace(pool={"workers": 2, "backend": "dask"}), Path(tmp) / "b"
                    )
                print("a second LocalCluster forked in the same interpreter: ran")
            except Exception as exc:
                print(
                    f"a second LocalCluster forked in the same interpreter: {' '.join(str(exc).split())[:90]}"
                )
    print("wall", wall)


def records(config, repeats: int = 3) -> None:
    """The batched kernel's CPU (``run_euler_batch`` alone, thread time) on every third generation of
    walkers, its lanes recording at the plugin's ``record_every`` and at the run's (what the compiled
    reducer reads, round nine), alternating, least of ``repeats``."""
    import evo.sim.batch as batch
    from evo.bench.engine import run_record_every
    from evo.fitness import load_ref
    from evo.sim.batch import lane_runs

    generations = generation_children(config)[::3]
    kernel = batch._batch_kernel.run_euler_batch
    spent = [0.0]

    def timed(*args: Any) -> None:
        start = time.thread_time()
        kernel(*args)
        spent[0] += time.thread_time() - start

    intervals = (load_ref(config.plugin).record_every, run_record_every(config))
    least = dict.fromkeys(intervals, float("inf"))
    batch._batch_kernel.run_euler_batch = timed  # the module _run_euler calls it through
    try:
        for _ in range(repeats):
            for every in intervals:
                spent[0] = 0.0
                for children in generations:
                    for _call in lane_runs(children, config.world, config.evaluation.frames, every)[1]:
                        pass
                least[every] = min(least[every], spent[0])
    finally:
        batch._batch_kernel.run_euler_batch = kernel
    fine, sparse = (least[every] for every in intervals)
    print(
        f"the batched kernel on {sum(map(len, generations))} walkers: {fine:.2f} s of CPU recording every"
        f" {intervals[0]:g} frames, {sparse:.2f} s every {intervals[1]:g} ({fine / sparse:.3f}x)"
    )


def collector(config, tmp: Path, repeats: int = 3) -> None:
    """Whole 1-worker runs of walkers with the run's ``gc.freeze`` (round nine) and without it (the
    module's ``gc`` replaced by one that freezes nothing), alternating: the CPU seconds of the garbage
    collector's passes (``gc.callbacks``, thread time) and of the whole run, least of ``repeats``."""
    import gc
    import types

    import evo.run.evolve as evolve

    spent = [0.0]
    started: list[float] = []

    def timing(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(time.thread_time())
        else:
            spent[0] += time.thread_time() - started.pop()

    thawed = types.SimpleNamespace(freeze=lambda: None, unfreeze=lambda: None, get_freeze_count=lambda: 0)
    least = {"frozen": [float("inf")] * 2, "not frozen": [float("inf")] * 2}
    gc.callbacks.append(timing)
    try:
        for _ in range(repeats):
            for name, module in (("frozen", gc), ("not frozen", thawed)):
                evolve.gc = module
                spent[0] = 0.0
                _, cpu = whole_run(config.replace(pool=ONE_WORKER), tmp / "collector")
                least[name] = [min(least[name][0], spent[0]), min(least[name][1], cpu)]
    finally:
        evolve.gc = gc
        gc.callbacks.remove(timing)
    print(
        ", ".join(
            f"{name}: collections {passes:.3f} s of CPU, the run {cpu:.2f} s"
            for name, (passes, cpu) in least.items()
        )
    )


def split(config, tmp: Path, repeats: int = 3) -> None:
    """Whole 1-worker runs of walkers with each generation in one chunk (the default) and in two
    (``chunksize`` 50 of about 100 broods: what two workers get), alternating: CPU seconds, the batched
    kernel's, its calls and lanes per call, the children in calls of one topology, and the link-lanes
    padded; then one 2-worker run's chunk CPU per process."""
    import evo.run.backends.fork as fork
    import evo.sim.batch as batch

    calls: list[list] = []
    cut = batch.lane_calls

    def counted(creatures: Any) -> list[list[int]]:
        made = cut(creatures)
        for call in made:
            links = {(creatures[k].link_a.tobytes(), creatures[k].link_b.tobytes()) for k in call}
            widest = max(creatures[k].n_links for k in call)
            padded = sum(widest - creatures[k].n_links for k in call)
            calls.append([len(call), len(call) if len(links) == 1 else 0, padded, widest * len(call)])
        return made

    batch.lane_calls = counted
    try:
        for _ in range(repeats):
            for size in (0, 50):
                calls.clear()
                pool = ONE_WORKER | ({"chunksize": size} if size else {})
                parts = cpu_breakdown(config.replace(pool=pool), tmp / f"split{size}", "inprocess")
                lanes, own, padded, link_lanes = np.array(calls).sum(axis=0)
                print(
                    f"{'two chunks' if size else 'one chunk '} a generation: {parts['total']:.2f} s of CPU,"
                    f" the kernel {parts['the batched kernel']:.2f} s in {len(calls)} calls of"
                    f" {lanes / len(calls):.1f} lanes, {own} children in calls of one topology,"
                    f" {padded} of {link_lanes} link-lanes padded"
                )
    finally:
        batch.lane_calls = cut
    spans = tmp / "chunk-cpu"
    spans.mkdir(exist_ok=True)
    timed_chunk = fork._timed_chunk

    def logged(job: Any, context: Any, chunk: Any, timed_out: Any) -> Any:
        answer = timed_chunk(job, context, chunk, timed_out)
        with open(spans / f"{os.getpid()}.txt", "a") as out:
            out.write(f"{answer[3]}\n")
        return answer

    fork._timed_chunk = logged  # forked workers inherit it
    try:
        own, children = cpu_parts()
        _, cpu = whole_run(config.replace(pool={"workers": 2}), tmp / "split-two")
        own, children = cpu_parts()[0] - own, cpu_parts()[1] - children
    finally:
        fork._timed_chunk = timed_chunk
    chunks = {int(f.stem): sum(map(float, f.read_text().split())) for f in spans.glob("*.txt")}
    mine = chunks.pop(os.getpid(), 0.0)
    print(
        f"2 workers: {cpu:.2f} s of CPU; this process {own:.2f} s, {mine:.2f} s of it in its chunks; the"
        f" forked worker {children:.2f} s, {sum(chunks.values()):.2f} s of it in its chunks"
    )


class _Echo:
    """A chunk runner that sends back what it gets (the ``dask-waits`` round trip)."""

    def run(self, data: bytes) -> bytes:
        return data


def _echo_on_a_pipe(pipe: Any) -> None:
    while True:
        data = pipe.recv_bytes()
        if not data:
            return
        pipe.send_bytes(data)


def _round_trips(size: int = 42_000, count: int = 300) -> tuple[float, float]:
    """Median seconds of a ``size``-byte message there and back: to a forked process through a pipe (as
    the fork pool sends chunks), and to a chunk runner of the local dask cluster (as the dask backend)."""
    import asyncio
    import multiprocessing
    import queue
    import statistics

    import distributed

    from evo.run.backends.dask_cluster import local_cluster

    data = b"x" * size
    here, there = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(target=_echo_on_a_pipe, args=(there,))
    process.start()
    piped = []
    for _ in range(count):
        start = time.perf_counter()
        here.send_bytes(data)
        here.recv_bytes()
        piped.append(time.perf_counter() - start)
    here.send_bytes(b"")
    process.join()
    cluster = local_cluster(1)
    client = distributed.Client(cluster.cluster, set_as_default=False, direct_to_workers=True)
    answers: queue.Queue = queue.Queue()

    async def forward(call: Any) -> None:
        answers.put(await call)

    try:
        future = client.submit(_Echo, actor=True)
        runner = future.result()
        runner._client, runner._future = client, None  # as the dask backend calls its runners
        actor = []
        for _ in range(count):
            start = time.perf_counter()
            client.loop.add_callback(forward, runner.run(data))
            answers.get()
            actor.append(time.perf_counter() - start)
    finally:
        client.close()
        cluster.close()
        asyncio.set_event_loop(None)
    return statistics.median(piped), statistics.median(actor)


def dask_waits(config, tmp: Path, rounds: int = 3) -> None:
    """Round twelve: 2-worker runs of the fork pool and of the local dask cluster (the ``evo run`` process
    runs a chunk in both; beside dask its chunk weighs ``LAST_WEIGHT`` times the worker's, or the same),
    alternating: the chunks' seconds in the ``evo run`` process and in the worker, and how long each
    generation waits for the worker after the process's own chunk; then a chunk-sized message's round trip
    each way."""
    import statistics

    from evo.run.backends import base, dask_pool, dask_worker, fork

    parent = os.getpid()
    folder = tmp / "worker-chunks"
    folder.mkdir(parents=True, exist_ok=True)
    generations_seen: list[dict[str, float]] = []
    real_chunk = base.run_chunk

    def timed_chunk(*args, **kwargs):
        start = time.perf_counter()
        try:
            return real_chunk(*args, **kwargs)
        finally:
            seconds = time.perf_counter() - start
            if os.getpid() == parent:
                generations_seen[-1]["own chunk"] += seconds
            else:
                with open(folder / str(os.getpid()), "a") as out:  # scratch figures, not a run's file
                    out.write(f"{seconds}\n")

    def timed_run(real):
        def run(self, *args, **kwargs):
            generations_seen.append({"own chunk": 0.0})
            start = time.perf_counter()
            try:
                return real(self, *args, **kwargs)
            finally:
                generations_seen[-1]["batch"] = time.perf_counter() - start

        return run

    patched = [(fork, "run_chunk"), (dask_pool, "run_chunk"), (dask_worker, "run_chunk")]
    runs = [(fork.ForkPool, "run"), (dask_pool.DaskPool, "run")]
    saved = [(owner, name, getattr(owner, name)) for owner, name in patched + runs]
    for owner, name in patched:
        setattr(owner, name, timed_chunk)
    for owner, name in runs:
        setattr(owner, name, timed_run(getattr(owner, name)))
    weight = dask_pool.LAST_WEIGHT
    kinds = {"fork": weight, "dask": weight, "dask, its chunks of equal shares": 1.0}
    seen: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in kinds}
    try:
        for n in range(rounds):
            for name in list(seen)[:: 1 if n % 2 == 0 else -1]:
                generations_seen.clear()
                for old in folder.iterdir():
                    old.unlink()
                dask_pool.LAST_WEIGHT = kinds[name]
                backend = name.split(",")[0]
                run = config.replace(pool={"workers": 2, "backend": backend})
                wall, _ = whole_run(run, tmp / name.replace(" ", "-").replace(",", ""))
                later = [g for g in generations_seen[1:] if g["own chunk"] > 0.0]  # not generation 0
                worker = sum(float(line) for f in folder.iterdir() for line in f.read_text().split())
                waits = [g["batch"] - g["own chunk"] for g in later]
                own = sum(g["own chunk"] for g in later)
                seen[name].append((wall, own, worker, statistics.median(waits)))
    finally:
        dask_pool.LAST_WEIGHT = weight
        for owner, attribute, real in saved:
            setattr(owner, attribute, real)
    print(f"examples/walkers.toml, 2 workers, whole runs, medians of {rounds} alternating rounds:")
    for name, got in seen.items():
        wall, own, worker, wait = (statistics.median(row[k] for row in got) for k in range(4))
        print(
            f"  {name}: {wall:.2f} s wall; chunks {own:.2f} s in the evo run process, {worker:.2f} s"
            f" in the worker; a generation waits {1000 * wait:.1f} ms (median) after its own chunk"
        )
    piped, actor = _round_trips()
    print(
        f"  a 42 KiB message there and back (median of 300): {1000 * piped:.2f} ms through a pipe,"
        f" {1000 * actor:.2f} ms to a chunk runner of the local dask cluster"
    )


WORKERS = (("1", 1, "threads"), ("2 threads", 2, "threads"), ("2 forked", 2, "fork"),
           ("4 threads", 4, "threads"), ("4 forked", 4, "fork"), ("8 threads", 8, "threads"))  # fmt: skip


def workers(config, tmp: Path, rounds: int = 3) -> None:
    """Round thirteen: whole runs at 1, 2, 4 and 8 workers (threads, the default backend, and forked
    processes), ``rounds`` interleaved rounds, each run's line printed as it ends (a machine that stops
    the script early keeps them); then each kind's least wall and CPU seconds against 1 worker's, and
    the run folder's digest, which must be one for every kind, and the same on every machine."""
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name, *_ in WORKERS}
    digests = set()
    for n in range(rounds):
        for name, count, backend in WORKERS:
            wall, cpu = whole_run(config.replace(pool={"workers": count, "backend": backend}), tmp / "w")
            seen[name].append((wall, cpu))
            digests.add(folder_digest(tmp / "w", IGNORED))
            print(f"round {n + 1}, {name}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
    wall_1, cpu_1 = (min(x[i] for x in seen["1"]) for i in (0, 1))
    print(f"least of {rounds} ({os.cpu_count()} CPUs):")
    for name, runs in seen.items():
        wall, cpu = min(w for w, _ in runs), min(c for _, c in runs)
        print(f"  {name}: {wall:.2f} s wall ({wall_1 / wall:.2f} x 1 worker's rate), {cpu:.2f} s CPU"
              f" ({cpu / cpu_1:.2f} x)")  # fmt: skip
    print(f"folders byte-identical: {len(digests) == 1}, digest {min(digests)}")


def early_start(config, tmp: Path, rounds: int = 8) -> None:
    """Round fourteen: 2-worker walkers runs of 5 and of 120 generations on the fork pool and on the local
    dask cluster, started while the first generations run in the ``evo run`` process (now) or before
    them, ``rounds`` interleaved rounds; each kind's least and median wall seconds, its least CPU
    seconds, and its ratio to the fork pool (issue 29's target 3); and the folders' digests."""
    import statistics

    from evo.run.backends.dask_pool import started_first

    for count in (5, 120):
        cfg = config.replace(run={"generations": count}, pool={"workers": 2})
        kinds = {
            "fork pool": (cfg.replace(pool={"backend": "fork"}), False),
            "dask, started meanwhile (now)": (cfg.replace(pool={"backend": "dask"}), False),
            "dask, started first (before)": (cfg.replace(pool={"backend": "dask"}), True),
        }
        seen: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
        digests = set()
        for _ in range(rounds + 1):  # a first round to warm up, not counted
            for name, (made, first) in kinds.items():
                with started_first() if first else contextlib.nullcontext():
                    wall, cpu = whole_run(made, tmp / "early")
                seen[name].append((wall, cpu))
                digests.add(folder_digest(tmp / "early", IGNORED))
        print(f"{count} generations, least and median of {rounds} interleaved rounds:")
        fork = seen["fork pool"][1:]
        fork_least, fork_median = min(w for w, _ in fork), statistics.median(w for w, _ in fork)
        for name, runs in seen.items():
            runs = runs[1:]
            least, median = min(w for w, _ in runs), statistics.median(w for w, _ in runs)
            cpu = min(c for _, c in runs)
            print(f"  {name}: {least:.3f} s / {median:.3f} s wall ({fork_least / least:.3f} x / "
                  f"{fork_median / median:.3f} x the fork pool's rate), {cpu:.3f} s CPU")  # fmt: skip
        print(f"  folders byte-identical: {len(digests) == 1}")


_COMPILE_PROFILE = """
import collections, time
from numba.core import event
stack, own, whole, llvm = [], collections.Counter(), collections.Counter(), [0.0]
class Compiles(event.Listener):
    def on_start(self, e):
        stack.append([time.perf_counter(), 0.0])
    def on_end(self, e):
        start, inner = stack.pop()
        seconds = time.perf_counter() - start
        f = e.data["dispatcher"].py_func
        name = f.__module__.rsplit(".", 1)[-1] + "." + f.__qualname__
        own[name] += seconds - inner
        whole[name] += seconds
        if stack:
            stack[-1][1] += seconds
class Llvm(event.Listener):
    def on_start(self, e):
        self.start = time.perf_counter()
    def on_end(self, e):
        llvm[0] += time.perf_counter() - self.start
event.register("numba:compile", Compiles())
event.register("numba:llvm_lock", Llvm())
cpu = time.process_time()
from evo.ga.kernels.brood import warm_breeding
warm_breeding(seeds=False)
print(f"{time.process_time() - cpu:.1f} s of CPU, {llvm[0]:.1f} s of it in LLVM (numba's llvm lock)")
for name, seconds in own.most_common(12):
    print(f"  {name}: {seconds:.2f} s its own, {whole[name]:.2f} s with what it calls")
"""


def compile_profile(repeats: int = 2) -> None:
    """Round thirteen: the brood's kernels compiled cold (an empty ``NUMBA_CACHE_DIR``, a fresh
    interpreter each time): the CPU seconds in all and in LLVM, and the functions that cost most, each
    compile's own seconds (less the compiles it started) and with them (numba's compile events)."""
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="evo-compile-") as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            subprocess.run([sys.executable, "-c", _COMPILE_PROFILE], env=env, check=True)


def _handed_to_a_pool(pool: Any) -> Any:
    """``evo.sim.batch._threaded`` as it was before round sixteen: every call handed to ``pool`` at once,
    the costliest first, the reader waiting for each in the cut's order."""
    from evo.sim.batch import LaneCall, _members_cost, _rows

    def threaded(cut, creatures, world, n_steps, stride, threads, count, laid=None):
        futures = [None] * len(cut)
        for at in sorted(range(len(cut)), key=lambda at: -_members_cost(creatures, cut[at][1])):
            run, members = cut[at]
            batch = [creatures[k] for k in members]
            futures[at] = pool.submit(run, batch, world, n_steps, stride, *_rows(laid, members))
        try:
            for (_, members), future in zip(cut, futures, strict=True):
                yield LaneCall(members, future.result(), stride, world.dt)
        finally:
            for future in futures:
                future.cancel()

    return threaded


def lane_threads(config, tmp: Path, rounds: int = 3) -> None:
    """Round sixteen: a run's kernel calls on two threads, the reader running calls beside one lane thread
    (now) against every call handed to a pool of two while the reader waits (before). First the bare
    calls (each generation's children through ``lane_runs``, as the run cuts them, ``rounds`` interleaved
    rounds): the span, the calls' summed time, how many run at once on average, how long a thread waits
    for its first call (summed over the generations, averaged over the threads) and how far apart the two
    threads end; then whole runs (1 worker, 2 threads both ways, interleaved), the wall rate over 1
    worker's, least and median."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import evo.sim.batch as batch
    from evo.bench.engine import run_record_every

    children = generation_children(config)
    every = run_record_every(config)
    real_run, now = batch._run_euler, batch._threaded
    calls: list[tuple[int, float, float]] = []

    def noted(*args: Any) -> Any:
        start = time.perf_counter()
        out = real_run(*args)
        calls.append((threading.get_ident(), start, time.perf_counter()))
        return out

    def bare(threads: Any) -> tuple[float, float, float, float]:
        span = busy = latency = apart = 0.0
        for generation in children:
            calls.clear()
            start = time.perf_counter()
            _, made = batch.lane_runs(
                generation, config.world, config.evaluation.frames, every, threads=threads
            )
            for _ in made:
                pass
            span += time.perf_counter() - start
            by_thread: dict[int, list[tuple[float, float]]] = {}
            for thread, begun, ended in calls:
                by_thread.setdefault(thread, []).append((begun, ended))
            busy += sum(ended - begun for _, begun, ended in calls)
            latency += float(np.mean([min(b for b, _ in runs) - start for runs in by_thread.values()]))
            ends = [max(e for _, e in runs) for runs in by_thread.values()]
            apart += max(ends) - min(ends)
        return span, busy, latency, apart

    kinds = {"before": _handed_to_a_pool, "now": None}
    seen: dict[str, list[tuple[float, float, float, float]]] = {kind: [] for kind in kinds}
    with ThreadPoolExecutor(2) as two, batch.LaneThreads(2) as lanes:
        batch._run_euler = noted
        try:
            for _ in range(rounds):
                for kind, old in kinds.items():
                    batch._threaded = now if old is None else old(two)
                    seen[kind].append(bare(lanes))
        finally:
            batch._run_euler, batch._threaded = real_run, now
    for kind, runs in seen.items():
        span, busy, latency, apart = min(runs)
        print(
            f"bare kernel calls, {kind}: span {span:.3f} s (least of {rounds}), calls {busy:.3f} s,"
            f" {busy / span:.2f} at once; first call after {latency:.3f} s, the threads end"
            f" {apart:.3f} s apart"
        )
    runs: dict[str, list[tuple[float, float]]] = {}
    whole = {"one": (config.replace(pool=ONE_WORKER), None)} | {
        f"two {kind}": (config.replace(pool={"workers": 2}), old) for kind, old in kinds.items()
    }
    with ThreadPoolExecutor(2) as two:
        try:
            for _ in range(rounds):
                for kind, (made, old) in whole.items():
                    batch._threaded = now if old is None else old(two)
                    runs.setdefault(kind, []).append(whole_run(made, tmp / kind.replace(" ", "-")))
        finally:
            batch._threaded = now
    one = [wall for wall, _ in runs["one"]]
    for kind in ("two before", "two now"):
        walls = [wall for wall, _ in runs[kind]]
        least, median = min(one) / min(walls), float(np.median(one)) / float(np.median(walls))
        print(
            f"whole runs, {kind}: wall {min(walls):.3f} s least, {float(np.median(walls)):.3f} s median;"
            f" {least:.3f}x / {median:.3f}x 1 worker's rate"
        )


def lane_losses(config, tmp: Path, rounds: int = 3) -> None:
    """Round seventeen: the Python a generation's lanes take (the cut into calls and each call's packing,
    from the creatures and from their arrays laid end to end as a run now has them, least of ``rounds``);
    then where a run's kernel calls lose on two lane threads, against the same calls in two
    processes. Each generation's children through ``lane_runs`` on one thread and on two (``rounds``
    interleaved rounds, summed over the generations, the least round): the span; the cut (from the call
    of ``lane_runs`` to its calls cut), when each thread starts its first call after the cut, how far
    apart they end, the calls' summed time against one thread's; then the calls split in two halves of
    equal measured time run by two processes, with a barrier after each generation and without
    (:func:`evo.bench.engine.process_halves_speedup`)."""
    import threading

    import evo.sim.batch as batch
    from evo.bench.engine import laid_out, process_halves_speedup, run_record_every

    children = generation_children(config)
    laid = laid_out(children)  # as the run has them (round seventeen)
    every = run_record_every(config)
    real_run, real_cut = batch._run_euler, batch._kernel_calls

    def packing(laid_out_too: bool) -> float:  # ms per generation
        start = time.perf_counter()
        for generation, rows in zip(children, laid, strict=True):
            rows = rows if laid_out_too else None
            for _, members in real_cut(generation, config.world, 2, rows)[1]:
                if rows is None:
                    batch._pack([generation[k] for k in members], config.world, general=False)
                else:
                    rows[0].pack(rows[1][members])
        return 1e3 * (time.perf_counter() - start) / len(children)

    alone = min(packing(False) for _ in range(rounds))
    laid_too = min(packing(True) for _ in range(rounds))
    print(
        f"a generation's lanes, cut for two threads and packed: {alone:.3f} ms from the creatures,"
        f" {laid_too:.3f} ms from their arrays laid end to end (least of {rounds})"
    )
    me = threading.get_ident()
    calls: list[tuple[int, float, float]] = []
    cut_at: list[float] = []

    def noted(*args: Any) -> Any:
        start = time.perf_counter()
        out = real_run(*args)
        calls.append((threading.get_ident(), start, time.perf_counter()))
        return out

    def cut(*args: Any) -> Any:
        out = real_cut(*args)
        cut_at.append(time.perf_counter())
        return out

    def bare(threads: Any) -> dict[str, float]:
        seen = dict.fromkeys(("span", "cut", "reader", "lane", "apart", "calls"), 0.0)
        for generation, rows in zip(children, laid, strict=True):
            calls.clear()
            start = time.perf_counter()
            _, made = batch.lane_runs(
                generation, config.world, config.evaluation.frames, every, threads=threads, laid=rows
            )
            for _ in made:
                pass
            seen["span"] += time.perf_counter() - start
            seen["cut"] += cut_at[-1] - start
            seen["calls"] += sum(ended - begun for _, begun, ended in calls)
            firsts: dict[int, float] = {}
            ends: dict[int, float] = {}
            for thread, begun, ended in calls:
                firsts[thread] = min(firsts.get(thread, begun), begun)
                ends[thread] = max(ends.get(thread, ended), ended)
            seen["reader"] += firsts.get(me, cut_at[-1]) - cut_at[-1]
            seen["lane"] += sum(at - cut_at[-1] for thread, at in firsts.items() if thread != me)
            if len(ends) == 2:
                seen["apart"] += max(ends.values()) - min(ends.values())
        return seen

    runs: dict[str, list[dict[str, float]]] = {"one thread": [], "two threads": []}
    with batch.LaneThreads(2) as lanes:
        batch._run_euler, batch._kernel_calls = noted, cut
        try:
            for _ in range(rounds):
                runs["one thread"].append(bare(None))
                runs["two threads"].append(bare(lanes))
        finally:
            batch._run_euler, batch._kernel_calls = real_run, real_cut
    one, two = (min(seen, key=lambda s: s["span"]) for seen in runs.values())
    print(
        f"one thread: span {one['span']:.3f} s, the cut {one['cut']:.3f} s, calls {one['calls']:.3f} s;"
        f" two lane threads: span {two['span']:.3f} s ({one['span'] / two['span']:.2f}x), the cut"
        f" {two['cut']:.3f} s, then the reader's first call after {two['reader']:.3f} s, the lane thread's"
        f" after {two['lane']:.3f} s, the threads end {two['apart']:.3f} s apart, calls {two['calls']:.3f} s"
        f" ({two['calls'] / one['calls']:.3f}x one thread's); least span of {rounds}, summed over"
        f" {len(children)} generations"
    )
    synced = process_halves_speedup(config, children, rounds)
    free = process_halves_speedup(config, children, rounds, barrier=False)
    print(
        f"the calls in two processes, halves of equal measured time: {synced:.3f}x with a barrier after"
        f" each generation, {free:.3f}x without (least of {rounds})"
    )


def _three_gaps(config, tmp: Path) -> None:
    for _ in range(3):
        gaps(config, tmp)


def beside_the_calls(config, tmp: Path, rounds: int = 5) -> None:
    """Round eighteen: 2-thread walkers runs (``rounds`` interleaved rounds, least and median wall) with a
    generation's kernel calls started when the compiled breeding hands on its arrays, beside the making
    of the children's creatures, with the switch interval lowered meanwhile (as shipped) or left at the
    interpreter's; against the calls started after the creatures (round seventeen's order). For the two
    first: the windows (from the hand-on to the creatures' end, summed), the lane thread's kernel time
    inside them, and its median delay from a window's start to its first kernel."""
    import statistics
    import threading

    from evo.run import batching
    from evo.sim.kernels import batch_euler

    two = config.replace(pool={"workers": 2})
    kernels: list[tuple[str, float, float]] = []
    windows: list[tuple[float, float]] = []
    real_kernel, real_laid_runs = batch_euler.run_euler_batch, batching.laid_runs
    real_call, real_taken = batching._EarlyCalls.__call__, batching._EarlyCalls.taken
    opened: dict[int, float] = {}

    def kernel(*args: Any) -> Any:
        start = time.perf_counter()
        out = real_kernel(*args)
        kernels.append((threading.current_thread().name, start, time.perf_counter()))
        return out

    def call(early: Any, *args: Any) -> None:
        real_call(early, *args)
        if early.runs is not None:
            opened[id(early)] = time.perf_counter()

    def taken(early: Any, *args: Any) -> Any:  # the creatures are made (since round twenty the switch
        if id(early) in opened:  # interval stays low until the calls are read back)
            windows.append((opened.pop(id(early)), time.perf_counter()))
        return real_taken(early, *args)

    variants = {
        "calls beside the creatures, switch interval 0.1 ms (shipped)": batching.WINDOW_SWITCH_INTERVAL,
        "calls beside the creatures, the interpreter's switch interval": sys.getswitchinterval(),
        "calls after the creatures (round seventeen)": None,
    }
    seen: dict[str, list] = {name: [] for name in variants}
    digests = set()
    batch_euler.run_euler_batch = kernel
    batching._EarlyCalls.__call__, batching._EarlyCalls.taken = call, taken
    try:
        for r in range(rounds):
            for name, interval in variants.items():
                batching.laid_runs = real_laid_runs if interval is not None else lambda *a, **k: None
                batching.WINDOW_SWITCH_INTERVAL = interval or 1e-4
                kernels.clear()
                windows.clear()
                folder = tmp / f"beside-{r}-{len(seen[name])}"
                wall, cpu = whole_run(two, folder)
                digests.add(folder_digest(folder, ignore=IGNORED))
                lane = [(a, b) for thread, a, b in kernels if thread != "MainThread"]
                inside = sum(max(0.0, min(b, end) - max(a, start)) for start, end in windows for a, b in lane)
                delays = [
                    min((a for a, _ in lane if a >= start), default=end) - start for start, end in windows
                ]
                span = sum(end - start for start, end in windows)
                seen[name].append((wall, cpu, span, inside, statistics.median(delays) if delays else 0.0))
    finally:
        batch_euler.run_euler_batch, batching.laid_runs = real_kernel, real_laid_runs
        batching._EarlyCalls.__call__, batching._EarlyCalls.taken = real_call, real_taken
        batching.WINDOW_SWITCH_INTERVAL = variants[next(iter(variants))]
    for name, runs in seen.items():
        walls = [run[0] for run in runs]
        line = (
            f"{name}: wall least {min(walls):.3f} s, median {statistics.median(walls):.3f} s; CPU least"
            f" {min(run[1] for run in runs):.3f} s"
        )
        if variants[name] is not None:
            span, inside, delay = (statistics.median(run[k] for run in runs) for k in (2, 3, 4))
            line += (
                f"; windows {span:.3f} s, the lane thread's kernel inside them {inside:.3f} s, its first"
                f" kernel {1e3 * delay:.2f} ms after a window opens (medians)"
            )
        print(line)
    print(f"run folders identical across the variants and rounds: {len(digests) == 1}")


def told_beside(config, tmp: Path, rounds: int = 8) -> None:
    """Round nineteen: walkers runs with 2 threads and with 1 worker (``rounds`` interleaved rounds,
    least and median wall, least CPU) with each generation's bookkeeping (its tell's second part,
    statistics, status, ``on_generation_told``) done in the next generation's window, beside its kernel
    calls (as shipped), against it done at once after the tell (round eighteen's order), each variant
    first in every other round; with the bookkeeping's summed time (thread CPU), the share of it done
    while a window was open (lane threads only), and the folders' digest."""
    import statistics

    from evo.run import batching, generations

    real_defers, real_beside = generations._defers, batching._EarlyCalls.beside
    kept = {"cpu": 0.0, "open": 0.0}

    def beside(early: Any) -> None:
        start = time.thread_time()
        due = early._beside is not None
        real_beside(early)
        if due:
            took = time.thread_time() - start
            kept["cpu"] += took
            kept["open"] += took if early.open else 0.0

    variants = {
        "told beside the next generation's kernel calls (shipped)": real_defers,
        "told at once, before the next ask (round eighteen)": lambda prepared: False,
    }
    seen: dict[tuple[int, str], list] = {(w, name): [] for w in (2, 1) for name in variants}
    digests = set()
    batching._EarlyCalls.beside = beside  # type: ignore[method-assign]
    try:
        for r in range(rounds):
            for workers in (2, 1):
                order = list(variants.items())
                for name, defers in order if r % 2 == 0 else order[::-1]:  # each first in half the rounds
                    generations._defers = defers
                    kept.update(cpu=0.0, open=0.0)
                    folder = tmp / f"told-{workers}-{r}-{len(seen[workers, name])}"
                    wall, cpu = whole_run(config.replace(pool={"workers": workers}), folder)
                    digests.add(folder_digest(folder, ignore=IGNORED))
                    seen[workers, name].append((wall, cpu, kept["cpu"], kept["open"]))
    finally:
        generations._defers, batching._EarlyCalls.beside = real_defers, real_beside
    for workers in (2, 1):
        print(f"{workers} {'threads' if workers > 1 else 'worker'}:")
        for name in variants:
            runs = seen[workers, name]
            walls = [run[0] for run in runs]
            line = (
                f"  {name}: wall least {min(walls):.3f} s, median {statistics.median(walls):.3f} s; CPU"
                f" least {min(run[1] for run in runs):.3f} s"
            )
            if variants[name] is real_defers:
                spent, inside = (statistics.median(run[k] for run in runs) for k in (2, 3))
                line += f"; the bookkeeping {spent:.3f} CPU-s, {inside:.3f} of it in windows (medians)"
            print(line)
        ratios = [a[0] / b[0] for a, b in zip(*(seen[workers, name] for name in variants), strict=True)]
        print(
            f"  shipped / round eighteen, wall, round by round: median {statistics.median(ratios):.3f},"
            f" {sum(x < 1 for x in ratios)} of {len(ratios)} rounds faster"
        )
    print(f"run folders identical across the worker counts, variants and rounds: {len(digests) == 1}")


class _Timeline:
    """While entered, when each generation's ``ask`` starts (``asked``) and when each Euler kernel call runs,
    on any thread (``spans``: start, end and the thread): :class:`evo.ga.loop.Evolution`'s ``ask`` and
    ``evo.sim.batch._run_euler`` wrapped."""

    def __init__(self) -> None:
        self.asked: list[float] = []
        self.spans: list[tuple[float, float, int]] = []  # (start, end, the thread)

    def __enter__(self) -> _Timeline:
        from evo.ga.loop import Evolution
        from evo.sim import batch

        self.real = Evolution.ask, batch._run_euler
        real_ask, real_kernel = self.real

        def ask(evolution: Any, *args: Any, **kwargs: Any) -> Any:
            self.asked.append(time.perf_counter())
            return real_ask(evolution, *args, **kwargs)

        def kernel(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return real_kernel(*args)
            finally:
                self.spans.append((start, time.perf_counter(), threading.get_ident()))

        Evolution.ask, batch._run_euler = ask, kernel  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        from evo.ga.loop import Evolution
        from evo.sim import batch

        Evolution.ask, batch._run_euler = self.real  # type: ignore[method-assign]

    def clear(self) -> None:
        self.asked.clear()
        self.spans.clear()

    def generation(self) -> float:
        """A generation's median wall time, from one ask to the next, from the tenth on (past the first,
        shorter ones)."""
        import statistics

        return statistics.median(np.diff(self.asked[10:]))

    def ends(self) -> tuple[float, float]:
        """Medians over the generations from the tenth: from the ask to the first kernel call's start,
        and from the last kernel call's end to the next ask."""
        import statistics

        before, after = [], []
        ordered = [(start, end) for start, end, _ in sorted(self.spans)]
        for start, end in zip(self.asked[10:], self.asked[11:], strict=False):
            inside = [span for span in ordered if start <= span[0] < end]
            if inside:
                before.append(inside[0][0] - start)
                after.append(end - max(span[1] for span in inside))
        return statistics.median(before), statistics.median(after)

    def serial(self, wall_start: float, wall_end: float) -> float:
        """The wall time from ``wall_start`` to ``wall_end`` with no kernel call running."""
        busy, until = 0.0, wall_start
        for start, end, _ in sorted(self.spans):
            if end > until:
                busy += end - max(start, until)
                until = end
        return (wall_end - wall_start) - busy


def on_lane_threads(config, tmp: Path, rounds: int = 8) -> None:
    """Round twenty: walkers runs with 2 threads and 1 worker, ``rounds`` interleaved rounds, the order
    reversed every other round, of round twenty's changes: the compiled breeding call made in parts on
    both threads, each kernel call's lanes scored by the thread that ran it, the generation before
    reported between the calls the main thread reads, and the switch interval kept low until the calls
    are read back (not only until the creatures are made); each alone (2 threads), all (shipped) and
    none (round nineteen). Least and median wall, least CPU, the wall ratio
    to round nineteen's round by round, the serial time: the run's wall time while no kernel call runs
    on any thread (median), a generation's wall time from ask to ask (each run's median from the tenth
    on: less moved by the host than a whole run; the median of those) and its two serial ends (from its
    ask to its first kernel call, from its last kernel call to the next ask; medians); and the folders'
    digest."""
    import statistics

    from evo.ga.kernels import brood as brood_kernels
    from evo.run import batching
    from evo.run import job as job_module

    real_split, real_reducing = brood_kernels.SPLIT_FROM, batching._reducing
    real_prepare = job_module.breed_and_evaluate.prepare

    def prepare_then_report(broods: Any, context: Any, beside: Any = None, between: Any = None) -> Any:
        return real_prepare(broods, context, beside=beside)  # the report after the chunk's first brood

    real_taken = batching._EarlyCalls.taken

    def taken_closing(early: Any, rows: Any) -> Any:  # the interval restored once the creatures are made
        if early.open:  # (window_closed would also drop the calls, which are still to be read)
            early.open = False
            batching._switching(-1)
        return real_taken(early, rows)

    # each change: (where it lives, its attribute, as shipped, as in round nineteen)
    changes = {
        "breeding in parts": (brood_kernels, "SPLIT_FROM", real_split, 1 << 62),
        "scoring on the calls' threads": (batching, "_reducing", real_reducing, lambda *args: None),
        "reported between the calls": (
            job_module.breed_and_evaluate,
            "prepare",
            real_prepare,
            prepare_then_report,
        ),
        "switch interval low until the calls are read": (
            batching._EarlyCalls,
            "taken",
            real_taken,
            taken_closing,
        ),
    }

    def use(names: set[str]) -> None:
        for name, (owner, attribute, shipped, before) in changes.items():
            setattr(owner, attribute, shipped if name in names else before)

    every = set(changes)
    variants = {
        "all (shipped)": every,
        **{f"{name} only": {name} for name in changes},
        "none (round nineteen)": set(),
    }
    plan = {2: list(variants), 1: ["all (shipped)", "none (round nineteen)"]}
    seen: dict[tuple[int, str], list] = {(w, name): [] for w in plan for name in plan[w]}
    digests = set()
    timeline = _Timeline()
    try:
        with timeline:
            for r in range(rounds):
                for workers, names in plan.items():
                    for name in names if r % 2 == 0 else names[::-1]:
                        use(variants[name])
                        folder = tmp / f"threads-{workers}-{r}-{len(seen[workers, name])}"
                        timeline.clear()
                        started = time.perf_counter()
                        wall, cpu = whole_run(config.replace(pool={"workers": workers}), folder)
                        gap = timeline.serial(started, time.perf_counter())
                        seen[workers, name].append((wall, cpu, gap, timeline.generation(), *timeline.ends()))
                        digests.add(folder_digest(folder, ignore=IGNORED))
    finally:
        use(every)
    for workers, names in plan.items():
        print(f"{workers} {'threads' if workers > 1 else 'worker'}:")
        base = seen[workers, names[-1]]
        for name in names:
            runs = seen[workers, name]
            walls = [run[0] for run in runs]
            ratios = [a[0] / b[0] for a, b in zip(runs, base, strict=True)]
            print(
                f"  {name}: wall least {min(walls):.3f} s, median {statistics.median(walls):.3f} s; CPU least"
                f" {min(run[1] for run in runs):.3f} s; no kernel running"
                f" {statistics.median(run[2] for run in runs):.3f} s (median); a generation (median of"
                f" medians) {1e3 * statistics.median(run[3] for run in runs):.2f} ms, from its ask to its"
                f" first kernel call {1e3 * statistics.median(run[4] for run in runs):.2f} ms, from its last"
                f" to the next ask {1e3 * statistics.median(run[5] for run in runs):.2f} ms; wall / round"
                " nineteen's, round by round: median"
                f" {statistics.median(ratios):.3f}, {sum(x < 1 for x in ratios)} of {len(ratios)} faster"
            )
    print(f"run folders identical across the worker counts, variants and rounds: {len(digests) == 1}")


def serial_ends(config, tmp: Path, rounds: int = 3) -> None:
    """Round twenty-one: where a 2-thread walkers generation's serial ends go: the wall time of each step
    of the chain the `evo run` thread does from a generation's ``ask`` to its first kernel call and from
    its last kernel call to the next ``ask`` (each step's calls timed where they start and end; in ms per
    generation, the median over the generations from the tenth of ``rounds`` runs), and the two ends;
    then the parents' arrays step in as many runs again, interleaved, with every parent gathered from
    its creature (the arrays the call before left forgotten before each call, as before the round),
    and the share of the parents the other runs found in the arrays kept."""
    import statistics
    import threading

    from evo.ga.kernels import brood as brood_kernels
    from evo.ga.kernels import parents as parents_module
    from evo.ga.kernels.parents import forget_children, parents_arrays
    from evo.ga.loop import Evolution
    from evo.run import batching
    from evo.sim import batch
    from evo.sim.laid import Laid

    forgetting = [False]
    found = [0, 0]  # the parents found in the arrays kept, and all, in the rounds that keep them

    def parents(creatures: Any) -> Any:  # every parent gathered in the rounds that forget
        if forgetting[0]:
            forget_children()
        record = getattr(parents_module._MADE, "record", None)
        if record is not None:
            found[0] += sum(id(creature) in record[0] for creature in creatures)
            found[1] += len(creatures)
        return parents_arrays(creatures)

    brood_kernels.parents_arrays = parents
    steps = {  # the step's name: where it lives, its attribute
        "selection (ask)": (Evolution, "ask"),
        "the tasks": (generations, "_tasks"),
        "the parents' arrays": (brood_kernels, "parents_arrays"),
        "the compiled breeding": (brood_kernels, "_bred"),
        "the children laid out": (Laid, "of_children"),
        "the cut": (Laid, "calls"),
        "the calls handed out (the cut included)": (batching, "laid_runs"),
        "the calls' evaluations made": (batching, "_evaluations"),
        "the evaluations handed to the broods": (batching, "_scored"),
        "the tell's first part": (Evolution, "tell_later"),
    }
    spans: list[tuple[str, int, float, float]] = []  # (step or "kernel", thread, start, end)

    def timed(name: str, real: Any) -> Any:
        def step(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                spans.append((name, threading.get_ident(), start, time.perf_counter()))

        return step

    reals = {name: getattr(owner, attribute) for name, (owner, attribute) in steps.items()}
    kept = {name: vars(owner)[attribute] for name, (owner, attribute) in steps.items()}  # (a classmethod)
    real_kernel = batch._run_euler
    per_step: dict[str, dict[str, list[float]]] = {name: {"before": [], "after": []} for name in steps}
    ends: dict[str, list[float]] = {"before": [], "after": []}
    gathered: list[float] = []  # the parents' arrays step in the rounds that forget
    for name, (owner, attribute) in steps.items():
        setattr(owner, attribute, timed(name, reals[name]))
    batch._run_euler = timed("kernel", real_kernel)
    try:
        for r in range(2 * rounds):
            forgetting[0] = r % 2 == 1
            spans.clear()
            main = threading.get_ident()
            whole_run(config.replace(pool={"workers": 2}), tmp / f"ends-{r}")
            if forgetting[0]:
                asked = sorted(start for name, _, start, _ in spans if name == "selection (ask)")
                mine = [(s, e) for name, t, s, e in spans if name == "the parents' arrays" and t == main]
                gathered.append(
                    statistics.median(
                        sum(e - s for s, e in mine if a <= s < b)
                        for a, b in zip(asked[10:], asked[11:], strict=False)
                    )
                )
                continue
            asked = sorted(start for name, _, start, _ in spans if name == "selection (ask)")
            for start, end in zip(asked[10:], asked[11:], strict=False):
                inside = [span for span in spans if start <= span[2] < end]
                kernels = [span for span in inside if span[0] == "kernel"]
                first, last = min(span[2] for span in kernels), max(span[3] for span in kernels)
                ends["before"].append(first - start)
                ends["after"].append(end - last)
                for name in steps:
                    mine = [span for span in inside if span[0] == name and span[1] == main]
                    per_step[name]["before"].append(sum(e - s for _, _, s, e in mine if e <= first))
                    per_step[name]["after"].append(sum(e - s for _, _, s, e in mine if s >= last))
    finally:
        for name, (owner, attribute) in steps.items():
            setattr(owner, attribute, kept[name])
        batch._run_euler, brood_kernels.parents_arrays = real_kernel, parents_arrays
        forget_children()
    print(
        f"a generation's serial ends (ms, median): from its ask to its first kernel call"
        f" {1e3 * statistics.median(ends['before']):.2f}, from its last to the next ask"
        f" {1e3 * statistics.median(ends['after']):.2f}"
    )
    for name in steps:
        before, after = (1e3 * statistics.median(per_step[name][end]) for end in ("before", "after"))
        print(f"  {name}: {before:.3f} ms before the first call, {after:.3f} ms after the last")
    print(f"  the parents' arrays, every parent gathered: {1e3 * statistics.median(gathered):.3f} ms")
    print(f"  a generation's distinct parents read from the arrays kept: {100 * found[0] / found[1]:.1f} %")


def _read_as(policy: str, threaded: Any) -> Any:
    """``threaded`` (:func:`evo.sim.batch._threaded`) with the thread reading the calls following
    ``policy``: "cut order" (round twenty: it runs calls while the next call in the cut's order is not
    done, and is given them in that order), "interleaved" (round twenty-one's first form: it is given
    the calls done before it runs another) or "run then read" (shipped, :func:`evo.sim.batch.
    _done_first`: it runs calls until none is left to take, then is given them as they are done)."""
    import functools

    from evo.sim import batch

    def cut_order(calls: Any, count: int) -> Any:
        for at in range(count):
            while not calls.done(at) and calls.run_next(catch=Exception):
                pass
            yield calls.result(at)

    def interleaved(calls: Any, count: int) -> Any:
        left = list(range(count))
        while left:
            ready = [at for at in left if calls.done(at)]
            if not ready and calls.run_next(catch=Exception):
                continue
            for at in ready or [calls.next_done(left)]:
                left.remove(at)
                yield calls.result(at)

    read = {"cut order": cut_order, "interleaved": interleaved, "run then read": batch._done_first}[policy]
    return functools.partial(threaded, read=read)


def reading(config, tmp: Path, rounds: int = 16) -> None:
    """Round twenty-one: 2-thread walkers runs with the thread reading a chunk's kernel calls following
    each of :func:`_read_as`'s policies, ``rounds`` interleaved rounds in one process, the order reversed
    every other round; each policy's median generation (from one ``ask`` to the next, from the tenth; the
    median of the runs' medians) and least, its whole run's median wall, its generations' ratio to the
    cut order's round by round, and whether every folder is the same."""
    import statistics

    from evo.ga.loop import Evolution
    from evo.sim import batch

    asked: list[float] = []
    real_ask, real_threaded = Evolution.ask, batch._threaded

    def ask(evolution: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(time.perf_counter())
        return real_ask(evolution, *args, **kwargs)

    policies = ["cut order", "interleaved", "run then read"]
    seen: dict[str, list[tuple[float, float]]] = {policy: [] for policy in policies}
    digests = set()
    Evolution.ask = ask  # type: ignore[method-assign]
    try:
        for r in range(rounds):
            for policy in policies if r % 2 == 0 else policies[::-1]:
                batch._threaded = _read_as(policy, real_threaded)
                asked.clear()
                folder = tmp / f"read-{r}-{policy.replace(' ', '-')}"
                wall, _ = whole_run(config.replace(pool={"workers": 2}), folder)
                seen[policy].append((wall, statistics.median(np.diff(asked[10:]))))
                digests.add(folder_digest(folder, ignore=IGNORED))
    finally:
        batch._threaded, Evolution.ask = real_threaded, real_ask  # type: ignore[method-assign]
    base = seen["cut order"]
    for policy in policies:
        runs = seen[policy]
        ratios = [a[1] / b[1] for a, b in zip(runs, base, strict=True)]
        print(
            f"{policy}: a generation {1e3 * statistics.median(run[1] for run in runs):.2f} ms (median), least"
            f" {1e3 * min(run[1] for run in runs):.2f} ms; whole run median"
            f" {statistics.median(run[0] for run in runs):.3f} s; generation / the cut order's, round by"
            f" round: median {statistics.median(ratios):.3f}, {sum(x < 1 for x in ratios)} of {len(ratios)}"
            " faster"
        )
    print(f"run folders identical across the policies and rounds: {len(digests) == 1}")


def _timed_run(workers: int, folder: Path) -> None:
    """One walkers run of ``workers`` in this process (whichever evo it imports), printed as one JSON
    line: wall and CPU seconds, the wall time with no kernel call running, a generation's median wall
    (from the tenth) and its two serial ends (as :func:`on_lane_threads` measures them), the folder's
    digest."""
    import json
    import statistics

    with _Timeline() as timeline:
        started = time.perf_counter()
        wall, cpu = whole_run(walkers_config(120).replace(pool={"workers": workers}), folder)
        serial = timeline.serial(started, time.perf_counter())
    try:  # (a generation's ask: none where the generations are made from arrays, since round thirty)
        generation, (pre, post) = timeline.generation(), timeline.ends()
    except statistics.StatisticsError:
        generation = pre = post = None
    figures = {
        "wall": wall, "cpu": cpu, "serial": serial, "generation": generation, "pre": pre, "post": post,
        "digest": folder_digest(folder, ignore=IGNORED),
    }  # fmt: skip
    print(json.dumps(figures))


def against(revision: str, tmp: Path, rounds: int = 8) -> None:
    """Round twenty-one: this tree against ``revision`` (a git worktree of it, kept in the temporary
    folder beside this checkout's, ``evo-against-<commit>``, so that its numba cache is compiled once),
    walkers runs of 2 threads and of 1 worker in separate processes (:func:`_timed_run`), ``rounds``
    interleaved rounds, the order reversed every other round, after one run of each tree. Least and
    median wall, least CPU, the wall time with no kernel call running, a generation's wall and its two
    serial ends (medians of the runs' medians), the wall ratio round by round, and whether every folder
    is the same."""
    import json
    import statistics

    root = Path(__file__).resolve().parent.parent
    git = ["git", "-C", str(root)]
    commit = subprocess.run([*git, "rev-parse", revision], check=True, capture_output=True, text=True)
    commit_id = commit.stdout.strip()
    other = Path(tempfile.gettempdir()) / f"evo-against-{commit_id[:12]}"
    if not other.exists():
        subprocess.run([*git, "worktree", "add", "--detach", str(other), commit_id], check=True)
    trees = {"this tree": root, revision: other}

    def run(tree: Path, workers: int, folder: Path) -> dict:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        command = [sys.executable, str(Path(__file__).resolve()), "timed-run", str(workers), str(folder)]
        done = subprocess.run(command, cwd=tree, env=env, check=True, capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    for name, tree in trees.items():  # each tree's numba cache, and the page cache
        run(tree, 1, tmp / f"warm-{len(name)}")
    seen: dict[tuple[int, str], list[dict]] = {(w, name): [] for w in (2, 1) for name in trees}
    for r in range(rounds):
        for workers in (2, 1):
            for name in list(trees) if r % 2 == 0 else list(trees)[::-1]:
                folder = tmp / f"{workers}-{r}-{name.replace('/', '-').replace(' ', '-')}"
                seen[workers, name].append(run(trees[name], workers, folder))
    for workers in (2, 1):
        print(f"{workers} worker{'s' if workers > 1 else ''} (the default backend):")
        base = seen[workers, revision]
        for name in trees:
            runs = seen[workers, name]
            ratios = [a["wall"] / b["wall"] for a, b in zip(runs, base, strict=True)]
            cpus = [a["cpu"] / b["cpu"] for a, b in zip(runs, base, strict=True)]

            def med(key: str, runs: list[dict] = runs) -> float:
                return statistics.median(run[key] for run in runs)

            asked = all(run["generation"] is not None for run in runs)  # (generations made by ask)
            print(
                f"  {name}: wall least {min(run['wall'] for run in runs):.3f} s, median {med('wall'):.3f} s;"
                f" CPU least {min(run['cpu'] for run in runs):.3f} s; no kernel running {med('serial'):.3f}"
                + (
                    f" s; a generation {1e3 * med('generation'):.2f} ms, from its ask to its first kernel"
                    f" call {1e3 * med('pre'):.2f} ms, from its last to the next ask"
                    f" {1e3 * med('post'):.2f} ms"
                    if asked
                    else " s"
                )
                + f"; wall / {revision}'s, round by round: median {statistics.median(ratios):.3f},"
                f" {sum(x < 1 for x in ratios)} of {len(ratios)} faster; CPU / {revision}'s: median"
                f" {statistics.median(cpus):.3f}"
            )
    digests = {run["digest"] for runs in seen.values() for run in runs}
    print(f"run folders identical across the trees, worker counts and rounds: {len(digests) == 1}")


def occupancy(config, tmp: Path, rounds: int = 3) -> None:
    """Round twenty-two: what a 2-thread walkers generation is made of, by how many kernel calls run at
    once (none, one, both threads'), how late the thread reading the calls runs its first (it makes the
    children's creatures and the generation before's bookkeeping first), how far apart the two threads'
    last calls end, and the kernel calls' time on each thread; then a 1-worker generation's kernel and
    other time (ms per generation, medians from the tenth generation, ``rounds`` interleaved runs of
    each)."""
    import statistics

    seen: dict[str, list[float]] = {}

    def note(name: str, value: float) -> None:
        seen.setdefault(name, []).append(1e3 * value)

    reader = threading.get_ident()
    with _Timeline() as timeline:
        for r in range(rounds):
            for workers in (2, 1):
                timeline.clear()
                whole_run(config.replace(pool={"workers": workers}), tmp / f"occupancy-{r}-{workers}")
                asked = timeline.asked
                for start, end in zip(asked[10:], asked[11:], strict=False):
                    inside = sorted(span for span in timeline.spans if start <= span[0] < end)
                    if workers == 1:
                        busy = sum(e - s for s, e, _ in inside)
                        note("1 worker: a generation", end - start)
                        note("1 worker: its kernel calls", busy)
                        note("1 worker: the rest", end - start - busy)
                        continue
                    times = [0.0, 0.0, 0.0]  # no call running, one, two
                    events = sorted([(s, 1) for s, _, _ in inside] + [(e, -1) for _, e, _ in inside])
                    at, running = start, 0
                    for moment, change in events:
                        times[min(running, 2)] += moment - at
                        at, running = moment, running + change
                    times[0] += end - at
                    by_thread: dict[int, list[tuple[float, float]]] = {}
                    for s, e, thread in inside:
                        by_thread.setdefault(thread, []).append((s, e))
                    note("2 threads: a generation", end - start)
                    for name, value in zip(("no call running", "one", "both"), times, strict=True):
                        note(f"2 threads: {name}", value)
                    if len(by_thread) == 2 and reader in by_thread:
                        other = next(t for t in by_thread if t != reader)
                        firsts = {t: min(s for s, _ in calls) for t, calls in by_thread.items()}
                        lasts = {t: max(e for _, e in calls) for t, calls in by_thread.items()}
                        note(
                            "2 threads: the reader's first call after the other's",
                            firsts[reader] - firsts[other],
                        )
                        note(
                            "2 threads: the two threads' last calls end apart",
                            abs(lasts[reader] - lasts[other]),
                        )
                        note(
                            "2 threads: kernel calls on the reader", sum(e - s for s, e in by_thread[reader])
                        )
                        note("2 threads: kernel calls on the other", sum(e - s for s, e in by_thread[other]))
    for name, values in seen.items():
        print(f"{name}: {statistics.median(values):.2f} ms")


def _shipped_or_not(
    config, tmp: Path, rounds: int, name: str, use: Callable[[bool], None], run: Callable[[Any, Path], Any]
) -> tuple[dict[tuple[int, bool], list[Any]], bool]:
    """``rounds`` interleaved rounds of whole walkers runs with 2 threads and 1 worker, each with the
    shipped code (``use(True)``) and without it (``use(False)``), the order swapped every other round:
    what ``run(config, folder)`` gives of each, by (workers, shipped), and whether every folder was the
    same. ``use(True)`` is in force again when this returns."""
    seen: dict[tuple[int, bool], list[Any]] = {}
    digests = set()
    try:
        for r in range(rounds):
            for workers in (2, 1):
                for shipped in (True, False) if r % 2 == 0 else (False, True):
                    use(shipped)
                    folder = tmp / f"{name}-{r}-{workers}-{shipped}"
                    seen.setdefault((workers, shipped), []).append(
                        run(config.replace(pool={"workers": workers}), folder)
                    )
                    digests.add(folder_digest(folder, ignore=IGNORED))
    finally:
        use(True)
    return seen, len(digests) == 1


def _said_shipped_or_not(
    seen: dict[tuple[int, bool], list[Any]], same: bool, line: Callable[[list[Any], list[Any]], str]
) -> None:
    """Print what :func:`_shipped_or_not` saw: for 2 threads, then 1 worker, ``line(shipped, other)``
    (each a list of what its runs gave), and whether every folder was the same."""
    for workers in (2, 1):
        who = f"{workers} {'threads' if workers > 1 else 'worker'}"
        print(f"{who}: {line(seen[(workers, True)], seen[(workers, False)])}")
    print(f"run folders identical across the variants, worker counts and rounds: {same}")


def _round_by_round(shipped: list[Any], other: list[Any], at: int) -> str:
    """The median ratio of item ``at`` of the shipped runs' figures to the others', round by round, and
    in how many rounds it was below 1."""
    import statistics

    ratios = [a[at] / b[at] for a, b in zip(shipped, other, strict=True)]
    shorter = sum(x < 1 for x in ratios)
    return f"round by round {statistics.median(ratios):.3f}, {shorter} of {len(ratios)} shorter"


def drawing_ahead(config, tmp: Path, rounds: int = 8) -> None:
    """Round twenty-two: 2-thread and 1-worker walkers runs with the next ask's draws made ahead, beside
    the kernel calls (shipped: :meth:`evo.ga.loop.Evolution.draw_ahead`), or in the ask (``draw_ahead``
    a no-op), ``rounds`` interleaved rounds in this process: a generation's median wall time, the wall
    from its ask to its first kernel call, and the runs' folders compared."""
    import statistics

    from evo.ga.loop import Evolution

    real = Evolution.draw_ahead

    def in_the_ask(evolution: Any) -> None:  # no draw made ahead: the ask makes its own
        return None

    def use(ahead: bool) -> None:
        Evolution.draw_ahead = real if ahead else in_the_ask  # type: ignore[method-assign]

    def run(made: Any, folder: Path) -> tuple[float, float]:
        with _Timeline() as timeline:
            whole_run(made, folder)
        return timeline.generation(), timeline.ends()[0]

    def line(shipped: list[Any], inside: list[Any]) -> str:
        return (
            f"a generation {1e3 * statistics.median(g for g, _ in shipped):.2f} ms with the draws made ahead,"
            f" {1e3 * statistics.median(g for g, _ in inside):.2f} ms in the ask"
            f" ({_round_by_round(shipped, inside, 0)}); from its ask to its first kernel call"
            f" {1e3 * statistics.median(e for _, e in shipped):.2f} against"
            f" {1e3 * statistics.median(e for _, e in inside):.2f} ms"
        )

    _said_shipped_or_not(*_shipped_or_not(config, tmp, rounds, "ahead", use, run), line)


def resolvable(config, tmp: Path, rounds: int = 2) -> None:
    """Round twenty-two: how soon a 2-thread walkers generation's kernel calls tell the next generation's
    pairs. The next ask's tournament aspirants are drawn ahead (:meth:`evo.ga.loop.Evolution.draw_ahead`),
    so a pair is known once its aspirants' fitness is (the survivors' and unchanged copies' at once,
    a child's when the kernel call holding it ends). The share of the next generation's pairs known when
    the first thread runs out of calls (the two threads' last calls ending apart after it), and one
    millisecond before the last call ends; medians over the generations from the tenth, ``rounds``
    runs."""
    import statistics

    from evo.ga.loop import Evolution
    from evo.run import batching, job
    from evo.sim import batch

    call_ends: dict[int, tuple[float, int]] = {}  # id(a call's members) -> (its end, its thread)
    child_known: dict[tuple[int, int], tuple[float, int]] = {}  # (id(Bred), child) -> its call's end
    chunks: list[tuple[list, list]] = []  # per generation: its broods (plan order) and their Bred
    asked: list[tuple[list[int], int, int]] = []  # per ask with draws made ahead: aspirants, size, elite
    real_run, real_scored = batch._SharedCalls.run, batching._scored
    real_prepare, real_ask = job.prepare_broods, Evolution.ask

    def run(calls: Any, at: int, catch: Any = BaseException) -> None:
        try:
            real_run(calls, at, catch)
        finally:
            call_ends[id(calls.cut[at][1])] = (time.perf_counter(), threading.get_ident())

    def scored(call: Any, evaluations: Any, members: Any, sparse: bool = False) -> None:
        ended = call_ends.get(id(call.members), (time.perf_counter(), 0))
        for index in call.members:
            bred, child, _ = members[index]
            child_known[id(bred), child] = ended
        real_scored(call, evaluations, members, sparse)

    def prepare(broods: Any, context: Any, *args: Any, **kwargs: Any) -> Any:
        out = real_prepare(broods, context, *args, **kwargs)
        chunks.append((list(broods), out))
        return out

    def ask(evolution: Any) -> Any:
        drawn = evolution._ahead
        if drawn is not None and evolution._fits(drawn):
            elite = min(evolution.settings.ga.elite, evolution.settings.population - 1)
            asked.append((drawn.aspirants, drawn.size, elite))
        else:
            asked.append(([], 0, 0))
        return real_ask(evolution)

    shares: dict[str, list[float]] = {"first thread out of calls": [], "1 ms before the last call ends": []}
    batch._SharedCalls.run, batching._scored = run, scored  # type: ignore[method-assign]
    job.prepare_broods, Evolution.ask = prepare, ask  # type: ignore[method-assign]
    try:
        for r in range(rounds):
            for seen in (call_ends, child_known, chunks, asked):
                seen.clear()
            whole_run(config.replace(pool={"workers": 2}), tmp / f"resolvable-{r}")
            for g in range(10, len(chunks) - 1):
                broods, bred = chunks[g]
                aspirants, size, elite = asked[g + 1]
                ends: dict[int, float] = {}  # each thread's last call of the generation
                known = [0.0] * elite  # each member of the next population, when its fitness is known
                for brood, made in zip(broods, bred, strict=True):
                    for child, seed in enumerate(brood.plugin_seeds):
                        end, thread = (
                            (0.0, 0) if seed is None else child_known.get((id(made), child), (math.inf, 0))
                        )
                        known.append(end)
                        if 0.0 < end < math.inf:
                            ends[thread] = max(ends.get(thread, 0.0), end)
                if not aspirants or not ends:
                    continue
                last = max(ends.values())
                pairs = [
                    max(known[a] for a in aspirants[at : at + 2 * size])
                    for at in range(0, len(aspirants), 2 * size)
                ]
                moments = {
                    "first thread out of calls": min(ends.values()),
                    "1 ms before the last call ends": last - 1e-3,
                }
                for name, moment in moments.items():
                    shares[name].append(sum(p <= moment for p in pairs) / len(pairs))
    finally:
        batch._SharedCalls.run, batching._scored = real_run, real_scored  # type: ignore[method-assign]
        job.prepare_broods, Evolution.ask = real_prepare, real_ask  # type: ignore[method-assign]
    for name, values in shares.items():
        low, high = (100 * np.percentile(values, q) for q in (25, 75))
        print(
            f"the next generation's pairs known when {name}: {100 * statistics.median(values):.1f} %"
            f" (the generations' quartiles {low:.1f}-{high:.1f} %)"
        )


def idle_handing(config, tmp: Path, rounds: int = 4) -> None:
    """Round twenty-three: 2-thread walkers runs in which a lane thread left without a kernel call to
    take hands on the calls done by then (shipped: :class:`evo.run.batching._Handing`), or leaves them
    all to the reader (its ``idle`` a no-op), alternating generation by generation within each run (the
    parity swapped every other round), so that the host's drift falls on both alike. Per variant, over
    the generations from the tenth of ``rounds`` runs: a generation's median wall time (ask to ask),
    the chain from its last kernel call's end to the next generation's first call's start, and the
    share of the calls a lane thread handed on; then the runs' folders against a 1-worker run's."""
    import statistics

    from evo.ga.loop import Evolution
    from evo.run import batching

    handing = [True]
    flags: list[bool] = []  # each ask's variant, in order
    real_ask, real_idle, real_scored = Evolution.ask, batching._Handing.idle, batching._scored
    main = threading.get_ident()
    handed = {True: [0, 0], False: [0, 0]}  # per variant: calls handed on by a lane thread, all

    def ask(evolution: Any) -> Any:
        handing[0] = (evolution.generation + rounds_parity[0]) % 2 == 0
        flags.append(handing[0])
        return real_ask(evolution)

    def idle(self: Any, call: Any) -> None:
        if handing[0]:
            real_idle(self, call)

    def scored(call: Any, *args: Any, **kwargs: Any) -> Any:
        counts = handed[handing[0]]
        counts[0] += threading.get_ident() != main
        counts[1] += 1
        return real_scored(call, *args, **kwargs)

    rounds_parity = [0]
    seen: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    digests = set()
    Evolution.ask, batching._Handing.idle, batching._scored = ask, idle, scored  # type: ignore[method-assign]
    try:
        for r in range(rounds):
            rounds_parity[0] = r % 2
            flags.clear()
            folder = tmp / f"idle-{r}"
            with _Timeline() as timeline:
                whole_run(config.replace(pool={"workers": 2}), folder)
            digests.add(folder_digest(folder, ignore=IGNORED))
            ordered = sorted(timeline.spans)
            for at in range(10, len(timeline.asked) - 1):
                start, end = timeline.asked[at], timeline.asked[at + 1]
                inside = [span for span in ordered if start <= span[0] < end]
                after = [span for span in ordered if span[0] >= end]
                if inside and after:
                    chain = after[0][0] - max(span[1] for span in inside)
                    seen[flags[at]].append((end - start, chain))
    finally:
        Evolution.ask, batching._Handing.idle, batching._scored = real_ask, real_idle, real_scored
    folder = tmp / "idle-one"
    whole_run(config.replace(pool=ONE_WORKER), folder)
    digests.add(folder_digest(folder, ignore=IGNORED))
    for variant, name in ((True, "handed on by an idle lane thread"), (False, "all left to the reader")):
        rows = seen[variant]
        by_lane, calls = handed[variant]
        print(
            f"{name}: {len(rows)} generations, a generation {1e3 * statistics.median(g for g, _ in rows):.2f}"
            f" ms (mean {1e3 * statistics.fmean(g for g, _ in rows):.2f}), the chain from its last kernel"
            f" call to the next one's first {1e3 * statistics.median(c for _, c in rows):.3f} ms (mean"
            f" {1e3 * statistics.fmean(c for _, c in rows):.3f}); {100 * by_lane / max(calls, 1):.1f} % of"
            f" {calls} calls handed on by a lane thread"
        )
    print(f"run folders identical across the rounds and a 1-worker run: {len(digests) == 1}")


def report_waits(config, tmp: Path, rounds: int = 4) -> None:
    """Round twenty-three: walkers runs with 2 threads and 1 worker, the run folder's generation bests
    written as each generation is told (shipped: ``FolderWriter._best_now``), or all at once before the
    next checkpoint (as before the round: kept, then written by the checkpoint's work), ``rounds``
    interleaved rounds: the time the generations' reports waited for their checkpoints (summed per run),
    a run's wall time, and the folders compared."""
    import statistics

    from evo.run.folder.writer import FolderWriter

    real_best_now, real_checkpoint, real_end = (
        FolderWriter._best_now, FolderWriter._checkpoint, FolderWriter.on_generation_end
    )  # fmt: skip
    waited = [0.0]

    def kept(writer: Any, generation: int, best: Any) -> None:  # for the next checkpoint to write
        writer.__dict__.setdefault("_kept", []).append((generation, best))

    def all_at_once(writer: Any, state: Any) -> Any:
        bests = writer.__dict__.pop("_kept", [])  # (the last one told's too, as the shipped writer)
        writer._bests = writer._pending = None

        def work() -> None:
            for generation, best in bests:
                if best is not None:
                    writer.folder.write_generation_best(generation, writer.elites.text(best))
            writer._write_checkpoint(state)

        return writer._executor.submit(work)

    def end(writer: Any, status: Any) -> None:
        started = time.perf_counter()
        try:
            real_end(writer, status)
        finally:
            waited[0] += time.perf_counter() - started

    def use(shipped: bool) -> None:
        FolderWriter._best_now = real_best_now if shipped else kept  # type: ignore[method-assign]
        FolderWriter._checkpoint = real_checkpoint if shipped else all_at_once  # type: ignore

    def run(made: Any, folder: Path) -> tuple[float, float]:
        waited[0] = 0.0
        wall, _ = whole_run(made, folder)
        return waited[0], wall

    FolderWriter.on_generation_end = end  # type: ignore[method-assign]
    try:
        seen, same = _shipped_or_not(config, tmp, rounds, "waits", use, run)
    finally:
        FolderWriter.on_generation_end = real_end  # type: ignore[method-assign]

    def line(now: list[Any], before: list[Any]) -> str:
        return (
            f"the reports waited {1e3 * statistics.median(w for w, _ in now):.1f} ms a run with each best"
            f" written as it is told, {1e3 * statistics.median(w for w, _ in before):.1f} ms with them all"
            f" written before the next checkpoint; a run {statistics.median(w for _, w in now):.3f} s"
            f" against {statistics.median(w for _, w in before):.3f} s ({_round_by_round(now, before, 1)})"
        )

    _said_shipped_or_not(seen, same, line)


def _padded_calls(padded: bool) -> None:
    """From here, kernel calls padded to whole lane blocks (shipped: :func:`evo.sim.batch.padded_lanes`)
    or run on their creatures alone (as before round twenty-four)."""
    from evo.sim import batch

    real = _padded_calls.__dict__.setdefault("real", batch.padded_lanes)
    batch.padded_lanes = real if padded else (lambda lanes: lanes)


def lane_counts(config, repeats: int = 7) -> None:
    """Round twenty-four: one Euler kernel call of N lanes (N copies of one creature at rest: the walker
    of genomes/, and random creatures of 8 and 16 masses), the run's frames and records, padded to
    whole lane blocks or not, least wall time of ``repeats`` interleaved; per creature, N: unpadded ms /
    padded ms."""
    from evo.ga.creatures import random_creature
    from evo.ga.settings import GenomeSection
    from evo.io.models import load_model
    from evo.sim import batch
    from evo.sim.simulate import steps_for

    world, frames = config.world, config.evaluation.frames
    n_steps = steps_for(frames, world.dt)
    stride = steps_for(run_record_every(config), world.dt)
    rng = np.random.default_rng(24)
    creatures = [load_model(Path(__file__).resolve().parents[1] / "genomes" / "walker.json")]
    for masses in (8, 16):
        made = random_creature(rng, dataclasses.replace(GenomeSection(), masses=(masses, masses)))
        creatures.append(made.replace(velocities=np.zeros_like(made.velocities)))
    counts = (8, 9, 10, 11, 12, 16, 20, 23, 24, 25, 26, 27, 28, 31, 32, 33, 36, 40, 44, 48, 52, 56, 60, 63)
    try:
        for creature in creatures:
            best = {True: {}, False: {}}
            for n in counts:
                for r in range(repeats):
                    for padded in (True, False) if r % 2 == 0 else (False, True):
                        _padded_calls(padded)
                        started = time.perf_counter()
                        batch._run_euler([creature] * n, world, n_steps, stride)
                        took = time.perf_counter() - started
                        best[padded][n] = min(best[padded].get(n, math.inf), took)
            row = " ".join(f"{n}: {1e3 * best[False][n]:.2f}/{1e3 * best[True][n]:.2f}" for n in counts)
            print(f"{creature.n_masses} masses, {creature.n_links} links (ms unpadded/padded): {row}")
    finally:
        _padded_calls(True)


def padding(config, tmp: Path, rounds: int = 4) -> None:
    """Round twenty-four: whole walkers runs with 2 threads and 1 worker, their kernel calls padded to
    whole lane blocks (shipped) or not, ``rounds`` interleaved rounds: a run's median wall and CPU
    seconds, and the folders compared."""
    import statistics

    def line(now: list[Any], before: list[Any]) -> str:
        return (
            f"a run {statistics.median(w for w, _ in now):.3f} s padded against"
            f" {statistics.median(w for w, _ in before):.3f} s not"
            f" ({_round_by_round(now, before, 0)}), CPU {statistics.median(c for _, c in now):.3f} s against"
            f" {statistics.median(c for _, c in before):.3f} s ({_round_by_round(now, before, 1)})"
        )

    _said_shipped_or_not(*_shipped_or_not(config, tmp, rounds, "padding", _padded_calls, whole_run), line)


def selection_behind(tournament: int | None = None, generations: int = 120) -> None:
    """Round twenty-five: the search quality of a GA that selects its parents one generation behind
    (:func:`_lagged_evolution`), against the shipped GA, on examples/walkers.toml whole with seeds 1-5
    (both with tournaments of ``tournament`` aspirants where given, else the example's), and random search
    at equal evaluations (``evo.bench.quality``, the search quality section's measures): per seed the best
    distance of each, then their means, spreads and ratios to random search."""
    import statistics

    from evo.bench.quality import SEEDS, random_search_best
    from evo.run.evolve import run_prepared
    from evo.run.folder.writer import prepare

    def ga_best(seed: int, behind: bool) -> tuple[float, int]:  # as evo.bench.quality's, in memory
        config = walkers_config(generations).replace(run={"seed": seed}, pool=ONE_WORKER)
        if tournament is not None:
            config = config.replace(ga={"tournament_size": tournament})
        prepared = prepare(config)
        history = run_prepared(_lagged(prepared) if behind else prepared).history
        return float(np.max(history["distance_best"])), int(np.sum(history["evaluations"]))

    best: dict[str, list[float]] = {"shipped": [], "behind": [], "random search": []}
    for seed in SEEDS:
        for name in ("shipped", "behind"):
            found, evaluations = ga_best(seed, name == "behind")
            best[name].append(found)
        best["random search"].append(random_search_best(seed, evaluations, generations))
        row = ", ".join(f"{name} {values[-1]:.1f} px" for name, values in best.items())
        print(f"seed {seed} ({evaluations} evaluations): {row}")
    chance = statistics.fmean(best["random search"])
    for name, values in best.items():
        mean = statistics.fmean(values)
        print(
            f"{name}: mean {mean:.1f} px, spread between seeds {statistics.stdev(values):.1f} px,"
            f" {mean / chance:.2f}x random search"
        )


def _one_in_memory(config: Any, seed: int) -> float:
    """Wall seconds of one in-memory 1-worker run of ``config`` with ``seed``."""
    from evo.run.evolve import evolve

    started = time.perf_counter()
    evolve(config.replace(run={"seed": seed}, pool=ONE_WORKER), progress=False)
    return time.perf_counter() - started


def _one_in_a_child(config: Any, seed: int, pipe: Any) -> None:
    pipe.send(_one_in_memory(config, seed))
    pipe.close()


def two_at_once(config, rounds: int = 4) -> None:
    """Round twenty-five: what two generations in flight at once could give, whatever the GA: one
    in-memory 1-worker walkers run alone, against two such runs (seeds 1 and 2) at once in two threads of
    this process and in two forked processes, ``rounds`` interleaved rounds: the throughput of the two at
    once against one alone (twice one's wall time over the pair's), median and round by round. Each of
    the two does a whole generation's Python and kernel calls on its own thread, as a run with two
    generations in flight would; the threads share one GIL, the processes nothing."""
    import multiprocessing
    import statistics
    import threading

    fork = multiprocessing.get_context("fork")

    def threads() -> float:
        done: list[float] = []
        pair = [threading.Thread(target=lambda s=s: done.append(_one_in_memory(config, s))) for s in (1, 2)]
        started = time.perf_counter()
        for thread in pair:
            thread.start()
        for thread in pair:
            thread.join()
        assert len(done) == 2, "a run in a thread failed"
        return time.perf_counter() - started

    def processes() -> float:
        pipes, children = [], []
        started = time.perf_counter()
        for seed in (1, 2):
            mine, theirs = fork.Pipe()
            child = fork.Process(target=_one_in_a_child, args=(config, seed, theirs))
            child.start()
            pipes.append(mine)
            children.append(child)
        for mine in pipes:
            mine.recv()
        for child in children:
            child.join()
        return time.perf_counter() - started

    _one_in_memory(config, 1)  # everything compiled and imported first
    kinds = {"alone": lambda: _one_in_memory(config, 1), "two threads": threads, "two processes": processes}
    seen: dict[str, list[float]] = {name: [] for name in kinds}
    for r in range(rounds):
        for name in kinds if r % 2 == 0 else reversed(kinds):
            seen[name].append(kinds[name]())
    alone = seen["alone"]
    for name in ("two threads", "two processes"):
        ratios = [2 * a / b for a, b in zip(alone, seen[name], strict=True)]
        print(
            f"{name}: two runs at once in {statistics.median(seen[name]):.3f} s against one alone in"
            f" {statistics.median(alone):.3f} s: {statistics.median(ratios):.2f}x the throughput"
            f" (round by round {', '.join(f'{x:.2f}' for x in ratios)})"
        )


def _lagged_evolution() -> type:
    """A scratch :class:`evo.ga.loop.Evolution` with the lag a barrier-free run needs (rounds 25, 26):
    generation g's parents from generation g - 2 (generation 1's from generation 0), its elites still
    from g - 1 (taken at its tell), and the ask of generation g + 2 allowed once g is told, before g + 1
    is (two asks under way). The same results whichever order its asks and tells come in. Scratch: no
    draws ahead, and its state is not one a checkpoint resumes (it lacks the population before)."""
    import copy

    from evo.ga import loop

    class Lagged(loop.Evolution):
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self._before: list = []  # the population told before the latest
            self._second: Any = None  # the ask made before the tell of the one under way
            self._before_second: Any = None

        def draw_ahead(self) -> None:
            return

        def _planned(self, drawn: Any = None) -> Any:
            pool = self._before if self.generation >= 1 else self.population
            latest, self.population = self.population, pool
            try:
                _, plan, parents_of = super()._planned(None)
            finally:
                self.population = latest
            return [], plan, parents_of  # the elites: the latest population's, at the tell

        def ask(self) -> Any:
            if self._pending is None:
                return super().ask()
            if self._second is not None or self.generation < 0:
                raise RuntimeError("a third ask, or generation 1's before generation 0 is told")
            state, before = self.rng.bit_generator.state, self._before
            self.generation, self._before = self.generation + 1, self.population  # as if it were told
            try:
                self._second = self._planned()
            except BaseException:
                self.rng.bit_generator.state = state
                raise
            finally:
                self.generation, self._before = self.generation - 1, before
            self._before_second = state
            return self._second[1]

        def tell_later(self, results: Any) -> Any:
            _, plan, parents_of = self._pending
            elite = min(self.settings.ga.elite, self.settings.population - 1)
            best = sorted(self.population, key=loop._fitness_key, reverse=True)[:elite]
            survivors = [copy.deepcopy(ind) for ind in best] if plan.generation > 0 else []
            self._pending = survivors, plan, parents_of
            before = self.population
            finish = super().tell_later(results)
            self._before = before
            if self._second is not None:
                self._pending, self._before_ask, self._second = self._second, self._before_second, None
            return finish

        def take_back(self) -> None:
            super().take_back()
            self._second = None

    return Lagged


def _told_in_turn(
    prepared: Any, callbacks: list, generation: tuple, launch: Callable[[], None], previous: Any
) -> Any:
    """Round twenty-six's scratch engines, once a generation's results are in (``generation``: its
    number, broods, tasks and results by task): it is told, ``launch`` asks and starts the next but one,
    the generation before is reported (``previous``, its report), and this one's bookkeeping is done.
    Returns this one's report, for the next call."""
    from evo.ga.search import ChildResult

    evolution = prepared.evolution
    g, broods, tasks, ranked = generation
    per_brood: list[list[ChildResult]] = [[] for _ in broods]
    for task, result in zip(tasks, ranked, strict=True):
        per_brood[task.index] = result
    finish = evolution.tell_later([child for children in per_brood for child in children])
    launch()
    return _reported(prepared, callbacks, g, sum(task.weight for task in tasks), finish, previous)


def _reported(
    prepared: Any, callbacks: list, g: int, evaluations: int, record: Callable[[], dict], previous: Any
) -> Any:
    """The scratch engines' report of generation ``g`` once it is told: the generation before reported
    (``previous``, its report), the callbacks told of this one, its bookkeeping done (``record``, which
    gives its logbook row) and its status handed on. Returns this one's report, for the next call."""
    if previous is not None:
        generations._report(previous, callbacks)
    for callback in callbacks:
        callback.on_generation_start(g, evaluations)
        callback.on_evaluated(evaluations)
    status = generations.told_status(prepared, callbacks, g, evaluations, record(), 0.0)
    return ("generation %d told", g), status


def _overlapped_generations(prepared: Any, backend: Any, callbacks: list) -> bool:
    """Round twenty-six's scratch engine for :func:`_lagged_evolution`'s GA on the threads backend: two
    generations in flight, each bred and evaluated whole on a thread of its own (in-process, no lane
    threads); the thread that finishes one tells it once the one before is told, asks and starts the
    next but one, reports the one before and does this one's bookkeeping, all under one lock, then goes
    on. (No refinement, no failure reports, no stop requests: an experiment's.)"""
    from concurrent.futures import ThreadPoolExecutor

    from evo.run.backends.base import EvaluationFailed, chunks_of, run_chunk

    evolution, config = prepared.evolution, prepared.config
    total = config.run.generations
    pool = ThreadPoolExecutor(2, thread_name_prefix="evo-generation")
    local = threading.local()
    turn = threading.Condition()
    flight: dict[int, Any] = {}  # asked, not told: generation -> future
    shared: dict[str, Any] = {"previous": None, "halt": False}

    def launch() -> None:  # under turn
        while len(flight) < 2 and evolution.generation + 1 + len(flight) < total:
            if flight and evolution.generation < 0:  # generation 1's parents are generation 0's
                return
            g = evolution.generation + 1 + len(flight)
            broods = list(evolution.ask().broods)
            flight[g] = pool.submit(work, g, broods, generations._tasks(broods, config, 1))

    def work(g: int, broods: list, tasks: list) -> None:
        context = getattr(local, "context", None)
        if context is None:  # this thread's own: a context binds the reducer once
            context = local.context = backend.context.with_lane_threads(None)
        ranked: list = []
        for chunk in chunks_of(tasks, 1):
            done, error = run_chunk(backend.job, context, [(task.index, task.payload) for task in chunk])
            ranked.extend(result for _, result in done)
            if error is not None:
                raise EvaluationFailed(*error)
        with turn:
            turn.wait_for(lambda: shared["halt"] or evolution.generation == g - 1)
            if shared["halt"]:
                return
            try:

                def next_but_one() -> None:  # this thread's next work
                    del flight[g]
                    launch()

                shared["previous"] = _told_in_turn(
                    prepared, callbacks, (g, broods, tasks, ranked), next_but_one, shared["previous"]
                )
            except BaseException:
                shared["halt"] = True
                raise
            finally:
                turn.notify_all()

    try:
        with turn:
            launch()
        while True:
            with turn:
                if not flight or shared["halt"]:
                    break
                future = flight[min(flight)]
            future.result()
        pool.shutdown(wait=True)
        if shared["previous"] is not None:
            generations._report(shared["previous"], callbacks)
        return False
    finally:
        with turn:
            shared["halt"] = True
            turn.notify_all()
        pool.shutdown(wait=True, cancel_futures=True)


_FORKED: dict[str, Any] = {}  # the job and context a forked generation process inherits


def _generation_in_a_process(payloads: list) -> tuple[list, Any]:
    """In a forked process: one generation's tasks as one chunk (:func:`_overlapped_in_processes`)."""
    from evo.run.backends.base import run_chunk

    done, error = run_chunk(_FORKED["job"], _FORKED["context"], payloads)
    return [result for _, result in done], error


def _overlapped_in_processes(prepared: Any, backend: Any, callbacks: list) -> bool:
    """:func:`_overlapped_generations` with each generation bred and evaluated whole in one of two forked
    processes (its broods pickled out, its children and their evaluations pickled back), this process
    telling each in turn, asking and sending the next but one, reporting the one before and keeping the
    books between. ``backend`` is the in-process one (a 1-worker config): its job and context go to the
    processes by the fork. (An experiment's: no failure reports, stop requests or refinement.)"""
    import multiprocessing
    from collections import deque

    from evo.run.backends.base import EvaluationFailed

    evolution, config = prepared.evolution, prepared.config
    total = config.run.generations
    _FORKED.update(job=backend.job, context=backend.context)
    pool = multiprocessing.get_context("fork").Pool(2)
    flight: deque = deque()  # broods, tasks, the pending result

    def launch() -> None:
        while len(flight) < 2 and evolution.generation + 1 + len(flight) < total:
            if flight and evolution.generation < 0:  # generation 1's parents are generation 0's
                return
            broods = list(evolution.ask().broods)
            tasks = generations._tasks(broods, config, 1)
            payloads = [(task.index, task.payload) for task in tasks]
            flight.append((broods, tasks, pool.apply_async(_generation_in_a_process, (payloads,))))

    previous = None
    try:
        launch()
        while flight:
            broods, tasks, pending = flight.popleft()
            ranked, error = pending.get()
            if error is not None:
                raise EvaluationFailed(*error)
            g = evolution.generation + 1
            previous = _told_in_turn(prepared, callbacks, (g, broods, tasks, ranked), launch, previous)
        if previous is not None:
            generations._report(previous, callbacks)
        pool.close()
        return False
    finally:
        pool.terminate()
        pool.join()  # (waited for: their CPU counts in this process's children's)
        _FORKED.clear()


def _lagged(prepared: Any) -> Any:
    """``prepared`` with :func:`_lagged_evolution`'s GA in place of the shipped one (a new run's)."""
    shipped = prepared.evolution
    lagged = _lagged_evolution()(shipped.settings, seed_models=shipped.seed_models)
    return dataclasses.replace(prepared, evolution=lagged)


def _lagged_run(config: Any, folder: Path, overlapped: Any = None) -> tuple[float, float]:
    """:func:`evo.bench.engine.whole_run` of ``config`` with :func:`_lagged_evolution`'s GA, on the
    generation loop ``overlapped`` (:func:`_overlapped_generations`, :func:`_overlapped_in_processes`),
    else on the shipped one."""
    from evo.run import evolve
    from evo.run.folder.writer import FolderWriter, prepare

    start, cpu = time.perf_counter(), sum(cpu_parts())
    prepared = _lagged(prepare(config, out=folder, force=True))
    loop = evolve.run_generations
    if overlapped is not None:
        evolve.run_generations = overlapped
    try:
        evolve.run_prepared(prepared, [FolderWriter(prepared)])
    finally:
        evolve.run_generations = loop
    return time.perf_counter() - start, sum(cpu_parts()) - cpu


def overlapped(config, tmp: Path, rounds: int = 6) -> None:
    """Round twenty-six: a GA without the generation barrier (:func:`_lagged_evolution`: parents two
    generations back) run with two generations in flight (:func:`_overlapped_generations`), against
    the shipped GA and engine: whole walkers runs of 1 worker and of 2 (the threads backend; for the
    lagged GA also two forked processes, :func:`_overlapped_in_processes`), ``rounds`` interleaved rounds,
    each pair's wall ratio round by round (2 workers' rate over 1's), CPU ratio, how busy the 2-worker
    runs keep two cores, and whether each GA's folders are the same whichever engine ran it."""
    import statistics

    one, two = config.replace(pool=ONE_WORKER), config.replace(pool={"workers": 2})
    kinds: dict[str, Callable[[Path], tuple[float, float]]] = {
        "shipped, 1 worker": lambda folder: whole_run(one, folder),
        "shipped, 2 workers": lambda folder: whole_run(two, folder),
        "lagged, 1 worker": lambda folder: _lagged_run(one, folder),
        "lagged, 2 workers": lambda folder: _lagged_run(two, folder, _overlapped_generations),
        "lagged, 2 processes": lambda folder: _lagged_run(one, folder, _overlapped_in_processes),
    }
    _lagged_run(two, tmp / "warm-lagged", _overlapped_generations)
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
    folders = {name: tmp / name.replace(", ", "-").replace(" ", "-") for name in kinds}
    for r in range(rounds):
        for name in kinds if r % 2 == 0 else reversed(kinds):
            seen[name].append(kinds[name](folders[name]))
    digests = {name: folder_digest(folder, IGNORED) for name, folder in folders.items()}
    for ga, two_of in (("shipped", "2 workers"), ("lagged", "2 workers"), ("lagged", "2 processes")):
        ones, twos = seen[f"{ga}, 1 worker"], seen[f"{ga}, {two_of}"]
        walls = [a[0] / b[0] for a, b in zip(ones, twos, strict=True)]
        cpus = [b[1] / a[1] for a, b in zip(ones, twos, strict=True)]
        same = digests[f"{ga}, 1 worker"] == digests[f"{ga}, {two_of}"]
        print(
            f"{ga} GA: {two_of} {statistics.median(walls):.2f}x the wall rate of 1 (round by round"
            f" {', '.join(f'{x:.2f}' for x in walls)}), {statistics.median(cpus):.2f}x its CPU per"
            " evaluation;"
            f" medians {statistics.median(b[0] for b in twos):.3f} s against"
            f" {statistics.median(a[0] for a in ones):.3f} s; the {two_of}' CPU"
            f" {statistics.median(b[1] / (2 * b[0]) for b in twos):.0%} of two cores' wall time; folders"
            f" identical: {'yes' if same else 'no'}"
        )


# -- round twenty-seven: the generation sharded over two processes that own the population as arrays --


def _sharded_results(broods: list, bred: Any) -> list:
    """Each brood's :class:`~evo.ga.search.ChildResult` s from a generation worker 0 sent (a
    :class:`~evo.ga.bred.BredGeneration`): a creature assembled from its arrays (as the compiled brood
    assembles it) and an evaluation per new child: the shipped books' tell takes them."""
    from evo.fitness.spec import Evaluation, worst_fitness
    from evo.ga.kernels.brood import assembled_children
    from evo.ga.search import ChildResult

    templates, worlds = [], []
    for brood in broods:
        for template, seed in zip(brood.parents, brood.plugin_seeds, strict=True):
            if seed is not None:
                templates.append(template)
                worlds.append(brood.parents[0].world if brood.mate else None)
    creatures = assembled_children(bred.children, templates, worlds)
    worst = worst_fitness((1.0,))
    fitness, exploded = bred.fitness.tolist(), bred.exploded.tolist()
    per_brood: list[list] = []
    c = 0
    for brood in broods:
        kids = []
        for seed in brood.plugin_seeds:
            if seed is None:
                kids.append(ChildResult())
                continue
            evaluation = Evaluation(worst if exploded[c] else (fitness[c],), exploded[c])
            kids.append(ChildResult(creatures[c], evaluation))
            c += 1
        per_brood.append(kids)
    return per_brood


def _sharded_generations(
    prepared: Any,
    backend: Any,
    callbacks: list,
    *,
    books: bool = True,
    burn: float = 0.0,
    lean: bool = False,
    cut: int = 0,
) -> bool:
    """Round twenty-seven's engine (a single-objective run whose pair broods the compiled operators breed
    and whose plugin has a compiled reducer, like the walkers'): generation 0 here, then two forked
    workers run every other generation on arrays -- since round twenty-eight the shards backend's own
    (:class:`evo.run.shards.engine._Stint`) -- while this
    process asks each generation as the shipped loop does (the same draws), makes its children's
    creatures and evaluations from the arrays worker 0 sends, tells it and keeps the books, behind them;
    with ``lean``, it tells each generation straight from the arrays (since round twenty-eight the
    shards backend's :meth:`~evo.ga.loop.Evolution.tell_bred`). Without ``books``, this process only
    reads what the workers send (no folder is written): what two workers reach with no bookkeeping at
    all, or with bookkeeping that costs ``burn`` CPU-seconds a generation (this process busy that long
    for each). ``cut``: the generation's kernel calls cut as for that many threads (0: as for the two
    workers). ``backend``: the in-process one (a 1-worker config). (An experiment's: no failure reports
    beyond a one-line error, no stop requests.)"""
    from evo.run.backends.base import EvaluationFailed, Task, run_chunk
    from evo.run.shards.engine import _Stint

    evolution, config = prepared.evolution, prepared.config
    total = config.run.generations
    broods = list(evolution.ask().broods)
    tasks = generations._tasks(broods, config, 1)
    done, error = run_chunk(backend.job, backend.context, [(task.index, task.payload) for task in tasks])
    if error is not None:
        raise EvaluationFailed(*error)
    previous = _told_in_turn(
        prepared, callbacks, (0, broods, tasks, [r for _, r in done]), lambda: None, None
    )
    stint = _Stint(evolution, backend.context, 2, range(1, total), cut=cut or 2)
    try:
        for g in range(1, total):
            plan = None if not books or lean else evolution.ask()
            sent = stint.next(g)
            if isinstance(sent, str):
                raise RuntimeError(f"a worker failed: {sent}")
            if lean:
                record = evolution.tell_bred(sent)
                count = int(sent.fitness.size)
                previous = _reported(prepared, callbacks, g, count, lambda r=record: r, previous)
                continue
            if plan is None:
                until = time.thread_time() + burn
                while time.thread_time() < until:
                    pass
                continue
            broods = list(plan.broods)
            per_brood = _sharded_results(broods, sent)
            tasks = [Task(index, brood, brood.evaluations) for index, brood in enumerate(broods)]
            previous = _told_in_turn(
                prepared, callbacks, (g, broods, tasks, per_brood), lambda: None, previous
            )
        generations._report(previous, callbacks)
        return False
    finally:
        stint.close()


def _sharded_run(config: Any, folder: Path, **kinds: Any) -> tuple[float, float, float]:
    """:func:`evo.bench.engine.whole_run` of ``config`` (1 worker) on :func:`_sharded_generations`
    (``kinds``: its keywords): (wall seconds, CPU seconds of every process, of this one alone)."""
    from evo.run import evolve
    from evo.run.folder.writer import FolderWriter, prepare

    start, (own, children) = time.perf_counter(), cpu_parts()
    prepared = prepare(config, out=folder, force=True)
    loop = evolve.run_generations
    evolve.run_generations = lambda *args: _sharded_generations(*args, **kinds)
    try:
        evolve.run_prepared(prepared, [FolderWriter(prepared)])
    finally:
        evolve.run_generations = loop
    wall, (own_after, children_after) = time.perf_counter() - start, cpu_parts()
    return wall, own_after + children_after - own - children, own_after - own


def sharded(config, tmp: Path, rounds: int = 6, finer: bool = False) -> None:
    """Round twenty-seven: whole walkers runs with every generation after the first sharded over two
    forked processes that own the population as arrays (:func:`_sharded_generations`), against the
    shipped engine at 1 and 2 workers, ``rounds`` interleaved rounds: each kind's wall rate against the
    shipped 1-worker run's, round by round, its CPU per evaluation, the ``evo run`` process's own CPU,
    and whether its folder is the 1-worker run's; the sharded runs with the books kept as the shipped
    loop keeps them, kept leaner (:meth:`~evo.ga.loop.Evolution.tell_bred`), not kept at all (what the
    two workers reach alone; no folder to compare), and with stand-ins for a cheaper bookkeeping: the
    ``evo run`` process busy 2 ms or 4 ms of CPU a generation instead; with ``finer``, also the lean and
    no books with the generation's kernel calls cut as for eight threads (smaller calls, dealt to the
    two workers). Last, the bookkeeping's CPU a run (the shipped way) and what a 1.85x run could afford
    at the sharded runs' busy share."""
    import statistics

    one, two = config.replace(pool=ONE_WORKER), config.replace(pool={"workers": 2})
    kinds: dict[str, Callable[[Path], tuple]] = {
        "shipped, 1 worker": lambda folder: (*whole_run(one, folder), None),
        "shipped, 2 workers": lambda folder: (*whole_run(two, folder), None),
        "sharded, 2 processes": lambda folder: _sharded_run(one, folder),
        "sharded, lean books": lambda folder: _sharded_run(one, folder, lean=True),
        "sharded, no books": lambda folder: _sharded_run(one, folder, books=False),
        "sharded, 2 ms books": lambda folder: _sharded_run(one, folder, books=False, burn=0.002),
        "sharded, 4 ms books": lambda folder: _sharded_run(one, folder, books=False, burn=0.004),
    }
    if finer:
        kinds["sharded, lean books, cut finer"] = lambda folder: _sharded_run(one, folder, lean=True, cut=8)
        kinds["sharded, no books, cut finer"] = lambda folder: _sharded_run(one, folder, books=False, cut=8)
    _sharded_run(one, tmp / "warm-sharded")
    seen: dict[str, list[tuple]] = {name: [] for name in kinds}
    folders = {name: tmp / name.replace(", ", "-").replace(" ", "-") for name in kinds}
    for r in range(rounds):
        for name in kinds if r % 2 == 0 else reversed(kinds):
            seen[name].append(kinds[name](folders[name]))
    unwritten = (
        "sharded, no books",
        "sharded, 2 ms books",
        "sharded, 4 ms books",
        "sharded, no books, cut finer",
    )
    ones = seen["shipped, 1 worker"]
    reference = folder_digest(folders["shipped, 1 worker"], IGNORED)
    one_wall = statistics.median(a[0] for a in ones)
    print(f"shipped, 1 worker: {one_wall:.3f} s (median)")
    for name in list(kinds)[1:]:
        runs = seen[name]
        walls = [a[0] / b[0] for a, b in zip(ones, runs, strict=True)]
        cpus = [b[1] / a[1] for a, b in zip(ones, runs, strict=True)]
        own = (
            "" if runs[0][2] is None else f"; this process {statistics.median(b[2] for b in runs):.3f} s CPU"
        )
        digest = "-" if name in unwritten else folder_digest(folders[name], IGNORED)
        same = "-" if digest == "-" else "yes" if digest == reference else "no"
        print(
            f"{name}: {statistics.median(walls):.2f}x the wall rate of 1 worker (round by round"
            f" {', '.join(f'{x:.2f}' for x in walls)}), {statistics.median(cpus):.2f}x its CPU per"
            f" evaluation; {statistics.median(b[0] for b in runs):.3f} s, CPU"
            f" {statistics.median(b[1] for b in runs):.3f} s{own},"
            f" {statistics.median(b[1] / (2 * b[0]) for b in runs):.0%} of two cores;"
            f" folder identical: {same}"
        )
    # the bookkeeping's CPU a 1.85x sharded run could afford, at the sharded runs' busy share
    books, alone = seen["sharded, 2 processes"], seen["sharded, no books"]
    busy = statistics.median(b[1] / (2 * b[0]) for b in books)
    workers_cpu = statistics.median(b[1] - b[2] for b in alone)
    kept = statistics.median(b[2] for b in books) - statistics.median(b[2] for b in alone)
    allowed = 2 * busy * one_wall / 1.85 - workers_cpu
    print(
        f"the bookkeeping costs {kept:.3f} CPU-s a run; at {busy:.0%} of two cores busy, 1.85x would allow"
        f" {allowed:.3f} s beside the workers' {workers_cpu:.3f} s"
    )


def sharded_books(config, tmp: Path, rounds: int = 3) -> None:
    """Round twenty-seven: where the lean books of a sharded walkers run (since round twenty-eight
    :meth:`~evo.ga.loop.Evolution.tell_bred`) spend the
    `evo run` process's CPU, by part, in ms a generation (each part's own CPU on its thread, the median
    of ``rounds`` whole runs; the parts nest as listed: the tell's own work holds the hall of fame's and
    the record's, the report's the writer's)."""
    import multiprocessing.connection
    import statistics

    from evo.ga.hall_of_fame import HallOfFame
    from evo.ga.loop import Evolution
    from evo.io.run_folder.folder import RunFolder
    from evo.run.folder.writer import FolderWriter

    parts = {
        "the tell from the arrays (all of it)": (Evolution, "tell_bred"),
        "  the hall of fame's update": (HallOfFame, "update"),
        "  the logbook's record": (Evolution, "_record"),
        "the callbacks and the report (all of it)": (sys.modules[__name__], "_reported"),
        "  the folder writer, each generation told": (FolderWriter, "on_generation_told"),
        "the generation's best file (the writer's thread)": (RunFolder, "write_generation_best"),
        "checkpoints (the writer's thread)": (FolderWriter, "_write_checkpoint"),
        "reading the pipe": (multiprocessing.connection.Connection, "recv"),
    }
    one = config.replace(pool=ONE_WORKER)
    seen: dict[str, list[float]] = {name: [] for name in parts}
    per_run: dict[str, float] = {}

    def timed(name: str, function: Callable) -> Callable:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                per_run[name] += time.thread_time() - start

        return run

    saved = {name: getattr(owner, attribute) for name, (owner, attribute) in parts.items()}
    for name, (owner, attribute) in parts.items():
        setattr(owner, attribute, timed(name, saved[name]))
    generations_told = config.run.generations - 1
    try:
        for _ in range(rounds):
            per_run.update(dict.fromkeys(parts, 0.0))
            _, _, own = _sharded_run(one, tmp / "lean", lean=True)
            for name in parts:
                seen[name].append(per_run[name])
            seen.setdefault("the `evo run` process in all (its start and generation 0 too)", []).append(own)
    finally:
        for name, (owner, attribute) in parts.items():
            setattr(owner, attribute, saved[name])
    for name, values in seen.items():
        print(f"{name}: {1e3 * statistics.median(values) / generations_told:.3f} ms a generation")


# -- round twenty-eight: the shards backend -------------------------------------------------------------


def shards(configs: dict[str, Any], tmp: Path, rounds: int = 6, busy: bool = False) -> None:
    """Round twenty-eight: the shipped ``shards`` backend (two workers that own the population as
    arrays; the default for two workers since round twenty-nine) against the ``threads`` one and one
    worker, whole runs of each config, ``rounds`` interleaved rounds: each one's wall rate against 1
    worker's, round by round (the median first), its CPU per evaluation, the ``evo run`` process's own
    CPU, how busy it keeps two cores, and whether its folder is the 1-worker run's. With ``busy`` (round
    twenty-nine), another process loops on a core meanwhile (the CPU shares are then of what the runs got)."""
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        _shards(configs, tmp, rounds)
    finally:
        if loop is not None:
            loop.kill()
            loop.wait()


def _shards(configs: dict[str, Any], tmp: Path, rounds: int) -> None:
    import statistics

    for label, config in configs.items():
        kinds = {
            "1 worker": config.replace(pool=ONE_WORKER),
            "2 workers, threads": config.replace(pool={"workers": 2, "backend": "threads"}),
            "2 workers, shards": config.replace(pool={"workers": 2, "backend": "shards"}),
        }
        folders = {name: tmp / label / name.replace(", ", "-").replace(" ", "-") for name in kinds}

        def timed(name: str, kinds: dict = kinds, folders: dict = folders) -> tuple[float, float, float]:
            start, (own, children) = time.perf_counter(), cpu_parts()
            whole_run(kinds[name], folders[name])
            wall, (own_after, children_after) = time.perf_counter() - start, cpu_parts()
            return wall, own_after + children_after - own - children, own_after - own

        timed("2 workers, shards")  # (warm: the workers' first generations compile nothing after it)
        seen: dict[str, list[tuple[float, float, float]]] = {name: [] for name in kinds}
        for r in range(rounds):
            for name in kinds if r % 2 == 0 else reversed(kinds):
                seen[name].append(timed(name))
        reference = folder_digest(folders["1 worker"], IGNORED)
        ones = seen["1 worker"]
        print(f"{label}: 1 worker {statistics.median(a[0] for a in ones):.3f} s (median)")
        for name in list(kinds)[1:]:
            runs = seen[name]
            walls = [a[0] / b[0] for a, b in zip(ones, runs, strict=True)]
            cpus = [b[1] / a[1] for a, b in zip(ones, runs, strict=True)]
            same = "yes" if folder_digest(folders[name], IGNORED) == reference else "no"
            print(
                f"  {name}: {statistics.median(walls):.2f}x the wall rate of 1 worker (round by round"
                f" {', '.join(f'{x:.2f}' for x in walls)}), {statistics.median(cpus):.2f}x its CPU per"
                f" evaluation; {statistics.median(b[0] for b in runs):.3f} s, the evo run process"
                f" {statistics.median(b[2] for b in runs):.3f} CPU-s,"
                f" {statistics.median(b[1] / (2 * b[0]) for b in runs):.0%} of two cores; folder identical:"
                f" {same}"
            )


# -- round twenty-nine: the shards backend by default ----------------------------------------------------


def shards_parts(config, generations: int = 30, start: int = 60) -> None:
    """Round twenty-nine: a shards worker's generation by part, in this process (thread CPU time, median
    of ``generations`` walkers generations after generation ``start``): the selection, the breeding of
    the whole generation (every worker does both), the kernel calls and their scoring (shared out), the
    arrays moved on; and the ``evo run`` process's tell from the arrays. Then what they give on N cores,
    by a model (not a measurement): a worker's generation is the first, second and last part and 1/N of
    the calls, the ``evo run`` process's tell runs beside it on a core of its own, and the generation
    takes the longer of the two; one worker's is every part and the tell."""
    import statistics

    from evo.ga.loop import Evolution
    from evo.run.evolve import evolve
    from evo.run.job import BreedContext
    from evo.run.shards.state import ShardState, Shared

    config = config.replace(run={"generations": start + 1}, pool=ONE_WORKER)
    evolution = evolve(config, progress=False).evolution
    context = BreedContext(config.evaluation_spec(), config.genome, config.ga, batch=True)
    size = config.run.population
    shared = Shared.alone(size)
    told = Evolution.from_state(evolution.state(), evolution.settings)
    state = ShardState(Evolution.from_state(evolution.state(), evolution.settings), context, shared, cut=4)
    names = ("selection", "breeding", "kernel calls and scoring", "moving on", "tell (evo run process)")
    parts: dict[str, list[float]] = {name: [] for name in names}
    clock = time.thread_time
    for g in range(start + 1, start + 1 + generations):
        t0 = clock()
        planned = state.planned()
        t1 = clock()
        children, laid = state.bred(*planned[1:])
        t2 = clock()
        state.scored(laid, g % 2)
        t3 = clock()
        bred = state.moved_on(g, planned, children, laid)
        t4 = clock()
        told.tell_bred(bred)
        t5 = clock()
        for name, seconds in zip(names, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            parts[name].append(seconds)
    ms = {name: 1e3 * statistics.median(values) for name, values in parts.items()}
    print(
        f"walkers, generations {start + 1}-{start + generations}, ms a generation (median, thread CPU): "
        + ", ".join(f"{name} {value:.2f}" for name, value in ms.items())
    )
    calls, tell = ms["kernel calls and scoring"], ms["tell (evo run process)"]
    each = ms["selection"] + ms["breeding"] + ms["moving on"]  # what every worker does whole
    one = each + calls + tell
    print(f"  every worker's own part: {each:.2f} ms, {100 * each / one:.1f} % of one worker's generation")
    for n in (2, 4, 8, 16, 32):
        worker = each + calls / n
        gain = one / max(worker, tell)
        print(
            f"  model, {n} workers on {n + 1} cores: a worker's generation {worker:.2f} ms, the tell"
            f" {tell:.2f} ms beside it: {gain:.2f}x the same work in one process ({gain / n:.0%} of"
            f" {n}x{'; the tell bounds it' if tell > worker else ''})"
        )


# -- round thirty: variants of the shards backend tried and measured --------------------------------------


class _SplitPart:
    """Round thirty's variant: where one shards worker leaves the children of its part of the broods, in
    shared memory (room for ``size`` broods and children of at most ``masses`` masses and ``links``
    links each)."""

    def __init__(self, size: int, masses: int, links: int):
        from multiprocessing.sharedctypes import RawArray

        def room(code: str, dtype: Any, *shape: int) -> np.ndarray:
            return np.frombuffer(RawArray(code, int(np.prod(shape))), dtype=dtype).reshape(shape)

        m, n = size * masses, size * links
        self.head = room("q", np.int64, 5)  # broods, children, masses, links; 1 where they fit
        self.fields = (
            room("b", np.bool_, size), room("q", np.int64, size, 2), room("d", np.float64, m, 2),
            room("q", np.int64, 2, n), room("d", np.float64, 3, n), room("d", np.float64, size, 2),
            room("b", np.bool_, size), room("d", np.float64, n), room("b", np.bool_, n),
        )  # fmt: skip

    def put(self, made: tuple | None) -> None:
        if made is None:
            self.head[:] = 0, 0, 0, 0, 1
            return
        counts = made[0].shape[0], made[1].shape[0], made[2].shape[0], made[3].shape[1]
        room = self.fields
        limits = room[0].size, room[1].shape[0], room[2].shape[0], room[3].shape[1]
        if any(c > r for c, r in zip(counts, limits, strict=True)):
            self.head[:] = 0
            return
        b, c, m, n = counts
        for k, (field, array) in enumerate(zip(room, made, strict=True)):
            width = (b, c, m, n, n, c, c, n, n)[k]
            if array.ndim == 2 and k in (3, 4):
                field[:, :width] = array
            else:
                field[:width] = array
        self.head[:] = b, c, m, n, 1

    def arrays(self) -> tuple | None:
        b, c, m, n, fits = self.head.tolist()
        if not fits:
            return None
        room = self.fields
        return (room[0][:b], room[1][:c], room[2][:m], room[3][:, :n], room[4][:, :n], room[5][:c],
                room[6][:c], room[7][:n], room[8][:n])  # fmt: skip


def _split_state() -> type:
    """Round thirty's variant of a shards worker's state: worker ``me`` breeds only its part of the
    generation's broods (parts of similar cost, as the threads backend splits a chunk: each brood draws
    from its own seed alone), leaves the children in shared memory (:class:`_SplitPart`), and after a
    second meeting point takes everyone's end to end: no breeding done twice, one more meeting point a
    generation."""
    from evo.ga.kernels.brood import _pairs
    from evo.ga.kernels.crossover import REST_HIGH, REST_LOW
    from evo.ga.kernels.mutation import apply_pending
    from evo.run.shards.state import ShardState, Unsupported
    from evo.sim.laid import Laid

    class Split(ShardState):
        def __init__(self, evolution: Any, context: Any, shared: Any, cut: int):
            super().__init__(evolution, context, shared, cut)
            genome, members = evolution.settings.genome, [ind.creature for ind in evolution.population]
            masses = max(genome.masses[1], *(c.n_masses for c in members))
            links = max(genome.max_links, *(c.n_links for c in members))
            self.parts = [_SplitPart(len(members), masses, links) for _ in range(shared.workers)]
            self.me = 0

        def bred(self, rows: np.ndarray, flags: np.ndarray, seeds: np.ndarray, new: np.ndarray) -> tuple:
            ops = self.context.breed_settings.compiled
            link_at = self.ends[-1]
            first, second = (link_at[rows[:, k] + 1] - link_at[rows[:, k]] for k in (0, 1))
            cost = np.cumsum(first + np.where(flags[:, 0], second, 0) + 8)  # (brood.py's _BROOD_COST)
            count = len(self.parts)
            cuts = [0, *np.searchsorted(cost, cost[-1] * np.arange(1, count) / count).tolist(), cost.size]
            a, b = cuts[self.me], cuts[self.me + 1]
            mine = _pairs(seeds[a:b], rows[a:b], flags[a:b], *self.ends, ops) if b > a else None
            self.parts[self.me].put(mine)
            self.shared.barrier.wait()
            made = [part.arrays() for part in self.parts]
            if any(arrays is None for arrays in made):
                raise Unsupported("children larger than the shared room")
            axes = (0, 0, 0, 1, 1, 0, 0, 0, 0)
            whole = tuple(np.concatenate([m[k] for m in made], axis=axis) for k, axis in enumerate(axes))
            ok, sizes, positions, links, genes, waves, renumbered, arg, pending = whole
            if not ok.all():
                raise Unsupported("a brood the compiled operators leave to Python")
            apply_pending(genes[0], arg, pending, ops.limits[REST_LOW], ops.limits[REST_HIGH])
            templates = rows[new]
            laid = Laid.of_children(sizes, positions, links, genes, waves, ())._replace(
                theta0=self.theta0[templates], sign=self.sign[templates], autoreverse=self.auto[templates]
            )
            return (sizes, positions, links, genes, waves, renumbered), laid

    return Split


def _forked_worker(
    me: int, state: Any, out: Any, generations: range, parent: int, late: bool = False
) -> None:
    """Round twenty-eight's shards worker loop (every worker forked, worker 0 sending each generation to
    the ``evo run`` process through a pipe as soon as it has moved on); with ``late``, round thirty's
    variant: worker 0 sends it once the next generation's children are bred, so that the ``evo run``
    process tells it while the workers run kernel calls (whose shared counter evens out the time it
    takes from them) rather than while they breed."""
    from evo.run.backends.fork import leave_signals_to_parent
    from evo.run.shards.state import Unsupported

    leave_signals_to_parent(parent)
    barrier, g, held = state.shared.barrier, generations.start, None
    if hasattr(state, "me"):  # (the split state: which part of the broods is this worker's)
        state.me = me
    try:
        for g in generations:
            planned = state.planned()
            children, laid = state.bred(*planned[1:])
            if held is not None:
                out.send(held)
                held = None
            state.scored(laid, g % 2)
            barrier.wait()
            bred = state.moved_on(g, planned, children, laid)
            if me == 0 and late:
                held = bred
            elif me == 0:
                out.send(bred)
        if held is not None:
            out.send(held)
    except threading.BrokenBarrierError:
        pass
    except BaseException as exc:  # noqa: BLE001 (said to the evo run process, which makes the generation)
        with contextlib.suppress(Exception):
            barrier.abort()
            if held is not None:
                out.send(held)
            why = str(exc) if isinstance(exc, Unsupported) else f"{type(exc).__name__}: {exc}"
            out.send((g, why))
    finally:
        out.close()


class _ForkedStint:
    """Round twenty-eight's shards stint (shipped until round thirty): all ``workers`` forked, worker 0
    sending each generation through a pipe, the ``evo run`` process a third process that tells them.
    ``state_class`` and ``late``: round thirty's variants (:func:`_split_state`, :func:`_forked_worker`)."""

    state_class: Any = None
    late = False
    behind = 0  # (the books of each generation kept as it arrives, as then)
    by = "by the shard workers"  # (run.log's words, as the shipped stint's)

    def __init__(self, evolution: Any, context: Any, workers: int, generations: range, cut: int = 0):
        import fcntl
        import functools
        import multiprocessing

        from evo.run.shards import engine
        from evo.run.shards.state import ShardState, Shared

        fork = multiprocessing.get_context("fork")
        shared = Shared.forked(workers, evolution.settings.population)
        evolution.drop_ahead()
        state = (self.state_class or ShardState)(
            evolution, context, shared, cut or engine.CALLS_PER_WORKER * workers
        )
        pipes = [fork.Pipe(duplex=False) for _ in range(workers)]
        with contextlib.suppress(OSError):  # worker 0's pipe made 1 MiB, as it was (Linux)
            fcntl.fcntl(pipes[0][1].fileno(), 1031, 1 << 20)
        self.readers = [reading for reading, _ in pipes]
        loop = functools.partial(_forked_worker, late=self.late)
        self.processes = [
            fork.Process(target=loop, args=(me, state, pipes[me][1], generations, os.getpid()), daemon=True)
            for me in range(workers)
        ]
        for process in self.processes:
            process.start()
        for _, writing in pipes:
            writing.close()

    def next(self, g: int, meanwhile: Any = None) -> Any:
        """Generation ``g`` from worker 0, or the first reason a worker sent (or that one ended); nothing
        done ``meanwhile``."""
        from multiprocessing.connection import wait

        from evo.ga.bred import BredGeneration

        running = [process.sentinel for process in self.processes]
        while True:
            ready = wait([*self.readers, *running])
            for reader in self.readers:
                if reader in ready:
                    try:
                        sent = reader.recv()
                    except (EOFError, OSError):
                        self.readers.remove(reader)
                        continue
                    if isinstance(sent, BredGeneration):
                        return sent
                    return sent[1]
            if not self.readers or any(p.sentinel in ready and p.exitcode for p in self.processes):
                return "a worker process ended unexpectedly"
            running = [p.sentinel for p in self.processes if p.sentinel not in ready]


@contextlib.contextmanager
def _forked(split: bool = False, late: bool = False):
    """The shards backend with round twenty-eight's stint (:class:`_ForkedStint`), its breeding split
    between the workers or not, worker 0 sending late or not."""
    from evo.run.shards import engine

    shipped = engine._Stint
    attributes = {"late": late, "state_class": _split_state() if split else None}
    attributes["close"] = shipped.close  # (the same: end the workers, wait for them, close the pipes)
    engine._Stint = type("Forked", (_ForkedStint,), attributes)
    try:
        yield
    finally:
        engine._Stint = shipped


@contextlib.contextmanager
def _calls_per_worker(count: int):
    """The shards backend with a generation's children cut into ``count`` kernel calls a worker."""
    from evo.run.shards import engine

    shipped = engine.CALLS_PER_WORKER
    engine.CALLS_PER_WORKER = count
    try:
        yield
    finally:
        engine.CALLS_PER_WORKER = shipped


def _variants_interleaved(
    kinds: dict[str, tuple[Any, Callable[[], Any]]], folders: dict[str, Path], rounds: int, warm: str
) -> dict[str, list[tuple[float, float]]]:
    """Whole runs of each kind (its config, run inside its variant's context) into its folder, after one
    of ``warm``, ``rounds`` interleaved rounds, the order reversed every other round: each run's wall
    and CPU seconds (this process and its workers), by kind."""

    def timed(name: str) -> tuple[float, float]:
        run_config, variant = kinds[name]
        with variant():
            start, (own, children) = time.perf_counter(), cpu_parts()
            whole_run(run_config, folders[name])
            wall, (own_after, children_after) = time.perf_counter() - start, cpu_parts()
        return wall, own_after + children_after - own - children

    timed(warm)
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
    for r in range(rounds):
        for name in kinds if r % 2 == 0 else reversed(kinds):
            seen[name].append(timed(name))
    return seen


def shards_variants(config, tmp: Path, rounds: int = 3) -> None:
    """Round thirty: whole walkers runs, ``rounds`` interleaved rounds, of 1 worker making the
    generations from arrays in the ``evo run`` process (the default since round thirty), of the shards
    backend as shipped (2 workers: the ``evo run`` process and one forked, since round thirty), of round
    twenty-eight's stint (two forked workers, the ``evo run`` process a third: :class:`_ForkedStint`)
    as it was, with its breeding split between the workers (:func:`_split_state`), with each generation
    sent after the next one's breeding (:func:`_forked_worker`), split and sent so, and of the shipped
    backend with its children cut into 3 and 6 kernel calls a worker (4 shipped), against 1 worker on
    the inprocess backend: each one's wall rate against that one's round by round (the median first),
    its CPU per evaluation, both against 1 worker from arrays, and whether its folder is the same."""
    import statistics

    two = config.replace(pool={"workers": 2, "backend": "shards"})
    kinds: dict[str, tuple[Any, Callable[[], Any]]] = {
        "1 worker": (config.replace(pool=ONE_WORKER), contextlib.nullcontext),
        "1 worker from arrays (the default since round thirty)": (
            config.replace(pool={"workers": 1}),
            contextlib.nullcontext,
        ),
        "shards as shipped": (two, contextlib.nullcontext),
        "shards, all workers forked (round twenty-eight)": (two, _forked),
        "shards, all forked, breeding split": (two, lambda: _forked(split=True)),
        "shards, all forked, each generation sent after the next one's breeding": (
            two,
            lambda: _forked(late=True),
        ),
        "shards, all forked, breeding split, sent so": (two, lambda: _forked(split=True, late=True)),
        "shards, 3 calls a worker": (two, lambda: _calls_per_worker(3)),
        "shards, 6 calls a worker": (two, lambda: _calls_per_worker(6)),
    }
    folders = {name: tmp / name.replace(", ", "-").replace(" ", "-") for name in kinds}
    seen = _variants_interleaved(kinds, folders, rounds, "shards as shipped")
    reference, ones = folder_digest(folders["1 worker"], IGNORED), seen["1 worker"]
    print(f"walkers: 1 worker (inprocess) {statistics.median(a[0] for a in ones):.3f} s (median)")
    arrays = seen["1 worker from arrays (the default since round thirty)"]
    for name in list(kinds)[1:]:
        walls = [a[0] / b[0] for a, b in zip(ones, seen[name], strict=True)]
        cpus = [b[1] / a[1] for a, b in zip(ones, seen[name], strict=True)]
        same = "yes" if folder_digest(folders[name], IGNORED) == reference else "no"
        against = [(a[0] / b[0], b[1] / a[1]) for a, b in zip(arrays, seen[name], strict=True)]
        print(
            f"  {name}: {statistics.median(walls):.2f}x the wall rate of 1 worker (round by round"
            f" {', '.join(f'{x:.2f}' for x in walls)}), {statistics.median(cpus):.2f}x its CPU per"
            f" evaluation; against 1 worker from arrays {statistics.median(w for w, _ in against):.2f}x"
            f" and {statistics.median(c for _, c in against):.2f}x; folder identical: {same}"
        )


# -- round thirty-one: the evo run process keeps its books in its waits, worker 1 breeds for both ------


@contextlib.contextmanager
def _stint_as(room: bool = True, behind: int = 1, lean: bool = True):
    """The shards backend's stint as shipped since round thirty-one, or without one of its changes:
    worker 0 selecting, breeding and moving on itself (no :class:`~evo.run.shards.shared.Room`), its
    books kept right after each generation (``behind`` 0) or up to ``behind`` generations behind, the
    meeting point ``multiprocessing.Barrier`` (not ``lean``: round thirty's)."""
    import multiprocessing

    from evo.run.shards import engine, shared

    shipped = engine._Stint.behind, vars(shared.Shared)["forked"], shared.MeetingPoint
    forked = shared.Shared.forked
    engine._Stint.behind = behind
    if not room:
        shared.Shared.forked = classmethod(
            lambda cls, workers, size, most=None, hint=0.0: forked(workers, size, None, hint)
        )
    if not lean:
        shared.MeetingPoint = multiprocessing.get_context("fork").Barrier
    try:
        yield
    finally:
        engine._Stint.behind, shared.Shared.forked, shared.MeetingPoint = shipped


def shards_books(config, tmp: Path, rounds: int = 5) -> None:
    """Round thirty-one: whole walkers runs, ``rounds`` interleaved rounds, of 1 worker (from arrays, the
    default) and of two shards workers as round thirty shipped them (worker 0 breeds, tells each
    generation right after it, ``multiprocessing.Barrier``), then with each change of this round added
    in turn -- the books kept in pieces in worker 0's waits, worker 1 selecting and breeding for both
    (the room: worker 0 only scores and tells), the lean meeting point (as shipped) -- and the shipped
    one with its books kept right after each generation, or up to two generations behind: each one's
    wall rate and CPU per evaluation against 1 worker's round by round (the median first), and whether
    its folder is the same."""
    import statistics

    two = config.replace(pool={"workers": 2, "backend": "shards"})
    kinds: dict[str, tuple[Any, Callable[[], Any]]] = {
        "1 worker (from arrays)": (config.replace(pool={"workers": 1}), contextlib.nullcontext),
        "2 workers as round thirty shipped them": (two, lambda: _stint_as(False, 0, False)),
        "  and the books in worker 0's waits": (two, lambda: _stint_as(False, 1, False)),
        "  and worker 1 selecting and breeding for both": (two, lambda: _stint_as(True, 1, False)),
        "  and the lean meeting point (shipped)": (two, contextlib.nullcontext),
        "shipped, the books kept right after each generation": (two, lambda: _stint_as(True, 0, True)),
        "shipped, the books up to two generations behind": (two, lambda: _stint_as(True, 2, True)),
    }
    folders = {name: tmp / f"kind-{k}" for k, name in enumerate(kinds)}
    seen = _variants_interleaved(kinds, folders, rounds, "  and the lean meeting point (shipped)")
    ones = seen["1 worker (from arrays)"]
    reference = folder_digest(folders["1 worker (from arrays)"], IGNORED)
    print(f"walkers: 1 worker (from arrays) {statistics.median(a[0] for a in ones):.3f} s (median)")
    for name in list(kinds)[1:]:
        walls = [a[0] / b[0] for a, b in zip(ones, seen[name], strict=True)]
        cpus = [b[1] / a[1] for a, b in zip(ones, seen[name], strict=True)]
        same = "yes" if folder_digest(folders[name], IGNORED) == reference else "no"
        print(
            f"  {name.strip()}: {statistics.median(walls):.3f}x the wall rate of 1 worker (round by round"
            f" {', '.join(f'{x:.2f}' for x in walls)}), {statistics.median(cpus):.3f}x its CPU per"
            f" evaluation; folder identical: {same}"
        )


def _shards_waits_clocks(folder: Path) -> list[Any]:
    """Clocks on the shards backend's parts for :func:`shards_waits`, in every process of a stint (the
    forked one inherits them): each process's wall seconds in its kernel calls, in selecting, breeding
    and moving on, at the meeting point (blocked, and before it in pieces of the books), waiting for
    worker 1's generation (likewise) and in the books after the meeting point, written to ``folder``
    after each generation it makes. Returns what to put back."""
    import json

    from evo.run.shards import books, shared, state

    spent: dict[str, float] = {}
    where = {"in": None}  # the wait a piece of the books is done in

    def clocked(owner: Any, name: str, part: str) -> tuple[Any, str, Any]:
        original = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[part] = spent.get(part, 0.0) + time.perf_counter() - start

        setattr(owner, name, wrapper)
        return owner, name, original

    def make(self: Any, g: int, meanwhile: Any = None) -> Any:
        def piece() -> bool:  # (a piece of the books, and which wait it was done in)
            start = time.perf_counter()
            done = meanwhile()
            key = "books at the meeting point, before it"
            if where["in"] == "take":
                key = "books in the wait for worker 1's generation"
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - start
            return done

        where["in"] = "take"
        start = time.perf_counter()
        try:
            return made(self, g, piece if meanwhile is not None else None)
        finally:
            spent["generations"] = spent.get("generations", 0.0) + 1
            spent["the generation (make)"] = (
                spent.get("the generation (make)", 0.0) + time.perf_counter() - start
            )
            (folder / f"{os.getpid()}.json").write_text(json.dumps({"me": self.me, **spent}))

    made = state.ShardState.make
    restore = [
        clocked(state.ShardState, "planned", "selecting"),
        clocked(state.ShardState, "bred", "breeding"),
        clocked(state.ShardState, "moved_on", "moving on"),
        clocked(state.ShardState, "scored", "kernel calls"),
        clocked(shared.MeetingPoint, "leave", "blocked at the meeting point"),
        clocked(shared.Room, "take", "worker 1's generation taken (waits and pieces)"),
        clocked(books.Books, "finish", "books after the generation is made"),
    ]
    scores = state.ShardState.scored

    def scored(self: Any, *args: Any) -> Any:  # (the pieces done after it are at the meeting point)
        out = scores(self, *args)
        where["in"] = "meeting"
        return out

    state.ShardState.make, state.ShardState.scored = make, scored  # type: ignore[method-assign]
    return [*restore, (state.ShardState, "make", made)]


def shards_waits(config, tmp: Path, generations: int = 120) -> None:
    """Round thirty-one: where a two-worker shards walkers run's generations go, worker by worker (wall
    milliseconds a generation, means over the stint's generations; clocks on the parts, which cost
    a little themselves): the kernel calls, worker 1's selection, breeding and moving on, each one's
    time blocked at the meeting point, and the ``evo run`` process's books -- in pieces where it would
    wait (for worker 1's generation, at the meeting point) and after each generation. Round thirty-four:
    then the same of one worker, and the two workers' kernel calls together against its."""
    import json

    kernel: dict[int, float] = {}
    for workers in (2, 1):
        folder = tmp / f"clocks-{workers}"
        folder.mkdir()
        pool = {"workers": workers, "backend": "shards"}
        run_config = config.replace(run={"generations": generations}, pool=pool)
        whole_run(run_config.replace(run={"generations": 6}), tmp / f"warm-{workers}")
        restore = _shards_waits_clocks(folder)
        try:
            start = time.perf_counter()
            whole_run(run_config, tmp / f"run-{workers}")
            wall = time.perf_counter() - start
        finally:
            for owner, name, original in reversed(restore):
                setattr(owner, name, original)
        seen = sorted((json.loads(path.read_text()) for path in folder.glob("*.json")), key=lambda d: d["me"])
        plural = "s" if workers > 1 else ""
        print(
            f"walkers, {workers} shards worker{plural}, {generations} generations in {wall:.3f} s (clocked)"
        )
        kernel[workers] = 0.0
        for clocks in seen:
            count = clocks.pop("generations")
            me = clocks.pop("me")
            kernel[workers] += clocks["kernel calls"] / count
            who = "worker 0 (the evo run process)" if me == 0 else f"worker {me} (forked)"
            parts = ", ".join(f"{name} {1e3 * value / count:.2f}" for name, value in clocks.items())
            print(f"  {who}, ms a generation over {count:.0f}: {parts}")
    print(
        f"the two workers' kernel calls together: {1e3 * kernel[2]:.2f} ms a generation,"
        f" {kernel[2] / kernel[1]:.3f} x one worker's ({1e3 * kernel[1]:.2f} ms)"
    )


# -- round thirty-five: a run's start and end, and the kernel beside a busy core --------------------------


def _run_marks() -> tuple[list[tuple[str, float]], list[Any]]:
    """Marks (``time.perf_counter``) in a whole run of the default backend, in the ``evo run`` process:
    generation 0 made (run_generations returned), a stint forked, each generation made from arrays
    (``make`` returned, worker 0). Returns the list they go to and what to put back."""
    from evo.run.shards import engine, state

    marks: list[tuple[str, float]] = []

    def marking(owner: Any, name: str, mark: str, before: str | None = None) -> tuple[Any, str, Any]:
        original = getattr(owner, name)

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if before is not None:
                marks.append((before, time.perf_counter()))
            out = original(self, *args, **kwargs)
            if getattr(self, "me", 0) == 0:
                marks.append((mark, time.perf_counter()))
            return out

        setattr(owner, name, wrapper)
        return owner, name, original

    run_generations = engine.run_generations

    def here(*args: Any, **kwargs: Any) -> Any:
        out = run_generations(*args, **kwargs)
        marks.append(("made here", time.perf_counter()))
        return out

    engine.run_generations = here
    restore = [
        marking(state.ShardState, "make", "made"),
        marking(engine._Stint, "__init__", "forked", before="forking"),
        (engine, "run_generations", run_generations),
    ]
    return marks, restore


def run_ends(config, tmp: Path, rounds: int = 3) -> None:
    """Round thirty-five: where a whole walkers run's wall goes outside its generations made from arrays,
    with 1 worker and 2 (the default backend), ``rounds`` interleaved rounds (medians): its start (the
    run prepared, generation 0 made in this process, for two workers the stint forked), its generations
    made from arrays (from the start's end to the last one made), its end (the last generations' books,
    the folder's last files), and the two workers' wall rate over one worker's, whole and of the
    generations alone."""
    import statistics

    seen: dict[int, list[tuple[float, float, float, float]]] = {}
    marks, restore = _run_marks()
    try:
        for _ in range(rounds):
            for workers in (1, 2):
                marks.clear()
                start = time.perf_counter()
                whole_run(config.replace(pool={"workers": workers}), tmp / f"ends-{workers}")
                end = time.perf_counter()
                made = [at for name, at in marks if name == "made"]
                before = [at for name, at in marks if name == "forking"]
                forked = [at for name, at in marks if name == "forked"]
                first = [at for name, at in marks if name == "made here"][0]
                fork = forked[0] - before[0] if forked else 0.0
                begun = forked[0] if forked else first
                seen.setdefault(workers, []).append(
                    (begun - start, made[-1] - begun, end - made[-1], first - start, fork)
                )
    finally:
        for owner, name, original in reversed(restore):
            setattr(owner, name, original)
    median = {w: [statistics.median(row[k] for row in rows) for k in range(5)] for w, rows in seen.items()}
    count = config.run.generations - 1
    for workers, (start, made, end, first, fork) in median.items():
        plural = "s" if workers > 1 else ""
        forking = f", its stint forked in {1e3 * fork:.0f} ms" if workers > 1 else ""
        print(
            f"walkers, {workers} worker{plural}: the start {1e3 * start:.0f} ms (prepared and generation 0"
            f" made {1e3 * first:.0f} ms{forking}); generations 1-{count} from arrays {made:.3f} s"
            f" ({1e3 * made / count:.1f} ms each); the end {1e3 * end:.0f} ms ({rounds} rounds, medians)"
        )
    whole = {w: sum(parts[:3]) for w, parts in median.items()}
    ends = {w: whole[w] - median[w][1] for w in whole}
    print(
        f"two workers' wall rate over one's: whole runs {whole[1] / whole[2]:.3f}x, the generations made"
        f" from arrays alone {median[1][1] / median[2][1]:.3f}x; the start and end {1e3 * ends[2]:.0f} ms"
        f" of two workers' {whole[2]:.3f} s, {1e3 * ends[1]:.0f} ms of one worker's {whole[1]:.3f} s"
    )


_BESIDE = {
    "alone": None,
    "beside a Python loop": "while True:\n    pass",
    "beside a numpy loop over 2 MB": "import numpy as np\na = np.zeros(1 << 18)\nwhile True:\n    a += 1.0",
    "beside a numpy loop over 64 MB": "import numpy as np\na = np.zeros(1 << 23)\nwhile True:\n    a += 1.0",
}


def kernel_beside(config, tmp: Path, rounds: int = 3) -> None:
    """Round thirty-five: the CPU seconds of the bare batched kernel on a walkers run's children
    (:func:`evo.bench.engine.bare_batched_kernel`, recording as the run does), alone and beside another
    process busy on the other core -- a Python loop (its work in the core's registers and first caches),
    a numpy loop over 2 MB (the core's own second cache) and over 64 MB (memory) -- ``rounds``
    interleaved rounds (medians): how much a busy second core slows the kernel, and whether memory
    traffic is why."""
    import statistics

    from evo.bench.engine import bare_batched_kernel

    children = generation_children(config)[1:]
    every = run_record_every(config)
    seen: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, code in _BESIDE.items():
            busy = None if code is None else subprocess.Popen([sys.executable, "-c", code])
            try:
                time.sleep(0.3)  # (the busy process under way)
                seen.setdefault(name, []).append(bare_batched_kernel(config, children, every))
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()
    alone = statistics.median(seen["alone"])
    print(
        f"the bare batched kernel on a walkers run's children ({rounds} rounds, medians): "
        + ", ".join(
            f"{name} {statistics.median(times):.3f} CPU-s"
            + ("" if name == "alone" else f" ({statistics.median(times) / alone:.3f}x)")
            for name, times in seen.items()
        )
    )


# -- round thirty-two: a local dask cluster makes the generations from arrays --------------------------


@contextlib.contextmanager
def _dask_in_chunks():
    """The dask backend as before round thirty-two: every generation in chunks (no stint from arrays)."""
    from evo.run.backends.dask_pool import DaskPool

    shipped = DaskPool.shards
    DaskPool.shards = property(lambda self: False)  # type: ignore[assignment]
    try:
        yield
    finally:
        DaskPool.shards = shipped  # type: ignore[assignment]


def _step_sizes(config, tmp: Path) -> list[int]:
    """The bytes of each step a 2-worker walkers run on the local dask cluster sends its chunk runner
    (the first carries the copy of the run)."""
    import pickle

    from evo.run.shards.engine import Partnered

    sizes: list[int] = []
    send = Partnered._send

    def measured(stint: Partnered, g: int, scores: Any) -> None:
        sizes.append(len(pickle.dumps((g, scores, stint.weights, 1, stint.begin), pickle.HIGHEST_PROTOCOL)))
        send(stint, g, scores)

    Partnered._send = measured  # type: ignore[method-assign]
    try:
        whole_run(config.replace(pool={"workers": 2, "backend": "dask"}), tmp / "sizes")
    finally:
        Partnered._send = send  # type: ignore[method-assign]
    return sizes


def dask_arrays(config, tmp: Path, rounds: int = 5) -> None:
    """Round thirty-two: whole 2-worker walkers runs, ``rounds`` interleaved rounds, on the fork pool, a
    local dask cluster in chunks (before this round), a local dask cluster making the generations from
    arrays (shipped), and the default (shards); each one's wall rate and CPU seconds against the fork
    pool's round by round (medians), against the default's, and whether its folder is the fork pool's;
    then the size of the steps sent to the chunk runner."""
    import statistics

    two = {"workers": 2}
    kinds: dict[str, tuple[Any, Callable[[], Any]]] = {
        "fork pool": (config.replace(pool=two | {"backend": "fork"}), contextlib.nullcontext),
        "dask in chunks (round thirty-one)": (
            config.replace(pool=two | {"backend": "dask"}),
            _dask_in_chunks,
        ),
        "dask from arrays (shipped)": (
            config.replace(pool=two | {"backend": "dask"}),
            contextlib.nullcontext,
        ),
        "the default (shards)": (config.replace(pool=two), contextlib.nullcontext),
    }
    folders = {name: tmp / f"{name.split()[0]}-{len(name)}" for name in kinds}
    seen = _variants_interleaved(kinds, folders, rounds, "dask from arrays (shipped)")
    reference, forks, default = (
        folder_digest(folders["fork pool"], IGNORED),
        seen["fork pool"],
        seen["the default (shards)"],
    )
    load = os.getloadavg()[0]
    print(f"walkers, 2 workers, medians of {rounds} interleaved rounds (load {load:.1f} at the end):")
    for name in kinds:
        walls = [a[0] / b[0] for a, b in zip(forks, seen[name], strict=True)]
        cpus = [a[1] / b[1] for a, b in zip(forks, seen[name], strict=True)]
        against = [a[0] / b[0] for a, b in zip(default, seen[name], strict=True)]
        same = "yes" if folder_digest(folders[name], IGNORED) == reference else "no"
        print(
            f"  {name}: {statistics.median(w for w, _ in seen[name]):.2f} s wall,"
            f" {statistics.median(c for _, c in seen[name]):.2f} CPU-s; {statistics.median(walls):.2f}x the"
            f" fork pool's wall rate (round by round {', '.join(f'{x:.2f}' for x in walls)}),"
            f" {statistics.median(cpus):.2f}x per CPU-second; {statistics.median(against):.2f}x the default's"
            f" wall rate; folder identical: {same}"
        )
    sizes = _step_sizes(config, tmp)
    print(
        f"  steps sent to the chunk runner: the first (the copy of the run) {sizes[0] / 1000:.0f} kB, the"
        f" others at most {max(sizes[1:]) / 1000:.1f} kB ({len(sizes)} steps)"
    )


# -- round thirty-three: the run's kernel calls alone on two processes, cut as the shards cut them -----------


def shards_ceilings(config, rounds: int = 3) -> None:
    """Round thirty-three: a walkers run's kernel calls alone on two forked processes with a barrier
    between generations (:func:`evo.bench.engine.process_halves_speedup`), ``rounds`` interleaved rounds:
    each generation's calls cut for two threads and split in halves of equal measured time (the bench's
    ceiling line), and cut as two shards workers cut them -- 2, 3, 4 (shipped) or 6 kernel calls a worker,
    costliest first -- and taken one at a time from a shared counter; the speed-up over one process (the
    same calls cut for one thread, or for one shards worker), round by round and the median."""
    import statistics

    from evo.bench import engine

    children = generation_children(config)
    shipped = engine.CALLS_PER_WORKER
    seen: dict[str, list[float]] = {}
    try:
        for _ in range(rounds):
            seen.setdefault("halves of equal measured time", []).append(
                engine.process_halves_speedup(config, children, 2)
            )
            for per in (2, 3, 4, 6):
                engine.CALLS_PER_WORKER = per
                name = f"{per} calls a shards worker, from the counter" + (
                    " (shipped)" if per == shipped else ""
                )
                seen.setdefault(name, []).append(
                    engine.process_halves_speedup(config, children, 2, claimed=True)
                )
    finally:
        engine.CALLS_PER_WORKER = shipped
    print(
        f"walkers' kernel calls alone, two processes over one, barrier between generations, {rounds} rounds:"
    )
    for name, values in seen.items():
        print(f"  {name}: {statistics.median(values):.2f}x ({', '.join(f'{v:.2f}' for v in values)})")


# -- round thirty-seven: the shards cut's last calls split -----------------------------------------------


def _tail_split_cut(children: list, rows: Any, world: Any, calls: int, split: int) -> list:
    """A generation's kernel calls cut for ``calls`` as the shards workers cut them (costliest first),
    the ``split`` last (cheapest) each cut in two halves, each (run, its creatures, the rows it reads)."""
    from evo.sim.batch import _costliest_first, _kernel_calls, _rows

    cut = _kernel_calls(children, world, calls, rows)[1]
    order, _ = _costliest_first(cut, children, rows)
    out: list = []
    for at, (run, members) in enumerate(cut[i] for i in order):
        if at >= len(order) - split and len(members) >= 2:
            out += [(run, members[: len(members) // 2]), (run, members[len(members) // 2 :])]
        else:
            out.append((run, members))
    return [(run, [children[k] for k in members], _rows(rows, members)) for run, members in out]


def shards_tails(config, rounds: int = 5) -> None:
    """Round thirty-seven: whether finer last calls end a generation's two shards workers closer together
    -- the wall of a walkers run's kernel calls alone in two forked processes taking them one at a time
    from a shared counter, a barrier between generations (:func:`evo.bench.engine._run_half`, as the
    bench's shards line runs them), for the shipped cut (:data:`~evo.run.shards.engine.CALLS_PER_WORKER`
    a worker, costliest first), 10 calls a generation, and the shipped cut with its last one or two calls
    cut in halves; ``rounds`` interleaved rounds, medians."""
    import multiprocessing
    import statistics

    from evo.bench.engine import _run_half, laid_out
    from evo.run.shards.engine import CALLS_PER_WORKER
    from evo.sim.batch import steps_for

    children = generation_children(config)
    laid = laid_out(children)
    world, frames = config.world, config.evaluation.frames
    steps = (steps_for(frames, world.dt), steps_for(run_record_every(config), world.dt, "record_every"))
    shipped = 2 * CALLS_PER_WORKER
    variants = {
        f"{shipped} calls (shipped)": (shipped, 0),
        "10 calls": (10, 0),
        f"{shipped} calls, the last cut in two": (shipped, 1),
        f"{shipped} calls, the last two cut in two": (shipped, 2),
    }
    cuts = {
        name: [_tail_split_cut(c, rows, world, *how) for c, rows in zip(children, laid, strict=True)]
        for name, how in variants.items()
    }
    for run, batch, _ in cuts[f"{shipped} calls (shipped)"][0][:1]:  # compiled (or loaded) before the timing
        run(batch[:8], world, *steps)
    fork = multiprocessing.get_context("fork")

    def two(cut: list) -> float:
        start, between, counter = fork.Barrier(3), fork.Barrier(2), fork.Value("q", 0)
        pipes = [fork.Pipe(duplex=False) for _ in range(2)]
        processes = [
            fork.Process(target=_run_half, args=(cut, world, steps, start, between, sending, counter))
            for _, sending in pipes
        ]
        for process in processes:
            process.start()
        for _, sending in pipes:
            sending.close()
        start.wait(timeout=120)
        spans = [receiving.recv() for receiving, _ in pipes]
        for process in processes:
            process.join()
        if None in spans:
            raise RuntimeError("a process running the kernel calls failed")
        return max(end for _, end in spans) - min(began for began, _ in spans)

    seen: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, cut in cuts.items():
            seen.setdefault(name, []).append(two(cut))
    base = statistics.median(seen[f"{shipped} calls (shipped)"])
    print(
        f"walkers' kernel calls alone, two processes from a counter, a barrier between generations,"
        f" {rounds} rounds:"
    )
    for name, values in seen.items():
        count = statistics.mean(len(generation) for generation in cuts[name])
        each = ", ".join(f"{value:.3f}" for value in values)
        median = statistics.median(values)
        print(
            f"  {name} ({count:.2f} a generation): {median:.3f} s,"
            f" {median / base:.3f} x the shipped cut's ({each})"
        )


# -- round thirty-eight: a two-worker generation on one clock ------------------------------------------------


def _timeline_marks(folder: Path, last: int) -> list[Any]:
    """Marks (``time.perf_counter``: one clock for every process of a machine) in each process of a shards
    stint, at the start and end of selecting, breeding, the cut, the room's put and take, each kernel
    call, and the meeting point's arrive and leave (and for the room's take its thread's CPU and how often
    it was switched out), kept per generation and written to ``folder`` once generation ``last`` is made
    (:func:`shards_timeline`). Returns what to put back."""
    import json
    import resource

    from evo.run.shards import shared, state

    seen: list[Any] = []

    def marked(owner: Any, name: str, key: str, thread: bool = False) -> tuple[Any, str, Any]:
        original = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen.append((key + ">", time.perf_counter()))
            if thread:  # (its thread's own CPU and switches too: read only where used)
                cpu, before = time.thread_time(), resource.getrusage(resource.RUSAGE_THREAD)
            try:
                return original(*args, **kwargs)
            finally:
                seen.append((key + "<", time.perf_counter()))
                if thread:
                    after = resource.getrusage(resource.RUSAGE_THREAD)
                    seen.append((key + " cpu", time.thread_time() - cpu))
                    blocked = after.ru_nvcsw - before.ru_nvcsw  # (it waited: for a lock, the GIL among them)
                    preempted = after.ru_nivcsw - before.ru_nivcsw  # (another thread took its core)
                    seen.append((key + " switches", (blocked, preempted)))

        setattr(owner, name, wrapper)
        return owner, name, original

    made = state.ShardState.make
    marking = [os.getpid()]  # the process whose marks ``seen`` holds (a forked worker starts its own)

    def make(self: Any, g: int, meanwhile: Any = None) -> Any:
        if marking[0] != os.getpid():
            seen.clear()
            marking[0] = os.getpid()
        seen.append(("generation", g))
        out = made(self, g, meanwhile)
        if g >= last:  # (written once: a file a generation would weigh on the generations it marks)
            (folder / f"{os.getpid()}.json").write_text(json.dumps({"me": self.me, "marks": seen}))
        return out

    restore = [
        marked(state.ShardState, "planned", "select"),
        marked(state.ShardState, "bred", "breed"),
        marked(state.ShardState, "_cut", "cut"),
        marked(state.ShardState, "_score", "call"),
        marked(shared.Room, "put", "put"),
        marked(shared.Room, "take", "take", thread=True),
        marked(shared.MeetingPoint, "arrive", "arrive"),
        marked(shared.MeetingPoint, "leave", "leave"),
    ]
    state.ShardState.make = make  # type: ignore[method-assign]
    return [*restore, (state.ShardState, "make", made)]


def shards_timeline(config, tmp: Path, generations: int = 120) -> None:
    """Round thirty-eight: a two-worker shards walkers run's generations on one clock. For each generation
    (the stint's first five and last three left out), every mark of both processes measured from the
    moment the last of them arrived at the meeting point before it (:func:`_timeline_marks`; the medians
    over the generations, ms): when worker 1 has selected, bred, cut and left its generation in the room,
    when worker 0 takes it, when each starts its first kernel call and ends its last; then, by which
    worker arrives at the meeting point last, how far apart the two arrive and how soon the other leaves
    once both are there."""
    import json
    import statistics

    pool = {"workers": 2, "backend": "shards"}
    run_config = config.replace(run={"generations": generations}, pool=pool)
    whole_run(run_config.replace(run={"generations": 6}), tmp / "warm")
    folder = tmp / "marks"
    folder.mkdir()
    restore = _timeline_marks(folder, generations - 2)
    try:
        whole_run(run_config, tmp / "run")
    finally:
        for owner, name, original in reversed(restore):
            setattr(owner, name, original)
    by_worker: dict[int, dict[int, list]] = {}
    for path in folder.glob("*.json"):
        doc = json.loads(path.read_text())
        gens: dict[int, list] = {}
        for key, value in doc["marks"]:
            if key == "generation":
                gens[value] = []
            elif gens:
                gens[max(gens)].append((key, value))
        by_worker[doc["me"]] = gens
    zero, one = by_worker[0], by_worker[1]
    made = sorted(set(zero) & set(one))[5:-3]

    def at(marks: list, key: str, which: int = 0) -> float:
        return [t for k, t in marks if k == key][which]

    rows: dict[str, list[float]] = {}
    gaps: dict[str, list[tuple[float, float]]] = {"worker 0": [], "worker 1": []}
    # worker 0's take: how long after the room was ready and asked, whether asked before, its thread's CPU
    # and how many times its thread blocked and was preempted meanwhile
    late: list[tuple[float, bool, float, tuple[int, int]]] = []
    for g in made:
        if g - 1 not in zero or g - 1 not in one:
            continue
        start = max(at(zero[g - 1], "arrive>"), at(one[g - 1], "arrive>"))
        points = {
            "worker 1 has selected": at(one[g], "select<"),
            "worker 1 has bred": at(one[g], "breed<"),
            "worker 1 has cut": at(one[g], "cut<"),
            "worker 1 has put its generation in the room": at(one[g], "put<"),
            "worker 0 asks the room": at(zero[g], "take>"),
            "worker 0 has taken it": at(zero[g], "take<"),
            "worker 1 starts its first kernel call": at(one[g], "call>"),
            "worker 0 starts its first kernel call": at(zero[g], "call>"),
            "worker 1 ends its last kernel call": at(one[g], "call<", -1),
            "worker 0 ends its last kernel call": at(zero[g], "call<", -1),
        }
        for name, value in points.items():
            rows.setdefault(name, []).append(1e3 * (value - start))
        put, asked, taken = at(one[g], "put<"), at(zero[g], "take>"), at(zero[g], "take<")
        cpu, switched = 1e3 * at(zero[g], "take cpu"), at(zero[g], "take switches")
        late.append((1e3 * (taken - max(put, asked)), asked < put, cpu, switched))
        arrive0, arrive1 = at(zero[g], "arrive>"), at(one[g], "arrive>")
        later, other = ("worker 0", one) if arrive0 > arrive1 else ("worker 1", zero)
        left = at(other[g], "leave<")
        gaps[later].append((1e3 * abs(arrive0 - arrive1), 1e3 * (left - max(arrive0, arrive1))))
    print(
        f"walkers, 2 shards workers, {generations} generations; ms from the last arrival at the meeting"
        f" point before each generation (medians over {len(made)} generations):"
    )
    for name, values in sorted(rows.items(), key=lambda item: statistics.median(item[1])):
        print(f"  {name}: {statistics.median(values):.3f}")
    early = [after for after, before, _, _ in late if before]
    ready = [(after, cpu, switched) for after, before, cpu, switched in late if not before]
    blocked = sum(1 for _, _, (waited, _) in ready if waited)
    preempted = sum(1 for _, _, (_, taken) in ready if taken)
    print(
        f"  worker 0 asks the room before it is put in {len(early)} generations, and takes it"
        f" {statistics.median(early) if early else math.nan:.3f} ms after the put (median); in the others"
        f" {statistics.median([a for a, _, _ in ready] or [math.nan]):.3f} ms after asking, of which its"
        f" thread ran {statistics.median([c for _, c, _ in ready] or [math.nan]):.3f} ms; its thread blocked"
        f" (waiting for a lock: the GIL) in {blocked} of those takes, and was preempted in {preempted}"
    )
    for later, pairs in gaps.items():
        if pairs:
            print(
                f"  {later} arrives last in {len(pairs)} generations: the other arrived"
                f" {statistics.median(a for a, _ in pairs):.3f} ms before it (median), and leaves"
                f" {statistics.median(b for _, b in pairs):.3f} ms after it arrives"
            )


def _bests_written(how: str) -> contextlib.AbstractContextManager:
    """The generations' bests written as this tree writes them (``shipped``), not at all (``none``), or as
    round thirty-eight wrote them (``each durable``: each a new file, synced as it is told, its model
    text made each time)."""
    from evo.io.run_folder.folder import RunFolder
    from evo.run.folder import elite_files

    @contextlib.contextmanager
    def patched():
        real = RunFolder.write_generation_best, RunFolder.make_bests_durable, elite_files.EliteFiles.text
        if how == "none":
            RunFolder.write_generation_best = lambda self, generation, text, **how: None
            RunFolder.make_bests_durable = lambda self, generations: None
        elif how == "each durable":
            RunFolder.write_generation_best = lambda self, generation, text, **how: real[0](
                self, generation, text
            )
            RunFolder.make_bests_durable = lambda self, generations: None
            elite_files.EliteFiles.text = lambda self, ind: (
                self._texts.get(ind.id) or elite_files.dumps_model(self.creature(ind))
            )
        try:
            yield
        finally:
            RunFolder.write_generation_best, RunFolder.make_bests_durable, elite_files.EliteFiles.text = real

    return patched()


def bests_files(config, tmp: Path, rounds: int = 8) -> None:
    """Round thirty-nine: whole walkers runs of one and two workers, interleaved, with the generations'
    bests written as this tree writes them, as round thirty-eight did (each a new file synced as it is
    told), not at all (what writing them costs at most), and as shipped into a folder on a tmpfs
    (``/dev/shm``, where there is one: the same files with no disk under them); the median wall of each,
    its ratio to the shipped run's round by round, and the two workers' speed-up over one."""
    import statistics

    shm = Path("/dev/shm")
    kinds = ["shipped", "each durable", "none"] + (["shipped, on a tmpfs"] if shm.is_dir() else [])
    walls: dict[tuple[str, int], list[float]] = {(kind, n): [] for kind in kinds for n in (1, 2)}
    with tempfile.TemporaryDirectory(
        prefix="evo-engine-experiments-", dir=shm if shm.is_dir() else None
    ) as on:
        for r in range(rounds):
            for kind in kinds[:: 1 if r % 2 == 0 else -1]:
                for n in (2, 1):
                    folder = (Path(on) if "tmpfs" in kind else tmp) / f"{kind}-{n}"
                    with _bests_written(kind.split(",")[0]):
                        walls[kind, n].append(whole_run(config.replace(pool={"workers": n}), folder)[0])
    for kind in kinds:
        parts = []
        for n in (1, 2):
            mine, shipped = walls[kind, n], walls["shipped", n]
            said = (
                ""
                if kind == "shipped"
                else f" ({_round_by_round([(w,) for w in mine], [(w,) for w in shipped], 0)})"
            )
            parts.append(f"{n} worker{'s' * (n > 1)} {statistics.median(mine):.3f} s{said}")
        speedup = statistics.median(walls[kind, 1]) / statistics.median(walls[kind, 2])
        print(f"{kind}: " + "; ".join(parts) + f"; two workers {speedup:.3f}x one")


def main() -> None:
    config = walkers_config(120)
    if sys.argv[1:2] == ["dask-method"]:
        dask_method(sys.argv[2])
        return
    if sys.argv[1:2] == ["dask-costs"]:
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            dask_costs(Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["timed-run"]:
        _timed_run(int(sys.argv[2]), Path(sys.argv[3]))
        return
    if sys.argv[1:2] == ["against"]:
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            against(sys.argv[2], Path(tmp), *(int(arg) for arg in sys.argv[3:4]))
        return
    if sys.argv[1:] == ["compile"]:
        compile_profile()
        return
    if sys.argv[1:] == ["dask"]:
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            dask_runners(config, Path(tmp))
        return
    if sys.argv[1:2] == ["two-at-once"]:
        two_at_once(config, *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["sharded-bench"]:  # round twenty-seven's sharded runs of the bench config
        from evo.bench.evolution import bench_config

        bench = bench_config(generations=40)
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            whole_run(bench.replace(pool=ONE_WORKER), Path(tmp) / "warm")
            sharded(bench, Path(tmp), *(int(arg) for arg in sys.argv[2:3]), finer=True)
        return
    if sys.argv[1:2] == ["shards"]:  # round twenty-eight: walkers and the bench config (40 generations)
        from evo.bench.evolution import bench_config

        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            whole_run(config.replace(pool=ONE_WORKER), Path(tmp) / "warm")
            configs = {"walkers": config, "bench config": bench_config(generations=40)}
            shards(configs, Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["shards-busy"]:  # round twenty-nine: walkers beside a process busy on a core
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            whole_run(config.replace(pool=ONE_WORKER), Path(tmp) / "warm")
            shards({"walkers": config}, Path(tmp), *(int(arg) for arg in sys.argv[2:3]), busy=True)
        return
    if sys.argv[1:2] == ["shards-parts"]:  # round twenty-nine: a shards generation's parts, and a model
        shards_parts(config, *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["shards-variants"]:  # round thirty: breeding split, other cuts
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            whole_run(config.replace(pool=ONE_WORKER), Path(tmp) / "warm")
            shards_variants(config, Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["shards-books"]:  # round thirty-one: books in the waits, worker 1 breeds
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            whole_run(config.replace(pool={"workers": 1}), Path(tmp) / "warm")
            shards_books(config, Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["shards-waits"]:  # round thirty-one: a two-worker generation, worker by worker
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            shards_waits(config, Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["dask-arrays"]:  # round thirty-two: a local dask cluster, from arrays
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            dask_arrays(config, Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["selection-behind"]:
        selection_behind(*(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["shards-ceilings"]:  # round thirty-three: the kernel calls alone, as shards cut them
        shards_ceilings(config, *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["shards-tails"]:  # round thirty-seven: the shards cut's last calls split
        shards_tails(config, *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["bests-files"]:  # round thirty-nine: the generations' bests' files
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            whole_run(config.replace(pool={"workers": 2}), Path(tmp) / "warm")
            bests_files(config, Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    if sys.argv[1:2] == ["shards-timeline"]:  # round thirty-eight: a two-worker generation on one clock
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            shards_timeline(config, Path(tmp), *(int(arg) for arg in sys.argv[2:3]))
        return
    plain = {"broods": one_brood, "records": records, "lane-counts": lane_counts}
    if len(sys.argv) == 2 and sys.argv[1] in plain:
        plain[sys.argv[1]](config)
        return
    # each after a warm-up run, in a temporary folder
    warmed = {
        "gaps": _three_gaps,
        "share": share,
        "collector": collector,
        "split": split,
        "checkpoints": checkpoints,
        "dask-waits": dask_waits,
        "workers": workers,
        "early-start": early_start,
        "lane-threads": lane_threads,
        "lane-losses": lane_losses,
        "beside-the-calls": beside_the_calls,
        "told-beside": told_beside,
        "on-lane-threads": on_lane_threads,
        "reading": reading,
        "serial-ends": serial_ends,
        "occupancy": occupancy,
        "drawing-ahead": drawing_ahead,
        "resolvable": resolvable,
        "idle-handing": idle_handing,
        "report-waits": report_waits,
        "padding": padding,
        "overlapped": overlapped,
        "sharded": sharded,
        "sharded-books": sharded_books,
        "run-ends": run_ends,
        "kernel-beside": kernel_beside,
    }
    # these take a count of rounds
    counted = (
        "workers", "early-start", "lane-threads", "lane-losses", "beside-the-calls", "told-beside",
        "on-lane-threads", "reading", "serial-ends", "occupancy", "drawing-ahead", "resolvable",
        "idle-handing", "report-waits", "padding", "overlapped", "sharded", "sharded-books", "run-ends",
        "kernel-beside",
    )  # fmt: skip
    if sys.argv[1:2] and sys.argv[1] in warmed and (len(sys.argv) == 2 or sys.argv[1] in counted):
        rounds = [int(arg) for arg in sys.argv[2:3]]
        with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
            whole_run(config.replace(pool=ONE_WORKER), Path(tmp) / "warm")
            warmed[sys.argv[1]](config, Path(tmp), *rounds)
        return
    with tempfile.TemporaryDirectory(prefix="evo-engine-experiments-") as tmp:
        whole_run(config.replace(pool=ONE_WORKER), Path(tmp) / "warm")
        two_workers(config, Path(tmp))
        chunkings(config, Path(tmp))
        chunkings(config, Path(tmp), busy=True)
        without_fsync(config, Path(tmp))
        dask_runners(config, Path(tmp))
    one_brood(config)


if __name__ == "__main__":
    main()
