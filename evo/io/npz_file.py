"""Named numpy arrays as one ``.npz`` file: written byte for byte the same for the same arrays (fixed zip
timestamps, members in order, a SHA-256 ``checksum`` member), durably (temporary file, fsync, replace,
fsync of the folder), and read back with ``allow_pickle=False``, within size bounds, checksum verified.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evo.errors import EvoInputError
from evo.io.atomic import new_file_mode
from evo.io.bounded import read_input_bytes
from evo.io.npz_reader import loads_npz

__all__ = [
    "CHECKSUM",
    "MAX_NPZ_BYTES",
    "array_checksum",
    "dumps_npz",
    "fsync_folder",
    "read_npz",
    "write_npz",
]

CHECKSUM = "checksum"  # the member holding the SHA-256 of every other member, as 64 hex digits
MAX_NPZ_BYTES = 1 << 31  # a checkpoint larger than 2 GiB is not one evo wrote
_EPOCH = (1980, 1, 1, 0, 0, 0)  # zip's earliest date: the same bytes whenever the file is written
_KINDS = "biufU"  # bool, int, uint, float, unicode: never objects (which would need pickle)


def array_checksum(
    arrays: Mapping[str, np.ndarray], data: Callable[[str, np.ndarray], bytes] | None = None
) -> str:
    """SHA-256 (hex) over each array's name, dtype, shape and bytes, in name order.

    Args:
        arrays: the named arrays (a ``checksum`` member among them is left out).
        data: ``data(name, array)``, the array's bytes (``array.tobytes()``) where the caller has them
            already.

    Returns:
        64 hexadecimal digits.
    """
    digest = hashlib.sha256()
    for name in sorted(arrays):
        if name == CHECKSUM:
            continue
        array = np.asarray(arrays[name])
        digest.update(f"{name}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.tobytes() if data is None else data(name, array))
    return digest.hexdigest()


def dumps_npz(arrays: Mapping[str, np.ndarray]) -> bytes:
    """The bytes of an ``.npz`` holding ``arrays`` (in the mapping's order) and their checksum.

    The zip archive is laid out here rather than by :mod:`zipfile` (a tenth of the CPU), byte for byte as
    ``zipfile.ZipFile(..., "w", ZIP_STORED, allowZip64=True)`` writes it, each member as
    ``numpy.lib.format.write_array`` writes it; an archive that would need zip64 records, or a member
    name that is not ASCII, is written by :mod:`zipfile` itself.

    Raises:
        TypeError: an array of a kind that needs pickle (objects).
    """
    members = {name: np.asarray(value) for name, value in arrays.items()}
    for name, array in members.items():
        if array.dtype.kind not in _KINDS:
            raise TypeError(f"{name}: arrays of dtype {array.dtype} are not written")
    payloads = {name: _npy_data(array) for name, array in members.items()}

    def data(name: str, array: np.ndarray) -> bytes:  # C-order bytes, as made for the file where they are
        fortran, written = payloads[name]
        return array.tobytes() if fortran else written

    members = {**members, CHECKSUM: np.array(array_checksum(members, data))}
    payloads[CHECKSUM] = _npy_data(members[CHECKSUM])
    entries = []
    for name, array in members.items():
        fortran, data = payloads[name]
        entries.append((f"{name}.npy", _npy_header(array, fortran), data))
    return _stored_zip(entries)


def _npy_data(array: np.ndarray) -> tuple[bool, bytes]:
    """Whether ``write_array`` writes ``array`` in Fortran order, and the bytes of its data as it does."""
    fortran = bool(array.flags.f_contiguous and not array.flags.c_contiguous)
    return fortran, array.tobytes("F" if fortran else "C")


_NPY_HEADERS: dict[tuple[Any, ...], bytes] = {}


def _npy_header(array: np.ndarray, fortran: bool) -> bytes:
    """The ``.npy`` header ``numpy.lib.format.write_array`` writes before ``array``'s data (it depends on
    the dtype, the shape and the order only): taken from one real write per kind of array."""
    key = (array.dtype.str, array.shape, fortran)
    header = _NPY_HEADERS.get(key)
    if header is None:
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, array, allow_pickle=False)
        written = buffer.getvalue()
        header = written[: len(written) - array.nbytes]
        if len(_NPY_HEADERS) >= 4096:
            _NPY_HEADERS.clear()
        _NPY_HEADERS[key] = header
    return header


_LOCAL = struct.Struct("<4s2B4HL2L2H")  # zipfile's structFileHeader
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # structCentralDir
_END = struct.Struct("<4s4H2LH")  # structEndArchive
_DOS_DATE = (_EPOCH[0] - 1980) << 9 | _EPOCH[1] << 5 | _EPOCH[2]
_DOS_TIME = _EPOCH[3] << 11 | _EPOCH[4] << 5 | (_EPOCH[5] // 2)
_VERSION = 20  # zipfile.DEFAULT_VERSION: what a stored member without zip64 needs
_SYSTEM = zipfile.ZipInfo("x").create_system  # 3, or 0 on Windows, as zipfile records it
_ATTRIBUTES = 0o644 << 16
_ZIP64_LIMIT = (1 << 31) - 1


def _stored_zip(entries: list[tuple[str, bytes, bytes]]) -> bytes:
    """``entries`` (member name, its bytes in two parts) as the zip archive :func:`_zipfile_npz` writes
    of them."""
    offset = sum(30 + len(name) + len(head) + len(data) for name, head, data in entries)
    fits = len(entries) < 0xFFFF and offset + 46 * len(entries) + 22 < _ZIP64_LIMIT // 2
    if not fits or not all(name.isascii() for name, _, _ in entries):
        return _zipfile_npz(entries)
    parts, directory, offset = [], [], 0
    for name, head, data in entries:
        raw = name.encode("ascii")
        crc, size = zlib.crc32(data, zlib.crc32(head)), len(head) + len(data)
        parts += (
            _LOCAL.pack(b"PK\003\004", _VERSION, 0, 0, 0, _DOS_TIME, _DOS_DATE, crc, size, size, len(raw), 0),
            raw,
            head,
            data,
        )
        directory += (
            _CENTRAL.pack(
                b"PK\001\002",
                _VERSION,
                _SYSTEM,
                _VERSION,
                0,
                0,
                0,
                _DOS_TIME,
                _DOS_DATE,
                crc,
                size,
                size,
                len(raw),
                0,
                0,
                0,
                0,
                _ATTRIBUTES,
                offset,
            ),
            raw,
        )
        offset += 30 + len(raw) + size
    size = sum(map(len, directory))
    end = _END.pack(b"PK\005\006", 0, 0, len(entries), len(entries), size, offset, 0)
    return b"".join([*parts, *directory, end])


def _zipfile_npz(entries: list[tuple[str, bytes, bytes]]) -> bytes:
    """``entries`` (member name, its bytes in two parts) as one stored zip archive, written by
    :mod:`zipfile`."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, head, data in entries:
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.external_attr = _ATTRIBUTES
            archive.writestr(info, head + data)
    return out.getvalue()


