"""Every ``python`` code block of docs/python.md runs, in order, as one script: the docs cannot rot."""

from __future__ import annotations

import os
import re
from pathlib import Path

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
