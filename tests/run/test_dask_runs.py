"""Whole runs on dask (a LocalCluster, and a real scheduler with worker processes): the same files as the
local pools, through a killed worker, a killed scheduler and a resume on another backend."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from dask_cluster import ExternalCluster  # .[test] installs dask: without it these tests fail

import evo
from evo.errors import EvoInputError
from evo.fitness import registry
from evo.io.checkpoint.document import model_json
from evo.run.backends import InProcess, Task
from evo.run.backends.dask_pool import DaskPool
from evo.run.callbacks import Callback
from evo.run.job import BreedContext, breed_and_evaluate, setup_worker, with_plugin_files

ROOT = Path(__file__).resolve().parents[2]

# a plugin file that imports a helper beside it, as plugin files may
SPRINT = '''
import time

from sprint_helper import doubled

from evo.fitness import fitness_plugin


@fitness_plugin("sprint", weights=(1.0,), record_every=10)
def sprint(result, *, pause: float = 0.0, fail_every: int = 0) -> float:
    """Twice the centroid's x displacement (px); sleeps `pause` s; raises for every seed divisible by
    `fail_every` (when it is not 0)."""
    time.sleep(pause)
    if fail_every and result.seed % fail_every == 0:
        raise ZeroDivisionError("the seed was unlucky")
    x = result.centroids[:, 0]
    return doubled(float(x[-1] - x[0]))
'''
HELPER = "def doubled(x):\n    return 2.0 * x\n"

# a plugin that workers started with EVO_TEST_NO_PLUGIN cannot import
GUARDED = '''
import os

from evo.fitness import fitness_plugin

if os.environ.get("EVO_TEST_NO_PLUGIN"):
    import evo_test_module_that_is_not_installed  # noqa: F401


@fitness_plugin("guarded", weights=(1.0,), record_every=10)
def guarded(result, *, pause: float = 0.0) -> float:
    """Final centroid x (px)."""
    return float(result.centroids[-1, 0])
'''

SNAPSHOT = ("checkpoint.npz", "history.csv")


def write_config(folder: Path, *, generations: int = 4, plugin: str = "sprint", params: dict | None = None,
                 pool: str = "") -> Path:  # fmt: skip
    """A tiny run scored by a plugin from a user folder (``plugins/`` beside the config); each evaluation
    sleeps 10 ms, so that a generation lasts long enough to be interrupted."""
    plugins = folder / "plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    (plugins / "sprint.py").write_text(SPRINT)
    (plugins / "sprint_helper.py").write_text(HELPER)
    (plugins / "guarded.py").write_text(GUARDED)
    params = {"pause": 0.01, **(params or {})}
    lines = [
        "[run]", 'name = "tiny"', "seed = 7", f"generations = {generations}", "population = 12",
        "[evaluation]", "frames = 300", f'plugin = "{plugin}"', 'plugin_paths = ["plugins"]',
        "[evaluation.params]", *(f"{k} = {json.dumps(v)}" for k, v in params.items()),
        "[world]", "max_speed = 50.0",
        "[pool]", "workers = 2", pool,
    ]  # fmt: skip
    path = folder / "tiny.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """checkpoint.json, history.csv and the elites, by name."""
    files = {name: (folder / name).read_bytes() for name in SNAPSHOT}
    for path in sorted((folder / "elites").glob("*.json")):
        files[f"elites/{path.name}"] = path.read_bytes()
    return files


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTERED", {})
    monkeypatch.setattr(registry, "_REFS", {})


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two nanny-managed workers (which refuse the ``guarded`` plugin), for the module."""
    cluster = ExternalCluster(tmp_path_factory.mktemp("cluster"), env={"EVO_TEST_NO_PLUGIN": "1"})
    yield cluster
    cluster.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    """The tiny run in-process: (its config, its files)."""
    folder = tmp_path_factory.mktemp("reference")
    config = write_config(folder)
    evo.evolve(config, out=folder / "run", workers=1, progress=False)
    return config, snapshot(folder / "run")


class _CtrlC(Callback):
    """Sends SIGINT, as a Ctrl-C in a terminal does, to the new child processes (the local cluster's
    workers) when generation ``at`` starts; ``forked``: whether they were forked from this process (its
    command line, not a spawned interpreter's)."""

    def __init__(self, at: int):
        self.at = at
        self.before = {p.pid for p in psutil.Process().children(recursive=True)}
        self.workers: list[psutil.Process] = []
        self.forked = False

    def on_generation_start(self, generation: int, evaluations: int) -> None:
        if generation == self.at:
            children = psutil.Process().children(recursive=True)
            new = [p for p in children if p.pid not in self.before]
            me = psutil.Process()
            self.workers = [p for p in new if p.ppid() == me.pid]
            self.forked = all(p.cmdline() == me.cmdline() for p in self.workers)
            for process in self.workers:
                process.send_signal(signal.SIGINT)


