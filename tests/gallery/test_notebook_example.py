"""examples/notebook.ipynb runs from top to bottom in a Jupyter kernel (nbclient), is committed without
outputs, and its progress bar works without ipywidgets: no TqdmWarning, one bar on one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat  # nbclient (with nbformat) and ipykernel are in the test extra
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"


def _rendered(text: str) -> list[str]:
    """The lines a notebook shows for a stream: each line as its last carriage return left it."""
    return [line.rsplit("\r", 1)[-1] for line in text.split("\n") if line.rsplit("\r", 1)[-1].strip()]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    tree = tmp_path_factory.mktemp("repo")
    (tree / "examples").mkdir()
    shutil.copy(NOTEBOOK, tree / "examples")
    shutil.copy(ROOT / "examples" / "walkers.toml", tree / "examples")
    shutil.copytree(ROOT / "genomes", tree / "genomes")
    notebook = nbformat.read(tree / "examples" / "notebook.ipynb", as_version=4)
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tree / "examples")}}
    )
    client.execute()
    return notebook, tree


def test_the_committed_notebook_has_no_outputs():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code and all(cell["outputs"] == [] and cell["execution_count"] is None for cell in code)


def test_the_notebook_runs_and_writes_its_run_folder(executed):
    notebook, tree = executed
    errors = [
        o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert errors == []
    assert (tree / "runs" / "notebook" / "history.csv").read_text().count("\n") == 5  # header, 4 rows
    html = [o for c in notebook.cells for o in c.get("outputs", []) if "text/html" in o.get("data", {})]
    assert len(html) >= 3  # the walker's replay, the run's chart and creatures, the best creature


def test_the_progress_bar_in_a_kernel_without_ipywidgets_is_one_line_and_no_warning(executed):
    notebook, _ = executed
    evolve_cell = next(c for c in notebook.cells if c.cell_type == "code" and "evo.evolve(" in c.source)
    stderr = "".join(o.text for o in evolve_cell.outputs if o.output_type == "stream" and o.name == "stderr")
    everything = "".join(
        o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.outputs
    )
    assert "TqdmWarning" not in everything and "IProgress" not in everything
    assert "\x1b[" not in stderr  # no cursor movement: a notebook cannot draw it
    lines = _rendered(stderr)
    assert len(lines) == 1 and lines[0].startswith("notebook: 100%") and "4/4" in lines[0]
