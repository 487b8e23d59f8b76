"""Reading an ``.npz`` as :func:`evo.io.npz_file.dumps_npz` writes it and nothing else: stored (never
compressed, never encrypted) members named ``NAME.npy``, each a plain array, within bounds; any other
zip feature, a corrupt member or a bad header is one-line :class:`~evo.errors.EvoInputError`.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np

from evo.errors import EvoInputError

__all__ = ["MAX_MEMBERS", "loads_npz"]

MAX_MEMBERS = 256
_KINDS = "biufU"  # bool, int, uint, float, unicode: never objects (which would need pickle)
_ENCRYPTED = 0x1  # general purpose flag bit 0
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _check_member(info: zipfile.ZipInfo, seen: set[str], limit: int) -> str:
    """The array name of a member, once it is known to be what the writer writes."""
    name = info.filename
    if info.flag_bits & _ENCRYPTED:
        raise ValueError(f"member {name!r} is encrypted; evo writes plain members")
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"member {name!r} uses compression method {info.compress_type}; evo stores members")
    if not name.endswith(".npy") or not set(name) <= _NAME_CHARACTERS or name.startswith("."):
        raise ValueError(f"member {name[:60]!r} is not an array file (NAME.npy)")
    if info.file_size != info.compress_size or info.file_size > limit:
        raise ValueError(f"member {name!r} has a size of {info.file_size} bytes that evo does not write")
    key = name[: -len(".npy")]
    if key in seen:
        raise ValueError(f"member {name!r} is in the archive twice")
    seen.add(key)
    return key


def loads_npz(data: bytes, *, source: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` bytes ``data`` (a checksum member included, unverified).

    Raises:
        EvoInputError: one line naming ``source``, for anything :func:`~evo.io.npz_file.dumps_npz` does
            not write (a bare ``.npy``, a member that is not ``.npy``, compression, encryption, a zip64
            or multi-disk archive, a member whose CRC fails, an object array).
    """
    if data[:6] == b"\x93NUMPY":
        raise EvoInputError("not a readable .npz file: a single .npy array", source=source)
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                raise ValueError(f"{len(members)} arrays, more than {MAX_MEMBERS}")
            seen: set[str] = set()
            for info in members:
                key = _check_member(info, seen, len(data))
                raw = archive.read(info)  # its CRC checked
                array = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
                if array.dtype.kind not in _KINDS:
                    raise ValueError(f"array '{key}' has dtype {array.dtype}")
                arrays[key] = array
    except EvoInputError:
        raise
    except zipfile.BadZipFile as exc:
        text = " ".join(str(exc).split())[:120]
        raise EvoInputError(f"the checkpoint was edited or is corrupted: {text}", source=source) from None
    except Exception as exc:  # noqa: BLE001 -- whatever zipfile or numpy make of hostile bytes
        text = " ".join(str(exc).split())[:160]
        raise EvoInputError(
            f"not a readable .npz file: {type(exc).__name__}: {text}", source=source
        ) from None
    return arrays
