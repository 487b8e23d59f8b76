"""The ``batch`` section of ``python -m evo bench``: :func:`evo.sim.batch.simulate_batch` against
``simulate`` creature by creature, in spring-updates per second (links x frames x creatures / CPU s), for
euler and rk4 on 64 same-topology mutants (genomes/walker.json, the 60x200 standard creature) and on 64
and 200 (a generation) random creatures of mixed topologies (walkers' and the bench config's genomes),
timed end to end and interleaved (best and median); and the batched kernels' cold and cached compile time."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from evo.bench import Section, probe_in_fresh_interpreter, simulator
from evo.io.models import load_model
from evo.model import Creature
from evo.sim import World, simulate
from evo.sim.batch import simulate_batch

__all__ = ["BATCH", "BENCH_GENOME", "GENERATION", "INTEGRATORS", "batch_section", "mixed", "mutants"]

BATCH = 64  # creatures per batch
GENERATION = 200  # creatures of a generation (examples/walkers.toml's population): lanes as a run cuts them
INTEGRATORS = ("euler", "rk4")
RK4_FRAMES_DIVISOR = 4  # rk4 takes four force evaluations a step: a quarter of the frames keeps it short
SEED = 20240602
WALKER = Path(__file__).resolve().parents[2] / "genomes" / "walker.json"
# the evolution section's genome (evo.bench.evolution.bench_config)
BENCH_GENOME = {"masses": [18, 22], "max_links": 64, "max_degree": 7, "link_density": 1.0}


def mixed(genome: dict, count: int, rng: np.random.Generator) -> list[Creature]:
    """``count`` random creatures of the ``[genome]`` table ``genome`` (as generation 0 of a run draws
    them): of many sizes and topologies."""
    from evo.ga.creatures import random_creature
    from evo.run.config import parse_config

    section = parse_config({"run": {"name": "bench"}, "genome": genome}, source="<bench>").genome
    return [random_creature(rng, section) for _ in range(count)]


def mutants(base: Creature, count: int, rng: np.random.Generator) -> list[Creature]:
    """``count`` children of ``base`` with its topology: rest lengths within ±5 %, phases ±0.2 rad,
    alpha +0..0.05, omega and beta within ±10 % (beta at most 1), positions ±0.5 px."""
    out = []
    for _ in range(count):
        out.append(
            base.replace(
                rest=base.rest * rng.uniform(0.95, 1.05, base.n_links),
                phi=base.phi + rng.uniform(-0.2, 0.2, base.n_links),
                alpha=np.minimum(1.0, base.alpha + rng.uniform(0.0, 0.05, base.n_links)),
                omega=base.omega * rng.uniform(0.9, 1.1),
                beta=min(1.0, base.beta * rng.uniform(0.9, 1.1)),
                positions=base.positions + rng.uniform(-0.5, 0.5, base.positions.shape),
            )
        )
    return out


def _timings(runs, repeats: int) -> list[list[float]]:
    """CPU seconds of this thread for each of ``runs`` (callables), ``repeats`` times, interleaved
    (a b a b ...): time the other processes of a shared machine take is not counted, and what noise
    remains falls on both alike."""
    out: list[list[float]] = [[] for _ in runs]
    for _ in range(max(1, repeats)):
        for run, seconds in zip(runs, out, strict=True):
            start = time.thread_time()
            run()
            seconds.append(time.thread_time() - start)
    return out


def _identical(a, b) -> bool:
    return all(
        np.array_equal(x.frames, y.frames)
        and np.array_equal(x.positions, y.positions)
        and np.array_equal(x.velocities, y.velocities)
        and x.exploded_frame == y.exploded_frame
        for x, y in zip(a, b, strict=True)
    )


def _size(counts: list[int]) -> int | float:
    """The count every creature has, or (mixed topologies) the mean count as a float."""
    return counts[0] if len(set(counts)) == 1 else float(np.mean(counts))


def _case(name: str, creatures: list[Creature], world: World, frames: int, repeats: int) -> dict[str, Any]:
    """Scalar and batched timings of one batch in one world."""
    every = simulator.RECORD_EVERY
    scalar = [simulate(c, world, frames, every) for c in creatures]
    batched = simulate_batch(creatures, world, frames, every)
    exploded = sum(t.exploded for t in scalar)
    updates = sum(c.n_links for c in creatures) * frames
    scalar_s, batch_s = _timings(
        [lambda: [simulate(c, world, frames, every) for c in creatures],
         lambda: simulate_batch(creatures, world, frames, every)],
        repeats,
    )  # fmt: skip
    row = {
        "creature": name,
        "integrator": world.integrator,
        "masses": _size([c.n_masses for c in creatures]),
        "links": _size([c.n_links for c in creatures]),
        "creatures": len(creatures),
        "frames": frames,
        "exploded": exploded,
        "bit_identical": _identical(scalar, batched),
        "scalar_spring_updates_per_s": updates / min(scalar_s),
        "batch_spring_updates_per_s": updates / min(batch_s),
        "scalar_median_spring_updates_per_s": updates / statistics.median(scalar_s),
        "batch_median_spring_updates_per_s": updates / statistics.median(batch_s),
    }
    row["ratio"] = row["batch_spring_updates_per_s"] / row["scalar_spring_updates_per_s"]
    return row


# Run in a fresh interpreter: time the first (compiling or cache-loading) batched call per kernel.
_COMPILE_PROBE = """
import json, time
import numpy as np
from evo.model import Creature
from evo.sim import World
from evo.sim.batch import MIN_LANES, simulate_batch
creature = Creature(positions=[[0.0, 10.0], [30.0, 10.0]], velocities=np.zeros((2, 2)),
                    fixed=[False, False], link_a=[0], link_b=[1], rest=[30.0], alpha=[0.2], phi=[0.0],
                    omega=0.1, beta=0.5)
