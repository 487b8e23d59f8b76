"""What counts as a number in evo's input files: an int or a float, never a bool, and finite.

An int read from JSON or TOML can be too large for a float (``10**400``); ``math.isfinite`` raises
OverflowError on it, so every check of a file's numbers goes through :func:`is_finite_number`.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["is_finite_number", "is_number"]


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
