"""An audit of the shipped hand-made walkers (issue 31) flags nothing they do not do: no lunge, launch,
penetration or blow-up, and every integrator dependence it reports is there when re-simulated."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evo.audit import audit
from evo.cli import main
from evo.fitness import EvaluationSpec, evaluate, find_plugin
from evo.io.models import load_model
from evo.sim import World
from evo.sim.placement import stand_on_ground

GENOMES = Path(__file__).resolve().parents[2] / "genomes"
WALKERS = [
    "inchworm.json",
    "galloper.json",
    "walker.json",
    "classic/strider.xml",
    "classic/crawler.xml",
    "classic/hopper.xml",
    "classic/roller.xml",
]


@pytest.mark.parametrize("name", WALKERS)
def test_a_hand_made_walker_is_flagged_only_for_what_it_does(name):
    creature = load_model(GENOMES / name)
    world = World.from_model(creature)
    spec = EvaluationSpec(
        world=world, frames=3000, plugin=find_plugin("distance").ref(), params={"settle_frames": 200}
    )
    report = audit(creature, spec)
    assert len(report.perturbed) >= 12 and report.robust <= max(s.score for s in report.perturbed)
    for flag in report.flags:
        assert flag.kind == "integrator dependence", (name, flag)
        # the evidence names integrators (or dt / 2) under which the gait loses more than half its score:
        # re-simulate each and check it
        for part in flag.evidence.split("; ", 1)[1].split(", "):
            label, value = part.split(": ")
            change = {"dt": world.dt / 2} if label == "dt / 2" else {"integrator": label}
            other = dataclasses.replace(world, **change)
            score = evaluate(
                stand_on_ground(creature, other), dataclasses.replace(spec, world=other), 0
            ).fitness[0]
            assert report.score - score > 0.5 * max(abs(report.score), 10.0)


def test_evo_audit_prints_each_perturbation_and_the_robust_score(capsys):
    assert main(["audit", str(GENOMES / "classic" / "roller.xml"), "--frames", "1500", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["objective"] == "distance" and report["flags"] == []
    assert {p["kind"] for p in report["perturbations"]} >= {
        "dt",
        "integrator",
        "gravity",
        "damping",
        "stiffness",
        "phase",
        "shift",
    }
    assert main(["audit", str(GENOMES / "galloper.json"), "--task", "bumps-race"]) == 0
    out = capsys.readouterr().out
    assert "terrain jitter #1" in out and "robust score" in out


def test_evo_audit_refuses_a_bad_model_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert main(["audit", str(bad)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_several_creatures_are_ranked_under_each_integrator_and_a_rank_that_jumps_is_flagged(capsys):
    models = [str(GENOMES / n) for n in ("walker.json", "galloper.json", "classic/roller.xml")]
    assert main(["audit", *models, "--frames", "1500", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ranks = out["ranks"]
    assert ranks["euler"] == [1, 2, 3] and ranks["rk4"] == [3, 2, 1]  # the walker walks backwards under rk4
    rank_flags = [
        [f["evidence"] for f in m["flags"] if f["evidence"].startswith("ranks ")] for m in out["models"]
    ]
    assert "ranks 1 of 3 with euler" in rank_flags[0][0] and "3 with rk4" in rank_flags[0][0]
    assert rank_flags[1] == []  # the galloper moves one place at most: no flag
