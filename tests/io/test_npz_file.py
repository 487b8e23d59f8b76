"""evo.io.npz_file: the hand-laid zip archive is byte for byte what zipfile and numpy wrote before."""

import io
import zipfile

import numpy as np
import pytest

from evo.io import npz_file
from evo.io.npz_file import CHECKSUM, array_checksum, dumps_npz, read_npz


def zipfile_npz(arrays):
    """dumps_npz as evo wrote it with zipfile and numpy.lib.format.write_array (the reference)."""
    out = io.BytesIO()
    members = {**arrays, CHECKSUM: np.array(array_checksum(arrays))}
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, value in members.items():
            array = np.asarray(value)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            archive.writestr(info, buffer.getvalue())
    return out.getvalue()


def many_kinds_of_arrays():
    rng = np.random.default_rng(5)
    square = rng.normal(size=(7, 5))
    return {
        "head": np.frombuffer(b'{"format":"evo-checkpoint"}', dtype=np.uint8),
        "floats": rng.normal(size=(200, 13, 2)),
        "nan_and_inf": np.array([np.nan, -np.inf, np.inf, -0.0]),
        "ints": rng.integers(-(2**62), 2**62, size=(3, 4)),
        "uints": np.array([0, 2**64 - 1], dtype=np.uint64),
        "bools": rng.random((4, 9)) < 0.5,
        "text": np.array(['"walker"', "ünïcode ✓", "", "a\0"], dtype=str),
        "empty_text": np.zeros(0, dtype="<U1"),
        "empty_2d": np.zeros((0, 3)),
        "zero_wide": np.zeros((5, 0, 2)),
        "scalar": np.array(3.5),
        "fortran": np.asfortranarray(square),
        "strided": square[::2, 1:4],
        "big_endian": np.arange(6, dtype=">i4").reshape(2, 3),
        "float32": np.arange(5, dtype=np.float32),
        "a_list": [1, 2, 3],
        "a_number": 7,
    }


def test_dumps_npz_gives_the_bytes_zipfile_and_numpy_gave():
    arrays = many_kinds_of_arrays()
    assert dumps_npz(arrays) == zipfile_npz(arrays)
    for name in arrays:  # each kind alone, and first of a few
        assert dumps_npz({name: arrays[name]}) == zipfile_npz({name: arrays[name]})
        again = {name: arrays[name], "x": np.arange(3)}
        assert dumps_npz(again) == zipfile_npz(again)
    assert dumps_npz({}) == zipfile_npz({})


def test_dumps_npz_of_the_same_shapes_again_reuses_headers_and_stays_exact():
    rng = np.random.default_rng(1)
    for _ in range(20):
        arrays = {"a": rng.normal(size=(4, int(rng.integers(0, 4)))), "b": rng.integers(0, 9, size=3)}
        assert dumps_npz(arrays) == zipfile_npz(arrays)


def test_a_member_named_checksum_is_replaced_in_place_as_before():
    arrays = {"a": np.arange(3), CHECKSUM: np.array("stale"), "b": np.ones(2)}
    assert dumps_npz(arrays) == zipfile_npz(arrays)


def test_archives_zipfile_must_lay_out_are_left_to_it(monkeypatch):
    arrays = many_kinds_of_arrays()
    named = {"ünïcode": np.arange(4), **arrays}  # a name that is not ASCII
    assert dumps_npz(named) == zipfile_npz(named)
    monkeypatch.setattr(npz_file, "_ZIP64_LIMIT", 1000)  # as if the archive were over 1 GiB
    calls = []
    real = npz_file._zipfile_npz
    monkeypatch.setattr(npz_file, "_zipfile_npz", lambda entries: calls.append(1) or real(entries))
    assert dumps_npz(arrays) == zipfile_npz(arrays)
    assert calls


def test_dumps_npz_still_refuses_objects_and_reads_back(tmp_path):
    with pytest.raises(TypeError, match="x: arrays of dtype object"):
        dumps_npz({"a": np.arange(2), "x": np.array([{"a": 1}], dtype=object)})
    arrays = many_kinds_of_arrays()
    path = tmp_path / "a.npz"
    path.write_bytes(dumps_npz(arrays))
    back = read_npz(path)
    assert list(back) == list(arrays)
    for name, value in arrays.items():
        np.testing.assert_array_equal(back[name], np.asarray(value))
