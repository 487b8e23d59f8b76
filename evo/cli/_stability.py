"""The one-line warning ``evo simulate`` and ``evo validate`` print when a step may be unstable."""

from __future__ import annotations

import sys

from evo.analysis.stability import StepCheck


def _setting(name: str, value: str, style: str) -> str:
    if style == "--set":
        return f"--set {name}={value}"
    quoted = f'"{value}"' if name == "integrator" else value
    return f"{style}{name} = {quoted}"


def step_warning(command: str, source: str, check: StepCheck, *, style: str = "--set", what: str = "") -> str:
    """The warning line for an unstable ``check``. ``style`` says how a fix is written: ``"--set"``
    (``--set dt=0.5``), ``""`` (``dt = 0.5``, a model's world) or ``"[world] "`` (a config); ``what``
    names the creatures when they are not one model ("random creatures of up to 4 links per mass")."""
    fixes = []
    if check.integrator != "rk4" and check.rk4_stable:
        fixes.append(_setting("integrator", "rk4", style))
    if check.smaller_dt is not None:
        fixes.append(_setting("dt", repr(check.smaller_dt), style))
    if not fixes:
        fixes.append(_setting("integrator", "backward-euler", style))
    subject = f"{what}: " if what else ""
    return (
        f"evo {command}: warning: {source}: {subject}omega_max*dt = {check.omega_dt:.3g} exceeds the "
        f"stability limit {check.limit:.3g} of integrator {check.integrator} at dt = {check.dt:g} "
        f"(omega_max <= {check.omega_max:.3g} rad/frame, bounded from the link stiffnesses): the run may "
        "blow up; try " + " or ".join(fixes)
    )


def warn_if_unstable(command: str, source: str, check: StepCheck, **kwargs: str) -> None:
    """Print :func:`step_warning` on stderr when ``check`` is not stable."""
    if not check.stable:
        print(step_warning(command, source, check, **kwargs), file=sys.stderr)
