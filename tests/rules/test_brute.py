"""Tests of the oracle itself (tests/oracles/brute.py): perft, docs/rules.md's known engine mistakes, one test per rule,
closed-form counts, and metamorphic properties on generated scenarios."""

from __future__ import annotations

import copy
import json
from math import comb

import pytest
from boards import KNOWN_MISTAKES, canon, load_perft
from brute import brute_force, is_legal, normalize, total_to, violations
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, random_assignment, scenarios, work_bound

PERFT = load_perft()


def test_perft_file_present():
    assert len(PERFT) >= 24


def as_set(assignments) -> set:
    return {canon(a) for a in assignments}


def assert_exact(scenario, expected, side="attacking"):
    got = brute_force(scenario, side)
    assert len(got) == len(as_set(got)), "duplicates"
    assert as_set(got) == as_set(expected), got
    return got


def opp(**kw):
    return [{"id": "opp", "life": 20}]


# ---------------------------------------------------------------------------------------------
# Perft file and docs/rules.md boards
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", PERFT, ids=[p["name"] for p in PERFT])
def test_perft(line):
    got = brute_force(line["scenario"])
    assert len(got) == line["count"]
    assert len(as_set(got)) == len(got)
    assert max(total_to(got, "opp")) == line["max_damage_to_opp"]


@pytest.mark.parametrize("board", KNOWN_MISTAKES, ids=[b["name"] for b in KNOWN_MISTAKES])
def test_known_engine_mistakes(board):
    got = brute_force(board["scenario"])
    assert len(got) == board["count"]
    assert len(as_set(got)) == len(got)
    assert max(total_to(got, "opp")) == board["max_opp"]
    for asg in board["legal"]:
        assert canon(asg) in as_set(got) and is_legal(board["scenario"], asg), asg
    for asg in board["illegal"]:
        assert canon(asg) not in as_set(got) and not is_legal(board["scenario"], asg), asg
        assert violations(board["scenario"], asg)


def test_known_mistake_counts_written_out():
    # docs/rules.md "Known engine mistakes": 1: 4, 2: 5, 3: 7 (legacy 5), 4: 10, 5: 6, 6: 1 (+1), 7: 1 (+1),
    # 8: 35 per step, 9: 1, 10: 4
    counts = [len(brute_force(b["scenario"])) for b in KNOWN_MISTAKES]
    assert counts == [4, 5, 7, 5, 10, 6, 1, 1, 1, 1, 35, 35, 1, 4]


def _after_step(scenario: dict, asg: dict) -> dict:
    """The attacking side's damage dealt and state-based actions, for the next step (test helper only)."""
    nxt = copy.deepcopy(scenario)
    nxt["step"] = "regular"
    dt = {a["id"] for a in scenario["attackers"] if "deathtouch" in a.get("keywords", [])}
    for b in nxt.get("blockers", []):
        dealt = sum(split.get(b["id"], 0) for split in asg.values())
        b["damage_marked"] = b.get("damage_marked", 0) + dealt
        by_dt = any(asg[s].get(b["id"], 0) for s in dt)
        if (b["damage_marked"] >= b["toughness"] or by_dt) and "indestructible" not in b.get("keywords", []):
            b["in_combat"] = False
    for w in nxt.get("planeswalkers", []):
        w["loyalty"] = max(0, w["loyalty"] - sum(split.get(w["id"], 0) for split in asg.values()))
        if w["loyalty"] == 0:
            w["in_combat"] = False
    for bt in nxt.get("battles", []):
        bt["defense"] = max(0, bt["defense"] - sum(split.get(bt["id"], 0) for split in asg.values()))
        if bt["defense"] == 0:
            bt["in_combat"] = False
    return nxt


def test_mistake_8_no_line_reaches_the_player():
    # 702.4 (double strike), 510.4: each step is a fresh assignment; no first-step split lets the regular
    # step trample over
    board = next(b for b in KNOWN_MISTAKES if b["name"].startswith("8-first"))
    first = brute_force(board["scenario"])
    assert len(first) == 35
    for asg in first:
        assert max(total_to(brute_force(_after_step(board["scenario"], asg)), "opp")) == 0


