import json

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.io.models import creature_from_dict, creature_to_dict, load_model, save_model
from evo.model import DEFAULT_POLYGON_COLOR, Polygon

ISSUE_EXAMPLE = {
    "format": "evo-model",
    "version": 1,
    "name": "walker",
    "masses": [
        {"x": 10.0, "y": 40.0},
        {"x": 60.0, "y": 40.0, "vx": 0.5, "vy": 0.0},
        {"x": 35.0, "y": 300.0, "fixed": True},
    ],
    "links": [{"a": 0, "b": 1, "rest": 50.0}, {"a": 1, "b": 2, "rest": 45.0, "alpha": 0.5, "phi": 1.5708}],
    "wave": {"omega": 0.0764, "beta": 0.5},
    "world": {"gravity": 0.38},
    "meta": {"anything": [1, {"nested": True}]},
}


def test_the_documented_example_round_trips_through_a_file(tmp_path):
    creature = creature_from_dict(ISSUE_EXAMPLE)
    assert creature.n_masses == 3 and creature.n_links == 2 and creature.n_muscles == 1
    assert creature.fixed.tolist() == [False, False, True]
    path = tmp_path / "walker.json"
    save_model(creature, path)
    assert json.loads(path.read_text()) == ISSUE_EXAMPLE
    again = load_model(path)
    np.testing.assert_array_equal(again.positions, creature.positions)
    assert again.meta == ISSUE_EXAMPLE["meta"]


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (
            lambda d: d["links"][1].update(rest=-1.0),
            "x.json: links[1].rest: expected a number in [0, 1e+09], got -1.0",
        ),
        (lambda d: d["links"][0].update(rset=3), "unknown key 'rset' in links[0]; did you mean 'rest'?"),
        (lambda d: d["links"][0].update(b=0), "x.json: links[0]: expected two different masses"),
        (lambda d: d["links"][0].update(b=7), "x.json: links[0].b: expected a mass index in 0..2, got 7"),
        (lambda d: d["links"][1].update(alpha=1.5), "links[1].alpha: expected a number in [0, 1], got 1.5"),
        (lambda d: d["masses"][2].update(fixed="yes"), "masses[2].fixed: expected true or false"),
        (lambda d: d["masses"][0].pop("y"), "masses[0].y: missing"),
        (lambda d: d["wave"].update(beta=2), "wave.beta: expected a number in [0, 1], got 2"),
        (lambda d: d["world"].update(gravty=1), "unknown key 'gravty' in world; did you mean 'gravity'?"),
        (lambda d: d["world"].update(stiffness=-1), "world.stiffness: expected a number > 0, got -1"),
        (lambda d: d.update(version=2), "x.json: version: expected 1, got 2"),
        (lambda d: d.update(mases=[]), "unknown key 'mases' in the model; did you mean 'masses'?"),
        (lambda d: d.update(version=True), "x.json: version: expected 1, got True"),
        (lambda d: d.update(version=1.0), "x.json: version: expected 1, got 1.0"),
        # integers too large for a float are not finite numbers (and no OverflowError escapes)
        (lambda d: d["masses"][0].update(x=10**400), "masses[0].x: expected a number in [-1e+09, 1e+09]"),
        (lambda d: d["wave"].update(omega=10**400), "wave.omega: expected a number >= 0, got 1000"),
        (lambda d: d["world"].update(gravity=10**400), "world.gravity: expected a number >= 0, got 10000"),
        (
            lambda d: d["world"].update(terrain=[[0, 0], [10**400, 1]]),
            "world.terrain: expected a polyline [[x, y], ...] or a list of polylines",
        ),
        (
            lambda d: d["world"].update(ground={"type": "slope", "angle": 10**400}),
            "world.ground.angle: expected a number in (-90, 90), got 1000",
        ),
        (lambda d: d["world"].update(ground=[[0, 0], [10**400, 1]]), "world.ground: expected a polyline"),
    ],
)
def test_a_bad_model_gives_one_line_naming_file_field_and_expectation(mutate, expected):
    doc = json.loads(json.dumps(ISSUE_EXAMPLE))
    mutate(doc)
    with pytest.raises(EvoInputError) as info:
        creature_from_dict(doc, source="x.json")
    message = str(info.value)
    assert expected in message
    assert "\n" not in message


