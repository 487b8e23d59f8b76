import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import pytest

from evo.errors import EvoInputError
from evo.fitness import check_params
from evo.fitness.protocol import Plugin
from evo.schema import (
    check,
    check_fields,
    describe,
    field_label,
    number_problem,
    parse_section,
    section_to_dict,
    setting,
    understood,
)
from evo.sim.ground import parse_ground
from evo.sim.world import World


@dataclass(frozen=True)
class RunSection:
    name: str = setting("run")
    seed: int = setting(1, low=0)
    population: int = setting(120, low=2)
    rate: float = setting(0.5, low=0.0, high=1.0)
    box: tuple[float, float] = setting((0.0, 1.0))
    mode: str = setting("a", choices=("a", "b"))
    limit: float | None = setting(None, low=0.0, open_low=True)
    paths: tuple[str, ...] = setting(())
    count: int = setting(3, low=1, high=100)


def test_a_valid_table_fills_a_frozen_section_and_back():
    section = parse_section(
        RunSection, {"seed": 3, "rate": 1, "box": [1, 2]}, source="c.toml", table_name="run"
    )
    assert section.seed == 3 and section.rate == 1.0 and section.box == (1.0, 2.0)
    assert isinstance(section.rate, float)
    assert section_to_dict(section)["box"] == [1.0, 2.0]


@pytest.mark.parametrize(
    "table, message",
    [
        ({"populaton": 5}, "c.toml: unknown key 'populaton' in [run]; did you mean 'population'?"),
        ({"population": 1}, "c.toml: [run] population: expected an integer >= 2, got 1"),
        ({"population": 2.5}, "c.toml: [run] population: expected an integer >= 2, got 2.5"),
        ({"seed": True}, "c.toml: [run] seed: expected an integer >= 0, got True"),
        ({"rate": 3}, "c.toml: [run] rate: expected a number in [0, 1], got 3"),
        ({"box": [1]}, "c.toml: [run] box: expected a list of 2 finite numbers, got [1]"),
        ({"mode": "c"}, "c.toml: [run] mode: expected one of 'a', 'b', got 'c'"),
        ({"limit": 0}, "c.toml: [run] limit: expected a number > 0, got 0"),
        ({"limit": 10**400}, "c.toml: [run] limit: expected a number > 0, got " + "1" + "0" * 56 + "..."),
        ({"paths": "x"}, "c.toml: [run] paths: expected a list of strings, got 'x'"),
        ({"name": ["a", "b"]}, "c.toml: [run] name: expected a string, got ['a', 'b']"),
    ],
)
def test_bad_values_give_one_line_naming_file_table_key_and_expectation(table, message):
    with pytest.raises(EvoInputError) as info:
        parse_section(RunSection, table, source="c.toml", table_name="run")
    assert str(info.value) == message


@pytest.mark.parametrize(
    "value, bounds, expected",
    [
        (1.7, {"low": 0, "high": 1}, "expected a number in [0, 1], got 1.7"),
        (-1, {"low": 0.0, "open_low": True}, "expected a number > 0, got -1"),
        (True, {}, "expected a finite number, got True"),
        (float("nan"), {"low": 0}, "expected a number >= 0, got nan"),
        (25, {"integer": True, "low": 2, "high": 20}, "expected an integer in [2, 20], got 25"),
        (2.0, {"integer": True}, "expected an integer, got 2.0"),
        (10**400, {}, "expected a finite number, got " + "1" + "0" * 56 + "..."),
    ],
)
def test_number_problems_are_worded_the_same_everywhere(value, bounds, expected):
    assert number_problem(value, **bounds) == expected


@pytest.mark.parametrize("value, bounds", [(0.5, {"low": 0, "high": 1}), (3, {"integer": True, "low": 2})])
def test_a_number_within_its_bounds_has_no_problem(value, bounds):
    assert number_problem(value, **bounds) is None


# -- one wording out of every validator -------------------------------------------------------------------