def test_mistake_9_battle_defeated_by_first_strike():
    # 506.4c: defeated battle leaves combat; the double striker has nothing to hit in the regular step
    sc = {
        "step": "first_strike",
        "players": opp(),
        "battles": [{"id": "bt", "protector": "opp", "defense": 3}],
        "attackers": [{"id": "a", "power": 3, "toughness": 3, "keywords": ["double_strike"], "attacking": "bt"}],
    }
    first = assert_exact(sc, [{"a": {"bt": 3}}])
    assert_exact(_after_step(sc, first[0]), [{"a": {}}])


# ---------------------------------------------------------------------------------------------
# One test per rule
# ---------------------------------------------------------------------------------------------


def test_510_4_first_strike_step():
    # 510.4: first-strike step: first strike and double strike only; regular: double strike or neither
    atk = [
        {"id": "f", "power": 1, "toughness": 1, "keywords": ["first_strike"], "attacking": "opp"},
        {"id": "d", "power": 2, "toughness": 1, "keywords": ["double_strike"], "attacking": "opp"},
        {"id": "n", "power": 3, "toughness": 1, "attacking": "opp"},
    ]
    assert_exact(
        {"step": "first_strike", "players": opp(), "attackers": atk}, [{"f": {"opp": 1}, "d": {"opp": 2}, "n": {}}]
    )
    assert_exact({"step": "regular", "players": opp(), "attackers": atk}, [{"f": {}, "d": {"opp": 2}, "n": {"opp": 3}}])
    assert_exact({"players": opp(), "attackers": atk}, [{"f": {}, "d": {"opp": 2}, "n": {"opp": 3}}])


def test_510_1a_power_zero_or_less_and_all_of_it():
    # 510.1a: power 0 or less assigns nothing; otherwise all of it
    sc = {
        "players": opp(),
        "attackers": [
            {"id": "z", "power": 0, "toughness": 1, "attacking": "opp"},
            {"id": "n", "power": -2, "toughness": 1, "attacking": "opp"},
            {"id": "a", "power": 2, "toughness": 1, "attacking": "opp"},
        ],
    }
    assert_exact(sc, [{"z": {}, "n": {}, "a": {"opp": 2}}])
    assert not is_legal(sc, {"z": {}, "n": {}, "a": {"opp": 1}})
    assert not is_legal(sc, {"z": {}, "n": {}, "a": {}})
    assert not is_legal(sc, {"z": {}, "n": {}, "a": {"opp": 3}})
    assert ("510.1a",) == tuple(r for r, _ in violations(sc, {"z": {}, "n": {}, "a": {"opp": 1}}))


def test_510_1b_unblocked_all_to_its_target():
    # 510.1b: unblocked: all to the player, planeswalker or battle it attacks
    sc = {
        "players": [{"id": "p"}, {"id": "q"}],
        "planeswalkers": [{"id": "w", "controller": "q", "loyalty": 1}],
        "battles": [{"id": "t", "protector": "p", "defense": 9}],
        "attackers": [
            {"id": "a", "power": 2, "toughness": 1, "attacking": "p"},
            {"id": "b", "power": 2, "toughness": 1, "keywords": ["trample"], "attacking": "w"},
            {"id": "c", "power": 2, "toughness": 1, "keywords": ["trample_over_planeswalkers"], "attacking": "t"},
        ],
    }
    assert_exact(sc, [{"a": {"p": 2}, "b": {"w": 2}, "c": {"t": 2}}])
    assert not is_legal(sc, {"a": {"q": 2}, "b": {"w": 2}, "c": {"t": 2}})
    assert not is_legal(sc, {"a": {"p": 2}, "b": {"w": 1, "q": 1}, "c": {"t": 2}})  # 702.19f
    assert not is_legal(sc, {"a": {"p": 2}, "b": {"w": 2}, "c": {"t": 1, "p": 1}})  # battle: reading 1


