"""``evo simulate``: a step that may blow up is warned about on stderr, an explosion is reported with its
frame (issue 13)."""

import glob
import json
import sys
from pathlib import Path

import pytest

from evo.cli import main
from evo.io.models import save_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis"))
from analysis_builders import wheel  # noqa: E402

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
SHIPPED = sorted(glob.glob(str(GENOMES / "*.json")) + glob.glob(str(GENOMES / "classic" / "[ps]*.xml")))


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wheel_file(tmp_path):
    path = tmp_path / "wheel.json"
    save_model(wheel(0).replace(world={"stiffness": 0.19}), path)
    return path


def test_a_wheel_too_stiff_for_the_step_gets_one_warning_line_and_explodes_with_its_frame(wheel_file, capsys):
    code, out, err = run_cli(capsys, "simulate", wheel_file, "--json")
    assert code == 0
    assert len(err.splitlines()) == 1 and err.startswith(f"evo simulate: warning: {wheel_file}: ")
    assert "exceeds the stability limit 1.99 of integrator euler" in err
    assert err.rstrip().endswith("try --set integrator=rk4 or --set dt=0.5")
    summary = json.loads(out.splitlines()[-1])
    assert summary["exploded"] is True and 0 < summary["exploded_frame"] < 3000
    assert f"(EXPLODED at frame {summary['exploded_frame']:g})" in out


@pytest.mark.parametrize("fix", ["integrator=rk4", "dt=0.5"])
def test_with_the_suggested_fix_the_warning_goes_and_the_wheel_stays_bounded(wheel_file, capsys, fix):
    code, out, err = run_cli(capsys, "simulate", wheel_file, "--set", fix, "--json")
    assert code == 0 and err == ""
    assert json.loads(out.splitlines()[-1])["exploded"] is False


@pytest.mark.parametrize("path", SHIPPED)
def test_no_shipped_genome_is_warned_about_or_flagged(capsys, path):
    code, out, err = run_cli(capsys, "simulate", path, "--json")
    assert code == 0 and err == ""
    assert json.loads(out.splitlines()[-1])["exploded"] is False
