"""A screenshot of a gallery page with headless Chromium (``chromium --headless --screenshot``).

Used by ``evo gallery --screenshot`` (e.g. for docs/gallery.png). The browser runs with a fresh
profile, no network services and a virtual time budget, so that the page's animations have run for a
while when the picture is taken.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from evo.errors import EvoInputError
from evo.io.atomic import atomic_write_bytes

__all__ = ["BROWSER_FLAGS", "QUIET_BROWSER_FLAGS", "find_browser", "take_screenshot"]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
# a fresh Chromium that asks nothing and reaches no network service (the browser tests launch it so too)
QUIET_BROWSER_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
BROWSER_FLAGS = ("--headless", *QUIET_BROWSER_FLAGS, "--hide-scrollbars")


def find_browser(explicit: str | None = None) -> str:
    """``explicit``, else $EVO_CHROMIUM, else the first of :data:`BROWSERS` on PATH."""
    for candidate in (explicit, os.environ.get("EVO_CHROMIUM")):
        if candidate:
            found = shutil.which(candidate)
            if not found:
                raise EvoInputError(f"no browser at {candidate!r}")
            return found
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise EvoInputError("--screenshot needs Chromium or Chrome on PATH (e.g. apt-get install chromium)")


def take_screenshot(
    page: str | os.PathLike,
    out: str | os.PathLike,
    *,
    browser: str | None = None,
    size: tuple[int, int] = (1280, 1400),
    wait_ms: int = 4000,
    timeout_s: float = 120.0,
) -> Path:
    """Save a PNG of ``page`` (an HTML file) as ``out``, ``size`` CSS px, after ``wait_ms`` of virtual
    time; returns ``out``."""
    executable = find_browser(browser)
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="evo-chromium-") as profile:
        partial = Path(profile) / "shot.png"
        command = [
            executable,
            *BROWSER_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            f"--virtual-time-budget={wait_ms}",
            f"--screenshot={partial}",
            Path(page).resolve().as_uri(),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EvoInputError(f"the browser failed: {exc}", source=executable) from None
        if done.returncode != 0 or not partial.is_file():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise EvoInputError(f"no screenshot (exit status {done.returncode}): {last}", source=executable)
        atomic_write_bytes(out, partial.read_bytes())  # a new picture: the permissions of any new file
    return out
