"""The first release's import paths (evo.plugins, evo.evaluation, evo.config) keep working for one release,
each with a DeprecationWarning naming the new path; ``evo --version`` and ``evo.__version__`` agree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import evo

ROOT = Path(__file__).resolve().parents[1]
FIRST_RELEASE = ROOT / "tests" / "fixtures" / "first_release_plugins"


def test_a_plugin_and_its_tests_written_as_the_first_release_documented_them_still_run(tmp_path):
    shutil.copytree(FIRST_RELEASE / "my_plugins", tmp_path / "my_plugins")
    shutil.copy(FIRST_RELEASE / "first_release_tests.py", tmp_path)
    (tmp_path / "genomes").mkdir()
    shutil.copy(ROOT / "genomes" / "walker.json", tmp_path / "genomes")
    script = (
        "import first_release_tests as t\n"
        "t.test_posture_of_a_creature_at_rest()\n"
        "t.test_posture_scores_a_real_walker()\n"
        "print('both passed')\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "both passed" in done.stdout
    # the test file's own imports, and the plugin file's (loaded by evo, not __main__), are both named
    assert "first_release_tests.py:" in done.stderr and "posture.py:" in done.stderr
    assert "evo.plugins is deprecated since evo 0.2.0" in done.stderr
    assert "import fitness_plugin from evo.fitness (or `from evo import fitness_plugin`)" in done.stderr
    assert "evo.evaluation is deprecated since evo 0.2.0" in done.stderr


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("evo.plugins", "fitness_plugin", "evo.fitness"),
        ("evo.plugins", "SimulationResult", "evo.fitness"),
        ("evo.plugins", "discover", "evo.fitness"),
        ("evo.evaluation", "evaluate", "evo.fitness"),
        ("evo.evaluation", "EvaluationSpec", "evo.fitness"),
        ("evo.config", "load_config", "evo.run.config"),
        ("evo.io.runs", "read_run", "evo.io.run_folder"),
        ("evo.io.checkpoint_file", "read_checkpoint_document", "evo.io.checkpoint"),
        ("evo.io.checkpoint_schema", "validate_checkpoint", "evo.io.checkpoint"),
        ("evo.io.qd_checkpoint", "qd_state_from_dict", "evo.io.checkpoint"),
        ("evo.io.population_arrays", "pack_individuals", "evo.io.checkpoint.arrays"),
        ("evo.run.elite_files", "EliteFiles", "evo.run.folder"),
        ("evo.run.archive_writer", "QDFolderWriter", "evo.run.folder"),
    ],
)
def test_an_old_import_path_gives_the_same_object_and_a_warning_naming_the_new_one(old, name, new):
    module = __import__(old, fromlist=[name])
    with pytest.warns(DeprecationWarning, match=rf"^{old} is deprecated .*import {name} from {new}\b"):
        value = getattr(module, name)
    assert value is getattr(__import__(new, fromlist=[name]), name)


def test_an_old_module_has_no_names_the_first_release_did_not_have():
    import evo.plugins

    with pytest.raises(AttributeError, match="evo.plugins"):
        evo.plugins.no_such_name  # noqa: B018


def test_a_moved_module_is_the_new_ones_names_and_no_others_and_its_files_are_gone():
    import evo.io.runs

    with pytest.raises(AttributeError, match="evo.io.runs"):
        evo.io.runs.no_such_name  # noqa: B018
    with pytest.warns(DeprecationWarning, match="import Entry from evo.io.run_folder"):
        from evo.io.runs import Entry
    assert Entry is evo.io.run_folder.Entry
    assert not (ROOT / "evo" / "io" / "runs.py").exists()
    assert not (ROOT / "evo" / "run" / "elite_files.py").exists()


def test_the_shortest_import_is_the_decorator_itself():
    from evo import fitness_plugin
    from evo.fitness import fitness_plugin as decorator

    assert fitness_plugin is decorator


def test_the_version_is_the_packages_and_the_command_lines():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert evo.__version__ == project["version"] == "0.2.0"
    done = subprocess.run(
        [sys.executable, "-m", "evo", "--version"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == f"evo {evo.__version__}"


def test_the_changelog_has_a_section_for_the_packages_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"({evo.__version__})" in text.split("\n## ", 2)[1].splitlines()[0]
