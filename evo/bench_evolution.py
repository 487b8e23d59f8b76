"""End-to-end evolution benchmark: evaluations per second of whole generations, against the bare kernel.

A section for ``python -m evo bench`` (``evolution_section(args) -> Section``, see :mod:`evo.bench`), and
a memory probe (:func:`memory_probe`, ``python -m evo.bench_evolution --memory``).

What is timed: real runs of :func:`evo.runner.execute` into a temporary run folder -- selection,
variation, copying, the plugin, IPC, the hall of fame, statistics and the checkpoint, history and elite
files of every generation -- with 1 worker (in-process) and with 2 workers. Creatures have ~20 masses
and ~60 links (``[genome]`` masses 18..22, up to 64 links, degree <= 7), population 200, 3000 frames,
plugin ``distance``, in :func:`evo.bench.bench_world` (stiffness 0.25 /frame^2, which keeps degree-7
creatures stable under semi-implicit Euler). Generation 0 (random creatures) is left out: the rate is
that of the following generations, from the end of one generation to the end of the next.

The reference is the bare kernel: ``simulate(creature, world, frames, record_every)`` called in a loop,
in-process, on exactly the creatures the 1-worker run evaluated.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

POPULATION = 200
FRAMES = 3000
GENERATIONS = 4  # generation 0 plus three timed ones
SEED = 11


def bench_config(population: int = POPULATION, frames: int = FRAMES, generations: int = GENERATIONS):
    """The benchmark's config (a :class:`evo.config.Config`)."""
    from evo.bench import bench_world
    from evo.config import parse_config

    world = bench_world()
    doc = {
        "run": {"name": "bench", "seed": SEED, "generations": generations, "population": population},
        "evaluation": {"frames": frames, "plugin": "distance"},
        "world": {"stiffness": world.stiffness, "max_speed": world.max_speed},
        "genome": {"masses": [18, 22], "max_links": 64, "max_degree": 7, "link_density": 1.0},
    }
    return parse_config(doc, source="<bench>")


class _Clock:
    """Progress that notes when each generation ends and how many evaluations it made."""

    def __init__(self) -> None:
        self.ends: list[float] = []
        self.evaluations: list[int] = []

    def generation_started(self, generation: int, evaluations: int) -> None:
        pass

    def evaluated(self, count: int) -> None:
        pass

    def generation_finished(self, record: dict[str, Any]) -> None:
        self.ends.append(time.perf_counter())
        self.evaluations.append(int(record["evaluations"]))


def timed_run(config, workers: int, folder: Path, keep: list | None = None) -> dict[str, Any]:
    """Run ``config`` into ``folder`` with ``workers``; evaluations/s of generations 1.. (wall clock).

    ``keep``: a list that receives every creature evaluated after generation 0 (1 worker only).
    """
    from evo.evaluation import evaluate
    from evo.runner import execute, prepare

    evaluate_fn = evaluate
    if keep is not None:
        if workers != 1:
            raise ValueError("creatures can only be kept from an in-process run")
        first: list[bool] = []

        def evaluate_fn(creature, spec, seed):  # noqa: F811 - records what the run evaluates
            first.append(True)
            if len(first) > config.run.population:
                keep.append(creature)
            return evaluate(creature, spec, seed)

    clock = _Clock()
    prepared = prepare(config, out=str(folder), force=True)
    execute(prepared, workers=workers, progress=clock, evaluate=evaluate_fn)
    seconds = clock.ends[-1] - clock.ends[0]
    evaluations = sum(clock.evaluations[1:])
    return {
        "workers": workers,
        "evaluations": evaluations,
        "seconds": seconds,
        "per_s": evaluations / seconds,
    }


def bare_kernel(config, creatures: list) -> dict[str, Any]:
    """Evaluations/s of ``simulate`` alone on ``creatures`` (after a warm-up)."""
    from evo.plugins import load_ref
    from evo.pool import warm_up
    from evo.sim import simulate

    record_every = load_ref(config.plugin).record_every
    warm_up(config.world)
    start = time.perf_counter()
    for creature in creatures:
        simulate(creature, config.world, config.evaluation.frames, record_every=record_every)
    seconds = time.perf_counter() - start
    return {"evaluations": len(creatures), "seconds": seconds, "per_s": len(creatures) / seconds}


