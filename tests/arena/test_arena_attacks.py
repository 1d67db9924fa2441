"""The attack arena (trample.arena.attacks_arena, ``trample arena --game attacks``) and the cmd: / py: players of
both declaration arenas (trample.arena.declare_arena): attacks judged by the declaration rules (508.1, 702.22;
tests/declare/test_declare.py holds them to the brute force) and scored against the proven-best attack, each value
checked against a plain three-level minimax over the brute force's legal declarations."""

from __future__ import annotations

import json
import shlex
import sys

from declaration_arena import check_against_the_brute_force
from test_declare_solve import best_blocks_by_minimax, blockers_of_attack

from trample.arena.attacks_arena import generate, survives_any_single_block
from trample.arena.metrics import strip_timing
from trample.arena.runner import run_attacks_arena, run_blocks_arena
from trample.cli import main
from trample.models.declare import load_attacks, load_declare_doc
from trample.optimize import parse_objectives

#: Propaganda (2 for each attacker) with 2 mana: the berserker's "attacks each combat" needs a payment, so it is
#: no requirement (508.1d); attacking with both costs 4 (508.1h). The giant alone: the bear blocks, 3 trample over.
PROPAGANDA = {"declare": "attackers", "active": "me", "mana": 2,
              "players": [{"id": "opp", "life": 20, "attack_tax": 2}],
              "attackers": [{"id": "giant", "power": 5, "toughness": 5, "keywords": ["trample"]},
                            {"id": "berserker", "power": 3, "toughness": 2, "keywords": ["attacks_each_combat"]}],
              "blockers": [{"id": "bear", "power": 2, "toughness": 2}]}  # fmt: skip

#: 508.1d: the berserker attacks each combat if able; nothing attacking breaks the requirement
BERSERKER = {"declare": "attackers", "active": "me", "players": [{"id": "opp", "life": 5}],
             "attackers": [{"id": "berserker", "power": 3, "toughness": 2, "keywords": ["attacks_each_combat"]},
                           {"id": "drake", "power": 2, "toughness": 2, "keywords": ["flying"]}],
             "blockers": [{"id": "viper", "power": 1, "toughness": 1, "keywords": ["deathtouch"]}]}  # fmt: skip


def attack_value_by_minimax(raw: dict, attack: dict, objs) -> tuple:
    return best_blocks_by_minimax(blockers_of_attack(raw, attack), objs)


def test_regret_is_what_the_attack_leaves_against_the_three_level_minimax():
    boards = [PROPAGANDA, BERSERKER, *[item["scenario"] for item in generate(4, seed=11)]]
    # 508.1 read as the brute force reads it; the attacker's regret: what the attack leaves under the minimax
    results = run_attacks_arena(boards, seed=3)
    objs = parse_objectives("max-damage")
    check_against_the_brute_force(
        results,
        "attacks",
        load_attacks,
        lambda raw, doc, a: attack_value_by_minimax(raw, a, objs)[0],
        lambda raw, values: max(values),
        sign=-1,
    )
    for board in results["boards"]:  # each legal attack's reply is a declare-blockers document of that attack
        for d in board["decisions"]:
            if d["legal"]:
                assert load_declare_doc(blockers_of_attack(board["scenario"], d["assignment"]))


def test_the_baselines_on_boards_worked_by_hand():
    by = {d["player"]: d for d in run_attacks_arena([PROPAGANDA])["boards"][0]["decisions"]}
    assert by["optimal"]["assignment"] == {"giant": "opp"} and by["optimal"]["values"] == {"max-damage": 3}
    assert by["optimal"]["blocks"] == {"giant": ["bear"]}  # the defender's best reply: 5 - 2 = 3 trample over
    assert not by["all"]["legal"] and by["all"]["rules"] == ["508.1h"]  # 4 to pay, 2 mana
    assert by["none"]["legal"] and by["none"]["primary_regret"] == 3  # 508.1d: paying is never required
    assert by["survivors"]["assignment"] == {"giant": "opp"}  # the bear kills the berserker (2 >= 2)
    by = {d["player"]: d for d in run_attacks_arena([BERSERKER])["boards"][0]["decisions"]}
    assert by["none"]["rules"] == ["508.1d"]  # the berserker attacks each combat if able
    # the viper's deathtouch would kill the berserker, not the drake (702.9b: it can't block a flier)
    assert by["survivors"]["assignment"] == {"drake": "opp"} and by["survivors"]["rules"] == ["508.1d"]
    assert by["all"]["legal"] and by["all"]["values"] == {"max-damage": 2}  # the viper blocks the berserker
    assert by["optimal"]["values"] == {"max-damage": 2} and by["optimal"]["blocks"] == {"berserker": ["viper"]}


