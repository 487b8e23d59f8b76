"""The ``checkpoint`` section of ``python -m evo bench``: what writing a generation's checkpoint costs per
child (packing the population into arrays, the ``.npz`` with its checksum, the fsyncs), against the JSON
checkpoint of evo 0.1, and whether a run's generation rate stays the same as the run ages.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

POPULATION = 200
AGE_GENERATIONS = 2000  # the rate of generations 10-109 against that of the last 100
AGE_WINDOW = 100
REPEATS = 5


def _population(config, count: int) -> tuple[Any, list]:
    """``count`` evaluated individuals of the bench config's genome (random creatures), and the state of
    an evolution holding them."""
    import numpy as np

    from evo.ga.creatures import random_creature
    from evo.ga.individual import Individual
    from evo.ga.loop import EvolutionState

    rng = np.random.default_rng(1)
    individuals = []
    for k in range(count):
        ind = Individual(random_creature(rng, config.genome), (1.0,), id=f"g0-{k}", born=0)
        ind.set_fitness((float(rng.normal()),), seed=int(rng.integers(2**63)))
        individuals.append(ind)
    state = EvolutionState(
        generation=0,
        seed=1,
        objectives=("distance",),
        weights=(1.0,),
        rng=np.random.default_rng(1).bit_generator.state,
        population=tuple(individuals),
        hall_of_fame=tuple(individuals[:10]),
        logbook=(),
    )
    return state, individuals


def checkpoint_costs(population: int = POPULATION, repeats: int = REPEATS) -> dict[str, Any]:
    """Seconds per child of each part of writing one checkpoint (fastest of ``repeats``).

    Returns:
        ``pack_ms``, ``npz_ms`` (bytes with checksum), ``write_ms`` (the whole durable write, fsyncs
        included), ``json_ms`` (evo 0.1's JSON text of the same state), all per child in ms; ``bytes``.
    """
    from evo.bench import best_time
    from evo.bench.evolution import bench_config
    from evo.io.checkpoint.disk import checkpoint_arrays
    from evo.io.checkpoint.document import checkpoint_contents, individual_json
    from evo.io.npz_file import dumps_npz, write_npz

    state, individuals = _population(bench_config(), population)
    history = {"rows": 1, "bytes": 100, "sha256": "0" * 64}

    def arrays():
        head, groups = checkpoint_contents(state)
        return checkpoint_arrays({**head, "history": history}, groups)

    def old_json():
        for ind in individuals:
            ind.model_text = ind.model_doc = None  # as each new child was: its JSON made once
        return ",".join(individual_json(ind) for ind in [*state.population, *state.hall_of_fame])

    packed = arrays()
    with tempfile.TemporaryDirectory(prefix="evo-bench-checkpoint-") as tmp:
        path = Path(tmp) / "checkpoint.npz"
        write = best_time(lambda: write_npz(path, arrays()), repeats)
        size = path.stat().st_size
    per = 1000.0 / population
    return {
        "population": population,
        "pack_ms": best_time(arrays, repeats) * per,
        "npz_ms": best_time(lambda: dumps_npz(packed), repeats) * per,
        "write_ms": write * per,
        "json_ms": best_time(old_json, repeats) * per,
        "bytes": size,
    }


def age_rates(generations: int = AGE_GENERATIONS, window: int = AGE_WINDOW) -> dict[str, Any]:
    """Generations per second of a small run (8 creatures, 50 frames, its folder written), and the time
    of each generation's checkpoint (history row and ``.npz``, fsyncs included), over ``window``
    generations near its start (from generation 10) and at its end."""
    from evo.bench.evolution import GenerationClock, bench_config
    from evo.run.evolve import run_prepared
    from evo.run.folder.writer import FolderWriter, prepare

    writes: list[float] = []

    class TimedWriter(FolderWriter):
        def _write_checkpoint(self, state: Any) -> None:
            started = time.perf_counter()
            super()._write_checkpoint(state)
            writes.append(time.perf_counter() - started)

    config = bench_config(population=8, frames=50, generations=generations).replace(
        pool={"workers": 1, "backend": "inprocess"},  # (a generation checkpointed as it is told)
        run={"checkpoint_interval": 0.0},  # every generation's checkpoint, timed
    )
    clock = GenerationClock()
    with tempfile.TemporaryDirectory(prefix="evo-bench-age-") as tmp:
        prepared = prepare(config, out=Path(tmp) / "run", force=True)
        run_prepared(prepared, [TimedWriter(prepared), clock])
    ends = clock.ends
    window = max(1, min(window, (len(ends) - 11) // 2))
    early = window / (ends[10 + window] - ends[10])
    late = window / (ends[-1] - ends[-1 - window])
    return {
        "generations": generations,
        "window": window,
        "early_per_s": early,
        "late_per_s": late,
        "late_over_early": late / early,
        "early_checkpoint_ms": 1000 * sorted(writes[10 : 10 + window])[window // 2],
        "late_checkpoint_ms": 1000 * sorted(writes[-window:])[window // 2],
    }


def checkpoint_section(args: argparse.Namespace):
    """The ``checkpoint`` section of ``python -m evo bench``."""
    from evo.bench import Section

    costs = checkpoint_costs(
        int(getattr(args, "population", POPULATION)), int(getattr(args, "repeats", REPEATS))
    )
    ages = age_rates(int(getattr(args, "age_generations", AGE_GENERATIONS)))
    lines = [
        f"checkpoint of {costs['population']} children (bench genome), per child, fastest of the repeats;"
        f" {os.cpu_count()} CPUs",
        f"packing into arrays:                 {costs['pack_ms']:.4f} ms",
        f".npz bytes with SHA-256 checksum:    {costs['npz_ms']:.4f} ms",
        f"durable write (pack, npz, fsyncs):   {costs['write_ms']:.4f} ms  ({costs['bytes']:,} bytes)",
        f"evo 0.1's JSON of the same children: {costs['json_ms']:.4f} ms",
        f"{ages['generations']} generations of 8 creatures, 50 frames, {ages['window']} generations each:"
        f" {ages['early_per_s']:.1f} generations/s from generation 10, {ages['late_per_s']:.1f} at the end"
        f" ({ages['late_over_early']:.2f}x); median checkpoint {ages['early_checkpoint_ms']:.2f} ms, then"
        f" {ages['late_checkpoint_ms']:.2f} ms",
    ]
    return Section("checkpoint", lines, {"checkpoint": costs, "checkpoint_age": ages})


def main(argv: list[str] | None = None) -> int:
    """``python -m evo.bench.checkpoint [--generations N] [--json]``: print the section."""
    parser = argparse.ArgumentParser(prog="python -m evo.bench.checkpoint")
    parser.add_argument("--generations", type=int, default=AGE_GENERATIONS, dest="age_generations")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    section = checkpoint_section(args)
    print("\n".join(section.lines))
    if args.json:
        print(json.dumps(section.data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
