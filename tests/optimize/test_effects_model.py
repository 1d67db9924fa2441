"""Boards with outcome effects solved on the CP-SAT model (trample.optimize.effects), not by listing: what the
damage does encoded in the model (615 prevention, 702.16e protection, 614.1a doubling and adding, 702.15b
lifelink, 702.90b/c infect, 702.80b wither, 702.164c toxic, 704.5c poison, 704.6c commander damage, 704.5a/f/g/h/i,
800.4a), and the other player's reply decomposed (510.1, 510.2).

Checked three ways on generated boards with every effect: against the listing the model replaces (the reference
path, :func:`trample.optimize.listing.solve_by_outcome`: same status, values, assignment with the tie-break,
lethal report and reply), against the brute force written from the rules (tests/oracles/brute.py and
tests/oracles/brute_combat.py: the optimum of the step played by both players), and the returned line read again by the
brute force (its values are the ones reported)."""

from __future__ import annotations

import copy
from fractions import Fraction

import brute
import brute_combat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, outcome_effects, scenarios, with_banding
from test_outcomes import effect_boards, near_death

from trample import Combat
from trample.limits import Deadline, LimitReached
from trample.optimize import all_optimal, effects, parse_objectives
from trample.optimize.listing import solve_by_outcome, step_values, vector_of
from trample.rules import division_moved
from trample.step import DamageStep

OBJECTIVE_LISTS = [
    ["lethal"],
    ["max-damage"],
    ["max-kills"],
    ["max-value"],
    ["min-overkill"],
    ["lethal", "max-kills", "min-overkill"],
    ["max-kills", "lethal"],
    ["max-value", "max-damage"],
    ["min-overkill", "lethal", "max-damage"],
    ["max-damage:p0", "max-kills"],
]


# -- the oracle: every objective read on the brute force's outcome -------------------------------------------------


@pytest.fixture(autouse=True)
def _model_errors_are_not_hidden(monkeypatch):
    # a TypeError or OverflowError in the model sends a board to the listing (64-bit bounds); here it must fail
    monkeypatch.setattr(effects, "USE_MODEL", "strict")


def _lost(p: dict) -> bool:  # 704.5a, 704.5c, 704.6c
    cd = p.get("commander_damage", {})
    return p.get("life", 20) <= 0 or p.get("poison", 0) >= 10 or any(n >= 21 for n in cd.values())


def _threshold(before: dict, r: str, touched: bool) -> int:
    for group in ("players", "planeswalkers", "battles", "blockers", "attackers"):
        for o in before.get(group, []):
            if o["id"] != r:
                continue
            if group == "players":
                return max(0, o.get("life", 20))
            if group == "planeswalkers":
                return o["loyalty"]
            if group == "battles":
                return o["defense"]
            need = max(0, o["toughness"] - o.get("damage_marked", 0))  # 702.19b
            return 1 if need > 0 and touched else need  # 702.2c
    raise KeyError(r)


def oracle_line(doc: dict, line: dict, names) -> dict:
    """The objectives of one line of the step (both sides' damage at once, 510.2) for the attacking player."""
    before = brute_combat._settled(doc)
    dealt = brute_combat.damage_dealt(copy.deepcopy(before), line)
    after = brute_combat.state_after_first_strike(before, line)
    attackers = {a["id"]: a for a in before["attackers"]}
    players = [p["id"] for p in before.get("players", [])]
    was = {b["id"]: b for b in before.get("blockers", []) if b.get("in_combat", True)}
    dead = brute_combat.destroyed_after(before, line)  # the graveyard: leaving with a loser (800.4a) is no kill
    out_blockers = set(was) & dead
    walkers = {p["id"]: p for p in before.get("planeswalkers", []) if p.get("in_combat", True)}
    out_walkers = set(walkers) & dead
    to: dict[str, int] = {}
    touched = set()
    for (src, r), n in dealt.items():
        if src in attackers and n > 0:
            to[r] = to.get(r, 0) + n
            if "deathtouch" in attackers[src].get("keywords", []):
                touched.add(r)
    values = {}
    for name in names:
        kind, _, target = name.partition(":")
        if kind == "max-damage":
            values[name] = sum(to.get(r, 0) for r in ([target] if target else players))
        elif kind == "lethal":
            values[name] = sum(1 for p in after.get("players", []) if _lost(p))
        elif kind == "max-kills":
            values[name] = len(set(was) & out_blockers)
        elif kind == "max-value":
            q = sum((Fraction(str(b.get("value", 1))) for i, b in was.items() if i in out_blockers), Fraction(0))
            q += sum((Fraction(str(p.get("value", 1))) for i, p in walkers.items() if i in out_walkers), Fraction(0))
            values[name] = q
        elif kind == "min-overkill":
            values[name] = sum(max(0, n - _threshold(before, r, r in touched)) for r, n in to.items())
    return values


def oracle_optimum(doc: dict, names) -> tuple:
    """The step played by both players (brute_combat.step_game): the attacking player's best, each of their
    choices worth the defending player's best reply; values oriented (min-overkill negated)."""

    def key(line):
        v = oracle_line(doc, line, names)
        return tuple(-Fraction(v[n]) if n == "min-overkill" else Fraction(v[n]) for n in names)

    return brute_combat.step_game(doc, brute.brute_force(doc, "both"), key)


def _oriented(values: dict, names) -> tuple:
    return tuple(-Fraction(values[n]) if n == "min-overkill" else Fraction(values[n]) for n in names)


def _same(got, ref) -> None:
    assert got.status == ref.status
    assert got.objectives == ref.objectives
    assert got.assignment == ref.assignment  # the tie-break: the smallest vector over the plan's columns
    assert got.lethal == ref.lethal
    assert got.reply == ref.reply  # the first of the worst replies, in the listing's order


@st.composite
def generated_effect_boards(draw) -> dict:
    """Small boards with every effect of docs/effects.md (tests/strategies.py), players often near death."""
    if draw(st.booleans()):
        return draw(effect_boards())
    doc = draw(scenarios(max_attackers=2, max_blockers=2, max_total_power=5, max_work=60))
    doc = draw(outcome_effects(doc))
    return near_death(_Drawer(draw), doc)


class _Drawer:
    """``data.draw`` for :func:`near_death` inside a composite strategy."""

    def __init__(self, draw):
        self.draw = draw


