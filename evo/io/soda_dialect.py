"""The Sodaconstructor XML dialect: its elements, attributes and ranges, and its muscle law in evo's terms.

A file muscle's phase p is a delay behind the wave phase w: l0 (1 + a A sin(2 pi (p - w))) is evo's
l0 (1 + alpha beta sin(theta + phi)) with theta = 2 pi w and phi = pi - 2 pi p (docs/model-format.md
derives it). Writing picks the shortest decimal that reads back as exactly the same radians.
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = [
    "ATTRIBUTES",
    "CHILDREN",
    "CHOICES",
    "WORLD_NUMBERS",
    "file_muscle_phase",
    "file_speed",
    "file_wave_phase",
    "muscle_phase",
    "wave_omega",
    "wave_phase",
]

# Allowed children of the container elements, and allowed attributes of every element.
CHILDREN = {
    "model": ("name", "comment", "container", "environment", "collisions", "wave", "settings", "nodes",
              "links", "polys"),
    "nodes": ("mass", "node"),
    "links": ("spring", "muscle", "fixedbar"),
    "polys": ("poly",),
}  # fmt: skip
ATTRIBUTES = {
    "model": (),
    "nodes": (),
    "links": (),
    "polys": (),
    "name": (),
    "comment": (),
    "container": ("width", "height"),
    "environment": ("gravity", "friction", "springyness"),
    "collisions": ("surface_friction", "surface_reflection"),
    "wave": ("amplitude", "phase", "speed", "omega", "theta0"),  # omega, theta0: evo's exact radians
    "settings": ("gravitydirection", "wavedirection", "autoreverse"),
    "mass": ("id", "x", "y", "vx", "vy"),
    "node": ("id", "x", "y"),
    "spring": ("a", "b", "restlength"),
    "muscle": ("a", "b", "restlength", "amplitude", "phase", "phi"),  # phi: evo's exact radians
    "fixedbar": ("a", "b"),
    "poly": ("points", "nodes", "color", "curvy"),
}

_INF = math.inf
# (element, attribute) -> (World field, low, high, low bound open?, factor from file to world)
WORLD_NUMBERS = {
    ("container", "width"): ("width", 0.0, _INF, True, 1.0),
    ("container", "height"): ("height", 0.0, _INF, True, 1.0),
    ("environment", "gravity"): ("gravity", 0.0, 4.0, False, 1.0),
    ("environment", "friction"): ("damping", 0.0, 1.0, False, 1.0),
    ("environment", "springyness"): ("stiffness", 0.0, 0.5, True, 1.0),
    ("collisions", "surface_friction"): ("restitution_tangential", 0.0, 1.0, False, 1.0),
    ("collisions", "surface_reflection"): ("restitution_normal", -1.0, 0.0, False, -1.0),
}
CHOICES = {
    "gravitydirection": ("down", "up", "off"),
    "wavedirection": ("forward", "reverse"),
    "autoreverse": ("on", "off"),
    "curvy": ("0", "1", "false", "true"),
}


# ------------------------------------------------------------------------------ file -> evo
def muscle_phase(cycles: float) -> float:
    """evo's phi (rad, in [0, 2 pi]) of a file muscle's phase p (cycles): pi - 2 pi p (+ 2 pi if < 0)."""
    phi = math.pi - math.tau * cycles
    return phi + math.tau if phi < 0.0 else phi


def wave_phase(cycles: float) -> float:
    """evo's wave phase theta0 (rad) of the file's wave phase w (cycles): 2 pi w."""
    return math.tau * cycles


def wave_omega(speed: float) -> float:
    """evo's omega (rad/frame) of the file's wave speed (cycles/frame): 2 pi speed."""
    return math.tau * speed


# ------------------------------------------------------------------------------ evo -> file
def _shortest(guess: float, reads_back: Callable[[float], bool]) -> str:
    """The shortest decimal near ``guess`` that ``reads_back`` accepts, else ``repr(guess)``."""
    near = [guess, math.nextafter(guess, math.inf), math.nextafter(guess, -math.inf)]
    for digits in range(1, 18):
        for candidate in near:
            value = float(f"{candidate:.{digits}g}")
            if 0.0 <= value <= 1.0 and reads_back(value):
                return repr(value)
    return repr(guess)


def _in_one_cycle(cycles: float) -> float:
    return cycles if 0.0 <= cycles <= 1.0 else cycles % 1.0


def file_muscle_phase(phi: float) -> str:
    """The file's muscle phase p (cycles, in [0, 1]) of evo's phi (rad): 1/2 - phi / 2 pi, wrapped.

    A phi in [0, 2 pi] comes back from the file as the very same float whenever some decimal does so
    (always for one that came from a file); any other phi comes back as the same angle mod 2 pi.
    """
    return _shortest(_in_one_cycle(0.5 - float(phi) / math.tau), lambda p: muscle_phase(p) == phi)


def file_wave_phase(theta0: float) -> str:
    """The file's wave phase w (cycles, in [0, 1]) of evo's theta0 (rad): theta0 / 2 pi, wrapped."""
    return _shortest(_in_one_cycle(float(theta0) / math.tau), lambda w: wave_phase(w) == theta0)


def file_speed(omega: float) -> str:
    """The file's wave speed (cycles/frame) of evo's omega (rad/frame); omega must be <= 2 pi."""
    return _shortest(float(omega) / math.tau, lambda s: wave_omega(s) == omega)
