"""Waiting for a condition in the fault tests, never for a length of time (house rules: no ``time.sleep`` as
synchronisation).

:func:`wait_until` waits until ``condition()`` holds (a line written, a file grown, a process state in /proc),
with a generous bound. Between two looks it blocks on something that can end the wait itself: the watched
process exiting (``Popen.wait(timeout)``), or an event another thread sets (``threading.Event.wait``) -- the
short timeout of that wait only says how often the condition is looked at, and no result depends on it.
:func:`cpu_seconds` is a condition on what a process did (the CPU time it used), however loaded the machine is.
"""

from __future__ import annotations

import subprocess
import threading
import time

BOUND = 120.0  # seconds: a generous bound on a loaded machine; reaching it fails the test


def wait_until(condition, timeout: float = BOUND, proc: subprocess.Popen | None = None, event=None) -> bool:
    """Wait until ``condition()`` is true; True then. ``proc``: also stop waiting when it exits (False if the
    condition never held). ``event``: a ``threading.Event`` to block on between looks (set it to look at once).
    Fails with AssertionError after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    event = event or threading.Event()
    while True:
        if condition():
            return True
        if proc is not None and proc.poll() is not None:
            return bool(condition())
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"waited {timeout:g} s for a condition that never held")
        step = min(0.02, left)
        if proc is not None:
            try:
                proc.wait(timeout=step)  # ends at once if the process exits
            except subprocess.TimeoutExpired:
                pass
        else:
            event.wait(step)


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by process ``pid`` (its threads included), from /proc/PID/stat;
    0.0 once it is gone."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)


def used_cpu(proc: subprocess.Popen, seconds: float):
    """A condition: ``proc`` has used ``seconds`` of CPU (it is doing its work, whatever the load)."""
    return lambda: cpu_seconds(proc.pid) >= seconds
