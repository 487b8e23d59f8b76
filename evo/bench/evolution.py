"""End-to-end evolution benchmark: evaluations per second of whole generations, against the bare kernel.

The ``evolution`` section of ``python -m evo bench`` (real runs into a temporary run folder, with 1 and 2
workers, batched and not, and examples/walkers.toml) and a memory probe (``--memory``). What is timed and
how: docs/performance.md."""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from evo.run.callbacks import Callback, GenerationStatus, RunStart
from evo.run.evolve import run_prepared
from evo.run.folder.writer import FolderWriter, prepare

POPULATION = 200
FRAMES = 3000
GENERATIONS = 4  # generation 0 plus three timed ones
SEED = 11
REPEATS = 3  # each repeat is three short runs; the fastest per generation is kept
WALKERS_GENERATIONS = 120  # the shipped example, whole


def bench_config(population: int = POPULATION, frames: int = FRAMES, generations: int = GENERATIONS):
    """The benchmark's config (a :class:`evo.run.config.Config`)."""
    from evo.bench.simulator import bench_world
    from evo.run.config import parse_config, resolve

    world = bench_world()
    doc = {
        "run": {"name": "bench", "seed": SEED, "generations": generations, "population": population},
        "evaluation": {"frames": frames, "plugin": "distance"},
        "world": {"stiffness": world.stiffness, "max_speed": world.max_speed},
        "genome": {"masses": [18, 22], "max_links": 64, "max_degree": 7, "link_density": 1.0},
    }
    return resolve(parse_config(doc, source="<bench>"))


class GenerationClock(Callback):
    """When the run started, and when each generation ended -- its last evaluation came back -- with the
    CPU time of the run's thread then and the generation's evaluations. A generation's tell, its
    bookkeeping and its checkpoint come after that moment (its bookkeeping beside the next generation's
    work, docs/runs.md, "Workers"), so each generation's time holds the tell of the one before."""

    def __init__(self) -> None:
        self.start = 0.0
        self.ends: list[float] = []
        self.cpu: list[float] = []  # CPU time of the run's own thread (not the background writer)
        self.evaluations: list[int] = []
        self._due = 0  # evaluations of the generation under way not back yet

    def on_run_start(self, run: RunStart) -> None:
        self.start = time.perf_counter()

    def on_generation_start(self, generation: int, evaluations: int) -> None:
        self._due = evaluations
        self.evaluations.append(evaluations)
        if not evaluations:  # nothing to wait for
            self._ended()

    def on_evaluated(self, count: int) -> None:
        self._due -= count
        if self._due <= 0:
            self._ended()

    def _ended(self) -> None:
        self.ends.append(time.perf_counter())
        self.cpu.append(time.thread_time())


def timed_run(config, workers: int, folder: Path, *, batch: bool = True) -> list[tuple[int, float, float]]:
    """Run ``config`` into ``folder`` with ``workers`` (and ``[pool] batch``): (evaluations, wall seconds,
    CPU seconds of the run's thread) of each generation after the first, from the end of the one before
    to its own end. More than one worker are the ``threads`` backend's: the default, ``shards``, reports
    generations its workers made ahead in bursts, which no per-generation clock can time (``evo bench
    --engine`` times it whole); one is the ``inprocess`` backend's, the path the threads' main thread
    runs (the default makes a 1-worker run's generations from arrays, reported one generation late)."""
    clock = GenerationClock()
    backend = {"backend": "threads" if workers > 1 else "inprocess"}
    config = config.replace(pool={"workers": workers, "batch": batch, **backend})
    prepared = prepare(config, out=folder, force=True)
    run_prepared(prepared, [FolderWriter(prepared), clock])
    ends, cpu = clock.ends, clock.cpu
    return [(clock.evaluations[g], ends[g] - ends[g - 1], cpu[g] - cpu[g - 1]) for g in range(1, len(ends))]


def evaluated_creatures(config) -> list:
    """The creatures a run of ``config`` evaluates after generation 0, in order (an untimed in-process
    run that records them, without batching: the same creatures)."""
    from evo.fitness.evaluate import evaluate

    kept: list = []
    seen = [0]

    def recording(creature, spec, seed):
        seen[0] += 1
        if seen[0] > config.run.population:  # generation 0 is the whole population
            kept.append(creature)
        return evaluate(creature, spec, seed)

    prepared = prepare(config.replace(pool={"workers": 1, "batch": False}))
    run_prepared(prepared, [], evaluate=recording)
    return kept


