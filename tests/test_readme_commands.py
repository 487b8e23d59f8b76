"""The commands the README and the docs show write only where git does not track files: following them
must not change the repository (a screenshot over docs/gallery.png, a GIF over a genome)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WRITING = ("--screenshot", "--gif", "--svg", "--out", "--trace")  # flags whose value is a file evo writes


def _tracked() -> set[str]:
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(done.stdout.splitlines())


def _written(page: Path) -> list[tuple[str, str]]:
    """(command line, file) for each file an `evo` command in a code block of ``page`` writes."""
    out = []
    for block in re.findall(r"```(?:bash|sh)?\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
        for line in block.splitlines():
            if " evo " not in f" {line} " and "-m evo" not in line:
                continue
            try:
                words = shlex.split(line.split("#", 1)[0])
            except ValueError:
                continue
            for flag, value in zip(words, words[1:], strict=False):
                if flag in WRITING:
                    out.append((line.strip(), value))
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_command_in_the_docs_writes_over_a_tracked_file(page):
    tracked = _tracked()
    over = [(line, path) for line, path in _written(page) if path in tracked]
    assert not over, f"{page.name}: these commands overwrite tracked files: {over}"


def test_the_readme_shows_a_screenshot_command_that_this_test_sees():
    assert any(path.endswith(".png") for _, path in _written(ROOT / "README.md"))
