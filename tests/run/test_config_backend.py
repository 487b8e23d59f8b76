"""``[pool] backend`` and ``address``: how a config, ``evo.evolve`` and ``evo run --dask`` choose where
evaluations run, and the one-line errors when that cannot work."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

import evo
from evo.cli import main
from evo.errors import EvoInputError
from evo.run.backends import backend_kind
from evo.run.config import load_config, pool_overrides


def write_config(folder, pool: str):
    path = folder / "walkers.toml"
    path.write_text(textwrap.dedent("[run]\npopulation = 4\n[pool]\nworkers = 2\n" + pool))
    return path


def test_the_default_backend_is_shards_for_evo_s_own_code_else_in_process_or_fork_and_is_not_written(
    tmp_path,
):
    config = load_config(write_config(tmp_path, ""))
    assert config.pool.backend is None and config.pool.address is None
    assert (backend_kind(None, 1), backend_kind(None, 2), backend_kind("dask", 1)) == (
        "inprocess",
        "fork",
        "dask",
    )
    # shards where the run says only evo's own code runs in lanes (evo.run.job.threads_may_evaluate),
    # whatever the worker count (1: the evo run process makes the generations from arrays itself)
    assert (backend_kind(None, 1, True), backend_kind(None, 2, True), backend_kind("fork", 2, True)) == (
        "shards",
        "shards",
        "fork",
    )
    assert set(config.to_dict()["pool"]) == {"workers", "batch"}  # backend and address: not written


def test_a_dask_backend_and_its_address_are_kept_in_the_resolved_config(tmp_path):
    config = load_config(write_config(tmp_path, 'backend = "dask"\naddress = "tcp://10.0.0.5:8786"\n'))
    assert (config.pool.backend, config.pool.address) == ("dask", "tcp://10.0.0.5:8786")
    again = tmp_path / "again.toml"
    again.write_text(config.to_toml())
    assert load_config(again).pool == config.pool
    assert "dask scheduler at tcp://10.0.0.5:8786" in config.describe()[-1]


ONLY_DASK = '[pool] address: only used with backend = "dask", but backend is'


@pytest.mark.parametrize(
    "pool, message",
    [
        ('backend = "dusk"',
         "[pool] backend: expected one of 'fork', 'inprocess', 'dask', 'threads', 'shards', got 'dusk';"
         " did you mean 'dask'?"),
        ('address = "tcp://h:8786"', f"{ONLY_DASK} not set"),
        ('backend = "fork"\naddress = "tcp://h:8786"', f"{ONLY_DASK} fork"),
        ('backend = "dask"\naddress = " "',
         "[pool] address: expected a scheduler address such as 'tcp://host:8786', got ' '"),
    ],
)  # fmt: skip
def test_a_bad_backend_or_address_is_one_line(tmp_path, pool, message):
    path = write_config(tmp_path, pool)
    with pytest.raises(EvoInputError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: {message}"


def test_dask_without_its_extra_says_what_to_install_and_writes_nothing(tmp_path, monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a)
    )
    path = write_config(tmp_path, 'backend = "dask"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    expected = "the dask backend needs dask and distributed, which are not installed: pip install 'evo[dask]'"
    assert err.endswith(f"[pool] backend: {expected}") and "\n" not in err
    assert not (tmp_path / "runs").exists()
    with pytest.raises(EvoInputError, match=r"pip install 'evo\[dask\]'"):
        evo.evolve(write_config(tmp_path, ""), address="tcp://127.0.0.1:8786", progress=False)


def test_evolve_takes_a_backend_and_an_address_an_address_meaning_dask(tmp_path):
    config = load_config(write_config(tmp_path, 'backend = "dask"\naddress = "tcp://h:1"\n'))
    assert pool_overrides(address="tcp://h:2") == {"backend": "dask", "address": "tcp://h:2"}
    assert pool_overrides(backend="fork") == {"backend": "fork", "address": None}
    assert config.replace(pool=pool_overrides(backend="fork")).pool.address is None
    assert load_config(config.source, overrides={"pool": pool_overrides(backend="fork")}).pool.address is None
    with pytest.raises(EvoInputError, match="only used with backend='dask'"):
        pool_overrides(backend="fork", address="tcp://h:2")