# -- the differential tests ----------------------------------------------------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_model_matches_the_listing_and_the_brute_force(data):
    # 510.1, 510.2: each player's assignment is legal on its own and both are dealt at once; the model reads the
    # reply's profile (702.15b lifelink gains, deaths) and takes the worst; 615, 702.16e, 614.1a, 702.90, 702.80b,
    # 702.164c, 704.5a/c/f/g/h/i, 704.6c, 800.4a encoded in the model
    doc = data.draw(generated_effect_boards())
    names = [n for n in data.draw(st.sampled_from(OBJECTIVE_LISTS)) if n != "max-damage:p0" or "p0" in str(doc)]
    step = DamageStep(doc)
    objs = parse_objectives(names, step.scenario)
    got = effects.solve_by_model(step, objs)
    if got is None:  # only banding that moves a division (702.22j/k): then the listing answers
        assert division_moved(step.scenario)
        return
    _same(got, solve_by_outcome(step, objs))
    assert _oriented(got.objectives, names) == oracle_optimum(doc, names)
    line = {**got.assignment.to_json(), **(got.reply.to_json() if got.reply is not None else {})}
    assert {n: Fraction(v) for n, v in oracle_line(doc, line, names).items()} == {
        n: Fraction(v) for n, v in got.objectives.items()
    }


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_model_matches_the_listing_on_every_side(data):
    # side "defending" (the blockers' damage; the attackers' reply: life lost, poison, commander damage, deaths)
    # and side "both" (no reply): the same answers as the listing
    doc = data.draw(generated_effect_boards())
    side = data.draw(st.sampled_from(["defending", "both"]))
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS[:9]))
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    got = effects.solve_by_model(step, objs)
    if got is None:
        assert division_moved(step.scenario)
        return
    _same(got, solve_by_outcome(step, objs))


def _moved(doc: dict, side: str) -> bool:
    """Does the other player divide some of ``side``'s creatures' damage (read from the board, 702.22j/k)? An
    attacker blocked by a creature with banding, a blocker blocking a creature with banding."""
    banding = {c["id"] for c in doc["attackers"] + doc.get("blockers", []) if "banding" in c.get("keywords", [])}
    if side == "attacking":
        return any(set(a.get("blocked_by", [])) & banding for a in doc["attackers"])
    return any(a.get("blocked_by") for a in doc["attackers"] if a["id"] in banding)


@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_banding_boards_on_the_model(data):
    # 702.22j/k: the solved player divides some of the other side's damage (a blocker blocking a creature with
    # banding, 702.22k, side attacking; an attacker blocked by one, 702.22j, side defending): their choice of it
    # is a variable of the model, maximised like their own assignment, and the other player replies knowing it.
    # Solved on the model unless the other player also divides some of the solved side's damage (both at once)
    doc = data.draw(with_banding(data.draw(generated_effect_boards())))
    side = data.draw(st.sampled_from(["attacking", "attacking", "defending"]))
    blocked = [a for a in doc["attackers"] if a.get("blocked_by")]
    if blocked and data.draw(st.booleans()):  # banding on a blocked attacker only: 702.22k alone
        for c in doc["attackers"] + doc.get("blockers", []):
            c["keywords"] = [k for k in c.get("keywords", []) if k != "banding"]
        band = data.draw(st.sampled_from(blocked))
        band["keywords"] = [*band.get("keywords", []), "banding"]
        side = "attacking"
    names = [n for n in data.draw(st.sampled_from(OBJECTIVE_LISTS)) if n != "max-damage:p0" or "p0" in str(doc)]
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    got = effects.solve_by_model(step, objs)
    if got is None:
        assert _moved(brute_combat._settled(doc), side)
        return
    _same(got, solve_by_outcome(step, objs))
    if side == "attacking":
        assert _oriented(got.objectives, names) == oracle_optimum(doc, names)
        line = {**got.assignment.to_json(), **(got.reply.to_json() if got.reply is not None else {})}
        assert {n: Fraction(v) for n, v in oracle_line(doc, line, names).items()} == {
            n: Fraction(v) for n, v in got.objectives.items()
        }


