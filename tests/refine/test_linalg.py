"""CMA-ES's own arithmetic (evo.refine.linalg): the Jacobi eigensolver against LAPACK, exp and log against
libm, no LAPACK/BLAS call left on refine's path, and refine and memetic results pinned as digests (they
must be the same bits on every CPU: issue 32)."""

from __future__ import annotations

import ast
import hashlib
import math
from pathlib import Path

import numpy as np
import pytest

import evo
from evo.io.models import dumps_model, load_model
from evo.refine import linalg

ROOT = Path(__file__).resolve().parents[2]
# recorded with this code on the development machine; another CPU must give the same digests
REFINE_DIGEST = "8f0fa6f21fb4f4aaa1ecabd8d52e39980d049910897d53ff94df7e1f39b67353"
MEMETIC_DIGEST = "a3907837f79b6a17420cf50617e38ca6f542782b6edb802c573d7e4758dc1001"


@pytest.mark.parametrize("d", [1, 2, 7, 31])
def test_the_jacobi_eigensolver_agrees_with_lapack_and_reconstructs_the_matrix(d):
    rng = np.random.default_rng(d)
    a = rng.standard_normal((d, d))
    matrix = a @ a.T + np.diag(rng.uniform(0, 1, d))
    values, vectors = linalg.symmetric_eigen(matrix)
    np.testing.assert_allclose(values, np.linalg.eigh(matrix)[0], rtol=1e-10, atol=1e-12)
    assert np.all(np.diff(values) >= 0)
    np.testing.assert_allclose(vectors @ np.diag(values) @ vectors.T, matrix, atol=1e-10 * values[-1])
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(d), atol=1e-12)


def test_repeated_eigenvalues_and_a_diagonal_matrix_come_back_as_they_are():
    values, vectors = linalg.symmetric_eigen(np.diag([3.0, 1.0, 1.0, 2.0]))
    assert values.tolist() == [1.0, 1.0, 2.0, 3.0]
    assert np.array_equal(np.abs(vectors), np.eye(4)[:, [1, 2, 3, 0]])


def test_exp_log_and_integer_powers_are_within_a_few_ulp_of_libm():
    rng = np.random.default_rng(0)
    for x in [*rng.uniform(-700, 700, 500).tolist(), 0.0, 1e-12, -0.3]:
        assert abs(linalg.exact_exp(x) - math.exp(x)) <= 2 * math.ulp(math.exp(x))
    for x in [*np.exp(rng.uniform(-300, 300, 500)).tolist(), 1.0, 0.5, 2.0]:
        assert abs(linalg.exact_log(x) - math.log(x)) <= 3 * math.ulp(math.log(x)) + 1e-300
    assert linalg.int_power(0.9, 13) == pytest.approx(0.9**13, rel=1e-15)
    assert linalg.exact_exp(800.0) == math.inf and linalg.exact_exp(-800.0) == 0.0


def test_no_lapack_blas_or_libm_array_call_is_left_on_cma_es_path():
    """np.linalg, np.dot, the @ operator and numpy's exp/log/power go to CPU-specific kernels."""
    for name in ("cma.py", "search.py", "genes.py"):
        tree = ast.parse((ROOT / "evo" / "refine" / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            assert not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)), name
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert (node.value.id, node.attr) not in {
                    ("np", "dot"), ("np", "linalg"), ("np", "exp"), ("np", "log"), ("np", "power"),
                    ("np", "matmul"), ("np", "outer"), ("np", "einsum"),
                }, f"{name}: np.{node.attr}"  # fmt: skip


def _refine_digest() -> tuple[str, float]:
    galloper = load_model(ROOT / "genomes" / "galloper.json")
    result = evo.refine(galloper, fitness="distance", budget=97, seed=5)
    digest = hashlib.sha256(dumps_model(result.best).encode())
    digest.update(repr((result.fitness, [p.sigma for p in result.history])).encode())
    return digest.hexdigest(), result.fitness


def test_a_refinement_gives_the_digest_recorded_for_it():
    digest, fitness = _refine_digest()
    assert digest == REFINE_DIGEST, (digest, fitness)


MEMETIC = """
[run]
name = "memetic"
seed = 5
generations = 3
population = 12
[evaluation]
frames = 300
plugin = "distance"
[evaluation.params]
settle_frames = 0
[ga.refine]
every = 2
top = 2
budget = 33
[pool]
workers = 1
"""


def _memetic_digest(tmp_path: Path) -> str:
    (tmp_path / "m.toml").write_text(MEMETIC)
    result = evo.evolve(tmp_path / "m.toml", out=tmp_path / "run", progress=False)
    digest = hashlib.sha256()
    for member in result.hall_of_fame:
        digest.update(dumps_model(member.creature).encode())
        digest.update(repr((member.id, member.fitness)).encode())
    return digest.hexdigest()


def test_a_memetic_run_gives_the_digest_recorded_for_it(tmp_path):
    assert _memetic_digest(tmp_path) == MEMETIC_DIGEST
