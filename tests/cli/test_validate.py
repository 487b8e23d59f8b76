"""``evo validate``: a model or a config whose step may blow up is still valid, with one warning line on
stderr suggesting a fix in the file's own terms (issue 13, part 3)."""

import sys
from pathlib import Path

from evo.cli import main
from evo.io.models import save_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis"))
from analysis_builders import wheel  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_model_too_stiff_for_its_worlds_step_is_valid_with_one_warning(tmp_path, capsys):
    path = tmp_path / "wheel.json"
    save_model(wheel(0).replace(world={"stiffness": 0.19}), path)
    code, out, err = run_cli(capsys, "validate", path)
    assert code == 0 and out.startswith(f"{path}: ok:")
    assert len(err.splitlines()) == 1 and err.startswith(
        f"evo validate: warning: {path}: omega_max*dt = 2.09"
    )
    assert err.rstrip().endswith('try world.integrator = "rk4" or world.dt = 0.5')


def test_a_config_allowing_too_many_links_per_mass_is_valid_with_one_warning(tmp_path, capsys):
    path = tmp_path / "dense.toml"
    path.write_text("[genome]\nmax_degree = 6\n")
    code, out, err = run_cli(capsys, "validate", path)
    assert code == 0 and out.startswith(f"{path}: ok: a run config")
    assert len(err.splitlines()) == 1
    assert "creatures of up to [genome] max_degree = 6 links per mass" in err
    assert err.rstrip().endswith('try [world] integrator = "rk4" or [world] dt = 0.5')


def test_the_shipped_example_config_gets_no_warning(capsys):
    code, _, err = run_cli(capsys, "validate", EXAMPLES / "walkers.toml")
    assert code == 0 and err == ""
