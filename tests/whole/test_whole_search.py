"""The whole-combat search inside one group (issue 21): the dominance order, its bounds and the regular step memoised
by the first step's outcome, against the independent two-step minimax of tests/oracles/brute_combat.py.

The three one-group shapes that were slow (double strikers all attacking one planeswalker, two defending players
with ``lethal``, the ladder with ``lethal,max-kills,min-overkill``) are drawn small, with their numbers drawn, and
so are generated boards with more first and double strikers; every objective list's value must be the brute
force's, the line legal and worth what is reported.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import brute_combat
import numpy as np
import pytest
import strategies
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from benchmarks.boards import ladder, mixed_group
from trample import Combat
from trample.models import ObjectiveKind
from trample.outcome import damage_dealt, effect_key
from trample.whole import WholeCombat
from trample.whole import search as whole_search

OBJECTIVES = [
    ["max-damage"],
    ["lethal"],
    ["max-kills"],
    ["max-value"],
    ["lethal", "max-kills"],
    ["lethal", "max-kills", "min-overkill"],
    ["max-kills", "min-overkill"],
    ["lethal", "max-damage", "min-overkill"],
    ["max-damage", "max-value"],
]


def _ds(i: int, power: int, attacking: str, blockers: list[str]) -> dict:
    return {
        "id": f"a{i}",
        "power": power,
        "toughness": 3,
        "keywords": ["double_strike", "trample"],
        "attacking": attacking,
        "blocked_by": blockers,
    }


@st.composite
def one_group(draw) -> dict:
    """A small version of one of the three shapes: 2 double-strike tramplers, each blocked by its own blocker and
    by a shared first striker (510.1d: it divides its damage), attacking one planeswalker, or two players (one each),
    or one player with a low life."""
    shape = draw(st.sampled_from(["planeswalker", "two players", "ladder"]))
    power = [draw(st.integers(1, 3)) for _ in range(2)]
    blockers = [{"id": f"b{i}", "power": 1, "toughness": draw(st.integers(1, 2))} for i in range(2)]
    blockers.append({"id": "f", "power": draw(st.integers(1, 3)), "toughness": 2, "keywords": ["first_strike"]})
    players = [{"id": "opp", "life": draw(st.integers(1, 6))}]
    doc = {"step": "combat", "players": players, "blockers": blockers}
    targets = ["opp", "opp"]
    if shape == "planeswalker":
        doc["planeswalkers"] = [{"id": "w", "controller": "opp", "loyalty": draw(st.integers(2, 9))}]
        targets = ["w", "w"]
    elif shape == "two players":
        players.append({"id": "opp2", "life": draw(st.integers(1, 6))})
        targets = ["opp", "opp2"]
    doc["attackers"] = [_ds(i, power[i], targets[i], [f"b{i}", "f"]) for i in range(2)]
    return doc


@st.composite
def striking(draw) -> dict:
    """Generated whole combats with more first and double strikers."""
    doc = draw(
        strategies.scenarios(
            step="combat", rules="current", max_attackers=3, max_blockers=3, max_total_power=5, max_work=60
        )
    )
    for c in doc["attackers"] + doc.get("blockers", []):
        extra = draw(st.sampled_from([[], ["first_strike"], ["double_strike"]]))
        if extra and not {"first_strike", "double_strike"} & set(c.get("keywords", [])):
            c["keywords"] = [*c.get("keywords", []), *extra]
    return doc


def assert_same_answer(got, reference, lethal: bool = True) -> None:
    """Two searches of one board: both proven, the same values and line (and lethal report)."""
    assert got.status == reference.status == "optimal"
    assert got.objectives == reference.objectives
    assert got.assignment == reference.assignment
    if lethal:
        assert got.lethal == reference.lethal


def agrees_with_brute_force(doc: dict, objectives: list[str]) -> None:
    expected = brute_combat.adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert result.status == "optimal"
    got = tuple(Fraction(str(result.objectives[o])) for o in objectives)
    assert got == tuple(Fraction(v) for v in expected), (got, expected)
    line = result.assignment.to_json()
    assert brute_combat.is_legal_line(doc, line)
    values = brute_combat.line_values(doc, line, objectives)  # the line returned is worth what is reported
    assert tuple(Fraction(values[o]) for o in objectives) == got


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(one_group(), st.sampled_from(OBJECTIVES))
def test_one_group_shapes_match_the_brute_force_minimax(doc, objectives):
    agrees_with_brute_force(doc, objectives)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(striking(), st.sampled_from(OBJECTIVES))
def test_generated_combats_match_the_brute_force_minimax(doc, objectives):
    agrees_with_brute_force(doc, objectives)


def test_the_planeswalker_shape_is_searched_in_the_dominance_order():
    # double strikers attacking one planeswalker that the first step cannot take out (704.5i): max-damage, lethal
    # and max-kills are monotone in the first step's damage, min-overkill ends the monotone prefix
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 20}],
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 30}],
        "attackers": [_ds(i, 4, "w", [f"b{i}", "f"]) for i in range(2)],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": 2} for i in range(2)]
        + [{"id": "f", "power": 2, "toughness": 3, "keywords": ["first_strike"]}],
    }
    whole = WholeCombat(doc)
    for objectives, prefix in (
        (["max-damage"], 1),
        (["lethal", "max-kills", "min-overkill"], 2),
        (["min-overkill"], 0),
    ):
        objs = whole_search.parse_objectives(objectives)
        problem = whole_search._Problem(whole, objs, whole_search.deadline_of(None), {}, whole_search._Stats())
        assert whole_search._monotone_prefix(problem, canonical=True) == prefix
    # a planeswalker the first step can take out keeps every A1 (its attackers lose their target, 506.4)
    doc["planeswalkers"][0]["loyalty"] = 3
    for a in doc["attackers"]:  # 4 power over a 2-toughness blocker: 2 each to the planeswalker
        a["blocked_by"] = a["blocked_by"][:1]
    whole = WholeCombat(doc)
    problem = whole_search._Problem(
        whole, whole_search.parse_objectives("max-damage"), whole_search.deadline_of(None), {}, whole_search._Stats()
    )
    assert whole_search._monotone_prefix(problem, canonical=True) == 0
    assert whole.solve("max-damage").objectives == {"max-damage": 0}


def _searched_table(doc: dict, objectives: list[str]):
    """The first-step candidates as the search reads them (its problem, replies and table), or None when the board
    is not one whose first step the bounds read (trample.whole.search._plain_first_step, trample over planeswalkers
    allowed; a first step that can end the game only where the bounds tell which do, _ends_readable; it may take
    planeswalkers and battles out of combat)."""
    whole = WholeCombat(doc)
    objs = whole_search.parse_objectives(objectives, whole.scenario)
    problem = whole_search._Problem(whole, objs, whole_search.deadline_of(None), {}, whole_search._Stats())
    canonical = problem.attacking_first.canonical() or whole_search._ways_listed(problem)
    if not whole_search._plain_first_step(problem, canonical, over=True):
        return None
    if whole_search._first_step_reach(problem)[0] and not whole_search._ends_readable(problem):
        return None
    replies = whole_search._replies(problem)
    table = whole_search._effect_table(
        problem.attacking_first,
        objs,
        whole_search._effect_caps(problem),
        whole_search._lethal_caps(problem),
        problem.deadline,
        None,
    )
    return whole, problem, replies, table


def _regular_steps(whole, table, replies, i: int):
    """Every regular step after candidate ``i`` of the table, each reply: (its combat, each legal assignment)."""
    a1 = table.candidate(i).a1.to_json()
    for reply in replies:
        step = Combat(whole.state_after({**a1, **reply.d1.to_json()}), side="attacking")
        for a2 in step.assignments():
            yield step, a2


def _floor_and_least_overkill(doc: dict, objectives: list[str]):
    """Per first-step candidate (None when the board does not take the bounds): the floor the search bounds its
    regular step's overkill by, and the least overkill of every legal regular step after it, each reply, read
    assignment by assignment."""
    got = _searched_table(doc, objectives)
    if got is None:
        return None
    whole, problem, replies, table = got
    floor = whole_search._overkill_floor(problem, table, replies)
    overkill = whole_search.parse_objectives(["min-overkill"], whole.scenario)
    out = []
    for i in range(len(table)):
        least = min(
            whole_search.score(step, a2, overkill)["min-overkill"]
            for step, a2 in _regular_steps(whole, table, replies, i)
        )
        out.append((int(floor[i]), least))
    return out


@st.composite
def overkilling(draw) -> dict:
    """The ladder's pair with more power than its blockers and the player can take over the combat (so the floor
    is often above 0), the player out of the first step's reach or not."""
    power = [draw(st.integers(3, 7)) for _ in range(2)]
    blockers = [{"id": f"b{i}", "power": 1, "toughness": draw(st.integers(1, 3))} for i in range(2)]
    blockers.append(
        {
            "id": "f",
            "power": draw(st.integers(1, 4)),
            "toughness": draw(st.integers(1, 4)),
            "keywords": ["first_strike"],
        }
    )
    doc = {"step": "combat", "players": [{"id": "opp", "life": draw(st.integers(4, 16))}], "blockers": blockers}
    doc["attackers"] = [_ds(i, power[i], "opp", [f"b{i}", "f"]) for i in range(2)]
    return doc


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(
    st.one_of(one_group(), striking(), overkilling()),
    st.sampled_from(
        [["lethal", "max-kills", "min-overkill"], ["max-kills", "min-overkill"], ["max-damage", "min-overkill"]]
    ),
)
def test_the_regular_steps_overkill_floor_is_never_above_its_least_overkill(doc, objectives):
    # 510.1a: every attacker assigns all its damage; what a recipient takes past its threshold is overkill
    # (trample.outcome.overkill_threshold, 702.19b): the search skips first steps by this floor, so it must hold
    # for every reply and every regular step after them
    pairs = _floor_and_least_overkill(doc, objectives)
    assume(pairs is not None)
    for floor, least in pairs:
        assert least is not None and floor <= least, (floor, least)


def test_the_overkill_floor_is_tight_on_the_ladder():
    # the ladder's pair with power 9: two double-strike tramplers deal 36 damage over the combat (510.1a: all of
    # it assigned) against thresholds of 27 (20 life, 2 + 2 and 3 toughness), so at least 9 is overkill; the floor
    # holds after every first step and meets the least overkill after some
    doc = ladder(2, power=9)
    pairs = _floor_and_least_overkill(doc, ["lethal", "max-kills", "min-overkill"])
    assert pairs is not None
    assert all(floor <= least for floor, least in pairs)
    assert any(floor > 0 and floor == least for floor, least in pairs)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(
    st.one_of(one_group(), striking(), overkilling()),
    st.sampled_from(
        [
            ["lethal", "max-kills", "min-overkill"],
            ["max-damage", "max-value", "min-overkill"],
            ["max-damage:ID"],
            ["lethal", "max-damage"],
        ]
    ),
)
def test_each_candidates_own_bounds_hold_after_every_reply_and_regular_step(doc, objectives):
    # the search skips a first step whose own bound (first step plus the most the regular step can add) cannot beat
    # the best: per objective, no reply and no regular step may take it past that bound (510.1a: the attackers'
    # damage; 702.19b, 702.2c: the blockers still alive; 704.5a: lethal over both steps)
    objectives = [o.replace("ID", doc["players"][-1]["id"]) for o in objectives]  # one player's damage
    got = _searched_table(doc, objectives)
    assume(got is not None)
    whole, problem, replies, table = got
    objs = problem.objs
    bounds = whole_search._own_bounds(problem, table, replies)
    for i in range(len(table)):
        for step, a2 in _regular_steps(whole, table, replies, i):
            values = whole_search.score(step, a2, objs)
            regular = whole_search.oriented(objs, {name: whole_search.exact(v) for name, v in values.items()})
            for k, o in enumerate(objs):
                if bounds[k] is None:
                    continue
                total = regular[k] * table.scales[k] + (0 if o.kind == ObjectiveKind.LETHAL else int(table.first[i, k]))
                assert total <= int(bounds[k][i]), (o.name, total, int(bounds[k][i]))


