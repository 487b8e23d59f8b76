"""The Designs panel's listing (evo.studio.library): the start folder's model files by name, each read by
evo's readers, a race file left out and an unreadable file listed with its one-line error."""

from __future__ import annotations

import shutil
from pathlib import Path

from evo.io.models import load_model
from evo.studio.designs import model_object
from evo.studio.library import MAX_DESIGNS, design_listing
from evo.studio.limits import StudioLimits

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


def test_model_files_are_listed_by_name_with_their_models_and_errors(tmp_path: Path):
    shutil.copy(GENOMES / "walker.json", tmp_path / "b-walker.json")
    shutil.copy(GENOMES / "classic" / "crawler.xml", tmp_path / "a-crawler.xml")
    shutil.copy(GENOMES / "classic" / "race.xml", tmp_path / "race.xml")
    (tmp_path / "c-broken.json").write_text("{", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a model", encoding="utf-8")
    listing = design_listing(tmp_path, StudioLimits())
    assert [row["file"] for row in listing["designs"]] == ["a-crawler.xml", "b-walker.json", "c-broken.json"]
    crawler, walker, broken = listing["designs"]
    assert (
        walker["model"] == model_object(load_model(tmp_path / "b-walker.json")) and walker["name"] == "walker"
    )
    assert crawler["model"] == model_object(load_model(tmp_path / "a-crawler.xml"))
    assert "c-broken.json" in broken["error"] and "model" not in broken and listing["more"] == 0


def test_a_design_over_the_limits_or_too_many_files_are_said(tmp_path: Path):
    for k in range(MAX_DESIGNS + 2):
        shutil.copy(GENOMES / "walker.json", tmp_path / f"w{k:03}.json")
    listing = design_listing(tmp_path, StudioLimits(masses=3))
    assert len(listing["designs"]) == MAX_DESIGNS and listing["more"] == 2
    assert "at most 3" in listing["designs"][0]["error"]
    assert design_listing(None, StudioLimits()) == {"folder": None, "designs": [], "more": 0}
