"""Atomic file writes: write a temporary file beside the target, then ``os.replace`` it.

The temporary file (``tempfile.mkstemp``, readable by its owner only) is given the permissions the target
should end with before it replaces it: those of the file it replaces, or those of any new file
(0o666 less the umask).
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import tempfile
from pathlib import Path


@functools.cache
def new_file_mode() -> int:
    """0o666 less the process's umask, read once (reading the umask means setting it for a moment)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path``; readers see either the old file or the whole new one."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see either the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
