"""TOML reading (world files and configs) with one-line errors, and a small writer (:func:`dumps_toml`)."""

from __future__ import annotations

import math
import numbers
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError, digits_problem
from evo.io.bounded import read_input_bytes
from evo.schema import loads_toml, shown


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file; errors name the file."""
    path = Path(path)
    return loads_toml(read_input_bytes(path), source=str(path))


def read_world_file(path: str | Path) -> dict[str, Any]:
    """The world table of a ``--world FILE.toml``: either a ``[world]`` table or top-level keys.

    With a ``[world]`` table, any other entries must be tables too (a run config serves as a world file:
    its other sections are not world parameters and are left alone).
    """
    doc = read_toml(path)
    if "world" not in doc:
        return doc
    if not isinstance(doc["world"], dict):
        raise EvoInputError(
            f"expected a [world] table, got {shown(doc['world'])}", source=str(path), field="world"
        )
    for key, value in doc.items():
        if not isinstance(value, dict):
            raise EvoInputError(
                "expected every world parameter inside the [world] table", source=str(path), field=key
            )
    return dict(doc["world"])


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML value if it parses as one (1.5, true, [[0, 0], [1, 2]]), else the string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text
    except ValueError as exc:  # an integer of more than 4300 digits
        problem = digits_problem(exc)
        if problem is None:
            raise
        raise EvoInputError(f"--set: {problem}") from None


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _key(key: str) -> str:
    if not isinstance(key, str):
        raise TypeError(f"TOML keys must be strings, got {key!r}")
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"{where}: TOML here holds finite numbers only, got {number}")
        return repr(number)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v, where) for v in value) + "]"
    raise TypeError(f"{where}: cannot write {type(value).__name__} {value!r} as a TOML value")


def dumps_toml(doc: Mapping[str, Any]) -> str:
    """TOML text for ``doc``: nested tables of str, int, finite float, bool and (nested) lists of them.

    Floats are written with ``repr`` so they read back bit-identical. Plain values of a table come before
    its sub-tables; an empty table is written as a bare header. ``None`` values are an error (leave the
    key out instead).
    """
    lines: list[str] = []

    def table(mapping: Mapping[str, Any], path: tuple[str, ...]) -> None:
        subtables = []
        if path:
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_key(k) for k in path) + "]")
        for key, value in mapping.items():
            if isinstance(value, Mapping):
                subtables.append((key, value))
            else:
                lines.append(f"{_key(key)} = {_value(value, '.'.join((*path, str(key))))}")
        for key, value in subtables:
            table(value, (*path, key))

    table(doc, ())
    return "\n".join(lines) + "\n"