def batched_share(run: Any) -> tuple[float, Any]:
    """(share of the evaluations simulated in batches by ``run()`` in this process, its result)."""
    from evo.run.batching import COUNTS

    before = dict(COUNTS)
    result = run()
    batched = COUNTS["batched"] - before["batched"]
    total = batched + COUNTS["single"] - before["single"]
    return (batched / total if total else 0.0), result


def best_rate(runs: list[list[tuple[int, float, float]]]) -> dict[str, Any]:
    """Evaluations/s over the generations, taking for each generation its fastest repeat (the runs are
    identical, so other processes on the machine can only have slowed a repeat down); also per CPU
    second of the run's thread."""
    evaluations = sum(g[0] for g in runs[0])
    seconds = sum(min(run[g][1] for run in runs) for g in range(len(runs[0])))
    cpu = sum(min(run[g][2] for run in runs) for g in range(len(runs[0])))
    return {
        "evaluations": evaluations,
        "seconds": seconds,
        "per_s": evaluations / seconds,
        "per_cpu_s": evaluations / cpu,
    }


def bare_kernel(config, creatures: list, repeats: int) -> dict[str, Any]:
    """Evaluations/s of ``simulate`` alone on ``creatures`` (after a warm-up; fastest of ``repeats``)."""
    from evo.fitness import load_ref
    from evo.sim import simulate, warm_up

    record_every = load_ref(config.plugin).record_every
    warm_up(config.world)
    best = best_cpu = float("inf")
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.thread_time()
        for creature in creatures:
            simulate(creature, config.world, config.evaluation.frames, record_every=record_every)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.thread_time() - start_cpu)
    n = len(creatures)
    return {"evaluations": n, "seconds": best, "per_s": n / best, "per_cpu_s": n / best_cpu}


def walkers_config(generations: int):
    """examples/walkers.toml cut to its first ``generations`` generations, in-process (1 worker)."""
    from evo.run.config import load_config

    path = Path(__file__).resolve().parents[2] / "examples" / "walkers.toml"
    return load_config(path).replace(run={"generations": generations}, pool={"workers": 1})


def walkers_rates(generations: int, repeats: int) -> dict[str, Any]:
    """examples/walkers.toml (its first ``generations`` generations) writing its run folder, as issue 18's
    targets count it: 1 worker with and without batching and 2 workers (the threads backend:
    :func:`timed_run`), evaluations/s of generations 1 onwards (fastest repeat per generation), the share
    batched, and the bare scalar kernel on the same creatures."""
    config = walkers_config(generations)
    creatures = evaluated_creatures(config)
    runs: dict[str, list] = {"one": [], "plain": [], "two": []}
    share = 0.0
    with tempfile.TemporaryDirectory(prefix="evo-bench-walkers-") as tmp:
        for _ in range(max(1, repeats)):
            share, timed = batched_share(lambda: timed_run(config, 1, Path(tmp) / "one"))
            runs["one"].append(timed)
            runs["plain"].append(timed_run(config, 1, Path(tmp) / "plain", batch=False))
            runs["two"].append(timed_run(config, 2, Path(tmp) / "two"))
    one, plain, two = (best_rate(runs[name]) for name in ("one", "plain", "two"))
    bare = bare_kernel(config, creatures, repeats)
    return {
        "generations": generations,
        "evaluations": len(creatures),
        "batched_share": share,
        "run_per_s": one["per_s"],
        "run_per_cpu_s": one["per_cpu_s"],
        "run_unbatched_per_s": plain["per_s"],
        "two_workers_per_s": two["per_s"],
        "bare_kernel_per_s": bare["per_s"],
        "bare_kernel_per_cpu_s": bare["per_cpu_s"],
        "run_vs_kernel": one["per_s"] / bare["per_s"],
        "two_vs_one_worker": two["per_s"] / one["per_s"],
    }


