"""The ``batch`` section of ``evo bench``: it runs with tiny arguments and returns its fields.

No timing is asserted: timings belong to ``python -m evo bench``, not to the tests.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scripted_clock import scripted_time

from evo import bench
from evo.bench import batch as bench_batch
from evo.bench import evolution
from evo.io.models import load_model
from evo.run.config import parse_config
from evo.sim import World

ROOT = Path(__file__).resolve().parents[2]


def test_the_batch_section_reports_scalar_and_batched_rates_for_both_creatures_and_integrators(monkeypatch):
    # a cold numba compile takes tens of seconds: the probe itself is tested below
    monkeypatch.setattr(bench_batch, "_probe_first_call", lambda cache_dir: {"euler": 2.0, "rk4": 3.0})
    args = argparse.Namespace(repeats=1, frames=20, batch_size=8, generation_size=12)
    section = bench_batch.batch_section(args)
    data = json.loads(json.dumps(section.data))["batch"]
    assert [(row["creature"], row["integrator"]) for row in data["rows"]] == [
        (name, integrator)
        for integrator in ("euler", "rk4")
        for name in (
            "walker", "standard 60x200", "mixed walkers", "mixed bench", "walkers' generation",
            "bench generation",
        )
    ]  # fmt: skip
    assert [(row["masses"], row["links"]) for row in data["rows"][:2]] == [(6, 11), (60, 200)]
    mixed_bench = data["rows"][3]
    assert 18 <= mixed_bench["masses"] <= 22 and mixed_bench["links"] > mixed_bench["masses"]
    assert [row["creatures"] for row in data["rows"]] == [8, 8, 8, 8, 12, 12] * 2
    for row in data["rows"]:
        assert row["bit_identical"]
        assert row["scalar_spring_updates_per_s"] > 0 and row["batch_spring_updates_per_s"] > 0
    assert data["compile_s"] == {"cold": {"euler": 2.0, "rk4": 3.0}, "cached": {"euler": 2.0, "rk4": 3.0}}
    assert "batch/scalar" in "\n".join(section.lines)
    assert bench.SECTIONS["batch"] == "evo.bench.batch:batch_section"


def test_a_case_reports_spring_updates_per_second_of_its_fastest_and_its_median_repeat(monkeypatch):
    walker = load_model(ROOT / "genomes" / "walker.json")
    creatures = bench_batch.mutants(walker, 4, np.random.default_rng(1))
    world = World.from_model(walker)
    # interleaved: scalar, batch, scalar, batch, scalar, batch (s)
    monkeypatch.setattr(bench_batch, "time", scripted_time([4.0, 1.0, 2.0, 0.5, 8.0, 2.0]))
    row = bench_batch._case("walker", creatures, world, 20, repeats=3)
    updates = 11 * 20 * 4  # links x frames x creatures
    assert row["scalar_spring_updates_per_s"] == updates / 2.0  # the fastest repeat
    assert row["scalar_median_spring_updates_per_s"] == updates / 4.0
    assert row["batch_spring_updates_per_s"] == updates / 0.5
    assert row["batch_median_spring_updates_per_s"] == updates / 1.0
    assert row["ratio"] == 4.0


def test_the_batch_compile_probe_runs_in_a_fresh_interpreter():
    # on numba's usual (warm) cache, so that this stays quick; the bench itself uses an empty folder
    times = bench_batch._probe_first_call(None)
    assert set(times) == {"euler", "rk4"} and all(0.0 < t < 120.0 for t in times.values())


def test_the_mixed_populations_are_of_many_topologies_and_the_bench_one_has_the_evolution_genome():
    creatures = bench_batch.mixed({}, 12, np.random.default_rng(1))
    assert len({(c.n_masses, c.n_links, c.link_a.tobytes()) for c in creatures}) > 6
    section = bench_batch.mixed(bench_batch.BENCH_GENOME, 1, np.random.default_rng(1))[0]
    assert 18 <= section.n_masses <= 22
    doc = {"run": {"name": "bench"}, "genome": bench_batch.BENCH_GENOME}
    assert parse_config(doc, source="<bench>").genome == evolution.bench_config().genome


def test_the_bench_mutants_keep_the_topology_and_differ():
    walker = load_model(bench_batch.WALKER)
    children = bench_batch.mutants(walker, 4, np.random.default_rng(0))
    assert all(
        np.array_equal(c.link_a, walker.link_a) and np.array_equal(c.link_b, walker.link_b) for c in children
    )
    assert len({c.omega for c in children}) == 4
