""" "Evolve from here": ``evo run`` in a child process seeded with the current design, its progress read
from the run folder; Stop is SIGTERM (the run ends at a checkpoint and ``evo run --resume`` continues it)."""

from __future__ import annotations

import asyncio
import signal
import tomllib
from pathlib import Path
from typing import Any

from evo.analysis.summary import finite
from evo.errors import EvoInputError
from evo.io.atomic import atomic_write_text
from evo.io.models import save_model
from evo.io.run_folder.contents import read_run
from evo.io.studio_files import claim_folder
from evo.io.tomlfiles import dumps_toml
from evo.model import Creature
from evo.run.config import parse_config, resolve
from evo.studio import children
from evo.studio.designs import model_object
from evo.studio.limits import StudioLimits
from evo.studio.routing import Refused
from evo.studio.session import StudioSession

__all__ = ["DEFAULT_CONFIG", "EvolutionRunner", "check_config", "default_config"]

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


def _document(text: str, world: dict[str, Any] | None, seed_file: Path | None) -> dict[str, Any]:
    """The config document: ``text`` parsed, the design's ``world`` under its ``[world]``, ``seed_file``
    as its only seed model."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EvoInputError(f"not valid TOML: {exc}", source="config") from None
    except RecursionError:
        raise EvoInputError("not valid TOML: nested too deeply", source="config") from None
    if world:
        doc["world"] = _merged_world(world, doc.get("world", {}))
    if seed_file is not None:
        genome = doc.setdefault("genome", {})
        if not isinstance(genome, dict):
            raise EvoInputError("[genome]: expected a table", source="config")
        genome["seed_models"] = [str(seed_file)]
    return doc


def check_config(text: str, world: dict[str, Any] | None, limits: StudioLimits) -> list[str]:
    """The errors ``evo validate`` would give for the config text, the design's world under its
    ``[world]`` (a one-line list; empty when valid). Imports the config's plugins: a child process calls
    it. The seed model is checked against the config's size limits by ``evo run`` itself."""
    try:
        config = resolve(parse_config(_document(text, world, None), source="config", default_name="studio"))
    except EvoInputError as exc:
        return [f"evo validate: error: {exc}"]
    except RecursionError:
        return ["evo validate: error: config: nested too deeply"]
    if config.evaluation.frames > limits.frames:
        return [
            f"evo studio: error: config: [evaluation] frames: the studio evolves with at most "
            f"{limits.frames} frames per evaluation, got {config.evaluation.frames}"
        ]
    return []


