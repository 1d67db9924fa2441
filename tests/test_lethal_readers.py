"""Every reader of "is it lethal?" reads what the damage does (trample.outcome), never the damage assigned:
`trample score` and the arena (objectives.is_lethal, metrics.reference / judge), the environments' rewards, the
greedy players and the pictures. Issue 20's reproducers, each named after its rule, and a property over generated
effect boards: every reader's verdict equals the losers of the outcome of the line `solve` returns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trample.arena.metrics import judge, reference
from trample.arena.objectives import is_lethal, losers, parse_objectives
from trample.models import load_scenario

ROOT = Path(__file__).resolve().parent.parent

# 702.15b: the priest's lifelink gain happens at the same time as the damage (510.2): opp ends at 3 - 3 + 2 = 2
LIFELINK = {
    "players": [{"id": "opp", "life": 3}],
    "attackers": [
        {"id": "rhino", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp",
         "blocked_by": ["priest"]}
    ],
    "blockers": [{"id": "priest", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
}  # fmt: skip
# 702.90b, 704.5c: 1 infect damage to a player with 9 poison counters gives the tenth
INFECT = {
    "players": [{"id": "opp", "life": 20, "poison": 9}],
    "attackers": [{"id": "g", "power": 1, "toughness": 1, "keywords": ["infect"], "attacking": "opp"}],
}
# 903.10a, 704.6c: 22 combat damage from one commander (1 already dealt + 21 now) loses a 40-life player the game
COMMANDER = {
    "players": [{"id": "opp", "life": 40, "commander_damage": {"cmd": 1}}],
    "attackers": [{"id": "cmd", "power": 21, "toughness": 2, "commander": "me", "attacking": "opp"}],
}
# 615.1a: all combat damage that would be dealt to opp is prevented
PREVENTED = {
    "players": [{"id": "opp", "life": 3, "prevent_combat": True}],
    "attackers": [{"id": "a", "power": 5, "toughness": 5, "attacking": "opp"}],
}
CASES = [
    ("lifelink", LIFELINK, {"rhino": {"priest": 2, "opp": 3}}, False),  # 702.15b
    ("infect", INFECT, {"g": {"opp": 1}}, True),  # 704.5c
    ("commander", COMMANDER, {"cmd": {"opp": 21}}, True),  # 704.6c
    ("prevented", PREVENTED, {"a": {"opp": 5}}, False),  # 615.1a
]


@pytest.mark.parametrize("name,board,assignment,lethal", CASES, ids=[c[0] for c in CASES])
def test_the_arena_reads_lethal_on_the_outcome(name, board, assignment, lethal):
    scenario = load_scenario(board)
    assert is_lethal(scenario, assignment) is lethal
    assert losers(scenario, assignment) == (frozenset({"opp"}) if lethal else frozenset())
    for objective in ("lethal", "max-damage", "max-kills", "max-damage,lethal"):
        objs = parse_objectives(objective, scenario)
        ref = reference(scenario, objs)
        assert ref["lethal_exists"] is lethal, objective  # the objective asked does not change it
        rec = judge(scenario, objs, ref, "p", output=assignment)
        assert rec["legal"] and rec["lethal"] is lethal
        if "lethal" in rec["values"]:  # values and the verdict of one record agree
            assert rec["values"]["lethal"] == int(lethal)


def test_trample_score_lines_agree_with_the_outcome(tmp_path):
    path = tmp_path / "decisions.jsonl"
    lines = [{"scenario": b, "assignment": a, "objective": "lethal,max-damage"} for _, b, a, _ in CASES]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "score", str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    for (name, _, _, lethal), rec in zip(CASES, out, strict=True):
        assert rec["lethal"] is lethal and rec["lethal_exists"] is lethal, name
        assert rec["values"]["lethal"] == int(lethal) == rec["optimum"]["lethal"], name


# 510.2, 702.15b, 702.16e: L's damage to z gains opp 1 life (opp survives at 1); to y it is prevented (opp dies)
SPLIT_LIFELINK = {
    "players": [{"id": "opp", "life": 1}],
    "attackers": [
        {"id": "x", "power": 1, "toughness": 1, "attacking": "opp"},
        {"id": "y", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"], "protection": ["white"]},
        {"id": "z", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"]},
    ],
    "blockers": [{"id": "L", "power": 1, "toughness": 2, "keywords": ["lifelink"], "tags": ["white"]}],
}


def test_the_combat_game_returns_read_the_line_as_played():
    from trample.arena.combat_game import CombatGame

    game = CombatGame(SPLIT_LIFELINK, "lethal")
    start = game.initial()
    assert start.player == 1  # the attackers' damage is forced; the defender divides L's damage
    ends = {}
    for action in start.legal_actions():
        end = start
        end = end.apply(action)
        while not end.terminal:
            end = end.apply(end.legal_actions()[0])
        ends[json.dumps(end.line()["regular"]["L"], sort_keys=True)] = end.returns()[0]
    assert ends == {'{"z": 1}': 0.0, '{"y": 1}': 1.0}  # the prevented reply loses the game (704.5a)
    best = start.apply(game.best_reply(start))
    while not best.terminal:
        best = best.apply(best.legal_actions()[0])
    assert best.line()["regular"]["L"] == {"z": 1} and best.returns() == [0.0, 0.0]
