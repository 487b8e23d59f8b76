"""``evo bench``: throughput of the simulator and of whole runs (see evo/bench/)."""

from __future__ import annotations

import argparse

NAME = "bench"
HELP = "benchmark the simulator kernel (spring-updates per second)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print the figures as one JSON object on stdout (tables: stderr)"
    )
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats per case (best is kept)")
    parser.add_argument(
        "--integrators",
        action="store_true",
        help="instead: every integrator's throughput and energy error on seed 003's double spring"
        " (see evo/bench/integrators.py)",
    )
    parser.add_argument(
        "--checkpoint",
        action="store_true",
        help="instead: a checkpoint's cost per child and a 2000-generation run's rate at its start and end"
        " (see evo/bench/checkpoint.py; a minute or two)",
    )
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="instead: rates against creature size (5..1000 masses), population and workers, the per-core"
        " sqrt+divide limit, and where a generation's time goes (see evo/bench/scaling.py; minutes)",
    )
    parser.add_argument(
        "--refine",
        action="store_true",
        help="instead: refine's evaluations per second (CMA-ES, candidates in SIMD lanes) against the scalar"
        " kernel on the same body, and the share of candidates in lanes (see evo/bench/refine.py)",
    )
    parser.add_argument(
        "--kernel",
        action="store_true",
        help="instead: the batched Euler kernel against a minimal hand-written lanes kernel, and a cold `evo"
        " warm` on an empty numba cache (see evo/bench/kernel.py and warm.py; a few minutes)",
    )
    parser.add_argument(
        "--engine",
        action="store_true",
        help="instead: whole runs (1 and 2 workers, busy core, dask, batching off) against the bare batched"
        " kernel per CPU-second, and whether their folders are identical (see evo/bench/engine.py; minutes)",
    )
    parser.add_argument(
        "--studio",
        action="store_true",
        help="instead: frames per second evo studio streams (a walker, a 200-mass model) and the time from an"
        " edit to its first frame (see evo/bench/studio.py; needs the studio extra)",
    )


def run(args: argparse.Namespace) -> int:
    if getattr(args, "integrators", False):
        from evo.bench.integrators import main as integrators_main

        return integrators_main(args)
    from evo.bench import main

    if getattr(args, "scaling", False):
        args.sections = ["scaling"]
    elif getattr(args, "refine", False):
        args.sections = ["refine"]
    elif getattr(args, "checkpoint", False):
        args.sections = ["checkpoint"]
    elif getattr(args, "kernel", False):
        args.sections = ["kernel", "warm"]
    elif getattr(args, "studio", False):
        args.sections = ["studio"]
    elif getattr(args, "engine", False):
        args.sections = ["engine"]
    return main(args)
