"""The ``dask`` bench section: a LocalCluster against the fork pool, on tiny runs."""

from __future__ import annotations

import argparse
import json
import logging

from evo.bench import cluster


def test_the_dask_section_times_dask_against_fork_and_the_cost_of_starting_the_cluster():
    section = cluster.dask_section(argparse.Namespace(repeats=1, population=8, frames=300, generations=3))
    text = "\n".join(section.lines)
    assert "x fork" in text and "cluster start" in text
    fields = json.loads(json.dumps(section.data))["dask"]
    assert fields["fork_two_workers_per_s"] > 0 and fields["dask_two_workers_per_s"] > 0
    assert 0 < fields["cluster_start_s"] < fields["first_generation_dask_s"] + 60
    assert fields["worker_setup_s"] > 0


def test_the_dask_section_takes_the_fastest_repeat_of_each_generation_and_the_first_startup(monkeypatch):
    logger = logging.getLogger("evo.run.backends")
    # (evaluations, wall s, CPU s) of each generation after the first, per repeat
    later = {
        "fork": iter([[(8, 0.5, 0.1), (8, 0.25, 0.1)], [(8, 0.375, 0.1), (8, 0.5, 0.1)]]),
        "dask": iter([[(8, 1.0, 0.1), (8, 2.0, 0.1)], [(8, 2.0, 0.1), (8, 1.0, 0.1)]]),
    }
    firsts = {"fork": iter([3.0, 2.5]), "dask": iter([6.0, 7.0])}

    def timed(config, folder):
        backend = "dask" if config.pool.backend == "dask" else "fork"
        if backend == "dask":
            logger.info("cluster ready", extra={"dask_startup": {"cluster": 1.5, "setup": 0.5}})
        return next(firsts[backend]), next(later[backend])

    monkeypatch.setattr(cluster, "timed_generations", timed)
    section = cluster.dask_section(argparse.Namespace(repeats=2, population=8, frames=300, generations=3))
    fields = section.data["dask"]
    assert fields["fork_two_workers_per_s"] == 16 / (0.375 + 0.25)  # the fastest repeat of each generation
    assert fields["dask_two_workers_per_s"] == 16 / 2.0
    assert fields["dask_vs_fork"] == (16 / 2.0) / (16 / 0.625)
    assert (fields["first_generation_fork_s"], fields["first_generation_dask_s"]) == (2.5, 6.0)
    assert (fields["cluster_start_s"], fields["worker_setup_s"]) == (1.5, 0.5)
    assert "= 0.31 x fork" in "\n".join(section.lines)
