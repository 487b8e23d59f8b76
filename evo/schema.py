"""One validation engine: number predicates, and TOML tables parsed into frozen dataclasses.

A section class declares its fields with :func:`setting`, e.g.::

    @dataclass(frozen=True)
    class RunSection:
        name: str = setting("run")
        seed: int = setting(1, low=0)
        population: int = setting(120, low=2)

and ``parse_section(RunSection, table, source="walkers.toml", table="run")`` returns an instance or
raises :class:`EvoInputError` with one line: ``walkers.toml: [run] population: expected an integer >= 2,
got 1`` or ``walkers.toml: unknown key 'populaton' in [run]; did you mean 'population'?``.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any

from evo.errors import EvoInputError, unknown_key_message

__all__ = [
    "describe_number",
    "is_finite_number",
    "is_number",
    "number_problem",
    "parse_section",
    "section_to_dict",
    "setting",
    "shown",
]


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
) -> str:
    """What a number field expects, in the words every error message uses: ``a number in [0, 1]``,
    ``a number > 0``, ``an integer >= 2``, ``an integer in [1, 100]``, ``a finite number``."""
    noun = "an integer" if integer else "a number"
    if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
        return f"{noun} in {'(' if open_low else '['}{_bound(low)}, {_bound(high)}{')' if open_high else ']'}"
    if low is not None and math.isfinite(low):
        return f"{noun} {'>' if open_low else '>='} {_bound(low)}"
    if high is not None and math.isfinite(high):
        return f"{noun} {'<' if open_high else '<='} {_bound(high)}"
    return noun if integer else "a finite number"


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
    choices: tuple | None = None,
    doc: str = "",
) -> Any:
    """A dataclass field with validation metadata (range, choices) and a one-line doc."""
    meta = {"low": low, "high": high, "open_low": open_low, "choices": choices, "doc": doc}
    if isinstance(default, list | dict):
        raise TypeError("use a tuple or a MappingProxyType for mutable defaults")
    return dataclasses.field(default=default, metadata=meta)


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is bool:
        return "true or false"
    if tp is str:
        return "a string"
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_describe(args[0]).removeprefix('an ').removeprefix('a ')}s"
        return f"a list of {len(args)} values"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp) if a is not type(None))
    if origin is Mapping or tp is dict or origin is dict:
        return "a table"
    return str(tp)


def _convert(value: Any, tp: Any) -> tuple[bool, Any]:
    """(ok, converted value) for a TOML value against a type annotation."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return True, None
        for arg in args:
            if arg is type(None):
                continue
            ok, out = _convert(value, arg)
            if ok:
                return True, out
        return False, None
    if tp is bool:
        return isinstance(value, bool), value
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if tp is float:
        ok = is_finite_number(value)
        return ok, float(value) if ok else None
    if tp is str:
        return isinstance(value, str), value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            return False, None
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            items = [_convert(v, args[0]) for v in value]
        else:
            if len(value) != len(args):
                return False, None
            items = [_convert(v, a) for v, a in zip(value, args, strict=True)]
        if not all(ok for ok, _ in items):
            return False, None
        return True, tuple(v for _, v in items)
    if origin is Mapping or tp is dict or origin is dict:
        if not isinstance(value, Mapping):
            return False, None
        return True, types.MappingProxyType(dict(value))
    return True, value


def _range_text(meta: Mapping[str, Any]) -> str:
    low, high = meta.get("low"), meta.get("high")
    if low is not None and high is not None:
        return f" in [{low}, {high}]"
    if low is not None:
        return f" {'>' if meta.get('open_low') else '>='} {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def _in_range(value: Any, meta: Mapping[str, Any]) -> bool:
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if not isinstance(v, int | float) or isinstance(v, bool):
            continue
        low, high = meta.get("low"), meta.get("high")
        if low is not None and (v <= low if meta.get("open_low") else v < low):
            return False
        if high is not None and v > high:
            return False
    return True


def parse_section(cls: type, table: Any, *, source: str | None, table_name: str) -> Any:
    """Build ``cls`` (a frozen dataclass declared with :func:`setting`) from a TOML table."""
    where = f"[{table_name}]"
    if table is None:
        table = {}
    if not isinstance(table, Mapping):
        raise EvoInputError(f"{where}: expected a table", source=source)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in fields:
            raise EvoInputError(unknown_key_message(key, where, fields), source=source)
        f = fields[key]
        meta = f.metadata
        ok, converted = _convert(value, hints[key])
        expected = _describe(hints[key]) + _range_text(meta)
        if meta.get("choices"):
            expected = "one of " + ", ".join(repr(c) for c in meta["choices"])
            ok = ok and converted in meta["choices"]
        if not ok or not _in_range(converted, meta):
            raise EvoInputError(f"{where} {key}: expected {expected}, got {value!r}", source=source)
        values[key] = converted
    try:
        return cls(**values)
    except EvoInputError as exc:
        # cross-field checks in __post_init__ raise EvoInputError(message, field=key)
        raise EvoInputError(
            f"{where} {exc.field or ''}: {exc.args[0].split(': ', 1)[-1]}", source=source
        ) from None


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
