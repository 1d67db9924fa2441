"""The defending side of one combat damage step (510.1d): blockers divide their damage among the attackers they
block. ``side="defending"`` (blockers' keys) and ``side="both"`` (attackers' and blockers' keys), against the
brute-force oracle tests/oracles/brute.py, plus named 510.1d cases and the command line's ``--side``.
"""

import json
import re
from pathlib import Path

import brute
import pytest
import strategies
from boards import canon
from cli_process import run
from hypothesis import given
from hypothesis import strategies as st

from trample import Combat
from trample.models import load_scenario

ROOT = Path(__file__).resolve().parents[2]
OPP = [{"id": "opp", "life": 20}]
RULE = re.compile(r"^\d{3}(\.\d+[a-z]?)?\b")


def board(attackers, blockers, step="regular", **extra) -> dict:
    d = {"step": step, "players": OPP, "attackers": list(attackers), "blockers": list(blockers)}
    d.update(extra)
    return d


def keys(assignments) -> list:
    return sorted(canon(a) for a in assignments)


def rules_of(combat, assignment) -> list[str]:
    return [v.rule for v in combat.check(assignment).violations]


# One blocker, x (3 power), blocks two attackers: each names it in blocked_by.
TWO = [
    {"id": "a", "power": 2, "toughness": 4, "attacking": "opp", "blocked_by": ["x"]},
    {"id": "b", "power": 2, "toughness": 4, "attacking": "opp", "blocked_by": ["x"]},
]
X3 = {"id": "x", "power": 3, "toughness": 5}


# ---------------------------------------------------------------------------------------------
# Named 510.1d cases
# ---------------------------------------------------------------------------------------------


def test_a_blocker_divides_its_damage_freely_among_the_attackers_it_blocks():
    # 510.1d: any division of all 3 among a and b (there is no order, and no lethal requirement)
    combat = Combat(board(TWO, [X3]), side="defending")
    assert keys(combat.assignments()) == keys(
        [{"x": {"a": 3}}, {"x": {"a": 2, "b": 1}}, {"x": {"a": 1, "b": 2}}, {"x": {"b": 3}}]
    )
    assert combat.count() == 4
    assert combat.check({"x": {"a": 1, "b": 2}}).legal


def test_deathtouch_changes_nothing_for_the_division():
    # 510.1d: a deathtouch blocker still divides freely; 1 point is enough to destroy (702.2b) but nothing forces it
    combat = Combat(board(TWO, [dict(X3, keywords=["deathtouch"])]), side="defending")
    assert combat.count() == 4


def test_attackers_removed_from_combat_take_no_blocker_damage():
    # 506.4: a removed attacker is no longer blocked by x; x's 3 all go to b
    attackers = [dict(TWO[0], in_combat=False), TWO[1]]
    combat = Combat(board(attackers, [X3]), side="defending")
    assert keys(combat.assignments()) == keys([{"x": {"b": 3}}])
    assert rules_of(combat, {"x": {"a": 1, "b": 2}}) == ["506.4"]
    # both removed: x is blocking nothing in combat and assigns nothing (510.1d)
    combat = Combat(board([dict(a, in_combat=False) for a in TWO], [X3]), side="defending")
    assert keys(combat.assignments()) == keys([{"x": {}}])
    assert rules_of(combat, {"x": {"b": 3}}) == ["510.1d"]


@pytest.mark.parametrize(
    "keywords, step, count, expected",
    [
        (["first_strike"], "regular", 1, [{"x": {}}]),  # 702.7c: first strike without double strike: done
        (["first_strike"], "first_strike", 4, None),  # 702.7b: it divides in the first-strike step
        ([], "first_strike", 1, [{"x": {}}]),  # 510.4: no first strike, no first-strike damage
        (["double_strike"], "regular", 4, None),  # 702.4b: both steps
        (["double_strike"], "first_strike", 4, None),
    ],
)
def test_which_step_a_blocker_deals_damage_in(keywords, step, count, expected):
    combat = Combat(board(TWO, [dict(X3, keywords=keywords)], step=step), side="defending")
    assert combat.count() == count
    if expected is not None:
        assert keys(combat.assignments()) == keys(expected)


def test_zero_power_and_removed_blockers_assign_nothing():
    # 510.1a: power 0 or less assigns nothing; 506.4: a blocker removed from combat deals no combat damage
    blockers = [
        {"id": "z", "power": 0, "toughness": 1},
        {"id": "n", "power": -1, "toughness": 3},
        dict(X3, in_combat=False),
    ]
    attackers = [dict(TWO[0], blocked_by=["z", "n", "x"])]
    combat = Combat(board(attackers, blockers), side="defending")
    assert keys(combat.assignments()) == keys([{"z": {}, "n": {}, "x": {}}])
    assert rules_of(combat, {"z": {"a": 1}, "n": {}, "x": {}}) == ["510.1a"]
    assert rules_of(combat, {"z": {}, "n": {}, "x": {"a": 3}}) == ["506.4"]


def test_what_a_blocker_may_not_do():
    combat = Combat(board(TWO + [{"id": "c", "power": 1, "toughness": 1, "attacking": "opp"}], [X3]), side="defending")
    assert rules_of(combat, {"x": {"opp": 3}}) == ["510.1d"]  # never to a player
    assert rules_of(combat, {"x": {"c": 3}}) == ["510.1d"]  # only to attackers it blocks
    assert rules_of(combat, {"x": {"a": 2}}) == ["510.1a"]  # all of its damage
    assert rules_of(combat, {"x": {"a": 2, "b": 1}, "a": {"x": 2}}) == ["510.1"]  # an attacker is not its source


