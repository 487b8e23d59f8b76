"""A plugin file with the Python files beside it, as text, to recreate on a machine that cannot see them.

The dask backend sends a ``file:`` plugin this way: :func:`read_plugin_files` on the submitting machine,
:func:`write_plugin_files` on each worker (under a folder named after the files' digest).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from evo.errors import EvoInputError
from evo.io.atomic import atomic_write_text
from evo.io.bounded import read_input_bytes

__all__ = ["MAX_PLUGIN_BYTES", "PluginFiles", "held_at", "read_plugin_files", "write_plugin_files"]

# the most Python source (bytes) sent along with a plugin file: its folder must not be a whole project
MAX_PLUGIN_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class PluginFiles:
    """A plugin file and its neighbours.

    Attributes:
        entry: the plugin file's path relative to its folder (``sprint.py``).
        files: (relative path with ``/``, text) of every ``.py`` file of the folder and of the packages
            (folders with an ``__init__.py``) below it, sorted by path; the entry is among them.
        origin: the plugin file's absolute path on the machine that read it (for messages).
    """

    entry: str
    files: tuple[tuple[str, str], ...]
    origin: str

    @property
    def digest(self) -> str:
        """SHA-256 (hex) of the paths and texts: equal files give equal digests on every machine."""
        sha = hashlib.sha256()
        for name, text in self.files:
            sha.update(name.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
        return sha.hexdigest()


def _sources(folder: Path) -> list[Path]:
    """The ``.py`` files of ``folder`` and, recursively, of its sub-packages (no hidden or cache folders)."""
    found = sorted(p for p in folder.glob("*.py") if p.is_file())
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        if not sub.name.startswith((".", "__pycache__")) and (sub / "__init__.py").is_file():
            found.extend(_sources(sub))
    return found


def read_plugin_files(path: str | os.PathLike) -> PluginFiles:
    """Read the plugin file at ``path`` with the ``.py`` files beside it (helpers it may import).

    Args:
        path: the plugin file (a ``.py`` file).

    Returns:
        The :class:`PluginFiles`.

    Raises:
        EvoInputError: a file cannot be read, or the folder holds more than :data:`MAX_PLUGIN_BYTES` of
            Python source.
    """
    entry = Path(path).resolve()
    folder = entry.parent
    files = []
    total = 0
    try:
        for source in _sources(folder):
            data = read_input_bytes(source, limit=MAX_PLUGIN_BYTES + 1, partial=True)
            total += len(data)
            if total > MAX_PLUGIN_BYTES:
                raise EvoInputError(
                    f"the folder of this plugin holds more than {MAX_PLUGIN_BYTES // 2**20} MiB of Python "
                    "files to send to the workers; put the plugin in a folder of its own",
                    source=str(entry),
                )
            files.append((source.relative_to(folder).as_posix(), data.decode("utf-8")))
    except (OSError, UnicodeDecodeError) as exc:
        raise EvoInputError(f"cannot read the plugin's files: {exc}", source=str(entry)) from None
    if entry.name not in {name for name, _ in files}:
        raise EvoInputError("no such plugin file", source=str(entry))
    return PluginFiles(entry=entry.name, files=tuple(files), origin=str(entry))


def held_at(plugin_files: PluginFiles, folder: str | os.PathLike) -> bool:
    """Whether ``folder`` already holds every one of the files, each with the same text (a file that
    cannot be read counts as different)."""
    root = Path(folder)
    for name, text in plugin_files.files:
        try:
            data = read_input_bytes(root / name, limit=MAX_PLUGIN_BYTES + 1, partial=True)
        except (OSError, EvoInputError):
            return False
        if data != text.encode("utf-8"):
            return False
    return True


def write_plugin_files(plugin_files: PluginFiles, folder: str | os.PathLike) -> Path:
    """Recreate the files under ``folder/<digest>/`` (once: files already there are left alone).

    Args:
        plugin_files: what :func:`read_plugin_files` read.
        folder: a folder of this machine (created if needed).

    Returns:
        The path of the plugin file's copy.

    Raises:
        OSError: the folder cannot be written.
        EvoInputError: a file name that would leave the folder.
    """
    root = Path(folder) / f"evo-plugin-{plugin_files.digest[:20]}"
    for name, text in plugin_files.files:
        target = (root / name).resolve()
        if root.resolve() not in target.parents:
            raise EvoInputError(f"plugin file name {name!r} leaves its folder", source=plugin_files.origin)
        if not target.is_file():  # the digest names the content: a file already there is this one
            atomic_write_text(target, text)
    return root / plugin_files.entry
