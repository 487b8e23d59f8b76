"""The ``kernel`` section of ``python -m evo bench`` (issue 29, target 4): the batched Euler kernel against
a minimal hand-written lanes kernel (:mod:`evo.bench.lanes_reference`) on the same lanes, CPU time of the
thread, interleaved; both checked bit for bit against ``simulate`` first."""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import numpy as np

from evo.bench import Section
from evo.bench.batch import BENCH_GENOME, _timings, mixed
from evo.bench.lanes_reference import reference_lanes, run_reference
from evo.fitness import EvaluationSpec, evaluate, find_plugin
from evo.fitness.reducers import bind_reducer, reduce_trajectories
from evo.model import Creature
from evo.sim import World, simulate
from evo.sim.batch import _lane_records, _max_speed2, _pack, lane_calls, lanes_of, simulate_batch
from evo.sim.kernels import batch_euler
from evo.sim.simulate import kernel_params

__all__ = ["WALKERS_WORLD", "batched_call", "kernel_case", "kernel_section"]

WALKERS_WORLD = World(max_speed=50.0)  # examples/walkers.toml's world
WALKERS_GENOME: dict = {}  # examples/walkers.toml's genome: the defaults
FRAMES = 3000
RECORD_EVERY = 10
SEED = 29


def batched_call(creatures: list[Creature], world: World, n_steps: int, stride: int):
    """A function running :func:`evo.sim.kernels.batch_euler.run_euler_batch` once on fresh copies of the
    lanes of ``creatures``, as :mod:`evo.sim.batch` packs them."""
    p = _pack(creatures, world, general=False)
    segments, _, _, fp, ip = kernel_params(world, n_steps, stride)
    out = _lane_records(creatures, n_steps, stride, p["mass_of_row"])
    lanes = lanes_of(p, _max_speed2(world, creatures))

    def call() -> np.ndarray:
        batch_euler.run_euler_batch(
            lanes._replace(pos=lanes.pos.copy(), vel=lanes.vel.copy()), segments, fp, ip, out
        )
        return out.records

    return call


def _reference_matches_simulate(creatures: list[Creature], world: World, n_steps: int, stride: int) -> bool:
    """Whether every lane of the reference kernel records what ``simulate`` records for its creature."""
    args, mass_of_row = reference_lanes(creatures, world, n_steps, stride)
    n_rec = run_reference(**args)
    for lane, creature in enumerate(creatures):
        trajectory = simulate(creature, world, n_steps * world.dt, stride * world.dt)
        rows = np.flatnonzero(mass_of_row[:, lane] < creature.n_masses)
        order = rows[np.argsort(mass_of_row[rows, lane])]
        mine = args["records"][: n_rec[lane], :, order, lane].transpose(0, 2, 1)
        if n_rec[lane] != len(trajectory.frames) or not np.array_equal(mine, trajectory.positions):
            return False
    return True


def kernel_case(creatures: list[Creature], world: World, frames: int, repeats: int) -> dict[str, Any]:
    """Both kernels on the lanes of ``creatures`` (one call), ``repeats`` interleaved timings each (CPU
    time of the thread): ns per lane and step, and batched / reference speed (> 1: the batched is faster)."""
    n_steps, stride = int(frames / world.dt), int(RECORD_EVERY / world.dt)
    batched = batched_call(creatures, world, n_steps, stride)
    args, _ = reference_lanes(creatures, world, n_steps, stride)

    def reference() -> None:
        run_reference(**{**args, "x": args["x"].copy(), "y": args["y"].copy(), "vx": args["vx"].copy(),
                         "vy": args["vy"].copy()})  # fmt: skip

    batched()
    reference()  # compiled (or loaded) before the timings
    seconds = dict(zip(("batched", "reference"), _timings([batched, reference], repeats), strict=True))
    per = len(creatures) * n_steps
    ratios = [r / b for b, r in zip(seconds["batched"], seconds["reference"], strict=True)]
    return {
        "lanes": len(creatures),
        "batched_ns": 1e9 * min(seconds["batched"]) / per,
        "reference_ns": 1e9 * min(seconds["reference"]) / per,
        "ratio": statistics.median(ratios),
        "ratio_range": (min(ratios), max(ratios)),
        "identical": _reference_matches_simulate(creatures[:8], world, min(n_steps, 400), stride),
    }


