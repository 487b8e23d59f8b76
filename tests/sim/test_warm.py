"""Compiling ahead: compile tasks run in parallel processes, each after the tasks it loads, and a failing
task fails the whole; which kernels a world's runs call."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from evo.sim import World
from evo.sim.warm import CompileTask, compile_in_processes, in_cache, kernel_tasks


def note_pid(path: str) -> None:
    """A task: append this process's id to ``path``."""
    with open(path, "a", encoding="utf-8") as out:
        out.write(f"{os.getpid()}\n")


def fail() -> None:
    raise ValueError("this kernel does not compile")


def test_tasks_run_in_other_processes_each_after_the_ones_it_waits_for(tmp_path):
    said: list[str] = []
    log = str(tmp_path / "pids")
    tasks = [
        CompileTask("last", note_pid, (log,), after=("first", "second")),
        CompileTask("first", note_pid, (log,)),
        CompileTask("second", note_pid, (log,)),
    ]
    spent = compile_in_processes(tasks, workers=2, say=said.append)
    assert set(spent) == {"first", "second", "last"} and all(s >= 0.0 for s in spent.values())
    assert list(spent)[-1] == "last"
    first_ready = next(k for k, line in enumerate(said) if line.startswith("first: ready ("))
    assert said.index("compiling last") > max(first_ready, said.index("compiling second"))
    with open(log, encoding="utf-8") as pids_file:
        pids = pids_file.read().split()
    assert len(pids) == 3 and str(os.getpid()) not in pids


def test_a_failing_task_fails_the_whole_and_a_missing_one_is_named():
    with pytest.raises(ValueError, match="does not compile"):
        compile_in_processes([CompileTask("bad", fail)], workers=1)
    with pytest.raises(ValueError, match="wait for tasks that are not given"):
        compile_in_processes([CompileTask("orphan", fail, after=("nobody",))], workers=1)


def test_a_default_run_compiles_the_euler_fast_path_only_and_other_worlds_their_general_kernels():
    names = lambda tasks: [t.name for t in tasks]  # noqa: E731
    assert names(kernel_tasks(World())) == ["the Euler kernel", "the Euler kernel in lanes"]
    assert "the general explicit kernel in lanes" in names(kernel_tasks(World(), any_physics=True))
    assert names(kernel_tasks(World(integrator="psm"))) == ["the PSM kernel"]
    assert names(kernel_tasks(World(integrator="rk4"))) == [
        "the general explicit kernel",
        "the general explicit kernel in lanes",
    ]
    assert len(kernel_tasks(None)) == 6


def cached_function(index: dict):
    """A stand-in for a numba function whose cache index is ``index`` (empty: stale or missing)."""
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(_load_index=lambda: index)))


def test_a_task_is_in_the_cache_only_when_every_function_it_names_has_a_current_index():
    cached, stale = cached_function({"sig": "entry"}), cached_function({})
    assert in_cache(CompileTask("both", fail, compiled=lambda: (cached, cached)))
    assert not in_cache(CompileTask("one stale", fail, compiled=lambda: (cached, stale)))
    assert not in_cache(CompileTask("unnamed", fail))
    assert not in_cache(CompileTask("unreadable", fail, compiled=lambda: (object(),)))


def test_a_compile_process_ends_when_the_process_that_started_it_ends(tmp_path):
    import subprocess
    import sys
    import time

    code = (
        "import os, sys, time\n"
        "from evo.sim.warm import CompileTask, compile_in_processes\n"
        "def hang(path):\n"
        "    open(path, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n"
        "import __main__; __main__.hang = hang\n"
        f"compile_in_processes([CompileTask('hang', hang, ({str(tmp_path / 'pid')!r},))], workers=1)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code])
    pid_file = tmp_path / "pid"
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/{child}") and "Z" not in _state(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{child}") or "Z" in _state(child)


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().split(")")[-1].split()[0]
    except OSError:
        return "gone"


def cache_is_one_writer() -> None:
    """A task: fail unless numba's cache is read and written under the pool's lock in this process."""
    from numba.core.caching import IndexDataCacheFile

    if not (getattr(IndexDataCacheFile.save, "one_writer", False) and IndexDataCacheFile.load.one_writer):
        raise AssertionError("numba's cache is not read and written one process at a time")


def test_compile_processes_read_and_write_numbas_cache_one_at_a_time(monkeypatch):
    from numba.core.caching import IndexDataCacheFile

    from evo.sim import warm

    compile_in_processes([CompileTask("a", cache_is_one_writer), CompileTask("b", cache_is_one_writer)], 2)
    # in this process (put back at the end): an overload's index and data written, or read, under the lock
    monkeypatch.setattr(IndexDataCacheFile, "save", IndexDataCacheFile.save)
    monkeypatch.setattr(IndexDataCacheFile, "load", IndexDataCacheFile.load)
    events: list[str] = []

    class Lock:
        def acquire(self, timeout: float) -> bool:
            events.append("lock")
            return True

        def release(self) -> None:
            events.append("unlock")

    warm._one_cache_writer(Lock())
    warm._one_cache_writer(Lock())  # once: a second call wraps nothing again
    cache = SimpleNamespace(
        _load_index=lambda: events.append("index read") or {},
        _data_name=lambda i: f"f.{i}",
        _save_index=lambda overloads: events.append(f"index written {overloads}"),
        _save_data=lambda name, data: events.append(f"{name} written"),
        _load_data=lambda name: events.append(f"{name} read"),
    )
    IndexDataCacheFile.save(cache, "key", b"code")
    assert events == ["lock", "index read", "index written {'key': 'f.1'}", "f.1 written", "unlock"]
    events.clear()
    cache._load_index = lambda: events.append("index read") or {"key": "f.1"}
    IndexDataCacheFile.load(cache, "key")
    assert events == ["lock", "index read", "f.1 read", "unlock"]


def test_every_kernel_in_lanes_is_warmed_with_the_lanes_cut_and_packed_from_laid_out_creatures():
    """A lanes task runs the kernel from creatures and from a Laid (a run's children come laid out), so
    the Laid's two kernels are compiled with it; the task names them for the cache check."""
    from evo.sim.kernels import laid
    from evo.sim.warm import KERNELS, _kernel_functions, warm_kernel

    in_lanes = [name for name, (_, _, lanes) in KERNELS.items() if lanes]
    assert len(in_lanes) == 2
    for name in in_lanes:
        warm_kernel(name)
        assert laid.first_alike in _kernel_functions(name)
    assert laid.first_alike.signatures and laid.pack_rows.signatures
    assert laid.pack_rows in _kernel_functions("the Euler kernel in lanes")
