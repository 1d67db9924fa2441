"""The closed form of a few gated blockers shared by several tramplers (engines/shared.py; docs/scale.md, "Three
tramplers on two blockers of 2 000"), against the brute force, the column programme and an independent count over
the blockers' totals (702.19b: lethal damage counts every source's damage on the blocker)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from brute import brute_force
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_ordered import _canonical, _key

from trample import Combat
from trample.engines import direct
from trample.engines.direct import ComponentDP, DirectEngine
from trample.engines.shared import Line, SharedProgramme, _pass, _search, shared_count, shared_programme
from trample.models import load_scenario
from trample.rules import derive

OPP = [{"id": "opp", "life": 20}]


@st.composite
def shared_boards(draw, max_power=9, max_toughness=6):
    """2-4 attackers (trample, or plain, or unblocked) on one or two blockers of toughness 1-6 (some damage
    marked), every pattern of sharing."""
    blockers = []
    for j in range(draw(st.integers(1, 2))):
        t = draw(st.integers(1, max_toughness))
        blockers.append({"id": f"b{j}", "power": 1, "toughness": t, "damage_marked": draw(st.integers(0, t - 1))})
    names = [b["id"] for b in blockers]
    attackers = []
    for i in range(draw(st.integers(2, 4))):
        a = {"id": f"a{i}", "power": draw(st.integers(0, max_power)), "toughness": 3, "attacking": "opp"}
        a["keywords"] = draw(st.sampled_from([["trample"], ["trample"], []]))
        a["blocked_by"] = draw(st.permutations(names).flatmap(lambda p: st.integers(0, len(p)).map(lambda k: p[:k])))
        attackers.append(a)
    return {"players": OPP, "attackers": attackers, "blockers": blockers}


def _taken(plan, comp) -> bool:
    """The shape the closed form must take: a gated route naming a blocker that still needs damage (two blockers
    at most, no deathtouch: none is drawn here)."""
    return any(
        r.gate is not None and any(plan.lethal_need.get(b, 0) > 0 for b in r.gate.lethal)
        for i in comp
        for r in plan.sources[i].routes
    )


@settings(max_examples=300, deadline=None)
@given(shared_boards())
def test_closed_form_matches_the_column_programme(sc):  # 702.19b, 510.1a
    plan = derive(load_scenario(sc))
    for comp in plan.components:
        n = shared_count(plan, comp)
        if _taken(plan, comp):
            assert n is not None  # the new path is taken on every board of its shape (so this test can fail)
        if n is not None:
            assert n == ComponentDP(plan, comp).count()


@settings(max_examples=60, deadline=None)
@given(shared_boards(max_power=4, max_toughness=3))
def test_closed_form_matches_the_brute_force(sc):  # 702.19b, 510.1a
    assert Combat(load_scenario(sc), engine="direct").count() == len(brute_force(sc))


def test_the_engine_counts_with_the_closed_form(monkeypatch):
    """Three tramplers of 3 000 on two blockers of 2 000: DirectEngine.count answers from the closed form (the
    other counting programmes are not called)."""
    sc = _three_on_two(3000, 2000)
    plan = derive(load_scenario(sc))

    def refused(*_a, **_k):
        raise AssertionError("count_component called")

    monkeypatch.setattr(direct, "count_component", refused)
    (comp,) = plan.components
    assert DirectEngine().count(plan, comp) == shared_count(plan, comp) == 52433414891686478651


def test_line_against_a_sum():
    """Line: the items' weighted ways with slack parts, against the sum written out."""
    items = [(5, 2), (3, 1), (4, 0), (6, 3)]
    for m in (-1, 0, 2):
        line = Line(items, m)
        for K in range(-2, 30):
            assert line.at(K) == _line_sum(items, m, K)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), max_size=3),
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), max_size=3),
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), max_size=2),
    st.integers(-1, 2),
    st.integers(0, 120),
    st.integers(-60, 60),
)
@example([], [(5, 1)], [], -1, 20, 0)  # cnt is one point (no box, no slack): a stretch of one value
def test_a_pass_sums_as_one_product_a_value(inside, rest, only1, m, m0, base):
    """_two_short's pass over the first total, summed stretch by stretch from a few values (forward differences),
    against the products summed one value at a time (ranges of up to 120 values, lines of degree up to 9)."""
    cnt, pref, phi = Line(inside, m), Line(rest, 0), Line(only1, m + 1)
    lo = max(0, -base)
    expected = sum(cnt.at(X) * pref.at(m0 - X) * phi.at(base + X) for X in range(lo, m0 + 1))
    assert _pass(cnt, pref, phi, m0, base, lo, m0) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 10**20), min_size=1, max_size=300), st.data())
