"""Counting on any sharing graph (issue 21): one table per source, joined in a graph-chosen order
(trample.engines.elimination), checked against the brute-force oracle (tests/oracles/brute.py), CP-SAT and the
old paths (the column programme, and for as-though-unblocked attackers the 2^n signed variants) on the new shapes of
benchmarks/boards.py: cycles through planeswalkers, random sharing graphs, as-though-unblocked chains, stars and dense
pairs; and on the general generated scenarios (legacy order, banding, deathtouch, marked damage, both sides)."""

from __future__ import annotations

import pytest
from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_perf_paths import overlapping_boards

from benchmarks.boards import dense_pairs, pw_cycle, random_sharing, star, unblocked_chain
from trample import Combat
from trample.engines.direct import ComponentDP
from trample.engines.elimination import count_by_factors, count_component
from trample.limits import Deadline, LimitReached
from trample.models import load_scenario


def _old(plan, comp) -> int:
    """The column programme, through the 2^n signed variants when a source may assign as though unblocked."""
    return sum(sign * ComponentDP(v, comp).count() for sign, v in plan.variants(comp))


def _check(sc, side="attacking", oracle=True, cpsat=False) -> int:
    combat = Combat(load_scenario(sc), side=side)
    plan = combat.plan
    total = 1
    for comp in plan.components:
        new = count_by_factors(plan, comp)
        assert new == _old(plan, comp)  # the tables against the column programme, component by component
        assert count_component(plan, comp) == new  # whichever method the engine's count chooses
        total *= new
    assert combat.count() == total
    if oracle:
        assert total == len(brute_force(sc, side))  # 702.19b/c, 702.2c, 510.1a-d: written from the rules
    if cpsat:
        assert total == Combat(load_scenario(sc), side=side, engine="cpsat").count()
    return total


SHAPES = [
    ("cycle through planeswalkers, 3", pw_cycle(3, power=3, loyalty=2)),
    ("cycle through planeswalkers, 4", pw_cycle(4, power=3, loyalty=1)),
    ("random sharing 3 on 4 (seed 1)", random_sharing(3, 4, per=2, seed=1, power=(2, 4))),
    ("random sharing 3 on 4 (seed 2)", random_sharing(3, 4, per=2, seed=2, power=(2, 4))),
    ("random sharing 4 on 5 (seed 3)", random_sharing(4, 5, per=2, seed=3, power=(1, 3))),
    ("as-though-unblocked chain, 2", unblocked_chain(2, power=3)),
    ("as-though-unblocked chain, 3", unblocked_chain(3, power=3)),
    ("star, 3", star(3, power=3, toughness=3)),
    ("dense pairs, 3", dense_pairs(3, power=3)),
]


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_new_shapes_against_the_oracle_and_cpsat(name, sc):  # 702.19b, 702.19c, 702.2c, 510.1c
    assert _check(sc, oracle=True, cpsat=True) > 0


@pytest.mark.parametrize("n", [5, 9])
def test_planeswalker_cycles_against_the_column_programme(n):  # 702.19c: loyalty gates shared around a ring
    _check(pw_cycle(n), oracle=False)


@pytest.mark.parametrize("seed", range(4))
def test_random_sharing_against_the_column_programme(seed):  # 702.19b
    _check(random_sharing(6, 8, per=3, seed=seed), oracle=False)


@pytest.mark.parametrize("n", [4, 6])
def test_unblocked_chains_against_the_signed_variants(n):  # 510.1c: "as though it weren't blocked", per attacker
    _check(unblocked_chain(n), oracle=False)


def test_a_dead_gate_on_a_blocker_already_lethal_is_no_gate():  # 510.1c (legacy order), 702.19b
    # legacy order b2, b1, b0: b2 (indestructible) already has lethal damage marked, so b1's gate asks nothing
    sc = {
        "rules": "legacy",
        "step": "first_strike",
        "players": [{"id": "p0", "life": 1}],
        "attackers": [
            {
                "id": "a0",
                "power": 3,
                "toughness": 1,
                "attacking": "p0",
                "keywords": ["first_strike"],
                "blocked_by": ["b2", "b1", "b0"],
            }
        ],
        "blockers": [
            {"id": "b0", "power": 1, "toughness": 2, "keywords": ["first_strike"]},
            {"id": "b1", "power": 1, "toughness": 2, "keywords": ["first_strike"]},
            {
                "id": "b2",
                "power": 1,
                "toughness": 2,
                "keywords": ["first_strike", "indestructible"],
                "damage_marked": 2,
            },
        ],
    }
    assert _check(sc) == 5  # b0 = 0: 4 splits of 3 over b2, b1; b0 >= 1 needs b1 >= 2: (0, 2, 1)


@settings(max_examples=150, deadline=None)
@given(overlapping_boards(max_attackers=4, max_blockers=4, max_power=5), st.sampled_from(["attacking", "both"]))
def test_overlapping_boards(sc, side):  # 702.19b, 702.19c, 702.2c, 510.1c
    _check(sc, side, oracle=sum(a["power"] for a in sc["attackers"]) <= 10)


@settings(max_examples=150, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3), st.sampled_from(["attacking", "defending", "both"]))
def test_general_scenarios(sc, side):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k, 510.1c (as though unblocked)
    _check(sc, side, oracle=False)


def test_a_passed_deadline_stops_the_count():
    combat = Combat(load_scenario(pw_cycle(9)))
    plan = combat.plan
    with pytest.raises(LimitReached):
        count_by_factors(plan, plan.components[0], Deadline(-1.0))


def test_a_work_bound_gives_up_and_an_estimate_bound_too():
    plan = Combat(load_scenario(pw_cycle(9))).plan
    assert count_by_factors(plan, plan.components[0], work_limit=10) is None
    assert count_by_factors(plan, plan.components[0], estimate_limit=10) is None
    assert count_by_factors(plan, plan.components[0]) == _old(plan, plan.components[0])
