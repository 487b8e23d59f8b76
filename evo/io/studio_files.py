"""Files ``evo studio`` makes for itself: run-folder names claimed atomically (``mkdir``, which one process
wins) inside its start folder, and the private redirect page that opens the browser without the token
in any command line."""

from __future__ import annotations

import contextlib
import html
import os
import tempfile
from pathlib import Path

from evo.errors import EvoInputError

__all__ = ["claim_folder", "remove_redirect_page", "write_redirect_page"]

MAX_CLAIMS = 100_000  # names tried before giving up (a folder holding that many runs)


def claim_folder(base: Path, stem: str, *, within: Path, taken: Path | None = None) -> tuple[Path, int]:
    """Make ``base/STEM-K`` for the first K >= 1 that no one holds (nor ``taken/STEM-K``); ``mkdir`` makes
    the claim, so two studios on one folder never get the same K.

    Args:
        base: where the claimed folder goes (made if missing, as ``taken`` is).
        within: the folder both must stay in (neither may be a symlink or lead out of it).
        stem: the name before ``-K``.
        taken: a second folder whose ``STEM-K`` entries also count as held (the run folders).

    Returns:
        (the claimed folder, K).

    Raises:
        EvoInputError: ``base`` leads through a symlink, or cannot be made.
    """
    outer = within.resolve()
    for folder in (taken, base):
        if folder is None:
            continue
        if folder.is_symlink() or (folder.exists() and not folder.resolve().is_relative_to(outer)):
            raise EvoInputError(
                "is a symbolic link out of the start folder: the studio writes only inside it",
                source=str(folder),
            )
        try:
            folder.mkdir(exist_ok=True)
        except OSError as exc:
            raise EvoInputError(
                f"cannot make the folder: {exc.strerror or exc}", source=str(folder)
            ) from None
    for k in range(1, MAX_CLAIMS):
        if taken is not None and os.path.lexists(taken / f"{stem}-{k}"):
            continue
        try:
            (base / f"{stem}-{k}").mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise EvoInputError(f"cannot make a folder: {exc.strerror or exc}", source=str(base)) from None
        return base / f"{stem}-{k}", k
    raise EvoInputError(f"{MAX_CLAIMS} runs named {stem} already", source=str(base))


def write_redirect_page(url: str) -> Path:
    """A page, readable by this user only (in a new private folder), that sends the browser on to ``url``:
    handing the browser this file's name keeps the token out of every process's command line."""
    folder = Path(tempfile.mkdtemp(prefix="evo-studio-"))
    target = html.escape(url, quote=True)
    page = (
        '<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f'<meta http-equiv="refresh" content="0;url={target}"><title>evo studio</title>'
        f'<a href="{target}">open evo studio</a>'
    )
    fd = os.open(folder / "open.html", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(page)
    return folder / "open.html"


def remove_redirect_page(path: Path) -> None:
    """Remove the page and its folder (nothing if gone already)."""
    with contextlib.suppress(OSError):
        path.unlink()
        path.parent.rmdir()
