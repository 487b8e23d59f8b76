"""One evaluation: simulate, hand the result to the plugin, check what comes back."""

from __future__ import annotations

import math
import pickle
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from evo.fitness import discover, find_plugin
from evo.fitness.evaluate import Evaluation, EvaluationSpec, PluginFailed, evaluate, worst_fitness
from evo.io.models import load_model
from evo.sim import World, simulate

ROOT = Path(__file__).resolve().parents[2]
USER_PLUGINS = ROOT / "tests" / "fixtures" / "user_plugins"
FAULTY = USER_PLUGINS / "faulty"


@pytest.fixture(scope="module")
def walker():
    return load_model(ROOT / "genomes" / "walker.json")


def spec_for(name: str, paths=(), frames: int = 600, world: World | None = None, **params) -> EvaluationSpec:
    plugin = discover([str(p) for p in paths])[name]
    return EvaluationSpec(world or World(), frames, plugin.ref(), {**plugin.params, **params})


def test_distance_matches_the_trajectory_recorded_by_the_simulator(walker):
    spec = spec_for("distance", settle_frames=100)
    trajectory = simulate(walker, World(), 600, record_every=10)
    x = trajectory.centroids[:, 0]
    assert evaluate(walker, spec, seed=1) == Evaluation((float(x[-1] - x[10]),), False)


def test_the_plugin_sees_records_at_its_own_record_every(walker, tmp_path):
    (tmp_path / "probe.py").write_text(
        textwrap.dedent(
            """
            from evo.fitness import fitness_plugin

            @fitness_plugin("probe", weights=(1.0, 1.0, 1.0), record_every=7)
            def probe(result):
                \"\"\"Record spacing, record count and the masses of the model.\"\"\"
                assert result.positions.shape == result.velocities.shape == (len(result.frames), 6, 2)
                assert result.world.gravity == 0.3 and result.seed == 11 and not result.exploded
                return result.frames[1] - result.frames[0], len(result.frames), result.model.n_masses
            """
        )
    )
    spec = spec_for("probe", [tmp_path], frames=700, world=World(gravity=0.3))
    assert evaluate(walker, spec, seed=11).fitness == (7.0, 101.0, 6.0)


def test_the_seed_drives_the_result_rng_and_nothing_else(walker):
    noisy = spec_for("posture", [USER_PLUGINS], noise=1.0)
    first = evaluate(walker, noisy, seed=3)
    assert evaluate(walker, noisy, seed=3) == first
    assert evaluate(walker, noisy, seed=4).fitness[0] != first.fitness[0]
    assert evaluate(walker, noisy, seed=4).fitness[1] == first.fitness[1]
    quiet = spec_for("posture", [USER_PLUGINS])
    assert evaluate(walker, quiet, seed=3) == evaluate(walker, quiet, seed=4)


def test_an_exploded_creature_gets_the_worst_fitness_without_calling_the_plugin(walker):
    world = World(max_speed=1e-6)
    raising = spec_for("divides", [FAULTY], world=world)
    assert evaluate(walker, raising, seed=1) == Evaluation((-math.inf,), True)
    two = spec_for("posture", [USER_PLUGINS], world=world)
    assert evaluate(walker, two, seed=1) == Evaluation((-math.inf, math.inf), True)
    assert worst_fitness((2.0, -0.5, 1.0)) == (-math.inf, math.inf, -math.inf)


def test_a_plugin_that_raises_becomes_plugin_failed_with_one_line(walker):
    with pytest.raises(PluginFailed) as info:
        evaluate(walker, spec_for("divides", [FAULTY]), seed=1)
    assert info.value.plugin == "divides"
    assert info.value.message == (
        "tests/fixtures/user_plugins/faulty/divides.py:9: "
        "plugin 'divides' raised ZeroDivisionError: float division by zero"
    )
    assert str(info.value) == info.value.message
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    trace = info.value.traceback
    assert trace.startswith("Traceback (most recent call last):\n")
    assert f'File "{FAULTY / "divides.py"}", line 9, in divides' in trace
    assert "evo/fitness/evaluate.py" not in trace  # from the plugin on
    assert trace.endswith("ZeroDivisionError: float division by zero\n")


def test_a_plugin_that_calls_sys_exit_fails_like_one_that_raises(walker, tmp_path):
    (tmp_path / "quits.py").write_text(
        textwrap.dedent(
            """
            import sys

            from evo.fitness import fitness_plugin

            @fitness_plugin("quits")
            def quits(result):
                \"\"\"Leaves the process.\"\"\"
                sys.exit(3)
            """
        )
    )
    with pytest.raises(PluginFailed) as info:
        evaluate(walker, spec_for("quits", [tmp_path / "quits.py"]), seed=1)
    assert info.value.message == f"{tmp_path / 'quits.py'}:9: plugin 'quits' raised SystemExit: 3"


def test_plugin_failed_survives_pickling_so_a_worker_can_send_it_back():
    sent = PluginFailed("race", "plugin 'race' raised KeyError: 'x'", "Traceback ...\nKeyError: 'x'\n")
    error = pickle.loads(pickle.dumps(sent))
    assert (error.plugin, error.message, str(error), error.traceback) == (
        "race",
        "plugin 'race' raised KeyError: 'x'",
        error.message,
        sent.traceback,
    )


