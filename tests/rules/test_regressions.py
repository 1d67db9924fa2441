"""Regressions found by adversarial QA: each test pins one bug that was found (or reported), with its rule."""

from __future__ import annotations

import pytest
from boards import THREE_GANGS
from brute import brute_force, is_legal

from trample import Combat
from trample.optimize import STRONG_PARAMS

OPP = [{"id": "opp", "life": 20}]

# Boards on which every objective asked for is constant: no attacker can reach a player (702.19f: a trampler
# attacking a planeswalker without trample over planeswalkers; 510.1c: a blocked attacker without trample).
CONSTANT = [
    (
        "702.19f",
        {
            "players": OPP,
            "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 3}],
            "attackers": [
                {
                    "id": "a",
                    "power": 3,
                    "toughness": 3,
                    "keywords": ["trample"],
                    "attacking": "w",
                    "blocked_by": ["x", "y"],
                }
            ],
            "blockers": [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 2}],
        },
    ),
    (
        "510.1c",
        {
            "players": OPP,
            "attackers": [
                {"id": "a", "power": 4, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "y"]},
                {"id": "b", "power": 2, "toughness": 3, "attacking": "opp", "blocked_by": ["y"]},
            ],
            "blockers": [
                {"id": "x", "power": 1, "toughness": 9, "keywords": ["indestructible"]},
                {"id": "y", "power": 1, "toughness": 9},
            ],
        },
    ),
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


# Boards on which the default CP-SAT settings (no LP relaxation on small models) find the optimum at once but
# cannot prove it in minutes; the solver now escalates to the LP-strong settings after a small deterministic
# budget. Judged with a deterministic-time budget, so the outcome does not depend on the machine.
def _tramplers_on_shared_blockers(n_att, power, blockers, rules="current"):
    return {
        "rules": rules,
        "players": OPP,
        "attackers": [
            {
                "id": f"a{i}",
                "power": power,
                "toughness": 1,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [b["id"] for b in blockers],
            }
            for i in range(n_att)
        ],
        "blockers": blockers,
    }


HARD = [
    # 702.19b: eight 30-power tramplers on one 100-toughness wall: 240 - 100 = 140 tramples over, no more
    (
        "702.19b wall",
        _tramplers_on_shared_blockers(8, 30, [{"id": "w", "power": 1, "toughness": 100}]),
        ["max-damage"],
        {"max-damage": 140},
    ),
    # 510.1c (2024-09): legacy order, three 12-power tramplers on six shared 4-toughness blockers: 36 - 24 = 12
    (
        "legacy order",
        _tramplers_on_shared_blockers(
            3, 12, [{"id": f"b{j}", "power": 1, "toughness": 4} for j in range(6)], rules="legacy"
        ),
        ["max-damage"],
        {"max-damage": 12},
    ),
]


@pytest.mark.parametrize("name,board,objectives,best", HARD, ids=[h[0] for h in HARD])
def test_hard_boards_are_proven_optimal_within_a_small_deterministic_budget(name, board, objectives, best):
    result = Combat(board).solve(objectives, deterministic_time=3)
    assert result.status == "optimal", name
    assert result.objectives == best, name
    assert is_legal(board, result.assignment.to_json()), name


# The regular step the whole combat of benchmarks.boards.defeatable_with(6, "trample_over+as_though_unblocked")
# solves (twice) for min-overkill: the first step took out the planeswalker (loyalty 0) and left the player at 1.
# The default settings find the optimum at once but drag on its proof: at an escalation threshold of 0.05 units
# they spent 0.2-0.25 s of CPU, and within 0.03 units the answer was only feasible; escalating after 0.01 units,
# the LP proves it in about 0.001 more.
_DRAGGING_KEYWORDS = ["double_strike", "trample", "trample_over_planeswalkers"]
DRAGGING = {
    "step": "regular",
    "players": [{"id": "opp", "life": 1}],
    "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 0, "in_combat": False}],
    "attackers": [
        {
            "id": f"a{i}",
            "power": 5,
            "toughness": 3,
            "keywords": _DRAGGING_KEYWORDS,
            "damage_marked": 2 * (i % 2),
            "attacking": "pw",
            "blocked_by": [f"b{i}", f"f{i // 2}"],
            "as_though_unblocked": True,
        }
        for i in range(6)
    ],
    "blockers": [{"id": f"b{i}", "power": 1, "toughness": 2} for i in range(6)]
    + [{"id": f"f{j}", "power": 2, "toughness": 3, "keywords": ["first_strike"]} for j in range(3)],
}


