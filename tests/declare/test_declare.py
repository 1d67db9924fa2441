"""Legality of declarations (508.1, 509.1, 702) against the independent brute force (tests/oracles/brute_declare.py), on
hand-made boards citing each rule and on generated ones: count, the listing (each once, in the canonical order),
rank / unrank, the 509.1c / 508.1d maximum by the programme and by CP-SAT, and check."""

from __future__ import annotations

import json

import pytest
from brute_declare import (
    blocked_by_after_bands,
    every_declaration,
    legal_declarations,
    normal,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples

from trample.declare import DeclarationSpace, check_declaration
from trample.models.declare import DECLARE_KEYWORDS, load_declaration, load_declare_doc

BLOCK_KEYWORDS = [
    k for k in DECLARE_KEYWORDS if k not in ("defender", "cant_attack", "attacks_each_combat", "cant_attack_alone")
]
TAGS = ["white", "blue", "black", "red", "green", "artifact"]
LANDS = ["forest", "island", "swamp"]


def board(attackers, blockers, players=None, **more) -> dict:
    return {"declare": "blockers", "players": players or [{"id": "opp", "life": 20}], "attackers": attackers,
            "blockers": blockers, **more}  # fmt: skip


def atk(id, power=2, *keywords, target="opp", **more) -> dict:
    return {"id": id, "power": power, "toughness": 2, "keywords": list(keywords), "attacking": target, **more}


def blk(id, power=2, *keywords, **more) -> dict:
    return {"id": id, "power": power, "toughness": 2, "keywords": list(keywords), **more}


def legal_set(doc: dict) -> set:
    space = DeclarationSpace(load_declare_doc(doc))
    return {normal(d.to_json()) for d in space.declarations()}


def agrees(doc: dict) -> DeclarationSpace:
    """Everything the space says, against the brute force."""
    space = DeclarationSpace(load_declare_doc(doc))
    legal, best = legal_declarations(doc)
    expected = {normal(d) for d in legal}
    listed = [normal(d.to_json()) for d in space.declarations()]
    assert len(listed) == len(set(listed)), "a declaration listed twice"
    assert set(listed) == expected
    assert space.count() == len(expected)
    assert space.max_obeyed() == best
    for i, d in enumerate(space.declarations()):
        assert space.rank(d) == i and space.unrank(i) == d
    for candidate in every_declaration(doc):
        declaration = load_declaration(candidate, space.doc)
        result = check_declaration(space, declaration)
        assert result.legal == (normal(candidate) in expected), (candidate, result)
        assert result.legal == (not result.violations)
        if not result.legal:
            assert space.rank(declaration) is None
    return space


# ---------------------------------------------------------------------------------------------
# Rule by rule
# ---------------------------------------------------------------------------------------------


def rules_cited(doc: dict, declaration: dict) -> list[str]:
    space = DeclarationSpace(load_declare_doc(doc))
    return [v.rule for v in check_declaration(space, load_declaration(declaration, space.doc)).violations]


@pytest.mark.parametrize(
    "attacker,blocker,rule",
    [
        (atk("a", 2, "flying"), blk("b"), "702.9b"),  # 702.9b
        (atk("a", 2, "fear"), blk("b", tags=["green"]), "702.36b"),  # 702.36b
        (atk("a", 2, "intimidate", tags=["red"]), blk("b", tags=["green"]), "702.13b"),  # 702.13b
        (atk("a", 2, "shadow"), blk("b"), "702.28b"),  # 702.28b
        (atk("a"), blk("b", 2, "shadow"), "702.28b"),  # 702.28b: a shadow creature blocks only shadow
        (atk("a", 2, "horsemanship"), blk("b"), "702.31b"),  # 702.31b
        (atk("a", 1, "skulk"), blk("b", 2), "702.118b"),  # 702.118b
        (atk("a", protection=["green"]), blk("b", tags=["green"]), "702.16b"),  # 702.16b
        (atk("a", landwalk=["forest"]), blk("b"), "702.14c"),  # 702.14c (opp controls a forest)
        (atk("a", 2, "cant_be_blocked"), blk("b"), "509.1b"),  # 509.1b
        (atk("a"), blk("b", 2, "cant_block"), "509.1b"),  # 509.1b
        (atk("a"), blk("b", tapped=True), "509.1a"),  # 509.1a: untapped creatures block
    ],
)
def test_each_restriction_on_a_pair_is_cited(attacker, blocker, rule):
    doc = board([attacker], [blocker], players=[{"id": "opp", "life": 20, "lands": ["Forest"]}])
    assert rules_cited(doc, {"a": ["b"]}) == [rule]
    assert legal_set(doc) == {frozenset()}


@pytest.mark.parametrize(
    "attacker,blocker",
    [
        (atk("a", 2, "flying"), blk("b", 2, "reach")),  # 702.17b
        (atk("a", 2, "flying"), blk("b", 2, "flying")),  # 702.9b
        (atk("a", 2, "fear"), blk("b", tags=["black"])),  # 702.36b
        (atk("a", 2, "fear"), blk("b", tags=["artifact"])),  # 702.36b
        (atk("a", 2, "intimidate", tags=["red", "green"]), blk("b", tags=["green"])),  # 702.13b: shares a colour
        (atk("a", 2, "shadow"), blk("b", 2, "shadow")),  # 702.28b
        (atk("a", 2, "skulk"), blk("b", 2)),  # 702.118b: equal power blocks
        (atk("a", landwalk=["island"]), blk("b")),  # 702.14c: no island
    ],
)
def test_the_exceptions_allow_the_block(attacker, blocker):
    doc = board([attacker], [blocker], players=[{"id": "opp", "life": 20, "lands": ["Forest"]}])
    assert rules_cited(doc, {"a": ["b"]}) == []


def test_menace_and_min_blockers():  # 702.111b
    doc = board([atk("a", 2, "menace"), atk("c", min_blockers=3)], [blk("x"), blk("y"), blk("z")])
    assert rules_cited(doc, {"a": ["x"]}) == ["702.111b"]
    assert rules_cited(doc, {"c": ["x", "y"]}) == ["509.1b"]
    assert rules_cited(doc, {"a": ["x", "y"]}) == []
    assert rules_cited(doc, {"c": ["x", "y", "z"]}) == []
    agrees(doc)


def test_one_attacker_each_unless_it_can_block_more():  # 509.1a
    doc = board([atk("a"), atk("c"), atk("d")], [blk("x"), blk("y", block_extra=1), blk("z", 0, "block_any_number")])
    assert rules_cited(doc, {"a": ["x"], "c": ["x"]}) == ["509.1a"]
    assert rules_cited(doc, {"a": ["y"], "c": ["y"], "d": ["y"]}) == ["509.1a"]
    assert rules_cited(doc, {"a": ["y", "z"], "c": ["y", "z"], "d": ["z"]}) == []
    assert DeclarationSpace(load_declare_doc(doc)).count() == 4 * 7 * 8


def test_the_509_1c_example_menace_and_blocks_if_able():
    """509.1c's example: one creature that blocks if able, one with no abilities, a menace attacker: the player
    must block with both (only the first breaks menace; only the second breaks both; neither obeys no
    requirement)."""
    doc = board([atk("m", 2, "menace")], [blk("eager", 2, "blocks_each_combat"), blk("plain")])
    assert legal_set(doc) == {normal({"m": ["eager", "plain"]})}
    assert rules_cited(doc, {"m": ["eager"]}) == ["702.111b"]
    assert rules_cited(doc, {"m": ["plain"]}) == ["702.111b", "509.1c"]
    assert rules_cited(doc, {}) == ["509.1c"]
    space = DeclarationSpace(load_declare_doc(doc))
    assert space.max_obeyed() == space.max_obeyed_cpsat() == 1


def test_lure_against_blocks_each_combat():  # 509.1c: the most requirements, whichever they are
    doc = board([atk("lure", 1, "lure"), atk("ogre", 3)], [blk("eager", 2, "blocks_each_combat"), blk("bear")])
    # eager blocking the lure obeys two requirements (its own and the lure's); blocking the ogre only one
    assert legal_set(doc) == {normal({"lure": ["eager", "bear"]})}
    assert rules_cited(doc, {"ogre": ["eager"], "lure": ["bear"]}) == ["509.1c"]
    agrees(doc)


def test_must_be_blocked_if_able():  # 509.1c
    doc = board([atk("a", 2, "must_be_blocked"), atk("c")], [blk("x"), blk("y")])
    space = agrees(doc)
    assert all(d.of.get("a") for d in space.declarations())
    assert space.count() == 2 + 2 + 1  # x or y on a (the other free: c or nothing), or both on a


def test_a_requirement_no_declaration_can_obey_is_not_required():  # 509.1c
    doc = board([atk("a", 2, "flying", "must_be_blocked")], [blk("bear")])
    assert legal_set(doc) == {frozenset()}


def test_multiplayer_each_blocks_for_itself():  # 509.1a
    doc = board(
        [atk("a", target="p1"), atk("c", target="walker")],
        [blk("x", controller="p1"), blk("y", controller="p2")],
        players=[{"id": "p1"}, {"id": "p2"}],
        planeswalkers=[{"id": "walker", "controller": "p2", "loyalty": 3}],
    )
    assert rules_cited(doc, {"a": ["y"]}) == ["509.1a"]
    assert legal_set(doc) == {normal(d) for d in ({}, {"a": ["x"]}, {"c": ["y"]}, {"a": ["x"], "c": ["y"]})}
    agrees(doc)


def attackers_doc(creatures, **more) -> dict:
    return {"declare": "attackers", "active": "me", "players": [{"id": "opp"}], "attackers": creatures,
            "blockers": [], **more}  # fmt: skip


def test_attack_restrictions_and_requirements():
    doc = attackers_doc(
        [
            {"id": "sick", "power": 1, "toughness": 1, "summoning_sick": True},  # 508.1a
            {"id": "hasty", "power": 1, "toughness": 1, "summoning_sick": True, "keywords": ["haste"]},
            {"id": "wall", "power": 0, "toughness": 4, "keywords": ["defender"]},  # 702.3b
            {"id": "pacified", "power": 3, "toughness": 3, "keywords": ["cant_attack"]},  # 508.1c
            {"id": "tired", "power": 3, "toughness": 3, "tapped": True},  # 508.1a
            {"id": "berserk", "power": 3, "toughness": 3, "keywords": ["attacks_each_combat"]},  # 508.1d
        ],
        battles=[{"id": "mine", "protector": "me", "defense": 4}, {"id": "theirs", "protector": "opp", "defense": 4}],
    )
    cites = [
        ({"sick": "opp", "berserk": "opp"}, ["508.1a"]),
        ({"wall": "opp", "berserk": "opp"}, ["702.3b"]),
        ({"pacified": "opp", "berserk": "opp"}, ["508.1c"]),
        ({"tired": "opp", "berserk": "opp"}, ["508.1a"]),
        ({"berserk": "mine"}, ["508.1b"]),  # a battle only its protector's opponents attack
        ({"hasty": "theirs"}, ["508.1d"]),
        ({"hasty": "opp", "berserk": "theirs"}, []),
    ]
    for declaration, rules in cites:
        assert rules_cited(doc, declaration) == rules, declaration
    space = agrees(doc)
    assert space.count() == 3 * 2  # hasty: nothing, opp or theirs; berserk must attack opp or theirs


def test_cant_block_alone():  # 509.1b: "can't block alone"
    doc = board([atk("a"), atk("c")], [blk("coward", 2, "cant_block_alone"), blk("x")])
    assert rules_cited(doc, {"a": ["coward"]}) == ["509.1b"]
    assert rules_cited(doc, {"a": ["coward", "x"]}) == []  # another creature blocks the same attacker
    assert rules_cited(doc, {"a": ["coward"], "c": ["x"]}) == []  # or another attacker
    assert rules_cited(doc, {"a": ["x"]}) == []
    space = agrees(doc)
    assert space.count() == 3 * 3 - 2  # each: none, a or c; the coward never the only blocker
    # "blocks each combat if able" with no other blocker able: the requirement can't be obeyed (509.1c)
    lonely = board([atk("a")], [blk("coward", 2, "cant_block_alone", "blocks_each_combat")])
    assert agrees(lonely).count() == 1
    assert rules_cited(lonely, {"a": ["coward"]}) == ["509.1b"]
    # with a second creature able to block, obeying it means both block
    pair = board([atk("a")], [blk("coward", 2, "cant_block_alone", "blocks_each_combat"), blk("x")])
    assert [d.to_json() for d in agrees(pair).declarations()] == [{"a": ["coward", "x"]}]


def test_cant_attack_alone():  # 508.1c: "can't attack alone"
    doc = attackers_doc([{"id": "timid", "power": 1, "toughness": 1, "keywords": ["cant_attack_alone"]},
                         {"id": "bold", "power": 1, "toughness": 1}])  # fmt: skip
    assert rules_cited(doc, {"timid": "opp"}) == ["508.1c"]
    assert rules_cited(doc, {"timid": "opp", "bold": "opp"}) == []
    assert rules_cited(doc, {"bold": "opp"}) == []
    assert agrees(doc).count() == 3  # nothing, bold alone, both
    both = attackers_doc([{"id": "timid", "power": 1, "toughness": 1, "keywords": ["cant_attack_alone"]},
                          {"id": "shy", "power": 1, "toughness": 1, "keywords": ["cant_attack_alone"]}])  # fmt: skip
    assert agrees(both).count() == 2  # nothing, or both together
    assert rules_cited(both, {"shy": "opp"}) == ["508.1c"]


# ---------------------------------------------------------------------------------------------
# Generated boards against the brute force
# ---------------------------------------------------------------------------------------------


#: costs to attack or block (508.1h, 509.1d): generic as an integer, or mana symbols with colours and colourless
COSTS = st.one_of(st.integers(1, 2), st.sampled_from(["{W}", "{1}{W}", "{U}", "{W}{W}", "{C}", "{1}", "{0}"]))


@st.composite
def pools(draw, most: int = 3):
    """The mana a player can pay with: an integer (mana of no stated type: generic costs only) or by type."""
    if draw(st.booleans()):
        return draw(st.integers(0, most))
    kinds = draw(st.lists(st.sampled_from(["W", "U", "C", "generic"]), max_size=3, unique=True))
    return {k: draw(st.integers(0, 2)) for k in kinds}


@st.composite
def blocker_boards(draw):
    n_players = draw(st.integers(1, 2))
    players = [{"id": f"p{i}", "life": 10, "lands": draw(st.lists(st.sampled_from(LANDS), max_size=2, unique=True))}
               for i in range(n_players)]  # fmt: skip
    targets = [p["id"] for p in players]
    extra: dict = {}
    if draw(st.booleans()):
        extra["planeswalkers"] = [{"id": "pw", "controller": players[-1]["id"], "loyalty": 3}]
        targets.append("pw")
    if draw(st.booleans()):
        extra["battles"] = [{"id": "bt", "protector": players[0]["id"], "defense": 3}]
        targets.append("bt")
    attackers = []
    for i in range(draw(st.integers(1, 3))):
        keywords = draw(st.lists(st.sampled_from(BLOCK_KEYWORDS), max_size=3, unique=True))
        tags = draw(st.lists(st.sampled_from(TAGS), max_size=2, unique=True))
        a = atk(f"a{i}", draw(st.integers(0, 3)), *keywords, target=draw(st.sampled_from(targets)), tags=tags)
        if draw(st.booleans()):
            a["protection"] = draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=1))
        if draw(st.integers(0, 3)) == 0:
            a["min_blockers"] = draw(st.integers(1, 3))
        if draw(st.integers(0, 3)) == 0:
            a["landwalk"] = draw(st.lists(st.sampled_from(LANDS), min_size=1, max_size=1))
        attackers.append(a)
    blockers = []
    for i in range(draw(st.integers(0, 3))):
        keywords = draw(st.lists(st.sampled_from(BLOCK_KEYWORDS), max_size=3, unique=True))
        tags = draw(st.lists(st.sampled_from(TAGS), max_size=2, unique=True))
        b = blk(f"b{i}", draw(st.integers(0, 3)), *keywords, tags=tags)
        if n_players > 1:
            b["controller"] = draw(st.sampled_from([p["id"] for p in players]))
        if draw(st.integers(0, 4)) == 0:
            b["tapped"] = True
        if draw(st.integers(0, 3)) == 0:
            b["block_extra"] = draw(st.integers(1, 2))
        if draw(st.integers(0, 3)) == 0:
            b["block_cost"] = draw(COSTS)  # 509.1d, 508.1h's coloured costs too
        blockers.append(b)
    for p in players:
        if draw(st.integers(0, 3)) == 0:
            p["block_tax"] = draw(st.sampled_from([1, "{W}"]))  # 509.1d: "... unless their controller pays {1}"
        if draw(st.booleans()):
            p["mana"] = draw(pools())
    same: dict = {}
    for a in attackers:
        same.setdefault(a["attacking"], []).append(a)
    for group in same.values():  # 702.22c-d: a band of creatures with banding, attacking one target (declared)
        if len(group) > 1 and draw(st.integers(0, 2)) == 0:
            for a in group[:2]:
                a["keywords"].append("banding")
                a["band"] = "band-" + group[0]["id"]
    return board(attackers, blockers, players=players, **extra)


