from dataclasses import dataclass

import pytest

from evo.errors import EvoInputError
from evo.schema import number_problem, parse_section, section_to_dict, setting


@dataclass(frozen=True)
class RunSection:
    name: str = setting("run")
    seed: int = setting(1, low=0)
    population: int = setting(120, low=2)
    rate: float = setting(0.5, low=0.0, high=1.0)
    box: tuple[float, float] = setting((0.0, 1.0))
    mode: str = setting("a", choices=("a", "b"))
    limit: float | None = setting(None, low=0.0, open_low=True)


def test_a_valid_table_fills_a_frozen_section_and_back():
    section = parse_section(
        RunSection, {"seed": 3, "rate": 1, "box": [1, 2]}, source="c.toml", table_name="run"
    )
    assert section.seed == 3 and section.rate == 1.0 and section.box == (1.0, 2.0)
    assert section_to_dict(section)["box"] == [1.0, 2.0]


@pytest.mark.parametrize(
    "table, message",
    [
        ({"populaton": 5}, "c.toml: unknown key 'populaton' in [run]; did you mean 'population'?"),
        ({"population": 1}, "c.toml: [run] population: expected an integer >= 2, got 1"),
        ({"population": 2.5}, "[run] population: expected an integer >= 2, got 2.5"),
        ({"seed": True}, "[run] seed: expected an integer >= 0, got True"),
        ({"rate": 3}, "[run] rate: expected a number in [0.0, 1.0], got 3"),
        ({"box": [1]}, "[run] box: expected a list of 2 values, got [1]"),
        ({"mode": "c"}, "[run] mode: expected one of 'a', 'b', got 'c'"),
        ({"limit": 0}, "[run] limit: expected a number > 0.0, got 0"),
        ({"limit": 10**400}, "[run] limit: expected a number > 0.0, got 1000"),  # too large for a float
    ],
)
def test_bad_values_give_one_line_naming_file_table_key_and_expectation(table, message):
    with pytest.raises(EvoInputError) as info:
        parse_section(RunSection, table, source="c.toml", table_name="run")
    assert message in str(info.value)


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