def _probe(result, *, rate: float = 0.5, count: int = 3):
    """Probe."""
    return 0.0


PROBE = Plugin("probe", _probe, (1.0,), 10.0, ("probe",), {"rate": 0.5, "count": 3}, "Probe.")


def _section(key, value):
    parse_section(RunSection, {key: value}, source="c.toml", table_name="run")


def _world(key, value):
    World().updated({key: value}, source="c.toml", where="[world]")


def _world_made_directly(key, value):
    World(**{key: value})


def _ground(key, value):
    table = (
        {"type": "slope", "angle": 5.0} if key == "angle" else {"type": "steps", "height": 5.0, "width": 10.0}
    )
    parse_ground({**table, key: value}, source="c.toml", field="world.ground")


def _params(key, value):
    check_params(PROBE, {key: value}, source="c.toml")


# (how a value is checked, the label its problem is shown under, the number field, the integer field)
VALIDATORS = {
    "parse_section": (
        _section,
        "c.toml: [run] {key}: ",
        ("rate", {"low": 0, "high": 1}),
        ("count", {"low": 1, "high": 100}),
    ),
    "World.updated": (
        _world,
        "c.toml: [world] {key}: ",
        ("restitution_normal", {"low": 0, "high": 1}),
        ("psm_order", {"low": 2, "high": 20}),
    ),
    "World()": (
        _world_made_directly,
        "{key}: ",
        ("restitution_tangential", {"low": 0, "high": 1}),
        ("newton_iterations", {"low": 1, "high": 100}),
    ),
    "parse_ground": (
        _ground,
        "c.toml: world.ground.{key}: ",
        ("angle", {"low": -90, "high": 90, "open_low": True, "open_high": True}),
        ("count", {"low": 1, "high": 10000}),
    ),
    "check_params": (_params, "c.toml: [evaluation.params] {key}: ", ("rate", {}), ("count", {})),
}
NUMBERS = [True, math.nan, math.inf, -math.inf, -1000, 1000, 10**400, "3", None, [1]]
INTEGERS = [True, 2.5, 3.0, -1000, 10**400, "3", None]


@pytest.mark.parametrize("validator", sorted(VALIDATORS))
@pytest.mark.parametrize("value", NUMBERS, ids=repr)
def test_a_number_is_taken_or_refused_in_the_same_words_by_every_validator(validator, value):
    check_value, label, (key, bounds), _ = VALIDATORS[validator]
    problem = number_problem(value, **bounds)
    if problem is None:  # a good value for this field: every validator takes it
        check_value(key, value)
        return
    with pytest.raises(EvoInputError) as info:
        check_value(key, value)
    message = str(info.value).removesuffix(" (plugin 'probe')")
    assert message == label.format(key=key) + problem


@pytest.mark.parametrize("validator", sorted(VALIDATORS))
@pytest.mark.parametrize("value", INTEGERS, ids=repr)
def test_an_integer_is_taken_or_refused_in_the_same_words_by_every_validator(validator, value):
    check_value, label, _, (key, bounds) = VALIDATORS[validator]
    problem = number_problem(value, integer=True, **bounds)
    if problem is None:  # a good value for this field: every validator takes it
        check_value(key, value)
        return
    with pytest.raises(EvoInputError) as info:
        check_value(key, value)
    message = str(info.value).removesuffix(" (plugin 'probe')")
    assert message == label.format(key=key) + problem


