"""Issue 24, "Reliability, round 3": each defect that was found is a test named after it (docs/format.md states
the contract: exit 0 / 1 / 2, 130 on a signal, one line on standard error, strict JSON on standard output)."""

import io
import json
import sys
from pathlib import Path

import pytest

from trample.cli import main

ROOT = Path(__file__).resolve().parents[2]
THRASTA = json.loads((ROOT / "examples" / "thrasta.json").read_text())


def validator(name: str):
    import jsonschema

    from trample import schemas

    return jsonschema.Draft202012Validator(schemas.load(name))


def run_main(capsys, monkeypatch, args, stdin: str | bytes = ""):
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# 1. enumerate printed "}" (invalid JSON Lines) and exited 0 when the only legal assignment is the empty one.
@pytest.mark.parametrize(
    "args, board",
    [
        (["enumerate", "-"], {"attackers": []}),
        (
            ["enumerate", "-", "--side", "defending"],
            {
                "players": [{"id": "opp", "life": 20}],
                "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp"}],
            },
        ),
    ],
)
def test_enumerate_empty_assignment_prints_valid_jsonl(capsys, monkeypatch, args, board):
    code, out, err = run_main(capsys, monkeypatch, args, json.dumps(board))
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [{}]


# 5. enumerate --format npy -o /dev/null (or a FIFO) wrote a columns file beside it ("/dev/null.columns.json").
def test_enumerate_npy_to_a_fifo_writes_no_columns_file(tmp_path, capsys, monkeypatch):
    import os
    import threading

    fifo = tmp_path / "m.npy"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    code, out, err = run_main(
        capsys, monkeypatch, ["enumerate", ROOT / "examples" / "thrasta.json", "--format", "npy", "-o", fifo]
    )
    reader.join(60)
    assert code == 0, err
    assert got and got[0].startswith(b"\x93NUMPY")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npy"]  # no m.columns.json


# 13. enumerate --format npy on one attacker of power 10^6 behind 30 blockers built its listing programme without
# the deadline (41 s and 6.3 GB under --time-limit 2): now the limit reaches the programme.
def test_enumerate_npy_huge_power_stops_at_time_limit(tmp_path, capsys, monkeypatch):
    board = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {
                "id": "a",
                "power": 10**6,
                "toughness": 1,
                "attacking": "opp",
                "keywords": ["trample"],
                "blocked_by": [f"b{i}" for i in range(30)],
            }
        ],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": 2} for i in range(30)],
    }
    out_file = tmp_path / "m.npy"
    code, out, err = run_main(
        capsys,
        monkeypatch,
        ["enumerate", "-", "--format", "npy", "-o", out_file, "--time-limit", "0.5"],
        json.dumps(board),
    )
    assert code == 0
    assert "stopped at --time-limit" in one_line(err) and "the matrix is incomplete" in err
    import numpy as np

    assert np.load(out_file).shape[1] == 31  # a valid (incomplete) matrix


# 14. --time-limit inf (or 1e10 and more) raised OverflowError in mill, discover, seek-thrills and gnome: every
# command parses it once (finite, positive, at most 10^9 s).
@pytest.mark.parametrize("value", ["inf", "1e10", "nan", "-1", "0"])
@pytest.mark.parametrize("command", ["mill", "discover", "seek-thrills", "gnome", "count", "solve", "arena", "check"])
def test_time_limit_inf_is_bad_input_on_every_command(capsys, monkeypatch, command, value):
    lib = str(ROOT / "examples" / "library.json")
    args = {
        "mill": ["mill", lib, "1"],
        "discover": ["discover", lib, "3"],
        "seek-thrills": ["seek-thrills", lib],
        "gnome": ["gnome", str(ROOT / "examples" / "thrasta.json"), lib],
        "count": ["count", "-"],
        "solve": ["solve", "-"],
        "arena": ["arena", "--n", "1"],
        "check": ["check", "-", "{}"],
    }[command]
    code, out, err = run_main(capsys, monkeypatch, [*args, "--time-limit", value], json.dumps(THRASTA))
    assert code == 2 and out == ""
    assert "--time-limit" in one_line(err)


def _subcommands(parser):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
                    yield from ((f"{name} {n}", p) for n, p in _subcommands(sub))
                else:
                    yield name, sub


# 15. arena, score, library from-deck, render and check had no --time-limit at all.
def test_every_command_takes_time_limit():
    from trample.cli import build_parser

    commands = dict(_subcommands(build_parser()))
    assert {"arena", "score", "library from-deck", "render", "check", "mill", "count"} <= set(commands)
    missing = [name for name, p in commands.items() if not any("--time-limit" in a.option_strings for a in p._actions)]
    assert missing == []


