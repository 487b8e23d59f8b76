"""All file reading and writing: models (JSON, Sodaconstructor XML), TOML, run folders, checkpoints.

Every write is atomic (temporary file, then ``os.replace``). Nothing here is a pickle.
"""

from evo.io.atomic import atomic_write_text
from evo.io.models import creature_from_dict, creature_to_dict, load_model, save_model

__all__ = ["atomic_write_text", "creature_from_dict", "creature_to_dict", "load_model", "save_model"]