def test_the_search_finds_what_bisection_finds(steps, data):
    """unrank's search (interpolation, halving after two steps on one side) on non-increasing functions with
    plateaus and jumps: the largest v with f(v) >= floor, and f at v and v + 1."""
    f = sorted(steps, reverse=True)  # f(0..rem); f(rem + 1) = 0
    rem = len(f) - 1
    floor = data.draw(st.integers(1, max(1, f[0])))
    if f[0] < floor:
        return
    calls = []

    def at(v):
        calls.append(v)
        return f[v]

    v, fv, above = _search(rem, at, f[0], floor)
    expected = max(u for u in range(rem + 1) if f[u] >= floor)
    assert (v, fv, above) == (expected, f[expected], f[expected + 1] if expected < rem else 0)
    assert all(0 < u <= rem for u in calls) and len(calls) <= 3 * rem.bit_length() + 3


def _line_sum(items, m, K):
    from math import comb

    def ways(d, u, v):
        if u == 0:
            return int(v == d)
        return comb(d - v + u - 1, u - 1)

    dist = {0: 1}
    for d, u in items:
        new: dict[int, int] = {}
        for s, w in dist.items():
            for v in range(d + 1):
                new[s + v] = new.get(s + v, 0) + w * ways(d, u, v)
        dist = new
    parts = m + 1
    return sum(
        w * (int(K - s == 0) if parts == 0 else (comb(K - s + parts - 1, parts - 1) if K - s >= 0 else 0))
        for s, w in dist.items()
    )


def _three_on_two(power, toughness, only_b1=(), unblocked=0):
    attackers = [
        {"id": f"a{i}", "power": power, "toughness": 5, "keywords": ["trample"], "attacking": "opp"}
        | {"blocked_by": ["b1"] if i in only_b1 else ["b0", "b1"]}
        for i in range(3)
    ]
    attackers += [{"id": f"u{i}", "power": power, "toughness": 5, "attacking": "opp"} for i in range(unblocked)]
    return {
        "players": OPP,
        "attackers": attackers,
        "blockers": [{"id": f"b{j}", "power": 1, "toughness": toughness} for j in range(2)],
    }


def _by_totals(power, need, both):
    """Independent: the distribution of the two blockers' totals (numpy, int64), with per blocker whether a gated
    route naming it was used; ``both[i]``: source i is blocked by both blockers (else by b1 only)."""
    size = len(both) * power + 1
    dist = np.zeros((4, size, size), dtype=np.int64)  # flags: bit 0 "b0 asked", bit 1 "b1 asked"
    dist[0, 0, 0] = 1
    for on_both in both:
        new = np.zeros_like(dist)
        run = np.cumsum(dist, axis=2)  # x1 from 0 to r with the damage left over: a difference of running sums
        for x0 in range(power + 1 if on_both else 1):
            rest = power - x0
            new[:, x0:, rest:] += dist[:, : size - x0, : size - rest]  # nothing left for the player
            if rest == 0:
                continue
            window = run[:, : size - x0, :].copy()
            window[:, :, rest:] -= run[:, : size - x0, : size - rest]
            asked = 3 if on_both else 2
            for f in range(4):
                new[f | asked, x0:, :] += window[f]
        dist = new
    t0 = np.arange(size)[:, None] >= need
    t1 = np.arange(size)[None, :] >= need
    total = 0
    for f in range(4):
        ok = (t0 | (f & 1 == 0)) & (t1 | (f & 2 == 0))
        total += int(dist[f][ok].sum())
    return total


@pytest.mark.parametrize("only_b1", [(), (2,)])
def test_three_on_two_against_the_totals(only_b1):  # 702.19b
    sc = _three_on_two(12, 8, only_b1)
    plan = derive(load_scenario(sc))
    (comp,) = plan.components
    expected = _by_totals(12, 8, [i not in only_b1 for i in range(3)])
    assert shared_count(plan, comp) == expected == ComponentDP(plan, comp).count()


@pytest.mark.slow
@pytest.mark.parametrize("only_b1", [(), (2,)])
def test_three_on_two_of_200_against_the_totals(only_b1):  # 702.19b
    sc = _three_on_two(300, 200, only_b1, unblocked=1)
    plan = derive(load_scenario(sc))
    comp = next(c for c in plan.components if len(c) == 3)
    assert shared_count(plan, comp) == _by_totals(300, 200, [i not in only_b1 for i in range(3)])


