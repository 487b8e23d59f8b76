"""The ``refine`` section of ``evo bench``: it runs with tiny arguments and returns its fields.

No timing is asserted: timings belong to ``python -m evo bench --refine``, not to the tests.
"""

from __future__ import annotations

import argparse
import json

from evo import bench
from evo.bench import refine as bench_refine


def test_the_refine_section_reports_the_share_in_lanes_and_both_rates_per_body():
    args = argparse.Namespace(
        repeats=1, refine_budget=33, refine_frames=300, refine_bodies=("galloper.json",)
    )
    section = bench_refine.refine_section(args)
    data = json.loads(json.dumps(section.data))["refine"]
    (row,) = data["rows"]
    assert (row["creature"], row["genes"], row["links"], row["evaluations"]) == ("galloper", 20, 10, 33)
    assert row["lanes_share"] == 1.0  # every candidate of every generation, in lanes
    assert row["refine_evaluations_per_s"] > 0 and row["scalar_evaluations_per_s"] > 0
    assert row["ratio"] == row["refine_evaluations_per_s"] / row["scalar_evaluations_per_s"]
    assert "refine/scalar" in "\n".join(section.lines)
    assert bench.SECTIONS["refine"] == "evo.bench.refine:refine_section"
