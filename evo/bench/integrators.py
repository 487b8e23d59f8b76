"""``python -m evo bench --integrators``: which integrator to choose, with numbers (a benchmark, not a test).

Every integrator's throughput on the 20-mass bench creature, and its energy error on seed 003's double
spring at equal steps and at equal wall time. What is measured and how: docs/performance.md
("Integrators"); the results: docs/integrators.md."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import numpy as np

from evo.bench import Section, best_time
from evo.model import Creature
from evo.sim import World, simulate
from evo.sim.world import INTEGRATORS

__all__ = ["double_spring", "double_spring_energy", "integrator_rows", "integrator_lines", "main"]

SEED_STEP = 1.0 / 24.0  # time units
SEED_STEPS = 5000
PSM_ORDER = 9
LIFT = 10.0  # the seed's system moved up, clear of our floor y = 0
THROUGHPUT_DT = 0.25  # frames
THROUGHPUT_FRAMES = 200
MAX_SAMPLES = 500  # energy samples per equal-time run


def double_spring() -> Creature:
    """Seed 003's double spring: anchor (0, 2), bobs (0.5, −1.13333) and (0, −2.45) of mass 0.5, at rest."""
    return Creature(
        positions=[[0.0, 2.0 + LIFT], [0.5, -1.13333 + LIFT], [0.0, -2.45 + LIFT]],
        velocities=np.zeros((3, 2)), fixed=[True, False, False], link_a=[0, 1], link_b=[1, 2],
        rest=[1.0, 1.0], alpha=[0.0, 0.0], phi=[0.0, 0.0], mass=[1.0, 0.5, 0.5],
    )  # fmt: skip


def double_spring_world(integrator: str, dt: float = SEED_STEP) -> World:
    """k = 6 (as the world's k̄ with multipliers 1), g = 9.81 down, no damping, no speed limit."""
    return World(gravity=9.81, damping=0.0, stiffness=6.0, dt=dt, integrator=integrator, psm_order=PSM_ORDER)


def double_spring_energy(
    body: Creature, world: World, positions: np.ndarray, velocities: np.ndarray
) -> np.ndarray:
    """(n_records,) total energy of the free masses for (n_records, n_masses, 2) positions and velocities."""
    mass = np.where(body.fixed, 0.0, body.mass)
    kinetic = 0.5 * (mass * (velocities**2).sum(-1)).sum(-1)
    height = (mass * world.gravity * positions[..., 1]).sum(-1)
    d = positions[:, body.link_b] - positions[:, body.link_a]
    stretch = np.hypot(d[..., 0], d[..., 1]) - body.rest
    return kinetic + height + 0.5 * (world.stiffness * body.stiffness * stretch**2).sum(-1)


