"""The GA's compile tasks (:class:`evo.sim.warm.CompileTask`) for ``evo warm`` and a run's first compile:
the compiled brood's two largest parts, each alone for the argument types the brood calls it with, then
the brood, which loads them from numba's cache; the plugin seeds, random creatures and the hall of fame's
likeness test (docs/internals.md, "Broods"; docs/performance.md, "Round fifteen", "Round thirty-three")."""

from __future__ import annotations

import functools
from typing import Any

from evo.sim.warm import CompileTask

__all__ = ["BROOD_PARTS", "breeding_tasks", "part_functions", "small_tasks", "warm_brood_part"]

BROOD_PARTS = ("crossover", "mutation")  # the longer first


def _functions() -> dict[str, Any]:
    from evo.ga.kernels.crossover import crossover_bodies
    from evo.ga.kernels.mutation import mutate_body

    return {"crossover": crossover_bodies, "mutation": mutate_body}


def part_functions(part: str) -> tuple:
    """The numba function of a part of :data:`BROOD_PARTS`, in a tuple (whose cache says it is done)."""
    functions = _functions()
    if part not in functions:
        raise ValueError(f"no part {part!r} of the compiled brood; the parts are {', '.join(BROOD_PARTS)}")
    return (functions[part],)


def _signature(part: str) -> tuple:
    """The argument types the brood calls a part with: a body of the parents' (fresh arrays, their
    ``renumbered`` flag the literal False) for the crossover, a crossed or settled body for the mutation."""
    import numba as nb
    from numba import types

    from evo.ga.kernels.brood import compiled_operators
    from evo.ga.mutation import MutationPlan
    from evo.ga.settings import GASection, GenomeSection

    f64_1, i64_1 = types.Array(types.float64, 1, "C"), types.Array(types.int64, 1, "C")
    fields = (
        types.Array(types.float64, 2, "C"),
        i64_1,
        i64_1,
        f64_1,
        f64_1,
        f64_1,
        types.float64,
        types.float64,
    )
    rng = types.Array(types.uint64, 1, "C")
    if part == "crossover":
        parent = types.Tuple((*fields, types.literal(False)))
        return (rng, parent, parent, f64_1, types.float64, types.float64)
    # every field of the operators' record has one dtype whatever the settings
    ops = compiled_operators(GenomeSection(), GASection(), MutationPlan.of(GASection()))
    return (rng, types.Tuple((*fields, types.boolean)), nb.typeof(ops))


def warm_brood_part(part: str) -> None:
    """Compile (or load from numba's cache) one part of :data:`BROOD_PARTS` for the argument types the
    brood calls it with, nothing run."""
    (function,) = part_functions(part)
    function.compile(_signature(part))


def _breeding() -> None:
    from evo.ga.kernels.brood import warm_breeding

    warm_breeding(seeds=False)


def _breeding_functions() -> tuple:
    from evo.ga.kernels import brood

    return (brood._pairs,)


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


def _likeness() -> None:
    from evo.ga.creatures import distance
    from evo.sim.simulate import tiny_creature

    creature = tiny_creature()
    distance(creature, creature)  # the same links: per link, on the creatures' own genes
    distance(creature, creature.replace(link_a=[1], link_b=[0]))  # other links: the alpha quantiles


def _likeness_functions() -> tuple:
    from evo.ga.kernels import genes

    return (genes._distance_terms,)


def breeding_tasks() -> list[CompileTask]:
    """Breeding's crossover and its mutation (each compiled alone; the process that asked for them need not
    load them, the brood's cache holds them), then ``breeding``, which waits for both and loads them from
    numba's cache."""
    parts = [
        CompileTask(
            f"breeding's {part}",
            warm_brood_part,
            (part,),
            compiled=functools.partial(part_functions, part),
            load=False,
        )
        for part in BROOD_PARTS
    ]
    after = tuple(task.name for task in parts)
    return [*parts, CompileTask("breeding", _breeding, after=after, compiled=_breeding_functions)]


def small_tasks() -> list[CompileTask]:
    """The plugin seeds' hash, the random creatures of generation 0 and the hall of fame's likeness test
    (:func:`evo.ga.creatures.distance`'s compiled terms): a second or a few of CPU each."""
    return [
        CompileTask("the plugin seeds", _plugin_seeds, compiled=_seeds_functions),
        CompileTask("random creatures", _random_creatures, compiled=_random_creatures_functions),
        CompileTask("the hall of fame's likeness", _likeness, compiled=_likeness_functions),
    ]