def ga_costs(generations: int, repeats: int) -> dict[str, Any]:
    """examples/walkers.toml's GA alone, per new child (ms), generations 1 .. ``generations`` - 1 driven by
    hand: ``breed_many`` of each generation's broods, as a run's chunk breeds them (variation: crossover,
    mutation, repair, the creatures made) and ``ask`` + ``tell`` (the bookkeeping: selection, the broods,
    individuals, hall of fame, statistics); the children are evaluated between them, untimed. CPU time of
    this thread (a busy machine barely changes it), fastest of ``repeats`` per part."""
    from evo.fitness.evaluate import evaluate
    from evo.ga.brood import breed_many
    from evo.ga.search import ChildResult

    config = walkers_config(generations)
    spec = config.evaluation_spec()
    best = {"variation": float("inf"), "bookkeeping": float("inf")}
    children = 0
    for _ in range(max(1, repeats)):
        evolution = prepare(config).evolution
        spent = {"variation": 0.0, "bookkeeping": 0.0}
        children = 0
        for g in range(generations):
            start = time.thread_time()
            broods = evolution.ask().broods
            asked = time.thread_time()
            kids = breed_many(broods, config.genome, config.ga, world=spec.world)  # as a run's chunk
            if any(group is None for group in kids):
                raise RuntimeError("a brood of the bench's run failed to breed")
            bred = time.thread_time()
            results = [
                ChildResult() if c is None else ChildResult(c, evaluate(c, spec, seed))
                for group, b in zip(kids, broods, strict=True)
                for c, seed in zip(group, b.plugin_seeds, strict=True)
            ]
            evaluated = time.thread_time()
            evolution.tell(results)
            told = time.thread_time()
            if g > 0:  # generation 0 (random creatures) is left out, as in the other figures
                spent["variation"] += bred - asked
                spent["bookkeeping"] += (asked - start) + (told - evaluated)
                children += sum(b.evaluations for b in broods)
        best = {name: min(best[name], seconds) for name, seconds in spent.items()}
    return {"children": children} | {
        f"{name}_ms_per_child": 1e3 * s / max(1, children) for name, s in best.items()
    }