def test_meta_may_hold_any_keys_and_survives_unchanged():
    doc = json.loads(json.dumps(ISSUE_EXAMPLE))
    doc["meta"] = {"fitness": [1.5, 2.0], "whatever_key": {"x": None}}
    assert creature_to_dict(creature_from_dict(doc))["meta"] == doc["meta"]


def test_parallel_links_are_allowed_but_self_links_are_not():
    doc = json.loads(json.dumps(ISSUE_EXAMPLE))
    doc["links"].append({"a": 1, "b": 0, "rest": 20.0})
    assert creature_from_dict(doc).n_links == 3


def test_a_file_nested_too_deeply_for_the_parser_is_a_one_line_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(EvoInputError, match=r"deep.json: not valid JSON: nested too deeply$"):
        load_model(path)


def test_a_key_given_twice_in_one_object_is_an_error_not_a_silent_overwrite(tmp_path):
    path = tmp_path / "twice.json"
    text = json.dumps(ISSUE_EXAMPLE).replace('"rest": 50.0', '"rest": 50.0, "rest": 5.0')
    path.write_text(text)
    with pytest.raises(
        EvoInputError, match=r"twice.json: not valid JSON: the key 'rest' is given twice in one object"
    ):
        load_model(path)


# -- polygons ------------------------------------------------------------------------------------
def with_polys(polys):
    return {**json.loads(json.dumps(ISSUE_EXAMPLE)), "polys": polys}


def test_polygons_read_as_plain_index_lists_or_as_objects_with_colour_and_curve():
    creature = creature_from_dict(
        with_polys(
            [[0, 1, 2], {"masses": [2, 1, 0], "color": "#770000", "curvy": True}, {"masses": [1, 0, 2]}]
        )
    )
    assert creature.polys == (
        Polygon((0, 1, 2)),
        Polygon((2, 1, 0), "#770000", True),
        Polygon((1, 0, 2)),
    )
    assert creature.polys[0].fill == DEFAULT_POLYGON_COLOR and creature.polys[1].fill == "#770000"


def test_a_polygon_without_colour_or_curve_is_written_as_before_and_the_others_as_objects(tmp_path):
    polys = [
        [0, 1, 2],
        {"masses": [2, 1, 0], "color": "#abc", "curvy": True},
        {"masses": [0, 2], "color": "#00ff00"},
    ]
    path = tmp_path / "m.json"
    save_model(creature_from_dict(with_polys(polys)), path)
    assert json.loads(path.read_text())["polys"] == polys
    assert "\n  [0, 1, 2],\n" in path.read_text()  # one polygon a line, the old form unchanged
    save_model(load_model(path), tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == path.read_text()


@pytest.mark.parametrize(
    "polys, expected",
    [
        ({"masses": [0, 1]}, "x.json: polys: expected a list of polygons"),
        ([[0, 1, 3]], "x.json: polys[0][2]: expected a mass index in 0..2, got 3"),
        ([[0, True, 1]], "x.json: polys[0][1]: expected a mass index in 0..2, got True"),
        (
            [{"masses": [0, 1, 2], "colour": "#fff"}],
            "unknown key 'colour' in polys[0]; did you mean 'color'?",
        ),
        ([{"color": "#fff"}], "x.json: polys[0].masses: missing (expected a list of mass indices)"),
        (
            [{"masses": [0, 1, 2], "color": "red"}],
            "x.json: polys[0].color: expected a colour #rrggbb or #rgb",
        ),
        ([{"masses": [0, 1, 2], "curvy": 1}], "x.json: polys[0].curvy: expected true or false, got 1"),
        ([{"masses": [0, 1, 9]}], "x.json: polys[0].masses[2]: expected a mass index in 0..2, got 9"),
        (["0 1 2"], "x.json: polys[0]: expected a list of mass indices or a polygon object, got '0 1 2'"),
    ],
)
def test_a_bad_polygon_is_a_one_line_error_naming_it(polys, expected):
    with pytest.raises(EvoInputError) as info:
        creature_from_dict(with_polys(polys), source="x.json")
    assert expected in str(info.value) and "\n" not in str(info.value)
