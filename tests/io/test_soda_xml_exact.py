"""Soda XML written by evo reads back bit for bit: where no decimal of the dialect's cycles carries a muscle
phase, omega or the wave's phase exactly, the file carries evo's radians beside it (phi, omega, theta0);
a file whose radians disagree with its cycles is refused in one line."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evo.errors import EvoInputError
from evo.io.soda_dialect import muscle_phase
from evo.io.soda_xml import dumps_soda_xml, read_soda_xml
from evo.model import Creature

radians = st.floats(0.0, 2 * math.pi)


def creature(phis, omega, theta0):
    n = len(phis)
    return Creature(
        positions=[[10.0 * i, 5.0] for i in range(n + 1)],
        velocities=[[0.0, 0.0]] * (n + 1),
        fixed=[False] * (n + 1),
        link_a=list(range(n)),
        link_b=list(range(1, n + 1)),
        rest=[10.0] * n,
        alpha=[0.5] * n,
        phi=phis,
        omega=omega,
        beta=0.7,
        wave_phase=theta0,
    )


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(phis=st.lists(radians, min_size=1, max_size=6), omega=st.floats(0.0, 2 * math.pi), theta0=radians)
def test_phases_and_omega_read_back_bit_for_bit(tmp_path_factory, phis, omega, theta0):
    path = tmp_path_factory.mktemp("exact") / "c.xml"
    path.write_text(dumps_soda_xml(creature(phis, omega, theta0)), encoding="utf-8")
    back = read_soda_xml(path)
    np.testing.assert_array_equal(back.phi, np.array(phis))
    assert (back.omega, back.wave_phase) == (omega, theta0)


def test_the_radians_are_written_only_where_the_cycles_cannot_carry_them(tmp_path):
    exact = muscle_phase(0.25)  # a phase some decimal gives back exactly
    text = dumps_soda_xml(creature([exact, 0.1234567890123], 2 * math.pi * 0.02, 0.0))
    assert text.count(' phi="') == 1 and 'phi="0.1234567890123"' in text


@pytest.mark.parametrize(
    ("attribute", "field"),
    [('phi="2.0"', "links/muscle[1]@phi"), ('omega="3.0"', "wave@omega"), ('theta0="1.0"', "wave@theta0")],
)
def test_radians_that_disagree_with_the_cycles_are_refused(tmp_path, attribute, field):
    text = dumps_soda_xml(creature([muscle_phase(0.25)], 2 * math.pi * 0.02, 0.0))
    element = "<muscle " if attribute.startswith("phi") else "<wave "
    path = tmp_path / "c.xml"
    path.write_text(text.replace(element, element + attribute + " ", 1), encoding="utf-8")
    with pytest.raises(EvoInputError, match="rad disagrees with") as info:
        read_soda_xml(path)
    assert info.value.field == field
