"""``evo.refine``: CMA-ES over a fixed body's genes, scaled and bounded by ``[genome]``, its candidates
simulated in lanes and scored as a run scores its children (issue 21)."""

from pathlib import Path

import numpy as np
import pytest

import evo
from evo.errors import EvoInputError
from evo.fitness import EvaluationSpec, evaluate
from evo.ga.settings import GenomeSection
from evo.io.models import load_model
from evo.refine import GeneSpace, evaluate_lanes, refine
from evo.refine.cma import CMAES, population_size
from evo.run.rescore import scoring
from evo.sim import World

GENOMES = Path(__file__).resolve().parents[2] / "genomes"


@pytest.fixture(scope="module")
def galloper():
    return load_model(GENOMES / "galloper.json")


@pytest.fixture(scope="module")
def spec(galloper):
    return scoring(galloper, "distance", frames=1200)


def test_the_start_is_a_point_of_the_gene_space_and_decodes_to_the_same_body(galloper):
    space = GeneSpace.of(galloper, ("phi", "alpha", "rest", "omega", "beta"), GenomeSection())
    muscles = int(np.count_nonzero(galloper.alpha > 0))
    assert space.dimension == 2 * muscles + galloper.n_links + 2
    x = space.start()
    assert np.all((x >= 0) & (x <= 1))
    again = space.creature_at(x)
    np.testing.assert_allclose(again.rest, galloper.rest, rtol=1e-12)
    np.testing.assert_allclose(again.alpha, galloper.alpha, rtol=1e-12)
    np.testing.assert_allclose(np.cos(again.phi), np.cos(galloper.phi), atol=1e-12)
    assert again.omega == pytest.approx(galloper.omega) and again.beta == pytest.approx(galloper.beta)
    np.testing.assert_array_equal(again.link_a, galloper.link_a)


def test_a_candidate_outside_the_box_is_clipped_to_the_genome_ranges_and_its_phases_wrap(galloper):
    genome = GenomeSection()
    space = GeneSpace.of(galloper, ("phi", "alpha", "rest", "omega"), genome)
    far = np.full(space.dimension, 3.7)
    body = space.creature_at(far)
    muscles = galloper.alpha > 0
    assert np.all(body.rest == max(genome.rest[1], galloper.rest.max()))
    assert np.all(body.alpha[muscles] == 1.0) and np.all(body.alpha[~muscles] == 0.0)
    assert body.omega == genome.omega[1]
    assert np.all((body.phi[muscles] >= 0) & (body.phi[muscles] < 2 * np.pi))
    np.testing.assert_allclose(body.phi[muscles], 0.7 * 2 * np.pi, rtol=1e-9)
    assert body.beta == galloper.beta  # not a chosen gene


def test_a_candidate_made_by_a_shallow_copy_equals_the_checked_replace_of_the_same_values(galloper):
    space = GeneSpace.of(galloper, ("phi", "alpha", "rest", "omega", "beta"), GenomeSection())
    x = space.start() + 0.2 * np.random.default_rng(0).standard_normal(space.dimension)
    fast = space.creature_at(x)
    checked = galloper.replace(
        rest=fast.rest, alpha=fast.alpha, phi=fast.phi, omega=fast.omega, beta=fast.beta
    )
    for name in ("positions", "velocities", "fixed", "link_a", "link_b", "rest", "alpha", "phi", "stiffness"):
        assert np.array_equal(getattr(fast, name), getattr(checked, name)), name
        assert not getattr(fast, name).flags.writeable
    assert (fast.omega, fast.beta, fast.has_default_physics) == (checked.omega, checked.beta, True)
    assert fast.structural_errors() == [] and galloper.rest is not fast.rest


def test_unknown_or_empty_genes_are_refused_naming_the_field(galloper):
    with pytest.raises(EvoInputError, match="genes.*'phy'.*did you mean 'phi'"):
        GeneSpace.of(galloper, ("phy",), GenomeSection())
    spring = galloper.replace(alpha=np.zeros(galloper.n_links))
    with pytest.raises(EvoInputError, match="nothing to tune"):
        GeneSpace.of(spring, ("phi", "alpha"), GenomeSection())


