"""Counting one source at a time (issue 14: counting without cliffs), checked against the brute-force oracle,
CP-SAT and the column programme on generated boards: overlapping blockers, deathtouch (702.2c), planeswalkers
(702.19c: outside the shape, so the column programme must be used), legacy rules (510.1c order: outside the shape),
marked damage (lethal need below toughness)."""

from __future__ import annotations

from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_perf_paths import overlapping_boards, small_enough

from trample import Combat
from trample.engines.by_source import count_by_source
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
