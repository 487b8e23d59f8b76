"""The ``shards`` backend's engine: worker processes that own the population as arrays and select, breed
and score whole generations (docs/runs.md, "Workers")."""

from evo.run.shards.engine import run_sharded, why_not_sharded

__all__ = ["run_sharded", "why_not_sharded"]
