"""The GA kernels moved into evo.ga.kernels; their documented flat paths keep working for one release,
each with a DeprecationWarning naming the new path."""

import importlib

import pytest

MOVED = {
    "brood_kernels": "brood",
    "crossover_kernels": "crossover",
    "mutation_kernels": "mutation",
    "gene_kernels": "genes",
    "graph_kernels": "graph",
    "link_kernels": "links",
    "draws": "draws",
    "pcg": "pcg",
}


@pytest.mark.parametrize(("old", "new"), MOVED.items())
def test_every_public_name_of_a_moved_module_is_the_same_object_with_a_warning(old, new):
    before = importlib.import_module(f"evo.ga.{old}")
    after = importlib.import_module(f"evo.ga.kernels.{new}")
    assert after.__all__
    for name in set(after.__all__) - {"compiled_children"}:  # its old form: the test below
        warning = rf"^evo\.ga\.{old} is deprecated .*evo\.ga\.kernels\.{new}$"
        with pytest.warns(DeprecationWarning, match=warning):
            value = getattr(before, name)
        assert value is getattr(after, name)


def test_a_private_or_unknown_name_of_a_moved_module_is_an_attribute_error_naming_it():
    old = importlib.import_module("evo.ga.brood_kernels")
    with pytest.raises(AttributeError, match="evo.ga.brood_kernels"):
        old._pair  # noqa: B018


def test_the_old_compiled_children_and_operators_keep_their_forms_with_a_warning():
    import numpy as np

    from evo.ga.brood import PAIR, Brood, breed
    from evo.ga.creatures import random_creature
    from evo.ga.settings import GASection, GenomeSection

    old = importlib.import_module("evo.ga.brood_kernels")
    genome, ga = GenomeSection(), GASection()
    rng = np.random.default_rng(3)
    brood = Brood(
        PAIR, 9, (random_creature(rng, genome), random_creature(rng, genome)), True, (True, False), (1, 2)
    )
    with pytest.warns(DeprecationWarning, match="evo.ga.kernels.brood"):
        children = old.compiled_children(brood, genome, ga)
    assert [c.positions.tobytes() for c in children] == [
        c.positions.tobytes() for c in breed(brood, genome, ga)
    ]
    with pytest.warns(DeprecationWarning):
        assert old.operators(genome, GASection(rate_physics=0.5)) is None
    with pytest.warns(DeprecationWarning):
        assert len(old.operators(genome, ga)) == 7
