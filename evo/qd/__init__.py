"""Quality diversity: MAP-Elites over creatures with pyribs (docs/qd.md).

This package's plain data (settings, state, statistics) imports without pyribs; :mod:`evo.qd.loop`
(:class:`~evo.qd.loop.QualityDiversity`), :mod:`evo.qd.archive` and :mod:`evo.qd.emitter` need it
(``pip install 'evo[qd]'``).
"""

from evo.qd._ribs import INSTALL, require_ribs, ribs_missing
from evo.qd.settings import ARCHIVES, QDSection
from evo.qd.state import (
    QD_COLUMNS,
    ArchiveSpec,
    Elite,
    QDSettings,
    QDState,
    archive_statistics,
    cvt_seed,
    qd_history_columns,
)

__all__ = [
    "ARCHIVES",
    "INSTALL",
    "QD_COLUMNS",
    "ArchiveSpec",
    "Elite",
    "QDSection",
    "QDSettings",
    "QDState",
    "archive_statistics",
    "cvt_seed",
    "qd_history_columns",
    "require_ribs",
    "ribs_missing",
]
