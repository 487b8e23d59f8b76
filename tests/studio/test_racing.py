"""The Race panel's request (evo.studio.racing): parsed into a frozen record, refused in one line, and
answered with evo.race's distances and the plugin's fitness, each labelled with the frame it counts from."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.errors import EvoInputError
from evo.io.models import creature_to_dict, load_model
from evo.race import run_race
from evo.race.models import race_of_creatures, scores_of
from evo.studio.limits import StudioLimits, TooLarge
from evo.studio.racing import MAX_CONTENDERS, RaceRequest, race_answer

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


def body(*names: str, **extra) -> dict:
    models = [creature_to_dict(load_model(GENOMES / name)) for name in names]
    return {"contenders": [{"model": m, "label": f"file {k}"} for k, m in enumerate(models)], **extra}


def test_the_answer_is_evo_races_ranking_with_the_plugins_fitness_beside_it():
    request = RaceRequest.parse(body("walker.json", "galloper.json", frames=400), StudioLimits())
    answer = race_answer(request)
    creatures = [load_model(GENOMES / n) for n in ("walker.json", "galloper.json")]
    result = run_race(race_of_creatures(creatures, frames=400), finish_x=None)
    scores = scores_of(result, "distance")
    assert [row["distance"] for row in answer["contenders"]] == [s.distance for s in result.standings]
    for row in answer["contenders"]:
        assert row["fitness"] == list(scores[row["index"] - 1].fitness)
        assert row["label"] == f"file {row['index'] - 1}"
    assert answer["distance_counted_from_frame"] == 0 and answer["fitness_counted_from_frame"] == 200


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([], "the request body must be a JSON object"),
        ({"contenders": []}, "contenders: expected a list of 1 to"),
        ({"contenders": [1]}, "contenders[0]: expected an object"),
        ({"contenders": [{"model": {"masses": "x"}}]}, "contenders[0].model"),
        ({**body("walker.json"), "frames": 0}, "frames: expected an integer >= 1"),
        ({**body("walker.json"), "plugin": 3}, "plugin: expected a plugin name"),
        ({**body("walker.json"), "params": [1]}, "params: expected a JSON object"),
    ],
)
def test_a_bad_request_is_refused_in_one_line(payload, message):
    with pytest.raises(EvoInputError, match=None) as caught:
        RaceRequest.parse(payload, StudioLimits())
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_too_many_contenders_or_frames_are_over_the_limits():
    many = body("walker.json")
    many["contenders"] = many["contenders"] * (MAX_CONTENDERS + 1)
    with pytest.raises(EvoInputError, match="1 to 12"):
        RaceRequest.parse(many, StudioLimits())
    with pytest.raises(TooLarge):
        RaceRequest.parse({**body("walker.json", "galloper.json"), "frames": 600}, StudioLimits(frames=1000))