out = {}
for integrator in ("euler", "rk4"):
    start = time.perf_counter()
    simulate_batch([creature] * MIN_LANES, World(integrator=integrator, max_speed=100.0), 10, record_every=5)
    out[integrator] = time.perf_counter() - start
print(json.dumps(out))
"""


def _probe_first_call(cache_dir: str | None) -> dict[str, float]:
    """Seconds of the first batched euler and rk4 calls in a fresh interpreter with ``NUMBA_CACHE_DIR``
    on ``cache_dir`` (None: numba's usual cache)."""
    times = probe_in_fresh_interpreter(_COMPILE_PROBE, cache_dir, "batch compile-time")
    return {k: float(v) for k, v in times.items()}


def batch_section(args: argparse.Namespace) -> Section:
    """Scalar vs batched spring-updates per second, and the batched kernels' compile time."""
    repeats = int(getattr(args, "repeats", 7))
    frames = int(getattr(args, "frames", simulator.FRAMES))
    size = int(getattr(args, "batch_size", BATCH))
    generation = int(getattr(args, "generation_size", GENERATION))
    world = simulator.bench_world()
    rng = np.random.default_rng(SEED)
    batches = {
        "walker": mutants(load_model(WALKER), size, rng),
        "standard 60x200": mutants(simulator.standard_creature(60, 200), size, rng),
        "mixed walkers": mixed({}, size, rng),  # examples/walkers.toml keeps the default genome
        "mixed bench": mixed(BENCH_GENOME, size, rng),
        "walkers' generation": mixed({}, generation, rng),
        "bench generation": mixed(BENCH_GENOME, generation, rng),
    }
    for integrator in INTEGRATORS:  # JIT warm-up
        warm = world.updated({"integrator": integrator})
        simulate_batch(batches["walker"], warm, simulator.RECORD_EVERY, simulator.RECORD_EVERY)
        simulate(batches["walker"][0], warm, simulator.RECORD_EVERY, simulator.RECORD_EVERY)
    rows = []
    for integrator in INTEGRATORS:
        case_world = world.updated({"integrator": integrator})
        case_frames = (
            frames if integrator == "euler" else max(simulator.RECORD_EVERY, frames // RK4_FRAMES_DIVISOR)
        )
        for name, creatures in batches.items():
            rows.append(_case(name, creatures, case_world, case_frames, repeats))
    with tempfile.TemporaryDirectory(prefix="evo-bench-batch-numba-") as cache_dir:
        cold = _probe_first_call(cache_dir)
        cached = _probe_first_call(cache_dir)
    lines = [
        f"{size} creatures per batch: same-topology mutants, or random creatures of mixed topologies"
        f" ({generation} for a generation; masses and links on average; expl.: creatures that exploded, which"
        f" stop early and count their frames all the same); world as the simulator section, record every"
        f" {simulator.RECORD_EVERY} frames; CPU time of the thread, best of {repeats} (median in brackets:"
        " the noise), end to end",
        f"{'creature':>19} {'crea.':>5} {'integr.':>7} {'masses':>6} {'links':>5} {'frames':>6} {'expl.':>5}"
        f" {'scalar M/s':>17} {'batch M/s':>17} {'batch/scalar':>12} {'identical':>9}",
    ]
    for row in rows:
        lines.append(
            f"{row['creature']:>19} {row['creatures']:>5} {row['integrator']:>7} {row['masses']:>6.1f}"
            f" {row['links']:>5.1f} {row['frames']:>6} {row['exploded']:>5}"
            f" {row['scalar_spring_updates_per_s'] / 1e6:>8.1f}"
            f" ({row['scalar_median_spring_updates_per_s'] / 1e6:>6.1f})"
            f" {row['batch_spring_updates_per_s'] / 1e6:>8.1f}"
            f" ({row['batch_median_spring_updates_per_s'] / 1e6:>6.1f})"
            f" {row['ratio']:>11.2f}x {'yes' if row['bit_identical'] else 'NO':>9}"
        )
    lines.append(
        "batched kernels' first call in a fresh interpreter (empty NUMBA_CACHE_DIR / same folder again):"
        f" euler {cold['euler']:.2f} s / {cached['euler']:.3f} s,"
        f" rk4 {cold['rk4']:.2f} s / {cached['rk4']:.3f} s"
    )
    data = {"batch": {"repeats": repeats, "rows": rows, "compile_s": {"cold": cold, "cached": cached}}}
    return Section("batch: scalar vs batched kernel, spring-updates per second", lines, data)
