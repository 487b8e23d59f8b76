"""User paths that are not what they seem (issue 32): run-folder files that are FIFOs, /dev/zero or huge
sparse files; output paths that are FIFOs, links or device nodes; a linked gallery folder; a full disk; a
checkpoint.npz with zip features evo never writes; a name that is not UTF-8. Each is one line or is
read around, never a hang, a traceback, a replaced node or a write outside the run folder."""

from __future__ import annotations

import errno
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import evo
from evo.cli import main

ROOT = Path(__file__).resolve().parents[2]
GALLOPER = str(ROOT / "genomes" / "galloper.json")
TINY = """
[run]
name = "hostile"
seed = 2
generations = 2
population = 6
[evaluation]
frames = 100
plugin = "distance"
"""


@pytest.fixture(scope="module")
def made_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("made")
    (folder / "c.toml").write_text(TINY)
    evo.evolve(folder / "c.toml", out=folder / "run", progress=False)
    return folder / "run"


@pytest.fixture
def run(made_run, tmp_path) -> Path:
    shutil.copytree(made_run, tmp_path / "run")
    return tmp_path / "run"


def _one_line_error(capsys, status: int) -> str:
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (status, err)
    return err


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _zero(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


def _sparse(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(3 << 30)  # 3 GiB of holes: nothing on disk


READERS = {"a FIFO": _fifo, "/dev/zero": _zero, "a sparse 3 GiB file": _sparse}
FILES = ["run.log", "elites/01", "generations/gen0000.json", "config.toml"]


@pytest.mark.parametrize("kind", sorted(READERS))
def test_run_folder_files_that_are_fifos_devices_or_huge_are_read_around_or_refused_without_hanging(
    run, tmp_path, kind
):
    for name in FILES:
        path = next(run.glob(name + "*"))
        READERS[kind](path)
    script = (
        "import sys; from evo.cli import main\n"
        "for args in (['inspect', sys.argv[1]], ['gallery', sys.argv[1]],\n"
        "             ['race', '--from', sys.argv[1], '--out', sys.argv[2]]):\n"
        "    print(main(args), flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(run), str(tmp_path / "race.xml")],
        capture_output=True,
        text=True,
        timeout=120,  # a hang is a failure, not a stuck suite
    )
    statuses = done.stdout.split()[-3:]
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert all(status in ("0", "2") for status in statuses), done.stdout
    assert len(done.stderr.strip().splitlines()) <= 3, done.stderr


def _patched_npz(path: Path, *, flags: int | None = None, method: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = data.find(signature)
        while start >= 0:
            if flags is not None:
                struct.pack_into("<H", data, start + at, flags)
            if method is not None:
                struct.pack_into("<H", data, start + at + 2, method)
            start = data.find(signature, start + 4)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("change", [{"method": 6}, {"flags": 1}], ids=["method-6", "encrypted"])
def test_a_checkpoint_with_zip_features_evo_never_writes_is_one_line_in_every_reader(
    run, tmp_path, capsys, change
):
    _patched_npz(run / "checkpoint.npz", **change)
    (tmp_path / "c.toml").write_text(TINY)
    for args in (
        ["inspect", run],
        ["gallery", run],
        ["race", "--from", run, "--out", tmp_path / "r.xml"],
        ["run", tmp_path / "c.toml", "--out", run, "--resume", "--quiet"],
    ):
        err = _one_line_error(capsys, main([str(a) for a in args]))
        assert "checkpoint.npz" in err, (args, err)


def _writers(run: Path, out: Path) -> list[list[str]]:
    frames = ["--frames", "40"]
    return [
        ["simulate", GALLOPER, *frames, "--trace", str(out)],
        ["replay", GALLOPER, *frames, "--svg", str(out)],
        ["replay", GALLOPER, *frames, "--gif", str(out)],
        ["analyze", GALLOPER, "--svg", str(out)],
        ["refine", GALLOPER, "--plugin", "distance", *frames, "--budget", "20", "--out", str(out), "--quiet"],
        ["race", "--from", str(run), "--out", str(out)],
    ]


def test_an_output_path_that_is_a_fifo_or_a_link_is_refused_and_left_as_it_is(run, tmp_path, capsys):
    fifo, link, outside = tmp_path / "fifo", tmp_path / "link", tmp_path / "outside.txt"
    os.mkfifo(fifo)
    outside.write_text("keep\n")
    link.symlink_to(outside)
    for target in (fifo, link):
        for args in _writers(run, target):
            err = _one_line_error(capsys, main(args))
            assert str(target) in err and ("FIFO" in err or "symbolic link" in err), (args, err)
    assert fifo.is_fifo() and link.is_symlink() and outside.read_text() == "keep\n"


def test_a_device_node_as_an_output_path_is_never_replaced(run, tmp_path, capsys):
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | 0o020000, os.makedev(1, 3))  # a character device: /dev/null's numbers
    except PermissionError:  # never the real /dev/null: a regression would replace it
        pytest.skip("this machine does not let the tests make a device node (the FIFO test stands in)")
    for args in _writers(run, node):
        _one_line_error(capsys, main(args))
    assert node.is_char_device()


def test_a_gallery_folder_that_is_a_link_is_not_written_through(run, tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (run / "gallery").symlink_to(outside)
    err = _one_line_error(capsys, main(["gallery", str(run)]))
    assert "symbolic link" in err and list(outside.iterdir()) == []


def test_a_full_disk_is_one_line_and_leaves_no_half_written_file_or_empty_gallery(
    run, tmp_path, capsys, monkeypatch
):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    for args in (["gallery", str(run)], *_writers(run, tmp_path / "out" / "file")):
        err = _one_line_error(capsys, main(args))
        assert "No space left on device" in err, (args, err)
    assert not (run / "gallery").exists() and not (tmp_path / "out").exists()


def test_a_path_that_is_not_utf8_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "c.toml").write_text(TINY)
    name = os.fsdecode(str(tmp_path).encode() + b"/run\xff")
    for args in (["run", str(tmp_path / "c.toml"), "--out", name], ["gallery", name], ["inspect", name]):
        err = _one_line_error(capsys, main(args))
        assert "not UTF-8" in err
    assert [p.name for p in tmp_path.iterdir()] == ["c.toml"]