# 3. Library batches under --time-limit dropped the result lines after the limit: one line per input line.
def test_library_batch_time_limit_keeps_one_line_per_document(tmp_path, capsys, monkeypatch):
    small = (ROOT / "examples" / "library.json").read_text().replace("\n", " ")
    slow = json.dumps({"cards": [{"name": f"c{i}", "mana_value": i * 997 % 10**6} for i in range(1000)]})
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join([small, slow, small, slow, small]) + "\n")
    code, out, err = run_main(capsys, monkeypatch, ["mill", batch, "40", "--distribution", "--time-limit", "3"])
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 5 and code == 1
    assert [("error" in line) for line in lines] == [False, True, False, True, False]
    assert lines[1] == {"error": "line 2: stopped at the time limit of 3 s", "complete": False}
    assert "Traceback" not in err and len(err.splitlines()) == 2


# 12. Options that swamp the machine are bad input: --workers, --shards and arena --n are bounded.
@pytest.mark.parametrize(
    "args",
    [
        ["count", "-", "--workers", "1000000"],
        ["enumerate", "-", "--shards", "1000000000", "-o", "out"],
        ["arena", "--workers", "1000000"],
        ["arena", "--n", "1000000000"],
    ],
)
def test_workers_shards_and_boards_are_bounded(capsys, monkeypatch, args):
    code, out, err = run_main(capsys, monkeypatch, args, json.dumps(THRASTA))
    assert code == 2 and out == ""
    assert "expected a whole number from 1 to" in one_line(err)


# 12. arena --n N --limit 2 generated all N boards before keeping two.
def test_arena_limit_generates_only_the_boards_it_plays(capsys, monkeypatch):
    from trample.arena import suites

    asked = []
    real = suites.generate_board

    def generate_board(level, seed, i):
        asked.append(i)
        return real(level, seed, i)

    monkeypatch.setattr(suites, "generate_board", generate_board)
    code, out, err = run_main(capsys, monkeypatch, ["arena", "--n", "1000000", "--limit", "2", "--players", "greedy"])
    assert code == 0, err
    assert asked == [0, 1]
    assert json.loads(out)["leaderboard"][0]["decisions"] == 2


# 15/16. arena --time-limit (and an interrupt before the first board) writes the boards finished so far.
def test_arena_time_limit_writes_partial_out_and_exits_1(tmp_path, capsys, monkeypatch):
    out_file = tmp_path / "r.json"
    code, out, err = run_main(
        capsys, monkeypatch, ["arena", "--n", "1000", "--time-limit", "0.2", "--players", "greedy", "--out", out_file]
    )
    assert code == 1
    assert "stopped at the time limit of 0.2 s" in one_line(err)
    results = json.loads(out_file.read_text())
    assert results["complete"] is False and results["played"] < 1000


# arena --n 1000000 --time-limit 2 drew its whole suite before its first board (0.35 ms a board): the limit ran out
# with none played. The boards are drawn as play reaches them; the suite's hash is of the boards drawn (the suite
# of --n hashed: the first boards of any larger one).
def test_arena_time_limit_plays_a_suite_too_large_to_draw_first(tmp_path, capsys, monkeypatch):
    from trample.arena import generate
    from trample.arena.stats import suite_hash

    out_file = tmp_path / "r.json"
    code, out, err = run_main(
        capsys,
        monkeypatch,
        ["arena", "--n", "1000000", "--time-limit", "2", "--players", "greedy", "--chunk", "5", "--out", out_file],
    )
    assert code == 1 and "stopped at the time limit of 2 s" in one_line(err)
    results = json.loads(out_file.read_text())
    assert results["complete"] is False and 0 < results["played"] < 1_000_000
    suite = results["config"]["suite"]
    assert results["played"] <= suite["hashed"] < 1_000_000 and suite["n"] == 1_000_000
    assert suite["hash"] == suite_hash(generate("mixed", suite["hashed"], seed=0))
    assert [b["id"] for b in results["boards"]] == [f"mixed/0/{i}" for i in range(results["played"])]


