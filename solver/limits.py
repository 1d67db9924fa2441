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
from types import CodeType, FrameType
from typing import Any, ClassVar

__all__ = [
    "Deadline",
    "LimitReached",
    "TimeLimit",
    "deadline_of",
    "per_document",
    "parse_seconds",
    "start_clock",
    "alarm",
    "check_interrupt",
    "interrupt",
    "interrupted",
    "register_search",
    "import_soon",
    "imported",
    "import_within",
    "watchdog",
    "answer_at_limit",
    "unwatched",
]


# The clock of every limit: ``time.monotonic``, looked up at each reading so that a test can put a fake clock in
# its place (``monkeypatch.setattr(trample.limits, "monotonic", fake)``) instead of waiting for time to pass.
monotonic = time.monotonic


class LimitReached(Exception):
    """The work stopped at a limit before it was complete; ``str(err)`` says which limit, in one line."""

    def __init__(self, message: str = "stopped at the time limit", seconds: float | None = None):
        super().__init__(message)
        self.seconds = seconds
        notice()  # the limit is seen: the command gives its answer (the watchdog leaves it alone)


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


def start_clock(process: bool = False) -> None:
    """The command starts now (trample.cli.main's first instruction): --time-limit counts from here -- or, with
    ``process`` (a real command line: this process is the command), from the start of the process where the
    system says when that was (Linux: /proc/self/stat), so that Python's own start-up and ``import trample.cli``
    count too (a loaded machine can spend a second of wall time there): the limit is then the wall time of the
    command as its caller sees it."""
    _STARTED[0] = monotonic() - (process_age() if process else 0.0)


def process_age() -> float:
    """Seconds since this process started (0.0 where that cannot be read; never negative nor absurd)."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time, clock ticks after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return age if 0.0 < age < 60.0 else 0.0  # an exec'd long-lived process (or a bad reading): from here


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
    def any_given(cls) -> bool:
        """Was this process given a command limit?"""
        return bool(cls._live)

    @classmethod
    def restart_all(cls) -> None:
        """A new document of a batch: every command limit starts again."""
        for limit in cls._live:
            limit.restart()
        _NOTICED.clear()
        unwatched()  # a batch: each document its limit and its line (the watchdog would cut the later ones)


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


def started(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with their ``time_limit`` (if any) made a :class:`Deadline` now: a method that imports its
    engines lazily starts the clock before the imports (a whole combat's first solve imported for 70-95 ms before
    its deadline was made, and ended that much past the limit)."""
    if options.get("time_limit") is None:
        return options
    return {**options, "time_limit": deadline_of(options["time_limit"])}


def per_document(limit: object) -> object:
    """The limit of one document of a batch worked away from the command's loop (a worker process, a Dask
    worker, the serial backend): a command's ``--time-limit`` (a :class:`CommandLimit`, whose deadline is this
    process's, from the command's start) as its plain seconds, counted afresh where each document is worked; any
    other limit as it is (a Deadline stays shared)."""
    return float(limit) if isinstance(limit, CommandLimit) else limit


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
        self.stop_sooner: Callable[[], object] | None = None  # set while stop_like_interrupt's limit is armed

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
    `score --time-limit 0.1`) and lost; a WeakSet's own callback under load the same way (test_faults' library
    commands at 0.5 s: "Exception ignored in: <function WeakSet.__init__.<locals>._remove ...>"). A
    ``gc.callbacks`` function, which the collector calls, likewise. The time limits' handlers and the Ctrl-C
    handler wait for it to return."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}  # run by the collector: the same "ignored"
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or _weak_reference_callback(code):
            return True
        if code in callbacks:  # a gc.callbacks function (hypothesis installs one while tests run)
            return True
        frame = frame.f_back
    return False


#: The standard library's weak-reference callbacks, which run when their referent dies -- wherever the collector or
#: the last reference's removal happens to be: ``weakref.finalize.__call__``, the ``remove`` of WeakValueDictionary
#: and WeakKeyDictionary (weakref.py), and the ``_remove`` of a WeakSet (_weakrefset.py). An exception raised in one
#: is "ignored" as in a ``__del__``.
_WEAK_CALLBACKS = {"weakref.py": {"__call__", "remove"}, "_weakrefset.py": {"_remove"}}


