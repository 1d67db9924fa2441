"""Faults found by fuzzing: one regression test per finding, each giving exit 0/1/2 with one line (or
a documented bound), never a traceback, an abort or a silent loss; and a bounded hypothesis fuzz test over the
formats and options, so that the next ones are found here first.

Finding numbers refer to a fuzzing campaign's list; #8 (Ctrl-C during CP-SAT) and #14 (kill -9,
concurrent writers) are in tests/cli/test_interrupts.py.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from boards import ENDLESS_COMBAT
from hypothesis import given, settings
from hypothesis import strategies as st
from waiting import wait_until

from trample import limits
from trample.arena import ExternalPlayer, generate, run_arena
from trample.arena.external import STDERR_TAIL
from trample.cli import main
from trample.cli.batch import stream_batch
from trample.engines.npy import npy_header, npy_header_size
from trample.limits import CommandLimit, deadline_of, start_clock
from trample.models import FormatError, load_scenario

ROOT = Path(__file__).resolve().parents[2]
OPP = [{"id": "opp", "life": 20}]


def run_main(capsys, monkeypatch, args, stdin: str = ""):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_attacker(power: int, blockers: int, toughness: int = 1, blocker_power: int = 0) -> dict:
    return {
        "players": OPP,
        "attackers": [
            {
                "id": "t",
                "power": power,
                "toughness": 1,
                "attacking": "opp",
                "blocked_by": [f"b{i}" for i in range(blockers)],
            }
        ],
        "blockers": [{"id": f"b{i}", "power": blocker_power, "toughness": toughness} for i in range(blockers)],
    }


def test_1_counts_past_4300_digits_are_printed(capsys, monkeypatch):
    # 510.1c: 10^6 damage over 1296 blockers (no trample): C(10^6 + 1295, 1295) splits, 4300+ digits
    sc = one_attacker(1_000_000, 1296)
    code, out, err = run_main(capsys, monkeypatch, ["count", "-"], json.dumps(sc))
    assert code == 0 and err == ""
    digits = out.split(":")[1].rstrip("}\n")
    assert len(digits) > 4300 and digits.isdigit()
    # in a batch, the lines after it are answered too (one scenario of 2 blockers: 1000001 splits)
    batch = ROOT / "tests" / "_tmp_big_batch.jsonl"
    try:
        batch.write_text(json.dumps(sc) + "\n" + json.dumps(one_attacker(1_000_000, 2)) + "\n")
        code, out, err = run_main(capsys, monkeypatch, ["count", batch])
    finally:
        batch.unlink()
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2 and json.loads(lines[1]) == {"count": 1_000_001}


def test_2_npy_header_grows_with_the_count(tmp_path, capsys, monkeypatch):
    # 22 attackers of power 1000, each blocked by its own two 0/1s: 1001^22 rows, a 67-digit count (the fuzzed
    # board was one 10^6-power attacker on 12 blockers: "npy header too long" with a fixed 128-byte header)
    sc = {
        "players": OPP,
        "attackers": [
            {"id": f"t{i}", "power": 1000, "toughness": 1, "attacking": "opp", "blocked_by": [f"b{i}x", f"b{i}y"]}
            for i in range(22)
        ],
        "blockers": [{"id": f"b{i}{k}", "power": 0, "toughness": 1} for i in range(22) for k in "xy"],
    }
    out = tmp_path / "x.npy"
    code, _, err = run_main(
        capsys, monkeypatch, ["enumerate", "-", "--format", "npy", "-o", out, "--limit", 5], json.dumps(sc)
    )
    assert code == 0, err
    assert np.load(out).shape == (5, 44)
    # the header is sized for the row count: a count of 5000 digits (past 4300 digits, a v1.0 header overflowed)
    # and of 70000 (past 64 KiB: version 2.0) fit; the count written at the end is the rows written
    for rows in (10**5000, 10**70000):
        size = npy_header_size("int32", (rows, 3))
        assert len(npy_header("int32", (rows, 3), size)) == size and size % 64 == 0
        fh = io.BytesIO(npy_header("int32", (12, 3), size))  # rewritten in place with the rows written
        version = np.lib.format.read_magic(fh)
        assert version == ((1, 0) if size < 65536 else (2, 0))
        reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, _ = reader(fh, max_header_size=10**6)
        assert shape == (12, 3)


def test_3_a_thousand_components_do_not_recurse(capsys, monkeypatch):
    sc = {
        "players": OPP,
        "attackers": [{"id": f"a{i}", "power": 1, "toughness": 1, "attacking": "opp"} for i in range(986)],
    }
    for engine in ("direct", "cpsat", "auto"):
        code, out, err = run_main(
            capsys, monkeypatch, ["enumerate", "-", "--limit", 1, "--engine", engine], json.dumps(sc)
        )
        assert code == 0 and err == "" and len(json.loads(out)) == 986


def test_4_library_numbers_are_bounded(capsys, monkeypatch):
    lib = {"cards": [{"name": "x", "mana_value": 2 * 10**308}, {"name": "y", "mana_value": 1}]}
    for args in (
        ["mill", "-", 1, "--distribution"],
        ["seek-thrills", "-", "--distribution"],
        ["discover", "-", 3, "--distribution"],
    ):
        code, out, err = run_main(capsys, monkeypatch, args, json.dumps(lib))
        assert code == 2 and out == "" and err.count("\n") == 1 and "cards[0].mana_value: must be at most" in err


def test_5_deep_nesting_in_a_card_is_refused(capsys, monkeypatch):
    deep: object = 1
    for _ in range(200):
        deep = [deep]
    lib = {"cards": [{"name": "x", "mana_value": 1, "notes": deep}]}
    code, out, err = run_main(capsys, monkeypatch, ["mill", "-", 1], json.dumps(lib))
    assert code == 2 and err.count("\n") == 1 and "cards[0].notes: nested more than" in err


def test_6_player_names_are_data_not_markup(tmp_path, capsys, monkeypatch):
    sc = json.loads((ROOT / "examples" / "thrasta.json").read_text())
    decisions = tmp_path / "d.jsonl"
    lines = [
        {"scenario": sc, "assignment": {"thrasta": {"opp": 10}, "cub": {"opp": 2}}, "player": name}
        for name in ("[/]", "[red]x[/red]")
    ]
    decisions.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, err = run_main(capsys, monkeypatch, ["score", decisions, "--format", "table"])
    assert code == 0 and err == "" and "[/]" in out and "[red]x[/red]" in out
    code, out, err = run_main(capsys, monkeypatch, ["arena", "--players", "[/]=greedy", "--n", 2, "--format", "table"])
    assert code == 0 and "[/]" in out


CRASH_ONCE = """
import os
from trample.arena.players import GreedyValuePlayer

