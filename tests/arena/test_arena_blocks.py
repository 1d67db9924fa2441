"""The blocks arena (trample.arena.blocks_arena, ``trample arena --game blocks``): defending players' block
declarations judged by the declaration rules (509.1, 702; tests/test_declare.py holds them to the brute force)
and scored against the proven-best blocks, the value of each checked against a plain minimax over the brute
force's legal declarations (tests/test_declare_solve.py)."""

from __future__ import annotations

import json

from declaration_arena import check_against_the_brute_force
from test_declare_solve import best_blocks_by_minimax, damage_value, oriented

from trample.arena.blocks_arena import generate
from trample.arena.runner import run_blocks_arena
from trample.cli import main
from trample.models.declare import load_blocks
from trample.optimize import parse_objectives

TRAMPLER = {"declare": "blockers", "players": [{"id": "opp", "life": 4}],
            "attackers": [{"id": "t", "power": 5, "toughness": 3, "keywords": ["trample"], "attacking": "opp"},
                          {"id": "f", "power": 2, "toughness": 2, "keywords": ["flying", "menace"],
                           "attacking": "opp"}],
            "blockers": [{"id": "elf", "power": 1, "toughness": 1}, {"id": "wall", "power": 0, "toughness": 4},
                         {"id": "bear", "power": 2, "toughness": 2}]}  # fmt: skip


def test_regret_is_the_value_given_away_against_the_minimax():
    # 509.1 read as the brute force reads it; the defender's regret: the damage given away over the minimax
    results = run_blocks_arena([TRAMPLER, *[item["scenario"] for item in generate(2, seed=5)]], seed=3)
    objs = parse_objectives("max-damage")
    check_against_the_brute_force(
        results,
        "blocks",
        load_blocks,
        lambda raw, doc, d: damage_value(doc.scenario(load_blocks(d, doc)), objs)[0],
        lambda raw, values: best_blocks_by_minimax(raw, objs)[0],
        sign=1,
    )


def test_blocking_only_when_the_blocker_survives_gives_the_trampler_away():
    """Against a 5/3 trampler and a flier with menace, no blocker survives a block, so "survive" declares nothing
    and lets 7 through; the three together absorb the trampler's 5 (lethal damage 1 + 4 + 2), only the flier's 2
    get through."""
    results = run_blocks_arena([TRAMPLER], players=["optimal", "chump", "no-blocks", "survive"])
    by = {d["player"]: d for d in results["boards"][0]["decisions"]}
    assert by["optimal"]["values"] == {"max-damage": 2}
    assert by["no-blocks"]["values"] == {"max-damage": 7} and by["no-blocks"]["primary_regret"] == 5
    assert by["survive"]["assignment"] == {} and by["survive"]["primary_regret"] == 5
    assert by["chump"]["assignment"] == {"t": ["elf", "wall", "bear"]}  # none may block the flier (702.9b)
    assert by["chump"]["primary_regret"] == 0


def test_the_command(tmp_path, capsys):
    suite = tmp_path / "blocks.jsonl"
    suite.write_text(json.dumps(TRAMPLER) + "\n")
    out = tmp_path / "results.json"
    code = main(["arena", "--game", "blocks", str(suite), "--players", "optimal,none=no-blocks", "--out", str(out),
                 "--format", "json"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    board = json.loads(out.read_text())["boards"][0]
    assert [d["player"] for d in board["decisions"]] == ["optimal", "none"]
    assert main(["arena", "--game", "blocks", "--n", "1", "--players", "greedy"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith('trample: --players: unknown blocks player "greedy"'), err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**TRAMPLER, "declare": "attackers"}) + "\n")
    assert main(["arena", "--game", "blocks", str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "line 1" in err, err


def test_oriented_regret_for_a_minimised_objective():
    """min-overkill is the attacker's to minimise: regret is still what the defender gave away, never negative."""
    results = run_blocks_arena([TRAMPLER], objective="min-overkill,max-damage", players=["optimal", "no-blocks"])
    for d in results["boards"][0]["decisions"]:
        assert d["primary_regret"] >= 0
    objs = parse_objectives("min-overkill,max-damage")
    assert oriented(objs, {"min-overkill": 1, "max-damage": 0})[0] == -1
