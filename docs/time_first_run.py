"""Time README's first command as a newcomer meets it, and a cold `evo warm` (the figures in README.md and
docs/performance.md): a fresh clone of this repository in a temporary folder, a new virtual environment,
`pip install -e .`, then `evo run examples/walkers.toml` and `evo warm` on an empty numba cache.

    python3 docs/time_first_run.py              # prints the wall-clock seconds of each step
    python3 docs/time_first_run.py --installed  # no clone or install: this interpreter, this tree

``--installed`` times the two compiling steps with the Python that runs the script, evo importable
from it (a machine without pip's index, where evo and its packages were installed beforehand): the
first `evo run` and a cold `evo warm`, each on an empty numba cache, in this tree's examples/.

pip takes its packages from its cache when they are there (this machine's figure); a machine that must
download them adds the download time. Nothing outside the temporary folder is written.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _compiling(python: str, run: list[str], cwd: Path, env: dict[str, str], tmp: str) -> tuple[float, float]:
    """Wall seconds of the first `evo run` (with the arguments ``run``) on the numba cache ``env`` names,
    then of `evo warm` on an empty one."""
    first = _timed([python, "-m", "evo", "run", *run], cwd, env)
    empty = {**env, "NUMBA_CACHE_DIR": str(Path(tmp) / "empty-cache")}
    warm = _timed([python, "-m", "evo", "warm"], cwd, empty)
    return first, warm


def installed() -> None:
    """The first `evo run` and a cold `evo warm` with this interpreter, each on an empty numba cache."""
    with tempfile.TemporaryDirectory(prefix="evo-first-run-") as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba-cache")}
        config = str(REPO / "examples" / "walkers.toml")
        out = str(Path(tmp) / "walkers")
        run, warm = _compiling(sys.executable, [config, "--out", out], Path(tmp), env, tmp)
    print(f"first evo run (compiling included) {run:.1f} s; cold evo warm {warm:.1f} s (wall clock,"
          f" {os.cpu_count()} CPUs, no install)")


def main() -> None:
    if sys.argv[1:] == ["--installed"]:
        installed()
        return
    with tempfile.TemporaryDirectory(prefix="evo-first-run-") as tmp:
        clone = Path(tmp) / "evo"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba-cache")}
        python = str(clone / ".venv" / "bin" / "python")
        install = _timed([sys.executable, "-m", "venv", ".venv"], clone, env)
        install += _timed([python, "-m", "pip", "install", "-q", "-e", "."], clone, env)
        run, warm = _compiling(python, ["examples/walkers.toml"], clone, env, tmp)
    print(f"install {install:.1f} s, first evo run (compiling included) {run:.1f} s: README's first command "
          f"{install + run:.1f} s; cold evo warm {warm:.1f} s (wall clock, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
