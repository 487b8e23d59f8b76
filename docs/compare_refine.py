"""Refine against continuing the GA from the same elite, at equal evaluations (docs/refine.md).

    python docs/compare_refine.py [--seeds 1 2 3 4 5] [--budgets 300 1000 3000] [--json docs/refine_compare.json]

Start creatures: the 3 best distinct elites of examples/walkers.toml (its run, seed 1, made here in memory),
genomes/galloper.json, genomes/inchworm.json and the 5 classic creatures of genomes/classic/. Each walks in
its own world for 3000 frames, scored by the `distance` plugin (settle_frames 200). For each start and seed:
refine is ``evo.refine`` with every gene and ``budget`` evaluations (each of ``--budgets``); the GA is ``evo.Evolution`` seeded with
the start creature (``[genome] seed_models``: generation 0 is the creature, mutants of it up to half the
population and random creatures), population 50, the [ga] defaults and [genome] limits widened to hold the
creature, run until it has made ``budget`` evaluations (the best of those counts). Prints a Markdown table
and writes every number as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np

import evo
from evo.ga.settings import GenomeSection
from evo.io.models import load_model
from evo.run.backends import Task, make_backend
from evo.run.job import BreedContext, breed_and_evaluate
from evo.run.rescore import scoring
from evo.sim import World

ROOT = Path(__file__).resolve().parents[1]
FRAMES = 3000
POPULATION = 50
PARAMS = {"settle_frames": 200}


def starts(walkers_top: int, generations: int | None) -> list[tuple[str, evo.Creature]]:
    """(label, creature) of every start creature; the walkers' elites from a run made here."""
    out = []
    if walkers_top:
        config = evo.Config.from_toml(ROOT / "examples" / "walkers.toml")
        if generations:
            config = config.replace(run={"generations": generations})
        run = evo.evolve(config, progress=False)
        out += [(f"walkers elite {k + 1} ({m.id})", m.creature) for k, m in enumerate(run.hall_of_fame[:walkers_top])]
    out += [(name, load_model(ROOT / "genomes" / f"{name}.json")) for name in ("galloper", "inchworm")]
    names = ("crawler", "hopper", "pacer", "roller", "strider")  # hills.xml is terrain, not a creature
    out += [(f"classic/{n}.xml", load_model(ROOT / "genomes" / "classic" / f"{n}.xml")) for n in names]
    return out


def genome_for(creature: evo.Creature) -> dict:
    """The [genome] defaults, widened where needed to hold ``creature`` as it is."""
    d = GenomeSection()
    degree = int(np.bincount(np.concatenate([creature.link_a, creature.link_b]), minlength=creature.n_masses).max())
    return {
        "masses": [min(d.masses[0], creature.n_masses), max(d.masses[1], creature.n_masses)],
        "max_links": max(d.max_links, creature.n_links),
        "max_degree": max(d.max_degree, degree),
        "rest": [min(d.rest[0], float(creature.rest.min())), max(d.rest[1], float(creature.rest.max()))],
        "omega": [min(d.omega[0], creature.omega), max(d.omega[1], creature.omega)],
        "beta": [min(d.beta[0], creature.beta), max(d.beta[1], creature.beta)],
    }


def config_for(creature: evo.Creature, seed: int) -> evo.Config:
    return evo.Config.from_dict(
        {
            "run": {"name": "compare", "seed": seed, "population": POPULATION, "generations": 10_000},
            "evaluation": {"frames": FRAMES, "plugin": "distance", "params": PARAMS},
            "world": World.from_model(creature).to_dict(only_changed=True),
            "genome": genome_for(creature),
            "pool": {"workers": 1},
        }
    )


