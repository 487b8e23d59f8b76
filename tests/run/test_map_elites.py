"""``evolve()`` with ``[run] algorithm = "map-elites"``: the same loop, pool and callbacks as the GA, a result
with the archive, the run folder's archive files, ``open_run`` and resuming."""

from __future__ import annotations

import json
import math
import sys

import pytest

import evo
from evo.errors import EvoInputError
from evo.io.checkpoint.disk import read_checkpoint_document
from evo.io.checkpoint.qd import qd_state_to_dict

TABLES = {
    "run": {"name": "qd", "seed": 4, "generations": 4, "population": 12, "algorithm": "map-elites"},
    "evaluation": {"frames": 300, "plugin": "stance", "params": {"settle_frames": 50}},
    "world": {"max_speed": 50.0},
    "genome": {"masses": [3, 8]},
    "qd": {"measures": ["masses", "reach"], "batch_size": 4, "emitters": 2, "settle_frames": 50},
    "pool": {"workers": 1},
}


@pytest.fixture(scope="module")
def config() -> evo.Config:
    return evo.Config.from_dict(TABLES)


def state_text(result: evo.RunResult) -> str:
    return json.dumps(qd_state_to_dict(result.evolution.state()))


def test_evolve_runs_map_elites_and_returns_the_archive(config):
    statuses = []
    result = evo.evolve(config, progress=False, callbacks=[statuses.append])
    archive = result.archive
    assert archive.kind == "grid" and archive.measures == ("masses", "reach") and archive.total_cells == 60
    assert 0 < len(archive.cells) <= 60 and archive.coverage == len(archive.cells) / 60
    assert list(result.history["generation"]) == [0, 1, 2, 3]
    assert list(result.history["evaluations"]) == [12, 8, 8, 8]
    assert result.history["num_elites"][-1] == len(archive.cells)
    assert result.history["qd_score"][-1] == pytest.approx(sum(c.objective for c in archive.cells))
    assert [s.stats["coverage"] for s in statuses] == list(result.history["coverage"])
    best = archive.best(3)
    assert best[0].member.fitness == result.best.fitness and best[0].objective >= best[-1].objective
    assert all(set(c.measures) == {"masses", "reach"} for c in archive.cells)
    assert result.evolution.generation == 3 and "Archive(grid" in repr(result)


def test_one_and_two_workers_give_the_same_archive(config):
    one = evo.evolve(config, progress=False, workers=1)
    two = evo.evolve(config, progress=False, workers=2)
    assert state_text(one) == state_text(two)


