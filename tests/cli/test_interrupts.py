"""Interrupts: SIGINT and SIGTERM stop any long command cleanly, kill -9 never leaves a file that claims
to be complete, and every CP-SAT solve can be interrupted.

The signal tests run the real command line in a subprocess (its own session, so that what it leaves behind can be
found), send a signal once the command has done a seeded random amount of its work, and check: exit code 130, one
line on standard error (``trample: interrupted after ...``), output files that are valid and hold exactly the work
done, and no process left. The moment is a condition on what the command did, never a length of time (house
rules, issue 24): its k-th output line (k seeded), its temporary file past a seeded size, or a seeded amount of
CPU time used (/proc/PID/stat) where it writes nothing while it works; the boards take far longer, so the signal
always lands mid-work, however loaded the machine is. No timing assertions.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from itertools import cycle
from pathlib import Path

import numpy as np
import pytest
from boards import ENDLESS_COMBAT
from waiting import used_cpu, wait_until

from trample import Combat
from trample.models import load_scenario

ROOT = Path(__file__).resolve().parents[2]
P60K7 = ROOT / "examples" / "p60k7.json"
OPP = [{"id": "opp", "life": 20}]
DOUBLE = ENDLESS_COMBAT  # tests/boards.py: a whole combat of more than 10^20 lines
SIGNALS = (signal.SIGINT, signal.SIGTERM)
RNG = random.Random(13)


def moments(n: int, low: float = 0.3, high: float = 2.0) -> list[float]:
    """Seconds of CPU time the command has used (its own work, whatever the load) when the signal is sent
    (seeded)."""
    return [round(RNG.uniform(low, high), 2) for _ in range(n)]


def handlers_installed(proc: subprocess.Popen):
    """A condition: the command has installed its SIGTERM handler (``SigCgt`` in /proc/PID/status)."""

    def done() -> bool:
        try:
            with open(f"/proc/{proc.pid}/status") as fh:
                caught = next(int(x.split()[1], 16) for x in fh if x.startswith("SigCgt:"))
        except (OSError, StopIteration):
            return False
        return bool(caught & (1 << (signal.SIGTERM - 1)))

    return done


def after_cpu(proc: subprocess.Popen, seconds: float):
    """A condition: the command runs (its handlers installed) and has used ``seconds`` of CPU time."""
    ready, worked = handlers_installed(proc), used_cpu(proc, seconds)
    return lambda: ready() and worked()


def start(*args, cwd=None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "trample", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
    )


def wait_for(proc: subprocess.Popen, done) -> None:
    """Wait until ``done()`` says the command has done some of its work (a file grew, a player started, CPU time
    used): the signal then lands mid-work however loaded the machine is (a fixed sleep after start-up did not,
    issue 24)."""
    wait_until(done, proc=proc)


def interrupt_when(proc: subprocess.Popen, sig: int, done) -> tuple[int, bytes, str]:
    """Send ``sig`` once ``done()`` holds (see :func:`wait_for`)."""
    wait_for(proc, done)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert session(proc.pid) == []  # nothing the command started outlives it (its session is empty)
    return proc.returncode, out, err.decode()


def interrupt_after_line(proc: subprocess.Popen, sig: int, k: int = 0) -> tuple[int, bytes, str]:
    """Send ``sig`` once the command has written on standard output: its first ``k`` lines read (then returned
    with the rest), or, with ``k=0``, once anything is there to read (nothing read before the signal)."""
    import select

    readable, _, _ = select.select([proc.stdout], [], [], 120)
    assert readable, "the command wrote nothing"
    head = b""  # read from the pipe itself (communicate reads the file descriptor, not a buffered reader)
    while head.count(b"\n") < k:  # each read blocks until the command writes more
        more = os.read(proc.stdout.fileno(), 1 << 16)
        assert more, f"the command ended before its line {k}"
        head += more
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert session(proc.pid) == []
    return proc.returncode, head + out, err.decode()


def grown(folder: Path, pattern: str, size: int = 0):
    """A condition: a file matching ``pattern`` in ``folder`` (a temporary .part file) holds more than ``size``
    bytes."""

    def done() -> bool:
        for p in folder.glob(pattern):
            try:
                if p.stat().st_size > size:
                    return True
            except OSError:
                continue
        return False

    return done


def kill_9(proc: subprocess.Popen, done) -> None:
    """kill -9 once ``done()`` holds (the command is mid-work)."""
    wait_for(proc, done)
    proc.kill()
    proc.communicate(timeout=60)


def session(sid: int) -> list[int]:
    """Processes still running in session ``sid``."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.getsid(int(pid)) == sid:
                    with open(f"/proc/{pid}/stat") as fh:
                        if fh.read().rsplit(")", 1)[1].split()[0] != "Z":
                            found.append(int(pid))
            except OSError:
                continue
    return found


