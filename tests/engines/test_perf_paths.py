"""The fast paths, each checked against the brute-force oracle, CP-SAT and the counting programme:
bounded-memory prefix streaming, the iterative product over components, lazy assignments from numpy rows,
bulk JSON Lines, on generated boards where attackers share blockers."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest
from boards import canon
from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios

import trample.engines.direct as direct
import trample.step as step
from trample import Combat
from trample.engines.direct import ComponentDP, plan_blocks
from trample.models import Assignment, load_scenario

OPP = [{"id": "opp", "life": 20}]


@st.composite
def overlapping_boards(draw, max_attackers=3, max_blockers=4, max_power=5):
    """Attackers (trample, deathtouch, trample over planeswalkers, plain) each blocked by a random subset of a
    few blockers, so that blockers are shared in every pattern; current and legacy rules; marked damage."""
    n_b = draw(st.integers(1, max_blockers))
    blockers = []
    for i in range(n_b):
        t = draw(st.integers(0, 3))
        blockers.append({"id": f"b{i}", "power": 1, "toughness": t, "damage_marked": draw(st.integers(0, t))})
    kws = [["trample"], ["trample"], ["trample", "deathtouch"], ["trample_over_planeswalkers"], [], ["deathtouch"]]
    attackers = [
        {
            "id": f"a{i}",
            "power": draw(st.integers(0, max_power)),
            "toughness": 3,
            "keywords": draw(st.sampled_from(kws)),
            "attacking": draw(st.sampled_from(["opp", "w"])),
            "blocked_by": draw(st.lists(st.sampled_from([b["id"] for b in blockers]), unique=True, max_size=3)),
        }
        for i in range(draw(st.integers(1, max_attackers)))
    ]
    return {
        "rules": draw(st.sampled_from(["current", "legacy"])),
        "players": OPP,
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": draw(st.integers(0, 3))}],
        "attackers": attackers,
        "blockers": blockers,
    }


def small_enough(sc) -> bool:
    return sum(a["power"] for a in sc["attackers"]) <= 10


@settings(max_examples=150, deadline=None)
@given(overlapping_boards(), st.sampled_from(["attacking", "both"]))
def test_fast_paths_match_the_oracle_and_cpsat(sc, side):
    if not small_enough(sc):
        return
    scenario = load_scenario(sc)
    combat = Combat(scenario, side=side, engine="direct")
    listed = list(combat.assignments())
    oracle = {canon(a) for a in brute_force(sc, side)}
    assert len(listed) == len(oracle) == combat.count()
    assert {canon(a.to_json()) for a in listed} == oracle
    assert set(listed) == set(Combat(scenario, side=side, engine="cpsat").assignments())
    # the canonical order: the i-th assignment is unrank(i), and ranks back to i
    for i, a in enumerate(listed):
        assert combat.unrank(i) == a
        assert combat.rank(a) == i
    # the bulk API: the same assignments, in the same order, as rows over combat.columns
    rows = [r for b in combat.assignment_blocks(rows=3) for r in b.tolist()]
    assert len(rows) == len(listed)
    for r, a in zip(rows, listed):
        assert {s: {t: x for (s2, t), x in zip(combat.columns, r) if s2 == s and x} for s in a} == a.to_json()
    # the bulk JSON Lines: byte for byte what json.dumps gives for each assignment
    text = "".join(combat.jsonl(b) for b in combat.assignment_blocks(rows=5))
    assert text == "".join(json.dumps(a.to_json(), separators=(",", ":")) + "\n" for a in listed)


@settings(max_examples=150, deadline=None)
@given(overlapping_boards(), st.sampled_from(["attacking", "both"]))
def test_a_small_shared_component_is_counted_without_the_tables(sc, side):  # 510.1a-d, 702.19b-c
    """A count asked first (no programme built yet) of a component of several sources with few splits
    (``direct.FEW_COUNTED``) is one source or one blocker at a time, else the column programme: the elimination
    tables' numpy joins cost more than either on such components (the count of 300 small boards spent half its time
    in them). The count is the brute force's either way."""
    from unittest import mock

    if not small_enough(sc):
        return
    combat = Combat(load_scenario(sc), side=side, engine="direct")
    plan = combat.plan
    few = {tuple(c) for c in plan.components if len(c) > 1 and direct.few_splits(plan, c, direct.FEW_COUNTED)}
    with mock.patch.object(direct, "count_component", wraps=direct.count_component) as tables:
        n = combat.count()
    assert n == len(brute_force(sc, side))
    assert not few & {tuple(call.args[1]) for call in tables.call_args_list}


