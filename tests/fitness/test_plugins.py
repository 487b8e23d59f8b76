"""Fitness plugins: the shipped ones on hand-built trajectories, discovery, references, parameters, and a
conformance check over every plugin evo can find."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.fitness import (
    PluginRef,
    SimulationResult,
    check_params,
    discover,
    find_plugin,
    fitness_plugin,
    load_ref,
    shipped_folder,
)
from evo.fitness.evaluate import EvaluationSpec, evaluate
from evo.io.models import load_model
from evo.model import Creature
from evo.sim import World

ROOT = Path(__file__).resolve().parents[2]
USER_PLUGINS = ROOT / "tests" / "fixtures" / "user_plugins"
SHIPPED = ("climb", "distance", "jump", "race", "speed", "stance")


def one_mass() -> Creature:
    z = np.zeros(0)
    return Creature(
        positions=[[0.0, 0.0]],
        velocities=[[0.0, 0.0]],
        fixed=[False],
        link_a=z,
        link_b=z,
        rest=z,
        alpha=z,
        phi=z,
    )


def result_of(positions, frames, *, world: World | None = None, total_frames=None) -> SimulationResult:
    """A SimulationResult from hand-written (records, masses, 2) positions and recorded frame numbers."""
    positions = np.asarray(positions, dtype=float)
    frames = np.asarray(frames, dtype=float)
    return SimulationResult(
        positions=positions,
        velocities=np.zeros_like(positions),
        frames=frames,
        total_frames=float(frames[-1] if total_frames is None else total_frames),
        exploded=False,
        model=one_mass(),
        world=world or World(),
        seed=0,
    )


def moving(x_of_frame, frames, y=0.0):
    """One-mass positions whose x is ``x_of_frame(frame)``."""
    return [[[x_of_frame(f), y]] for f in frames], frames


def shipped(name):
    return find_plugin(name).func


# -- the shipped plugins ---------------------------------------------------------------------------


def test_shipped_plugins_are_found_in_the_plugins_folder():
    plugins = discover()
    assert set(SHIPPED) <= set(plugins)
    assert shipped_folder() == ROOT / "plugins"
    for name in SHIPPED:
        assert plugins[name].origin == f"file:{ROOT / 'plugins' / (name + '.py')}"


def test_distance_is_the_centroid_displacement_after_settling():
    frames = np.arange(0, 1001, 10)
    result = result_of(*moving(lambda f: 3.0 + 0.5 * f, frames))
    assert shipped("distance")(result) == pytest.approx(0.5 * (1000 - 200))
    assert shipped("distance")(result, settle_frames=0) == pytest.approx(500.0)
    assert shipped("distance")(result, settle_frames=5000) == 0.0


def test_distance_averages_all_masses():
    result = result_of([[[0, 0], [10, 0]], [[4, 0], [30, 0]]], [0, 10])
    assert shipped("distance")(result, settle_frames=0) == pytest.approx(12.0)


def test_speed_is_the_mean_horizontal_centroid_speed_after_settling():
    frames = np.arange(0, 1001, 10)
    result = result_of(*moving(lambda f: -0.25 * f, frames))
    assert shipped("speed")(result) == pytest.approx(-0.25)
    assert shipped("speed")(result, settle_frames=2000) == 0.0


def test_race_scores_minus_the_interpolated_frame_of_crossing_the_finish_line():
    frames = np.arange(0, 1001, 5)
    result = result_of(*moving(lambda f: 100.0 + 2.0 * f, frames))
    assert shipped("race")(result, finish_x=400.0) == pytest.approx(-200.0)
    assert shipped("race")(result, finish_x=401.0) == pytest.approx(-200.5)


def test_race_ranks_a_creature_that_does_not_finish_by_how_far_it_got():
    frames = np.arange(0, 1001, 5)
    slow = result_of(*moving(lambda f: 0.1 * f, frames))
    back_and_forth = result_of(*moving(lambda f: 250.0 * math.sin(math.pi * f / 1000), frames))
    winner = result_of(*moving(lambda f: 0.4 * f, frames))
    race = shipped("race")
    assert race(slow, finish_x=400.0) == pytest.approx(-1000.0 - 300.0)
    assert race(back_and_forth, finish_x=400.0) == pytest.approx(-1000.0 - 150.0)
    assert race(slow, finish_x=400.0, penalty=2.0) == pytest.approx(-1000.0 - 600.0)
    assert race(winner) > race(back_and_forth) > race(slow)


def test_jump_is_the_greatest_height_of_the_lowest_mass_after_settling():
    heights = [[50, 60], [0, 70], [10, 25], [30, 20], [0, 5]]
    positions = [[[0.0, a], [5.0, b]] for a, b in heights]
    result = result_of(positions, [0, 50, 100, 150, 200])
    assert shipped("jump")(result, settle_frames=0) == 50.0
    assert shipped("jump")(result) == 20.0


def test_climb_is_the_distance_along_the_terrain_surface():
    ramp = World(terrain=(((0.0, 0.0), (300.0, 100.0), (600.0, 100.0)),))
    frames = np.arange(0, 301, 10)
    up = result_of(*moving(lambda f: f / 2, frames, y=50.0), world=ramp)
    climb = shipped("climb")
    assert climb(up, settle_frames=0) == pytest.approx(math.hypot(150.0, 50.0), rel=1e-6)
    over_the_top = result_of(*moving(lambda f: 2 * f, frames, y=150.0), world=ramp)
    expected = math.hypot(300.0, 100.0) + 300.0
    assert climb(over_the_top, settle_frames=0) == pytest.approx(expected, rel=1e-6)
    down = result_of(*moving(lambda f: 300.0 - f, frames, y=150.0), world=ramp)
    assert climb(down, settle_frames=0) == pytest.approx(-math.hypot(300.0, 100.0), rel=1e-6)


def test_climb_follows_a_sloping_ground_as_well_as_terrain():
    frames = np.arange(0, 301, 10)
    walk = moving(lambda f: f / 3, frames, y=80.0)  # x from 0 to 100 px
    climb = shipped("climb")
    uphill = World(contact="penalty", ground={"type": "slope", "angle": 30.0})
    expected = 100.0 / math.cos(math.radians(30.0))
    assert climb(result_of(*walk, world=uphill), settle_frames=0) == pytest.approx(expected, rel=1e-9)
    soda_uphill = World(ground={"type": "slope", "angle": 30.0})
    assert climb(result_of(*walk, world=soda_uphill), settle_frames=0) == pytest.approx(expected, rel=1e-9)
    # under soda contact the box floor y = 0 is there too, above a slope that falls to the right
    downhill = {"type": "slope", "angle": -30.0}
    assert climb(result_of(*walk, world=World(ground=downhill)), settle_frames=0) == pytest.approx(100.0)
    down_penalty = World(contact="penalty", ground=downhill)
    assert climb(result_of(*walk, world=down_penalty), settle_frames=0) == pytest.approx(expected, rel=1e-9)
    hills = World(contact="penalty", ground={"type": "hills", "amplitude": 10.0, "wavelength": 50.0})
    xs = np.linspace(0.0, 100.0, 200_001)
    arc = np.hypot(np.diff(xs), np.diff(10.0 * (1.0 - np.cos(2.0 * math.pi * xs / 50.0)))).sum()
    assert climb(result_of(*walk, world=hills), settle_frames=0, step=0.01) == pytest.approx(arc, rel=1e-6)


def test_climb_on_flat_ground_equals_distance():
    frames = np.arange(0, 1001, 10)
    result = result_of(*moving(lambda f: 0.3 * f, frames))
    assert shipped("climb")(result) == pytest.approx(shipped("distance")(result), rel=1e-9)


# -- conformance: every plugin evo can find ------------------------------------------------------

ALL_PLUGINS = discover([str(USER_PLUGINS)])


@pytest.fixture(scope="module")
def walker() -> Creature:
    return load_model(ROOT / "genomes" / "walker.json")


@pytest.mark.parametrize("name", sorted(ALL_PLUGINS))
def test_every_plugin_scores_a_small_creature_with_its_defaults(name, walker):
    plugin = ALL_PLUGINS[name]
    assert plugin.doc, "a plugin needs a docstring whose first line says what it measures"
    assert len(plugin.objectives) == len(plugin.weights) >= 1
    assert load_ref(plugin.ref()).func is plugin.func
    spec = EvaluationSpec(World(), 600, plugin.ref(), check_params(plugin, {}, source=None))
    evaluation = evaluate(walker, spec, seed=7)
    assert not evaluation.exploded
    assert len(evaluation.fitness) == len(plugin.weights)
    assert all(isinstance(v, float) and math.isfinite(v) for v in evaluation.fitness)
    assert evaluate(walker, spec, seed=7) == evaluation


@pytest.mark.parametrize("name", sorted(ALL_PLUGINS))
def test_every_plugins_defaults_pass_its_own_parameter_checks(name):
    plugin = ALL_PLUGINS[name]
    assert check_params(plugin, plugin.params, source=None) == plugin.params


@pytest.mark.parametrize("name", SHIPPED)
def test_docs_config_md_lists_every_parameter_of_a_shipped_plugin_with_its_default(name):
    text = (ROOT / "docs" / "config.md").read_text()
    row = re.search(rf"^\| `{name}` \| (.*?) \|", text, flags=re.M)
    assert row, f"docs/config.md: plugin '{name}' is not in the [evaluation.params] table"
    documented = set(re.findall(r"`(\w+ = [^`]+)`", row[1]))
    assert documented == {f"{k} = {v!r}" for k, v in find_plugin(name).params.items()}


# -- discovery -------------------------------------------------------------------------------------


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


PLUGIN_SOURCE = """
    from evo.fitness import fitness_plugin

    @fitness_plugin({name!r})
    def score(result, *, k: float = 1.0):
        \"\"\"Says {name}.\"\"\"
        return k