def test_banding_attacker_the_attacking_player_divides_the_blocker():  # 702.22k, 702.15b, 615.7, 510.2
    # b (lifelink) blocks the banding trampler a and c; the attacking player divides b's damage (702.22k) and
    # puts it on c, whose shield prevents it (615.7): no life is gained (702.15b), so 2 trampling damage kill
    # opp. Without banding the defending player lets some of it through and gains life.
    doc = {
        "players": [{"id": "opp", "life": 2}],
        "attackers": [
            {
                "id": "a",
                "power": 3,
                "toughness": 4,
                "keywords": ["trample", "banding"],
                "attacking": "opp",
                "blocked_by": ["b"],
            },
            {"id": "c", "power": 1, "toughness": 4, "attacking": "opp", "blocked_by": ["b"], "prevent": 2},
        ],
        "blockers": [{"id": "b", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
    }
    got = _solve(doc, "lethal,max-damage")
    assert got.objectives == {"lethal": 1, "max-damage": 2}
    assert got.reply.to_json() == {"b": {"c": 2}}
    assert got.lethal["opp"]["life_after"] == 0 and got.lethal["opp"]["reachable"] is True
    plain = copy.deepcopy(doc)
    plain["attackers"][0]["keywords"] = ["trample"]
    got = _solve(plain, "lethal,max-damage")
    assert got.objectives == {"lethal": 0, "max-damage": 2}
    assert got.lethal["opp"]["life_after"] > 0 and got.lethal["opp"]["reachable"] is False


def test_banding_blocker_the_defending_player_divides_it_all():  # 702.22j
    # the trampler's damage is divided by the defending player: the worst line, found on the model
    doc = {
        "players": [{"id": "opp", "life": 3}],
        "attackers": [_trampler(5)],
        "blockers": [{"id": "b", "power": 1, "toughness": 2, "keywords": ["banding", "lifelink"]}],
    }
    step = DamageStep(doc)
    objs = parse_objectives("lethal,max-damage,max-kills", step.scenario)
    got = effects.solve_by_model(step, objs)
    assert got is not None
    _same(got, solve_by_outcome(step, objs))
    assert got.objectives == {"lethal": 0, "max-damage": 0, "max-kills": 1}
    assert got.assignment.to_json() == {"a": {"b": 5}}


@st.composite
def lifelink_reply_boards(draw) -> dict:
    """Boards where the defending player's reply decides how much life a lifelink blocker gains (702.15b): the
    blocker blocks two attackers that take its damage differently (a shield, protection, doubling), the players
    near death, so that several replies' profiles survive and the worst one matters."""
    life = draw(st.integers(1, 6))
    players = [{"id": "p0", "life": life}]
    if draw(st.booleans()):
        players.append({"id": "p1", "life": draw(st.integers(1, 4))})
    receiving = [
        {},
        {"prevent": 1},
        {"prevent": 2},
        {"protection": ["white"]},
        {"takes": [{"times": 2}]},
        {"takes": [{"plus": 1}]},
        {"prevent_combat": True},
    ]
    attackers = []
    for i in range(2):
        a = {
            "id": f"a{i}",
            "power": draw(st.integers(1, 4)),
            "toughness": draw(st.integers(2, 4)),
            "keywords": draw(st.sampled_from([["trample"], [], ["trample", "deathtouch"]])),
            "attacking": players[i % len(players)]["id"],
            "blocked_by": ["b0"] + (["b1"] if draw(st.booleans()) else []),
        }
        a.update(draw(st.sampled_from(receiving)))
        attackers.append(a)
    blockers = [
        {"id": "b0", "power": draw(st.integers(1, 3)), "toughness": draw(st.integers(1, 3)), "tags": ["white"]},
        {"id": "b1", "power": draw(st.integers(0, 2)), "toughness": draw(st.integers(1, 2))},
    ]
    blockers[0]["keywords"] = ["lifelink"]
    if draw(st.booleans()):
        blockers[1]["keywords"] = ["lifelink"]
    if len(players) > 1:  # two controllers sharing a shield: the reply trades one player's gain for the other's
        blockers[0]["controller"], blockers[1]["controller"] = "p0", "p1"
        blockers[1]["keywords"] = ["lifelink"]
        blockers[1]["power"] = max(1, blockers[1]["power"])
        attackers[0]["blocked_by"] = ["b0", "b1"]
        attackers[1]["blocked_by"] = ["b0"]
        attackers[0].update(prevent=draw(st.integers(1, 2)), shield_order=draw(st.sampled_from([[], ["b1"]])))
    return {"players": players, "attackers": attackers, "blockers": blockers}


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_the_worst_reply_counts_on_lifelink_boards(data):
    # 702.15b, 510.2: the blocker's controller divides its damage so that it gains the most life (615.7 shields,
    # 702.16e protection and 614.1a doubling on the attackers make the replies differ); the model keeps the
    # profiles no other reply beats and takes the worst
    # (side "defending": the attackers' reply trades damage to one player for damage to the other)
    doc = data.draw(lifelink_reply_boards())
    names = data.draw(st.sampled_from([["lethal"], ["lethal", "max-kills"], ["max-kills", "lethal", "min-overkill"]]))
    side = data.draw(st.sampled_from(["attacking", "attacking", "defending"]))
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    got = effects.solve_by_model(step, objs)
    assert got is not None
    _same(got, solve_by_outcome(step, objs))
    if side == "attacking":
        assert _oriented(got.objectives, names) == oracle_optimum(doc, names)


def test_a_shared_shield_makes_the_reply_trade_gains():  # 702.15b, 615.7, 510.2
    # b0 (p0's) and b1 (p1's) lifelink blockers; a0 has a 2-point shield that stops the first hits to it (b0's, in
    # scenario order): b0 on a0 costs p0 life gain, b0 on a1 leaves the shield to b1 and costs p1's. Two profiles
    # survive dominance; the attacker sends all of a1 to p1 (a0 gave b0 its lethal damage, 702.19b): p1 ends at
    # 3 - 5 + 2 = 0 at best, so p1 loses whatever the reply
    doc = {
        "players": [{"id": "p0", "life": 2}, {"id": "p1", "life": 3}],
        "attackers": [
            {"id": "a0", "power": 3, "toughness": 4, "keywords": ["trample"], "attacking": "p0"}
            | {"blocked_by": ["b0", "b1"], "prevent": 2},
            {"id": "a1", "power": 5, "toughness": 4, "keywords": ["trample"], "attacking": "p1", "blocked_by": ["b0"]},
        ],
        "blockers": [
            {"id": "b0", "power": 3, "toughness": 1, "keywords": ["lifelink"], "controller": "p0"},
            {"id": "b1", "power": 2, "toughness": 1, "keywords": ["lifelink"], "controller": "p1"},
        ],
    }
    step = DamageStep(doc)
    objs = parse_objectives("max-kills,lethal", step.scenario)
    got = effects.solve_by_model(step, objs)
    assert got is not None
    _same(got, solve_by_outcome(step, objs))
    assert got.objectives == {"max-kills": 2, "lethal": 1}
    assert got.assignment.to_json() == {"a0": {"b0": 1, "b1": 1, "p0": 1}, "a1": {"p1": 5}}
    assert got.reply.to_json() == {"b0": {"a1": 3}, "b1": {"a0": 2}}  # every reply ties: the first one listed
    assert got.lethal["p1"]["reached"] and got.lethal["p1"]["reachable"]


# -- hand-computed boards, one rule each ---------------------------------------------------------------------------


def _trampler(power: int, **extra) -> dict:
    a = {"id": "a", "power": power, "toughness": 4, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b"]}
    a.update(extra)
    return a


def _solve(doc: dict, names: str):
    step = DamageStep(doc)
    got = effects.solve_by_model(step, parse_objectives(names, step.scenario))
    assert got is not None  # solved on the model, not listed
    assert got.objectives == Combat(doc).solve(names).objectives
    return got


def test_lifelink_blocker_gain_saves_the_player():  # 702.15b, 510.2
    doc = {
        "players": [{"id": "opp", "life": 3}],
        "attackers": [_trampler(5)],
        "blockers": [{"id": "b", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
    }
    got = _solve(doc, "lethal,max-damage")
    assert got.objectives == {"lethal": 0, "max-damage": 3}  # 3 - 3 + 2 = 2 life
    assert got.reply.to_json() == {"b": {"a": 2}}
    assert got.lethal["opp"]["life_after"] == 2 and got.lethal["opp"]["reachable"] is False


def test_infect_counters_kill_and_poison_finishes():  # 702.90b, 702.90c, 704.5c, 704.5f
    doc = {
        "players": [{"id": "opp", "life": 20, "poison": 8}],
        "attackers": [_trampler(4, keywords=["trample", "infect"])],
        "blockers": [{"id": "b", "power": 1, "toughness": 2, "keywords": ["indestructible"]}],
    }
    got = _solve(doc, "lethal,max-kills")
    # two -1/-1 counters kill even an indestructible 2/2 (704.5f); two poison make ten
    assert got.objectives == {"lethal": 1, "max-kills": 1}
    assert got.assignment.to_json() == {"a": {"b": 2, "opp": 2}}


def test_wither_counters_are_lethal_damage():  # 702.80b, 704.5f
    doc = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [_trampler(3, keywords=["trample", "wither"])],
        "blockers": [{"id": "b", "power": 1, "toughness": 3}],
    }
    assert _solve(doc, "max-kills,min-overkill").objectives == {"max-kills": 1, "min-overkill": 0}


def test_one_point_shield_stops_lethal():  # 615.7
    doc = {
        "players": [{"id": "opp", "life": 3, "prevent": 1}],
        "attackers": [_trampler(5)],
        "blockers": [{"id": "b", "power": 1, "toughness": 2}],
    }
    got = _solve(doc, "lethal,max-damage")
    assert got.objectives == {"lethal": 0, "max-damage": 2}  # 3 assigned, 1 prevented


def test_shield_order_chooses_whose_damage_is_prevented():  # 615.7: the affected player's order
    doc = {
        "players": [{"id": "opp", "life": 20, "poison": 9, "prevent": 1, "shield_order": ["i"]}],
        "attackers": [
            {"id": "n", "power": 2, "toughness": 2, "attacking": "opp"},
            {"id": "i", "power": 1, "toughness": 2, "keywords": ["infect"], "attacking": "opp"},
        ],
    }
    got = _solve(doc, "lethal,max-damage")
    assert got.objectives == {"lethal": 0, "max-damage": 2}  # the infect point is prevented first


def test_protection_prevents_the_kill():  # 702.16e
    doc = {
        "players": [{"id": "opp", "life": 2}],
        "attackers": [_trampler(4, tags=["red"])],
        "blockers": [{"id": "b", "power": 1, "toughness": 2, "protection": ["red"]}],
    }
    got = _solve(doc, "max-kills,lethal")
    assert got.objectives == {"max-kills": 0, "lethal": 1}


def test_doubling_before_or_after_the_shield():  # 614.1a, 616.1, 615.7
    base = {"players": [{"id": "opp", "life": 6, "prevent": 1}], "attackers": [_trampler(5, deals=[{"times": 2}])]}
    base["blockers"] = [{"id": "b", "power": 1, "toughness": 2}]
    least = _solve(base, "max-damage")  # (3 - 1) * 2 = 4
    assert least.objectives == {"max-damage": 4}
    most = copy.deepcopy(base)
    most["players"][0]["replacement_order"] = "most"
    assert _solve(most, "max-damage").objectives == {"max-damage": 5}  # 3 * 2 - 1 = 5
    plus = copy.deepcopy(base)
    plus["attackers"][0]["deals"] = [{"plus": 2}]
    assert _solve(plus, "lethal,max-damage").objectives == {"lethal": 0, "max-damage": 4}  # (3 - 1) + 2


def test_toxic_gives_poison_once_per_hit():  # 702.164c
    doc = {
        "players": [{"id": "opp", "life": 20, "poison": 7}],
        "attackers": [_trampler(3, toxic=3)],
        "blockers": [{"id": "b", "power": 1, "toughness": 2}],
    }
    got = _solve(doc, "lethal,max-kills")
    assert got.objectives == {"lethal": 1, "max-kills": 1}  # 2 to the blocker, 1 to opp: 7 + 3 poison


def test_commander_damage_21():  # 704.6c, 903.10a
    doc = {
        "players": [{"id": "opp", "life": 40, "commander_damage": {"a": 18}}],
        "attackers": [_trampler(5, commander="me")],
        "blockers": [{"id": "b", "power": 1, "toughness": 2}],
    }
    assert _solve(doc, "lethal").objectives == {"lethal": 1}


def test_a_loser_leaves_with_their_blockers_which_is_no_kill():  # 800.4a: more than two players
    doc = {
        "players": [{"id": "p1", "life": 2}, {"id": "p2", "life": 20, "prevent": 1}],
        "attackers": [
            {"id": "a", "power": 2, "toughness": 2, "attacking": "p1"},
            {"id": "c", "power": 1, "toughness": 1, "attacking": "p2", "blocked_by": ["b"]},
        ],
        "blockers": [{"id": "b", "power": 0, "toughness": 5, "controller": "p1"}],
    }
    got = _solve(doc, "lethal,max-kills")
    # p1 loses and leaves the game with b: b leaves combat undamaged, so it did not die: no kill (docs/solve.md)
    assert got.objectives == {"lethal": 1, "max-kills": 0}


@pytest.mark.parametrize("use_model", [True, False])
def test_the_listing_stays_reachable(monkeypatch, use_model):
    doc = {
        "players": [{"id": "opp", "life": 3}],
        "attackers": [_trampler(5)],
        "blockers": [{"id": "b", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
    }
    monkeypatch.setattr(effects, "USE_MODEL", use_model)
    result = Combat(doc).solve("lethal,max-damage")
    assert result.objectives == {"lethal": 0, "max-damage": 3}
    assert (result.solves > 0) == use_model  # the listing makes no CP-SAT solve


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_the_replies_first_rows_by_component_are_the_listings(data):  # 510.1, 510.2
    # effects._first_rows reads the other side's listing component by component (its rows are the product of the
    # components' orders, first slowest): each distinct tuple of amounts at the asked columns and the first row
    # that has it, in order -- the same as reading every row of assignment_blocks, on every side and engine
    doc = data.draw(st.one_of(generated_effect_boards(), scenarios(max_attackers=3, max_blockers=3, max_work=200)))
    side = data.draw(st.sampled_from(["attacking", "defending", "both"]))
    engine = data.draw(st.sampled_from(["auto", "direct", "cpsat"]))
    step = DamageStep(doc, side=side, engine=engine)
    width = len(step.columns)
    idx = data.draw(st.lists(st.integers(0, max(0, width - 1)), unique=True, max_size=width)) if width else []
    expected: dict[tuple, list[int]] = {}
    for block in step.assignment_blocks():
        for row in block.tolist():
            expected.setdefault(tuple(row[j] for j in idx), row)
    got = effects._first_rows(step, idx, Deadline(None))
    assert list(got.items()) == list(expected.items())


def test_an_attackers_split_among_uncounted_blockers_is_not_a_group_of_its_own(monkeypatch):  # 510.1, 702.19c
    # the defending side solved: the reply is the attackers', every trampler reaches the player, so each one is
    # relevant -- but only its damage to the player (and to counted objects) can change the profile, not how it
    # splits the rest among blockers: as many profiles resolved as distinct amounts to the player, not a group for
    # every reply (8 866 here, 1.5 s); the answer the listing's
    from benchmarks.boards import random_sharing

    doc = random_sharing(4, 6, 2, seed=1)
    doc["blockers"][0]["keywords"] = ["lifelink"]
    doc["attackers"][0]["keywords"] = [*doc["attackers"][0]["keywords"], "infect"]
    step = DamageStep(doc, side="defending")
    objs = parse_objectives(["max-kills", "max-value"], step.scenario)
    monkeypatch.setattr(effects, "FRONTIER_ROWS", 1 << 20)  # the groups read from the listing (682 rows)
    profiles = []
    profile = effects._profile
    monkeypatch.setattr(effects, "_profile", lambda *a: profiles.append(1) or profile(*a))
    got = effects.solve_by_model(step, objs)
    other = DamageStep(doc, side="attacking")
    to_player = [k for k, (_, r) in enumerate(other.columns) if r == "opp"]
    amounts = {tuple(row[k] for k in to_player) for block in other.assignment_blocks() for row in block.tolist()}
    assert 1 < len(profiles) <= len(amounts) < other.count()
    _same(got, solve_by_outcome(step, objs))


# -- the reply's undominated profiles found on the model (effects._frontier_groups) ----------------------------------


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_the_frontier_holds_every_undominated_profile_of_the_listing(data):  # 510.1, 702.15b, 702.90b, 704.5
    # past FRONTIER_ROWS the reply's groups are found on the other side's model, not read from its listing: the
    # profiles left after dominance must be the listing's, whether deaths are monotone or compared as sets, and
    # each group's reply must be the first listed with its profile
    doc = data.draw(generated_effect_boards())
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    step = DamageStep(doc, side=side)
    try:
        other, _, theirs, partial = effects.separable(step)
    except effects.NotSeparable:
        return
    if partial or theirs or other is None or not other.canonical():
        return
    em = effects.EffectsModel(step)
    interesting = set(em.killable) | set(em.walkers)
    listed = effects.reply_groups(step, other, interesting, Deadline(None))
    frontier = effects._frontier_groups(step, other, interesting, Deadline(None))
    for monotone in (True, False):
        want = {p.key for ps in effects.choices_of(listed, monotone) for p in ps}
        got = {p.key for ps in effects.choices_of(frontier, monotone) for p in ps}
        assert got == want
    first: dict[tuple, dict] = {}
    for reply in other.assignments():
        first.setdefault(effects._profile(step, reply, interesting).key, reply.to_json())
    for reply, prof, _ in frontier:
        if reply is not None:
            assert reply.to_json() == first[prof.key]
    rows = [vector_of(other, reply) for reply, _, _ in frontier if reply is not None]
    assert rows == sorted(rows)  # in the listing's order


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_solved_on_the_frontier_the_answer_is_the_listings(data):  # 510.1, 510.2
    # every reply read through the frontier (FRONTIER_ROWS below any listing): the same status, values, assignment
    # and lethal report as the listing; the reply reported is a worst one (its line has the answer's values)
    doc = data.draw(generated_effect_boards())
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    names = [n for n in data.draw(st.sampled_from(OBJECTIVE_LISTS)) if n != "max-damage:p0" or "p0" in str(doc)]
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(effects, "FRONTIER_ROWS", -1)
        got = effects.solve_by_model(step, objs)
    if got is None:
        assert division_moved(step.scenario)
        return
    ref = solve_by_outcome(step, objs)
    assert (got.status, got.objectives, got.assignment, got.lethal) == (
        ref.status,
        ref.objectives,
        ref.assignment,
        ref.lethal,
    )
    if got.assignment is not None:
        values, _ = step_values(step, got.assignment, objs, got.reply)
        assert values == got.objectives


def test_a_dense_defending_board_with_effects_is_solved_on_the_frontier(monkeypatch):  # 702.15b, 702.90b, 702.19c
    # the defending side of random_sharing(6, 8, 3): the attackers' reply is one component of 7 x 10^8 rows (it was
    # listed row by row, past 10 s); on the frontier a handful of profiles, each checked against the outcome
    from benchmarks.boards import random_sharing

    doc = random_sharing(6, 8, 3, seed=1)
    doc["blockers"][0]["keywords"] = ["lifelink"]
    doc["attackers"][0]["keywords"] = [*doc["attackers"][0]["keywords"], "infect"]
    calls = []
    frontier = effects._frontier_groups
    monkeypatch.setattr(effects, "_frontier_groups", lambda *a: calls.append(1) or frontier(*a))
    step = DamageStep(doc, side="defending")
    objs = parse_objectives(["lethal", "max-kills", "min-overkill"], step.scenario)
    got = effects.solve_by_model(step, objs, time_limit=60)
    assert calls and got.status == "optimal"
    values, outcome = step_values(step, got.assignment, objs, got.reply)
    assert values == got.objectives
    assert got.objectives["max-kills"] == len(set(outcome.destroyed) & {a["id"] for a in doc["attackers"]})


def test_the_frontier_stops_at_the_time_limit(monkeypatch):
    # the frontier's solves share the solve's deadline: an expired one is an unknown answer, not a late one
    from benchmarks.boards import random_sharing

    doc = random_sharing(6, 8, 3, seed=1)
    doc["blockers"][0]["keywords"] = ["lifelink"]
    step = DamageStep(doc, side="defending")
    other = effects.other_side_step(step)
    with pytest.raises(LimitReached):
        effects._frontier_groups(step, other, set(), Deadline(1e-9))


@settings(max_examples=examples(120), deadline=None)
@given(st.data())
def test_every_reader_reads_the_solved_line_on_the_frontier(data):  # 510.2
    # the readers of one assignment (outcome_of: the arena, the environments, the pictures; score) find the worst
    # reply among the groups' representatives solve reads: with every reply read through the frontier, the outcome
    # of solve's assignment is the one of its line (assignment and reply), and its score solve's values
    from trample.optimize import readers
    from trample.outcome import resolve

    doc = data.draw(generated_effect_boards())
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    names = ",".join(data.draw(st.sampled_from(OBJECTIVE_LISTS[:9])))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(effects, "FRONTIER_ROWS", -1)
        result = Combat(doc, side=side).solve(names)
        if result.assignment is None:
            return
        line = {**result.assignment.to_json(), **(result.reply.to_json() if result.reply is not None else {})}
        want = resolve(Combat(doc).scenario, line)
        got = readers.outcome_of(Combat(doc, side=side), result.assignment, names)
        assert (got.to_json(), got.losers, got.destroyed) == (want.to_json(), want.losers, want.destroyed)
        assert readers.score(Combat(doc, side=side), result.assignment, names) == result.objectives


def test_the_readers_of_a_dense_defending_board_do_not_list_its_replies():  # 510.2, 702.15b, 702.90b
    # the attackers' reply on the defending side of random_sharing(6, 8, 3) has 7 x 10^8 rows: score and
    # outcome_of listed them all (past any limit); now they read the frontier's representatives, as solve does
    from benchmarks.boards import random_sharing
    from trample.optimize import readers
    from trample.outcome import resolve

    doc = random_sharing(6, 8, 3, seed=1)
    doc["blockers"][0]["keywords"] = ["lifelink"]
    doc["attackers"][0]["keywords"] = [*doc["attackers"][0]["keywords"], "infect"]
    names = "lethal,max-kills,min-overkill"
    result = Combat(doc, side="defending").solve(names, time_limit=60)
    assert result.status == "optimal"
    step = DamageStep(doc, side="defending")
    objs = parse_objectives(names.split(","), step.scenario)
    assert readers.score_by_outcome(step, result.assignment, objs, time_limit=60) == result.objectives
    got = readers.outcome_of(Combat(doc, side="defending"), result.assignment, names, time_limit=60)
    want = resolve(step.scenario, {**result.assignment.to_json(), **result.reply.to_json()})
    assert got.to_json() == want.to_json()
    # all_optimal too: each of the blockers' 288 assignments is worth its worst reply among the same replies
    optimal = list(all_optimal(Combat(doc, side="defending"), names, time_limit=60))
    assert result.assignment in optimal
    for a in optimal:
        assert readers.score_by_outcome(step, a, objs) == result.objectives


def test_on_the_frontier_every_reader_reports_the_solved_reply(monkeypatch):  # 510.2, 702.15b, 615.7
    # the lifelink blocker b splits 2 between a1 and a2, whose shield stops 1 (615.7): its replies gain 1 (0/2 and
    # 1/1) or 2 (2/0). For max-kills every reply is worth the same: the listing reports the first listed (0/2);
    # on the frontier only the undominated gain of 2 is kept and its first reply (2/0) is reported -- and the readers
    # of the assignment (outcome_of, score) read that same line, not the listing's
    from trample.optimize import readers
    from trample.outcome import resolve

    doc = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": "a1", "power": 1, "toughness": 3, "attacking": "opp", "blocked_by": ["b"]},
            {"id": "a2", "power": 1, "toughness": 3, "attacking": "opp", "blocked_by": ["b"], "prevent": 1},
        ],
        "blockers": [{"id": "b", "power": 2, "toughness": 1, "keywords": ["lifelink"]}],
    }
    listed = Combat(doc).solve("max-kills")
    assert listed.reply.to_json() == {"b": {"a2": 2}}
    monkeypatch.setattr(effects, "FRONTIER_ROWS", -1)
    result = Combat(doc).solve("max-kills")
    assert result.objectives == listed.objectives and result.reply.to_json() == {"b": {"a1": 2}}
    want = resolve(Combat(doc).scenario, {**result.assignment.to_json(), **result.reply.to_json()})
    got = readers.outcome_of(Combat(doc), result.assignment, "max-kills")
    assert got.to_json() == want.to_json() and got.players == want.players


@settings(max_examples=examples(120), deadline=None)
@given(st.data())
def test_every_optimal_assignment_is_found_among_the_groups_replies(data):  # 510.1, 510.2
    # all_optimal on effect boards finds each assignment's worst line among effects.worst_candidates (the groups'
    # representatives, or on the frontier the undominated profiles'): the same assignments as over every reply
    from trample.optimize.listing import all_optimal_by_outcome

    doc = data.draw(generated_effect_boards())
    if data.draw(st.booleans()):
        doc = data.draw(with_banding(doc))
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS[:9]))
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    want = all_optimal_by_outcome(step, objs)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(effects, "FRONTIER_ROWS", data.draw(st.sampled_from([-1, effects.FRONTIER_ROWS])))
        fresh = DamageStep(doc, side=side)
        got = all_optimal_by_outcome(fresh, objs, replies=effects.worst_candidates(fresh, Deadline(None)))
    assert got == want


# -- the frontier where the solved player divides part of the reply (banding, 702.22j/k) -------------------------


def _verdicts(lethal: dict | None) -> dict | None:
    """A lethal report without what the reported line leaves (life, poison and commander damage after it)."""
    if lethal is None:
        return None
    keep = ("life", "reached", "reachable", "assigned", "damage", "margin")
    return {p: {k: v for k, v in r.items() if k in keep} for p, r in lethal.items()}


def _frontier_everywhere(mp: pytest.MonkeyPatch) -> None:
    """Every reply read through the frontier, with or without a part divided by the solved player."""
    mp.setattr(effects, "FRONTIER_ROWS", -1)
    mp.setattr(effects, "ROWS_PER_PART", 0)


@st.composite
def banding_boards(draw, side: str, solved_divides: bool = True) -> dict:
    """Effect boards where the player solved for ``side`` divides part of the reply (702.22j/k): banding on a
    blocker that blocks (defending: it divides the attackers' damage), or on a blocked attacker (attacking: it
    divides its blockers'), sometimes on more than one; the listing still short enough to read. Not
    ``solved_divides``: the other way round, the other player divides part of the solved side's damage."""
    doc = draw(scenarios(max_attackers=3, max_blockers=3, max_total_power=7, max_work=400))
    doc = draw(outcome_effects(doc))
    doc = near_death(_Drawer(draw), doc)
    blocking = {b for a in doc["attackers"] for b in a.get("blocked_by", [])}
    if (side == "defending") == solved_divides:
        able = [c for c in doc.get("blockers", []) if c["id"] in blocking]
    else:
        able = [c for c in doc["attackers"] if c.get("blocked_by")]
    for n, c in enumerate(able):
        if n == 0 or draw(st.booleans()):
            c["keywords"] = [*c.get("keywords", []), "banding"]
    return doc


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_the_frontier_by_division_holds_the_listings_choices(data):  # 702.22j, 702.22k, 510.1, 702.19c
    # the solved player divides part of the reply (a banding blocker's attackers on the defending side, a banding
    # attacker's blockers on the attacking side): the frontier walks the divisions and solves each one's
    # undominated profiles; the choices worth making (kept_choices) and their profiles must be the listing's,
    # whether deaths are monotone or compared as sets, and each group's reply the first listed with its division
    # and profile, in the listing's order
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    doc = data.draw(banding_boards(side))
    step = DamageStep(doc, side=side)
    try:
        other, _, theirs, partial = effects.separable(step)
    except effects.NotSeparable:
        return
    if partial or not theirs or other is None or not other.canonical():
        return
    em = effects.EffectsModel(step)
    interesting = set(em.killable) | set(em.walkers)
    listed = effects.reply_groups(step, other, interesting, Deadline(None), theirs)
    mine = list(theirs)  # the other side's columns the solved player divides (reply_groups' key head)
    frontier = effects._frontier_groups(step, other, interesting, Deadline(None), mine)
    for monotone in (True, False):
        want = {frozenset(p.key for p in ps) for ps in effects.choices_of(listed, monotone)}
        got = {frozenset(p.key for p in ps) for ps in effects.choices_of(frontier, monotone)}
        assert got == want
    first: dict[tuple, dict] = {}
    for reply in other.assignments():
        row = vector_of(other, reply)
        key = (tuple(row[j] for j in mine), effects._profile(step, reply, interesting).key)
        first.setdefault(key, reply.to_json())
    for reply, prof, part in frontier:
        assert reply is not None and reply.to_json() == first[part, prof.key]
    rows = [vector_of(other, reply) for reply, _, _ in frontier]
    assert rows == sorted(rows)


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_solved_on_the_frontier_by_division_the_answer_is_the_listings(data):  # 702.22j, 702.22k, 510.2
    # every reply read through the frontier, divisions included: the same status, values, assignment and lethal
    # report as the listing, the reply's line worth the answer's values; and every reader of the assignment
    # (score, outcome_of) reads that line
    from trample.optimize import readers
    from trample.outcome import resolve

    side = data.draw(st.sampled_from(["attacking", "defending"]))
    doc = data.draw(banding_boards(side))
    names = [n for n in data.draw(st.sampled_from(OBJECTIVE_LISTS)) if n != "max-damage:p0" or "p0" in str(doc)]
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    with pytest.MonkeyPatch.context() as mp:
        _frontier_everywhere(mp)
        got = effects.solve_by_model(step, objs)
        if got is None:
            return  # the listing answers (the other player divides part of the solved side's damage)
        ref = solve_by_outcome(step, objs)
        assert (got.status, got.objectives, got.assignment) == (ref.status, ref.objectives, ref.assignment)
        # the lethal report's verdicts are the listing's; what the line leaves, the reported line's (the reply may
        # be another worst one: docs/solve.md, "Long replies: the frontier on the model")
        assert _verdicts(got.lethal) == _verdicts(ref.lethal)
        if got.assignment is None:
            return
        values, _ = step_values(step, got.assignment, objs, got.reply)
        assert values == got.objectives
        line = {**got.assignment.to_json(), **(got.reply.to_json() if got.reply is not None else {})}
        want = resolve(step.scenario, line)
        text = ",".join(names)
        seen = readers.outcome_of(Combat(doc, side=side), got.assignment, text)
        assert (seen.to_json(), seen.losers, seen.destroyed) == (want.to_json(), want.losers, want.destroyed)
        assert readers.score(Combat(doc, side=side), got.assignment, text) == got.objectives


def test_a_choice_another_is_at_least_as_good_as_is_dropped():  # 702.22j, 702.22k
    # three divisions of the solved player's part, each with its worst profiles (larger: worse for them):
    # (0,) leaves the reply at most 5 or (3, 3); (1,) at most 2; (2,) the same as (1,); (3,) at most 4 -- (0,) and
    # (3,) are no better than (1,) whatever the solved player assigns (each of (1,)'s profiles is dominated by one
    # of theirs) though neither holds (1,)'s profiles; (2,) ties with (1,), the first kept; (4,) at most (1, 3),
    # which no other choice's profiles dominate, is kept
    def worse(p, q):
        return all(a >= b for a, b in zip(p, q))

    parts = [((0,), (5, 0)), ((0,), (3, 3)), ((1,), (2, 2)), ((2,), (2, 2)), ((3,), (4, 2)), ((4,), (1, 3))]
    kept = effects.kept_choices(parts, worse, lambda v: v)
    assert kept == [((1,), [(2, 2)]), ((4,), [(1, 3)])]
    # a choice whose profiles include another's is one such (the old rule); (2,)'s (0, 6) dominates one of (0,)'s
    # profiles, not both, and is kept
    kept = effects.kept_choices([((0,), (1, 1)), ((0,), (0, 5)), ((1,), (1, 1)), ((2,), (0, 6))], worse, lambda v: v)
    assert kept == [((1,), [(1, 1)]), ((2,), [(0, 6)])]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.tuples(st.tuples(st.integers(0, 5)), st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans())),
        max_size=14,
    )
)
def test_the_choices_kept_are_those_no_other_is_better_than(parts):  # 702.22j, 702.22k
    # kept_choices in one pass against the choices kept so far, held to the definition read pair by pair: a
    # choice (its undominated profiles; choices with the same profiles once, the first) is dropped where another
    # is no worse for the solved player -- and strictly better, or earlier
    def worse(p, q):  # two counts (larger: worse), a death compared as equal
        return p[0] >= q[0] and p[1] >= q[1] and p[2] == q[2]

    by_part: dict = {}
    for part, prof in parts:
        by_part.setdefault(part, []).append(prof)
    options: dict = {}
    for part, profs in by_part.items():
        unique = list(dict.fromkeys(profs))
        best = [p for p in unique if not any(q != p and worse(q, p) for q in unique)]
        options.setdefault(frozenset(best), (part, best))
    listed = list(options.values())

    def no_better(a, b):
        return all(any(worse(p, q) for p in a) for q in b)

    want = [
        (part, a)
        for n, (part, a) in enumerate(listed)
        if not any(m != n and no_better(a, b) and (m < n or not no_better(b, a)) for m, (_, b) in enumerate(listed))
    ]
    assert effects.kept_choices(parts, worse, lambda v: v) == want


