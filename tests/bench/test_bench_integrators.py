"""``evo bench --integrators``: the rows and the table (no timing is asserted)."""

import argparse
import json

from evo.bench import integrators as bench_integrators
from evo.cli import bench as bench_command
from evo.sim.world import INTEGRATORS


def test_every_integrator_gets_a_row_and_psm_has_the_smallest_energy_error_at_equal_steps(capsys):
    parser = argparse.ArgumentParser()
    bench_command.add_arguments(parser)
    assert bench_command.run(parser.parse_args(["--integrators", "--repeats", "1", "--json"])) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)["integrators"]  # stdout holds the JSON only
    assert len(rows) == len(INTEGRATORS) + 1  # and euler on the general kernel
    assert [r["integrator"] for r in rows][-1] == "psm (order 9)"
    for row in rows:
        assert row["spring_updates_per_s"] > 0 and row["equal_time_steps"] >= 1
    # at equal step counts (no clock involved): explicit Euler gains energy without bound, and psm has the
    # smallest energy error; which is best at equal wall time is the bench's figure, not a test's
    errors = {r["integrator"]: r["seed_energy_error"] for r in rows}
    assert errors["explicit-euler"] is None or errors["explicit-euler"] > 1.0
    finite = {name: e for name, e in errors.items() if e is not None}
    assert min(finite, key=finite.get) == "psm (order 9)"
    assert "max|dE|" in captured.err  # the readable table
    assert len(bench_integrators.integrator_lines(rows)) == len(rows) + 2
