"""Measures: the built-ins on hand-made trajectories, the record step they read, and plugins that return
measures after their objectives."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.fitness import PluginFailed, check_params, discover, fitness_plugin
from evo.fitness.evaluate import EvaluationSpec, evaluate
from evo.fitness.measures import BUILTIN_MEASURES, builtin_measures, ground_heights, measure_stride
from evo.io.models import load_model
from evo.model import Creature
from evo.sim import World

ROOT = Path(__file__).resolve().parents[2]


def triangle(alpha=(0.5, 0.0, 0.0), omega=0.1) -> Creature:
    return Creature(
        positions=[[0.0, 0.0], [20.0, 0.0], [10.0, 15.0]],
        velocities=np.zeros((3, 2)),
        fixed=[False] * 3,
        link_a=[0, 1, 2],
        link_b=[1, 2, 0],
        rest=[20.0, 18.0, 18.0],
        alpha=list(alpha),
        phi=[0.0, 0.0, 0.0],
        omega=omega,
        beta=0.5,
    )


def measures_of(positions, frames, creature=None, world=None, settle=0.0, names=tuple(BUILTIN_MEASURES)):
    return builtin_measures(
        names,
        np.asarray(positions, float),
        np.asarray(frames, float),
        creature or triangle(),
        world or World(),
        settle,
    )


def test_the_body_measures_count_masses_muscles_and_read_omega():
    values = measures_of(np.zeros((3, 3, 2)), [0, 1, 2], triangle(alpha=(0.5, 0.2, 0.0), omega=0.07))
    assert values["masses"] == 3.0
    assert values["muscle_share"] == pytest.approx(2 / 3)
    assert values["omega"] == 0.07


def test_settled_height_is_the_mean_centroid_height_after_settling():
    frames = np.arange(0, 101, 10.0)
    positions = np.zeros((len(frames), 2, 2))
    positions[:, 0, 1] = np.where(frames < 50, 100.0, 10.0)  # falls at frame 50
    positions[:, 1, 1] = np.where(frames < 50, 100.0, 30.0)
    assert measures_of(positions, frames, settle=50)["settled_height"] == 20.0
    assert measures_of(positions, frames, settle=0)["settled_height"] > 20.0


def test_contact_fraction_counts_masses_within_a_pixel_of_the_ground():
    frames = np.arange(4.0)
    positions = np.zeros((4, 4, 2))
    positions[:, :, 1] = [0.0, 0.9, 1.5, 40.0]  # two of four masses touch
    assert measures_of(positions, frames)["contact_fraction"] == 0.5
    slope = World(ground={"type": "slope", "angle": 45.0})
    positions[:, :, 0] = 40.0  # the slope is 40 px high there
    positions[:, :, 1] += 40.0
    assert measures_of(positions, frames, world=slope)["contact_fraction"] == 0.5
    assert ground_heights(slope, np.array([-30.0, 10.0])) == pytest.approx([0.0, 10.0])  # soda: the floor too


@pytest.mark.parametrize("omega", [0.05, 0.13, 0.31])
def test_gait_frequency_is_the_angular_frequency_of_the_centroid_height(omega):
    frames = np.arange(0, 3000, 2.0)
    positions = np.zeros((len(frames), 2, 2))
    positions[:, :, 1] = (20.0 + 3.0 * np.sin(omega * frames) + 0.001 * frames)[:, None]  # with a slow drift
    resolution = 2 * math.pi / 3000
    assert measures_of(positions, frames)["gait_frequency"] == pytest.approx(omega, abs=resolution)


def test_a_creature_that_stays_still_has_no_gait():
    positions = np.full((200, 3, 2), 5.0)
    assert measures_of(positions, np.arange(200.0))["gait_frequency"] == 0.0


def test_the_default_ranges_of_masses_and_omega_follow_the_genome():
    assert BUILTIN_MEASURES["masses"].default_range((3, 12), (0.02, 0.2)) == (2.5, 12.5)
    assert BUILTIN_MEASURES["omega"].default_range((3, 12), (0.05, 0.3)) == (0.05, 0.3)
    assert BUILTIN_MEASURES["gait_frequency"].default_range((3, 12), (0.05, 0.3)) == (0.0, 0.6)
    assert BUILTIN_MEASURES["settled_height"].default_range() == (0.0, 80.0)


@pytest.mark.parametrize(
    ("steps", "dt", "stride"), [(10, 1.0, 2), (7, 1.0, 1), (1, 1.0, 1), (20, 0.5, 4), (5, 2.0, 1)]
)
def test_measures_record_at_most_every_two_frames_at_a_divisor_of_the_plugins_step(steps, dt, stride):
    assert measure_stride(steps, dt) == stride


def spec(plugin, measures=(), frames=1200, world=None):
    params = check_params(plugin, {}, source=None)
    return EvaluationSpec(world or World(), frames, plugin.ref(), params, measures)


def test_asking_for_measures_leaves_the_fitness_exactly_as_it_was():
    walker = load_model(ROOT / "genomes" / "walker.json")
    plugin, world = discover()["distance"], World.from_model(walker)  # the world it was made to walk in
    plain = evaluate(walker, spec(plugin, world=world), seed=3)
    asked = ("gait_frequency", "masses", "settled_height")
    measured = evaluate(walker, spec(plugin, asked, world=world), seed=3)
    assert measured.fitness == plain.fitness and plain.measures == ()
    gait, masses, height = measured.measures
    assert masses == 6.0 and 0 < height < 80
    assert gait == pytest.approx(walker.omega, rel=0.1) or gait == pytest.approx(2 * walker.omega, rel=0.1)


def test_a_plugin_returns_its_measures_after_its_objectives():
    walker = load_model(ROOT / "genomes" / "walker.json")
    plugin = discover()["stance"]
    assert plugin.measures == ("height", "reach") and plugin.measure_ranges == ((0.0, 150.0), (0.0, 200.0))
    evaluation = evaluate(walker, spec(plugin, ("reach", "masses", "height")), seed=1)
    assert (
        len(evaluation.fitness) == 1 and evaluation.fitness == evaluate(walker, spec(plugin), seed=1).fitness
    )
    reach, masses, height = evaluation.measures
    assert masses == 6.0 and 0 < height < 150 and 0 < reach < 200
    distance = evaluate(walker, spec(discover()["distance"]), seed=1)
    assert evaluation.fitness == distance.fitness


def write_plugin(folder: Path, body: str) -> Path:
    path = folder / "measured.py"
    source = "from evo.fitness import fitness_plugin\n\n" + textwrap.dedent(body)
    path.write_text(source)
    return path


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (
            "1.0, 2.0",
            "returned 2 value(s); expected a tuple of 3 numbers (objectives score, then measures a, b)",
        ),
        ("1.0, float('nan'), 2.0", "returned NaN for 'a'"),
        ("1.0, 2.0, float('inf')", "returned inf for measure 'b'; expected a finite one"),
    ],
)
def test_a_plugin_whose_measures_are_missing_or_not_finite_fails_in_one_line(tmp_path, returned, message):
    write_plugin(
        tmp_path,
        f'''
        @fitness_plugin("score", measures=("a", "b"))
        def score(result):
            """Says so."""
            return {returned}
        ''',
    )
    plugin = discover([str(tmp_path)])["score"]
    with pytest.raises(PluginFailed) as failed:
        evaluate(triangle(), spec(plugin, ("a",), frames=100), seed=0)
    assert message in failed.value.message and "\n" not in failed.value.message


@pytest.mark.parametrize(
    ("measures", "message"),
    [
        (("masses",), "measure name 'masses' is taken by a built-in measure"),
        (("a b",), "a measure name must be an identifier, got 'a b'"),
        (("a", "a"), "measures must have distinct names"),
        ({"a": (2.0, 1.0)}, "the range of measure 'a' must be (low, high) with low < high"),
        ("a", "measures must be a tuple of names or a mapping of names to ranges"),
    ],
)
def test_a_bad_measure_declaration_is_a_one_line_error(measures, message):
    with pytest.raises(EvoInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        fitness_plugin("x", measures=measures)


def test_the_plugin_guide_shows_plugins_stance_py_as_it_is():
    guide = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    source = (ROOT / "plugins" / "stance.py").read_text(encoding="utf-8")
    body = source[source.index('"""\n\n', 3) + 5 :]  # after the module docstring
    assert f"```python\n{body}```" in guide


def test_evo_plugins_lists_a_plugins_measures_with_their_ranges(capsys):
    import json

    from evo.cli import main

    assert main(["plugins", "--json"]) == 0
    listed = {p["name"]: p for p in json.loads(capsys.readouterr().out)["plugins"]}
    assert listed["stance"]["measures"] == {"height": [0.0, 150.0], "reach": [0.0, 200.0]}
    assert listed["distance"]["measures"] == {}
    assert main(["plugins"]) == 0
    assert "measures (for MAP-Elites): height [0, 150], reach [0, 200]" in capsys.readouterr().out