def test_one_and_two_workers_write_the_same_run_folder(config, tmp_path):
    evo.evolve(config, out=tmp_path / "one", workers=1, progress=False)
    evo.evolve(config, out=tmp_path / "two", workers=2, progress=False)
    for name in ("checkpoint.npz", "archive.json", "history.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    for sub in ("archive", "elites", "generations"):
        one = {p.name: p.read_bytes() for p in (tmp_path / "one" / sub).glob("*.json")}
        assert one == {p.name: p.read_bytes() for p in (tmp_path / "two" / sub).glob("*.json")} and one


def test_a_callback_stops_a_map_elites_run(config):
    def stop(status):
        status.stop()

    result = evo.evolve(config, progress=False, callbacks=[stop])
    assert result.stopped and result.generation == 0


def test_the_run_folder_holds_the_archive_its_cells_and_their_provenance(config, tmp_path):
    result = evo.evolve(config, out=tmp_path / "run", progress=False)
    folder = tmp_path / "run"
    archive = json.loads((folder / "archive.json").read_text())
    checkpoint = read_checkpoint_document(folder)
    assert checkpoint["algorithm"] == "map-elites" and checkpoint["generation"] == 3
    assert [e["index"] for e in archive["elites"]] == [c.index for c in result.archive.cells]
    assert [e["cell"] for e in checkpoint["elites"]] == [c.index for c in result.archive.cells]
    files = sorted(p.name for p in (folder / "archive").glob("*.json"))
    assert files == sorted(e["file"].removeprefix("archive/") for e in archive["elites"])
    for entry in archive["elites"]:
        meta = json.loads((folder / entry["file"]).read_text())["meta"]
        assert meta["cell"] == entry["index"] and meta["id"] == entry["id"]
        assert meta["measures"] == dict(zip(("masses", "reach"), entry["measures"], strict=True))
        assert meta["fitness"] == entry["fitness"]
    elites = sorted((folder / "elites").glob("*.json"))
    assert len(elites) == min(10, len(archive["elites"]))
    assert json.loads(elites[0].read_text())["meta"]["fitness"] == list(result.best.fitness)
    header = (folder / "history.csv").read_text().splitlines()[0].split(",")
    assert header[-6:] == ["coverage", "qd_score", "norm_qd_score", "obj_max", "obj_mean", "num_elites"]
    assert len(list((folder / "generations").glob("gen*.json"))) == 4

    opened = evo.open_run(folder)

    def cells(archive):
        return [
            (c.index, c.grid, c.measures, c.objective, c.member.id, c.member.fitness) for c in archive.cells
        ]

    assert cells(opened.archive) == cells(result.archive) and opened.generation == 3
    assert [m.id for m in opened.hall_of_fame] == [m.id for m in result.hall_of_fame]
    assert state_text(opened) == state_text(result)
    assert list(opened.history["num_elites"]) == list(result.history["num_elites"])


def test_a_map_elites_run_folder_opens_without_pyribs(config, tmp_path, monkeypatch):
    result = evo.evolve(config, out=tmp_path / "run", progress=False)
    monkeypatch.setitem(sys.modules, "ribs", None)
    opened = evo.open_run(tmp_path / "run")
    assert opened.evolution is None and len(opened.archive.cells) == len(result.archive.cells)
    assert [m.id for m in opened.hall_of_fame] == [m.id for m in result.hall_of_fame]


def test_resuming_goes_on_to_the_same_archive_and_refuses_another_qd_table(config, tmp_path):
    whole = evo.evolve(config, out=tmp_path / "whole", progress=False)
    half = config.replace(run={"generations": 2})
    evo.evolve(half, out=tmp_path / "half", progress=False)
    with pytest.raises(EvoInputError, match=r"\[qd\] batch_size differ"):
        evo.evolve(config.replace(qd={"batch_size": 5}), out=tmp_path / "half", resume=True, progress=False)
    resumed = evo.evolve(config, out=tmp_path / "half", resume=True, progress=False)
    assert state_text(resumed) == state_text(whole)
    for name in ("checkpoint.npz", "archive.json", "history.csv"):
        assert (tmp_path / "half" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def test_a_ga_run_folder_is_not_resumed_as_map_elites(config, tmp_path):
    ga = config.replace(
        run={"algorithm": "ga", "generations": 1}, evaluation={"plugin": "distance", "params": {}}
    )
    evo.evolve(ga, out=tmp_path / "ga", progress=False)
    with pytest.raises(EvoInputError, match=r"\[run\] algorithm"):
        evo.evolve(config, out=tmp_path / "ga", resume=True, progress=False)


def test_a_fitness_function_from_python_may_return_measures(config):
    @evo.fitness_plugin("lean", measures={"lean": (-50.0, 50.0)})
    def lean(result):
        """Distance (px); measure: the mean x of the highest mass less the centroid's (px)."""
        top = result.positions[:, :, 1].argmax(axis=1)
        x = result.positions[range(len(top)), top, 0] - result.centroids[:, 0]
        return float(result.centroids[-1, 0] - result.centroids[0, 0]), float(x.mean())

    with pytest.raises(EvoInputError, match="unknown measure 'lean'"):
        config.replace(qd={"measures": ["masses", "lean"]})
    evo.register_fitness("lean", lean)
    leaning = config.replace(evaluation={"plugin": "lean", "params": {}}, qd={"measures": ["masses", "lean"]})
    assert dict(leaning.qd.ranges) == {"masses": [2.5, 8.5], "lean": [-50.0, 50.0]}
    assert leaning.qd.bins == (6, 10)
    result = evo.evolve(leaning, progress=False)
    assert result.archive.measures == ("masses", "lean") and result.archive.cells
    for cell in result.archive.cells:  # the bin of each measure, a value outside its range in the edge bin
        lean_bin = min(max(math.floor((cell.measures["lean"] + 50.0) / 10.0), 0), 9)
        assert cell.grid == (round(cell.measures["masses"]) - 3, lean_bin), cell
    by_function = evo.evolve(config.replace(qd={"measures": ["masses"]}), fitness=lean, progress=False)
    assert by_function.archive.measures == ("masses",) and by_function.config.evaluation.plugin == "lean"


def test_a_cvt_run_resumed_from_its_checkpoint_keeps_its_centroids_and_ends_byte_identical(config, tmp_path):
    cvt = config.replace(qd={"archive": "cvt", "cells": 12, "cvt_samples": 600})
    whole = evo.evolve(cvt, out=tmp_path / "whole", progress=False)
    evo.evolve(cvt.replace(run={"generations": 2}), out=tmp_path / "half", progress=False)
    saved = read_checkpoint_document(tmp_path / "half")
    assert len(saved["centroids"]) == 12 and all(len(c) == 2 for c in saved["centroids"])
    resumed = evo.evolve(cvt, out=tmp_path / "half", resume=True, progress=False)
    assert state_text(resumed) == state_text(whole)
    for name in ("checkpoint.npz", "archive.json", "history.csv"):
        assert (tmp_path / "half" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
