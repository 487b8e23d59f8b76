"""``evo run``, ``evo inspect`` and ``evo simulate --plugin`` end to end, on tiny runs."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from evo.cli import main
from evo.io.checkpoint.disk import read_checkpoint_document

ROOT = Path(__file__).resolve().parents[2]

PLUGINS = '''
import time

from evo.fitness import fitness_plugin

_calls = 0


@fitness_plugin("slow_distance", weights=(1.0,), record_every=10)
def slow_distance(result, *, pause: float = 0.0) -> float:
    """Centroid x displacement (px) over the whole run, after sleeping `pause` seconds."""
    time.sleep(pause)
    x = result.centroids[:, 0]
    return float(x[-1] - x[0])


@fitness_plugin("flaky", weights=(1.0,), record_every=10)
def flaky(result, *, fail_at: int = 0) -> float:
    """Final centroid x (px); raises ZeroDivisionError on call number `fail_at` of its process."""
    global _calls
    _calls += 1
    if _calls == fail_at:
        return 1 / 0
    return float(result.centroids[-1, 0])
'''


def write_config(
    path: Path,
    *,
    name: str = "tiny",
    generations: int = 4,
    population: int = 8,
    frames: int = 300,
    plugin: str = "distance",
    params: dict | None = None,
    world: dict | None = None,
    workers: int = 1,
    extra: str = "",
    plugin_paths: tuple[str, ...] = ("plugins.py",),
    checkpoint_interval: float | None = None,
) -> Path:
    """A small config; user plugins (slow_distance, flaky) are in plugins.py beside it."""
    (path.parent / "plugins.py").write_text(PLUGINS)
    lines = [
        "[run]", f'name = "{name}"', "seed = 3", f"generations = {generations}", f"population = {population}",
        *([] if checkpoint_interval is None else [f"checkpoint_interval = {checkpoint_interval}"]),
        "[evaluation]", f"frames = {frames}", f'plugin = "{plugin}"',
        f"plugin_paths = {json.dumps(list(plugin_paths))}",
        "[evaluation.params]", *(f"{k} = {json.dumps(v)}" for k, v in (params or {}).items()),
        "[world]", *(f"{k} = {json.dumps(v)}" for k, v in (world or {}).items()),
        "[pool]", f"workers = {workers}",
        extra,
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """checkpoint.json, history.csv, every elite file and every generation's best, by name."""
    files = {name: (folder / name).read_bytes() for name in ("checkpoint.npz", "history.csv")}
    for sub in ("elites", "generations"):
        for path in sorted((folder / sub).glob("*.json")):
            files[f"{sub}/{path.name}"] = path.read_bytes()
    return files


def evo_run(*args: str) -> int:
    return main(["run", *map(str, args)])


def test_a_tiny_run_writes_its_whole_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    config = write_config(tmp_path / "tiny.toml", generations=3)
    assert evo_run(config) == 0
    folder = tmp_path / "runs" / "tiny"
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("runs/tiny: 3 generations; best distance")
    rows = (folder / "history.csv").read_text().splitlines()
    assert rows[0].split(",") == [
        "generation", "evaluations", "distance_best", "distance_mean", "distance_std", "distance_min",
        "masses_mean", "links_mean", "exploded",
    ]  # fmt: skip
    assert [r.split(",")[0] for r in rows[1:]] == ["0", "1", "2"]
    checkpoint = read_checkpoint_document(folder)
    assert checkpoint["generation"] == 2 and len(checkpoint["population"]) == 8
    assert {"rng", "hall_of_fame", "logbook"} <= set(checkpoint)
    assert "seed = 3" in (folder / "config.toml").read_text()
    elites = sorted((folder / "elites").glob("*.json"))
    assert elites and all(re.fullmatch(r"\d\d_gen\d{4}_[0-9a-f]{6}\.json", p.name) for p in elites)
    metas = [json.loads(p.read_text())["meta"] for p in elites]
    fitness = [m["fitness"][0] for m in metas]
    assert fitness == sorted(fitness, reverse=True)
    assert set(metas[0]) >= {
        "fitness", "objectives", "generation", "plugin", "params", "frames", "seed", "parents", "run",
    }  # fmt: skip
    assert metas[0]["objectives"] == ["distance"] and metas[0]["frames"] == 300 and metas[0]["run"] == "tiny"
    assert "generation 2:" in (folder / "run.log").read_text()
    bests = sorted(p.name for p in (folder / "generations").glob("*.json"))
    assert bests == ["gen0000.json", "gen0001.json", "gen0002.json"]
    best_fitness = [json.loads((folder / "generations" / b).read_text())["meta"]["fitness"][0] for b in bests]
    generation_best = [float(r.split(",")[2]) for r in rows[1:]]
    assert best_fitness == pytest.approx(generation_best, rel=1e-12)  # the best of each generation's row


