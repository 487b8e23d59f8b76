"""The ``studio`` section of ``evo bench --studio``: it runs with tiny arguments and returns its fields.

No timing is asserted: timings belong to ``python -m evo bench``, not to the tests.
"""

from __future__ import annotations

import argparse
import json

import pytest

pytest.importorskip("starlette", reason="the studio section needs the studio extra")

from evo.bench import studio  # noqa: E402


def test_the_studio_section_reports_streamed_and_player_rates_and_the_edit_latency_per_design():
    args = argparse.Namespace(repeats=1, studio_frames={"walker": 30, "200 masses": 10}, studio_edits=2)
    section = studio.studio_section(args)
    rows = json.loads(json.dumps(section.data))["studio"]
    assert [(r["design"], r["masses"], r["frames"]) for r in rows] == [
        ("walker", 5, 30),
        ("200 masses", 200, 10),
    ]
    for row in rows:
        assert row["streamed_fps"] > 0 and row["player_fps"] > 0
        assert 0 < row["edit_to_frame_ms_best"] <= row["edit_to_frame_ms_median"]
    assert any("50 ms" in line for line in section.lines)