def test_a_dense_defending_board_with_banding_is_solved_on_the_frontier(monkeypatch):  # 702.22j, 702.19c
    # a banding blocker on the defending side of random_sharing(5, 7, 3): the defending player divides a1's damage
    # (56 ways), the attacking player the rest; the reply's one component has 1.6 x 10^7 rows, read row by row for
    # the groups. On the frontier: each division found and its worst reply solved, the answer the listing's groups'
    from benchmarks.boards import random_sharing

    doc = random_sharing(5, 7, 3, seed=0)
    doc["blockers"][0]["keywords"] = ["banding"]
    names = ["lethal", "max-kills", "min-overkill"]
    step = DamageStep(doc, side="defending")
    objs = parse_objectives(names, step.scenario)
    calls = []
    frontier = effects._frontier_groups
    monkeypatch.setattr(effects, "_frontier_groups", lambda *a: calls.append(a[-1]) or frontier(*a))
    got = effects.solve_by_model(step, objs, time_limit=60)
    assert calls and calls[0] and got.status == "optimal"
    values, _ = step_values(step, got.assignment, objs, got.reply)
    assert values == got.objectives
    monkeypatch.setattr(effects, "MAX_FRONTIER", 0)  # the groups read from the listing, as before
    ref = effects.solve_by_model(DamageStep(doc, side="defending"), objs, time_limit=60)
    assert (got.status, got.objectives, got.assignment) == (ref.status, ref.objectives, ref.assignment)