def test_an_elites_fitness_is_reproduced_exactly_by_simulate_with_its_plugin(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", plugin="slow_distance", world={"gravity": 0.4}, generations=2)
    assert evo_run(config, "--out", tmp_path / "run", "--quiet") == 0
    elites = sorted((tmp_path / "run" / "elites").glob("*.json"))[:3]
    for path in elites:
        capsys.readouterr()
        assert main(["simulate", str(path), "--plugin", "slow_distance", "--json"]) == 0
        summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert summary["fitness"] == json.loads(path.read_text())["meta"]["fitness"]
        assert summary["frames"] == 300


def test_one_and_two_workers_write_identical_histories_and_elites(tmp_path):
    config = write_config(tmp_path / "c.toml", generations=3, population=10)
    assert evo_run(config, "--out", tmp_path / "one", "--workers", "1", "--quiet") == 0
    assert evo_run(config, "--out", tmp_path / "two", "--workers", "2", "--quiet") == 0
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "two")
    log = (tmp_path / "two" / "run.log").read_text()
    # a shipped plugin: two threads of the run process (tests/run/test_fork_pool.py: forked workers)
    assert "evaluating with 2 worker(s)" in log and "kernel calls on 2 threads" in log
    assert "evo.run.backends: worker" not in log  # no worker process


