"""The whole-combat search cut into independent parts (trample.whole.search.independent_parts).

The split search must give the same status, values and line as the joint search (``split=False``) and as the
plain two-step brute force (tests/oracles/brute_combat.py), and must keep together what the first-strike step couples:
a player the first step can kill (704.5a, the game ends), a planeswalker it damages (702.19c), thresholds the
objectives read.
"""

from __future__ import annotations

from fractions import Fraction

import brute_combat
import pytest
import strategies
from hypothesis import given, settings
from hypothesis import strategies as st

from trample import Combat
from trample.whole import WholeCombat
from trample.whole import search as whole_search
from trample.whole.search import independent_parts

OPP = [{"id": "opp", "life": 20}]


def ds_trampler(i: str, power: int, blockers: list[str], attacking: str = "opp") -> dict:
    return {
        "id": i,
        "power": power,
        "toughness": 3,
        "keywords": ["double_strike", "trample"],
        "attacking": attacking,
        "blocked_by": blockers,
    }


def ladder(n: int) -> dict:
    """n double-strike 4/3 tramplers; attacker i blocked by its own 1/2 and by a first-strike 2/3 shared per pair."""
    attackers, blockers = [], []
    for i in range(n):
        blockers.append({"id": f"b{i}", "power": 1, "toughness": 2})
        if i % 2 == 0:
            blockers.append({"id": f"f{i // 2}", "power": 2, "toughness": 3, "keywords": ["first_strike"]})
        attackers.append(ds_trampler(f"a{i}", 4, [f"b{i}", f"f{i // 2}"]))
    return {"step": "combat", "players": OPP, "attackers": attackers, "blockers": blockers}


def groups(parts) -> list[list[str]]:
    return None if parts is None else [[a.id for a in p.attackers] for p in parts]


def same(doc: dict, objectives) -> None:
    whole = WholeCombat(doc)
    split = whole.solve(objectives)
    joint = whole.solve(objectives, split=False)
    assert split.status == joint.status
    assert split.objectives == joint.objectives
    assert (split.assignment is None) == (joint.assignment is None)
    if split.assignment is not None:
        assert split.assignment.to_json() == joint.assignment.to_json()
    assert split.lethal == joint.lethal


@pytest.fixture
def unpacked(monkeypatch):
    """Every group its own part (no packing of small parts), so that the split is exercised on small boards."""
    monkeypatch.setattr(whole_search, "PACK", 0)


# ---------------------------------------------------------------------------------------------
# Named boards
# ---------------------------------------------------------------------------------------------


def test_ladder_pairs_are_independent_parts(unpacked):
    # 510.1c/d: a pair shares only its first-strike blocker; no first-strike damage reaches the player (each
    # trampler needs 2 + 3 for its blockers before 702.19b lets it assign to the player)
    parts = independent_parts(WholeCombat(ladder(6)), whole_search.parse_objectives("max-damage"))
    assert groups(parts) == [["a0", "a1"], ["a2", "a3"], ["a4", "a5"]]
    assert [[b.id for b in p.blockers] for p in parts] == [["b0", "f0", "b1"], ["b2", "f1", "b3"], ["b4", "f2", "b5"]]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ladder_split_and_joint_search_agree(n, unpacked):
    same(ladder(n), ["max-damage"])
    same(ladder(n), ["max-kills", "min-overkill"])


def test_lethal_is_never_split():
    # "lethal" reads a player's life against the damage of every attacker over both steps
    assert independent_parts(WholeCombat(ladder(4)), whole_search.parse_objectives("lethal")) is None


def test_lethal_out_of_reach_leaves_the_rest_to_decide_and_they_split():
    # 704.5a: the most the ladder can deal the player over the combat (18 of 20 life, the defender replying) does
    # not reach their life, so lethal is 0 on every line: the line is the one max-damage chooses, searched in parts
    whole = WholeCombat(ladder(4))
    split = whole.solve(["lethal", "max-damage"])
    joint = whole.solve(["lethal", "max-damage"], split=False)
    assert split.objectives == joint.objectives == {"lethal": 0, "max-damage": 18}
    assert split.assignment.to_json() == joint.assignment.to_json()
    assert split.lethal == joint.lethal
    assert split.lethal["opp"]["max_damage"] == 18 and not split.lethal["opp"]["reachable"]
    # (one-step solves are no longer compared: each first step's own bounds leave the joint search few regular
    # steps to solve, fewer than the split search's probes; docs/combat.md)
    # within reach (life 18): searched jointly, as before
    doc = ladder(4)
    doc["players"][0]["life"] = 18
    same(doc, ["lethal", "max-damage"])