# The declaration arenas drew their suites first too (about 43 µs a board): --game blocks --n 100000 --time-limit 3
# stopped while drawing, with nothing written.
@pytest.mark.parametrize("game", ["blocks", "attacks"])
def test_declaration_arena_time_limit_plays_a_suite_too_large_to_draw_first(tmp_path, capsys, monkeypatch, game):
    from trample.arena.declare_arena import generate as generate_declarations
    from trample.arena.stats import suite_hash

    out_file = tmp_path / "r.json"
    argv = ["arena", "--game", game, "--n", "1000000", "--time-limit", "4", "--chunk", "1", "--out", out_file]
    code, out, err = run_main(capsys, monkeypatch, argv)
    assert code == 1 and "stopped at the time limit of 4 s" in one_line(err)
    results = json.loads(out_file.read_text())
    suite = results["config"]["suite"]
    assert results["complete"] is False and 0 < results["played"] <= suite["hashed"] < 1_000_000
    assert suite["hash"] == suite_hash(generate_declarations(game, suite["hashed"], seed=0))


# arena --time-limit kept 0.1 s for writing its results whatever it had played; their intervals and JSON took
# 0.25-0.3 s for 484 boards, written after the limit. Play now stops when the time left would not write them.
def test_arena_play_stops_when_the_time_left_would_not_write_its_results(monkeypatch):
    from trample.cli.commands import arena as arena_cmd
    from trample.limits import Deadline

    calls: list = []
    monkeypatch.setattr(arena_cmd, "stop_sooner", lambda: calls.append(1))
    arena_cmd._time_to_write(None, 10**6)  # no limit: play goes on
    arena_cmd._time_to_write(Deadline(3600), 1000)  # an hour left: enough for 1 000 boards
    assert calls == []
    many = int(3600 / arena_cmd.WRITE_PER_BOARD) + 1  # more boards than an hour writes
    arena_cmd._time_to_write(Deadline(3600), many)
    assert calls == [1]


# 4. Schema and loader disagreed: a suite line's `objective: []` and a recorded decision's `""` were taken for the
# default (the schema says no: now bad input too); a commander_damage key "" (the loader said no: now the schema
# too).
@pytest.mark.parametrize("objective", [[], "", "  "])
def test_suite_and_decision_empty_objective_is_bad_input(tmp_path, capsys, monkeypatch, objective):
    suite = tmp_path / "s.jsonl"
    suite.write_text(json.dumps({"scenario": THRASTA, "objective": objective}) + "\n")
    code, out, err = run_main(capsys, monkeypatch, ["arena", suite, "--players", "greedy"])
    assert code == 2 and "objective: expected at least one objective" in one_line(err)
    decision = json.dumps({"scenario": THRASTA, "assignment": {}, "objective": objective})
    code, out, err = run_main(capsys, monkeypatch, ["score", "-"], decision)
    assert code == 2 and "expected at least one objective" in one_line(err)
    assert not validator("arena-decision").is_valid(json.loads(decision))


def test_commander_damage_empty_key_refused_by_schema_and_loader(capsys, monkeypatch):
    doc = json.loads(json.dumps(THRASTA))
    doc["players"][0]["commander_damage"] = {"": 3}
    assert not validator("scenario").is_valid(doc)
    code, out, err = run_main(capsys, monkeypatch, ["count", "-"], json.dumps(doc))
    assert code == 2 and "commander_damage" in one_line(err)


# 10. A list field nested ~985 deep raised RecursionError while the error message was built (as a user runs it: a
# process of its own, where the JSON parser reaches that depth).
@pytest.mark.parametrize("field", ["tags", "keywords", "protection", "shield_order"])
def test_deeply_nested_list_field_is_one_line(tmp_path, field):
    import subprocess

    text = json.dumps(THRASTA).replace('"keywords": ["trample", "trample_over_planeswalkers", "haste"]', '"@@": 1')
    assert "@@" in text
    # The parser and the message builder reach Python's recursion limit a few levels apart: one process reads a
    # batch of every depth around it, each line must be one error line.
    lines = [text.replace('"@@": 1', f'"{field}": ' + "[" * d + "]" * d) for d in range(940, 1000, 2)]
    batch = tmp_path / "deep.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from trample.cli import main; sys.exit(main())", "count", batch],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr and proc.returncode == 2
    assert len(proc.stdout.splitlines()) == len(lines) == len(proc.stderr.splitlines())
    assert any(f"attackers[0].{field}[0]" in line for line in proc.stderr.splitlines())


