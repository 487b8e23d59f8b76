"""The files of ``evo tasks``: task definitions (TOML), result records and baseline tables (JSON).

Reading and writing only; what the documents mean is :mod:`evo.tasks`' business (docs/tasks.md).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.io.atomic import atomic_write_text
from evo.io.bounded import read_input_bytes
from evo.io.tomlfiles import read_toml

__all__ = ["read_json_document", "read_task_file", "task_files", "write_json_document"]


def task_files(folder: str | Path) -> list[Path]:
    """The task definition files (``*.toml``) directly in ``folder``, sorted by name."""
    return sorted(Path(folder).glob("*.toml"))


def read_task_file(path: str | Path) -> dict[str, Any]:
    """One task definition as its TOML tables; errors name the file."""
    return read_toml(path)


def read_json_document(path: str | Path, what: str) -> dict[str, Any]:
    """A JSON object from ``path`` (a result record, a baseline table); ``what`` names it in errors.

    Raises:
        EvoInputError: missing, unreadable, not JSON, or not an object (one line naming the file).
    """
    source = str(path)
    data = read_input_bytes(Path(path))
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise EvoInputError(f"not a valid {what} (JSON): {exc}", source=source) from None
    if not isinstance(doc, dict):
        raise EvoInputError(f"expected a JSON object ({what}), got {type(doc).__name__}", source=source)
    return doc


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def write_json_document(path: str | Path, doc: dict[str, Any]) -> None:
    """Write ``doc`` as indented JSON, atomically (no NaN or infinity: they are not JSON)."""
    _check_finite(doc, "")
    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=False, allow_nan=False) + "\n")


def _check_finite(value: Any, where: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where or 'value'}: {value} cannot be written as JSON")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list | tuple):
        for k, item in enumerate(value):
            _check_finite(item, f"{where}[{k}]")
