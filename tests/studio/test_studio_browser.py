"""The studio's page in headless Chromium (Debian's ``chromium`` driven by Playwright, as the gallery's
tests): a creature built with the pointer plays exactly as ``evo.simulate`` of its saved file, a mass is
dragged while it plays, a classic file round-trips, a run and its elites open, a 3-generation evolution
runs from the page, and Refine tunes a design. No console errors but the answers a step expects; no
request leaves 127.0.0.1. With ``EVO_DOCS_SCREENSHOTS=1`` the tests write docs/studio.md's screenshots."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import evo
from evo.analysis import natural_modes
from evo.io.models import creature_to_dict, load_model, loads_model
from evo.io.screenshot import QUIET_BROWSER_FLAGS
from evo.io.soda_xml import read_terrain

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("EVO_CHROMIUM", "/usr/bin/chromium")
FLAGS = list(QUIET_BROWSER_FLAGS)
LOCAL = ("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:", "about:")
DOCS = ROOT / "docs"
SCREENSHOTS = os.environ.get("EVO_DOCS_SCREENSHOTS") == "1"
# Chromium logs every HTTP error answer; these two are answers a step expects (a save over an existing file
# is refused and asked about first; a bad config is refused with its errors)
FAILED = "console error: Failed to load resource: the server responded with a status of "
CONFLICT = FAILED + "409 (Conflict)"
BAD_REQUEST = FAILED + "400 (Bad Request)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module (a skip without Playwright or Chromium; a failure under CI)."""
    yield from chromium()


