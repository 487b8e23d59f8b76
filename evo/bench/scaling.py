"""``python -m evo bench --scaling``: throughput against creature size, population and workers, where a
generation's time goes, and the per-core limit the kernels are measured against.

Sizes 5 to 1000 masses (scalar and batched), populations, 1 and 2 workers, one sqrt + one divide per
link-step as the limit, examples/walkers.toml split by subtraction. Method, figures: docs/performance.md."""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from evo.bench import Section

__all__ = ["SIZES", "limit_probe", "population_rows", "profile_walkers", "scaling_section", "size_rows"]

SIZES = ((5, 9), (20, 60), (60, 200), (200, 600), (1000, 3000))  # (masses, links): about three per mass
LANES = 64  # mutants per size
WORK = 64 * 60 * 3000  # spring-updates per timed call: frames = WORK / (lanes x links), within FRAME_RANGE
FRAME_RANGE = (100, 3000)
EVALUATION_FRAMES = 3000  # an "evaluation" in the rates below
POPULATIONS = (50, 100, 200, 400)
LIMIT_LINKS = 1024  # array length of the limit probe (its arrays stay in L1/L2)
LIMIT_STEPS = 20000


@numba.njit(cache=True, error_model="numpy")  # as the kernels: no zero-division branch to block SIMD
def _sqrt_divide(dx: np.ndarray, dy: np.ndarray, rest: np.ndarray, acc: np.ndarray, steps: int) -> None:
    for _ in range(steps):
        for i in range(dx.size):
            acc[i] += rest[i] / np.sqrt(dx[i] * dx[i] + dy[i] * dy[i])


@numba.njit(cache=True, error_model="numpy")
def _sqrt_divide_scattered(
    dx: np.ndarray, dy: np.ndarray, rest: np.ndarray, acc: np.ndarray, ends: np.ndarray, steps: int
) -> None:
    for _ in range(steps):
        for i in range(dx.size):
            acc[ends[i]] += rest[i] / np.sqrt(dx[i] * dx[i] + dy[i] * dy[i])


