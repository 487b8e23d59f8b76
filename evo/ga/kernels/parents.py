"""The parents' arrays a compiled breeding call reads, end to end: the arrays the call before on the same
thread left its children in, for the parents it made (most of a generation's: the children of the one
before), and the others' gathered from their creatures (docs/performance.md, "Round twenty-one")."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from evo.model import Creature

__all__ = ["forget_children", "gathered", "parents_arrays", "remember_children"]

# this thread's last compiled breeding call: (each child's row by id, its arrays end to end as
# parents_arrays gives them, the children, whose ids stay theirs while they are held here)
_MADE = threading.local()


def parents_arrays(creatures: Sequence[Creature]) -> tuple[tuple, np.ndarray]:
    """The arrays of ``creatures`` end to end, read-only (as a creature's own), and where each one's
    masses and links begin: (positions, link_a, link_b, rest, alpha, phi, waves, mass_at, link_at), and
    the row of each creature in them. Rows of children :func:`remember_children` was last given on this
    thread are theirs there (their arrays are those the creatures were assembled from, equal to their
    own); the others follow them, gathered from the creatures (:func:`gathered`)."""
    made = getattr(_MADE, "record", None)
    if made is None:
        return gathered(creatures), np.arange(len(creatures), dtype=np.int64)
    rows_of, arrays, _ = made
    known = len(arrays[-2]) - 1
    others: list[Creature] = []
    rows: list[int] = []
    for creature in creatures:
        row = rows_of.get(id(creature))
        if row is None:
            row = known + len(others)
            others.append(creature)
        rows.append(row)
    at = np.array(rows, dtype=np.int64)
    if not others:
        return arrays, at
    more = gathered(others)
    if len(others) == len(creatures):  # none of those children
        return more, at - known
    joined = [np.concatenate([a, b]) for a, b in zip(arrays[:7], more[:7], strict=True)]
    for array in joined:
        array.setflags(write=False)
    starts = [np.concatenate([a, b[1:] + a[-1]]) for a, b in zip(arrays[7:], more[7:], strict=True)]
    return (*joined, *starts), at


def remember_children(
    children: Sequence[Creature],
    rows: Sequence[int],
    sizes: np.ndarray,
    positions: np.ndarray,
    links: np.ndarray,
    genes: np.ndarray,
    waves: np.ndarray,
) -> None:
    """Keep, for this thread's next :func:`parents_arrays`, a compiled breeding call's children (each
    assembled from row ``rows[k]`` of its arrays: (n, 2) masses and links ``sizes``, ``positions``, (2,
    links) ``links``, (3, links) ``genes`` (rest, alpha, phi), (n, 2) ``waves`` (omega, beta)), in place
    of the call before's. The arrays are kept as read-only views; the arrays under them (which the
    chunk's :class:`evo.sim.laid.Laid` shares) must not change after either, and nothing writes them
    once the call has made its children (their rest genes finished first)."""
    views = [positions.view(), links[0], links[1], genes[0], genes[1], genes[2], waves.view()]
    for view in views:
        view.setflags(write=False)
    zero = np.zeros(1, np.int64)
    starts = [np.concatenate([zero, np.cumsum(sizes[:, k])]) for k in (0, 1)]
    rows_of = {id(child): row for child, row in zip(children, rows, strict=True)}
    _MADE.record = (rows_of, (*views, *starts), list(children))


def forget_children() -> None:
    """Drop what :func:`remember_children` kept on this thread (its next call gathers every parent)."""
    _MADE.record = None


def gathered(creatures: Sequence[Creature]) -> tuple:
    """The arrays of ``creatures`` end to end, gathered from each: as :func:`parents_arrays` gives them."""
    masses = np.fromiter((c.n_masses for c in creatures), np.int64, len(creatures))
    links = np.fromiter((c.n_links for c in creatures), np.int64, len(creatures))
    arrays = [
        np.concatenate([c.positions for c in creatures]),
        np.concatenate([c.link_a for c in creatures]),
        np.concatenate([c.link_b for c in creatures]),
        np.concatenate([c.rest for c in creatures]),
        np.concatenate([c.alpha for c in creatures]),
        np.concatenate([c.phi for c in creatures]),
        np.array([(c.omega, c.beta) for c in creatures], np.float64),
    ]
    for array in arrays:
        array.setflags(write=False)
    zero = np.zeros(1, np.int64)
    return (*arrays, np.concatenate([zero, np.cumsum(masses)]), np.concatenate([zero, np.cumsum(links)]))