def test_506_4c_removed_target_assigns_nothing():
    # 506.4c: the planeswalker or battle it attacks left combat: no damage (without TOP)
    sc = {
        "players": opp(),
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 3, "in_combat": False}],
        "battles": [{"id": "t", "protector": "opp", "defense": 3, "in_combat": False}],
        "attackers": [
            {"id": "a", "power": 2, "toughness": 1, "attacking": "w"},
            {"id": "b", "power": 2, "toughness": 1, "keywords": ["trample"], "attacking": "w"},
            {"id": "c", "power": 2, "toughness": 1, "keywords": ["trample_over_planeswalkers"], "attacking": "t"},
        ],
    }
    assert_exact(sc, [{"a": {}, "b": {}, "c": {}}])
    assert not is_legal(sc, {"a": {"w": 2}, "b": {}, "c": {}})
    assert not is_legal(sc, {"a": {}, "b": {"opp": 2}, "c": {}})
    assert not is_legal(sc, {"a": {}, "b": {}, "c": {"opp": 2}})


def test_800_4a_a_lost_protectors_battle_stays_attacked():
    # p has lost a three-player game (704.5a) and leaves it (800.4a) with what p owns and controls: w and the
    # blocker y. The battle t is not p's (p protects it); 506.4 lists no removal and 704.5w names a new protector
    # only for a battle no creature attacks: t stays in combat and c's damage goes to it (510.1b).
    sc = {
        "players_in_game": 3,
        "players": [{"id": "p", "life": 0}, {"id": "q"}],
        "planeswalkers": [{"id": "w", "controller": "p", "loyalty": 3}],
        "battles": [{"id": "t", "protector": "p", "defense": 4}],
        "attackers": [
            {"id": "a", "power": 2, "toughness": 2, "attacking": "p"},
            {"id": "b", "power": 2, "toughness": 2, "attacking": "w"},
            {"id": "c", "power": 2, "toughness": 2, "attacking": "t", "blocked_by": ["y"]},
            {"id": "d", "power": 2, "toughness": 2, "keywords": ["trample"], "attacking": "t", "blocked_by": ["y"]},
        ],
        "blockers": [{"id": "y", "power": 1, "toughness": 1, "controller": "p"}],
    }
    # c is blocked and its only blocker left (510.1c: nothing); the trampler d assigns all to t (702.19d)
    assert_exact(sc, [{"a": {}, "b": {}, "c": {}, "d": {"t": 2}}])


def test_reading_2_trampler_vs_removed_target_still_blocked():
    # reading 2: trampler attacking a removed planeswalker/battle, blocked: blockers only; none left: nothing
    sc = {
        "players": opp(),
        "battles": [{"id": "t", "protector": "opp", "defense": 1, "in_combat": False}],
        "attackers": [
            {"id": "a", "power": 3, "toughness": 1, "keywords": ["trample"], "attacking": "t", "blocked_by": ["x"]},
            {"id": "b", "power": 2, "toughness": 1, "keywords": ["trample"], "attacking": "t", "blocked": True},
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 1}],
    }
    assert_exact(sc, [{"a": {"x": 3}, "b": {}}])


def test_702_19e_top_removed_planeswalker():
    # 702.19e: TOP, attacked planeswalker removed: after lethal to every blocker, to its controller;
    # no blockers: all to the controller. Never to the removed planeswalker.
    pw = [{"id": "w", "controller": "opp", "loyalty": 9, "in_combat": False}]
    blocked = {
        "players": opp(),
        "planeswalkers": pw,
        "attackers": [
            {
                "id": "a",
                "power": 3,
                "toughness": 1,
                "keywords": ["trample_over_planeswalkers"],
                "attacking": "w",
                "blocked_by": ["x", "y"],
            }
        ],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 1},
            {"id": "y", "power": 1, "toughness": 1, "in_combat": False},
        ],
    }
    assert_exact(blocked, [{"a": {"x": 3}}, {"a": {"x": 2, "opp": 1}}, {"a": {"x": 1, "opp": 2}}])
    assert violations(blocked, {"a": {"opp": 3}})[0][0] == "702.19e"
    assert not is_legal(blocked, {"a": {"x": 1, "w": 2}})
    assert not is_legal(blocked, {"a": {"x": 1, "y": 1, "opp": 1}})
    gone = copy.deepcopy(blocked)
    gone["blockers"][0]["in_combat"] = False
    assert_exact(gone, [{"a": {"opp": 3}}])  # 702.19d + 702.19e


