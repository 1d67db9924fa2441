"""Regression tests for what `make fuzz` (tests/fuzz/run.py) found, each named after its finding.

- A time limit that ran out inside an import (make fuzz, worker 0, case 606: `arena --time-limit 0.5` importing
  OR-Tools on its first reference) raised in the middle of the import: numpy or pandas were left half made in
  ``sys.modules`` and every later command of the process failed ("partially initialized module 'pandas'", numpy's
  "cannot load module more than once per process") -- the next document of a batch under a per-document
  --time-limit, or the next in-process command. The limit's handlers now wait for the import to end.
- A time limit that had run out before its timer was armed (case 1566, a loaded machine) fired before the block
  that reads it: arena and score exited 130 as if interrupted, and `alarm` left its handler firing every 50 ms.
"""

from __future__ import annotations

import signal
import sys
from itertools import count
from pathlib import Path

import pytest

from trample.limits import LimitReached, alarm, importing, interrupts, reset_interrupt, stop_like_interrupt

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="the time limits' alarms are POSIX")

# A module whose import is where the time limit runs out: its body delivers SIGALRM (what the limit's timer
# sends) before it is done, so the handler runs inside the import, deterministically, with no clock involved.
MODULE = """
import signal
from trample.limits import importing
import sys
SEEN_INSIDE = importing(sys._getframe())
signal.raise_signal(signal.SIGALRM)
WHOLE = True
"""


def _module(tmp_path, monkeypatch, name):
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)


def _until_stopped(exception):
    """Work until the limit stops it (the handler fires again shortly after the import): a wait for a
    condition, bounded by a count far beyond any machine's 50 ms."""
    with pytest.raises(exception):
        for _ in count():
            if _ > 10**10:
                break


def test_a_time_limit_inside_an_import_waits_for_the_import(tmp_path, monkeypatch):
    # make fuzz case 606: the time limit ran out while OR-Tools was being imported
    _module(tmp_path, monkeypatch, "fuzz_alarm_module")
    with alarm(3600):
        import fuzz_alarm_module  # type: ignore[import-not-found]

        assert fuzz_alarm_module.WHOLE and fuzz_alarm_module.SEEN_INSIDE
        _until_stopped(LimitReached)  # the limit is not lost: it stops the work right after the import
    assert sys.modules["fuzz_alarm_module"].WHOLE


def test_arena_and_score_time_limit_inside_an_import_waits_for_the_import(tmp_path, monkeypatch):
    # arena and score stop like an interrupt at their limit (KeyboardInterrupt): not inside an import either
    _module(tmp_path, monkeypatch, "fuzz_stop_module")
    try:
        with stop_like_interrupt(3600) as stop:
            try:
                import fuzz_stop_module  # type: ignore[import-not-found]
            except KeyboardInterrupt:
                pytest.fail("the time limit stopped the import half way")

            assert fuzz_stop_module.WHOLE and not stop["fired"]
            _until_stopped(KeyboardInterrupt)
        assert stop["fired"]
    finally:
        reset_interrupt()  # the limit marked the process interrupted (it stops searches as Ctrl-C does)


def test_importing_is_false_outside_an_import():
    assert not importing(sys._getframe())


