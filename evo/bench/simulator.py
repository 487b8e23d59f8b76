"""The ``simulator`` and ``compile`` sections of ``python -m evo bench``: the standard creatures, the bench
world, the kernel against the numpy reference, and the JIT compile time."""

from __future__ import annotations

import argparse
import math
import tempfile
from typing import Any

import numpy as np

from evo.bench import Section, best_time, probe_in_fresh_interpreter
from evo.model import Creature
from evo.sim import World, simulate

__all__ = [
    "STANDARD_SIZES",
    "bench_world",
    "compile_section",
    "mesh_links",
    "simulator_section",
    "standard_creature",
]

STANDARD_SIZES = ((20, 60), (60, 200))  # (masses, links)
FRAMES = 4000  # frames per timed kernel run
RECORD_EVERY = 10  # frames between records
NUMPY_FRAMES = 1000  # frames per timed numpy run (it is ~100x slower; rates are per frame)
SEED = 20240601  # the standard creatures' seed
GRID_SPACING = 40.0  # px between neighbouring masses of the standard creatures' mesh
MAX_SPEED = 100.0  # px/frame: the bench world flags a run as exploded above it
BENCH_STIFFNESS = 0.25  # 1/frame²: the bench world's k̄ (the default 0.4 is at the edge of stability here)

# -- the standard creatures ------------------------------------------------------------------------------


def bench_world() -> World:
    """The world the simulator is timed in: the default World (dt = 1 frame, gravity 0.5 px/frame²,
    damping 0.025 /frame, floor at y = 0, no walls) except for a lower stiffness, k̄ = BENCH_STIFFNESS,
    and a ``max_speed`` so that an unstable run is flagged as exploded.

    The default k̄ = 0.4 /frame² is at the edge of stability for these meshes: with 6-10 links per mass the
    largest eigenvalue of the stiffness matrix is ~7.5 k̄ (3.0-3.1 at k̄ = 0.4) and semi-implicit Euler needs
    it below ~4 /dt²; there the 60-mass creature rattles at ~27 px/frame and other seeds of the same meshes
    explode. At k̄ = 0.25 every mass stays below ~5 px/frame once landed. The cost of a step does not
    depend on k̄.
    """
    return World(stiffness=BENCH_STIFFNESS, max_speed=MAX_SPEED)