def chromium() -> Iterator[Any]:
    """A headless Chromium's browser context, closed when the generator ends (other modules' fixtures)."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "the playwright package is not installed (pip install -e '.[test]')"
    if missing is None and not shutil.which(CHROMIUM):
        missing = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if missing:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(missing)
    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="evo-profile-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1400, "height": 900},
            accept_downloads=True,
        )
        try:
            yield context
        finally:
            context.close()


@contextlib.contextmanager
def studio_page(browser: Any, server: Any, problems: list[str]) -> Iterator[Any]:
    """A page on a studio ``server`` (conftest's ``studio_factory``), once the page says it is ready; console
    errors and warnings, page errors and any request to anything but 127.0.0.1 go to ``problems``."""
    page = browser.new_page()
    page.set_default_timeout(30_000)
    page.on("console", lambda m: _problem(problems, m))
    page.on("pageerror", lambda e: problems.append(f"page error: {e} {(e.stack or '').splitlines()[1:3]}"))
    page.on("request", lambda r: None if r.url.startswith(LOCAL) else problems.append(f"request {r.url}"))
    page.on("websocket", lambda w: None if w.url.startswith(LOCAL) else problems.append(f"socket {w.url}"))
    try:
        page.goto(server.url)
        try:
            page.wait_for_selector("body[data-ready]", state="attached")
        except Exception as exc:
            raise AssertionError(f"the page never got ready: {problems}") from exc
        assert page.get_attribute("body", "data-ready") == "1", (page.text_content("#message"), problems)
        yield page
    finally:
        page.close()


def _problem(problems: list[str], message: Any) -> None:
    """Console errors and warnings count, but Chromium's hint about this test's own pixel reads."""
    if message.type in ("error", "warning") and "willReadFrequently" not in message.text:
        problems.append(f"console {message.type}: {message.text}")


# pixels of one exact colour on the stage (a polygon's fill is drawn opaque)
COLOUR_COUNT = """(rgb) => {
  const canvas = document.getElementById("canvas");
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    const same = data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2];
    if (same && data[i + 3] === 255) count++;
  }
  return count;
}"""

# the controls a person or a script cannot find by name: no label, no aria-label, no text
UNNAMED = """() => [...document.querySelectorAll("button, input, select, textarea, canvas, [role=slider]")]
  .filter((e) => e.type !== "file" && !(e.labels && e.labels.length) && !e.getAttribute("aria-label")
    && !e.textContent.trim())
  .map((e) => e.outerHTML.slice(0, 80))"""


def pixels_of(page: Any, colour: str) -> int:
    """Pixels of ``colour`` (#rrggbb) on the stage."""
    return page.evaluate(COLOUR_COUNT, [int(colour[k : k + 2], 16) for k in (1, 3, 5)])


def state(page: Any) -> dict:
    return page.evaluate("window.evoStudio.state()")


def point(page: Any, x: float, y: float) -> tuple[float, float]:
    """Viewport px of world point (x, y) px (y up) on the stage."""
    at = page.evaluate("([x, y]) => window.evoStudio.toClient(x, y)", [x, y])
    return at["x"], at["y"]


def click_at(page: Any, x: float, y: float) -> None:
    page.mouse.click(*point(page, x, y))


def drag(page: Any, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
    """Press at world point ``start``, move to ``end`` in ``steps`` pointer moves, release."""
    page.mouse.move(*point(page, *start))
    page.mouse.down()
    page.mouse.move(*point(page, *end), steps=steps)
    page.mouse.up()


def settled(page: Any) -> dict:
    """The state once no more frames arrive (after a pause)."""
    before = state(page)
    while True:
        page.wait_for_timeout(250)
        now = state(page)
        if now["frame"] == before["frame"]:
            return now
        before = now


# a range input moved to a value and let go (Playwright's fill does not take sliders)
SLIDE = "(slider, value) => { slider.value = String(value); slider.dispatchEvent(new Event('change')); }"
TRIANGLE = [(100.0, 40.0), (180.0, 40.0), (140.0, 110.0)]


def test_a_creature_built_with_the_pointer_plays_as_evo_simulate_of_its_saved_file(
    browser, studio_factory, tmp_path: Path
):
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path), cwd=tmp_path), problems) as page:
        assert page.evaluate(UNNAMED) == [], "every control has an accessible name"
        page.keyboard.press("g")  # snap to the 10 px grid
        page.keyboard.press("m")  # make masses
        for x, y in TRIANGLE:
            click_at(page, x, y)
        page.keyboard.press("l")  # link them: three springs drawn from mass to mass
        for a, b in ((0, 1), (1, 2), (2, 0)):
            drag(page, TRIANGLE[a], TRIANGLE[b])
        model = state(page)["model"]
        assert [(m["x"], m["y"]) for m in model["masses"]] == TRIANGLE
        assert [(link["a"], link["b"]) for link in model["links"]] == [(0, 1), (1, 2), (2, 0)]
        assert model["links"][0]["rest"] == 80.0
        built = model

        page.keyboard.press("v")  # a rubber band round all three, moved together by 20 px, then undone
        drag(page, (80.0, 20.0), (200.0, 130.0))
        drag(page, TRIANGLE[2], (TRIANGLE[2][0] + 20, TRIANGLE[2][1]))
        moved = state(page)["model"]["masses"]
        assert [(m["x"], m["y"]) for m in moved] == [(x + 20, y) for x, y in TRIANGLE]
        page.keyboard.press("f")  # the three fixed, then freed
        assert all(m.get("fixed") for m in state(page)["model"]["masses"])
        page.get_by_role("button", name="Fix/free").click()
        assert not any(m.get("fixed") for m in state(page)["model"]["masses"])
        for _ in range(3):
            page.get_by_role("button", name="Undo").click()
        assert state(page)["model"] == built

        page.keyboard.press("m")  # a fourth mass, deleted with its link
        drag(page, TRIANGLE[2], (140.0, 200.0))
        assert len(state(page)["model"]["links"]) == 4
        page.keyboard.press("d")
        click_at(page, 140.0, 200.0)
        assert state(page)["model"] == built
        page.keyboard.press("b")  # a fixed terrain bar, drawn and undone
        drag(page, (300.0, 0.0), (400.0, 30.0))
        assert state(page)["model"]["world"]["terrain"] == [[[300, 0], [400, 30]]]
        page.get_by_role("button", name="Undo").click()

        gravity = page.evaluate("window.evoStudio.session.cursors.gravity")
        page.get_by_label("gravity", exact=True).evaluate(SLIDE, 30)  # the applet's cursor p = 30
        assert state(page)["model"]["world"]["gravity"] == float(f"{gravity['coefficient'] * 30 * 30:.6g}"), (
            "rounded"
        )
        assert f"p = 30.0 · g = {gravity['coefficient'] * 900:.6g}" in page.text_content("#world")
        page.get_by_role("button", name="Undo").click()
        assert state(page)["model"] == built

        page.keyboard.press("u")  # the base becomes a muscle
        click_at(page, 140.0, 40.0)
        assert state(page)["model"]["links"][0]["alpha"] == 0.5
        box = page.locator("#dial").bounding_box()  # the dial's top: φ = π/2, α = 1 (on the rim)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 4 / 120)  # beyond: α = 1
        dialled = state(page)["model"]["links"][0]
        assert dialled["alpha"] == 1 and dialled["phi"] == round(math.pi / 2, 3), "to the mrad"
        page.get_by_label("rest length").fill("50")
        page.get_by_label("rest length").press("Enter")
        assert state(page)["model"]["links"][0]["rest"] == 50
        page.get_by_role("button", name="Rest from drawing").click()
        assert state(page)["model"]["links"][0]["rest"] == 80
        for _ in range(3):
            page.get_by_role("button", name="Undo").click()
        assert state(page)["model"]["links"][0] == {"a": 0, "b": 1, "rest": 80, "alpha": 0.5, "phi": 0}
        page.keyboard.press("v")  # undo clears the selection: select the muscle again
        click_at(page, 140.0, 40.0)
        page.get_by_label("α", exact=True).fill("0.8")
        page.get_by_label("α", exact=True).press("Enter")
        page.get_by_label("ω", exact=True).fill("0.1")
        page.get_by_label("ω", exact=True).press("Enter")
        page.get_by_label("β", exact=True).evaluate(SLIDE, 1)
        designed = state(page)["model"]
        assert designed["links"][0]["alpha"] == 0.8
        assert designed["wave"] == {"omega": 0.1, "beta": 1}
        page.focus("#canvas")
        page.keyboard.press("Control+z")
        assert state(page)["model"]["wave"] == {"omega": 0.1, "beta": 0.8}, "undo takes back the last edit"
        page.get_by_role("button", name="Redo", exact=True).click()
        assert state(page)["model"] == designed, "redo puts it back"

        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_function("() => window.evoStudio.state().frame > 40")
        page.get_by_role("button", name="Pause", exact=True).click()
        shown = settled(page)
        page.get_by_role("button", name="Step", exact=True).click()
        page.wait_for_function(f"() => window.evoStudio.state().frame === {shown['frame'] + 1}")
        shown = settled(page)

        page.get_by_label("path to save to").fill("triangle.json")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_selector("#message:has-text('saved')")
        saved = load_model(tmp_path / "triangle.json")
        assert creature_to_dict(saved) == creature_to_dict(loads_model(json.dumps(shown["model"])))
        trajectory = evo.simulate(saved, frames=shown["frame"])
        assert shown["positions"] == trajectory.positions[shown["frame"]].tolist(), "bit for bit"
        assert shown["positions"] != [list(p) for p in TRIANGLE], "it moved"

        page.get_by_role("button", name="Reset", exact=True).click()
        page.wait_for_function("() => window.evoStudio.state().frame === 0")
        assert state(page)["positions"] == [list(p) for p in TRIANGLE]
    assert problems == []