#: three tramplers on six blockers, two shared (a board of bench_readers' count row): 95 256 splits, more than
#: direct.FEW_COUNTED, so the count reaches elimination.count_component; one source at a time has a rough cost of
#: 7 161 there (0.5 ms), where the tables took 1.5 ms
THREE_ON_SIX = {
    "players": [{"id": "opp", "life": 4}],
    "attackers": [
        {
            "id": "a0",
            "power": 7,
            "toughness": 3,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": ["b0", "b5"],
        },
        {
            "id": "a1",
            "power": 5,
            "toughness": 4,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": ["b1", "b2", "b4", "b5"],
        },
        {
            "id": "a2",
            "power": 5,
            "toughness": 8,
            "keywords": ["trample_over_planeswalkers"],
            "attacking": "opp",
            "blocked_by": ["b1", "b3"],
        },
    ],
    "blockers": [
        {"id": "b0", "power": 0, "toughness": 5},
        {"id": "b1", "power": 4, "toughness": 6, "keywords": ["indestructible"]},
        {"id": "b2", "power": 3, "toughness": 5},
        {"id": "b3", "power": 3, "toughness": 1},
        {"id": "b4", "power": 2, "toughness": 5, "keywords": ["indestructible"]},
        {"id": "b5", "power": 1, "toughness": 3, "damage_marked": 1},
    ],
}


def test_a_component_cheap_one_source_at_a_time_builds_no_tables():  # 510.1a, 702.19b
    """``elimination.SHARED_FIRST_COST``: a component past ``direct.FEW_COUNTED`` whose rough cost one source or one
    blocker at a time is within the bound is counted that way, before any table is built (the tables' set-up costs
    more on such components); the count is the brute force's."""
    from unittest import mock

    import trample.engines.by_source as by_source
    import trample.engines.elimination as elimination

    combat = Combat(load_scenario(copy.deepcopy(THREE_ON_SIX)), engine="direct")
    plan = combat.plan
    (component,) = [c for c in plan.components if len(c) > 1]
    assert not direct.few_splits(plan, component, direct.FEW_COUNTED)  # so it reaches count_component
    sources, resources = by_source.shape_of(plan, component)
    need = {name: plan.lethal_need[name] for name in resources}
    rough = min(
        by_source._source_cost(by_source._order(sources, need), need),
        by_source._blocker_cost(sources, need) * len(sources),
    )
    assert 1000 < rough <= elimination.SHARED_FIRST_COST
    with (
        mock.patch.object(direct, "count_component", wraps=direct.count_component) as reached,
        mock.patch.object(elimination, "_Factors", wraps=elimination._Factors) as tables,
    ):
        n = combat.count()
    assert reached.called and not tables.called
    assert n == len(brute_force(THREE_ON_SIX, "attacking"))


@settings(max_examples=100, deadline=None)
@given(
    overlapping_boards(max_power=6),
    st.sampled_from([1, 2, 7, 4096]),
    st.sampled_from([0, 3, 40, 1 << 22]),
    st.sampled_from([1, 200, 1 << 25]),
)
def test_prefix_streaming_is_independent_of_its_memory_budget(sc, rows, suffix_cells, prefix_bytes):
    # whatever the budget of the depth-first prefix expansion: every legal vector once, in lexicographic order
    combat = Combat(load_scenario(sc), engine="direct")
    saved = direct.SUFFIX_CELLS, direct.PREFIX_BYTES
    try:
        direct.SUFFIX_CELLS, direct.PREFIX_BYTES = suffix_cells, prefix_bytes
        for comp in combat.plan.components:
            dp = ComponentDP(combat.plan, comp)
            if dp.count() > 5000:
                continue
            got = [tuple(v) for b in dp.blocks(rows) for v in b.tolist()]
            assert got == [dp.unrank(i) for i in range(dp.count())]
    finally:
        direct.SUFFIX_CELLS, direct.PREFIX_BYTES = saved


