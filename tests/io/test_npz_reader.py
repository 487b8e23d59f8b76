"""evo.io.npz_reader: an ``.npz`` is read only as dumps_npz writes it; every other zip feature (a member that
is not .npy, the encrypted flag, compression methods 6, 8 and 14, corrupt deflate or LZMA data) is one
line, and a fuzzer flips and cuts bytes of a good file (issue 32)."""

from __future__ import annotations

import io
import struct
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.errors import EvoInputError
from evo.io.npz_file import dumps_npz, read_npz
from evo.io.npz_reader import loads_npz

ARRAYS = {"a": np.arange(40, dtype=np.float64), "b": np.array(["walker"]), "c": np.eye(3) > 0}
GOOD = dumps_npz(ARRAYS)


def _patched(data: bytes, *, flags: int | None = None, method: int | None = None) -> bytes:
    """``data`` with every member's flag bits or compression method set, in local and central headers."""
    out = bytearray(data)
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = out.find(signature)
        while start >= 0:
            if flags is not None:
                struct.pack_into("<H", out, start + flag_at, flags)
            if method is not None:
                struct.pack_into("<H", out, start + flag_at + 2, method)
            start = out.find(signature, start + 4)
    return bytes(out)


def _rezipped(names: dict[str, str], compression: int = zipfile.ZIP_STORED) -> bytes:
    """The good file's members again, renamed as ``names`` says, with ``compression``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(GOOD)) as source, zipfile.ZipFile(out, "w", compression) as target:
        for info in source.infolist():
            with warnings.catch_warnings():  # a duplicate name, on purpose
                warnings.simplefilter("ignore", UserWarning)
                target.writestr(names.get(info.filename, info.filename), source.read(info))
    return out.getvalue()


def _corrupt_middle(data: bytes) -> bytes:
    out = bytearray(data)
    middle = len(out) // 3
    out[middle : middle + 40] = bytes(b ^ 0x5A for b in out[middle : middle + 40])
    return bytes(out)


HOSTILE = {
    "a member that is not .npy": (_rezipped({"a.npy": "a.txt"}), "not an array file"),
    "a member in a folder": (_rezipped({"a.npy": "../a.npy"}), "not an array file"),
    "the encrypted flag": (_patched(GOOD, flags=1), "encrypted"),
    "compression method 6 (implode)": (_patched(GOOD, method=6), "compression method 6"),
    "compression method 14 (LZMA)": (_rezipped({}, zipfile.ZIP_LZMA), "compression method 14"),
    "corrupt LZMA": (_corrupt_middle(_rezipped({}, zipfile.ZIP_LZMA)), "npz|corrupted"),
    "corrupt deflate": (_corrupt_middle(_rezipped({}, zipfile.ZIP_DEFLATED)), "npz|corrupted"),
    "a member twice": (_rezipped({"b.npy": "a.npy"}), "twice"),
    "a bare .npy": (GOOD[GOOD.index(b"\x93NUMPY") :], "single .npy"),
    "nothing": (b"", "corrupted"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_anything_the_writer_does_not_write_is_one_line_naming_the_file(tmp_path, case):
    data, words = HOSTILE[case]
    path = tmp_path / "checkpoint.npz"
    path.write_bytes(data)
    with pytest.raises(EvoInputError, match=words) as caught:
        read_npz(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_what_the_writer_writes_reads_back_the_same():
    arrays = loads_npz(GOOD, source="x")
    assert sorted(arrays) == ["a", "b", "c", "checksum"]
    for name, array in ARRAYS.items():
        assert np.array_equal(arrays[name], array) and arrays[name].dtype == array.dtype


def test_a_fifo_or_a_device_named_as_a_checkpoint_is_refused_without_waiting(tmp_path):
    import os

    fifo = tmp_path / "checkpoint.npz"
    os.mkfifo(fifo)
    with pytest.raises(EvoInputError, match="FIFO"):
        read_npz(fifo)
    with pytest.raises(EvoInputError, match="character device"):
        read_npz("/dev/zero")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    flips=st.lists(st.tuples(st.integers(0, len(GOOD) - 1), st.integers(1, 255)), max_size=6),
    cut=st.integers(0, len(GOOD)),
    tail=st.binary(max_size=40),
)
def test_flipped_cut_or_extended_files_are_read_back_exactly_or_refused_in_one_line(flips, cut, tail):
    data = bytearray(GOOD)
    for at, mask in flips:
        data[at] ^= mask
    data = bytes(data[:cut]) + tail
    try:
        arrays = loads_npz(data, source="fuzzed.npz")
    except EvoInputError as exc:
        assert str(exc).startswith("fuzzed.npz: ") and "\n" not in str(exc)
        return
    for array in arrays.values():  # read back: plain arrays only, never objects
        assert array.dtype.kind in "biufU"
