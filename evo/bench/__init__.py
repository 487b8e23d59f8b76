"""``python -m evo bench``: how fast the simulator is (a benchmark, not a test).

Sections, each a function ``section(args) -> Section`` named in :data:`SECTIONS` by a lazily imported
``"module:function"`` reference (add a line there to add a section, e.g. an evolution benchmark):

- ``simulator``: after JIT warm-up, the best of ``args.repeats`` timed runs of
  ``simulate(creature, world, 4000, record_every=10)`` on the two standard creatures, in spring-updates
  per second (links x frames / seconds), and the same for the numpy-vectorised reference step of
  :mod:`evo.bench.numpy_reference` (fewer frames; normalised per frame), with the ratio kernel / numpy.
- ``compile``: the JIT compile time, measured in fresh interpreters with ``NUMBA_CACHE_DIR`` on an
  empty temporary folder (cold) and again on the same folder (cached).
- ``evolution``: end-to-end evaluations per second of ``evo run`` generations (population 200, ~20
  masses / 60 links, 3000 frames) with 1 and 2 workers against the bare kernel on the same creatures
  (see :mod:`evo.bench.evolution`).
- ``batch``: the batched kernel (:func:`evo.sim.batch.simulate_batch`) against the scalar one on 64
  same-topology mutants, and its compile time (see :mod:`evo.bench.batch`).
- ``dask``: the same runs on a dask LocalCluster of 2 workers against the fork pool of 2, and the cost of
  starting the cluster (see :mod:`evo.bench.cluster`).
- ``scaling`` (only with ``--scaling``, it takes minutes): rates against creature size, population and
  workers, the per-core limit and a generation's profile (see :mod:`evo.bench.scaling`).

Every section returns lines of text (printed as a table) and a dict of JSON fields; ``--json`` prints
all the sections' fields merged into one JSON object on stdout (the tables go to stderr). Besides ``json`` and
``repeats``, :func:`main` honours optional attributes of ``args`` that the command line does not set:
``sections`` (names to run, default :data:`DEFAULT_SECTIONS`), ``frames`` and ``numpy_frames`` (timed run lengths).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_SECTIONS", "SECTIONS", "Section", "best_time", "main", "run_sections"]

# name -> "module:function"; each function takes the parsed arguments and returns a Section.
SECTIONS: dict[str, str] = {
    "simulator": "evo.bench.simulator:simulator_section",
    "compile": "evo.bench.simulator:compile_section",
    "evolution": "evo.bench.evolution:evolution_section",
    "batch": "evo.bench.batch:batch_section",
    "dask": "evo.bench.cluster:dask_section",
    "scaling": "evo.bench.scaling:scaling_section",
}
DEFAULT_SECTIONS = ("simulator", "compile", "evolution", "batch", "dask")  # scaling: evo bench --scaling


@dataclass
class Section:
    """What one benchmark section measured: a title, table lines for people, fields for ``--json``."""

    title: str
    lines: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def best_time(run: Callable[[], object], repeats: int) -> float:
    """The shortest of ``repeats`` wall-clock timings of ``run()``, s."""
    best = math.inf
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


# -- the command -------------------------------------------------------------------------------------------


def _load(reference: str) -> Callable[[argparse.Namespace], Section]:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def run_sections(args: argparse.Namespace, names: list[str] | None = None) -> list[Section]:
    """Run the named sections (:data:`DEFAULT_SECTIONS` by default) in order."""
    return [_load(SECTIONS[name])(args) for name in (names or DEFAULT_SECTIONS)]


def main(args: argparse.Namespace) -> int:
    """Run every section, print their tables, and with ``args.json`` the merged JSON object last."""
    sections = run_sections(args, getattr(args, "sections", None))
    human = sys.stderr if getattr(args, "json", False) else sys.stdout  # --json: stdout holds JSON only
    merged: dict[str, Any] = {}
    for section in sections:
        print(f"== {section.title}", file=human)
        for line in section.lines:
            print(line, file=human)
        print(file=human)
        for key, value in section.data.items():
            if key in merged and merged[key] != value:
                raise RuntimeError(f"two bench sections both report {key!r}")
            merged[key] = value
    if getattr(args, "json", False):
        print(json.dumps(merged), flush=True)
    return 0