def test_in_process_fork_local_dask_and_a_dask_cluster_write_the_same_files(reference, cluster, tmp_path):
    config, expected = reference
    fork = evo.evolve(config, out=tmp_path / "fork", workers=2, backend="fork", progress=False)
    ctrl_c = _CtrlC(at=2)
    local = evo.evolve(config, out=tmp_path / "local", workers=2, backend="dask", callbacks=[ctrl_c],
                       progress=False)  # fmt: skip
    # the local cluster's two workers, forked from this process, ignored the Ctrl-C, and went with the run
    assert len(ctrl_c.workers) == 2 and ctrl_c.forked
    assert not any(p.is_running() for p in ctrl_c.workers)
    # each worker's records reach run.log once: with its results, not also through the run log's handler
    # it was forked with (a worker the scheduler gave no task, as a loaded machine's may, sends none)
    local_log = (tmp_path / "local" / "run.log").read_text().splitlines()
    warm = [int(line.split()[2]) for line in local_log if "plugin 'sprint' loaded and kernels warm" in line]
    assert warm and len(warm) == len(set(warm)) and set(warm) <= {p.pid for p in ctrl_c.workers}, warm
    remote = evo.evolve(config, out=tmp_path / "remote", address=cluster.address, progress=False)
    for result in (fork, local, remote):
        assert snapshot(result.folder) == expected
    assert 'backend = "dask"' in (tmp_path / "local" / "config.toml").read_text()
    assert f'address = "{cluster.address}"' in (tmp_path / "remote" / "config.toml").read_text()
    log = (tmp_path / "remote" / "run.log").read_text()
    # the workers' own records reach run.log, with their process ids
    worker_pids = set(cluster.worker_pids().values())
    lines = [line for line in log.splitlines() if "plugin 'sprint' loaded and kernels warm" in line]
    assert len(lines) == 2 and {int(line.split()[2]) for line in lines} == worker_pids


class _WaitForTheStart(Callback):
    """Once generation ``at`` is told, waits (up to a minute) for the local cluster's start, which runs on
    a thread of this process meanwhile, to end: the next batches then go to its worker."""

    def __init__(self, at: int):
        self.at = at

    def on_generation_told(self, status) -> None:
        if status.generation == self.at:
            deadline = time.monotonic() + 60
            while any(t.name == "evo-dask-start" for t in threading.enumerate()):
                assert time.monotonic() < deadline, "the local dask cluster never finished starting"
                time.sleep(0.01)


def test_a_local_cluster_with_a_shipped_plugin_starts_while_the_run_goes_on_and_writes_the_same_files(
    tmp_path, monkeypatch
):
    lines = [
        "[run]", 'name = "tiny"', "seed = 7", "generations = 8", "population = 12",
        "[evaluation]", "frames = 300", 'plugin = "distance"', "[world]", "max_speed = 50.0",
    ]  # fmt: skip
    config = tmp_path / "tiny.toml"
    config.write_text("\n".join(lines) + "\n")
    sent: dict[str, int] = {}
    close = DaskPool.close

    def noting(pool: DaskPool) -> None:  # what the pool sent to its worker, read as the run ends
        sent.update(pool.sent)
        close(pool)

    monkeypatch.setattr(DaskPool, "close", noting)
    alone = evo.evolve(config, out=tmp_path / "alone", workers=1, progress=False)
    local = evo.evolve(config, out=tmp_path / "local", workers=2, backend="dask", progress=False,
                       callbacks=[_WaitForTheStart(at=2)])  # fmt: skip
    assert snapshot(local.folder) == snapshot(alone.folder)
    log = (tmp_path / "local" / "run.log").read_text()
    ran = re.search(r"takes chunks from the next batch on \(this process ran (\d+) alone", log)
    assert ran is not None and int(ran.group(1)) == 1, log  # generation 0 (in a batch: it starts the cluster)
    # then from arrays, by this process alone while the cluster starts (generations 1 and 2 at least: the
    # callback waits for the start after 2), then with the worker's chunk runner, 4 at least
    alone = log.count("selected, bred and evaluated from arrays in this process")
    made = log.count("selected, bred and evaluated by this process and the dask workers")
    assert alone >= 2 and made >= 4 and alone + made == 7 and sent == {"runner": 0, "task": 0}, log


class _KillAWorker(Callback):
    """SIGKILLs one worker process once the first chunk of generation ``at`` has come back."""

    def __init__(self, pid: int, at: int):
        self.pid, self.at, self.generation, self.killed = pid, at, -1, False

    def on_generation_start(self, generation: int, evaluations: int) -> None:
        self.generation = generation

    def on_evaluated(self, count: int) -> None:
        if self.generation == self.at and not self.killed:
            os.kill(self.pid, signal.SIGKILL)
            self.killed = True


