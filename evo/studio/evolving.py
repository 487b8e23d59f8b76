""" "Evolve from here": ``evo run`` in a separate process seeded with the current design, its progress read
from the run folder; Stop is SIGTERM (the run ends at a checkpoint and ``evo run --resume`` continues it)."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import threading
import tomllib
from collections import deque
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.io.atomic import atomic_write_text
from evo.io.models import save_model
from evo.io.run_folder.contents import read_run
from evo.io.tomlfiles import dumps_toml
from evo.model import Creature
from evo.run.config import parse_config, resolve
from evo.studio.designs import model_object
from evo.studio.limits import StudioLimits

__all__ = ["DEFAULT_CONFIG", "EvolutionRunner", "default_config"]

DEFAULT_CONFIG = """\
# Evolve from the design in the editor (it seeds the population). Every key: docs/config.md.
[run]
name = "studio"
seed = 1
generations = 10
population = 24

[evaluation]
frames = 1000
plugin = "distance"

[evaluation.params]
settle_frames = 200

[world]
max_speed = 50.0

[pool]
workers = 1
"""


def default_config() -> str:
    """The config text the Evolve panel starts with."""
    return DEFAULT_CONFIG


def _finite(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else None


def _merged_world(design: dict[str, Any], config: Any) -> dict[str, Any]:
    """The design's world with the config's ``[world]`` on top (a key given either plainly or as its
    cursor counts once: the config's form wins)."""
    if not isinstance(config, dict):
        return config
    out = dict(design)
    for key in config:
        base = key.removesuffix("_cursor")
        out.pop(base, None)
        out.pop(f"{base}_cursor", None)
        if key == "terrain":  # the config's terrain: not the design's terrain file
            out.pop("terrain_file", None)
    out.update(config)
    return out


class EvolutionRunner:
    """One evolution at a time: ``evo run`` in a child process, watched through its run folder.

    Files: ``BASE/runs/NAME-K/`` is the run folder (``BASE/NAME-K/`` when BASE is itself a ``runs``
    folder); ``.studio/NAME-K/`` beside it holds the config and the seed model it was started from (the
    run folder's own ``config.toml`` names that seed by absolute path).

    Args:
        limits: the studio's limits (``frames`` caps ``[evaluation] frames``).
    """

    def __init__(self, limits: StudioLimits):
        self.limits = limits
        self.folder: Path | None = None
        self.generations = 0
        self._process: subprocess.Popen | None = None
        self._stopping = False
        self._message = ""
        self._errors: deque[str] = deque(maxlen=20)

    @staticmethod
    def _drain(process: subprocess.Popen, lines: deque) -> None:
        for line in process.stderr:
            if line.strip():
                lines.append(line.rstrip())

    @property
    def busy(self) -> bool:
        """True while the child process runs."""
        return self._process is not None and self._process.poll() is None

    def _document(self, text: str, seed: Creature | None, seed_file: Path | None) -> dict[str, Any]:
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise EvoInputError(f"not valid TOML: {exc}", source="config") from None
        if seed is not None and seed.world:
            doc["world"] = _merged_world(seed.world, doc.get("world", {}))
        if seed_file is not None:
            genome = doc.setdefault("genome", {})
            if not isinstance(genome, dict):
                raise EvoInputError("[genome]: expected a table", source="config")
            genome["seed_models"] = [str(seed_file)]
        return doc

    def check(self, text: str, seed: Creature | None) -> list[str]:
        """The errors ``evo validate`` would give for the config text, the design's world under its
        ``[world]`` (a one-line list; empty when valid). The seed model is checked against the config's
        size limits by ``evo run`` itself."""
        try:
            doc = self._document(text, seed, None)
            config = resolve(parse_config(doc, source="config", default_name="studio"))
        except EvoInputError as exc:
            return [f"evo validate: error: {exc}"]
        if config.evaluation.frames > self.limits.frames:
            return [
                f"evo studio: error: config: [evaluation] frames: the studio evolves with at most "
                f"{self.limits.frames} frames per evaluation, got {config.evaluation.frames}"
            ]
        return []

    def start(self, text: str, seed: Creature | None, *, base: Path | None) -> Path:
        """Write the config (and seed) and start ``evo run`` on them; the new run folder.

        Raises:
            EvoInputError: a config that does not parse, or files that cannot be written.
        """
        base = Path(base) if base is not None else Path.cwd()
        runs = base if base.name == "runs" else base / "runs"  # a studio started on runs/NAME: beside it
        name = str(self._document(text, seed, None).get("run", {}).get("name", "studio"))
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "studio"
        k = 1
        while (runs / f"{safe}-{k}").exists() or (runs / ".studio" / f"{safe}-{k}").exists():
            k += 1
        folder, staging = runs / f"{safe}-{k}", runs / ".studio" / f"{safe}-{k}"
        seed_file = staging / "seed.json" if seed is not None else None
        doc = self._document(text, seed, seed_file)
        try:
            if seed is not None:
                save_model(seed, seed_file)
            atomic_write_text(staging / "config.toml", dumps_toml(doc))
        except OSError as exc:
            raise EvoInputError(f"cannot write: {exc.strerror or exc}", source=str(staging)) from None
        self.generations = int(doc.get("run", {}).get("generations", 0) or 0)
        command = [
            sys.executable,
            "-m",
            "evo",
            "run",
            str(staging / "config.toml"),
            "--out",
            str(folder),
            "--quiet",
        ]
        self._process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        self._errors = deque(maxlen=20)
        threading.Thread(target=self._drain, args=(self._process, self._errors), daemon=True).start()
        self.folder = folder
        self._stopping = False
        self._message = "running"
        return folder

    def stop(self) -> None:
        """Ask the run to stop at its next checkpoint (SIGTERM, as ``evo run`` takes it)."""
        if self.busy:
            self._stopping = True
            self._process.send_signal(signal.SIGTERM)

    def state(self) -> dict[str, Any]:
        """``{"state", "generation", "generations", "history", "best_model", "run", "message"}``."""
        process = self._process
        if process is None:
            return {"state": "idle", "generation": None, "generations": 0, "history": [], "best_model": None,
                    "run": None, "message": ""}  # fmt: skip
        code = process.poll()
        if code is None:
            state = "stopping" if self._stopping else "running"
        elif code == 0 or (self._stopping and code in (130, 143, -signal.SIGTERM)):
            state = "done"
            if not self._stopping:
                self._message = "done"
            elif self.has_generations():
                self._message = "stopped at a checkpoint: evo run --resume continues it"
            else:  # stopped before its first generation was saved (or before evo run could take the signal)
                self._message = "stopped before its first generation: there is no run to resume"
        else:
            state = "failed"
            self._message = self._errors[-1] if self._errors else f"evo run ended with status {code}"
        history, best, generation = [], None, None
        if self.folder is not None and (self.folder / "history.csv").exists():
            try:
                contents = read_run(self.folder, require_elites=False)
            except (EvoInputError, OSError, ValueError, KeyError):  # caught between two of its writes
                contents = None
            if contents is not None:
                first = contents.objectives[0] if contents.objectives else None
                for row in contents.history:
                    history.append({
                        "generation": int(row["generation"]),
                        "best": _finite(row.get(f"{first}_best")),
                        "mean": _finite(row.get(f"{first}_mean")),
                    })  # fmt: skip
                generation = history[-1]["generation"] if history else None
                if contents.elites:
                    best = model_object(contents.elites[0].creature)
        return {
            "state": state,
            "generation": generation,
            "generations": self.generations,
            "history": history,
            "best_model": best,
            "run": str(self.folder),
            "message": self._message,
        }

    def has_generations(self) -> bool:
        """Whether the run folder holds a finished generation (its history has a row)."""
        if self.folder is None or not (self.folder / "history.csv").exists():
            return False
        try:
            return bool(read_run(self.folder, require_elites=False).history)
        except (EvoInputError, OSError, ValueError, KeyError):
            return False

    def shutdown(self) -> None:
        """Stop a run still going when the server stops, and wait for its checkpoint."""
        if self.busy:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
