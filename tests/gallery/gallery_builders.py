"""Run folders for the gallery tests: a real tiny ``evo run``, and hand-made ones of any size."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evo.ga.creatures import random_creature
from evo.ga.settings import GenomeSection
from evo.io.models import dumps_model
from evo.io.run_folder.folder import elite_file_name, model_digest
from evo.model import Creature

TINY_CONFIG = """
[run]
name = "tiny"
seed = 3
generations = 6
population = 24

[evaluation]
frames = 1200
plugin = "distance"

[evaluation.params]
settle_frames = 100

[world]
width = 4000.0

[pool]
workers = 1
"""

HISTORY_HEADER = (
    "generation,evaluations,distance_best,distance_mean,distance_std,distance_min,"
    "masses_mean,links_mean,exploded"
)


def real_run(folder: Path) -> Path:
    """A run folder made by ``evo run`` itself (6 generations of 24 creatures, about a second)."""
    from evo.cli import main

    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "tiny.toml"
    config.write_text(TINY_CONFIG, encoding="utf-8")
    out = folder / "run"
    assert main(["run", str(config), "--out", str(out), "--quiet"]) == 0
    return out


def elite(
    creature: Creature, rank: int, count: int, *, fitness: float, generation: int, frames: int
) -> tuple[str, str]:
    """(file name, text) of an elite model file as evo run writes it."""
    meta = {
        "fitness": [fitness],
        "objectives": ["distance"],
        "run": "made",
        "id": f"g{generation}-{rank}",
        "generation": generation,
        "parents": [],
        "plugin": "distance",
        "params": {"settle_frames": 200},
        "frames": frames,
        "seed": rank,
    }
    creature = creature.replace(name=f"made-{rank}", world={"gravity": 0.5}, meta=meta)
    return elite_file_name(rank, count, generation, model_digest(creature)), dumps_model(creature)


def made_run(folder: Path, creatures: list[Creature], *, frames: int = 3000, generations: int = 10) -> Path:
    """A run folder without a checkpoint: elites (fitness falling with rank), config.toml, history.csv."""
    (folder / "elites").mkdir(parents=True)
    count = len(creatures)
    for rank, creature in enumerate(creatures, start=1):
        name, text = elite(
            creature, rank, count, fitness=1000.0 - rank, generation=generations - 1, frames=frames
        )
        (folder / "elites" / name).write_text(text, encoding="utf-8")
    (folder / "config.toml").write_text(
        f'[run]\nname = "made"\nseed = 1\ngenerations = {generations}\npopulation = 20\n\n'
        f'[evaluation]\nframes = {frames}\nplugin = "distance"\n\n[evaluation.params]\nsettle_frames = 200\n',
        encoding="utf-8",
    )
    rows = [HISTORY_HEADER] + [
        f"{g},20,{999.0 if g == generations - 1 else 100.0 + g},{50.0 + g},{10.0},{-5.0},12.0,30.0,0"
        for g in range(generations)
    ]
    (folder / "history.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def random_creatures(count: int, masses: tuple[int, int] = (16, 20), seed: int = 5) -> list[Creature]:
    rng = np.random.default_rng(seed)
    genome = GenomeSection(masses=masses, box=(160.0, 90.0), max_links=60)
    return [random_creature(rng, genome) for _ in range(count)]
