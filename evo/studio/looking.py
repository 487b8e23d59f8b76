"""What the page's "look inside" panels show, computed by evo: validation (as ``evo validate``), the
equilibrium and vibration modes (as ``evo analyze --json``, with mode shapes) and a fitness plugin's score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evo.analysis import natural_modes
from evo.analysis.stability import StepCheck, check_step
from evo.analysis.summary import finite as _finite
from evo.analysis.summary import summary
from evo.errors import EvoInputError
from evo.fitness import discover, load_ref
from evo.fitness.evaluate import PluginFailed, evaluate
from evo.model import Creature, is_connected
from evo.run.rescore import scoring
from evo.sim import DEFAULT_FRAMES
from evo.sim.world import World
from evo.studio.designs import design_of
from evo.studio.limits import StudioLimits

__all__ = ["analysis_of", "plugin_list", "score_of", "step_warning", "validation_of"]


def step_warning(check: StepCheck) -> str:
    """The one-line warning for a step that may be unstable, with the fix ``evo validate`` suggests."""
    fix = f"; try dt = {check.smaller_dt!r}" if check.smaller_dt is not None else ""
    return (
        f"omega_max*dt = {check.omega_dt:.3g} exceeds the stability limit {check.limit:.3g} of integrator "
        f"{check.integrator} at dt = {check.dt:g} (omega_max <= {check.omega_max:.3g} rad/frame, bounded "
        f"from the link stiffnesses): the run may blow up{fix}"
    )


def validation_of(obj: Any, limits: StudioLimits) -> dict[str, Any]:
    """``{"errors", "warnings", "stability", "summary"}`` of a JSON model object, as ``evo validate`` says:
    an invalid model has one error line; a step that may be unstable is a warning."""
    try:
        creature = design_of(obj, limits)
    except EvoInputError as exc:
        return {"errors": [str(exc)], "warnings": [], "stability": None, "summary": None}
    world = World.from_model(creature)
    check = check_step(creature, world)
    warnings = [] if check.stable else [step_warning(check)]
    connected = "connected" if is_connected(creature) else "not connected"
    summary = (
        f"'{creature.name}', {creature.n_masses} masses, {creature.n_links} links "
        f"({creature.n_muscles} muscles), {connected}"
    )
    stability = {
        "stable": bool(check.stable),
        "omega_max": _finite(check.omega_max),
        "omega_dt": _finite(check.omega_dt),
        "limit": _finite(check.limit),
        "integrator": check.integrator,
        "dt": check.dt,
        "smaller_dt": check.smaller_dt,
    }
    return {"errors": [], "warnings": warnings, "stability": stability, "summary": summary}


def analysis_of(creature: Creature) -> dict[str, Any]:
    """The ``evo analyze --json`` summary of ``creature`` in its own world, every float JSON-safe
    (:func:`evo.analysis.summary.summary`), plus ``shapes``: one (n_masses, 2) mode shape per natural
    frequency (zero on fixed masses)."""
    world = World.from_model(creature)
    modes = natural_modes(creature, world)
    out = summary(creature, world, modes, json_safe=True)
    out["shapes"] = modes.shapes[modes.vibrating].tolist()
    return out


def plugin_list() -> list[dict[str, Any]]:
    """The fitness plugins evo finds: ``[{"name", "doc", "params"}]`` (params: their defaults)."""
    return [
        {"name": name, "doc": plugin.doc, "params": _json_safe(plugin.params)}
        for name, plugin in sorted(discover().items())
    ]


def _json_safe(params: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in params.items():
        if isinstance(value, bool | int | str) or value is None:
            out[key] = value
        elif isinstance(value, float):
            out[key] = _finite(value)
        else:
            out[key] = repr(value)
    return out


def score_of(
    creature: Creature, plugin: str, params: Any, frames: Any, limits: StudioLimits
) -> dict[str, Any]:
    """``{"fitness", "objectives", "label", "exploded", "exploded_frame"}``: ``plugin`` on ``creature`` in
    its own world for ``frames`` frames (default 3000), as ``evo simulate --plugin`` scores it.

    Raises:
        EvoInputError: an unknown plugin, bad params, frames over the limit, or a plugin that failed.
    """
    if frames is None:
        frames = DEFAULT_FRAMES
    if not isinstance(frames, int) or isinstance(frames, bool) or frames < 1:
        raise EvoInputError(f"frames: expected an integer >= 1, got {frames!r}")
    limits.check_frames(frames)
    if params is not None and not isinstance(params, dict):
        raise EvoInputError(f"params: expected a JSON object, got {params!r}")
    world = World.from_model(creature)
    spec, seed = scoring(creature, plugin, world=world, frames=frames, params=params)
    try:
        outcome = evaluate(creature, spec, seed)
    except PluginFailed as exc:
        raise EvoInputError(f"plugin {plugin}: {exc.message}") from None
    objectives = load_ref(spec.plugin).objectives
    values = [_finite(v) for v in outcome.fitness]
    names = list(objectives) or [f"objective {i + 1}" for i in range(len(values))]
    shown = ", ".join(
        f"{n} {v:.6g}" if v is not None else f"{n} -" for n, v in zip(names, values, strict=False)
    )
    label = f"{plugin} in {frames} frames: {shown}" + (" (EXPLODED)" if outcome.exploded else "")
    exploded_frame = None
    if outcome.exploded:
        from evo.sim import simulate

        exploded_frame = simulate(creature, world, frames, world.dt).exploded_frame
    return {
        "fitness": values,
        "objectives": names,
        "label": label,
        "exploded": outcome.exploded,
        "exploded_frame": exploded_frame,
    }
