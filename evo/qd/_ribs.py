"""pyribs is an optional extra (``pip install 'evo[qd]'``): whether it is there, and importing it."""

from __future__ import annotations

import importlib.util

from evo.errors import EvoInputError

__all__ = ["INSTALL", "require_ribs", "ribs_missing"]

INSTALL = "pip install 'evo[qd]'"


def ribs_missing() -> bool:
    """True when pyribs cannot be imported here (checked without importing it)."""
    try:
        return importlib.util.find_spec("ribs") is None
    except (ImportError, ValueError):
        return True


def require_ribs(what: str = "a MAP-Elites run") -> None:
    """Raise a one-line :class:`EvoInputError` saying how to install pyribs when it is missing."""
    if ribs_missing():
        raise EvoInputError(f"{what} needs pyribs, which is not installed: {INSTALL}")