@given(blocker_boards())
@settings(deadline=None)
def test_generated_blocks_agree_with_the_brute_force(doc):
    space = agrees(doc)
    for d in space.declarations():  # 702.22h: a band's blockers block every member
        scenario = space.doc.scenario(d)
        assert {a.id: set(a.blocked_by) for a in scenario.attackers} == blocked_by_after_bands(doc, d.to_json())


@given(blocker_boards())
@settings(deadline=None, max_examples=examples(30))
def test_the_cpsat_reference_agrees(doc):
    space = DeclarationSpace(load_declare_doc(doc))
    assert space.max_obeyed_cpsat() == space.max_obeyed()
    assert space.choices_cpsat() == sorted(space.choices())
    assert space.count_cpsat() == space.count()


@st.composite
def attacker_boards(draw):
    creatures = []
    for i in range(draw(st.integers(1, 4))):
        kinds = ["haste", "defender", "cant_attack", "attacks_each_combat", "flying", "cant_attack_alone", "banding"]
        c = {"id": f"c{i}", "power": 2, "toughness": 2,
             "keywords": draw(st.lists(st.sampled_from(kinds), max_size=2, unique=True)),
             "tags": draw(st.lists(st.sampled_from(["wolf", "legend"]), max_size=2, unique=True))}  # fmt: skip
        for flag in ("tapped", "summoning_sick"):
            if draw(st.integers(0, 3)) == 0:
                c[flag] = True
        if draw(st.integers(0, 3)) == 0:
            c["bands_with_other"] = [draw(st.sampled_from(["wolf", "legend"]))]  # 702.22c
        if draw(st.integers(0, 3)) == 0:
            c["attack_cost"] = draw(COSTS)  # 508.1h
        creatures.append(c)
    extra: dict = {}
    if draw(st.booleans()):
        extra["battles"] = [{"id": "bt", "protector": draw(st.sampled_from(["me", "opp"])), "defense": 3}]
    if draw(st.booleans()):
        extra["planeswalkers"] = [
            {"id": "pw", "controller": "opp", "loyalty": 3, "attack_tax": draw(st.sampled_from([0, 1, "{U}"]))}
        ]
    if draw(st.booleans()):
        extra["mana"] = draw(pools(4))
    doc = attackers_doc(creatures, **extra)
    if draw(st.integers(0, 2)) == 0:
        doc["players"][0]["attack_tax"] = draw(st.sampled_from([1, 2, "{W}"]))  # 508.1h: Propaganda
    return doc


@given(attacker_boards())
@settings(deadline=None, max_examples=examples(80))
def test_generated_attacks_agree_with_the_brute_force(doc):
    space = agrees(doc)
    assert space.max_obeyed_cpsat() == space.max_obeyed()
    assert space.count_cpsat() == space.count()


def test_sampling_is_uniform_and_reproducible():
    doc = load_declare_doc(board([atk("a"), atk("c", 2, "menace")], [blk("x"), blk("y"), blk("z")]))
    space = DeclarationSpace(doc)
    total = space.count()
    draws = space.sample(4000, seed=3)
    assert draws == space.sample(4000, seed=3)
    seen: dict = {}
    for d in draws:
        key = json.dumps(d.to_json(), sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
    assert len(seen) == total  # every legal declaration drawn (4000 draws of 22: missing one has odds ~ 1e-80)
    expected = 4000 / total
    chi2 = sum((n - expected) ** 2 / expected for n in seen.values())
    assert chi2 < 60  # 21 degrees of freedom: p < 1e-4 (a fixed seed: deterministic)