def fsync_folder(path: str | os.PathLike) -> None:
    """Make a rename in the folder ``path`` durable (a no-op where folders cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_npz(path: str | os.PathLike, arrays: Mapping[str, np.ndarray], *, pause=None) -> None:
    """Write ``arrays`` to ``path`` durably: readers see the old file or the whole new one, and once this
    returns the new one survives a crash of the machine.

    Args:
        path: the ``.npz`` file; arrays: the named arrays.
        pause: called once the temporary file is written and synced, before it replaces ``path`` (the
            kill tests stop the process there).

    Raises:
        OSError: the file cannot be written (the old one is left as it was).
    """
    path = Path(path)
    data = dumps_npz(arrays)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), new_file_mode())
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if pause is not None:
            pause()
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_folder(path.parent)


def read_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` written by :func:`write_npz`, its checksum verified.

    Raises:
        FileNotFoundError: there is no such file.
        EvoInputError: not an npz of plain arrays, too big, or its checksum does not match its content
            (one line naming the file).
    """
    source = str(path)
    os.stat(path)  # FileNotFoundError when there is none
    arrays = loads_npz(read_input_bytes(path, source=source, limit=MAX_NPZ_BYTES), source=source)
    stored = arrays.pop(CHECKSUM, None)
    if stored is None or stored.shape != () or stored.dtype.kind != "U":
        raise EvoInputError("the file has no checksum: it was not written by evo", source=source)
    if str(stored) != array_checksum(arrays):
        raise EvoInputError(
            "the checksum does not match the content: the checkpoint was edited or is corrupted",
            source=source,
        )
    return arrays
