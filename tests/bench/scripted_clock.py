"""A clock for the bench tests: each timed call lasts exactly the seconds the test chose, so that a rate a
section reports can be checked against one worked out by hand (never against the section's own division)."""

from __future__ import annotations

import types
from collections.abc import Iterable


def scripted_time(durations: Iterable[float]) -> types.SimpleNamespace:
    """A stand-in for the ``time`` module whose ``perf_counter`` (or ``thread_time``: the same clock) is read
    twice per timed call (start, end) and gives the calls ``durations`` (s, binary fractions so that the
    differences are exact)."""
    stamps, now = [], 0.0
    for seconds in durations:
        stamps += [now, now + seconds]
        now += seconds + 1.0
    ticks = iter(stamps)
    return types.SimpleNamespace(perf_counter=lambda: next(ticks), thread_time=lambda: next(ticks))
