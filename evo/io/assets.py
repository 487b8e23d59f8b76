"""Text files shipped inside evo's packages (the gallery's page, style and scripts)."""

from __future__ import annotations

from importlib import resources

__all__ = ["package_text"]


def package_text(package: str, *parts: str) -> str:
    """The text of a file shipped in ``package`` under the relative path ``parts``."""
    return resources.files(package).joinpath(*parts).read_text(encoding="utf-8")
