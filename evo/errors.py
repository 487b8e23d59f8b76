"""The one exception type that the command line turns into a one-line error and exit status 2, and the
one warning type for input evo reads but partly ignores (the command line prints it as one line)."""

from __future__ import annotations

import contextlib
import difflib
import re
import warnings
from collections.abc import Iterable, Iterator


class EvoInputError(ValueError):
    """Bad user input: a file, a field in it, or a command-line value.

    The message is a single line naming where the problem is and what was expected.

    Args:
        message: what was expected and what was found (kept as ``.message``).
        source: the file (or other input) the problem is in, if any (``.source``).
        field: the key or field, as messages name it (``[world] gravity``, ``links[3].rest``; ``.field``).
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


class EvoInputWarning(UserWarning):
    """Input that evo reads but partly ignores (an element or attribute of a classic file it does not
    know): one line naming the file and the field, what is ignored and a hint, e.g.
    ``x.xml: settings: unknown attribute 'soundon' (ignored); valid: gravitydirection, ...``.

    Library code issues it with :func:`warn_input` and never prints; the command line prints each one on
    stderr, and :func:`input_warnings_as_errors` turns it into an :class:`EvoInputError` whose message
    is ``problem`` (the text without "(ignored)").
    """

    def __init__(
        self, what: str, *, hint: str | None = None, source: str | None = None, field: str | None = None
    ):
        self.problem = f"{what}; {hint}" if hint else what
        self.source = source
        self.field = field
        prefix = "".join(f"{p}: " for p in (source, field) if p)
        super().__init__(f"{prefix}{what} (ignored)" + (f"; {hint}" if hint else ""))


def warn_input(
    what: str, *, hint: str | None = None, source: str | None = None, field: str | None = None
) -> None:
    """Issue one :class:`EvoInputWarning` (shown, or raised under :func:`input_warnings_as_errors`)."""
    warnings.warn(EvoInputWarning(what, hint=hint, source=source, field=field), stacklevel=2)


@contextlib.contextmanager
def input_warnings_as_errors() -> Iterator[None]:
    """Inside, an :class:`EvoInputWarning` raises :class:`EvoInputError` with the same place and problem
    (the strict reading of ``evo validate --strict``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", EvoInputWarning)
        try:
            yield
        except EvoInputWarning as warning:
            raise EvoInputError(warning.problem, source=warning.source, field=warning.field) from None


def digits_problem(exc: ValueError) -> str | None:
    """The one-line problem of Python's refusal to convert an integer literal of more than
    ``sys.get_int_max_str_digits()`` digits (``an integer of 5000 digits; at most 4300 are read``), or
    None when ``exc`` is another error."""
    found = re.search(r"Exceeds the limit \((\d+) digits\).*?value has (\d+) digits", str(exc))
    if found is None:
        return None
    return f"an integer of {found[2]} digits; at most {found[1]} are read"


def one_line(text: str, limit: int = 1000) -> str:
    """``text`` on one line, cut to ``limit`` characters (with the number of characters left out): what a
    terminal shows of a message that may be huge (a plugin's exception of 2 MB); the log keeps it whole."""
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


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