def test_cma_es_draws_only_from_the_generator_it_is_given():
    np.random.seed(1)
    a = CMAES(np.zeros(5), 0.3, np.random.default_rng(7)).ask()
    np.random.seed(2)
    b = CMAES(np.zeros(5), 0.3, np.random.default_rng(7)).ask()
    np.testing.assert_array_equal(a, b)
    assert a.shape == (population_size(5), 5) and population_size(5) % 8 == 0


class _Point(np.ndarray):
    fitness: float


def test_tell_moves_the_distribution_as_deaps_own_update_of_the_same_points_ties_included():
    """Our arithmetic is DEAP's formulas in a fixed order (and Jacobi for LAPACK's eigh): equal to
    rounding, the eigenvectors up to their signs."""
    import copy

    from deap import cma

    ours = CMAES(np.full(7, 0.5), 0.2, np.random.default_rng(4))
    for _ in range(12):
        x = ours.ask()
        values = -np.sum((x - 0.3) ** 2, axis=1)
        values[::4] = values[1]  # ties keep the samples' order
        values[2] = -np.inf
        reference = cma.Strategy(np.zeros(7), 1.0, lambda_=ours.lambda_)
        for name in ("centroid", "sigma", "C", "ps", "pc", "B", "diagD", "update_count"):
            setattr(reference, name, copy.deepcopy(getattr(ours, name)))
        points = []
        for row, value in zip(x, values, strict=True):
            point = np.array(row).view(_Point)
            point.fitness = float(value)
            points.append(point)
        cma.Strategy.update(reference, points)
        ours.tell(x, values)
        for name in ("centroid", "C", "ps", "pc", "diagD"):
            np.testing.assert_allclose(getattr(ours, name), getattr(reference, name), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(np.abs(ours.BD), np.abs(reference.BD), rtol=1e-7, atol=1e-10)
        assert ours.sigma == pytest.approx(reference.sigma, rel=1e-12)


def test_cma_es_finds_the_top_of_a_quadratic():
    strategy = CMAES(np.zeros(6), 0.5, np.random.default_rng(0))
    target = np.linspace(-1, 1, 6)
    for _ in range(120):
        x = strategy.ask()
        strategy.tell(x, -np.sum((x - target) ** 2, axis=1))
    np.testing.assert_allclose(strategy.centroid, target, atol=1e-3)


def test_lanes_give_each_candidate_the_fitness_evaluate_gives_it_alone(galloper, spec):
    space = GeneSpace.of(galloper, ("phi", "rest"), GenomeSection())
    rng = np.random.default_rng(3)
    bodies = [space.creature_at(space.start() + 0.1 * rng.standard_normal(space.dimension)) for _ in range(9)]
    lanes = evaluate_lanes(bodies, spec[0], spec[1])
    assert [e.fitness for e in lanes] == [evaluate(b, spec[0], spec[1]).fitness for b in bodies]


def test_a_generation_with_exploded_candidates_is_scored_as_evaluate_scores_each_alone(galloper, spec):
    from evo.refine.lanes import _centroids
    from evo.sim import simulate_batch
    from evo.sim.simulate import centroids_of

    space = GeneSpace.of(galloper, ("phi", "alpha", "rest", "omega", "beta"), GenomeSection())
    rng = np.random.default_rng(11)
    bodies = space.creatures_at(space.start() + 0.3 * rng.standard_normal((16, space.dimension)))
    bodies[3] = bodies[3].replace(velocities=np.full((galloper.n_masses, 2), 1e3))  # explodes
    bodies[10] = bodies[10].replace(velocities=np.full((galloper.n_masses, 2), -1e3))
    lanes = evaluate_lanes(bodies, spec[0], spec[1])
    assert lanes == [evaluate(b, spec[0], spec[1]) for b in bodies]
    assert lanes[3].exploded and lanes[10].exploded and not lanes[0].exploded
    trajectories = simulate_batch(bodies, spec[0].world, spec[0].frames, 10)
    given = _centroids(trajectories)
    assert given[3] is None and given[10] is None
    for t, c in zip(trajectories, given, strict=True):
        if c is not None:
            assert c.tobytes() == centroids_of(t.positions).tobytes()  # bit for bit


def test_a_population_of_four_lanes_makes_generations_of_32_and_too_small_a_one_is_refused(galloper, spec):
    result = refine(galloper, fitness=spec[0], budget=97, seed=2, plugin_seed=spec[1], population=32)
    assert [p.evaluations for p in result.history] == [33, 65, 97]
    with pytest.raises(EvoInputError, match="population"):
        refine(galloper, fitness=spec[0], budget=97, population=1)


def test_a_candidate_that_explodes_or_times_out_gets_the_worst_fitness(galloper, spec):
    import contextlib

    wild = galloper.replace(velocities=np.full((galloper.n_masses, 2), 1e3))
    (outcome,) = evaluate_lanes([wild], spec[0], spec[1])
    assert outcome.exploded and outcome.fitness == (-np.inf,)

    @contextlib.contextmanager
    def expired(k):
        if k == 1:
            raise TimeoutError
        yield

    outcomes = evaluate_lanes([galloper] * 8, spec[0], spec[1], time_limit=expired)
    assert outcomes[1].timed_out and outcomes[1].fitness == (-np.inf,)
    assert outcomes[0].fitness == outcomes[2].fitness and np.isfinite(outcomes[0].fitness[0])


def test_refine_improves_the_galloper_and_its_best_scores_what_it_reports(galloper, spec):
    seen = []
    result = evo.refine(
        galloper, fitness=spec[0], budget=400, seed=1, plugin_seed=spec[1], callbacks=[seen.append]
    )
    assert isinstance(result, evo.RefineResult)
    assert result.fitness > 1.2 * result.start_fitness
    assert result.evaluations <= 400 and result.evaluations == seen[-1].evaluations
    assert [p.evaluations for p in seen] == sorted(p.evaluations for p in seen)
    assert seen[-1].best is result.history[-1].best or seen[-1].best_fitness == result.fitness
    assert evaluate(result.best, spec[0], spec[1]).fitness == (result.fitness,)
    np.testing.assert_array_equal(result.best.link_a, galloper.link_a)
    assert result.best.meta["refined"]["genes"] == ["phi", "alpha", "rest", "omega", "beta"]
    assert result.best.meta["refined"]["from"] == "galloper"


def test_refine_is_the_same_for_the_same_seed_and_a_callback_returning_true_stops_it(galloper, spec):
    a = refine(galloper, fitness=spec[0], budget=150, seed=np.random.default_rng(5), genes=("phi",))
    b = refine(galloper, fitness=spec[0], budget=150, seed=np.random.default_rng(5), genes=("phi",))
    assert a.fitness == b.fitness and np.array_equal(a.best.phi, b.best.phi)
    stopped = refine(
        galloper, fitness=spec[0], budget=150, seed=5, genes=("phi",), callbacks=[lambda p: True]
    )
    assert stopped.stopped and len(stopped.history) == 1 and stopped.evaluations == 1 + 16


def test_refine_refuses_a_budget_below_one_generation_and_a_plugin_of_two_objectives(galloper, monkeypatch):
    from evo.fitness import registry

    monkeypatch.setattr(registry, "_REGISTERED", {})
    with pytest.raises(EvoInputError, match="budget.*at least 17"):
        refine(galloper, fitness="distance", budget=10, genes=("phi",))
    from evo.fitness import register_fitness

    plugin = register_fitness("two_refine_test", _two, weights=(1.0, 1.0))
    spec = EvaluationSpec(World(), 300, plugin.ref(), {})
    with pytest.raises(EvoInputError, match="one objective"):
        refine(galloper, fitness=spec, budget=100)


def _two(result):
    return 1.0, 2.0


def test_evo_refine_is_the_function_whether_or_not_the_package_was_imported_and_no_module_class_changes():
    import subprocess
    import sys

    script = (
        "import sys, types, warnings\n"
        "import evo.refine.search\n"  # the package imported first, by a path
        "import evo\n"
        "from evo.refine import RefineResult, refine\n"
        "assert type(sys.modules['evo.refine']) is types.ModuleType\n"
        "assert evo.refine.__wrapped__ is refine and evo.RefineResult is RefineResult\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    assert evo.refine.RefineResult is RefineResult\n"
        "assert [w.category for w in caught] == [DeprecationWarning], caught\n"
        "assert 'from evo.refine import RefineResult' in str(caught[0].message)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
