"""End-to-end evolution benchmark: evaluations per second of whole generations, against the bare kernel.

A section for ``python -m evo bench`` (``evolution_section(args) -> Section``, see :mod:`evo.bench`), and
a memory probe (:func:`memory_probe`, ``python -m evo.bench.evolution --memory``).

What is timed: real runs of :func:`evo.run.evolve.run_prepared` into a temporary run folder -- selection,
variation, copying, the plugin, IPC, the hall of fame, statistics and the checkpoint, history and elite
files of every generation -- with 1 worker (in-process) and with 2 workers. Creatures have ~20 masses
and ~60 links (``[genome]`` masses 18..22, up to 64 links, degree <= 7), population 200, 3000 frames,
plugin ``distance``, in :func:`evo.bench.simulator.bench_world` (stiffness 0.25 /frame^2, which keeps degree-7
creatures stable under semi-implicit Euler). Generation 0 (random creatures) is left out: the rate is
that of the following generations, from the end of one generation to the end of the next.

The reference is the bare kernel: ``simulate(creature, world, frames, record_every)`` called in a loop,
in-process, on exactly the creatures the 1-worker run evaluated.

Runs are deterministic, so each one is repeated (``REPEATS``) and, per generation, the fastest repeat is
kept: on a busy machine other processes can only slow a repeat down.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from evo.run.callbacks import Callback, GenerationStatus
from evo.run.evolve import run_prepared
from evo.run.folder import FolderWriter, prepare

POPULATION = 200
FRAMES = 3000
GENERATIONS = 4  # generation 0 plus three timed ones
SEED = 11
REPEATS = 3  # each repeat is two short runs; the fastest per generation is kept


def bench_config(population: int = POPULATION, frames: int = FRAMES, generations: int = GENERATIONS):
    """The benchmark's config (a :class:`evo.run.config.Config`)."""
    from evo.bench.simulator import bench_world
    from evo.run.config import parse_config

    world = bench_world()
    doc = {
        "run": {"name": "bench", "seed": SEED, "generations": generations, "population": population},
        "evaluation": {"frames": frames, "plugin": "distance"},
        "world": {"stiffness": world.stiffness, "max_speed": world.max_speed},
        "genome": {"masses": [18, 22], "max_links": 64, "max_degree": 7, "link_density": 1.0},
    }
    return parse_config(doc, source="<bench>")


class _Clock(Callback):
    """Notes when each generation ends and how many evaluations it made."""

    def __init__(self) -> None:
        self.ends: list[float] = []
        self.cpu: list[float] = []  # CPU time of the run's own thread (not the background writer)
        self.evaluations: list[int] = []

    def on_generation_end(self, status: GenerationStatus) -> None:
        self.ends.append(time.perf_counter())
        self.cpu.append(time.thread_time())
        self.evaluations.append(status.evaluations)


def timed_run(config, workers: int, folder: Path, keep: list | None = None) -> list[tuple[int, float, float]]:
    """Run ``config`` into ``folder`` with ``workers``: (evaluations, wall seconds, CPU seconds of the
    run's thread) of each generation after the first, from the end of the one before to its own end.

    ``keep``: a list that receives, per generation after the first, the creatures evaluated (1 worker).
    """
    from evo.fitness.evaluate import evaluate

    evaluate_fn = evaluate
    if keep is not None:
        if workers != 1:
            raise ValueError("creatures can only be kept from an in-process run")
        seen = [0]

        def evaluate_fn(creature, spec, seed):  # noqa: F811 - records what the run evaluates
            seen[0] += 1
            if seen[0] > config.run.population:  # generation 0 is the whole population
                keep.append(creature)
            return evaluate(creature, spec, seed)

    clock = _Clock()
    config = config.replace(pool={"workers": workers})
    prepared = prepare(config, out=folder, force=True)
    run_prepared(prepared, [FolderWriter(prepared), clock], evaluate=evaluate_fn)
    ends, cpu = clock.ends, clock.cpu
    return [(clock.evaluations[g], ends[g] - ends[g - 1], cpu[g] - cpu[g - 1]) for g in range(1, len(ends))]


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


def evolution_section(args: argparse.Namespace):
    """The ``evolution`` section of ``python -m evo bench``."""
    from evo.bench import Section

    population = int(getattr(args, "population", POPULATION))
    repeats = max(1, min(int(getattr(args, "repeats", REPEATS)), REPEATS))
    config = bench_config(population=population)
    creatures: list = []
    ones, twos = [], []
    with tempfile.TemporaryDirectory(prefix="evo-bench-run-") as tmp:
        for k in range(repeats):
            ones.append(timed_run(config, 1, Path(tmp) / "one", keep=creatures if k == 0 else None))
            twos.append(timed_run(config, 2, Path(tmp) / "two"))
    one, two = best_rate(ones), best_rate(twos)
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
        f"  = {ratio_kernel:.2f} x bare kernel (target >= 0.8)",
        f"evo run, 2 workers (fork pool):               {two['per_s']:8.1f} evaluations/s"
        f"  = {ratio_workers:.2f} x 1 worker (target >= 1.8)",
        f"per CPU second of the run's own thread (a busy machine barely changes this): bare kernel"
        f" {bare['per_cpu_s']:.1f}, 1 worker {one['per_cpu_s']:.1f} = {ratio_cpu:.2f} x",
    ]
    data = {
        "evolution": {
            "population": population,
            "frames": config.evaluation.frames,
            "repeats": repeats,
            "mean_masses": masses,
            "mean_links": links,
            "bare_kernel_per_s": bare["per_s"],
            "one_worker_per_s": one["per_s"],
            "two_workers_per_s": two["per_s"],
            "one_worker_vs_kernel": ratio_kernel,
            "two_vs_one_worker": ratio_workers,
            "one_worker_vs_kernel_cpu": ratio_cpu,
        }
    }
    return Section("evolution: end-to-end evaluations per second", lines, data)


def _peak_rss_kib() -> int:
    """The peak resident memory of this process so far, KiB (Linux reports ``ru_maxrss`` in KiB)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def memory_probe(generations: int = 500, population: int = 20, frames: int = 200, workers: int = 1) -> list:
    """(generation, peak RSS KiB) every 25 generations of a long tiny run: flat when memory does not grow."""
    from evo.run.config import parse_config

    doc = {
        "run": {"name": "memory", "seed": 3, "generations": generations, "population": population},
        "evaluation": {"frames": frames, "plugin": "distance", "params": {"settle_frames": 0}},
    }
    config = parse_config(doc, source="<memory>")
    samples: list[tuple[int, int]] = []

    class Sampler(_Clock):
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
    print(f"== {section.title}")
    for line in section.lines:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
