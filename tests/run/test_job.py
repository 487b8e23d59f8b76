"""The job a run's workers do: breed on the run's own world, then evaluate (issue 13, part 4)."""

from __future__ import annotations

import numpy as np
import pytest

from evo.fitness import find_plugin
from evo.fitness.evaluate import EvaluationSpec
from evo.ga.loop import Evolution, LoopSettings
from evo.run.job import BreedContext, breed_and_evaluate
from evo.sim import World, simulate
from evo.sim.placement import surface_heights

HILLS = {"type": "hills", "amplitude": 15.0, "wavelength": 160.0}
FRAMES = 400


def short_run(world: World, generations: int = 2):
    """(generation, creature) of every new child of a short run whose broods are bred and evaluated by
    :func:`breed_and_evaluate`, as a run's workers do."""
    plugin = find_plugin("distance")
    spec = EvaluationSpec(world, FRAMES, plugin.ref(), {"settle_frames": 100})
    settings = LoopSettings(population=24, seed=9, objectives=("distance",), weights=(1.0,))
    evolution = Evolution(settings)
    context = BreedContext(spec, settings.genome, settings.ga)
    made = []
    for generation in range(generations):
        results = [r for brood in evolution.ask().broods for r in breed_and_evaluate(brood, context)]
        made += [(generation, r.creature) for r in results if r.creature is not None]
        evolution.tell(results)
    return made


def depth_below(world: World, positions: np.ndarray) -> float:
    """The largest depth (px) of any of ``positions`` (..., 2) below the surface of ``world``."""
    points = positions.reshape(-1, 2)
    return float(np.max(surface_heights(world, points[:, 0]) - points[:, 1]))


@pytest.mark.parametrize("contact", ["soda", "penalty"])
def test_every_child_of_a_hills_run_starts_with_no_mass_below_the_hills(contact):
    world = World(ground=HILLS, contact=contact)
    made = short_run(world)
    assert {generation for generation, _ in made} == {0, 1}
    # 1e-9 px: rounding, as the deepest mass is lifted by exactly its depth under penalty contact
    assert max(depth_below(world, creature.positions) for _, creature in made) <= 1e-9
    assert sum(creature.positions[:, 1].min() > 1.0 for _, creature in made) > len(made) // 2


def test_no_mass_of_a_soda_hills_run_is_ever_below_the_hills():
    # soda contact puts a mass that crossed a segment back on it, 1e-9 px on its side: 1e-6 px is rounding
    world = World(ground=HILLS)
    for _, creature in short_run(world):
        assert depth_below(world, simulate(creature, world, FRAMES, record_every=1).positions) <= 1e-6


def test_on_flat_ground_every_child_still_starts_with_its_lowest_mass_at_0_and_leftmost_at_0():
    made = short_run(World(max_speed=50.0))
    assert made
    assert all(creature.positions.min(axis=0).tolist() == [0.0, 0.0] for _, creature in made)


def test_a_context_binds_its_reducer_once_and_pickles_without_it():
    """The compiled reducer is bound once per context (per worker); a pickled context (to a fork or dask
    worker) leaves it behind, since a compiled function's address means nothing in another process, and
    binds it again where it lands."""
    import pickle

    spec = EvaluationSpec(World(), FRAMES, find_plugin("distance").ref(), {})
    settings = LoopSettings(population=8, seed=1, objectives=("distance",), weights=(1.0,))
    context = BreedContext(spec, settings.genome, settings.ga)
    bound = context.reducer
    assert bound is not None and context.reducer is bound
    copy = pickle.loads(pickle.dumps(context))
    assert "reducer" not in copy.__dict__
    assert copy.reducer is not bound and copy.reducer.compiled.address == bound.compiled.address
    measured = BreedContext(
        EvaluationSpec(World(), FRAMES, spec.plugin, {}, measures=("speed",)), context.genome, context.ga
    )
    assert measured.reducer is None  # measures go through the Python path
