"""Issue 30's "done when", in headless Chromium and driven only by pointer and keys: a new user, on the studio
opened on a run (a small one made here: none is shipped), builds a walker, makes it walk, names it, refines
it and races it against the run's best elite; the numbers the page shows are evo's."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from test_studio_browser import DOCS, SCREENSHOTS, chromium, click_at, drag, state, studio_page

import evo
from evo.io.models import load_model
from evo.race import run_race
from evo.race.models import race_of_creatures, scores_of

RUN_CONFIG = """\
[run]
name = "shipped"
seed = 5
generations = 2
population = 6

[evaluation]
frames = 300
plugin = "distance"

[pool]
workers = 1
"""
# a box braced by two diagonal muscles a quarter period apart: it walks to the right
BOX = [(100.0, 10.0), (180.0, 10.0), (180.0, 60.0), (100.0, 60.0)]
SIDES = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)]


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def small_run(folder: Path) -> Path:
    """A 2-generation run made with ``evo run``, as a user's earlier run would be."""
    (folder / "run.toml").write_text(RUN_CONFIG, encoding="utf-8")
    run = folder / "runs" / "shipped"
    done = subprocess.run(
        [sys.executable, "-m", "evo", "run", str(folder / "run.toml"), "--out", str(run), "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return run


def on_line(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])


def test_a_new_user_builds_a_walker_makes_it_walk_refines_it_and_races_it_against_an_elite(
    browser, studio_factory, tmp_path: Path
):
    run = small_run(tmp_path)
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(run), cwd=tmp_path), problems) as page:
        page.get_by_role("button", name="New", exact=True).click()
        page.keyboard.press("m")
        for x, y in BOX:
            click_at(page, x, y)
        page.keyboard.press("l")
        for a, b in SIDES:
            drag(page, BOX[a], BOX[b])
        page.keyboard.press("u")  # both diagonals become muscles (clicked near their ends: they cross)
        click_at(page, *on_line(BOX[0], BOX[2], 0.3))
        click_at(page, *on_line(BOX[1], BOX[3], 0.3))
        page.keyboard.press("v")
        click_at(page, *on_line(BOX[1], BOX[3], 0.3))
        dial = page.locator("#dial").bounding_box()  # straight down, half-way out: φ = 3π/2, α = 0.5
        page.mouse.click(
            dial["x"] + dial["width"] / 2, dial["y"] + dial["height"] / 2 + dial["height"] * 25 / 120
        )
        built = state(page)["model"]
        assert [(link["a"], link["b"]) for link in built["links"]] == SIDES
        assert built["links"][4]["alpha"] == 0.5 and built["links"][5] == {
            "a": 1, "b": 3, "rest": 94.34, "alpha": 0.5, "phi": round(3 * math.pi / 2, 3)
        }  # fmt: skip

        page.locator("#speed").click()  # 240 frames a second
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        assert page.input_value("#speed") == "240"
        page.get_by_role("button", name="Play", exact=True).click()  # it walks
        page.wait_for_function("() => window.evoStudio.state().frame > 600")
        page.get_by_role("button", name="Pause", exact=True).click()
        page.wait_for_function("() => !window.evoStudio.player.playing")
        walked = float(page.get_attribute("#distance-plot", "data-distance"))
        assert walked > 20, f"it walks to the right: {walked} px"

        page.locator("#design-name").click()
        page.keyboard.press("Control+a")
        page.keyboard.type("my-walker")
        page.keyboard.press("Enter")
        page.wait_for_selector("#score:has-text('distance in 3000 frames')")
        hand_score = float(page.text_content("#score").split("distance ")[-1])

        page.locator("#refine-panel > summary").click()
        page.locator("#refine-budget").click()
        page.keyboard.press("Control+a")
        page.keyboard.type("24")
        page.get_by_role("button", name="Refine", exact=True).click()
        page.wait_for_selector("#refine-state[data-state='done']", timeout=120_000)
        page.get_by_role("button", name="Open the refined design").click()
        refined = state(page)["model"]
        assert refined["name"] == "my-walker-refined" and refined != built
        page.wait_for_selector("#score:has-text('distance in 3000 frames')")
        assert float(page.text_content("#score").split("distance ")[-1]) >= hand_score, "refined: no worse"

        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_selector("#message:has-text('saved')")
        saved = load_model(run.parent / "my-walker-refined.json")  # beside the run

        page.locator("#race-panel > summary").click()
        page.get_by_role("button", name="Race", exact=True).click()  # against the run's best, ticked
        page.wait_for_selector("#race-state:has-text('winner')")
        if SCREENSHOTS:
            page.screenshot(path=str(DOCS / "studio-race.png"))
        rows = [r.locator("td").all_text_contents() for r in page.locator("table.race tbody tr").all()]
        assert sorted(row[1].split(" (")[0] for row in rows) == ["elite 0", "this design"]
        best_file = page.evaluate("fetch('/api/run').then((r) => r.json())")["elites"][0]["file"]
        elite = load_model(run / "elites" / best_file)
        result = run_race(race_of_creatures([saved, elite], frames=3000), finish_x=None)
        scores = scores_of(result, "distance")
        for standing, row in zip(result.standings, rows, strict=True):
            assert (
                row[2] == f"{standing.distance:+.1f}"
                and row[3] == f"{scores[standing.index - 1].fitness[0]:.6g}"
            )
        mine = next(s for s in result.standings if s.index == 1)
        trajectory = evo.simulate(saved, frames=3000)
        assert mine.distance == float(trajectory.centroids[-1, 0] - trajectory.centroids[0, 0]), (
            "evo simulate's"
        )
    assert problems == []
