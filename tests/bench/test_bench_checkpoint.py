"""The ``checkpoint`` section of ``evo bench`` runs on tiny sizes and reports every figure it promises."""

from __future__ import annotations

import argparse

from evo.bench import SECTIONS, run_sections


def test_the_checkpoint_section_reports_costs_per_child_and_rates_as_the_run_ages():
    assert "checkpoint" in SECTIONS
    args = argparse.Namespace(population=12, repeats=1, age_generations=30)
    (section,) = run_sections(args, ["checkpoint"])
    costs, ages = section.data["checkpoint"], section.data["checkpoint_age"]
    assert costs["population"] == 12 and costs["bytes"] > 12 * 100  # the arrays of 12 creatures
    assert all(costs[k] > 0 for k in ("pack_ms", "npz_ms", "write_ms", "json_ms"))
    assert ages["generations"] == 30 and ages["window"] == 9  # (30 - 11) // 2 generations at each end
    assert ages["early_checkpoint_ms"] > 0 and ages["late_checkpoint_ms"] > 0
    text = "\n".join(section.lines)
    assert "packing into arrays" in text and "evo 0.1's JSON" in text and "30 generations" in text
