"""The experiments behind docs/performance.md, "Issue 29" / "Round ten" to "Round twelve": what cutting a
generation into two chunks costs, what other cuts could save, two threads on one chunk instead, and what
the main thread does alone then.

- ``topology``: the children of one chunk share kernel calls of one topology (``evo.sim.batch.lane_calls``:
  at least ``OWN_CALL_LANES`` children with the same link ends). A 1-worker run of walkers records each
  brood's parents, flags and children; then, per generation, the children in such groups are counted
  for the whole generation, for its two halves as ``evo.run.batching.chunk_ids`` cuts it for two workers,
  and for halves cut after ordering the broods, or the children one by one, by the topology predicted from
  the parents (a child not mated, or mated with a parent of the same topology, has its parent's until a
  mutation changes it) or by the children's own (what knowing the children before the cut would give).
- ``shares``: whole 2-worker runs, alternating, with the two chunks' shares equal (the default) and with
  4 % or 8 % more of the cost moved to the ``evo run`` process's own chunk.
- ``pickling``: one whole 2-worker run of the fork pool, every ``pickle.dumps`` / ``loads`` of its pipes
  and every chunk timed in the process that runs it.
- ``cuts`` (round eleven): the bare batched kernel (``simulate_batch``, recording as the run does) on each
  generation's children, least of three interleaved rounds: whole; in two halves by position (about
  what two chunks give); in two halves of whole topology groups (each group of one link layout kept on
  one side, the largest first, the sides balanced by cost: the best a child-level cut could do); and
  whole with its kernel calls on two threads (``lane_runs(..., threads=...)``: wall and CPU seconds).
- ``serial`` (round twelve): whole runs of 1 worker, of 2 threads, and of 2 threads with each chunk's
  broods bred half on each thread, alternating; the main thread's seconds in breeding, scoring, ``tell``,
  ``ask`` and (2 threads) waiting for the kernel calls: what it does alone while the lane threads wait.

    .venv/bin/python docs/chunking_experiments.py topology   # a minute
    .venv/bin/python docs/chunking_experiments.py shares     # two minutes
    .venv/bin/python docs/chunking_experiments.py pickling   # half a minute
    .venv/bin/python docs/chunking_experiments.py cuts       # a minute
    .venv/bin/python docs/chunking_experiments.py serial     # a minute

The runs are examples/walkers.toml whole (120 generations) through evo.bench.engine.whole_run.
"""

from __future__ import annotations

import collections
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evo.bench.engine import whole_run
from evo.bench.evolution import walkers_config
from evo.run import batching, generations
from evo.run.backends import fork
from evo.sim import topology_key
from evo.sim.batch import OWN_CALL_LANES

UNKNOWN = "~"  # a predicted topology no parent has (sorted after every hex key)


def _grouped(keys: list[str]) -> int:
    """How many of these children are in groups of at least OWN_CALL_LANES with one topology."""
    counts = collections.Counter(keys)
    return sum(n for n in counts.values() if n >= OWN_CALL_LANES)


def _predicted(parents: list[str], mate: bool, children: int) -> list[str]:
    """Each child's topology as its parents predict it (UNKNOWN for a cross of two topologies)."""
    if not parents:
        return [UNKNOWN] * children
    if not mate:
        return [parents[min(k, len(parents) - 1)] for k in range(children)]
    return [parents[0] if len(set(parents)) == 1 else UNKNOWN] * children


def _halves(items: list, weight: Any) -> tuple[list, list]:
    """``items`` cut in two where half the total weight is reached."""
    total, done, first = sum(weight(i) for i in items), 0.0, []
    for k, item in enumerate(items):
        if done >= total / 2:
            return first, items[k:]
        first.append(item)
        done += weight(item)
    return first, []


