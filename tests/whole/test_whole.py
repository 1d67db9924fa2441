"""The whole combat, "step": "combat" (docs/combat.md): first-strike step, state-based actions, regular step.

Named boards with exact expectations, then differential tests against tests/oracles/brute_combat.py (a plain two-step
brute force built on the one-step oracle tests/oracles/brute.py), then the command line.
"""

import json
from fractions import Fraction
from pathlib import Path

import brute_combat
import pytest
import strategies
from boards import canon
from cli_process import run
from hypothesis import given, settings
from hypothesis import strategies as st

from trample import Combat, open_combat
from trample.engines import get_engine
from trample.engines.effects import effect_counts
from trample.models import FormatError, Keyword, load_scenario
from trample.outcome import after_step, first_strike_step_happens, regular_step_caps
from trample.whole import CombatLine, WholeCombat, load_line

ROOT = Path(__file__).resolve().parents[2]
OPP = [{"id": "opp", "life": 20}]


def board(attackers, blockers=(), **extra) -> dict:
    d = {"step": "combat", "players": OPP, "attackers": list(attackers), "blockers": list(blockers)}
    d.update(extra)
    return d


def key(line) -> tuple:
    return canon(line["first_strike"]), canon(line["regular"])


def keys(lines) -> list:
    return sorted(key(line) for line in lines)


def to(line, recipient: str) -> int:
    """Damage to ``recipient`` over both steps of a line."""
    return sum(split.get(recipient, 0) for step in ("first_strike", "regular") for split in line[step].values())


def L(first, regular) -> dict:
    return {"first_strike": first, "regular": regular}


DS_TRAMPLE_3 = {
    "id": "a",
    "power": 3,
    "toughness": 3,
    "keywords": ["double_strike", "trample"],
    "attacking": "opp",
    "blocked_by": ["x"],
}


# ---------------------------------------------------------------------------------------------
# Named boards
# ---------------------------------------------------------------------------------------------


def test_double_strike_trampler_vs_2_2_player_gets_at_most_4():
    # 702.4b: deals damage in both steps; 702.19b first step: 2 is lethal, 1 tramples over;
    # 704.5g: the 2/2 dies before it deals damage; 702.19d: regular step, no blocker left: all 3 to the player.
    combat = WholeCombat(board([DS_TRAMPLE_3], [{"id": "x", "power": 2, "toughness": 2}]))
    lines = [line.to_json() for line in combat.assignments()]
    assert keys(lines) == keys(
        [
            L({"a": {"x": 3}, "x": {}}, {"a": {"opp": 3}, "x": {}}),
            L({"a": {"x": 2, "opp": 1}, "x": {}}, {"a": {"opp": 3}, "x": {}}),
        ]
    )
    assert combat.count() == 2
    assert max(to(line, "opp") for line in lines) == 4
    assert combat.solve("max-damage").objectives == {"max-damage": 4}


def test_double_strike_trampler_vs_indestructible_2_2():
    # 702.12b: not destroyed; its marked damage stays lethal (need 0), so in the regular step any split of 3
    # between it and the player is legal (702.19b); it deals its 2 to the attacker in the regular step (510.1d).
    combat = WholeCombat(
        board([DS_TRAMPLE_3], [{"id": "x", "power": 2, "toughness": 2, "keywords": ["indestructible"]}])
    )
    regular = [{"x": 3}, {"x": 2, "opp": 1}, {"x": 1, "opp": 2}, {"opp": 3}]
    expected = [
        L({"a": first, "x": {}}, {"a": r, "x": {"a": 2}}) for first in ({"x": 3}, {"x": 2, "opp": 1}) for r in regular
    ]
    lines = [line.to_json() for line in combat.assignments()]
    assert keys(lines) == keys(expected)
    assert combat.count() == 8
    assert max(to(line, "opp") for line in lines) == 4
    assert combat.solve("max-damage").objectives == {"max-damage": 4}


