"""``[evaluation] robust = {samples = K, ...}`` (issue 31): each child scored in K seeded perturbed worlds,
its fitness a low quantile; the samples in lanes give what one by one gives; a robust run is
byte-identical across worker counts, batch mode and resume."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

import evo
from evo.audit.robust import RobustSettings, robust_evaluation, sample_worlds, simulate_samples
from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.run.config import parse_config

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
ROBUST = {"samples": 3, "quantile": 0.0, "seed": 7}
TINY = {
    "run": {"seed": 3, "generations": 4, "population": 24},
    "evaluation": {"frames": 600, "plugin": "distance", "robust": ROBUST},
    "world": {"max_speed": 50.0},
    "genome": {"masses": [4, 6], "max_links": 12},
}


def config(**changes):
    doc = {table: dict(keys) for table, keys in TINY.items()}
    for table, keys in changes.items():
        doc.setdefault(table, {}).update(keys)
    return evo.Config.from_dict(doc)


def differing(a: Path, b: Path, ignore=("run.log", "config.toml")) -> list[str]:
    compare = filecmp.dircmp(a, b, ignore=list(ignore))
    out = [*compare.left_only, *compare.right_only]
    out += filecmp.cmpfiles(a, b, compare.common_files, shallow=False)[1]
    for sub in compare.common_dirs:
        out += [f"{sub}/{name}" for name in differing(a / sub, b / sub, ignore)]
    return out


def test_the_robust_table_is_checked_key_by_key_and_written_back_as_a_table():
    assert config().evaluation.robust == RobustSettings(samples=3, quantile=0.0, seed=7)
    assert parse_config({}).evaluation.robust is None
    assert config().describe()[1].endswith("; robust: quantile 0 of 3 worlds")  # evo validate says so
    with pytest.raises(
        EvoInputError, match=r"\[evaluation\] robust.samples: expected an integer in \[1, 64\]"
    ):
        config(evaluation={"robust": {"samples": 0}})
    with pytest.raises(EvoInputError, match=r"unknown key 'sampels' in \[evaluation\] robust"):
        config(evaluation={"robust": {"sampels": 2}})
    with pytest.raises(EvoInputError, match=r"robust scoring needs the GA without \[ga\] refine"):
        config(ga={"refine": {"every": 2, "top": 1, "budget": 20}})
    again = evo.Config.from_dict(config().to_dict())
    assert again.evaluation.robust == config().evaluation.robust


def test_the_sample_worlds_depend_on_the_seed_only_and_stay_within_their_ranges():
    settings = RobustSettings(samples=5, seed=1)
    world = evo.World()
    samples = sample_worlds(settings, world)
    assert samples == sample_worlds(RobustSettings(samples=5, seed=1), world)
    assert samples != sample_worlds(RobustSettings(samples=5, seed=2), world)
    for s in samples:
        assert (
            abs(s.world.gravity / world.gravity - 1) <= 0.1
            and abs(s.world.damping / world.damping - 1) <= 0.1
        )
        assert abs(s.phase) <= settings.phase and abs(s.shift) <= settings.shift
    assert len({s.world.gravity for s in samples}) == 5


def test_the_robust_fitness_is_the_low_quantile_of_the_samples_and_lanes_give_the_same():
    spec = config().evaluation_spec()
    walkers = [load_model(GENOMES / n) for n in ("inchworm.json", "galloper.json", "walker.json")]
    walkers += [w.replace(omega=w.omega * 1.05) for w in walkers] * 2
    settings = RobustSettings(samples=4, quantile=0.25, seed=3)
    in_lanes = simulate_samples(walkers, spec, settings)
    for walker, samples in zip(walkers, in_lanes, strict=True):
        alone = robust_evaluation(walker, spec, 0, settings)
        assert robust_evaluation(walker, spec, 0, settings, samples) == alone
        worst = robust_evaluation(walker, spec, 0, RobustSettings(samples=4, quantile=0.0, seed=3))
        best = robust_evaluation(walker, spec, 0, RobustSettings(samples=4, quantile=1.0, seed=3))
        assert worst.fitness <= alone.fitness <= best.fitness


def test_a_robust_run_is_byte_identical_across_workers_batch_mode_and_resume(tmp_path):
    whole = evo.evolve(config(), out=tmp_path / "whole", progress=False, workers=1)
    spec = whole.config.evaluation_spec()
    best = whole.best
    raw = evo.evaluate(best.creature, spec, best.seed).fitness
    robust = robust_evaluation(best.creature, spec, best.seed, whole.config.evaluation.robust).fitness
    assert best.fitness == robust and raw != robust  # the run selected on the robust score

    def stop_at_1(status):
        if status.generation == 1:
            status.stop()

    evo.evolve(config(), out=tmp_path / "resumed", callbacks=[stop_at_1], progress=False, workers=1)
    evo.evolve(config(), out=tmp_path / "resumed", resume=True, progress=False, workers=1)
    evo.evolve(config(), out=tmp_path / "two", progress=False, workers=2)
    evo.evolve(config(pool={"batch": False}), out=tmp_path / "single", progress=False, workers=1)
    for other in ("resumed", "two", "single"):
        assert differing(tmp_path / "whole", tmp_path / other) == [], other


def test_inspect_and_the_gallery_show_the_robust_and_the_raw_score_side_by_side(tmp_path, capsys):
    from evo.cli import main
    from evo.gallery.build import build_gallery

    result = evo.evolve(config(run={"generations": 2}), out=tmp_path / "run", progress=False, workers=1)
    best = result.best
    raw = evo.evaluate(best.creature, result.config.evaluation_spec(), best.seed).fitness[0]
    assert main(["inspect", str(tmp_path / "run")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "distance (robust)" in lines[1] and " raw " in lines[1]
    assert lines[2].split()[1:3] == [f"{best.fitness[0]:.6g}", f"{raw:.6g}"]
    page = build_gallery(tmp_path / "run")
    assert f'"raw":[{raw!r}]' in page.replace(" ", "") and 'return c.raw ? "robust "' in page
