"""The one exception type that the command line turns into a one-line error and exit status 2."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class EvoInputError(ValueError):
    """Bad user input: a file, a field in it, or a command-line value.

    The message is a single line naming where the problem is and what was expected.
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None):
        self.source = source
        self.field = field
        self.message = message  # without the source and field: for relabelling an error
        parts = [p for p in (source, field) if p]
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The closest valid name to ``word``, or None if nothing is close."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_key_message(key: str, where: str, choices: Iterable[str]) -> str:
    """``unknown key 'populaton' in [run]; did you mean 'population'?``"""
    choices = sorted(choices)
    hint = closest(key, choices)
    msg = f"unknown key '{key}' in {where}"
    if hint:
        return f"{msg}; did you mean '{hint}'?"
    return f"{msg}; valid keys: {', '.join(choices)}"
