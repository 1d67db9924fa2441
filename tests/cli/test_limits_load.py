"""Time limits where the main thread cannot look at the clock (issue 21): an import that a limit must not cut short
(importing OR-Tools: over a second of wall time on a loaded machine), or a call into native code.

- ``trample.limits.import_within``: the import runs in a thread and the caller waits for it with what is left of
  its limit; ``solve(time_limit=...)`` answers ``unknown`` when the limit runs out first.
- The command line's watchdog (``trample.limits.watchdog``): a command whose limit passed while its main thread is
  stuck (here: an import that never ends) stops with the answer it documents at its limit and its exit code.

No sleeps and no timing assertions: imports are held by events the test sets, clocks are fake
(``trample.limits.monotonic``), and the real processes have generous timeouts that only guard against a hang.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from trample import Combat, limits
from trample.limits import Deadline, LimitReached, import_within
from trample.optimize import search

ROOT = Path(__file__).resolve().parents[2]
OPP = [{"id": "opp", "life": 20}]

# 702.19b: three tramplers sharing three blockers -- more than SOLVE_DIRECT_ROWS legal assignments, so solve
# needs CP-SAT (and so OR-Tools)
SHARED = {
    "players": OPP,
    "attackers": [
        {
            "id": f"a{i}",
            "power": 9,
            "toughness": 5,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": ["b0", "b1", "b2"],
        }
        for i in range(3)
    ],
    "blockers": [{"id": f"b{j}", "power": 1, "toughness": 4} for j in range(3)],
}


@pytest.fixture
def held_module(tmp_path, monkeypatch):
    """A module whose import waits until the test lets it finish (``gate.set()``): (its name, the gate)."""
    gate = threading.Event()
    name = f"held_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{name}.py").write_text("import builtins\nbuiltins.__dict__['_trample_gate'].wait(60)\nDONE = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import builtins

    monkeypatch.setitem(builtins.__dict__, "_trample_gate", gate)
    yield name, gate
    gate.set()
    thread = limits._IMPORTS.get(name)
    if thread is not None:
        thread.join(60)
    limits._IMPORTS.pop(name, None)
    sys.modules.pop(name, None)


def _ticking(monkeypatch, step: float) -> list[float]:
    clock = [0.0]

    def tick() -> float:
        clock[0] += step
        return clock[0]

    monkeypatch.setattr(limits, "monotonic", tick)
    return clock


def test_import_within_gives_up_at_the_limit_and_the_import_goes_on(held_module, monkeypatch):
    name, gate = held_module
    clock = _ticking(monkeypatch, 0.01)
    assert import_within(name, Deadline(0.5)) is False  # the limit ran out while the import was held
    assert clock[0] >= 0.5
    assert limits.imports_running()
    gate.set()  # the import finishes in its thread: waited for without a limit, it is there
    assert import_within(name, None) is True
    assert sys.modules[name].DONE is True
    assert not limits.imports_running()


def test_import_within_raises_the_import_error(tmp_path, monkeypatch):
    (tmp_path / "broken_for_trample.py").write_text("raise ImportError('no such thing')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="no such thing"):
        import_within("broken_for_trample", Deadline(60))
    limits._IMPORTS.pop("broken_for_trample", None)
    limits._IMPORT_ERRORS.pop("broken_for_trample", None)


def test_solve_time_limit_counts_the_solver_import(held_module, monkeypatch):
    """solve(time_limit=) on a board that needs CP-SAT, while OR-Tools' import is held: status unknown, no
    assignment (what solve answers when its limit runs out before anything is found: docs/solve.md)."""
    name, _gate = held_module
    monkeypatch.setattr(search, "CPSAT", name)  # the held module stands for OR-Tools' import
    _ticking(monkeypatch, 0.05)
    result = search.solve(Combat(SHARED), "max-damage", time_limit=10)
    assert result.status == "unknown" and result.assignment is None


def test_engine_import_counts_in_the_limit(held_module, monkeypatch):
    """An engine's module imported within a limit (trample.engines.get_engine(deadline=): CP-SAT counting and
    listing through the Python API): LimitReached while the import is held, the import going on in its thread;
    once it is there, the engine is the same object with or without a deadline."""
    from trample import engines

    name, gate = held_module
    held = type("Held", (), {"name": "held", "capabilities": frozenset()})
    monkeypatch.setitem(engines.ENGINES, "held", (name, "Held"))
    monkeypatch.setattr(engines, "_cache", {})
    clock = _ticking(monkeypatch, 0.01)
    with pytest.raises(LimitReached, match="time limit of 0.5 s"):
        engines.get_engine("held", deadline=Deadline(0.5))
    assert clock[0] >= 0.5 and limits.imports_running()  # the import was not cut short
    gate.set()
    assert import_within(name, None)
    sys.modules[name].Held = held
    assert engines.get_engine("held", deadline=Deadline(0.5)) is engines.get_engine("held")


def test_cpsat_count_and_listing_wait_for_the_solver_import(held_module, monkeypatch):
    """Combat(..., engine="cpsat").count / assignments with time_limit while OR-Tools' import (the engine's module,
    held) has not finished: LimitReached from the count, the stream ends with it, nothing listed."""
    from trample import engines

    name, _gate = held_module
    monkeypatch.setitem(engines.ENGINES, "cpsat", (name, "CpSatEngine"))
    monkeypatch.setattr(engines, "_cache", {})
    _ticking(monkeypatch, 0.05)
    with pytest.raises(LimitReached):
        Combat(SHARED, engine="cpsat").count(time_limit=10)
    listed = []
    with pytest.raises(LimitReached):
        for a in Combat(SHARED, engine="cpsat").assignments(time_limit=10):
            listed.append(a)
    assert listed == []


def _command_held_in_an_import(
    tmp_path: Path, *words: str, module: str = "trample.engines.direct"
) -> subprocess.CompletedProcess:
    """``trample WORDS`` in a process whose import of ``module`` (by default the counting engine) never ends."""
    script = textwrap.dedent(
        """
        import sys, threading

        HELD = sys.argv[1]  # (read now: sys.argv becomes the command's below)

        class Held:  # the module's import waits for ever: only the time limit's watchdog can end the command
            def find_spec(self, name, path=None, target=None):
                if name == HELD:
                    threading.Event().wait()
                return None

        sys.meta_path.insert(0, Held())
        from trample.cli import main
        sys.argv = ["trample", *sys.argv[2:]]
        sys.exit(main())
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script, module, *words],
        capture_output=True,
        text=True,
        timeout=120,  # only a hang: the watchdog ends it at its limit
        cwd=tmp_path,
    )