def test_510_1c_blocked_divides_among_current_blockers():
    # 510.1c: blocked non-trampler divides freely among creatures currently blocking it
    sc = {
        "players": opp(),
        "attackers": [{"id": "a", "power": 2, "toughness": 1, "attacking": "opp", "blocked_by": ["x", "r", "y"]}],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 5},
            {"id": "y", "power": 1, "toughness": 5},
            {"id": "r", "power": 1, "toughness": 1, "in_combat": False},
        ],
    }
    assert_exact(sc, [{"a": {"x": 2}}, {"a": {"x": 1, "y": 1}}, {"a": {"y": 2}}])
    assert not is_legal(sc, {"a": {"r": 2}})
    assert not is_legal(sc, {"a": {"x": 1, "opp": 1}})
    # none left: nothing (blocked stays true)
    gone = {
        "players": opp(),
        "attackers": [
            {"id": "a", "power": 2, "toughness": 1, "attacking": "opp", "blocked": True, "blocked_by": ["r"]}
        ],
        "blockers": [{"id": "r", "power": 1, "toughness": 1, "in_combat": False}],
    }
    assert_exact(gone, [{"a": {}}])


def test_702_19b_lethal_counts_marked_damage_and_other_attackers():
    # 702.19b: lethal = marked + everyone's assigned damage >= toughness
    sc = {
        "players": opp(),
        "attackers": [
            {"id": "s", "power": 1, "toughness": 1, "attacking": "opp", "blocked_by": ["x"]},
            {"id": "t", "power": 2, "toughness": 1, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]},
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 3, "damage_marked": 1}],
    }
    # s gives 1, marked 1: t needs 1 more before trampling
    assert_exact(sc, [{"s": {"x": 1}, "t": {"x": 2}}, {"s": {"x": 1}, "t": {"x": 1, "opp": 1}}])
    assert violations(sc, {"s": {"x": 1}, "t": {"opp": 2}})[0][0] == "702.19b"


def test_702_19b_already_lethal_and_704_5f_zero_toughness():
    # 702.19b: an indestructible blocker whose marked damage reaches its toughness needs 0; 704.5f: a 0-toughness
    # blocker was put into the graveyard before damage (the board is settled first, docs/effects.md)
    sc = {
        "players": opp(),
        "attackers": [
            {
                "id": "t",
                "power": 2,
                "toughness": 1,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["x", "z"],
            }
        ],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 2, "damage_marked": 3, "keywords": ["indestructible"]},
            {"id": "z", "power": 0, "toughness": 0},
        ],
    }
    got = assert_exact(
        sc,
        [
            {"t": {"x": 2}},
            {"t": {"x": 1, "opp": 1}},
            {"t": {"opp": 2}},
        ],
    )
    assert len(got) == 3


def test_702_2c_deathtouch_one_point_is_lethal_for_everyone():
    # 702.2c + reading 4: one deathtouch point is lethal for every trampler's check; loyalty isn't lowered
    sc = {
        "players": opp(),
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 2}],
        "attackers": [
            {"id": "d", "power": 1, "toughness": 1, "keywords": ["deathtouch"], "attacking": "w", "blocked_by": ["x"]},
            {
                "id": "t",
                "power": 2,
                "toughness": 1,
                "keywords": ["trample_over_planeswalkers", "deathtouch"],
                "attacking": "w",
                "blocked_by": ["x"],
            },
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 9}],
    }
    # d's 1 kills x; t: 2 over {x, w, opp}; opp only if w got >= 2
    assert_exact(
        sc, [{"d": {"x": 1}, "t": {"x": 2}}, {"d": {"x": 1}, "t": {"x": 1, "w": 1}}, {"d": {"x": 1}, "t": {"w": 2}}]
    )
    assert violations(sc, {"d": {"x": 1}, "t": {"w": 1, "opp": 1}})[0][0] == "702.19c"


