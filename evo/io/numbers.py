"""Numbers in JSON documents evo writes (checkpoints, history, provenance): finite floats as they are,
the non-finite ones (an exploded creature's ``-inf``, a statistic of an empty set) as the strings
``"inf"``, ``"-inf"`` and ``"nan"``, read back to the same floats."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

__all__ = ["decode_number", "decode_numbers", "encode_number", "encode_numbers"]

_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def encode_number(x: float) -> float | str:
    """A JSON-safe float: finite numbers as they are, otherwise ``"inf"``, ``"-inf"`` or ``"nan"``."""
    x = float(x)
    if math.isfinite(x):
        return x
    if math.isnan(x):
        return "nan"
    return "inf" if x > 0 else "-inf"


def decode_number(x: Any) -> float:
    """The inverse of :func:`encode_number`.

    Raises:
        ValueError: ``x`` is neither a number nor one of the three strings.
    """
    if isinstance(x, str):
        try:
            return _NON_FINITE[x]
        except KeyError:
            raise ValueError(f"expected a number or one of 'inf', '-inf', 'nan', got {x!r}") from None
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ValueError(f"expected a number, got {x!r}")
    return float(x)


def encode_numbers(values: Iterable[float]) -> list[float | str]:
    return [encode_number(v) for v in values]


def decode_numbers(values: Iterable[Any]) -> tuple[float, ...]:
    return tuple(decode_number(v) for v in values)
