"""The GA's compile tasks (evo.ga.warm): the brood's two parts first, the brood after both, each task
naming the numba functions whose cache says it is done."""

from evo.ga import warm
from evo.ga.kernels import brood
from evo.sim.warm import in_cache


def test_the_brood_waits_for_its_two_parts_the_longer_first():
    tasks = warm.breeding_tasks()
    parts = [f"breeding's {part}" for part in brood.BROOD_PARTS]
    assert warm.PARTS == brood.BROOD_PARTS
    assert [task.name for task in tasks] == [*parts, "breeding"]
    assert tasks[-1].after == tuple(parts) and all(task.after == () for task in tasks[:-1])
    for task, part in zip(tasks, brood.BROOD_PARTS, strict=False):
        assert task.args == (part,) and task.compiled() == brood.part_functions(part)
    assert tasks[-1].compiled() == (brood._pairs,)


def test_once_run_each_task_is_in_numbas_cache():
    tasks = [*warm.breeding_tasks(), *warm.small_tasks()]
    assert [task.name for task in warm.small_tasks()] == ["the plugin seeds", "random creatures"]
    for task in tasks:
        task.run(*task.args)  # compiles or loads each into numba's cache
    assert all(in_cache(task) for task in tasks)