def test_702_19d_blocked_trampler_without_blockers():
    # 702.19d: as though every blocker had lethal; TOP vs an in-combat planeswalker may still split
    sc = {
        "players": opp(),
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 2}],
        "attackers": [
            {
                "id": "a",
                "power": 3,
                "toughness": 1,
                "keywords": ["trample_over_planeswalkers"],
                "attacking": "w",
                "blocked": True,
                "blocked_by": ["x"],
            },
            {"id": "b", "power": 1, "toughness": 1, "keywords": ["trample"], "attacking": "opp", "blocked": True},
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 1, "in_combat": False}],
    }
    assert_exact(sc, [{"a": {"w": 3}, "b": {"opp": 1}}, {"a": {"w": 2, "opp": 1}, "b": {"opp": 1}}])


def test_702_19f_trample_vs_planeswalker_never_to_player():
    # 702.19f: without TOP, excess over loyalty stays on the planeswalker; battles likewise (reading 1)
    sc = {
        "players": opp(),
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 1}],
        "attackers": [
            {"id": "a", "power": 3, "toughness": 1, "keywords": ["trample"], "attacking": "w", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 2}],
    }
    assert_exact(sc, [{"a": {"x": 3}}, {"a": {"x": 2, "w": 1}}])
    assert violations(sc, {"a": {"x": 2, "opp": 1}})[0][0] == "702.19f"


def test_702_19c_top_loyalty_counts_all_attackers():
    # 702.19c: to the controller only when every blocker has lethal and the planeswalker got >= loyalty
    sc = {
        "players": [{"id": "p"}, {"id": "q"}],
        "planeswalkers": [{"id": "w", "controller": "q", "loyalty": 3}],
        "attackers": [
            {
                "id": "t",
                "power": 4,
                "toughness": 1,
                "keywords": ["trample_over_planeswalkers"],
                "attacking": "w",
                "blocked_by": ["x"],
            },
            {"id": "s", "power": 2, "toughness": 1, "attacking": "w"},
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 1}],
    }
    got = brute_force(sc)
    # t: x>=1 before w or q; q only if 2 + t's w >= 3
    expected = [{"t": {"x": 4}, "s": {"w": 2}}]
    for x in range(1, 4):
        for w in range(0, 5 - x):
            q = 4 - x - w
            if q == 0 or 2 + w >= 3:
                expected.append({"t": {k: v for k, v in (("x", x), ("w", w), ("q", q)) if v}, "s": {"w": 2}})
    assert as_set(got) == as_set(expected) and len(got) == len(expected) == 7
    assert "p" not in {r for a in got for split in a.values() for r in split}


def test_legacy_damage_assignment_order():
    # 510.1c (before Nov 2024): blocker i only after lethal to every current blocker before it
    sc = {
        "rules": "legacy",
        "players": opp(),
        "attackers": [
            {
                "id": "a",
                "power": 3,
                "toughness": 1,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["y", "gone", "x"],
            },
            {
                "id": "d",
                "power": 1,
                "toughness": 1,
                "keywords": ["deathtouch"],
                "attacking": "opp",
                "blocked_by": ["x", "y"],
            },
        ],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 2},
            {"id": "y", "power": 1, "toughness": 2},
            {"id": "gone", "power": 1, "toughness": 1, "in_combat": False},
        ],
    }
    got = brute_force(sc)
    # d (order x, y): {x: 1} makes x lethal (deathtouch); then a (order y, x; "gone" skipped) needs 2 on y
    # first. d: {y: 1} needs x lethal first, from a (>= 2 on x), which a may do since d's point killed y.
    assert as_set(got) == as_set(
        [
            {"a": {"y": 3}, "d": {"x": 1}},
            {"a": {"y": 2, "x": 1}, "d": {"x": 1}},
            {"a": {"y": 2, "opp": 1}, "d": {"x": 1}},
            {"a": {"x": 3}, "d": {"y": 1}},
            {"a": {"x": 2, "y": 1}, "d": {"y": 1}},
            {"a": {"x": 2, "opp": 1}, "d": {"y": 1}},
        ]
    )
    assert violations(sc, {"a": {"y": 1, "x": 2}, "d": {"x": 1}})[0][0] == "510.1c"
    current = dict(sc, rules="current")
    assert len(brute_force(current)) > len(got)