def test_watchdog_stops_count_held_in_an_import_with_its_answer(tmp_path):
    board = tmp_path / "board.json"
    board.write_text(json.dumps(SHARED))
    proc = _command_held_in_an_import(tmp_path, "count", str(board), "--time-limit", "0.3")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout) == {"count": None, "complete": False, "time_limit": 0.3}
    assert proc.stderr.count("\n") == 1 and "time limit" in proc.stderr and "Traceback" not in proc.stderr


def test_watchdog_stops_solve_held_in_an_import_with_status_unknown(tmp_path):
    board = tmp_path / "board.json"
    board.write_text(json.dumps(SHARED))
    proc = _command_held_in_an_import(tmp_path, "solve", str(board), "--objective", "max-damage", "--time-limit", "0.3")
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "unknown" and out["assignment"] is None


def test_watchdog_leaves_no_output_file_looking_complete(tmp_path):
    board = tmp_path / "board.json"
    board.write_text(json.dumps(SHARED))
    out = tmp_path / "rows.jsonl"
    proc = _command_held_in_an_import(tmp_path, "enumerate", str(board), "-o", str(out), "--time-limit", "0.3")
    assert proc.returncode == 0 and "incomplete" in proc.stderr, proc.stderr  # enumerate's answer at its limit
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left behind


@pytest.mark.parametrize("command", ["arena", "score"])
def test_watchdog_stops_arena_and_score_still_starting_with_one_line_and_no_file(tmp_path, command):
    """arena and score write the boards finished at their limit (``--out``, ``--report``), even of no board when the
    limit had run out before they began; but a limit that runs out while the command's own modules are still being
    imported (a busy machine, a short limit) stops it before it can write anything: one line that says so (not the
    generic one), exit 1, and no file that looks like a result. Their ``.jsonl`` inputs (a suite, decisions) are not
    a batch of documents each with its own limit: the limit is the whole command's, watched from the start."""
    out = tmp_path / "results.json"
    words = ["arena", "--n", "5"] if command == "arena" else ["score", str(tmp_path / "decisions.jsonl")]
    if command == "score":
        (tmp_path / "decisions.jsonl").write_text("")
    proc = _command_held_in_an_import(
        tmp_path, *words, "--out", str(out), "--time-limit", "0.3", module="trample.cli.commands.arena"
    )
    assert proc.returncode == 1, proc.stderr
    done = "0 boards played" if command == "arena" else "0 decisions scored"
    assert proc.stderr.count("\n") == 1 and "while the command was starting" in proc.stderr, proc.stderr
    assert done in proc.stderr and "nothing written" in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == ([] if command == "arena" else [tmp_path / "decisions.jsonl"])


def test_without_a_limit_nothing_is_watched(tmp_path):
    """No --time-limit: the watchdog never ends a command (here one that finishes: the import is not held)."""
    board = tmp_path / "board.json"
    board.write_text(json.dumps(SHARED))
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "count", str(board)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["count"] > 0


