"""The elite gallery (one self-contained HTML page per run folder) and single-creature replays (GIF, SVG).

See docs/gallery.md. Trajectories always come from :func:`evo.sim.simulate`; the page only draws them.
"""

from evo.gallery.build import build_gallery, gallery_path, write_gallery
from evo.gallery.contents import generation_bests
from evo.gallery.data import decode_positions, encode_positions, record_trajectory
from evo.io.run_folder.contents import read_run

__all__ = [
    "build_gallery",
    "decode_positions",
    "encode_positions",
    "gallery_path",
    "generation_bests",
    "read_run",
    "record_trajectory",
    "write_gallery",
]
