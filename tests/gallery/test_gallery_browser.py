"""The gallery in headless Chromium (Debian's ``chromium``, driven by Playwright; never a downloaded
browser): no console errors, no network, the cards animate, the detail, race and evolution views work."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evo.gallery import write_gallery
from evo.io.screenshot import QUIET_BROWSER_FLAGS

CHROMIUM = os.environ.get("EVO_CHROMIUM", "/usr/bin/chromium")
FLAGS = list(QUIET_BROWSER_FLAGS)
LOCAL = ("file:", "data:", "blob:", "about:")

# dark pixels drawn by a creature (masses #212529, springs #3d434a), and a digest of the whole canvas
CANVAS_STATE = """(canvas) => {
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let dark = 0, painted = 0, digest = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 0) painted++;
    if (data[i + 3] === 255 && data[i] + data[i + 1] + data[i + 2] < 260) dark++;
    digest = (digest * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) % 1000000007;
  }
  return { dark: dark, painted: painted, total: data.length / 4, digest: digest };
}"""


def _browser():
    """Playwright's sync API, or a skip (a failure under CI, where .ci/run installs both)."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "the playwright package is not installed (pip install -e '.[test]')"
    if missing is None and not shutil.which(CHROMIUM):
        missing = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    return sync_playwright


@contextlib.contextmanager
def gallery_page(index: Path, problems: list[str], **options) -> Iterator[Any]:
    """A headless Chromium page on the gallery ``index``, once it is ready; console errors and warnings,
    page errors and any request for something not local are appended to ``problems``. ``options`` go to
    the browser context (e.g. ``accept_downloads``)."""
    sync_playwright = _browser()
    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="evo-profile-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
            **options,
        )
        try:
            page = context.new_page()
            page.set_default_timeout(20_000)
            page.on(
                "console", lambda m: problems.append(f"console {m.type}: {m.text}") if _counts(m) else None
            )
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on(
                "request", lambda r: None if r.url.startswith(LOCAL) else problems.append(f"request {r.url}")
            )
            page.goto(index.resolve().as_uri())
            page.wait_for_selector("body[data-ready='1']")
            yield page
        finally:
            context.close()


def _counts(message) -> bool:
    """Console errors and warnings count, except Chromium's hint about this test's own pixel reads."""
    return message.type in ("error", "warning") and "willReadFrequently" not in message.text


def _state(page, selector: str) -> dict:
    return page.eval_on_selector(selector, CANVAS_STATE)


# pixels of one exact colour on a canvas (a polygon's fill, drawn opaque)
COLOUR_COUNT = """(canvas, rgb) => {
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    const same = data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2];
    if (same && data[i + 3] === 255) count++;
  }
  return count;
}"""


def _pixels_of(canvas, colour: str) -> int:
    """Pixels of ``colour`` (#rrggbb) on the canvas of a Playwright locator."""
    return canvas.evaluate(COLOUR_COUNT, [int(colour[k : k + 2], 16) for k in (1, 3, 5)])


def _wait_for_canvas(page, selector: str, condition: str, arg=None) -> None:
    """Wait (up to the page's default timeout) until ``condition``, a JavaScript expression of the canvas
    state ``s`` (:data:`CANVAS_STATE`) and ``arg``, holds for the first canvas matching ``selector``."""
    page.wait_for_function(
        f"(arg) => {{ const s = ({CANVAS_STATE})(document.querySelector({json.dumps(selector)}));"
        f" return {condition}; }}",
        arg=arg,
    )


def test_the_gallery_runs_in_headless_chromium(run_dir: Path, tmp_path: Path):
    index = write_gallery(run_dir)
    problems: list[str] = []
    with gallery_page(index, problems, accept_downloads=True) as page:
        card = "article.card canvas"
        assert page.locator(card).count() == len(list((run_dir / "elites").glob("*.json")))
        # waits on what the page shows, not on the clock: a loaded machine only makes them slower
        _wait_for_canvas(page, card, "s.painted === s.total && s.dark > 20")
        first = _state(page, card)
        assert first["painted"] == first["total"], "the card canvas is drawn all over"
        assert first["dark"] > 20, "the creature is drawn on the card"
        _wait_for_canvas(page, card, "s.digest !== arg", first["digest"])  # the card animates
        assert page.locator("svg.chart polyline").count() >= 3

        with page.expect_download() as download:
            page.locator("article.card a.download").first.click()
        first_elite = sorted((run_dir / "elites").glob("*.json"))[0]
        assert download.value.suggested_filename == first_elite.name
        assert Path(download.value.path()).read_bytes() == first_elite.read_bytes()

        page.locator(card).first.click()
        page.wait_for_selector("#detail:not([hidden])")
        _wait_for_canvas(page, "#detail-canvas", "s.dark > 20")
        behind = _state(page, card)["digest"]
        page.wait_for_timeout(300)
        assert _state(page, card)["digest"] == behind, "the cards hold still under the detail view"
        assert int(page.get_attribute("#detail-scrub", "max")) == 1200
        assert page.text_content("#detail-title") == page.text_content("article.card .name")
        facts = page.text_content("#detail-facts")
        assert "natural frequencies" in facts and "ω₁" in facts and "rad/frame" in facts
        page.click("#detail-play")
        assert "play" in page.text_content("#detail-play")
        page.fill("#detail-scrub", "600")
        page.dispatch_event("#detail-scrub", "input")
        page.wait_for_function(
            "() => document.querySelector('#detail-frame').textContent.startsWith('frame 600 ')"
        )
        page.uncheck("#detail-follow")
        page.select_option("#detail-speed", "4")
        page.screenshot(path=str(tmp_path / "detail.png"))
        page.click("#detail-close")
        assert page.is_hidden("#detail")

        page.click("#race-selected")
        page.wait_for_selector("#race:not([hidden])")
        _wait_for_canvas(page, "#race-canvas", "s.painted > 0")
        picked = page.locator("input.race-pick:checked").count()
        assert picked >= 2 and page.locator("#race-board li").count() == picked
        assert "px" in page.text_content("#race-board li")
        page.screenshot(path=str(tmp_path / "race.png"))
        page.click("#race-close")

        page.locator("#evolution").scroll_into_view_if_needed()
        assert page.locator("#evolution-table tbody tr").count() == 6
        page.click("#evolution-auto")
        _wait_for_canvas(page, "#evolution-canvas", "s.dark > 20")
        page.screenshot(path=str(tmp_path / "gallery.png"), full_page=True)
    assert problems == []
    assert (tmp_path / "gallery.png").stat().st_size > 10_000


