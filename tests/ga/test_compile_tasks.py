"""The GA's compile tasks (evo.ga.warm): the brood's two parts first, the brood after both, each task
naming the numba functions whose cache says it is done; the parts are not loaded by the process that asked
for them (the brood's cache holds them)."""

import numba

from evo.ga import warm
from evo.ga.kernels import brood, crossover, mutation


def test_the_brood_waits_for_its_two_parts_the_longer_first():
    tasks = warm.breeding_tasks()
    parts = [f"breeding's {part}" for part in warm.BROOD_PARTS]
    assert warm.BROOD_PARTS == ("crossover", "mutation")
    assert [task.name for task in tasks] == [*parts, "breeding"]
    assert tasks[-1].after == tuple(parts) and all(task.after == () for task in tasks[:-1])
    assert [task.load for task in tasks] == [False, False, True]
    for task, part in zip(tasks, warm.BROOD_PARTS, strict=False):
        assert task.args == (part,) and task.compiled() == warm.part_functions(part)
    assert warm.part_functions("crossover") == (crossover.crossover_bodies,)
    assert warm.part_functions("mutation") == (mutation.mutate_body,)
    assert tasks[-1].compiled() == (brood._pairs,)


def test_the_small_tasks_name_numba_functions_and_are_loaded_where_asked():
    tasks = warm.small_tasks()
    names = ["the plugin seeds", "random creatures", "the hall of fame's likeness"]
    assert [task.name for task in tasks] == names
    for task in tasks:
        assert task.load and task.after == ()
        assert all(isinstance(f, numba.core.registry.CPUDispatcher) for f in task.compiled())