def test_a_mass_dragged_while_playing_follows_the_pointer_and_is_thrown(
    browser, studio_factory, tmp_path: Path
):
    shutil.copy(ROOT / "genomes" / "walker.json", tmp_path / "walker.json")
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path / "walker.json"), cwd=tmp_path), problems) as page:
        walker = load_model(tmp_path / "walker.json")
        assert state(page)["model"] == creature_to_dict(walker)
        page.wait_for_selector("#score:has-text('distance in 3000 frames')")
        first_score = page.text_content("#score")
        page.get_by_label("ω", exact=True).fill("0.05")
        page.get_by_label("ω", exact=True).press("Enter")
        page.wait_for_function(
            "(before) => !['scoring…', before].includes(document.getElementById('score').textContent)",
            arg=first_score,
        )
        assert page.text_content("#score").startswith("distance in 3000 frames"), "scored after the edit"
        page.get_by_role("button", name="Undo").click()

        page.get_by_role("button", name="Analyze").click()
        page.wait_for_selector("ol.modes li")
        frequencies = natural_modes(walker, evo.World.from_model(walker)).frequencies
        assert page.locator("ol.modes li").count() == len(frequencies)
        assert f"ω1 = {frequencies[0]:.6g} rad/frame" in page.text_content("ol.modes li")
        page.get_by_role("button", name="show mode 1").click()  # the mode shape, animated on the stage
        page.wait_for_timeout(300)
        page.get_by_role("button", name="stop showing").click()
        page.keyboard.press("v")  # move mode: grab while playing
        page.select_option("#speed", "15")  # slowly: the mass moves little between a look and a press
        click_at(page, 60.0, 1.0)  # select a muscle: its α and φ on the dial
        assert page.is_visible("#dial")
        assert "link 1: masses 1–2" in page.text_content("#inspector")
        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_function("() => window.evoStudio.state().frame > 20")
        for _ in range(2):  # aim, then aim again where the moving mass is now
            x, y = state(page)["positions"][4]
            page.mouse.move(*point(page, x, y))
        page.mouse.down()
        for k in range(1, 11):
            page.mouse.move(*point(page, x + 6 * k, y + 15 * k))
            page.wait_for_timeout(30)
        page.wait_for_timeout(300)
        held = state(page)
        assert held["positions"][4] == pytest.approx([x + 60, y + 150], abs=1.0), "it follows the pointer"
        page.mouse.up()
        page.wait_for_timeout(400)
        after = state(page)
        assert after["frame"] > held["frame"]
        assert after["positions"][4] != pytest.approx([x + 60, y + 150], abs=1.0), "released, it moves on"
        page.get_by_role("button", name="Pause", exact=True).click()

        page.locator("#world-panel > summary").click()
        page.get_by_label("dt", exact=True).fill("2")  # too large a step: warned, then it blows up
        page.get_by_label("dt", exact=True).press("Enter")
        page.wait_for_selector("#stability:has-text('exceeds the stability limit')")
        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_selector("#stability:has-text('exploded at frame')")
        page.wait_for_selector("#score:has-text('exploded at frame')")
    assert problems == []