def evolution_section(args: argparse.Namespace):
    """The ``evolution`` section of ``python -m evo bench``."""
    from evo.bench import Section

    population = int(getattr(args, "population", POPULATION))
    config = bench_config(population=population)
    creatures: list = []
    with tempfile.TemporaryDirectory(prefix="evo-bench-run-") as tmp:
        one = timed_run(config, 1, Path(tmp) / "one", keep=creatures)
        two = timed_run(config, 2, Path(tmp) / "two")
    bare = bare_kernel(config, creatures)
    masses = sum(c.n_masses for c in creatures) / max(1, len(creatures))
    links = sum(c.n_links for c in creatures) / max(1, len(creatures))
    ratio_kernel = one["per_s"] / bare["per_s"]
    ratio_workers = two["per_s"] / one["per_s"]
    lines = [
        f"population {population}, {config.evaluation.frames} frames, plugin distance; creatures evaluated:"
        f" {masses:.1f} masses, {links:.1f} links on average; generations 1-{config.run.generations - 1}"
        f" timed end to end (variation, evaluation, hall of fame, checkpoint); {os.cpu_count()} CPUs",
        f"bare kernel (simulate only, same creatures): {bare['per_s']:8.1f} evaluations/s",
        f"evo run, 1 worker (in-process):              {one['per_s']:8.1f} evaluations/s"
        f"  = {ratio_kernel:.2f} x bare kernel (target >= 0.8)",
        f"evo run, 2 workers (fork pool):              {two['per_s']:8.1f} evaluations/s"
        f"  = {ratio_workers:.2f} x 1 worker (target >= 1.8)",
    ]
    data = {
        "evolution": {
            "population": population,
            "frames": config.evaluation.frames,
            "mean_masses": masses,
            "mean_links": links,
            "bare_kernel_per_s": bare["per_s"],
            "one_worker_per_s": one["per_s"],
            "two_workers_per_s": two["per_s"],
            "one_worker_vs_kernel": ratio_kernel,
            "two_vs_one_worker": ratio_workers,
        }
    }
    return Section("evolution: end-to-end evaluations per second", lines, data)


def _rss_kib(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def memory_probe(generations: int = 500, population: int = 20, frames: int = 200, workers: int = 1) -> list:
    """(generation, RSS KiB) every 25 generations of a long tiny run (Linux /proc)."""
    from evo.config import parse_config
    from evo.runner import execute, prepare

    doc = {
        "run": {"name": "memory", "seed": 3, "generations": generations, "population": population},
        "evaluation": {"frames": frames, "plugin": "distance", "params": {"settle_frames": 0}},
    }
    config = parse_config(doc, source="<memory>")
    samples: list[tuple[int, int]] = []

    class Sampler(_Clock):
        def generation_finished(self, record: dict[str, Any]) -> None:
            g = int(record["generation"])
            if g % 25 == 0 or g == generations - 1:
                samples.append((g, _rss_kib()))

    with tempfile.TemporaryDirectory(prefix="evo-bench-memory-") as tmp:
        prepared = prepare(config, out=str(Path(tmp) / "run"), force=True)
        execute(prepared, workers=workers, progress=Sampler())
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evo.bench_evolution", description=__doc__.split("\n")[0])
    parser.add_argument("--population", type=int, default=POPULATION)
    parser.add_argument("--memory", action="store_true", help="RSS over a 500-generation tiny run instead")
    parser.add_argument("--generations", type=int, default=500, help="generations of the memory run")
    args = parser.parse_args(argv)
    if args.memory:
        for generation, kib in memory_probe(generations=args.generations):
            print(f"generation {generation:4d}: RSS {kib / 1024:7.1f} MiB")
        return 0
    section = evolution_section(args)
    print(f"== {section.title}")
    for line in section.lines:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