TWO_PLAYERS = {  # the first striker f divides 2 damage between x (toward p1) and y (toward p2): it saves one
    "step": "combat",
    "players": [{"id": "p1", "life": 2}, {"id": "p2", "life": 2}],
    "attackers": [
        {"id": "x", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": "p1", "blocked_by": ["f"]},
        {"id": "y", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": "p2", "blocked_by": ["f"]},
    ],
    "blockers": [{"id": "f", "power": 2, "toughness": 1, "keywords": ["first_strike"], "controller": "p1"}],
}

SAVE_OR_KILLS = {  # f kills x (the player lives, y kills two blockers) or y (x tramples over: the player dies)
    "step": "combat",
    "players": [{"id": "p", "life": 3}],
    "attackers": [
        {"id": "x", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": "p", "blocked_by": ["f"]},
        {"id": "y", "power": 4, "toughness": 2, "attacking": "p", "blocked_by": ["f", "b1", "b2"]},
    ],
    "blockers": [
        {"id": "f", "power": 2, "toughness": 1, "keywords": ["first_strike"]},
        {"id": "b1", "power": 0, "toughness": 2},
        {"id": "b2", "power": 0, "toughness": 2},
    ],
}


@pytest.mark.parametrize("doc", [TWO_PLAYERS, SAVE_OR_KILLS], ids=["two-players", "save-or-kills"])
@pytest.mark.parametrize("objectives", [["lethal"], ["lethal", "max-kills"], ["lethal", "max-damage"]])
def test_the_lethal_shortcuts_keep_the_defenders_preference(doc, objectives):
    # 704.5a with the defender's lexicographic reply (510.1d): with two players the per-player probes (each can
    # be saved) do not bound lethal (f saves one, the other dies: lethal 1); with one player out of reach, a reply
    # that lets them die is still the defender's last choice, so "lethal,max-kills" is not "max-kills" (2, not 1).
    # Both were wrong once (lethal dropped or bounded by the probes); the brute force and the joint search agree
    expected = brute_combat.adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert tuple(Fraction(str(result.objectives[o])) for o in objectives) == tuple(Fraction(v) for v in expected)
    same(doc, objectives)


@pytest.mark.parametrize("life", [14, 18, 19])
def test_lethal_alone_stops_at_the_first_line_that_reaches_it(life):
    # 704.5a: "lethal" alone is worth at most the players the probes can each reach; the first-strike assignments
    # come smallest vector first, so the first one whose every reply still kills is the answer (life 19 is out
    # of reach: 18 at most, and lethal is 0 on every line)
    doc = ladder(4)
    doc["players"][0]["life"] = life
    whole = WholeCombat(doc)
    assert whole.first_step.canonical()
    fast = whole.solve("lethal")
    joint = whole.solve("lethal", split=False)
    assert fast.objectives == joint.objectives == {"lethal": int(life <= 18)}
    assert fast.assignment.to_json() == joint.assignment.to_json()
    assert fast.lethal == joint.lethal  # (solves not compared: each first step's own bounds, docs/combat.md)


def test_a_player_the_first_step_can_kill_keeps_the_groups_together(unpacked):
    # 704.5a: life 4; each double-strike 4/3 trampler can trample 2 over its 2/2 in the first step. Together they
    # kill the player there, the game ends and the regular step never comes (8 + 8 more damage lost). The best
    # line holds one of them back: the groups must be searched together.
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 4}],
        "attackers": [ds_trampler("x", 4, ["bx"]), ds_trampler("y", 4, ["by"])],
        "blockers": [{"id": "bx", "power": 0, "toughness": 2}, {"id": "by", "power": 0, "toughness": 2}],
    }
    whole = WholeCombat(doc)
    assert independent_parts(whole, whole_search.parse_objectives("max-damage")) is None
    result = whole.solve("max-damage")
    expected = brute_combat.adversarial_optimum(doc, ["max-damage"])
    assert result.objectives["max-damage"] == expected[0]
    # with life 5 no first step kills: the two groups are independent
    doc["players"][0]["life"] = 5
    assert groups(independent_parts(WholeCombat(doc), whole_search.parse_objectives("max-damage"))) == [["x"], ["y"]]
    same(doc, ["max-damage"])