def test_double_striker_without_trample_deals_nothing_to_the_player():
    # 510.1c: blocked, no trample; its blocker died in the first step, so it assigns nothing in the regular step.
    a = dict(DS_TRAMPLE_3, keywords=["double_strike"])
    combat = WholeCombat(board([a], [{"id": "x", "power": 2, "toughness": 2}]))
    assert keys(combat.assignments()) == keys([L({"a": {"x": 3}, "x": {}}, {"a": {}, "x": {}})])
    assert combat.count() == 1
    assert combat.solve("max-damage").objectives == {"max-damage": 0}


def test_first_strike_blocker_kills_a_3_2_trampler_before_it_deals_damage():
    # 702.7b / 510.4: only the blocker deals first-strike damage; 704.5g: the 3/2 dies and leaves combat
    # (506.4), so it deals no regular damage; a first striker without double strike deals none either (702.7c).
    combat = WholeCombat(
        board(
            [{"id": "a", "power": 3, "toughness": 2, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}],
            [{"id": "x", "power": 2, "toughness": 2, "keywords": ["first_strike"]}],
        )
    )
    assert keys(combat.assignments()) == keys([L({"a": {}, "x": {"a": 2}}, {"a": {}, "x": {}})])
    assert combat.count() == 1
    assert combat.solve("max-damage,max-kills").objectives == {"max-damage": 0, "max-kills": 0}


@pytest.mark.parametrize(
    "keywords, regular, opp",
    [
        (["trample"], {}, 0),  # 506.4c: what it attacks left combat; no blockers: it assigns nothing
        (["trample_over_planeswalkers"], {"opp": 4}, 4),  # 702.19e: all of it to the planeswalker's controller
    ],
)
def test_first_striker_kills_the_planeswalker_another_attacker_attacks(keywords, regular, opp):
    # 704.5i: 2 first-strike damage takes loyalty 2 to 0 and the planeswalker leaves.
    combat = WholeCombat(
        board(
            [
                {"id": "f", "power": 2, "toughness": 2, "keywords": ["first_strike"], "attacking": "pw"},
                {"id": "t", "power": 4, "toughness": 4, "keywords": keywords, "attacking": "pw"},
            ],
            planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 2}],
        )
    )
    assert keys(combat.assignments()) == keys([L({"f": {"pw": 2}, "t": {}}, {"f": {}, "t": regular})])
    assert combat.solve("max-damage").objectives == {"max-damage": opp}


def test_planeswalker_that_survives_first_strike_takes_the_regular_damage():
    # 120.3c: loyalty 3 - 2 = 1, still in combat; the trampler's 702.19c needs only 1 more loyalty damage now.
    combat = WholeCombat(
        board(
            [
                {"id": "f", "power": 2, "toughness": 2, "keywords": ["first_strike"], "attacking": "pw"},
                {"id": "t", "power": 4, "toughness": 4, "keywords": ["trample_over_planeswalkers"], "attacking": "pw"},
            ],
            planeswalkers=[{"id": "pw", "controller": "opp", "loyalty": 3}],
        )
    )
    regular = [{"pw": 4}, {"pw": 3, "opp": 1}, {"pw": 2, "opp": 2}, {"pw": 1, "opp": 3}]
    assert keys(combat.assignments()) == keys([L({"f": {"pw": 2}, "t": {}}, {"f": {}, "t": r}) for r in regular])
    assert combat.solve("max-damage").objectives == {"max-damage": 3}


def test_rules_board_8_double_strike_trampler_vs_4_2_and_four_1_1s():
    # docs/rules.md mistake 8: each step is a fresh assignment (510.1); 2 + 4 = 6 lethal damage is needed in all
    # and 3 + 3 are assigned, so no line sends anything to the player. 416 = 35 first-strike splits weighed by
    # the splits of 3 over the survivors (w: 0 -> 216, 1 -> 140, 2 -> 40, 3 -> 20).
    a = dict(DS_TRAMPLE_3, blocked_by=["w", "c1", "c2", "c3", "c4"])
    combat = WholeCombat(
        board(
            [a],
            [{"id": "w", "power": 4, "toughness": 2}]
            + [{"id": f"c{i}", "power": 1, "toughness": 1} for i in range(1, 5)],
        )
    )
    assert combat.count() == 416
    lines = list(combat.assignments())
    assert len(lines) == 416 and len(set(lines)) == 416
    assert max(to(line, "opp") for line in lines) == 0
    assert len({line.first_strike for line in lines}) == 35
    assert combat.solve("max-damage").objectives == {"max-damage": 0}