def topology(config: Any, tmp: Path) -> None:
    rows: list[list[dict]] = []  # per generation, per brood
    real = batching.bred_broods

    def recording(broods: Any, context: Any) -> Any:
        out = real(broods, context)
        ids = batching.chunk_ids(broods, batching.chunk_shares(2))
        generation = []
        for brood, bred, (_, chunk) in zip(broods, out, ids, strict=True):
            kids = bred.children if bred is not None else [None] * len(brood.plugin_seeds)
            evaluated = [c for c, s in zip(kids, brood.plugin_seeds, strict=True) if c is not None and s]
            parents = [topology_key(p) for p in brood.parents]
            generation.append(
                {
                    "chunk": chunk,
                    "children": [topology_key(c) for c in evaluated],
                    "predicted": _predicted(parents, brood.mate, len(evaluated)),
                }
            )
        rows.append(generation)
        return out

    batching.bred_broods = recording
    try:
        whole_run(config.replace(pool={"workers": 1, "backend": "inprocess"}), tmp / "topology")
    finally:
        batching.bred_broods = real
    counts: collections.Counter = collections.Counter()
    right = unknown = total = 0
    for broods in rows[1:]:  # generation 0's random creatures share no topology
        kids = [(p, c) for b in broods for p, c in zip(b["predicted"], b["children"], strict=True)]
        total += len(kids)
        right += sum(p == c for p, c in kids)
        unknown += sum(p == UNKNOWN for p, _ in kids)
        counts["the whole generation (one worker)"] += _grouped([c for _, c in kids])
        cut = [[c for b in broods if b["chunk"] == n for c in b["children"]] for n in (0, 1)]
        counts["halves as chunk_ids cuts them (two workers)"] += sum(_grouped(h) for h in cut)
        for name, key in (
            ("halves of broods ordered by their children's predicted topologies", "predicted"),
            ("halves of broods ordered by their children's own topologies", "children"),
        ):
            ordered = sorted(broods, key=lambda b, key=key: tuple(b[key]))
            halves = _halves(ordered, lambda b: len(b["children"]))
            counts[name] += sum(_grouped([c for b in h for c in b["children"]]) for h in halves)
        for name, at in (
            ("halves of children ordered one by one by predicted topology", 0),
            ("halves of children ordered one by one by their own topology", 1),
        ):
            ordered = sorted(kids, key=lambda kid, at=at: kid[at])
            halves = _halves(ordered, lambda kid: 1)
            counts[name] += sum(_grouped([c for _, c in h]) for h in halves)
    print(
        f"{total} children in generations 1-{len(rows) - 1}: the topology predicted from the parents is"
        f" right for {right}, unknown for {unknown}, wrong for {total - right - unknown}"
    )
    for name, n in counts.items():
        print(f"  children in kernel calls of one topology, {name}: {n}")


def shares(config: Any, tmp: Path, rounds: int = 4) -> None:
    real = generations.chunk_shares

    def moved(more: float) -> Any:
        def rule(workers: int, contended: bool = False, last: float = 1.0) -> list[float]:
            if workers == 2 and not contended:  # the evo run process runs the last chunk
                return [0.5 - more, 0.5 + more]
            return real(workers, contended, last=last)

        return rule

    rules = {"equal shares": real, "4 % moved to the evo run process": moved(0.04)}
    rules["8 % moved to the evo run process"] = moved(0.08)
    two = config.replace(pool={"workers": 2})
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name in rules}
    try:
        for _ in range(rounds):
            for name, rule in rules.items():
                generations.chunk_shares = rule
                seen[name].append(whole_run(two, tmp / "shares"))
    finally:
        generations.chunk_shares = real
    for name, runs in seen.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"2 workers, {name}: wall {wall:.2f} s, CPU {cpu:.2f} s (medians of {rounds})")


class _TimedPickle:
    """``pickle`` as the fork pool calls it, each call's seconds and bytes appended to ``log`` (a file
    per process)."""

    HIGHEST_PROTOCOL = pickle.HIGHEST_PROTOCOL
    log: Path

    @classmethod
    def _note(cls, kind: str, began: float, size: int) -> None:
        with open(cls.log / f"{os.getpid()}.txt", "a") as out:
            out.write(f"{kind} {time.perf_counter() - began:.6f} {size}\n")

    @classmethod
    def loads(cls, data: bytes) -> Any:
        began = time.perf_counter()
        out = pickle.loads(data)
        cls._note("loads", began, len(data))
        return out

    @classmethod
    def dumps(cls, value: Any, protocol: int | None = None) -> bytes:
        began = time.perf_counter()
        out = pickle.dumps(value, protocol)
        cls._note("dumps", began, len(out))
        return out


