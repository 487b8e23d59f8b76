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
from evo.run.rescore import scoring
from evo.sim import simulate
from evo.sim.simulate import Trajectory

__all__ = ["BODIES", "refine_section"]

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
BODIES = ("galloper.json", "walker.json", "inchworm.json")
BUDGET = 1601  # the start and 100 generations of 16
SEED = 20261126


WIDE = 32  # the wider population the section also times (4 lanes' worth)


def _timed(run: Any) -> tuple[Any, float, float]:
    """(run()'s value, wall-clock s, this process's CPU s)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = run()
    return value, time.perf_counter() - wall, time.process_time() - cpu


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

    def refined(population: int | None = None) -> Any:
        return refine(
            creature, fitness=spec, budget=budget, seed=SEED, plugin_seed=plugin_seed, population=population
        )

    times: dict[str, list[float]] = {key: [] for key in ("refine", "scalar", "wide", "refine_cpu")}
    times.update(scalar_cpu=[], wide_cpu=[])
    lanes, total = 0, 0
    for _ in range(max(1, repeats)):  # interleaved, so that a noisy spell falls on all alike
        result, wall, cpu = _timed(refined)
        times["refine"].append(wall / result.evaluations)
        times["refine_cpu"].append(cpu / result.evaluations)
        lanes += sum(progress.batched for progress in result.history)  # what each callback is told
        total += result.evaluations - 1  # the candidates (the start is simulated alone)
        _, wall, cpu = _timed(scalar)
        times["scalar"].append(wall / (rounds * len(candidates)))
        times["scalar_cpu"].append(cpu / (rounds * len(candidates)))
        if budget >= 1 + WIDE:  # at least one generation of WIDE
            wide, wall, cpu = _timed(lambda: refined(WIDE))
            times["wide"].append(wall / wide.evaluations)
            times["wide_cpu"].append(cpu / wide.evaluations)
    row = {
        "creature": creature.name,
        "genes": space.dimension,
        "links": creature.n_links,
        "frames": spec.frames,
        "evaluations": result.evaluations,
        "gain": result.gain,
        "lanes_share": lanes / total,
        "refine_evaluations_per_s": 1.0 / min(times["refine"]),
        "scalar_evaluations_per_s": 1.0 / min(times["scalar"]),
        "refine_median_evaluations_per_s": 1.0 / statistics.median(times["refine"]),
        "scalar_median_evaluations_per_s": 1.0 / statistics.median(times["scalar"]),
        "refine_cpu_evaluations_per_s": 1.0 / min(times["refine_cpu"]),
        "scalar_cpu_evaluations_per_s": 1.0 / min(times["scalar_cpu"]),
    }
    row["ratio"] = row["refine_evaluations_per_s"] / row["scalar_evaluations_per_s"]
    row["cpu_ratio"] = row["refine_cpu_evaluations_per_s"] / row["scalar_cpu_evaluations_per_s"]
    if times["wide"]:
        row["wide_ratio"] = min(times["scalar"]) / min(times["wide"])
        row["wide_cpu_ratio"] = min(times["scalar_cpu"]) / min(times["wide_cpu"])
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
        " times as refine evaluates, interleaved with it. wall: elapsed seconds; cpu: this process's CPU"
        f" seconds (steadier on a busy machine); λ={WIDE}: refine with population={WIDE}, wall and cpu",
        f"{'creature':>10} {'genes':>5} {'links':>5} {'in lanes':>8} {'refine eval/s':>18}"
        f" {'scalar eval/s':>18} {'refine/scalar':>13} {'cpu':>6} {f'λ={WIDE}':>6} {'cpu':>6} {'gain':>6}",
    ]
    for row in rows:
        wide = (
            f"{row['wide_ratio']:>5.2f}x {row['wide_cpu_ratio']:>5.2f}x"
            if "wide_ratio" in row
            else f"{'-':>6} {'-':>6}"
        )
        lines.append(
            f"{row['creature']:>10} {row['genes']:>5} {row['links']:>5} {100 * row['lanes_share']:>7.1f}%"
            f" {row['refine_evaluations_per_s']:>8.0f} ({row['refine_median_evaluations_per_s']:>7.0f})"
            f" {row['scalar_evaluations_per_s']:>8.0f} ({row['scalar_median_evaluations_per_s']:>7.0f})"
            f" {row['ratio']:>12.2f}x {row['cpu_ratio']:>5.2f}x {wide} {row['gain']:>5.2f}x"
        )
    data = {"refine": {"repeats": repeats, "budget": budget, "rows": rows}}
    return Section("refine: CMA-ES in SIMD lanes vs the scalar kernel, evaluations per second", lines, data)