@pytest.mark.slow
@settings(max_examples=strategies.examples(20), deadline=None)
@given(overkilling(), st.sampled_from([o for o in OBJECTIVES if "min-overkill" in o] + [["max-kills", "lethal"]]))
def test_overkilling_pairs_match_the_brute_force_minimax(doc, objectives):
    # where the overkill floor skips first steps (and where it does not, max-kills,lethal)
    agrees_with_brute_force(doc, objectives)


def _candidate_values(whole, problem, table, replies, i: int) -> tuple[list[tuple], tuple]:
    """Candidate ``i``'s value after each reply (first step plus the best regular step, oriented and scaled as the
    table, read assignment by assignment) and its value over the combat (the least of those: the defender picks)."""
    objs = problem.objs
    a1 = table.candidate(i).a1.to_json()
    after = []
    for reply in replies:
        step = Combat(whole.state_after({**a1, **reply.d1.to_json()}), side="attacking")
        best = None
        for a2 in step.assignments():
            values = whole_search.score(step, a2, objs)
            regular = whole_search.oriented(objs, {name: whole_search.exact(v) for name, v in values.items()})
            total = tuple(
                regular[k] * table.scales[k] + (0 if o.kind == ObjectiveKind.LETHAL else int(table.first[i, k]))
                for k, o in enumerate(objs)
            )
            best = total if best is None or total > best else best
        after.append(best)
    return after, min(after)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(
    st.one_of(one_group(), striking(), overkilling()),
    st.sampled_from(
        [
            ["lethal", "max-kills", "min-overkill"],
            ["max-damage", "max-value", "min-overkill"],
            ["max-damage"],
            ["min-overkill", "max-kills"],
            ["lethal", "max-damage"],
        ]
    ),
)
def test_the_bounds_after_each_reply_hold_and_their_least_bounds_the_value(doc, objectives):
    # the search orders first steps by a vector bound and stops below the best: after a reply that kills some
    # attackers (they deal no regular damage, 510.1a), every objective is at most the bound read for that reply's
    # outcome; the candidate's value (the defender picks the least) is at most the least of those vectors
    # (lexicographically), and each column of _own_bounds holds alone
    got = _searched_table(doc, objectives)
    assume(got is not None)
    whole, problem, replies, table = got
    per = {dead: whole_search._reply_bounds(problem, table, dead) for dead in whole_search._outcomes(replies)}
    lex = whole_search._lex_bounds(problem, table, replies, list(per.values()))
    widest = whole_search._lex_bounds(problem, table, replies, [per[d] for d in whole_search._widest(list(per))])
    own = whole_search._own_bounds(problem, table, replies)
    monotone = "min-overkill" not in objectives
    for i in range(len(table)):
        after, value = _candidate_values(whole, problem, table, replies, i)
        for reply, total in zip(replies, after):
            bound = per[reply.outcome if isinstance(reply.outcome, frozenset) else frozenset()]
            for k, b in enumerate(bound):
                assert b is None or total[k] <= int(b[i]), (objectives[k], total, reply.outcome)
        width = next((k for k, c in enumerate(lex) if c is None), len(lex))
        assert value[:width] <= tuple(int(c[i]) for c in lex[:width])
        if monotone:  # the replies that kill the most bound as tightly
            assert tuple(int(c[i]) for c in widest[:width]) == tuple(int(c[i]) for c in lex[:width])
        for k, c in enumerate(own):
            assert c is None or value[k] <= int(c[i])


@st.composite
def chained_small(draw) -> dict:
    """benchmarks/boards.py's chained ladder drawn small: 3 double-strike tramplers, each blocked by its own blocker
    and sharing a first striker with each neighbour (one group; 510.1d: each first striker divides its damage)."""
    n = 3
    blockers, attackers = [], []
    for i in range(n):
        blockers.append({"id": f"b{i}", "power": 1, "toughness": draw(st.integers(1, 2))})
        if i < n - 1:
            fs = {"id": f"f{i}", "power": draw(st.integers(1, 2)), "toughness": draw(st.integers(1, 2))}
            blockers.append(dict(fs, keywords=["first_strike"]))
        shared = ([f"f{i - 1}"] if i > 0 else []) + ([f"f{i}"] if i < n - 1 else [])
        a = _ds(i, draw(st.integers(1, 3)), "opp", [f"b{i}", *shared])
        attackers.append(dict(a, toughness=draw(st.integers(1, 3))))
    players = [{"id": "opp", "life": draw(st.integers(2, 9))}]
    return {"step": "combat", "players": players, "attackers": attackers, "blockers": blockers}


@pytest.mark.slow
@settings(max_examples=strategies.examples(12), deadline=None)
@given(
    chained_small(),
    st.sampled_from(OBJECTIVES + [["min-overkill"], ["min-overkill", "max-kills"], ["lethal", "max-damage"]]),
)
def test_chained_shapes_match_the_brute_force_minimax(doc, objectives):
    # the one-group board the best-bound-first search was made for: every reply outcome's bounds order and stop it
    agrees_with_brute_force(doc, objectives)


def _best_of_each_state(doc: dict, objectives: list[str]):
    """The first-step candidates as the search reads them (trample.whole.search._effect_table's vectors), and the
    same found assignment by assignment without the numpy pass: per state the first step leaves (each recipient's
    damage, a creature's capped at lethal, and deathtouch: trample.outcome.effect_key), the assignment whose
    first-step values (trample.optimize.score) are lexicographically best, ties to the first in the canonical
    order; both in the canonical order. None when the board does not take the bounds."""
    got = _searched_table(doc, objectives)
    if got is None:
        return None
    whole, problem, _, table = got
    step = problem.attacking_first
    lethal = whole_search._lethal_caps(problem)
    best: dict = {}
    for index, a1 in enumerate(step.assignments()):
        dealt, touched = damage_dealt(whole.scenario, a1)
        state = effect_key(dealt, touched, {r: lethal.get(r, n) for r, n in dealt.items()})
        value = whole_search.oriented(problem.objs, whole_search.score(step, a1, problem.objs))
        if state not in best or value > best[state][0]:
            best[state] = (value, index, step.plan.vector(a1))
    expected = [vector for _, _, vector in sorted(best.values(), key=lambda b: b[1])]
    return [tuple(int(x) for x in row) for row in table.vectors.tolist()], expected


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(
    st.one_of(one_group(), striking(), overkilling(), chained_small()),
    st.sampled_from(
        [
            ["min-overkill"],
            ["lethal", "max-kills", "min-overkill"],
            ["max-kills", "min-overkill"],
            ["max-value", "min-overkill"],
            ["min-overkill", "max-damage"],
            ["max-damage"],
            ["lethal", "max-kills"],
        ]
    ),
)
def test_each_state_keeps_its_best_first_step_as_read_one_by_one(doc, objectives):
    # the one numpy pass over the first-strike assignments (each row's state and values read as one number,
    # trample.whole.search._Packing) against reading them one at a time: the same candidates, in the same order
    got = _best_of_each_state(doc, objectives)
    assume(got is not None)
    table, expected = got
    assert table == expected


@st.composite
def valued_walkers(draw) -> dict:
    """The planeswalker shape with values (docs/format.md: a planeswalker is worth its ``value`` to ``max-value``
    when assigned its loyalty, 702.19c): 2 double-strike tramplers each blocked by its own blocker and a shared first
    striker, one attacking planeswalker w, the other w, a second planeswalker v or the player; the loyalties drawn
    around what the two steps can deal, so the regular step reaches them or not."""
    power = [draw(st.integers(1, 4)) for _ in range(2)]
    values = st.sampled_from([0, 1, 2, 3, 0.5])
    blockers = [
        {"id": f"b{i}", "power": 1, "toughness": draw(st.integers(1, 2)), "value": draw(values)} for i in range(2)
    ]
    fs = {"id": "f", "power": draw(st.integers(1, 3)), "toughness": 2, "keywords": ["first_strike"]}
    blockers.append(dict(fs, value=draw(values)))
    walkers = [{"id": "w", "controller": "opp", "loyalty": draw(st.integers(1, 12)), "value": draw(values)}]
    second = draw(st.sampled_from(["w", "v", "opp"]))
    if second == "v":
        walkers.append({"id": "v", "controller": "opp", "loyalty": draw(st.integers(1, 8)), "value": draw(values)})
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": draw(st.integers(1, 12))}],
        "planeswalkers": walkers,
        "blockers": blockers,
    }
    doc["attackers"] = [_ds(i, power[i], ["w", second][i], [f"b{i}", "f"]) for i in range(2)]
    return doc


def _assert_reply_bounds(doc, objectives):
    """Every reply's bounds hold for every regular step of every first-step candidate of ``doc``'s search, and
    their least bound its value; returns the search's (whole, problem, replies, table)."""
    got = _searched_table(doc, objectives)
    assume(got is not None)
    whole, problem, replies, table = got
    per = {dead: whole_search._reply_bounds(problem, table, dead) for dead in whole_search._outcomes(replies)}
    lex = whole_search._lex_bounds(problem, table, replies, list(per.values()))
    width = next((k for k, c in enumerate(lex) if c is None), len(lex))
    for i in range(len(table)):
        after, value = _candidate_values(whole, problem, table, replies, i)
        for reply, total in zip(replies, after):
            bound = per[reply.outcome if isinstance(reply.outcome, frozenset) else frozenset()]
            for k, b in enumerate(bound):
                assert b is None or total[k] <= int(b[i]), (objectives[k], total, reply.outcome)
        assert value[:width] <= tuple(int(c[i]) for c in lex[:width])
    return whole, problem, replies, table


WALKER_LISTS = [["max-value"], ["max-value", "min-overkill"], ["max-kills", "max-value"], ["lethal", "max-value"]]


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(valued_walkers(), st.sampled_from(WALKER_LISTS))
def test_a_planeswalkers_value_is_bounded_by_the_damage_that_can_reach_its_loyalty(doc, objectives):
    # max-value counts a planeswalker only when assigned its loyalty (702.19c): its bound after each reply reads the
    # first step's damage to it and the most the attackers left that attack it can put through their blockers
    # (702.19b) in the regular step; every reply's bound must hold for every regular step, and their least bound
    # the candidate's value
    _assert_reply_bounds(doc, objectives)


@pytest.mark.slow
@settings(max_examples=strategies.examples(40), deadline=None)
@given(valued_walkers(), st.sampled_from(WALKER_LISTS))
def test_valued_planeswalker_boards_match_the_brute_force_minimax(doc, objectives):
    agrees_with_brute_force(doc, objectives)


@st.composite
def group_needs(draw):
    """One group's blockers as the kills and value bounds read them (trample.whole.search._GroupNeeds): 1-4
    attackers of regular damage 0-5, 1-5 blockers each paid by some of them, per column (3 of them) a need of 1-6
    or dead (_PAID), and a value of 0-3 per blocker."""
    attackers = draw(st.integers(1, 4))
    damage = [draw(st.integers(0, 5)) for _ in range(attackers)]
    bits = [1 << k if damage[k] else 0 for k in range(attackers)]
    blockers = draw(st.integers(1, 5))
    payers = [sum(bits[k] for k in draw(st.sets(st.integers(0, attackers - 1), min_size=1))) for _ in range(blockers)]
    cell = st.one_of(st.integers(1, 6), st.just(whole_search._PAID))
    need = np.array([[draw(cell) for _ in range(3)] for _ in range(blockers)], dtype=np.int64)
    worth = np.array([draw(st.integers(0, 3)) for _ in range(blockers)], dtype=np.int64)
    return whole_search._GroupNeeds([f"b{j}" for j in range(blockers)], need, payers, damage), worth


def _destroyable(group, column: int) -> list[frozenset[int]]:
    """Every set of ``group``'s blockers some division of the attackers' damage destroys in ``column``: each
    attacker divides its damage among the blockers it pays (510.1c), which is possible for a set exactly when every
    part of it needs at most its payers' damage (the supply-demand theorem of transportation: Gale 1957)."""
    need = [int(n) for n in group.need[:, column]]
    alive = [j for j, n in enumerate(need) if n < whole_search._PAID]

    def payable(part) -> bool:
        payers = 0
        for j in part:
            payers |= group.payers[j]
        return sum(need[j] for j in part) <= sum(d for k, d in enumerate(group.damage) if payers >> k & 1)

    out = []
    for size in range(len(alive) + 1):
        for chosen in itertools.combinations(alive, size):
            parts = (p for r in range(1, size + 1) for p in itertools.combinations(chosen, r))
            if all(payable(p) for p in parts):
                out.append(frozenset(chosen))
    return out


