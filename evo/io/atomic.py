"""The one safe writer: a temporary file beside the target, synced, then ``os.replace`` and a sync of the
folder. It never replaces a device, FIFO, socket or folder, never writes through a symbolic link, and a
full disk (or any other failure to write) is one line (:class:`WriteFailed`), the target left as it was.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import tempfile
from pathlib import Path
from typing import TextIO

from evo.errors import EvoInputError

__all__ = [
    "WriteFailed",
    "atomic_write_bytes",
    "atomic_write_text",
    "link_or_write",
    "make_durable",
    "new_file_mode",
    "open_for_appending",
    "safe_target",
]

_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symbolic link",
}


class WriteFailed(EvoInputError, OSError):
    """Writing a file failed (a full disk, no permission, a read-only file system): one line naming the
    file, and still an :class:`OSError` with the original ``errno`` and ``strerror`` for code that
    handles those."""

    def __init__(self, exc: OSError, path: str | os.PathLike):
        EvoInputError.__init__(self, f"cannot write: {exc.strerror or exc}", source=str(path))
        self.errno, self.strerror, self.filename = exc.errno, exc.strerror, str(path)

    __str__ = BaseException.__str__  # the one line, not OSError's "[Errno 28] ..."


@functools.cache
def new_file_mode() -> int:
    """0o666 less the process's umask, read once (reading the umask means setting it for a moment)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _refuse_links_below(path: Path, inside: Path) -> None:
    """Refuse when a folder between ``inside`` and ``path`` (``inside`` itself excepted) is a symbolic
    link."""
    try:
        parts = path.parent.relative_to(inside).parts
    except ValueError:
        raise EvoInputError(f"is outside {inside}", source=str(path)) from None
    folder = inside
    for part in parts:
        folder = folder / part
        if folder.is_symlink():
            raise EvoInputError(
                "is a symbolic link: evo does not write through links it did not create", source=str(folder)
            )


def safe_target(path: str | os.PathLike, *, inside: str | os.PathLike | None = None) -> Path:
    """``path`` once it is known to be safe to replace: absent or a regular file (not a link), and, with
    ``inside``, reached from that folder without a symbolic link.

    Raises:
        EvoInputError: a device, FIFO, socket, folder or symbolic link is in the way.
    """
    path = Path(path)
    if inside is not None:
        _refuse_links_below(Path(os.path.abspath(path)), Path(os.path.abspath(inside)))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise WriteFailed(exc, path) from None
    kind = stat.S_IFMT(info.st_mode)
    if kind != stat.S_IFREG:
        what = _KINDS.get(kind, "not a regular file")
        raise EvoInputError(
            f"is {what}; evo writes regular files only and leaves it as it is", source=str(path)
        )
    return path


