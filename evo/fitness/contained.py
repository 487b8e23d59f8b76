"""Plugin code imported in a child process first: an import that ends the process (``os._exit``), hangs or
moves the working folder does so in the child, and the command says so in one line instead of ending,
hanging or moving (docs/plugins.md, "What a plugin cannot do").
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence

from evo.errors import EvoInputError

__all__ = ["IMPORT_TIME_LIMIT", "import_in_child", "working_folder_kept"]

IMPORT_TIME_LIMIT = 60.0  # s: importing every user plugin file of one command, numpy and evo included

# The child, on the parent's sys.path (argv[2]): import each target as the parent would and write one JSON
# line per target that came back (with its error, if any) to the pipe argv[1]; a missing line ended it.
_CHILD = """
import json, os, sys
out = os.fdopen(int(sys.argv[1]), "w", buffering=1)
sys.path[:] = json.loads(sys.argv[2])
from evo.errors import EvoInputError
from evo.fitness import registry
for target in sys.argv[3:]:
    kind, _, where = target.partition(":")
    try:
        if kind == "file":
            registry._load_file(__import__("pathlib").Path(where), contained=True)
        elif kind == "module":
            __import__("importlib").import_module(where)
        else:
            registry._load_entry_point_named(where, contained=True)
        error = None
    except EvoInputError as exc:
        error = str(exc)
    except Exception as exc:
        error = f"{where}: importing it raised {type(exc).__name__}: {exc}"
    out.write(json.dumps({"target": target, "error": error}) + "\\n")
os._exit(0)
"""


@contextlib.contextmanager
def working_folder_kept() -> Iterator[None]:
    """Inside, plugin code may ``os.chdir``; on the way out the process is back in the folder it was in
    (so that relative paths keep their meaning)."""
    try:
        before = os.getcwd()
    except OSError:  # the working folder is gone: nothing to keep
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.chdir(before)


def _where(target: str) -> str:
    kind, _, where = target.partition(":")
    return where if kind == "file" else f"entry point '{where}'"


def import_in_child(targets: Sequence[str], time_limit: float | None = None) -> None:
    """Import ``targets`` (``file:/abs/path.py``, ``module:NAME`` or ``entry:NAME``) in a child Python
    process.

    Raises:
        EvoInputError: one line naming the first target whose import ended the child (``os._exit``,
            ``sys.exit`` in a thread, a crash), took longer than ``time_limit`` (default
            :data:`IMPORT_TIME_LIMIT`) s, or failed.
    """
    if not targets:
        return
    limit = IMPORT_TIME_LIMIT if time_limit is None else time_limit
    read_end, write_end = os.pipe()
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(write_end), json.dumps(sys.path), *targets],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # the parent's own import prints whatever the plugin prints
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
            start_new_session=True,  # its own group: a hanging import's own children end with it
        )
    finally:
        os.close(write_end)
    with os.fdopen(read_end, "r", encoding="utf-8", errors="replace") as pipe:
        try:
            child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            done = _lines(pipe.read())
            hung = next((t for t in targets if t not in done), targets[-1])
            raise EvoInputError(
                f"importing it took longer than {limit:g} s (a plugin must not wait or loop at import)",
                source=_where(hung),
            ) from None
        done = _lines(pipe.read())
    for target in targets:
        if target not in done:
            raise EvoInputError(
                f"importing it ended the process (exit status {child.returncode}); a plugin must not exit "
                "or crash at import",
                source=_where(target),
            )
        if done[target] is not None:
            raise EvoInputError(done[target])


def _lines(text: str) -> dict[str, str | None]:
    """target -> error (None when it imported) of the lines the child wrote."""
    found: dict[str, str | None] = {}
    for line in text.splitlines():
        with contextlib.suppress(ValueError, KeyError, TypeError):
            record = json.loads(line)
            found[str(record["target"])] = record["error"]
    return found