def test_a_worker_killed_during_a_generation_changes_nothing(reference, cluster, tmp_path):
    config, expected = reference
    pid = min(cluster.worker_pids().values())
    killer = _KillAWorker(pid, at=2)
    # chunks of one brood, each evaluation 10 ms: the killed worker is busy with one of them
    slow = evo.Config.from_toml(config).replace(pool={"chunksize": 1})
    result = evo.evolve(
        slow, out=tmp_path / "run", address=cluster.address, callbacks=[killer], progress=False
    )
    assert killer.killed and result.generation == 3
    assert snapshot(tmp_path / "run") == expected
    cluster.wait_for_workers(2)  # its nanny started it again, for the other tests


def test_a_run_started_on_fork_resumes_on_a_dask_cluster_with_the_same_files(reference, cluster, tmp_path):
    config, expected = reference
    half = evo.Config.from_toml(config).replace(run={"generations": 2})
    evo.evolve(half, out=tmp_path / "run", workers=2, progress=False)
    evo.evolve(config, out=tmp_path / "run", address=cluster.address, resume=True, progress=False)
    assert snapshot(tmp_path / "run") == expected


def test_a_plugin_file_reaches_workers_that_cannot_see_it(cluster, tmp_path):
    config = evo.Config.from_toml(write_config(tmp_path / "a"))
    broods = evo.Evolution(config.loop_settings()).ask().broods
    tasks = [Task(i, brood, brood.evaluations) for i, brood in enumerate(broods)]
    context = BreedContext(config.evaluation_spec(), config.genome, config.ga)
    with InProcess(breed_and_evaluate, context) as local:
        expected = local.run(tasks)
    shipped = with_plugin_files(context)
    (tmp_path / "a").rename(tmp_path / "b")  # the plugin's folder is gone from where the workers would look
    with DaskPool(breed_and_evaluate, shipped, 2, address=cluster.address, worker_setup=setup_worker) as pool:
        results = pool.run(tasks)
    assert _as_text(results) == _as_text(expected)


def _as_text(results) -> list:
    """Children as model JSON with their evaluations (creatures hold arrays: compare their text)."""
    return [[(r.creature and model_json(r.creature), r.evaluation) for r in kids] for kids in results]


def test_a_plugin_the_workers_cannot_import_is_one_line_naming_the_plugin_and_the_worker(cluster, tmp_path):
    config = write_config(tmp_path, plugin="guarded")
    with pytest.raises(evo.RunFailed) as caught:
        evo.evolve(config, out=tmp_path / "run", address=cluster.address, progress=False)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("generation 0: dask worker tcp://127.0.0.1:")
    assert "cannot load plugin 'guarded'" in message and str(tmp_path / "plugins" / "guarded.py") in message
    assert "No module named 'evo_test_module_that_is_not_installed'" in message
    assert not (tmp_path / "run" / "checkpoint.npz").exists()


def test_a_plugin_that_raises_on_dask_is_reported_and_saved_as_on_the_fork_pool(cluster, tmp_path):
    config = write_config(tmp_path, params={"fail_every": 5})
    messages, failed = [], []
    for name, options in (("fork", {"backend": "fork"}), ("dask", {"address": cluster.address})):
        with pytest.raises(evo.RunFailed) as caught:
            evo.evolve(config, out=tmp_path / name, progress=False, **options)
        messages.append(str(caught.value).replace(str(tmp_path / name), "RUN"))
        failed.append({p.name: p.read_bytes() for p in (tmp_path / name / "failed").iterdir()})
    assert messages[0] == messages[1] and "ZeroDivisionError: the seed was unlucky" in messages[0]
    assert failed[0] == failed[1] and len(failed[0]) == 1


def test_a_function_defined_in_main_is_refused_on_dask_in_one_line(tmp_path):
    def height(result) -> float:
        return float(result.centroids[-1, 1])

    height.__module__ = "__main__"
    height.__qualname__ = "height"
    with pytest.raises(EvoInputError, match="put it in an importable module") as caught:
        evo.evolve(write_config(tmp_path), fitness=height, backend="dask", progress=False)
    assert "\n" not in str(caught.value) and "'height'" in str(caught.value)
    assert not (tmp_path / "runs").exists()


def test_a_killed_scheduler_stops_evo_run_in_one_line_and_the_run_resumes_on_fork(reference, tmp_path):
    config, expected = reference
    cluster = ExternalCluster(tmp_path / "cluster", workers=1, nanny=False)
    out = tmp_path / "run"
    try:
        command = [sys.executable, "-m", "evo", "run", str(config), "--out", str(out), "--quiet",
                   "--dask", cluster.address]  # fmt: skip
        run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not (out / "checkpoint.npz").is_file():
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read()
            time.sleep(0.02)
        cluster.kill_scheduler()
        _, stderr = run.communicate(timeout=60)
    finally:
        cluster.close()
    assert run.returncode == 1
    errors = [line for line in stderr.splitlines() if line.startswith("evo run:")]
    assert len(errors) == 1 and "lost the connection to the dask scheduler at " + cluster.address in errors[0]
    assert "the last checkpoint (generation" in errors[0]
    # what `evo run CONFIG --out RUN --resume --workers 2` does, on the fork pool
    evo.evolve(config, out=out, resume=True, workers=2, progress=False)
    assert snapshot(out) == expected