def test_the_510_1_message_names_the_side_whose_sources_are_asked():
    # 510.1: on the attacking side only attacking creatures assign damage; on the defending side the blockers
    attacking = Combat(board(TWO, [X3])).check({"x": {"a": 3}, "a": {"x": 2}, "b": {"x": 2}})
    defending = Combat(board(TWO, [X3]), side="defending").check({"x": {"a": 3}, "a": {"x": 2}})
    assert [(v.rule, v.message) for v in attacking.violations] == [
        ("510.1", "x is not an attacking creature; it cannot assign this side's damage")
    ]
    assert [(v.rule, v.message) for v in defending.violations] == [
        ("510.1", "a is not a source of combat damage here; it cannot assign this side's damage")
    ]


def test_both_sides_is_the_product_of_the_two():
    # 510.1 / 510.1d: the two players' assignments do not constrain each other, so the count is the product:
    # the trampler t (4 power, x needs 5 with b's help: 702.19b) and x's division.
    attackers = [
        {"id": "t", "power": 4, "toughness": 4, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]},
        {"id": "b", "power": 2, "toughness": 4, "attacking": "opp", "blocked_by": ["x"]},
    ]
    doc = board(attackers, [X3])
    att, dfn, both = (Combat(doc, side=s) for s in ("attacking", "defending", "both"))
    assert (att.count(), dfn.count(), both.count()) == (2, 4, 8)
    assert keys(both.assignments()) == keys({**a, **d} for a in att.assignments() for d in dfn.assignments())
    assert both.check({"t": {"x": 3, "opp": 1}, "b": {"x": 2}, "x": {"t": 3}}).legal
    assert rules_of(both, {"t": {"x": 2, "opp": 2}, "b": {"x": 2}, "x": {"t": 3}}) == ["702.19b"]


# ---------------------------------------------------------------------------------------------
# Differential tests against the one-step oracle
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@given(strategies.scenarios(max_work=800), st.sampled_from(["defending", "both"]))
def test_legal_set_matches_brute_force(doc, side):
    expected = brute.brute_force(doc, side)
    combat = Combat(load_scenario(doc), side=side)
    got = list(combat.assignments())
    assert combat.count() == len(expected)
    assert keys(got) == keys(expected)
    assert len({canon(a) for a in got}) == len(got)
    names = {b["id"] for b in doc.get("blockers", [])}
    if side == "both":
        names |= {a["id"] for a in doc["attackers"]}
    assert all(set(a) == names for a in got)


@st.composite
def defending_candidates(draw):
    doc = draw(strategies.scenarios(max_work=800))
    legal = brute.brute_force(doc, "defending")
    return doc, draw(strategies.near_legal_assignments(doc, legal, side="defending"))


@pytest.mark.slow
@given(defending_candidates())
def test_check_matches_brute_force_defending(case):
    doc, candidate = case
    expected = brute.is_legal(doc, candidate, "defending")
    verdict = Combat(load_scenario(doc), side="defending").check(candidate)
    assert verdict.legal == expected, (candidate, verdict)
    assert verdict.legal == (not verdict.violations)
    assert all(RULE.match(v.rule) for v in verdict.violations)


@st.composite
def both_candidates(draw):
    doc = draw(strategies.scenarios(max_work=800))
    att = strategies.random_assignment(draw, doc, brute.brute_force(doc, "attacking"), side="attacking")
    dfn = strategies.random_assignment(draw, doc, brute.brute_force(doc, "defending"), side="defending")
    return doc, {**att, **dfn}


@pytest.mark.slow
@given(both_candidates())
def test_check_matches_brute_force_both(case):
    doc, candidate = case
    expected = brute.is_legal(doc, candidate, "both")
    verdict = Combat(load_scenario(doc), side="both").check(candidate)
    assert verdict.legal == expected, (candidate, verdict)
    assert all(RULE.match(v.rule) for v in verdict.violations)


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_side(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(board(TWO, [X3])))
    assert run("count", f, "--side", "defending") == (0, '{"count":4}\n', "")
    assert run("count", f, "--side", "both") == (0, '{"count":4}\n', "")  # each attacker has one route
    assert run("count", f) == (0, '{"count":1}\n', "")
    code, out, _ = run("enumerate", f, "--side", "defending")
    assert code == 0 and keys(json.loads(x) for x in out.splitlines()) == keys(
        [{"x": {"a": 3}}, {"x": {"a": 2, "b": 1}}, {"x": {"a": 1, "b": 2}}, {"x": {"b": 3}}]
    )
    assert run("check", f, '{"x": {"a": 1, "b": 2}}', "--side", "defending") == (
        0,
        '{"legal":true,"violations":[]}\n',
        "",
    )
    code, out, _ = run("check", f, '{"x": {"opp": 3}}', "--side", "defending")
    assert code == 1 and [v["rule"] for v in json.loads(out)["violations"]] == ["510.1d"]
    code, out, err = run("check", f, '{"x": {"a": 3}}', "--side", "sideways")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--side" in err
