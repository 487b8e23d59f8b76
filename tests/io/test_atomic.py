import os
import stat

import pytest

from evo.io import atomic
from evo.io.atomic import atomic_write_bytes, atomic_write_text


@pytest.fixture
def umask_022():
    atomic.new_file_mode.cache_clear()
    old = os.umask(0o022)
    yield
    os.umask(old)
    atomic.new_file_mode.cache_clear()


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_permissions_of_any_new_file_not_only_its_owners(tmp_path, umask_022):
    path = tmp_path / "model.json"
    atomic_write_text(path, "{}")
    assert path.read_text() == "{}"
    assert mode(path) == 0o644  # mkstemp alone gives 0o600


def test_a_replaced_file_keeps_its_permissions(tmp_path, umask_022):
    path = tmp_path / "trace.csv"
    path.write_text("old")
    path.chmod(0o640)
    atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"new" and mode(path) == 0o640


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "a.json"
    path.write_text("old")

    def fail(*_):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
