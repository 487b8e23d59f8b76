"""The lock of a run folder: one ``evo run`` (or :func:`evo.evolve`) at a time writes into a folder.

An advisory ``flock`` on ``<folder>/run.lock``, which the kernel releases when its holder dies (a
``kill -9`` leaves no stale lock). The file holds the holder's pid and is removed when the run ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from evo.errors import EvoInputError

__all__ = ["LOCK", "FolderInUse", "RunLock"]

LOCK = "run.lock"


class FolderInUse(EvoInputError):
    """Another process holds the folder's lock. ``pid`` is its process id (None if it could not be read)."""

    def __init__(self, folder: Path, pid: int | None):
        self.pid = pid
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(
            f"the folder is in use by another evo run ({who}); wait for it to end, or stop it first",
            source=str(folder),
        )


def _read_pid(fd: int) -> int | None:
    """The pid the holder wrote into the lock file (it writes it just after locking: wait a moment)."""
    deadline = time.monotonic() + 0.5
    while True:
        with contextlib.suppress(OSError, ValueError):
            return int(os.pread(fd, 32, 0).decode("ascii").strip())
        if time.monotonic() > deadline:
            return None
        time.sleep(0.01)


def _same_file(fd: int, path: Path) -> bool:
    try:
        mine, there = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


def _missing_folders(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist yet, innermost first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


class RunLock:
    """The held lock of one run folder; :meth:`release` it (or use it as a context manager).

    Forked worker processes share it (flock locks belong to the open file, which a fork shares), so it
    is released only when the run's last process has ended or :meth:`release` is called.
    """

    def __init__(self, folder: Path, fd: int, created: list[Path]):
        self.folder = folder
        self.path = folder / LOCK
        self._fd: int | None = fd
        self._created = created
        self._owner = os.getpid()  # a forked worker's copy of this object must never release it

    @classmethod
    def acquire(cls, folder: str | os.PathLike) -> RunLock:
        """Lock ``folder`` (made if missing) for this process, without waiting.

        Returns:
            The held lock.

        Raises:
            FolderInUse: another process holds it (the message names its pid).
            EvoInputError: the folder cannot be made or the lock file cannot be written (a read-only
                folder, a file in the way, a full disk), or ``run.lock`` is a symbolic link (never
                written through); nothing is left behind.
        """
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise EvoInputError("exists and is not a folder", source=str(folder))
        path = folder / LOCK
        if path.is_symlink():
            raise EvoInputError(
                f"{LOCK} is a symbolic link, and evo writes nothing through a link; remove it",
                source=str(folder),
            )
        created: list[Path] = []
        for _ in range(100):  # another process may remove the file (or its empty folder) under us
            if not folder.is_dir():
                created += _missing_folders(folder)
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    _remove_empty(created)
                    message = f"cannot make the run folder: {exc.strerror or exc}"
                    raise EvoInputError(message, source=str(folder)) from None
            try:
                # O_NOFOLLOW: a link put there since the check above is refused (ELOOP), never followed
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o666)
            except FileNotFoundError:
                continue
            except OSError as exc:
                _remove_empty(created)
                raise EvoInputError(
                    f"cannot lock the run folder: {exc.strerror or exc}", source=str(folder)
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _read_pid(fd)
                os.close(fd)
                raise FolderInUse(folder, pid) from None
            if not _same_file(fd, path):  # its holder removed it as it released it: try the new one
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            except OSError as exc:  # a full disk: leave nothing behind, this lock file included
                with contextlib.suppress(OSError):
                    os.unlink(path)
                os.close(fd)
                _remove_empty(created)
                raise EvoInputError(
                    f"cannot write the run folder's lock file: {exc.strerror or exc}", source=str(folder)
                ) from None
            return cls(folder, fd, created)
        raise EvoInputError("cannot lock the run folder: its lock file keeps changing", source=str(folder))

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file and unlock (idempotent). Folders that :meth:`acquire` made are removed
        again if they are still empty (a run that never started leaves nothing behind)."""
        if os.getpid() != self._owner:
            return
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if _same_file(fd, self.path):
                with contextlib.suppress(OSError):
                    os.unlink(self.path)
        finally:
            os.close(fd)
        _remove_empty(self._created)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:  # a lock dropped without release() still unlocks
        with contextlib.suppress(Exception):
            self.release()


def _remove_empty(folders: list[Path]) -> None:
    for path in sorted(set(folders), key=lambda p: len(p.parts), reverse=True):  # innermost first
        try:
            path.rmdir()
        except OSError:
            return