def test_the_groups_profiles_are_resolved_within_the_time_limit(monkeypatch):  # 702.22j
    # the listing's groups, keyed by the defending player's division of two banded attackers (544 of them): each
    # group's profile is resolved from its reply (about 0.1 ms); 1.3 x 10^5 of them ran 9 s past a 10 s limit. The
    # clock is read between them: a fake clock that advances 1 ms a profile stops the groups at the 100th or soon
    # after, with LimitReached
    import trample.limits as limits
    from benchmarks.boards import random_sharing

    doc = random_sharing(4, 6, 2, seed=1)
    doc["blockers"][0]["keywords"] = ["banding"]
    step = DamageStep(doc, side="defending")
    other, _, theirs, _ = effects.separable(step)
    monkeypatch.setattr(effects, "MAX_FRONTIER", 0)  # the listing's groups
    now = [0.0]
    monkeypatch.setattr(limits, "monotonic", lambda: now[0])
    profile = effects._profile

    def timed(*a):
        now[0] += 1e-3
        return profile(*a)

    monkeypatch.setattr(effects, "_profile", timed)
    assert len(effects.reply_groups(step, other, set(), None, theirs)) > 500  # without a limit: every group
    now[0] = 0.0
    step = DamageStep(doc, side="defending")  # (a fresh step: the groups found are kept on the step)
    with pytest.raises(LimitReached):
        effects.reply_groups(step, other, set(), Deadline(0.1), theirs)
    assert now[0] <= 0.1 + 0.065