@settings(max_examples=strategies.examples(200), deadline=None)
@given(group_needs())
def test_the_kills_and_value_bounds_of_a_group_hold_for_every_set_its_damage_can_destroy(drawn):
    # 510.1c: each attacker assigns its regular damage only among the blockers blocking it, so the blockers only
    # some attackers pay are paid out of their damage alone: the bound on kills (and on their value) reads every
    # such set T of attackers, and must be at least what every division of the damage destroys
    group, worth = drawn
    kills, value = whole_search._group_most(group), whole_search._group_most(group, worth)
    for column in range(group.need.shape[1]):
        sets = _destroyable(group, column)
        assert max(len(k) for k in sets) <= int(kills[column])
        assert max(sum(int(worth[j]) for j in k) for k in sets) <= int(value[column])


def test_a_blocker_only_an_attacker_without_regular_damage_blocks_is_not_counted_killable():
    # a1 strikes first only (no regular damage, 510.1a), so b1 dies in the first step or not at all; the kills and
    # value bounds pooled the group's damage and counted b1 as killable by a0's. Read per set of attackers, every
    # candidate's bound is its value, and every reply's bounds hold
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            _ds(0, 3, "opp", ["b0", "f"]),
            {**_ds(1, 2, "opp", ["b1", "f"]), "keywords": ["first_strike", "trample"]},
        ],
        "blockers": [
            {"id": "b0", "power": 1, "toughness": 2, "value": 1},
            {"id": "b1", "power": 1, "toughness": 1, "value": 3},
            {"id": "f", "power": 1, "toughness": 3, "keywords": ["first_strike"], "value": 2},
        ],
    }
    for objectives in (["max-kills"], ["max-value"]):
        got = _searched_table(doc, objectives)
        assert got is not None
        whole, problem, replies, table = got
        per = {dead: whole_search._reply_bounds(problem, table, dead) for dead in whole_search._outcomes(replies)}
        (bound,) = whole_search._own_bounds(problem, table, replies)
        for i in range(len(table)):
            after, value = _candidate_values(whole, problem, table, replies, i)
            for reply, total in zip(replies, after):
                assert total[0] <= int(per[reply.outcome][0][i]), (objectives, i, reply.outcome)
            assert int(bound[i]) == value[0], (objectives, i)


def test_the_planeswalker_out_of_reach_adds_nothing_to_the_value_bound():
    # the ladder's pair on a planeswalker of loyalty 30: no first step and regular step together can assign it 30
    # (702.19c), so every candidate's max-value bound is the blockers it can still kill, never the planeswalker's 1
    doc = ladder(2)
    doc["planeswalkers"] = [{"id": "w", "controller": "opp", "loyalty": 30}]
    for a in doc["attackers"]:
        a["attacking"] = "w"
    got = _searched_table(doc, ["max-value"])
    assert got is not None
    _, problem, replies, table = got
    (bound,) = whole_search._own_bounds(problem, table, replies)
    assert int(bound.max()) == 3  # b0, b1 and f: the planeswalker never counts
    doc["planeswalkers"][0]["loyalty"] = 9  # 4 + 4 over the combat through two 1/2s and a 2/3: some can reach 9
    got = _searched_table(doc, ["max-value"])
    assert got is not None
    _, problem, replies, table = got
    (bound,) = whole_search._own_bounds(problem, table, replies)
    assert int(bound.max()) == 4


@st.composite
def defeatable(draw) -> dict:
    """Boards whose first step can take a planeswalker or battle out of combat (704.5i, 704.5v): 2 double-strike
    tramplers (power 2-6) each blocked by its own blocker and a shared first striker (or unblocked), one attacking
    planeswalker w (valued) or battle t of low loyalty or defense, the other the same, the player or a second
    planeswalker v; the player's life high enough or not that the first step can end the game."""
    power = [draw(st.integers(2, 6)) for _ in range(2)]
    values = st.sampled_from([0, 1, 2, 0.5])
    blockers = [
        {"id": f"b{i}", "power": 1, "toughness": draw(st.integers(1, 2)), "value": draw(values)} for i in range(2)
    ]
    fs = {"id": "f", "power": draw(st.integers(1, 3)), "toughness": draw(st.integers(1, 3))}
    blockers.append(dict(fs, keywords=["first_strike"], value=draw(values)))
    doc: dict = {"step": "combat", "players": [{"id": "opp", "life": draw(st.integers(3, 20))}], "blockers": blockers}
    first = draw(st.sampled_from(["w", "t"]))
    if first == "w":
        doc["planeswalkers"] = [
            {"id": "w", "controller": "opp", "loyalty": draw(st.integers(1, 6)), "value": draw(values)}
        ]
    else:
        doc["battles"] = [{"id": "t", "protector": "opp", "defense": draw(st.integers(1, 6))}]
    second = draw(st.sampled_from([first, "opp", "v"]))
    if second == "v":
        walker = {"id": "v", "controller": "opp", "loyalty": draw(st.integers(1, 6)), "value": draw(values)}
        doc.setdefault("planeswalkers", []).append(walker)
    blocked = [draw(st.sampled_from([[f"b{i}", "f"], [f"b{i}", "f"], [f"b{i}"], []])) for i in range(2)]
    if "f" not in blocked[0] + blocked[1]:
        doc["blockers"] = blockers[:2]
    doc["attackers"] = [_ds(i, power[i], [first, second][i], blocked[i]) for i in range(2)]
    return doc


DEFEATABLE_LISTS = [
    ["max-damage"],
    ["lethal"],
    ["max-kills"],
    ["max-value"],
    ["min-overkill"],
    ["lethal", "max-kills", "min-overkill"],
    ["max-value", "min-overkill"],
    ["lethal", "max-damage", "min-overkill"],
    ["min-overkill", "max-kills"],
]


def _assert_bounds_and_floor(doc, objectives) -> None:
    """Every reply's bounds hold (:func:`_assert_reply_bounds`), and the overkill floor of each first-step candidate
    stays at most the least overkill of its regular steps."""
    whole, problem, replies, table = _assert_reply_bounds(doc, objectives)
    floor = whole_search._overkill_floor(problem, table, replies)
    overkill = whole_search.parse_objectives(["min-overkill"], whole.scenario)
    for i in range(len(table)):
        least = min(
            whole_search.score(step, a2, overkill)["min-overkill"]
            for step, a2 in _regular_steps(whole, table, replies, i)
        )
        assert int(floor[i]) <= least, (int(floor[i]), least)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(defeatable(), st.sampled_from(DEFEATABLE_LISTS))
def test_the_bounds_hold_when_the_first_step_takes_a_planeswalker_or_battle_out_of_combat(doc, objectives):
    # 704.5i, 704.5v: a planeswalker or battle dealt its loyalty or defense in the first step leaves combat, and
    # the attackers attacking it assign the regular step's damage only to their blockers still alive (none when
    # unblocked, 506.4c): the search reads each reply's bounds and the overkill floor with it gone for the
    # candidates that take it out; every reply's bounds must hold for every regular step, their least bound the
    # candidate's value, and the floor stay at most the least overkill
    _assert_bounds_and_floor(doc, objectives)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(defeatable(), st.sampled_from(DEFEATABLE_LISTS))
def test_boards_whose_first_step_defeats_a_planeswalker_or_battle_match_the_brute_force_minimax(doc, objectives):
    # the search orders these first steps by their bounds and stops below the best (no dominance order: 506.4c),
    # so it must never cut the optimum
    agrees_with_brute_force(doc, objectives)


def test_a_planeswalker_the_first_step_defeats_is_searched_best_bound_first():
    # the power-5 ladder on a loyalty-5 planeswalker: each pair tramples 3 over its blockers in the first step
    # (702.19b, 510.1c-d), so 4 attackers can take it out of combat (704.5i); the search reads it as removable,
    # with bounds, and the line found is worth the brute force's optimum on the small board
    from benchmarks.boards import defeatable_planeswalker

    whole = WholeCombat(defeatable_planeswalker(4))
    problem = whole_search._Problem(
        whole,
        whole_search.parse_objectives(["min-overkill"]),
        whole_search.deadline_of(None),
        {},
        whole_search._Stats(),
    )
    assert whole_search._first_step_reach(problem) == (False, frozenset({"pw"}))
    assert whole_search._bounded(problem)
    assert not whole_search._first_step_keeps(problem)
    small = defeatable_planeswalker(2)
    small["planeswalkers"][0]["loyalty"] = 3  # one pair tramples 3 over: it can leave combat
    for objectives in (["min-overkill"], ["max-value"], ["lethal", "max-kills", "min-overkill"]):
        agrees_with_brute_force(small, objectives)


@st.composite
def defeatable_more(draw) -> dict:
    """:func:`defeatable` boards whose attackers on a planeswalker trample over planeswalkers (702.19c; 702.19e:
    when it leaves combat, the rest goes to its controller), or whose player has so little life that the first
    step can make them lose (704.5a, 104.3b: no regular step), or both."""
    doc = draw(defeatable())
    over = draw(st.booleans())
    walkers = {w["id"] for w in doc.get("planeswalkers", [])}
    if over:
        for a in doc["attackers"]:
            if a["attacking"] in walkers:
                a["keywords"] = [*a["keywords"], "trample_over_planeswalkers"]
    if not over or draw(st.booleans()):
        doc["players"][0]["life"] = draw(st.integers(1, 6))
    return doc


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(defeatable_more(), st.sampled_from(DEFEATABLE_LISTS))
def test_the_bounds_hold_with_trample_over_planeswalkers_or_a_first_step_that_ends_the_game(doc, objectives):
    # 702.19c/e: an attacker that tramples over planeswalkers reaches the controller too (its blockers and the
    # planeswalker's loyalty left first), and keeps assigning when the planeswalker leaves combat; 704.5a, 104.3b: a
    # first step that makes the player lose is worth its own values (no regular step, no regular overkill)
    _assert_bounds_and_floor(doc, objectives)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(defeatable_more(), st.sampled_from(DEFEATABLE_LISTS))
def test_trample_over_and_game_ending_first_steps_match_the_brute_force_minimax(doc, objectives):
    # these boards are now searched best bound first (no longer candidate by candidate): the pruning must never cut
    # the optimum
    agrees_with_brute_force(doc, objectives)


def test_trample_over_and_game_ending_boards_are_searched_best_bound_first():
    # the benchmark's shapes: the planeswalker can leave combat in the first step (704.5i) and the attackers trample
    # over it (702.19c), or the player of 8 life can lose in it (704.5a): both take the bounds
    from benchmarks.boards import defeatable_with

    for kind, n, ends in (("trample_over", 4, False), ("game_ending", 6, True)):  # 3 x 3 through to 8 life
        whole = WholeCombat(defeatable_with(n, kind))
        problem = whole_search._Problem(
            whole,
            whole_search.parse_objectives(["max-damage"]),
            whole_search.deadline_of(None),
            {},
            whole_search._Stats(),
        )
        assert whole_search._plain_first_step(problem, True, over=True)
        assert whole_search._first_step_reach(problem) == (ends, frozenset({"pw"}))
        assert whole_search._bounded(problem)


@pytest.mark.parametrize("power, loyalty, life", [(5, 2, 5), (6, 2, 5), (6, 4, 3), (6, 4, 5)])
def test_the_overkill_floor_leaves_out_an_attacker_whose_planeswalker_left_when_the_player_can_also_lose(
    power, loyalty, life
):
    # a0 kills its 1/1 blocker and takes w out of combat in the first step (704.5i), while a1 could make the player
    # lose (704.5a): after the first steps that leave the game going, a0 has no blocker alive and nothing to attack
    # (506.4c) and assigns nothing, so the floor must not count its damage; each first step's floor stays at most
    # the least overkill of its regular steps
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": life}],
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": loyalty}],
        "blockers": [{"id": "b0", "power": 1, "toughness": 1}, {"id": "b1", "power": 1, "toughness": 1}],
        "attackers": [_ds(0, power, "w", ["b0"]), _ds(1, 6, "opp", ["b1"])],
    }
    got = _floor_and_least_overkill(doc, ["min-overkill"])
    assert got is not None  # searched best bound first: the bounds read which first steps end the game
    assert all(floor <= least for floor, least in got), got
    agrees_with_brute_force(doc, ["min-overkill"])


