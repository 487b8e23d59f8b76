"""Shared fixtures of the gallery tests: one real run folder, made once per session by ``evo run``."""

from __future__ import annotations

from pathlib import Path

import pytest
from gallery_builders import real_run


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return real_run(tmp_path_factory.mktemp("gallery-run"))