def test_five_power_double_strike_trampler_vs_0_6():
    # First step: 5 < 6, nothing can trample over (702.19b): all 5 on the blocker. Regular step: it survived
    # with 5 marked, so 1 is lethal and up to 4 go to the player.
    combat = WholeCombat(board([dict(DS_TRAMPLE_3, power=5, toughness=5)], [{"id": "x", "power": 0, "toughness": 6}]))
    expected = [
        L({"a": {"x": 5}, "x": {}}, {"a": dict({"x": 5 - k}, **({"opp": k} if k else {})), "x": {}}) for k in range(5)
    ]
    assert keys(combat.assignments()) == keys(expected)
    assert combat.count() == 5
    assert combat.solve("max-damage").objectives == {"max-damage": 4}


def test_rules_board_7_trampler_whose_blocker_died_to_first_strike():
    # docs/rules.md mistake 7 as a whole combat: x blocks both; the first striker kills it; 702.19d: the trampler,
    # blocked with no blocker left, assigns all 4 to the player. x deals no damage (it died first).
    combat = WholeCombat(
        board(
            [
                {
                    "id": "f",
                    "power": 2,
                    "toughness": 2,
                    "keywords": ["first_strike"],
                    "attacking": "opp",
                    "blocked_by": ["x"],
                },
                {
                    "id": "a",
                    "power": 4,
                    "toughness": 4,
                    "keywords": ["trample"],
                    "attacking": "opp",
                    "blocked_by": ["x"],
                },
            ],
            [{"id": "x", "power": 2, "toughness": 2}],
        )
    )
    assert keys(combat.assignments()) == keys(
        [L({"f": {"x": 2}, "a": {}, "x": {}}, {"f": {}, "a": {"opp": 4}, "x": {}})]
    )


@pytest.mark.parametrize("defense, regular", [(2, {}), (3, {}), (5, {"bt": 3})])
def test_rules_board_9_double_striker_vs_a_battle(defense, regular):
    # docs/rules.md mistake 9: 704.5v: a battle with no defense counters left leaves; 506.4c: its attacker then
    # assigns no regular damage (and never to the protector, 702.19f / reading 1). With defense 5 it survives.
    combat = WholeCombat(
        board(
            [{"id": "a", "power": 3, "toughness": 3, "keywords": ["double_strike", "trample"], "attacking": "bt"}],
            battles=[{"id": "bt", "protector": "opp", "defense": defense}],
        )
    )
    assert keys(combat.assignments()) == keys([L({"a": {"bt": 3}}, {"a": regular})])
    assert combat.count() == 1