def test_the_gallery_fills_the_polygons_of_classic_models_in_their_colours(tmp_path: Path):
    """The classic models' polygons (the roller's curvy rim, the hopper's and crawler's bodies) are filled
    in their own colours on the cards and in the detail view, under the links."""
    from gallery_builders import made_run

    from evo.io.models import load_model

    names = ("roller", "hopper", "crawler")
    root = Path(__file__).resolve().parents[2] / "genomes" / "classic"
    creatures = [load_model(root / f"{name}.xml") for name in names]
    index = write_gallery(made_run(tmp_path / "run", creatures, frames=600, generations=3))
    problems: list[str] = []
    with gallery_page(index, problems) as page:
        page.wait_for_timeout(400)
        cards = page.locator("article.card canvas")
        assert cards.count() == 3
        assert _pixels_of(cards.first, "#ae3ec9") > 30, "the roller's rim on its card"
        for k, creature in enumerate(creatures):  # at frame 0, where no polygon hides another
            cards.nth(k).click()
            page.wait_for_selector("#detail:not([hidden])")
            if "pause" in page.text_content("#detail-play"):
                page.click("#detail-play")  # hold still
            page.fill("#detail-scrub", "0")
            page.dispatch_event("#detail-scrub", "input")
            page.wait_for_timeout(200)
            for poly in creature.polys:
                painted = _pixels_of(page.locator("#detail-canvas"), poly.color)
                assert painted > 200, f"{names[k]}: no {poly.color} fill in the detail view"
            page.screenshot(path=str(tmp_path / f"detail-{names[k]}.png"))
            page.click("#detail-close")
        page.click("#race-selected")
        page.wait_for_selector("#race:not([hidden])")
        _wait_for_canvas(page, "#race-canvas", "s.painted > 0")
    assert problems == []


def test_evo_gallery_screenshot_saves_a_picture_of_the_page(run_dir: Path, tmp_path: Path, capsys):
    from PIL import Image

    from evo.cli import main

    if not shutil.which(CHROMIUM):
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"no Chromium at {CHROMIUM}")
    out = tmp_path / "gallery.png"
    assert main(["gallery", str(run_dir), "--top", "3", "--screenshot", str(out), "--browser", CHROMIUM]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == str(out)
    with Image.open(out) as picture:
        assert picture.size == (1280, 1400)
        colours = picture.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 200, "more than a blank page"


def test_the_evolution_speed_control_the_fitness_labels_and_whole_number_archive_ticks(tmp_path: Path):
    import evo

    root = Path(__file__).resolve().parents[2]
    config = evo.Config.from_toml(root / "examples" / "diverse_walkers.toml").replace(
        run={"generations": 3, "population": 12}, evaluation={"frames": 300}, qd={"batch_size": 6},
        pool={"workers": 1},
    )  # fmt: skip
    evo.evolve(config, out=tmp_path / "run", progress=False)
    index = write_gallery(tmp_path / "run")
    problems: list[str] = []
    with gallery_page(index, problems) as page:
        assert page.input_value("#evolution-speed") == "16"  # a 3000-frame replay per 3 s
        assert page.evaluate("evolution.player.speed") == 16
        page.select_option("#evolution-speed", "64")
        assert page.evaluate("evolution.player.speed") == 64
        ticks = page.evaluate("axisTicks(0)")  # masses: whole numbers only
        assert ticks and all(float(t).is_integer() for t in ticks)
        assert page.evaluate("axisTicks(1).length") == 5  # settled_height: five even ticks
        page.locator("article.card canvas").first.click()
        page.wait_for_selector("#detail:not([hidden])")
        labels = page.locator("#detail-facts dt").all_text_contents()
        assert labels[0] == "fitness (plugin distance, from frame 200)"
        assert "centroid travel (not the fitness)" in labels and "distance" not in labels
    assert problems == []