"""


def test_a_user_folder_adds_its_plugins_with_their_origin_and_parameters():
    plugins = discover([str(USER_PLUGINS)])
    posture = plugins["posture"]
    assert posture.origin == f"file:{USER_PLUGINS / 'posture.py'}"
    assert posture.weights == (1.0, -1.0) and posture.objectives == ("height", "sway")
    assert posture.params == {"settle_frames": 50, "noise": 0.0}
    assert posture.record_every == 5.0
    assert "divides" not in plugins, "sub-folders are not scanned"


def test_plugin_paths_are_relative_to_the_base_folder_and_may_name_a_file(tmp_path):
    write(tmp_path / "mine" / "alpha_score.py", PLUGIN_SOURCE.format(name="alpha_score"))
    write(tmp_path / "mine" / "_helper.py", "raise RuntimeError('helpers are not plugins')\n")
    write(tmp_path / "single.py", PLUGIN_SOURCE.format(name="single"))
    plugins = discover(["mine", "single.py", "mine"], base_dir=str(tmp_path))
    assert {"alpha_score", "single"} <= set(plugins)
    with pytest.raises(EvoInputError, match="plugin_paths: 'nowhere' is not a folder or a .py file"):
        discover(["nowhere"], base_dir=str(tmp_path))


def test_a_plugin_file_can_import_a_helper_file_beside_it(tmp_path):
    write(tmp_path / "_evo_test_units.py", "SCALE = 3.0\n")
    write(
        tmp_path / "scaled.py",
        """
        from _evo_test_units import SCALE
        from evo.fitness import fitness_plugin

        @fitness_plugin("scaled")
        def scaled(result):
            \"\"\"Three.\"\"\"
            return SCALE
        """,
    )
    assert discover([str(tmp_path)])["scaled"].func(None) == 3.0
    assert str(tmp_path) not in sys.path


def test_loading_a_plugin_folder_writes_nothing_into_it(tmp_path, monkeypatch):
    """A config is checked before anything is written: not even a __pycache__ beside the user's plugins."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    write(tmp_path / "_evo_test_cached_helper.py", "SCALE = 2.0\n")
    write(
        tmp_path / "cached.py",
        """
        from _evo_test_cached_helper import SCALE
        from evo.fitness import fitness_plugin

        @fitness_plugin("cached")
        def cached(result):
            \"\"\"Two.\"\"\"
            return SCALE
        """,
    )
    before = sorted(p.name for p in tmp_path.iterdir())
    assert discover([str(tmp_path)])["cached"].func(None) == 2.0
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert sys.dont_write_bytecode is False


