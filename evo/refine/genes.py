"""The genes refine tunes, as one vector in [0, 1]^d: a fixed body's muscle phases, amplitudes, rest
lengths and its wave, each scaled by its ``[genome]`` range (phases by one turn, and wrapped)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evo.errors import EvoInputError, closest
from evo.ga.body import TWO_PI, wrap_phase
from evo.ga.settings import GenomeSection
from evo.model import Creature

__all__ = ["ALPHA_RANGE", "GENES", "GeneSpace"]

# every gene refine knows, in the order of the vector
GENES = ("phi", "alpha", "rest", "omega", "beta")
# a muscle's amplitude stays in this range, as in the alpha mutation: a muscle never becomes a spring
ALPHA_RANGE = (0.01, 1.0)


@dataclass(frozen=True)
class GeneSpace:
    """Where each chosen gene of one body sits in the vector, and its range.

    Attributes:
        creature: the body (its values are the start, topology and every other field are kept).
        genes: the chosen genes, in the order of :data:`GENES`.
        slices: (gene, start, stop) of each chosen gene in the vector.
        low: (d,) array, the value that 0 stands for (px, rad/frame, ...).
        high: (d,) array, the value that 1 stands for; a phase wraps, the others are clipped into [0, 1].
    """

    creature: Creature
    genes: tuple[str, ...]
    slices: tuple[tuple[str, int, int], ...]
    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, creature: Creature, genes: Sequence[str], genome: GenomeSection) -> GeneSpace:
        """The space of ``genes`` of ``creature``: phases and amplitudes of its muscles (alpha > 0), the
        rest lengths of all its links, omega and beta. A range of ``genome`` is widened to contain the
        body's own value, so the start is always a point of the space.

        Args:
            creature: the body to tune.
            genes: names among :data:`GENES`.
            genome: the ``[genome]`` limits (rest, omega, beta ranges).

        Returns:
            The :class:`GeneSpace`.

        Raises:
            EvoInputError: an unknown or repeated gene name, or genes that give the body nothing to tune
                (e.g. only phases, of a body without muscles).
        """
        chosen = list(genes)
        for name in chosen:
            if name not in GENES:
                hint = closest(name, GENES)
                raise EvoInputError(
                    f"unknown gene {name!r}; expected some of {', '.join(GENES)}"
                    + (f" (did you mean {hint!r}?)" if hint else ""),
                    field="genes",
                )
        if len(set(chosen)) != len(chosen) or not chosen:
            raise EvoInputError(
                f"expected distinct genes among {', '.join(GENES)}, got {chosen}", field="genes"
            )
        muscles = int(np.count_nonzero(creature.alpha > 0.0))
        ranges = {
            "phi": (muscles, 0.0, TWO_PI),
            "alpha": (muscles, *ALPHA_RANGE),
            "rest": (creature.n_links, *genome.rest),
            "omega": (1, *genome.omega),
            "beta": (1, *genome.beta),
        }
        slices, lows, highs, start = [], [], [], 0
        ordered = tuple(g for g in GENES if g in chosen)
        for name in ordered:
            size, low, high = ranges[name]
            values = cls._values(creature, name)
            if name != "phi" and size:
                low, high = min(low, float(values.min())), max(high, float(values.max()))
            slices.append((name, start, start + size))
            lows += [low] * size
            highs += [high] * size
            start += size
        if start == 0:
            raise EvoInputError(
                f"{creature.name!r} has nothing to tune in {', '.join(ordered)} (it has no muscles)",
                field="genes",
            )
        return cls(creature, ordered, tuple(slices), np.array(lows), np.array(highs))

    @staticmethod
    def _values(creature: Creature, name: str) -> np.ndarray:
        muscles = creature.alpha > 0.0
        if name in ("phi", "alpha"):
            return np.asarray(getattr(creature, name)[muscles], dtype=np.float64)
        if name == "rest":
            return np.asarray(creature.rest, dtype=np.float64)
        return np.array([float(getattr(creature, name))])

    @property
    def dimension(self) -> int:
        """The length d of the vector."""
        return int(self.low.size)

    def start(self) -> np.ndarray:
        """(d,) array: the body's own values, scaled (a zero-width range maps to 0)."""
        values = np.concatenate([self._values(self.creature, name) for name, _, _ in self.slices])
        span = self.high - self.low
        return np.divide(values - self.low, span, out=np.zeros_like(values), where=span > 0)

    def repair(self, x: np.ndarray) -> np.ndarray:
        """``x`` ((d,) or (k, d) array) with every gene but the phases clipped into [0, 1] (phases are
        left as they are: they wrap when a creature is made)."""
        x = np.asarray(x, dtype=np.float64)
        out = np.clip(x, 0.0, 1.0)
        for name, a, b in self.slices:
            if name == "phi":
                out[..., a:b] = x[..., a:b]
        return out

    def creature_at(self, x: np.ndarray) -> Creature:
        """The body with the genes of ``x`` ((d,) array, repaired first); everything else unchanged.

        Returns:
            A new :class:`Creature` of the same topology (see :meth:`creatures_at`).
        """
        return self.creatures_at(np.asarray(x, dtype=np.float64)[None, :])[0]

    def creatures_at(self, xs: np.ndarray) -> list[Creature]:
        """The bodies with the genes of each row of ``xs`` ((k, d) array, repaired first).

        Each is made as a shallow copy of the body with the tuned fields set (read-only arrays of the same
        shapes, values inside their ranges), which skips the constructor's checks: a run of refine makes
        thousands of candidates a second. Each equals ``creature.replace(...)`` of the same values.

        Returns:
            k new :class:`Creature` s of the same topology, in order.
        """
        values = self.low + self.repair(xs) * (self.high - self.low)
        body = self.creature
        muscles = np.flatnonzero(body.alpha > 0.0)
        columns: dict[str, np.ndarray] = {}
        for name, a, b in self.slices:
            part = values[:, a:b]
            if name in ("phi", "alpha"):
                full = np.repeat(np.asarray(getattr(body, name), dtype=np.float64)[None, :], len(xs), axis=0)
                full[:, muscles] = wrap_phase(part) if name == "phi" else part
                columns[name] = full
            elif name == "rest":
                columns[name] = np.array(part)
            else:
                columns[name] = part[:, 0].copy()
        for column in columns.values():
            column.flags.writeable = False  # each candidate's row is a read-only view
        rows = [(name, column) for name, column in columns.items() if column.ndim == 2]
        scalars = [(name, column.tolist()) for name, column in columns.items() if column.ndim == 1]
        body.positions  # noqa: B018 (a creature whose arrays are made on first read: made now)
        kind, state = type(body), body.__dict__
        out = []
        for k in range(len(xs)):
            candidate = object.__new__(kind)  # a shallow copy, as copy.copy makes, without its detour
            fields = candidate.__dict__
            fields.update(state)
            for name, column in rows:
                fields[name] = column[k]
            for name, column in scalars:
                fields[name] = column[k]
            out.append(candidate)
        return out
