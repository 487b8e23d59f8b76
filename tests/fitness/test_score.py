"""One ``score`` on every evaluation path: a plugin that writes ``result.model.meta`` or turns its
arrays writable (``setflags``, through their bases too) gets the fitness a well-behaved plugin gets, and
the caller's creature, records and centroids stay as they were (issues 28 and 32)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evo.fitness import EvaluationSpec, discover, evaluate, registry, score
from evo.fitness.score import sealed
from evo.io.models import load_model
from evo.refine import evaluate_lanes, refine
from evo.sim import World, simulate

ROOT = Path(__file__).resolve().parents[2]
MEDDLER = ROOT / "tests" / "fixtures" / "user_plugins" / "meddler"


@pytest.fixture(scope="module")
def galloper():
    return load_model(ROOT / "genomes" / "galloper.json").replace(meta={"lineage": [0]})


def spec_of(meddle: bool, frames: int = 300) -> EvaluationSpec:
    plugin = discover([str(MEDDLER)])["meddler"]
    return EvaluationSpec(World(), frames, plugin.ref(), {"meddle": meddle})


def fingerprint(creature) -> tuple:
    arrays = (creature.positions, creature.rest, creature.phi, creature.alpha, creature.link_a)
    return tuple(a.tobytes() for a in arrays), dict(creature.meta), [a.flags.writeable for a in arrays]


def test_a_meddling_plugin_gets_the_clean_fitness_from_evaluate_and_leaves_the_creature(galloper):
    before = fingerprint(galloper)
    clean = evaluate(galloper, spec_of(False), seed=3)
    assert evaluate(galloper, spec_of(True), seed=3) == clean
    assert fingerprint(galloper) == before


def test_a_meddling_plugin_gets_the_clean_fitness_in_lanes_and_leaves_every_candidate(galloper):
    bodies = [galloper.replace(phi=galloper.phi + 0.01 * k) for k in range(9)]
    before = [fingerprint(b) for b in bodies]
    clean = [evaluate(b, spec_of(False), 3) for b in bodies]
    assert evaluate_lanes(bodies, spec_of(True), 3) == clean
    assert [fingerprint(b) for b in bodies] == before


def test_a_meddling_plugin_refines_as_a_clean_one_and_the_start_creature_is_unchanged(galloper):
    before = fingerprint(galloper)
    clean = refine(galloper, fitness=spec_of(False), budget=33, seed=4, genes=("phi",))
    meddled = refine(galloper, fitness=spec_of(True), budget=33, seed=4, genes=("phi",))
    assert (meddled.fitness, meddled.start_fitness) == (clean.fitness, clean.start_fitness)
    assert meddled.best.phi.tobytes() == clean.best.phi.tobytes()
    assert fingerprint(galloper) == before


def test_score_leaves_the_trajectory_it_is_given_as_it_was(galloper):
    spec = spec_of(True)
    trajectory = simulate(galloper, spec.world, spec.frames, record_every=10)
    positions = trajectory.positions.copy()
    plugin = registry.load_ref(spec.plugin)
    assert score(plugin, galloper, trajectory, spec, 3) == evaluate(galloper, spec_of(False), 3)
    assert trajectory.positions.tobytes() == positions.tobytes() and trajectory.positions.flags.writeable


def test_the_studio_scores_a_meddling_plugin_as_a_clean_one(galloper, monkeypatch):
    from evo.studio.limits import StudioLimits
    from evo.studio.looking import score_of

    monkeypatch.setattr(registry, "_REGISTERED", {})
    found = discover([str(MEDDLER)])["meddler"]
    registry.register_fitness("meddler", found.func, weights=(1.0,), record_every=10)
    before = fingerprint(galloper)
    clean = score_of(galloper, "meddler", {"meddle": False}, 300, StudioLimits())
    assert score_of(galloper, "meddler", {"meddle": True}, 300, StudioLimits()) == clean
    assert fingerprint(galloper) == before


@pytest.mark.parametrize("make", [np.ones, lambda n: np.ones(n)[::2], lambda n: np.frombuffer(bytes(8 * n))])
def test_a_sealed_array_and_every_base_below_it_refuse_to_become_writable(make):
    array = make(6)
    out = sealed(array)
    assert out.tobytes() == array.tobytes()
    while isinstance(out, np.ndarray):
        with pytest.raises(ValueError):
            out.setflags(write=True)
        out = out.base
    assert isinstance(out, bytes)
