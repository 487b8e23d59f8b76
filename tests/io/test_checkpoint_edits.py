"""A checkpoint is input: every edit that issue 22 found accepted or crashing (an empty population, a
generation of -1, 1.5 or 1000000, seed "7", ...) is refused by ``--resume`` in one line with status 2
before anything is written, and by open_run, read_run and evo inspect in one line. The edits are made
with a recomputed checksum (a forger's edit); an edit without one is named as such."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fuzz_strategies import loads_or_refuses

import evo
from evo.cli import main
from evo.cli.inspect import leaderboard
from evo.io.checkpoint.disk import read_checkpoint_document
from evo.io.npz_file import read_npz, write_npz
from evo.io.run_folder.contents import read_run

CONFIG = """[run]
name = "edits"
generations = {generations}
population = 4
seed = 5
[evaluation]
frames = 50
[pool]
workers = 1
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("edits")
    (base / "c.toml").write_text(CONFIG.format(generations=2))
    (base / "more.toml").write_text(CONFIG.format(generations=4))
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", str(base / "c.toml"), "--out", str(base / "run"), "--quiet"]) == 0
    return base


Arrays = dict[str, np.ndarray]


def _head(edit: Callable[[dict], None]) -> Callable[[Arrays], None]:
    def apply(arrays: Arrays) -> None:
        head = json.loads(arrays["head"].tobytes())
        edit(head)
        arrays["head"] = np.frombuffer(json.dumps(head).encode(), dtype=np.uint8)

    return apply


def _set(name: str, value: Callable[[np.ndarray], np.ndarray]) -> Callable[[Arrays], None]:
    def apply(arrays: Arrays) -> None:
        arrays[name] = value(arrays[name])

    return apply


def _first(array: np.ndarray, value) -> np.ndarray:
    out = array.copy()
    out[0] = value
    return out


def _empty_population(arrays: Arrays) -> None:
    for name in [n for n in arrays if n.startswith("population.")]:
        arrays[name] = arrays[name][:0]


def _huge_model(arrays: Arrays) -> None:
    """The first individual with 100,001 masses (the size limit is 100,000)."""
    n = arrays["population.n_masses"].shape[0]
    arrays["population.n_masses"] = _first(arrays["population.n_masses"], 100_001)
    for name, tail in (("positions", (2,)), ("velocities", (2,)), ("fixed", ()), ("mass", ())):
        old = arrays[f"population.{name}"]
        new = np.zeros((n, 100_001, *tail), dtype=old.dtype)
        new[:, : old.shape[1]] = old
        if name == "mass":
            new[0] = 1.0
        if name == "positions":
            new[0, :, 0] = np.arange(100_001)
        arrays[f"population.{name}"] = new


def _deep(arrays: Arrays) -> None:
    text = arrays["head"].tobytes().decode()
    nested = "[" * 100_000 + "]" * 100_000
    text = text.replace('"rng":', f'"rng":{nested},"was_rng":', 1)
    arrays["head"] = np.frombuffer(text.encode(), dtype=np.uint8)


def _repeated_key(arrays: Arrays) -> None:
    text = arrays["head"].tobytes().decode().replace('"seed":', '"seed":8,"seed":', 1)
    arrays["head"] = np.frombuffer(text.encode(), dtype=np.uint8)


EDITS = {
    "an empty population": _empty_population,
    "generation -1": _head(lambda h: h.update(generation=-1)),
    "generation 1.5": _head(lambda h: h.update(generation=1.5)),
    "generation 1000000": _head(lambda h: h.update(generation=1_000_000)),
    "seed '7'": _head(lambda h: h.update(seed="7")),
    "objectives ['x']": _head(lambda h: h.update(objectives=["x"])),
    "an empty logbook": _head(
        lambda h: h["history"].update(rows=0, bytes=0, sha256=hashlib.sha256().hexdigest())
    ),
    "an unknown key": _head(lambda h: h.update(colour="red")),
    "a key given twice": _repeated_key,
    "a missing key": _head(lambda h: h.pop("rng")),
    "an id that is a number": _set("population.id", lambda a: np.arange(len(a))),
    "parents that are not ids": _set("population.parents", lambda a: _first(a, '"x"')),
    "born -1": _set("population.born", lambda a: _first(a, -1)),
    "exploded 'no'": _set("population.exploded", lambda a: np.array(["no"] * len(a))),
    "a fitness of nan": _set("population.fitness", lambda a: _first(a, np.nan)),
    "a model with 100,001 masses": _huge_model,
    "a negative rest length": _set("population.rest", lambda a: _first(a, -1.0)),
    "deep nesting": _deep,
    "a 5000-digit integer": _head(lambda h: h.update(seed=int("9" * 4000))),
}


