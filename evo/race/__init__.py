"""Sodarace races: run a race's contenders on its terrain, each in its own physics, and rank them; make a
race of a run's elites or of model files, and score each contender with a plugin. The rules (finish
line, ranking) are in docs/model-format.md, "Race files"."""

from evo.race.from_run import race_of_run
from evo.race.models import Score, race_of_creatures, race_of_models, scores_of
from evo.race.running import RaceResult, Standing, finish_line, run_race

__all__ = [
    "RaceResult",
    "Score",
    "Standing",
    "finish_line",
    "race_of_creatures",
    "race_of_models",
    "race_of_run",
    "run_race",
    "scores_of",
]
