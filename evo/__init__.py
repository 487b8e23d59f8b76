"""evo: an evolutionary creature designer in the style of Ed Burton's Sodaconstructor.

Creatures are point masses joined by springs and sinusoidal muscles. The public entry points are
:class:`evo.model.Creature`, :class:`evo.sim.World`, :func:`evo.sim.simulate` and the file readers in
:mod:`evo.io`.
"""

__version__ = "0.1.0"
