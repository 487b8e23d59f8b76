"""``evo gallery RACE.xml`` (issue 20): the race file as one offline page with evo's own ranking, a card per
contender, and the race playing at once on the race's terrain; in headless Chromium, without a console
error or a request for anything not local."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_gallery_browser import gallery_page

from evo.cli import main
from evo.gallery.race_page import build_race_page, race_page_path
from evo.io.soda_race import read_race
from evo.race import run_race

EXAMPLE = Path(__file__).resolve().parents[2] / "genomes" / "classic" / "race.xml"


def payload(page: str) -> dict:
    data = re.search(r'<script type="application/json" id="evo-data">(.*?)</script>', page, re.S)
    return json.loads(data.group(1))


def test_the_page_holds_evos_ranking_and_every_contender(tmp_path):
    page = build_race_page(EXAMPLE, frames=3000)
    result = run_race(read_race(EXAMPLE), frames=3000)
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]*)</td><td>(\d+)</td>", page)
    assert [(int(r), name, int(i)) for r, name, i in rows] == [
        (s.rank, s.name, s.index) for s in result.standings
    ]
    data = payload(page)
    assert data["elites"] == [f"r{s.index}" for s in result.standings]
    assert data["track"]["finish_x"] == 1500.0 and data["race"]["frames"] == 3000
    for s in result.standings:
        c = data["creatures"][f"r{s.index}"]
        assert c["fitness"] == [s.distance] and c["finish"] == round(1500.0 - c["start_x"], 2)


def test_evo_gallery_of_a_race_file_writes_the_page_beside_it_or_at_out(tmp_path, capsys):
    race = tmp_path / "my race.xml"
    race.write_bytes(EXAMPLE.read_bytes())
    assert main(["gallery", str(race)]) == 0
    assert race_page_path(race) == tmp_path / "my race.html" and race_page_path(race).is_file()
    out = tmp_path / "elsewhere.html"
    assert main(["gallery", str(race), "--out", str(out)]) == 0 and out.is_file()
    assert main(["gallery", str(race), "--top", "2"]) == 2
    assert "--top is for run folders" in capsys.readouterr().err


def wait_until(page, condition, seconds: float = 60.0) -> bool:
    """Poll ``condition`` every 200 ms of the page's clock (the page's CSP forbids evaluated strings)."""
    for _ in range(int(seconds * 5)):
        if condition():
            return True
        page.wait_for_timeout(200)
    return condition()


def test_the_race_page_plays_in_headless_chromium(tmp_path):
    index = tmp_path / "race.html"
    index.write_text(build_race_page(EXAMPLE, frames=2500), encoding="utf-8")
    problems: list[str] = []
    with gallery_page(index, problems) as page:
        page.wait_for_selector("#race:not([hidden])")
        assert page.locator("#fitness h2").inner_text() == "Ranking"
        assert page.locator("#evolution").is_hidden()
        assert page.locator("article.card").count() == 4
        rows = page.locator("#race-board .board-row .who")
        assert wait_until(page, lambda: rows.count() == 4)
        assert sorted(rows.all_inner_texts()) == ["crawler", "hopper", "roller", "strider"]
        page.select_option("#race-speed", "8")
        results = page.locator("#race-board .how")
        assert wait_until(page, lambda: any(t.startswith("finished") for t in results.all_inner_texts()))
    assert problems == []
