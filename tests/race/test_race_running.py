"""Running a race (issue 20): each contender as ``evo simulate`` runs it in the race's world, stopped at the
finish line; finishers ranked by frames, then the others by distance, the exploded last; a run's elites
as a race file that, run for the run's frames, gives each elite the distance ``evo simulate`` gives it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.io.soda_race import Contender, Race, read_race, write_race
from evo.race import finish_line, race_of_run, run_race
from evo.sim import World, simulate
from evo.sim.placement import stand_on_ground

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"
EXAMPLE = CLASSIC / "race.xml"


def simulated_distance(creature, frames):
    world = World.from_model(creature)
    trajectory = simulate(stand_on_ground(creature, world), world, frames)
    return trajectory.centroids[-1, 0] - trajectory.centroids[0, 0]


def test_the_example_race_ranks_finishers_by_frames_then_the_rest_by_distance():
    result = run_race(read_race(EXAMPLE))
    assert result.finish_x == 1500.0 == finish_line(read_race(EXAMPLE)) and result.frames == 5000
    ranks = [(s.name, s.finished) for s in result.standings]
    assert ranks == [("roller", True), ("strider", True), ("hopper", False), ("crawler", False)]
    finishers = [s for s in result.standings if s.finished]
    assert finishers[0].frames < finishers[1].frames
    rest = [s for s in result.standings if not s.finished]
    assert rest[0].distance > rest[1].distance and all(s.frames == 5000 for s in rest)
    for s in finishers:  # stopped on the frame its centroid reached the line, not one later
        trajectory = result.trajectories[s.index - 1]
        cx = trajectory.centroids[:, 0]
        assert cx[-1] >= 1500.0 > cx[-2] and trajectory.frames[-1] == s.frames
        assert s.distance == pytest.approx(cx[-1] - cx[0], abs=0)


def test_a_contender_runs_exactly_as_evo_simulate_runs_it_in_the_race_world():
    race = read_race(EXAMPLE)
    result = run_race(race, frames=700, finish_x=None)
    for s in result.standings:
        assert s.distance == simulated_distance(race.ruled(s.index - 1), 700)


def test_without_a_finish_line_everyone_runs_every_frame_and_is_ranked_by_distance():
    result = run_race(read_race(EXAMPLE), frames=400, finish_x=None)
    assert result.finish_x is None and not any(s.finished for s in result.standings)
    distances = [s.distance for s in result.standings]
    assert distances == sorted(distances, reverse=True)
    assert result.to_dict()["finish_x"] is None and result.to_dict()["frames"] == 400


def test_a_finish_line_given_moves_who_finishes():
    far = run_race(read_race(EXAMPLE), frames=2000)
    near = run_race(read_race(EXAMPLE), frames=2000, finish_x=100.0)
    assert not any(s.finished for s in far.standings)
    assert {s.name for s in near.standings if s.finished} >= {"strider", "roller"}
    crawler = next(s for s in near.standings if s.name == "crawler")
    assert not crawler.finished and crawler.frames == 2000  # it starts past x = 100 and walks left


def test_an_exploding_contender_is_flagged_and_ranked_last():
    race = read_race(EXAMPLE)
    hopper = race.contenders[1].creature
    wild = hopper.replace(world={**hopper.world, "stiffness": 0.5}, rest=hopper.rest * 3, name="wild")
    wild = wild.replace(world={**wild.world, "max_speed": 0.5})
    result = run_race(Race(contenders=(race.contenders[3], Contender(wild), race.contenders[0])), frames=800)
    last = result.standings[-1]
    assert last.name == "wild" and last.exploded and last.exploded_frame is not None
    assert last.frames == last.exploded_frame < 800
    assert [s.exploded for s in result.standings[:-1]] == [False, False]
    assert json.loads(json.dumps(result.to_dict()))["contenders"][-1]["exploded"] is True


def test_frames_out_of_range_are_refused():
    with pytest.raises(EvoInputError, match="frames"):
        run_race(read_race(EXAMPLE), frames=0)
    with pytest.raises(EvoInputError, match="finish line"):
        run_race(read_race(EXAMPLE), finish_x=float("nan"))


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    from evo import evolve

    folder = tmp_path_factory.mktemp("race-run") / "run"
    config = {
        "run": {"name": "racers", "seed": 3, "generations": 2, "population": 12},
        "evaluation": {"frames": 600, "plugin": "distance", "params": {"settle_frames": 50}},
        "world": {"max_speed": 50.0, "terrain": [[[200.0, 0.0], [260.0, 6.0], [320.0, 0.0]]]},
        "pool": {"workers": 1},
    }
    evolve(config, out=folder, progress=False)
    return folder


def test_a_runs_elites_as_a_race_cover_what_evo_simulate_says(small_run, tmp_path):
    """Bit for bit: where no decimal of the dialect carries an evolved phase or omega exactly, the file
    carries evo's radians beside it (phi, omega, theta0)."""
    race = race_of_run(small_run, top=4)
    assert len(race.contenders) == 4 and race.timeout == 600
    assert race.terrain == (((200.0, 0.0), (260.0, 6.0), (320.0, 0.0)),)
    path = tmp_path / "race.xml"
    write_race(race, path)
    back = read_race(path)
    result = run_race(back, frames=600, finish_x=None)
    elites = sorted((small_run / "elites").glob("*.json"))[:4]
    for s in result.standings:
        elite = load_model(elites[s.index - 1])
        assert s.distance == simulated_distance(elite, 600), s.name


def with_first_elite(monkeypatch, change):
    """Make :func:`race_of_run` see the run with its best elite's creature changed by ``change``."""
    import dataclasses

    import evo.race.from_run as from_run

    real = from_run.read_run

    def changed_run(path):
        run = real(path)
        first = dataclasses.replace(run.elites[0], creature=change(run.elites[0].creature))
        return dataclasses.replace(run, elites=[first, *run.elites[1:]])

    monkeypatch.setattr(from_run, "read_run", changed_run)


def test_a_run_whose_world_a_race_file_cannot_hold_is_refused(small_run, monkeypatch):
    with_first_elite(monkeypatch, lambda c: c.replace(world={**c.world, "integrator": "rk4"}))
    with pytest.raises(EvoInputError, match="cannot hold integrator = 'rk4'"):
        race_of_run(small_run)


def test_per_link_stiffness_cannot_go_in_a_race(small_run, monkeypatch):
    with_first_elite(monkeypatch, lambda c: c.replace(stiffness=np.full(c.n_links, 2.0)))
    with pytest.raises(EvoInputError, match="per-link stiffness"):
        race_of_run(small_run)