def test_removed_attacker_assigns_nothing_and_is_not_blocked_back():
    # 506.4 / 510.1d: a removed attacker deals nothing; a blocker blocking only removed attackers deals nothing
    sc = {
        "players": opp(),
        "attackers": [
            {"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["x"], "in_combat": False},
            {"id": "b", "power": 1, "toughness": 3, "attacking": "opp", "blocked_by": ["y"]},
        ],
        "blockers": [{"id": "x", "power": 2, "toughness": 2}, {"id": "y", "power": 2, "toughness": 2}],
    }
    assert_exact(sc, [{"a": {}, "b": {"y": 1}}])
    assert_exact(sc, [{"x": {}, "y": {"b": 2}}], side="defending")


def test_510_1d_defending_side():
    # 510.1d: a blocker divides its power freely among the attackers it blocks; 510.4 applies to blockers
    sc = {
        "players": opp(),
        "attackers": [
            {"id": "a", "power": 1, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "f"]},
            {"id": "b", "power": 1, "toughness": 3, "attacking": "opp", "blocked_by": ["x"]},
        ],
        "blockers": [
            {"id": "x", "power": 2, "toughness": 2, "keywords": ["trample"]},
            {"id": "f", "power": 2, "toughness": 2, "keywords": ["first_strike"]},
            {"id": "n", "power": 2, "toughness": 2},
            {"id": "r", "power": 2, "toughness": 2, "in_combat": False},
        ],
    }
    dfn = assert_exact(
        sc,
        [
            {"x": {"a": 2}, "f": {}, "n": {}, "r": {}},
            {"x": {"a": 1, "b": 1}, "f": {}, "n": {}, "r": {}},
            {"x": {"b": 2}, "f": {}, "n": {}, "r": {}},
        ],
        side="defending",
    )
    fs = dict(sc, step="first_strike")
    assert_exact(fs, [{"x": {}, "f": {"a": 2}, "n": {}, "r": {}}], side="defending")
    assert not is_legal(sc, {"x": {"opp": 2}, "f": {}, "n": {}, "r": {}}, side="defending")
    both = brute_force(sc, side="both")
    att = brute_force(sc)
    assert len(both) == len(att) * len(dfn) == 2 * 3
    assert all(set(x) == {"a", "b", "x", "f", "n", "r"} for x in both)


def test_510_1e_judged_as_a_whole():
    # 510.1e: the same split of one attacker is legal or not depending on the others
    sc = {
        "players": opp(),
        "attackers": [
            {"id": "s", "power": 2, "toughness": 1, "attacking": "opp", "blocked_by": ["x", "y"]},
            {"id": "t", "power": 1, "toughness": 1, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]},
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 2}],
    }
    assert is_legal(sc, {"s": {"x": 2}, "t": {"opp": 1}})
    assert not is_legal(sc, {"s": {"y": 2}, "t": {"opp": 1}})
    assert not is_legal(sc, {"s": {"x": 1, "y": 1}, "t": {"opp": 1}})


def test_check_shapes():
    sc = {"players": opp(), "attackers": [{"id": "a", "power": 1, "toughness": 1, "attacking": "opp"}]}
    assert is_legal(sc, {"a": {"opp": 1}})
    assert is_legal(sc, {"a": {"opp": 1, "nobody": 0}})  # zero entries are dropped (docs/format.md)
    assert not is_legal(sc, {"a": {"opp": 1}, "opp": {}})  # not a source
    assert not is_legal(sc, {"a": {"opp": 2, "a": -1}})
    assert not is_legal(sc, {})  # missing source = assigns nothing, but it must assign 1
    assert all(r and m for r, m in violations(sc, {"a": {"a": 1}}))


