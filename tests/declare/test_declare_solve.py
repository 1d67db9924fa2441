"""The best declarations (trample.declare.solve) against a plain minimax: every legal declaration from the
independent brute force (tests/oracles/brute_declare.py), each solved by the whole-combat solver (itself tested against
its brute force), the defender minimising and the attacker maximising, lexicographically."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from brute_declare import legal_declarations
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples

from trample.cli import main
from trample.declare.solve import solve_declaration
from trample.limits import Deadline
from trample.models.declare import load_attacks, load_blocks, load_declare_doc
from trample.optimize import parse_objectives
from trample.whole import open_combat

ROOT = Path(__file__).resolve().parents[2]
DAMAGE_KEYWORDS = ["trample", "deathtouch", "first_strike", "double_strike", "indestructible"]
BLOCK_KEYWORDS = ["flying", "reach", "menace", "lure", "must_be_blocked", "blocks_each_combat", "skulk",
                  "cant_block_alone"]  # fmt: skip
OBJECTIVES = ["max-damage", "max-damage,max-kills", "max-kills,max-damage", "max-value", "lethal", "lethal,max-damage",
              "min-overkill", "max-damage:opp", "max-damage,max-value",
              "max-damage:opp,max-kills,max-value"]  # fmt: skip


def oriented(objs, values: dict) -> tuple:
    return tuple(Fraction(values[o.name]) * (1 if o.maximize else -1) for o in objs)


def damage_value(scenario, objs) -> tuple:
    result = open_combat(scenario).solve([o.name for o in objs])
    assert result.status == "optimal"
    return oriented(objs, result.objectives)


def best_blocks_by_minimax(raw: dict, objs) -> tuple:
    doc = load_declare_doc(raw)
    legal, _ = legal_declarations(raw)
    return min(damage_value(doc.scenario(load_blocks(d, doc)), objs) for d in legal)


def least_damage_by_minimax(raw: dict, player: str) -> int:
    objs = parse_objectives(f"max-damage:{player}")
    return int(best_blocks_by_minimax(raw, objs)[0])


@st.composite
def creature(draw, id, attacking=None):
    keywords = draw(st.lists(st.sampled_from(DAMAGE_KEYWORDS + BLOCK_KEYWORDS), max_size=2, unique=True))
    c = {"id": id, "power": draw(st.integers(0, 4)), "toughness": draw(st.integers(1, 4)), "keywords": keywords}
    if attacking is not None:
        c["attacking"] = attacking
    return c


@st.composite
def blocker_boards(draw, most=3, extras=True):
    """Boards of up to ``most`` attackers and blockers; ``extras``: sometimes costs to block and a band."""
    n_attackers = draw(st.integers(1, most))
    n_blockers = draw(st.integers(0, most))
    targets = ["opp"]
    extra: dict = {}
    if draw(st.booleans()):
        extra["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": draw(st.integers(1, 4)), "value": 3}]
        targets.append("pw")
    attackers = [draw(creature(f"a{i}", draw(st.sampled_from(targets)))) for i in range(n_attackers)]
    blockers = [draw(creature(f"b{i}")) for i in range(n_blockers)]
    if blockers and draw(st.booleans()):  # identical creatures: the symmetry the search uses
        blockers[-1] = {**blockers[0], "id": blockers[-1]["id"]}
    if len(attackers) > 1 and draw(st.booleans()):
        attackers[-1] = {**attackers[0], "id": attackers[-1]["id"]}
    for b in blockers:
        b["value"] = draw(st.integers(1, 3))
        if draw(st.integers(0, 4)) == 0:
            b["block_extra"] = 1
    player = {"id": "opp", "life": draw(st.integers(1, 8))}
    if extras and blockers and draw(st.integers(0, 3)) == 0:  # 509.1d: costs to block, and the mana to pay them
        for b in blockers:
            if draw(st.booleans()):
                b["block_cost"] = draw(st.sampled_from([1, "{G}"]))  # generic or coloured (509.1d)
        player["mana"] = draw(st.sampled_from([0, 1, 2, {"G": 1}, {"G": 1, "generic": 1}]))
    same = len(attackers) > 1 and attackers[0]["attacking"] == attackers[1]["attacking"]
    if extras and same and draw(st.integers(0, 3)) == 0:
        for a in attackers[:2]:  # 702.22c-d, declared: a band of two attacking one target
            a["keywords"] = sorted({*a["keywords"], "banding"})
            a["band"] = "band"
    return {"declare": "blockers", "players": [player], "attackers": attackers, "blockers": blockers,
            **extra}  # fmt: skip


@given(blocker_boards(), st.sampled_from(OBJECTIVES))
@settings(deadline=None, max_examples=examples(40))
def test_the_defenders_best_blocks_are_the_minimax(raw, objective):
    doc = load_declare_doc(raw)
    objs = parse_objectives(objective, doc.board)
    result = solve_declaration(doc, objective)
    assert result.status == "optimal"
    expected = best_blocks_by_minimax(raw, objs)
    assert oriented(objs, result.objectives) == expected
    # the declaration returned is legal and reaches that value
    legal = [load_blocks(d, doc) for d in legal_declarations(raw)[0]]
    assert result.declaration in legal
    assert damage_value(doc.scenario(result.declaration), objs) == expected
    if "lethal" in objective:
        for p, report in result.lethal.items():
            least = least_damage_by_minimax(raw, p)
            assert report["least_damage"] == least
            assert report["lethal_through_every_block"] == (least >= report["life"])


@st.composite
def attacker_boards(draw):
    creatures = []
    for i in range(draw(st.integers(1, 2))):
        c = draw(creature(f"c{i}"))
        if draw(st.integers(0, 3)) == 0:
            c["summoning_sick"] = True
        if draw(st.integers(0, 2)) == 0:
            c["keywords"] = sorted({*c["keywords"], "banding"})  # 702.22c: it may attack in a band
        if draw(st.integers(0, 3)) == 0:
            c["attack_cost"] = draw(st.sampled_from([1, "{W}"]))  # 508.1h
        creatures.append(c)
    blockers = [draw(creature(f"b{i}")) for i in range(draw(st.integers(0, 2)))]
    extra: dict = {"mana": draw(st.sampled_from([0, 1, 2, {"W": 1}, {"W": 1, "U": 1}]))}
    if draw(st.booleans()):
        extra["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": draw(st.integers(1, 4))}]
    player = {"id": "opp", "life": draw(st.integers(1, 8)), "attack_tax": draw(st.sampled_from([0, 0, 1]))}
    return {"declare": "attackers", "active": "me", "players": [player], "attackers": creatures,
            "blockers": blockers, **extra}  # fmt: skip


def blockers_of_attack(raw: dict, attack: dict) -> dict:
    """The declare-blockers document after an attack, written plainly from the JSON: the attacking creatures with
    what they attack (and their band labels), the costs to attack paid (508.1h)."""
    blockers_raw = json.loads(json.dumps(raw))
    blockers_raw["declare"] = "blockers"
    blockers_raw["attackers"] = []
    blockers_raw.pop("mana", None)  # the active player's: paid for the attack (508.1h)
    for c in raw["attackers"]:
        if c["id"] in attack:
            c = {k: v for k, v in c.items() if k not in ("summoning_sick", "attack_cost")}
            declared = attack[c["id"]]
            if isinstance(declared, dict):  # a member of a band (702.22c)
                c["band"] = declared["band"]
                declared = declared["attacking"]
            blockers_raw["attackers"].append({**c, "attacking": declared})
    return blockers_raw


@given(attacker_boards(), st.sampled_from(["max-damage", "lethal,max-damage", "max-kills,max-damage"]))
@settings(deadline=None, max_examples=examples(20))
def test_the_attackers_best_attack_is_the_three_level_minimax(raw, objective):
    doc = load_declare_doc(raw)
    objs = parse_objectives(objective, doc.board)
    result = solve_declaration(doc, objective)
    assert result.status == "optimal"
    best = max(best_blocks_by_minimax(blockers_of_attack(raw, attack), objs) for attack in legal_declarations(raw)[0])
    assert oriented(objs, result.objectives) == best
    assert result.declaration in [load_attacks(d, doc) for d in legal_declarations(raw)[0]]


def test_a_chump_block_that_prevents_nothing_is_not_the_best():
    """Against a trampler, chump-blocking with a 1/1 lets 4 of 5 through; the best block double-blocks and
    kills it, and against the lethal objective it is the only survival."""
    raw = {"declare": "blockers", "players": [{"id": "opp", "life": 3}],
           "attackers": [{"id": "t", "power": 5, "toughness": 3, "keywords": ["trample"], "attacking": "opp"}],
           "blockers": [{"id": "elf", "power": 1, "toughness": 1}, {"id": "wall", "power": 0, "toughness": 4},
                        {"id": "bear", "power": 2, "toughness": 2}]}  # fmt: skip
    result = solve_declaration(load_declare_doc(raw), "lethal,max-damage")
    assert result.objectives == {"lethal": 0, "max-damage": 0}
    assert result.lethal["opp"]["lethal_through_every_block"] is False


def test_creatures_that_differ_in_one_number_are_not_symmetric():
    """Two first strikers that differ only in power: the 2-power one kills the 2/2 attacker before it deals damage,
    the 1-power one dies to it. Solving one block for both (a symmetry too coarse) would miss the better block."""
    raw = {"declare": "blockers", "players": [{"id": "opp", "life": 20}],
           "attackers": [{"id": "a", "power": 2, "toughness": 2, "attacking": "opp"}],
           "blockers": [{"id": "weak", "power": 1, "toughness": 2, "keywords": ["first_strike"]},
                        {"id": "strong", "power": 2, "toughness": 2, "keywords": ["first_strike"]}]}  # fmt: skip
    result = solve_declaration(load_declare_doc(raw), "max-damage,max-kills")
    assert result.objectives == {"max-damage": 0, "max-kills": 0}
    assert result.declaration.to_json() == {"a": ["strong"]}


def test_no_time_left_is_unknown_not_optimal():
    raw = json.loads((ROOT / "examples" / "declare" / "blocks.json").read_text())
    result = solve_declaration(load_declare_doc(raw), "max-kills", time_limit=Deadline(0.0))
    assert result.status == "unknown" and result.declaration is None


def test_the_command(capsys):
    assert (
        main(["declare", "solve", str(ROOT / "examples" / "declare" / "attacks.json"), "--objective", "max-damage"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and set(out) >= {"declaration", "blocks", "objectives", "assignment"}
    assert main(["declare", "solve", str(ROOT / "examples" / "declare" / "attacks.json"), "--objective", "most"]) == 2
    assert capsys.readouterr().err.startswith('trample: objective: unknown objective "most"')


@pytest.mark.slow
@given(blocker_boards(most=4), st.sampled_from(OBJECTIVES))
@settings(deadline=None, max_examples=examples(40))
def test_bigger_boards(raw, objective):
    doc = load_declare_doc(raw)
    objs = parse_objectives(objective, doc.board)
    result = solve_declaration(doc, objective)
    assert oriented(objs, result.objectives) == best_blocks_by_minimax(raw, objs)


def test_symmetry_keys_tell_a_double_block_from_two_blocks():
    """Identical blockers are interchangeable, but one creature blocking two attackers is not two creatures."""
    from trample.declare.solve import _canonical

    raw = {"declare": "blockers", "players": [{"id": "opp"}],
           "attackers": [{"id": "a1", "power": 2, "toughness": 2, "attacking": "opp"},
                         {"id": "a2", "power": 3, "toughness": 2, "attacking": "opp"}],
           "blockers": [{"id": "x", "power": 1, "toughness": 1, "block_extra": 1},
                        {"id": "y", "power": 1, "toughness": 1, "block_extra": 1}]}  # fmt: skip
    doc = load_declare_doc(raw)

    def key(blocks):
        return _canonical(doc.scenario(load_blocks(blocks, doc)), ())

    assert key({"a1": ["x"], "a2": ["y"]}) == key({"a1": ["y"], "a2": ["x"]})
    assert key({"a1": ["x"], "a2": ["x"]}) != key({"a1": ["x"], "a2": ["y"]})


@given(
    blocker_boards(extras=False),  # the separable programme's boards: no bands, no costs
    st.sampled_from(["max-damage,max-kills", "max-damage,max-value", "max-damage:opp,max-kills"]),
)
@settings(deadline=None, max_examples=examples(60))
def test_bounds_and_dominance_change_no_value(raw, objective):
    """The separable programme's bounds (the least damage through each group, 510.1c read without a solve) and its
    dominance between groups keep the value of the plain minimax, and the declaration returned reaches it."""
    for a in raw["attackers"][::2]:  # more tramplers: their groups are the ones the first programme solves
        a["keywords"] = sorted({*a["keywords"], "trample"})
    doc = load_declare_doc(raw)
    objs = parse_objectives(objective, doc.board)
    result = solve_declaration(doc, objective)
    expected = best_blocks_by_minimax(raw, objs)
    assert oriented(objs, result.objectives) == expected
    assert damage_value(doc.scenario(result.declaration), objs) == expected


def test_the_bounds_leave_groups_unsolved():
    """A group through which no declaration reaches the least damage is never solved: the 6-against-6 board of
    the benchmark solves fewer groups than it has (its value is the minimax's, by the property above)."""
    from benchmarks.bench_declare import board

    doc = load_declare_doc(board(4, 4, 20))
    result = solve_declaration(doc, "max-damage,max-kills")
    unpruned = solve_declaration(doc, "max-kills,max-damage")  # no bound on max-kills: every group solved
    assert result.solved < unpruned.solved