class CrashOnce(GreedyValuePlayer):
    def decide(self, scenario, objective, seed):
        flag = os.environ["TRAMPLE_CRASH_FLAG"]
        if not os.path.exists(flag):
            open(flag, "w").close()
            os._exit(9)  # the worker process dies, as if killed
        return super().decide(scenario, objective, seed)
"""


@pytest.mark.slow
def test_7_a_dead_pool_worker_has_its_boards_retried(tmp_path, monkeypatch):
    (tmp_path / "crash_once_player.py").write_text(CRASH_ONCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv("TRAMPLE_CRASH_FLAG", str(tmp_path / "crashed"))
    items = generate("basic", 8, seed=1)
    results = run_arena(items, ["greedy", "c=py:crash_once_player:CrashOnce"], workers=2, chunk_size=2)
    assert results["complete"] is True and results["played"] == 8 and results["retried"] > 0
    assert [b["index"] for b in results["boards"]] == list(range(8))


@pytest.mark.slow
def test_7_a_dead_dask_worker_has_its_boards_retried(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    (tmp_path / "crash_once_player.py").write_text(CRASH_ONCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv("TRAMPLE_CRASH_FLAG", str(tmp_path / "crashed"))
    items = generate("basic", 8, seed=1)
    results = run_arena(items, ["greedy", "c=py:crash_once_player:CrashOnce"], workers=2, chunk_size=2, backend="dask")
    assert results["complete"] is True and results["played"] == 8 and results["retried"] >= 2
    assert [b["index"] for b in results["boards"]] == list(range(8))


def test_7_an_unwritable_out_is_found_before_any_board(capsys, monkeypatch):
    code, out, err = run_main(capsys, monkeypatch, ["arena", "--n", 2, "--players", "greedy", "--out", "/proc/r.json"])
    assert code == 2 and err.count("\n") == 1 and "--out: cannot write /proc/r.json" in err


def test_9_duplicate_blockers_are_found_in_a_long_list():
    sc = one_attacker(5, 20000)
    sc["attackers"][0]["blocked_by"].append("b7")
    with pytest.raises(FormatError, match=r"blocked_by\[20000\]: \"b7\" is listed twice"):
        load_scenario(sc)


def test_9_the_time_limit_counts_from_the_start_of_the_command(monkeypatch):
    clock = [1000.0]  # a fake clock: the test says when time passes instead of waiting for it
    monkeypatch.setattr(limits, "monotonic", lambda: clock[0])
    monkeypatch.setattr(limits, "_STARTED", [None])
    start_clock()  # trample.cli.main's first instruction
    clock[0] += 0.03  # the heavy imports and the parser
    limit = CommandLimit(0.05)  # --time-limit 0.05, parsed
    assert not deadline_of(limit).expired()
    clock[0] += 0.03  # reading and loading the input: 0.06 s since the start, 0.03 s since the parse
    assert deadline_of(limit).expired()
    with pytest.raises(limits.LimitReached, match="time limit of 0.05 s"):
        deadline_of(limit).check()
    CommandLimit.restart_all()  # the next document of a batch: its own 0.05 s from now
    assert not deadline_of(limit).expired() and deadline_of(limit).remaining() == pytest.approx(0.05)
    clock[0] += 0.05
    assert deadline_of(limit).expired()


def test_10_batch_lines_are_streamed_and_closed_on_interrupt(tmp_path, capsys):
    batch = tmp_path / "b.jsonl"
    batch.write_text('{"n": 5}\n{"n": 2}\n')
    seen = []

    def items(doc):
        for k in range(doc["n"]):
            seen.append(k)
            if len(seen) == 7:
                raise KeyboardInterrupt
            yield {"k": k}

    with pytest.raises(KeyboardInterrupt):
        stream_batch(str(batch), items)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines == [{"assignments": [{"k": k} for k in range(5)]}, {"assignments": [{"k": 0}], "complete": False}]


LOUD = r"""
import json, sys
for line in sys.stdin:
    sys.stderr.write("x" * (1 << 20) + "\n")  # a megabyte of standard error per decision
    sys.stderr.flush()
    req = json.loads(line)
    print(json.dumps({a["id"]: {a["attacking"]: max(a["power"], 0)} for a in req["scenario"]["attackers"]}), flush=True)
