"""The gallery of a robust run (issue 31) in headless Chromium: each card shows the robust fitness the
run selected on and, beside it, the raw score of the unperturbed world."""

from __future__ import annotations

from test_gallery_browser import gallery_page

import evo
from evo.gallery import write_gallery

ROBUST_RUN = {
    "run": {"seed": 3, "generations": 2, "population": 16},
    "evaluation": {"frames": 400, "plugin": "distance", "robust": {"samples": 2, "seed": 1}},
    "world": {"max_speed": 50.0},
    "genome": {"masses": [4, 5], "max_links": 8},
}


def test_the_cards_of_a_robust_run_show_the_robust_and_the_raw_score(tmp_path):
    result = evo.evolve(ROBUST_RUN, out=tmp_path / "run", progress=False, workers=1)
    best = result.best
    raw = evo.evaluate(best.creature, result.config.evaluation_spec(), best.seed).fitness[0]
    problems: list[str] = []
    with gallery_page(write_gallery(tmp_path / "run"), problems) as page:
        text = page.locator("article.card .fitness").first.inner_text()
    assert problems == []
    assert text.startswith("robust distance ") and " · raw " in text
    robust_shown, raw_shown = float(text.split()[2]), float(text.split(" · raw ")[1])
    assert abs(robust_shown - best.fitness[0]) <= 1e-4 * abs(best.fitness[0]) + 1e-9
    assert abs(raw_shown - raw) <= 1e-4 * abs(raw) + 1e-9
