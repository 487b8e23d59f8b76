"""Files through the studio: classic XML and evo JSON open as evo reads them and save back without loss;
saves are confined to the start folder and never replace a file unasked; validate, analyze and score."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

import evo
from evo.analysis import natural_modes
from evo.io.models import creature_to_dict
from evo.io.soda_xml import read_terrain
from evo.run.rescore import rescore

CLASSIC = Path(__file__).resolve().parents[2] / "genomes" / "classic"
NOT_MODELS = ("hills.xml", "race.xml")  # terrain only; a race of several models
MODELS = sorted(p.name for p in CLASSIC.glob("*.xml") if p.name not in NOT_MODELS)


def _object(path: Path) -> dict:
    return json.loads(json.dumps(creature_to_dict(evo.load_model(path))))


@pytest.mark.parametrize("name", MODELS)
def test_a_classic_file_opens_as_evo_reads_it_and_its_xml_export_reopens_unchanged(studio, name):
    path = CLASSIC / name
    status, opened = studio.post(
        "/api/open", {"filename": name, "base64": base64.b64encode(path.read_bytes()).decode()}
    )
    assert status == 200 and opened["format"] == "xml"
    assert opened["model"] == _object(path)
    status, exported = studio.post("/api/export", {"model": opened["model"], "format": "xml"})
    assert status == 200 and exported["filename"].endswith(".xml")
    status, again = studio.post("/api/open", {"filename": exported["filename"], "text": exported["text"]})
    assert status == 200 and again["model"] == opened["model"]
    status, exported_again = studio.post("/api/export", {"model": again["model"], "format": "xml"})
    assert exported_again["text"] == exported["text"]


def test_a_classic_file_sent_as_decoded_text_keeps_its_accents(studio):
    text = (CLASSIC / "crawler.xml").read_bytes().decode("iso-8859-1")  # the file declares ISO-8859-1
    status, opened = studio.post("/api/open", {"filename": "crawler.xml", "text": text})
    assert status == 200 and "à gauche" in opened["model"]["meta"]["comment"]


def test_a_json_model_round_trips_through_open_and_export(studio, tmp_path):
    model = _object(CLASSIC / "strider.xml")
    status, exported = studio.post("/api/export", {"model": model, "format": "json"})
    assert status == 200
    (tmp_path / "s.json").write_text(exported["text"])
    assert _object(tmp_path / "s.json") == model
    status, opened = studio.post("/api/open", {"filename": "s.json", "text": exported["text"]})
    assert status == 200 and opened["format"] == "json" and opened["model"] == model


def test_what_evo_skips_in_a_classic_file_comes_back_as_warnings(studio):
    text = (
        (CLASSIC / "hopper.xml").read_text(encoding="iso-8859-1").replace("<model>", '<model soundon="1">', 1)
    )
    status, opened = studio.post("/api/open", {"filename": "hopper.xml", "text": text})
    assert status == 200
    assert any("soundon" in w for w in opened["warnings"])


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        ("bad.json", "{", "not valid JSON"),
        ("bad.xml", "<model><nodes>", "not well-formed XML"),
        ("evil.xml", '<!DOCTYPE m [<!ENTITY e "x">]><model>&e;</model>', "entit"),
        ("hills.xml", (CLASSIC / "hills.xml").read_text(encoding="iso-8859-1"), "no masses"),
    ],
)
def test_a_bad_upload_is_a_one_line_400_naming_the_file(studio, filename, text, expected):
    status, body = studio.post("/api/open", {"filename": filename, "text": text})
    assert status == 400
    assert body["error"].startswith(filename) and expected in body["error"] and "\n" not in body["error"]


def test_save_writes_atomically_and_never_replaces_a_file_unasked(studio):
    folder = Path(json.loads(json.dumps(studio.get("/api/session")[1]["path"]))).parent
    model = _object(CLASSIC / "pacer.xml")
    status, body = studio.post("/api/save", {"model": model, "format": "json", "path": "pacer.json"})
    assert status == 200 and Path(body["path"]) == folder / "pacer.json"
    assert _object(folder / "pacer.json") == model
    changed = {**model, "name": "changed"}
    status, body = studio.post("/api/save", {"model": changed, "format": "json", "path": "pacer.json"})
    assert status == 409 and body["exists"] is True
    assert _object(folder / "pacer.json")["name"] == model["name"]
    status, _ = studio.post("/api/save", {"model": changed, "path": "pacer.json", "overwrite": True})
    assert status == 200 and _object(folder / "pacer.json")["name"] == "changed"


def test_save_without_a_path_writes_the_opened_file_in_its_format(studio):
    _, session = studio.get("/api/session")
    path = Path(session["path"])
    before = path.read_bytes()
    status, body = studio.post("/api/save", {"model": session["model"]})
    assert status == 409 and body["exists"] is True
    status, _ = studio.post("/api/save", {"model": session["model"], "overwrite": True})
    assert status == 200
    assert _object(path) == session["model"] and path.read_bytes() != before  # rewritten by evo, same model


@pytest.mark.parametrize("path", ["../outside.json", "/tmp/outside.json", "sub/../../outside.json"])
def test_save_refuses_a_path_outside_the_start_folder(studio, path):
    status, body = studio.post("/api/save", {"model": _object(CLASSIC / "pacer.xml"), "path": path})
    assert status == 400 and "outside the folder" in body["error"]


@pytest.mark.parametrize("path", ["a\x00b.json", "y" * 300 + ".json"])
def test_save_to_a_name_the_system_cannot_take_is_a_one_line_400(studio, path):
    status, body = studio.post("/api/save", {"model": _object(CLASSIC / "pacer.xml"), "path": path})
    assert status == 400 and "\n" not in body["error"] and "internal error" not in body["error"]


def test_save_is_refused_when_the_studio_was_started_on_nothing(studio_factory, tmp_path):
    server = studio_factory(cwd=tmp_path)
    status, body = server.post("/api/save", {"model": _object(CLASSIC / "pacer.xml"), "path": "x.json"})
    assert status == 409 and "download" in body["error"]
    assert list(tmp_path.iterdir()) == []


def test_validate_says_what_evo_validate_says(studio):
    model = _object(CLASSIC / "strider.xml")
    status, body = studio.post("/api/validate", {"model": model})
    assert status == 200 and body["errors"] == [] and "masses" in body["summary"]
    assert body["stability"]["stable"] is True
    broken = {**model, "links": [{**model["links"][0], "rest": -1.0}, *model["links"][1:]]}
    _, body = studio.post("/api/validate", {"model": broken})
    assert body["errors"] and "links[0].rest" in body["errors"][0]
    shaky = {**model, "world": {**model.get("world", {}), "dt": 8.0}}
    _, body = studio.post("/api/validate", {"model": shaky})
    assert body["errors"] == [] and "stability limit" in body["warnings"][0]


def test_analyze_gives_the_frequencies_of_evo_analyze_and_one_shape_per_frequency(studio):
    path = CLASSIC / "pacer.xml"
    status, body = studio.post("/api/analyze", {"model": _object(path)})
    assert status == 200
    creature = evo.load_model(path)
    modes = natural_modes(creature, evo.World.from_model(creature))
    assert body["frequencies"] == modes.frequencies.tolist()
    assert len(body["shapes"]) == len(body["frequencies"])
    assert all(len(shape) == creature.n_masses for shape in body["shapes"])


def test_score_gives_the_fitness_evo_simulate_gives(studio):
    path = CLASSIC / "strider.xml"
    status, body = studio.post(
        "/api/score",
        {"model": _object(path), "plugin": "distance", "frames": 500, "params": {"settle_frames": 100}},
    )
    assert status == 200 and body["exploded"] is False
    expected = rescore(evo.load_model(path), "distance", frames=500, params={"settle_frames": 100})
    assert body["fitness"] == list(expected.fitness)
    assert body["label"].startswith("distance in 500 frames: ")


def test_score_with_an_unknown_plugin_is_a_one_line_400(studio):
    status, body = studio.post("/api/score", {"model": _object(CLASSIC / "strider.xml"), "plugin": "nope"})
    assert status == 400 and "nope" in body["error"]


def test_a_terrain_file_gives_the_polylines_evo_reads_from_its_fixed_bars(studio):
    path = CLASSIC / "hills.xml"
    status, body = studio.post(
        "/api/terrain", {"filename": "hills.xml", "base64": base64.b64encode(path.read_bytes()).decode()}
    )
    assert status == 200
    assert body["terrain"] == [[list(point) for point in line] for line in read_terrain(path)]
    status, body = studio.post(
        "/api/terrain",
        {"filename": "pacer.xml", "text": (CLASSIC / "pacer.xml").read_text(encoding="iso-8859-1")},
    )
    assert status == 400 and "fixedbar" in body["error"]
