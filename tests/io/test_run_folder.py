import json
import math

import pytest

from evo.errors import EvoInputError
from evo.io.checkpoint.document import decode_number, decode_numbers, encode_numbers
from evo.io.models import dumps_model
from evo.io.run_folder.folder import RunFolder, elite_file_name, history_csv, model_digest
from evo.model import Creature


def _creature(rest: float = 10.0) -> Creature:
    return Creature(
        positions=[[0.0, 0.0], [10.0, 0.0]],
        velocities=[[0.0, 0.0], [0.0, 0.0]],
        fixed=[False, False],
        link_a=[0],
        link_b=[1],
        rest=[rest],
        alpha=[0.0],
        phi=[0.0],
    )


def test_non_finite_numbers_are_written_as_strings_and_read_back_identically():
    values = (1.5, -0.0, math.inf, -math.inf, math.nan, 1e-300)
    text = json.dumps(encode_numbers(values), allow_nan=False)
    assert text == '[1.5, -0.0, "inf", "-inf", "nan", 1e-300]'
    back = decode_numbers(json.loads(text))
    assert back[:4] == values[:4] and math.isnan(back[4]) and back[5] == 1e-300
    assert math.copysign(1.0, back[1]) == -1.0
    with pytest.raises(ValueError):
        decode_number("infinity")


def test_history_cells_keep_full_precision_and_write_non_finite_values_as_words():
    text = history_csv(["generation", "best", "mean", "exploded"], [
        {"generation": 0, "best": 0.1 + 0.2, "mean": math.nan, "exploded": 2},
        {"generation": 1, "best": -math.inf, "mean": 1.0, "exploded": 0},
    ])  # fmt: skip
    assert text.splitlines() == [
        "generation,best,mean,exploded",
        "0,0.30000000000000004,nan,2",
        "1,-inf,1.0,0",
    ]


def test_elite_names_sort_in_rank_order_and_name_the_generation_and_body():
    names = [elite_file_name(rank, 12, 7, model_digest(_creature(rank))) for rank in range(1, 13)]
    assert names == sorted(names)
    assert names[0].startswith("01_gen0007_") and names[0].endswith(".json")
    assert model_digest(_creature(5.0)) == model_digest(_creature(5.0).replace(name="other", meta={"x": 1}))
    assert model_digest(_creature(5.0)) != model_digest(_creature(6.0))


def test_elites_that_move_in_rank_are_renamed_and_the_rest_removed(tmp_path):
    folder = RunFolder(tmp_path / "run")
    folder.create("", force=False)
    a, b, c = (dumps_model(_creature(r)) for r in (1.0, 2.0, 3.0))
    folder.write_elites([("01_a.json", a), ("02_b.json", b)])
    before = (folder.elites / "01_a.json").stat().st_ino
    folder.write_elites([("01_b.json", b), ("02_a.json", a), ("03_c.json", c)])
    assert [p.name for p in folder.elite_files()] == ["01_b.json", "02_a.json", "03_c.json"]
    assert (folder.elites / "02_a.json").read_text() == a
    assert (folder.elites / "02_a.json").stat().st_ino == before  # renamed, not rewritten
    folder.write_elites([("01_c.json", c)])
    assert [p.name for p in folder.elite_files()] == ["01_c.json"]
    assert not list(folder.elites.glob(".*"))


def test_elite_files_changed_or_removed_behind_the_writers_back_are_put_right_on_the_next_write(tmp_path):
    folder = RunFolder(tmp_path / "run")
    folder.create("", force=False)
    a, b = (dumps_model(_creature(r)) for r in (1.0, 2.0))
    elites = [("01_a.json", a), ("02_b.json", b)]
    folder.write_elites(elites)
    (folder.elites / "01_a.json").write_text(a + "\n")  # edited (another size)
    (folder.elites / "02_b.json").unlink()
    (folder.elites / "03_stray.json").write_text(b)
    linked = folder.elites / "04_link.json"
    linked.symlink_to(folder.elites / "01_a.json")
    folder.write_elites(elites)
    assert [p.name for p in folder.elite_files()] == ["01_a.json", "02_b.json"]
    assert (folder.elites / "01_a.json").read_text() == a and (folder.elites / "02_b.json").read_text() == b
    assert not linked.is_symlink()
    # a name that is now a link to one of the texts is not taken as written: its text moves or is rewritten
    (folder.elites / "02_b.json").unlink()
    (folder.elites / "02_b.json").symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_text(b)
    folder.write_elites(elites)
    assert (tmp_path / "elsewhere.json").read_text() == b  # never written through
    assert not (folder.elites / "02_b.json").is_symlink()
    assert (folder.elites / "02_b.json").read_text() == b


def test_an_existing_folder_is_refused_unless_forced_and_force_keeps_other_files(tmp_path):
    folder = RunFolder(tmp_path / "run")
    folder.check_new(force=False)  # nothing there yet
    folder.create("first\n", force=False)
    folder.checkpoint.write_bytes(b"a checkpoint")
    (folder.path / ".checkpoint.npz.x1y2.tmp").write_bytes(b"left by a kill -9")
    (folder.path / "notes.txt").write_text("mine")
    with pytest.raises(EvoInputError, match="--resume .* --force"):
        folder.check_new(force=False)
    folder.create("second\n", force=True)
    assert folder.config.read_text() == "second\n"
    assert not folder.checkpoint.exists() and not (folder.path / ".checkpoint.npz.x1y2.tmp").exists()
    assert (folder.path / "notes.txt").read_text() == "mine"


def test_resuming_needs_a_checkpoint_or_the_config_of_a_run_stopped_before_its_first(tmp_path):
    folder = RunFolder(tmp_path / "run")
    with pytest.raises(EvoInputError, match="no checkpoint to resume from; run without --resume to"):
        folder.check_resumable()
    folder.path.mkdir()
    (folder.path / "notes.txt").write_text("not a run")
    with pytest.raises(EvoInputError, match="no checkpoint to resume from; use --force to start over"):
        folder.check_resumable()
    folder.create("", force=True)  # a run killed before its first checkpoint: --resume starts it over
    folder.check_resumable()


def test_a_failed_creature_is_saved_under_failed(tmp_path):
    folder = RunFolder(tmp_path / "run")
    folder.create("", force=False)
    path = folder.save_failed(_creature().replace(meta={"error": "boom"}), 3, 17)
    assert path == folder.failed / "gen0003_017.json"
    assert json.loads(path.read_text())["meta"] == {"error": "boom"}
