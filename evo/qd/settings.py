"""The ``[qd]`` table of a MAP-Elites run: the archive, its measures and ranges, the emitters.

:class:`QDSection` is parsed by the schema engine like every table; :meth:`QDSection.resolved` then
checks it against the plugin's own measures and fills in each measure's range and bins, so that the
resolved config states the archive exactly (docs/config.md, docs/qd.md).
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evo.errors import EvoInputError, closest
from evo.fitness.measures import BUILTIN_MEASURES
from evo.schema import check, section_to_dict, setting, shown

__all__ = ["ARCHIVES", "MAX_CELLS", "QDSection"]

ARCHIVES = ("grid", "cvt")
MAX_CELLS = 100_000  # an archive larger than this would make archive.json and the gallery unwieldy
DEFAULT_BINS = 10  # bins of a measure without its own default (masses: one bin per count)


@dataclass(frozen=True)
class QDSection:
    """The ``[qd]`` table (read when ``[run] algorithm = "map-elites"``)."""

    archive: str = setting(
        "grid",
        choices=ARCHIVES,
        doc="grid: bins per measure; cvt: cells of a centroidal Voronoi tessellation",
    )
    measures: tuple[str, ...] = setting(
        ("masses", "settled_height"), doc="the measures that place a creature in the archive"
    )
    bins: int | tuple[int, ...] | None = setting(
        None, low=1, doc="grid: bins of every measure, or one number per measure"
    )
    ranges: Mapping[str, Any] | None = setting(
        None, doc="[low, high] of a measure, by name; default: the measure's own"
    )
    cells: int = setting(100, low=1, doc="cvt: number of cells")
    cvt_samples: int = setting(20000, low=1, doc="cvt: random points k-means clusters into the cells")
    batch_size: int = setting(32, low=1, doc="children each emitter makes per iteration")
    emitters: int = setting(2, low=1, doc="emitters; an iteration evaluates emitters * batch_size children")
    settle_frames: int = setting(200, low=0, doc="frames the built-in measures leave out at the start")
    score_offset: float = setting(
        0.0, doc="subtracted from each elite's objective in the QD score (pyribs' qd_score_offset)"
    )

    def __post_init__(self) -> None:
        if not self.measures:
            raise EvoInputError("expected at least one measure, got []", field="measures")
        if len(set(self.measures)) != len(self.measures):
            raise EvoInputError(
                f"expected distinct measures, got {shown(list(self.measures))}", field="measures"
            )
        if isinstance(self.bins, tuple) and len(self.bins) != len(self.measures):
            count = len(self.measures)
            problem = f"expected one number of bins per measure ({count}), got {shown(list(self.bins))}"
            raise EvoInputError(problem, field="bins")
        if self.archive == "cvt" and self.cvt_samples < self.cells:
            raise EvoInputError(
                f"expected at least as many samples as cells ({self.cells}), got {self.cvt_samples}",
                field="cvt_samples",
            )

    @property
    def total_cells(self) -> int:
        """Cells of the archive (the grid's product of bins; resolved sections only)."""
        if self.archive == "cvt":
            return self.cells
        return math.prod(self.bins_per_measure)

    @property
    def bins_per_measure(self) -> tuple[int, ...]:
        if isinstance(self.bins, tuple):
            return self.bins
        return (self.bins or DEFAULT_BINS,) * len(self.measures)

    def range_of(self, measure: str) -> tuple[float, float]:
        """The (low, high) of a measure of a resolved section."""
        low, high = self.ranges[measure]
        return float(low), float(high)

    def resolved(
        self,
        plugin_measures: Sequence[str],
        plugin_ranges: Sequence[tuple[float, float] | None],
        *,
        masses: tuple[int, int],
        omega: tuple[float, float],
        plugin: str = "",
        source: str | None = None,
    ) -> QDSection:
        """This section with every measure known, its range and bins filled in.

        Args:
            plugin_measures, plugin_ranges: the fitness plugin's own measures and their default ranges.
            masses, omega: the ``[genome]`` ranges some built-in measures take their defaults from.
            plugin: the plugin's name (for messages); source: the config file.

        Returns:
            A section whose ``ranges`` names every measure, and whose ``bins`` has one number per
            measure (grid).

        Raises:
            EvoInputError: an unknown measure, a measure without a range, a bad range or too many cells.
        """
        own = dict(zip(plugin_measures, plugin_ranges, strict=True))
        known = [*BUILTIN_MEASURES, *own]
        for name in self.measures:
            if name not in known:
                hint = closest(name, known)
                advice = f"did you mean '{hint}'?" if hint else "known measures: " + ", ".join(known)
                raise EvoInputError(
                    f"unknown measure '{name}'; {advice}", source=source, field="[qd] measures"
                )
        given = self.ranges or {}
        for name in given:
            if name not in self.measures:
                raise EvoInputError(
                    f"'{name}' is not one of the measures {shown(list(self.measures))}",
                    source=source,
                    field="[qd] ranges",
                )
        ranges: dict[str, list[float]] = {}
        for name in self.measures:
            if name in given:
                value, problem = check(given[name], tuple[float, float])
                if problem is None and not value[0] < value[1]:
                    problem = f"expected [low, high] with low < high, got {shown(given[name])}"
                if problem is not None:
                    raise EvoInputError(problem, source=source, field=f"[qd] ranges.{name}")
            elif name in BUILTIN_MEASURES:
                value = BUILTIN_MEASURES[name].default_range(masses, omega)
            elif own[name] is not None:
                value = own[name]
            else:
                raise EvoInputError(
                    f"measure '{name}' of plugin '{plugin}' has no default range; give one as "
                    f"ranges = {{{name} = [low, high]}}",
                    source=source,
                    field="[qd] ranges",
                )
            ranges[name] = [float(value[0]), float(value[1])]
        changes: dict[str, Any] = {"ranges": types.MappingProxyType(ranges)}
        if self.archive == "grid":
            changes["bins"] = tuple(
                self.bins[k] if isinstance(self.bins, tuple) else self.bins or _default_bins(name, masses)
                for k, name in enumerate(self.measures)
            )
        section = dataclasses.replace(self, **changes)
        if section.total_cells > MAX_CELLS:
            field = "[qd] cells" if self.archive == "cvt" else "[qd] bins"
            raise EvoInputError(
                f"expected an archive of at most {MAX_CELLS} cells, got {section.total_cells}",
                source=source,
                field=field,
            )
        return section

    def to_table(self) -> dict[str, Any]:
        """The table for the config's TOML: every key with its value (ranges as a table of lists)."""
        table = section_to_dict(self)
        table["ranges"] = {name: list(value) for name, value in (self.ranges or {}).items()}
        return table


def _default_bins(measure: str, masses: tuple[int, int]) -> int:
    """One bin per count of masses; :data:`DEFAULT_BINS` for every other measure."""
    if measure == "masses":
        return masses[1] - masses[0] + 1
    return DEFAULT_BINS