# ---------------------------------------------------------------------------------------------------------------
# make fuzz case 1566 (`arena s.jsonl --players greedy --format json --time-limit 2`, in process on a loaded
# machine): the 2 s had run out while the command was still starting (0.02 s of CPU in 4.5 s), so the timer fired
# the moment it was armed -- before the block that reads it as the time limit was entered -- and the run ended as
# an interrupt (exit 130, "interrupted after 3.9 s (SIGINT)"). `alarm` had the same gap, worse: its handler, left
# installed, fired again every 50 ms for the rest of the process.
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture
def limit_runs_out_when_armed(monkeypatch):
    """The first timer armed fires at once, in the arming call (as when the machine gave the process no CPU until
    its limit had passed): deterministic, no clock. Afterwards, SIGALRM's handler and timer must be as before."""
    real = signal.setitimer
    before = signal.getsignal(signal.SIGALRM)
    armed: list = []

    def arm(which, seconds, interval=0.0):
        result = real(which, seconds, interval)
        if which == signal.ITIMER_REAL and seconds > 0 and not armed:
            armed.append(seconds)
            signal.raise_signal(signal.SIGALRM)
        return result

    monkeypatch.setattr(signal, "setitimer", arm)
    try:
        yield armed
        left, handler = real(signal.ITIMER_REAL, 0), signal.getsignal(signal.SIGALRM)
        assert left == (0.0, 0.0) and handler == before, "the limit's timer or handler outlived the command"
    finally:
        real(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        reset_interrupt()


def test_arena_time_limit_run_out_before_the_command_starts_is_the_time_limit(limit_runs_out_when_armed, capsys):
    # make fuzz case 1566: exit 130 "interrupted" for a time limit
    from trample.cli import main

    code = main(["arena", "--n", "1", "--players", "greedy", "--format", "json", "--time-limit", "2"])
    err = capsys.readouterr().err
    assert limit_runs_out_when_armed, "the test did not arm the limit"
    assert code == 1, err
    assert err.startswith("trample: stopped at the time limit of 2 s") and len(err.splitlines()) == 1, err


def test_a_time_limit_run_out_when_armed_leaves_no_alarm_behind(limit_runs_out_when_armed, capsys):
    # the same gap in `alarm` (render, check, the library commands, one document of a batch)
    from trample.cli import main

    code = main(["render", str(EXAMPLES / "thrasta.json"), "--time-limit", "2"])
    err = capsys.readouterr().err
    assert limit_runs_out_when_armed
    assert code == 1 and err.startswith("trample: stopped at the time limit of 2 s"), err


# ---------------------------------------------------------------------------------------------------------------
# make fuzz case 9924 (`score d.jsonl --time-limit 0.1`): the limit ran out while the garbage collector ran a
# finalizer (ZipFile.__del__); the KeyboardInterrupt raised there was "ignored" -- a traceback on standard error
# ("Exception ignored in: <function ZipFile.__del__ ...>") -- and lost.
# ---------------------------------------------------------------------------------------------------------------


class _LimitInFinalizer:
    """An object whose finalizer is where the time limit runs out (it delivers SIGALRM, as the limit's timer does)."""

    ran = False

    def __del__(self):
        signal.raise_signal(signal.SIGALRM)
        _LimitInFinalizer.ran = True


@pytest.mark.parametrize("limit, stops", [(alarm, LimitReached), (stop_like_interrupt, KeyboardInterrupt)])
def test_a_time_limit_inside_a_finalizer_waits_for_it(monkeypatch, limit, stops):
    # make fuzz case 9924: "Exception ignored in: <function ZipFile.__del__ ...>" and the limit lost
    unraisable: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    _LimitInFinalizer.ran = False
    try:
        with limit(3600):
            _LimitInFinalizer()  # collected at once: its __del__ runs here
            assert _LimitInFinalizer.ran
            _until_stopped(stops)  # the limit is not lost: it stops the work right after the finalizer
    finally:
        reset_interrupt()
    assert unraisable == [], [u.exc_type for u in unraisable]


def _callback_frames(kill) -> list:
    """The frames of the weak-reference callbacks that run while ``kill()`` lets referents die (caught by a trace
    function, which sees Python functions the interpreter calls from C)."""
    seen: list = []

    def trace(frame, event, arg):
        if event == "call" and frame.f_code.co_name in ("_remove", "remove", "__call__"):
            seen.append(frame)
        return None

    sys.settrace(trace)
    try:
        kill()
    finally:
        sys.settrace(None)
    return seen


class _Referent:
    pass


def test_weak_reference_callbacks_are_finalizers():
    # seen under load (test_faults' library commands at --time-limit 0.5): the limit ran out inside a WeakSet's own
    # callback during a collection; the LimitReached raised there was "ignored" -- "Exception ignored in: <function
    # WeakSet.__init__.<locals>._remove ...>" on standard error -- and the command was stopped only by the next tick
    import weakref

    from trample.limits import finalizing

    for make in (weakref.WeakSet, weakref.WeakValueDictionary, weakref.WeakKeyDictionary):
        holder, item = make(), _Referent()
        if isinstance(holder, weakref.WeakSet):
            holder.add(item)
        elif isinstance(holder, weakref.WeakValueDictionary):
            holder[1] = item
        else:
            holder[item] = 1
        box = [item]
        del item
        frames = _callback_frames(box.clear)  # the last reference goes: the container's callback runs
        assert frames, make
        assert all(finalizing(f) for f in frames), make
        assert len(holder) == 0
    # and an ordinary function named like them is not one
    assert not finalizing(sys._getframe())


class _InterruptInFinalizer:
    """An object whose finalizer is where Ctrl-C lands (it delivers SIGINT to the process)."""

    ran = False

    def __del__(self):
        signal.raise_signal(signal.SIGINT)
        _InterruptInFinalizer.ran = True


def test_ctrl_c_inside_a_finalizer_is_not_lost(monkeypatch):
    # the same gap in the Ctrl-C handler (issue 24): the KeyboardInterrupt raised inside a __del__ was "ignored" and
    # lost, and a second Ctrl-C was then ignored too (the handler had already counted it as raised)
    unraisable: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    _InterruptInFinalizer.ran = False
    try:
        with interrupts() as state:
            _InterruptInFinalizer()  # collected at once: its __del__ runs here
            assert _InterruptInFinalizer.ran
            _until_stopped(KeyboardInterrupt)  # delivered again right after the finalizer: not lost
            assert state.raised and state.signum == signal.SIGINT
    finally:
        reset_interrupt()
    assert unraisable == [], [u.exc_type for u in unraisable]


def test_ctrl_c_inside_writing_the_arena_results_leaves_no_truncated_file(tmp_path, monkeypatch, capsys):
    # issue 24 (noticed last stop): an interrupt -- Ctrl-C, or the time limit, which stops arena and score like
    # Ctrl-C -- inside json.dump of --out committed the part written so far over the previous file
    import json

    from trample.arena import report
    from trample.cli import main

    def interrupted_midway(results, path):
        text = json.dumps(results, indent=1) + "\n"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text[: len(text) // 2])
            signal.raise_signal(signal.SIGINT)  # Ctrl-C lands in the middle of the file
            fh.write(text[len(text) // 2 :])

    monkeypatch.setattr(report, "write_json", interrupted_midway)
    out = tmp_path / "results.json"
    out.write_text("the previous results\n")
    try:
        code = main(["arena", "--n", "2", "--seed", "1", "--players", "greedy", "--out", str(out)])
    finally:
        reset_interrupt()
    err = capsys.readouterr().err
    assert code == 130 and err.startswith("trample: interrupted"), err
    results = json.loads(out.read_text())  # the whole file: the interrupt waited for it
    assert len(results["boards"]) == 2 and results["leaderboard"][0]["player"] == "greedy"
    assert not list(tmp_path.glob(".results.json.*"))  # no temporary left behind


@pytest.mark.parametrize("limit, stops", [(alarm, LimitReached), (stop_like_interrupt, KeyboardInterrupt)])
def test_a_time_limit_inside_a_gc_callback_waits_for_it(monkeypatch, limit, stops):
    # seen in `make test-fast` beside CI: the limit ran out inside hypothesis's gc callback, which the collector
    # calls like a finalizer: "Exception ignored in: <function gc_cumulative_time.<locals>.gc_callback ...>", and
    # stop_like_interrupt's limit, marked fired, was lost
    import gc

    unraisable: list = []
    ran: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)

    def callback(phase, info):
        if phase == "start" and not ran:
            ran.append(phase)
            signal.raise_signal(signal.SIGALRM)  # the limit runs out while the collector runs this

    gc.callbacks.append(callback)  # the collector holds this very list
    try:
        with limit(3600):
            gc.collect()
            assert ran
            _until_stopped(stops)  # not lost: it stops the work right after the callback
    finally:
        gc.callbacks.remove(callback)
        reset_interrupt()
    assert unraisable == [], [u.exc_type for u in unraisable]


def test_stop_sooner_brings_the_armed_limit_forward():
    # arena: play stops when the time left would not write the results of the boards played (its limit brought
    # forward, so that the stop is the limit's own: "fired", the interrupt line, exit 1)
    from trample.limits import stop_sooner

    assert stop_sooner() is False  # no limit armed: nothing to bring forward
    try:
        with stop_like_interrupt(3600) as stop:
            assert not stop["fired"]
            assert stop_sooner() is True
            _until_stopped(KeyboardInterrupt)
        assert stop["fired"]
    finally:
        reset_interrupt()
    assert stop_sooner() is False  # the block left: disarmed
