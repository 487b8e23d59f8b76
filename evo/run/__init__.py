"""Running evolution: the config, the evaluation backends, the job they run, and the generation loop.

The run folder as the loop's listener is :mod:`evo.run.folder`.
"""

import sys

from evo.io.moved import alias_moved_modules

# old module -> the module to import its names from now; gone in 0.3.0
MOVED_RUN_MODULES = {
    "evo.run.archive_writer": "evo.run.folder",
    "evo.run.elite_files": "evo.run.folder",
}

alias_moved_modules(sys.modules[__name__], MOVED_RUN_MODULES)
