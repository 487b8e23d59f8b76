"""``python -m evo bench``: how fast the simulator and whole runs are (a benchmark, not a test).

Each section is a function ``section(args) -> Section`` named in :data:`SECTIONS` (the ones run by default
in :data:`DEFAULT_SECTIONS`); ``--json`` merges their fields into one object on stdout. What each section
measures, and how: docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_SECTIONS",
    "SECTIONS",
    "Section",
    "best_time",
    "main",
    "probe_in_fresh_interpreter",
    "run_sections",
]

# name -> "module:function"; each function takes the parsed arguments and returns a Section.
SECTIONS: dict[str, str] = {
    "simulator": "evo.bench.simulator:simulator_section",
    "compile": "evo.bench.simulator:compile_section",
    "evolution": "evo.bench.evolution:evolution_section",
    "batch": "evo.bench.batch:batch_section",
    "dask": "evo.bench.cluster:dask_section",
    "scaling": "evo.bench.scaling:scaling_section",
    "refine": "evo.bench.refine:refine_section",
    "checkpoint": "evo.bench.checkpoint:checkpoint_section",
    "quality": "evo.bench.quality:quality_section",
    "studio": "evo.bench.studio:studio_section",
    "kernel": "evo.bench.kernel:kernel_section",
    "warm": "evo.bench.warm:warm_section",
    "engine": "evo.bench.engine:engine_section",
}
# scaling: evo bench --scaling; kernel and warm: evo bench --kernel; engine: --sections engine
# quality (minutes): python -m evo.bench.quality
DEFAULT_SECTIONS = ("simulator", "compile", "evolution", "batch", "dask")


@dataclass
class Section:
    """What one benchmark section measured: a title, table lines for people, fields for ``--json``."""

    title: str
    lines: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def show(self, file: Any = None) -> None:
        """Print the title and the table lines (on ``file``, default standard output)."""
        print(f"== {self.title}", file=file)
        for line in self.lines:
            print(line, file=file)


def best_time(
    run: Callable[[], object], repeats: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The shortest of ``repeats`` timings of ``run()`` by ``clock`` (default the wall clock; e.g.
    ``time.thread_time`` for this thread's CPU time), s."""
    best = math.inf
    for _ in range(max(1, repeats)):
        start = clock()
        run()
        best = min(best, clock() - start)
    return best


def probe_in_fresh_interpreter(code: str, cache_dir: str | None, what: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter with ``NUMBA_CACHE_DIR`` on ``cache_dir`` (None: numba's usual
    cache) and return the JSON object on the last line it prints.

    Args:
        code: Python source that prints one JSON object last.
        cache_dir: the numba cache folder, or None.
        what: the probe's name, for the error message.

    Returns:
        The printed object.

    Raises:
        RuntimeError: the interpreter failed (with its stderr).
    """
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the {what} probe failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the command -------------------------------------------------------------------------------------------


def _load(reference: str) -> Callable[[argparse.Namespace], Section]:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def run_sections(args: argparse.Namespace, names: list[str] | None = None) -> list[Section]:
    """Run the named sections (:data:`DEFAULT_SECTIONS` by default) in order."""
    return [_load(SECTIONS[name])(args) for name in (names or DEFAULT_SECTIONS)]


def main(args: argparse.Namespace) -> int:
    """Run the sections, print their tables, and with ``args.json`` the merged JSON object last.

    Args:
        args: ``json`` and ``repeats`` from the command line; optionally ``sections`` (names to run,
            default :data:`DEFAULT_SECTIONS`), ``frames`` and ``numpy_frames`` (timed run lengths), and
            whatever a section reads with ``getattr`` (its tests pass tiny values).

    Returns:
        0, the exit status.
    """
    sections = run_sections(args, getattr(args, "sections", None))
    human = sys.stderr if getattr(args, "json", False) else sys.stdout  # --json: stdout holds JSON only
    merged: dict[str, Any] = {}
    for section in sections:
        section.show(human)
        print(file=human)
        for key, value in section.data.items():
            if key in merged and merged[key] != value:
                raise RuntimeError(f"two bench sections both report {key!r}")
            merged[key] = value
    if getattr(args, "json", False):
        print(json.dumps(merged), flush=True)
    return 0