def test_attackers_of_one_planeswalker_stay_together(unpacked):
    # 702.19c: the planeswalker's loyalty in the regular step (what a trampler must assign to it first) depends on
    # the first-strike damage of every attacker attacking it
    doc = {
        "step": "combat",
        "players": OPP,
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 9}],
        "attackers": [ds_trampler("x", 4, ["bx"], "w"), ds_trampler("y", 4, ["by"], "w")],
        "blockers": [{"id": "bx", "power": 0, "toughness": 2}, {"id": "by", "power": 0, "toughness": 2}],
    }
    assert independent_parts(WholeCombat(doc), whole_search.parse_objectives("max-damage")) is None
    same(doc, ["max-damage"])
    # the same attackers attacking two planeswalkers: independent
    doc["planeswalkers"].append({"id": "v", "controller": "opp", "loyalty": 9})
    doc["attackers"][1]["attacking"] = "v"
    assert groups(independent_parts(WholeCombat(doc), whole_search.parse_objectives("max-damage"))) == [["x"], ["y"]]
    same(doc, ["max-damage"])
    # max-value and min-overkill read a player's or planeswalker's threshold; lethal a player's life
    for objective in ("max-value", "min-overkill", "lethal"):
        if objective != "max-value":
            assert independent_parts(WholeCombat(doc), whole_search.parse_objectives(objective)) is None
        same(doc, [objective])


def test_a_trampler_over_planeswalkers_counts_another_attackers_damage_to_its_planeswalker():
    # 702.19c with 510.1e: an unblocked attacker's damage to the planeswalker counts towards the loyalty the
    # trampler over planeswalkers must assign first, so in the regular step the two are not independent even
    # though no first-strike damage reaches the planeswalker (found by the differential test below)
    doc = {
        "step": "combat",
        "players": [{"id": "p0", "life": 1}],
        "planeswalkers": [{"id": "w0", "controller": "p0", "loyalty": 1}],
        "attackers": [
            {"id": "a0", "power": 1, "toughness": 2, "attacking": "p0", "blocked_by": ["b0", "b1"],
             "damage_marked": 1, "keywords": ["first_strike"]},
            {"id": "a2", "power": 2, "toughness": 1, "attacking": "w0", "keywords": ["trample"]},
            {"id": "a3", "power": 2, "toughness": 1, "attacking": "w0",
             "keywords": ["trample_over_planeswalkers", "double_strike"], "blocked_by": ["b0", "b1"]},
        ],
        "blockers": [{"id": "b0", "power": 1, "toughness": 2}, {"id": "b1", "power": 1, "toughness": 2}],
    }  # fmt: skip
    whole_search.PACK, original = 0, whole_search.PACK
    try:
        result = WholeCombat(doc).solve("max-damage")
    finally:
        whole_search.PACK = original
    assert (result.objectives["max-damage"],) == brute_combat.adversarial_optimum(doc, ["max-damage"]) == (1,)
    same(doc, ["max-damage"])


def test_without_a_first_strike_step_there_is_nothing_to_split():
    # 510.4: no first-strike step, the combat is the regular step alone (one solve)
    doc = ladder(4)
    for a in doc["attackers"]:
        a["keywords"] = ["trample"]
    for b in doc["blockers"]:
        b.pop("keywords", None)
    assert independent_parts(WholeCombat(doc), whole_search.parse_objectives("max-damage")) is None


@pytest.mark.parametrize("doc", [ladder(6), ladder(3)], ids=["ladder6", "ladder3"])
def test_progress_counts_the_first_strike_assignments_searched(doc):
    # the first-strike assignments of every part searched (ladder 6: 3 parts of 39 each)
    seen = []
    result = WholeCombat(doc).solve("max-damage", progress=lambda done, total: seen.append((done, total)))
    assert result.status == "optimal"
    totals = {t for _, t in seen}
    assert len(totals) == 1
    (total,) = totals
    whole = WholeCombat(doc)
    parts = independent_parts(whole, whole_search.parse_objectives("max-damage")) or [whole.scenario]
    assert total == sum(Combat(p.with_step("first_strike"), side="attacking").count() for p in parts)
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_lethal_then_a_splittable_objective_stops_at_the_ceiling():
    # "lethal,max-damage" within reach (20 life, 27 at most): an A1 that kills on every reply has at most the
    # max-damage optimum (27) for its max-damage, so the first A1 that reaches (1, 27) in the canonical order ends
    # the search; the line is the joint search's
    doc = ladder(6)
    whole = WholeCombat(doc)
    fast = whole.solve(["lethal", "max-damage"])
    assert fast.objectives == {"lethal": 1, "max-damage": 27}
    doc4 = ladder(4)
    doc4["players"][0]["life"] = 14
    same(doc4, ["lethal", "max-damage"])
    same(doc4, ["lethal", "max-kills"])