@pytest.mark.parametrize(
    "check_value, message",
    [
        (lambda: _section("seed", True), "c.toml: [run] seed: expected an integer >= 0, got True"),
        (lambda: _world("gravity", True), "c.toml: [world] gravity: expected a number >= 0, got True"),
        (
            lambda: _world("gravity_cursor", 200),
            "c.toml: [world] gravity_cursor: expected a number in [0, 107], got 200",
        ),
        (lambda: World(dt=0), "dt: expected a number > 0, got 0"),
        (
            lambda: parse_ground({"type": "hills", "amplitude": 1, "wavelength": math.nan}, source="c.toml"),
            "c.toml: world.ground.wavelength: expected a number > 0, got nan",
        ),
        (
            lambda: _params("rate", math.inf),
            "c.toml: [evaluation.params] rate: expected a finite number, got inf (plugin 'probe')",
        ),
        (
            lambda: _params("count", 1.5),
            "c.toml: [evaluation.params] count: expected an integer, got 1.5 (plugin 'probe')",
        ),
    ],
)
def test_the_wording_of_a_bad_number_in_a_few_examples(check_value, message):
    with pytest.raises(EvoInputError) as info:
        check_value()
    assert str(info.value) == message


@pytest.mark.parametrize(
    "check_value, message",
    [
        (lambda: _section("mode", "c"), "c.toml: [run] mode: expected one of 'a', 'b', got 'c'"),
        (
            lambda: _world("integrator", "rk5"),
            "c.toml: [world] integrator: expected one of 'euler', 'explicit-euler', 'finite-difference', "
            "'midpoint', 'rk4', 'backward-euler', 'psm', got 'rk5'; did you mean 'rk4'?",
        ),
        (
            lambda: parse_ground({"type": "hils"}, source="c.toml", field="[world] ground"),
            "c.toml: [world] ground.type: expected one of 'flat', 'slope', 'hills', 'steps', 'polyline', "
            "got 'hils'; did you mean 'hills'?",
        ),
    ],
)
def test_a_value_outside_its_choices_reads_the_same_out_of_every_validator(check_value, message):
    with pytest.raises(EvoInputError) as info:
        check_value()
    assert str(info.value) == message


def test_every_validator_converts_an_int_to_a_float_where_a_number_is_expected():
    assert isinstance(parse_section(RunSection, {"rate": 1}, source=None, table_name="run").rate, float)
    assert isinstance(World().updated({"gravity": 1}).gravity, float)
    assert isinstance(World(gravity=1).gravity, float)
    assert isinstance(parse_ground({"type": "slope", "angle": 5}).angle, float)
    assert isinstance(check_params(PROBE, {"rate": 1}, source=None)["rate"], float)


# -- the engine itself ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tp, rules, expected",
    [
        (int, {"low": 2}, "an integer >= 2"),
        (float, {}, "a finite number"),
        (float | None, {"low": 0.0, "open_low": True}, "a number > 0"),
        (bool, {}, "true or false"),
        (tuple[int, int], {"low": 2, "high": 1000}, "a list of 2 integers in [2, 1000]"),
        (tuple[float, ...], {"low": 0.0}, "a list of numbers >= 0"),
        (tuple[str, ...], {}, "a list of strings"),
        (tuple[int, str], {}, "a list of 2 values"),
        (list[bool], {}, "a list of true/false values"),
        (Mapping[str, int], {}, "a table"),
        (str, {"choices": ("a", "b")}, "one of 'a', 'b'"),
        (Literal["x", "y"], {}, "one of 'x', 'y'"),
    ],
)
def test_describe_says_what_an_annotation_and_its_rules_expect(tp, rules, expected):
    assert describe(tp, rules) == expected


@pytest.mark.parametrize(
    "value, tp, rules, converted",
    [
        (3, float, {}, 3.0),
        ([1, 2], tuple[float, float], {}, (1.0, 2.0)),
        ([[0, 1], [2, 3]], tuple[tuple[float, float], ...], {}, ((0.0, 1.0), (2.0, 3.0))),
        ([1, 2], list[int], {}, [1, 2]),
        (None, int | None, {"low": 1}, None),
        (5, int | None, {"low": 1}, 5),
        ("y", Literal["x", "y"], {}, "y"),
        ({"a": 1}, dict, {}, {"a": 1}),
        ({"a": 1}, Mapping[str, int], {}, MappingProxyType({"a": 1})),
        ([1, "x"], list, {}, [1, "x"]),
        (object, type, {}, object),  # an annotation the engine does not know is taken as it is
    ],
)
def test_check_converts_a_good_value_to_its_annotation(value, tp, rules, converted):
    assert check(value, tp, rules) == (converted, None)
    assert type(check(value, tp, rules)[0]) is type(converted)


