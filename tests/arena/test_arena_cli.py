"""``trample arena`` and ``trample score`` (docs/arena.md): JSON out, exit 0 / 2, one-line errors."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from trample.cli import main

ROOT = Path(__file__).resolve().parents[2]
KNOWN = str(ROOT / "solver" / "suites" / "known-mistakes.jsonl")
TRAMPLE = {
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "a", "power": 6, "toughness": 6, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x", "y"]}
    ],
    "blockers": [{"id": "x", "power": 2, "toughness": 2}, {"id": "y", "power": 2, "toughness": 2}],
}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_arena_on_the_known_mistakes(capsys, tmp_path):
    out_json, png = tmp_path / "r.json", tmp_path / "r.png"
    code, out, err = run(
        capsys,
        "arena",
        KNOWN,
        "--players",
        "declaration,greedy,face,optimal",
        "--format",
        "json",
        "--out",
        out_json,
        "--report",
        png,
        "--no-progress",
    )
    assert (code, err) == (0, "")
    summary = json.loads(out)
    board = [
        (r["player"], r["illegal"], r["regret_mean"], r["regret_max"], r["optimal"]) for r in summary["leaderboard"]
    ]
    # regrets 3 (510.1e joint lethal), 4 (declaration order trap), 5 / 1 (702.19c loyalty counted jointly)
    assert board == [
        ("optimal", 0, 0, 0, 13),
        ("greedy", 0, round(8 / 13, 6), 5, 11),
        ("face", 0, round(8 / 13, 6), 4, 10),
        ("declaration", 0, round(12 / 13, 6), 5, 10),
    ]
    suite = summary["config"]["suite"]
    assert suite.pop("hash").startswith("sha256:")  # the suite's content hash
    assert suite == {"files": [KNOWN], "level": None}
    full = json.loads(out_json.read_text())
    assert len(full["boards"]) == 13 and all(len(b["decisions"]) == 4 for b in full["boards"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_arena_table_and_generated_suite(capsys):
    code, out, _ = run(
        capsys, "arena", "--level", "tiny", "--n", 5, "--players", "greedy,optimal", "--seed", 3, "--format", "table"
    )
    assert code == 0
    assert "trample arena: 5 boards (level tiny), seed 3, objective" in out and "max-damage,max-value" in out
    rows = [line.split()[:2] for line in out.splitlines() if re.match(r"\s*\d+\s+\S+\s+\d", line)]
    assert sorted((rank, name) for rank, name in rows) == [("1", "greedy"), ("1", "optimal")]
    code, out, _ = run(capsys, "arena", "--level", "tiny", "--n", 5, "--players", "greedy", "--seed", 3, "--limit", 2)
    assert json.loads(out)["config"]["boards"] == 2  # not a terminal: JSON


def test_arena_external_player_and_list_levels(capsys, tmp_path):
    script = tmp_path / "p.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    print('garbage', flush=True)\n")
    code, out, _ = run(
        capsys,
        "arena",
        "--level",
        "tiny",
        "--n",
        3,
        "--players",
        "optimal",
        "--external",
        f"bot={shlex.quote(sys.executable)} {shlex.quote(str(script))}",
        "--timeout",
        2,
    )
    rows = {r["player"]: r for r in json.loads(out)["leaderboard"]}
    # a player with no assignment on any board: the leaderboard is printed, and the exit code is 2 (docs/arena.md)
    assert code == 2 and rows["bot"]["illegal_rules"] == {"bad-output": 3}
    code, out, _ = run(capsys, "arena", "--list-levels")
    names = [json.loads(line)["name"] for line in out.splitlines()]
    assert code == 0 and names == [
        "tiny",
        "basic",
        "keywords",
        "shared",
        "planeswalkers",
        "battles",
        "first-strike",
        "mixed",
        "large",
    ]


@pytest.mark.slow
def test_arena_on_a_local_dask_cluster(capsys):
    pytest.importorskip("distributed")
    argv = ["arena", "--level", "tiny", "--n", 4, "--players", "random,greedy", "--seed", 2]
    code, local, _ = run(capsys, *argv)
    code2, remote, _ = run(capsys, *argv, "--backend", "dask", "--workers", 1)

    def strip(s):
        return [{k: v for k, v in r.items() if not k.startswith("time_ms")} for r in json.loads(s)["leaderboard"]]

    assert (code, code2) == (0, 0) and strip(local) == strip(remote)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["arena", "--players", "nobody"], 'trample: player: unknown player "nobody"'),
        (["arena", "--players", "greedy,greedy"], 'trample: players: two players are named "greedy"'),
        (["arena", "--level", "hard"], 'trample: level: unknown level "hard"'),
        (["arena", "--objective", "max-fun"], 'trample: objective: unknown objective "max-fun"'),
        (["arena", "--backend", "local", "--scheduler", "tcp://x:1"], "trample: --scheduler: not with --backend local"),
        (["arena", "/no/such.jsonl"], "trample: /no/such.jsonl: no such file"),
        (["arena", "--n", "0"], "trample arena: argument --n: expected a whole number from 1 to 1000000, got '0'"),
        (["arena", "--timeout", "-1"], "trample arena: argument --timeout: expected a positive number of seconds"),
        (["score", "/no/such.jsonl"], "trample: /no/such.jsonl: no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_a_bad_suite_line_names_its_place_without_a_traceback(tmp_path):
    suite = tmp_path / "s.jsonl"
    suite.write_text(json.dumps(TRAMPLE) + "\n" + json.dumps({"scenario": {"attackers": [{"id": "a"}]}}) + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "arena", str(suite)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"trample: {suite}: line 2: scenario.attackers[0].power: required field is missing\n"


def _decision(assignment, **extra):
    return json.dumps(dict(extra, scenario=TRAMPLE, assignment=assignment))


def test_score_recorded_decisions(capsys, tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(
        "\n".join(
            [
                _decision({"a": {"x": 4, "opp": 2}}, player="me", objective="max-damage"),  # docs/rules.md mistake 4
                _decision({"a": {"x": 2, "y": 2, "opp": 2}}, player="me", objective="max-damage", time_ms=1.5),
                _decision({"a": {"x": 3, "y": 3}}, player="you"),
                json.dumps({"scenario": {"attackers": []}, "assignment": {}, "objective": "max-kills!"}),
                _decision("nope", player="you"),
            ]
        )
        + "\n"
    )
    code, out, err = run(capsys, "score", path)
    lines = [json.loads(line) for line in out.splitlines()]
    assert (
        code == 2
        and err
        == 'trample: line 4: objective: unknown objective "max-kills!" (expected max-damage, '
        "max-damage:ID, lethal, max-kills, max-value, min-overkill)\n"
    )
    assert [(d.get("player"), d.get("legal"), d.get("rules")) for d in lines] == [
        ("me", False, ["702.19b"]),
        ("me", True, []),
        ("you", True, []),
        (None, None, None),
        ("you", False, ["bad-output"]),
    ]
    assert (
        lines[0]["violations"][0]["message"]
        == "a assigns 2 to opp, but y has been assigned 0 of the 2 damage that is lethal to it"
    )
    assert lines[1]["regret"] == {"max-damage": 0} and lines[1]["optimal"] is True
    # the default objective max-damage,max-value: 3+3 kills both 2/2s (value 2) but sends 0 of the best 2
    assert (lines[2]["values"], lines[2]["optimum"], lines[2]["regret"]) == (
        {"max-damage": 0, "max-value": 2},
        {"max-damage": 2, "max-value": 2},
        {"max-damage": 2, "max-value": 0},
    )
    assert lines[3] == {"error": lines[3]["error"]} and lines[3]["error"].startswith("line 4: objective:")

    code, out, _ = run(capsys, "score", path, "--format", "json")
    rows = {r["player"]: r for r in json.loads(out)["leaderboard"]}
    assert (rows["me"]["illegal"], rows["me"]["optimal"], rows["me"]["time_ms_median"]) == (1, 1, 1.5)
    assert (rows["you"]["illegal_rules"], rows["you"]["regret_mean"], rows["you"]["time_ms_median"]) == (
        {"bad-output": 1},
        2,
        None,
    )


@pytest.mark.slow
def test_docs_examples_run():
    """docs/arena.md: the Python examples print what the page says, and the JSON command prints its lines."""
    import contextlib
    import io
    import re

    doc = (ROOT / "docs" / "arena.md").read_text()
    examples = re.findall(r"```python\n(.*?)```\n\nprints\n\n```\n(.*?)```", doc, re.S)
    assert len(examples) == 6  # ArenaEnv, Gymnasium, PettingZoo, OpenSpiel, the three-decision combat
    for block, shown in examples:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(block, "docs/arena.md", "exec"), {})
        assert buf.getvalue() == shown
    (block,) = re.findall(r"```console\n(.*?)```", doc, re.S)
    cmd, *expected = block.splitlines()
    assert cmd.startswith("$ trample score ")
    proc = subprocess.run(
        [sys.executable, "-m", "trample", *shlex.split(cmd[len("$ trample ") :])],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    assert [json.loads(x) for x in proc.stdout.splitlines()] == [json.loads(x) for x in expected]


def test_a_player_failing_at_every_decision_is_named_and_exits_2(capsys):
    # py: naming a FunctionPlayer instance plays (it was "not callable" at every decision, exit 0); a player that
    # returns no assignment on any board gets one line on standard error and exit code 2, after the leaderboard
    code, out, err = run(
        capsys, "arena", "--level", "tiny", "--n", "3", "--players", "py:user_agents:first_legal", "--format", "json"
    )
    assert (code, err) == (0, "") and json.loads(out)["leaderboard"][0]["illegal"] == 0
    code, out, err = run(
        capsys, "arena", "--level", "tiny", "--n", "3", "--format", "json",
        "--players", "greedy,py:user_agents:broken",
    )  # fmt: skip
    assert code == 2 and len(json.loads(out)["leaderboard"]) == 2
    assert (
        err == 'trample: player "broken" failed at every decision (3 of 3; the first: RuntimeError: no model loaded)\n'
    )