RAISERS = '''
from evo import fitness_plugin


class Weird(BaseException):
    pass


class Mute(Exception):
    def __str__(self):
        raise ValueError("no words")


@fitness_plugin("raiser", weights=(1.0,))
def raiser(result, *, what: str = "generator-exit"):
    """Raises, or returns, what it is told to."""
    if what == "generator-exit":
        raise GeneratorExit
    if what == "weird":
        raise Weird("odd")
    if what == "keyboard":
        raise KeyboardInterrupt
    if what == "mute":
        raise Mute()
    if what == "long":
        raise ValueError("x" * 2_000_000)
    if what == "huge":
        return 10**400
    if what == "meta":
        result.model.meta["k"] = 1
    if what == "world":
        result.model.world["gravity"] = 3.0
    if what == "nested":
        result.model.meta["lineage"].append(1)
    return 1.0
'''


@pytest.mark.parametrize(
    "what, ending",
    [
        ("generator-exit", "raised GeneratorExit"),
        ("weird", "raised Weird: odd"),
        ("keyboard", "raised KeyboardInterrupt"),  # not Ctrl-C: no signal came
        ("mute", "raised Mute: <its message could not be made: str() raised ValueError>"),
        ("huge", "returned 1000000000000000000000000000000000000... for 'raiser'; expected a number that "
         "fits a float (OverflowError)"),
    ],
)  # fmt: skip
def test_whatever_a_plugin_raises_or_returns_is_one_line_naming_the_plugin(walker, tmp_path, what, ending):
    (tmp_path / "raiser.py").write_text(RAISERS)
    with pytest.raises(PluginFailed) as info:
        evaluate(walker, spec_for("raiser", [tmp_path / "raiser.py"], what=what), seed=1)
    message = info.value.message
    assert "\n" not in message and "plugin 'raiser' " in message and message.endswith(ending)
    assert pickle.loads(pickle.dumps(info.value)).message == message  # a worker can send it back


def test_a_two_megabyte_message_is_cut_in_the_line_and_whole_in_the_traceback(walker, tmp_path):
    (tmp_path / "raiser.py").write_text(RAISERS)
    with pytest.raises(PluginFailed) as info:
        evaluate(walker, spec_for("raiser", [tmp_path / "raiser.py"], what="long"), seed=1)
    assert len(info.value.message) < 500
    assert info.value.message.endswith("... (1999700 more characters)")
    assert "x" * 2_000_000 in info.value.traceback


SLOW = '''
import os
import signal

from evo import fitness_plugin


@fitness_plugin("slow")
def slow(result):
    """Gets a real Ctrl-C while it runs."""
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(10**7):
        pass
    return 1.0
'''


def test_a_real_interrupt_during_a_plugin_is_not_taken_for_its_failure(walker, tmp_path):
    (tmp_path / "slow.py").write_text(SLOW)
    # Ctrl-C as an interactive Python has it: a test process started in the background by a
    # non-interactive shell (`pytest ... &`) inherits SIGINT ignored, and Python then leaves it ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            evaluate(walker, spec_for("slow", [tmp_path / "slow.py"]), seed=1)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not isinstance(info.value, PluginFailed)


@pytest.mark.parametrize("what", ["meta", "world", "nested"])
def test_a_plugin_cannot_change_the_creature_the_run_keeps(walker, tmp_path, what):
    (tmp_path / "raiser.py").write_text(RAISERS)
    creature = walker.replace(meta={"lineage": [0]}, world={"gravity": 0.5})
    with pytest.raises(PluginFailed, match="TypeError|AttributeError"):
        evaluate(creature, spec_for("raiser", [tmp_path / "raiser.py"], what=what), seed=1)
    assert creature.meta == {"lineage": [0]} and creature.world == {"gravity": 0.5}


@pytest.mark.parametrize(
    "kind, message",
    [
        (
            "single",
            "plugin 'answers' returned 1 value(s); expected a tuple of 2 numbers (objectives answers_0, ",
        ),
        ("triple", "plugin 'answers' returned 3 value(s); expected a tuple of 2 numbers"),
        ("text", "plugin 'answers' returned 'fast' (str) for 'answers_0'; expected a number"),
        ("nan", "plugin 'answers' returned NaN for 'answers_0'"),
    ],
)
def test_a_plugin_that_returns_something_else_than_its_objectives_fails_clearly(walker, kind, message):
    with pytest.raises(PluginFailed) as info:
        evaluate(walker, spec_for("answers", [FAULTY], kind=kind), seed=1)
    assert message in info.value.message and "\n" not in info.value.message
    assert evaluate(walker, spec_for("answers", [FAULTY]), seed=1).fitness == (1.0, 2.0)


def test_numpy_numbers_and_one_tuples_are_accepted():
    from evo.fitness.evaluate import fitness_values

    distance = find_plugin("distance")
    assert fitness_values(distance, np.float32(2.5)) == (2.5,)
    assert fitness_values(distance, (np.int64(3),)) == (3.0,)
    assert fitness_values(distance, np.array([4.0])) == (4.0,)
    assert fitness_values(distance, -math.inf) == (-math.inf,)
    with pytest.raises(PluginFailed, match="returned True"):
        fitness_values(distance, True)


def test_the_spec_is_plain_data_that_evaluates_identically_in_another_process(walker):
    spec = spec_for("posture", [USER_PLUGINS], noise=0.5)
    payload = pickle.dumps((spec, str(ROOT / "genomes" / "walker.json")))
    assert b"posture.py" in payload and b"func" not in payload
    code = (
        "import pickle, sys\n"
        "from evo.fitness.evaluate import evaluate\n"
        "from evo.io.models import load_model\n"
        "spec, path = pickle.loads(sys.stdin.buffer.read())\n"
        "sys.stdout.write(repr(evaluate(load_model(path), spec, seed=5).fitness))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, check=True).stdout
    assert out.decode() == repr(evaluate(walker, spec, seed=5).fitness)
