"""Genes pinned at a bound of their [genome] range are flagged by evo inspect and the gallery header; no
column of evo inspect is there twice; the header tells a terrain in words (its file, polylines and
segments), not coordinates."""

from __future__ import annotations

from pathlib import Path

import pytest

import evo
from evo.cli import main
from evo.gallery.build import build_gallery
from evo.gallery.pinned import pinned_genes
from evo.io.models import load_model

ROOT = Path(__file__).resolve().parents[2]
WALKER = load_model(ROOT / "genomes" / "walker.json")


def fastest_wave(result) -> float:
    """The creature's own omega (rad/frame): selection drives it to the top of its range."""
    return float(result.model.omega)


@pytest.fixture(scope="module")
def pinned_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pinned") / "run"
    config = evo.Config.from_toml(ROOT / "examples" / "walkers.toml").replace(
        run={"name": "pin", "generations": 8, "population": 16},
        evaluation={"frames": 100},
        pool={"workers": 1},
    )
    evo.evolve(config, fitness=fastest_wave, out=folder, progress=False)
    return folder


def test_a_gene_most_elites_share_at_a_bound_is_named_with_its_range():
    at_top = [WALKER.replace(omega=0.2)] * 7 + [WALKER.replace(omega=0.1)] * 3
    assert pinned_genes(at_top, {}) == ["7 of 10 elites have ω at the top of [genome] omega = [0.02, 0.2]"]
    assert pinned_genes(at_top, {"omega": [0.02, 0.3]}) == []
    low = [WALKER.replace(beta=0.5)] * 2 + [WALKER.replace(beta=0.7)] * 8
    assert pinned_genes(low, {"beta": [0.5, 1.0]}) == []  # 2 of 10 is under the share
    assert pinned_genes(low[:4], {"beta": [0.5, 1.0]}) == [
        "2 of 4 elites have β at the bottom of [genome] beta = [0.5, 1]"
    ]


def test_evo_inspect_flags_the_pinned_gene(pinned_run, capsys):
    assert main(["inspect", str(pinned_run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == (
        "note: 10 of 10 elites have ω at the top of [genome] omega = [0.02, 0.2]: the range may be what "
        "stops them; widen it to let evolution go further"
    )
    header = lines[1].split()
    assert len(header) == len(set(header))


def test_the_gallery_header_flags_the_pinned_gene(pinned_run):
    page = build_gallery(pinned_run)
    assert '<p class="note">10 of 10 elites have ω at the top of [genome] omega = [0.02, 0.2]' in page


def test_inspect_of_a_map_elites_run_lists_masses_once(tmp_path, capsys):
    config = evo.Config.from_toml(ROOT / "examples" / "diverse_walkers.toml").replace(
        run={"generations": 2, "population": 10}, evaluation={"frames": 100}, qd={"batch_size": 5},
        pool={"workers": 1},
    )  # fmt: skip
    evo.evolve(config, out=tmp_path / "run", progress=False)
    assert main(["inspect", str(tmp_path / "run")]) == 0
    header = capsys.readouterr().out.splitlines()[3].split()
    assert header.count("masses") == 1 and header[:5] == [
        "rank",
        "distance",
        "cell",
        "masses",
        "settled_height",
    ]


def test_the_gallery_header_tells_a_terrain_in_words(tmp_path):
    config = evo.Config.from_toml(ROOT / "examples" / "walkers.toml").replace(
        run={"generations": 1, "population": 4}, evaluation={"frames": 100}, pool={"workers": 1},
        world={"terrain": str(ROOT / "genomes" / "classic" / "hills.xml")},
    )  # fmt: skip
    evo.evolve(config, out=tmp_path / "run", progress=False)
    header = build_gallery(tmp_path / "run").split("<h2>World</h2>", 1)[1].split("</details>", 1)[0]
    assert "<dt>terrain</dt><dd>hills.xml — 3 polyline(s) of 5 segment(s), x 300..1700 px</dd>" in header
    assert "450" not in header  # no coordinates
    assert "terrain_file" not in header  # the file is told with the terrain, not on a row of its own
