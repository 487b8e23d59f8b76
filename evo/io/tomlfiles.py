"""TOML reading (world files and configs) with one-line errors."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file; errors name the file."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise EvoInputError("no such file", source=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise EvoInputError(f"not valid TOML: {exc}", source=str(path)) from None
    except OSError as exc:
        raise EvoInputError(f"cannot read: {exc}", source=str(path)) from None


def read_world_file(path: str | Path) -> dict[str, Any]:
    """The world table of a ``--world FILE.toml``: either a ``[world]`` table or top-level keys."""
    doc = read_toml(path)
    if set(doc) == {"world"}:
        return dict(doc["world"])
    return doc


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML value if it parses as one (1.5, true, [[0, 0], [1, 2]]), else the string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
