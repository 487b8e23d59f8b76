"""The fork pool's pipes and its sharing: each worker fed through its own pipe, and the calling process
one of the workers (running the last chunk of each batch and those no worker has started), with the
same results, progress and errors."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from backend_jobs import (
    evaluate_payload,
    fails_on,
    slow_in_a_worker,
    unpicklable_on_the_third,
    where_evaluated,
)
from test_checkpoint_interval import files

import evo
from evo.ga.settings import GASection, GenomeSection
from evo.run.backends import EvaluationFailed, ForkPool, InProcess, Task
from evo.run.config import parse_config, resolve
from evo.run.evolve import run_prepared
from evo.run.folder.writer import FolderWriter, prepare
from evo.run.job import BreedContext, parent_may_evaluate


def chunked(tasks: list[Task], chunks: int, weight: int = 1) -> list[Task]:
    """The tasks with chunk ids: ``chunks`` runs of consecutive tasks."""
    size = -(-len(tasks) // chunks)
    return [Task(t.index, t.payload, weight, t.index // size) for t in tasks]


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_a_shared_pool_gives_the_in_process_results_running_chunks_here_and_in_one_forked_worker(
    spec, tasks, chunks
):
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)
    with ForkPool(where_evaluated, spec, workers=2, share=True) as pool:
        assert pool.share
        for _ in range(2):  # the pool is used again, as by each generation
            done = pool.run(chunked(tasks, chunks))
            assert [evaluation for _, evaluation in done] == expected
            pids = [pid for pid, _ in done]
            assert pids[-1] == os.getpid()  # the last chunk is this process's
            assert len(set(pids)) <= 2  # this process and one forked worker


def test_chunks_the_forked_worker_has_not_started_are_run_here_latest_first(spec, tasks):
    """Chunk 0 goes to the one forked worker, the others wait for a free worker; this process runs chunk
    3, then 2, then 1, while the worker is still on chunk 0 (0.3 s a task there)."""
    with ForkPool(slow_in_a_worker, (spec, os.getpid()), workers=2, share=True) as pool:
        done = pool.run(chunked(tasks[:8], 4))
    here = [pid == os.getpid() for pid, _ in done]
    assert here == [False, False, True, True, True, True, True, True]


def test_tasks_without_chunk_ids_are_cut_by_size_and_the_last_cut_is_run_here(spec, tasks):
    with ForkPool(where_evaluated, spec, workers=2, chunksize=4, share=True) as pool:
        done = pool.run(tasks)
    assert [pid for pid, _ in done][12:] == [os.getpid()]  # 13 tasks: the last chunk holds one


def test_progress_counts_every_task_once_and_says_when_the_work_is_out(spec, tasks):
    seen: list[int] = []
    with ForkPool(evaluate_payload, spec, workers=2, share=True) as pool:
        pool.run(iter(chunked(tasks, 3, weight=2)), seen.append, expected=len(tasks))
    assert sum(seen) == 2 * len(tasks) and seen.count(0) == 1


def test_the_caller_s_own_work_beside_runs_before_this_process_s_chunk_while_the_workers_work(spec, tasks):
    """A ``progress`` with a ``beside`` attribute (the run's generation before's bookkeeping) has it
    called once, before this process runs its own chunk, not after."""
    import time

    import backend_jobs

    calls: list[float] = []

    def progress(weight: int) -> None:
        pass

    progress.beside = lambda: calls.append(time.monotonic())  # type: ignore[attr-defined]
    backend_jobs.STARTED_HERE.clear()
    with ForkPool(backend_jobs.parent_timed, spec, workers=2, share=True) as pool:
        done = pool.run(chunked(tasks, 2), progress)
    assert len(done) == len(tasks) and len(calls) == 1 and backend_jobs.STARTED_HERE
    assert calls[0] < min(backend_jobs.STARTED_HERE)


@pytest.mark.parametrize(
    ("failing", "reported"),
    [
        ({1012}, 12),  # in the last chunk only: this process's own
        ({1001, 1012}, 1),  # in a forked worker's chunk too: the first in task order
        ({1001}, 1),  # in a forked worker's chunk only
    ],
)
def test_the_first_failing_task_in_order_is_reported_whoever_ran_it(spec, tasks, failing, reported):
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks[2:10])
    with ForkPool(fails_on, (spec, failing), workers=2, share=True) as pool:
        with pytest.raises(EvaluationFailed) as caught:
            pool.run(chunked(tasks, 3))
        assert caught.value.index == reported and f"seed {1000 + reported}" in caught.value.message
        assert pool.run(chunked(tasks[2:10], 2)) == expected  # the pool runs on after a failure


def test_one_worker_or_sharing_not_asked_forks_every_worker(spec, tasks):
    with ForkPool(where_evaluated, spec, workers=2) as pool:
        assert not pool.share
        assert os.getpid() not in {pid for pid, _ in pool.run(chunked(tasks, 2))}
    with ForkPool(where_evaluated, spec, workers=1, share=True) as pool:
        assert not pool.share  # one worker: the fork backend's one process is a forked one


def test_the_run_process_shares_only_evo_s_own_code(spec, tmp_path):
    context = BreedContext(spec, GenomeSection(), GASection())
    assert spec.plugin.origin.startswith("file:") and parent_may_evaluate(context)  # a shipped plugin
    assert parent_may_evaluate(dataclasses.replace(context, timeout=60.0))  # the in-process timer
    users = dataclasses.replace(spec.plugin, origin=f"file:{tmp_path / 'distance.py'}")
    assert not parent_may_evaluate(dataclasses.replace(context, spec=dataclasses.replace(spec, plugin=users)))
    module = dataclasses.replace(spec.plugin, origin="module:my_plugins")
    context = dataclasses.replace(context, spec=dataclasses.replace(spec, plugin=module))
    assert not parent_may_evaluate(context)
    assert not parent_may_evaluate(dataclasses.replace(context, evaluate=lambda *args: None))


def run_log(
    tmp_path, plugin: str, plugin_paths: list[str], workers: int, backend: str | None = "fork", population=24
) -> tuple[str, dict]:
    """A small run's run.log and its files but config.toml and the log (by path); ``backend`` None: the
    default for the run."""
    doc = {
        "run": {"name": "share", "seed": 3, "generations": 3, "population": population},
        "evaluation": {
            "frames": 300,
            "plugin": plugin,
            "plugin_paths": plugin_paths,
            "params": {"settle_frames": 0},
        },
        "pool": {"workers": workers} | ({"backend": backend} if backend else {}),
    }
    config = resolve(parse_config(doc, source="<share>"))
    folder = tmp_path / f"{plugin}-{workers}-{backend}"
    prepared = prepare(config, out=folder)
    run_prepared(prepared, [FolderWriter(prepared)])
    return (folder / "run.log").read_text(), files(folder)


def users_distance(tmp_path) -> Path:
    """The shipped ``distance`` plugin copied as the user's own file, ``my_distance`` (not evo's code)."""
    copy = tmp_path / "mine.py"
    text = (Path(evo.__file__).parents[1] / "plugins" / "distance.py").read_text()
    copy.write_text(text.replace('@fitness_plugin("distance"', '@fitness_plugin("my_distance"'))
    return copy


def test_a_run_of_a_shipped_plugin_forks_one_worker_fewer_and_leaves_the_same_folder(tmp_path):
    shared, files = run_log(tmp_path, "distance", [], workers=2)
    assert f"process {os.getpid()} evaluates a share beside 1 forked worker(s)" in shared
    assert files == run_log(tmp_path, "distance", [], workers=1)[1]
    copy = users_distance(tmp_path)  # the same plugin as the user's own file: every worker forked
    forked, _ = run_log(tmp_path, "my_distance", [str(copy)], workers=2)
    assert "evaluates a share" not in forked and "pool: 2 worker(s)" in forked


def test_a_result_that_cannot_be_pickled_fails_its_chunk_as_data_and_the_worker_lives_on(spec, tasks):
    with ForkPool(unpicklable_on_the_third, spec, workers=2, chunksize=2) as pool:
        with pytest.raises(EvaluationFailed) as caught:
            pool.run(tasks[:6])
        assert caught.value.index == 2 and "pickle" in caught.value.message.lower()
        with InProcess(evaluate_payload, spec) as local:
            assert pool.run(tasks[3:9]) == local.run(tasks[3:9])


def test_a_stopped_batch_leaves_no_answer_behind_for_the_next(spec, tasks):
    """A batch left while a worker still runs a chunk (the caller's progress raised): that worker is
    replaced before the next batch, whose results are its own."""
    with InProcess(evaluate_payload, spec) as local:
        expected = local.run(tasks)

    def stop(count: int) -> None:
        if count == 0:
            raise KeyboardInterrupt

    with ForkPool(evaluate_payload, spec, workers=2, chunksize=2) as pool:
        with pytest.raises(KeyboardInterrupt):
            pool.run(tasks, stop)
        assert pool.run(tasks) == expected


def test_a_closed_pool_refuses_more_work(spec, tasks):
    with ForkPool(evaluate_payload, spec, workers=2, share=True) as pool:
        pool.run(tasks[:2])
    with pytest.raises(RuntimeError, match="closed"):
        pool.run(tasks[:2])


def test_a_pool_never_closed_does_not_keep_the_interpreter_from_exiting(tmp_path):
    """Its workers ignore SIGTERM, all that multiprocessing's exit handler sends: the pool ends them."""
    script = tmp_path / "unclosed.py"
    script.write_text(
        "from evo.run.backends import ForkPool, Task\n"
        "def double(payload, context):\n"
        "    return 2 * payload\n"
        "pool = ForkPool(double, None, workers=2)\n"
        "print(pool.run([Task(i, i) for i in range(5)]))\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[0, 2, 4, 6, 8]", done.stderr
