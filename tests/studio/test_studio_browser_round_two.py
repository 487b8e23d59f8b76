"""The studio's second round in headless Chromium (issue 30), each test driven by pointer and keys: a new
design's wave and the notice when muscles stay still, rounded numbers, names, polygons, the designs list and
one undoable rule for whatever replaces the design; grabbing (forgiving, highlighted, paused drags that edit
the design); the stage's ruler, trail, ghost, distance plot, wave phase, walls kept in sight and a timeline
whose every frame is evo.simulate's; and a page that fits a 1366×768 screen with every control named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_studio_browser import (
    CONFLICT,
    DOCS,
    ROOT,
    SCREENSHOTS,
    SLIDE,
    UNNAMED,
    chromium,
    click_at,
    drag,
    pixels_of,
    point,
    settled,
    state,
    studio_page,
)

import evo
from evo.io.models import creature_to_dict, load_model, loads_model

GENOMES = ROOT / "genomes"
FITS = (
    "[document.documentElement.scrollWidth, document.documentElement.scrollHeight, innerWidth, innerHeight]"
)
NEW_WAVE = {"omega": 0.12, "beta": 0.8}
POLY = "#ffd8a8"  # a new polygon's fill
GRAB = "#d9480f"  # the ring round a grabbed mass
TRAIL = "#e8590c"  # the centroid's trail


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def folder_of_designs(tmp_path: Path) -> Path:
    """A start folder with hand1.json (the walker, renamed) and galloper.json."""
    hand = load_model(GENOMES / "walker.json").replace(name="hand1")
    (tmp_path / "hand1.json").write_text(json.dumps(creature_to_dict(hand)), encoding="utf-8")
    shutil.copy(GENOMES / "galloper.json", tmp_path / "galloper.json")
    return tmp_path


def decimals_at_most_two(value: float) -> bool:
    return round(value, 2) == value


def test_a_new_design_has_a_moving_wave_round_numbers_a_name_and_polygons(browser, studio_factory, tmp_path):
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path), cwd=tmp_path), problems) as page:
        model = state(page)["model"]
        assert model["wave"] == NEW_WAVE and model["name"] == "untitled", "the world's default wave"
        assert page.input_value("#save-path") == "untitled.json"
        page.keyboard.press("m")
        corners = [(100.337, 40.129), (181.071, 40.552), (140.913, 101.274)]
        for x, y in corners:
            click_at(page, x, y)
        drag(page, corners[0], corners[1])
        drag(page, corners[1], corners[2])
        model = state(page)["model"]
        assert len(model["masses"]) == 3 and len(model["links"]) == 2
        numbers = [v for m in model["masses"] for v in (m["x"], m["y"])] + [
            link["rest"] for link in model["links"]
        ]
        assert all(decimals_at_most_two(v) for v in numbers), numbers
        page.keyboard.press("u")
        click_at(page, *[(a + b) / 2 for a, b in zip(corners[0], corners[1], strict=True)])
        assert state(page)["model"]["links"][0]["alpha"] == 0.5
        assert page.is_hidden("#notice"), "the default wave moves the muscle"
        page.get_by_label("β", exact=True).evaluate(SLIDE, 0)
        page.wait_for_selector("#notice:has-text('the wave\\'s β is 0')")
        page.get_by_role("button", name="Undo").click()
        page.wait_for_selector("#notice", state="hidden")
        page.locator("#world-panel > summary").click()
        page.get_by_label("stiffness", exact=True).evaluate(SLIDE, 41.3)  # the applet's k cursor
        stiffness = state(page)["model"]["world"]["stiffness"]
        assert stiffness == float(f"{stiffness:.6g}"), "six significant digits, not 0.0754...0003"

        page.fill("#design-name", "stick")
        page.press("#design-name", "Enter")
        assert state(page)["model"]["name"] == "stick" and page.input_value("#save-path") == "stick.json"

        page.get_by_role(
            "button", name="Polygon"
        ).click()  # a polygon through the masses, closed on the first
        for x, y in [*corners, corners[0]]:
            click_at(page, x, y)
        assert state(page)["model"]["polys"] == [{"masses": [0, 1, 2], "color": POLY}]
        page.wait_for_timeout(100)
        assert pixels_of(page, POLY) > 200, "drawn"
        page.keyboard.press("v")
        click_at(page, 140.0, 60.0)  # inside: selected, edited in the Selection panel
        assert "polygon 0" in page.text_content("#inspector")
        page.get_by_label("curvy").check()
        assert state(page)["model"]["polys"][0]["curvy"] is True
        page.get_by_role("button", name="Delete", exact=True).click()  # the focus is in the panel: no keys
        click_at(page, 140.0, 60.0)
        assert "polys" not in state(page)["model"]
        page.get_by_role("button", name="Undo").click()
        assert len(state(page)["model"]["polys"]) == 1
        page.get_by_label("path to save to").fill("stick.json")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_selector("#message:has-text('saved')")
        saved = load_model(tmp_path / "stick.json")
        assert saved.name == "stick" and saved.polys[0].curvy
    assert problems == []


def test_whatever_replaces_the_design_is_undoable_and_save_follows_it(browser, studio_factory, tmp_path):
    folder = folder_of_designs(tmp_path)
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(folder), cwd=folder), problems) as page:
        page.wait_for_selector("#designs .thumb canvas")
        assert page.locator("#designs .thumb").count() == 2, "galloper.json and hand1.json, with thumbnails"
        page.get_by_role("button", name="Open design hand1.json").click()
        hand = creature_to_dict(load_model(folder / "hand1.json"))
        assert state(page)["model"] == hand and page.input_value("#save-path") == "hand1.json"
        page.get_by_role("button", name="Analyze").click()
        page.wait_for_selector("ol.modes li")
        with page.expect_file_chooser() as chooser:
            page.get_by_role("button", name="Open", exact=True).click()
        chooser.value.set_files(str(folder / "galloper.json"))
        page.wait_for_function("() => window.evoStudio.state().model.name === 'galloper'")
        assert page.input_value("#save-path") == "galloper.json", "Save targets the opened file"
        assert page.locator("ol.modes li").count() == 0, "no analysis of the design before"
        page.get_by_role("button", name="Undo").click()
        assert state(page)["model"] == hand, "opening is undoable"
        assert page.input_value("#save-path") == "hand1.json", "and Save follows the design back"

        page.locator("#race-panel > summary").click()  # the design against a file
        with page.expect_file_chooser() as chooser:
            page.get_by_role("button", name="Add files").click()
        chooser.value.set_files(str(folder / "galloper.json"))
        page.wait_for_selector("#race-choices:has-text('file galloper.json')")
        page.get_by_role("button", name="Race", exact=True).click()
        page.wait_for_selector("#race-state:has-text('winner')")
        labels = [
            row.split(" (")[0] for row in page.locator("table.race tbody td:nth-child(2)").all_text_contents()
        ]
        assert sorted(labels) == ["galloper.json", "this design"]

        page.get_by_role("button", name="New", exact=True).click()
        assert state(page)["model"]["wave"] == NEW_WAVE and state(page)["model"]["masses"] == []
        assert page.input_value("#save-path") == "untitled.json"
        assert "opened" not in page.text_content("#message") and page.text_content("#score") == "—"
        page.get_by_role("button", name="Undo").click()
        assert state(page)["model"] == hand, "New is undoable"
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_selector("#overwrite:not([hidden])")  # its own file: asked first, never silently
        assert "hand1.json exists" in page.text_content("#overwrite-text")
        page.get_by_role("button", name="Cancel").click()
    assert problems == [CONFLICT]


def test_grabbing_is_forgiving_highlighted_and_a_paused_drag_edits_the_pose(
    browser, studio_factory, tmp_path
):
    shutil.copy(GENOMES / "walker.json", tmp_path / "walker.json")
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path / "walker.json"), cwd=tmp_path), problems) as page:
        page.keyboard.press("v")
        page.select_option("#speed", "15")
        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_function("() => window.evoStudio.state().frame > 20")
        scale = page.evaluate("window.evoStudio.toClient(1, 0).x - window.evoStudio.toClient(0, 0).x")
        x, y = state(page)["positions"][4]
        page.mouse.move(*point(page, x + 18 / scale, y))  # 18 screen px beside the moving mass
        page.mouse.down()
        assert state(page)["grabbed"] == 4, "caught"
        page.mouse.move(*point(page, x + 40, y + 60), steps=5)
        page.wait_for_timeout(150)
        assert pixels_of(page, GRAB) > 20, "the grabbed mass is ringed"
        page.mouse.up()
        page.wait_for_timeout(150)
        assert state(page)["grabbed"] == -1 and pixels_of(page, GRAB) == 0

        page.get_by_role("button", name="Pause", exact=True).click()
        pose = settled(page)
        assert pose["frame"] > 0
        x, y = pose["positions"][0]
        drag(page, (x, y), (x + 30, y + 40))  # paused: the pose becomes the design, visibly
        edited = state(page)
        assert edited["frame"] == 0 and "the pose shown is now the design" in page.text_content("#message")
        expected = [[round(a, 2), round(b, 2)] for a, b in pose["positions"]]
        expected[0] = [
            pytest.approx(expected[0][0] + 30, abs=0.02),
            pytest.approx(expected[0][1] + 40, abs=0.02),
        ]
        assert [[m["x"], m["y"]] for m in edited["model"]["masses"]] == expected
        assert edited["positions"] == [[m["x"], m["y"]] for m in edited["model"]["masses"]], "shown as it is"
        page.get_by_role("button", name="Step", exact=True).click()
        page.wait_for_function("() => window.evoStudio.state().frame === 1")
        first = state(page)["positions"]
        creature = loads_model(json.dumps(edited["model"]))
        assert first == evo.simulate(creature, frames=1).positions[1].tolist(), (
            "Play starts from what was shown"
        )
        page.get_by_role("button", name="Undo").click()
        assert state(page)["model"] == creature_to_dict(load_model(tmp_path / "walker.json"))
    assert problems == []


def test_the_stage_has_a_ruler_a_trail_a_ghost_a_plot_a_timeline_and_keeps_the_walls(
    browser, studio_factory, tmp_path
):
    shutil.copy(GENOMES / "walker.json", tmp_path / "walker.json")
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path / "walker.json"), cwd=tmp_path), problems) as page:
        page.select_option("#speed", "240")
        theta = page.get_attribute("#phase", "data-theta")
        page.keyboard.press("Space")
        page.wait_for_function("() => window.evoStudio.state().frame > 300")
        page.keyboard.press("Space")
        shown = settled(page)
        assert page.get_attribute("#phase", "data-theta") != theta, "the wave-phase indicator turns"
        assert pixels_of(page, TRAIL) > 30, "the centroid's trail and the distance marker"
        assert int(page.get_attribute("#distance-plot", "data-points")) == shown["frame"] + 1
        gone = float(page.get_attribute("#distance-plot", "data-distance"))
        masses = [[m["x"], m["y"]] for m in state(page)["model"]["masses"]]
        start = sum(p[0] for p in masses) / len(masses)
        now = sum(p[0] for p in shown["positions"]) / len(masses)
        assert gone == pytest.approx(now - start) and page.text_content("#distance").startswith("distance +")

        box = page.locator("#timeline").bounding_box()
        for fraction in (0.3, 0.08):  # forward beyond what was played, then back
            page.mouse.click(box["x"] + box["width"] * fraction, box["y"] + box["height"] / 2)
            page.wait_for_function("() => !window.evoStudio.player.playing")
            seen = settled(page)
            walker = load_model(tmp_path / "walker.json")
            assert seen["frame"] > 0
            assert seen["positions"] == evo.simulate(walker, frames=seen["frame"]).positions[-1].tolist()

        page.get_by_label("ω", exact=True).fill("0.2")  # an edit: this attempt becomes the ghost
        page.get_by_label("ω", exact=True).press("Enter")
        assert page.evaluate("window.evoStudio.player.ghost.length") == seen["frame"] + 1
        page.locator("#terrain-panel > summary").click()
        page.get_by_label("walls", exact=True).check()  # side walls at 0 and 600: the camera keeps them
        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_function("() => window.evoStudio.state().frame > 900", timeout=60_000)
        page.get_by_role("button", name="Pause", exact=True).click()
        canvas = page.locator("#canvas").bounding_box()
        left, right = point(page, 0, 0)[0], point(page, 600, 0)[0]
        assert canvas["x"] <= left and right <= canvas["x"] + canvas["width"], (left, right, canvas)
    assert problems == []


def test_the_page_fits_a_laptop_screen_and_every_control_is_named(browser, studio_factory, tmp_path):
    shutil.copy(GENOMES / "walker.json", tmp_path / "walker.json")
    problems: list[str] = []
    with studio_page(browser, studio_factory(str(tmp_path / "walker.json"), cwd=tmp_path), problems) as page:
        page.set_viewport_size({"width": 1366, "height": 768})
        page.keyboard.press("v")
        click_at(page, 60.0, 1.0)  # a muscle on the dial
        page.select_option("#speed", "120")
        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_function("() => window.evoStudio.state().frame > 400")
        page.get_by_role("button", name="Pause", exact=True).click()
        settled(page)
        size = page.evaluate(FITS)
        assert size[0] <= size[2] and size[1] <= size[3], f"no page scrolling: {size}"
        for name in ("Play", "Pause", "Step", "Reset", "Save", "Undo"):  # the common path, in sight
            button = page.get_by_role("button", name=name, exact=True).bounding_box()
            assert button["y"] + button["height"] <= 768 and button["x"] + button["width"] <= 1366, name
        for locator in ("#canvas", "#timeline", "#score"):
            where = page.locator(locator).bounding_box()
            assert where["y"] + where["height"] <= 768, locator
        assert page.locator("header.studio").count() == 1 and page.locator("details.card").count() >= 9
        assert page.locator("header button svg.icon").count() >= 18, "a toolbar with icons"
        assert page.get_attribute("#play", "title") and page.get_attribute("[data-mode=mass]", "title")
        if SCREENSHOTS:
            page.screenshot(path=str(DOCS / "studio.png"))
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        assert page.evaluate(UNNAMED) == [], "every control has an accessible name"
    assert problems == []
