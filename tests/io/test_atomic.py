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


NEEDS_PROC = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd")


def synced_names(monkeypatch) -> list[str]:
    """The names of the files (and folders) ``os.fsync`` is called on from now, in order."""
    names: list[str] = []
    real = os.fsync

    def fsync(fd):
        names.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return names


@NEEDS_PROC
def test_a_write_not_durable_is_whole_and_synced_later_each_file_then_its_folder_once(tmp_path, monkeypatch):
    synced = synced_names(monkeypatch)
    folder = tmp_path / "generations"
    for name in ("gen0001.json", "gen0002.json"):
        atomic_write_text(folder / name, name, durable=False)
    atomic_write_text(folder / "gen0002.json", "again", durable=False)  # replaced, still not synced
    assert synced == [] and sorted(p.name for p in folder.iterdir()) == ["gen0001.json", "gen0002.json"]
    assert (folder / "gen0002.json").read_text() == "again"
    atomic.make_durable(folder, ["gen0001.json", "gen0003.json", "gen0002.json"])  # gen0003 is not there
    assert synced == ["gen0001.json", "gen0002.json", "generations"]
    atomic.make_durable(folder, [])
    assert len(synced) == 3  # nothing to sync, not even the folder
    atomic_write_text(folder / "gen0004.json", "{}")  # durable: its temporary file, then the folder
    assert synced[3].startswith(".gen0004.json.") and synced[4:] == ["generations"]


def test_making_a_link_durable_is_refused_in_one_line(tmp_path):
    (tmp_path / "elsewhere.json").write_text("{}")
    (tmp_path / "gen0001.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(atomic.WriteFailed, match="cannot write") as raised:
        atomic.make_durable(tmp_path, ["gen0001.json"])
    assert str(tmp_path / "gen0001.json") in str(raised.value)


def test_a_file_with_the_bytes_of_another_is_a_hard_link_to_it_where_that_one_still_holds_them(tmp_path):
    source, path = tmp_path / "gen0001.json", tmp_path / "gen0002.json"
    atomic_write_bytes(source, b"best")
    assert atomic.link_or_write(source, path, b"best", durable=False)
    assert path.stat().st_ino == source.stat().st_ino and path.read_bytes() == b"best"
    other = tmp_path / "gen0003.json"  # other bytes: a file of its own
    assert not atomic.link_or_write(source, other, b"better", durable=False)
    assert other.read_bytes() == b"better" and other.stat().st_ino != source.stat().st_ino
    source.write_bytes(b"bestx")  # (edited in place: no longer the bytes asked for)
    assert not atomic.link_or_write(source, tmp_path / "gen0004.json", b"best")
    assert (tmp_path / "gen0004.json").read_bytes() == b"best"
    assert not atomic.link_or_write(tmp_path / "gone.json", tmp_path / "gen0005.json", b"best")
    assert (tmp_path / "gen0005.json").read_bytes() == b"best"


@NEEDS_PROC
def test_a_hard_link_is_never_made_to_a_link_or_over_a_file_and_is_made_durable_when_asked(
    tmp_path, monkeypatch
):
    (tmp_path / "elsewhere.json").write_bytes(b"best")
    (tmp_path / "gen0001.json").symlink_to(tmp_path / "elsewhere.json")
    path = tmp_path / "gen0002.json"
    assert not atomic.link_or_write(tmp_path / "gen0001.json", path, b"best")  # written, not linked
    assert not path.is_symlink() and path.stat().st_nlink == 1 and path.read_bytes() == b"best"
    (tmp_path / "gen0003.json").write_bytes(b"old")  # there already: replaced whole, as any write
    assert not atomic.link_or_write(path, tmp_path / "gen0003.json", b"best", durable=False)
    assert (tmp_path / "gen0003.json").read_bytes() == b"best"
    synced = synced_names(monkeypatch)
    assert atomic.link_or_write(path, tmp_path / "gen0004.json", b"best")
    assert synced == ["gen0004.json", tmp_path.name]


def test_a_fifo_or_a_longer_file_is_never_linked_to_and_the_fifo_does_not_block(tmp_path):
    fifo, path = tmp_path / "gen0001.json", tmp_path / "gen0002.json"
    os.mkfifo(fifo)  # no writer: opening it to read would wait for one, but for O_NONBLOCK
    assert not atomic.link_or_write(fifo, path, b"best") and path.read_bytes() == b"best"
    longer = tmp_path / "gen0003.json"
    longer.write_bytes(b"best and more")
    assert not atomic.link_or_write(longer, tmp_path / "gen0004.json", b"best")
    assert (tmp_path / "gen0004.json").stat().st_ino != longer.stat().st_ino


def test_a_link_to_a_source_replaced_after_it_was_read_is_undone_and_the_file_written(tmp_path, monkeypatch):
    source, path = tmp_path / "gen0001.json", tmp_path / "gen0002.json"
    source.write_bytes(b"best")
    real = os.link

    def swapped(src, dst, **kwargs):  # another file put in its place between the read and the link
        (tmp_path / "other.json").write_bytes(b"other")
        os.replace(tmp_path / "other.json", src)
        real(src, dst, **kwargs)

    monkeypatch.setattr(os, "link", swapped)
    assert not atomic.link_or_write(source, path, b"best")
    assert path.read_bytes() == b"best" and path.stat().st_nlink == 1
