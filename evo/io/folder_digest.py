"""One SHA-256 over a folder's files (their relative paths and bytes), to tell byte-identical run folders
apart without comparing them pairwise (``evo bench --engine``)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from evo.io.bounded import read_input_bytes

__all__ = ["folder_digest"]


def folder_digest(folder: str | os.PathLike, ignore: Iterable[str] = ()) -> str:
    """SHA-256 (hex) over the relative paths and bytes of every file under ``folder``, in path order,
    leaving out files named in ``ignore`` (e.g. ``run.log``, whose times differ from run to run)."""
    root = Path(folder)
    skipped = set(ignore)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name not in skipped):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(read_input_bytes(path))  # regular files only, bounded
    return digest.hexdigest()