def test_the_frontier_by_division_stops_at_the_time_limit():  # 702.22j
    from benchmarks.boards import random_sharing

    doc = random_sharing(6, 8, 3, seed=0)
    doc["blockers"][0]["keywords"] = ["banding"]
    step = DamageStep(doc, side="defending")
    other, _, theirs, _ = effects.separable(step)
    assert theirs
    with pytest.raises(LimitReached):
        effects._frontier_groups(step, other, set(), Deadline(1e-9), theirs)


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_the_optimal_assignments_listed_from_the_model_are_the_listings(data):  # 510.1, 510.2, 702.22j/k
    # all_optimal on a board with effects past ALL_OPTIMAL_LISTED: the model's objective fixed at its optimum and
    # its solutions listed by CP-SAT -- the same set as reading every assignment against every reply, each once;
    # where the other player divides part of the solved side's damage the reading answers (every division of it
    # the other player may make stays in the set: the model's vectors hold one of them)
    from trample.optimize import search
    from trample.optimize.listing import all_optimal_by_outcome

    doc = data.draw(generated_effect_boards())
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    if data.draw(st.booleans()):  # banding: the solved player divides part of the reply, or the other player
        doc = data.draw(banding_boards(side, data.draw(st.booleans())))  # part of theirs (optimize.bands)
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS[:9]))
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    want = all_optimal_by_outcome(step, objs)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search, "ALL_OPTIMAL_LISTED", -1)
        stream = all_optimal(Combat(doc, side=side), names)
        got = list(stream)
    assert len(got) == len({a.to_json().__repr__() for a in got})  # each once
    assert sorted(map(repr, (a.to_json() for a in got))) == sorted(map(repr, (a.to_json() for a in want)))