@settings(max_examples=150, deadline=None)
@given(shared_boards(max_power=5, max_toughness=4))
def test_programme_orders_as_the_column_programme(sc):  # the canonical order (docs/scale.md)
    plan = derive(load_scenario(sc))
    for comp in plan.components:
        prog = shared_programme(plan, comp)
        if shared_count(plan, comp) is not None:
            assert prog is not None  # taken wherever the count is
        if prog is None:
            continue
        dp = ComponentDP(plan, comp)
        assert prog.count() == dp.count()
        for i in range(0, dp.count(), max(1, dp.count() // 200)):
            v = dp.unrank(i)
            assert prog.unrank(i) == v
            assert prog.rank(v) == i
        assert prog.rank((1,) * len(dp.columns)) == dp.rank((1,) * len(dp.columns))  # None when illegal


@pytest.mark.slow
@pytest.mark.parametrize("only_b1, unblocked", [((), 0), ((2,), 0), ((2,), 1)])
def test_three_on_two_of_2000_ranks_and_unranks(only_b1, unblocked):  # 702.19b
    """The boards of docs/scale.md: unrank and rank answer with the closed form's programme and round trip."""
    combat = Combat(load_scenario(_three_on_two(3000, 2000, only_b1, unblocked)), engine="direct")
    (prog,) = [DirectEngine().programme(combat.plan, comp) for comp in combat.plan.components if len(comp) == 3]
    assert isinstance(prog, SharedProgramme)
    n = combat.count()
    for k in (0, 1, 12345, n // 3, n // 2 + 7, n - 1):
        a = combat.unrank(k)
        assert combat.rank(a) == k
        assert combat.check(a).legal


@settings(max_examples=80, deadline=None)
@given(shared_boards(max_power=4, max_toughness=3))
def test_ranking_hands_out_the_programme_and_orders_as_the_oracle(sc):  # 702.19b, 510.1a
    """With no column programme trial, rank and unrank go through the closed form's programme wherever it has the
    shape, and give the brute force's assignments in the canonical order."""
    combat = Combat(load_scenario(sc), engine="direct")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(direct, "COLUMN_TRIAL", 0)
        for comp in combat.plan.components:
            if len(comp) > 1 and shared_count(combat.plan, comp) is not None:
                assert isinstance(direct.index_programme(combat.plan, comp), SharedProgramme)
        expected = _canonical(combat, brute_force(sc))
        assert [_key(combat, combat.unrank(i)) for i in range(len(expected))] == expected
        assert all(combat.rank(combat.unrank(i)) == i for i in range(len(expected)))


@settings(max_examples=150, deadline=None)
@given(shared_boards(max_power=6, max_toughness=5), st.integers(0, 10**6))
def test_rows_list_the_column_programmes_order_from_any_start(sc, seed):  # the canonical order (docs/scale.md)
    # the closed form's depth-first lister (the boards no table-based lister takes): every row once, in the column
    # programme's order, from the first or from any index (the path to unrank(start) followed)
    plan = derive(load_scenario(sc))
    for comp in plan.components:
        prog = shared_programme(plan, comp)
        if prog is None:
            continue
        dp = ComponentDP(plan, comp)
        expected = [tuple(int(x) for x in row) for b in dp.blocks(1 << 12) for row in b]
        assert [tuple(r) for r in prog.rows()] == expected
        start = seed % len(expected)
        got = np.concatenate(list(prog.blocks(7, np.int16, start=start)))
        assert got.dtype == np.int16 and got.shape == (len(expected) - start, prog.P)
        assert [tuple(int(x) for x in row) for row in got] == expected[start:]


@pytest.mark.parametrize("only_b1, unblocked", [((), 0), ((2,), 1)])
def test_three_on_two_of_2000_lists_with_the_closed_form(only_b1, unblocked):  # 702.19b
    # the table-based listers refuse these boards by their shape (a source's splits past SPLIT_LIMIT) and the column
    # programme never builds (no row in 20 s, 1.8 GB): the first rows now come from the closed form, each legal, in
    # the order of unrank, and "auto" lists with it (not CP-SAT)
    sc = _three_on_two(3000, 2000, only_b1, unblocked)
    combat = Combat(load_scenario(sc), engine="direct")
    (comp,) = [c for c in combat.plan.components if len(c) == 3]
    assert isinstance(direct.component_lister(combat.plan, comp), SharedProgramme)
    first = next(iter(combat.assignment_blocks(rows=50)))
    assert 0 < len(first) <= 50
    for i, row in enumerate(first[:20]):
        a = combat.plan.assignment([(combat.plan.columns, [int(x) for x in row])])
        assert combat.check(a).legal
        assert combat.rank(a) == i
    assert direct.lists_within_bounds(combat.plan, comp)
    auto = Combat(load_scenario(sc))
    assert np.array_equal(next(iter(auto.assignment_blocks(rows=50)))[:10], first[:10])


@pytest.mark.parametrize("only_b1, unblocked", [((), 0), ((2,), 1)])
def test_many_draws_take_the_closed_form_at_once(monkeypatch, only_b1, unblocked):  # 702.19b
    """Where the column programme would never build (three of 3 000 on two of 2 000), ranking for a sample of
    1 000 takes the closed form without trying it (the trial was 3 s); the draws are the unranks of the seeded
    random indices, each legal, and rank gives each back its index."""
    import random

    combat = Combat(load_scenario(_three_on_two(3000, 2000, only_b1, unblocked)), engine="direct")
    (comp,) = [c for c in combat.plan.components if len(c) == 3]

    built = direct.component_dp

    def refused(plan, key, *a, **k):
        assert tuple(key) != tuple(comp), "the column programme was tried"
        return built(plan, key, *a, **k)  # the lone unblocked attacker's

    with monkeypatch.context() as mp:
        mp.setattr(direct, "component_dp", refused)
        assert isinstance(direct.index_programme(combat.plan, comp, uses=1000), SharedProgramme)
        draws = combat.sample(12, seed=5)
    rng, n = random.Random(5), combat.count()
    indices = [rng.randrange(n) for _ in range(12)]
    assert draws == [combat.unrank(i) for i in indices]
    assert [combat.rank(a) for a in draws] == indices
    assert all(combat.check(a).legal for a in draws)
    # where the column programme builds (12 on 8), a sample of many still tries it first (microseconds a draw)
    small = Combat(load_scenario(_three_on_two(12, 8)), engine="direct")
    (comp,) = small.plan.components
    assert isinstance(direct.index_programme(small.plan, comp, uses=1000), ComponentDP)


def test_auto_lists_two_on_one_of_100_000_with_the_closed_form(monkeypatch):  # 702.19b
    # tests/cli/test_limits.py's HUGE: "auto" decides at once that the direct engine lists it (the closed form's
    # lister, lists_within_bounds) -- no column programme tried, no CP-SAT -- and its first rows are the canonical
    # order's (CP-SAT's would not be)
    sc = {
        "players": OPP,
        "attackers": [
            {"id": f"a{i}", "power": 100_000, "toughness": 5, "keywords": ["trample"], "attacking": "opp"}
            | {"blocked_by": ["b0"]}
            for i in range(2)
        ],
        "blockers": [{"id": "b0", "power": 1, "toughness": 50_000}],
    }

    def refused(*_a, **_k):
        raise AssertionError("the column programme was tried")

    monkeypatch.setattr(ComponentDP, "__init__", refused)
    combat = Combat(load_scenario(sc))
    first = list(combat.assignments(limit=3))
    (comp,) = combat.plan.components
    assert isinstance(combat.plan.cache.of("direct")[tuple(comp)], SharedProgramme)
    assert first == [combat.unrank(i) for i in range(3)]
    assert [combat.rank(a) for a in combat.sample(5, seed=2)] == _indices(2, 5, combat.count())


def _indices(seed, n, total):
    import random

    rng = random.Random(seed)
    return [rng.randrange(total) for _ in range(n)]


def test_shards_of_a_count_past_two_to_the_63_are_bad_input(tmp_path):
    # three power-3 000 tramplers on two 2 000-toughness blockers: 5.2e19 assignments. `enumerate --shards 2` sized
    # each shard's .npy file in signed 64-bit bytes in the worker and failed there (OverflowError, a traceback);
    # now one line, exit 2, before any file -- and with --limit the shards are written
    board = tmp_path / "three.json"
    board.write_text(json.dumps(_three_on_two(3000, 2000)))
    run = subprocess.run(
        [sys.executable, "-m", "trample", "enumerate", str(board), "--shards", "2", "-o", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "--shards" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "s").exists()
    out = tmp_path / "t"
    argv = [sys.executable, "-m", "trample", "enumerate", str(board), "--shards", "2", "-o", str(out), "--limit", "7"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(done.stdout)["rows"] == 7
    rows = np.concatenate([np.load(out / f"shard-0000{k}.npy") for k in range(2)])
    combat = Combat(load_scenario(_three_on_two(3000, 2000)), engine="direct")
    assert np.array_equal(rows, next(combat.assignment_blocks(rows=7)))  # the first 7 of the canonical order
