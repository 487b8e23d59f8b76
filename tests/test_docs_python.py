"""Every ``python`` code block of docs/python.md runs, in order, as one script: the docs cannot rot. And every
function and public method of the public API (``evo._PUBLIC``) documents its arguments and what it returns.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import re
import textwrap
import typing
from pathlib import Path

import pytest

import evo
from evo.fitness import registry

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def test_every_code_block_of_the_python_guide_runs(tmp_path, monkeypatch, capsys):
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    blocks = BLOCK.findall(text)
    assert len(blocks) >= 6
    for name in ("genomes", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(registry, "_REGISTERED", {})  # the guide registers 'height': not for other tests
    namespace: dict = {"__name__": "__main__"}
    for number, block in enumerate(blocks, start=1):
        code = compile(block, f"docs/python.md, block {number}", "exec")
        exec(code, namespace)  # noqa: S102 - the documentation's own examples
    out = capsys.readouterr().out
    assert "Creature('walker'" in out and "RunResult('walkers'" in out
    assert sorted(os.listdir(tmp_path / "runs")) == ["demo"]  # only the run that asked for a folder


def _public_callables() -> dict[str, tuple[object, str]]:
    """``name`` -> (function, the docstring that documents it): every function of the public API, every
    public method its classes define, and the constructor of a class that is not a dataclass (documented
    in the class docstring)."""
    found: dict[str, tuple[object, str]] = {}
    for name in sorted(evo._PUBLIC):
        obj = getattr(evo, name)
        if inspect.isfunction(obj):
            found[name] = (obj, inspect.getdoc(obj) or "")
        elif inspect.isclass(obj):
            for attr, value in vars(obj).items():
                func = value.__func__ if isinstance(value, classmethod | staticmethod) else value
                if not attr.startswith("_") and inspect.isfunction(func):
                    found[f"{name}.{attr}"] = (func, inspect.getdoc(func) or "")
            init = vars(obj).get("__init__")
            protocol = typing.Protocol in obj.__mro__  # a protocol is not made, its __init__ is typing's
            if inspect.isfunction(init) and not dataclasses.is_dataclass(obj) and not protocol:
                found[f"{name}()"] = (init, inspect.getdoc(obj) or "")
    return found


PUBLIC_CALLABLES = _public_callables()
SECTION = re.compile(r"^(Args|Returns|Raises|Attributes|Yields|Examples?):\s*$", re.MULTILINE)


def _section(doc: str, title: str) -> str | None:
    """The text of the ``title:`` section of a Google-style docstring, or None if it has none."""
    match = re.search(rf"^{title}:\s*$", doc, re.MULTILINE)
    if match is None:
        return None
    following = SECTION.search(doc, match.end())
    return doc[match.end() : following.start() if following else len(doc)]


def _raises_directly(func: object) -> bool:
    """Whether the function's own body (not a nested function) has a ``raise SomeError(...)``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    body = tree.body[0]
    todo = list(ast.iter_child_nodes(body))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Raise) and node.exc is not None:
            return True
        todo.extend(ast.iter_child_nodes(node))
    return False


def test_the_public_api_has_functions_and_methods_to_document():
    assert {"evolve", "open_run", "simulate", "Config.from_toml", "Evolution.ask", "Evolution()"} <= set(
        PUBLIC_CALLABLES
    )


@pytest.mark.parametrize("name", sorted(PUBLIC_CALLABLES))
def test_a_public_function_documents_its_arguments_what_it_returns_and_what_it_raises(name):
    func, doc = PUBLIC_CALLABLES[name]
    assert doc.strip(), f"{name} has no docstring"
    signature = inspect.signature(func)
    params = [p.name for p in signature.parameters.values() if p.name not in ("self", "cls")]
    if params:
        args = _section(doc, "Args")
        assert args is not None, f"{name} takes {', '.join(params)} but its docstring has no Args: section"
        missing = [p for p in params if not re.search(rf"\b{p}\b", args)]
        assert not missing, f"{name}: Args: does not name {', '.join(missing)}"
    if not name.endswith("()"):
        returned = signature.return_annotation
        assert returned is not inspect.Signature.empty, f"{name} has no return annotation"
        if returned not in ("None", None):
            assert _section(doc, "Returns") is not None, f"{name} returns {returned} but has no Returns:"
        if _raises_directly(func):
            assert _section(doc, "Raises") is not None, f"{name} raises but its docstring has no Raises:"
