"""The ``dask`` bench section: a LocalCluster against the fork pool, on tiny runs."""

from __future__ import annotations

import argparse
import json

import pytest

pytest.importorskip("distributed")

from evo.bench import cluster  # noqa: E402


def test_the_dask_section_times_dask_against_fork_and_the_cost_of_starting_the_cluster():
    section = cluster.dask_section(argparse.Namespace(repeats=1, population=8, frames=300, generations=3))
    text = "\n".join(section.lines)
    assert "x fork" in text and "cluster start" in text
    fields = json.loads(json.dumps(section.data))["dask"]
    assert fields["fork_two_workers_per_s"] > 0 and fields["dask_two_workers_per_s"] > 0
    assert fields["dask_vs_fork"] == pytest.approx(
        fields["dask_two_workers_per_s"] / fields["fork_two_workers_per_s"]
    )
    assert 0 < fields["cluster_start_s"] < fields["first_generation_dask_s"] + 60
    assert fields["worker_setup_s"] > 0
