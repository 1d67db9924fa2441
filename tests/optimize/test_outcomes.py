"""Outcomes on real boards: the lifelink and first-striker boards, objectives scored on what damage does
(against an independent oracle written from the rules in tests/oracles/brute_combat.py), the whole combat ending
when a player loses."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction

import brute
import brute_combat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, outcome_effects, scenarios, with_banding

from trample import Combat
from trample.step import DamageStep
from trample.whole import WholeCombat

LIFELINK_BOARD = {  # opp at 3, a 5/5 trampler blocked by a 2/2 lifelink blocker
    "players": [{"id": "opp", "life": 3}],
    "attackers": [
        {
            "id": "rhino",
            "power": 5,
            "toughness": 5,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": ["priest"],
        }
    ],
    "blockers": [{"id": "priest", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
}

FIRST_STRIKER_BOARD = {  # 1 reachable line in a two-player game
    "step": "combat",
    "players": [{"id": "opp", "life": 2}],
    "attackers": [
        {"id": "k", "power": 2, "toughness": 2, "keywords": ["first_strike"], "attacking": "opp"},
        {"id": "o", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["b", "c"]},
    ],
    "blockers": [{"id": "b", "power": 0, "toughness": 1}, {"id": "c", "power": 0, "toughness": 1}],
}


def test_lifelink_opponent_survives_at_2():  # 510.2, 702.15b: damage and lifelink at the same time
    result = Combat(LIFELINK_BOARD).solve("lethal")
    report = result.lethal["opp"]
    assert result.objectives == {"lethal": 0}
    assert report["reached"] is False and report["life_after"] == 2 and report["damage"] == 3
    assert report["reachable"] is False  # no assignment gets there: 3 over the top at most, 2 gained
    # without the lifelink, 3 trample damage is lethal (704.5a)
    plain = copy.deepcopy(LIFELINK_BOARD)
    plain["blockers"][0]["keywords"] = []
    assert Combat(plain).solve("lethal").lethal["opp"]["reached"] is True


def test_lifelink_board_on_the_command_line(tmp_path):
    path = tmp_path / "lifelink.json"
    path.write_text(json.dumps(LIFELINK_BOARD))
    out = subprocess.run(
        [sys.executable, "-m", "trample", "solve", "--objective", "lethal", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["objectives"] == {"lethal": 0} and doc["lethal"]["opp"]["reached"] is False


def test_first_striker_board_counts_one_line():  # 704.5a, 104.3b: the game ends before the regular step
    whole = WholeCombat(FIRST_STRIKER_BOARD)
    assert whole.count() == 1
    (line,) = list(whole.assignments())
    assert line.to_json() == {
        "first_strike": {"k": {"opp": 2}, "o": {}, "b": {}, "c": {}},
        "regular": {"k": {}, "o": {}, "b": {}, "c": {}},
    }
    late = whole.check({"first_strike": line.to_json()["first_strike"], "regular": {"o": {"b": 3}}})
    assert not late.legal and late.violations[0].rule == "104.3b"
    assert len(brute_combat.combat_lines(FIRST_STRIKER_BOARD)) == 1  # the independent oracle agrees
    # with a third player in the game the loser leaves (800.4a) and the attackers attacking them leave combat
    assert WholeCombat(dict(FIRST_STRIKER_BOARD, players_in_game=3)).count() == 1


def test_first_striker_board_on_the_command_line(tmp_path):
    path = tmp_path / "fs.json"
    path.write_text(json.dumps(FIRST_STRIKER_BOARD))
    out = subprocess.run([sys.executable, "-m", "trample", "count", str(path)], capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)["count"] == 1, out


def test_infect_trampler_finishes_a_poisoned_opponent():  # 702.90b, 704.5c
    doc = {
        "players": [{"id": "opp", "life": 20, "poison": 7}],
        "attackers": [
            {
                "id": "infector",
                "power": 5,
                "toughness": 5,
                "keywords": ["trample", "infect"],
                "attacking": "opp",
                "blocked_by": ["wall"],
            }
        ],
        "blockers": [{"id": "wall", "power": 0, "toughness": 2}],
    }
    result = Combat(doc).solve("lethal,max-kills")
    assert result.objectives == {"lethal": 1, "max-kills": 1}
    assert result.assignment.to_json() == {"infector": {"wall": 2, "opp": 3}}
    report = result.lethal["opp"]
    assert report["poison"] == 10 and report["life_after"] == 20 and report["because"] == ["poison (704.5c)"]


def test_protection_from_red_changes_the_best_kill():  # 702.16e
    # a red 4/4 blocked by a 2/2 with protection from red and a 3/3: only the 3/3 can die
    doc = {
        "players": [{"id": "opp"}],
        "attackers": [
            {
                "id": "ogre",
                "power": 4,
                "toughness": 4,
                "tags": ["red"],
                "attacking": "opp",
                "blocked_by": ["knight", "bear"],
            }
        ],
        "blockers": [
            {"id": "knight", "power": 2, "toughness": 2, "protection": ["red"], "value": 3},
            {"id": "bear", "power": 3, "toughness": 3, "value": 1},
        ],
    }
    result = Combat(doc).solve("max-value")
    assert result.objectives == {"max-value": 1} and result.assignment.to_json() == {"ogre": {"bear": 4}}
    plain = copy.deepcopy(doc)
    del plain["blockers"][0]["protection"]
    assert Combat(plain).solve("max-value").objectives == {"max-value": 3}  # the knight would be the kill
    # legality never changed (702.19b judges assigned damage)
    assert Combat(doc).count() == Combat(plain).count() == 5


def test_commander_damage_lethal():  # 704.6c, 903.10a
    doc = {
        "players": [{"id": "opp", "life": 30, "commander_damage": {"cmdr": 18}}],
        "attackers": [
            {
                "id": "cmdr",
                "power": 4,
                "toughness": 4,
                "keywords": ["trample"],
                "commander": "me",
                "attacking": "opp",
                "blocked_by": ["x"],
            }
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 1}],
    }
    result = Combat(doc).solve("lethal")
    assert result.objectives == {"lethal": 1}
    assert result.lethal["opp"]["because"] == ["commander (704.6c)"]
    assert result.lethal["opp"]["commander_damage"] == {"cmdr": 21}


def test_max_damage_is_damage_dealt_with_the_assigned_kept():  # 614.1a, 615.7: docs/effects.md
    doc = {
        "players": [{"id": "opp", "life": 20, "takes": [{"times": 2}]}, {"id": "other", "life": 20, "prevent": 10}],
        "attackers": [
            {"id": "a", "power": 3, "toughness": 3, "attacking": "opp"},
            {"id": "b", "power": 4, "toughness": 4, "attacking": "other"},
        ],
    }
    result = Combat(doc).solve("max-damage,lethal")
    assert result.objectives["max-damage"] == 6  # 3 doubled, 4 prevented
    assert result.lethal["opp"]["damage"] == 6 and result.lethal["opp"]["assigned"] == 3
    assert result.lethal["other"]["damage"] == 0 and result.lethal["other"]["assigned"] == 4


def test_check_judges_legality_only():  # 702.19b: prevention does not make an assignment illegal
    doc = copy.deepcopy(LIFELINK_BOARD)
    doc["blockers"][0]["prevent_combat"] = True
    combat = Combat(doc)
    assert not combat.check({"rhino": {"opp": 5}}).legal  # the priest still needs lethal assigned
    assert combat.check({"rhino": {"priest": 2, "opp": 3}}).legal


def test_whole_combat_lifelink_double_strike():  # 510.2 in each step, 702.4b
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 4}],
        "attackers": [
            {
                "id": "a",
                "power": 3,
                "toughness": 5,
                "keywords": ["double_strike", "trample"],
                "attacking": "opp",
                "blocked_by": ["x"],
            }
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 1, "keywords": ["lifelink", "first_strike"]}],
    }
    result = WholeCombat(doc).solve("lethal")
    # first strike: x deals 1 (opp to 5) while a deals 1 to x and 2 to opp (5 - 2 = 3); regular: 3 to opp: 0
    assert result.objectives == {"lethal": 1}
    assert result.lethal["opp"]["reached"] and result.lethal["opp"]["life_after"] == 0


# -- objectives on the outcome against an independent oracle ------------------------------------------------------


def oracle_values(doc: dict, attacking: dict, defending: dict, names) -> dict:
    before = brute_combat._settled(doc)
    full = {**attacking, **defending}
    dealt = brute_combat.damage_dealt(copy.deepcopy(before), full)
    after = brute_combat.state_after_first_strike(before, full)
    attackers = {a["id"] for a in doc["attackers"]}
    players = [p["id"] for p in doc.get("players", [])]
    out = {}
    for name in names:
        if name == "max-damage":
            out[name] = sum(n for (src, r), n in dealt.items() if src in attackers and r in players)
        elif name == "lethal":
            out[name] = sum(
                1
                for p in after.get("players", [])
                if p["life"] <= 0
                or p.get("poison", 0) >= 10
                or any(n >= 21 for n in p.get("commander_damage", {}).values())
            )
        elif name == "max-kills":  # put into the graveyard: leaving with a loser (800.4a) is no kill
            dead = brute_combat.destroyed_after(before, full)
            out[name] = sum(1 for b in before.get("blockers", []) if b.get("in_combat", True) and b["id"] in dead)
    return out


def oracle_optimum(doc: dict, names) -> tuple:
    """One step played by both players (brute_combat.step_game): the active player's part of each line (the
    damage they divide: their attackers', and a blocker blocking a band, 702.22k), the defending player's rest."""
    lines = brute.brute_force(doc, "both")
    return brute_combat.step_game(doc, lines, lambda line: tuple(oracle_values(doc, line, {}, names)[n] for n in names))


def oracle_reachable(doc: dict) -> dict[str, bool]:
    """Per player: is there an active player's part of the step after which they lose whatever the rest is?"""
    before = brute_combat._settled(doc)
    lines = brute.brute_force(doc, "both")
    out = {}
    for p in doc["players"]:

        def loses(line, pid=p["id"]):
            after = brute_combat.state_after_first_strike(before, line)
            q = next(x for x in after["players"] if x["id"] == pid)
            cd = q.get("commander_damage", {})
            return (q["life"] <= 0 or q.get("poison", 0) >= 10 or any(n >= 21 for n in cd.values()),)

        out[p["id"]] = brute_combat.step_game(doc, lines, loses) == (True,)
    return out


