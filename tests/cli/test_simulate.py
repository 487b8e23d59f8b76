"""``evo simulate``: a step that may blow up is warned about on stderr, an explosion is reported with its
frame, and on other ground than flat the model is lifted before it runs (issue 13)."""

import glob
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from evo.cli import main
from evo.io.models import load_model, save_model
from evo.sim import World, simulate
from evo.sim.placement import stand_on_ground, surface_heights

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis"))
from analysis_builders import wheel  # noqa: E402

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
SHIPPED = sorted(glob.glob(str(GENOMES / "*.json")) + glob.glob(str(GENOMES / "classic" / "[ps]*.xml")))
HILLS = '{type = "hills", amplitude = 10.0, wavelength = 100.0}'


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def said(err: str) -> str:
    """What evo says on stderr besides the human summary (which --json sends there)."""
    return "".join(line for line in err.splitlines(keepends=True) if line.startswith("evo "))


@pytest.fixture
def wheel_file(tmp_path):
    path = tmp_path / "wheel.json"
    save_model(wheel(0).replace(world={"stiffness": 0.19}), path)
    return path


def test_a_wheel_too_stiff_for_the_step_gets_one_warning_line_and_explodes_with_its_frame(wheel_file, capsys):
    code, out, err = run_cli(capsys, "simulate", wheel_file, "--json")
    assert code == 0
    warning = said(err)
    assert len(warning.splitlines()) == 1 and warning.startswith(f"evo simulate: warning: {wheel_file}: ")
    assert "exceeds the stability limit 1.99 of integrator euler" in warning
    assert warning.rstrip().endswith("try --set integrator=rk4 or --set dt=0.5")
    summary = json.loads(out)
    assert summary["exploded"] is True and 0 < summary["exploded_frame"] < 3000
    assert f"(EXPLODED at frame {summary['exploded_frame']:g})" in err


@pytest.mark.parametrize("fix", ["integrator=rk4", "dt=0.5"])
def test_with_the_suggested_fix_the_warning_goes_and_the_wheel_stays_bounded(wheel_file, capsys, fix):
    code, out, err = run_cli(capsys, "simulate", wheel_file, "--set", fix, "--json")
    assert code == 0 and said(err) == ""
    assert json.loads(out.splitlines()[-1])["exploded"] is False


@pytest.mark.parametrize("path", SHIPPED)
def test_no_shipped_genome_is_warned_about_or_flagged(capsys, path):
    code, out, err = run_cli(capsys, "simulate", path, "--json")
    assert code == 0 and said(err) == ""
    assert json.loads(out.splitlines()[-1])["exploded"] is False


def test_set_ground_lifts_the_model_so_that_no_mass_starts_below_the_hills(capsys):
    walker = GENOMES / "walker.json"
    before = hashlib.sha256(walker.read_bytes()).hexdigest()
    _, flat, _ = run_cli(capsys, "simulate", walker, "--frames", 10, "--json")
    code, hills, err = run_cli(
        capsys, "simulate", walker, "--frames", 10, "--set", f"ground={HILLS}", "--json"
    )
    assert code == 0 and said(err) == ""
    world = World(ground={"type": "hills", "amplitude": 10.0, "wavelength": 100.0})
    lifted = stand_on_ground(load_model(walker), world)
    gap = lifted.positions[:, 1] - surface_heights(world, lifted.positions[:, 0])
    assert 0.0 <= gap.min() <= 1e-6
    start_flat = json.loads(flat.splitlines()[-1])["start_centroid"]
    start_hills = json.loads(hills.splitlines()[-1])["start_centroid"]
    assert start_hills[0] == start_flat[0]
    assert start_hills[1] == pytest.approx(float(np.mean(lifted.positions[:, 1])), abs=1e-9)
    assert start_hills[1] > start_flat[1] + 1.0
    assert hashlib.sha256(walker.read_bytes()).hexdigest() == before  # the file is not changed


def test_a_model_whose_own_world_has_hills_is_lifted_too(tmp_path, capsys):
    model = load_model(GENOMES / "walker.json")
    path = tmp_path / "hilly.json"
    save_model(model.replace(world={**model.world, "ground": {"type": "hills", "amplitude": 10.0,
                                                               "wavelength": 100.0}}), path)  # fmt: skip
    _, with_set, _ = run_cli(capsys, "simulate", GENOMES / "walker.json", "--frames", 10, "--set",
                             f"ground={HILLS}", "--json")  # fmt: skip
    _, own, _ = run_cli(capsys, "simulate", path, "--frames", 10, "--json")
    assert (
        json.loads(own.splitlines()[-1])["start_centroid"]
        == json.loads(with_set.splitlines()[-1])["start_centroid"]
    )


def _readme_walkers() -> list[tuple[str, int, int, int, int]]:
    """(file, masses, links, muscles, distance px) of each row of README.md's "Shipped creatures" table."""
    readme = (GENOMES.parent / "README.md").read_text(encoding="utf-8")
    rows = []
    for line in readme.split("## Shipped creatures", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`") and cells[0].endswith("`"):
            masses, links, muscles = map(int, cells[1:4])
            rows.append((cells[0].strip("`"), masses, links, muscles, int(cells[4].replace("−", "-"))))
    return rows


README_WALKERS = _readme_walkers()


def test_the_readme_table_lists_the_classic_hopper_and_roller():
    assert {"classic/hopper.xml", "classic/roller.xml"} <= {row[0] for row in README_WALKERS}


@pytest.mark.parametrize(
    "name, masses, links, muscles, distance", README_WALKERS, ids=[r[0] for r in README_WALKERS]
)
def test_each_shipped_walker_covers_the_distance_the_readme_gives(
    name, masses, links, muscles, distance, capsys
):
    assert main(["simulate", str(GENOMES / name), "--json"]) == 0  # the command the README names
    result = json.loads(capsys.readouterr().out)
    assert (result["masses"], result["links"], result["muscles"]) == (masses, links, muscles)
    assert not result["exploded"] and result["frames"] == 3000
    assert round(result["distance"]) == distance  # the table rounds to whole px


def test_the_classic_roller_rolls_over_its_bump_of_fixed_bars():
    roller = load_model(GENOMES / "classic" / "roller.xml")
    world = World().updated(roller.world)
    assert world.terrain == (((300.0, 0.0), (420.0, 18.0), (540.0, 0.0)),)  # 18 px high at x = 420
    trajectory = simulate(roller, world, 3000, record_every=1)
    x, lowest = trajectory.centroids[:, 0], trajectory.positions[..., 1].min(axis=1)
    over = (x > 400.0) & (x < 440.0)
    assert over.any() and lowest[over].min() > 10.0, "on top of the bump, no mass touches the floor"
    assert x[-1] > 540.0 + 1000.0 and lowest[x > 700.0].max() == 0.0, "past it, back on the floor, rolling on"
