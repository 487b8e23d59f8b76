"""The Designs panel's ``GET /api/designs``: the model files (``.json`` and classic ``.xml``) of the folder
the studio was started on, each read by evo's own readers, for the page to list with a thumbnail and open."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evo.errors import EvoInputError
from evo.io.models import load_model
from evo.io.soda_race import is_race_file
from evo.studio.designs import model_object
from evo.studio.limits import StudioLimits

__all__ = ["MAX_DESIGNS", "design_listing", "library_routes"]

MAX_DESIGNS = 60  # model files listed (by name); a folder with more says so
_MAX_BYTES = 2 * 1024 * 1024  # a larger file is listed as too large, not read


def design_listing(folder: Path | None, limits: StudioLimits) -> dict[str, Any]:
    """``{"folder", "designs": [{"file", "name", "model" | "error"}], "more"}``: the folder's model files
    by name (at most :data:`MAX_DESIGNS`; ``more`` counts the rest); a file evo cannot read, or one over
    the studio's limits, comes with its one-line ``error`` instead of a model."""
    if folder is None:
        return {"folder": None, "designs": [], "more": 0}
    files = sorted(
        p
        for p in folder.iterdir()
        if p.suffix.lower() in (".json", ".xml") and p.is_file() and not is_race_file(p)
    )
    designs = []
    for path in files[:MAX_DESIGNS]:
        row: dict[str, Any] = {"file": path.name, "name": path.stem}
        try:
            if path.stat().st_size > _MAX_BYTES:
                raise EvoInputError(f"over {_MAX_BYTES // (1024 * 1024)} MB", source=path.name)
            creature = load_model(path)
            limits.check_model(creature.n_masses, creature.n_links)
            row.update(name=creature.name, model=model_object(creature))
        except (EvoInputError, OSError) as exc:
            row["error"] = str(exc).splitlines()[0]
        designs.append(row)
    return {"folder": str(folder), "designs": designs, "more": max(0, len(files) - MAX_DESIGNS)}


def library_routes(folder: Callable[[], Path | None], limits: StudioLimits) -> list[Route]:
    """``GET /api/designs``; ``folder()`` is the start folder (None: the studio was started on no path)."""

    async def designs(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(design_listing, folder(), limits))

    return [Route("/api/designs", designs)]