def _wait_for_checkpoint(folder: Path, generation: int, proc: subprocess.Popen, timeout: float = 60.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        done = (read_checkpoint_document(folder) or {"generation": -1})["generation"]
        if done >= generation:
            return done
        time.sleep(0.01)
    raise AssertionError("no checkpoint in time")


def _wait_for_report(folder: Path, generation: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """Wait until run.log reports ``generation`` as finished (checkpointed or not: [run]
    checkpoint_interval)."""
    log = folder / "run.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        text = log.read_text() if log.exists() else ""
        if f"generation {generation}: " in text:
            return
        time.sleep(0.01)
    raise AssertionError("no report in time")


def _alive(pid: str) -> bool:
    """Whether a process runs (a zombie waiting to be reaped does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return not re.search(r"(?m)^State:\s+[ZX]", status)


def _signal_after_report(config: Path, folder: Path, generation: int, how: int) -> tuple[int, str]:
    """Start ``evo run CONFIG --out FOLDER`` in a subprocess, send it ``how`` once ``generation`` is
    reported in run.log, and return its exit status and standard error."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "evo", "run", str(config), "--out", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=config.parent,
    )
    try:
        _wait_for_report(folder, generation, proc)
        proc.send_signal(how)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, err


@pytest.mark.parametrize(
    "how", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=["kill-9", "ctrl-c", "sigterm"]
)
def test_a_run_stopped_in_the_middle_resumes_to_the_same_files_as_an_uninterrupted_one(tmp_path, how):
    config = write_config(
        tmp_path / "c.toml", plugin="slow_distance", params={"pause": 0.02}, generations=7, workers=2
    )
    stopped = tmp_path / "stopped"
    returncode, err = _signal_after_report(config, stopped, 2, how)  # the default checkpoint_interval
    checkpoint = read_checkpoint_document(stopped)
    assert checkpoint["generation"] < 6, "the run ended before it could be stopped"
    if how != signal.SIGKILL:  # stopped after the generation under way, which is checkpointed
        assert checkpoint["generation"] >= 2
    if how in (signal.SIGINT, signal.SIGTERM):
        assert returncode == 128 + how  # 130 for Ctrl-C, 143 for SIGTERM
        assert "stopped after generation" in err and "Traceback" not in err
    else:
        assert returncode == -signal.SIGKILL
        workers = re.findall(r"worker (\d+) started", (stopped / "run.log").read_text())
        time.sleep(0.5)
        assert workers and not [pid for pid in workers if _alive(pid)], "orphaned workers"
    assert evo_run(config, "--out", stopped, "--resume", "--quiet") == 0
    assert evo_run(config, "--out", tmp_path / "straight", "--quiet") == 0
    assert snapshot(stopped) == snapshot(tmp_path / "straight")


def test_resuming_with_more_generations_continues_as_if_it_had_been_asked_for_from_the_start(tmp_path):
    short = write_config(tmp_path / "short.toml", generations=2)
    long = write_config(tmp_path / "long.toml", generations=4)
    assert evo_run(short, "--out", tmp_path / "a", "--quiet") == 0
    assert evo_run(long, "--out", tmp_path / "a", "--resume", "--quiet") == 0
    assert evo_run(long, "--out", tmp_path / "b", "--quiet") == 0
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    assert evo_run(long, "--out", tmp_path / "a", "--resume", "--quiet") == 0  # nothing left to do


def test_a_plugin_that_raises_stops_the_run_cleanly_and_keeps_the_last_checkpoint(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", plugin="flaky", params={"fail_at": 12})
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    line = PLUGINS.splitlines().index("        return 1 / 0") + 1
    assert (
        f"{tmp_path / 'plugins.py'}:{line}: plugin 'flaky' raised ZeroDivisionError: division by zero" in err
    )
    assert "the last checkpoint (generation 0) is intact" in err
    assert read_checkpoint_document(folder)["generation"] == 0
    (failed,) = (folder / "failed").glob("*.json")
    assert failed.name.startswith("gen0001_") and str(failed) in err
    meta = json.loads(failed.read_text())["meta"]
    assert (
        meta["plugin"] == "flaky"
        and "ZeroDivisionError" in meta["error"]
        and meta["params"] == {"fail_at": 12}
    )
    trace = f'File "{tmp_path / "plugins.py"}", line {line}, in flaky\n    return 1 / 0\n'
    assert trace in meta["traceback"] and meta["traceback"].startswith("Traceback (most recent call last)")
    log = (folder / "run.log").read_text()
    assert "ZeroDivisionError" in log and trace in log


def test_a_plugin_that_raises_in_a_worker_stops_the_run_without_hanging(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", plugin="flaky", params={"fail_at": 2}, workers=2)
    assert evo_run(config, "--out", tmp_path / "run", "--quiet") == 1
    err = capsys.readouterr().err
    assert "plugin 'flaky' raised ZeroDivisionError" in err
    assert "no generation was finished, so there is no checkpoint" in err and "generation -1" not in err
    (failed,) = (tmp_path / "run" / "failed").glob("gen0000_*.json")
    assert "in flaky\n    return 1 / 0\n" in json.loads(failed.read_text())["meta"]["traceback"]
    assert not (tmp_path / "run" / "checkpoint.npz").exists()


def test_a_two_objective_plugin_runs_with_nsga2_end_to_end(tmp_path, capsys):
    user_plugins = str(ROOT / "tests" / "fixtures" / "user_plugins")
    config = write_config(  # with noise from result.rng, which simulate must seed as the run did
        tmp_path / "c.toml",
        plugin="posture",
        plugin_paths=(user_plugins,),
        params={"noise": 0.5},
        generations=3,
        population=10,
    )
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder) == 0
    assert "; best height " in capsys.readouterr().out
    rows = (folder / "history.csv").read_text().splitlines()
    assert rows[0].split(",") == [
        "generation", "evaluations",
        "height_best", "height_mean", "height_std", "height_min",
        "sway_best", "sway_mean", "sway_std", "sway_min",
        "masses_mean", "links_mean", "exploded",
    ]  # fmt: skip
    assert len(rows) == 4
    for row in rows[1:]:
        cells = dict(zip(rows[0].split(","), map(float, row.split(",")), strict=True))
        assert cells["height_best"] >= cells["height_mean"] and cells["sway_best"] == cells["sway_min"]
    checkpoint = read_checkpoint_document(folder)
    assert checkpoint["objectives"] == ["height", "sway"] and checkpoint["weights"] == [1.0, -1.0]
    assert len(checkpoint["population"]) == 10
    elites = sorted((folder / "elites").glob("*.json"))
    metas = [json.loads(p.read_text())["meta"] for p in elites]
    assert all(m["objectives"] == ["height", "sway"] and len(m["fitness"]) == 2 for m in metas)
    # best first: DEAP compares weighted values lexicographically (height up, then sway down)
    keys = [(-m["fitness"][0], m["fitness"][1]) for m in metas]
    assert keys == sorted(keys)
    capsys.readouterr()
    assert main(["simulate", str(elites[0]), "--plugin", "posture", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["fitness"] == metas[0]["fitness"]


def test_exploding_creatures_get_the_worst_fitness_and_are_counted(tmp_path):
    config = write_config(
        tmp_path / "c.toml", world={"stiffness": 0.7, "max_speed": 50.0}, population=12, generations=2
    )
    assert evo_run(config, "--out", tmp_path / "run", "--quiet") == 0
    rows = [line.split(",") for line in (tmp_path / "run" / "history.csv").read_text().splitlines()]
    exploded = [int(row[-1]) for row in rows[1:]]
    assert sum(exploded) > 0 and exploded[0] < 12
    population = read_checkpoint_document(tmp_path / "run")["population"]
    assert any(ind["exploded"] and ind["fitness"] == ["-inf"] for ind in population)
    assert all(float(row[2]) > float("-inf") for row in rows[1:])  # statistics over finite values only


@pytest.mark.parametrize(
    "setup, args, message",
    [
        ("typo", [], "unknown key 'populaton' in [run]; did you mean 'population'?"),
        ("plugin", [], "unknown plugin 'distanse'; did you mean 'distance'?"),
        ("seed_model", [], "c.toml: [genome] seed_models: "),
        ("none", ["--resume"], "no checkpoint to resume from"),
        ("none", ["--workers", "0"], "--workers must be at least 1"),
    ],
)
def test_bad_input_is_one_line_with_status_2_and_creates_nothing(
    tmp_path, monkeypatch, capsys, setup, args, message
):
    monkeypatch.chdir(tmp_path)
    config = write_config(tmp_path / "c.toml")
    text = config.read_text()
    if setup == "typo":
        text = text.replace("population =", "populaton =")
    elif setup == "plugin":
        text = text.replace('plugin = "distance"', 'plugin = "distanse"')
    elif setup == "seed_model":
        text += '[genome]\nseed_models = ["missing.json"]\n'
    config.write_text(text)
    assert evo_run(config, *args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def test_an_existing_run_is_never_overwritten_without_force_and_resume_checks_the_config(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=2)
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder, "--quiet") == 0
    before = snapshot(folder)
    checkpoint = (folder / "checkpoint.npz").read_bytes()
    capsys.readouterr()
    assert evo_run(config, "--out", folder) == 2
    assert (
        "already holds a run; use --resume to continue it or --force to start over" in capsys.readouterr().err
    )
    changed = write_config(tmp_path / "c2.toml", generations=3, population=9)
    assert evo_run(changed, "--out", folder, "--resume") == 2
    assert "[run] population differ(s) from the run's config.toml" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        evo_run(config, "--out", folder, "--resume", "--force")
    assert exit_.value.code == 2
    assert snapshot(folder) == before and (folder / "checkpoint.npz").read_bytes() == checkpoint
    assert evo_run(changed, "--out", folder, "--force", "--quiet") == 0
    assert read_checkpoint_document(folder)["generation"] == 2


def test_a_folder_of_unrelated_files_is_refused_without_suggesting_resume(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=2)
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "cat.jpg").write_bytes(b"not a run")
    assert evo_run(config, "--out", folder) == 2
    err = capsys.readouterr().err
    assert "files that are not an evo run; choose a new or an empty folder" in err and "--resume" not in err
    assert [p.name for p in folder.iterdir()] == ["cat.jpg"]


def test_validate_summarises_the_ground_and_max_speed_of_a_config(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=2)
    text = config.read_text().replace(
        "[world]\n", '[world]\nground = {type = "hills", amplitude = 20, wavelength = 400}\n'
    )
    config.write_text(text.replace("max_speed = ", "# max_speed = "))
    assert main(["validate", str(config)]) == 0
    out = capsys.readouterr().out
    assert "ground hills (amplitude 20.0, wavelength 400.0)" in out and "no max_speed" in out


def test_inspect_prints_the_leaderboard_best_first(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=2)
    assert evo_run(config, "--out", tmp_path / "run", "--quiet") == 0
    capsys.readouterr()
    assert main(["inspect", str(tmp_path / "run")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:8] == [
        "rank",
        "distance",
        "gen",
        "masses",
        "links",
        "muscles",
        "ω",
        "(rad/frame)",
    ]
    files = sorted(p.name for p in (tmp_path / "run" / "elites").glob("*.json"))
    assert [line.split()[-1] for line in lines[2:]] == files
    assert main(["inspect", str(tmp_path / "run"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["rank"] for r in rows] == list(range(1, len(files) + 1))
    assert main(["inspect", str(tmp_path / "nowhere")]) == 2


def test_the_shipped_example_evolves_better_walkers(tmp_path):
    text = (ROOT / "examples" / "walkers.toml").read_text()
    text = re.sub(r"(?m)^generations = \d+", "generations = 6", text)
    text = re.sub(r"(?m)^population = \d+", "population = 30", text)
    config = tmp_path / "walkers.toml"
    config.write_text(text)
    assert evo_run(config, "--out", tmp_path / "run", "--workers", "2", "--quiet") == 0
    rows = (tmp_path / "run" / "history.csv").read_text().splitlines()
    best = [float(row.split(",")[2]) for row in rows[1:]]
    assert len(best) == 6 and best == sorted(best) and best[-1] > best[0]


def test_no_progress_bar_is_drawn_when_stdout_is_not_a_terminal(tmp_path):
    config = write_config(tmp_path / "c.toml", generations=2)
    done = subprocess.run(
        [sys.executable, "-m", "evo", "run", str(config), "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.count("\n") == 1


def test_a_progress_bar_with_best_and_mean_is_drawn_on_a_terminal(tmp_path):
    config = write_config(tmp_path / "c.toml", generations=2)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # rows, columns
    proc = subprocess.Popen(
        [sys.executable, "-m", "evo", "run", str(config), "--out", str(tmp_path / "run")],
        stdin=follower,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    out = b""
    with contextlib.suppress(OSError):  # EIO once the process has closed the terminal
        while chunk := os.read(leader, 4096):
            out += chunk
    os.close(leader)
    assert proc.wait(timeout=60) == 0
    text = out.decode()
    assert "2/2 [" in text and "gen/s" in text and "best " in text and " mean " in text, text


def test_ctrl_c_in_the_last_generation_completes_the_run_and_still_exits_130(tmp_path):
    config = write_config(
        tmp_path / "c.toml", plugin="slow_distance", params={"pause": 0.02}, generations=2, workers=1
    )
    folder = tmp_path / "run"
    returncode, err = _signal_after_report(config, folder, 0, signal.SIGINT)
    assert returncode == 130
    assert "Traceback" not in err
    assert read_checkpoint_document(folder)["generation"] == 1


ODD = '''
from evo import fitness_plugin


class Odd(BaseException):
    """A BaseException of the plugin's own (its class cannot be pickled by reference)."""


@fitness_plugin("odd", weights=(1.0,), record_every=10)
def odd(result, *, what: str = "odd") -> float:
    """Fails on every creature, as `what` says."""
    if what == "odd":
        raise Odd("strange")
    if what == "generator-exit":
        raise GeneratorExit
    if what == "keyboard":
        raise KeyboardInterrupt
    if what in ("meta", "world"):
        try:  # a plugin that keeps going when the model it is handed turns out read-only
            if what == "meta":
                result.model.meta["k"] = 1
            else:
                result.model.world["gravity"] = 3.0
        except TypeError:
            pass
        return float(result.centroids[-1, 0])
    return 10**400
'''


@pytest.mark.parametrize(
    "what, says",
    [
        ("odd", "raised Odd: strange"),
        ("generator-exit", "raised GeneratorExit"),
        ("keyboard", "raised KeyboardInterrupt"),
        ("huge", "expected a number that fits a float (OverflowError)"),
    ],
)
@pytest.mark.parametrize("workers", [1, 2])
def test_a_plugin_that_raises_a_base_exception_or_returns_10_to_the_400_fails_the_run_in_one_line(
    tmp_path, capsys, what, says, workers
):
    (tmp_path / "odd.py").write_text(ODD)
    config = write_config(
        tmp_path / "c.toml", plugin="odd", params={"what": what}, workers=workers, plugin_paths=("odd.py",)
    )
    assert evo_run(config, "--out", tmp_path / "run", "--quiet") == 1  # not 130: no Ctrl-C was pressed
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("evo run: error: generation 0, creature g0-") and "plugin 'odd' " in line
    assert says in line and "Pickl" not in line


@pytest.mark.parametrize("what", ["meta", "world"])
def test_what_a_plugin_does_to_the_model_it_is_handed_never_reaches_the_saved_models(tmp_path, capsys, what):
    (tmp_path / "odd.py").write_text(ODD)
    config = write_config(tmp_path / "c.toml", plugin="odd", params={"what": what}, plugin_paths=("odd.py",))
    assert evo_run(config, "--out", tmp_path / "run", "--quiet") == 0
    checkpoint = read_checkpoint_document(tmp_path / "run")
    models = [ind["model"] for ind in checkpoint["population"] + checkpoint["hall_of_fame"]]
    assert models and all("k" not in m.get("meta", {}) for m in models)
    assert all(m.get("world", {}).get("gravity") != 3.0 for m in models)
