"""Evolution: genomes (creatures within the ``[genome]`` limits), variation operators and their settings.

The GA never calls the simulator: it makes creatures and is told their fitness.
"""

from evo.ga.creatures import distance, problems, random_creature, seeded_creature
from evo.ga.settings import MUTATION_NAMES, GASection, GenomeSection

__all__ = [
    "GASection",
    "GenomeSection",
    "MUTATION_NAMES",
    "distance",
    "problems",
    "random_creature",
    "seeded_creature",
]