# -- boards whose effects change what damage does, not how much (lifelink, infect, wither, toxic, commander) --------

RESULT_KEYWORDS = ["lifelink", "infect", "wither", "deathtouch", "indestructible"]


@st.composite
def result_effects(draw) -> dict:
    """:func:`striking`'s boards (and the one-group shapes) with lifelink (702.15b), infect (702.90b/c), wither
    (702.80b), deathtouch (702.2c), indestructible (702.12b), toxic (702.164c) and commander damage (903.10a) drawn
    on the creatures, poison and low life on the players; no prevention, protection or doubling (the boards whose
    first-step A1s are grouped by the state they leave: :func:`trample.whole.search._result_classes`)."""
    doc = draw(st.one_of(striking(), one_group()))
    for c in doc["attackers"] + doc.get("blockers", []):
        extra = draw(st.lists(st.sampled_from(RESULT_KEYWORDS), max_size=2, unique=True))
        c["keywords"] = [*c.get("keywords", []), *(k for k in extra if k not in c.get("keywords", []))]
    for a in doc["attackers"]:
        if draw(st.booleans()):
            a["toxic"] = draw(st.integers(1, 2))
        if draw(st.integers(0, 3)) == 0:
            a["commander"] = "me"
    for p in doc["players"]:
        if draw(st.booleans()):
            p["poison"] = draw(st.sampled_from([7, 9]))
        if draw(st.booleans()):
            p["life"] = draw(st.integers(1, 4))
        commanders = [a["id"] for a in doc["attackers"] if "commander" in a]
        if commanders and draw(st.booleans()):
            p["commander_damage"] = {commanders[0]: 19}
    return doc


def _every_a1(monkeypatch) -> None:
    """The search of every first-strike assignment, one candidate each (what the grouping replaced)."""
    monkeypatch.setattr(whole_search, "_result_classes", lambda problem: None)


ALL_LISTS = [*OBJECTIVES, ["min-overkill"], ["max-value", "min-overkill"], ["min-overkill", "max-kills"]]


@pytest.mark.slow
@settings(max_examples=strategies.examples(80), deadline=None)
@given(result_effects(), st.sampled_from(ALL_LISTS))
def test_grouping_a1s_by_the_state_they_leave_keeps_every_value(doc, objectives):
    # 120.3, 510.2: on these boards the line's values are the same with one A1 per state (the best first step of
    # each) as with every A1 searched, on every objective list (min-overkill and max-value too, which the brute force
    # below does not read on boards with effects), and the line returned is the same
    assume(whole_search._result_classes(_problem(doc, objectives)) is not None)
    grouped = WholeCombat(doc).solve(objectives)
    with pytest.MonkeyPatch.context() as m:
        _every_a1(m)
        every = WholeCombat(doc).solve(objectives)
    assert_same_answer(grouped, every, lethal=False)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(result_effects(), st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-kills"]]))
def test_grouped_boards_with_effects_match_the_brute_force_minimax(doc, objectives):
    # 702.15b, 702.90b/c, 702.80b, 702.164c, 903.10a, 704.5a/c/f-h, 104.3b: against the brute-force minimax over both
    # players' choices in both steps, every value read on what the damage does (outcome_line_values; one player)
    doc["players"] = doc["players"][:1]
    for a in doc["attackers"]:
        if a["attacking"] not in {w["id"] for w in (*doc.get("planeswalkers", []), *doc.get("battles", []))}:
            a["attacking"] = doc["players"][0]["id"]
    for w in doc.get("planeswalkers", []):
        w["controller"] = doc["players"][0]["id"]
    for b in doc.get("battles", []):
        b["protector"] = doc["players"][0]["id"]
    assume(whole_search._result_classes(_problem(doc, objectives)) is not None)
    expected = brute_combat.outcome_adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert result.status == "optimal"
    assert tuple(Fraction(str(result.objectives[o])) for o in objectives) == tuple(Fraction(v) for v in expected)


def _problem(doc: dict, objectives: list[str]):
    whole = WholeCombat(doc)
    objs = whole_search.parse_objectives(objectives, whole.scenario)
    return whole_search._Problem(whole, objs, whole_search.deadline_of(None), {}, whole_search._Stats())


def test_lifelink_and_infect_boards_search_one_a1_per_state():
    # the 4-attacker defeatable planeswalker with lifelink, or infect on the odd attackers: 7 225 A1s, far fewer
    # states; the values are those of every A1 searched
    from benchmarks.boards import defeatable_with

    for kind in ("lifelink", "infect"):
        doc = defeatable_with(2, kind=kind)
        problem = _problem(doc, ["lethal", "max-kills", "min-overkill"])
        classes = whole_search._result_classes(problem)
        assert classes is not None
        kept = list(whole_search._distinct_results(problem, classes))
        total = problem.attacking_first.count()
        assert 0 < len(kept) < total
        assert len({c.effect for c in kept}) == len(kept)


# -- the bounds on boards with effects that change only what damage does (best bound first) -----------------------

ATTACKER_EFFECTS = ["lifelink", "infect", "wither", "deathtouch"]
BLOCKER_EFFECTS = ["lifelink", "infect", "wither", "deathtouch", "indestructible"]


@st.composite
def bounded_effects(draw) -> dict:
    """:func:`defeatable`'s and :func:`one_group`'s boards (a first step that can take a planeswalker or battle out
    of combat, kill blockers, reach a player) with lifelink, infect, wither and deathtouch drawn on the attackers,
    those and indestructible on the blockers (the first striker's infect or wither shrinks the attackers, 702.90c,
    702.80b; its lifelink raises the life to reach, 702.15b), toxic or commander damage now and then, poison on the
    player, now and then an attacker without double strike (its damage, poison included, comes in the regular
    step alone), one that tramples over planeswalkers (702.19c) or may assign as though unblocked (510.1c), now and
    then a prevention shield (615.7): the boards :func:`trample.whole.search._result_bounded` searches best bound
    first, and boards just outside them."""
    doc = draw(st.one_of(defeatable(), one_group()))
    for a in doc["attackers"]:
        extra = draw(st.lists(st.sampled_from(ATTACKER_EFFECTS), max_size=2, unique=True))
        if draw(st.integers(0, 3)) == 0:  # deals regular damage only: no first-step route to the player
            a["keywords"] = [k for k in a["keywords"] if k != "double_strike"]
        a["keywords"] = [*a["keywords"], *extra]
        if draw(st.integers(0, 5)) == 0:
            a["toxic"] = 1
        if draw(st.integers(0, 5)) == 0:
            a["commander"] = "me"
            if draw(st.booleans()):  # 704.6c: near 21 from it already
                opp = doc["players"][0]
                opp["commander_damage"] = {**opp.get("commander_damage", {}), a["id"]: draw(st.sampled_from([15, 19]))}
        if draw(st.integers(0, 3)) == 0:  # 702.19c: the rest over a planeswalker goes to its controller
            a["keywords"] = [*a["keywords"], "trample_over_planeswalkers"]
        if draw(st.integers(0, 3)) == 0:  # 510.1c: it may assign all its damage to what it attacks
            a["as_though_unblocked"] = True
    for b in doc["blockers"]:
        extra = draw(st.lists(st.sampled_from(BLOCKER_EFFECTS), max_size=1))
        b["keywords"] = [*b.get("keywords", []), *extra]
    # 615.7: now and then a prevention shield on a blocker, the player or a planeswalker (damage dealt is then less
    # than damage assigned, and what is left of it carries into the regular step)
    for x in [*doc["blockers"], doc["players"][0], *doc.get("planeswalkers", [])]:
        if draw(st.integers(0, 5)) == 0:
            x["prevent"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        doc["players"][0]["poison"] = draw(st.sampled_from([7, 9]))
    return doc


def _results_problem(doc: dict, objectives: list[str]):
    """The search's problem of ``doc`` when its first steps are searched best bound first on a board with effects
    (``_result_bounded``), else None."""
    problem = _problem(doc, objectives)
    canonical = problem.attacking_first.canonical() or whole_search._ways_listed(problem)
    return problem if whole_search._result_bounded(problem, canonical) else None


def _bounded_and_every(doc: dict, objectives: list[str]):
    """``doc``'s whole combat solved best bound first, and again with every state its first steps leave searched
    (``_result_bounded`` off): the answer the bounds must keep, and the work they save."""
    bounded = WholeCombat(doc).solve(objectives)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(whole_search, "_result_bounded", lambda problem, canonical: False)
        every = WholeCombat(doc).solve(objectives)
    return bounded, every


@pytest.mark.slow
@settings(max_examples=strategies.examples(80), deadline=None)
@given(bounded_effects(), st.sampled_from([*DEFEATABLE_LISTS, ["max-kills", "lethal"], ["lethal", "max-value"]]))
def test_the_bounds_on_boards_with_effects_keep_the_line_of_every_state_searched(doc, objectives):
    # 702.15b, 702.90b/c, 702.80b, 702.2c, 702.12b, 704.5c: best bound first stops below the best value found; the
    # line, values and status must be those of the search of every state a first step leaves, in the canonical
    # order (what it replaced, itself checked against every A1 and the brute force above)
    assume(_results_problem(doc, objectives) is not None)
    bounded, every = _bounded_and_every(doc, objectives)
    assert_same_answer(bounded, every)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(bounded_effects(), st.sampled_from([*DEFEATABLE_LISTS, ["max-kills", "lethal"], ["lethal", "max-value"]]))
def test_each_replys_bounds_hold_on_boards_with_effects(doc, objectives):
    # every candidate's value after every reply -- the first step read on its outcome with the reply, the regular
    # step's best answer on the state they leave (the one-step solve of boards with effects, the defender's best
    # reply read in it), as the search reads them -- is at most that reply's bounds (read with the attackers the
    # reply takes out of combat) on every objective, and the candidate's value (the least, lexicographically) at
    # most their least
    problem = _results_problem(doc, objectives)
    assume(problem is not None)
    _assert_effect_bounds(problem, objectives)


@pytest.mark.parametrize("extra", [{"keywords": ["infect"]}, {"toxic": 1}, {"commander": "me"}])
def test_a_player_poison_or_commander_damage_can_kill_is_bounded_as_possibly_lost(extra):
    # 704.5c, 704.6c: opp at 20 life, 9 poison and 19 damage from the commander a1 takes 2 in the regular step from an
    # unblocked attacker (no first strike) with infect, toxic or as the commander: the bound on lethal must count
    # them as possibly lost, though 2 is far from 20
    doc = defeatable_with_player(extra)
    problem = _results_problem(doc, ["lethal", "max-kills"])
    assert problem is not None
    _assert_effect_bounds(problem, ["lethal", "max-kills"])
    assert WholeCombat(doc).solve(["lethal", "max-kills"]).objectives["lethal"] == 1


def defeatable_with_player(extra: dict) -> dict:
    """A double-strike trampler on a loyalty-3 planeswalker through its blocker and a first striker, and a 2/2
    attacking opp (20 life, 9 poison; 19 from a1 when it is a commander) unblocked, with ``extra``."""
    a0 = _ds(0, 4, "w", ["b0", "f"])
    a1 = {"id": "a1", "power": 2, "toughness": 2, "keywords": [], "attacking": "opp", "blocked_by": [], **extra}
    a1["keywords"] = list(extra.get("keywords", []))
    opp = {"id": "opp", "life": 20, "poison": 9, **({"commander_damage": {"a1": 19}} if "commander" in extra else {})}
    return {
        "step": "combat",
        "players": [opp],
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 3}],
        "attackers": [a0, a1],
        "blockers": [
            {"id": "b0", "power": 1, "toughness": 2},
            {"id": "f", "power": 2, "toughness": 3, "keywords": ["first_strike"]},
        ],
    }


