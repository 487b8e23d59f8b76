"""A plugin's failure as evo reports it: one line naming the plugin's file and line, and the full traceback
for run.log and the ``failed/`` file; whatever the plugin raised (a BaseException, an exception whose
``str`` raises), but never a real Ctrl-C or evo's own interruptions (docs/plugins.md, "When it fails").
"""

from __future__ import annotations

import _signal  # the C module: signal's wrappers convert every number to an enum and back
import contextlib
import signal
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from evo.errors import Interruption, one_line

__all__ = [
    "MESSAGE_CHARS",
    "PluginFailed",
    "describe",
    "is_evos_own",
    "location",
    "plugin_failure",
    "short_text",
    "signals_watched",
]

_WATCHED = (int(signal.SIGINT), int(signal.SIGTERM))
MESSAGE_CHARS = 300  # characters of an exception's message the one-line error keeps


class PluginFailed(Exception):
    """A plugin raised or returned something that is not a fitness.

    Attributes:
        plugin: the plugin's name.
        message: one line, e.g. ``plugins/upright.py:14: plugin 'upright' raised ZeroDivisionError:
            division by zero``.
        traceback: the full traceback as text ("" when the plugin returned something wrong).
    """

    def __init__(self, plugin: str, message: str, traceback: str = ""):
        super().__init__(message)
        self.plugin = plugin
        self.message = message
        self.traceback = traceback

    def __reduce__(self) -> tuple:  # picklable, so a worker can send it back to the parent
        return (type(self), (self.plugin, self.message, self.traceback))


def short_text(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` on one line (runs of white space become one space), cut to ``limit`` characters with the
    number left out (:func:`evo.errors.one_line`'s words; the traceback keeps it whole)."""
    return one_line(" ".join(text.split()), limit)


def _str_of(exc: BaseException) -> str:
    """``str(exc)``, or a note when the exception's own ``__str__`` raises."""
    try:
        return str(exc)
    except BaseException as inner:  # noqa: BLE001 -- whatever a plugin's __str__ does
        return f"<its message could not be made: str() raised {type(inner).__name__}>"


def _shown(filename: str) -> str:
    """A path as a message shows it: relative to the current folder when inside it."""
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return filename


def describe(exc: BaseException) -> str:
    """``TYPE: MESSAGE`` of an exception, on one line, its message cut to :data:`MESSAGE_CHARS` (never
    raises, whatever the exception's ``__str__`` does)."""
    detail = short_text(_str_of(exc))
    return type(exc).__name__ + (f": {detail}" if detail else "")


def location(filename: str | None, tb: TracebackType | None) -> str:
    """``file:line`` of the innermost frame of ``tb`` in ``filename`` (else of the innermost frame; ""
    without frames); the file relative to the current folder when inside it."""
    frames = traceback.extract_tb(tb)
    if not frames:
        return ""
    mine = [f for f in frames if f.filename == filename]
    frame = (mine or frames)[-1]
    return f"{_shown(frame.filename)}:{frame.lineno}"


def plugin_failure(name: str, func: Any, exc: BaseException) -> PluginFailed:
    """The :class:`PluginFailed` for what a plugin's function raised.

    Args:
        name: the plugin's name.
        func: the plugin's function (its file is the one the message names).
        exc: what it raised.

    Returns:
        The error: one line ``FILE:LINE: plugin 'NAME' raised TYPE: MESSAGE`` (the message cut to
        :data:`MESSAGE_CHARS`) and the full traceback, from the plugin's frame on.
    """
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None  # from the plugin on
    code = getattr(getattr(func, "__wrapped__", func), "__code__", None)
    where = location(getattr(code, "co_filename", None), tb)
    line = f"plugin '{name}' raised {describe(exc)}"
    try:
        text = "".join(traceback.format_exception(type(exc), exc, tb))
    except BaseException as inner:  # noqa: BLE001 -- a traceback that cannot be formatted
        text = f"(the traceback could not be formatted: {type(inner).__name__})\n"
    return PluginFailed(name, f"{where}: {line}" if where else line, text)


@contextlib.contextmanager
def signals_watched() -> Iterator[list[int]]:
    """Watch for SIGINT and SIGTERM while a plugin runs: the list yielded gets each signal that arrives.

    A KeyboardInterrupt with no signal behind it is the plugin's own. Only the main thread gets signals;
    elsewhere, and where a signal is ignored (a worker), nothing is watched.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    previous = {}
    for signum in _WATCHED:
        handler = _signal.getsignal(signum)
        if callable(handler):
            previous[signum] = handler
            _signal.signal(signum, _watching(handler, received))
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            _signal.signal(signum, handler)


def _watching(handler: Any, received: list[int]) -> Any:
    def watch(signum: int, frame: Any) -> Any:
        received.append(signum)
        return handler(signum, frame)

    return watch


def is_evos_own(exc: BaseException, received: list[int]) -> bool:
    """Whether ``exc`` is not the plugin's failure: evo's own interruption (a time limit), or a
    KeyboardInterrupt that a signal raised."""
    return isinstance(exc, Interruption) or (isinstance(exc, KeyboardInterrupt) and bool(received))
