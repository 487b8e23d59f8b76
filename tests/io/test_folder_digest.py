"""A folder's digest changes with any file's bytes or name and ignores the files it is told to."""

from evo.io.folder_digest import folder_digest


def test_the_digest_follows_bytes_and_names_and_skips_ignored_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.json").write_bytes(b"1")
    (tmp_path / "run.log").write_text("12:00")
    first = folder_digest(tmp_path, ["run.log"])
    (tmp_path / "run.log").write_text("12:01")
    assert folder_digest(tmp_path, ["run.log"]) == first != folder_digest(tmp_path)
    (tmp_path / "a" / "x.json").write_bytes(b"2")
    assert folder_digest(tmp_path, ["run.log"]) != first
    (tmp_path / "a" / "x.json").write_bytes(b"1")
    (tmp_path / "a" / "x.json").rename(tmp_path / "a" / "y.json")
    assert folder_digest(tmp_path, ["run.log"]) != first
