"""The shipped task suite: frozen, versioned task definitions read from ``suite/*.toml`` (docs/tasks.md).

A task file is a run configuration (its world, evaluation and genome limits) with a ``[task]`` table:
id, version, budget, seeds and, for fixed-body tasks, the body. Search methods add their own tables.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError, closest
from evo.fitness.evaluate import EvaluationSpec, evaluate
from evo.io.models import creature_to_dict, load_model
from evo.io.task_files import read_task_file, task_files
from evo.model import Creature
from evo.run.config import Config
from evo.schema import parse_section, setting
from evo.sim.placement import stand_on_ground

__all__ = [
    "METHODS",
    "SUITE",
    "Task",
    "TaskSection",
    "creature_hash",
    "load_suite",
    "load_task",
    "task_named",
]

SUITE = Path(__file__).resolve().parent / "suite"
# search methods, in table order; "refine" only for tasks with a body
METHODS = ("random", "ga", "map-elites", "memetic", "refine")
POPULATION = 40  # creatures per generation of the GA-like methods (and MAP-Elites' first batch)
REFINE_EVERY, REFINE_TOP = 5, 1  # the memetic step: every 5th generation the best is refined
QD_EMITTERS = 2  # MAP-Elites: an iteration of 2 emitters x 20 children = POPULATION evaluations


@dataclass(frozen=True)
class TaskSection:
    """The ``[task]`` table of a task file."""

    id: str = setting("", doc="the task's name (the file's stem)")
    version: int = setting(1, low=1, doc="raised whenever anything that changes a score changes")
    title: str = setting("", doc="a short title")
    goal: str = setting("", doc="what the score measures, with its units")
    budget: int = setting(1200, low=POPULATION, doc="evaluations each search method may spend")
    seeds: tuple[int, ...] = setting((1, 2, 3, 4, 5), low=0, doc="the seeds baselines are run with")
    body: str | None = setting(None, doc="fixed-body tasks: the model file every search starts from")


@dataclass(frozen=True, eq=False)
class Task:
    """One task: its ``[task]`` table, the rest of its file (run-config tables) and where it came from."""

    section: TaskSection
    tables: Mapping[str, Any]
    source: str

    @property
    def id(self) -> str:
        return self.section.id

    @property
    def version(self) -> int:
        return self.section.version

    @property
    def label(self) -> str:
        """``flat-walk v1``."""
        return f"{self.id} v{self.version}"

    @property
    def methods(self) -> tuple[str, ...]:
        """The search methods compared on this task (refine alone only where there is a body)."""
        return METHODS if self.section.body else METHODS[:-1]

    def config(self, method: str = "ga", seed: int = 1, workers: int = 1) -> Config:
        """The run configuration of ``method`` at this task's budget, seeded with ``seed``."""
        if method not in METHODS:
            hint = closest(method, METHODS)
            raise EvoInputError(
                f"unknown search method {method!r}; "
                + (f"did you mean {hint!r}?" if hint else f"expected one of {', '.join(METHODS)}")
            )
        doc = copy.deepcopy(dict(self.tables))
        name = f"{self.id}-{method}-s{seed}"
        for table, values in _method_tables(method, self.section.budget).items():
            doc[table] = {**doc.get(table, {}), **values}
        doc["run"] = {**doc.get("run", {}), "name": name, "seed": seed}
        doc["pool"] = {**doc.get("pool", {}), "workers": workers}
        return Config.from_dict(doc, base_dir=Path(self.source).parent, source=self.source)

    @property
    def spec(self) -> EvaluationSpec:
        """How the task scores a creature: its world, frames, plugin and params."""
        return _spec(self)

    def body(self) -> Creature | None:
        """A fixed-body task's body, stood on the task's ground; None for the others."""
        if not self.section.body:
            return None
        creature = load_model(Path(self.source).parent / self.section.body)
        return stand_on_ground(creature, self.spec.world)

    def score(self, creature: Creature, plugin_seed: int = 0) -> float:
        """The task's score of ``creature``: its plugin's objective in the task's world (-inf: exploded)."""
        return float(evaluate(creature, self.spec, plugin_seed).fitness[0])

    def physics_hash(self) -> str:
        """sha256 of what decides a score: the world, the frames, the plugin and its params."""
        spec = self.spec
        doc = {
            "world": spec.world.to_dict(only_changed=True),
            "frames": spec.frames,
            "plugin": spec.plugin.name,
            "params": dict(spec.params),
        }
        return _digest(doc)


