"""The Race and Designs panels' endpoints (evo.studio.panels): a race request parsed by the schema engine
into a frozen record and refused in one line; answered through a real server with evo.race's distances
and the plugin's fitness (scored in the studio's worker), each labelled with the frame it counts from; the
start folder's model files listed by name, a race file left out, an unreadable file with its error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evo.errors import EvoInputError
from evo.io.models import creature_to_dict, load_model
from evo.race import run_race
from evo.race.models import race_of_creatures, scores_of
from evo.studio.designs import model_object
from evo.studio.limits import StudioLimits, TooLarge
from evo.studio.panels import MAX_CONTENDERS, MAX_DESIGNS, RaceRequest, design_listing
from evo.studio.requests import parse_request

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


def body(*names: str, **extra) -> dict:
    models = [creature_to_dict(load_model(GENOMES / name)) for name in names]
    return {"contenders": [{"model": m, "label": f"file {k}"} for k, m in enumerate(models)], **extra}


def test_a_race_through_the_server_is_evo_races_ranking_with_the_plugins_fitness(studio_factory, tmp_path):
    shutil.copy(GENOMES / "walker.json", tmp_path / "walker.json")
    server = studio_factory(str(tmp_path), cwd=tmp_path)
    status, answer = server.post("/api/race", body("walker.json", "galloper.json", frames=400))
    assert status == 200, answer
    creatures = [load_model(GENOMES / n) for n in ("walker.json", "galloper.json")]
    result = run_race(race_of_creatures(creatures, frames=400), finish_x=None)
    scores = scores_of(result, "distance")
    assert [row["distance"] for row in answer["contenders"]] == [s.distance for s in result.standings]
    for row in answer["contenders"]:
        assert row["fitness"] == list(scores[row["index"] - 1].fitness)
        assert row["label"] == f"file {row['index'] - 1}"
        assert row["fitness_label"] == scores[row["index"] - 1].label
    assert answer["distance_counted_from_frame"] == 0 and answer["fitness_counted_from_frame"] == 200
    status, answer = server.post("/api/race", {**body("walker.json"), "params": {"settle_frames": 50}})
    assert status == 200 and answer["fitness_counted_from_frame"] == 50
    status, answer = server.post("/api/race", {"contenders": [{"model": {"masses": "x"}}]})
    assert status == 400 and "contenders[0].model" in answer["error"]
    status, listing = server.get("/api/designs")
    assert status == 200 and [row["file"] for row in listing["designs"]] == ["walker.json"]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"contenders": []}, "contenders: expected a list of 1 to"),
        ({"contenders": [1]}, "contenders[0]: expected an object"),
        ({"contenders": [{"model": {}, "labl": "x"}]}, "contenders[0]: expected an object"),
        ({**body("walker.json"), "frames": 0}, "frames: expected"),
        ({**body("walker.json"), "plugin": 3}, "plugin: expected"),
        ({**body("walker.json"), "params": [1]}, "params: expected"),
        ({**body("walker.json"), "frame": 10}, "did you mean 'frames'"),
    ],
)
def test_a_bad_request_is_refused_in_one_line(payload, message):
    with pytest.raises(EvoInputError) as caught:
        parse_request(RaceRequest, payload)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_no_contender_too_many_or_too_many_frames_are_refused_when_the_race_is_built():
    with pytest.raises(EvoInputError, match="contenders: missing"):
        parse_request(RaceRequest, {}).creatures(StudioLimits())
    many = body("walker.json")
    many["contenders"] = many["contenders"] * (MAX_CONTENDERS + 1)
    with pytest.raises(EvoInputError, match="1 to 12"):
        parse_request(RaceRequest, many)
    request = parse_request(RaceRequest, {**body("walker.json", "galloper.json"), "frames": 600})
    with pytest.raises(TooLarge):
        request.creatures(StudioLimits(frames=1000))


def test_model_files_are_listed_by_name_with_their_models_and_errors(tmp_path: Path):
    shutil.copy(GENOMES / "walker.json", tmp_path / "b-walker.json")
    shutil.copy(GENOMES / "classic" / "crawler.xml", tmp_path / "a-crawler.xml")
    shutil.copy(GENOMES / "classic" / "race.xml", tmp_path / "race.xml")
    (tmp_path / "c-broken.json").write_text("{", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a model", encoding="utf-8")
    listing = design_listing(tmp_path, StudioLimits())
    assert [row["file"] for row in listing["designs"]] == ["a-crawler.xml", "b-walker.json", "c-broken.json"]
    crawler, walker, broken = listing["designs"]
    assert (
        walker["model"] == model_object(load_model(tmp_path / "b-walker.json")) and walker["name"] == "walker"
    )
    assert crawler["model"] == model_object(load_model(tmp_path / "a-crawler.xml"))
    assert "c-broken.json" in broken["error"] and "model" not in broken and listing["more"] == 0


def test_a_design_over_the_limits_or_too_many_files_are_said(tmp_path: Path):
    for k in range(MAX_DESIGNS + 2):
        shutil.copy(GENOMES / "walker.json", tmp_path / f"w{k:03}.json")
    listing = design_listing(tmp_path, StudioLimits(masses=3))
    assert len(listing["designs"]) == MAX_DESIGNS and listing["more"] == 2
    assert "at most 3" in listing["designs"][0]["error"]
    assert design_listing(None, StudioLimits()) == {"folder": None, "designs": [], "more": 0}
