"""Reading an input file with bounds: a regular file only (never a FIFO, a device or a folder), opened
without waiting, and at most :data:`MAX_INPUT_BYTES` of it; anything else is one-line
:class:`~evo.errors.EvoInputError`. Models, Soda XML (terrain included) and TOML files are read here.
"""

from __future__ import annotations

import os
import stat

from evo.errors import EvoInputError

__all__ = ["MAX_INPUT_BYTES", "NoSuchInput", "read_input_bytes", "read_input_text"]

MAX_INPUT_BYTES = 256 * 1024 * 1024  # 256 MiB: far above any model, terrain or config evo writes

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


class NoSuchInput(EvoInputError, FileNotFoundError):
    """The file is not there: an input error, and a ``FileNotFoundError`` for code that allows that."""

    __str__ = BaseException.__str__  # the one line, not OSError's "[Errno 2] ..."


def read_input_bytes(
    path: str | os.PathLike,
    *,
    source: str | None = None,
    limit: int = MAX_INPUT_BYTES,
    partial: bool = False,
) -> bytes:
    """The bytes of the regular file ``path`` (with ``partial``, its first ``limit`` bytes at most).

    Args:
        path: the file (a symbolic link to a regular file is followed).
        source: the name errors give the file (default: ``path``).
        limit: the most bytes read; a longer file is refused (unless ``partial``).
        partial: read the start of a longer file instead of refusing it (the first line of a log).

    Returns:
        The whole file.

    Raises:
        NoSuchInput: no such file (an :class:`EvoInputError` and a ``FileNotFoundError``).
        EvoInputError: not a regular file, longer than ``limit``, or unreadable.
    """
    name = str(path) if source is None else source
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise NoSuchInput("no such file", source=name) from None
    except OSError as exc:
        raise EvoInputError(f"cannot read: {exc.strerror or exc}", source=name) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise EvoInputError(f"is {kind}; expected a regular file", source=name)
        if info.st_size > limit and not partial:
            raise EvoInputError(
                f"is {info.st_size} bytes; expected a file of at most {limit} bytes", source=name
            )
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            total += len(chunk)
            if total > limit and partial:
                chunks.append(chunk[: len(chunk) - (total - limit)])
                break
            if total > limit:  # it grew while being read
                raise EvoInputError(f"expected a file of at most {limit} bytes", source=name)
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise EvoInputError(f"cannot read: {exc.strerror or exc}", source=name) from None
    finally:
        os.close(fd)


def read_input_text(
    path: str | os.PathLike, *, source: str | None = None, limit: int = MAX_INPUT_BYTES
) -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_input_bytes`).

    Raises:
        EvoInputError: as :func:`read_input_bytes`, or the file is not UTF-8 text.
    """
    data = read_input_bytes(path, source=source, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        name = str(path) if source is None else source
        raise EvoInputError(
            f"not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})", source=name
        ) from None