# ---------------------------------------------------------------------------------------------
# Closed-form counts (independent of brute.py's structure)
# ---------------------------------------------------------------------------------------------


def _legacy_count(p: int, needs: list[int], trample: bool) -> int:
    """Splits of p over ordered blockers (then the player if trample) under legacy order."""

    def f(i, rem):
        if rem == 0:
            return 1
        if i == len(needs):
            return 1 if trample else 0
        total = 0
        for x in range(0, rem + 1):
            if x < needs[i]:
                total += 1 if x == rem else 0  # not lethal: nothing may go further
            else:
                total += f(i + 1, rem - x)
        return total

    return f(0, p)


@settings(max_examples=examples(60))
@given(
    p=st.integers(1, 6),
    tough=st.lists(st.tuples(st.integers(1, 4), st.integers(0, 4)), min_size=1, max_size=3),
    trample=st.booleans(),
    legacy=st.booleans(),
)
def test_single_attacker_closed_form(p, tough, trample, legacy):
    # indestructible: a blocker with lethal damage marked is still there (702.12b) and needs 0
    blockers = [
        {"id": f"b{i}", "power": 1, "toughness": t, "damage_marked": m, "keywords": ["indestructible"]}
        for i, (t, m) in enumerate(tough)
    ]
    sc = {
        "rules": "legacy" if legacy else "current",
        "players": opp(),
        "attackers": [
            {
                "id": "a",
                "power": p,
                "toughness": 1,
                "keywords": ["trample"] if trample else [],
                "attacking": "opp",
                "blocked_by": [b["id"] for b in blockers],
            }
        ],
        "blockers": blockers,
    }
    k = len(blockers)
    needs = [max(0, t - m) for t, m in tough]
    if legacy:
        expected = _legacy_count(p, needs, trample)
    else:
        expected = comb(p + k - 1, k - 1)  # all on the blockers
        if trample:
            slack = p - sum(needs)
            # t >= 1 to the player, the rest (>= sum of needs) over the blockers with each need met
            expected += sum(comb(slack - t + k - 1, k - 1) for t in range(1, slack + 1))
    assert len(brute_force(sc)) == expected


@settings(max_examples=examples(40))
@given(p=st.integers(1, 7), loyalty=st.integers(0, 8))
def test_top_unblocked_closed_form(p, loyalty):
    # 702.19c: m to the planeswalker, p - m to its controller; legal when m == p or m >= loyalty. Loyalty 0: the
    # planeswalker was put into the graveyard before damage (704.5i), so all goes to its controller (702.19e)
    sc = {
        "players": opp(),
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": loyalty}],
        "attackers": [
            {"id": "a", "power": p, "toughness": 1, "keywords": ["trample_over_planeswalkers"], "attacking": "w"}
        ],
    }
    expected = sum(1 for m in range(p + 1) if m == p or m >= loyalty) if loyalty else 1
    assert len(brute_force(sc)) == expected


# ---------------------------------------------------------------------------------------------
# Properties on generated scenarios
# ---------------------------------------------------------------------------------------------


def _sources_ok(sc, got):
    powers = {a["id"]: a["power"] for a in sc["attackers"]}
    for asg in got:
        assert list(asg) == list(powers)
        for src, split in asg.items():
            assert all(isinstance(n, int) and n > 0 for n in split.values())
            assert sum(split.values()) in (0, powers[src])  # 510.1a


@pytest.mark.slow
@settings(max_examples=examples(100))
@given(scenarios())
def test_generated_scenarios_load_and_stay_small(sc):
    from trample.models import load_scenario  # the data model, not the engine

    load_scenario(json.loads(json.dumps(sc)))
    assert work_bound(sc) <= 2000
    assert sum(a["power"] for a in sc["attackers"] if a["power"] > 0) <= 8


