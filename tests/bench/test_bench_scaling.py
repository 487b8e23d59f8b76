"""The ``scaling`` section of ``evo bench --scaling``: it runs with tiny arguments and returns its fields.

No timing is asserted: timings belong to ``python -m evo bench``, not to the tests.
"""

from __future__ import annotations

import argparse
import json

import pytest

from evo import bench
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
        assert row["scalar_evaluations_per_s"] == pytest.approx(
            row["scalar_spring_updates_per_s"] / (row["links"] * scaling.EVALUATION_FRAMES)
        )
    assert data["limit_link_steps_per_s"] > 0 and data["limit_scattered_link_steps_per_s"] > 0
    assert [(row["population"], row["workers"]) for row in data["population"]] == [(8, 1), (16, 1), (200, 2)]
    assert all(row["per_s"] > 0 for row in data["population"])
    ms = data["profile"]["ms_per_generation"]
    assert data["profile"]["generations"] == 2 and ms["kernel"] > 0 and ms["total"] > 0
    parts = ms["kernel"] + ms["plugin_and_wrapper"] + ms["ga"] - ms["batching_saves"] + ms["writer"]
    assert parts == pytest.approx(ms["total"])
    assert "sqrt + one divide" in "\n".join(section.lines)


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
