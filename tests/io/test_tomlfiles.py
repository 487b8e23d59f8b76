"""The small TOML writer: what it writes reads back equal with tomllib; and the reader's errors."""

from __future__ import annotations

import math
import tomllib

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.io.tomlfiles import dumps_toml, parse_value, read_toml


def test_nested_tables_and_every_value_type_read_back_equal():
    doc = {
        "title": 'quotes " and \\ backslash\nnew line\ttab \x01 é',
        "count": 3,
        "run": {
            "rate": 0.1,
            "tiny": 5e-324,
            "huge": 1.7976931348623157e308,
            "negative": -2.5,
            "flag": False,
            "empty": [],
            "points": [[0.0, 1.0], [2.5, -3.0]],
            "lines": [[[0, 0], [1, 1]], [[2, 2], [3, 3]]],
            "names": ["a", "b c"],
            "inner": {"deeper": {"x": 1}},
            "nothing_here": {},
        },
        "odd key": {"with.dot": True},
    }
    text = dumps_toml(doc)
    assert tomllib.loads(text) == doc


def test_floats_keep_every_bit_and_tuples_become_lists():
    values = [0.1 + 0.2, 1 / 3, 123456789.123456789, 1e-7, -0.0]
    back = tomllib.loads(dumps_toml({"v": tuple(values), "n": np.float64(0.7), "i": np.int64(4)}))
    assert back["v"] == values and math.copysign(1.0, back["v"][-1]) == -1.0
    assert back["n"] == 0.7 and back["i"] == 4


def test_plain_values_come_before_sub_tables():
    text = dumps_toml({"a": {"t": {"x": 1}, "y": 2}, "z": 3})
    assert text == "z = 3\n\n[a]\ny = 2\n\n[a.t]\nx = 1\n"


@pytest.mark.parametrize("value", [math.inf, math.nan, None, {1, 2}, [{"table": "in a list"}]])
def test_values_toml_cannot_hold_here_are_errors_naming_the_key(value):
    with pytest.raises((TypeError, ValueError), match=r"run\.bad"):
        dumps_toml({"run": {"bad": value}})


def test_a_file_nested_too_deeply_for_the_parser_is_a_one_line_error(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(EvoInputError, match=r"deep.toml: not valid TOML: nested too deeply$"):
        read_toml(path)


def test_a_set_value_is_toml_when_it_parses_as_toml_and_the_text_otherwise():
    assert parse_value("1.5") == 1.5 and parse_value("[[0, 0], [1, 2]]") == [[0, 0], [1, 2]]
    assert parse_value("rk4") == "rk4"
    deep = "[" * 100_000 + "]" * 100_000
    assert parse_value(deep) == deep  # too deep for the parser: the text, which then fails its check
