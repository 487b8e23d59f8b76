"""Bad input that once hung evo or printed a traceback, through the command line: lone surrogates in
names, malformed dask addresses, values ``validate`` accepted but no run could take, ``--params``
without a plugin, a huge exception message (docs/runs.md, "What survives what")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_run_command import evo_run, write_config

import evo
from evo.cli import main
from evo.errors import EvoInputError
from evo.run.config import load_config

ROOT = Path(__file__).resolve().parents[2]
WALKER = ROOT / "genomes" / "walker.json"

HUGE = """
from evo.fitness import fitness_plugin


@fitness_plugin("huge", record_every=10)
def huge(result):
    raise RuntimeError("x" * 2_000_000)
"""


def _status_and_line(argv: list[str], capsys) -> tuple[int, str]:
    capsys.readouterr()
    status = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return status, err[0]


# -- lone surrogates -----------------------------------------------------------------------------------
def test_a_model_whose_name_is_a_lone_surrogate_is_refused_by_validate_in_one_line(tmp_path, capsys):
    doc = json.loads(WALKER.read_text())
    doc["name"] = "\ud800"
    model = tmp_path / "m.json"
    model.write_text(json.dumps(doc))  # ensure_ascii: the file holds the escape \ud800
    status, line = _status_and_line(["validate", str(model)], capsys)
    assert status == 2 and line.endswith(
        "m.json: name: expected Unicode text, got a lone surrogate (\\ud800-\\udfff)"
    )


def _tiny_run(tmp_path: Path) -> Path:
    config = write_config(tmp_path / "c.toml", generations=2)
    folder = tmp_path / "run"
    assert evo_run(config, "--out", folder, "--quiet") == 0
    return folder


def test_the_gallery_of_a_run_whose_elite_has_a_lone_surrogate_name_is_no_traceback(tmp_path, capsys):
    folder = _tiny_run(tmp_path)
    elite = sorted((folder / "elites").glob("*.json"))[0]
    doc = json.loads(elite.read_text())
    doc["name"] = "\udfff"
    elite.write_text(json.dumps(doc))
    capsys.readouterr()
    status = main(["gallery", str(folder)])
    err = capsys.readouterr().err
    # the elite file no longer matches the checkpoint's elite: the gallery takes the checkpoint's
    assert status == 0 and err == "", err
    assert "\\udfff" not in (folder / "gallery" / "index.html").read_text(encoding="utf-8")


def test_the_gallery_of_a_run_without_checkpoint_whose_elite_has_a_lone_surrogate_name_is_one_line(
    tmp_path, capsys
):
    folder = _tiny_run(tmp_path)
    for path in folder.glob("checkpoint.*"):  # elites/, config.toml and history.csv only
        path.unlink()
    elite = sorted((folder / "elites").glob("*.json"))[0]
    doc = json.loads(elite.read_text())
    doc["name"] = "\udfff"
    elite.write_text(json.dumps(doc))
    status, line = _status_and_line(["gallery", str(folder)], capsys)
    assert status == 2 and line.endswith(
        f"{elite.name}: name: expected Unicode text, got a lone surrogate (\\ud800-\\udfff)"
    )


@pytest.mark.parametrize("where", ["id", "name"])
def test_the_gallery_of_a_run_whose_checkpoint_has_a_lone_surrogate_is_one_line(where, tmp_path, capsys):
    from evo.io.npz_file import read_npz, write_npz

    folder = _tiny_run(tmp_path)
    arrays = read_npz(folder / "checkpoint.npz")
    key = f"hall_of_fame.{where}"
    forged = arrays[key].astype(object)
    forged[:] = "\ud800"
    arrays[key] = forged.astype(f"<U{max(len(str(v)) for v in arrays[key])}")
    write_npz(folder / "checkpoint.npz", arrays)  # a forged checkpoint, with the checksum of its content
    status, line = _status_and_line(["gallery", str(folder)], capsys)
    assert status == 2 and "checkpoint.npz: " in line and "Traceback" not in line, line


# -- dask addresses ---------------------------------------------------------------------------------------
BAD_ADDRESSES = ["notanaddress", "tcp://127.0.0.1:notaport", "tcp://", "foo://127.0.0.1:1", "tcp://[::1",
                 "inproc://x", "tcp://127.0.0.1:0", "udp://h:1"]  # fmt: skip


@pytest.mark.parametrize("address", BAD_ADDRESSES)
def test_a_malformed_dask_address_is_refused_up_front_by_run_and_validate(address, tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=1)
    status, line = _status_and_line(["run", str(config), "--dask", address, "--out", "r"], capsys)
    assert status == 2 and line.startswith("evo run: error: --dask: expected") and repr(address) in line
    assert not (tmp_path / "r").exists() and not Path("r").exists()
    with_address = tmp_path / "d.toml"
    with_address.write_text(f'[pool]\nbackend = "dask"\naddress = {json.dumps(address)}\n')
    status, line = _status_and_line(["validate", str(with_address)], capsys)
    assert status == 2 and "d.toml: [pool] address: expected" in line
    with pytest.raises(EvoInputError, match="^address: expected"):
        evo.evolve(config, address=address, progress=False)


@pytest.mark.parametrize(
    "address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "tcp://[::1]:8786", "h.x:1", "tls://h:8786"]
)
def test_a_well_formed_dask_address_is_accepted(address, tmp_path):
    config = tmp_path / "d.toml"
    config.write_text(f'[pool]\nbackend = "dask"\naddress = {json.dumps(address)}\n')
    assert load_config(config).pool.address == address


def test_a_dask_client_that_fails_to_start_does_not_keep_the_process_from_exiting():
    code = (
        "from evo.run.backends.dask_pool import _Client\n"
        "try:\n"
        "    _Client('inproc://x', timeout=5, set_as_default=False)\n"
        "except ValueError:\n"
        "    print('refused')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    # a plain distributed.Client leaves its loop running: at exit it times out closing and says so
    assert done.returncode == 0 and done.stdout == "refused\n" and done.stderr == "", done.stderr


def test_a_run_whose_dask_client_cannot_start_exits_with_one_line_naming_the_address_and_its_origin(tmp_path):
    config = write_config(tmp_path / "c.toml", generations=1)
    # well formed, but no TLS is configured for dask here: the client fails while it starts
    argv = [sys.executable, "-m", "evo", "run", str(config), "--dask", "tls://127.0.0.1:1", "--out", "r"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert "cannot reach the dask scheduler at tls://127.0.0.1:1" in lines[0]
    assert lines[0].endswith("(the address is from --dask)")


@pytest.mark.parametrize("from_flag", [True, False])
def test_a_dask_error_names_where_the_address_came_from(from_flag, tmp_path, monkeypatch, capsys):
    import evo.run.evolve

    def unreachable(config, **kwargs):
        raise evo.run.evolve.RunFailed("generation 0: cannot reach the dask scheduler at tcp://h:1: OSError")

    monkeypatch.setattr(evo.run.evolve, "evolve", unreachable)
    config = write_config(tmp_path / "c.toml", generations=1)
    argv = ["run", str(config), "--quiet"]
    if from_flag:
        argv += ["--dask", "tcp://h:1"]
    else:
        config.write_text(config.read_text() + 'backend = "dask"\naddress = "tcp://h:1"\n')
    status, line = _status_and_line(argv, capsys)
    origin = "--dask" if from_flag else f"[pool] address of {config}"
    assert status == 1 and line.endswith(f"(the address is from {origin})")


# -- values validate accepted but no run could take ----------------------------------------------------------
@pytest.mark.parametrize(
    "table, message",
    [
        (
            "[evaluation]\ntimeout = 1e10",
            "[evaluation] timeout: expected a number in [0, 1e+06], got 10000000000.0 "
            "(a longer limit is none at all: 0 means no limit)",
        ),
        (
            "[run]\npopulation = 1000000000",
            "[run] population: expected an integer in [2, 100000], got 1000000000 "
            "(a generation's creatures are all held in memory)",
        ),
        (
            "[evaluation]\nframes = 10000000000",
            "[evaluation] frames: expected an integer in [1, 10000000], got 10000000000 "
            "(every creature of the run is simulated for that long; evo simulate takes longer ones)",
        ),
        (
            '[run]\nname = "t\\n"',
            "[run] name: expected a folder name (letters, digits, '.', '_', '-'), got 't\\n'",
        ),
        (
            f'[run]\nname = "{"a" * 300}"',
            "[run] name: expected at most 100 characters, got 300 "
            "(the name makes the run's folder and file names)",
        ),
        (
            "[pool]\nworkers = 100000",
            "[pool] workers: expected an integer in [1, 1024], got 100000 "
            "(each takes a CPU; more than the CPUs only slows the run)",
        ),
    ],
)
def test_a_value_no_run_could_take_is_refused_by_validate_with_the_reason(table, message, tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text(table + "\n")
    status, line = _status_and_line(["validate", str(config)], capsys)
    assert status == 2 and line == f"evo validate: error: {config}: {message}"


def test_workers_beyond_the_bound_are_refused_on_the_command_line_too(tmp_path, capsys):
    config = write_config(tmp_path / "c.toml", generations=1)
    status, line = _status_and_line(["run", str(config), "--workers", "100000", "--out", "r"], capsys)
    assert status == 2 and "[pool] workers: expected an integer in [1, 1024], got 100000" in line


# -- simulate ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "flag, value", [("--params", "{"), ("--params", '{"settle_frames": 10}'), ("--seed", "3")]
)
def test_plugin_arguments_without_a_plugin_are_an_error(flag, value, capsys):
    status, line = _status_and_line(["simulate", str(WALKER), "--frames", "10", flag, value], capsys)
    assert (
        status == 2
        and line == f"evo simulate: error: {flag}: only used with --plugin NAME (the plugin it is handed to)"
    )


def test_params_with_an_integer_of_5000_digits_is_one_line(capsys):
    argv = [
        "simulate",
        str(WALKER),
        "--plugin",
        "distance",
        "--params",
        '{"settle_frames": ' + "1" * 5000 + "}",
    ]
    status, line = _status_and_line(argv, capsys)
    assert status == 2 and line.endswith(
        "--params: not valid JSON: an integer of 5000 digits; at most 4300 are read"
    )


# -- a huge exception message ------------------------------------------------------------------------------
def test_a_two_megabyte_exception_message_is_cut_on_the_terminal_and_whole_in_the_log(tmp_path, capsys):
    (tmp_path / "huge.py").write_text(HUGE)
    config = write_config(tmp_path / "c.toml", plugin="huge", plugin_paths=("huge.py",), generations=1)
    folder = tmp_path / "run"
    status, line = _status_and_line(["run", str(config), "--out", str(folder), "--quiet"], capsys)
    assert status == 1 and len(line) < 1200 and "more characters)" in line
    assert "x" * 2_000_000 in (folder / "run.log").read_text()
    status, line = _status_and_line(
        ["simulate", str(WALKER), "--plugin", "huge", "--plugin-path", str(tmp_path / "huge.py")], capsys
    )
    assert status != 0 and len(line) < 1200 and "more characters)" in line
