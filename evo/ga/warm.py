"""The GA's compile tasks (:class:`evo.sim.warm.CompileTask`) for ``evo warm`` and a run's first compile:
the compiled brood's two largest parts, the brood itself once both are in numba's cache, the plugin seeds
and random creatures (docs/runs.md, "evo run"; docs/performance.md, "Round fifteen")."""

from __future__ import annotations

import functools

from evo.sim.warm import CompileTask

__all__ = ["breeding_tasks", "small_tasks"]

# the parts of evo.ga.kernels.brood.BROOD_PARTS, the longer first (tests/ga/test_compile_tasks.py checks the two
# agree; importing the kernels here would load numba for ``evo --help``)
PARTS = ("crossover", "mutation")


def _breeding() -> None:
    from evo.ga.kernels.brood import warm_breeding

    warm_breeding(seeds=False)


def _breeding_functions() -> tuple:
    from evo.ga.kernels import brood

    return (brood._pairs,)


def _brood_part(part: str) -> None:
    from evo.ga.kernels.brood import warm_brood_part

    warm_brood_part(part)


def _brood_part_functions(part: str) -> tuple:
    from evo.ga.kernels.brood import part_functions

    return part_functions(part)


def _random_creatures() -> None:
    from evo.ga.kernels.creatures import warm_random_creatures

    warm_random_creatures()


def _random_creatures_functions() -> tuple:
    from evo.ga.kernels import creatures

    return (creatures.random_body,)


def _seeds_functions() -> tuple:
    from evo.ga import seeds

    return (seeds._generation_seeds,)


def _plugin_seeds() -> None:
    from evo.ga.seeds import plugin_seeds

    plugin_seeds(0, 0, 1)


def breeding_tasks() -> list[CompileTask]:
    """Breeding's crossover and its mutation (each compiled alone, for the argument types the brood calls
    it with), then ``breeding``, which waits for both and loads them from numba's cache."""
    parts = [
        CompileTask(
            f"breeding's {part}",
            _brood_part,
            (part,),
            compiled=functools.partial(_brood_part_functions, part),
        )
        for part in PARTS
    ]
    after = tuple(task.name for task in parts)
    return [*parts, CompileTask("breeding", _breeding, after=after, compiled=_breeding_functions)]


def small_tasks() -> list[CompileTask]:
    """The plugin seeds' hash and the random creatures of generation 0: a few seconds of CPU each."""
    return [
        CompileTask("the plugin seeds", _plugin_seeds, compiled=_seeds_functions),
        CompileTask("random creatures", _random_creatures, compiled=_random_creatures_functions),
    ]