class EvolutionRunner:
    """One evolution at a time (the session's ``evolution`` job): ``evo run`` in a child process, watched
    through its run folder.

    Files: ``BASE/runs/NAME-K/`` is the run folder (``BASE/NAME-K/`` when BASE is itself a ``runs``
    folder); ``.studio/NAME-K/`` beside it holds the config and the seed model it was started from (the
    run folder's own ``config.toml`` names that seed by absolute path); making it claims K.

    Args:
        session: the studio session (its limits, start folder and ``evolution`` job).
    """

    def __init__(self, session: StudioSession):
        self.session = session
        self.job = session.evolution

    @property
    def folder(self) -> Path | None:
        """The run folder of the last evolution, or None."""
        return self.session.evolved

    async def start(self, text: str, seed: Creature | None) -> Path:
        """Check the config (in a child: it imports plugins), claim a run folder, write the config (and
        seed) and start ``evo run`` on them; the new run folder.

        Raises:
            Refused: a config ``evo validate`` refuses (400, every error line).
            Busy: an evolution is running.
            EvoInputError: files that cannot be written.
        """
        session = self.session
        world = dict(seed.world) if seed is not None and seed.world else None
        payload = {"config": text, "world": world, "limits": session.limits.to_dict()}
        errors = await children.call(
            "check",
            payload,
            what="the config check",
            cwd=session.workdir,
            seconds=session.limits.child_seconds,
        )
        if errors:
            raise Refused(errors[0], 400, errors=errors)
        self.job.claim()  # no await between here and the child's start: one of N presses gets here first
        try:
            folder, config_file = self._stage(text, seed)
        except BaseException as exc:
            self.job.end("failed", str(exc))
            raise
        argv = ("run", str(config_file), "--out", str(folder), "--quiet")
        child = await children.spawn("run", None, what="evo run", cwd=session.workdir, argv=argv)
        self.session.evolved = folder
        self.job.on_stop(lambda: child.say("stop"))
        asyncio.ensure_future(self._watch(child))
        return folder

    def _stage(self, text: str, seed: Creature | None) -> tuple[Path, Path]:
        base = self.session.workdir
        runs = base if base.name == "runs" else base / "runs"  # a studio started on runs/NAME: beside it
        name = str(_document(text, None, None).get("run", {}).get("name", "studio"))
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:64] or "studio"
        staging, k = claim_folder(runs / ".studio", safe, within=base, taken=runs)
        seed_file = staging / "seed.json" if seed is not None else None
        doc = _document(text, dict(seed.world) if seed is not None and seed.world else None, seed_file)
        try:
            if seed is not None:
                save_model(seed, seed_file)
            atomic_write_text(staging / "config.toml", dumps_toml(doc))
        except OSError as exc:
            raise EvoInputError(f"cannot write: {exc.strerror or exc}", source=str(staging)) from None
        self.session.evolved_generations = int(doc.get("run", {}).get("generations", 0) or 0)
        return runs / f"{safe}-{k}", staging / "config.toml"

    async def _watch(self, child: children.Child) -> None:
        async for _ in child.lines():  # evo run --quiet says little; read it so its pipe never fills
            pass
        code = await child.wait()
        if code == 0:
            self.job.end("done", "done")
        elif self.job.stop_asked and code in (130, 143, -signal.SIGTERM):
            if await asyncio.to_thread(self.has_generations):
                self.job.end("done", "stopped at a checkpoint: evo run --resume continues it")
            else:  # stopped before its first generation was saved (or before evo run could take the signal)
                self.job.end("done", "stopped before its first generation: there is no run to resume")
        else:
            self.job.end("failed", child.errors[-1] if child.errors else f"evo run ended with status {code}")

    def stop(self) -> None:
        """Ask the run to stop at its next checkpoint (SIGTERM, as ``evo run`` takes it)."""
        self.job.stop()

    def state(self) -> dict[str, Any]:
        """``{"state", "generation", "generations", "history", "best_model", "run", "message"}``."""
        job = self.job.snapshot()
        if self.folder is None:
            return {"state": "idle", "generation": None, "generations": 0, "history": [], "best_model": None,
                    "run": None, "message": ""}  # fmt: skip
        state = "stopping" if job.stopping else job.state
        history, best, generation = [], None, None
        if (self.folder / "history.csv").exists():
            try:
                contents = read_run(self.folder, require_elites=False)
            except (EvoInputError, OSError, ValueError, KeyError):  # caught between two of its writes
                contents = None
            if contents is not None:
                first = contents.objectives[0] if contents.objectives else None
                for row in contents.history:
                    history.append({
                        "generation": int(row["generation"]),
                        "best": _number(row.get(f"{first}_best")),
                        "mean": _number(row.get(f"{first}_mean")),
                    })  # fmt: skip
                generation = history[-1]["generation"] if history else None
                if contents.elites:
                    best = model_object(contents.elites[0].creature)
        return {
            "state": state,
            "generation": generation,
            "generations": self.session.evolved_generations,
            "history": history,
            "best_model": best,
            "run": str(self.folder),
            "message": job.message,
        }

    def has_generations(self) -> bool:
        """Whether the run folder holds a finished generation (its history has a row)."""
        if self.folder is None or not (self.folder / "history.csv").exists():
            return False
        try:
            return bool(read_run(self.folder, require_elites=False).history)
        except (EvoInputError, OSError, ValueError, KeyError):
            return False


def _number(x: Any) -> float | None:
    """A history cell as a finite float, or None (empty, not a number, NaN or infinite)."""
    return finite(x) if isinstance(x, int | float) and not isinstance(x, bool) else None