@cache
def _spec(task: Task) -> EvaluationSpec:
    return task.config().evaluation_spec()


def creature_hash(creature: Creature) -> str:
    """sha256 of a creature's body and wave (its masses, links and wave; not its name or meta)."""
    doc = creature_to_dict(creature)
    return _digest({k: doc[k] for k in ("masses", "links", "wave") if k in doc})


def _digest(doc: Any) -> str:
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _method_tables(method: str, budget: int) -> dict[str, dict[str, Any]]:
    """The ``[run]``, ``[ga]`` and ``[qd]`` keys of a search method that spends at most ``budget``
    evaluations (docs/tasks.md, "Search methods")."""
    if method == "random":  # generation 0 only: random creatures (and a body's mutants)
        return {"run": {"population": budget, "generations": 1}}
    if method == "memetic":  # each refinement costs POPULATION evaluations
        per_block = REFINE_EVERY * POPULATION + REFINE_TOP * POPULATION
        generations = max(1, budget * REFINE_EVERY // per_block)
        refine = {"every": REFINE_EVERY, "top": REFINE_TOP, "budget": POPULATION}
        return {"run": {"population": POPULATION, "generations": generations}, "ga": {"refine": refine}}
    generations = max(1, budget // POPULATION)
    if method == "map-elites":
        qd = {"emitters": QD_EMITTERS, "batch_size": POPULATION // QD_EMITTERS}
        run = {"algorithm": "map-elites", "population": POPULATION, "generations": generations}
        return {"run": run, "qd": qd}
    return {"run": {"population": POPULATION, "generations": generations}}  # ga, and refine's own


def load_task(path: str | Path) -> Task:
    """Read and check one task file (its tables must make a valid run configuration).

    Raises:
        EvoInputError: one line naming the file and the field.
    """
    source = str(path)
    doc = read_task_file(path)
    section = parse_section(TaskSection, doc.get("task"), source=source, table_name="task")
    if section.id != Path(path).stem:
        raise EvoInputError(
            f"expected the file's stem {Path(path).stem!r}, got {section.id!r}",
            source=source,
            field="[task] id",
        )
    if "run" in doc:
        raise EvoInputError(
            "a task sets no [run] table: the search method does", source=source, field="[run]"
        )
    tables = {k: v for k, v in doc.items() if k != "task"}
    task = Task(section, tables, source)
    task.config()  # every table checked now, with the GA's settings
    return task


@cache
def load_suite(folder: str | None = None) -> tuple[Task, ...]:
    """Every task of the suite (default: the shipped one), in name order."""
    return tuple(load_task(path) for path in task_files(folder or SUITE))


def task_named(name: str, folder: str | None = None) -> Task:
    """The suite's task ``name`` (``flat-walk``; a trailing ``@v1`` must be its version).

    Raises:
        EvoInputError: no such task, or another version.
    """
    name, _, version = name.partition("@")
    tasks = {task.id: task for task in load_suite(folder)}
    if name not in tasks:
        hint = closest(name, tasks)
        raise EvoInputError(
            f"no task {name!r} in the suite; "
            + (f"did you mean {hint!r}?" if hint else f"tasks: {', '.join(tasks)}")
        )
    task = tasks[name]
    if version and version.lstrip("v") != str(task.version):
        raise EvoInputError(f"the suite has {task.label}, not version {version!r}")
    return task
