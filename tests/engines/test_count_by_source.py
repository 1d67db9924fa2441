"""Counting one source at a time and one blocker at a time (issue 14: counting without cliffs), checked against the
brute-force oracle, CP-SAT and the column programme on generated boards: overlapping blockers, interchangeable
attackers and blockers, deathtouch (702.2c), planeswalkers (702.19c: outside the shape, so the column programme must
be used), legacy rules (510.1c order: outside the shape), marked damage (lethal need below toughness)."""

from __future__ import annotations

from math import comb

from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_perf_paths import overlapping_boards, small_enough

from trample import Combat
from trample.engines.by_source import _spreads, count_by_blocker, count_by_source, count_shared
from trample.engines.direct import ComponentDP
from trample.models import load_scenario

OPP = [{"id": "opp", "life": 20}]


def _check(sc, side="attacking", oracle=True):
    scenario = load_scenario(sc)
    combat = Combat(scenario, side=side, engine="direct")
    plan = combat.plan
    total = 1
    for comp in plan.components:
        dp = ComponentDP(plan, comp).count()
        fast = count_by_source(plan, comp, work_limit=10**9, entry_limit=10**9)
        if fast is not None:
            assert fast == dp  # the new count against the column programme, component by component
        other = count_by_blocker(plan, comp, work_limit=10**9)
        assert (other is None) == (fast is None)  # the same shape
        if other is not None:
            assert other == dp  # one blocker at a time, signed (510.1e, 702.19b)
        chosen = count_shared(plan, comp)
        assert chosen is None or chosen == dp
        total *= dp
    assert combat.count() == total
    if oracle:
        assert total == len(brute_force(sc, side))
    return combat


@settings(max_examples=200, deadline=None)
@given(overlapping_boards(max_attackers=4, max_blockers=4, max_power=6), st.sampled_from(["attacking", "both"]))
def test_by_source_matches_programme_and_oracle(sc, side):  # 702.19b, 702.2c, 702.19c, 510.1c
    _check(sc, side, oracle=small_enough(sc))


@settings(max_examples=100, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3))
def test_by_source_on_general_scenarios(sc):  # 510.1a-d, 702.19b-e, 702.2c
    combat = _check(sc)
    if sum(1 for _ in brute_force(sc)) <= 300:
        assert combat.count() == Combat(load_scenario(sc), engine="cpsat").count()


def _current(n_att, blocks, powers, tough, dt=(), marked=None):
    marked = marked or {}
    return {
        "players": OPP,
        "blockers": [
            {"id": f"b{j}", "power": 1, "toughness": t, "damage_marked": marked.get(j, 0)} for j, t in enumerate(tough)
        ],
        "attackers": [
            {
                "id": f"a{i}",
                "power": powers[i],
                "toughness": 3,
                "keywords": ["trample"] + (["deathtouch"] if i in dt else []),
                "attacking": "opp",
                "blocked_by": [f"b{j}" for j in blocks[i]],
            }
            for i in range(n_att)
        ],
    }


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_by_source_shape_is_taken(data):  # 702.19b: current-rules trample over shared blockers
    n_att = data.draw(st.integers(2, 4))
    n_b = data.draw(st.integers(1, 4))
    blocks = [data.draw(st.lists(st.integers(0, n_b - 1), unique=True, min_size=1, max_size=3)) for _ in range(n_att)]
    powers = [data.draw(st.integers(1, 5)) for _ in range(n_att)]
    tough = [data.draw(st.integers(1, 4)) for _ in range(n_b)]
    dt = data.draw(st.sets(st.integers(0, n_att - 1)))
    marked = {j: data.draw(st.integers(0, tough[j])) for j in range(n_b)}
    sc = _current(n_att, blocks, powers, tough, dt, marked)
    combat = _check(sc, oracle=sum(powers) <= 11)
    plan = combat.plan
    shared = [c for c in plan.components if len(c) > 1]
    for comp in shared:  # every such component is of the shape: the new count is really exercised
        assert count_by_source(plan, comp, work_limit=10**9, entry_limit=10**9) is not None