def limit_probe(
    links: int = LIMIT_LINKS, steps: int = LIMIT_STEPS, repeats: int = 3, scattered: bool = False
) -> float:
    """Link-steps/s of a loop doing one sqrt and one divide per link and step, nothing else (best of
    ``repeats``); ``scattered``: each result added onto an element chosen by index, as a per-creature
    kernel adds a link's force onto its masses (which keeps the loop from running in SIMD lanes)."""
    rng = np.random.default_rng(0)
    dx, dy = rng.uniform(1.0, 50.0, links), rng.uniform(1.0, 50.0, links)
    rest, acc = rng.uniform(10.0, 60.0, links), np.zeros(links)
    ends = rng.integers(0, links // 3, links)

    def run(n: int) -> None:
        if scattered:
            _sqrt_divide_scattered(dx, dy, rest, acc, ends, n)
        else:
            _sqrt_divide(dx, dy, rest, acc, n)

    run(1)  # compile or load from the cache
    best = math.inf
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        run(steps)
        best = min(best, time.perf_counter() - start)
    return links * steps / best


def size_rows(repeats: int, sizes=SIZES, lanes: int = LANES, work: int = WORK) -> list[dict[str, Any]]:
    """Scalar and batched rates of ``lanes`` mutants of each standard creature size."""
    from evo.bench.batch import _case, mutants
    from evo.bench.simulator import bench_world, standard_creature

    world = bench_world()
    rows = []
    for masses, links in sizes:
        base = standard_creature(masses, links)
        creatures = [base, *mutants(base, lanes - 1, np.random.default_rng([masses, links]))]
        frames = int(np.clip(work // (lanes * links), *FRAME_RANGE))
        row = _case(f"standard {masses}x{links}", creatures, world, frames, repeats)
        per_evaluation = links * EVALUATION_FRAMES
        row["scalar_evaluations_per_s"] = row["scalar_spring_updates_per_s"] / per_evaluation
        row["batch_evaluations_per_s"] = row["batch_spring_updates_per_s"] / per_evaluation
        rows.append(row)
    return rows


def population_rows(populations=POPULATIONS, generations: int = 3, repeats: int = 2) -> list[dict[str, Any]]:
    """In-process evaluations/s of the bench config at each population (generations after the first),
    and for the default population with 2 workers."""
    from evo.bench.evolution import POPULATION, bench_config, best_rate, timed_run

    rows = []
    with tempfile.TemporaryDirectory(prefix="evo-bench-scaling-") as tmp:
        cases = [(p, 1) for p in populations] + [(POPULATION, 2)]
        for population, workers in cases:
            config = bench_config(population=population, generations=generations)
            runs = [timed_run(config, workers, Path(tmp) / "run") for _ in range(max(1, repeats))]
            rate = best_rate(runs)
            rows.append({"population": population, "workers": workers, "per_s": rate["per_s"]})
    return rows


def profile_walkers(generations: int = 120, repeats: int = 2) -> dict[str, Any]:
    """Seconds per generation of examples/walkers.toml (in-process, generations after the first), split by
    subtracting runs that leave one part out: with and without the run folder, with and without batching,
    the plugin's ``evaluate`` alone and the bare kernel alone on the same creatures."""
    from evo.bench.evolution import bare_kernel, evaluated_creatures, walkers_config
    from evo.fitness.evaluate import evaluate
    from evo.run.evolve import evolve

    config = walkers_config(generations)
    creatures = evaluated_creatures(config)
    spec = config.evaluation_spec()

    def best(run) -> float:
        times = []
        for _ in range(max(1, repeats)):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    def gen0() -> None:  # generation 0 alone: subtracted from whole runs
        evolve(config.replace(run={"generations": 1}, pool={"batch": False}), progress=False)

    with tempfile.TemporaryDirectory(prefix="evo-bench-profile-") as tmp:
        folder = Path(tmp) / "run"
        first = best(gen0)
        written = best(lambda: evolve(config, out=folder, progress=False, force=True)) - first
    batched = best(lambda: evolve(config, progress=False)) - first
    unbatched = best(lambda: evolve(config.replace(pool={"batch": False}), progress=False)) - first
    plugins = best(lambda: [evaluate(c, spec, i) for i, c in enumerate(creatures)])
    kernel = len(creatures) / bare_kernel(config, creatures, repeats)["per_s"]
    timed = generations - 1
    parts = {
        "kernel": kernel,
        "plugin_and_wrapper": plugins - kernel,
        "ga": unbatched - plugins,
        "batching_saves": unbatched - batched,
        "writer": written - batched,
        "total": written,
    }
    return {
        "generations": timed,
        "evaluations_per_generation": len(creatures) / timed,
        "ms_per_generation": {name: 1000.0 * seconds / timed for name, seconds in parts.items()},
    }


def scaling_section(args: argparse.Namespace) -> Section:
    """The ``scaling`` section (run by ``evo bench --scaling``)."""
    repeats = max(1, min(int(getattr(args, "repeats", 3)), 3))
    sizes = getattr(args, "sizes", SIZES)
    rows = size_rows(repeats, sizes=sizes, lanes=int(getattr(args, "lanes", LANES)))
    steps = int(getattr(args, "limit_steps", LIMIT_STEPS))
    limit = limit_probe(steps=steps, repeats=repeats)
    scattered = limit_probe(steps=steps, repeats=repeats, scattered=True)
    lines = [
        f"one core; standard creatures, {rows[0]['creatures']} same-topology mutants each, semi-implicit"
        f" Euler in the bench world; an evaluation = {EVALUATION_FRAMES} frames; best of {repeats};"
        f" {os.cpu_count()} CPUs",
        "masses links  frames  scalar M upd/s  batch M upd/s  batch/scalar  scalar evals/s  batch evals/s",
    ]
    for row in rows:
        lines.append(
            f"{row['masses']:6d} {row['links']:5d} {row['frames']:7d}"
            f" {row['scalar_spring_updates_per_s'] / 1e6:15.1f}"
            f" {row['batch_spring_updates_per_s'] / 1e6:14.1f} {row['ratio']:13.2f}"
            f" {row['scalar_evaluations_per_s']:15.1f} {row['batch_evaluations_per_s']:14.1f}"
        )
    lines.append(
        f"limit: one sqrt + one divide per link-step, nothing else: {limit / 1e6:.0f} M link-steps/s in SIMD"
        f" lanes (best batched row: {max(r['batch_spring_updates_per_s'] for r in rows) / limit:.0%} of it);"
        f" scattered by index as one creature's links are: {scattered / 1e6:.0f} M/s (best scalar row:"
        f" {max(r['scalar_spring_updates_per_s'] for r in rows) / scattered:.0%} of it)"
    )
    data: dict[str, Any] = {
        "sizes": rows,
        "limit_link_steps_per_s": limit,
        "limit_scattered_link_steps_per_s": scattered,
    }
    populations = getattr(args, "populations", POPULATIONS)
    if populations:
        generations = int(getattr(args, "generations", 3))
        pop = population_rows(populations, generations=generations, repeats=min(repeats, 2))
        data["population"] = pop
        lines.append("population workers  evaluations/s  (bench config: ~20 masses / 59 links, 3000 frames)")
        lines += [f"{r['population']:10d} {r['workers']:7d} {r['per_s']:14.1f}" for r in pop]
    profile_generations = int(getattr(args, "profile_generations", 120))
    if profile_generations > 1:
        profile = profile_walkers(profile_generations, repeats=min(repeats, 2))
        data["profile"] = profile
        ms = profile["ms_per_generation"]
        lines.append(
            f"examples/walkers.toml, 1 worker, ms per generation ({profile['evaluations_per_generation']:.0f}"
            f" evaluations, generations 1-{profile['generations']}):"
        )
        lines += [f"  {name:20s} {value:8.1f}" for name, value in ms.items()]
    return Section("scaling: size, population, workers, limit, profile", lines, {"scaling": data})