def pickling(config: Any, tmp: Path) -> None:
    _TimedPickle.log = tmp / "pickling"
    _TimedPickle.log.mkdir()
    real_chunk = fork._timed_chunk

    def timed_chunk(*args: Any) -> Any:
        began = time.perf_counter()
        out = real_chunk(*args)
        _TimedPickle._note("chunk", began, 0)
        return out

    fork.pickle, fork._timed_chunk = _TimedPickle, timed_chunk  # the forked worker inherits both
    try:
        wall, cpu = whole_run(config.replace(pool={"workers": 2}), tmp / "pickling-run")
    finally:
        fork.pickle, fork._timed_chunk = pickle, real_chunk
    print(f"2 workers: {wall:.2f} s wall, {cpu:.2f} s CPU; per generation, medians:")
    for path in sorted(_TimedPickle.log.glob("*.txt")):
        who = "the evo run process" if int(path.stem) == os.getpid() else "the forked worker"
        steps: dict[str, list[tuple[float, int]]] = collections.defaultdict(list)
        for line in path.read_text().splitlines():
            kind, seconds, size = line.split()
            steps[kind].append((float(seconds), int(size)))
        print(
            f"  {who}: "
            + "; ".join(
                f"{kind} {1000 * statistics.median(s for s, _ in v):.2f} ms"
                + (f" ({statistics.median(n for _, n in v) / 1024:.0f} KiB)" if kind != "chunk" else "")
                for kind, v in steps.items()
            )
        )


def _by_topology(children: list) -> list[list]:
    """The children in two halves of whole groups of one link layout (largest group first, each to the
    half of less cost so far; cost: children x (links + the per-creature part))."""
    groups: dict[tuple, list] = {}
    for child in children:
        key = (child.n_masses, child.n_links, child.link_a.tobytes(), child.link_b.tobytes())
        groups.setdefault(key, []).append(child)
    halves: list[list] = [[], []]
    cost = [0, 0]
    for group in sorted(groups.values(), key=lambda g: -len(g) * (g[0].n_links + OWN_CALL_LANES)):
        side = 0 if cost[0] <= cost[1] else 1
        halves[side] += group
        cost[side] += len(group) * (group[0].n_links + OWN_CALL_LANES)
    return halves


