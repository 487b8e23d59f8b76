"""A plugin that writes into what it is handed, through ``setflags(write=True)`` on the creature's and
the records' arrays, leaves the run's elites, generations and history as a well-behaved plugin leaves
them: in-process, on two forked workers and on a dask LocalCluster (issues 28 and 32)."""

from __future__ import annotations

from pathlib import Path

import pytest

import evo
from evo.fitness import registry

MEDDLER = Path(__file__).resolve().parents[1] / "fixtures" / "user_plugins" / "meddler"


def write_config(folder: Path, meddle: bool) -> Path:
    lines = [
        "[run]", 'name = "meddled"', "seed = 5", "generations = 3", "population = 10",
        "[evaluation]", "frames = 300", 'plugin = "meddler"', f'plugin_paths = ["{MEDDLER}"]',
        "[evaluation.params]", f"meddle = {str(meddle).lower()}",
        "[world]", "max_speed = 50.0",
    ]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "run.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def saved(folder: Path) -> dict[str, bytes]:
    """history.csv, the elites and the generation files, by name (the params they name left out)."""
    files = {"history.csv": (folder / "history.csv").read_bytes()}
    for sub in ("elites", "generations"):
        for path in sorted((folder / sub).glob("*.json")):
            files[f"{sub}/{path.name}"] = path.read_bytes()
    return {name: data.replace(b'"meddle": true', b'"meddle": false') for name, data in files.items()}


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTERED", {})
    monkeypatch.setattr(registry, "_REFS", {})


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("clean")
    evo.evolve(write_config(folder, False), out=folder / "run", workers=1, progress=False)
    return saved(folder / "run")


POOLS = {"in-process": {"workers": 1}, "fork": {"workers": 2, "backend": "fork"},
         "dask": {"workers": 2, "backend": "dask"}}  # fmt: skip


@pytest.mark.parametrize("options", POOLS.values(), ids=POOLS.keys())
def test_a_meddling_plugin_saves_the_files_a_clean_plugin_saves(clean, tmp_path, options):
    config = write_config(tmp_path, True)
    evo.evolve(config, out=tmp_path / "run", progress=False, **options)
    files = saved(tmp_path / "run")
    assert files.keys() == clean.keys() and any(k.startswith("generations/") for k in files)
    assert files == clean
