"""``evo refine MODEL --plugin NAME``: tune a body's gait with CMA-ES (:func:`evo.refine.refine`) and write
the refined model, its ``meta`` saying what it was refined from, which genes and the gain."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from evo.cli._common import add_world_arguments, world_for, writing
from evo.cli._fitness import params_of
from evo.cli._numbers import FRAMES, SEED, integer, number
from evo.errors import EvoInputError
from evo.io.checkpoint.document import encode_numbers
from evo.io.models import load_model, save_model
from evo.io.provenance import Provenance
from evo.refine import GENES, RefineProgress, refine
from evo.run.rescore import scoring
from evo.sim.placement import stand_on_ground

NAME = "refine"
HELP = "tune a model's gait (muscle phases, amplitudes, rest lengths, wave) with CMA-ES, its body kept"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="model file (.json or Sodaconstructor .xml)")
    parser.add_argument("--plugin", metavar="NAME", required=True, help="fitness plugin to maximise")
    parser.add_argument(
        "--params", metavar="JSON", help="plugin parameters as a JSON object, e.g. '{\"settle_frames\": 100}'"
    )
    parser.add_argument(
        "--plugin-path", metavar="PATH", action="append", default=[], help="extra plugin folder or file"
    )
    parser.add_argument(
        "--frames", type=FRAMES, help="frames per evaluation (default: the meta's, else 3000)"
    )
    parser.add_argument(
        "--budget",
        type=integer(1, 10**9, "evaluations"),
        default=3000,
        help="evaluations to spend (default 3000)",
    )
    parser.add_argument(
        "--genes",
        default=",".join(GENES),
        metavar="G,G,...",
        help=f"genes to tune, comma-separated among {','.join(GENES)} (default: all)",
    )
    parser.add_argument(
        "--sigma",
        type=number(0, 1, "a fraction of each gene's range", above=True),
        default=0.1,
        help="first step, as a fraction of each gene's range (default 0.1)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seed of CMA-ES's samples (default 0)")
    parser.add_argument("--out", metavar="REFINED.json", help="where to write (default: MODEL-refined.json)")
    add_world_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _out_path(model: str, out: str | None) -> str:
    if out:
        return out
    path = Path(model)
    return str(path.with_name(f"{path.stem}-refined.json"))


class _Bar:
    """A tqdm bar of evaluations, the best fitness in its postfix (on standard error)."""

    def __init__(self, budget: int, objective: str):
        from tqdm.auto import tqdm

        self.bar = tqdm(total=budget, desc="refine", unit="eval", dynamic_ncols=True)
        self.objective = objective

    def __call__(self, progress: RefineProgress) -> None:
        self.bar.set_postfix_str(f"{self.objective} {progress.best_fitness:.6g}", refresh=False)
        self.bar.update(progress.evaluations - self.bar.n)

    def close(self) -> None:
        self.bar.total = self.bar.n  # whole generations: the last one may leave a few evaluations unspent
        self.bar.refresh()
        self.bar.close()


def run(args: argparse.Namespace) -> int:
    out = _out_path(args.model, args.out)
    target = os.path.abspath(out)  # before any plugin code runs: a plugin's os.chdir moves nothing
    creature = load_model(args.model)
    world = world_for(creature, args, args.model)
    creature = stand_on_ground(creature, world)
    params = params_of(args.params)
    if args.frames is not None and args.frames <= 0:
        raise EvoInputError(f"--frames must be a positive number of frames, got {args.frames}")
    spec, plugin_seed = scoring(
        creature,
        args.plugin,
        world=world,
        frames=args.frames,
        params=params,
        plugin_paths=args.plugin_path,
        where="--params",
    )
    genes = tuple(g.strip() for g in args.genes.split(",") if g.strip())
    from evo.fitness import load_ref

    objective = load_ref(spec.plugin).objectives[0]
    bar = None if args.quiet else _Bar(args.budget, objective)
    try:
        result = _refine(creature, spec, plugin_seed, args, genes, bar)
    finally:
        if bar is not None:
            bar.close()
    refined = result.best
    meta = dict(refined.meta)
    record = dict(meta.pop("refined"))
    record["from"] = args.model
    record["gain"] = result.gain if math.isfinite(result.gain) else None
    record["seed"] = args.seed
    if Provenance.from_meta(meta) is not None and "fitness" in meta:  # an elite: its fitness is the new one
        meta["fitness"] = encode_numbers((result.fitness,))
    meta["refined"] = record
    refined = refined.replace(meta=meta)
    with writing(out):
        save_model(refined, target, source=args.model)
    human = sys.stderr if args.json else sys.stdout
    gain = f" ({result.gain:.3g}x)" if math.isfinite(result.gain) else ""
    print(
        f"{creature.name}: {objective} {result.start_fitness:.6g} -> {result.fitness:.6g}{gain} in "
        f"{result.evaluations} evaluations, tuning {', '.join(result.genes)}; wrote {out}",
        file=human,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "start_fitness": encode_numbers((result.start_fitness,))[0],
                    "fitness": encode_numbers((result.fitness,))[0],
                    "evaluations": result.evaluations,
                    "model": out,
                }
            )
        )
    return 0


def _refine(creature, spec, plugin_seed, args, genes, bar):  # noqa: ANN001, ANN202
    from evo.fitness.evaluate import PluginFailed

    try:
        return refine(
            creature,
            fitness=spec,
            budget=args.budget,
            genes=genes,
            sigma=args.sigma,
            seed=args.seed,
            callbacks=(bar,) if bar is not None else (),
            plugin_seed=plugin_seed,
        )
    except EvoInputError as exc:
        if exc.field in ("budget", "genes", "sigma"):
            raise EvoInputError(exc.message, field=f"--{exc.field}") from None
        raise
    except PluginFailed as exc:
        raise EvoInputError(exc.message) from None