@pytest.mark.parametrize(
    "objectives,best",
    [
        ("lethal,max-kills,min-overkill", {"lethal": 1, "max-kills": 9, "min-overkill": 8}),
        ("min-overkill", {"min-overkill": 8}),
    ],
)
def test_a_dragging_overkill_proof_escalates_within_a_small_deterministic_budget(objectives, best):
    result = Combat(DRAGGING).solve(objectives, deterministic_time=0.03)
    assert result.status == "optimal"
    assert result.objectives == best
    assert is_legal(DRAGGING, result.assignment.to_json())


def test_a_dragging_solve_says_it_escalated_and_starting_strong_finds_the_same_canonical_optimum():
    # the whole search's regular step escalates (solved without the tie-break); the line's solve of the same state
    # with the tie-break then starts on STRONG_PARAMS (trample.whole.search._line_of): the answer must not move
    objectives = "lethal,max-kills,min-overkill"
    searched = Combat(DRAGGING).solve(objectives, tie_break=False)
    assert searched.escalated
    default = Combat(DRAGGING).solve(objectives)
    strong = Combat(DRAGGING).solve(objectives, params=STRONG_PARAMS)
    assert default.escalated and not strong.escalated  # explicit settings never escalate
    assert strong.status == default.status == "optimal"
    assert strong.objectives == default.objectives
    assert strong.assignment.to_json() == default.assignment.to_json()
    assert not Combat(THREE_GANGS).solve("max-kills").escalated


@pytest.mark.slow
def test_reader_closing_an_all_optimal_stream_is_a_clean_exit(tmp_path):
    # found: `trample solve ... --all-optimal | head -1` aborted with exit 134 ("terminate called without an
    # active exception"): the CP-SAT enumeration thread was still running while the interpreter shut down.
    # 702.19b: every split that kills the three 2/2 blockers of each trampler is optimal for max-kills.
    import json
    import subprocess
    import sys

    board = THREE_GANGS
    path = tmp_path / "b.json"
    path.write_text(json.dumps(board))
    for args in (
        ["solve", path, "--objective", "max-kills", "--all-optimal"],
        ["enumerate", path, "--engine", "cpsat"],
    ):
        proc = subprocess.Popen(
            [sys.executable, "-m", "trample", *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = proc.stdout.readline()
        proc.stdout.close()  # the reader goes away, like `| head -1`
        _, err = proc.communicate(timeout=120)
        assert is_legal(board, json.loads(first))
        assert proc.returncode == 0, err
        assert "terminate" not in err and "Traceback" not in err


def test_len_of_a_huge_legal_set_says_to_use_count():
    # found: len(combat.legal_assignments) raised "cannot fit 'int' into an index-sized integer" past 2**63;
    # 702.19b: twelve 40-power tramplers, each blocked by its own 2/2s, have about 10^33 legal assignments
    board = {
        "players": OPP,
        "attackers": [
            {
                "id": f"a{i}",
                "power": 40,
                "toughness": 1,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"b{i}", f"c{i}"],
            }
            for i in range(12)
        ],
        "blockers": [{"id": f"{k}{i}", "power": 1, "toughness": 2} for i in range(12) for k in "bc"],
    }
    legal = Combat(board).legal_assignments
    assert legal.count() > 2**63 and bool(legal)
    with pytest.raises(OverflowError, match=r"use \.count\(\)"):
        len(legal)
    # one of them: everything on its two blockers (41 splits), or both lethal and 1..36 to the player (C(37, 2))
    assert len(Combat(dict(board, attackers=board["attackers"][:1])).legal_assignments) == 41 + 666
