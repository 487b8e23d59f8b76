"""The run folder's files (docs/runs.md): :class:`RunFolder` writes them (:mod:`.folder`) and
:func:`read_run` reads a folder back as typed records (:mod:`.contents`)."""

from evo.io.run_folder.contents import (
    CHECKPOINT_ERRORS,
    Entry,
    RunContents,
    archive_entries,
    checkpoint_path,
    finite_values,
    read_run,
)
from evo.io.run_folder.folder import (
    ARCHIVE,
    ARCHIVE_CELLS,
    CHECKPOINT,
    CONFIG,
    ELITES,
    FAILED,
    GENERATIONS,
    HISTORY,
    LEGACY_CHECKPOINT,
    LOG,
    RunFolder,
    archive_file_name,
    elite_file_name,
    history_csv,
    model_digest,
)

__all__ = [
    "ARCHIVE",
    "ARCHIVE_CELLS",
    "CHECKPOINT",
    "CHECKPOINT_ERRORS",
    "CONFIG",
    "ELITES",
    "FAILED",
    "GENERATIONS",
    "HISTORY",
    "LEGACY_CHECKPOINT",
    "LOG",
    "Entry",
    "RunContents",
    "RunFolder",
    "archive_entries",
    "archive_file_name",
    "checkpoint_path",
    "elite_file_name",
    "finite_values",
    "history_csv",
    "model_digest",
    "read_run",
]