def _forge(folder: Path, edit: Callable[[Arrays], None]) -> None:
    arrays = read_npz(folder / "checkpoint.npz")
    edit(arrays)
    write_npz(folder / "checkpoint.npz", arrays)  # with the checksum of the edited content


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _resume_refused(made: Path, folder: Path) -> str:
    before = _files(folder)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["run", str(made / "more.toml"), "--out", str(folder), "--resume", "--quiet"])
    message = err.getvalue().strip()
    assert status == 2 and len(message.splitlines()) == 1 and "Traceback" not in message, message
    assert _files(folder) == before, "--resume wrote something before refusing"
    return message


@pytest.mark.parametrize("case", list(EDITS))
def test_an_edited_checkpoint_is_refused_by_resume_in_one_line_and_nothing_is_rewritten(made, tmp_path, case):
    folder = tmp_path / "run"
    shutil.copytree(made / "run", folder)
    _forge(folder, EDITS[case])
    message = _resume_refused(made, folder)
    assert "checkpoint.npz" in message
    for read in (read_run, evo.open_run, leaderboard):
        assert loads_or_refuses(lambda read=read: read(folder), folder) is None, f"{read} accepted {case}"


@pytest.mark.parametrize("how", ["a flipped bit", "an array rewritten"])
def test_an_edit_without_a_new_checksum_is_named_as_an_edited_or_corrupted_checkpoint(made, tmp_path, how):
    folder = tmp_path / "run"
    shutil.copytree(made / "run", folder)
    path = folder / "checkpoint.npz"
    if how == "a flipped bit":
        data = bytearray(path.read_bytes())
        data[data.index(b"population.rest.npy") + 200] ^= 0x01  # a byte of the rest lengths' data
        path.write_bytes(bytes(data))
    else:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}  # the old checksum among them
        arrays["population.rest"] = arrays["population.rest"] * 1.01
        np.savez(path, **arrays)
    message = _resume_refused(made, folder)
    assert "the checkpoint was edited or is corrupted" in message


def test_a_history_that_does_not_match_the_checkpoint_is_refused(made, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(made / "run", folder)
    history = folder / "history.csv"
    history.write_text(history.read_text().replace(",0\n", ",1\n", 1))
    assert "history.csv does not match the checkpoint" in _resume_refused(made, folder)


def test_a_checkpoint_of_format_version_1_is_read_but_not_resumed(made, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(made / "run", folder)
    doc = read_checkpoint_document(folder)
    (folder / "checkpoint.json").write_text(json.dumps({**doc, "version": 1}))
    (folder / "checkpoint.npz").unlink()
    message = _resume_refused(made, folder)
    assert "checkpoint format version 1 (JSON)" in message and "checkpoint.json" in message
    assert evo.open_run(folder).generation == 1
    assert [e.file_name for e in read_run(folder).elites] == sorted(
        p.name for p in (folder / "elites").iterdir()
    )
    doc["population"] = []
    (folder / "checkpoint.json").write_text(json.dumps({**doc, "version": 1}))
    with pytest.raises(evo.EvoInputError, match="population: expected a non-empty list"):
        read_run(folder)


def test_a_logbook_row_of_only_its_generation_is_refused_even_with_a_matching_history_mark(made, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(made / "run", folder)
    text = b"generation\n0\n1\n"  # issue 22: a first row of {"generation": 0} gave a NaN conversion error
    (folder / "history.csv").write_bytes(text)
    mark = {"rows": 2, "bytes": len(text), "sha256": hashlib.sha256(text).hexdigest()}
    _forge(folder, _head(lambda h: h.update(history=mark)))
    message = _resume_refused(made, folder)
    assert "logbook[0]: missing" in message and "checkpoint.npz" in message


CRASHERS = Path(__file__).resolve().parents[1] / "fixtures" / "crashers"
LEGACY_EDITS = sorted(
    path.name
    for path in CRASHERS.glob("checkpoint_*.json")
    if not path.name.startswith(("checkpoint_weight_", "checkpoint_model_key", "checkpoint_generation_inf"))
)


@pytest.mark.parametrize("name", LEGACY_EDITS)
def test_each_edit_of_a_version_1_checkpoint_in_the_corpus_is_refused_in_one_line(made, tmp_path, name):
    folder = tmp_path / "run"
    shutil.copytree(made / "run", folder)
    (folder / "checkpoint.npz").unlink()
    shutil.copy(CRASHERS / name, folder / "checkpoint.json")
    for read in (read_run, evo.open_run, leaderboard):
        assert loads_or_refuses(lambda read=read: read(folder), folder) is None, f"{read} accepted {name}"
    assert len(LEGACY_EDITS) >= 11
