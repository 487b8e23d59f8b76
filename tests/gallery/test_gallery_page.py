"""``evo gallery``: one self-contained page, small enough, with no external reference."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from gallery_builders import made_run, random_creatures

from evo.cli import main
from evo.gallery import build_gallery, decode_positions, write_gallery

SVG_NAMESPACE = 'xmlns="http://www.w3.org/2000/svg"'
DATA = re.compile(r'<script type="application/json" id="evo-data">(.*?)</script>', re.S)


def payload(page: str) -> dict:
    return json.loads(DATA.search(page).group(1))


def external_references(page: str) -> list[str]:
    """Everything in the page that could make a browser reach out: URLs with a scheme or a leading //
    (the inline SVGs' namespace attribute, which names a namespace and is never fetched, is removed
    first), and the HTML and CSS ways of loading a resource."""
    count = page.count(SVG_NAMESPACE)
    assert count == page.count("<svg "), (
        "every inline <svg> carries the namespace attribute, nothing else does"
    )
    text = page.replace(SVG_NAMESPACE, "")
    found = re.findall(r"(?i)(?:https?|ftp|wss?|file)://[^\s\"'<>]*", text)
    found += re.findall(r"(?i)(?:src|href|action|poster)\s*=\s*[\"']?(?!#|blob:|data:)//?[^\s\"'>]+", text)
    found += re.findall(
        r"(?i)(?:(?<![\w.])url\(\s*[\"']?(?!#|data:)|@import|<link\b|<iframe\b|<img\b|\bfetch\(|XMLHttpRequest|WebSocket|EventSource|importScripts|\bimport\()",
        text,
    )
    return found


def test_the_gallery_is_one_page_with_inline_style_script_data_and_charts(run_dir: Path):
    path = write_gallery(run_dir)
    assert path == run_dir / "gallery" / "index.html"
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert (
        "<style>" in page
        and "<script>" in page
        and '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in page
    )
    assert "<!--" not in page.replace("<!DOCTYPE", ""), "every template marker was filled"
    data = payload(page)
    assert data["elites"] == [f"e{k}" for k in range(1, len(data["elites"]) + 1)]
    assert len(data["elites"]) == len(list((run_dir / "elites").glob("*.json")))
    assert [g["generation"] for g in data["generations"]] == list(range(6))
    first = data["creatures"]["e1"]
    assert first["frames"] == 1200 and first["step"] == 2.0 and first["records"] == 601
    assert json.loads(first["model"])["meta"]["fitness"] == first["fitness"]
    header = data["run"]
    assert header["name"] == "tiny" and header["population"] == 24 and header["seed"] == 3
    assert header["generations_done"] == 6 and header["evaluations"] > 24
    assert data["track"]["width"] == 4000.0 and data["track"]["floor"] is True


def test_the_page_references_no_external_url(run_dir: Path):
    page = build_gallery(run_dir)
    assert external_references(page) == []
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_the_external_url_check_catches_what_it_should():
    assert external_references('<svg xmlns="http://www.w3.org/2000/svg"></svg><a href="https://x.org">') != []
    assert external_references('<svg xmlns="http://www.w3.org/2000/svg"></svg><img src="a.png">') != []
    assert (
        external_references('<svg xmlns="http://www.w3.org/2000/svg"></svg><script>fetch("/a")</script>')
        != []
    )
    assert external_references('<svg xmlns="http://www.w3.org/2000/svg"></svg>') == []
    assert (
        external_references('<svg xmlns="http://www.w3.org/2000/svg"></svg><style>a{b:url(x.png)}</style>')
        != []
    )


def test_top_limits_the_cards_but_not_the_generation_bests(run_dir: Path):
    data = payload(build_gallery(run_dir, top=2))
    assert data["elites"] == ["e1", "e2"]
    assert all(g["key"] is None or g["key"] in data["creatures"] for g in data["generations"])


def test_text_in_model_names_cannot_break_out_of_the_data_element(tmp_path: Path):
    folder = made_run(tmp_path / "run", random_creatures(1, masses=(4, 5)), frames=200, generations=2)
    elite = next((folder / "elites").glob("*.json"))
    doc = json.loads(elite.read_text())
    doc["name"] = "</script><script>alert(1)</script>"
    elite.write_text(json.dumps(doc))
    page = build_gallery(folder)
    assert page.count("</script>") == 2  # the data element's and the script's own
    assert payload(page)["creatures"]["e1"]["name"] == doc["name"]


def test_twenty_elites_of_3000_frames_stay_under_five_megabytes(tmp_path: Path):
    folder = made_run(tmp_path / "run", random_creatures(20), frames=3000)
    path = write_gallery(folder)
    size = path.stat().st_size
    data = payload(path.read_text(encoding="utf-8"))
    assert len(data["elites"]) == 20
    assert all(c["records"] == 1001 and c["step"] == 3.0 for c in data["creatures"].values())
    assert sum(c["masses"] for c in data["creatures"].values()) >= 20 * 16
    assert size < 5_000_000, f"{size} bytes"
    c = data["creatures"]["e20"]
    assert decode_positions(c["pos"], c["records"], c["masses"]).shape == (1001, c["masses"], 2)


def test_the_command_writes_the_page_and_reports_bad_input_in_one_line(run_dir: Path, tmp_path: Path, capsys):
    assert main(["gallery", str(run_dir), "--top", "3"]) == 0
    assert capsys.readouterr().out.strip() == str(run_dir / "gallery" / "index.html")
    assert main(["gallery", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such run folder" in err
    assert main(["gallery", str(run_dir), "--top", "0"]) == 2
    assert "--top: expected an integer in 1.." in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["not json", '{"format": "evo-model"}'])
def test_a_broken_elite_file_is_named_in_the_error(tmp_path: Path, capsys, bad: str):
    folder = made_run(tmp_path / "run", random_creatures(2, masses=(4, 5)), frames=200, generations=2)
    broken = sorted((folder / "elites").glob("*.json"))[1]
    broken.write_text(bad)
    assert main(["gallery", str(folder)]) == 2
    assert broken.name in capsys.readouterr().err


def test_a_rebuilt_gallery_keeps_the_permissions_its_owner_gave_the_page(tmp_path: Path):
    from evo.io.atomic import new_file_mode

    folder = made_run(tmp_path / "run", random_creatures(1, masses=(4, 5)), frames=200, generations=2)
    path = write_gallery(folder)
    assert path.stat().st_mode & 0o777 == new_file_mode()
    path.chmod(0o600)
    write_gallery(folder)
    assert path.stat().st_mode & 0o777 == 0o600


def test_each_elite_carries_its_three_lowest_natural_frequencies_as_evo_analyze_finds_them(run_dir: Path):
    from evo.analysis import natural_modes
    from evo.io.run_folder.contents import read_run
    from evo.io.worlds import resolve_world

    data = payload(build_gallery(run_dir, top=2))
    run = read_run(run_dir)
    for key, entry in zip(data["elites"], run.elites, strict=False):
        layers = [(run.section("world"), None, "world"), (entry.creature.world, None, "world")]
        modes = natural_modes(entry.creature, resolve_world(layers))
        shown = data["creatures"][key]["natural"]
        assert len(shown) == min(3, modes.frequencies.size) >= 1
        np.testing.assert_allclose(shown, modes.frequencies[:3], rtol=1e-5)


def test_the_race_note_says_each_creature_runs_from_its_own_start(run_dir: Path):
    """Creatures start where their model files put them (start x differ by tens of px); the race draws
    them there and ranks them by the distance each has travelled, as docs/gallery.md says."""
    page = build_gallery(run_dir, top=3)
    assert "each creature from its own start" in page and "same start" not in page