def assert_interrupted(code: int, err: str, sig: int) -> None:
    assert code == 130, err
    assert err.count("\n") == 1 and err.startswith("trample: interrupted after "), err
    assert signal.Signals(sig).name in err


def leftover(token: str) -> list[int]:
    """Processes whose command line holds ``token``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if token.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def test_every_cpsat_solver_is_made_in_one_place():
    # Scan: no module but engines/cpsat.py names CpSolver; there, only new_solver's class derives from it.
    for path in (ROOT / "solver").rglob("*.py"):
        text = path.read_text()
        if path.name == "cpsat.py":
            assert text.count("CpSolver()") == 0 and "class TrampleSolver(cp_model.CpSolver)" in text
        else:
            assert "CpSolver(" not in text, path


@pytest.mark.parametrize("side", ["attacking"])
def test_every_solve_path_runs_with_sigint_left_to_python(monkeypatch, side):
    # Instrument: record the parameters of every CP-SAT solve run by count, enumerate, solve, all-optimal and a
    # whole combat, through the CpSolver base class (whatever made the solver).
    from ortools.sat.python import cp_model

    from trample.optimize import all_optimal
    from trample.whole import WholeCombat

    seen = []
    real = cp_model.CpSolver.solve

    def spy(self, model, callback=None):
        p = self.parameters
        seen.append((p.catch_sigint_signal, p.enumerate_all_solutions, p.num_workers))
        return real(self, model, callback)

    monkeypatch.setattr(cp_model.CpSolver, "solve", spy)
    sc = json.loads(P60K7.read_text())
    small = {
        "players": OPP,
        "attackers": [
            {"id": "t", "power": 4, "toughness": 4, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b"]}
        ],
        "blockers": [{"id": "b", "power": 1, "toughness": 2}],
    }
    combat = Combat(small, side=side)
    combat.count(engine="cpsat")
    list(combat.assignments(engine="cpsat"))
    combat.solve(["max-damage"])
    list(all_optimal(Combat(sc), "max-kills", limit=3))  # 2 * 10^8 lines: past the direct path, CP-SAT lists
    Combat(sc).solve(["max-kills", "max-value"])
    whole = dict(small, step="combat")
    whole["attackers"] = [dict(small["attackers"][0], keywords=["trample", "double_strike"])]
    WholeCombat(whole).solve(["max-damage"])
    assert len(seen) >= 5
    for catch, listing, workers in seen:
        assert catch is False  # Ctrl-C reaches Python after any solve
        if listing:
            assert workers == 1  # more workers silently lose listed solutions


def test_no_new_solve_starts_once_interrupted():
    from trample.engines.cpsat import new_solver
    from trample.limits import interrupt, reset_interrupt

    solver = new_solver(listing=True)
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    m.new_int_var(0, 3, "x")
    interrupt()
    try:
        with pytest.raises(KeyboardInterrupt):
            solver.solve(m)
    finally:
        reset_interrupt()
    assert solver.solve(m) == cp_model.OPTIMAL


# ---------------------------------------------------------------------------------------------
# SIGINT / SIGTERM on each long command
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["direct", "cpsat"])
def test_enumerate_jsonl_to_a_file(tmp_path, engine):
    for sig in (*SIGNALS, SIGNALS[0]):
        out = tmp_path / f"e-{sig}.jsonl"
        proc = start("enumerate", P60K7, "--engine", engine, "-o", out)
        code, stdout, err = interrupt_when(proc, sig, grown(tmp_path, f".e-{sig}.jsonl.*part*"))
        assert_interrupted(code, err, sig)
        text = out.read_text()
        lines = text.splitlines()
        assert text.endswith("\n") or text == ""
        rows = [json.loads(x) for x in lines]  # every line whole
        assert f": {len(rows)} assignments written" in err  # exactly the work done
        if engine == "direct":  # the canonical order: the file is the first rows of the full list
            expect = [a.to_json() for a in Combat(load_scenario(json.loads(P60K7.read_text()))).assignments(limit=50)]
            assert rows[:50] == expect[: len(rows[:50])]
        assert not list(tmp_path.glob(".*.part*"))  # no temporary file left


@pytest.mark.slow
def test_enumerate_npy(tmp_path):
    sc = load_scenario(json.loads(P60K7.read_text()))
    for sig in (*SIGNALS, SIGNALS[0]):
        out = tmp_path / f"m{sig}.npy"
        proc = start("enumerate", P60K7, "--format", "npy", "-o", out)
        code, _, err = interrupt_when(proc, sig, grown(tmp_path, f".m{sig}.npy.*part*", 128))  # past the header
        assert_interrupted(code, err, sig)
        matrix = np.load(out)  # the header matches the rows written
        meta = json.loads((tmp_path / f"m{sig}.columns.json").read_text())
        assert meta["rows"] == len(matrix) and matrix.shape[1] == len(meta["columns"])
        assert f": {len(matrix)} of " in err
        first = list(Combat(sc).assignments(limit=20))
        for row, a in zip(matrix[:20], first):
            assert {(s, r): int(v) for (s, r), v in zip(meta["columns"], row) if v} == {
                (s, r): v for s, split in a.to_json().items() for r, v in split.items()
            }


def test_a_chunk_cut_short_by_a_signal_is_written_whole():
    # a signal whose handler returns (the interrupt held back while a chunk is written and counted) makes
    # BufferedWriter.write return the bytes it wrote so far: write_chunks writes the rest, every line counted
    import io

    from trample.cli.batch import write_chunks

    class Pipe(io.RawIOBase):  # takes at most 1 000 bytes a call, as a write cut short by a signal
        def __init__(self):
            self.got = bytearray()

        def writable(self):
            return True

        def write(self, b):
            n = min(len(b), 1000)
            self.got += bytes(b[:n])
            return n

    class Stdout:  # a text stream over a binary one whose write may be partial (what the raw writer sees)
        def __init__(self):
            self.buffer = Pipe()

        def flush(self):
            pass

    out, done = Stdout(), [0]
    chunks = [(b"x" * 99 + b"\n") * 300, "é" * 4999 + "\n"]
    write_chunks(out, [(chunks[0], 300), (chunks[1], 1)], done)
    assert bytes(out.buffer.got) == chunks[0] + chunks[1].encode() and done == [301]


@pytest.mark.slow
def test_enumerate_stdout_keeps_whole_lines():
    # the bulk JSON Lines writer hands a chunk of 43 690 lines (1.6 MB) to the pipe, the interrupt held back while
    # it is written and counted; the signal cut that write short (Python's BufferedWriter returns the bytes it
    # wrote): 65 536 bytes reached the reader, the last line cut, and the line said 43 690 written. Now every line
    # counted is there, whole
    sc = json.loads(P60K7.read_text())
    for sig in (*SIGNALS, SIGNALS[0]):
        code, out, err = interrupt_after_line(start("enumerate", P60K7), sig)
        assert_interrupted(code, err, sig)
        text = out.decode()
        assert text.endswith("\n") or text == ""
        rows = [json.loads(x) for x in text.splitlines()]
        assert f": {len(rows)} assignments written" in err
        assert rows[:20] == [a.to_json() for a in Combat(load_scenario(sc)).assignments(limit=20)][: len(rows)]


@pytest.mark.slow
def test_sample_stdout_keeps_whole_lines(tmp_path):
    sc = json.loads(P60K7.read_text())
    for sig in (*SIGNALS, SIGNALS[0]):
        code, out, err = interrupt_after_line(start("sample", P60K7, "--n", "100000000", "--seed", "5"), sig)
        assert_interrupted(code, err, sig)
        text = out.decode()
        assert text.endswith("\n") or text == ""
        rows = [json.loads(x) for x in text.splitlines()]
        assert f": {len(rows)} of 100000000 draws" in err
        same = [a.to_json() for a, _ in zip(Combat(sc).samples(len(rows), 5), range(len(rows)))]
        assert rows == same  # the draws made, in order


@pytest.mark.slow
def test_solve_all_optimal(tmp_path):
    for sig, k in zip(cycle(SIGNALS), RNG.sample(range(1, 40), 3)):  # after the k-th optimal line
        proc = start("solve", P60K7, "--objective", "max-kills", "--all-optimal")
        code, out, err = interrupt_after_line(proc, sig, k)
        assert_interrupted(code, err, sig)
        rows = [json.loads(x) for x in out.decode().splitlines()]
        assert out.decode().endswith("\n") or out == b""
        assert len({json.dumps(r, sort_keys=True) for r in rows}) == len(rows)
        assert len(rows) >= k
        assert f": {len(rows)} optimal assignments written" in err  # the line counts what was written


@pytest.mark.slow
def test_whole_combat_count_and_solve(tmp_path):
    board = tmp_path / "double.json"
    board.write_text(json.dumps(DOUBLE))
    for (sig, cpu), command in zip(zip(SIGNALS, moments(2)), (["count"], ["solve", "--objective", "max-damage"])):
        proc = start(*command, board)
        code, out, err = interrupt_when(proc, sig, after_cpu(proc, cpu))  # it prints nothing while it works
        assert_interrupted(code, err, sig)
        assert out == b""  # no answer rather than a wrong one


PLAYER_TOKEN = "4321.5"  # a child started in its own session by the external player: must not survive
# it waits for a signal (it never ends by itself)
PLAYER_CHILD = f"{sys.executable} -c 'import signal; signal.pause()' {PLAYER_TOKEN}"


def player_started() -> bool:
    """The external player's child is running (not just named on the arena's command line)."""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    words = fh.read().split(b"\0")
                if words[-2:] == [PLAYER_TOKEN.encode(), b""] and any(b"signal.pause()" in w for w in words):
                    return True
            except OSError:
                continue
    return False


@pytest.mark.slow
def test_arena_writes_the_boards_finished(tmp_path):
    player = f'sh -c "setsid {PLAYER_CHILD} & exec cat"'  # echoes the request: an illegal answer, fast
    for sig in SIGNALS:
        out = tmp_path / f"r{sig}.json"
        args = ["arena", "--level", "large", "--n", "2000", "--players", "greedy", "--external", f"echo={player}"]
        proc = start(*args, "--out", out, "--timeout", "2")
        code, _, err = interrupt_when(proc, sig, player_started)  # the boards are being played
        assert_interrupted(code, err, sig)
        results = json.loads(out.read_text())
        assert results["complete"] is False and results["interrupted"] is True
        assert results["played"] == len(results["boards"]) < 2000
        assert [b["index"] for b in results["boards"]] == list(range(len(results["boards"])))
        assert f"{len(results['boards'])} of 2000 boards played" in err
        # the reaper's kill lands at once; the process table may lag behind it
        wait_until(lambda: leftover(PLAYER_TOKEN) == [], timeout=30)


@pytest.mark.slow
def test_score_writes_the_decisions_scored(tmp_path):
    sc = json.loads(P60K7.read_text())
    decisions = tmp_path / "d.jsonl"
    line = json.dumps({"scenario": sc, "assignment": {"t": {"opp": 60}}, "objective": "max-kills,max-value"})
    decisions.write_text((line + "\n") * 20000)
    for sig in (*SIGNALS, SIGNALS[0]):
        out = tmp_path / f"s{sig}.json"
        code, stdout, err = interrupt_after_line(start("score", decisions, "--out", out), sig)  # one scored
        assert_interrupted(code, err, sig)
        results = json.loads(out.read_text())
        assert results["complete"] is False and len(results["boards"]) < 20000
        assert f": {len(results['boards'])} decisions scored" in err
        assert stdout.decode().endswith("\n") or stdout == b""


# ---------------------------------------------------------------------------------------------
# kill -9: no file claims to be complete
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_kill_9_leaves_the_previous_files(tmp_path):
    out = tmp_path / "m.npy"
    side = tmp_path / "m.columns.json"
    old_matrix, old_columns = b"previous matrix", b'{"previous": true}\n'
    for size in RNG.sample(range(128, 1 << 20), 3):  # once the temporary matrix holds `size` bytes (seeded)
        out.write_bytes(old_matrix)
        side.write_bytes(old_columns)
        kill_9(start("enumerate", P60K7, "--format", "npy", "-o", out), grown(tmp_path, ".m.npy.*part*", size))
        assert out.read_bytes() == old_matrix and side.read_bytes() == old_columns
    jl = tmp_path / "e.jsonl"
    kill_9(start("enumerate", P60K7, "-o", jl), grown(tmp_path, ".e.jsonl.*part*", RNG.randrange(1 << 16)))
    assert not jl.exists()  # only a hidden temporary name, never the final one
    arena_out = tmp_path / "r.json"
    arena_out.write_text('{"previous": true}')
    proc = start("arena", "--level", "large", "--n", "2000", "--players", "greedy", "--out", arena_out)
    kill_9(proc, after_cpu(proc, moments(1)[0]))  # the arena writes --out only at the end
    assert json.loads(arena_out.read_text()) == {"previous": True}


@pytest.mark.slow
def test_concurrent_writers_leave_a_matching_matrix_and_columns(tmp_path):
    out = tmp_path / "m.npy"
    procs = [
        start("enumerate", P60K7, "--format", "npy", "-o", out, "--limit", str(limit)) for limit in (100000, 100001)
    ]
    for p in procs:
        p.communicate(timeout=120)
        assert p.returncode == 0
    matrix = np.load(out)
    meta = json.loads((tmp_path / "m.columns.json").read_text())
    assert meta["rows"] == len(matrix)


# ---------------------------------------------------------------------------------------------
# A signal during the heavy imports (issue 24, item 16)
# ---------------------------------------------------------------------------------------------

# The command line as `python -m trample` runs it, with an import hook (test code only): once trample.cli.main
# has installed its SIGTERM handler, the hook counts the modules imported; at the K-th it writes one line on file
# descriptor FD and waits for a signal there, in the middle of the import. The test sends the signal when it reads
# that line: a condition on what the command did, not a moment.
HOLD_IMPORTS = r"""
import os, signal, sys
from importlib.abc import MetaPathFinder

