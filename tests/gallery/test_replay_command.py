"""``evo replay``: an animated GIF with one picture per record, and an SVG poster that parses."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops

from evo.cli import main
from evo.gallery.replay import phase_colour

ROOT = Path(__file__).resolve().parents[2]
WALKER = ROOT / "genomes" / "walker.json"


def test_the_gif_has_one_picture_per_record_and_consecutive_pictures_differ(tmp_path: Path, capsys):
    out = tmp_path / "walker.gif"
    assert (
        main(
            [
                "replay",
                str(WALKER),
                "--frames",
                "300",
                "--every",
                "10",
                "--gif",
                str(out),
                "--size",
                "240x135",
            ]
        )
        == 0
    )
    assert "31 pictures" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert gif.n_frames == 31 and gif.size == (240, 135)
        pictures = []
        for k in range(gif.n_frames):
            gif.seek(k)
            pictures.append(gif.convert("RGB"))
    for before, after in zip(pictures, pictures[1:], strict=False):
        assert ImageChops.difference(before, after).getbbox() is not None
    assert np.asarray(pictures[0]).std() > 10, "the picture is not a flat colour"


def test_the_default_gif_of_a_soda_xml_model_has_about_150_pictures(tmp_path: Path):
    out = tmp_path / "strider.gif"
    assert (
        main(
            [
                "replay",
                str(ROOT / "genomes" / "classic" / "strider.xml"),
                "--frames",
                "600",
                "--gif",
                str(out),
            ]
        )
        == 0
    )
    with Image.open(out) as gif:
        assert gif.n_frames == 151  # every 4 frames: 600 / 150


def test_the_svg_poster_parses_and_shows_the_creature(tmp_path: Path):
    out = tmp_path / "walker.svg"
    assert main(["replay", str(WALKER), "--frames", "600", "--svg", str(out), "--set", "width=2000"]) == 0
    root = ET.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    circles = root.findall(".//{http://www.w3.org/2000/svg}circle")
    assert len(circles) >= 6 * 4  # the creature's masses at several moments
    texts = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "frame 600" in texts and "px" in texts


def test_the_svg_poster_and_the_gif_fill_a_classic_models_polygons_in_their_colours(tmp_path: Path):
    roller = ROOT / "genomes" / "classic" / "roller.xml"
    svg, gif = tmp_path / "roller.svg", tmp_path / "roller.gif"
    assert main(["replay", str(roller), "--frames", "300", "--svg", str(svg), "--gif", str(gif)]) == 0
    paths = list(ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}path"))
    rims = [p for p in paths if p.get("fill") == "#ae3ec9"]
    assert len(rims) >= 6 and all(p.get("d").count("C") == 8 for p in rims)  # curvy: 8 Béziers
    assert sum(p.get("fill") == "#e599f7" for p in paths) == len(rims)
    with Image.open(gif) as picture:
        picture.seek(20)
        pixels = np.asarray(picture.convert("RGB")).reshape(-1, 3)
    near = np.all(np.abs(pixels.astype(int) - [0xAE, 0x3E, 0xC9]) <= 12, axis=1)
    assert near.sum() > 100, "the rim is filled in its colour"


def test_muscle_colours_go_from_blue_when_contracted_to_orange_when_extended():
    assert phase_colour(-1.0) == (28, 126, 214) and phase_colour(1.0) == (232, 89, 12)
    assert phase_colour(0.0) == (130, 108, 113)


def test_the_page_legend_names_the_muscle_state_the_colour_shows():
    """The colour follows sin(theta + phi), the rest length l0 (1 + alpha beta sin(theta + phi)) itself:
    orange at its longest, where the muscle is neither lengthening nor shortening."""
    from evo.gallery.page import static_text

    legend = static_text("page.html")
    assert 'class="key-short">blue</span> contracted' in legend
    assert 'class="key-long">orange</span> extended' in legend
    assert "shortening" not in legend and "lengthening" not in legend


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([str(WALKER)], "nothing to do"),
        (["missing.json", "--svg", "x.svg"], "missing.json: no such file"),
        ([str(WALKER), "--gif", "x.gif", "--size", "big"], "--size expects WxH"),
        ([str(WALKER), "--gif", "x.gif", "--every", "0.3"], "not a whole number of steps"),
        ([str(WALKER), "--gif", "x.gif", "--frames", "10", "--every", "20"], "at most --frames (10)"),
        ([str(WALKER), "--gif", "x.gif", "--every", "0"], "--every: expected a number in (0, "),
        ([str(WALKER), "--svg", "x.svg", "--frames", "0"], "--frames: expected an integer in 1.."),
        ([str(WALKER), "--svg", "x.svg", "--set", "gravity=-1"], "gravity"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(args, message, capsys, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["replay", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not list(tmp_path.iterdir())


def test_replay_and_the_poster_say_when_and_at_which_frame_the_creature_exploded(tmp_path, capsys):
    walker = Path(__file__).resolve().parents[2] / "genomes" / "walker.json"
    gif, svg = tmp_path / "w.gif", tmp_path / "w.svg"
    argv = ["replay", str(walker), "--set", "stiffness=2", "--gif", str(gif), "--svg", str(svg)]
    assert main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    assert main(["simulate", str(walker), "--set", "stiffness=2", "--json"]) == 0
    frame = json.loads(capsys.readouterr().out)["exploded_frame"]
    assert frame is not None and frame > 0
    assert err == [
        f"evo replay: warning: {walker}: the creature exploded at frame {frame:g} of 3000; {out} shows it "
        "up to frame 0"
        for out in (gif, svg)
    ]
    assert f"EXPLODED at frame {frame:g} · walker:" in svg.read_text()


def test_a_creature_that_does_not_explode_gets_no_such_word(tmp_path, capsys):
    walker = Path(__file__).resolve().parents[2] / "genomes" / "walker.json"
    assert main(["replay", str(walker), "--frames", "200", "--svg", str(tmp_path / "w.svg")]) == 0
    assert capsys.readouterr().err == "" and "EXPLODED" not in (tmp_path / "w.svg").read_text()


def test_replay_svg_of_a_terrain_file_draws_its_polylines(tmp_path, capsys):
    hills = Path(__file__).resolve().parents[2] / "genomes" / "classic" / "hills.xml"
    svg = tmp_path / "hills.svg"
    assert main(["replay", str(hills), "--svg", str(svg)]) == 0
    assert capsys.readouterr().out == f"{svg}: the terrain of {hills}\n"
    root = ET.fromstring(svg.read_text())
    ns = {"s": "http://www.w3.org/2000/svg"}
    lines = [p for p in root.iterfind(".//s:polyline", ns) if p.get("stroke-width") == "3"]
    assert [len(p.get("points").split()) for p in lines] == [3, 3, 2]  # two hills and a ledge
    assert "hills: terrain, 3 polyline(s) of 5 segment(s), x 300..1700 px" in svg.read_text()
    assert main(["replay", str(hills), "--gif", str(tmp_path / "h.gif")]) == 2
    assert "a terrain file (fixed bars only), not a creature" in capsys.readouterr().err