@settings(max_examples=60, deadline=None)
@given(scenarios(max_total_power=8, max_work=2000), st.sampled_from([1, 3, 1 << 16]), st.sampled_from([0, 2, 50]))
def test_product_over_components_is_the_mixed_radix_order(sc, rows, cache_rows):
    # first component slowest: row i of the product is unrank(i), whatever part of the tail is materialised
    combat = Combat(load_scenario(sc), side="both", engine="direct")
    got = [r for b in plan_blocks(combat.plan, rows, cache_rows=cache_rows) for r in b.tolist()]
    assert len(got) == combat.count()
    for i, r in enumerate(got):
        assert combat._layout.mapping(r) == combat.unrank(i).to_json()


def independent(n, power=2, blocked=True):
    return {
        "players": OPP,
        "attackers": [
            {
                "id": f"a{i}",
                "power": power,
                "toughness": 2,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"b{i}"] if blocked else [],
            }
            for i in range(n)
        ],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": 1} for i in range(n)] if blocked else [],
    }


def test_a_thousand_independent_attackers_iterate_without_recursion():
    # each attacker: {b:2}, {b:1, opp:1} (702.19b) -> 2 ways; the product has 2**1000 assignments
    combat = Combat(independent(1000))
    assert combat.count() == 2**1000
    first = list(combat.assignments(limit=3))
    assert first[0] == {f"a{i}": {f"b{i}": 1, "opp": 1} for i in range(1000)}
    assert first[1] == {**first[0], "a999": {"b999": 2}}
    assert first[2] == {**first[0], "a998": {"b998": 2}}
    assert [combat.rank(a) for a in first] == [0, 1, 2]
    # the generic path (CP-SAT per component) is an odometer too
    slow = Combat(independent(300), engine="cpsat")
    got = list(slow.assignments(limit=2))
    assert set(got) <= {a for a in Combat(independent(300)).assignments(limit=4)} | set(got)
    assert all(slow.is_legal(a) for a in got)


def test_generic_product_is_an_odometer():
    # step._product over many factories: every combination, last fastest, no recursion
    factories = [lambda: iter([(0,), (1,)]) for _ in range(2000)]
    it = step._product(factories)
    assert next(it) == (0,) * 2000
    assert next(it) == (0,) * 1999 + (1,)
    assert next(it) == (0,) * 1998 + (1, 0)
    small = [lambda: iter([(1, 2), (3, 4)]), lambda: iter([]), lambda: iter([(5,)])]
    assert list(step._product(small)) == []
    three = [lambda: iter([(1,), (2,)]), lambda: iter([(3,), (4,), (5,)])]
    assert list(step._product(three)) == [(1, 3), (1, 4), (1, 5), (2, 3), (2, 4), (2, 5)]


def test_cpsat_blocks_are_the_cpsat_listing():
    sc = independent(3, power=3)
    sc["blockers"][0]["toughness"] = 2
    combat = Combat(load_scenario(sc), engine="cpsat")
    listed = list(combat.assignments())
    rows = [r for b in combat.assignment_blocks(rows=4) for r in b.tolist()]
    assert [combat._layout.mapping(r) for r in rows] == [a.to_json() for a in listed]
    assert {canon(a.to_json()) for a in listed} == {canon(a) for a in brute_force(sc)}
    assert "".join(combat.jsonl(b) for b in combat.assignment_blocks()) == "".join(a.dumps() + "\n" for a in listed)


def test_lazy_assignments_are_assignments():
    combat = Combat(independent(2, power=3))
    lazy = list(combat.assignments())
    eager = [Assignment(a.to_json()) for a in lazy]
    assert lazy == eager and [hash(a) for a in lazy] == [hash(a) for a in eager]
    a = lazy[-1]
    assert isinstance(a, Assignment) and repr(a) == repr(eager[-1])
    assert pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a) == a and copy.copy(a) == a
    with pytest.raises(AttributeError):
        a.foo = 1
    with pytest.raises(AttributeError):
        a._data = {}
    with pytest.raises(TypeError):
        a["a0"]["b0"] = 7
    assert a.amount("a0", "b0") == eager[-1].amount("a0", "b0")
    assert Combat(independent(2, power=3)).is_legal(a)


