"""The run folder of a MAP-Elites run: what :class:`~evo.run.folder.FolderWriter` writes, plus
``archive.json`` and each cell's creature under ``archive/`` (docs/runs.md)."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

from evo.ga.individual import Individual
from evo.io.checkpoint.disk import checkpoint_arrays
from evo.io.checkpoint.qd import archive_document, qd_checkpoint_contents
from evo.io.models import dumps_model
from evo.io.run_folder.folder import ARCHIVE_CELLS, archive_file_name
from evo.model import Creature
from evo.qd import Elite
from evo.run.folder.elite_files import EliteFiles, generation_best, provenance_of
from evo.run.folder.writer import FolderWriter, Prepared

__all__ = ["QDFolderWriter"]

log = logging.getLogger("evo.run")


class _CellFiles(EliteFiles):
    """Model files whose ``meta`` also holds the creature's archive cell and measures."""

    def __init__(self, prepared: Prepared):
        super().__init__(prepared.config, prepared.plugin)
        self.measures = tuple(prepared.config.qd.measures)
        self.cells: dict[str, Elite] = {}

    def creature(self, ind: Individual) -> Creature:
        provenance = provenance_of(self.config, ind, self.objectives)
        elite = self.cells.get(ind.id)
        if elite is not None:
            measures = dict(zip(self.measures, elite.measures, strict=True))
            provenance = dataclasses.replace(provenance, cell=elite.index, measures=measures)
        return ind.creature.replace(
            name=f"{self.config.run.name}-{ind.id}", world=self.world, meta=provenance.to_meta()
        )


class QDFolderWriter(FolderWriter):
    """:class:`FolderWriter` for a MAP-Elites run: after every iteration (whatever ``[run]
    checkpoint_interval``), ``history.csv`` and
    ``checkpoint.npz`` (the source of truth, durable before the iteration is reported), then in the writer
    thread ``archive.json``, ``elites/`` (the best cells), ``archive/`` (every cell's creature) and
    ``generations/genNNNN.json`` (the archive's best), in that order."""

    def __init__(self, prepared: Prepared, *, clock: Callable[[], float] = time.monotonic):
        super().__init__(prepared, clock=clock)
        self.elites = _CellFiles(prepared)
        self.interval = 0.0  # every iteration: its derived files are the archive's, made from its state

    def _columns(self) -> list[str]:
        return list(self.prepared.evolution.columns)

    def _checkpoint_arrays(self, state: Any, history: dict[str, Any]) -> dict[str, Any]:
        head, groups, extra = qd_checkpoint_contents(state)
        return checkpoint_arrays({**head, "history": history}, groups, extra)

    def _derived(self, state: Any) -> Callable[[], None]:
        folder, search = self.folder, self.prepared.evolution
        spec = search.settings.archive
        members = list(search.hall_of_fame)
        files = self.elites
        cells = {e.individual.id: e for e in state.elites}
        by_name = {archive_file_name(e.index, spec.total_cells, e.individual.id): e for e in state.elites}
        paths = {e.individual.id: f"{ARCHIVE_CELLS}/{name}" for name, e in by_name.items()}

        def work() -> None:
            started = time.perf_counter()
            files.cells = cells  # here: the writes run one at a time, in this thread
            folder.write_archive(archive_document(state, spec, paths))
            folder.write_elites(files.texts(files.names(members)))
            folder.write_archive_cells(
                list(by_name), lambda name: dumps_model(files.creature(by_name[name].individual))
            )
            best = generation_best([e.individual for e in state.elites])
            if best is not None:
                folder.write_generation_best(state.generation, dumps_model(files.creature(best)))
            log.debug("iteration %d written in %.3f s", state.generation, time.perf_counter() - started)

        return work