@pytest.mark.parametrize("objectives", [["max-kills"], ["max-value", "lethal"]])
def test_each_replys_counters_bound_the_kills_after_it(objectives):
    # 702.90c, 510.1a: a first-striking infect blocker f blocks both double-strike tramplers and puts its 2
    # -1/-1 counters on either or both; the regular step's damage is then 4 in all, exactly f's toughness, so
    # the kills bound after each reply (the attackers' power on the state it leaves) must still count f, and the
    # bounds hold after every reply (the check fails with each counter read twice)
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 20}],
        "blockers": [
            {"id": "b0", "power": 1, "toughness": 3},
            {"id": "b1", "power": 1, "toughness": 3},
            {"id": "f", "power": 2, "toughness": 4, "keywords": ["first_strike", "infect"]},
        ],
        "attackers": [_ds(0, 3, "opp", ["b0", "f"]), _ds(1, 3, "opp", ["b1", "f"])],
    }
    problem = _results_problem(doc, objectives)
    assert problem is not None
    _assert_effect_bounds(problem, objectives)


def _drops(problem, reply) -> tuple[frozenset, tuple]:
    """The attackers ``reply`` takes out of combat, and the power it took off each of the others (702.90c, 702.80b:
    their combat damage on the state it leaves, as :func:`trample.whole.search._reply_losses` reads it)."""
    state = reply.outcome
    dead = whole_search._deaths(state) or frozenset()
    if not hasattr(state, "attackers"):
        return dead, ()
    before = {a.id: a.combat_damage for a in problem.scenario.attackers}
    lost = [(a.id, before[a.id] - a.combat_damage) for a in state.attackers if a.id not in dead]
    return dead, tuple(sorted((a, d) for a, d in lost if d > 0))


def _assert_effect_bounds(problem, objectives: list[str]) -> None:
    """Every reply's bounds hold on every candidate of ``problem`` (:func:`_results_table`), their least its value,
    and the first step's values the bounds read are those read on its outcome."""
    objs, step = problem.objs, problem.attacking_first
    table = whole_search._results_table(problem)
    replies = whole_search._replies(problem)
    regular = whole_search._Regular(problem)
    per = {d: whole_search._reply_bounds(problem, table, d) for d in whole_search._outcomes(replies)}
    lex = whole_search._lex_bounds(problem, table, replies, list(per.values()))
    width = next((k for k, c in enumerate(lex) if c is None), len(lex))
    # each reply's own bounds, with the power its first-striking infect or wither blockers took off the attackers
    # (702.90c, 702.80b), and the least of what the search reads (every outcome, each reply's counters)
    needs = whole_search._with_losses(problem, whole_search._blocker_needs(problem, table), replies)
    read = whole_search._bounds_read(problem, table, whole_search._outcomes(replies), needs)
    searched = whole_search._lex_bounds(problem, table, replies, read)
    keys = {_drops(problem, reply) for reply in replies}
    own = {key: whole_search._reply_bounds(problem, table, key[0], drops=dict(key[1])) for key in keys}
    for i in range(len(table)):
        candidate = table.candidate(i)
        after = []
        for reply in replies:
            first, outcome = whole_search.step_values(step, candidate.a1, objs, reply.d1)
            result = regular.after(candidate, reply, outcome.state)
            assert result.assignment is not None
            value = whole_search.oriented(objs, whole_search._total(objs, first, result))
            total = tuple(v * k for v, k in zip(value, table.scales))
            for bound in (per[whole_search._deaths(reply.outcome)], own[_drops(problem, reply)]):
                for k, b in enumerate(bound):
                    assert b is None or total[k] <= int(b[i]), (objectives[k], total, i)
            after.append(total)
        assert min(after)[:width] <= tuple(int(c[i]) for c in lex[:width])
        assert min(after)[:width] <= tuple(int(c[i]) for c in searched[:width])
        # the first step's values the bounds read (the plain ones) are those read on the outcome
        first, _ = whole_search.step_values(step, candidate.a1, objs)
        oriented = whole_search.oriented(objs, {o.name: whole_search.exact(first[o.name]) for o in objs})
        for k, o in enumerate(objs):
            if o.kind != ObjectiveKind.LETHAL:
                assert oriented[k] * table.scales[k] == int(table.first[i, k]), (o.name, i)


@pytest.mark.slow
@settings(max_examples=strategies.examples(40), deadline=None)
@given(bounded_effects(), st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-kills"]]))
def test_bounded_boards_with_effects_match_the_brute_force_minimax(doc, objectives):
    # against the brute-force minimax over both players' choices in both steps, every value read on the outcome
    assume(_results_problem(doc, objectives) is not None)
    expected = brute_combat.outcome_adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert result.status == "optimal"
    assert tuple(Fraction(str(result.objectives[o])) for o in objectives) == tuple(Fraction(v) for v in expected)


def test_a_blockers_prevention_shield_left_after_the_first_step_raises_what_killing_it_costs():
    # 615.7: b0's shield of 2 prevents the next 2 damage, so the regular step destroys it only by assigning its
    # lethal need plus what is left of the shield (the first step's damage to it used some). The kills and value
    # bounds read it: every candidate's bound is its value (with the shield left out, a0's 3 counted b0 killable
    # after the first steps that left its shield whole), and every reply's bounds hold
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 20}],
        "attackers": [_ds(0, 3, "opp", ["b0", "f"]), _ds(1, 2, "opp", ["b1", "f"])],
        "blockers": [
            {"id": "b0", "power": 1, "toughness": 2, "prevent": 2},
            {"id": "b1", "power": 1, "toughness": 2},
            {"id": "f", "power": 1, "toughness": 3, "keywords": ["first_strike"]},
        ],
    }
    for objectives in (["max-kills"], ["max-value"]):
        problem = _results_problem(doc, objectives)
        assert problem is not None
        _assert_effect_bounds(problem, objectives)
        table, replies = whole_search._results_table(problem), whole_search._replies(problem)
        regular = whole_search._Regular(problem)
        (bound,) = whole_search._own_bounds(problem, table, replies)
        for i in range(len(table)):
            candidate, values = table.candidate(i), []
            for reply in replies:
                first, outcome = whole_search.step_values(problem.attacking_first, candidate.a1, problem.objs, reply.d1)
                result = regular.after(candidate, reply, outcome.state)
                values.append(whole_search.oriented(problem.objs, whole_search._total(problem.objs, first, result)))
            assert int(bound[i]) == min(values)[0] * table.scales[0], (objectives, i)


def _most_after_each_outcome(whole, problem, table, replies, i: int) -> dict:
    """Candidate ``i``'s best value after each outcome of the replies (the attackers they kill): the most over
    the outcome's replies, as :func:`_candidate_values` reads each."""
    after, _ = _candidate_values(whole, problem, table, replies, i)
    most: dict = {}
    for reply, total in zip(replies, after):
        most[reply.outcome] = max(most.get(reply.outcome, total), total)
    return most


def test_a_deathtouch_attacker_makes_1_lethal_only_for_the_blockers_it_can_assign_to():
    # 702.2c, 510.1c: a0's deathtouch makes 1 damage lethal for f (it blocks a0) but not for b1, which only a1
    # can assign damage to: a1 tramples over b1 only past its whole need (702.19b). The bound on the damage the
    # regular step puts through read every blocker of the group at 1; read per blocker, every candidate's bound
    # after each outcome is the most its replies leave
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {**_ds(0, 2, "opp", ["f"]), "keywords": ["double_strike", "trample", "deathtouch"]},
            _ds(1, 3, "opp", ["b1", "f"]),
        ],
        "blockers": [
            {"id": "b1", "power": 1, "toughness": 3},
            {"id": "f", "power": 1, "toughness": 3, "keywords": ["first_strike"]},
        ],
    }
    got = _searched_table(doc, ["max-damage"])
    assert got is not None
    whole, problem, replies, table = got
    per = {dead: whole_search._reply_bounds(problem, table, dead) for dead in whole_search._outcomes(replies)}
    for i in range(len(table)):
        for dead, most in _most_after_each_outcome(whole, problem, table, replies, i).items():
            assert int(per[dead][0][i]) == most[0], (i, dead)


def _lifelink_board(life: int) -> dict:
    """f, a first-striking lifelink 1/2, blocks a0 (a 2/1 double striker without trample, whose prevention shield
    takes f's damage first) and a1 (a 4/3 double-strike trampler); g, a first-striking 1/1, blocks a0 alone. f's
    damage to a1 gains opp 1 life (702.15b) and a0 survives (g's damage prevented, 615.7); to a0, none (prevented)
    and g's kills it."""
    a0 = {**_ds(0, 2, "opp", ["g", "f"]), "toughness": 1, "keywords": ["double_strike"]}
    return {
        "step": "combat",
        "players": [{"id": "opp", "life": life}],
        "attackers": [{**a0, "prevent": 1, "shield_order": ["f"]}, _ds(1, 4, "opp", ["f"])],
        "blockers": [
            {"id": "g", "power": 1, "toughness": 1, "keywords": ["first_strike"]},
            {"id": "f", "power": 1, "toughness": 2, "keywords": ["first_strike", "lifelink"]},
        ],
    }


def test_the_lethal_bound_reads_the_life_a_first_striking_lifelink_blocker_gains():
    # 702.15b, 510.2: the life f's first-strike damage gains opp is there before the regular step's damage, so the
    # lethal bound after each outcome reads the least its replies gain (1 after the replies that leave a0 alive,
    # none after the one that kills it): every candidate's bound is then the most its replies leave (without the
    # gain, 2 of the 9 were 1 where no reply lets opp die). The bounds read for every reply (_own_bounds) take the
    # least of all the replies' gains: the outcome that kills no one's gain of 1 is too much after the reply that
    # kills a0 (opp dies there on a candidate bounded 0 with it)
    doc = _lifelink_board(7)
    problem = _results_problem(doc, ["lethal"])
    assert problem is not None
    _assert_effect_bounds(problem, ["lethal"])
    table, replies = whole_search._results_table(problem), whole_search._replies(problem)
    losses = whole_search._reply_losses(problem, replies)
    assert losses == {frozenset(): [({}, {"opp": 1})], frozenset({"a0"}): [({}, {})]}
    needs = whole_search._with_losses(problem, whole_search._blocker_needs(problem, table), replies)
    per = {dead: whole_search._reply_bounds(problem, table, dead, needs) for dead in losses}
    (own,) = whole_search._own_bounds(problem, table, replies)
    regular = whole_search._Regular(problem)
    for i in range(len(table)):
        candidate, most = table.candidate(i), {}
        for reply in replies:
            first, outcome = whole_search.step_values(problem.attacking_first, candidate.a1, problem.objs, reply.d1)
            result = regular.after(candidate, reply, outcome.state)
            value = whole_search.oriented(problem.objs, whole_search._total(problem.objs, first, result))
            assert value[0] <= int(own[i]), (i, reply.d1)
            dead = whole_search._deaths(reply.outcome)
            most[dead] = max(most.get(dead, value), value)
        for dead, value in most.items():
            assert int(per[dead][0][i]) == value[0], (i, dead)


def _combined(n: int, *kinds: str) -> dict:
    """The defeatable planeswalker at ``n`` attackers with several of :func:`benchmarks.boards.defeatable_with`'s
    kinds at once."""
    from benchmarks.boards import defeatable_with

    return defeatable_with(n, "+".join(kinds))


COMBINED = [
    ("trample_over", "lifelink"),
    ("trample_over", "infect"),
    ("as_though_unblocked", "lifelink"),
    ("as_though_unblocked", "infect"),
    ("as_though_unblocked", "trample_over", "lifelink"),
]


@pytest.mark.parametrize("kinds", COMBINED)
def test_effect_boards_with_trample_over_or_as_though_unblocked_are_searched_best_bound_first(kinds):
    # 702.19c, 510.1c with 702.15b / 702.90b: the rest over the planeswalker goes to opp, or all of an attacker's
    # damage to the planeswalker; at 3 attackers the infect ones (one of power 5) cannot give opp ten poison in the
    # first step (704.5c), so the bounds hold as on the boards without those options
    doc = _combined(3, *kinds)
    objectives = ["lethal", "max-kills", "min-overkill"]
    assert _results_problem(doc, objectives) is not None
    bounded, every = _bounded_and_every(doc, objectives)
    assert bounded.solves < every.solves
    assert_same_answer(bounded, every)


