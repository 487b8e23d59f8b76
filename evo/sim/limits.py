"""Limits that protect the machine: the most masses and links one simulation takes, and records that must
fit in the memory that is free. The environment variables ``EVO_MAX_MASSES`` and ``EVO_MAX_LINKS``
change the caps for every command; :func:`evo.simulate` also takes ``limits=`` (docs/simulator.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from evo.errors import EvoInputError
from evo.schema import number_problem

__all__ = ["DEFAULT_MAX_LINKS", "DEFAULT_MAX_MASSES", "Limits", "check_size", "free_memory"]

DEFAULT_MAX_MASSES = 100_000
DEFAULT_MAX_LINKS = 100_000
RECORD_BYTES = 2 * 2 * 8  # per record and mass: position and velocity, (x, y) float64 each


@dataclass(frozen=True)
class Limits:
    """How big one simulation may be.

    Attributes:
        max_masses: the most masses of a creature.
        max_links: the most links of a creature.
        max_record_bytes: the most bytes the records (positions and velocities) may take; None: the
            memory free when the simulation starts.
    """

    max_masses: int = DEFAULT_MAX_MASSES
    max_links: int = DEFAULT_MAX_LINKS
    max_record_bytes: int | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, with ``EVO_MAX_MASSES`` and ``EVO_MAX_LINKS`` where they are set.

        Args:
            environ: the environment variables to read; None reads ``os.environ``.

        Returns:
            The :class:`Limits` (an empty or blank variable leaves its default).

        Raises:
            EvoInputError: a variable that is not an integer >= 1.
        """
        environ = os.environ if environ is None else environ
        caps = {}
        for name, key in (("EVO_MAX_MASSES", "max_masses"), ("EVO_MAX_LINKS", "max_links")):
            text = environ.get(name)
            if text is None or not text.strip():
                continue
            try:
                value: object = int(text.strip())
            except ValueError:
                value = text
            problem = number_problem(value, integer=True, low=1)
            if problem is not None:
                raise EvoInputError(f"environment variable {name}: {problem}")
            caps[key] = value
        return cls(**caps)


def free_memory() -> int | None:
    """Bytes of memory free now (``sysconf``; Linux counts no page cache in it), or None if unknown."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _size(n_bytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n_bytes < 1024 or unit == "PiB":
            return f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1024
    raise AssertionError("unreachable")


def check_size(n_masses: int, n_links: int, n_records: int, limits: Limits) -> None:
    """Refuse a simulation too big for ``limits`` (before anything is allocated).

    Args:
        n_masses: masses of the creature; ``n_links`` its links.
        n_records: records the simulation would keep (frames / record_every + 1).
        limits: the caps.

    Raises:
        EvoInputError: one line saying how big the simulation would be and what the cap is.
    """
    for count, cap, what, variable in (
        (n_masses, limits.max_masses, "masses", "EVO_MAX_MASSES"),
        (n_links, limits.max_links, "links", "EVO_MAX_LINKS"),
    ):
        if count > cap:
            raise EvoInputError(
                f"the creature has {count:,} {what}, more than the {cap:,} a simulation may have "
                f"(raise the limit with the environment variable {variable})"
            )
    needed = n_records * n_masses * RECORD_BYTES
    available = limits.max_record_bytes if limits.max_record_bytes is not None else free_memory()
    if available is not None and needed > available:
        where = "the limit" if limits.max_record_bytes is not None else "the memory free"
        raise EvoInputError(
            f"{n_records:,} records of {n_masses:,} masses do not fit in memory: they would take "
            f"{_size(needed)} and {where} is {_size(available)}; record less often (record_every, "
            "--every) or simulate fewer frames"
        )
