"""The kernel and warm sections of evo bench: the minimal reference kernel is bit-identical to simulate,
and both kernels are timed on the same lanes; evo warm's report is read back."""

from __future__ import annotations

import argparse

import numpy as np

from evo.bench import batch, kernel, warm
from evo.bench.kernel import WALKERS_WORLD, kernel_case


def test_the_reference_kernel_matches_simulate_and_both_kernels_are_timed_on_the_same_lanes():
    creatures = batch.mixed({}, 10, np.random.default_rng(5))
    case = kernel_case(creatures, WALKERS_WORLD, 60, repeats=1)
    assert case["identical"] is True
    assert case["lanes"] == 10 and case["batched_ns"] > 0 and case["reference_ns"] > 0
    assert case["ratio_range"][0] <= case["ratio"] <= case["ratio_range"][1]


def test_the_kernel_section_reports_both_genomes():
    section = kernel.kernel_section(argparse.Namespace(repeats=1, kernel_frames=40, kernel_lanes=9))
    assert set(section.data["kernel"]) == {"walkers", "bench_config", "reducer"}
    assert section.data["kernel"]["reducer"]["same"] is True
    assert any(line.strip().startswith("walkers:") for line in section.lines)


def test_the_warm_section_reads_each_tasks_cpu_time(monkeypatch):
    def fake(workers=None, extra=()):
        return {
            "wall_s": 3.0,
            "cpu_s": 5.5,
            "tasks": {"breeding": 4.0, "the Euler kernel": 1.5},
            "critical_s": 4.0,
        }

    monkeypatch.setattr(warm, "cold_warm", fake)
    section = warm.warm_section(argparse.Namespace())
    assert section.data["warm"]["critical_s"] == 4.0
    assert any("breeding:    4.0 s CPU" in line for line in section.lines)
    # breeding waits for its two parts: the chain is theirs, the longer part's, then breeding's
    spent = {
        "breeding's crossover": 12.0,
        "breeding's mutation": 10.0,
        "breeding": 7.5,
        "the Euler kernel": 20.0,
    }
    assert warm.critical_path(spent) == 20.0 and warm.critical_path({**spent, "breeding": 8.5}) == 20.5
    assert warm.critical_path({}) == 0.0
    assert warm.READY.match("the Euler kernel in lanes: ready (8.8 s CPU)").groups() == (
        "the Euler kernel in lanes",
        "8.8",
    )