"""


def test_11_a_players_stderr_keeps_a_bounded_tail(tmp_path):
    script = tmp_path / "loud.py"
    script.write_text(LOUD)
    player = ExternalPlayer([sys.executable, str(script)], timeout=20)
    try:
        for i, item in enumerate(generate("basic", 5, seed=3)):
            player.decide(load_scenario(item["scenario"]), "max-damage", i)
            tail = player.stderr_tail
            assert 0 < len(tail) <= STDERR_TAIL and set(tail) <= set(b"x\n")
    finally:
        player.close()


def _alive(token: str) -> bool:
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if token.encode() in fh.read():
                        return True
            except OSError:
                pass
    return False


def test_12_children_in_their_own_session_are_killed(tmp_path):
    token = "7654.25"  # a child in its own session that waits for a signal (it never ends by itself)
    child = f"setsid {sys.executable} -c 'import signal; signal.pause()' {token} & exec cat"
    player = ExternalPlayer(["sh", "-c", child], timeout=2, max_failures=0)
    item = generate("basic", 1, seed=0)[0]
    try:
        player.decide(load_scenario(item["scenario"]), "max-damage", 0)  # cat echoes the request back
        wait_until(lambda: _alive(token))  # the backgrounded child may start after cat has answered
    finally:
        player.close()
    wait_until(lambda: not _alive(token))


def test_benched_after_failures_in_a_row(tmp_path):
    # reads every request, never answers (blocked on its standard input until it is killed)
    reads = "while read -r line; do :; done"  # its output stays open
    player = ExternalPlayer(["sh", "-c", reads], timeout=0.3, startup_timeout=0.1, max_failures=2)
    items = generate("basic", 4, seed=2)
    results = run_arena(items, [player, "greedy"], timeout=0.3)
    row = next(r for r in results["leaderboard"] if r["player"] == player.name)
    rules = [d["rules"] for b in results["boards"] for d in b["decisions"] if d["player"] == player.name]
    assert rules == [["timeout"], ["timeout"], ["benched"], ["benched"]]
    assert row["benched"]["decisions"] == 2 and "2 failed decisions in a row" in row["benched"]["reason"]
    assert player.starts == 2 and not player.running  # never started again once benched


def test_13_library_commands_take_a_time_limit(tmp_path, capsys, monkeypatch):
    board = {
        "players": OPP,
        "attackers": [
            {
                "id": f"g{i}",
                "power": 1000,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"w{j}" for j in range(5)],
            }
            for i in range(3)
        ],
        "blockers": [{"id": f"w{j}", "power": 1, "toughness": 3} for j in range(5)],
    }
    b = tmp_path / "b.json"
    b.write_text(json.dumps(board))
    lib = tmp_path / "l.json"
    lib.write_text(json.dumps({"cards": [{"name": f"c{i}", "mana_value": 1000 + 37 * i} for i in range(40)]}))
    code, out, err = run_main(capsys, monkeypatch, ["gnome", b, lib, "--gnome", "g0", "--time-limit", "0.5"])
    assert code == 1 and out == "" and err.count("\n") == 1 and "time limit of 0.5 s" in err


def test_scheduler_implies_dask_and_relative_paths_are_made_absolute(tmp_path, monkeypatch):
    from trample.arena.runner import absolute_commands

    (tmp_path / "p.py").write_text("")
    monkeypatch.chdir(tmp_path)
    specs = absolute_commands(["greedy", "cmd:python3 p.py --x", "me=cmd:python3 p.py"])
    assert specs[0] == "greedy"
    assert specs[1] == f"cmd:python3 p.py --x=cmd:python3 {tmp_path / 'p.py'} --x"
    assert specs[2] == f"me=cmd:python3 {tmp_path / 'p.py'}"


# ---------------------------------------------------------------------------------------------
# The fuzz test: documents and options drawn at random; any outcome but a clean 0/1/2 with at most one line on
# standard error (and no traceback) is a finding. Bounded: small boards, --limit and --time-limit.
# ---------------------------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.integers(-3, 12),
    st.sampled_from([10**6, 10**6 + 1, 10**30, 2**63]),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
)


@st.composite
def documents(draw):
    n_att = draw(st.integers(0, 3))
    n_blk = draw(st.integers(0, 3))
    blockers = [
        {"id": f"b{j}", "power": draw(st.integers(0, 4)), "toughness": draw(st.integers(1, 4))} for j in range(n_blk)
    ]
    attackers = []
    for i in range(n_att):
        a = {
            "id": f"a{i}",
            "power": draw(st.integers(0, 8)),
            "toughness": draw(st.integers(1, 5)),
            "attacking": "opp",
            "keywords": draw(
                st.lists(
                    st.sampled_from(["trample", "deathtouch", "first_strike", "double_strike", "x"]),
                    max_size=2,
                    unique=True,
                )
            ),
        }
        if blockers:
            a["blocked_by"] = draw(st.lists(st.sampled_from([b["id"] for b in blockers]), max_size=3, unique=True))
        attackers.append(a)
    doc: dict = {
        "players": [{"id": "opp", "life": draw(st.integers(-2, 30))}],
        "attackers": attackers,
        "blockers": blockers,
    }
    if draw(st.booleans()):
        doc["step"] = draw(st.sampled_from(["regular", "first_strike", "combat", "nope"]))
    # a mutation: a field set to a strange value, removed, or an unknown field
    if attackers and draw(st.booleans()):
        field = draw(st.sampled_from(["power", "toughness", "attacking", "blocked_by", "keywords", "zz"]))
        if draw(st.booleans()):
            attackers[0].pop(field, None)
        else:
            attackers[0][field] = draw(NUMBERS)
    return doc


COMMANDS = st.sampled_from(
    [
        ["count", "-"],
        ["enumerate", "-", "--limit", "5"],
        ["enumerate", "-", "--limit", "5", "--engine", "cpsat"],
        ["sample", "-", "--n", "3"],
        ["solve", "-", "--objective", "max-damage,max-value"],
        ["solve", "-", "--objective", "max-kills", "--all-optimal", "--limit", "3"],
        ["check", "-", '{"a0": {"opp": 1}}'],
        ["rank", "-", '{"a0": {"opp": 1}}'],
        ["unrank", "-", "0"],
        ["count", "-", "--side", "both"],
    ]
)


@settings(max_examples=40, deadline=None)
@given(doc=documents(), command=COMMANDS, limit=st.sampled_from([None, "2"]), text=st.booleans())
def test_fuzz_the_command_line(doc, command, limit, text):
    args = list(command)
    if limit:
        args += ["--time-limit", limit] if command[0] not in ("check",) else []
    stdin = json.dumps(doc) if text else json.dumps(doc)[:-1]  # sometimes cut short: malformed JSON
    _holds_the_contract(args, stdin)


def _holds_the_contract(args: list[str], stdin: str) -> None:
    """Run the command in this process on ``stdin``: exit 0, 1 or 2, at most one error line and no traceback,
    whole JSON lines on standard output."""
    stdout, stderr = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    sys.stdout, sys.stderr = stdout, stderr
    try:
        code = main(args)
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    err = stderr.getvalue()
    assert code in (0, 1, 2), (args, stdin, err)
    assert "Traceback" not in err and err.count("\n") <= 1, (args, stdin, err)
    for line in stdout.getvalue().splitlines():
        json.loads(line)  # whole JSON lines only


@st.composite
def libraries(draw):
    cards = []
    for i in range(draw(st.integers(0, 6))):
        card = {"name": f"c{i}", "mana_value": draw(st.one_of(st.integers(0, 9), NUMBERS))}
        if draw(st.booleans()):
            card["types"] = draw(st.lists(st.sampled_from(["Creature", "Instant", "Land", "Elf", 3]), max_size=2))
        if draw(st.booleans()):
            card["adventure"] = {"name": f"a{i}", "mana_value": draw(st.integers(0, 5))}
        if draw(st.booleans()):
            card["note"] = draw(
                st.recursive(st.none() | st.integers(), lambda c: st.lists(c, max_size=2), max_leaves=5)
            )
        cards.append(card)
    return {"cards": cards} if draw(st.booleans()) else {"library": cards, "graveyard": []}


LIBRARY_COMMANDS = st.sampled_from(
    [
        ["mill", "-", "2"],
        ["mill", "-", "3", "--distribution"],
        ["discover", "-", "4", "--seed", "1"],
        ["discover", "-", "4", "--distribution"],
        ["seek-thrills", "-", "--distribution"],
    ]
)


@settings(max_examples=30, deadline=None)
@given(doc=libraries(), command=LIBRARY_COMMANDS, limit=st.sampled_from([None, "2"]))
def test_fuzz_the_library_commands(doc, command, limit):
    args = list(command) + (["--time-limit", limit] if limit else [])
    _holds_the_contract(args, json.dumps(doc))


@pytest.mark.slow
def test_measured_3_a_player_that_never_reads_cannot_block_the_arena():
    # a player that floods its output and never reads its input; the arena's writes time
    # out instead of blocking, and the run completes with a decision for every board
    flood = ExternalPlayer(["sh", "-c", "while true; do echo '{}'; done"], timeout=1, startup_timeout=0.5)
    items = generate("large", 40, seed=0)
    results = run_arena(items, [flood, "greedy"], timeout=1)
    assert results["complete"] is True and results["played"] == 40
    rules = [d["rules"] for b in results["boards"] for d in b["decisions"] if d["player"] == flood.name]
    assert len(rules) == 40 and all(r for r in rules)  # every decision illegal ('{}' or a timeout), none missing
    assert not flood.running


# ---------------------------------------------------------------------------------------------
# Dask (issue 24 #17, issue 22): every worker gone stops the command; distributed says nothing on standard error
# ---------------------------------------------------------------------------------------------

ENDLESS = ENDLESS_COMBAT  # tests/boards.py: a whole combat of more than 10^20 lines


def _trample(*args, **kw):
    import subprocess

    return subprocess.Popen(
        [sys.executable, "-m", "trample", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        **kw,
    )


@pytest.mark.slow
def test_17_every_dask_worker_gone_stops_with_one_line_per_answer_missing(tmp_path):
    import subprocess

    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps(ENDLESS) + "\n" + json.dumps({"players": OPP, "attackers": []}) + "\n")
    # a scheduler here, two workers without nannies as separate processes (nothing restarts them), as on a cluster
    with (
        LocalCluster(
            n_workers=0,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # not port 8787: another test's cluster may hold it
        ) as cluster,
        Client(cluster) as client,
    ):
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address, "--no-nanny"]
                + ["--nthreads", "1"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(2)
        ]
        try:
            client.wait_for_workers(2, timeout=300)
            proc = _trample("count", batch, "--scheduler", cluster.scheduler_address)
            # the tasks are running (the scheduler says so), then every worker is killed
            assert wait_until(lambda: any(client.processing().values()), proc=proc)
            for w in workers:
                w.kill()
            out, err = proc.communicate(timeout=300)  # bounded: no worker for 10 s gives up
        finally:
            if "proc" in locals() and proc.poll() is None:  # a failed wait: the endless count goes with the test
                proc.kill()
                proc.wait()
            for w in workers:
                w.kill()
                w.wait()
    lines = [json.loads(x) for x in out.decode().splitlines()]
    assert proc.returncode == 1, err  # the answer is incomplete (docs/format.md)
    assert len(lines) == 2  # one result line per input line; the two lines were one task (a chunk of 50)
    for k, line in enumerate(lines, 1):  # not counted, and they say so
        assert line["complete"] is False and line["error"].startswith(f"line {k}: not counted: --backend dask")
    text = err.decode()
    assert "Traceback" not in text and all(x.startswith("trample: line ") for x in text.splitlines()), text
    assert "every worker is gone" in text


@pytest.mark.slow
def test_17_dask_worker_logs_stay_off_standard_error_and_ctrl_c_gives_one_line(tmp_path):
    import signal

    pytest.importorskip("distributed")
    small = tmp_path / "s.jsonl"
    small.write_text(json.dumps(one_attacker(3, 2)) + "\n" + json.dumps(one_attacker(2, 1)) + "\n")
    proc = _trample("count", small, "--backend", "dask", "--workers", 2)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and err == b""  # a normal run: nothing but the answers
    assert [json.loads(x) for x in out.decode().splitlines()] == [{"count": 4}, {"count": 1}]  # 510.1c

    batch = tmp_path / "b.jsonl"
    batch.write_text((json.dumps(ENDLESS) + "\n") * 2)
    proc = _trample("count", batch, "--backend", "dask", "--workers", 2)

    def workers_ready() -> bool:  # both worker processes started and ignore SIGINT (trample.cluster.dask_setup)
        ready = 0
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != proc.pid:
                try:
                    if os.getsid(int(pid)) != proc.pid:
                        continue
                    with open(f"/proc/{pid}/status") as fh:
                        masks = {x.split()[0]: int(x.split()[1], 16) for x in fh if x.startswith(("SigIgn", "SigBlk"))}
                    with open(f"/proc/{pid}/cmdline", "rb") as fh:
                        spawned = b"spawn_main" in fh.read()
                except (OSError, ValueError):
                    continue
                ready += bool(spawned and masks.get("SigIgn:", 0) & (1 << (signal.SIGINT - 1)))
        return ready >= 2

    try:
        assert wait_until(workers_ready, timeout=300, proc=proc)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole process group
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:  # a failed wait: the endless count and its cluster go with the test
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and out == b""
    assert err.decode().count("\n") == 1 and err.decode().startswith("trample: interrupted after "), err.decode()


@pytest.mark.slow
def test_17_ctrl_c_while_the_dask_workers_start_gives_one_line(tmp_path):
    """Ctrl-C while a local cluster's workers are still importing distributed (before their preload ignores it):
    each printed a KeyboardInterrupt traceback ("Fatal Python error" when it was still in `site`), and the
    nannies "Nanny failed to start" with one more. The workers are born with SIGINT blocked (trample.cluster's
    event loop thread is started with it masked, and a signal mask survives fork and exec), so the Ctrl-C of the
    process group waits in them until they ignore it; the command answers it: one line, exit 130."""
    import signal

    pytest.importorskip("distributed")
    batch = tmp_path / "b.jsonl"
    batch.write_text((json.dumps(ENDLESS) + "\n") * 2)
    proc = _trample("count", batch, "--backend", "dask", "--workers", 2)
    sigint = 1 << (signal.SIGINT - 1)

    def starting_workers() -> list[tuple[int, int]]:  # (SigBlk, SigIgn) of the worker processes spawned so far
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != proc.pid:
                try:
                    if os.getsid(int(pid)) != proc.pid:
                        continue
                    with open(f"/proc/{pid}/cmdline", "rb") as fh:
                        if b"spawn_main" not in fh.read():
                            continue
                    with open(f"/proc/{pid}/status") as fh:
                        masks = {x.split()[0]: int(x.split()[1], 16) for x in fh if x.startswith(("SigIgn", "SigBlk"))}
                except (OSError, ValueError):
                    continue
                found.append((masks.get("SigBlk:", 0), masks.get("SigIgn:", 0)))
        return found

    try:
        assert wait_until(lambda: bool(starting_workers()), timeout=300, proc=proc)  # a worker process exists
        # from its first instruction a worker blocks SIGINT (until its preload ignores it)
        assert all((blocked | ignored) & sigint for blocked, ignored in starting_workers())
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole process group, workers included
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:  # a failed wait: the endless count and its cluster go with the test
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and out == b""
    assert err.decode().count("\n") == 1 and err.decode().startswith("trample: interrupted after "), err.decode()


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_cut_short_cluster_start_waits_for_the_workers_being_spawned():
    """The rare end of test_17: Ctrl-C came while distributed's thread was spawning a worker, after the process
    existed and before its start-up data was written to it; the command exited at once, and the worker printed
    "EOFError: Ran out of input" with a traceback. A cut-short start now waits (bounded) until every spawn child
    of ours is one multiprocessing has finished starting."""
    import multiprocessing
    import subprocess
    import time

    from trample import cluster

    # a child that looks like a spawned worker still waiting for its data: not known to multiprocessing
    waiting = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()  # spawn_main"], stdin=subprocess.PIPE
    )
    started = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(2,), daemon=True)
    try:
        assert wait_until(lambda: waiting.pid in cluster.half_spawned(), proc=waiting)
        assert cluster.settle_spawns(within=0.2) is False  # bounded: it gives up, it does not hang
        started.start()  # a worker whose start has finished (its data written and read) is not waited for
        assert wait_until(lambda: started.pid not in cluster.half_spawned(), proc=waiting)
    finally:
        waiting.communicate(b"")
        started.join(timeout=60)
    assert waiting.pid not in cluster.half_spawned()
    assert cluster.settle_spawns(within=60) is True


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_cut_short_cluster_start_waits_for_the_workers_still_reading_their_data(monkeypatch):
    """The other rare end of test_17: a worker had been written its start-up data and was still unpickling them
    (importing the main module first) when the half-started cluster's close freed the semaphores the data name; it
    printed "FileNotFoundError" from ``SemLock._rebuild`` with a traceback. A spawned child known to multiprocessing
    is still half spawned while it holds open the pipe its command line names (``pipe_handle=N``), and the start
    cut short settles before it closes the cluster."""
    import multiprocessing
    import subprocess

    pytest.importorskip("distributed")
    from trample import cluster

    # known to multiprocessing (its data written) but still reading them from pipe_handle=0, its standard input
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys; sys.stdin.readline(); os.close(0); print(flush=True); sys.stdout.readline()"
            "  # spawn_main(tracker_fd=9, pipe_handle=0)",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    known = type("Known", (), {"pid": reader.pid})()
    monkeypatch.setattr(multiprocessing, "active_children", lambda: [known])
    try:
        assert wait_until(lambda: reader.pid in cluster.half_spawned(), proc=reader)
        assert cluster.settle_spawns(within=0.2) is False
        reader.stdin.write(b"data\n")
        reader.stdin.close()
        assert reader.stdout.readline() == b"\n"  # it has closed its pipe
        assert reader.pid not in cluster.half_spawned()
        assert cluster.settle_spawns(within=60) is True
    finally:
        reader.kill()
        reader.wait()

    # a start cut short settles first, then closes what was started
    calls: list[str] = []
    monkeypatch.setattr(cluster, "settle_spawns", lambda within=0: calls.append("settle") or True)

    from distributed.deploy.spec import SpecCluster

    class Half:
        def close(self, timeout=None):
            calls.append("close")

    half = Half()

    def failing(**options):
        calls.append("start")
        SpecCluster._instances.add(half)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cluster.start_local(failing)
    assert calls[:3] == ["start", "settle", "close"] and half not in SpecCluster._instances


@pytest.mark.parametrize("fmt", ["npy", "jsonl"])
def test_a_large_output_is_synced_as_it_grows(tmp_path, capsys, monkeypatch, fmt):
    # the commit syncs an output before its rename: synced only there, 700 MB of npy rows took 0.3-0.7 s past
    # --time-limit; written through files.written, the temporary is synced every SYNC_EVERY bytes, so the last
    # sync has at most that much to write, and the file is still whole and right
    from trample.cli import files

    synced: list[int] = []
    real = os.fdatasync

    def fdatasync(fd):
        synced.append(os.fstat(fd).st_size)
        real(fd)

    monkeypatch.setattr(files, "SYNC_EVERY", 1 << 12)
    monkeypatch.setattr(files.os, "fdatasync", fdatasync)
    before = dict(files._UNSYNCED)
    board = tmp_path / "b.json"
    board.write_text(json.dumps(one_attacker(40, 5)))
    out = tmp_path / f"out.{fmt}"
    code, _, err = run_main(capsys, monkeypatch, ["enumerate", board, "--format", fmt, "-o", out])
    assert code == 0, err
    size = out.stat().st_size
    # 135 751 rows come in three blocks (npy) or chunks (jsonl) of at most 65 536: each synced as it was written
    assert len(synced) == 3, (synced, size)
    assert synced == sorted(synced) and synced[0] < synced[-1] == size  # the temporary, as it grew
    rows = np.load(out) if fmt == "npy" else out.read_text().splitlines()
    assert len(rows) == 135751  # C(40 + 4, 4): every split of 40 over 5 blockers (510.1c), written whole
    assert files._UNSYNCED == before  # its temporary forgotten once committed


def test_standard_output_is_not_synced(capsys, monkeypatch, tmp_path):
    # only an atomic output's temporary is synced: standard output (a pipe, a terminal) is left alone
    from trample.cli import files

    monkeypatch.setattr(files, "SYNC_EVERY", 1)
    monkeypatch.setattr(files.os, "fdatasync", lambda fd: pytest.fail("standard output synced"))
    board = tmp_path / "b.json"
    board.write_text(json.dumps(one_attacker(6, 3)))
    code, out, err = run_main(capsys, monkeypatch, ["enumerate", board])
    assert code == 0, err
    assert len(out.splitlines()) == 28  # C(6 + 2, 2)