def test_a_classic_file_opens_and_saves_back_unchanged(browser, studio_factory, tmp_path: Path):
    classic = ROOT / "genomes" / "classic" / "crawler.xml"
    shutil.copy(classic, tmp_path / "crawler.xml")
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path), cwd=tmp_path), problems) as page:
        page.set_input_files("#open-file", str(classic))
        page.wait_for_function("() => window.evoStudio.state().model.masses.length > 0")
        opened = state(page)["model"]
        assert opened == creature_to_dict(load_model(classic)), "as evo reads it"
        assert page.input_value("#format") == "xml"
        page.wait_for_timeout(100)  # an animation frame: the stage is drawn
        for poly in load_model(classic).polys:
            assert pixels_of(page, poly.color) > 200, f"the {poly.color} polygon is drawn"
        page.get_by_label("path to save to").fill("crawler.xml")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_selector("#overwrite:not([hidden])")
        assert "exists" in page.text_content("#overwrite-text")
        page.get_by_role("button", name="Overwrite", exact=True).click()
        page.wait_for_selector("#message:has-text('saved')")
        assert creature_to_dict(load_model(tmp_path / "crawler.xml")) == creature_to_dict(load_model(classic))

        page.locator("#terrain-panel summary").click()  # terrain: the fixed bars of a classic file
        hills = ROOT / "genomes" / "classic" / "hills.xml"
        page.set_input_files("input[aria-label='terrain file']", str(hills))
        page.wait_for_function("() => (window.evoStudio.state().model.world.terrain || []).length > 0")
        terrain = state(page)["model"]["world"]["terrain"]
        assert terrain == [[list(p) for p in line] for line in read_terrain(hills)]
        page.get_by_role("button", name="Undo").click()

        with page.expect_download() as download:
            page.get_by_role("button", name="Download", exact=True).click()
        assert download.value.suggested_filename == "crawler.xml"
        copy = tmp_path / "downloaded.xml"
        download.value.save_as(copy)
        assert creature_to_dict(load_model(copy)) == creature_to_dict(load_model(classic))
    assert problems == [CONFLICT]


