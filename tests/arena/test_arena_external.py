"""External players (docs/arena.md): programs speaking JSON Lines on stdin/stdout, scored like any player.

The test writes small player scripts into tmp_path. A crash, a hang (a short timeout) and garbage are scored as
illegal decisions (rules "crash", "timeout", "bad-output") and the run goes on; a dead player is restarted.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from waiting import wait_until

from trample.arena import ExternalPlayer, decision_seed, generate, make_player, run_arena
from trample.models import load_scenario

NAIVE_PLAYER_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "arena"

# A player: the naive player of benchmarks/arena/naive_player.py (imported from the folder given as its 4th
# argument): every attacker puts all its damage on its first blocker in combat, else on what it attacks. That is
# legal on the "basic" level (regular step, current rules, nothing removed from combat; 510.1b/c).
# MODE changes the answer to decision number N (counted across restarts in a file next to the script).
SCRIPT = r"""
import json, signal, sys
mode, counter, log = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, sys.argv[4])
from naive_player import answer

for line in sys.stdin:
    request = json.loads(line)
    with open(counter, "a+") as fh:
        fh.seek(0)
        n = len(fh.read()) + 1
        fh.write("x")
    with open(log, "a") as fh:
        fh.write(line)
    reply = json.dumps(answer(request["scenario"]))
    if mode == "crash" and n == 2:
        print("dying on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "hang" and n == 2:
        signal.pause()  # never answers: blocked until it is killed
    if mode == "garbage" and n == 2:
        reply = "hello"
    if mode == "garbage" and n == 3:
        reply = "[1, 2]"
    if mode == "garbage" and n == 4:
        reply = json.dumps({"zz": {}})
    if mode == "wrapped":
        reply = json.dumps({"assignment": json.loads(reply)})
    print(reply, flush=True)
"""


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "player.py"
    path.write_text(SCRIPT)

    def command(mode: str) -> str:
        counter, log = str(tmp_path / f"{mode}.count"), str(tmp_path / f"{mode}.log")
        args = [sys.executable, str(path), mode, counter, log, str(NAIVE_PLAYER_DIR)]
        return " ".join(shlex.quote(a) for a in args)

    command.dir = tmp_path
    return command


BOARDS = generate("basic", 5, seed=4)


def _rules(results, player):
    return [next(d for d in b["decisions"] if d["player"] == player)["rules"] for b in results["boards"]]


def test_crash_hang_and_garbage_are_illegal_and_the_run_goes_on(script):
    players = [
        f"good=cmd:{script('good')}",
        f"crashy=cmd:{script('crash')}",
        f"hangy=cmd:{script('hang')}",
        f"garbage=cmd:{script('garbage')}",
        "declaration",
    ]
    results = run_arena(BOARDS, players=players, timeout=2)  # the hang never ends: the timeout ended it
    assert _rules(results, "good") == [[]] * 5
    assert _rules(results, "crashy") == [[], ["crash"], [], [], []]
    assert _rules(results, "hangy") == [[], ["timeout"], [], [], []]
    assert _rules(results, "garbage") == [[], ["bad-output"], ["bad-output"], ["bad-output"], []]
    crash = next(d for d in results["boards"][1]["decisions"] if d["player"] == "crashy")
    assert crash["violations"][0]["message"] == "crashy exited with code 3: dying on purpose"
    hang = next(d for d in results["boards"][1]["decisions"] if d["player"] == "hangy")
    assert hang["violations"][0]["message"] == "hangy gave no answer within 2 s"
    garbage = [
        next(d for d in b["decisions"] if d["player"] == "garbage")["violations"][0]["message"]
        for b in results["boards"][1:4]
    ]
    assert garbage[0] == 'garbage answered a line that is not JSON: "hello"'
    assert garbage[1] == 'garbage answered "[1, 2]", not an assignment object'
    assert garbage[2] == 'not an assignment: assignment.zz: unknown source "zz"'
    rows = {r["player"]: r for r in results["leaderboard"]}
    assert rows["good"]["illegal"] == 0 and rows["good"]["decisions"] == 5
    assert (rows["crashy"]["illegal"], rows["crashy"]["illegal_rules"]) == (1, {"crash": 1})
    assert (rows["hangy"]["illegal"], rows["hangy"]["illegal_rules"]) == (1, {"timeout": 1})
    assert (rows["garbage"]["illegal"], rows["garbage"]["illegal_rules"]) == (3, {"bad-output": 3})
    # the crashed and the hung programs were started again: five requests reached each of them
    for mode in ("crash", "hang", "garbage", "good"):
        assert len((script.dir / f"{mode}.log").read_text().splitlines()) == 5


def test_the_request_is_the_normal_form_scenario_objective_and_seed(script):
    results = run_arena(BOARDS[:2], players=[f"p=cmd:{script('good')}"], objective="max-kills", seed=17)
    requests = [json.loads(line) for line in (script.dir / "good.log").read_text().splitlines()]
    assert [sorted(r) for r in requests] == [["objective", "scenario", "seed"]] * 2
    for i, (req, item) in enumerate(zip(requests, BOARDS)):
        assert req["scenario"] == load_scenario(item["scenario"]).to_json()
        assert req["objective"] == "max-kills"
        assert req["seed"] == decision_seed(17, i, "p")
    assert _rules(results, "p") == [[], []]


def test_wrapped_answers_and_restarts(script):
    player = ExternalPlayer(shlex.split(script("wrapped")), name="w", timeout=2)
    scenario = load_scenario(BOARDS[0]["scenario"])
    try:
        first = player.decide(scenario, "max-damage", 1)
        assert first == {
            a.id: ({a.blocked_by[0]: a.power} if a.blocked_by else {a.attacking: a.power}) for a in scenario.attackers
        }
        assert player.starts == 1
        pid = player.pid
        assert pid is not None and player.running
        os.kill(pid, 9)  # killed from outside between two decisions
        wait_until(lambda: not player.running)  # until it has exited
        assert player.decide(scenario, "max-damage", 2) == first  # a dead player is started again
        assert player.starts == 2 and player.pid != pid
    finally:
        player.close()
    assert player.pid is None and not player.running


def test_a_program_that_cannot_start_is_a_crash_every_time():
    results = run_arena(BOARDS[:3], players=["ghost=cmd:/nonexistent/trample-player --x", "greedy"])
    assert _rules(results, "ghost") == [["crash"]] * 3
    assert _rules(results, "greedy") == [[]] * 3
    msg = results["boards"][0]["decisions"][0]["violations"][0]["message"]
    assert msg.startswith("cannot start '/nonexistent/trample-player'")


def test_specs():
    p = make_player("bot=cmd:python3 -c 'print(1)'", timeout=1.5)
    assert (p.name, p.argv, p.timeout) == ("bot", ["python3", "-c", "print(1)"], 1.5)
    assert make_player("cmd:./my_ai --fast").name == "cmd:./my_ai --fast"


def test_another_threads_reaping_never_takes_a_player_being_started(script, monkeypatch):
    # A Dask worker with threads runs several chunks in one process; one chunk's reap_orphans once listed a player
    # that another chunk had started but not yet registered, killed it and collected its exit status, so that the
    # player seemed to have exited with code 0 (a "crash" in an arena run on a LocalCluster). The reaping is made
    # to run right after the process is started, before the player registers it: it must wait, and spare it.
    import subprocess
    import threading

    from trample.arena import external

    real_popen = subprocess.Popen
    reapers: list[threading.Thread] = []

    def popen(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        reaper = threading.Thread(target=external.reap_orphans)
        reaper.start()
        reaper.join(0.5)  # with the lock it waits for the registration; without it, it kills the new player
        reapers.append(reaper)
        return proc

    monkeypatch.setattr(external.subprocess, "Popen", popen)
    player = ExternalPlayer(shlex.split(script("ok")), name="r", timeout=30)
    scenario = load_scenario(BOARDS[0]["scenario"])
    try:
        external.become_subreaper()
        first = player.decide(scenario, "max-damage", 1)
        for reaper in reapers:
            reaper.join(30)
        assert player.running and player.starts == 1  # not killed by the reaping
        assert player.decide(scenario, "max-damage", 2) == first and player.starts == 1
    finally:
        player.close()