def test_small_parts_are_packed_together():
    # a ladder pair's first step has 39 attacking x 3 defending assignments (more than PACK: pairs stay apart);
    # attackers with no first-step choice (no first strike) add no work to a part and join the first one
    doc = ladder(4)
    doc["attackers"] += [{"id": f"u{i}", "power": 2, "toughness": 2, "attacking": "opp"} for i in range(2)]
    parts = independent_parts(WholeCombat(doc), whole_search.parse_objectives("max-damage"))
    assert groups(parts) == [["a0", "a1", "u0", "u1"], ["a2", "a3"]]
    same(doc, ["max-damage"])


# ---------------------------------------------------------------------------------------------
# Differential: split against joint and against the brute force, on generated boards
# ---------------------------------------------------------------------------------------------

OBJECTIVES = [
    ["lethal"],
    ["lethal", "max-kills"],
    ["max-damage"],
    ["max-kills"],
    ["max-kills", "min-overkill"],
    ["max-value"],
    ["min-overkill"],
    ["max-damage", "max-value"],
    ["lethal", "max-damage"],
]


@st.composite
def striking_combats(draw, **kw):
    """Whole combats with more first and double strikers (more first-step choices to split)."""
    bounds = dict(step="combat", rules="current", max_attackers=4, max_blockers=4, max_total_power=7, max_work=300)
    bounds.update(kw)
    doc = draw(strategies.scenarios(**bounds))
    for c in doc["attackers"] + doc.get("blockers", []):
        extra = draw(st.sampled_from([[], [], ["first_strike"], ["double_strike"]]))
        if extra and not {"first_strike", "double_strike"} & set(c.get("keywords", [])):
            c["keywords"] = [*c.get("keywords", []), *extra]
    return doc


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(striking_combats(), st.sampled_from(OBJECTIVES))
def test_split_search_is_the_joint_search(doc, objectives):
    original = whole_search.PACK
    whole_search.PACK = 0  # every group its own part (hypothesis and function-scoped fixtures don't mix)
    try:
        same(doc, objectives)
    finally:
        whole_search.PACK = original


@pytest.mark.slow
@settings(max_examples=strategies.examples(40), deadline=None)
@given(striking_combats(max_attackers=3, max_blockers=3, max_total_power=5, max_work=60), st.sampled_from(OBJECTIVES))
def test_split_search_reaches_the_brute_force_optimum(doc, objectives):
    original = whole_search.PACK
    whole_search.PACK = 0
    try:
        result = WholeCombat(doc).solve(objectives)
    finally:
        whole_search.PACK = original
    expected = brute_combat.adversarial_optimum(doc, objectives)
    assert result.status == "optimal"
    assert tuple(Fraction(str(result.objectives[o])) for o in objectives) == tuple(Fraction(v) for v in expected)
    line = result.assignment.to_json()
    assert brute_combat.is_legal_line(doc, line)


@st.composite
def contested(draw):
    """Small combats with a first striker blocking every attacker and players at low life: the defender's first
    reply decides which attackers live, and so who can be killed (the lethal shortcuts' hard case)."""
    doc = draw(striking_combats(max_attackers=3, max_blockers=2, max_total_power=6, max_work=60))
    doc.setdefault("blockers", []).append(
        {
            "id": "fs",
            "power": draw(st.integers(1, 3)),
            "toughness": draw(st.integers(1, 2)),
            "keywords": ["first_strike"],
        }
    )
    for a in doc["attackers"]:
        a["blocked_by"] = [*a.get("blocked_by", []), "fs"]
        a.pop("blocked", None)
        if draw(st.booleans()) and "trample" not in a.get("keywords", []):  # damage can reach the players
            a["keywords"] = [*a.get("keywords", []), "trample"]
    for p in doc["players"]:
        p["life"] = draw(st.integers(1, 4))
    return doc


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(
    contested(),
    st.sampled_from([["lethal"], ["lethal", "max-kills"], ["lethal", "max-damage"], ["lethal", "max-value"]]),
)
def test_lethal_with_a_contested_first_strike_reply(doc, objectives):
    # 704.5a, 510.1d: the whole search's lethal shortcuts against the brute-force minimax and the joint search
    expected = brute_combat.adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert result.status == "optimal"
    assert tuple(Fraction(str(result.objectives[o])) for o in objectives) == tuple(Fraction(v) for v in expected)
    same(doc, objectives)
