"""The job of ``evo run``'s workers: a context that carries its plugin's files, set up on a worker."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from evo.errors import EvoInputError
from evo.fitness import PluginRef, find_plugin, registry
from evo.fitness.evaluate import EvaluationSpec, evaluate
from evo.ga.creatures import random_creature
from evo.ga.settings import GASection, GenomeSection
from evo.run.job import BreedContext, _shipped_here, setup_worker, with_plugin_files
from evo.sim import World

PLUGIN = '''
from evo.fitness import fitness_plugin
from reach_helper import far


@fitness_plugin("reach", weights=(1.0,), record_every=10)
def reach(result) -> float:
    """How far right the creature ends (px), through a helper."""
    return far(result.centroids)
'''


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REFS", {})


def context_for(folder, text=PLUGIN) -> BreedContext:
    folder.mkdir()
    (folder / "reach.py").write_text(text)
    (folder / "reach_helper.py").write_text("def far(c):\n    return float(c[-1, 0])\n")
    plugin = find_plugin("reach", [str(folder)])
    spec = EvaluationSpec(World(), 200, plugin.ref(), {})
    return BreedContext(spec, GenomeSection(), GASection())


def test_a_worker_loads_a_shipped_plugin_from_its_own_copy_and_scores_the_same(tmp_path):
    import numpy as np

    context = with_plugin_files(context_for(tmp_path / "mine"))
    creature = random_creature(np.random.default_rng(1), GenomeSection())
    expected = evaluate(creature, context.spec, 5)
    shutil.rmtree(tmp_path / "mine")  # a worker on another machine does not see the folder
    ready = setup_worker(context, tmp_path / "worker")
    assert ready.spec.plugin.origin.startswith(f"file:{tmp_path / 'worker'}")
    assert ready.spec.plugin.name == "reach" and evaluate(creature, ready.spec, 5) == expected


def test_a_context_whose_plugin_is_not_a_file_carries_no_files():
    plugin = find_plugin("distance")
    context = BreedContext(EvaluationSpec(World(), 200, plugin.ref(), {}), GenomeSection(), GASection())
    assert with_plugin_files(context).plugin_files is not None  # the shipped plugins are files too
    python = PluginRef("f", "python:evo.sim:simulate")
    elsewhere = BreedContext(EvaluationSpec(World(), 200, python, {}), GenomeSection(), GASection())
    assert with_plugin_files(elsewhere).plugin_files is None


def test_a_plugin_that_cannot_load_on_a_worker_is_one_line_naming_it_and_its_file(tmp_path):
    context = with_plugin_files(context_for(tmp_path / "mine"))
    broken = PLUGIN + "\nimport evo_module_that_is_not_here\n"
    shipped = context.plugin_files
    files = tuple((name, broken if name == "reach.py" else text) for name, text in shipped.files)
    context = dataclasses.replace(context, plugin_files=dataclasses.replace(shipped, files=files))
    with pytest.raises(EvoInputError) as caught:
        setup_worker(context, tmp_path / "worker")
    message = str(caught.value)
    assert message.startswith(f"cannot load plugin 'reach' (from {tmp_path / 'mine' / 'reach.py'}): ")
    assert "No module named 'evo_module_that_is_not_here'" in message and "\n" not in message


def test_one_of_evos_shipped_plugins_is_loaded_from_its_own_file_when_this_machine_has_it_unchanged(
    tmp_path, monkeypatch
):
    plugin = find_plugin("distance")
    context = with_plugin_files(
        BreedContext(EvaluationSpec(World(), 200, plugin.ref(), {}), GenomeSection(), GASection())
    )
    children = []
    monkeypatch.setattr(registry, "import_in_child", children.append)
    assert _shipped_here(context.plugin_files)
    ready = setup_worker(context, tmp_path / "worker")
    assert ready.spec.plugin.origin == plugin.origin and children == []  # no copy, no child import
    assert not (tmp_path / "worker").exists()
    # a machine whose shipped file differs gets the copy, imported in a child first like any file
    shipped = context.plugin_files
    files = tuple((n, t + "\n# changed\n" if n == shipped.entry else t) for n, t in shipped.files)
    changed = dataclasses.replace(context, plugin_files=dataclasses.replace(shipped, files=files))
    assert not _shipped_here(changed.plugin_files)
    ready = setup_worker(changed, tmp_path / "worker")
    assert ready.spec.plugin.origin.startswith(f"file:{tmp_path / 'worker'}") and len(children) == 1