def _segments_cross(p: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(m,) bool: whether segment p-q properly crosses each segment a[i]-b[i] ((m, 2) arrays).

    Segments that only share an end point do not cross.
    """

    def orient(u, v, w):
        return (v[..., 0] - u[..., 0]) * (w[..., 1] - u[..., 1]) - (v[..., 1] - u[..., 1]) * (
            w[..., 0] - u[..., 0]
        )

    return (orient(p, q, a) * orient(p, q, b) < 0.0) & (orient(a, b, p) * orient(a, b, q) < 0.0)


def mesh_links(points: np.ndarray, n_links: int, max_length: float = math.inf) -> np.ndarray:
    """(n_links, 2) mass index pairs joining near neighbours of ``points`` ((n, 2) px).

    A greedy triangulation (pairs no longer than ``max_length`` px, shortest first, skipping any that
    crosses a link already taken: a planar mesh close to Delaunay's, without the long slivers along the
    hull), padded with the shortest remaining pairs up to ``n_links`` (or cut to the shortest
    ``n_links``). Every mass then has few neighbours, which keeps semi-implicit Euler stable.
    """
    n = points.shape[0]
    if not n - 1 <= n_links <= n * (n - 1) // 2:
        raise ValueError(f"{n} masses can have {n - 1}..{n * (n - 1) // 2} links, not {n_links}")
    i, j = np.triu_indices(n, k=1)
    lengths = np.hypot(*(points[j] - points[i]).T)
    order = np.argsort(lengths, kind="stable")
    pairs = np.stack([i[order], j[order]], axis=1)
    taken = np.zeros(len(pairs), dtype=bool)
    chosen: list[int] = []
    for k in np.flatnonzero(lengths[order] <= max_length):
        a, b = pairs[k]
        if chosen:
            mesh = pairs[chosen]
            if _segments_cross(points[a], points[b], points[mesh[:, 0]], points[mesh[:, 1]]).any():
                continue
        chosen.append(k)
        taken[k] = True
    padding = np.flatnonzero(~taken)[: max(0, n_links - len(chosen))]
    keep = np.sort(np.concatenate([np.array(chosen, dtype=np.intp), padding]))[:n_links]
    return pairs[keep]


def standard_creature(n_masses: int, n_links: int, seed: int = SEED) -> Creature:
    """A deterministic random creature of ``n_masses`` masses and ``n_links`` links, half of them muscles.

    The masses are a jittered grid (about 2:1 wide, ``GRID_SPACING`` px apart) 20 px above the floor,
    joined by :func:`mesh_links` at their rest lengths; the muscles are a random half of the links with
    alpha in [0.1, 0.5] and a random phase, driven by a wave of period 100 frames and beta = 0.5.
    """
    rng = np.random.default_rng([seed, n_masses, n_links])
    cols = max(2, math.ceil(math.sqrt(2.0 * n_masses)))
    cells = np.arange(n_masses)
    grid = np.stack([cells % cols, cells // cols], axis=1).astype(np.float64)
    jitter = rng.uniform(-0.25, 0.25, size=(n_masses, 2))
    points = (grid + jitter) * GRID_SPACING + np.array([GRID_SPACING, 20.0 + 0.25 * GRID_SPACING])
    links = mesh_links(points, n_links, max_length=2.0 * GRID_SPACING)
    rest = np.hypot(*(points[links[:, 1]] - points[links[:, 0]]).T)
    alpha = np.zeros(n_links)
    muscles = rng.choice(n_links, size=n_links // 2, replace=False)
    alpha[muscles] = rng.uniform(0.1, 0.5, size=muscles.size)
    phi = np.where(alpha > 0.0, rng.uniform(0.0, 2.0 * math.pi, size=n_links), 0.0)
    return Creature(
        positions=points,
        velocities=np.zeros((n_masses, 2)),
        fixed=np.zeros(n_masses, dtype=bool),
        link_a=links[:, 0],
        link_b=links[:, 1],
        rest=rest,
        alpha=alpha,
        phi=phi,
        omega=2.0 * math.pi / 100.0,
        beta=0.5,
        name=f"bench-{n_masses}x{n_links}",
        meta={"seed": seed},
    )


# -- the simulator section -------------------------------------------------------------------------------


def _row(creature: Creature, frames: int, seconds: float) -> dict[str, Any]:
    return {
        "masses": creature.n_masses,
        "links": creature.n_links,
        "frames": frames,
        "seconds": seconds,
        "spring_updates_per_s": creature.n_links * frames / seconds,
    }


def simulator_section(args: argparse.Namespace) -> Section:
    """Kernel vs numpy spring-updates per second on the standard creatures, in the bench world."""
    from evo.bench.numpy_reference import simulate_numpy

    repeats = int(getattr(args, "repeats", 7))
    frames = int(getattr(args, "frames", FRAMES))
    numpy_frames = min(frames, int(getattr(args, "numpy_frames", NUMPY_FRAMES)))
    world = bench_world()
    creatures = [standard_creature(m, n) for m, n in STANDARD_SIZES]
    simulate(creatures[0], world, RECORD_EVERY, record_every=RECORD_EVERY)  # JIT warm-up
    kernel, reference, ratios = [], [], []
    for creature in creatures:
        trajectory = simulate(creature, world, frames, record_every=RECORD_EVERY)
        if trajectory.exploded:
            raise RuntimeError(f"{creature.name} exploded at frame {trajectory.exploded_frame}")
        seconds = best_time(lambda c=creature: simulate(c, world, frames, record_every=RECORD_EVERY), repeats)
        kernel.append(_row(creature, frames, seconds))
        seconds = best_time(
            lambda c=creature: simulate_numpy(c, world, numpy_frames, record_every=RECORD_EVERY), repeats
        )
        reference.append(_row(creature, numpy_frames, seconds))
        ratio = kernel[-1]["spring_updates_per_s"] / reference[-1]["spring_updates_per_s"]
        ratios.append({"masses": creature.n_masses, "links": creature.n_links, "ratio": ratio})
    world_text = (
        f"world: stiffness {world.stiffness} /frame² (lowered from the default {World().stiffness},"
        f" at the edge of stability for these meshes), dt {world.dt} frame, gravity {world.gravity}"
        f" px/frame², damping {world.damping} /frame, floor only, max_speed {world.max_speed} px/frame;"
        f" best of {repeats}, record every {RECORD_EVERY} frames"
    )
    lines = [
        world_text,
        f"{'masses':>6} {'links':>6} {'muscles':>7} {'kernel frames':>13} {'kernel M/s':>10}"
        f" {'numpy frames':>12} {'numpy M/s':>9} {'kernel/numpy':>12}",
    ]
    for creature, k, r, q in zip(creatures, kernel, reference, ratios, strict=True):
        lines.append(
            f"{creature.n_masses:>6} {creature.n_links:>6} {creature.n_muscles:>7} {k['frames']:>13}"
            f" {k['spring_updates_per_s'] / 1e6:>10.1f} {r['frames']:>12}"
            f" {r['spring_updates_per_s'] / 1e6:>9.2f} {q['ratio']:>11.0f}x"
        )
    data = {
        "world": {"stiffness": world.stiffness, "dt": world.dt, "gravity": world.gravity,
                  "damping": world.damping, "max_speed": world.max_speed},
        "repeats": repeats,
        "kernel": kernel,
        "numpy": reference,
        "ratio_vs_numpy": ratios,
    }  # fmt: skip
    return Section("simulator: spring-updates per second (links x frames / s)", lines, data)


# -- the compile section ---------------------------------------------------------------------------------

# Run in a fresh interpreter: import the simulator, time the first (compiling or cache-loading) call.
_COMPILE_PROBE = """
import json, time
import numpy as np
from evo.model import Creature
from evo.sim import World, simulate
creature = Creature(positions=[[0.0, 10.0], [30.0, 10.0]], velocities=np.zeros((2, 2)),
                    fixed=[False, False], link_a=[0], link_b=[1], rest=[30.0], alpha=[0.2], phi=[0.0],
                    omega=0.1, beta=0.5)
start = time.perf_counter()
simulate(creature, World(max_speed=100.0), 10, record_every=5)
first = time.perf_counter() - start
print(json.dumps({"first_call_s": first}))
"""


def _probe_first_call(cache_dir: str | None) -> float:
    """Seconds of the first ``simulate`` call in a fresh interpreter with ``NUMBA_CACHE_DIR=cache_dir``
    (None: the interpreter's own environment, i.e. numba's usual cache)."""
    return float(probe_in_fresh_interpreter(_COMPILE_PROBE, cache_dir, "compile-time")["first_call_s"])


_BREEDING_PROBE = """
import json, time
start = time.perf_counter()
from evo.ga.kernels.brood import warm_breeding
warm_breeding()
print(json.dumps({"first_call_s": time.perf_counter() - start}))
"""


def _probe_breeding(cache_dir: str | None) -> float:
    """Seconds of :func:`evo.ga.kernels.brood.warm_breeding` in a fresh interpreter on ``cache_dir``."""
    return float(probe_in_fresh_interpreter(_BREEDING_PROBE, cache_dir, "breeding compile")["first_call_s"])


def compile_section(args: argparse.Namespace) -> Section:
    """JIT compile time of the simulator and of the compiled breeding, cold (empty cache) and cached
    (second run on the same cache)."""
    with tempfile.TemporaryDirectory(prefix="evo-bench-numba-") as cache_dir:
        cold = _probe_first_call(cache_dir)
        cached = _probe_first_call(cache_dir)
    with tempfile.TemporaryDirectory(prefix="evo-bench-numba-") as cache_dir:
        bred = [_probe_breeding(cache_dir), _probe_breeding(cache_dir)]
    lines = [
        "first simulate() call (Euler, 10 frames) in a fresh interpreter,"
        " NUMBA_CACHE_DIR on a new temporary folder",
        f"cold (empty cache): {cold:.2f} s    cached (same folder, second run): {cached:.3f} s",
        f"the compiled breeding (one mated pair, evo.ga.kernels.brood.warm_breeding), the same way: cold"
        f" {bred[0]:.2f} s    cached {bred[1]:.3f} s",
    ]
    data = {
        "compile_s": {"cold": cold, "cached": cached},
        "breeding_compile_s": {"cold": bred[0], "cached": bred[1]},
    }
    return Section("JIT compile time", lines, data)
