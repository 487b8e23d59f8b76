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


def test_a_seed_model_outside_the_genome_limits_is_named_with_what_generation_0_changes(tmp_path, capsys):
    genomes = Path(__file__).resolve().parents[2] / "genomes"
    config = tmp_path / "seeds.toml"
    config.write_text(
        '[run]\nname = "s"\ngenerations = 1\npopulation = 4\n[pool]\nworkers = 1\n'
        "[evaluation]\nframes = 100\n[genome]\nmasses = [3, 5]\n"
        f'seed_models = ["{genomes / "walker.json"}", "{genomes / "inchworm.json"}"]\n'
    )
    code, out, err = run_cli(capsys, "validate", config)
    assert code == 0
    head = f"evo validate: warning: {config}: [genome] seed_models: {genomes / 'walker.json'} is outside"
    (line,) = [line for line in err.splitlines() if "walker.json" in line]
    assert line.startswith(head)
    assert line.endswith("6 masses, expected 3..5; mass 1 has 5 links, expected at most 4")
    code = main(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"])
    assert code == 0
    assert sum("is outside the [genome] limits" in line for line in capsys.readouterr().err.splitlines()) == 2
    config.write_text(config.read_text().replace("masses = [3, 5]", "masses = [3, 20]\nmax_degree = 8"))
    code, out, err = run_cli(capsys, "validate", config)
    assert code == 0 and "walker.json" not in err


HILLS = Path(__file__).resolve().parents[2] / "genomes" / "classic" / "hills.xml"


def test_a_terrain_file_is_valid_and_validate_says_how_to_use_it(capsys):
    code, out, err = run_cli(capsys, "validate", HILLS)
    assert code == 0 and err == ""
    assert out == (
        f"{HILLS}: ok: a terrain file, 3 polyline(s) of 5 segment(s) over x = 300..1700 px; use it as "
        f'[world] terrain = "{HILLS}" in a config or a model\'s world, or --set terrain={HILLS}\n'
    )


def test_simulating_a_terrain_file_is_one_line_saying_what_it_is_and_how_to_use_it(capsys):
    code, out, err = run_cli(capsys, "simulate", HILLS)
    assert code == 2
    assert err == (
        f"evo simulate: error: {HILLS}: the model has no masses: a terrain file (fixed bars only), not a "
        "creature; use it as "
        f'[world] terrain = "{HILLS}" in a config or a model\'s world, or --set terrain={HILLS}\n'
    )
