"""A picture of every task of the suite (docs/tasks.md): the best baseline creature of the task (or its
body) walking the task's world, as an SVG poster (``evo replay --svg``).

    python docs/task_pictures.py      # writes docs/tasks/TASK.svg for every task
"""

from __future__ import annotations

import math
from pathlib import Path

from evo.gallery.poster import poster_svg
from evo.sim import simulate
from evo.tasks import load_suite, read_record
from evo.tasks.baselines import BASELINES, read_baselines

OUT = Path(__file__).resolve().parent / "tasks"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    baselines = read_baselines()
    for task in load_suite():
        mine = [b for b in baselines if b.task == task.id and b.task_version == task.version]
        best = max(mine, key=lambda b: b.best if math.isfinite(b.best) else -math.inf, default=None)
        if best is not None:
            record = read_record(BASELINES / best.record)
            creature, who = record.creature, f"best baseline ({record.method}, seed {record.seed})"
        else:
            creature, who = task.body(), "its body"
        world, frames = task.spec.world, task.spec.frames
        trajectory = simulate(creature, world, frames, record_every=5)
        named = creature.replace(name=f"{task.label}: {task.section.title}, {who}")
        (OUT / f"{task.id}.svg").write_text(poster_svg(named, world, trajectory), encoding="utf-8")
        print(f"{OUT / task.id}.svg")


if __name__ == "__main__":
    main()
