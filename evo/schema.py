"""The one validation engine: a value checked against a type annotation and a :func:`setting`'s rules.

Every problem reads ``expected <what>, got <value>`` (``expected an integer >= 2, got 1``, ``expected a
number in [0, 1], got 1.7``); :func:`parse_section` builds a dataclass from a TOML table, and
:func:`check_fields` converts named values (World keys, plugin parameters) the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import tomllib
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal

from evo.errors import EvoInputError, closest, digits_problem, unknown_key_message

__all__ = [
    "check",
    "check_fields",
    "describe",
    "describe_number",
    "field_label",
    "is_finite_number",
    "is_number",
    "loads_toml",
    "number_problem",
    "parse_section",
    "section_to_dict",
    "setting",
    "shown",
    "understood",
]

NO_RULES: Mapping[str, Any] = types.MappingProxyType({})
_NONE = type(None)


def is_number(value: Any) -> bool:
    """True for an int or a float, but not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """True for a number (:func:`is_number`) that is finite as a float: not NaN, not ±inf, and not an int
    beyond the float range."""
    if not is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` on one line, cut to ``limit`` characters (a 400-digit int, a long string)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _bound(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def describe_number(
    *,
    integer: bool = False,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
    plural: bool = False,
) -> str:
    """What a number field expects, in the words every error message uses: ``a number in [0, 1]``,
    ``a number > 0``, ``an integer >= 2``, ``an integer in [1, 100]``, ``a finite number`` (``plural``:
    ``numbers in [0, 1]``, ``integers >= 2``, ``finite numbers``)."""
    if integer:
        noun = "integers" if plural else "an integer"
    else:
        noun = "numbers" if plural else "a number"
    if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
        return f"{noun} in {'(' if open_low else '['}{_bound(low)}, {_bound(high)}{')' if open_high else ']'}"
    if low is not None and math.isfinite(low):
        return f"{noun} {'>' if open_low else '>='} {_bound(low)}"
    if high is not None and math.isfinite(high):
        return f"{noun} {'<' if open_high else '<='} {_bound(high)}"
    if integer:
        return noun
    return "finite numbers" if plural else "a finite number"


def number_problem(
    value: Any,
    *,
    integer: bool = False,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
) -> str | None:
    """None when ``value`` is a finite number (an int if ``integer``; never a bool) within the bounds,
    else the one-line problem: ``expected a number in [0, 1], got 1.7``."""
    ok = isinstance(value, int) and not isinstance(value, bool) if integer else is_finite_number(value)
    if ok:
        x = value
        ok = not (
            (low is not None and (x <= low if open_low else x < low))
            or (high is not None and (x >= high if open_high else x > high))
        )
    if ok:
        return None
    expected = describe_number(integer=integer, low=low, high=high, open_low=open_low, open_high=open_high)
    return f"expected {expected}, got {shown(value)}"


def setting(
    default: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
    choices: tuple | None = None,
    parse: Callable[..., Any] | None = None,
    doc: str = "",
    why: str = "",
) -> Any:
    """A dataclass field with its rules and a one-line doc.

    ``low``/``high`` bound a number (each number of a tuple); ``open_low``/``open_high`` leave the bound
    out; ``choices`` lists the allowed values; ``why`` says why ``high`` is what it is (it ends the
    message of a value above it). ``parse(value, source=..., field=...)`` takes the place of
    the annotation for a value with a richer form (a ground, a terrain) and raises :class:`EvoInputError`.
    """
    if isinstance(default, list | dict):
        raise TypeError("use a tuple or a MappingProxyType for mutable defaults")
    rules = {"low": low, "high": high, "open_low": open_low, "open_high": open_high, "choices": choices}
    return dataclasses.field(default=default, metadata={**rules, "parse": parse, "doc": doc, "why": why})


def _bounds(rules: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "low": rules.get("low"),
        "high": rules.get("high"),
        "open_low": bool(rules.get("open_low")),
        "open_high": bool(rules.get("open_high")),
    }


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _is_sequence(tp: Any) -> bool:
    """True for ``tuple[X, ...]`` and ``list[X]`` (as opposed to a fixed ``tuple[X, Y]``)."""
    args = typing.get_args(tp)
    return typing.get_origin(tp) is list or (len(args) == 2 and args[1] is Ellipsis)


def _is_mapping(tp: Any) -> bool:
    return tp in (dict, Mapping) or typing.get_origin(tp) in (dict, Mapping)


def understood(tp: Any) -> bool:
    """True when the engine checks values of annotation ``tp`` (anything else is taken as it is)."""
    origin = typing.get_origin(tp)
    if _is_union(tp) or origin in (tuple, list):
        return all(understood(a) for a in typing.get_args(tp) if a not in (_NONE, Ellipsis))
    return origin is Literal or tp in (bool, int, float, str, list, tuple) or _is_mapping(tp)


def _convert(value: Any, tp: Any, bounds: Mapping[str, Any]) -> tuple[bool, Any]:
    """(ok, converted value) for ``value`` against annotation ``tp``, numbers within ``bounds``."""
    origin = typing.get_origin(tp)
    if _is_union(tp):
        if value is None:
            return _NONE in typing.get_args(tp), None
        for arg in typing.get_args(tp):
            ok, out = _convert(value, arg, bounds) if arg is not _NONE else (False, None)
            if ok:
                return True, out
        return False, None
    if origin is Literal:
        return any(type(value) is type(a) and value == a for a in typing.get_args(tp)), value
    if tp is bool:
        return isinstance(value, bool), value
    if tp is int:
        return number_problem(value, integer=True, **bounds) is None, value
    if tp is float:
        ok = number_problem(value, **bounds) is None
        return ok, float(value) if ok else None
    if tp is str:
        return isinstance(value, str), value
    if tp in (list, tuple):
        ok = isinstance(value, list | tuple)
        return ok, tp(value) if ok else None
    if origin in (tuple, list):
        args = typing.get_args(tp)
        if not isinstance(value, list | tuple) or not (_is_sequence(tp) or len(value) == len(args)):
            return False, None
        types_ = [args[0]] * len(value) if _is_sequence(tp) else args
        items = [_convert(v, a, bounds) for v, a in zip(value, types_, strict=True)]
        return all(ok for ok, _ in items), origin(v for _, v in items)
    if _is_mapping(tp):
        if not isinstance(value, Mapping):
            return False, None
        return True, dict(value) if dict in (tp, origin) else types.MappingProxyType(dict(value))
    return True, value


def _noun(tp: Any, bounds: Mapping[str, Any], plural: bool) -> str:
    origin = typing.get_origin(tp)
    if _is_union(tp):
        return " or ".join(_noun(a, bounds, plural) for a in typing.get_args(tp) if a is not _NONE)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if tp in (int, float):
        return describe_number(integer=tp is int, plural=plural, **bounds)
    if tp is bool:
        return "true/false values" if plural else "true or false"
    lists = "lists" if plural else "a list"
    if origin in (tuple, list):
        args = typing.get_args(tp)
        if _is_sequence(tp):
            return f"{lists} of {_noun(args[0], bounds, True)}"
        if len(set(args)) == 1:
            return f"{lists} of {len(args)} {_noun(args[0], bounds, True)}"
        return f"{lists} of {len(args)} values"
    names = {str: "a string", list: "a list", tuple: "a list"}
    noun = "a table" if _is_mapping(tp) else names.get(tp, f"a {getattr(tp, '__name__', tp)}")
    return noun.split(" ", 1)[1] + "s" if plural else noun


def describe(tp: Any, rules: Mapping[str, Any] = NO_RULES) -> str:
    """What a value of annotation ``tp`` must be under ``rules`` (a :func:`setting`'s metadata), in the
    words of every message: ``an integer >= 2``, ``a list of 2 numbers > 0``, ``one of 'a', 'b'``."""
    if rules.get("choices"):
        return "one of " + ", ".join(repr(c) for c in rules["choices"])
    return _noun(tp, _bounds(rules), plural=False)


def check(value: Any, tp: Any, rules: Mapping[str, Any] = NO_RULES) -> tuple[Any, str | None]:
    """``(converted value, None)``, or ``(None, problem)`` with the one-line problem ``expected <what>,
    got <value>`` (and the closest choice for a mistyped string). An int is converted for a float."""
    ok, converted = _convert(value, tp, _bounds(rules))
    choices = rules.get("choices")
    if ok and (not choices or converted in choices):
        return converted, None
    problem = f"expected {describe(tp, rules)}, got {shown(value)}"
    high = rules.get("high")
    if rules.get("why") and high is not None and is_finite_number(value) and value > high:
        problem += f" ({rules['why']})"
    if choices and isinstance(value, str):
        hint = closest(value, [c for c in choices if isinstance(c, str)])
        problem += f"; did you mean '{hint}'?" if hint else ""
    return None, problem


def field_label(where: str, key: str) -> str:
    """A key as messages name it: ``[world] gravity`` in a TOML table, ``[world] ground.angle`` under one,
    ``world.gravity`` in a model file, ``--set.gravity`` on the command line, ``gravity`` alone."""
    if not where:
        return key
    return f"{where} {key}" if where.startswith("[") and where.endswith("]") else f"{where}.{key}"


@functools.cache
def _fields(cls: type) -> dict[str, tuple[Any, Mapping[str, Any]]]:
    hints = typing.get_type_hints(cls)
    return {f.name: (hints[f.name], f.metadata) for f in dataclasses.fields(cls) if f.init}


def check_fields(
    cls: type, values: Mapping[str, Any], *, source: str | None = None, where: str = ""
) -> dict[str, Any]:
    """``values`` converted and checked against the fields of the dataclass ``cls``; the first problem
    raises :class:`EvoInputError` naming ``source`` and the key (:func:`field_label` of ``where``), or,
    for an unknown key, the closest valid one."""
    fields = _fields(cls)
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in fields:
            raise EvoInputError(unknown_key_message(str(key), where or cls.__name__, fields), source=source)
        tp, rules = fields[key]
        label = field_label(where, key)
        if rules.get("parse"):
            out[key] = rules["parse"](value, source=source, field=label)
            continue
        converted, problem = check(value, tp, rules)
        if problem is not None:
            raise EvoInputError(problem, source=source, field=label)
        out[key] = converted
    return out


def parse_section(cls: type, table: Any, *, source: str | None, table_name: str) -> Any:
    """Build ``cls`` (a frozen dataclass declared with :func:`setting`) from a TOML table: ``[run]
    population: expected an integer >= 2, got 1``, ``unknown key 'populaton' in [run]; did you mean
    'population'?``."""
    where = f"[{table_name}]"
    if table is None:
        table = {}
    if not isinstance(table, Mapping):
        raise EvoInputError(f"{where}: expected a table, got {shown(table)}", source=source)
    values = check_fields(cls, table, source=source, where=where)
    try:
        return cls(**values)
    except EvoInputError as exc:  # cross-field checks in __post_init__ raise EvoInputError(..., field=key)
        field = field_label(where, exc.field) if exc.field else where
        raise EvoInputError(exc.message, source=source, field=field) from None


def section_to_dict(section: Any) -> dict[str, Any]:
    """A TOML-friendly dict of a section (tuples become lists, None values are dropped)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        if value is None:
            continue
        if isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        elif isinstance(value, Mapping):
            value = dict(value)
        out[f.name] = value
    return out


def loads_toml(data: str | bytes, *, source: str | None) -> dict[str, Any]:
    """A TOML document from its text (bytes must be UTF-8); every problem is one line naming ``source``."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EvoInputError(f"not valid TOML: {exc}", source=source) from None
    except UnicodeDecodeError as exc:
        raise EvoInputError(
            f"not valid TOML: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})",
            source=source,
        ) from None
    except RecursionError:
        raise EvoInputError("not valid TOML: nested too deeply", source=source) from None
    except ValueError as exc:  # an integer of more digits than Python converts (4300)
        problem = digits_problem(exc)
        if problem is None:
            raise
        raise EvoInputError(f"not valid TOML: {problem}", source=source) from None