def near_death(data, doc: dict) -> dict:
    """Players close to losing every way (life, poison, commander damage), so that effects decide the outcome."""
    for p in doc.get("players", []):
        p["life"] = data.draw(st.sampled_from([1, 2, 3, 4, 6]))
        if data.draw(st.booleans()):
            p["poison"] = data.draw(st.sampled_from([6, 8, 9]))
        commanders = [a["id"] for a in doc["attackers"] if "commander" in a]
        if commanders and data.draw(st.booleans()):
            p["commander_damage"] = {commanders[0]: data.draw(st.sampled_from([17, 19, 20]))}
    for b in doc.get("blockers", []):
        if data.draw(st.sampled_from([False, False, True])):
            b["keywords"] = [*b.get("keywords", []), "lifelink"]
    return doc


@st.composite
def effect_boards(draw, step: str = "regular") -> dict:
    """Small boards where effects decide the outcome: players near death, attackers often unblocked or
    trampling, every effect of docs/effects.md drawn often."""
    qualities = ["red", "green"]
    players = [
        {"id": f"p{i}", "life": draw(st.sampled_from([20, 1, 2, 3, 5, 20]))} for i in range(draw(st.integers(1, 2)))
    ]
    for p in players:  # high life: poison and commander damage decide
        if draw(st.booleans()):
            p["poison"] = draw(st.sampled_from([9, 7, 9, 0]))
    blockers = []
    for j in range(draw(st.integers(0, 2))):
        b = {
            "id": f"b{j}",
            "power": draw(st.integers(0, 2)),
            "toughness": draw(st.integers(1, 3)),
            "keywords": draw(
                st.lists(st.sampled_from(["lifelink", "deathtouch", "infect", "wither", "first_strike"]), max_size=2)
            ),
        }
        if draw(st.booleans()):
            b["protection"] = draw(st.lists(st.sampled_from(qualities + ["a0"]), min_size=1, max_size=2))
        if draw(st.booleans()):
            b["prevent"] = draw(st.integers(1, 2))
        blockers.append(b)
    attackers = []
    for i in range(draw(st.integers(1, 2))):
        a = {
            "id": f"a{i}",
            "power": draw(st.integers(1, 3)),
            "toughness": draw(st.integers(1, 3)),
            "attacking": draw(st.sampled_from([p["id"] for p in players])),
            "keywords": draw(
                st.lists(
                    st.sampled_from(["trample", "lifelink", "infect", "wither", "deathtouch", "double_strike"]),
                    max_size=3,
                )
            ),
            "tags": draw(st.lists(st.sampled_from(qualities), max_size=1)),
        }
        if draw(st.booleans()):
            a["toxic"] = draw(st.integers(1, 3))
        if draw(st.booleans()):
            a["deals"] = [draw(st.sampled_from([{"times": 2}, {"plus": 1}]))]
        if blockers and draw(st.booleans()):
            a["blocked_by"] = draw(
                st.lists(st.sampled_from([b["id"] for b in blockers]), min_size=1, max_size=2, unique=True)
            )
        if draw(st.booleans()):
            a["commander"] = "me"
        attackers.append(a)
    for p in players:
        commanders = [a["id"] for a in attackers if "commander" in a]
        if commanders and draw(st.booleans()):
            p["commander_damage"] = {commanders[0]: draw(st.sampled_from([18, 20]))}
        if draw(st.booleans()):
            p["prevent"] = draw(st.integers(1, 2))
        if draw(st.booleans()):
            p["takes"] = [draw(st.sampled_from([{"times": 2}, {"plus": 1}]))]
        if draw(st.booleans()):
            p["replacement_order"] = "most"
    doc = {"step": step, "players": players, "attackers": attackers, "blockers": blockers}
    if len(players) > 1 and draw(st.booleans()):
        doc["players_in_game"] = len(players) + 1
    return doc