def reducer_case(creatures: list[Creature], world: World, frames: int, repeats: int) -> dict[str, Any]:
    """The ``distance`` plugin on the lanes' trajectories: its Python function through
    :func:`evo.fitness.evaluate` creature by creature against its compiled reducer on all lanes at once
    (:func:`evo.fitness.reducers.reduce_trajectories`), CPU µs per creature, and whether they agree."""
    plugin = find_plugin("distance")
    spec = EvaluationSpec(world, frames, plugin.ref(), {})
    trajectories = simulate_batch(creatures, world, frames, plugin.record_every)
    bound = bind_reducer(plugin, {}, world, frames)

    def python() -> list:
        return [evaluate(c, spec, 0, t).fitness[0] for c, t in zip(creatures, trajectories, strict=True)]

    def compiled() -> np.ndarray:
        return reduce_trajectories(bound, trajectories).fitness[:, 0]

    same = np.array_equal(np.array(python()), compiled())
    seconds = dict(zip(("python", "compiled"), _timings([python, compiled], repeats), strict=True))
    per = 1e6 / len(creatures)
    return {
        "python_us": per * min(seconds["python"]),
        "compiled_us": per * min(seconds["compiled"]),
        "same": same,
    }


def kernel_section(args: argparse.Namespace) -> Section:
    """Target 4: the batched Euler kernel against the minimal reference on the lanes a run makes: random
    creatures of walkers' genome and of the bench config's, cut into calls as ``simulate_batch`` cuts them
    (the first call timed)."""
    repeats = getattr(args, "repeats", 7)
    frames = getattr(args, "kernel_frames", FRAMES)
    lanes = getattr(args, "kernel_lanes", 64)
    rng = np.random.default_rng(SEED)
    lines = [
        "the batched Euler kernel against a minimal hand-written lanes kernel",
        "(evo/bench/lanes_reference.py),",
        f"the same lanes, {frames} frames, record every {RECORD_EVERY}; CPU time of the thread, {repeats}"
        " interleaved repeats; ratio = reference time / batched time (median; >= 0.9 is issue 29's target 4)",
    ]
    data = {}
    for name, genome in (("walkers", WALKERS_GENOME), ("bench config", BENCH_GENOME)):
        creatures = mixed(genome, lanes, rng)
        call = [creatures[k] for k in lane_calls(creatures)[0]]
        case = kernel_case(call, WALKERS_WORLD, frames, repeats)
        data[name.replace(" ", "_")] = case
        low, high = case["ratio_range"]
        lines.append(
            f"{name:>13}: {case['lanes']} lanes, batched {case['batched_ns']:.1f} ns, reference"
            f" {case['reference_ns']:.1f} ns per lane and step; ratio {case['ratio']:.2f}"
            f" ({low:.2f}-{high:.2f});"
            f" reference bit-identical to simulate: {case['identical']}"
        )
    reduced = reducer_case(mixed(WALKERS_GENOME, lanes, rng), WALKERS_WORLD, frames, repeats)
    data["reducer"] = reduced
    lines.append(
        f"the distance plugin on {lanes} walkers' trajectories: Python function"
        f" {reduced['python_us']:.1f} µs, compiled reducer {reduced['compiled_us']:.1f} µs per creature"
        " (CPU);"
        f" bit-identical: {reduced['same']}"
    )
    return Section("Batched kernel against a minimal reference (issue 29, target 4)", lines, {"kernel": data})
