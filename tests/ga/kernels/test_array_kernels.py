"""The breeding kernels' array helpers (evo.ga.kernels.arrays) give what the numpy calls they replace
give: the stable argsort with ties and NaNs, searchsorted to the right, count_nonzero and append."""

import numpy as np
import pytest

from evo.ga.kernels.arrays import appended, count_true, first_above, stable_order


@pytest.mark.parametrize("seed", range(40))
def test_stable_order_is_numpys_mergesort_argsort_ties_and_nans_included(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 70))
    x = rng.integers(0, 6, size=n).astype(float) if seed % 2 else rng.normal(size=n)  # ties on odd seeds
    x[rng.random(n) < 0.1] = np.nan
    assert stable_order(x).tolist() == np.argsort(x, kind="mergesort").tolist()


@pytest.mark.parametrize("seed", range(20))
def test_first_above_is_searchsorted_to_the_right(seed):
    rng = np.random.default_rng(seed)
    ascending = np.cumsum(rng.integers(0, 3, size=int(rng.integers(0, 12))).astype(float))
    for value in [*rng.uniform(-1, ascending[-1] + 1 if ascending.size else 1, 20), *ascending, np.nan]:
        assert first_above(ascending, value) == np.searchsorted(ascending, value, side="right")


def test_count_true_and_appended_are_count_nonzero_and_append():
    rng = np.random.default_rng(0)
    flags = rng.random(50) < 0.3
    assert count_true(flags) == np.count_nonzero(flags) and count_true(flags[:0]) == 0
    for values, value in ((np.arange(5), 7), (rng.normal(size=4), 0.5), (flags, False), (np.empty(0), 1.5)):
        out = appended(values, value)
        assert out.dtype == values.dtype
        np.testing.assert_array_equal(out, np.append(values, value))