def test_two_plugins_in_one_file_may_not_share_a_name(tmp_path):
    path = write(
        tmp_path / "double.py", PLUGIN_SOURCE.format(name="double") + PLUGIN_SOURCE.format(name="double")
    )
    with pytest.raises(EvoInputError, match="double.py: declares two plugins named 'double'"):
        discover([str(path)])


def test_two_plugins_with_one_name_are_an_error_naming_both_origins(tmp_path):
    write(tmp_path / "a" / "one.py", PLUGIN_SOURCE.format(name="twin"))
    write(tmp_path / "b" / "two.py", PLUGIN_SOURCE.format(name="twin"))
    with pytest.raises(EvoInputError) as info:
        discover(["a", "b"], base_dir=str(tmp_path))
    message = str(info.value)
    assert "two plugins are named 'twin'" in message
    assert str(tmp_path / "a" / "one.py") in message and str(tmp_path / "b" / "two.py") in message


def test_a_user_plugin_may_not_reuse_a_shipped_name(tmp_path):
    write(tmp_path / "distance.py", PLUGIN_SOURCE.format(name="distance"))
    with pytest.raises(EvoInputError, match="two plugins are named 'distance'"):
        discover([str(tmp_path)])


@pytest.mark.parametrize(
    "source, expected",
    [
        ("def broken(:\n", "loading it raised SyntaxError"),
        ("import no_such_module_for_evo\n", "ModuleNotFoundError: No module named 'no_such_module_for_evo'"),
        (
            "from evo.fitness import fitness_plugin\n"
            "@fitness_plugin('x')\ndef x(result, k):\n    return 1.0\n",
            "fitness_plugin('x'): parameter 'k' needs a default",
        ),
        (
            "from evo.fitness import fitness_plugin\n@fitness_plugin('x', weights=(1.0, 0.0))\n"
            "def x(result):\n    return 1.0\n",
            "weights must be a non-empty tuple of finite non-zero numbers",
        ),
        (
            "from evo.fitness import fitness_plugin\n@fitness_plugin('x', record_every=0)\n"
            "def x(result):\n    return 1.0\n",
            "fitness_plugin('x'): record_every (frames): expected a number > 0, got 0",
        ),
        (
            "from evo.fitness import fitness_plugin\n"
            "@fitness_plugin('x', weights=(1.0, 1.0), objectives=('a',))\n"
            "def x(result):\n    return 1.0\n",
            "objectives must name each of the 2 weights",
        ),
        ("import sys\nsys.exit(0)\n", "loading it raised SystemExit: 0 (line 2)"),
        ("raise KeyboardInterrupt\n", "loading it raised KeyboardInterrupt (line 1)"),
        ("raise GeneratorExit('bye')\n", "loading it raised GeneratorExit: bye (line 1)"),
        (
            "x = 1\nraise ValueError('y' * 5000)\n",
            "... (4700 more characters) (line 2)",
        ),
    ],
)
def test_a_broken_plugin_file_is_a_one_line_error_naming_the_file(tmp_path, source, expected):
    path = write(tmp_path / "broken.py", source)
    with pytest.raises(EvoInputError) as info:
        discover([str(path)])
    message = str(info.value)
    assert message.startswith(str(path)) and expected in message and len(message) < 600
    assert "\n" not in message


