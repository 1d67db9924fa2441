"""The regular step's optimum added up by groups when the objectives read the one player's life
(trample.whole.regular.GroupedRegular: ``lethal``, ``min-overkill`` with ``max-kills`` and ``max-damage``), against
the one-step CP-SAT solve on generated boards, and inside the whole-combat search against the joint search that
solves every regular step with CP-SAT (``split=False``) and against the two-step brute force."""

from __future__ import annotations

from fractions import Fraction

import brute_combat
import pytest
import strategies
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from benchmarks.boards import ladder
from trample import Combat
from trample.models import Scenario
from trample.optimize import parse_objectives, score
from trample.optimize import solve as solve_step
from trample.whole import WholeCombat
from trample.whole.regular import GroupedRegular, applies

OBJECTIVES = [
    ["lethal"],
    ["min-overkill"],
    ["lethal", "min-overkill"],
    ["lethal", "max-kills", "min-overkill"],
    ["max-kills", "min-overkill"],
    ["min-overkill", "max-damage"],
    ["lethal", "max-damage", "min-overkill"],
]


def one_player_boards():
    return strategies.scenarios(
        step="regular",
        rules="current",
        max_attackers=4,
        max_blockers=4,
        max_players=1,
        max_planeswalkers=0,
        max_battles=0,
        max_total_power=10,
        max_work=3000,
    )


@pytest.mark.slow
@settings(max_examples=strategies.examples(80), deadline=None)
@given(one_player_boards(), st.sampled_from(OBJECTIVES))
def test_the_groups_added_up_are_the_one_step_optimum(doc, objectives):
    # 510.1c/d: attackers sharing no blocker assign independently; the player's life (lethal, overkill past it)
    # is the one term that reads them all, and it only reads the damage they assign the player together
    scenario = Scenario.from_json(doc)
    objs = parse_objectives(objectives, scenario)
    assume(applies(scenario, objs))
    got = GroupedRegular(scenario, objs, "auto").solve(scenario)
    assert got is not None and got.status == "optimal"
    step = Combat(doc)
    expected = solve_step(step, objs, tie_break=False)
    assert got.objectives == expected.objectives
    assert step.check(got.assignment).legal  # the assignment returned is legal and worth what is reported
    assert score(step, got.assignment, objs) == got.objectives


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("life", [5, 13, 20])
def test_ladder_grouped_regular_steps_agree_with_cp_sat(n, life):
    # the whole search's regular steps by groups (split, the default) against CP-SAT's (split=False): same
    # values and the same line (the chosen state is solved again with the tie-break). One-step solves are no
    # longer compared: each first step's own bounds (docs/combat.md) leave either search few regular steps
    doc = ladder(n, life=life)
    objectives = ["lethal", "max-kills", "min-overkill"]
    whole = WholeCombat(doc)
    grouped = whole.solve(objectives)
    joint = whole.solve(objectives, split=False)
    assert grouped.status == joint.status == "optimal"
    assert grouped.objectives == joint.objectives
    assert grouped.assignment.to_json() == joint.assignment.to_json()
    assert grouped.lethal == joint.lethal


@pytest.mark.slow
@pytest.mark.parametrize("objectives", OBJECTIVES)
def test_small_ladders_match_the_brute_force(objectives):
    for doc in (ladder(2, life=5), ladder(2, life=9), ladder(3, life=10)):
        for a in doc["attackers"]:
            a["power"] = 3
        expected = brute_combat.adversarial_optimum(doc, objectives)
        result = WholeCombat(doc).solve(objectives)
        assert result.status == "optimal"
        got = tuple(Fraction(str(result.objectives[o])) for o in objectives)
        assert got == tuple(Fraction(v) for v in expected), (doc, got, expected)
        values = brute_combat.line_values(doc, result.assignment.to_json(), objectives)
        assert tuple(Fraction(values[o]) for o in objectives) == got


def test_boards_it_does_not_answer():
    # two players, a planeswalker, objectives without a threshold on the player, a targeted objective
    doc = ladder(2)
    two = dict(doc, players=[{"id": "opp", "life": 20}, {"id": "opp2", "life": 20}])
    walker = dict(doc, planeswalkers=[{"id": "w", "controller": "opp", "loyalty": 3}])
    for board, objectives, answered in (
        (doc, ["lethal", "max-kills"], True),
        (two, ["lethal"], False),
        (walker, ["lethal"], False),
        (doc, ["max-kills"], False),
        (doc, ["max-damage:opp", "min-overkill"], False),
    ):
        scenario = WholeCombat(board).scenario
        assert applies(scenario, parse_objectives(objectives, scenario)) is answered
