"""A 15-generation walkers run breeds, evaluates and keeps exactly what it did before the GA's variation
and bookkeeping were made faster (issue 18, target 4): the same populations, fitnesses, ids, parents and
plugin seeds every generation, and the same hall of fame, recorded as SHA-256 digests on main."""

import hashlib
from pathlib import Path

import pytest

from evo.fitness.evaluate import evaluate
from evo.ga.brood import breed
from evo.ga.search import ChildResult
from evo.io.models import dumps_model
from evo.run.config import load_config
from evo.run.folder.writer import prepare

WALKERS = Path(__file__).resolve().parents[2] / "examples" / "walkers.toml"
PHYSICS = {
    "genome": {"link_stiffness": [0.5, 2.0], "link_dashpot": [0.0, 0.2], "mass": [0.5, 2.0]},
    "ga": {"rate_physics": 0.3},
}
# recorded on main at 4858eab (before this work), with the recorder below
RECORDED = {
    "walkers": "cb38a9322db131f7a555f5dd2d4deae2332e9e888bf9a5763ecf6dcc7f02c518",
    "walkers with per-link and per-mass physics": (
        "8873380e8b9b1815998df807e758c3d61cf0e1637eee7608cb46d207b4a1b6e6"
    ),
}


def run_digest(config, generations: int) -> str:
    """SHA-256 over each generation's population (model JSON, id, raw fitness, parents, plugin seed)
    and the final hall of fame (ids and fitnesses)."""
    spec = config.evaluation_spec()
    evolution = prepare(config).evolution
    digest = hashlib.sha256()
    for _ in range(generations):
        broods = evolution.ask().broods
        kids = [breed(brood, config.genome, config.ga, world=spec.world) for brood in broods]
        evolution.tell(
            [
                ChildResult() if kid is None else ChildResult(kid, evaluate(kid, spec, seed))
                for group, b in zip(kids, broods, strict=True)
                for kid, seed in zip(group, b.plugin_seeds, strict=True)
            ]
        )
        for ind in evolution.population:
            digest.update(dumps_model(ind.creature).encode())
            digest.update(repr((ind.id, ind.values, ind.parents, ind.seed)).encode())
    for ind in evolution.hall_of_fame:
        digest.update(repr((ind.id, ind.values)).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("name", list(RECORDED))
def test_a_15_generation_walkers_run_gives_the_populations_fitnesses_and_ids_recorded_on_main(name):
    config = load_config(WALKERS).replace(run={"generations": 15}, pool={"workers": 1})
    if "physics" in name:
        config = config.replace(**PHYSICS)
    assert run_digest(config, 15) == RECORDED[name]
