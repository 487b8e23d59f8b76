"""The ``scaling`` section of ``evo bench --scaling``: it runs with tiny arguments and returns its fields.

No timing is asserted: timings belong to ``python -m evo bench``, not to the tests.
"""

from __future__ import annotations

import argparse
import importlib
import json

from scripted_clock import scripted_time

from evo import bench
from evo.bench import batch as bench_batch
from evo.bench import scaling
from evo.cli import main as cli_main


def test_the_scaling_section_reports_sizes_the_limit_population_workers_and_a_profile():
    args = argparse.Namespace(
        repeats=1,
        sizes=((5, 9), (20, 60)),
        lanes=8,
        limit_steps=50,
        populations=(8, 16),
        generations=2,
        profile_generations=3,
    )
    section = scaling.scaling_section(args)
    data = json.loads(json.dumps(section.data))["scaling"]
    assert [(row["masses"], row["links"], row["creatures"]) for row in data["sizes"]] == [
        (5, 9, 8),
        (20, 60, 8),
    ]
    for row in data["sizes"]:
        assert row["bit_identical"] and row["exploded"] == 0
    assert data["limit_link_steps_per_s"] > 0 and data["limit_scattered_link_steps_per_s"] > 0
    assert [(row["population"], row["workers"]) for row in data["population"]] == [(8, 1), (16, 1), (200, 2)]
    assert all(row["per_s"] > 0 for row in data["population"])
    ms = data["profile"]["ms_per_generation"]
    assert data["profile"]["generations"] == 2 and ms["kernel"] > 0 and ms["total"] > 0
    assert "sqrt + one divide" in "\n".join(section.lines)


def test_a_size_row_gives_evaluations_per_second_of_evaluation_frames(monkeypatch):
    monkeypatch.setattr(bench_batch, "time", scripted_time([1.0, 0.25]))  # scalar, then batched (s)
    (row,) = scaling.size_rows(1, sizes=((5, 9),), lanes=2, work=2 * 9 * 150)
    assert (row["creatures"], row["frames"]) == (2, 150)
    # 2 creatures of 150 frames in 1 s (0.25 s batched); an evaluation is EVALUATION_FRAMES frames
    assert row["scalar_evaluations_per_s"] == 2 * 150 / scaling.EVALUATION_FRAMES / 1.0
    assert row["batch_evaluations_per_s"] == 2 * 150 / scaling.EVALUATION_FRAMES / 0.25
    assert row["scalar_spring_updates_per_s"] == 9 * 150 * 2 / 1.0


def test_the_profile_splits_a_generation_by_the_runs_that_leave_one_part_out(monkeypatch):
    bench_evolution = importlib.import_module("evo.bench.evolution")
    fitness_evaluate = importlib.import_module("evo.fitness.evaluate")  # evo.fitness.evaluate: a function too
    run_evolve = importlib.import_module("evo.run.evolve")

    monkeypatch.setattr(bench_evolution, "walkers_config", lambda generations: FakeConfig())
    monkeypatch.setattr(bench_evolution, "evaluated_creatures", lambda config: ["c"] * 6)
    monkeypatch.setattr(bench_evolution, "bare_kernel", lambda config, creatures, repeats: {"per_s": 6.0})
    monkeypatch.setattr(run_evolve, "evolve", lambda *args, **kwargs: None)
    monkeypatch.setattr(fitness_evaluate, "evaluate", lambda *args: None)
    # generation 0 alone, with the folder, batched, unbatched, the plugins alone (s)
    monkeypatch.setattr(scaling, "time", scripted_time([1.0, 5.0, 3.5, 4.0, 2.0]))
    profile = scaling.profile_walkers(generations=3, repeats=1)
    assert profile["generations"] == 2 and profile["evaluations_per_generation"] == 3.0
    # per generation (2 timed): kernel 6 / 6 per s = 1 s, plugins 2 s, unbatched 3 s, batched 2.5 s,
    # with the folder 4 s
    assert profile["ms_per_generation"] == {
        "kernel": 500.0,
        "plugin_and_wrapper": 500.0,
        "ga": 500.0,
        "batching_saves": 250.0,
        "writer": 750.0,
        "total": 2000.0,
    }


class FakeConfig:
    def replace(self, **tables):
        return self

    def evaluation_spec(self):
        return None


def test_the_frames_of_a_size_keep_each_case_about_the_same_cost():
    rows = scaling.size_rows(1, sizes=((5, 9), (60, 200)), lanes=2, work=2 * 200 * 150)
    assert [row["frames"] for row in rows] == [3000, 150]


def test_evo_bench_scaling_runs_only_the_scaling_section(monkeypatch, capsys):
    ran = []

    def fake(args):
        ran.append(args.scaling)
        return bench.Section("fake scaling", ["a line"], {"scaling": {"ok": True}})

    monkeypatch.setitem(bench.SECTIONS, "scaling", "tests_fake:fake")
    monkeypatch.setattr(bench, "_load", lambda reference: fake)
    assert cli_main(["bench", "--scaling", "--json"]) == 0
    assert ran == [True] and json.loads(capsys.readouterr().out) == {"scaling": {"ok": True}}
    assert "scaling" not in bench.DEFAULT_SECTIONS
