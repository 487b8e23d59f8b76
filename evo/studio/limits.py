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
        terrain_points: the most points of a world's terrain (all its polylines).
        work: the most work one score or step may ask: frames x (links + masses x terrain points).
        child_seconds: the most seconds a child process (a score, a config check) may take to answer.
        message_values: the most numbers one ``frames`` message carries (a step is sent in parts).
        step_values: the most numbers (records x masses x 2) one step may send, and the most a player
            that replays from frame 0 (psm, finite-difference, a reversing wave) may hold.
    """

    masses: int = 1000
    links: int = 5000
    frames: int = 100_000
    upload_bytes: int = 2 * 1024 * 1024
    body_bytes: int = 4 * 1024 * 1024
    terrain_points: int = 20_000
    work: int = 500_000_000
    child_seconds: float = 120.0
    message_values: int = 1_000_000
    step_values: int = 20_000_000

    def to_dict(self) -> dict[str, float]:
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

    def check_terrain(self, points: int) -> None:
        """Raises:
        TooLarge: a terrain of more points than allowed."""
        if points > self.terrain_points:
            raise TooLarge(f"a terrain of {points} points; the studio takes at most {self.terrain_points}")

    def check_work(self, per_frame: int, frames: float) -> None:
        """Raises:
        TooLarge: more work than one request may ask: ``per_frame`` (:func:`~evo.studio.designs.work_of`)
        times ``frames``."""
        work = max(1, per_frame) * frames
        if work > self.work:
            raise TooLarge(
                f"{frames:g} frames of this design is {work:.3g} units of work (links + masses x terrain "
                f"points, per frame); the studio simulates at most {self.work:.3g} per request"
            )

    def check_values(self, records: int, masses: int) -> None:
        """Raises:
        TooLarge: more positions than one step may send or a replaying player may hold."""
        values = records * masses * 2
        if values > self.step_values:
            raise TooLarge(
                f"{records} records of {masses} masses is {values:.3g} numbers; the studio sends (or keeps) "
                f"at most {self.step_values:.3g} at a time"
            )
