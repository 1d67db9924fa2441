"""Limits on long work: a wall-clock deadline that every long loop checks, and the exception that says it hit.

Counting, enumerating, ranking, sampling and whole-combat work can be limited with ``time_limit`` (seconds of
wall-clock time). Long loops (the direct engine's dynamic programme, CP-SAT searches, the whole combat's
first-step pass) check a :class:`Deadline` and raise :class:`LimitReached` when it has passed, so that the work
stops within a fraction of a second of the limit, whatever the board. A limited call either returns the
complete answer or raises :class:`LimitReached`; streams yield what they produced before the limit, then raise
it. ``solve`` does not raise: it returns the best it found, with status ``feasible`` or ``unknown``.
"""

from __future__ import annotations

import time

__all__ = ["Deadline", "LimitReached", "deadline_of"]


class LimitReached(Exception):
    """The work stopped at a limit before it was complete; ``str(err)`` says which limit, in one line."""

    def __init__(self, message: str = "stopped at the time limit", seconds: float | None = None):
        super().__init__(message)
        self.seconds = seconds


class Deadline:
    """A point in wall-clock time (``time.monotonic``), or none (``seconds=None``: never expires)."""

    __slots__ = ("seconds", "at")

    def __init__(self, seconds: float | None = None):
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def __bool__(self) -> bool:  # a Deadline that never expires is falsy: `if deadline:` skips the clock
        return self.at is not None

    def remaining(self) -> float | None:
        """Seconds left (may be negative), or None without a limit."""
        return None if self.at is None else self.at - time.monotonic()

    def expired(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def check(self) -> None:
        """Raise :class:`LimitReached` when the deadline has passed."""
        if self.at is not None and time.monotonic() >= self.at:
            raise LimitReached(f"stopped at the time limit of {self.seconds:g} s", self.seconds)


NEVER = Deadline(None)


def deadline_of(limit) -> Deadline:
    """A :class:`Deadline` from ``None``, seconds, or a Deadline (returned as is, so nested calls share it)."""
    if limit is None:
        return NEVER
    if isinstance(limit, Deadline):
        return limit
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
        raise ValueError(f"time_limit: expected a positive number of seconds, got {limit!r}")
    return Deadline(float(limit))
