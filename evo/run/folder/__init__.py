"""The run folder as the loop's listener: what may start or resume where and the files written after each
generation (:mod:`.writer`), a MAP-Elites run's archive (:mod:`.archive`), the elites as model files
(:mod:`.elite_files`). The files' formats are :mod:`evo.io.run_folder`'s and :mod:`evo.io.checkpoint`'s."""

from evo.run.folder.archive import QDFolderWriter
from evo.run.folder.elite_files import EliteFiles, generation_best, provenance_of
from evo.run.folder.writer import FolderWriter, Prepared, RunFailed, loop_settings, prepare, run_logging

__all__ = [
    "EliteFiles",
    "FolderWriter",
    "Prepared",
    "QDFolderWriter",
    "RunFailed",
    "generation_best",
    "loop_settings",
    "prepare",
    "provenance_of",
    "run_logging",
]
