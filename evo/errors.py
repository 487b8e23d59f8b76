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
        text = f"{prefix}: {message}" if prefix else message
        # one line, whatever a file name, a key or a value holds
        super().__init__(text.replace("\r", "\\r").replace("\n", "\\n"))


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The closest valid name to ``word``, or None if nothing is close."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def quoted(key: object, limit: int = 60) -> str:
    """``'populaton'``: a name as messages quote it, on one line and cut to ``limit`` characters (a key
    with a newline or a control character in it is shown with escapes, as Python writes it)."""
    text = f"'{key}'" if isinstance(key, str) and key.isprintable() and "'" not in key else repr(key)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def unknown_key_message(key: str, where: str, choices: Iterable[str]) -> str:
    """``unknown key 'populaton' in [run]; did you mean 'population'?``"""
    choices = sorted(choices)
    hint = closest(str(key), choices)
    msg = f"unknown key {quoted(key)} in {where}"
    if hint:
        return f"{msg}; did you mean '{hint}'?"
    return f"{msg}; valid keys: {', '.join(choices)}"