def test_an_unknown_plugin_name_gets_the_closest_one_suggested():
    with pytest.raises(EvoInputError) as info:
        find_plugin("distanse", source="walkers.toml", field="[evaluation] plugin")
    assert (
        str(info.value)
        == "walkers.toml: [evaluation] plugin: unknown plugin 'distanse'; did you mean 'distance'?"
    )
    with pytest.raises(EvoInputError, match="known plugins: .*climb.*distance"):
        find_plugin("zzzzzz")


def test_entry_points_in_the_evo_fitness_group_are_discovered(tmp_path, monkeypatch):
    write(tmp_path / "evo_test_wobble.py", PLUGIN_SOURCE.format(name="wobble"))
    dist = tmp_path / "evo_test_wobble-1.0.dist-info"
    write(dist / "METADATA", "Metadata-Version: 2.1\nName: evo-test-wobble\nVersion: 1.0\n")
    write(dist / "entry_points.txt", "[evo.fitness]\nwobble = evo_test_wobble:score\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugin = discover()["wobble"]
    assert plugin.origin == "module:evo_test_wobble"
    assert load_ref(PluginRef("wobble", "module:evo_test_wobble")).params == {"k": 1.0}


def test_the_shipped_plugins_are_found_after_a_non_editable_install_from_another_folder(tmp_path):
    """What ``pip install .`` puts in site-packages (setup.py maps plugins/ to evo_plugins), run elsewhere."""
    source = tmp_path / "source"
    for name in ("setup.py", "pyproject.toml", "README.md"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    for folder in ("evo", "plugins"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "setup.py", "-q", "build", "--build-base", str(tmp_path / "build")],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    site = tmp_path / "build" / "lib"
    assert sorted(p.name for p in (site / "evo_plugins").glob("*.py")) == [f"{n}.py" for n in SHIPPED]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = subprocess.run(
        [sys.executable, "-m", "evo", "plugins"],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    origins = re.findall(r"from: file:(\S+)", listed.stdout)
    assert sorted(Path(o).name for o in origins) == [f"{n}.py" for n in SHIPPED]
    assert all(Path(o).parent == site / "evo_plugins" for o in origins), listed.stdout


def test_a_worker_resolves_a_plugin_from_its_reference_alone():
    """A fresh interpreter that never ran discovery loads the plugin from the reference's origin."""
    ref = discover([str(USER_PLUGINS)])["posture"].ref()
    code = (
        "from evo.fitness import PluginRef, load_ref\n"
        f"p = load_ref(PluginRef({ref.name!r}, {ref.origin!r}))\n"
        "print(p.name, p.objectives, p.params)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "posture ('height', 'sway') {'settle_frames': 50, 'noise': 0.0}"


def test_a_reference_to_a_missing_plugin_is_an_error():
    with pytest.raises(EvoInputError, match="no plugin named 'nope' in file:"):
        load_ref(PluginRef("nope", f"file:{ROOT / 'plugins' / 'distance.py'}"))
    with pytest.raises(EvoInputError, match="unknown origin"):
        load_ref(PluginRef("nope", "somewhere"))


def test_the_decorator_returns_the_function_unchanged():
    def score(result, *, k: int = 2):
        """Doc line.

        More.
        """
        return float(k)

    assert fitness_plugin("unregistered_for_test", record_every=4)(score) is score
    plugin = score.__fitness_plugin__
    assert plugin.doc == "Doc line." and plugin.params == {"k": 2} and plugin.record_every == 4.0


@pytest.mark.parametrize(
    "objectives, message",
    [
        (("dist", "links"), "objective name 'links' is taken: history.csv already has a column 'links_mean'"),
        (("masses", "dist"), "objective name 'masses' is taken"),
        (("dist", "dist"), "objectives must have distinct names"),
        (("dist", " "), "objectives must name each of the 2 weights"),
    ],
)
def test_objective_names_must_give_history_csv_distinct_columns(objectives, message):
    with pytest.raises(EvoInputError, match=re.escape(message)):
        fitness_plugin("two_for_test", weights=(1.0, -1.0), objectives=objectives)


# -- parameters ------------------------------------------------------------------------------------


def test_params_are_checked_against_the_signature_and_defaults_filled_in():
    posture = discover([str(USER_PLUGINS)])["posture"]
    assert check_params(posture, {"noise": 2}, source=None) == {"settle_frames": 50, "noise": 2.0}
    race = find_plugin("race")
    assert check_params(race, {}, source=None) == {"finish_x": 400.0, "penalty": 1.0}


@pytest.mark.parametrize(
    "params, message",
    [
        (
            {"setle_frames": 3},
            "c.toml: unknown key 'setle_frames' in [evaluation.params] (parameters of plugin 'posture'); "
            "did you mean 'settle_frames'?",
        ),
        ({"settle_frames": 2.5}, "c.toml: [evaluation.params] settle_frames: expected an integer, got 2.5"),
        (
            {"settle_frames": True},
            "[evaluation.params] settle_frames: expected an integer, got True (plugin 'posture')",
        ),
        (
            {"noise": "loud"},
            "[evaluation.params] noise: expected a finite number, got 'loud' (plugin 'posture')",
        ),
        (
            {"noise": math.inf},
            "[evaluation.params] noise: expected a finite number, got inf (plugin 'posture')",
        ),
    ],
)
def test_bad_params_are_one_line_errors_with_suggestions(params, message):
    posture = discover([str(USER_PLUGINS)])["posture"]
    with pytest.raises(EvoInputError) as info:
        check_params(posture, params, source="c.toml")
    assert message in str(info.value)


def test_the_type_of_an_unannotated_parameter_is_that_of_its_default(tmp_path):
    write(
        tmp_path / "loose.py",
        """
        from evo.fitness import fitness_plugin

        @fitness_plugin("loose")
        def loose(result, *, label="a", flag=False, sizes=(1, 2), anything=None):
            \"\"\"Loose.\"\"\"
            return 0.0
        """,
    )
    plugin = discover([str(tmp_path)])["loose"]
    assert check_params(plugin, {"sizes": [3], "anything": [1, "x"]}, source=None)["sizes"] == (3,)
    with pytest.raises(EvoInputError, match="label: expected a string"):
        check_params(plugin, {"label": 1}, source=None)
    with pytest.raises(EvoInputError, match="flag: expected true or false"):
        check_params(plugin, {"flag": 1}, source=None)


def test_the_plugin_guide_lists_every_attribute_of_result_model():
    import dataclasses
    import functools
    import re

    from evo.model import Creature

    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    table = text.split("`result.model` is the creature", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"`(\w+)`", "\n".join(line.split("|")[1] for line in table.splitlines()[2:])))
    public = {f.name for f in dataclasses.fields(Creature)}
    sizes = property | functools.cached_property
    public |= {name for name, value in vars(Creature).items() if isinstance(value, sizes)}
    public -= {"has_default_physics"}  # an implementation detail of the kernels' fast path
    assert documented == public