def _weak_reference_callback(code: CodeType) -> bool:
    names = _WEAK_CALLBACKS.get(os.path.basename(code.co_filename))
    return names is not None and code.co_name in names


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
        notice()
        interrupt()
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, fire)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(1e-3, deadline.remaining() or 0.0))
        STATE.stop_sooner = lambda: signal.setitimer(signal.ITIMER_REAL, 1e-3)
        yield state
    finally:
        STATE.stop_sooner = None
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def stop_sooner() -> bool:
    """Bring the limit of the enclosing :func:`stop_like_interrupt` forward to now (its stop comes a moment
    later, as the limit's own would: a command that knows writing its results will take longer than the time
    left). False, doing nothing, outside such a block."""
    if STATE.stop_sooner is None or threading.current_thread() is not threading.main_thread():
        return False
    STATE.stop_sooner()
    return True


# ---------------------------------------------------------------------------------------------
# Imports that a time limit cannot cut short: made in a thread, waited for with the time that is left
# ---------------------------------------------------------------------------------------------
#
# An import is never interrupted (:func:`importing`: a module cut short stays half made), and importing OR-Tools
# takes 0.3 s of CPU, over a second of wall time on a loaded machine. A limited command therefore starts it early
# in a thread (:func:`import_soon`, while it reads its input) and waits for it with what is left of its limit
# (:func:`import_within`): when the limit runs out first the command answers as its limit says (``unknown``, no
# count) and exits without waiting for the import (trample.cli: os._exit once its output is flushed).

_IMPORTS: dict[str, threading.Thread] = {}
_IMPORT_ERRORS: dict[str, BaseException] = {}
_IMPORTS_LOCK = threading.Lock()


def import_soon(name: str) -> None:
    """Start importing module ``name`` in a daemon thread (once; nothing if it is imported already)."""
    with _IMPORTS_LOCK:
        if name in _IMPORTS or imported(name):
            return

        def run() -> None:
            import importlib

            try:
                importlib.import_module(name)
            except BaseException as err:  # noqa: BLE001 - handed to the waiting thread (import_within)
                _IMPORT_ERRORS[name] = err

        thread = threading.Thread(target=run, name=f"trample-import-{name}", daemon=True)
        _IMPORTS[name] = thread
        thread.start()


def imported(name: str) -> bool:
    """Is module ``name`` wholly imported (in ``sys.modules`` and not still running its body, here or in a
    thread: :func:`import_soon`)?"""
    import sys

    module = sys.modules.get(name)
    return module is not None and not _initializing(module)