def test_a_lazy_assignment_read_first_as_a_mapping_hashes_and_compares_as_the_eager_one():
    # a lazy assignment builds its mapping when read (to_json, the outcome, the pictures) and the value equality and
    # hashing read only when asked: read in that order, it is still the same value
    for k, (a, b) in enumerate(
        zip(Combat(independent(2, power=3)).assignments(), Combat(independent(2, power=3)).assignments())
    ):
        eager = Assignment(a.to_json())
        assert dict(a.items()) == dict(eager.items()) and len(a) == len(eager)
        if k % 2:
            assert hash(a) == hash(eager) and a == eager and eager == a
        else:
            assert a == eager and hash(a) == hash(eager) and a == b and hash(b) == hash(eager)
        assert {a: 1}[eager] == 1 and pickle.loads(pickle.dumps(a)) == eager


def test_jsonl_escapes_names_like_json_dumps():
    sc = {
        "players": [{"id": 'o"pp\\ é', "life": 20}],
        "attackers": [
            {
                "id": "t\u2603",
                "power": 3,
                "toughness": 1,
                "keywords": ["trample"],
                "attacking": 'o"pp\\ é',
                "blocked_by": ["b/1"],
            }
        ],
        "blockers": [{"id": "b/1", "power": 1, "toughness": 1}],
    }
    combat = Combat(sc)
    text = "".join(combat.jsonl(b) for b in combat.assignment_blocks())
    assert text == "".join(json.dumps(a.to_json(), separators=(",", ":")) + "\n" for a in combat.assignments())
    assert text.count("\n") == combat.count() == 3


def test_jsonl_of_huge_amounts_falls_back_to_one_line_at_a_time():
    sc = independent(1, power=1_000_000)
    combat = Combat(sc)
    block = np.array([[999_999, 1]])
    assert combat.jsonl(block) == '{"a0":{"b0":999999,"opp":1}}\n'


@settings(max_examples=100, deadline=None)
@given(
    overlapping_boards(max_power=6),
    st.sampled_from([1, 3, 4096]),
    st.sampled_from([0, 40, 1 << 22]),
    st.sampled_from([1, 1 << 25]),
    st.data(),
)
def test_blocks_from_any_start_are_the_tail_of_the_order(sc, rows, suffix_cells, prefix_bytes, data):
    combat = Combat(load_scenario(sc), engine="direct")
    saved = direct.SUFFIX_CELLS, direct.PREFIX_BYTES
    try:
        direct.SUFFIX_CELLS, direct.PREFIX_BYTES = suffix_cells, prefix_bytes
        for comp in combat.plan.components:
            dp = ComponentDP(combat.plan, comp)
            if dp.count() > 3000:
                continue
            full = [tuple(v) for b in dp.blocks(rows) for v in b.tolist()]
            i = data.draw(st.integers(0, dp.count() - 1))
            assert [tuple(v) for b in dp.blocks(rows, start=i) for v in b.tolist()] == full[i:]
    finally:
        direct.SUFFIX_CELLS, direct.PREFIX_BYTES = saved


@settings(max_examples=60, deadline=None)
@given(
    scenarios(max_total_power=8, max_work=2000),
    st.sampled_from([1, 3, 1 << 16]),
    st.sampled_from([0, 2, 50]),
    st.data(),
)
def test_plan_blocks_of_an_index_range_are_that_slice(sc, rows, cache_rows, data):
    # shards: rows start <= i < stop of the canonical order, nothing else
    combat = Combat(load_scenario(sc), side="both", engine="direct")
    full = [r for b in plan_blocks(combat.plan, rows, cache_rows=cache_rows) for r in b.tolist()]
    n = len(full)
    a = data.draw(st.integers(0, n))
    b = data.draw(st.integers(a, n + 2))
    got = [r for blk in plan_blocks(combat.plan, rows, cache_rows=cache_rows, start=a, stop=b) for r in blk.tolist()]
    assert got == full[a:b]
