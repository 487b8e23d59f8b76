"""The SVG drawing of evo.analysis.drawing: polygon outlines, and polygons in the modes picture."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from evo.analysis import natural_modes
from evo.analysis.drawing import modes_svg, svg_polygon_path
from evo.io.models import load_model
from evo.model import closed_curve
from evo.sim import World

ROOT = Path(__file__).resolve().parents[2]
SQUARE = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])


def numbers(path: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", path)]


def test_a_straight_polygon_is_its_corners_joined_and_closed():
    assert svg_polygon_path(SQUARE, False) == "M0.00 0.00 L10.00 0.00 L10.00 10.00 L0.00 10.00 Z"


def test_a_curvy_polygon_is_one_cubic_bezier_a_side_along_the_closed_catmull_rom_curve():
    path = svg_polygon_path(SQUARE, True)
    assert path.startswith("M0.00 0.00 C") and path.endswith(" Z") and path.count("C") == 4
    np.testing.assert_allclose(numbers(path)[2:], closed_curve(SQUARE).ravel(), atol=0.005)


def test_the_modes_picture_fills_the_creatures_polygons_in_their_colours_under_the_links():
    hopper = load_model(ROOT / "genomes" / "classic" / "hopper.xml")
    text = modes_svg(hopper, natural_modes(hopper, World().updated(hopper.world)))
    root = ET.fromstring(text)
    fills = [p.get("fill") for p in root.iter("{http://www.w3.org/2000/svg}path")]
    panels = len([g for g in root.iter("{http://www.w3.org/2000/svg}g")])
    assert fills == [poly.color for poly in hopper.polys] * panels
    assert text.index("<path") < text.index("<line", text.index("<g>"))  # under the links of its panel
