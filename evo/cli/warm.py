"""``evo warm``: compile the simulator's kernels and the compiled breeding into numba's cache now, so
that no run pauses for it later (docs/runs.md, "evo run")."""

from __future__ import annotations

import argparse
import time

from evo.sim.world import INTEGRATORS

NAME = "warm"
HELP = (
    "compile the simulator (every integrator) and breeding now, into numba's cache, so the first run does "
    "not pause"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--integrator",
        action="append",
        choices=INTEGRATORS,
        metavar="NAME",
        help=f"only this integrator (repeatable; default: all of {', '.join(INTEGRATORS)})",
    )


def run(args: argparse.Namespace) -> int:
    from evo.ga.kernels.brood import warm_breeding
    from evo.sim.warm import warm_kernels

    names = tuple(dict.fromkeys(args.integrator or INTEGRATORS))
    start = time.perf_counter()
    for name, seconds in warm_kernels(names):
        print(f"{name}: ready ({seconds:.1f} s)")
    bred = time.perf_counter()
    warm_breeding()
    print(f"breeding: ready ({time.perf_counter() - bred:.1f} s)")
    total = time.perf_counter() - start
    print(f"the simulator and breeding are ready ({total:.1f} s); later runs load them from numba's cache")
    return 0