def atomic_write_text(
    path: str | os.PathLike, text: str, *, inside: str | os.PathLike | None = None, durable: bool = True
) -> None:
    """Write ``text`` as UTF-8 to ``path``; readers see either the old file or the whole new one
    (:func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"), inside=inside, durable=durable)


def atomic_write_bytes(
    path: str | os.PathLike, data: bytes, *, inside: str | os.PathLike | None = None, durable: bool = True
) -> None:
    """Write ``data`` to ``path`` durably, so that readers see either the old file or the whole new one.

    Args:
        path: the file; a new one gets the permissions of any new file, a replaced one keeps its own.
        data: its bytes.
        inside: a folder (a run folder) that ``path`` must be reached from without symbolic links.
        durable: False: no ``fsync`` of the file or its folder, so that the new file, whole as ever for
            readers and through the death of this process, may be lost in a crash of the machine (the old
            one, none, or an empty or cut one may then be found) until the caller makes it durable
            (:func:`make_durable`).

    Raises:
        EvoInputError: what :func:`safe_target` refuses.
        WriteFailed: the file or its folder cannot be written (the target is left as it was).
    """
    path = safe_target(path, inside=inside)
    tmp = None
    made = _missing_folders(path.parent)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if inside is not None:
            safe_target(path, inside=inside)  # a folder just made is ours; one already there was checked
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = new_file_mode()
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
        tmp = None
        if durable:
            _fsync_folder(path.parent)
    except OSError as exc:
        _remove(tmp, made)
        tmp = None
        if isinstance(exc, WriteFailed):
            raise
        raise WriteFailed(exc, path) from None
    finally:
        _remove(tmp, [])


def link_or_write(
    source: str | os.PathLike,
    path: str | os.PathLike,
    data: bytes,
    *,
    inside: str | os.PathLike | None = None,
    durable: bool = True,
) -> bool:
    """Give the new file ``path`` the bytes ``data`` as a hard link to ``source`` where ``source`` is a
    regular file holding exactly those bytes (one directory entry: no file made, nothing to write back),
    else write it (:func:`atomic_write_bytes`, which also replaces a ``path`` already there). With
    ``durable``, the link is made durable at once (:func:`make_durable`). Whether it was linked.

    Raises:
        EvoInputError: what :func:`safe_target` refuses.
        WriteFailed: it cannot be written.
    """
    source, path = Path(source), safe_target(path, inside=inside)
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        fd = None
    if fd is not None:
        try:
            if _holds(fd, data) and _linked_to(fd, source, path):
                if durable:
                    make_durable(path.parent, [path.name])
                return True
        finally:
            os.close(fd)
    atomic_write_bytes(path, data, inside=inside, durable=durable)
    return False


def _holds(fd: int, data: bytes) -> bool:
    """Whether the open ``fd`` is a regular file of exactly the bytes ``data``."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        read = b""
        while len(read) <= len(data):  # (a short read is read on; one past the end says it ends there)
            more = os.read(fd, len(data) + 1 - len(read))
            if not more:
                break
            read += more
        return read == data
    except OSError:
        return False


def _linked_to(fd: int, source: Path, path: Path) -> bool:
    """Link ``path`` to ``source``, and keep the link only where it is the file open as ``fd`` (``source``
    was not replaced meanwhile); whether it was linked and kept."""
    try:
        os.link(source, path, follow_symlinks=False)
    except OSError:  # there already, or no hard links here (EEXIST, EPERM, EMLINK, EXDEV...)
        return False
    opened, linked = os.fstat(fd), os.lstat(path)
    if (linked.st_dev, linked.st_ino) == (opened.st_dev, opened.st_ino):
        return True
    with contextlib.suppress(OSError):
        os.unlink(path)
    return False


def make_durable(folder: str | os.PathLike, names: list[str]) -> None:
    """Make the files ``names`` of ``folder``, written with ``durable=False``, and their names durable:
    an ``fsync`` of each (one that is gone is passed over) and one of the folder (where folders can be
    opened; as every write here, its failure is not raised).

    Raises:
        WriteFailed: a file cannot be opened or synced.
    """
    folder = Path(folder)
    for name in names:
        try:
            fd = os.open(folder / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise WriteFailed(exc, folder / name) from None
        try:
            os.fsync(fd)
        except OSError as exc:
            raise WriteFailed(exc, folder / name) from None
        finally:
            os.close(fd)
    if names:
        _fsync_folder(folder)


def _missing_folders(folder: Path) -> list[Path]:
    """The folders ``mkdir(parents=True)`` of ``folder`` would make, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove(tmp: str | None, folders: list[Path]) -> None:
    """Leave nothing half-written: the temporary file, and the folders made for it (deepest first)."""
    with contextlib.suppress(OSError):
        if tmp is not None:
            os.unlink(tmp)
        for folder in folders:
            os.rmdir(folder)


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable (a no-op where folders cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def open_for_appending(path: str | os.PathLike) -> TextIO:
    """``path`` opened for appending UTF-8 text (a log), created if needed: never through a symbolic link,
    never a FIFO or a device (opened without waiting, then checked).

    Raises:
        EvoInputError: a link, FIFO, device or folder is in the way.
        WriteFailed: it cannot be opened.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, new_file_mode())
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            problem = "is a symbolic link; evo does not write through links"
            raise EvoInputError(problem, source=str(path)) from None
        raise WriteFailed(exc, path) from None
    kind = stat.S_IFMT(os.fstat(fd).st_mode)
    if kind != stat.S_IFREG:
        os.close(fd)
        what = _KINDS.get(kind, "not a regular file")
        raise EvoInputError(f"is {what}; evo appends to regular files only", source=str(path))
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a", encoding="utf-8")