def cuts(config: Any, tmp: Path, rounds: int = 3) -> None:
    from evo.bench.engine import generation_children, run_record_every
    from evo.sim import simulate_batch
    from evo.sim.batch import LaneThreads, lane_runs

    world, frames, every = config.world, config.evaluation.frames, run_record_every(config)
    generations = generation_children(config)[1:]

    def bare(cut: Any) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        for children in generations:
            for part in cut(children):
                simulate_batch(part, world, frames, every)
        return time.perf_counter() - wall, time.process_time() - cpu

    def threaded(pool: Any) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        for children in generations:
            for _ in lane_runs(children, world, frames, every, threads=pool)[1]:
                pass
        return time.perf_counter() - wall, time.process_time() - cpu

    kinds = {
        "whole": lambda: bare(lambda c: [c]),
        "halves by position": lambda: bare(lambda c: [c[: len(c) // 2], c[len(c) // 2 :]]),
        "halves of whole topology groups": lambda: bare(_by_topology),
    }
    best: dict[str, tuple[float, float]] = {}
    with LaneThreads(2) as pool:
        kinds["whole, kernel calls on two threads"] = lambda: threaded(pool)
        for _ in range(rounds):
            for name, kind in kinds.items():
                wall, cpu = kind()
                seen = best.get(name, (wall, cpu))
                best[name] = (min(seen[0], wall), min(seen[1], cpu))
    evaluations = sum(len(c) for c in generations)
    print(
        f"the bare batched kernel on {evaluations} children (generations 1-{len(generations)}),"
        f" least of {rounds}:"
    )
    whole = best["whole"][1]
    for name, (wall, cpu) in best.items():
        print(f"  {name}: {wall:.2f} s wall, {cpu:.2f} CPU-s ({cpu / whole:.2f} x whole)")


class _Clock:
    """Seconds spent in named functions of a module (the run process's main thread), and in the threads
    backend's wait for its kernel calls (each step of ``evo.sim.batch._threaded``)."""

    def __init__(self) -> None:
        self.seconds: collections.Counter = collections.Counter()
        self._undo: list[tuple[Any, str, Any]] = []

    def time(self, owner: Any, name: str, key: str) -> None:
        real = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                self.seconds[key] += time.perf_counter() - start

        self._undo.append((owner, name, real))
        setattr(owner, name, timed)

    def time_waits(self) -> None:
        from evo.sim import batch

        real = batch._threaded

        def waited(*args: Any, **kwargs: Any) -> Any:
            calls = real(*args, **kwargs)
            while True:
                start = time.perf_counter()
                try:
                    call = next(calls)
                except StopIteration:
                    return
                finally:
                    self.seconds["waiting for kernel calls"] += time.perf_counter() - start
                yield call

        self._undo.append((batch, "_threaded", real))
        batch._threaded = waited

    def undo(self) -> None:
        for owner, name, real in reversed(self._undo):
            setattr(owner, name, real)


def serial(config: Any, tmp: Path, rounds: int = 4) -> None:
    """Round twelve: where a 2-thread run's wall time goes, and breeding spread over both threads."""
    from evo.ga.loop import Evolution

    real_bred = batching.bred_broods

    def bred_on_both(broods: Any, context: Any) -> list:  # the second half on a lane thread
        threads = getattr(context, "lane_threads", None)
        if threads is None or len(broods) < 2:
            return real_bred(broods, context)
        half = len(broods) // 2
        later = threads.submit(real_bred, broods[half:], context)
        return real_bred(broods[:half], context) + later.result()

    kinds = {
        "1 worker": (config.replace(pool={"workers": 1, "backend": "inprocess"}), real_bred),
        "2 threads": (config.replace(pool={"workers": 2, "backend": "threads"}), real_bred),
        "2 threads, broods bred half on each": (
            config.replace(pool={"workers": 2, "backend": "threads"}),
            bred_on_both,
        ),
    }
    seen: dict[str, list[tuple[float, float, dict]]] = {name: [] for name in kinds}
    for _ in range(rounds):
        for name, (kind, bred) in kinds.items():
            batching.bred_broods = bred
            clock = _Clock()
            clock.time(batching, "bred_broods", "breeding")
            clock.time(batching, "_score_calls", "scoring")
            clock.time(Evolution, "tell_later", "tell")  # its first part since round nineteen
            clock.time(Evolution, "ask", "ask")
            clock.time_waits()
            try:
                wall, cpu = whole_run(kind, tmp / "serial")
            finally:
                clock.undo()
                batching.bred_broods = real_bred
            seen[name].append((wall, cpu, dict(clock.seconds)))
    one = statistics.median(w for w, _, _ in seen["1 worker"])
    print(f"examples/walkers.toml, whole runs, medians of {rounds} alternating rounds:")
    for name, runs in seen.items():
        wall = statistics.median(w for w, _, _ in runs)
        cpu = statistics.median(c for _, c, _ in runs)
        parts = {key: statistics.median(r[2].get(key, 0.0) for r in runs) for key in runs[0][2]}
        shown = ", ".join(f"{key} {value:.2f}" for key, value in parts.items())
        print(f"  {name}: {wall:.2f} s wall ({one / wall:.2f} x 1 worker's rate), {cpu:.2f} CPU-s; {shown}")
    two = seen["2 threads"]
    waiting = statistics.median(r[2]["waiting for kernel calls"] for r in two)
    wall = statistics.median(w for w, _, _ in two)
    print(
        f"  2 threads: the main thread works {wall - waiting:.2f} s of the {wall:.2f} s alone"
        f" ({(wall - waiting) / one:.0%} of 1 worker's wall time) and waits {waiting:.2f} s for the"
        " kernel calls"
    )


def main() -> None:
    experiments = {"topology": topology, "shares": shares, "pickling": pickling, "cuts": cuts}
    experiments["serial"] = serial
    if len(sys.argv) != 2 or sys.argv[1] not in experiments:
        sys.exit(f"usage: {sys.argv[0]} {' | '.join(experiments)}")
    config = walkers_config(120)
    with tempfile.TemporaryDirectory(prefix="evo-chunking-experiments-") as tmp:
        whole_run(config.replace(pool={"workers": 1, "backend": "inprocess"}), Path(tmp) / "warm")
        experiments[sys.argv[1]](config, Path(tmp))


if __name__ == "__main__":
    main()