def test_lethal_by_poison_over_a_planeswalker_is_bounded_by_what_each_attacker_puts_past_its_own_blockers():
    # 702.90b, 702.19c, 510.1c: the defeatable planeswalker at 4 attackers, all trampling over it, the odd ones with
    # infect. lethal was bounded 1 for every first step (opp counted as possibly poisoned whatever the damage), so
    # the 4 152 states were searched in the canonical order to the first that kills (80 regular steps). Now the
    # poison is read from the infect attackers' damage alone, each attacker pays its own blocker (only it can
    # assign it damage) before anything goes past, and the planeswalker's loyalty left before its controller: the
    # first state searched kills
    doc = _combined(4, "trample_over", "infect")
    bounded, every = _bounded_and_every(doc, ["lethal"])
    assert bounded.objectives == {"lethal": 1}
    assert bounded.solves <= 20
    assert_same_answer(bounded, every)


def test_max_kills_is_bounded_by_the_blockers_each_group_can_pay_for():
    # 702.19b, 510.1c: a drawn one-group board (benchmarks.boards.mixed_group, 4 attackers, two players, a
    # planeswalker and a battle, infect, lifelink, deathtouch) whose blockers can all still die after every first
    # step, but not all at once: each group of attackers left pays the smallest needs of its blockers first. With
    # every live blocker counted the 233 states tied at the top and 227 regular steps were solved; now a few
    doc = mixed_group(4, 12, shields=False)
    objectives = ["max-kills", "lethal"]
    assert _results_problem(doc, objectives) is not None
    bounded, every = _bounded_and_every(doc, objectives)
    assert bounded.solves <= 30
    assert_same_answer(bounded, every)


@pytest.mark.slow
def test_the_kills_bound_reads_each_replys_counters_on_the_attackers():
    # 702.90c, 510.1a: a drawn one-group board (benchmarks.boards.mixed_group, 5 attackers) whose first-striking
    # infect blocker (3 power, blocking two attackers) puts its -1/-1 counters on either: the replies that kill the
    # same attackers leave them different power, and an attacker with less pays fewer blockers' needs. The kills
    # bound after an outcome read every attacker at full power (a bound after any of its replies), so 245 solves;
    # now each reply's own counters (and every outcome: a narrower one can be lower with them), a few dozen, the
    # same line as the search of every state (about 2 500 solves)
    doc = mixed_group(5, 13, shields=False)
    objectives = ["max-kills"]
    assert _results_problem(doc, objectives) is not None
    bounded, every = _bounded_and_every(doc, objectives)
    assert bounded.solves <= 60
    assert_same_answer(bounded, every)


def test_min_overkill_after_a_prefix_reads_the_bounds_after_every_outcome():
    # 510.1a: a drawn one-group board (benchmarks.boards.mixed_group, 4 attackers) with min-overkill after lethal
    # and max-kills. A candidate's bound is the least over the replies' outcomes of the bounds after each; only the
    # outcomes that kill the most attackers were read unless min-overkill led, but the overkill floor is highest
    # after the outcomes that kill the fewest, which tie the wider ones on lethal and kills here: 50 solves with
    # the floor after the widest outcomes only, now about half, the same line as the search of every state
    doc = mixed_group(4, 6, shields=False)
    objectives = ["lethal", "max-kills", "min-overkill"]
    assert _results_problem(doc, objectives) is not None
    bounded, every = _bounded_and_every(doc, objectives)
    assert bounded.solves <= 30
    assert_same_answer(bounded, every)


@pytest.mark.parametrize(
    ("seed", "what"),
    [(0, "a prevention shield on a blocker"), (23, "an indestructible blocker an infect or wither attacker blocks")],
)
def test_boards_with_prevention_shields_or_a_countered_indestructible_blocker_are_searched_best_bound_first(seed, what):
    # 615.7: a shield prevents part of the first step's damage (the state is read on the damage dealt, and what is
    # left of the shield); 702.12b, 704.5f: an indestructible blocker still dies when -1/-1 counters bring its
    # toughness to 0. Drawn one-group boards at 4 attackers (benchmarks.boards.mixed_group) that were searched
    # state by state, a regular step each (81 and 147 regular steps); now best bound first
    doc = mixed_group(4, seed)
    objectives = ["lethal"]
    assert _results_problem(doc, objectives) is not None, what
    bounded, every = _bounded_and_every(doc, objectives)
    assert bounded.solves * 4 < every.solves
    assert_same_answer(bounded, every)


def test_the_overkill_floor_reads_the_first_strike_blockers_lifelink_and_counters():
    # 702.15b, 702.90c, 702.80b, 702.2c: a drawn one-group board (benchmarks.boards.mixed_group, 4 attackers) whose
    # blockers have lifelink and infect. The floor was 0 on such boards (the life to reach may rise, an attacker's
    # power may drop), so min-overkill bounded nothing and 411 regular steps were solved; now it reads the most the
    # first step's blockers gain or take off (each reply's own), every set of attackers (not only all of them) and
    # deathtouch's threshold of 1: a few dozen, the same line as the search of every state
    doc = mixed_group(4, 3)
    objectives = ["min-overkill"]
    assert _results_problem(doc, objectives) is not None
    bounded, every = _bounded_and_every(doc, objectives)
    assert bounded.solves <= 80
    assert_same_answer(bounded, every)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(bounded_effects())
def test_the_overkill_floor_holds_after_each_reply_on_boards_with_effects(doc):
    # 510.1a, 702.15b, 702.90c, 702.80b, 702.2c, 615.7: the floor the search bounds the regular step's overkill by
    problem = _results_problem(doc, ["min-overkill"])
    assume(problem is not None)
    _assert_overkill_floors(problem)


@pytest.mark.parametrize("keyword", ["lifelink", "infect", "wither"])
def test_the_overkill_floor_reads_what_a_first_strike_blocker_does(keyword):
    # a0 (6/10, double strike, trample) through f (3/1, first strike) at opp (10 life): its first step puts 1 on f
    # and 5 on opp. With lifelink f gains opp 3 (702.15b: 8 left, so a0's regular 6 is no overkill); with infect
    # or wither it puts three -1/-1 counters on a0 (702.90c, 702.80b: a0 deals 3 of opp's 5 left). Read without
    # them the floor would be 1 and 1 (6 past 5)
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 10}],
        "attackers": [_ds(0, 6, "opp", ["f"])],
        "blockers": [{"id": "f", "power": 3, "toughness": 1, "keywords": ["first_strike", keyword]}],
    }
    doc["attackers"][0]["toughness"] = 10
    problem = _results_problem(doc, ["min-overkill"])
    assert problem is not None
    _assert_overkill_floors(problem)
    bounded, every = _bounded_and_every(doc, ["min-overkill"])
    assert_same_answer(bounded, every)


def _assert_overkill_floors(problem) -> None:
    """Per outcome (the attackers a reply kills), the overkill floor read with each reply's own lifelink gains and
    -1/-1 counters, and the fallback (the most any reply's blockers can do), are at most the least overkill of the
    regular step after every reply of the outcome; the highest of the replies' floors (what the vector bounds
    read) at most the least overkill after one of them."""
    table = whole_search._results_table(problem)
    replies = whole_search._replies(problem)
    regular = whole_search._Regular(problem)
    memo = {"reply losses": whole_search._reply_losses(problem, replies)}
    least: dict = {}  # per outcome, per candidate: the least overkill after each of its replies
    for reply in replies:
        dead = whole_search._deaths(reply.outcome)
        assert dead is not None
        for i in range(len(table)):
            candidate = table.candidate(i)
            _, outcome = whole_search.step_values(problem.attacking_first, candidate.a1, problem.objs, reply.d1)
            value = regular.after(candidate, reply, outcome.state).objectives["min-overkill"]
            least.setdefault(dead, {}).setdefault(i, []).append(value)
    for dead, per in least.items():
        every = [whole_search._overkill_after(problem, table, dead, m) for m in (dict(memo), {})]
        highest = whole_search._overkill_after(problem, table, dead, dict(memo), highest=True)
        for i, values in per.items():
            assert all(int(floor[i]) <= min(values) for floor in every), ([int(f[i]) for f in every], values)
            assert int(highest[i]) <= max(values), (int(highest[i]), values)


@pytest.mark.parametrize("poison", [0, 4, 5, 9])
@pytest.mark.parametrize("players", [1, 2])
def test_a_first_step_that_can_give_ten_poison_is_bounded_where_its_end_is_read(poison, players):
    # 704.5c: a1 (infect, double strike, power 5) unblocked on opp: its first-strike damage gives 5 poison, so opp
    # can lose in the first step (no regular step, 104.3b) from 5 poison on. With one defending player the bounds
    # read which first steps do (_lost_otherwise: those are worth their first step alone); with two they do not
    doc = defeatable_with_player({"keywords": ["infect", "double_strike"]})
    doc["attackers"][1]["power"] = 5
    doc["players"][0]["poison"] = poison
    if players == 2:
        doc["players"].append({"id": "opp2", "life": 20})
    assert (_results_problem(doc, ["lethal", "max-kills"]) is not None) is (players == 1 or poison < 5)
    expected = brute_combat.outcome_adversarial_optimum(doc, ["lethal", "max-kills"])
    result = WholeCombat(doc).solve(["lethal", "max-kills"])
    assert (result.objectives["lethal"], result.objectives["max-kills"]) == tuple(int(v) for v in expected)
    problem = _results_problem(doc, ["lethal", "max-kills"])
    if problem is not None:
        _assert_effect_bounds(problem, ["lethal", "max-kills"])
        table = whole_search._results_table(problem)
        ended = whole_search._ended(problem, table)
        # the rows whose first step gives opp ten: a1's first-strike damage to opp is its whole 5 (it is unblocked)
        assert ended is None if poison < 5 else bool(ended.all())


@pytest.mark.parametrize("already", [0, 15, 19])
def test_a_first_step_that_can_deal_21_commander_damage_ends_the_game_only_where_it_does(already):
    # 704.6c, 903.10a: a0 is the commander (double strike, power 10, trample) through its blockers (2 + 3) onto w
    # (3), trampling over planeswalkers to opp (702.19c: up to 2); with 19 from it already, a first step that gives
    # opp 2 ends the game there (104.3b): exactly those rows are read as ended, the others are not
    doc = defeatable_with_player({})
    doc["attackers"][0]["commander"] = "me"
    doc["attackers"][0]["power"] = 10
    doc["attackers"][0]["keywords"] = [*doc["attackers"][0]["keywords"], "trample_over_planeswalkers"]
    doc["players"][0]["poison"] = 0
    doc["players"][0]["commander_damage"] = {"a0": already} if already else {}
    objectives = ["lethal", "max-kills", "min-overkill"]
    problem = _results_problem(doc, objectives)
    assert problem is not None
    table = whole_search._results_table(problem)
    ended = whole_search._ended(problem, table)
    at = [j for j, (i, r) in enumerate(table.plan.columns) if r == "opp" and table.plan.sources[i].source == "a0"]
    to_opp = table.vectors[:, at].sum(axis=1)
    if already < 19:
        assert ended is None or not ended.any()
    else:
        assert to_opp.max() >= 2 and ended is not None
        assert (ended == (to_opp + already >= 21)).all()
    _assert_effect_bounds(problem, objectives)
    objectives = ["lethal", "max-kills", "max-damage"]  # what the brute force reads
    assert _results_problem(doc, objectives) is not None
    expected = brute_combat.outcome_adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert tuple(Fraction(str(result.objectives[o])) for o in objectives) == tuple(Fraction(v) for v in expected)


