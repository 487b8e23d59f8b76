"""The ``refine`` section of ``python -m evo bench``: evaluations per second of :func:`evo.refine.refine`
end to end (CMA-ES, candidates in SIMD lanes, the plugin) against the bare scalar kernel (``simulate``
alone, no plugin) on the same body and candidates, and the share of candidates simulated in lanes."""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from evo.bench import Section
from evo.fitness.evaluate import recording
from evo.ga.settings import GenomeSection
from evo.io.models import load_model
from evo.refine import GENES, GeneSpace, refine
from evo.refine.search import LANES
from evo.run.rescore import scoring
from evo.sim import simulate
from evo.sim.simulate import Trajectory

__all__ = ["BODIES", "refine_section"]

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
BODIES = ("galloper.json", "walker.json", "inchworm.json")
BUDGET = 1601  # the start and 100 generations of 16
SEED = 20261126


def _case(name: str, budget: int, frames: int, repeats: int) -> dict[str, Any]:
    creature = load_model(GENOMES / name)
    spec, plugin_seed = scoring(creature, "distance", frames=frames)
    space = GeneSpace.of(creature, GENES, GenomeSection())
    rng = np.random.default_rng(SEED)
    candidates = [
        space.creature_at(space.start() + 0.1 * rng.standard_normal(space.dimension)) for _ in range(64)
    ]
    every, _ = recording(spec)

    rounds = max(1, (budget - 1) // len(candidates))  # as many simulations as refine makes

    def scalar() -> list[Trajectory]:
        return [simulate(c, spec.world, spec.frames, every) for _ in range(rounds) for c in candidates]

    def refined() -> Any:
        return refine(creature, fitness=spec, budget=budget, seed=SEED, plugin_seed=plugin_seed)

    refined_s, scalar_s, lanes, total = [], [], 0, 0
    for _ in range(max(1, repeats)):  # interleaved, so that a noisy spell falls on both alike
        before = dict(LANES)
        start = time.perf_counter()
        result = refined()
        refined_s.append((time.perf_counter() - start) / result.evaluations)
        lanes += LANES["batched"] - before["batched"]
        total += LANES["batched"] + LANES["single"] - before["batched"] - before["single"]
        start = time.perf_counter()
        scalar()
        scalar_s.append((time.perf_counter() - start) / (rounds * len(candidates)))
    row = {
        "creature": creature.name,
        "genes": space.dimension,
        "links": creature.n_links,
        "frames": spec.frames,
        "evaluations": result.evaluations,
        "gain": result.gain,
        "lanes_share": lanes / total,
        "refine_evaluations_per_s": 1.0 / min(refined_s),
        "scalar_evaluations_per_s": 1.0 / min(scalar_s),
        "refine_median_evaluations_per_s": 1.0 / statistics.median(refined_s),
        "scalar_median_evaluations_per_s": 1.0 / statistics.median(scalar_s),
    }
    row["ratio"] = row["refine_evaluations_per_s"] / row["scalar_evaluations_per_s"]
    return row


def refine_section(args: argparse.Namespace) -> Section:
    """Refine's evaluations per second against the scalar kernel's, and the share in lanes."""
    repeats = int(getattr(args, "repeats", 7))
    budget = int(getattr(args, "refine_budget", BUDGET))
    frames = int(getattr(args, "refine_frames", 3000))
    bodies = tuple(getattr(args, "refine_bodies", BODIES))
    _case(bodies[0], 33, 20, 1)  # JIT warm-up
    rows = [_case(name, budget, frames, repeats) for name in bodies]
    lines = [
        f"refine --plugin distance, {frames} frames, budget {budget}, all genes; best of {repeats} (median in"
        " brackets); scalar: simulate() alone of 64 candidates near the body, one by one, no plugin, as many"
        " times as refine evaluates, interleaved with it",
        f"{'creature':>10} {'genes':>5} {'links':>5} {'in lanes':>8} {'refine eval/s':>18}"
        f" {'scalar eval/s':>18} {'refine/scalar':>13} {'gain':>6}",
    ]
    for row in rows:
        lines.append(
            f"{row['creature']:>10} {row['genes']:>5} {row['links']:>5} {100 * row['lanes_share']:>7.1f}%"
            f" {row['refine_evaluations_per_s']:>8.0f} ({row['refine_median_evaluations_per_s']:>7.0f})"
            f" {row['scalar_evaluations_per_s']:>8.0f} ({row['scalar_median_evaluations_per_s']:>7.0f})"
            f" {row['ratio']:>12.2f}x {row['gain']:>5.2f}x"
        )
    data = {"refine": {"repeats": repeats, "budget": budget, "rows": rows}}
    return Section("refine: CMA-ES in SIMD lanes vs the scalar kernel, evaluations per second", lines, data)
