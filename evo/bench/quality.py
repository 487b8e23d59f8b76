"""Search quality: the GA against random search at equal evaluations, on examples/walkers.toml over seeds.

The ``quality`` section of ``python -m evo bench`` (not run by default: minutes) and
``python -m evo.bench.quality``. What it measures: docs/performance.md, "Search quality"."""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import numpy as np

__all__ = ["SEEDS", "ga_best", "quality_section", "random_search_best"]

SEEDS = (1, 2, 3, 4, 5)
GENERATIONS = 120  # the shipped example, whole


def ga_best(seed: int, generations: int, workers: int = 1) -> tuple[float, int]:
    """(best distance px, evaluations made) of examples/walkers.toml run in memory with ``seed``."""
    from evo.bench.evolution import walkers_config
    from evo.run.evolve import evolve

    config = walkers_config(generations).replace(run={"seed": seed}, pool={"workers": workers})
    result = evolve(config, progress=False)
    return float(np.max(result.history["distance_best"])), int(np.sum(result.history["evaluations"]))


def random_search_best(seed: int, evaluations: int, generations: int) -> float:
    """The best distance (px) among ``evaluations`` random creatures of the walkers' ``[genome]``, each
    evaluated as the GA evaluates a child (same spec; plugin seeds of "generation" 0 of ``seed``)."""
    from evo.bench.evolution import walkers_config
    from evo.fitness.evaluate import evaluate
    from evo.ga.creatures import random_creature
    from evo.ga.seeds import plugin_seeds

    config = walkers_config(generations).replace(run={"seed": seed})
    spec = config.evaluation_spec()
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5EA4C4]))
    seeds = plugin_seeds(seed, 0, evaluations).tolist()
    best = -np.inf
    for index in range(evaluations):
        outcome = evaluate(random_creature(rng, config.genome), spec, seeds[index])
        if not outcome.exploded:
            best = max(best, float(outcome.fitness[0]))
    return float(best)


def quality_section(args: argparse.Namespace):
    """The ``quality`` section: per seed, the GA's best distance and random search's at the same number
    of evaluations; their means, spread (sample standard deviation over seeds) and ratio."""
    from evo.bench import Section

    generations = int(getattr(args, "quality_generations", GENERATIONS))
    seeds = tuple(getattr(args, "quality_seeds", SEEDS))
    workers = int(getattr(args, "quality_workers", 1))
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        best, evaluations = ga_best(seed, generations, workers)
        rows.append({"seed": seed, "evaluations": evaluations, "ga_best": best,
                     "random_best": random_search_best(seed, evaluations, generations)})  # fmt: skip
    ga = [row["ga_best"] for row in rows]
    rand = [row["random_best"] for row in rows]
    spread = statistics.stdev(ga) if len(ga) > 1 else 0.0
    ratio = statistics.fmean(ga) / statistics.fmean(rand)
    lines = [f"examples/walkers.toml, {generations} generations, seeds {', '.join(map(str, seeds))}:"]
    lines += [
        f"  seed {row['seed']}: GA best {row['ga_best']:8.1f} px; random search, same"
        f" {row['evaluations']} evaluations, best {row['random_best']:8.1f} px"
        for row in rows
    ]
    lines.append(
        f"GA best distance {statistics.fmean(ga):.1f} px (spread between seeds {spread:.1f} px); random"
        f" search {statistics.fmean(rand):.1f} px; GA / random search {ratio:.2f} x (target >= 1.8)"
    )
    data = {"generations": generations, "rows": rows, "ga_mean": statistics.fmean(ga),
            "ga_spread": spread, "random_mean": statistics.fmean(rand), "ga_vs_random": ratio}  # fmt: skip
    return Section("quality: GA against random search at equal evaluations", lines, {"quality": data})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evo.bench.quality", description=__doc__.split("\n")[0])
    parser.add_argument("--quality-generations", type=int, default=GENERATIONS)
    parser.add_argument("--quality-seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--quality-workers", type=int, default=1, help="workers of the GA runs")
    section = quality_section(parser.parse_args(argv))
    section.show()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