@settings(max_examples=examples(400), deadline=None)
@given(st.data())
def test_outcome_objectives_match_the_oracle(data):
    doc = data.draw(effect_boards())
    names = data.draw(
        st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-damage"], ["max-kills", "lethal"]])
    )
    result = Combat(doc).solve(",".join(names))
    assert result.status == "optimal"
    got = tuple(Fraction(result.objectives[n]) for n in names)
    assert got == oracle_optimum(doc, names)


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_generated_effects_near_death_match_the_oracle(data):
    doc = data.draw(scenarios(max_attackers=2, max_blockers=2, max_total_power=5, max_work=60))
    doc = near_death(data, data.draw(outcome_effects(doc)))
    names = data.draw(st.sampled_from([["lethal"], ["max-damage"], ["max-kills"]]))
    result = Combat(doc).solve(",".join(names))
    assert tuple(Fraction(result.objectives[n]) for n in names) == oracle_optimum(doc, names)


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_whole_combat_with_effects_matches_the_oracle(data):
    doc = data.draw(effect_boards(step="combat"))
    expected = brute_combat.combat_lines(doc)
    whole = WholeCombat(doc)
    assert whole.count() == len(expected)
    got = sorted(json.dumps(line.to_json(), sort_keys=True) for line in whole.assignments())
    assert got == sorted(json.dumps(x, sort_keys=True) for x in expected)


