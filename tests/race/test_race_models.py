"""A race of creatures (evo.race.models): each in its own world or on a given terrain, run as evo.simulate
runs it, and each scored by a plugin from the frame the plugin says."""

from __future__ import annotations

from pathlib import Path

import pytest

import evo
from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.race import run_race
from evo.race.models import MAX_MODELS, race_of_creatures, race_of_models, scores_of
from evo.sim.placement import stand_on_ground

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


def test_each_creature_races_in_its_own_world_as_evo_simulate_runs_it():
    walker = load_model(GENOMES / "walker.json")
    heavy = walker.replace(name="heavy", world={"gravity": 0.8})
    result = run_race(race_of_creatures([walker, heavy], frames=400))
    for creature, standing in zip(
        (walker, heavy), sorted(result.standings, key=lambda s: s.index), strict=True
    ):
        world = evo.World.from_model(creature)
        trajectory = evo.simulate(stand_on_ground(creature, world), world, 400)
        assert standing.distance == float(trajectory.centroids[-1, 0] - trajectory.centroids[0, 0])
    assert result.worlds[1].gravity == 0.8 and result.finish_x is None


def test_a_given_terrain_replaces_every_contenders_own():
    walker = load_model(GENOMES / "walker.json")
    bar = ((300.0, 0.0), (400.0, 60.0))
    own = walker.replace(world={"terrain": [[[10, 0], [20, 5]]]})
    race = race_of_creatures([walker, own], terrain=[bar], frames=300)
    assert [race.ruled(k).world["terrain"] for k in range(2)] == [[[list(p) for p in bar]]] * 2
    assert run_race(race).finish_x == 400.0, "the terrain's end is the finish line"


def test_scores_count_from_the_plugins_settle_frame_and_the_race_distance_from_frame_0():
    result = run_race(race_of_models([GENOMES / "walker.json"], frames=500))
    (score,) = scores_of(result, "distance", {"settle_frames": 120})
    centroids = evo.simulate(result.creatures[0], result.worlds[0], 500).centroids
    assert score.counted_from == 120 and score.fitness == (float(centroids[-1, 0] - centroids[120, 0]),)
    assert result.standings[0].distance == float(centroids[-1, 0] - centroids[0, 0])
    assert score.label == f"distance {score.fitness[0]:.6g}" and not score.exploded


def test_an_empty_or_oversized_race_and_a_terrain_without_bars_are_refused(tmp_path: Path):
    walker = load_model(GENOMES / "walker.json")
    with pytest.raises(EvoInputError, match="at least one model"):
        race_of_creatures([], frames=10)
    with pytest.raises(EvoInputError, match=f"at most {MAX_MODELS} models"):
        race_of_creatures([walker] * (MAX_MODELS + 1), frames=10)
    with pytest.raises(EvoInputError, match="terrain"):
        race_of_models([GENOMES / "walker.json"], terrain=GENOMES / "classic" / "crawler.xml", frames=10)