def test_survives_any_single_block_reads_evasion_and_deathtouch():
    doc = load_declare_doc(BERSERKER)
    assert not survives_any_single_block(doc, "berserker")  # the viper blocks it: deathtouch (702.2b)
    assert survives_any_single_block(doc, "drake")  # 702.9b: the viper can't block a flier
    doc = load_declare_doc(PROPAGANDA)
    assert survives_any_single_block(doc, "giant") and not survives_any_single_block(doc, "berserker")


SCRIPT = r"""
import json, sys
mode = sys.argv[1]
for line in sys.stdin:
    doc = json.loads(line)["scenario"]
    if mode == "garbage":
        print("hello", flush=True)
        continue
    if mode == "crash":
        sys.exit(3)
    if doc["declare"] == "blockers":
        reply = {}
    else:
        reply = {doc["attackers"][0]["id"]: doc["players"][0]["id"]}
    print(json.dumps({"declaration": reply} if mode == "wrapped" else reply), flush=True)
"""


def _command(tmp_path, mode: str) -> str:
    path = tmp_path / "declarer.py"
    path.write_text(SCRIPT)
    return f"cmd:{shlex.join([sys.executable, str(path), mode])}"


def test_external_and_python_players_in_both_arenas(tmp_path):
    specs = ["optimal", f"mine={_command(tmp_path, 'plain')}", f"wrapped={_command(tmp_path, 'wrapped')}",
             f"junk={_command(tmp_path, 'garbage')}", f"dead={_command(tmp_path, 'crash')}",
             "py:user_agents:declare_first"]  # fmt: skip
    boards = [PROPAGANDA, BERSERKER, *[item["scenario"] for item in generate(3, seed=2)]]
    local = run_attacks_arena(boards, players=specs, seed=1, timeout=20, max_failures=10)
    for board in local["boards"]:
        by = {d["player"]: d for d in board["decisions"]}
        first = board["scenario"]["attackers"][0]["id"]
        assert by["mine"]["assignment"] == by["wrapped"]["assignment"] == {first: "opp"}
        assert by["mine"]["legal"] == by["wrapped"]["legal"]
        assert by["junk"]["rules"] == ["bad-output"] and by["dead"]["rules"] == ["crash"]
        assert by["declare-first"]["assignment"] == by["mine"]["assignment"]  # its first creature can attack
    assert {d["player"] for d in local["boards"][0]["decisions"]} == {"optimal", "mine", "wrapped", "junk", "dead",
                                                                     "declare-first"}  # fmt: skip
    # the same results on a process pool, a board a chunk
    pooled = run_attacks_arena(boards, players=specs, seed=1, timeout=20, max_failures=10, workers=2, chunk_size=1)
    assert strip_timing(pooled)["boards"] == strip_timing(local)["boards"]
    blocks = run_blocks_arena([blockers_of_attack(PROPAGANDA, {"giant": "opp"})], players=specs[:2], timeout=20)
    by = {d["player"]: d for d in blocks["boards"][0]["decisions"]}
    assert by["mine"]["assignment"] == {} and by["mine"]["primary_regret"] == 2  # unblocked: 5, the best block 3


def test_the_command(tmp_path, capsys):
    suite = tmp_path / "attacks.jsonl"
    suite.write_text(
        json.dumps(PROPAGANDA) + "\n" + json.dumps({"scenario": BERSERKER, "objective": "max-kills"}) + "\n"
    )
    out = tmp_path / "results.json"
    script = _command(tmp_path, "plain")[4:]
    code = main(["arena", "--game", "attacks", str(suite), "--players", "optimal,none", "--external",
                 f"ext={script}", "--out", str(out), "--format", "json"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    results = json.loads(out.read_text())
    assert results["config"]["game"] == "attacks"
    assert [d["player"] for d in results["boards"][0]["decisions"]] == ["optimal", "none", "ext"]
    assert results["boards"][1]["objective"] == "max-kills"
    assert main(["arena", "--game", "attacks", "--n", "1", "--players", "chump"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith('trample: --players: unknown attacks player "chump"'), err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**PROPAGANDA, "declare": "blockers"}) + "\n")
    assert main(["arena", "--game", "attacks", str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "line 1" in err, err
    assert main(["arena", "--game", "attacks", "--n", "2", "--seed", "4", "--players", "optimal,survivors",
                 "--format", "json", "--out", str(out)]) == 0  # fmt: skip
    assert json.loads(out.read_text())["config"]["suite"]["generated"] == "attacks"
