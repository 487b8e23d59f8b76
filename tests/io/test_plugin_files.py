"""Plugin files as text: read with their neighbours, written again elsewhere, byte for byte."""

from __future__ import annotations

import pytest

from evo.errors import EvoInputError
from evo.io import plugin_files
from evo.io.plugin_files import read_plugin_files, write_plugin_files


def make_folder(root):
    (root / "helpers").mkdir(parents=True)
    (root / "sprint.py").write_text("from sprint_helper import x\n")
    (root / "sprint_helper.py").write_text("x = 'é'\n")
    (root / "helpers" / "__init__.py").write_text("")
    (root / "helpers" / "more.py").write_text("y = 2\n")
    (root / "data").mkdir()  # not a package: left out
    (root / "data" / "skip.py").write_text("z = 3\n")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "sprint.py").write_text("cached\n")
    return root / "sprint.py"


def test_a_plugin_file_travels_with_the_python_files_and_packages_beside_it(tmp_path):
    entry = make_folder(tmp_path / "mine")
    bundle = read_plugin_files(entry)
    assert bundle.entry == "sprint.py" and bundle.origin == str(entry)
    assert [name for name, _ in bundle.files] == [
        "sprint.py", "sprint_helper.py", "helpers/__init__.py", "helpers/more.py",
    ]  # fmt: skip
    copy = write_plugin_files(bundle, tmp_path / "worker")
    assert copy.name == "sprint.py" and copy.parent.parent == tmp_path / "worker"
    for name, text in bundle.files:
        assert (copy.parent / name).read_text(encoding="utf-8") == text
    assert read_plugin_files(copy).digest == bundle.digest  # the copy is the same plugin
    assert write_plugin_files(bundle, tmp_path / "worker") == copy  # a second time: nothing to do


def test_different_files_get_different_folders(tmp_path):
    entry = make_folder(tmp_path / "mine")
    first = write_plugin_files(read_plugin_files(entry), tmp_path / "worker")
    (tmp_path / "mine" / "sprint_helper.py").write_text("x = 'changed'\n")
    second = write_plugin_files(read_plugin_files(entry), tmp_path / "worker")
    assert first.parent != second.parent
    assert (second.parent / "sprint_helper.py").read_text() == "x = 'changed'\n"


def test_a_folder_too_big_to_send_is_one_line_naming_the_plugin(tmp_path, monkeypatch):
    entry = make_folder(tmp_path / "mine")
    monkeypatch.setattr(plugin_files, "MAX_PLUGIN_BYTES", 10)
    with pytest.raises(EvoInputError, match="put the plugin in a folder of its own") as caught:
        read_plugin_files(entry)
    assert str(caught.value).startswith(str(entry)) and "\n" not in str(caught.value)


def test_a_missing_plugin_file_is_an_input_error(tmp_path):
    with pytest.raises(EvoInputError, match="no such plugin file"):
        read_plugin_files(tmp_path / "nothing.py")


def test_a_folder_holds_the_files_only_with_every_one_of_them_byte_for_byte(tmp_path):
    files = read_plugin_files(make_folder(tmp_path / "mine"))
    assert plugin_files.held_at(files, tmp_path / "mine")
    copy = write_plugin_files(files, tmp_path / "worker").parent
    assert plugin_files.held_at(files, copy)
    (copy / "helpers" / "more.py").write_text("y = 3\n")
    assert not plugin_files.held_at(files, copy)
    (tmp_path / "mine" / "sprint_helper.py").unlink()
    assert not plugin_files.held_at(files, tmp_path / "mine")
