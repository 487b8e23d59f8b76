"""The ``warm`` section of ``python -m evo bench`` (issue 29, target 5): a cold ``evo warm`` on an empty
numba cache in a fresh interpreter, its wall time and the CPU time of every compile task and in all."""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

from evo.bench import Section

__all__ = ["cold_warm", "critical_path", "warm_section"]

READY = re.compile(r"^(.+): ready \(([0-9.]+) s CPU\)$")


def cold_warm(workers: int | None = None, extra: tuple[str, ...] = ()) -> dict:
    """Run ``python -m evo warm`` with ``NUMBA_CACHE_DIR`` on a new empty folder.

    Returns:
        {"wall_s", "cpu_s" (all its processes), "tasks": {name: CPU s}, "critical_s" (the longest chain of
        tasks, each after those it waits for: the wall time on enough idle cores)}.
    """
    command = [sys.executable, "-m", "evo", "warm", *extra]
    if workers:
        command += ["--workers", str(workers)]
    with tempfile.TemporaryDirectory(prefix="evo-bench-warm-") as cache_dir:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            command,
            env={**os.environ, "NUMBA_CACHE_DIR": cache_dir},
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"evo warm failed:\n{done.stderr.strip()}")
    tasks = {m[1]: float(m[2]) for m in map(READY.match, done.stdout.splitlines()) if m}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "tasks": tasks, "critical_s": critical_path(tasks)}


def critical_path(tasks: dict[str, float]) -> float:
    """The CPU seconds of the longest chain of ``tasks`` ({name: CPU s}), a task counted after those it
    waits for (each compile task's ``after``: breeding after its two parts)."""
    from evo.ga.warm import breeding_tasks, small_tasks
    from evo.sim.warm import kernel_tasks

    known = [*breeding_tasks(), *kernel_tasks(None), *small_tasks()]
    after = {task.name: task.after for task in known}
    ends: dict[str, float] = {}

    def end(name: str) -> float:
        if name not in ends:
            ends[name] = tasks.get(name, 0.0) + max(
                (end(first) for first in after.get(name, ())), default=0.0
            )
        return ends[name]

    return max((end(name) for name in tasks), default=0.0)


def warm_section(args: argparse.Namespace) -> Section:
    """Target 5: cold ``evo warm`` (what a run of the default world calls), CPU time, as it ran here."""
    workers = getattr(args, "warm_workers", None)
    result = cold_warm(workers)
    lines = [
        "cold `evo warm` (empty NUMBA_CACHE_DIR, fresh interpreter): the default world's kernels and",
        "breeding, compiled in parallel processes; CPU seconds per task (its own process) and of all",
        *(f"{name:>28}: {seconds:6.1f} s CPU" for name, seconds in result["tasks"].items()),
        f"in all: {result['cpu_s']:.1f} s CPU, {result['wall_s']:.1f} s wall here; the longest chain of tasks"
        " (breeding after its parts: the wall time on idle cores, one per task):"
        f" {result['critical_s']:.1f} s (issue 29's target 5: <= 45 s)",
    ]
    return Section("Cold compile: evo warm (issue 29, target 5)", lines, {"warm": result})
