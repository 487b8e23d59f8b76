"""A MAP-Elites state as JSON (exact), ``archive.json``, the ``archive/`` model files and their provenance."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.ga.individual import Individual
from evo.io.checkpoint.qd import archive_document, is_qd_checkpoint, qd_state_from_dict, qd_state_to_dict
from evo.io.provenance import Provenance
from evo.io.run_folder.folder import RunFolder, archive_file_name
from evo.model import Creature
from evo.qd import ArchiveSpec, Elite, QDState

SPEC = ArchiveSpec("grid", ("masses", "omega"), ((2.5, 8.5), (0.0, 0.2)), bins=(6, 4), score_offset=-1.0)


def creature(n: int) -> Creature:
    return Creature(
        positions=[[10.0 * i, 0.0] for i in range(n)],
        velocities=np.zeros((n, 2)),
        fixed=[False] * n,
        link_a=list(range(n - 1)),
        link_b=list(range(1, n)),
        rest=[10.0] * (n - 1),
        alpha=[0.1] * (n - 1),
        phi=[0.3] * (n - 1),
        omega=0.1 / 3,
        beta=0.5,
    )


def elite(index: int, n: int, objective: float, born: int = 1) -> Elite:
    ind = Individual(creature(n), (1.0,), id=f"g{born}-{index}", parents=("g0-1",), born=born)
    ind.set_fitness((objective,), seed=2**63 + index)
    return Elite(index, (float(n), 0.1 / 3), objective, ind)


def state(centroids=None) -> QDState:
    return QDState(
        generation=3,
        seed=7,
        objectives=("distance",),
        weights=(1.0,),
        measures=SPEC.measures,
        rng=np.random.Generator(np.random.PCG64(7)).bit_generator.state,
        elites=(elite(4, 3, 1 / 3), elite(9, 4, 12.5)),
        logbook=(
            {"generation": 0, "evaluations": 5, "distance_best": math.nan, "num_elites": 2, "exploded": 1},
        ),
        centroids=centroids,
    )


def test_a_state_survives_json_exactly():
    original = state(centroids=np.array([[0.1, 1 / 3], [0.9, 0.25]]))
    doc = json.loads(json.dumps(qd_state_to_dict(original)))
    assert is_qd_checkpoint(doc) and doc["algorithm"] == "map-elites"
    back = qd_state_from_dict(doc, (1.0,))
    assert (
        back.rng == original.rng
        and back.generation == 3
        and np.array_equal(back.centroids, original.centroids)
    )
    assert [(e.index, e.measures, e.objective) for e in back.elites] == [
        (e.index, e.measures, e.objective) for e in original.elites
    ]
    assert back.elites[0].individual.values == (1 / 3,) and back.elites[0].individual.seed == 2**63 + 4
    assert back.logbook[0]["num_elites"] == 2 and isinstance(back.logbook[0]["num_elites"], int)
    assert math.isnan(back.logbook[0]["distance_best"])
    assert json.dumps(qd_state_to_dict(back)) == json.dumps(qd_state_to_dict(original))


def test_a_ga_checkpoint_is_not_read_as_a_map_elites_one():
    with pytest.raises(ValueError, match="map-elites"):
        qd_state_from_dict({"generation": 0}, (1.0,))


def test_archive_json_lists_every_occupied_cell_with_its_bins_measures_objective_and_creature():
    doc = archive_document(state(), SPEC, {"g1-4": "archive/cell0004_g1-4.json"})
    assert doc["format"] == "evo-archive" and doc["archive"] == "grid" and doc["cells"] == 24
    assert doc["measures"][0] == {"name": "masses", "low": 2.5, "high": 8.5, "bins": 6}
    assert doc["stats"]["num_elites"] == 2 and doc["stats"]["coverage"] == 2 / 24
    assert doc["stats"]["qd_score"] == pytest.approx(1 / 3 + 1 + 12.5 + 1)
    first = doc["elites"][0]
    assert first == {
        "index": 4,
        "grid": [1, 0],
        "measures": [3.0, 0.1 / 3],
        "objective": 1 / 3,
        "fitness": [1 / 3],
        "id": "g1-4",
        "file": "archive/cell0004_g1-4.json",
    }
    assert "file" not in doc["elites"][1]


def test_archive_cells_are_written_once_and_strays_removed(tmp_path):
    folder = RunFolder(tmp_path)
    written = []

    def text_of(name: str) -> str:
        written.append(name)
        return f"model of {name}"

    folder.write_archive_cells(["cell0001_g0-1.json", "cell0002_g0-2.json"], text_of)
    (folder.archive_cells / "cell0001_g0-1.json").write_text("as it was")
    folder.write_archive_cells(["cell0001_g0-1.json", "cell0003_g1-0.json"], text_of)
    assert written == ["cell0001_g0-1.json", "cell0002_g0-2.json", "cell0003_g1-0.json"]
    assert sorted(p.name for p in folder.archive_cells.iterdir()) == [
        "cell0001_g0-1.json",
        "cell0003_g1-0.json",
    ]
    assert (folder.archive_cells / "cell0001_g0-1.json").read_text() == "as it was"


def test_archive_file_names_sort_by_cell():
    assert archive_file_name(7, 100, "g3-1") == "cell0007_g3-1.json"
    assert archive_file_name(7, 123456, "g3-1") == "cell000007_g3-1.json"


def test_a_run_folder_reads_its_archive_json_and_refuses_anything_else(tmp_path):
    folder = RunFolder(tmp_path)
    assert folder.read_archive() is None
    folder.write_archive(archive_document(state(), SPEC))
    assert folder.read_archive()["elites"][1]["id"] == "g1-9"
    folder.archive.write_text('{"format": "evo-checkpoint"}')
    with pytest.raises(EvoInputError, match='archive.json: expected an "evo-archive" document'):
        folder.read_archive()


def test_an_elites_provenance_carries_its_cell_and_measures():
    provenance = Provenance(
        run="r", id="g1-4", generation=1, plugin="distance", frames=300, cell=4, measures={"masses": 3.0}
    )
    meta = provenance.to_meta()
    assert meta["cell"] == 4 and meta["measures"] == {"masses": 3.0}
    assert Provenance.from_meta(meta) == provenance
    plain = Provenance(run="r", id="g1-4", generation=1, plugin="distance", frames=300).to_meta()
    assert "cell" not in plain and "measures" not in plain