def _initializing(module: object) -> bool:
    spec = getattr(module, "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


def import_within(name: str, limit: object) -> bool:
    """Whether module ``name`` is imported before ``limit`` (a Deadline, seconds, a CommandLimit or None: no
    limit) runs out: the import runs in a thread (:func:`import_soon`) and this thread waits for it, so that the
    limit is kept even while the import cannot be interrupted. False: the limit ran out first (the import goes on
    in its thread). The import's own error is raised here."""
    deadline = deadline_of(limit)
    if not deadline:
        import importlib

        thread = _IMPORTS.get(name)
        if thread is not None:
            thread.join()
        else:
            importlib.import_module(name)
    else:
        import_soon(name)
        thread = _IMPORTS.get(name)
        while thread is not None and thread.is_alive():
            left = deadline.remaining() or 0.0
            if left <= 0:
                notice()
                return False
            thread.join(min(left, 0.05))  # the clock read again: a test's fake clock moves without waiting
    err = _IMPORT_ERRORS.get(name)
    if err is not None:
        raise err
    return True


def imports_running() -> bool:
    """Is an import started by :func:`import_soon` still running (a process that exits now must not wait)?"""
    return any(t.is_alive() for t in list(_IMPORTS.values()))


# ---------------------------------------------------------------------------------------------
# The command line's watchdog: a limit that the main thread cannot see pass
# ---------------------------------------------------------------------------------------------
#
# The main thread sees its limit pass at its clock checks and by the alarm (:func:`alarm`), except inside an
# import (held on purpose: :func:`importing`) or a call into native code that holds the interpreter. There a
# command overran its limit by the rest of that import or call: importing OR-Tools, numpy or distributed took
# over a second of wall time on a loaded machine. The watchdog (a thread of the command-line process, never of a
# process that embeds trample) looks at the clock every few milliseconds; when the limit passed GRACE seconds ago
# and the main thread has not noticed it (no LimitReached raised, no alarm fired) and is not writing a result, the
# command stops as a limit stops it when it has no partial answer: what it wrote stays, the temporary files of
# its outputs go (:func:`on_abandon`), one line on standard error, exit 1 -- without waiting for the import.

GRACE = 0.02  # seconds past the limit before the watchdog stops a command that has not noticed it
_NOTICED = threading.Event()
# The command ends one way: the main thread sees its limit (notice) and answers, or the watchdog answers for it and
# ends the process. Both take this lock, so that the answer is given once (reentrant: an answer written by the
# watchdog may raise LimitReached, which notices, in its own thread).
_ENDING = threading.RLock()
_ABANDON: list[Callable[[], None]] = []
_ANSWER: list[Callable[[Deadline], int]] = []  # what the command answers at its limit (the last one registered)
_WATCHED = [True]  # False: a batch (its limit is per document: the watchdog would cut the later documents' lines)


def answer_at_limit(answer: Callable[[Deadline], int]) -> None:
    """What the watchdog writes when it stops the command (``answer(deadline)`` writes the command's documented
    answer at its limit and returns its exit code) instead of the one line of a command without a partial answer."""
    _ANSWER.append(answer)


def unwatched() -> None:
    """The watchdog leaves this command alone (a batch: each document has its limit, and every document its line)."""
    _WATCHED[0] = False


def notice() -> None:
    """The main thread has seen its limit pass: it gives its answer (the watchdog leaves it alone). Waits while the
    watchdog is ending the process (it answers then, and the process ends before this returns)."""
    with _ENDING:
        _NOTICED.set()


def on_abandon(callback: Callable[[], None]) -> None:
    """Call ``callback`` (remove temporary outputs) before the watchdog ends the process."""
    _ABANDON.append(callback)


def _expired_limit() -> Deadline | None:
    """The earliest command limit that ran out more than GRACE seconds ago, if any."""
    now = monotonic()
    late = [lim.deadline for lim in list(CommandLimit._live) if lim.deadline.at is not None]
    late = [d for d in late if now >= d.at + GRACE]  # type: ignore[operator]
    return min(late, key=lambda d: d.at) if late else None  # type: ignore[arg-type, return-value]


def _abandon(deadline: Deadline) -> None:
    """End the process now: the command's answer at its limit (:func:`answer_at_limit`; else one line on standard
    error and exit 1), its temporary outputs removed, its output flushed."""
    import sys

    code = 1
    if _ANSWER:
        with contextlib.suppress(Exception):
            code = _ANSWER[-1](deadline)
    else:
        with contextlib.suppress(Exception):
            what = f"stopped at the time limit of {deadline.seconds:g} s"
            print(f"trample: {what}; the result is incomplete", file=sys.stderr)
    for callback in list(_ABANDON):
        with contextlib.suppress(Exception):
            callback()
    quick_exit(code)


def quick_exit(code: int) -> None:
    """End the process with ``code`` without the interpreter's clean-up (freeing every module: a fraction of a
    second, more under load) nor waiting for threads (an import still running, :func:`import_soon`): standard
    output and error flushed, and multiprocessing's own exit handler run (worker processes a pool or a local Dask
    cluster started are ended, their semaphores freed: else its resource tracker warned of "leaked semaphore
    objects" after the command's last line)."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        with contextlib.suppress(Exception):
            util._exit_function()
    os._exit(code)


@contextlib.contextmanager
def watchdog(every: float = 0.01) -> Iterator[None]:
    """Watch the command's limits while the block runs (the command-line process only: it may end the process)."""
    import sys

    done = threading.Event()
    main = threading.main_thread().ident

    def watch() -> None:
        while not done.wait(every):
            deadline = _expired_limit()
            if deadline is None or _NOTICED.is_set() or STATE.critical or STATE.signum is not None or not _WATCHED[0]:
                continue
            frame = sys._current_frames().get(main or 0)
            if frame is not None and finalizing(frame):
                continue
            with _ENDING:  # looked at again under the lock: the main thread may have noticed its limit meanwhile
                if not done.is_set() and not _NOTICED.is_set():
                    _abandon(deadline)

    thread = threading.Thread(target=watch, name="trample-watchdog", daemon=True)
    thread.start()
    try:
        yield
    finally:
        with _ENDING:
            done.set()
