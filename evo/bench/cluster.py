"""The ``dask`` section of ``python -m evo bench``: evo's local dask cluster of 2 workers against the fork
pool. Both run the evolution section's config into a temporary run folder, interleaved, fastest repeat per
generation kept; generation 0 (the start of the pool) is timed apart. See docs/performance.md and
docs/cluster.md."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from evo.bench.evolution import FRAMES, POPULATION, REPEATS, GenerationClock, bench_config, best_rate
from evo.run.evolve import run_prepared
from evo.run.folder.writer import FolderWriter, prepare

__all__ = ["dask_section", "timed_generations"]

WORKERS = 2
GENERATIONS = 8  # generation 0 plus seven timed ones: dask's overhead is a few ms a chunk, so more samples


def timed_generations(config, folder: Path) -> tuple[float, list[tuple[int, float, float]]]:
    """Run ``config`` into ``folder``: (seconds from the run's start to the end of generation 0, and
    (evaluations, wall seconds, CPU seconds of the run's thread) of each later generation, as
    :func:`~evo.bench.evolution.best_rate` takes them)."""
    clock = GenerationClock()
    prepared = prepare(config, out=folder, force=True)
    run_prepared(prepared, [FolderWriter(prepared), clock])
    ends, cpu = clock.ends, clock.cpu
    later = [(clock.evaluations[g], ends[g] - ends[g - 1], cpu[g] - cpu[g - 1]) for g in range(1, len(ends))]
    return ends[0] - clock.start, later


class _StartupCosts(logging.Handler):
    """Picks up what a dask backend reports once its cluster is ready (``dask_startup``: seconds)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: list[dict[str, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        startup = getattr(record, "dask_startup", None)
        if startup is not None:
            self.seen.append(dict(startup))


def dask_section(args: argparse.Namespace):
    """The ``dask`` section of ``python -m evo bench``."""
    from evo.bench import Section

    title = "dask: a local cluster of 2 workers against the fork pool of 2"
    if importlib.util.find_spec("distributed") is None:
        return Section(title, ["skipped: dask is not installed (pip install 'evo[dask]')"], {})
    population = int(getattr(args, "population", POPULATION))
    frames = int(getattr(args, "frames", None) or FRAMES)
    repeats = max(1, min(int(getattr(args, "repeats", REPEATS)), REPEATS))
    generations = int(getattr(args, "generations", None) or GENERATIONS)
    config = bench_config(population, frames, generations).replace(pool={"workers": WORKERS})
    on_dask = config.replace(pool={"backend": "dask"})
    firsts: dict[str, list[float]] = {"fork": [], "dask": []}
    runs: dict[str, list[Any]] = {"fork": [], "dask": []}
    costs = _StartupCosts()
    logger = logging.getLogger("evo.run.backends")
    level = logger.level
    logger.addHandler(costs)
    logger.setLevel(logging.INFO)
    from evo.run.backends.dask_pool import started_first

    try:  # the cluster started before generation 0, so that generations 1-7 are all the cluster's
        with tempfile.TemporaryDirectory(prefix="evo-bench-dask-") as tmp, started_first():
            for _ in range(repeats):
                for name, cfg in (("fork", config), ("dask", on_dask)):
                    first, later = timed_generations(cfg, Path(tmp) / name)
                    firsts[name].append(first)
                    runs[name].append(later)
    finally:
        logger.removeHandler(costs)
        logger.setLevel(level)
    startup = {key: min(seen[key] for seen in costs.seen) for key in ("cluster", "setup")}
    fork, dask = best_rate(runs["fork"]), best_rate(runs["dask"])
    ratio = dask["per_s"] / fork["per_s"]
    first_fork, first_dask = min(firsts["fork"]), min(firsts["dask"])
    lines = [
        f"population {population}, {config.evaluation.frames} frames, the evolution section's creatures;"
        f" generations 1-{config.run.generations - 1} timed end to end, fastest of {repeats} per generation;"
        f" {os.cpu_count()} CPUs",
        f"fork pool, 2 workers:           {fork['per_s']:8.1f} evaluations/s",
        f"dask local cluster, 2 workers: {dask['per_s']:8.1f} evaluations/s"
        f"  = {ratio:.2f} x fork (target >= 0.9)",
        f"generation 0 from the run's start (pool start included): fork {first_fork:.2f} s, dask"
        f" {first_dask:.2f} s; dask alone: cluster start {startup['cluster']:.2f} s, plugin and kernel on"
        f" every worker {startup['setup']:.2f} s (numba's on-disk cache warm)",
    ]
    data = {
        "dask": {
            "population": population,
            "repeats": repeats,
            "generations": generations,
            "fork_two_workers_per_s": fork["per_s"],
            "dask_two_workers_per_s": dask["per_s"],
            "dask_vs_fork": ratio,
            "first_generation_fork_s": first_fork,
            "first_generation_dask_s": first_dask,
            "cluster_start_s": startup["cluster"],
            "worker_setup_s": startup["setup"],
        }
    }
    return Section(title, lines, data)
