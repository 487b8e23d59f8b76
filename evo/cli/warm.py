"""``evo warm``: compile the simulator's kernels and the compiled breeding into numba's cache now, in
parallel processes, so that no run pauses for it later (docs/runs.md, "evo run")."""

from __future__ import annotations

import argparse
import functools
import os
import pickle
import time
from collections.abc import Callable
from typing import Any

from evo.sim.world import INTEGRATORS, World

NAME = "warm"
HELP = (
    "compile what a run calls (the simulator's kernels, breeding) now, in parallel, into numba's cache, so"
    " the first run does not pause"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--integrator",
        action="append",
        choices=INTEGRATORS,
        metavar="NAME",
        help="the kernels of this integrator as well (repeatable; default: only what a run of the default"
        " world calls, the Euler kernels)",
    )
    parser.add_argument("--all", action="store_true", help="every kernel of every integrator")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: one per CPU)")


def compile_tasks(world: World | None, any_physics: bool = False, breeding: bool = True) -> list:
    """What to compile for runs in ``world`` (None: every kernel), about the longest first, so that
    parallel processes end close together: breeding's two largest parts, breeding itself once both are
    in numba's cache (it loads them from there), the world's kernels (those in lanes first), then the
    plugin seeds and random creatures. ``breeding`` False: the kernels alone."""
    from evo.ga.warm import breeding_tasks, small_tasks
    from evo.sim.warm import kernel_tasks

    kernels = kernel_tasks(world, any_physics)
    return _longest_first([*breeding_tasks(), *kernels, *small_tasks()] if breeding else kernels)


def _longest_first(tasks: list) -> list:
    """``tasks`` in the order to start them: breeding's (its parts, then itself), the kernels in lanes, the
    other kernels, then the small tasks, each group in its own order."""
    from evo.ga.warm import breeding_tasks, small_tasks

    breeding = [task.name for task in breeding_tasks()]
    small = {task.name for task in small_tasks()}

    def rank(task: Any) -> tuple[int, int]:
        if task.name in breeding:
            return (0, breeding.index(task.name))
        if task.name in small:
            return (3, 0)
        return (1 if task.name.endswith(" in lanes") else 2, 0)

    return sorted(tasks, key=rank)


def _load(tasks: list) -> None:
    """Load (from numba's cache) into this process what the tasks compiled, but the parts another task's
    cache holds (``CompileTask.load``)."""
    for task in tasks:
        if task.load:
            task.run(*task.args)


def any_physics(genome, ga) -> bool:
    """Whether a run's creatures can leave the default physics (then the general kernels run too): the
    ``physics`` mutation on ranges wider than a point, or seed models (which may have any)."""
    wide = any(low != high for low, high in (genome.link_stiffness, genome.link_dashpot, genome.mass))
    return bool(genome.seed_models) or (ga.rate("physics") > 0.0 and wide)


def reducer_task(spec: Any) -> Any:
    """The compile task of a run's plugin's compiled reducer and the loop over lanes that calls it
    (``spec``: the run's :class:`~evo.fitness.spec.EvaluationSpec`; nothing to compile where the plugin
    has none or the run asks for measures)."""
    from evo.sim.warm import CompileTask

    return CompileTask(
        "the plugin's compiled reducer",
        _reducer,
        (spec,),
        compiled=functools.partial(_reducer_functions, spec),
    )


def _reducer(spec: Any) -> None:
    from evo.run.batching import warm_reducer

    warm_reducer(spec)


def _reducer_functions(spec: Any) -> tuple:
    from evo.fitness import load_ref
    from evo.fitness.reducers import _reduce_lanes, reducer_of

    reducer = None if spec.measures else reducer_of(load_ref(spec.plugin))
    return () if reducer is None else (reducer.kernel, _reduce_lanes)


def _sendable(spec: Any) -> bool:
    """Whether ``spec`` can be sent to a compile process (its plugin named by reference)."""
    try:
        pickle.dumps(spec)
    except Exception:  # noqa: BLE001 (an object pickle refuses, of whatever kind)
        return False
    return True


def warm_run(world: World, genome, ga, say: Callable[[str], None] | None = None, spec: Any = None) -> None:
    """Compile what a run calls before its first generation (in parallel processes, ``say`` told of each;
    with ``spec``, the run's :class:`~evo.fitness.spec.EvaluationSpec`, its plugin's compiled reducer too)
    and load it here, before the run's workers fork; when numba's cache has it all, only load it here."""
    from evo.sim.warm import in_cache

    tasks = compile_tasks(world, any_physics(genome, ga))
    if spec is not None and _sendable(spec):  # (a plugin given as an object stays with the run)
        tasks.append(reducer_task(spec))
    if all(in_cache(task) for task in tasks):
        _load(tasks)
        return
    compile_ahead(tasks, say=say, load_here=True)


def compile_ahead(
    tasks: list, workers: int | None = None, say: Callable[[str], None] | None = None, load_here: bool = False
) -> str:
    """Compile ``tasks`` in parallel processes (and with ``load_here`` load them into this process from
    numba's cache); returns a summary: wall seconds, CPU seconds of all processes."""
    from evo.sim.warm import compile_in_processes

    start, cpu = time.perf_counter(), time.process_time()
    spent = compile_in_processes(tasks, workers, say)
    if load_here:
        _load(tasks)
    wall = time.perf_counter() - start
    cpu_total = sum(spent.values()) + time.process_time() - cpu
    processes = max(1, min(workers or len(os.sched_getaffinity(0)), len(tasks)))
    return f"{wall:.1f} s ({cpu_total:.1f} s CPU in {processes} processes)"


def run(args: argparse.Namespace) -> int:
    # the default world's fast path; an integrator named: its general kernels too (any physics)
    worlds: list[tuple[World | None, bool]] = [(World(), False)]
    worlds += [(World(integrator=name), True) for name in dict.fromkeys(args.integrator or ())]
    tasks, seen = [], set()
    for world, physics in [(None, True)] if args.all else worlds:
        for task in compile_tasks(world, physics):
            if task.name not in seen:
                seen.add(task.name)
                tasks.append(task)
    tasks = _longest_first(tasks)  # another integrator's kernels before the small tasks
    summary = compile_ahead(tasks, args.workers, print)
    print(f"ready in {summary}; later runs load them from numba's cache")
    return 0