def evolution_section(args: argparse.Namespace):
    """The ``evolution`` section of ``python -m evo bench``."""
    from evo.bench import Section

    population = int(getattr(args, "population", POPULATION))
    repeats = max(1, min(int(getattr(args, "repeats", REPEATS)), REPEATS))
    walkers_generations = int(getattr(args, "walkers_generations", WALKERS_GENERATIONS))
    config = bench_config(population=population)
    creatures = evaluated_creatures(config)
    ones, unbatched, twos = [], [], []
    share = 0.0
    with tempfile.TemporaryDirectory(prefix="evo-bench-run-") as tmp:
        for _ in range(repeats):
            share, timed = batched_share(lambda: timed_run(config, 1, Path(tmp) / "one"))
            ones.append(timed)
            unbatched.append(timed_run(config, 1, Path(tmp) / "plain", batch=False))
            twos.append(timed_run(config, 2, Path(tmp) / "two"))
    one, plain, two = best_rate(ones), best_rate(unbatched), best_rate(twos)
    bare = bare_kernel(config, creatures, repeats)
    masses = sum(c.n_masses for c in creatures) / max(1, len(creatures))
    links = sum(c.n_links for c in creatures) / max(1, len(creatures))
    ratio_kernel = one["per_s"] / bare["per_s"]
    ratio_workers = two["per_s"] / one["per_s"]
    ratio_cpu = one["per_cpu_s"] / bare["per_cpu_s"]
    lines = [
        f"population {population}, {config.evaluation.frames} frames, plugin distance; creatures evaluated:"
        f" {masses:.1f} masses, {links:.1f} links on average; generations 1-{config.run.generations - 1}"
        f" timed end to end (variation, evaluation, hall of fame, checkpoint), fastest of {repeats} per"
        f" generation; {os.cpu_count()} CPUs",
        f"bare kernel (simulate only, same creatures):  {bare['per_s']:8.1f} evaluations/s",
        f"evo run, 1 worker (in-process):               {one['per_s']:8.1f} evaluations/s"
        f"  = {ratio_kernel:.2f} x bare kernel (target >= 1.2); {share:.0%} of them batched",
        f"evo run, 1 worker, [pool] batch = false:      {plain['per_s']:8.1f} evaluations/s"
        f"  = {plain['per_s'] / bare['per_s']:.2f} x bare kernel",
        f"evo run, 2 workers (threads):                {two['per_s']:8.1f} evaluations/s"
        f"  = {ratio_workers:.2f} x 1 worker (target >= 1.85)",
        f"per CPU second of the run's own thread (a busy machine barely changes this): bare kernel"
        f" {bare['per_cpu_s']:.1f}, 1 worker {one['per_cpu_s']:.1f} = {ratio_cpu:.2f} x",
    ]
    data = {
        "population": population,
        "frames": config.evaluation.frames,
        "repeats": repeats,
        "mean_masses": masses,
        "mean_links": links,
        "bare_kernel_per_s": bare["per_s"],
        "one_worker_per_s": one["per_s"],
        "one_worker_unbatched_per_s": plain["per_s"],
        "batched_share": share,
        "two_workers_per_s": two["per_s"],
        "one_worker_vs_kernel": ratio_kernel,
        "two_vs_one_worker": ratio_workers,
        "one_worker_vs_kernel_cpu": ratio_cpu,
    }
    if walkers_generations > 0:
        walkers = walkers_rates(walkers_generations, max(1, min(repeats, 2)))
        data["walkers"] = walkers
        lines += [
            f"examples/walkers.toml, generations 1-{walkers_generations - 1}, writing its folder: bare scalar"
            f" kernel on the same {walkers['evaluations']} creatures {walkers['bare_kernel_per_s']:.1f}/s;"
            f" 1 worker {walkers['run_per_s']:.1f}/s = {walkers['run_vs_kernel']:.2f} x bare kernel (target"
            f" >= 1.5), {walkers['batched_share']:.0%} batched ({walkers['run_unbatched_per_s']:.1f}/s"
            f" without); 2 workers {walkers['two_workers_per_s']:.1f}/s ="
            f" {walkers['two_vs_one_worker']:.2f} x 1 worker (target >= 1.85)",
        ]
    ga_generations = int(getattr(args, "ga_generations", 40))
    if ga_generations > 1:
        costs = data["ga_costs"] = ga_costs(ga_generations, max(1, min(repeats, 2)))
        lines.append(
            f"examples/walkers.toml's GA alone, generations 1-{ga_generations - 1} ({costs['children']}"
            f" children): variation {costs['variation_ms_per_child']:.4f} ms per child, bookkeeping (ask and"
            f" tell) {costs['bookkeeping_ms_per_child']:.4f} ms per child, CPU (target: together <= 0.03)"
        )
    return Section("evolution: end-to-end evaluations per second", lines, {"evolution": data})


def _peak_rss_kib() -> int:
    """The peak resident memory of this process so far, KiB (Linux reports ``ru_maxrss`` in KiB)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def memory_probe(generations: int = 500, population: int = 20, frames: int = 200, workers: int = 1) -> list:
    """(generation, peak RSS KiB) every 25 generations of a long tiny run: flat when memory does not grow."""
    from evo.run.config import parse_config, resolve

    doc = {
        "run": {"name": "memory", "seed": 3, "generations": generations, "population": population},
        "evaluation": {"frames": frames, "plugin": "distance", "params": {"settle_frames": 0}},
    }
    config = resolve(parse_config(doc, source="<memory>"))
    samples: list[tuple[int, int]] = []

    class Sampler(GenerationClock):
        def on_generation_end(self, status: GenerationStatus) -> None:
            g = status.generation
            if g % 25 == 0 or g == generations - 1:
                samples.append((g, _peak_rss_kib()))

    with tempfile.TemporaryDirectory(prefix="evo-bench-memory-") as tmp:
        config = config.replace(pool={"workers": workers})
        prepared = prepare(config, out=Path(tmp) / "run", force=True)
        run_prepared(prepared, [FolderWriter(prepared), Sampler()])
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evo.bench.evolution", description=__doc__.split("\n")[0])
    parser.add_argument("--population", type=int, default=POPULATION)
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs per worker count (fastest kept)")
    parser.add_argument("--memory", action="store_true", help="RSS over a 500-generation tiny run instead")
    parser.add_argument("--generations", type=int, default=500, help="generations of the memory run")
    args = parser.parse_args(argv)
    if args.memory:
        for generation, kib in memory_probe(generations=args.generations):
            print(f"generation {generation:4d}: peak RSS {kib / 1024:7.1f} MiB")
        return 0
    section = evolution_section(args)
    section.show()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