def test_gnome_discovers_the_damage_dealt():  # 614.1a, 615.7: Scalesoul Gnome's X is combat damage dealt
    from trample.library.gnome import combat_numbers, damage_to_players
    from trample.models import Assignment, load_scenario

    doc = {
        "players": [{"id": "opp", "life": 20, "takes": [{"times": 2}]}],
        "attackers": [{"id": "gnome", "power": 3, "toughness": 5, "keywords": ["trample"], "attacking": "opp"}],
    }
    s = load_scenario(doc)
    a = Assignment({"gnome": {"opp": 3}})
    assert damage_to_players(s, a, "gnome") == 6
    assert combat_numbers([(s, a)]) == {"damage": 6, "kills": 0, "lethal": False}
    shielded = load_scenario(dict(doc, players=[{"id": "opp", "life": 20, "prevent": 2}]))
    assert damage_to_players(shielded, a, "gnome") == 1


def test_banding_blocker_divides_the_attackers_damage_in_solve():  # 702.22j
    # a 3/3 blocked by two 1/1s: its controller kills both; with banding on a blocker the defending player
    # divides the 3, and puts it all on one of them
    doc = {
        "players": [{"id": "opp"}],
        "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "y"]}],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 1, "keywords": ["banding"]},
            {"id": "y", "power": 1, "toughness": 1},
        ],
    }
    result = Combat(doc).solve("max-kills")
    assert result.objectives == {"max-kills": 1}
    assert sum(1 for n in result.assignment.to_json()["a"].values() if n > 0) == 1
    plain = copy.deepcopy(doc)
    plain["blockers"][0]["keywords"] = []
    assert Combat(plain).solve("max-kills").objectives == {"max-kills": 2}
    # a trampler's damage to the player is still the attacker's to win only past lethal (702.19b), whoever divides
    doc["attackers"][0]["keywords"] = ["trample"]
    doc["attackers"][0]["power"] = 4
    assert Combat(doc).solve("max-damage").objectives == {"max-damage": 0}  # the defender keeps it all on x and y


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_whole_combat_solve_with_effects_matches_the_oracle(data):
    # 510.2 in each step, 702.15b lifelink, 702.90c infect, 704.5a/c/f-h, 104.3b: the whole combat's adversarial
    # solve on boards with effects against the brute-force minimax over both players' choices in both steps, every
    # value read on what the damage does (tests/oracles/brute_combat.py: outcome_line_values)
    doc = data.draw(effect_boards(step="combat"))
    doc["players"] = doc["players"][:1]  # a two-player game: who loses ends it (104.3b)
    for a in doc["attackers"]:
        a["attacking"] = doc["players"][0]["id"]
    names = data.draw(
        st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-damage"], ["max-kills", "lethal"]])
    )
    expected = brute_combat.outcome_adversarial_optimum(doc, names)
    result = WholeCombat(doc).solve(names)
    assert result.status == "optimal"
    assert tuple(Fraction(result.objectives[n]) for n in names) == tuple(Fraction(v) for v in expected)
    if "lethal" in names:  # the report: can some line make the player lose, whatever the defender replies?
        can = brute_combat.outcome_adversarial_optimum(doc, ["lethal"])[0] >= 1
        assert result.lethal[doc["players"][0]["id"]]["reachable"] is can


