"""Reading a run folder for the gallery, and the best creature of every generation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gallery_builders import made_run, random_creatures

from evo.errors import EvoInputError
from evo.gallery.contents import generation_bests
from evo.io.run_folder.contents import read_run


def test_a_real_run_folder_gives_elites_history_objectives_and_a_date(run_dir: Path):
    run = read_run(run_dir)
    assert len(run.elites) == len(list((run_dir / "elites").glob("*.json")))
    assert run.objectives == ("distance",) and run.weights == (1.0,)
    assert [int(r["generation"]) for r in run.history] == list(range(6))
    assert run.started and run.started[:2] == "20"
    fitness = [e.fitness[0] for e in run.elites]
    assert fitness == sorted(fitness, reverse=True)


def test_generation_bests_match_the_history_where_the_run_kept_the_creature(run_dir: Path):
    run = read_run(run_dir)
    bests = generation_bests(run)
    assert [b.generation for b in bests] == list(range(6))
    last = bests[-1]
    assert last.exact and last.entry is not None
    assert last.entry.fitness[0] == pytest.approx(run.history[-1]["distance_best"], rel=1e-12)
    for best in bests:
        if best.entry is not None:
            assert best.entry.generation <= best.generation
            if best.exact:
                row = run.history[best.generation]
                assert best.entry.fitness[0] == pytest.approx(row["distance_best"], rel=1e-12)


def test_saved_generation_files_are_used_as_the_exact_bests(tmp_path: Path):
    creatures = random_creatures(3, masses=(4, 6))
    folder = made_run(tmp_path / "run", creatures, frames=300, generations=3)
    saved = folder / "generations"
    saved.mkdir()
    first = sorted((folder / "elites").glob("*.json"))[2]
    shutil.copy(first, saved / "gen0001.json")
    bests = generation_bests(read_run(folder))
    assert bests[1].exact and bests[1].entry.file_name == "gen0001.json"
    assert not bests[0].exact  # nothing was kept that was born by generation 0 in this made-up run
    assert bests[0].entry is None


def test_a_folder_without_elites_is_refused_in_one_line(tmp_path: Path):
    with pytest.raises(EvoInputError, match="no elites"):
        read_run(tmp_path)
    with pytest.raises(EvoInputError, match="no such run folder"):
        read_run(tmp_path / "missing")


def test_without_generation_files_the_bests_are_rebuilt_from_the_elites_and_the_last_population(
    run_dir: Path, tmp_path: Path
):
    saved = generation_bests(read_run(run_dir))
    assert all(best.exact and best.entry.file_name.startswith("gen") for best in saved)
    old = tmp_path / "old-run"
    shutil.copytree(run_dir, old)
    shutil.rmtree(old / "generations")  # a run folder from before evo run kept generations/
    rebuilt = generation_bests(read_run(old))
    assert [b.generation for b in rebuilt] == [b.generation for b in saved]
    assert rebuilt[-1].exact, "the last generation's best is in the last population"
    assert not any(b.entry.file_name.startswith("gen") for b in rebuilt if b.entry)
    for before, after in zip(saved, rebuilt, strict=True):
        if after.exact:
            assert after.entry.fitness[0] == pytest.approx(before.entry.fitness[0], rel=1e-12)
        elif after.entry is not None:
            assert after.entry.generation <= after.generation
            assert after.entry.fitness[0] <= before.entry.fitness[0]