@pytest.mark.parametrize("limit", [[], ["--time-limit", "60"]])
def test_a_limited_command_leaves_without_the_interpreters_clean_up(tmp_path, limit):
    """A command given --time-limit ends as soon as its output is flushed, even well within its limit: the
    interpreter's clean-up (here an exit handler that stands for it) is not waited for, since under load it took
    up to 0.15 s of wall time after a run that had stopped short of its limit to write its results (the arena's).
    Without a limit the process ends as Python ends it. The answer is the same either way."""
    board = tmp_path / "board.json"
    board.write_text(json.dumps(SHARED))
    script = textwrap.dedent(
        """
        import atexit, sys
        from trample.cli import main
        atexit.register(lambda: print("clean-up ran", file=sys.stderr))
        sys.argv = ["trample", *sys.argv[1:]]
        sys.exit(main())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, "count", str(board), *limit], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["count"] > 0, proc.stderr
    assert ("clean-up ran" in proc.stderr) == (not limit)


def test_watchdog_leaves_a_limit_the_main_thread_noticed_meanwhile(monkeypatch):
    """The main thread may notice its limit (LimitReached) between the watchdog's first look and its lock: the
    watchdog looks again under the lock and leaves the answer to the main thread (else both answered: the
    command's line on standard error came twice)."""
    looks = []
    abandoned = []
    seen = threading.Event()

    class Noticed:  # unset at the watchdog's first look, set at its second (the main thread noticed in between)
        def is_set(self) -> bool:
            looks.append(1)
            if len(looks) >= 2:
                seen.set()
            return len(looks) >= 2

    monkeypatch.setattr(limits, "_NOTICED", Noticed())
    monkeypatch.setattr(limits, "_expired_limit", lambda: Deadline(0.0))
    monkeypatch.setattr(limits, "_abandon", abandoned.append)
    monkeypatch.setattr(limits, "_WATCHED", [True])
    with limits.watchdog(every=0.001):
        assert seen.wait(60)  # the watchdog has looked twice
    assert abandoned == []


def test_notice_waits_while_the_watchdog_ends_the_command(monkeypatch):
    """notice() takes the watchdog's lock: while the watchdog answers (it holds the lock until the process ends),
    the main thread cannot go on to give its own answer."""
    monkeypatch.setattr(limits, "_NOTICED", threading.Event())
    released = threading.Event()
    held = threading.Event()

    def watchdog_answering() -> None:
        with limits._ENDING:
            held.set()
            released.wait(60)

    t = threading.Thread(target=watchdog_answering)
    t.start()
    assert held.wait(60)
    noticing = threading.Thread(target=limits.notice)
    noticing.start()
    noticing.join(0.2)  # bounded look: it stays blocked for as long as the lock is held
    assert noticing.is_alive() and not limits._NOTICED.is_set()
    released.set()
    noticing.join(60)
    t.join(60)
    assert limits._NOTICED.is_set()


LAZY_CALLS = """
import json, sys
import trample
from trample import limits
from trample.models import load_scenario

board = {board!r}
whole = {whole!r}
calls = {{
    "Combat.solve": ("trample.optimize", lambda c: c.solve("max-damage", time_limit=600)),
    "Combat.rank": ("trample.indexing", lambda c: c.rank(c.unrank(0, time_limit=600), time_limit=600)),
    "Combat.unrank": ("trample.indexing", lambda c: c.unrank(0, time_limit=600)),
    "Combat.sample": ("trample.indexing", lambda c: c.sample(2, 1, time_limit=600)),
    "WholeCombat.solve": ("trample.whole.search", lambda c: c.solve("max-damage", time_limit=600)),
}}
name = sys.argv[1]
module, call = calls[name]
made = trample.open_combat(load_scenario(whole if name.startswith("Whole") else board))
before = module in sys.modules
seen = []
real = limits.Deadline.__init__
def init(self, seconds=None, start=None):
    seen.append(module in sys.modules)
    real(self, seconds, start)
limits.Deadline.__init__ = init
call(made)
print(json.dumps({{"imported before": before, "imported at the first deadline": seen[0]}}))
"""


@pytest.mark.parametrize("name", ["Combat.solve", "Combat.rank", "Combat.unrank", "Combat.sample", "WholeCombat.solve"])
def test_an_api_limit_counts_the_lazy_imports_of_the_call(name):
    # the limit counts from the call: a method that imports its engines lazily makes its deadline first (a whole
    # combat's first solve imported trample.whole.search for 70-95 ms, then started its clock, and ended that much
    # past the limit); in a fresh process, so the module is not imported yet
    whole = {
        "step": "combat",
        "players": OPP,
        "attackers": [
            {"id": "a", "power": 3, "toughness": 3, "keywords": ["first_strike", "trample"], "attacking": "opp"}
            | {"blocked_by": ["b"]}
        ],
        "blockers": [{"id": "b", "power": 1, "toughness": 2}],
    }
    code = LAZY_CALLS.format(board=SHARED, whole=whole)
    done = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == {"imported before": False, "imported at the first deadline": False}