def test_an_evolution_runs_from_the_page_and_its_run_and_elites_open(browser, studio_factory, tmp_path: Path):
    problems: list[str] = []
    seed = tmp_path / "seed"
    seed.mkdir()
    shutil.copy(ROOT / "genomes" / "walker.json", seed / "walker.json")
    config = (
        '[run]\nname = "studio-test"\nseed = 3\ngenerations = 3\npopulation = 8\n\n'
        '[evaluation]\nframes = 300\nplugin = "distance"\n\n[pool]\nworkers = 1\n'
    )
    with studio_page(browser, studio_factory(str(seed / "walker.json"), cwd=seed), problems) as page:
        refine = page.evaluate("window.evoStudio.session.refine")
        if not refine["available"]:  # this version has no evo.refine: the button says why
            page.locator("#refine-panel summary").click()
            assert page.get_by_role("button", name="Refine", exact=True).is_disabled()
            assert page.get_attribute("#refine", "title") == refine["message"]
        page.locator("#evolve-panel > summary").click()
        page.locator("#config-box summary").click()
        page.get_by_label("frames scored").fill("300")  # the page's score, Evolve and Race: 300 frames
        page.get_by_label("frames scored").press("Enter")
        page.fill("#config", "[run]\ngenerations = -1\n")
        page.get_by_role("button", name="Evolve", exact=True).click()
        page.wait_for_selector("#evolve-errors li")
        assert "generations" in page.text_content("#evolve-errors")
        page.fill("#config", config)
        first_seed = int(page.input_value("#evolve-seed"))  # shown before the press, new after it
        page.get_by_role("button", name="Evolve", exact=True).click()
        page.wait_for_selector("#evolve-state[data-state='starting']")  # evo run loading: said so
        assert f"seed {first_seed}" in page.text_content("#evolve-state")
        ran = page.input_value("#config")  # as the page scores: its plugin and frames, and the seed shown
        assert f"seed = {first_seed}\n" in ran and "frames = 300\n" in ran and 'plugin = "distance"' in ran
        assert int(page.input_value("#evolve-seed")) != first_seed, "the next press runs another seed"
        assert "starting" in page.text_content("#run"), "the Run panel shows this run from its start"
        page.wait_for_function("() => document.getElementById('chart').dataset.points >= 1", timeout=120_000)
        page.wait_for_selector("#evolve-state[data-state='done']", timeout=180_000)
        assert page.get_attribute("#chart", "data-points") in ("3", "4")
        assert page.get_attribute("#chart-best", "points").count(",") >= 3
        axes = page.locator("#chart text.axis").all_text_contents()
        assert "generation" in axes and "fitness" in axes and page.locator("#chart text.tick").count() >= 4
        assert (
            f"seed = {first_seed}"
            in (
                Path(page.evaluate("fetch('/api/evolve').then((r) => r.json())")["run"]) / "config.toml"
            ).read_text()
        )
        run = Path(page.evaluate("fetch('/api/evolve').then((r) => r.json())")["run"])
        assert (run / "elites").is_dir() and list((run / "elites").glob("*.json"))
        page.wait_for_selector("table.elites tbody tr")  # the new run's elites, listed in the same page
        assert f"runs/{run.name}" in page.text_content("#run")
        if SCREENSHOTS:
            page.locator("#evolve-panel").screenshot(path=str(DOCS / "studio-evolve.png"))
        page.get_by_role("button", name="Open the best").click()  # undoable; Save then writes its own name
        best = state(page)["model"]
        assert best["name"] != "walker" and page.input_value("#save-path") == f"{best['name']}.json"
        page.get_by_role("button", name="Undo").click()
        assert state(page)["model"]["name"] == "walker" and page.input_value("#save-path") == "walker.json"

        # long enough to be stopped however fast its generations (the run folder is checkpointed once a
        # second, not after each of them: [run] checkpoint_interval)
        long_run = config.replace("generations = 3", "generations = 20000").replace("studio-test", "long")
        page.fill("#config", long_run)
        page.get_by_role("button", name="Evolve", exact=True).click()  # a long one, stopped from the page
        page.wait_for_function(  # two generations of the new run done (one answer of GET /api/evolve)
            "() => Number((/generation (\\d+) of 20000 — runs\\/long-1/.exec("
            "document.getElementById('evolve-state').textContent) || [0, 0])[1]) >= 2"
        )
        page.get_by_role("button", name="Stop", exact=True).click()
        page.wait_for_selector("#evolve-state[data-state='done']", timeout=120_000)
        stopped = page.evaluate("fetch('/api/evolve').then((r) => r.json())")
        assert stopped["generation"] < 19999 and "stopped at a checkpoint" in stopped["message"], stopped
        assert "stopped at a checkpoint" in page.text_content("#evolve-state")
    with studio_page(browser, studio_factory(str(run), cwd=tmp_path), problems) as page:
        page.wait_for_selector("table.elites tbody tr")
        hall_of_fame = evo.open_run(run).hall_of_fame
        assert page.locator("table.elites tbody tr").count() == len(hall_of_fame)
        assert f"{hall_of_fame[0].fitness[0]:.6g}" in page.text_content("table.elites tbody tr"), "its score"
        listed = page.evaluate("fetch('/api/run').then((r) => r.json())")["elites"]
        best_file = creature_to_dict(load_model(run / "elites" / listed[0]["file"]))
        assert state(page)["model"] == best_file, "opened on a run, the stage shows its best"
        assert page.get_attribute("#run-panel", "open") is not None
        column = [
            float(row.split(", ")[0])
            for row in page.locator("table.elites tbody tr td:nth-child(3)").all_text_contents()
        ]
        assert column == sorted(column, reverse=True), "best first"
        race_against_an_elite(page, run, listed)
        page.locator("table.elites tbody tr button").first.click()
        elite = creature_to_dict(load_model(run / "elites" / listed[0]["file"]))
        page.wait_for_function("(name) => window.evoStudio.state().model.name === name", arg=elite["name"])
        shown = state(page)["model"]
        for key in set(shown["meta"]) | set(elite["meta"]):
            assert shown["meta"].get(key) == elite["meta"].get(key), key
        assert shown == elite
    assert problems == [BAD_REQUEST]


