"""Limits on long work: a wall-clock deadline that every long loop checks, and the exception that says it hit.

Counting, enumerating, ranking, sampling and whole-combat work can be limited with ``time_limit`` (seconds of
wall-clock time). Long loops (the direct engine's dynamic programme, CP-SAT searches, the whole combat's
first-step pass) check a :class:`Deadline` and raise :class:`LimitReached` when it has passed, so that the work
stops within a fraction of a second of the limit, whatever the board. A limited call either returns the
complete answer or raises :class:`LimitReached`; streams yield what they produced before the limit, then raise
it. ``solve`` does not raise: it returns the best it found, with status ``feasible`` or ``unknown``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, ClassVar

__all__ = [
    "Deadline",
    "LimitReached",
    "TimeLimit",
    "deadline_of",
    "parse_seconds",
    "start_clock",
    "alarm",
    "check_interrupt",
    "interrupt",
    "interrupted",
    "register_search",
]


# The clock of every limit: ``time.monotonic``, looked up at each reading so that a test can put a fake clock in
# its place (``monkeypatch.setattr(trample.limits, "monotonic", fake)``) instead of waiting for time to pass.
monotonic = time.monotonic


class LimitReached(Exception):
    """The work stopped at a limit before it was complete; ``str(err)`` says which limit, in one line."""

    def __init__(self, message: str = "stopped at the time limit", seconds: float | None = None):
        super().__init__(message)
        self.seconds = seconds


class Deadline:
    """A point in wall-clock time (:data:`monotonic`), or none (``seconds=None``: never expires)."""

    __slots__ = ("seconds", "at")

    def __init__(self, seconds: float | None = None, start: float | None = None):
        self.seconds = seconds
        self.at = None if seconds is None else (monotonic() if start is None else start) + seconds

    def __bool__(self) -> bool:  # a Deadline that never expires is falsy: `if deadline:` skips the clock
        return self.at is not None

    def remaining(self) -> float | None:
        """Seconds left (may be negative), or None without a limit."""
        return None if self.at is None else self.at - monotonic()

    def expired(self) -> bool:
        return self.at is not None and monotonic() >= self.at

    def check(self) -> None:
        """Raise :class:`LimitReached` when the deadline has passed."""
        if self.at is not None and monotonic() >= self.at:
            raise LimitReached(f"stopped at the time limit of {self.seconds:g} s", self.seconds)


NEVER = Deadline(None)

# What every ``time_limit`` parameter takes: seconds (a ``--time-limit`` is a float too), a running Deadline
# (shared by nested calls), or None for no limit.
TimeLimit = Deadline | float | None


MAX_SECONDS = 10**9  # --time-limit: at most 10^9 s (about 32 years); inf, nan and larger values are bad input

_STARTED: list[float | None] = [None]


def start_clock() -> None:
    """The command starts now (trample.cli.main's first instruction): --time-limit counts from here."""
    _STARTED[0] = monotonic()


def parse_seconds(text: str) -> float:
    """``--time-limit SECONDS`` as every command parses it: a finite positive number of at most
    :data:`MAX_SECONDS`; ValueError with the one-line reason otherwise."""
    shown = repr(text) if len(text) <= 40 else repr(text[:37]) + "..."
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected seconds, got {shown}") from None
    if not value > 0:
        raise ValueError(f"expected a positive number of seconds, got {shown}")
    if not value <= MAX_SECONDS:  # inf too: setitimer and the deadline arithmetic overflowed
        raise ValueError(f"expected at most {MAX_SECONDS:g} seconds, got {shown}")
    return value


class CommandLimit(float):
    """``--time-limit`` as the command line parses it: a number of seconds whose clock starts when the command
    starts (trample.cli.main's first instruction, before the heavy imports; reading and loading the input
    count), not when the work does. :func:`deadline_of` turns it into its running Deadline; a batch restarts it
    for each later document (:meth:`restart`)."""

    _live: ClassVar[list[CommandLimit]] = []
    deadline: Deadline

    def __new__(cls, seconds: float) -> CommandLimit:
        obj = super().__new__(cls, seconds)
        obj.deadline = Deadline(float(seconds), _STARTED[0])
        cls._live.append(obj)
        return obj

    def restart(self) -> None:
        self.deadline = Deadline(float(self))

    @classmethod
    def restart_all(cls) -> None:
        """A new document of a batch: every command limit starts again."""
        for limit in cls._live:
            limit.restart()


def deadline_of(limit: object) -> Deadline:
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
# watches for signals in a thread (trample.limits.interrupts) and calls :func:`interrupt`, which stops every
# search registered here; the main thread then raises KeyboardInterrupt as soon as it runs Python again.
# Every CP-SAT solver is made by trample.engines.cpsat.new_solver, which registers it.

_INTERRUPT = threading.Event()
_SEARCHES: weakref.WeakSet[Any] = weakref.WeakSet()
_SEARCHES_LOCK = threading.Lock()


def register_search(search: Any) -> None:
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


# ---------------------------------------------------------------------------------------------
# The command line's signal handling: SIGINT and SIGTERM stop the command, which keeps and finishes what it did
# ---------------------------------------------------------------------------------------------


class InterruptState:
    """What the command line knows when it is interrupted: which signal, when, and what the command had done
    (``done``: a callable giving a short phrase such as "1200 assignments written", set by the command)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Back to a fresh state: no signal seen, the clock restarted."""
        self.signum: int | None = None
        self.start = time.monotonic()
        self.done: Callable[[], str] | None = None
        self.critical = 0  # inside hold() ... release(): the interrupt waits (a line written and counted)
        self.pending = False
        self.raised = False

    def hold(self) -> None:
        """Hold an interrupt back until :meth:`release` (writing a line and counting it is one step)."""
        self.critical += 1

    def release(self) -> None:
        self.critical -= 1
        if self.pending and not self.critical and not self.raised:
            self.pending = False
            self.raised = True
            raise KeyboardInterrupt

    def line(self) -> str:
        """The one line printed on standard error: ``trample: interrupted after 2.1 s (SIGINT): 1200 ...``."""
        name = signal.Signals(self.signum).name if self.signum else "SIGINT"
        text = f"trample: interrupted after {time.monotonic() - self.start:.1f} s ({name})"
        if self.done is not None:
            try:
                what = self.done()
            except Exception:
                what = ""
            if what:
                text += f": {what}"
        return text


STATE = InterruptState()


def work_done(describe: Callable[[], str] | None) -> None:
    """Say what the running command has done so far (for the interrupt line)."""
    STATE.done = describe


@contextlib.contextmanager
def interrupts() -> Iterator[InterruptState]:
    """SIGINT and SIGTERM raise KeyboardInterrupt in the main thread (once: a second signal during the clean-up
    does not cut it short; not inside a finalizer, where it would be lost, but right after it), and stop every
    CP-SAT search at once through :func:`trample.limits.interrupt` -- a
    thread watching the signal wake-up pipe does it, since the main thread may be inside native code."""
    if threading.current_thread() is not threading.main_thread():
        yield STATE
        return
    STATE.reset()
    reset_interrupt()  # a command run earlier in this process (tests, embedding) does not count
    r, w = os.pipe()
    os.set_blocking(w, False)

    active = threading.Event()
    active.set()

    def again(signum: int) -> None:
        """Deliver the signal to the main thread once more (a moment later), while these handlers are in place."""
        if active.is_set():
            with contextlib.suppress(OSError, ValueError):
                signal.pthread_kill(threading.main_thread().ident or 0, signum)

    def handler(signum: int, frame: FrameType | None) -> None:
        STATE.signum = STATE.signum or signum
        interrupt()
        if STATE.raised:
            return
        if STATE.critical:
            STATE.pending = True
            return
        if finalizing(frame):  # raised in a __del__ it would be "ignored" and lost: raised right after it instead
            timer = threading.Timer(0.01, again, (signum,))
            timer.daemon = True
            timer.start()
            return
        STATE.raised = True
        raise KeyboardInterrupt

    def watch() -> None:
        while True:
            try:
                data = os.read(r, 64)
            except OSError:
                return
            if not data:
                return
            for b in data:
                if b in (signal.SIGINT, signal.SIGTERM):
                    STATE.signum = STATE.signum or b
                    interrupt()

    old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    watcher = threading.Thread(target=watch, name="trample-signals", daemon=True)
    watcher.start()
    try:
        yield STATE
    finally:
        active.clear()
        for sig, h in old.items():
            signal.signal(sig, h)
        signal.set_wakeup_fd(old_fd)
        os.close(w)  # the watcher reads the end of the pipe and returns
        watcher.join(5)
        if not watcher.is_alive():  # else r stays open: a watcher still reading must never read a reused number
            os.close(r)  # (the next command's files: make fuzz's in-process runs saw a "SIGINT" under load)


def importing(frame: FrameType | None) -> bool:
    """Whether ``frame`` (a signal handler's: the main thread's current frame) is inside an import: a frame of
    importlib's bootstrap on its stack. The time limits' handlers do not raise there but a little later: an
    exception raised inside an import can leave a module half made in ``sys.modules`` (numpy: "cannot load module
    more than once per process", pandas: "partially initialized module"), so that every later import of it in
    this process fails -- the next document of a batch, or the next command of a process that runs several
    (make fuzz's in-process runs). A time limit is then overshot by at most the rest of one import."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def finalizing(frame: FrameType | None) -> bool:
    """Whether ``frame`` is inside a finalizer (a ``__del__`` method, a ``weakref.finalize`` callback), which the
    garbage collector runs wherever it happens to run: an exception raised there is "ignored" -- printed on
    standard error with a traceback (make fuzz: "Exception ignored in: <function ZipFile.__del__ ...>" under
    `score --time-limit 0.1`) and lost. A ``gc.callbacks`` function, which the collector calls, likewise. The time
    limits' handlers and the Ctrl-C handler wait for it to return."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}  # run by the collector: the same "ignored"
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or (code.co_name == "__call__" and code.co_filename.endswith("weakref.py")):
            return True
        if code in callbacks:  # a gc.callbacks function (hypothesis installs one while tests run)
            return True
        frame = frame.f_back
    return False


def _not_here(frame: FrameType | None) -> bool:
    """A time limit's exception must not be raised at ``frame`` now: inside an import or a finalizer."""
    return importing(frame) or finalizing(frame)


@contextlib.contextmanager
def alarm(limit: object) -> Iterator[None]:
    """The time limit for work that does not look at a Deadline itself (loading, the library commands, check,
    render, score): SIGALRM raises :class:`LimitReached` in the main thread when ``limit`` (a
    :class:`CommandLimit`, a Deadline or None) runs out -- and again every 50 ms until the block is left, so
    that a handler that swallows one cannot hide it. The alarm is armed only inside the block: the result lines
    and error lines written between documents are never cut. Already run out: LimitReached at once."""
    deadline = deadline_of(limit)
    if not deadline or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return
    left = deadline.remaining() or 0.0
    if left <= 0:
        deadline.check()
        raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)

    def fire(signum: int, frame: FrameType | None) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        if STATE.critical or _not_here(frame):  # a result being written, an import, a finalizer: after it
            return
        raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)

    old = signal.signal(signal.SIGALRM, fire)
    try:  # armed inside: a limit that runs out at once (a loaded machine) still disarms and restores the handler
        signal.setitimer(signal.ITIMER_REAL, left)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def stop_like_interrupt(limit: object, state: dict[str, bool] | None = None) -> Iterator[dict[str, bool]]:
    """The time limit of a command that keeps what it did on an interrupt (arena, score): when ``limit`` runs
    out, the command is stopped as Ctrl-C stops it (:func:`interrupt`, then KeyboardInterrupt in the main
    thread, held back while a result is written), and the yielded dict (``state``, when given) says
    ``{"fired": True}`` so that the command reports the time limit (exit 1) rather than an interrupt. The
    KeyboardInterrupt can come as the block is entered or left (the limit ran out while the machine was busy
    elsewhere): a caller that reads ``state`` outside the ``with`` sees those too."""
    state = {"fired": False} if state is None else state
    state.setdefault("fired", False)
    deadline = deadline_of(limit)
    if not deadline or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield state
        return

    def fire(signum: int, frame: FrameType | None) -> None:
        if state["fired"]:
            return
        if STATE.critical or _not_here(frame):  # a result being written, an import, a finalizer: a little later
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            return
        state["fired"] = True
        interrupt()
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, fire)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(1e-3, deadline.remaining() or 0.0))
        yield state
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
