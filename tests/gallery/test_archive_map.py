"""The gallery of a MAP-Elites run: the archive as a heatmap (grid and CVT) whose cells open their creature's
replay, and the QD score and coverage curves; in the page's data and in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_gallery_browser import CANVAS_STATE, gallery_page
from test_gallery_page import external_references, payload

from evo.cli import main
from evo.gallery import build_gallery, write_gallery

CONFIG = """
[run]
name = "qd-{archive}"
seed = 2
generations = 4
population = 16
algorithm = "map-elites"

[evaluation]
frames = 600

[evaluation.params]
settle_frames = 100

[world]
max_speed = 50.0

[qd]
archive = "{archive}"
measures = {measures}
cells = 24
cvt_samples = 2000
batch_size = 6
emitters = 2
settle_frames = 100

[pool]
workers = 1
"""


def qd_run(folder: Path, archive: str, measures: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / f"{archive}.toml"
    config.write_text(CONFIG.format(archive=archive, measures=json.dumps(measures)))
    out = folder / "run"
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 0
    return out


@pytest.fixture(scope="module")
def grid_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qd_run(tmp_path_factory.mktemp("qd-grid"), "grid", ["masses", "omega", "settled_height"])


@pytest.fixture(scope="module")
def cvt_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qd_run(tmp_path_factory.mktemp("qd-cvt"), "cvt", ["omega", "settled_height"])


def test_the_page_carries_every_occupied_cell_with_its_creatures_replay(grid_run: Path):
    page = build_gallery(grid_run)
    assert external_references(page) == []
    data = payload(page)
    archive = json.loads((grid_run / "archive.json").read_text())
    shown = data["archive"]
    assert shown["kind"] == "grid" and [m["name"] for m in shown["measures"]] == [
        "masses",
        "omega",
        "settled_height",
    ]
    assert [c["index"] for c in shown["cells"]] == [e["index"] for e in archive["elites"]]
    for cell, entry in zip(shown["cells"], archive["elites"], strict=True):
        creature = data["creatures"][cell["key"]]
        assert creature["name"] == f"qd-grid-{entry['id']}"
        assert cell["key"].startswith("e") or creature["records"] <= 301  # an elite's replay is shared
        assert json.loads(creature["model"])["meta"]["cell"] == entry["index"]
    assert 'data-column="qd_score"' in page and 'data-column="coverage"' in page


def test_a_ga_run_has_no_archive(run_dir: Path):
    data = payload(build_gallery(run_dir))
    assert data["archive"] is None


def test_a_cvt_archive_carries_its_centroids_in_the_measures_units(cvt_run: Path):
    shown = payload(build_gallery(cvt_run))["archive"]
    assert shown["kind"] == "cvt" and len(shown["centroids"]) == 24
    omega_low, omega_high = shown["measures"][0]["low"], shown["measures"][0]["high"]
    assert all(omega_low <= c[0] <= omega_high for c in shown["centroids"])


@pytest.mark.parametrize("which", ["grid_run", "cvt_run"])
def test_the_archive_heatmap_works_in_headless_chromium(which, request, tmp_path: Path):
    run = request.getfixturevalue(which)
    index = write_gallery(run)
    problems: list[str] = []
    with gallery_page(index, problems) as page:
        assert page.is_visible("#archive") and page.is_visible("#nav-archive")
        page.locator("#archive").scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        before = page.eval_on_selector("#archive-canvas", CANVAS_STATE)
        assert before["painted"] == before["total"] and before["dark"] > 200, "cells and axes are drawn"
        assert "cells occupied" in page.text_content("#archive-figures")
        assert page.locator("svg.chart[data-column='qd_score'] polyline").count() == 1
        assert page.locator("svg.chart[data-column='coverage'] polyline").count() == 1

        best = page.evaluate("EVO.archive.cells.reduce((a, b) => (b.objective > a.objective ? b : a))")
        point = page.evaluate(f"archivePoint({best['index']})")
        page.locator("#archive-canvas").hover(position=point)
        assert page.text_content("#archive-label").startswith(f"cell {best['index']}: distance")
        page.locator("#archive-canvas").click(position=point)
        page.wait_for_selector("#detail:not([hidden])")
        expected = page.evaluate(f"EVO.creatures[{json.dumps(best['key'])}].name")
        assert page.text_content("#detail-title") == expected and expected.startswith("qd-")
        page.wait_for_timeout(300)
        assert page.eval_on_selector("#detail-canvas", CANVAS_STATE)["dark"] > 20
        page.screenshot(path=str(tmp_path / f"{which}-detail.png"))
        page.click("#detail-close")

        if which == "grid_run":  # three measures: another pair redraws the map
            page.select_option("#archive-y", "2")
            page.wait_for_timeout(100)
            after = page.eval_on_selector("#archive-canvas", CANVAS_STATE)
            assert after["digest"] != before["digest"]
        page.locator("#archive").screenshot(path=str(tmp_path / f"{which}.png"))
    assert problems == []
    assert (tmp_path / f"{which}.png").stat().st_size > 5_000
