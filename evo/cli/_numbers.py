"""Numeric command-line values with bounds: each numeric flag's ``type=`` parses it, and a value outside
the range the command can work with becomes an :class:`OutOfRange` that ``evo.cli.main`` turns into one
line and status 2, saying the range and why."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FRAMES", "SEED", "OutOfRange", "integer", "number"]

MAX_SEED = 2**63 - 1  # seeds are kept as int64 in checkpoints and elite metas
MAX_FRAMES = 2**53  # frames are counted in float64 too: beyond 2**53 not every frame is a number


@dataclass(frozen=True)
class OutOfRange:
    """A parsed value outside its flag's range: what to say about it."""

    problem: str


def _clipped(text: str) -> str:
    """A flag's text as an error shows it: at most 40 characters."""
    return text if len(text) <= 40 else f"{text[:37]}..."


def integer(low: int, high: int, why: str) -> Callable[[str], int | OutOfRange]:
    """An argparse ``type``: an integer in [low, high]; ``why`` says what the range protects."""

    def parse(text: str) -> int | OutOfRange:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {_clipped(text)!r}") from None
        if not low <= value <= high:
            shown = str(value) if len(str(value)) <= 40 else f"an integer of {len(str(value))} digits"
            return OutOfRange(f"expected an integer in {low}..{high} ({why}), got {shown}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def number(low: float, high: float, why: str, *, above: bool = False) -> Callable[[str], float | OutOfRange]:
    """An argparse ``type``: a finite number in [low, high] (with ``above``: in (low, high])."""

    def parse(text: str) -> float | OutOfRange:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {_clipped(text)!r}") from None
        inside = (value > low if above else value >= low) and value <= high
        if not (math.isfinite(value) and inside):
            span = f"{'(' if above else '['}{low:g}, {high:g}]"
            return OutOfRange(f"expected a number in {span} ({why}), got {value:g}")
        return value

    parse.__name__ = "number"
    return parse


SEED = integer(0, MAX_SEED, "seeds are stored as 64-bit integers")
FRAMES = integer(1, MAX_FRAMES, "frames counted exactly in float64")
