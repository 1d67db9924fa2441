"""Limits on long work: a wall-clock deadline that every long loop checks, and the exception that says it hit.

Counting, enumerating, ranking, sampling and whole-combat work can be limited with ``time_limit`` (seconds of
wall-clock time). Long loops (the direct engine's dynamic programme, CP-SAT searches, the whole combat's
first-step pass) check a :class:`Deadline` and raise :class:`LimitReached` when it has passed, so that the work
stops within a fraction of a second of the limit, whatever the board. A limited call either returns the
complete answer or raises :class:`LimitReached`; streams yield what they produced before the limit, then raise
it. ``solve`` does not raise: it returns the best it found, with status ``feasible`` or ``unknown``.
"""

from __future__ import annotations

import threading
import time
import weakref

__all__ = ["Deadline", "LimitReached", "deadline_of", "check_interrupt", "interrupt", "interrupted", "register_search"]


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


class CommandLimit(float):
    """``--time-limit`` as the command line parses it: a number of seconds whose clock starts when the command
    starts (reading and loading the input count), not when the work does. :func:`deadline_of` turns it into
    its running Deadline; a batch restarts it for each document (:meth:`restart`)."""

    _live: list = []

    def __new__(cls, seconds: float):
        obj = super().__new__(cls, seconds)
        obj.deadline = Deadline(float(seconds))
        cls._live.append(obj)
        return obj

    def restart(self) -> None:
        self.deadline = Deadline(float(self))

    @classmethod
    def restart_all(cls) -> None:
        """A new document of a batch: every command limit starts again."""
        for limit in cls._live:
            limit.restart()


def deadline_of(limit) -> Deadline:
    """A :class:`Deadline` from ``None``, seconds, or a Deadline (returned as is, so nested calls share it)."""
    if limit is None:
        return NEVER
    if isinstance(limit, Deadline):
        return limit
    if isinstance(limit, CommandLimit):
        return limit.deadline
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
        raise ValueError(f"time_limit: expected a positive number of seconds, got {limit!r}")
    return Deadline(float(limit))


# ---------------------------------------------------------------------------------------------
# Interrupts (SIGINT, SIGTERM): the searches running in native code are told to stop
# ---------------------------------------------------------------------------------------------
#
# A CP-SAT solve runs in C++: Python's signal handler only runs once it returns. The command line therefore
# watches for signals in a thread (trample.docio.interrupts) and calls :func:`interrupt`, which stops every
# search registered here; the main thread then raises KeyboardInterrupt as soon as it runs Python again.
# Every CP-SAT solver is made by trample.engines.cpsat.new_solver, which registers it.

_INTERRUPT = threading.Event()
_SEARCHES: weakref.WeakSet = weakref.WeakSet()
_SEARCHES_LOCK = threading.Lock()


def register_search(search) -> None:
    """Track an object with a ``stop_search()`` method, stopped by :func:`interrupt` (weakly held)."""
    with _SEARCHES_LOCK:
        _SEARCHES.add(search)


def interrupt() -> None:
    """Mark the process interrupted and stop every registered search (safe from any thread)."""
    _INTERRUPT.set()
    with _SEARCHES_LOCK:
        searches = list(_SEARCHES)
    for s in searches:
        try:
            s.stop_search()
        except Exception:  # a search that is not running, or already torn down
            pass


def interrupted() -> bool:
    return _INTERRUPT.is_set()


def check_interrupt() -> None:
    """Raise KeyboardInterrupt if the process was interrupted (before starting more native work)."""
    if _INTERRUPT.is_set():
        raise KeyboardInterrupt


def reset_interrupt() -> None:
    """Forget an interrupt (tests that run several commands in one process)."""
    _INTERRUPT.clear()