@pytest.mark.parametrize(
    "value, tp, rules, problem",
    [
        (None, int, {"low": 1}, "expected an integer >= 1, got None"),
        ([1, 2, 3], tuple[int, int], {}, "expected a list of 2 integers, got [1, 2, 3]"),
        ([1, math.nan], tuple[float, ...], {}, "expected a list of finite numbers, got [1, nan]"),
        (1, bool, {}, "expected true or false, got 1"),
        (1, Literal[True], {}, "expected one of True, got 1"),
        ("x" * 100, int, {}, "expected an integer, got '" + "x" * 56 + "..."),
        (
            "rk",
            str,
            {"choices": ("rk4", "euler")},
            "expected one of 'rk4', 'euler', got 'rk'; did you mean 'rk4'?",
        ),
    ],
)
def test_check_words_a_bad_value_as_expected_what_got_what(value, tp, rules, problem):
    assert check(value, tp, rules) == (None, problem)


def test_the_engine_knows_which_annotations_it_checks():
    assert understood(int) and understood(tuple[float, ...]) and understood(int | None)
    assert understood(Literal["a"]) and understood(dict) and understood(list[str])
    assert not understood(World) and not understood(tuple[World, ...]) and not understood(int | World)


@pytest.mark.parametrize(
    "where, key, label",
    [
        ("[world]", "gravity", "[world] gravity"),
        ("[world] ground", "angle", "[world] ground.angle"),
        ("world", "gravity", "world.gravity"),
        ("--set", "gravity", "--set.gravity"),
        ("", "gravity", "gravity"),
    ],
)
def test_a_key_is_labelled_as_its_table_file_or_option_names_it(where, key, label):
    assert field_label(where, key) == label


def test_check_fields_converts_known_keys_and_suggests_the_closest_for_an_unknown_one():
    assert check_fields(RunSection, {"rate": 0, "box": (1, 2)}) == {"rate": 0.0, "box": (1.0, 2.0)}
    with pytest.raises(EvoInputError, match=r"^c.toml: unknown key 'rat' in \[run\]; did you mean 'rate'\?$"):
        check_fields(RunSection, {"rate": 0.5, "rat": 1}, source="c.toml", where="[run]")


def test_a_cross_field_error_of_a_section_is_relabelled_with_its_table():
    @dataclass(frozen=True)
    class Pair:
        low: int = setting(0)
        high: int = setting(1)

        def __post_init__(self):
            if self.low > self.high:
                raise EvoInputError(f"expected at least low = {self.low}, got {self.high}", field="high")

    with pytest.raises(EvoInputError) as info:
        parse_section(Pair, {"low": 5, "high": 2}, source="c.toml", table_name="pair")
    assert str(info.value) == "c.toml: [pair] high: expected at least low = 5, got 2"


def test_a_setting_refuses_a_mutable_default():
    with pytest.raises(TypeError, match="mutable"):
        setting([1, 2])


def test_a_settings_reason_ends_the_message_of_a_value_above_its_bound_only():
    @dataclass(frozen=True)
    class Bounded:
        size: int = setting(3, low=1, high=10, why="each is held in memory")

    with pytest.raises(EvoInputError) as above:
        parse_section(Bounded, {"size": 11}, source="c.toml", table_name="t")
    assert str(above.value) == (
        "c.toml: [t] size: expected an integer in [1, 10], got 11 (each is held in memory)"
    )
    with pytest.raises(EvoInputError) as below:
        parse_section(Bounded, {"size": 0}, source="c.toml", table_name="t")
    assert str(below.value) == "c.toml: [t] size: expected an integer in [1, 10], got 0"