def test_a_dense_board_with_effects_lists_its_optimal_assignments_from_the_model():  # 702.15b, 510.2
    # random_sharing(6, 8, 3) with a lifelink blocker, attacking: 1.2 x 10^10 assignments; all_optimal read every
    # one against the replies (`unknown` at any limit); from the model the optimal ones stream, each worth the
    # optimum
    from benchmarks.boards import random_sharing
    from trample.optimize import readers

    doc = random_sharing(6, 8, 3, seed=0)
    doc["blockers"][0]["keywords"] = ["lifelink"]
    names = "lethal,max-kills"
    stream = all_optimal(Combat(doc), names, limit=50, time_limit=60)
    got = list(stream)
    assert stream.status == "optimal" and len(got) == 50 and len({repr(a.to_json()) for a in got}) == 50
    for a in got[:10]:
        assert readers.score(Combat(doc), a, names) == stream.objectives


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_the_first_of_each_distinct_row(data):
    # effects._first_of_each (the reply's groups read block by block): the first index of each distinct row, in
    # order, by one integer key per row or, past an int64's range, by a stable sort of the rows -- both the plain
    # reading of the rows one by one
    import numpy as np

    width = data.draw(st.integers(1, 6))
    top = data.draw(st.sampled_from([1, 3, 2**40]))  # 2**40 on several columns: past an int64 key (the sort)
    rows = data.draw(st.lists(st.lists(st.integers(0, top), min_size=width, max_size=width), max_size=60))
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), width)
    seen: dict[tuple, int] = {}
    for n, r in enumerate(rows):
        seen.setdefault(tuple(r), n)
    assert effects._first_of_each(arr).tolist() == sorted(seen.values())