def test_without_first_strike_the_combat_is_the_regular_step_alone():
    # 510.4: no first or double strike: one combat damage step; every line's first_strike part is all {}.
    doc = board(
        [{"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}],
        [{"id": "x", "power": 1, "toughness": 2}],
    )
    combat = WholeCombat(doc)
    assert not combat.has_first_strike_step
    one_step = Combat(dict(doc, step="regular"), side="both")
    assert combat.count() == one_step.count() == 4
    assert keys(combat.assignments()) == keys(L({"a": {}, "x": {}}, r.to_json()) for r in one_step.assignments())
    assert combat.solve("max-damage").objectives == one_step.solve("max-damage").objectives == {"max-damage": 3}


def test_the_defender_replies_adversarially_in_the_first_strike_step():
    # x (first strike, 2 power) blocks both a1 (4/2 trample) and a2 (1/2); 510.1d: it divides its damage as
    # the defending player likes. Killing a1 leaves 0 for the player; sparing it would let 1 or 2 trample over.
    doc = board(
        [
            {"id": "a1", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]},
            {"id": "a2", "power": 1, "toughness": 2, "attacking": "opp", "blocked_by": ["x"]},
        ],
        [{"id": "x", "power": 2, "toughness": 3, "keywords": ["first_strike"]}],
    )
    combat = WholeCombat(doc)
    assert max(to(line, "opp") for line in combat.assignments()) == 2  # a cooperative defender
    result = combat.solve("max-damage")
    assert result.status == "optimal" and result.objectives == {"max-damage": 0}
    assert result.assignment.first_strike["x"] == {"a1": 2}
    assert combat.check(result.assignment).legal


def test_lethal_counts_a_player_once_over_both_steps():
    # 120.3a: the first-strike 3 takes life 3 to 0; 704.5a: opp loses, and in a two-player game that ends the
    # game (104.3b): there is no regular step, so nothing more is dealt and nothing is overkill.
    doc = board(
        [{"id": "a", "power": 3, "toughness": 3, "keywords": ["double_strike"], "attacking": "opp"}],
        players=[{"id": "opp", "life": 3}],
    )
    result = WholeCombat(doc).solve("lethal,max-damage,min-overkill")
    assert result.objectives == {"lethal": 1, "max-damage": 3, "min-overkill": 0}
    # one lethal report shape, as in one step: the most damage the whole combat can deal, the defender replying
    assert result.lethal == {
        "opp": {"life": 3, "damage": 3, "margin": 0, "reached": True, "max_damage": 3, "reachable": True}
    }
    assert WholeCombat(doc).count() == 1
    # with a third player in the game, opp leaves it (800.4a) and the attacker attacking opp is removed from
    # combat (506.4): still no regular damage
    three = dict(doc, players_in_game=3)
    assert WholeCombat(three).count() == 1
    assert WholeCombat(three).solve("max-damage").objectives == {"max-damage": 3}


def test_kills_are_counted_once_over_both_steps():
    # First step: 3 among x (needs 2) and y (needs 3), nothing over (702.19b). Whatever dies then (704.5g) is
    # out of the regular step, and the survivors need only what is left, so each split ends with both dead and
    # at most 1 to the player: (2,1) then y 2 + 1 over; (1,2) then 1 + 1 + 1 over. Each kill counted once.
    doc = board(
        [dict(DS_TRAMPLE_3, blocked_by=["x", "y"])],
        [{"id": "x", "power": 1, "toughness": 2, "value": 2}, {"id": "y", "power": 1, "toughness": 3}],
    )
    result = WholeCombat(doc).solve("max-kills,max-value,max-damage")
    assert result.objectives == {"max-kills": 2, "max-value": 3, "max-damage": 1}


def test_check_names_the_step_and_the_rule():
    combat = WholeCombat(board([DS_TRAMPLE_3], [{"id": "x", "power": 2, "toughness": 2}]))
    ok = L({"a": {"x": 2, "opp": 1}, "x": {}}, {"a": {"opp": 3}, "x": {}})
    assert combat.check(ok).legal and ok in combat.legal_assignments
    # 702.19b in the first step (x has 1 of the 2 it needs); x survives with 1 marked, so in the regular step
    # 1 more is lethal and all 3 to the player breaks 702.19b again.
    bad = combat.check(L({"a": {"x": 1, "opp": 2}, "x": {}}, {"a": {"opp": 3}, "x": {"a": 2}}))
    assert not bad.legal
    assert [(v.rule, v.message.split(":")[0]) for v in bad.violations] == [
        ("702.19b", "first-strike step"),
        ("702.19b", "regular step"),
    ]
    # 702.7b: x has no first strike; 506.4: x died (704.5g) and left combat before the regular step
    bad = combat.check(L({"a": {"x": 3}, "x": {"a": 2}}, {"a": {"x": 3}, "x": {}}))
    assert [(v.rule, v.message.split(":")[0]) for v in bad.violations] == [
        ("702.7b", "first-strike step"),
        ("506.4", "regular step"),
    ]
    # 510.1a: the regular step must assign all 3
    bad = combat.check(L({"a": {"x": 3}, "x": {}}, {"a": {"opp": 2}, "x": {}}))
    assert [(v.rule, v.message.split(":")[0]) for v in bad.violations] == [("510.1a", "regular step")]
    assert L({"a": {"x": 3}}, {"a": {"opp": 4}}) not in combat.legal_assignments


@pytest.mark.parametrize(
    "line, where",
    [
        ({"first_strike": {}}, "assignment.regular"),
        ({"regular": {}}, "assignment.first_strike"),
        ({"first_strike": {}, "regular": {}, "third": {}}, "assignment.third"),
        ({"a": {"opp": 3}}, "assignment.a"),
        ([], "assignment"),
        ({"first_strike": {"a": {"nobody": 1}}, "regular": {}}, "assignment.first_strike.a.nobody"),
        ({"first_strike": {}, "regular": {"a": {"opp": -1}}}, "assignment.regular.a.opp"),
    ],
)
def test_bad_lines_are_format_errors_naming_the_place(line, where):
    scenario = load_scenario(board([DS_TRAMPLE_3], [{"id": "x", "power": 2, "toughness": 2}]))
    with pytest.raises(FormatError) as err:
        WholeCombat(scenario).check(line)
    assert err.value.path == where and "\n" not in str(err.value)
    with pytest.raises(FormatError):
        load_line(line, scenario)
    assert line not in WholeCombat(scenario).legal_assignments


def test_side_and_dispatch():
    doc = board([DS_TRAMPLE_3], [{"id": "x", "power": 2, "toughness": 2}])
    assert isinstance(open_combat(doc), WholeCombat)
    assert WholeCombat(doc, side="both").count() == WholeCombat(doc, side="attacking").count() == 2
    with pytest.raises(FormatError) as err:
        WholeCombat(doc, side="defending")
    assert err.value.path == "side"
    with pytest.raises(FormatError):
        WholeCombat(doc, side="nobody")


def test_combat_line_is_an_immutable_hashable_mapping():
    line = CombatLine({"a": {"x": 2, "opp": 1}, "x": {}}, {"a": {"opp": 3}, "x": {}})
    same = {"first_strike": {"x": {}, "a": {"opp": 1, "x": 2}}, "regular": {"a": {"opp": 3}, "x": {}}}
    assert line == same and line == CombatLine(same["first_strike"], same["regular"])
    assert hash(line) == hash(CombatLine(same["first_strike"], same["regular"]))
    assert line.to_json() == {"first_strike": {"a": {"x": 2, "opp": 1}, "x": {}}, "regular": {"a": {"opp": 3}, "x": {}}}
    assert list(line) == ["first_strike", "regular"] and line["regular"] == {"a": {"opp": 3}, "x": {}}
    with pytest.raises(AttributeError):
        line.regular = None


# ---------------------------------------------------------------------------------------------
# State-based actions between the steps
# ---------------------------------------------------------------------------------------------


def test_after_step_deals_damage_and_performs_state_based_actions():
    s = load_scenario(
        {
            "step": "combat",
            "players": [{"id": "opp", "life": 5}],
            "planeswalkers": [
                {"id": "pw", "controller": "opp", "loyalty": 3},
                {"id": "pw2", "controller": "opp", "loyalty": 3},
            ],
            "battles": [{"id": "bt", "protector": "opp", "defense": 2}],
            "attackers": [
                {"id": "a", "power": 2, "toughness": 3, "attacking": "opp", "blocked_by": ["i", "d"]},
                {
                    "id": "k",
                    "power": 1,
                    "toughness": 1,
                    "keywords": ["deathtouch"],
                    "attacking": "opp",
                    "blocked_by": ["d"],
                },
            ],
            "blockers": [
                {"id": "i", "power": 3, "toughness": 2, "keywords": ["indestructible"]},
                {"id": "d", "power": 1, "toughness": 5},
                {"id": "z", "power": 0, "toughness": 0, "keywords": ["indestructible"]},
                {"id": "m", "power": 0, "toughness": 4, "damage_marked": 1},
            ],
        }
    )
    after = after_step(
        s,
        {
            "a": {"i": 2},
            "k": {"d": 1},
            "i": {"a": 3},
            "d": {"k": 1},
            "x1": {},
            "opp-side": {"opp": 7, "pw": 3, "pw2": 1, "bt": 2, "m": 2},
        },
    )
    assert after.step == "regular"
    assert after["opp"].life == -2  # 120.3a; the game is not ended here
    assert (after["pw"].loyalty, after["pw"].in_combat) == (0, False)  # 704.5i
    assert (after["pw2"].loyalty, after["pw2"].in_combat) == (2, True)  # 120.3c
    assert (after["bt"].defense, after["bt"].in_combat) == (0, False)  # 704.5v
    assert (after["a"].damage_marked, after["a"].in_combat) == (3, False)  # 704.5g
    assert (after["k"].damage_marked, after["k"].in_combat) == (1, False)
    assert (after["i"].damage_marked, after["i"].in_combat) == (2, True)  # 702.12b
    assert (after["d"].damage_marked, after["d"].in_combat) == (1, False)  # 704.5h: deathtouch
    assert after["z"].in_combat is False  # 704.5f: toughness 0, indestructible or not
    assert (after["m"].damage_marked, after["m"].in_combat) == (3, True)  # marked damage accumulates
    assert after["a"].blocked and after["a"].blocked_by == ("i", "d")  # 506.4: it stays blocked
    assert s["a"].in_combat and s["opp"].life == 5  # pure: the input is unchanged


def test_first_strike_step_needs_a_first_striker_in_combat():
    doc = board([dict(DS_TRAMPLE_3, in_combat=False)], [{"id": "x", "power": 2, "toughness": 2}])
    assert not first_strike_step_happens(load_scenario(doc))  # 510.4: removed creatures do not count
    doc["blockers"][0]["keywords"] = ["first_strike"]
    doc["blockers"][0]["power"] = 0
    assert first_strike_step_happens(load_scenario(doc))  # power does not matter


# ---------------------------------------------------------------------------------------------
# Differential tests against the two-step brute force
# ---------------------------------------------------------------------------------------------


def combats(**kw):
    bounds = dict(step="combat", max_attackers=3, max_blockers=3, max_total_power=6, max_work=150)
    bounds.update(kw)
    return strategies.scenarios(**bounds)


@pytest.mark.slow
@given(combats())
def test_count_and_lines_match_brute_force(doc):
    expected = brute_combat.combat_lines(doc)
    combat = WholeCombat(doc)
    got = [line.to_json() for line in combat.assignments()]
    assert combat.count() == len(expected)
    assert keys(got) == keys(expected)
    assert len(set(map(key, got))) == len(got)  # each exactly once
    assert WholeCombat(doc, engine="cpsat").count() == len(expected)  # the reference engine agrees
    if expected:
        assert combat.check(expected[-1]).legal


@pytest.mark.slow
@settings(max_examples=strategies.examples(80))
@given(combats(max_total_power=9, max_work=2000), st.data())
def test_first_step_effects_counted_without_listing_match_the_listing(doc, data):
    # 510.4 / 704.5: the first step's assignments grouped by what they change for the regular step, counted by
    # the forward programme (gates 702.19b/c, deathtouch 702.2c) and by listing every assignment with CP-SAT
    for a in doc["attackers"]:  # more double strikers: more first-step damage
        if data.draw(st.booleans()):
            a["keywords"] = [*a.get("keywords", []), "double_strike"]
    whole = WholeCombat(doc)
    plan = whole.first_step.plan
    caps = regular_step_caps(whole.scenario)
    deathtouch = [whole.scenario.creature(s.source).has(Keyword.DEATHTOUCH) for s in plan.sources]
    for comp in plan.components:  # the engines' EFFECTS capability: the direct programme against CP-SAT's listing
        assert get_engine("direct").effects(plan, comp, caps, deathtouch) == get_engine("cpsat").effects(
            plan, comp, caps, deathtouch
        )
    assert whole.count() == WholeCombat(doc, engine="cpsat").count()


@pytest.mark.slow
def test_double_strikers_on_a_big_board_are_counted_without_listing_the_first_step():
    # 3 double-strike tramplers of power 10 against three shared 6-toughness blockers: 4 990 790 first-strike
    # assignments; they lead to 139 distinct effects (the damage to opp is recorded up to its life, which decides
    # whether opp loses, 704.5a), which the forward count finds without listing them
    doc = board(
        [
            {
                "id": f"a{i}",
                "power": 10,
                "toughness": 10,
                "keywords": ["trample", "double_strike"],
                "attacking": "opp",
                "blocked_by": ["b0", "b1", "b2"],
            }
            for i in range(3)
        ],
        [{"id": f"b{j}", "power": 2, "toughness": 6} for j in range(3)],
    )
    whole = WholeCombat(doc)
    assert whole.first_step.count() == 4_990_790
    effects = whole.first_step_effects("auto")
    assert sum(effects.values()) == 4_990_790 and len(effects) == 139
    assert whole.count() == 92_412_840_488
    # the forward count gives up (the component is then listed) when its states outgrow the limit
    plan = whole.first_step.plan
    deathtouch = [False] * len(plan.sources)
    assert effect_counts(plan, plan.components[0], regular_step_caps(whole.scenario), deathtouch, limit=10) is None


@st.composite
def combat_and_line(draw):
    doc = draw(combats(max_total_power=5, max_work=80))
    legal = brute_combat.combat_lines(doc)
    line = {step: {s: dict(v) for s, v in part.items()} for step, part in draw(st.sampled_from(legal)).items()}
    ids = [o["id"] for g in ("players", "planeswalkers", "battles", "attackers", "blockers") for o in doc.get(g, [])]
    sources = brute_combat.source_ids(doc)
    for _ in range(draw(st.integers(0, 2))):
        split = line[draw(st.sampled_from(["first_strike", "regular"]))][draw(st.sampled_from(sources))]
        op = draw(st.sampled_from(["move", "add", "drop", "clear"]))
        if op == "move" and split:
            frm = draw(st.sampled_from(sorted(split)))
            split[frm] -= 1
            to_id = draw(st.sampled_from(ids))
            split[to_id] = split.get(to_id, 0) + 1
        elif op == "add":
            to_id = draw(st.sampled_from(ids))
            split[to_id] = split.get(to_id, 0) + 1
        elif op == "drop" and split:
            del split[draw(st.sampled_from(sorted(split)))]
        elif op == "clear":
            split.clear()
        for r in [r for r, n in split.items() if n == 0]:
            del split[r]
    return doc, line


@pytest.mark.slow
@given(combat_and_line())
def test_check_matches_brute_force(case):
    doc, line = case
    expected = brute_combat.line_violations(doc, line)
    result = WholeCombat(doc).check(line)
    assert result.legal == (not expected), (expected, result)
    for v in result.violations:  # each names its step
        assert v.message.startswith(("first-strike step: ", "regular step: "))
    assert {v.message.split(":")[0] for v in result.violations} == {
        {"first_strike": "first-strike step", "regular": "regular step"}[step] for step, _, _ in expected
    }


OBJECTIVES = [
    ["max-damage"],
    ["lethal", "max-damage"],
    ["max-kills", "min-overkill"],
    ["max-value"],
    ["min-overkill"],
    ["max-damage", "max-value"],
    ["lethal", "min-overkill"],
]


@pytest.mark.slow
@given(combats(max_total_power=5, max_work=60, max_blockers=2), st.sampled_from(OBJECTIVES))
def test_solve_matches_the_brute_force_adversarial_optimum(doc, objectives):
    expected = brute_combat.adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert result.status == "optimal"
    got = tuple(Fraction(str(result.objectives[o])) for o in objectives)
    assert got == tuple(Fraction(v) for v in expected)
    line = result.assignment.to_json()
    assert brute_combat.is_legal_line(doc, line)
    values = brute_combat.line_values(doc, line, objectives)  # the line reported reaches the value
    assert tuple(Fraction(values[o]) for o in objectives) == got


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


DS_22 = board([DS_TRAMPLE_3], [{"id": "x", "power": 2, "toughness": 2}])


@pytest.mark.slow
def test_cli_count_enumerate_check(tmp_path):
    f = tmp_path / "combat.json"
    f.write_text(json.dumps(DS_22))
    assert run("count", f) == (0, '{"count":2}\n', "")
    assert run("count", f, "--side", "both") == (0, '{"count":2}\n', "")
    code, out, err = run("enumerate", f)
    assert code == 0 and err == ""
    assert keys(json.loads(x) for x in out.splitlines()) == keys(
        [
            L({"a": {"x": 3}, "x": {}}, {"a": {"opp": 3}, "x": {}}),
            L({"a": {"x": 2, "opp": 1}, "x": {}}, {"a": {"opp": 3}, "x": {}}),
        ]
    )
    code, out, _ = run("enumerate", f, "--limit", "1")
    assert code == 0 and len(out.splitlines()) == 1
    good = json.dumps(L({"a": {"x": 2, "opp": 1}, "x": {}}, {"a": {"opp": 3}, "x": {}}))
    assert run("check", f, good) == (0, '{"legal":true,"violations":[]}\n', "")
    code, out, _ = run("check", f, json.dumps(L({"a": {"x": 2, "opp": 1}}, {"a": {"x": 3}})))
    assert code == 1
    assert json.loads(out)["violations"] == [
        {
            "rule": "506.4",
            "message": "regular step: a assigns 3 to x: x has been removed from combat and is no longer blocking a",
        }
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (("check", "FILE", '{"first_strike": {}}'), "assignment.regular: required field is missing"),
        (("check", "FILE", '{"a": {"opp": 3}}'), "assignment.a: unknown field"),
        (("count", "FILE", "--side", "defending"), "side: a whole combat"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    f = tmp_path / "combat.json"
    f.write_text(json.dumps(DS_22))
    code, out, err = run(*[f if a == "FILE" else a for a in args])
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.slow
def test_cli_batch_and_solve(tmp_path):
    batch = tmp_path / "combats.jsonl"
    no_fs = board([{"id": "a", "power": 2, "toughness": 2, "attacking": "opp"}])
    batch.write_text("\n".join([json.dumps(DS_22), json.dumps(no_fs), "{bad"]) + "\n")
    code, out, err = run("count", batch)
    assert code == 2 and err.count("\n") == 1
    assert [json.loads(x) for x in out.splitlines()][:2] == [{"count": 2}, {"count": 1}]
    f = tmp_path / "combat.json"
    f.write_text(json.dumps(DS_22))
    code, out, _ = run("solve", f, "--objective", "max-damage")
    res = json.loads(out)
    assert code == 0 and res["status"] == "optimal" and res["objectives"] == {"max-damage": 4}
    assert res["assignment"] == L({"a": {"x": 2, "opp": 1}, "x": {}}, {"a": {"opp": 3}, "x": {}})


def test_solve_is_the_same_line_whatever_the_engine():
    # Ties are broken on the plan's columns (smallest vector), not on an engine's enumeration order.
    from trample.engines import engine_names

    doc = json.loads((ROOT / "examples" / "double_strike.json").read_text())
    results = {e: WholeCombat(doc, engine=e).solve("max-damage") for e in engine_names()}
    assert {json.dumps(r.to_json()["assignment"], sort_keys=True) for r in results.values()} == {
        json.dumps(
            L(
                {"knight": {"fencer": 3}, "ogre": {}, "bear": {}, "fencer": {"ogre": 2}},
                {"knight": {"bear": 2, "opp": 1}, "ogre": {}, "bear": {"knight": 2}, "fencer": {}},
            ),
            sort_keys=True,
        )
    }
    # a cooperative defender would let 5 through; the adversarial one holds the attacker to 1 (510.1d)
    assert max(to(line, "opp") for line in WholeCombat(doc).assignments()) == 5
    assert {r.objectives["max-damage"] for r in results.values()} == {1}
    assert WholeCombat(doc).count() == 140


def test_combat_line_and_whole_solve_result_pickle():
    # a whole combat's line and solve result travel to process pools and Dask workers, and a notebook shows the
    # result as both steps' pictures
    import pickle

    whole = open_combat(json.loads((ROOT / "examples" / "double_strike.json").read_text()))
    result = whole.solve("max-damage")
    line = result.assignment
    assert pickle.loads(pickle.dumps(line)) == line
    assert pickle.loads(pickle.dumps(result)) == result
    svg = result._repr_svg_()
    assert svg.startswith("<svg") and "first" in svg.lower()
