"""What one studio request may ask: masses, links, frames and body sizes (reported by ``/api/session``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from evo.errors import EvoInputError

__all__ = ["StudioLimits", "TooLarge"]


class TooLarge(EvoInputError):
    """A request over a :class:`StudioLimits` bound (HTTP 413)."""


@dataclass(frozen=True)
class StudioLimits:
    """Bounds on what one request may ask.

    Attributes:
        masses: the most masses in a model.
        links: the most links in a model.
        frames: the most frames one request (a score, a step, a play) may simulate.
        upload_bytes: the most bytes of an uploaded file's text (UTF-8).
        body_bytes: the most bytes of a JSON request body.
    """

    masses: int = 1000
    links: int = 5000
    frames: int = 100_000
    upload_bytes: int = 2 * 1024 * 1024
    body_bytes: int = 4 * 1024 * 1024

    def to_dict(self) -> dict[str, int]:
        """The limits as ``/api/session`` reports them."""
        return asdict(self)

    def check_model(self, n_masses: int, n_links: int) -> None:
        """Raises:
        TooLarge: more masses or links than allowed."""
        if n_masses > self.masses:
            raise TooLarge(f"the model has {n_masses} masses; the studio takes at most {self.masses}")
        if n_links > self.links:
            raise TooLarge(f"the model has {n_links} links; the studio takes at most {self.links}")

    def check_frames(self, frames: float) -> None:
        """Raises:
        TooLarge: more frames than allowed in one request."""
        if frames > self.frames:
            raise TooLarge(f"{frames:g} frames asked; the studio simulates at most {self.frames} per request")
