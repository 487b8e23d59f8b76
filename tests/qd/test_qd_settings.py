"""The ``[run] algorithm`` key and the ``[qd]`` table: defaults resolved from the genome and the plugin, the
resolved TOML, and one-line errors."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from evo.errors import EvoInputError
from evo.run.config import load_config

ROOT = Path(__file__).resolve().parents[2]


def write(folder: Path, text: str, name: str = "qd.toml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


MAP_ELITES = """
[run]
algorithm = "map-elites"
"""


def test_a_map_elites_config_resolves_every_measures_range_and_bins(tmp_path):
    config = load_config(write(tmp_path, MAP_ELITES + "[genome]\nmasses = [3, 9]\n"))
    assert config.map_elites and config.qd.measures == ("masses", "settled_height")
    assert config.qd.bins == (7, 10)  # one bin per count of masses, ten heights
    assert dict(config.qd.ranges) == {"masses": [2.5, 9.5], "settled_height": [0.0, 80.0]}
    spec = config.evaluation_spec()
    assert spec.measures == ("masses", "settled_height") and spec.settle_frames == 200.0


def test_the_resolved_toml_of_a_map_elites_run_loads_back_equal(tmp_path):
    text = (
        MAP_ELITES
        + """
    [evaluation]
    plugin = "stance"

    [qd]
    archive = "cvt"
    cells = 50
    measures = ["reach", "gait_frequency"]
    ranges = {gait_frequency = [0.0, 0.5]}
    """
    )
    config = load_config(write(tmp_path, text))
    assert dict(config.qd.ranges) == {"reach": [0.0, 200.0], "gait_frequency": [0.0, 0.5]}
    resolved = write(tmp_path, config.to_toml(), "resolved.toml")
    again = load_config(resolved)
    assert again == config
    assert "[qd.ranges]" in resolved.read_text() and 'algorithm = "map-elites"' in resolved.read_text()


def test_a_ga_config_writes_neither_the_algorithm_nor_the_qd_table(tmp_path):
    config = load_config(write(tmp_path, "[qd]\nemitters = 3\n"))
    assert not config.map_elites and config.evaluation_spec().measures == ()
    text = config.to_toml()
    assert "algorithm" not in text and "[qd]" not in text


def test_examples_diverse_walkers_loads():
    config = load_config(ROOT / "examples" / "diverse_walkers.toml")
    assert config.map_elites and config.qd.bins == (10, 12) and config.genome.masses == (3, 12)
    assert "MAP-Elites" in config.describe()[0]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            'measures = ["masses", "hieght"]',
            "[qd] measures: unknown measure 'hieght'; did you mean 'height'?",
        ),
        ("measures = []", "[qd] measures: expected at least one measure, got []"),
        (
            'measures = ["omega", "omega"]',
            "[qd] measures: expected distinct measures, got ['omega', 'omega']",
        ),
        ("bins = [3, 4, 5]", "[qd] bins: expected one number of bins per measure (2), got [3, 4, 5]"),
        ("bins = 0", "[qd] bins: expected an integer >= 1 or a list of integers >= 1, got 0"),
        ("ranges = {omega = [1, 2]}", "[qd] ranges: 'omega' is not one of the measures ['masses', 'height']"),
        (
            "ranges = {height = [5, 1]}",
            "[qd] ranges.height: expected [low, high] with low < high, got [5, 1]",
        ),
        ('ranges = {height = "tall"}', "[qd] ranges.height: expected a list of 2 finite numbers, got 'tall'"),
        ("bins = [400, 400]", "[qd] bins: expected an archive of at most 100000 cells, got 160000"),
        ('archive = "voronoi"', "[qd] archive: expected one of 'grid', 'cvt', got 'voronoi'"),
        (
            'archive = "cvt"\ncells = 500\ncvt_samples = 100',
            "[qd] cvt_samples: expected at least as many samples",
        ),
        ("emitter = 2", "unknown key 'emitter' in [qd]; did you mean 'emitters'?"),
    ],
)
def test_every_qd_error_is_one_line_naming_the_file_and_the_key(tmp_path, table, message):
    text = MAP_ELITES + '[evaluation]\nplugin = "height_only"\nplugin_paths = ["p.py"]\n'
    (tmp_path / "p.py").write_text(
        "from evo.fitness import fitness_plugin\n\n\n"
        '@fitness_plugin("height_only", measures=("height",))\n'
        "def height_only(result):\n"
        '    """Distance; measure height (px)."""\n'
        "    return 1.0, 2.0\n"
    )
    path = write(tmp_path, text + '[qd]\nmeasures = ["masses", "height"]\nranges = {height = [0, 10]}\n')
    assert load_config(path).qd.measures == ("masses", "height")
    body = text + "[qd]\n" + table + "\n"
    if "measures" not in table:
        body += 'measures = ["masses", "height"]\n'
    if "ranges" not in table:
        body += "ranges = {height = [0, 10]}\n"
    with pytest.raises(EvoInputError) as error:
        load_config(write(tmp_path, body))
    text = str(error.value)
    assert text.startswith(str(tmp_path / "qd.toml")) and message in text and "\n" not in text


def test_a_plugin_measure_without_a_range_asks_for_one(tmp_path):
    (tmp_path / "p.py").write_text(
        "from evo.fitness import fitness_plugin\n\n\n"
        '@fitness_plugin("tall", measures=("height", "reach"))\n'
        "def tall(result):\n"
        '    """Distance (px); measures height and reach."""\n'
        "    return 1.0, 2.0, 3.0\n"
    )
    path = write(
        tmp_path,
        MAP_ELITES + '[evaluation]\nplugin = "tall"\nplugin_paths = ["p.py"]\n[qd]\nmeasures = ["reach"]\n',
    )
    with pytest.raises(
        EvoInputError, match=r"\[qd\] ranges: measure 'reach' of plugin 'tall' has no default"
    ):
        load_config(path)


def test_map_elites_without_pyribs_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ribs", None)  # as if it were not installed
    with pytest.raises(EvoInputError) as error:
        load_config(write(tmp_path, MAP_ELITES))
    assert str(error.value).endswith("[run] algorithm: 'map-elites' needs pyribs: pip install 'evo[qd]'")
    assert load_config(write(tmp_path, "[run]\nalgorithm = 'ga'\n")).run.algorithm == "ga"
