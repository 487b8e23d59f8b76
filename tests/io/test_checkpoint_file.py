"""checkpoint.npz: the same bytes for the same state, every creature field back exactly (world, meta and
polygons included), no pickle, and history.csv as its append-only logbook."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from evo.errors import EvoInputError
from evo.ga.individual import Individual
from evo.ga.loop import EvolutionState, history_columns
from evo.io.checkpoint.disk import (
    HistoryLog,
    checkpoint_arrays,
    read_checkpoint_document,
    remove_stale_temporaries,
    write_checkpoint_file,
)
from evo.io.checkpoint.document import checkpoint_contents, state_from_dict
from evo.io.models import creature_to_dict
from evo.io.npz_file import dumps_npz, read_npz
from evo.io.run_folder.folder import history_csv
from evo.model import Creature, Polygon


def _creature(k: int, **extra) -> Creature:
    n = 3 + k
    return Creature(
        positions=[[10.0 * i + 0.1 * k, 5.0 * (i % 2)] for i in range(n)],
        velocities=[[0.5 * (i == 1), -0.25 * (i == 2)] for i in range(n)],
        fixed=[i == 0 for i in range(n)],
        link_a=list(range(n - 1)),
        link_b=list(range(1, n)),
        rest=[10.0 + 1e-13 * k] * (n - 1),
        alpha=[0.0, 0.7] + [0.1] * (n - 3),
        phi=[0.0, math.pi] + [1.0] * (n - 3),
        omega=0.1 + k,
        beta=0.5,
        stiffness=[1.0, 2.5] + [1.0] * (n - 3),
        dashpot=[0.0, 0.3] + [0.0] * (n - 3),
        mass=[1.0, 4.0] + [1.0] * (n - 2),
        name=f"c{k}\x00" if k == 1 else f"c{k} \u00e9\U0001f600",  # a trailing NUL, non-ASCII text
        **extra,
    )


def _state() -> EvolutionState:
    special = dict(
        world={"gravity": 0.3},
        meta={"note": "seed", "nested": {"a": [1, 2]}},
        polys=(Polygon((0, 1, 2), color="#abc", curvy=True), Polygon((1, 2, 3))),
        wave_phase=0.25,
        wave_reverse=True,
        autoreverse=True,
    )
    individuals = []
    for k in range(4):
        ind = Individual(
            _creature(k, **(special if k == 2 else {})), (1.0, -1.0), id=f"g{k % 2}-{k}", born=k % 2
        )
        ind.parents = () if k < 2 else ("g0-0", "g0-1")
        ind.set_fitness((float(k), -math.inf if k == 3 else 0.5 * k), exploded=k == 3, seed=2**64 - 1 - k)
        individuals.append(ind)
    logbook = tuple(
        {**{c: 0.5 for c in history_columns(("a", "b"))}, "generation": g, "evaluations": 4, "exploded": 0}
        for g in range(2)
    )
    return EvolutionState(
        generation=1,
        seed=7,
        objectives=("a", "b"),
        weights=(1.0, -1.0),
        rng=np.random.default_rng(3).bit_generator.state,
        population=tuple(individuals),
        hall_of_fame=tuple(individuals[:2]),
        logbook=logbook,
    )


def _write(folder, state: EvolutionState) -> None:
    history = HistoryLog(folder / "history.csv")
    columns = history_columns(state.objectives)
    history.start(history_csv(columns, []), rows=0)
    history.append(history_csv(columns, state.logbook).split("\n", 1)[1])
    head, groups = checkpoint_contents(state)
    write_checkpoint_file(folder, checkpoint_arrays({**head, "history": history.mark()}, groups))


def test_a_state_written_as_npz_reads_back_to_every_field_of_every_creature(tmp_path):
    state = _state()
    _write(tmp_path, state)
    doc = read_checkpoint_document(tmp_path)
    back = state_from_dict(doc, state.weights)
    for a, b in zip(
        (*state.population, *state.hall_of_fame), (*back.population, *back.hall_of_fame), strict=True
    ):
        assert json.dumps(creature_to_dict(a.creature)) == json.dumps(creature_to_dict(b.creature))
        assert (a.id, a.parents, a.born, a.seed, a.exploded, a.values) == (
            b.id, b.parents, b.born, b.seed, b.exploded, b.values,
        )  # fmt: skip
    assert back.rng == state.rng and back.logbook == state.logbook and back.generation == 1
    assert back.population[2].creature.polys == state.population[2].creature.polys


def test_the_same_state_gives_the_same_bytes_and_no_pickle_is_needed(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _write(tmp_path / "a", _state())
    _write(tmp_path / "b", _state())
    assert (tmp_path / "a" / "checkpoint.npz").read_bytes() == (
        tmp_path / "b" / "checkpoint.npz"
    ).read_bytes()
    with np.load(tmp_path / "a" / "checkpoint.npz", allow_pickle=False) as npz:
        assert all(npz[name].dtype.kind in "biufU" for name in npz.files)
    with pytest.raises(TypeError, match="object"):
        dumps_npz({"x": np.array([{"a": 1}], dtype=object)})
    assert not list(tmp_path.rglob(".*.tmp"))


def test_the_history_is_appended_to_and_never_through_a_symlink(tmp_path):
    history = HistoryLog(tmp_path / "history.csv")
    history.start("generation\n", rows=0)
    history.append("0\n")
    history.append("1\n")
    assert (tmp_path / "history.csv").read_text() == "generation\n0\n1\n" and history.rows == 2
    assert history.mark()["bytes"] == len("generation\n0\n1\n")
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("mine\n")
    (tmp_path / "history.csv").unlink()
    os.symlink(elsewhere, tmp_path / "history.csv")
    with pytest.raises(OSError):
        history.append("2\n")
    assert elsewhere.read_text() == "mine\n"


def test_a_history_that_is_not_a_regular_file_is_refused_in_one_line(tmp_path):
    _write(tmp_path, _state())
    (tmp_path / "history.csv").unlink()
    os.mkfifo(tmp_path / "history.csv")  # reading it would block
    with pytest.raises(EvoInputError, match="history.csv, which holds the checkpoint's logbook, is missing"):
        read_checkpoint_document(tmp_path)


def test_stale_temporaries_are_removed_and_nothing_else(tmp_path):
    (tmp_path / "generations").mkdir()
    stale = [tmp_path / ".checkpoint.npz.abc123.tmp", tmp_path / "generations" / ".gen0003.json.x.tmp"]
    kept = [tmp_path / "notes.tmp", tmp_path / "generations" / "gen0003.json"]
    for path in stale + kept:
        path.write_text("x")
    assert sorted(remove_stale_temporaries(tmp_path, ("generations", "elites"))) == sorted(stale)
    assert all(p.exists() for p in kept) and not any(p.exists() for p in stale)


def test_a_file_that_is_not_an_npz_is_one_line(tmp_path):
    (tmp_path / "checkpoint.npz").write_bytes(b"not a zip at all")
    with pytest.raises(EvoInputError, match="checkpoint.npz"):
        read_npz(tmp_path / "checkpoint.npz")


def _deflated_npz(path, array: np.ndarray) -> None:
    import io
    import zipfile

    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.npy", buffer.getvalue())


def test_a_checkpoint_whose_compressed_data_is_corrupted_is_a_one_line_input_error(tmp_path):
    path = tmp_path / "checkpoint.npz"
    _deflated_npz(path, np.arange(100_000))
    data = bytearray(path.read_bytes())
    data[200:260] = bytes(b ^ 0xFF for b in data[200:260])
    path.write_bytes(bytes(data))
    with pytest.raises(EvoInputError, match="compression method 8; evo stores members"):
        read_npz(path)


def test_a_bare_npy_array_named_as_a_checkpoint_is_a_one_line_input_error(tmp_path):
    path = tmp_path / "checkpoint.npz"
    with path.open("wb") as f:
        np.save(f, np.arange(3))
    with pytest.raises(EvoInputError, match="not a readable .npz"):
        read_npz(path)


def test_a_checkpoint_that_would_unpack_past_the_size_bound_is_refused_before_it_is_unpacked(
    tmp_path, monkeypatch
):
    from evo.io import npz_file

    path = tmp_path / "checkpoint.npz"
    _deflated_npz(path, np.zeros(1_000_000))
    monkeypatch.setattr(npz_file, "MAX_NPZ_BYTES", path.stat().st_size * 10)
    with pytest.raises(EvoInputError, match="compression method 8"):  # refused before it is unpacked
        read_npz(path)


@pytest.mark.parametrize("cell", ["x", "1e999999x", "nan?"])
def test_a_history_with_a_cell_that_is_not_a_number_is_a_one_line_input_error(tmp_path, cell):
    state = _state()
    history = HistoryLog(tmp_path / "history.csv")
    header, rows = history_csv(history_columns(state.objectives), state.logbook).split("\n", 1)
    history.start(f"{header}\n{cell}{rows[rows.index(',') :]}", rows=rows.count("\n"))
    head, groups = checkpoint_contents(state)
    write_checkpoint_file(tmp_path, checkpoint_arrays({**head, "history": history.mark()}, groups))
    with pytest.raises(EvoInputError, match="history"):
        read_checkpoint_document(tmp_path)
