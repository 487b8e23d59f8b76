"""The studio's state: what it was started on, its secret and addresses, its limits, its background jobs and
where saves may go. One :class:`StudioSession` per server; every handler takes it."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evo.errors import EvoInputError
from evo.model import Creature
from evo.studio.children import Worker
from evo.studio.designs import design_of, format_of
from evo.studio.jobs import Job
from evo.studio.limits import StudioLimits

__all__ = ["StudioSession"]

PATH_BYTES = 4096  # a save path's most bytes (PATH_MAX)
PATH_PARTS = 64  # a save path's most folders deep
NAME_BYTES = 255  # a file or folder name's most bytes (NAME_MAX)


@dataclass
class StudioSession:
    """One studio session.

    Attributes:
        model: the design it opened (a model file), or None.
        path: that model file (absolute), or None.
        folder: the folder saves are confined to (absolute: the model's folder, or the folder it was
            started on), or None.
        run: the run folder it opened (absolute), or None.
        token: the session token (``secrets.token_urlsafe(32)``).
        limits: what one request may ask.
        origins: the origins the server answers as (``http://HOST:PORT``), filled in once it listens.
        hosts: the Host headers it answers to (``HOST:PORT``), filled in once it listens.
        evolution, refinement: the background jobs (one of each at a time).
        plugins: the plugin list, once a child has read it.
        evolved: the run folder of the last evolution started here, and ``evolved_generations`` the
            generations its config asks for.
    """

    model: Creature | None = None
    path: Path | None = None
    folder: Path | None = None
    run: Path | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    limits: StudioLimits = field(default_factory=StudioLimits)
    origins: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)
    evolution: Job = field(default_factory=lambda: Job("an evolution"))
    refinement: Job = field(default_factory=lambda: Job("a refinement"))
    plugins: list[dict[str, Any]] | None = None
    evolved: Path | None = None
    evolved_generations: int = 0
    started_in: Path = field(default_factory=Path.cwd)
    worker: Worker = field(default_factory=Worker)

    def __post_init__(self) -> None:
        # relative paths would follow the process's current folder; everything is absolute from here on
        for name in ("path", "folder", "run"):
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, Path(value).absolute())

    @property
    def workdir(self) -> Path:
        """Where children run: the start folder (absolute), else the current folder at the start."""
        return self.folder if self.folder is not None else self.started_in

    def design(self, obj: Any) -> Creature:
        """The creature of a JSON model object from the page, within the limits."""
        return design_of(obj, self.limits)

    def confined(self, path: str | None, kind: str | None) -> Path:
        """The file a save writes: ``path`` (relative to the start folder), or the opened model's file.

        Raises:
            EvoInputError: no start folder, a path too long or deep, or one leaving the folder.
        """
        if self.folder is None:
            raise EvoInputError("the studio was not started on a path: download instead")
        folder = self.folder.resolve()
        if path is None:
            if self.path is None:
                raise EvoInputError(
                    "a file name is needed (the studio was started on a folder)", field="path"
                )
            target = self.path.resolve()
        else:
            target = folder / _checked_path(path)
            try:
                target = target.resolve()
            except (OSError, RuntimeError) as exc:  # a symlink loop
                raise EvoInputError(
                    f"cannot use {path!r}: {getattr(exc, 'strerror', None) or exc}", field="path"
                ) from None
        if kind is not None and format_of(target.name) != kind:
            target = target.with_suffix(f".{kind}")
        if not target.is_relative_to(folder):
            raise EvoInputError(
                f"{path} is outside the folder the studio was started on ({folder})", field="path"
            )
        return target


def _checked_path(path: str) -> str:
    """``path`` when it names a file a system can take: not empty, no NUL, bounded in bytes and depth."""
    if not path.strip() or "\x00" in path:
        raise EvoInputError(f"expected a file name, got {path!r}", field="path")
    if len(path.encode("utf-8")) > PATH_BYTES:
        raise EvoInputError(f"expected at most {PATH_BYTES} bytes, got {len(path.encode())}", field="path")
    if len(Path(path).parts) > PATH_PARTS:
        raise EvoInputError(
            f"expected at most {PATH_PARTS} folders deep, got {len(Path(path).parts)}", field="path"
        )
    longest = max((len(part.encode("utf-8")) for part in Path(path).parts), default=0)
    if longest > NAME_BYTES:
        raise EvoInputError(f"expected names of at most {NAME_BYTES} bytes, got {longest}", field="path")
    return path