fd, k = int(sys.argv[1]), int(sys.argv[2])


class Hold(MetaPathFinder):
    seen = 0

    def find_spec(self, name, path=None, target=None):
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            return None  # before main(): Python's own start-up and trample.cli itself
        Hold.seen += 1
        if Hold.seen == k:
            os.write(fd, f"importing {name}\n".encode())
            signal.pause()  # the handler's KeyboardInterrupt comes out of here, inside the import
        return None


sys.meta_path.insert(0, Hold())
if k == 0:  # a counting run: how many imports follow the handlers, written when the command ends
    import atexit

    atexit.register(lambda: os.write(fd, f"total {Hold.seen}\n".encode()))
from trample.cli import main

sys.exit(main(sys.argv[3:]))
"""


def _held(k: int, out) -> tuple[subprocess.Popen, bytes]:
    """``trample enumerate P60K7 --limit 1 -o out`` in its own session under the import hook of HOLD_IMPORTS (``k``: the
    import it holds, 0 to hold none and count them), and the hook's first line: it blocks until the hook holds
    an import, or the command has exited."""
    r, w = os.pipe()
    proc = subprocess.Popen(
        # --limit 1: the same imports as the whole listing (206 M lines, 12.8 GB, over a minute when k = 0)
        [sys.executable, "-c", HOLD_IMPORTS, str(w), str(k), "enumerate", P60K7, "--limit", "1", "-o", out],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=(w,),
    )
    os.close(w)
    with os.fdopen(r, "rb") as hook:
        return proc, hook.readline()


def _imports_after_the_handlers(out) -> int:
    """How many modules the command imports after its signal handlers are installed (the CLI imports lazily:
    the count depends on the command, so it is measured, not assumed)."""
    proc, line = _held(0, out)
    proc.communicate(timeout=300)
    assert line.startswith(b"total "), line
    return int(line.split()[1])


@pytest.mark.slow
def test_a_signal_during_the_heavy_imports_exits_cleanly(tmp_path):
    out = tmp_path / "e.jsonl"
    # the k-th of the modules imported after the handlers are installed (seeded); both signals
    total = _imports_after_the_handlers(tmp_path / "count.jsonl")
    for sig, k in zip(cycle(SIGNALS), sorted(RNG.sample(range(1, total + 1), min(6, total)))):
        out.write_text('{"previous": true}\n')
        proc, line = _held(k, out)
        assert line.startswith(b"importing "), (k, line)
        proc.send_signal(sig)
        stdout, err = proc.communicate(timeout=120)
        assert session(proc.pid) == []
        assert_interrupted(proc.returncode, err.decode(), sig)  # 130, one line, no traceback
        assert stdout == b""
        assert out.read_text() == '{"previous": true}\n'  # the previous file, untouched
        assert not list(tmp_path.glob(".*.part*"))  # and no temporary file