def _energy_error(body: Creature, world: World, steps: int) -> float:
    """max |E − E(0)| over ``steps`` steps of ``world.dt``, sampled at most MAX_SAMPLES + 1 times."""
    stride = max(1, steps // MAX_SAMPLES)
    steps -= steps % stride
    trajectory = simulate(body, world, steps * world.dt, record_every=stride * world.dt)
    if trajectory.exploded:
        return math.inf
    e = double_spring_energy(body, world, trajectory.positions, trajectory.velocities)
    error = float(np.abs(e - e[0]).max())
    return error if math.isfinite(error) else math.inf


def integrator_rows(repeats: int = 3) -> list[dict[str, Any]]:
    """One dict per integrator; see the module docstring for what each field measures.

    Keys: integrator, seed_energy_error, seed_us_per_step, equal_time_steps, equal_time_dt,
    equal_time_s, equal_time_energy_error, spring_updates_per_s.
    """
    from evo.bench.simulator import bench_world, standard_creature

    body = double_spring()
    span = SEED_STEPS * SEED_STEP
    mesh = standard_creature(20, 60)
    mesh_world = bench_world().updated({"dt": THROUGHPUT_DT, "max_speed": None})
    seed_cost: dict[str, float] = {}
    rows = []
    for integrator in INTEGRATORS:
        world = double_spring_world(integrator)
        simulate(body, world, 10 * SEED_STEP, record_every=SEED_STEP)  # JIT warm-up
        seed_cost[integrator] = best_time(lambda w=world: simulate(body, w, span, record_every=span), repeats)
        mesh_w = mesh_world.updated({"integrator": integrator, "psm_order": PSM_ORDER})
        mesh_s = best_time(lambda w=mesh_w: simulate(mesh, w, THROUGHPUT_FRAMES, record_every=10), repeats)
        rows.append(
            {
                "integrator": integrator if integrator != "psm" else f"psm (order {PSM_ORDER})",
                "seed_energy_error": _energy_error(body, world, SEED_STEPS),
                "seed_us_per_step": 1e6 * seed_cost[integrator] / SEED_STEPS,
                "spring_updates_per_s": mesh.n_links * (THROUGHPUT_FRAMES / THROUGHPUT_DT) / mesh_s,
            }
        )
        if integrator == "euler":
            heavy = mesh.replace(mass=np.full(mesh.n_masses, 2.0), stiffness=np.full(mesh.n_links, 2.0))
            heavy_s = best_time(
                lambda w=mesh_w, c=heavy: simulate(c, w, THROUGHPUT_FRAMES, record_every=10), repeats
            )
            general_rate = mesh.n_links * (THROUGHPUT_FRAMES / THROUGHPUT_DT) / heavy_s
    rows.insert(1, {**rows[0], "integrator": "euler (general kernel)", "spring_updates_per_s": general_rate})
    budget = seed_cost["psm"]
    for integrator, row in zip(INTEGRATORS, [rows[0], *rows[2:]], strict=True):
        steps = max(1, round(SEED_STEPS * budget / seed_cost[integrator]))
        for _ in range(2):  # a second pass corrects for the part of a run's time that is not per step
            world = double_spring_world(integrator, dt=span / steps)
            seconds = best_time(lambda w=world: simulate(body, w, span, record_every=span), repeats)
            steps = max(1, round(steps * budget / seconds)) if integrator != "psm" else SEED_STEPS
        world = double_spring_world(integrator, dt=span / steps)
        row["equal_time_steps"] = steps
        row["equal_time_dt"] = span / steps
        row["equal_time_s"] = best_time(lambda w=world: simulate(body, w, span, record_every=span), repeats)
        row["equal_time_energy_error"] = _energy_error(body, world, steps)
    rows[1].update({k: v for k, v in rows[0].items() if k.startswith("equal_time")})
    return rows


def integrator_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The rows as a table for people."""
    lines = [
        "double spring (seed 003): h = 1/24, 5000 steps; 'equal time': as many steps as psm order 9 takes"
        " for those; throughput: 20-mass standard creature, dt = 0.25 frame",
        f"{'integrator':<22} {'max|dE| h=1/24':>14} {'us/step':>8} {'equal-time h':>12} {'steps':>8}"
        f" {'wall s':>7} {'max|dE| equal t':>15} {'M spring-upd/s':>14}",
    ]

    def error(value: float | None) -> str:
        return "inf" if value is None or math.isinf(value) else f"{value:.3e}"

    for r in rows:
        lines.append(
            f"{r['integrator']:<22} {error(r['seed_energy_error']):>14} {r['seed_us_per_step']:>8.2f}"
            f" {r['equal_time_dt']:>12.3e} {r['equal_time_steps']:>8d} {r['equal_time_s']:>7.4f}"
            f" {error(r['equal_time_energy_error']):>15} {r['spring_updates_per_s'] / 1e6:>14.2f}"
        )
    return lines


def main(args: argparse.Namespace) -> int:
    """Print the table, and with ``args.json`` a JSON object ``{"integrators": rows}`` on the last line."""
    rows = integrator_rows(int(getattr(args, "repeats", 3)))
    human = sys.stderr if getattr(args, "json", False) else sys.stdout  # --json: stdout holds JSON only
    title = "integrators: energy error on seed 003's double spring and throughput"
    Section(title, integrator_lines(rows)).show(human)
    print(file=human)
    if getattr(args, "json", False):
        safe = [
            {k: (v if not (isinstance(v, float) and math.isinf(v)) else None) for k, v in r.items()}
            for r in rows
        ]
        print(json.dumps({"integrators": safe}), flush=True)
    return 0