@pytest.mark.slow
@settings(max_examples=examples(100))
@given(scenarios())
def test_brute_force_basic_invariants(sc):
    got = brute_force(sc)
    assert got, "there is always at least one legal assignment"
    assert len(as_set(got)) == len(got)
    _sources_ok(sc, got)
    assert all(is_legal(sc, a) for a in got)


def _permuted(sc, rnd):
    out = copy.deepcopy(sc)
    for key in ("players", "planeswalkers", "battles", "attackers", "blockers"):
        if key in out:
            out[key] = rnd.sample(out[key], len(out[key]))
    return out


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(scenarios(), st.randoms(use_true_random=False))
def test_object_order_does_not_matter(sc, rnd):
    assert as_set(brute_force(_permuted(sc, rnd))) == as_set(brute_force(sc))


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(scenarios(rules="current"), st.randoms(use_true_random=False))
def test_current_rules_ignore_blocked_by_order_and_legacy_is_stricter(sc, rnd):
    cur = as_set(brute_force(sc))
    shuffled = copy.deepcopy(sc)
    for a in shuffled["attackers"]:
        if "blocked_by" in a:
            a["blocked_by"] = rnd.sample(a["blocked_by"], len(a["blocked_by"]))
    assert as_set(brute_force(shuffled)) == cur
    assert as_set(brute_force(dict(sc, rules="legacy"))) <= cur


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(scenarios())
def test_irrelevant_fields_do_not_matter(sc):
    # haste (702.10), value, life (while positive) change no assignment; indestructible does only on a board
    # that arrives with lethal damage marked (704.5g, 702.12b)
    base = as_set(brute_force(sc))
    other = copy.deepcopy(sc)
    for c in other["attackers"] + other.get("blockers", []):
        c["keywords"] = list(c.get("keywords", [])) + ["haste"]
    for c in other.get("blockers", []) + other.get("planeswalkers", []):
        c["value"] = 7
    for p in other["players"]:
        p["life"] = 1
    assert as_set(brute_force(other)) == base


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(scenarios(), st.data())
def test_removing_trample_keeps_exactly_the_blocker_only_lines(sc, data):
    # 702.19b: for a blocked attacker with a blocker left, trample only adds lines that hit its target
    s = copy.deepcopy(sc)
    candidates = [a for a in s["attackers"] if a.get("blocked_by")]
    if not candidates:
        return
    a = data.draw(st.sampled_from(candidates))
    settled = normalize(s)["objects"]
    live = {b["id"] for b in s["blockers"] if settled[b["id"]][1]["in_combat"]}
    if not live & set(a["blocked_by"]):
        return
    with_t = dict(a, keywords=list(a.get("keywords", [])) + ["trample_over_planeswalkers"])
    without = dict(a, keywords=[k for k in a.get("keywords", []) if k not in ("trample", "trample_over_planeswalkers")])
    sw = dict(s, attackers=[with_t if x is a else x for x in s["attackers"]])
    so = dict(s, attackers=[without if x is a else x for x in s["attackers"]])
    lines_w = brute_force(sw)
    lines_o = as_set(brute_force(so))
    assert lines_o == {canon(x) for x in lines_w if set(x[a["id"]]) <= set(a["blocked_by"])}


@settings(max_examples=examples(40))
@given(scenarios(max_attackers=2, max_blockers=2, max_total_power=5, max_work=300))
def test_both_sides_is_the_product(sc):
    att = brute_force(sc)
    dfn = brute_force(sc, "defending")
    both = brute_force(sc, "both")
    assert len(both) == len(att) * len(dfn) == len(as_set(both))
    assert all(is_legal(sc, x, "both") for x in both)


@pytest.mark.slow
@settings(max_examples=examples(100))
@given(st.data())
def test_is_legal_agrees_with_enumeration_on_perturbations(data):
    sc = data.draw(scenarios())
    got = brute_force(sc)
    legal = as_set(got)
    for _ in range(5):
        cand = random_assignment(data.draw, sc, got)
        assert is_legal(sc, cand) == (canon(cand) in legal), cand
        if not is_legal(sc, cand):
            assert violations(sc, cand)
