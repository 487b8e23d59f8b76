"""The package's layers, read from the imports of every module (README.md, section Layout).

Each package has a rank; a module may import its own package and packages of lower rank only. On top:
the simulator imports nothing of evo but the model, the errors and the schema; only ``evo.io`` opens
files; nothing imports the command line; and the module import graph has no circle.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "evo"

# lower ranks first; a module may import modules of its own package or of a lower rank
RANKS = {
    "evo.errors": 0,
    "evo.schema": 1,
    "evo.model": 2,
    "evo.sim": 3,
    "evo.analysis": 4,
    "evo.fitness": 4,
    "evo.audit": 4.5,  # exploit audit and robust scoring: perturbed worlds over the simulator and plugins
    "evo.ga": 5,
    "evo.qd": 5.5,  # MAP-Elites: uses evo.ga's operators; evo.io saves its state
    "evo.io": 6,
    "evo.io.checkpoint": 6.1,  # a run's state as a document, checkpoint.npz; the flat evo.io below it
    "evo.io.run_folder": 6.2,  # the run folder's files, read and written; holds a checkpoint
    "evo.refine": 6.5,  # CMA-ES over a fixed body's genes; evo.run's memetic step calls it
    "evo.run": 7,
    "evo.race": 8,  # Sodarace races: reads run folders (evo.io), simulates (evo.sim)
    "evo.tasks": 8,  # the task suite: runs searches (evo.run), reads and writes records (evo.io)
    "evo.gallery": 9,
    "evo.studio": 9,  # the web studio's server: a top layer beside the gallery
    "evo": 10,  # the package's own __init__: the public API
    "evo.bench": 10,
    "evo.cli": 11,
    "evo.__main__": 12,
}

# methods that read, write or remove files (pathlib, shutil, Pillow, Playwright)
FILE_METHODS = {
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "unlink",
    "rmdir",
    "rmtree",
    "mkdir",
    "touch",
    "save",
    "screenshot",
}
# module functions that do: (module, function)
FILE_FUNCTIONS = {
    ("os", "replace"),
    ("os", "rename"),
    ("os", "remove"),
    ("os", "open"),
    ("tomllib", "load"),
    ("shutil", "copy"),
    ("shutil", "copyfile"),
    ("shutil", "move"),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _submodule_or(module: str, name: str) -> str:
    """``from evo.sim import world`` imports the module evo.sim.world; ``from evo.sim import World``
    imports evo.sim."""
    return f"{module}.{name}" if f"{module}.{name}" in MODULES else module


def _imports(name: str, tree: ast.Module) -> set[str]:
    """The evo modules ``name`` imports anywhere (at the top or inside functions)."""
    is_package = name == "evo" or (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [
                f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names
            ]
        else:
            continue
        out.update(t for t in targets if t == "evo" or t.startswith("evo."))
    return out


GRAPH = {name: _imports(name, tree) - {name} for name, tree in MODULES.items()}


def _package(module: str) -> str:
    best = max((p for p in RANKS if module == p or module.startswith(p + ".")), key=len)
    return best


def test_every_module_belongs_to_a_ranked_package():
    assert all(_package(m) in RANKS for m in MODULES)
    assert {_package(m) for m in MODULES if m != "evo"} - {"evo"} <= set(RANKS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_own_package_and_lower_layers(module):
    own = _package(module)
    for target in GRAPH[module]:
        other = _package(target)
        if other == own:
            continue
        assert RANKS[other] < RANKS[own], f"{module} imports {target} ({other} is not below {own})"


def test_the_simulator_imports_nothing_of_evo_but_the_model_the_errors_and_the_schema():
    allowed = ("evo.sim", "evo.model", "evo.errors", "evo.schema")
    for module, targets in GRAPH.items():
        if _package(module) == "evo.sim":
            outside = {t for t in targets if _package(t) not in allowed}
            assert not outside, f"{module} imports {outside}"


def test_nothing_imports_the_command_line():
    for module, targets in GRAPH.items():
        if _package(module) not in ("evo.cli", "evo.__main__"):
            assert not {t for t in targets if _package(t) == "evo.cli"}, module


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _file_calls(tree: ast.Module) -> list[str]:
    """Calls that touch files; an image saved into ``buffer`` (an ``io.BytesIO``) does not."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append(f"open() at line {node.lineno}")
        elif isinstance(func, ast.Attribute):
            receiver = func.value.id if isinstance(func.value, ast.Name) else None
            in_memory = func.attr == "save" and node.args and _is_name(node.args[0], "buffer")
            if (func.attr in FILE_METHODS and not in_memory) or (receiver, func.attr) in FILE_FUNCTIONS:
                found.append(f"{receiver or '...'}.{func.attr}() at line {node.lineno}")
            elif func.attr == "open" and receiver not in ("webbrowser",):
                found.append(f"{receiver or '...'}.open() at line {node.lineno}")
    return found


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if m != "evo.io" and not m.startswith("evo.io."))
)
def test_only_the_io_package_opens_or_writes_files(module):
    assert _file_calls(MODULES[module]) == [], f"{module} touches files outside evo.io"


def test_the_module_import_graph_has_no_circle():
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(GRAPH.get(module, ())):
            if target not in MODULES:
                continue
            if state.get(target) == 1:
                circle = stack[stack.index(target) :] + [target]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(MODULES):
        if module not in state:
            visit(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_docstring_says_what_the_module_owns_in_five_lines_or_fewer(module):
    docstring = ast.get_docstring(MODULES[module])
    assert docstring, f"{module} has no module docstring"
    lines = len(docstring.splitlines())
    assert lines <= 5, f"{module}: a module docstring of {lines} lines; the explanation belongs in docs/"


def test_the_readme_layout_names_every_package_and_top_level_module():
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Layout", 1)[1].split("```", 2)[1]
    named = set(re.findall(r"evo/(\w+)(?:/|\.py)", block))
    present = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    present |= {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__main__"}
    assert named == present