def race_against_an_elite(page: Any, run: Path, listed: list[dict]) -> None:
    """The Race panel: elite 1 opened as the design, raced against elite 0 (ticked by default): the race
    distances and fitness are evo.race's and the plugin's, labelled with the frame each counts from."""
    from evo.race import run_race
    from evo.race.models import race_of_creatures, scores_of

    page.get_by_role("button", name="Open elite 1").click()
    second = load_model(run / "elites" / listed[1]["file"]).name
    page.wait_for_function("(name) => window.evoStudio.state().model.name === name", arg=second)
    page.get_by_label("frames scored").fill("300")  # the page's frames: the race's too
    page.get_by_label("frames scored").press("Enter")
    page.locator("#race-panel > summary").click()
    assert page.is_checked("input[aria-label='race elite 0']")
    page.get_by_role("button", name="Race", exact=True).click()
    page.wait_for_selector("#race-state:has-text('winner')")
    creatures = [load_model(run / "elites" / listed[k]["file"]) for k in (1, 0)]
    result = run_race(race_of_creatures(creatures, frames=300), finish_x=None)
    scores = scores_of(result, "distance")
    rows = [r.locator("td").all_text_contents() for r in page.locator("table.race tbody tr").all()]
    for standing, row in zip(result.standings, rows, strict=True):
        assert row[1].startswith("this design" if standing.index == 1 else "elite 0")
        assert (
            row[2] == f"{standing.distance:+.1f}" and row[3] == f"{scores[standing.index - 1].fitness[0]:.6g}"
        )
    assert "fitness (distance)" in page.text_content("table.race thead")
    assert "from frame 0; the fitness from frame 200" in page.text_content("#race-result")


def test_refine_tunes_the_design_and_opens_the_refined_one(browser, studio_factory, tmp_path: Path):
    shutil.copy(ROOT / "genomes" / "walker.json", tmp_path / "walker.json")
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path / "walker.json"), cwd=tmp_path), problems) as page:
        assert page.evaluate("window.evoStudio.session.refine")["available"]
        before = state(page)["model"]
        page.locator("#refine-panel summary").click()
        page.get_by_label("refine budget, evaluations").fill("64")
        page.get_by_role("button", name="Refine", exact=True).click()
        page.wait_for_function(  # progress, one CMA-ES generation at a time
            "() => Number(document.getElementById('refine-state').dataset.steps) >= 1"
        )
        page.wait_for_selector("#refine-state[data-state='done']", timeout=120_000)
        answer = page.evaluate("fetch('/api/refine').then((r) => r.json())")
        assert len(answer["progress"]) >= 2 and answer["progress"][-1]["evaluations"] <= 64
        assert "of 64 evaluations" in page.text_content("#refine-state")
        page.get_by_role("button", name="Open the refined design").click()
        refined = state(page)["model"]
        assert refined == {**answer["best_model"], "name": "walker-refined"} and refined != before
        assert page.input_value("#save-path") == "walker-refined.json", (
            "Save writes the new design's own name"
        )
        page.get_by_role("button", name="Undo").click()
        assert state(page)["model"] == before
    assert problems == []