def test_two_attackers_sharing_a_half_power_blocker():  # 702.19b; the P/2 cliff, against the programme
    for P in (8, 30, 301):
        sc = _current(2, [[0], [0]], [P, P], [P // 2])
        _check(sc, oracle=P <= 8)


def _twins(kinds, copies, blocks, tough, dt=(), marked=None, over_pw=()):
    """Attackers in kinds (each kind repeated ``copies[k]`` times: interchangeable sources), blockers whose needs
    repeat (interchangeable blockers); ``over_pw``: kinds with trample over planeswalkers, attacking one."""
    marked = marked or {}
    attackers = []
    for k in range(kinds):
        for c in range(copies[k]):
            attackers.append(
                {
                    "id": f"a{k}_{c}",
                    "power": blocks[k][1],
                    "toughness": 3,
                    "keywords": (["trample_over_planeswalkers"] if k in over_pw else ["trample"])
                    + (["deathtouch"] if k in dt else []),
                    "attacking": "w" if k in over_pw else "opp",
                    "blocked_by": [f"b{j}" for j in blocks[k][0]],
                }
            )
    return {
        "players": OPP,
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 2}],
        "blockers": [
            {"id": f"b{j}", "power": 1, "toughness": t, "damage_marked": marked.get(j, 0)} for j, t in enumerate(tough)
        ],
        "attackers": attackers,
    }


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_interchangeable_attackers_and_blockers(data):  # 510.1e, 702.19b, 702.2c, 702.19c
    kinds = data.draw(st.integers(1, 3))
    copies = [data.draw(st.integers(1, 3)) for _ in range(kinds)]
    n_b = data.draw(st.integers(1, 4))
    tough = [data.draw(st.sampled_from([1, 2, 2, 3])) for _ in range(n_b)]  # repeated needs: interchangeable
    blocks = [
        (
            data.draw(st.lists(st.integers(0, n_b - 1), unique=True, min_size=1, max_size=n_b)),
            data.draw(st.integers(1, 4)),
        )
        for _ in range(kinds)
    ]
    dt = data.draw(st.sets(st.integers(0, kinds - 1), max_size=1))
    marked = {j: data.draw(st.integers(0, 1)) for j in range(n_b)}
    over_pw = data.draw(st.sets(st.integers(0, kinds - 1), max_size=1))
    sc = _twins(kinds, copies, blocks, tough, dt, marked, over_pw)
    small = sum(a["power"] for a in sc["attackers"]) <= 10
    combat = _check(sc, oracle=small)
    if small and combat.count() <= 300:
        assert combat.count() == Combat(load_scenario(sc), engine="cpsat").count()
    if not over_pw:  # 702.19b: current-rules trample over shared blockers is the shape both methods count
        for comp in combat.plan.components:
            if len(comp) > 1:
                assert count_by_blocker(combat.plan, comp, work_limit=10**9) is not None


def _square(n, power):  # every attacker blocked by every blocker: the benchmark's shape, small
    return _twins(1, [n], [(list(range(n)), power)], [2 + i % 3 for i in range(n)])


def test_every_blocker_shared_against_the_oracle():  # 510.1e: the others' damage counts towards lethal
    for n, power in ((2, 4), (2, 6), (3, 3), (3, 4)):
        sc = _square(n, power)
        combat = _check(sc)
        assert combat.count() == Combat(load_scenario(sc), engine="cpsat").count()


def test_every_blocker_shared_is_counted_one_blocker_at_a_time():  # 510.1e, 702.19b
    for n in (4, 5, 6):
        combat = Combat(load_scenario(_square(n, 10)), engine="direct")
        plan = combat.plan
        (comp,) = plan.components
        n_blk = count_by_blocker(plan, comp)  # within its default work bound
        assert n_blk is not None
        assert n_blk == ComponentDP(plan, comp).count()
        assert count_shared(plan, comp) == n_blk


@given(st.integers(1, 5), st.integers(0, 6))
def test_spreads_cover_every_split(c, budget):  # the multiset moves: orderings counted once each
    spreads = _spreads(c, budget, {})
    # every c-tuple of increments with sum <= budget is the ordering of exactly one nonincreasing tuple
    assert sum(mult for _, _, mult in spreads) == comb(budget + c, c)
    for inc, used, _ in spreads:
        assert list(inc) == sorted(inc, reverse=True) and sum(inc) == used <= budget
