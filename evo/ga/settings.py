"""The ``[genome]`` and ``[ga]`` tables: limits of a creature, and how variation and selection behave.

Frozen dataclasses declared with :func:`evo.schema.setting`; cross-field constraints are checked in
``__post_init__`` and raised as :class:`evo.errors.EvoInputError` naming the key. Units: px, rad,
rad/frame. The keys, and why ``max_degree`` exists: docs/config.md, "[genome]" and "[ga]".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from evo.errors import EvoInputError, unknown_key_message
from evo.schema import check, setting, shown

__all__ = ["GenomeSection", "GASection", "MUTATION_NAMES", "RefineSchedule"]

# The mutation operators of :data:`evo.ga.mutation.MUTATIONS`, in the order ``mutate`` applies them.
# Each has a ``rate_<name>`` field in :class:`GASection`.
MUTATION_NAMES = (
    "rest",
    "alpha",
    "phi",
    "omega",
    "beta",
    "move_mass",
    "add_mass",
    "remove_mass",
    "add_link",
    "remove_link",
    "toggle_muscle",
    "physics",
)


def _ordered(section: object, key: str, what: str = "a [low, high] pair with low <= high") -> None:
    low, high = getattr(section, key)
    if low > high:
        raise EvoInputError(f"expected {what}, got [{low}, {high}]", field=key)


@dataclass(frozen=True)
class GenomeSection:
    """Limits of a creature and how random ones are made (the ``[genome]`` table)."""

    masses: tuple[int, int] = setting(
        (4, 12), low=2, high=1000, doc="minimum and maximum number of masses of a creature"
    )
    box: tuple[float, float] = setting(
        (120.0, 80.0),
        low=0.0,
        open_low=True,
        doc="width and height (px) of the box random creatures start in",
    )
    link_density: float = setting(
        0.5,
        low=0.0,
        high=1.0,
        doc="probability that each candidate neighbour pair of a random creature is linked; candidates are "
        "a mass and each of its max_degree nearest others, beyond the spanning tree that connects them",
    )
    muscle_fraction: float = setting(
        0.5, low=0.0, high=1.0, doc="probability that a new link (random creature, add_link, ...) is a muscle"
    )
    rest: tuple[float, float] = setting(
        (10.0, 120.0), low=0.0, doc="allowed range of rest lengths (px); new links take their current length"
    )
    omega: tuple[float, float] = setting(
        (0.02, 0.2), low=0.0, doc="allowed range of the wave's angular speed omega (rad/frame)"
    )
    beta: tuple[float, float] = setting(
        (0.2, 1.0), low=0.0, high=1.0, doc="allowed range of the wave's amplitude beta"
    )
    max_links: int = setting(40, low=1, doc="most links a creature may have")
    max_degree: int = setting(
        4,
        low=2,
        doc="most links meeting at one mass; keeps the stiffness low enough for a stable Euler step "
        "(k * 2 * max_degree * dt^2 < 4)",
    )
    link_stiffness: tuple[float, float] = setting(
        (1.0, 1.0),
        low=0.0,
        open_low=True,
        doc="allowed range of the per-link stiffness multiplier (seed 002); must contain 1, its value for "
        "new links; a wider range lets the `physics` mutation vary it",
    )
    link_dashpot: tuple[float, float] = setting(
        (0.0, 0.0),
        low=0.0,
        doc="allowed range of the per-link dashpot D (1/frame); must contain 0, its value for new links; a "
        "wider range lets the `physics` mutation vary it",
    )
    mass: tuple[float, float] = setting(
        (1.0, 1.0),
        low=0.0,
        open_low=True,
        doc="allowed range of the per-mass mass; must contain 1, its value for new masses; a wider range "
        "lets the `physics` mutation vary it",
    )
    seed_models: tuple[str, ...] = setting(
        (), doc="model files (paths relative to the config) that seed the initial population"
    )
    omega_init: str = setting(
        "random",
        choices=("random", "resonant"),
        doc="how a random creature's omega is chosen: `random`, uniform in `omega`; `resonant`, its lowest "
        "non-zero natural frequency (docs/analysis.md) clipped into `omega` (uniform if it has none)",
    )

    def __post_init__(self) -> None:
        for key in ("masses", "rest", "omega", "beta", "link_stiffness", "link_dashpot", "mass"):
            _ordered(self, key)
        for key, default in (("link_stiffness", 1.0), ("link_dashpot", 0.0), ("mass", 1.0)):
            low, high = getattr(self, key)
            if not low <= default <= high:
                raise EvoInputError(
                    f"expected a range containing {default} (the value of new links and masses), "
                    f"got [{low}, {high}]",
                    field=key,
                )
        if self.max_links < self.masses[1] - 1:
            raise EvoInputError(
                f"expected at least masses[1] - 1 = {self.masses[1] - 1} links so that the largest creature "
                f"can be connected, got {self.max_links}",
                field="max_links",
            )


# the keys of [ga] refine, each an integer >= 1 (the memetic step, evo/run/memetic.py, docs/refine.md)
REFINE_KEYS = ("every", "top", "budget")


@dataclass(frozen=True)
class RefineSchedule(Mapping):
    """``[ga] refine``: every ``every``-th generation, refine the ``top`` best for ``budget`` evaluations
    each. A read-only mapping of its three keys (so the resolved config writes it as a table), hashable."""

    every: int
    top: int
    budget: int

    def __getitem__(self, key: str) -> int:
        if key not in REFINE_KEYS:
            raise KeyError(key)
        return int(getattr(self, key))

    def __iter__(self) -> Any:
        return iter(REFINE_KEYS)

    def __len__(self) -> int:
        return len(REFINE_KEYS)


def _refine_schedule(value: Any, *, source: str | None, field: str) -> RefineSchedule:
    """``[ga] refine = {every = N, top = K, budget = B}``, checked."""
    unknown = sorted(set(value) - set(REFINE_KEYS)) if isinstance(value, Mapping) else []
    if unknown:
        raise EvoInputError(unknown_key_message(str(unknown[0]), field, REFINE_KEYS), source=source)
    if not isinstance(value, Mapping) or set(value) != set(REFINE_KEYS):
        raise EvoInputError(
            f"expected a table {{every = N, top = K, budget = B}} of integers >= 1, got {shown(value)}",
            source=source,
            field=field,
        )
    out = {}
    for key in REFINE_KEYS:
        converted, problem = check(value[key], int, {"low": 1})
        if problem is not None:
            raise EvoInputError(problem, source=source, field=f"{field}.{key}")
        out[key] = converted
    return RefineSchedule(**out)


@dataclass(frozen=True)
class GASection:
    """Selection, elitism and variation rates (the ``[ga]`` table).

    ``mutation_rate`` is the probability that an offspring goes through :func:`evo.ga.mutation.mutate`;
    inside it each operator ``name`` of ``MUTATIONS`` fires independently with probability ``rate_<name>``
    (if none fires, one is drawn in proportion to the rates, so a mutated creature always changes when
    any rate is positive).
    """

    tournament_size: int = setting(
        3, low=1, doc="individuals per selection tournament (one objective; NSGA-II uses binary ones)"
    )
    elite: int = setting(
        2,
        low=0,
        doc="best individuals copied unchanged into the next generation (one objective; NSGA-II keeps the "
        "best of parents and offspring by itself)",
    )
    hall_of_fame: int = setting(10, low=1, doc="size of the hall of fame (the elites saved as model files)")
    similarity: float = setting(
        0.05,
        low=0.0,
        high=1.0,
        doc="a creature whose distance() to a hall-of-fame member is below this is a near-duplicate",
    )
    crossover_rate: float = setting(
        0.3, low=0.0, high=1.0, doc="probability that a pair of offspring is mated"
    )
    mutation_rate: float = setting(0.9, low=0.0, high=1.0, doc="probability that an offspring is mutated")
    rate_cut_crossover: float = setting(
        1.0, low=0.0, high=1.0, doc="probability that a mating exchanges body parts across a vertical cut"
    )
    rate_wave_crossover: float = setting(
        0.5, low=0.0, high=1.0, doc="probability that a mating blends the parents' omega and beta"
    )
    rate_rest: float = setting(0.3, low=0.0, high=1.0, doc="probability of perturbing rest lengths")
    rate_alpha: float = setting(0.2, low=0.0, high=1.0, doc="probability of perturbing muscle amplitudes")
    rate_phi: float = setting(0.3, low=0.0, high=1.0, doc="probability of perturbing muscle phases")
    rate_omega: float = setting(0.1, low=0.0, high=1.0, doc="probability of perturbing the wave's omega")
    rate_beta: float = setting(0.1, low=0.0, high=1.0, doc="probability of perturbing the wave's beta")
    rate_move_mass: float = setting(0.1, low=0.0, high=1.0, doc="probability of moving one mass")
    rate_add_mass: float = setting(0.05, low=0.0, high=1.0, doc="probability of adding a mass")
    rate_remove_mass: float = setting(0.05, low=0.0, high=1.0, doc="probability of removing a mass")
    rate_add_link: float = setting(0.05, low=0.0, high=1.0, doc="probability of adding a link")
    rate_remove_link: float = setting(0.05, low=0.0, high=1.0, doc="probability of removing a link")
    rate_toggle_muscle: float = setting(
        0.1, low=0.0, high=1.0, doc="probability of turning a spring into a muscle or back"
    )
    rate_physics: float = setting(
        0.0,
        low=0.0,
        high=1.0,
        doc="probability of perturbing per-link stiffness, dashpots and per-mass masses (only those whose "
        "[genome] range is wider than a point); 0 leaves them alone",
    )
    gene_fraction: float = setting(
        0.25,
        low=0.0,
        high=1.0,
        doc="fraction of links a per-link perturbation (rest, alpha, phi) changes; at least one",
    )
    sigma_rest: float = setting(0.1, low=0.0, doc="rest-length perturbation: log-normal, relative")
    sigma_alpha: float = setting(0.1, low=0.0, doc="muscle amplitude perturbation: normal, absolute")
    sigma_phi: float = setting(0.5, low=0.0, doc="muscle phase perturbation: normal, rad")
    sigma_omega: float = setting(0.1, low=0.0, doc="omega perturbation: log-normal, relative")
    sigma_beta: float = setting(0.1, low=0.0, doc="beta perturbation: normal, absolute")
    sigma_move: float = setting(8.0, low=0.0, doc="move_mass displacement: normal per axis, px")
    sigma_physics: float = setting(
        0.2,
        low=0.0,
        doc="physics perturbation: stiffness and mass log-normal (relative), dashpot normal scaled by the "
        "top of its range",
    )

    refine: RefineSchedule | None = setting(
        None,
        parse=_refine_schedule,
        doc="memetic refinement: every `every`-th generation the `top` best are tuned with CMA-ES for "
        "`budget` evaluations each and replaced by their refined selves (docs/refine.md); off when absent",
    )

    def rate(self, name: str) -> float:
        """The rate of the mutation operator ``name`` (one of :data:`MUTATION_NAMES`)."""
        return float(getattr(self, f"rate_{name}"))

    def __post_init__(self) -> None:
        names = {f.name for f in fields(self)}
        missing = [n for n in MUTATION_NAMES if f"rate_{n}" not in names]
        if missing:  # a programming error, not a user one
            raise TypeError(f"GASection lacks rate fields for {missing}")
