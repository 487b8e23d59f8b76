"""The files ``evo studio`` makes for itself: run-folder names claimed so that two studios never share one,
never through a symlink out of the start folder, and the private redirect page for the browser."""

from __future__ import annotations

import multiprocessing
import os
import stat
from pathlib import Path

import pytest

from evo.errors import EvoInputError
from evo.io.studio_files import claim_folder, remove_redirect_page, write_redirect_page


def _claim(args: tuple[str, int]) -> str:
    folder, _ = args
    runs = Path(folder) / "runs"
    return str(claim_folder(runs / ".studio", "studio", within=Path(folder), taken=runs)[0])


def test_eight_processes_claiming_at_once_get_eight_different_names(tmp_path):
    with multiprocessing.get_context("fork").Pool(8) as pool:
        claimed = pool.map(_claim, [(str(tmp_path), i) for i in range(8)])
    assert sorted(Path(c).name for c in claimed) == [f"studio-{k}" for k in range(1, 9)]


def test_a_name_whose_run_folder_exists_is_not_claimed(tmp_path):
    (tmp_path / "runs" / "studio-1").mkdir(parents=True)
    folder, k = claim_folder(
        tmp_path / "runs" / ".studio", "studio", within=tmp_path, taken=tmp_path / "runs"
    )
    assert (folder.name, k) == ("studio-2", 2)


@pytest.mark.parametrize("link", ["runs", "runs/.studio"])
def test_a_runs_folder_that_is_a_symlink_out_of_the_start_folder_is_refused(tmp_path, link):
    start, outside = tmp_path / "start", tmp_path / "outside"
    start.mkdir()
    outside.mkdir()
    (start / link).parent.mkdir(parents=True, exist_ok=True)
    (start / link).symlink_to(outside)
    with pytest.raises(EvoInputError, match="symbolic link"):
        claim_folder(start / "runs" / ".studio", "studio", within=start, taken=start / "runs")
    assert list(outside.iterdir()) == []


def test_the_redirect_page_is_private_holds_the_url_and_is_removed(tmp_path):
    url = "http://127.0.0.1:8765/?token=abc&x=<y>"
    page = write_redirect_page(url)
    assert (
        stat.S_IMODE(os.stat(page).st_mode) == 0o600 and stat.S_IMODE(os.stat(page.parent).st_mode) == 0o700
    )
    assert 'url=http://127.0.0.1:8765/?token=abc&amp;x=&lt;y&gt;"' in page.read_text(encoding="utf-8")
    remove_redirect_page(page)
    assert not page.parent.exists()