# 11. Loading was quadratic in tags, protection, shield_order and damage_order (10^5 tags: 33 s of CPU). Counted
# without a clock: the loader's work (the comparisons of list membership) must not grow with the square.
def test_loading_long_lists_is_linear(monkeypatch):
    from trample.models import load_scenario

    n = 3000
    doc = json.loads(json.dumps(THRASTA))
    doc["attackers"][0]["tags"] = [f"t{i}" for i in range(n)] * 2
    doc["blockers"][0]["protection"] = [f"p{i}" for i in range(n)]
    doc["blockers"][0]["shield_order"] = ["thrasta"] * n
    calls = {"eq": 0}

    class Counted(str):  # a tag string that counts how often it is compared
        def __eq__(self, other):
            calls["eq"] += 1
            return str.__eq__(self, other)

        __hash__ = str.__hash__

    doc["attackers"][0]["tags"] = [Counted(t) for t in doc["attackers"][0]["tags"]]
    s = load_scenario(doc)
    assert len(s.attackers[0].tags) == n  # each once, in order
    assert calls["eq"] <= 4 * n  # a list's `in` compared ~n^2 / 2 times
    assert s.blockers[0].receiving.protected_from(s.attackers[0]) is False


# 7. Large damage doubling gives regrets of ~10^360: arena and score crashed after every board was played ("int too
# large to convert to float"); a recorded time_ms of 1e308 overflowed the mean.
HUGE = {
    "players": [{"id": "opp", "life": 20, "takes": [{"times": 10**6}] * 60}],
    "attackers": [
        {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["w"]}
    ],
    "blockers": [{"id": "w", "power": 0, "toughness": 1}],
}


def test_score_huge_regret_is_exact(capsys, monkeypatch):
    lines = [
        {"scenario": HUGE, "assignment": {"a": {"w": 5}}, "objective": "max-damage"},
        {"scenario": HUGE, "assignment": {"a": {"w": 1, "opp": 4}}, "objective": "max-damage"},
    ]
    code, out, err = run_main(
        capsys, monkeypatch, ["score", "-", "--format", "json"], "\n".join(json.dumps(d) for d in lines)
    )
    assert code == 0, err
    row = json.loads(out)["leaderboard"][0]
    optimum = 4 * 10**360  # 4 damage to the player, multiplied by 10^6 sixty times
    assert row["regret_max"] == optimum and row["regret_mean"] == optimum // 2
    assert row["ci"]["regret_mean"] is None  # no float holds it


def test_arena_huge_regret_board_is_played(tmp_path, capsys, monkeypatch):
    suite = tmp_path / "s.jsonl"
    suite.write_text(json.dumps({"scenario": HUGE, "objective": "max-damage"}) + "\n")
    code, out, err = run_main(capsys, monkeypatch, ["arena", suite, "--players", "declaration,greedy"])
    assert code == 0, err
    assert {r["player"] for r in json.loads(out)["leaderboard"]} == {"declaration", "greedy"}


@pytest.mark.parametrize("time_ms", [1e308, -1, "5", True])
def test_score_bad_time_ms_is_one_line(capsys, monkeypatch, time_ms):
    line = {"scenario": THRASTA, "assignment": {}, "objective": "max-damage", "time_ms": time_ms}
    code, out, err = run_main(capsys, monkeypatch, ["score", "-"], json.dumps(line) + "\n" + json.dumps(line))
    assert code == 2
    assert "time_ms" in err and "Traceback" not in err


# 8. score on a damaged `arena --out` file: at least ten traceback sites. The reader names the place instead.
@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("results") / "r.json"
    code = main(["arena", "--n", "3", "--players", "greedy,declaration", "--out", str(path)])
    assert code == 0
    return json.loads(path.read_text())


DAMAGE = [
    ("boards", 5, "boards: expected a list of boards"),
    ("boards.0", 5, "boards[0]: expected a board"),
    ("boards.0.decisions", 5, "boards[0].decisions: expected a list of decisions"),
    ("boards.0.decisions", {"a": 1}, "boards[0].decisions: expected a list"),
    ("boards.0.decisions.0", "x", "boards[0].decisions[0]: expected a decision"),
    ("boards.0.decisions.0.assignment", None, None),  # then read as a failure: its violations
    ("boards.0.decisions.0.violations", 5, None),
    ("boards.0.decisions.0.time_ms", 1e308, "time_ms"),
    ("boards.0.decisions.0.time_ms", "slow", "time_ms"),
    ("boards.0.decisions.0.player", 5, "player"),
    ("boards.0.id", [], "boards[0].id: expected a string"),
    ("boards.0.objective", 5, "objective"),
    ("boards.0.scenario", [], "scenario"),
    ("config", [], None),
]


