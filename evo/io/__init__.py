"""All file reading and writing: models (JSON, Sodaconstructor XML), TOML, run folders, checkpoints.

Every write is atomic (temporary file, then ``os.replace``). Nothing here is a pickle. The run folder's
files are in :mod:`evo.io.run_folder`, the checkpoint's in :mod:`evo.io.checkpoint`.
"""

import sys

from evo.io.atomic import atomic_write_text
from evo.io.models import creature_from_dict, creature_to_dict, load_model, save_model
from evo.io.moved import MOVED_IO_MODULES, alias_moved_modules

__all__ = ["atomic_write_text", "creature_from_dict", "creature_to_dict", "load_model", "save_model"]

alias_moved_modules(sys.modules[__name__], MOVED_IO_MODULES)