def test_lifelink_and_infect_boards_are_searched_best_bound_first():
    # the defeatable planeswalker at 4 attackers with lifelink, or infect on the odd attackers: their first steps
    # are searched best bound first, a few regular steps instead of one per state (hundreds), the same line
    from benchmarks.boards import defeatable_with

    for kind in ("lifelink", "infect"):
        doc = defeatable_with(4, kind=kind)
        assert _results_problem(doc, ["lethal", "max-kills", "min-overkill"]) is not None
        bounded, every = _bounded_and_every(doc, ["lethal", "max-kills", "min-overkill"])
        assert bounded.solves < 20 < every.solves
        assert (bounded.objectives, bounded.assignment) == (every.objectives, every.assignment)


# -- banding: the first step as a game, the regular step memoised by (A1's effect, the attackers D1 kills) -----------


@st.composite
def banded(draw) -> dict:
    """:func:`defeatable`'s and :func:`one_group`'s boards with banding on an attacker or the first striker (702.22j/k:
    the other player divides the damage of the creatures blocking, or blocked by, the band), deathtouch now and then
    on the first striker."""
    doc = draw(st.one_of(defeatable(), one_group()))
    creatures = [*doc["attackers"], *doc["blockers"]]
    c = creatures[draw(st.integers(0, len(creatures) - 1))]
    c["keywords"] = [*c.get("keywords", []), "banding"]
    if draw(st.booleans()) and doc["blockers"][-1]["id"] == "f":
        doc["blockers"][-1]["keywords"] = [*doc["blockers"][-1]["keywords"], "deathtouch"]
    return doc


def _moved_first_step(doc, objectives):
    """The search problem of a board with a first-strike step whose division banding moves (702.22j/k); else
    the example is not one of these (hypothesis.assume)."""
    problem = _problem(doc, objectives)
    assume(
        problem.whole.has_first_strike_step
        and (problem.attacking_first.plan.moved or problem.defending_first.plan.moved)
    )
    return problem


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(banded(), st.sampled_from([*DEFEATABLE_LISTS, ["max-kills", "lethal"]]))
def test_banded_first_steps_keep_their_lines_with_the_regular_step_memoised_by_effect(doc, objectives):
    # 702.22j/k: every (A1, D1) of a step whose division is moved is still a line of its own; the regular step after
    # it is read from the A1's effect (a creature's damage capped at lethal) and the attackers D1 kills, which fix
    # the state it leaves on a board without effects: the same line, values and status as building every state
    _moved_first_step(doc, objectives)
    with pytest.MonkeyPatch.context() as m:
        _every_pair(m)  # the search of every pair (boards whose blockers' damage alone is moved take the bounds)
        memoised = WholeCombat(doc).solve(objectives)
        m.setattr(whole_search, "effect_key", lambda *args: None)  # no key: every state built and solved
        every = WholeCombat(doc).solve(objectives)
    assert_same_answer(memoised, every)


@pytest.mark.slow
@settings(max_examples=strategies.examples(30), deadline=None)
@given(banded(), st.sampled_from(OBJECTIVES))
def test_banded_boards_match_the_brute_force_minimax(doc, objectives):
    _moved_first_step(doc, objectives)
    agrees_with_brute_force(doc, objectives)


# -- banding best bound first: the active player's part of the first step is the candidate, the rest the reply --------