@settings(max_examples=examples(120))
@given(effect_boards(), st.sampled_from(["attacking", "defending"]))
def test_what_happens_with_lethal_alone_is_the_listed_reply(doc, side):
    # outcome_of with only "lethal" takes the first reply at once when no reply's damage reaches a player or gains
    # life (outcome.changes_players): the same outcome as listing every reply and keeping the worst (evaluate)
    from trample.optimize import listing, readers
    from trample.optimize.objectives import parse_objectives

    combat = Combat(doc, side=side)
    objs = parse_objectives("lethal", combat.scenario)
    replies = listing.every_reply(combat, None)
    for assignment in list(combat.assignments(limit=12)):
        listed = listing.evaluate(combat, assignment, objs, replies)[2]
        assert readers.outcome_of(combat, assignment).to_json() == listed.to_json()


def _whole_outcome(o) -> tuple:
    """Everything an outcome says (the pictures draw its events, players, losers, state and life gained)."""
    return (o.to_json(), o.events, o.players, o.losers, o.state, dict(o.life_gained), o.game_over, o.destroyed)


@settings(max_examples=examples(120), deadline=None)
@given(st.data())
def test_what_happens_is_the_listed_reply_for_any_objectives(data):
    # 510.2: outcome_of's shortcuts (one reply: its line; lethal alone and no reply able to change a player: the
    # first reply) give the outcome of listing every reply and keeping the worst (evaluate), for any objectives, on
    # boards with effects and banding (702.22j/k: part of a reply divided by the solved player), on either side
    from trample.optimize import listing, readers
    from trample.optimize.objectives import parse_objectives

    doc = data.draw(effect_boards())
    if data.draw(st.booleans()):
        doc = data.draw(with_banding(doc))
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    names = data.draw(st.sampled_from(["lethal", "max-damage", "max-kills,lethal", "lethal,max-value,min-overkill"]))
    combat = Combat(doc, side=side)
    objs = parse_objectives(names, combat.scenario)
    replies = listing.every_reply(Combat(doc, side=side), None)
    for assignment in list(combat.assignments(limit=12)):
        listed = listing.evaluate(Combat(doc, side=side), assignment, objs, replies)[2]
        fresh = Combat(combat.scenario, side=side)  # nothing kept from an earlier question
        assert _whole_outcome(readers.outcome_of(fresh, assignment, names)) == _whole_outcome(listed)


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_reading_replies_stops_at_a_worst_reply_without_changing_the_line(data):
    # 510.2: the defending player's best reply to an assignment is its worst line for the attacker; listing stops at
    # the first reply no other can be worse than (every objective a count at 0) -- the same line, values and reply as
    # reading every reply (ties: the first reply listed)
    from trample.optimize import listing, objectives

    doc = data.draw(effect_boards())
    names = data.draw(st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-kills"]]))
    combat = Combat(doc)
    step = objectives.damage_step_of(combat)
    objs = objectives.parse_objectives(",".join(names), step.scenario)
    replies = listing.every_reply(step, None)
    floor = listing._floor
    for assignment in step.assignments():
        early = listing.evaluate(step, assignment, objs, replies)
        listing._floor = lambda objs: None
        try:
            every = listing.evaluate(step, assignment, objs, replies)
        finally:
            listing._floor = floor
        assert early[0] == every[0] and early[1] == every[1]
        assert early[3] == every[3] and early[2].to_json() == every[2].to_json()


def test_the_defenders_worst_reply_is_found_past_the_first():  # 510.2, 702.15b, 702.16e
    # the first reply listed puts L's damage on z (protection: prevented, no life gained); the second gains 1 life
    doc = {
        "players": [{"id": "opp", "life": 2}],
        "attackers": [
            {"id": "x", "power": 2, "toughness": 2, "attacking": "opp"},
            {"id": "y", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"]},
            {"id": "z", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"], "protection": ["white"]},
        ],
        "blockers": [{"id": "L", "power": 1, "toughness": 2, "keywords": ["lifelink"], "tags": ["white"]}],
    }
    combat = Combat(doc)
    outcome = combat.outcome({"x": {"opp": 2}})
    assert outcome.losers == () and outcome.life("opp") == 1
    assert combat.solve("lethal").objectives["lethal"] == 0


@given(st.lists(st.one_of(st.integers(-50, 50), st.fractions(max_denominator=7)), min_size=3, max_size=3))
def test_oriented_keys_are_exact_and_whole_values_ints(values):
    """The listing compares every line's key: a whole value is an int (compared in C, where a Fraction's comparison
    costs microseconds and thousands of held keys kept a stopped listing past its limit), equal, hashing and
    ordered as the Fraction it stands for; min-overkill is negated."""
    from trample.optimize.objectives import oriented, parse_objectives

    objs = parse_objectives("lethal,max-value,min-overkill")
    named = dict(zip((o.name for o in objs), values))
    key = oriented(objs, named)
    exact = (Fraction(values[0]), Fraction(values[1]), -Fraction(values[2]))
    assert key == exact and hash(key) == hash(exact)
    assert all(type(k) is int for k, v in zip(key, exact) if v.denominator == 1)
    for other in ((0, 0, 0), (1, Fraction(1, 2), -3)):
        assert (key < other) == (exact < other)


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_every_reply_is_held_as_rows_and_read_as_the_listing(data):  # 510.2
    # the listing's replies are held as blocks of small integers (Replies), not as millions of assignment objects
    # (1.4 GB and the collector's passes past the time limit): read back, the same assignments in the same order
    from trample.optimize import listing

    doc = data.draw(effect_boards())
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    step = DamageStep(doc, side=side)
    replies = listing.every_reply(step, None)
    other = listing.other_side_step(step)
    want = list(other.assignments()) if other is not None else []
    if not want:
        assert replies == [None]
        return
    assert isinstance(replies, listing.Replies)
    assert all(b.itemsize == 1 for b in replies._blocks)  # the amounts here are small: a byte each
    assert len(replies) == len(want) and list(replies) == want
    k = data.draw(st.integers(-len(want), len(want) - 1))
    assert replies[k] == want[k] and replies[1:3] == want[1:3]
    with pytest.raises(IndexError):
        replies[len(want)]