@pytest.mark.parametrize("path, value, message", DAMAGE)
def test_score_damaged_results_file_is_one_line(tmp_path, capsys, monkeypatch, results_file, path, value, message):
    doc = json.loads(json.dumps(results_file))
    *head, last = path.split(".")
    node = doc
    for key in head:
        node = node[int(key)] if key.isdigit() else node[key]
    if path == "boards.0.decisions.0.violations":
        node["assignment"] = None
    node[int(last) if last.isdigit() else last] = value
    damaged = tmp_path / "d.json"
    damaged.write_text(json.dumps(doc))
    code, out, err = run_main(capsys, monkeypatch, ["score", damaged])
    assert code in (0, 2) and "Traceback" not in err
    if message is not None:
        assert code == 2 and message in err
    if code == 2 and not err.startswith("trample: boards[0].decisions[0]:"):
        one_line(err)


def test_cli_exit_codes_are_defined_once():  # docs/format.md, "Exit codes"
    import ast
    import importlib

    from trample import cli

    assert (cli.EXIT_OK, cli.EXIT_NO, cli.EXIT_BAD, cli.EXIT_INTERRUPTED) == (0, 1, 2, 130)
    folder = Path(cli.__file__).parent
    for path in [*folder.glob("*.py"), *(folder / "commands").glob("*.py")]:
        if path.name == "__init__.py" and path.parent == folder:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):  # no copy of its own: trample.cli's
            targets = node.targets if isinstance(node, ast.Assign) else []
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            assert not [n for n in names if n.startswith("EXIT_")], f"{path.name} defines {names}"
    for name, _ in cli.COMMANDS:
        importlib.import_module(f"trample.cli.commands.{name}")


# 16. SIGINT while importing printed a traceback, SIGTERM killed silently: trample.cli imports only the standard
# library and trample.limits, so that main() installs the handlers before numpy and the engines are imported.
def test_cli_imports_nothing_heavy_before_main():
    import subprocess

    code = (
        "import sys, trample.cli; "
        "heavy = ('numpy', 'trample.documents', 'trample.cli.options', 'trample.cli.commands', 'trample.rules'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "[]", proc.stderr


# arena --time-limit: play stops a little before the limit so that the command, writing the boards finished, ends
# near it (benchmarks/bench_limits.py's arena row: 1.08-1.15 s against <= 1.1 s, the results written after it)
def test_arena_play_stops_before_its_limit_to_write_its_results():
    from trample.cli.commands.arena import WRITE_RESERVE, WRITE_SHARE, _played_until
    from trample.limits import Deadline

    for seconds in (0.2, 1.0, 30.0):
        limit = Deadline(seconds)
        played = _played_until(limit)
        reserve = min(WRITE_RESERVE, WRITE_SHARE * seconds)
        assert played.seconds == seconds  # "stopped at the time limit of N s": the user's limit
        assert played.at == pytest.approx(limit.at - reserve)
    assert _played_until(None) is None


# A stop (Ctrl-C, or --time-limit, which stops arena and score the same way) that landed after the suite was read but
# before play began (the backend and players set up), or while score still read its file, wrote no --out at all:
# the handlers covered only the reading of the suite and the scoring loop.
def test_arena_stopped_before_play_writes_the_results_of_no_board(tmp_path, capsys, monkeypatch):
    from trample.cli.commands import arena as arena_cmd

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena_cmd, "_players", stopped)
    out_file = tmp_path / "r.json"
    code, out, err = run_main(capsys, monkeypatch, ["arena", "--n", "3", "--players", "greedy", "--out", out_file])
    assert code == 130
    results = json.loads(out_file.read_text())
    assert results["complete"] is False and results["played"] == 0 and results["boards"] == []


@pytest.mark.parametrize("where", ["decision_documents", "expand_results"])
def test_score_stopped_while_reading_its_file_writes_the_results_of_no_decision(tmp_path, capsys, monkeypatch, where):
    from trample.cli.commands import arena as arena_cmd

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    decisions = tmp_path / "d.jsonl"
    decisions.write_text(json.dumps({"scenario": THRASTA, "assignment": {}}) + "\n")
    monkeypatch.setattr(arena_cmd, where, stopped)
    out_file = tmp_path / "r.json"
    code, out, err = run_main(capsys, monkeypatch, ["score", decisions, "--out", out_file])
    assert code == 130
    results = json.loads(out_file.read_text())
    assert results["complete"] is False and results["boards"] == []