@st.composite
def banded_group(draw, effects: bool | None = None) -> dict:
    """One group of 2-4 double-strike tramplers (toughness 1-3: the first strikers can kill them) on the player or a
    planeswalker, each blocked by its own blocker and by first strikers shared per pair or with each neighbour
    (chained: an attacker blocked by two, one of them blocking the band), with banding on one or two creatures: an
    attacker (702.22k: the active player divides the damage of the blockers blocking it, here the first striker's
    in the first step) or a blocker (702.22j: the defending player divides the damage of the attackers it blocks);
    deathtouch now and then on a first striker, an attacker that may assign as though unblocked now and then (510.1c);
    on a third of the boards lifelink, infect, wither or toxic on the attackers and poison on the player (and now and
    then a blocker with one of those: outside what the banded search reads; ``effects``: always or never). Four
    attackers only now and then and with power 2 (the search of every pair is the reference)."""
    n = draw(st.sampled_from([2, 2, 3, 3, 4]))
    top = 2 if n == 4 else 6
    chained = draw(st.booleans())
    effects = draw(st.integers(0, 2)) == 0 if effects is None else effects
    doc: dict = {"step": "combat", "players": [{"id": "opp", "life": draw(st.integers(3, 20))}], "blockers": []}
    targets = ["opp"]
    if draw(st.booleans()):
        values = st.sampled_from([0, 1, 2, 0.5])
        doc["planeswalkers"] = [
            {"id": "w", "controller": "opp", "loyalty": draw(st.integers(1, 8)), "value": draw(values)}
        ]
        targets = ["w", "w", "opp"]
    for k in range(n - 1 if chained else (n + 1) // 2):
        keywords = ["first_strike", *(["deathtouch"] if draw(st.integers(0, 4)) == 0 else [])]
        f = {
            "id": f"f{k}",
            "power": draw(st.integers(1, 3)),
            "toughness": draw(st.integers(1, 3)),
            "keywords": keywords,
        }
        doc["blockers"].append(f)
    doc["attackers"] = []
    for i in range(n):
        doc["blockers"].append({"id": f"b{i}", "power": 1, "toughness": draw(st.integers(1, 2))})
        shared = [f"f{k}" for k in ((i - 1, i) if chained else (i // 2,)) if 0 <= k < len(doc["blockers"]) - i - 1]
        a = _ds(i, draw(st.integers(2, top)), draw(st.sampled_from(targets)), [f"b{i}", *shared])
        a["toughness"] = draw(st.integers(1, 3))
        if draw(st.integers(0, 3)) == 0:  # 510.1c: it may assign all its damage to what it attacks
            a["as_though_unblocked"] = True
        if effects:  # what its damage does (702.15b, 702.90b/c, 702.80b, 702.164c)
            a["keywords"] = [
                *a["keywords"],
                *draw(st.lists(st.sampled_from(["lifelink", "infect", "wither"]), max_size=2, unique=True)),
            ]
            if draw(st.integers(0, 4)) == 0:
                a["toxic"] = 1
        doc["attackers"].append(a)
    if effects:
        doc["players"][0]["poison"] = draw(st.sampled_from([0, 5, 8]))
        if draw(st.integers(0, 3)) == 0:  # a blocker whose damage does more: outside the banded search's reading
            b = doc["blockers"][draw(st.integers(0, len(doc["blockers"]) - 1))]
            b["keywords"] = [*b.get("keywords", []), draw(st.sampled_from(["lifelink", "infect", "wither"]))]
    names = [a["id"] for a in doc["attackers"]] + [b["id"] for b in doc["blockers"]]
    first = draw(st.sampled_from(["a0", "a0", "a0", *names]))
    chosen = {first} | ({draw(st.sampled_from(names))} if draw(st.booleans()) else set())
    for c in doc["attackers"] + doc["blockers"]:
        if c["id"] in chosen:
            c["keywords"] = [*c.get("keywords", []), "banding"]
    return doc


BANDED_LISTS = [
    ["max-damage"],
    ["lethal"],
    ["min-overkill"],
    ["lethal", "max-kills", "min-overkill"],
    ["max-value", "min-overkill"],
    ["max-kills"],
    ["max-value"],
    ["max-kills", "lethal"],
    ["lethal", "max-damage", "min-overkill"],
    ["min-overkill", "max-kills"],
]


def _every_pair(m) -> None:
    """The reference: every (A1, D1) pair of a moved first step searched in Python (_divided_search)."""
    m.setattr(whole_search, "_band_front_search", lambda problem, regular: None)


@pytest.mark.slow
@settings(max_examples=strategies.examples(30), deadline=None)
@given(banded_group(), st.sampled_from(BANDED_LISTS))
def test_banded_first_steps_searched_best_bound_first_keep_the_line_of_every_pair(doc, objectives):
    # 702.22k: the active player's part of the first step (A1 and their division of the band's blockers' damage) is
    # searched best bound first against the defending player's rest; the line, values, status and lethal report
    # must be those of searching every (A1, D1) pair (ties: the smaller A1, then the whole D1 of the worst line)
    _moved_first_step(doc, objectives)
    bounded = WholeCombat(doc).solve(objectives)
    with pytest.MonkeyPatch.context() as m:
        _every_pair(m)
        every = WholeCombat(doc).solve(objectives)
    assert_same_answer(bounded, every)


def _band_table(doc: dict, objectives: list[str]):
    """The banded search as it reads its candidates (problem, its split of the replies, the A1 table and the search),
    or None when the board is not searched best bound first."""
    problem = _problem(doc, objectives)
    if not (problem.whole.has_first_strike_step and problem.defending_first.plan.moved):
        return None
    canonical = problem.attacking_first.canonical() or whole_search._ways_listed(problem, band=True)
    if not whole_search._band_bounded(problem, canonical):
        return None
    split = whole_search._band_replies(problem)
    assert split is not None  # each source divides its own damage: the D1s are the parts times the rests
    table = whole_search._band_table(problem)
    regular = whole_search._Regular(problem)
    return problem, split, table, regular, whole_search._BandSearch(problem, regular, table, split)


@pytest.mark.slow
@settings(max_examples=strategies.examples(15), deadline=None)
@given(banded_group(), st.sampled_from(BANDED_LISTS))
def test_the_banded_bounds_hold_after_every_reply_and_regular_step(doc, objectives):
    # per (A1, part): after each rest, the regular step's best (every legal A2 scored: the band's blockers' damage,
    # divided by the active player, reaches only attackers and is read by no objective here) is the one-step solve's
    # and at most the bound read with the attackers the whole D1 kills; the candidate's value (the least over the
    # rests) at most its vector bound
    got = _band_table(doc, objectives)
    assume(got is not None)
    problem, split, table, regular, search = got
    if problem.effects:  # every reply's bounds on the A1s of one state each, read on the outcome
        _assert_effect_bounds(problem, objectives)
        width = next((k for k, c in enumerate(search.lex) if c is None), len(search.lex))
        for i in range(len(search.table)):  # and per (A1, part) the least over its rests
            candidate, values = table.candidate(i % len(table)), []
            for reply in split.replies[i // len(table)]:
                first, outcome = whole_search.step_values(problem.attacking_first, candidate.a1, problem.objs, reply.d1)
                result = regular.after(candidate, reply, outcome.state)
                value = whole_search.oriented(problem.objs, whole_search._total(problem.objs, first, result))
                values.append(tuple(v * k for v, k in zip(value, table.scales)))
            assert min(values)[:width] <= tuple(int(c[i]) for c in search.lex[:width])
        return
    whole, objs, n = problem.whole, problem.objs, len(table)
    needs = whole_search._blocker_needs(problem, table)
    width = next((k for k, c in enumerate(search.lex) if c is None), len(search.lex))
    for i in range(len(search.table)):
        candidate = table.candidate(i % n)
        a1 = candidate.a1.to_json()
        values = []
        for reply in split.replies[i // n]:
            step = Combat(whole.state_after({**a1, **reply.d1.to_json()}), side="attacking")
            best = None
            for a2 in step.assignments():
                scored = whole_search.score(step, a2, objs)
                regular_value = whole_search.oriented(objs, {k: whole_search.exact(v) for k, v in scored.items()})
                total = tuple(
                    regular_value[k] * table.scales[k]
                    + (0 if o.kind == ObjectiveKind.LETHAL else int(table.first[i % n, k]))
                    for k, o in enumerate(objs)
                )
                best = total if best is None or total > best else best
            solved = regular.after(candidate, reply)
            reads = whole_search.oriented(objs, {k: whole_search.exact(v) for k, v in solved.objectives.items()})
            assert tuple(r * k for r, k in zip(reads, table.scales)) == tuple(
                b - (0 if o.kind == ObjectiveKind.LETHAL else int(table.first[i % n, k]))
                for k, (b, o) in enumerate(zip(best, objs))
            )
            bound = whole_search._reply_bounds(problem, table, reply.outcome, needs)
            for k, b in enumerate(bound):
                assert b is None or best[k] <= int(b[i % n]), (objectives[k], best, reply.outcome)
            values.append(best)
        assert min(values)[:width] <= tuple(int(c[i]) for c in search.lex[:width])


@pytest.mark.slow
@settings(max_examples=strategies.examples(20), deadline=None)
@given(
    banded_group(effects=True), st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-kills"]])
)
def test_banded_boards_with_effects_searched_best_bound_first_match_the_brute_force_minimax(doc, objectives):
    # 702.22k with 702.15b, 702.90b/c, 702.80b, 702.164c, 704.5c: against the brute-force minimax over both players'
    # choices in both steps (who divides each source's damage included), every value read on the outcome
    problem = _problem(doc, objectives)
    assume(problem.effects and len(doc["attackers"]) <= 3 and _band_table(doc, objectives) is not None)
    expected = brute_combat.outcome_adversarial_optimum(doc, objectives)
    result = WholeCombat(doc).solve(objectives)
    assert result.status == "optimal"
    assert tuple(Fraction(str(result.objectives[o])) for o in objectives) == tuple(Fraction(v) for v in expected)


@pytest.mark.parametrize(
    "kinds",
    [("banding",), ("banding", "as_though_unblocked"), ("banding", "lifelink"), ("banding", "infect")],
)
def test_the_benchmarks_banding_board_is_searched_best_bound_first(kinds):
    # the benchmark's shape at 3 attackers (a0 bands: f0's first-strike damage is the active player's, 702.22k), and
    # with attackers that may assign as though unblocked (510.1c: the first step listed way by way), or with lifelink
    # or infect on them (702.15b, 702.90b/c: the A1s one per state, each reply's first step read on its outcome): its
    # bounds apply, every line and value are those of every pair searched, with far fewer regular steps solved
    doc = _combined(3, *kinds)
    assert _band_table(doc, ["max-damage"]) is not None
    for objectives in (["max-damage"], ["lethal", "max-kills", "min-overkill"], ["max-value", "min-overkill"]):
        bounded = WholeCombat(doc).solve(objectives)
        with pytest.MonkeyPatch.context() as m:
            _every_pair(m)
            every = WholeCombat(doc).solve(objectives)
        assert bounded.solves * 5 < every.solves
        assert (bounded.status, bounded.objectives, bounded.assignment, bounded.lethal) == (
            every.status,
            every.objectives,
            every.assignment,
            every.lethal,
        )


# -- a first step too large to list: its states joined source by source ------------------------------------------


def _vectors_listed_and_joined(doc: dict, objectives: list[str]):
    """The first step's candidates of ``doc`` (per state, the best row on the objectives that read the excess and on
    none, ties the first in the canonical order) read off the listing (:func:`_state_vectors`) and joined source by
    source (:func:`_joined_vectors`), or None when the join does not take the board."""
    problem = _problem(doc, objectives)
    step = problem.attacking_first
    with pytest.MonkeyPatch.context() as m:
        m.setattr(whole_search, "WAYS_ROWS", 0)  # any component too large to list
        if not whole_search._joined_step(step, problem.deadline):
            return None
    base = whole_search.BlockScorer(step, ())
    lethal = whole_search._lethal_caps(problem)
    caps = [lethal.get(r) for r in base.recipients]
    keys = [whole_search._excess_of(problem.objs, caps, base.recipients), ()]
    listed = whole_search._state_vectors(step, caps, keys, problem.deadline, None)
    joined = whole_search._joined_vectors(step, caps, keys, problem.deadline)
    return listed, joined


def _assert_same_vectors(got) -> None:
    listed, joined = got
    assert listed is not None and joined is not None
    for a, b in zip(listed, joined, strict=True):
        assert a.shape == b.shape and (a == b).all()


@settings(max_examples=strategies.examples(100), deadline=None)
@given(bounded_effects(), st.sampled_from(DEFEATABLE_LISTS))
def test_joining_the_first_step_source_by_source_finds_the_rows_the_listing_finds(doc, objectives):
    # 702.19b/c (lethal damage to the blockers and the loyalty first, counting every attacker's assignment), 702.2c,
    # 510.1c (each way of an attacker that may assign as though unblocked): the join reads the gate conditions on
    # the totals once no later attacker adds to them; its rows must be the listing's, in the same order
    assume(any(a.get("as_though_unblocked") for a in doc["attackers"]))
    got = _vectors_listed_and_joined(doc, objectives)
    assume(got is not None)
    _assert_same_vectors(got)


@pytest.mark.parametrize("n, deathtouch", [(3, False), (4, False), (3, True)])
def test_the_benchmarks_trample_over_and_unblocked_first_step_joins_to_the_listings_rows(n, deathtouch):
    # every attacker tramples over the planeswalker (702.19c) and may assign as though unblocked (510.1c); with
    # deathtouch on every other one, 1 is lethal from it (702.2c) and its blockers' conditions read that
    from benchmarks.boards import defeatable_with

    doc = defeatable_with(n, "trample_over+as_though_unblocked")
    for a in doc["attackers"][::2] if deathtouch else ():
        a["keywords"] = [*a["keywords"], "deathtouch"]
    for objectives in (["max-damage"], ["min-overkill"], ["lethal", "max-kills", "min-overkill"]):
        got = _vectors_listed_and_joined(doc, objectives)
        assert got is not None
        _assert_same_vectors(got)


@pytest.mark.parametrize(
    "objectives", [o.split(",") for o in ["max-damage", "lethal", "lethal,max-kills,min-overkill"]]
)
def test_a_first_step_too_large_to_list_is_searched_best_bound_first(objectives):
    # the 6-attacker benchmark's board drawn at 3 attackers with WAYS_ROWS below its first step's count: the join
    # gives the search its candidates (the listing refused, and every state was searched one assignment at a time);
    # the same status, values, line and lethal report as the listing, and the values of the search of every state
    from benchmarks.boards import defeatable_with

    doc = defeatable_with(3, "trample_over+as_though_unblocked")
    listed = WholeCombat(doc).solve(objectives)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(whole_search, "WAYS_ROWS", 1 << 6)
        assert not whole_search._ways_listed(_problem(doc, objectives))
        assert whole_search._joinable(_problem(doc, objectives))
        joined = WholeCombat(doc).solve(objectives)
        m.setattr(whole_search, "_joinable", lambda problem: False)
        every = WholeCombat(doc).solve(objectives)
    assert_same_answer(joined, listed)
    assert every.status == "optimal" and joined.objectives == every.objectives
    assert joined.solves < every.solves
    with pytest.MonkeyPatch.context() as m:  # the join refused past JOIN_KEPT extensions: every A1 searched
        m.setattr(whole_search, "WAYS_ROWS", 1 << 6)
        m.setattr(whole_search, "JOIN_KEPT", 4)
        problem = _problem(doc, objectives)
        step = problem.attacking_first
        caps = [None] * len(whole_search.BlockScorer(step, ()).recipients)
        with pytest.raises(whole_search._JoinRefused):
            whole_search._joined_vectors(step, caps, [()], problem.deadline)
        refused = WholeCombat(doc).solve(objectives)
    assert refused.status == "optimal" and refused.objectives == every.objectives


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(-3, 3), st.integers(-2, 2)), max_size=40),
    st.sampled_from([1, 1 << 55]),
)
def test_the_best_row_of_each_id_is_the_one_found_by_sorting_every_row(rows, scale):
    # _best_of_ids per id: the row of the lexicographically largest values, ties the first; the joined pass asks
    # _bests_of_ids, each column alone from one sort, in the ids' order (it only marks them); ``scale`` takes both
    # past one packed sort (lexsort, argsort)
    import numpy as np

    ids = np.array([r[0] for r in rows], dtype=np.int64) * scale
    values = np.array([r[1:] for r in rows], dtype=np.int64).reshape(len(rows), 2)
    expected = {}
    for i, (k, *v) in enumerate(rows):
        if k not in expected or v > list(rows[expected[k]][1:]):
            expected[k] = i
    got = whole_search._best_of_ids(ids, values)
    assert got.tolist() == sorted(expected.values())
    for k, each in enumerate(whole_search._bests_of_ids(ids, values)):
        alone = {}
        for i, (key, *v) in enumerate(rows):
            if key not in alone or v[k] > rows[alone[key]][1 + k]:
                alone[key] = i
        assert each.tolist() == [alone[key] for key in sorted(alone)]


def test_the_overkill_floor_reads_what_is_left_of_a_prevention_shield():
    # 615.7: b0's shield of 2 prevents the next 2 damage dealt to it, and overkill is read on damage dealt, so the
    # floor subtracts only what the first step left of the shield. a0 (7, double strike, trample) through b0 (1
    # toughness) at opp (8 life): 14 damage against 8 life, b0's 1 and the shield's 2 is at least 3 overkill after
    # every first step that leaves b0 alive, and 3 again after those that kill it (4 or more to opp first, 7 to it
    # after). Read with the whole shield the floor was 1 or 2 there; read with what is left it is every
    # candidate's least overkill, and it holds after every reply
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 8}],
        "attackers": [{**_ds(0, 7, "opp", ["b0"]), "toughness": 9}],
        "blockers": [{"id": "b0", "power": 1, "toughness": 1, "prevent": 2}],
    }
    problem = _results_problem(doc, ["min-overkill"])
    assert problem is not None
    _assert_overkill_floors(problem)
    table, replies = whole_search._results_table(problem), whole_search._replies(problem)
    floor = whole_search._overkill_floor(problem, table, replies)
    least = []  # per candidate, the least overkill of the regular step after any reply (oriented: first - total)
    for i in range(len(table)):
        after, _ = _candidate_values(problem.whole, problem, table, replies, i)
        least.append(min(int(table.first[i, 0]) - total[0] for total in after))
    assert [int(f) for f in floor] == least
    bounded, every = _bounded_and_every(doc, ["min-overkill"])
    assert_same_answer(bounded, every)


@pytest.mark.parametrize(
    "receiving",
    [
        {"protection": ["red"]},  # 702.16e: a0's damage prevented whole, the shield not used
        {"prevent_combat": True},  # 615.1a: the same
        {"takes": [{"plus": 1}]},  # 614.1a: a modifier moves what the shield stops
    ],
    ids=["protection", "prevent all combat damage", "modifier"],
)
def test_the_shield_left_is_read_only_where_the_shield_alone_acts(receiving):
    # _shield_left reads what the first step's damage to b0 was assigned less what it was dealt as what its shield
    # stopped: true only where the shield alone acts on that damage. Protection and prevention of all combat damage
    # stop a0's first-step damage without using the shield (615.7 after 702.16e, 615.1a), and a modifier moves what
    # it stops; such boards are not read by the results table (its classes admit no damage effect but shields), so
    # the floor never reads them. Should the table come to read them, _shield_left must read the shield's own use.
    doc = {
        "step": "combat",
        "players": [{"id": "opp", "life": 8}],
        "attackers": [
            {**_ds(0, 4, "opp", ["b0"]), "toughness": 9, "tags": ["red"]},
            {"id": "c0", "power": 3, "toughness": 9, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b0"]},
        ],
        "blockers": [{"id": "b0", "power": 0, "toughness": 3, "prevent": 2, **receiving}],
    }
    assert _results_problem(doc, ["min-overkill"]) is None
    shield_only = {**doc, "blockers": [{"id": "b0", "power": 0, "toughness": 3, "prevent": 2}]}
    assert _results_problem(shield_only, ["min-overkill"]) is not None  # the same board with the shield alone is
    bounded, every = _bounded_and_every(doc, ["min-overkill"])
    assert_same_answer(bounded, every)


def test_major_ids_number_columns_as_row_ids_numbers_rows_even_far_from_zero():
    """_major_ids (the class-state keys read a row at a time) gives equal columns equal numbers, as _row_ids does
    for the rows of the transpose: exactly, also where the rows' lows are so large that the offset taken off the
    sums passes int64 (it raised OverflowError) while the spans still fit in 62 bits."""
    rng = np.random.default_rng(7)
    base = rng.integers(1 << 30, (1 << 30) + (1 << 20), size=(3, 400), dtype=np.int64)
    keys = np.concatenate([base, base[:, :100]], axis=1)  # repeated columns
    for k in (keys, rng.integers(-1, 6, size=(5, 300), dtype=np.int64)):
        ids, ref = whole_search._major_ids(k), whole_search._row_ids(k.T)
        assert np.array_equal(np.unique(ids, return_inverse=True)[1], np.unique(ref, return_inverse=True)[1])
