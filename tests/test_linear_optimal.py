"""--all-optimal from the direct engine for objectives linear in the columns (max-damage, max-damage:ID, and
lexicographic pairs of them): the same SET of assignments as the CP-SAT enumeration, and as the brute force
filtered by the objectives' values, on generated boards (overlapping blockers, deathtouch, planeswalkers, legacy
rules, marked damage)."""

from __future__ import annotations

from boards import canon
from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_perf_paths import overlapping_boards, small_enough

import trample.optimize.search as search
from trample import Combat
from trample.models import load_scenario
from trample.optimize import all_optimal
from trample.optimize.linear import linear_weights
from trample.optimize.objectives import parse_objectives


def _objectives(draw, sc):
    ids = [p["id"] for p in sc.get("players", [])] + [w["id"] for w in sc.get("planeswalkers", [])]
    ids += [b["id"] for b in sc.get("blockers", [])]
    names = ["max-damage"] + [f"max-damage:{i}" for i in ids]
    return draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))


def _both(sc, objs):
    scenario = load_scenario(sc)
    taken = []
    saved = search.linear_optimum

    def spy(*a, **k):
        out = saved(*a, **k)
        taken.append(out is not None)
        return out

    search.linear_optimum = spy
    try:
        fast = all_optimal(Combat(scenario), objs)
    finally:
        search.linear_optimum = saved
    combat = Combat(scenario)
    if combat.plan.columns and combat.count() > 0:  # the direct path must have been taken (small boards)
        assert taken == [True]
        assert fast.result.solves == 0
    got = list(fast)
    search.linear_optimum = lambda *a, **k: None  # the CP-SAT optimisation and enumeration
    try:
        ref_it = all_optimal(Combat(scenario), objs)
        ref = list(ref_it)
    finally:
        search.linear_optimum = saved
    assert fast.status == ref_it.status
    assert fast.objectives == ref_it.objectives
    assert len(got) == len(set(got))  # each optimal assignment once
    assert set(got) == set(ref)
    if got:
        assert fast.result.assignment in set(got)
    return got, fast.objectives


def _oracle_check(sc, objs, got, values):
    # the brute force, filtered by the objectives' values read from its assignments (sum of amounts to the target)
    players = {p["id"] for p in sc["players"]}

    def value(a, name):
        _, _, target = name.partition(":")
        return sum(v for split in a.values() for r, v in split.items() if (r == target if target else r in players))

    brute = [a for a in brute_force(sc) if all(value(a, o) == values[o] for o in objs)]
    assert {canon(a.to_json()) for a in got} == {canon(a) for a in brute}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_linear_all_optimal_matches_cpsat_and_oracle(data):  # 510.1a-d, 702.19b-c, 702.2c
    sc = data.draw(overlapping_boards())
    objs = _objectives(data.draw, sc)
    got, values = _both(sc, objs)
    if small_enough(sc):
        _oracle_check(sc, objs, got, values)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_linear_all_optimal_on_general_scenarios(data):  # 510.1a-d, 702.19b-e
    sc = data.draw(scenarios(max_attackers=3, max_blockers=3))
    objs = _objectives(data.draw, sc)
    _both(sc, objs)


def test_nonlinear_objectives_keep_cpsat():  # lethal, max-kills are thresholds: not linear
    sc = {
        "players": [{"id": "opp", "life": 20}],
        "blockers": [{"id": "b", "power": 1, "toughness": 2}],
        "attackers": [
            {"id": "a", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b"]}
        ],
    }
    combat = Combat(load_scenario(sc))
    for objs in ("lethal", "max-kills", "max-damage,max-kills", "min-overkill", "max-value"):
        assert linear_weights(combat, parse_objectives(objs, combat.scenario)) is None
    assert {canon(a.to_json()) for a in all_optimal(combat, "max-damage")} == {canon({"a": {"b": 2, "opp": 2}})}