def ga_from(creature: evo.Creature, seed: int, budget: int) -> dict:
    """The GA seeded with ``creature`` until ``budget`` evaluations: the best distance among them."""
    config = config_for(creature, seed)
    spec = config.evaluation_spec()
    evolution = evo.Evolution(config.loop_settings(), seed_models=[creature])
    context = BreedContext(spec, config.genome, config.ga)
    best, evaluated = -math.inf, 0
    with make_backend(breed_and_evaluate, context, 1) as backend:
        while evaluated < budget:
            broods = evolution.ask().broods
            results = [r for kids in backend.run([Task(i, b, b.evaluations) for i, b in enumerate(broods)])
                       for r in kids]  # fmt: skip
            for result in results:
                if result.evaluation is None or evaluated >= budget:
                    continue
                evaluated += 1
                best = max(best, result.evaluation.fitness[0])
            evolution.tell(results)
    return {"best": best, "evaluations": evaluated, "generations": evolution.generation + 1}


def refine_from(creature: evo.Creature, seed: int, budget: int, population: int | None = None) -> dict:
    spec, plugin_seed = scoring(creature, "distance", frames=FRAMES, params=PARAMS)
    result = evo.refine(
        creature, fitness=spec, budget=budget, seed=seed, plugin_seed=plugin_seed, population=population
    )
    return {"best": result.fitness, "start": result.start_fitness, "evaluations": result.evaluations}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--budgets", type=int, nargs="+", default=[300, 1000, 3000])
    parser.add_argument("--walkers-top", type=int, default=3)
    parser.add_argument("--walkers-generations", type=int, help="a shorter walkers run (a quick try)")
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "refine_compare.json")
    parser.add_argument("--starts", nargs="+", help="only these starts (labels, e.g. galloper classic/hopper.xml)")
    parser.add_argument("--no-ga", action="store_true", help="refine only (the GA column is left empty)")
    parser.add_argument("--population", type=int, help="refine's λ (default: evo.refine's)")
    args = parser.parse_args()
    began = time.perf_counter()
    rows = []
    chosen = starts(args.walkers_top if not args.starts or any("walkers" in s for s in args.starts) else 0,
                    args.walkers_generations)  # fmt: skip
    for label, creature in chosen:
        if args.starts and label not in args.starts:
            continue
        for budget in args.budgets:
            row = {"start": label, "budget": budget, "masses": creature.n_masses, "links": creature.n_links,
                   "muscles": creature.n_muscles, "refine": [], "ga": [], "refine_s": 0.0, "ga_s": 0.0}  # fmt: skip
            for seed in args.seeds:
                t0 = time.perf_counter()
                row["refine"].append(refine_from(creature, seed, budget, args.population))
                t1 = time.perf_counter()
                if not args.no_ga:
                    row["ga"].append(ga_from(creature, seed, budget))
                row["refine_s"] += t1 - t0
                row["ga_s"] += time.perf_counter() - t1
            row["start_fitness"] = row["refine"][0]["start"]
            rows.append(row)
        print(f"{label}: done ({time.perf_counter() - began:.0f} s)", flush=True)
    print()
    print("| start | masses/links/muscles | start (px) | evaluations | refine (px) | GA (px) | refine wins "
          "| refine s / GA s |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        r = [x["best"] for x in row["refine"]]
        g = [x["best"] for x in row["ga"]]
        wins = sum(a > b for a, b in zip(r, g, strict=False))
        print(f"| {row['start']} | {row['masses']}/{row['links']}/{row['muscles']} | {row['start_fitness']:.0f} "
              f"| {row['budget']} | {mean_sd(r)} | {mean_sd(g) if g else '-'} | {wins}/{len(g)} "
              f"| {row['refine_s']:.1f} / {row['ga_s']:.1f} |")
    doc = {"refine_population": args.population, "budgets": args.budgets, "seeds": args.seeds, "frames": FRAMES, "population": POPULATION,
           "elapsed_s": time.perf_counter() - began, "rows": rows}  # fmt: skip
    args.json.write_text(json.dumps(doc, indent=1) + "\n")


def mean_sd(values: list[float]) -> str:
    return f"{statistics.mean(values):.0f} ± {statistics.stdev(values) if len(values) > 1 else 0:.0f}"


if __name__ == "__main__":
    main()
