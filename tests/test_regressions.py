"""Regressions found by adversarial QA: each test pins one bug that was found (or reported), with its rule."""

from __future__ import annotations

import pytest

from brute import brute_force, is_legal
from solver import Combat, open_combat

OPP = [{"id": "opp", "life": 20}]

# Boards on which every objective asked for is constant: no attacker can reach a player (702.19f: a trampler
# attacking a planeswalker without trample over planeswalkers; 510.1c: a blocked attacker without trample).
CONSTANT = [
    ("702.19f", {"players": OPP, "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 3}],
                 "attackers": [{"id": "a", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "w",
                                "blocked_by": ["x", "y"]}],
                 "blockers": [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 2}]}),
    ("510.1c", {"players": OPP,
                "attackers": [{"id": "a", "power": 4, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "y"]},
                              {"id": "b", "power": 2, "toughness": 3, "attacking": "opp", "blocked_by": ["y"]}],
                "blockers": [{"id": "x", "power": 1, "toughness": 9, "keywords": ["indestructible"]},
                             {"id": "y", "power": 1, "toughness": 9}]}),
]


@pytest.mark.parametrize("rule,board", CONSTANT, ids=[r for r, _ in CONSTANT])
@pytest.mark.parametrize("objectives", [["lethal"], ["max-damage"], ["lethal", "max-damage"]])
@pytest.mark.parametrize("side", ["attacking", "both"])
def test_constant_objectives_without_tie_break_are_optimal(rule, board, objectives, side):
    # reported: with tie_break=False and every objective constant, solve returned "unknown" and no assignment;
    # every legal assignment is optimal there (rule: the board's `rule` keeps the player out of reach)
    result = Combat(board, side=side).solve(objectives, tie_break=False)
    assert result.status == "optimal", rule
    assert is_legal(board, result.assignment.to_json(), side), rule
    assert all(v == 0 for v in result.objectives.values()), rule
    assert result.to_json()["assignment"] in brute_force(board, side)
