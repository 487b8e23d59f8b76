"""Every open of a file in evo/ goes through the bounded reader or the safe writer (issue 32): a walk of
every module's AST finds each call that opens, reads or writes a path, and any one not listed below with
its reason fails."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "evo"

# calls that open a path: attribute names (path.read_text(), np.load(...)) and plain names (open(...))
OPENING_ATTRIBUTES = {
    "open", "fdopen", "read_text", "read_bytes", "write_text", "write_bytes", "mkstemp",
    "NamedTemporaryFile", "FileHandler", "touch",
}  # fmt: skip
# calls that open a path only on these receivers: np.load(path), shutil.copy(a, b)
RECEIVED = {
    "load": {"np", "numpy", "tomllib", "json", "pickle"},
    **{name: {"shutil"} for name in ("copy", "copyfile", "copy2", "copytree", "move")},
}
OPENING_NAMES = {"open", "FileHandler"}

# (module, call): why this one is not a user path, or is checked there
ALLOWED = {
    ("evo.io.bounded", "os.open"): "the bounded reader itself (O_NONBLOCK, fstat, capped)",
    ("evo.io.atomic", "os.open"): "fsync of a folder, and open_for_appending (O_NOFOLLOW, checked)",
    ("evo.io.atomic", "tempfile.mkstemp"): "the safe writer's own temporary file",
    ("evo.io.atomic", "os.fdopen"): "the safe writer's own temporary file, and the checked log",
    ("evo.io.npz_file", "os.open"): "fsync of the run folder after a checkpoint's rename",
    ("evo.io.npz_file", "tempfile.mkstemp"): "the checkpoint's own temporary file",
    ("evo.io.npz_file", "os.fdopen"): "the checkpoint's own temporary file",
    ("evo.io.run_lock", "os.open"): "run.lock, opened with O_NOFOLLOW and checked",
    ("evo.io.checkpoint.disk", "os.open"): "history.csv appended with O_NOFOLLOW, after the folder check",
    ("evo.io.checkpoint.disk", "os.fdopen"): "the same history.csv descriptor",
    ("evo.io.assets", "resources.files(...).joinpath(...).read_text"): "evo's own package data",
    ("evo.io.screenshot", "partial.read_bytes"): "the picture Chromium wrote into evo's own temporary folder",
    ("evo.fitness.contained", "os.fdopen"): "a pipe to the plugin-import child, not a path",
    ("evo.io.checkpoint.disk", "Path(...).touch"): "the kill tests' marker, only under their variable",
    ("evo.io.studio_files", "os.open"): "the redirect page, O_EXCL in a private folder it just made",
    ("evo.io.studio_files", "os.fdopen"): "the same new file",
    ("evo.studio.child", "os.fdopen"): "a duplicate of its own standard output, not a path",
}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return f"{_name(node.func)}(...)"
    return "..."


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _opening_calls() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id in OPENING_NAMES:
                found.add((_module(path), func.id))
            elif isinstance(func, ast.Attribute):
                name = _name(func)
                receiver = name.rsplit(".", 1)[0]
                if func.attr in RECEIVED and receiver not in RECEIVED[func.attr]:
                    continue
                if func.attr not in OPENING_ATTRIBUTES and func.attr not in RECEIVED:
                    continue
                if name == "webbrowser.open":  # a browser, not a file
                    continue
                found.add((_module(path), name))
    return found


def test_every_open_of_a_path_in_evo_is_the_bounded_reader_the_safe_writer_or_listed_with_its_reason():
    unexplained = sorted(_opening_calls() - set(ALLOWED))
    assert unexplained == [], f"opens a path without the bounded reader or the safe writer: {unexplained}"


def test_the_list_of_reasons_names_no_call_that_is_gone():
    assert sorted(set(ALLOWED) - _opening_calls()) == []
