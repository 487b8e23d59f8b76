"""What evo run says while it runs: the first compilation's notice, progress lines where no bar is drawn,
and ``evo warm``."""

from __future__ import annotations

import io
import time

from test_run_command import evo_run, write_config

from evo.cli import _common, _run_progress, main
from evo.cli._run_progress import ProgressLines


def _wait_for(capsys, text: str) -> str:
    """Standard error until it holds ``text`` (an event another thread brings; a minute at most)."""
    seen = ""
    deadline = time.monotonic() + 60
    while text not in seen and time.monotonic() < deadline:
        seen += capsys.readouterr().err
        time.sleep(0.01)
    return seen


def test_the_compiling_notice_comes_once_when_the_work_takes_long_and_never_when_it_is_quick(capsys):
    with _common.compiling_notice("run", after=60.0):
        pass
    assert capsys.readouterr().err == ""
    with _common.compiling_notice("simulate", after=0.0):
        seen = _wait_for(capsys, "compiling")
    assert seen == f"evo simulate: {_common.COMPILING}\n"
    assert _common.COMPILING.startswith("compiling the simulator: first run only, about 20 s")


def test_evo_run_compiles_before_the_first_generation_and_says_so_when_that_is_slow(
    tmp_path, capsys, monkeypatch
):
    import evo.cli.warm

    calls = []

    def slow_compile(world, genome, ga, say, spec=None):  # a compilation that lasts until the notice is out
        calls.append(world.integrator)
        calls.append(_wait_for(capsys, "compiling"))

    monkeypatch.setattr(evo.cli.warm, "warm_run", slow_compile)
    monkeypatch.setattr(_common, "NOTICE_AFTER", 0.5)  # not 5 s
    config = write_config(tmp_path / "c.toml", generations=1, population=4, frames=100)
    assert evo_run(config, "--out", tmp_path / "run") == 0
    assert calls == ["euler", f"evo run: {_common.COMPILING_RUN}\n"]
    assert _common.COMPILING_RUN.startswith("compiling the simulator and breeding: first run only")


def test_evo_run_says_where_it_is_on_a_standard_error_that_is_not_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_run_progress, "EVERY", 0.0)  # a line at every chance, not every 5 s
    config = write_config(tmp_path / "c.toml", generations=3, population=6, frames=100)
    assert evo_run(config, "--out", tmp_path / "run") == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if " done (" in line]
    assert [line.split(" (", 1)[0] for line in lines] == [
        "evo run: generation 0 done",
        "evo run: generation 1 done",
        "evo run: generation 2 done",
    ]
    assert all("of 3); distance best " in line and line.endswith(" s)") for line in lines)
    assert evo_run(config, "--out", tmp_path / "quiet", "--quiet") == 0
    assert capsys.readouterr().err == ""


def test_progress_lines_wait_their_interval():
    out = io.StringIO()
    lines = ProgressLines(every=3600.0, out=out)
    lines.started = lines.last = time.monotonic()  # as on_run_start sets them
    lines.on_generation_start(4, 10)
    lines.on_evaluated(3)
    assert out.getvalue() == ""
    lines.every = 0.0
    lines.on_evaluated(3)
    assert out.getvalue().startswith("evo run: generation 4 (5 of 0): 6 of 10 evaluations (")


def test_evo_warm_compiles_in_processes_what_a_run_calls_and_the_integrators_it_is_asked_for(capsys):
    assert main(["warm", "--integrator", "psm", "--workers", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    started = [line.removeprefix("compiling ") for line in out if line.startswith("compiling ")]
    ready = [line.split(": ready")[0] for line in out if ": ready (" in line]
    parts = ["breeding's crossover", "breeding's mutation"]
    expected = [  # the longest first: another integrator's kernel before the small tasks
        *parts,
        "breeding",
        "the Euler kernel in lanes",
        "the Euler kernel",
        "the PSM kernel",
        "the plugin seeds",
        "random creatures",
        "the hall of fame's likeness",
    ]
    assert started[:2] == parts and sorted(started) == sorted(expected) and sorted(ready) == sorted(expected)
    # the brood once both its parts are in the cache; the others in the order given as processes free up
    said = [line.split(" (")[0] for line in out]
    assert said.index("compiling breeding") > max(said.index(f"{part}: ready") for part in parts)
    rest = [name for name in started if name not in [*parts, "breeding"]]
    assert rest == [name for name in expected if name in rest]
    assert out[-1].startswith("ready in ") and "s CPU in 2 processes)" in out[-1]


def test_a_first_run_names_what_compiles_once_compiling_takes_a_second(capsys, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(_run_progress.time, "monotonic", lambda: now[0])
    say = _run_progress.FirstCompile()._say_when_slow()
    say("compiling breeding")
    say("compiling the Euler kernel")
    assert capsys.readouterr().err == ""  # a cache load says nothing
    now[0] += 4.0
    say("the Euler kernel: ready (3.9 s CPU)")
    assert capsys.readouterr().err.splitlines() == [
        "evo run: compiling breeding",
        "evo run: compiling the Euler kernel",
        "evo run: the Euler kernel: ready (3.9 s CPU)",
    ]


def test_a_first_run_compiles_its_plugin_s_reducer_ahead_with_the_rest(tmp_path, monkeypatch):
    import dataclasses

    import evo.cli.warm
    import evo.sim.warm
    from evo.fitness import load_ref
    from evo.fitness.reducers import _reduce_lanes, reducer_of
    from evo.ga.settings import GASection, GenomeSection
    from evo.run.config import load_config

    config = load_config(write_config(tmp_path / "c.toml", generations=1, population=4, frames=100))
    spec, asked = config.evaluation_spec(), []
    monkeypatch.setattr(evo.sim.warm, "in_cache", lambda task: False)  # (a cold cache)
    monkeypatch.setattr(evo.cli.warm, "compile_ahead", lambda tasks, **kwargs: asked.append(tasks) or "")
    evo.cli.warm.warm_run(spec.world, GenomeSection(), GASection(), spec=spec)
    names = [task.name for task in asked[-1]]
    assert "the plugin's compiled reducer" in names and "the hall of fame's likeness" in names
    task = asked[-1][names.index("the plugin's compiled reducer")]
    kernel = reducer_of(load_ref(spec.plugin)).kernel
    assert task.args == (spec,) and task.compiled() == (kernel, _reduce_lanes)
    # a run that asks for measures (MAP-Elites) scores in Python: nothing to compile, nothing to wait for
    assert evo.cli.warm._reducer_functions(dataclasses.replace(spec, measures=("speed",))) == ()
    # a plugin given as an object (the Python API) stays with the run: no reducer task
    unsendable = dataclasses.replace(spec, plugin=lambda: 0)
    evo.cli.warm.warm_run(spec.world, GenomeSection(), GASection(), spec=unsendable)
    assert "the plugin's compiled reducer" not in [task.name for task in asked[-1]]
