"""The memetic option on examples/walkers.toml: the GA with `[ga] refine` against the GA alone run on to the
same number of evaluations (docs/refine.md, "In a GA run").

    python docs/compare_memetic.py [--seeds 1 2 3 4 5] [--generations 60] [--json docs/memetic_compare.json]

For each seed: the memetic run is the example with ``[run] generations`` and ``[ga] refine = {every = 10,
top = 2, budget = 300}``; the plain run is the example alone, run generation by generation until it has made
at least as many evaluations (its history's ``evaluations`` summed). The best distance of each is printed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import evo

ROOT = Path(__file__).resolve().parents[1]
REFINE = {"every": 10, "top": 2, "budget": 300}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--generations", type=int, default=60)
    parser.add_argument("--json", type=Path, default=ROOT / "docs" / "memetic_compare.json")
    args = parser.parse_args()
    base = evo.Config.from_toml(ROOT / "examples" / "walkers.toml").replace(pool={"workers": 1})
    rows = []
    for seed in args.seeds:
        t0 = time.perf_counter()
        memetic = evo.evolve(
            base.replace(run={"seed": seed, "generations": args.generations}, ga={"refine": REFINE}), progress=False
        )
        t1 = time.perf_counter()
        budget = int(memetic.history["evaluations"].sum())
        plain_config = base.replace(run={"seed": seed, "generations": 10_000})
        evaluations = 0

        def enough(status, budget=budget):
            nonlocal evaluations
            evaluations += status.evaluations
            if evaluations >= budget:
                status.stop()

        plain = evo.evolve(plain_config, callbacks=[enough], progress=False)
        t2 = time.perf_counter()
        rows.append({
            "seed": seed,
            "memetic": {"best": memetic.hall_of_fame[0].fitness[0], "evaluations": budget,
                        "generations": args.generations, "seconds": t1 - t0,
                        "best_id": memetic.hall_of_fame[0].id},
            "plain": {"best": plain.hall_of_fame[0].fitness[0], "evaluations": evaluations,
                      "generations": plain.generation + 1, "seconds": t2 - t1},
        })  # fmt: skip
        print(rows[-1], flush=True)
    print("| seed | memetic: generations, evaluations | memetic best (px) | GA alone: generations, evaluations "
          "| GA alone best (px) |")
    print("|---|---|---|---|---|")
    for r in rows:
        m, p = r["memetic"], r["plain"]
        print(f"| {r['seed']} | {m['generations']}, {m['evaluations']} | {m['best']:.0f} ({m['best_id']}) "
              f"| {p['generations']}, {p['evaluations']} | {p['best']:.0f} |")
    args.json.write_text(json.dumps({"refine": REFINE, "generations": args.generations, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
