"""Counting on any sharing graph (issue 21): one table per source, joined in a graph-chosen order
(trample.engines.elimination), checked against the brute-force oracle (tests/oracles/brute.py), CP-SAT and the
old paths (the column programme, and for as-though-unblocked attackers the 2^n signed variants) on the new shapes of
benchmarks/boards.py: cycles through planeswalkers, random sharing graphs, as-though-unblocked chains, stars and dense
pairs; and on the general generated scenarios (legacy order, banding, deathtouch, marked damage, both sides)."""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from math import prod

import numpy as np
import pytest
from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_perf_paths import overlapping_boards

from benchmarks.boards import dense_pairs, pw_cycle, random_sharing, star, unblocked_chain
from trample import Combat
from trample.engines import conditioned, direct, elimination
from trample.engines.by_source import blocker_cost
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


RESUMED = SHAPES[:5] + [
    ("cycle through planeswalkers, 9", pw_cycle(9)),
    ("random sharing 8 on 10", random_sharing(8, 10, 3, 4)),
]


@pytest.mark.parametrize("name,sc", RESUMED, ids=[n for n, _ in RESUMED])
def test_a_contraction_stopped_by_its_work_bound_goes_on_from_where_it_stopped(name, sc):  # 702.19b, 702.19c
    # elimination._Factors: OverBudget inside the joins keeps the joins done; called again with a higher bound (or
    # none), the count is the count, each join made once
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        budget = elimination.Budget(Deadline(3600.0), 0)
        factors = elimination._Factors(elimination.Graph(plan, comp), comp, budget)
        stops, done, more = 0, [], elimination.CHECK_EVERY
        while True:
            try:
                n = factors.count()
                break
            except elimination.OverBudget:
                stops += 1
                done.append(factors.progress[0])
                budget.limit, more = budget.ops + more, 2 * more  # a join in progress is made again: more each time
        assert n == _old(plan, comp)
        assert done == sorted(done)  # never back
        assert stops == 0 or factors.joins


def test_the_count_goes_on_after_its_first_try_past_the_work_bound(monkeypatch):  # 702.19b
    # count_component: the first try of the tables stops past FIRST_WORK; one source at a time is then tried
    # (its rough cost within SOURCE_PLAUSIBLE) and gives up, and the joins go on: each join completed once in all
    done = []
    join = elimination._join

    def recorded(g, A, B, *a):
        t = join(g, A, B, *a)
        done.append(t.members)
        return t

    monkeypatch.setattr(elimination, "_join", recorded)
    monkeypatch.setattr(elimination, "FIRST_WORK", 5 * elimination.CHECK_EVERY)
    monkeypatch.setattr(elimination, "SOURCE_PLAUSIBLE", 10**12)
    tried = []
    shared = elimination.count_shared
    monkeypatch.setattr(elimination, "count_shared", lambda *a, **k: tried.append(k) or shared(*a, **k))
    plan = Combat(load_scenario(random_sharing(12, 14, per=4, seed=0))).plan
    (comp,) = plan.components
    n = count_component(plan, comp)
    made = list(done)
    assert n == count_by_factors(plan, comp)
    assert any(k.get("source_limit") == 10**12 for k in tried)  # tried between the two halves of the joins
    assert len(made) == len(set(made)) == len(comp) - 1


def test_one_source_at_a_time_is_not_tried_past_its_plausible_cost(monkeypatch):  # 702.19b
    # random_sharing(12, 14, 4) seed 3: one source at a time gives up (rough cost 4 x 10^10), so count_component
    # does not try it: count_shared is asked with source_limit and returns at once
    from trample.engines import by_source

    calls = []
    monkeypatch.setattr(by_source, "_by_source", lambda *a: calls.append(a) or None)
    plan = Combat(load_scenario(random_sharing(12, 14, per=4, seed=3))).plan
    (comp,) = plan.components
    assert by_source.count_shared(plan, comp, source_limit=elimination.SOURCE_PLAUSIBLE) is None
    assert not calls
    assert by_source.count_shared(plan, comp) is None
    assert len(calls) == 1  # without the limit it is tried (and, here, gives up)


# -- counting modulo primes (the Chinese remainder theorem) and the choice of method ------------------------------


@pytest.mark.parametrize(
    "sc",
    [pw_cycle(7, power=14), random_sharing(6, 8, per=3, seed=1, power=(20, 30)), unblocked_chain(5, power=40)],
    ids=["planeswalker cycle", "random sharing", "as-though-unblocked chain"],
)
def test_counts_past_int64_are_rebuilt_from_their_residues(sc):  # 702.19b, 702.19c, 510.1c
    # counts of 19-24 digits: the joins count modulo a few primes below 2^22 (elimination.Ring)
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert elimination.Ring(2**70).moduli  # the bound of these boards is past 2^53
        assert count_by_factors(plan, comp) == _old(plan, comp)


SMALL_PRIMES = [p for p in range(200, 3, -1) if all(p % d for d in range(2, p))]


def _small_moduli(bound):
    """Primes below 200, largest first, as many as it takes for their product to pass ``bound``."""
    out, product = [], 1
    for p in SMALL_PRIMES:
        if product > bound:
            break
        out.append(p)
        product *= p
    assert product > bound
    return tuple(out)


@contextlib.contextmanager
def _patched(**values):
    """trample.engines.elimination's module values set for the block, then put back (a hypothesis test cannot take
    a function-scoped fixture: it would be shared across examples)."""
    saved = {name: getattr(elimination, name) for name in values}
    for name, value in values.items():
        setattr(elimination, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(elimination, name, value)


@pytest.fixture(autouse=True, scope="module")
def _general_joins():
    """The general join's paths for small joins too, as this module's tests of its paths force them (a small join
    otherwise goes every pair at once, elimination._join_small, compared with the general join below)."""
    with _patched(SMALL_MOST=-1):
        yield


@pytest.fixture
def small_moduli(monkeypatch):
    """Every join counted modulo primes below 200 (many of them, and counts that wrap all the time), however small
    the bound."""
    monkeypatch.setattr(elimination, "EXACT_BOUND", 0)
    monkeypatch.setattr(elimination, "_moduli", _small_moduli)
    monkeypatch.setattr(elimination, "APPROX", False)  # those primes, not two large ones and a float row


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_small_moduli_on_the_new_shapes(small_moduli, name, sc):  # 702.19b, 702.19c, 702.2c, 510.1c
    # the column programme (checked against the brute force above)
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)


@settings(max_examples=100, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3), st.sampled_from(["attacking", "defending", "both"]))
def test_small_moduli_on_general_scenarios(sc, side):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k, 510.1c
    # small moduli, and a few pairs at a time (the signatures combined in several chunks, each entry's pairs in
    # several slices)
    with _patched(EXACT_BOUND=0, _moduli=_small_moduli, APPROX=False, PAIRS=5):
        plan = Combat(load_scenario(sc), side=side).plan
        for comp in plan.components:
            assert count_by_factors(plan, comp) == _old(plan, comp)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**200), 2**200), min_size=1, max_size=6))
def test_the_product_of_residues_is_rebuilt_exactly(values):  # with its sign
    bound = prod(abs(v) for v in values) + 1
    ring = elimination.Ring(bound)
    assert prod(ring.moduli) > 2 * bound or not ring.moduli
    assert all(elimination._is_prime(p) and p < 2**elimination.MODULUS_BITS for p in ring.moduli)
    totals = [[v % m for m in ring.moduli] if ring.moduli else [v] for v in values]
    assert ring.product(totals) == prod(values)


def test_the_moduli_are_the_largest_primes_below_2_22():
    primes = elimination._moduli(2**200)
    assert list(primes) == sorted(set(primes), reverse=True)
    top = [n for n in range(2**elimination.MODULUS_BITS - 1, primes[2] - 1, -1) if elimination._is_prime(n)]
    assert top[:3] == list(primes[:3])
    for p in primes[:3]:  # trial division, independent of Miller-Rabin
        assert all(p % d for d in range(3, 2049, 2))


# -- a float row of approximate counts beside fewer primes (elimination.Ring with approx) -------------------------


def _small_primes(bits, n):
    return SMALL_PRIMES[:n]


APPROX_SHAPES = [
    ("random sharing 12 on 14, 4 each", random_sharing(12, 14, per=4, seed=1)),
    ("planeswalker cycle", pw_cycle(7, power=14)),
    ("random sharing", random_sharing(6, 8, per=3, seed=1, power=(20, 30))),
    ("dense pairs", dense_pairs(4)),
]


@pytest.mark.parametrize("name,sc", APPROX_SHAPES, ids=[n for n, _ in APPROX_SHAPES])
def test_a_float_row_and_two_primes_rebuild_the_count(monkeypatch, name, sc):  # 702.19b, 702.19c, 510.1c
    # every count past 2^53 kept as two residues and a float64 approximate count (no fallback asked for)
    monkeypatch.setattr(elimination, "APPROX_FROM", 1)
    fallbacks = []
    more = elimination._more_primes
    monkeypatch.setattr(elimination, "_more_primes", lambda *a: fallbacks.append(1) or more(*a))
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert elimination.Ring(2**70, approx=True).approx
        got = count_by_factors(plan, comp)
        if len(comp) == 12:  # too wide for the column programme: the primes alone (checked against it above)
            with _patched(APPROX=False):
                assert got == count_by_factors(plan, comp) == 3760943468834410661188554
        else:
            assert got == _old(plan, comp)
    assert not fallbacks


@pytest.mark.parametrize("name,sc", APPROX_SHAPES[1:3], ids=[n for n, _ in APPROX_SHAPES[1:3]])
@pytest.mark.parametrize("unit", [2.0**-20, 2.0**-2])
def test_a_float_row_too_rough_asks_for_more_primes(monkeypatch, name, sc, unit):  # 702.19b, 702.19c, 510.1c
    # a pretended unit roundoff of 2^-20: the error bound is past the two primes' product, and the count is rebuilt
    # with the next primes (elimination._more_primes); 2^-2: no bound at all, the count is made again as without
    # the float row
    monkeypatch.setattr(elimination, "APPROX_FROM", 1)
    monkeypatch.setattr(elimination, "UNIT", unit)
    fallbacks = []
    more = elimination._more_primes
    monkeypatch.setattr(elimination, "_more_primes", lambda *a: fallbacks.append(1) or more(*a))
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)
    assert fallbacks


@pytest.mark.parametrize("name,sc", APPROX_SHAPES[1:], ids=[n for n, _ in APPROX_SHAPES[1:]])
def test_a_float_row_with_small_primes(join_path, monkeypatch, name, sc):  # 702.19b, 702.19c, 702.2c, 510.1c
    # residues of primes below 200 beside the float row (wrapping all the time; the error bound asks for several
    # more of them), each join path alone
    monkeypatch.setattr(elimination, "EXACT_BOUND", 0)
    monkeypatch.setattr(elimination, "APPROX_FROM", 1)
    monkeypatch.setattr(elimination, "_primes", _small_primes)
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)


@settings(max_examples=100, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3), st.sampled_from(["attacking", "defending", "both"]))
def test_a_float_row_on_general_scenarios(sc, side):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k, 510.1c
    # the float row and primes below 200 on every count (signed tables of as-though-unblocked sources keep the
    # primes alone), every join a matrix product two signatures at a time or pair by pair in slices of 5
    with _patched(EXACT_BOUND=0, APPROX_FROM=1, _primes=_small_primes, INNER_APPROX=2, PAIRS=5):
        plan = Combat(load_scenario(sc), side=side).plan
        for comp in plan.components:
            assert count_by_factors(plan, comp) == _old(plan, comp)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**120), st.floats(0, 2.0**70), st.floats(-1, 1), st.integers(1, 6))
def test_rebuild_from_residues_and_an_approximate_count(n, error, where, k):
    # any approximation within the error bound, and primes whose product is over twice the bound: the count itself
    moduli = elimination._primes(elimination.APPROX_BITS, k)
    exact = n + int(error * where)
    approx = float(exact)
    # the rounding to float, read in integers (approx - exact in floats would round it away past 2^53), and the
    # float sum's own rounding
    error = (error + abs(int(approx) - exact) + 1) * (1 + 2.0**-50) + 1
    got = elimination.rebuild(moduli, [n % m for m in moduli], approx, error)
    if prod(moduli) > 2 * error + 2:
        assert got == n
    else:
        assert got is None or got == n


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-4, 40), max_size=50), st.integers(0, 10**6))
def test_unique_by_marking_is_numpys(values, offset):
    col = np.array(values, dtype=np.int64) * (1 if offset < 10**5 else 10**9)
    vals, inv = elimination.unique(col)
    ref_vals, ref_inv = np.unique(col, return_inverse=True)
    assert vals.tolist() == ref_vals.tolist()
    assert inv.tolist() == ref_inv.reshape(-1).tolist()


@pytest.mark.parametrize("n", [4, 5])
def test_every_blocker_shared_is_counted_one_blocker_at_a_time(n):  # 702.19b
    # n tramplers each blocked by the same n blockers: one blocker at a time is tried first (its rough cost is far
    # below the tables'), and the count is the column programme's
    blockers = [{"id": f"b{j}", "power": 1, "toughness": 2 + j % 3} for j in range(n)]
    attackers = [
        {"id": f"a{i}", "power": 10, "toughness": 5, "keywords": ["trample"], "attacking": "opp"}
        | {"blocked_by": [b["id"] for b in blockers]}
        for i in range(n)
    ]
    sc = {"players": [{"id": "opp", "life": 20}], "attackers": attackers, "blockers": blockers}
    plan = Combat(load_scenario(sc)).plan
    (comp,) = plan.components
    assert blocker_cost(plan, comp) * elimination.BLOCKER_FIRST < elimination._possible_work(plan, comp)
    assert count_component(plan, comp) == _old(plan, comp) == count_by_factors(plan, comp)


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_joins_in_small_slices(monkeypatch, name, sc):  # 702.19b, 702.19c, 702.2c, 510.1c
    # a few pairs at a time: the signatures combined in several chunks, each entry's pairs in several slices
    monkeypatch.setattr(elimination, "PAIRS", 7)
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)


def test_parts_of_a_count_past_int64_add_up_with_their_signs():  # 510.1c: signed ways of as-though-unblocked sources
    # each entry of the split table alone: every part rebuilt from its residues (a part of a signed table's
    # contraction may be negative: Ring.product keeps the sign, checked below on negative products)
    plan = Combat(load_scenario(unblocked_chain(8, power=40))).plan
    (comp,) = plan.components
    split = elimination.split_count(plan, comp)
    assert split.ring.moduli
    parts = [elimination.count_part(split, k, k + 1) for k in range(split.entries)]
    assert split.settled * sum(parts) == count_by_factors(plan, comp)  # checked against the column programme above


@settings(max_examples=60, deadline=None)
@given(scenarios(max_attackers=4, max_blockers=4), st.sampled_from(["attacking", "both"]), st.integers(1, 9))
def test_parts_add_up_to_the_count(sc, side, parts):  # 510.1a-d, 702.19b-e, 702.2c, 510.1c
    # the joins that do not read the cut table made once in split_count, the others per part: the parts still add
    # up to the count, and the joins left to a part all read the cut table
    plan = Combat(load_scenario(sc), side=side).plan
    for comp in plan.components:
        split = elimination.split_count(plan, comp)
        if not split.tables:
            assert split.settled == count_by_factors(plan, comp)
            continue
        cuts = np.linspace(0, split.entries, parts + 1).astype(int)
        total = sum(elimination.count_part(split, int(lo), int(hi)) for lo, hi in zip(cuts, cuts[1:]))
        assert split.settled * total == count_by_factors(plan, comp)
        reads = {split.slot}
        for a, b in split.joins:
            assert a in reads or b in reads
            reads.add(a)


@pytest.mark.parametrize(
    "sc", [random_sharing(10, 10, per=4, seed=0), pw_cycle(9)], ids=["random sharing 10 on 10", "planeswalker cycle"]
)
def test_parts_of_the_benchmark_boards(sc):  # 702.19b, 702.19c
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        split = elimination.split_count(plan, comp)
        cuts = np.linspace(0, split.entries, 9).astype(int)
        total = sum(elimination.count_part(split, int(lo), int(hi)) for lo, hi in zip(cuts, cuts[1:]))
        assert split.settled * total == count_by_factors(plan, comp)


# -- joins as matrix products (elimination._by_products) against joins pair by pair -----------------------------


def _blocks(monkeypatch) -> list[int]:
    """Every matrix product by blocks of two rows of P, each over only its signatures (elimination._block_products),
    however little that saves: the number of blocks of each such product, noted."""
    for name, value in {"BLOCK_ROWS": 2, "BLOCKS_FROM": 0, "BLOCKS_SAVE": 1 << 40, "BLOCKS_FILL": 1 << 40}.items():
        monkeypatch.setattr(elimination, name, value)
    monkeypatch.setattr(elimination, "BLOCKS_Q_CELLS", 1 << 40)
    seen: list[int] = []
    block_products = elimination._block_products
    monkeypatch.setattr(
        elimination,
        "_block_products",
        lambda A, ra, sa, S, C, q, blocks, *a: (
            seen.append(len(blocks.present)) or block_products(A, ra, sa, S, C, q, blocks, *a)
        ),
    )
    return seen


@pytest.fixture(params=["products", "dense", "blocks", "rows", "pairs"])
def join_path(request, monkeypatch):
    """Every join as a matrix product (however sparse or large, a few signatures at a time) whose Q is built from
    the pairs of signatures and B's entries, one row of P at a time ("products"), or densely, one shared resource at
    a time ("dense", elimination._dense_q), or by blocks of two rows of P, each over only the signatures its entries
    have ("blocks", elimination._block_products); or every join pair by pair, one row's window of keys at a time
    ("rows", elimination._by_rows) or sorted and merged ("pairs", elimination._by_pairs)."""
    if request.param == "blocks":
        monkeypatch.setattr(elimination, "PRODUCT_CELLS", 1 << 40)
        monkeypatch.setattr(elimination, "PRODUCT_WASTE", 1 << 40)
        monkeypatch.setattr(elimination, "INNER", 3)
        monkeypatch.setattr(elimination, "INNER_APPROX", 3)
        monkeypatch.setattr(elimination, "DENSE_Q_CELLS", 0)
        _blocks(monkeypatch)
    elif request.param in ("products", "dense"):
        monkeypatch.setattr(elimination, "PRODUCT_CELLS", 1 << 40)
        monkeypatch.setattr(elimination, "PRODUCT_WASTE", 1 << 40)
        monkeypatch.setattr(elimination, "INNER", 3)
        monkeypatch.setattr(elimination, "INNER_APPROX", 3)
        dense = request.param == "dense"
        monkeypatch.setattr(elimination, "DENSE_Q_CELLS", 1 << 40 if dense else 0)
        monkeypatch.setattr(elimination, "DENSE_Q_RATIO", 1 << 40 if dense else 0)
        if not dense:
            monkeypatch.setattr(elimination, "PRODUCT_BLOCK", 1)
    else:
        monkeypatch.setattr(elimination, "PRODUCT_CELLS", 0)
        monkeypatch.setattr(elimination, "ROWS_WINDOW", 1)  # one row a window
        monkeypatch.setattr(elimination, "ROWS_FROM", 0)
        monkeypatch.setattr(elimination, "ROWS_SPARSE", 1 << 40)
        if request.param == "pairs":
            monkeypatch.setattr(elimination, "ROWS_PAIRS", -1)
    return request.param


def _entries(t, ring) -> dict:
    """A table's entries as {states: exact residues (and the float row rounded to 9 digits)}."""
    rows = t.w.T.tolist()
    if ring.approx:
        rows = [(*r[:-1], float(f"{r[-1]:.9e}")) for r in rows]
    return dict(zip(map(tuple, t.keys.tolist()), map(tuple, rows)))


@pytest.mark.parametrize("blocks", [False, True], ids=["whole products", "blocks of rows"])
@pytest.mark.parametrize("sc", [random_sharing(8, 10, 3, seed=2), pw_cycle(9)], ids=["random sharing", "pw cycle"])
def test_a_joins_table_by_products_is_the_one_made_pair_by_pair(monkeypatch, sc, blocks):  # 702.19b, 702.19c
    # the index columns read from each entry's row and column (elimination._entry_digits), in bytes, give the
    # same entries, states and counts as the codes of the same join made pair by pair (elimination._uncodes); so do
    # a product's blocks of rows, each over only its signatures (elimination._block_products), rows reordered
    seen = _blocks(monkeypatch) if blocks else []
    factors, budget = _largest_factors(sc)
    slots, ring, by_products = list(factors.slots), factors.ring, 0
    for a, b in factors.joins:
        t = elimination._join(factors.g, slots[a], slots[b], ring, budget)
        with monkeypatch.context() as m:
            m.setattr(elimination, "_by_products", lambda *args: None)
            pairs = elimination._join(factors.g, slots[a], slots[b], ring, budget)
        assert t.scope == pairs.scope and _entries(t, ring) == _entries(pairs, ring)
        by_products += t.index[0][1].dtype == np.uint8 if t.scope else 0
        slots[a], slots[b] = t, None
    assert by_products > 0
    assert not blocks or max(seen) > 1


def _largest_factors(sc):
    """The tables and join order of the largest component of ``sc``, and a budget without bounds."""
    plan = Combat(load_scenario(sc)).plan
    comp = max(plan.components, key=len)
    budget = elimination.Budget(elimination.NEVER, None)
    return elimination._Factors(elimination.Graph(plan, comp), comp, budget), budget


def _combined_by_lexsort(key, B, first, ring, budget):
    """elimination._combined as it was: the pairs sorted by (signature, code) with lexsort."""
    r, b, kcode = elimination._pair_codes(key, B, first, budget)
    order = np.lexsort((kcode, r))
    r, b, kcode = r[order], b[order], kcode[order]
    starts = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (kcode[1:] != kcode[:-1])])
    starts_of = np.searchsorted(r[starts], np.arange(len(first) + 1))
    return starts_of, kcode[starts], ring.reduce(np.add.reduceat(np.take(B.w, b, axis=1), starts, axis=1))


@pytest.mark.parametrize("sc", [random_sharing(8, 10, 3, seed=2), pw_cycle(6)], ids=["random sharing", "pw cycle"])
def test_signatures_combined_in_one_sort_as_by_lexsort(sc):  # 702.19b, 702.19c
    # elimination._combined sorts the pairs of signatures and B's entries by one int64 key (signature, then code):
    # the same combined entries, in the same order, with the same counts (a float row's bit for bit: the stable
    # sort adds the same counts in the same order) as lexsort on the two, at every join of a count
    factors, budget = _largest_factors(sc)
    slots, ring, pairs = list(factors.slots), factors.ring, 0
    for a, b in factors.joins:
        A, B = (slots[a], slots[b]) if len(slots[a]) >= len(slots[b]) else (slots[b], slots[a])
        key = elimination._join_key(factors.g, A, B, A.members | B.members)
        _, first = elimination._signatures(key, A)
        got = elimination._combined(key, B, first, ring, budget)
        want = _combined_by_lexsort(key, B, first, ring, budget)
        assert all(np.array_equal(x, y) for x, y in zip(got, want))
        pairs += len(got[1])
        slots[a], slots[b] = elimination._join(factors.g, slots[a], slots[b], ring, budget), None
    assert pairs > 0


def test_digit_type():
    assert elimination.digit_type([]) == np.uint8 and elimination.digit_type([3, 256]) == np.uint8
    assert elimination.digit_type([257]) == np.uint16 and elimination.digit_type([1 << 16]) == np.uint16
    assert elimination.digit_type([(1 << 16) + 1]) == np.int64


def test_concatenated_lets_go_of_each_part():
    # a join's result in blocks (counts, and int32 rows and columns widened to intp) joined into one array, each
    # block taken out of the list once copied: the whole and a block held, not twice the whole
    counts = [np.arange(6.0).reshape(2, 3), np.zeros((2, 0)), np.arange(4.0).reshape(2, 2)]
    want = np.concatenate(counts, axis=1)
    got = elimination._concatenated(counts)
    assert np.array_equal(got, want) and got.dtype == want.dtype and counts == []
    rows = [np.array([3, 1], dtype=np.int32), np.array([7], dtype=np.int32)]
    got = elimination._concatenated(rows, np.intp)
    assert got.dtype == np.intp and got.tolist() == [3, 1, 7] and rows == []


def test_states_past_a_byte():  # 702.19b: needs of 150 and 200, 301 and 401 states (two bytes an index)
    blockers = [{"id": "b0", "power": 1, "toughness": 150}, {"id": "b1", "power": 1, "toughness": 200}]
    attackers = [
        {"id": f"a{i}", "power": p, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": bl}
        for i, (p, bl) in enumerate([(160, ["b0"]), (170, ["b0", "b1"]), (90, ["b1"])])
    ]
    sc = {"step": "regular", "players": [{"id": "opp", "life": 20}], "attackers": attackers, "blockers": blockers}
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_each_join_path_on_the_new_shapes(join_path, name, sc):  # 702.19b, 702.19c, 702.2c, 510.1c
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_each_join_path_with_small_moduli(join_path, small_moduli, name, sc):  # 702.19b, 702.19c, 702.2c, 510.1c
    # residues of primes below 200 centred and folded (Ring.centred, Ring.fold) in every product
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)


@pytest.mark.parametrize(
    "sc",
    [pw_cycle(7, power=14), random_sharing(6, 8, per=3, seed=1, power=(20, 30)), unblocked_chain(5, power=40)],
    ids=["planeswalker cycle", "random sharing", "as-though-unblocked chain"],
)
def test_each_join_path_past_int64(join_path, sc):  # 702.19b, 702.19c, 510.1c
    # the largest primes below 2^22: centred residues near 2^21 multiplied over INNER signatures at once
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        assert count_by_factors(plan, comp) == _old(plan, comp)


@settings(max_examples=100, deadline=None)
@given(
    scenarios(max_attackers=3, max_blockers=3),
    st.sampled_from(["attacking", "defending", "both"]),
    st.sampled_from([0, 200]),
    st.booleans(),
    st.booleans(),
)
def test_products_on_general_scenarios(
    sc, side, small, dense, blocks
):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k, 510.1c
    # every join a matrix product, two signatures at a time, exact or modulo primes below 200, its Q built from the
    # pairs or densely (elimination._dense_q), whole or by blocks of one row of P (elimination._block_products)
    moduli = {"EXACT_BOUND": 0, "_moduli": _small_moduli, "APPROX": False} if small else {}
    q = {"DENSE_Q_CELLS": 1 << 40 if dense else 0, "DENSE_Q_RATIO": 1 << 40 if dense else 0}
    if blocks:
        q.update(BLOCK_ROWS=1, BLOCKS_FROM=0, BLOCKS_SAVE=1 << 40, BLOCKS_FILL=1 << 40, BLOCKS_Q_CELLS=1 << 40)
    with _patched(PRODUCT_CELLS=1 << 40, PRODUCT_WASTE=1 << 40, INNER=2, INNER_APPROX=2, **moduli, **q):
        plan = Combat(load_scenario(sc), side=side).plan
        for comp in plan.components:
            assert count_by_factors(plan, comp) == _old(plan, comp)


@settings(max_examples=100, deadline=None)
@given(
    scenarios(max_attackers=3, max_blockers=3),
    st.sampled_from(["attacking", "defending", "both"]),
    st.sampled_from(["exact", "small", "float"]),
    st.sampled_from([1, 1 << 40]),
)
def test_rows_on_general_scenarios(sc, side, ring, window):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k, 510.1c
    # every join pair by pair, row by row (elimination._by_rows): one row a window or all of them, a few pairs at a
    # time; exact, modulo primes below 200, or a float row with small primes
    rings = {
        "exact": {},
        "small": {"EXACT_BOUND": 0, "_moduli": _small_moduli, "APPROX": False},
        "float": {"EXACT_BOUND": 0, "APPROX_FROM": 1, "_primes": _small_primes},
    }
    with _patched(PRODUCT_CELLS=0, ROWS_WINDOW=window, ROWS_FROM=0, ROWS_SPARSE=1 << 40, PAIRS=5, **rings[ring]):
        plan = Combat(load_scenario(sc), side=side).plan
        for comp in plan.components:
            assert count_by_factors(plan, comp) == _old(plan, comp)


@settings(max_examples=40, deadline=None)
@given(
    scenarios(),
    st.sampled_from(["attacking", "defending"]),
    st.sampled_from(["exact", "small", "float"]),
    st.sampled_from([0, 1]),
)
def test_sums_that_go_dense_midway_on_general_scenarios(sc, side, ring, switch):  # 510.1a-d, 702.19b-e, 702.2c, 510.1c
    # every join pair by pair, its sums sorted (a slice of pairs, or until the pairs outnumber the keys) then in a
    # dense array (elimination._Sums._to_dense): the counts of sums sorted all the way, and of the column programme;
    # exact, modulo primes below 200, or a float row with small primes
    rings = {
        "exact": {},
        "small": {"EXACT_BOUND": 0, "_moduli": _small_moduli, "APPROX": False},
        "float": {"EXACT_BOUND": 0, "APPROX_FROM": 1, "_primes": _small_primes},
    }
    switched = []
    to_dense = elimination._Sums._to_dense

    def recorded(self):
        switched.append(len(self.parts_c))
        to_dense(self)

    paths = {"PRODUCT_CELLS": 0, "ROWS_PAIRS": -1, "PAIRS": 3, "DENSE": 0, **rings[ring]}
    with _patched(DENSE_MANY=1 << 40, SUMS_SWITCH=switch, **paths), pytest.MonkeyPatch.context() as m:
        m.setattr(elimination._Sums, "_to_dense", recorded)
        plan = Combat(load_scenario(sc), side=side).plan
        dense = [count_by_factors(plan, comp) for comp in plan.components]
    with _patched(DENSE_MANY=0, **paths):
        plan = Combat(load_scenario(sc), side=side).plan
        assert dense == [count_by_factors(plan, comp) for comp in plan.components]
        assert dense == [_old(plan, comp) for comp in plan.components]
    if any(len(c) > 1 for c in plan.components):
        assert switched and min(switched) > 0  # some join's sorted parts went into a dense array


@pytest.mark.parametrize("seed", range(10))
def test_random_sharing_12_on_14_against_the_previous_joins(seed):  # 702.19b
    # the boards of the count goal (issue 21): the joins of this version (products in blocks of rows, pairs row by
    # row, float residues folded) against the previous version's (sorted pairs merged), same plan, same ring
    plan = Combat(load_scenario(random_sharing(12, 14, per=4, seed=seed, power=(2, 4)))).plan
    for comp in plan.components:
        new = count_by_factors(plan, comp)
        with _patched(PRODUCT_CELLS=0, ROWS_PAIRS=-1):
            assert new == count_by_factors(plan, comp)


@pytest.mark.parametrize("seed", range(4))
def test_large_wasteful_products_go_row_by_row(seed, monkeypatch):  # 702.19b
    # a product without blocks of many multiply-adds against its pairs goes row by row (elimination._rows_rather):
    # here every one (both bounds 0), with the same counts as when every such join is a matrix product
    plan = Combat(load_scenario(random_sharing(9, 11, per=4, seed=seed, power=(2, 4)))).plan
    rows: list[int] = []
    by_rows = elimination._by_rows
    monkeypatch.setattr(elimination, "_by_rows", lambda *a: rows.append(1) or by_rows(*a))
    monkeypatch.setattr(elimination, "ROWS_FROM", 0)
    monkeypatch.setattr(elimination, "PRODUCT_LARGE", 1 << 62)
    products = [count_by_factors(plan, comp) for comp in plan.components]
    made = len(rows)
    monkeypatch.setattr(elimination, "PRODUCT_LARGE", 0)
    monkeypatch.setattr(elimination, "PRODUCT_LARGE_WASTE", 0)
    assert [count_by_factors(plan, comp) for comp in plan.components] == products
    assert len(rows) > 2 * made  # joins that were matrix products went row by row


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**52), 2**52), min_size=1, max_size=40), st.sampled_from([0, 1, 2, 3]))
def test_folding_keeps_a_residue_near_zero(values, j):
    # Ring.fold: x - p * rint(x / p) is congruent to x and at most p / 2 + 4 in absolute value
    ring = elimination.Ring(2**200)
    acc = np.array([values] * (j + 1), dtype=np.float64)
    ring.fold(acc[j:], j)
    p = ring.moduli[j]
    for x, y in zip(values, acc[j].tolist()):
        assert y == int(y) and (x - int(y)) % p == 0 and abs(y) <= p / 2 + 4


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-(2**40), 2**40), max_size=60),
    st.sampled_from([np.int64, np.int32, np.int16]),
)
def test_distinct_is_numpys_unique(values, dtype):
    """elimination.distinct (sorted, each value once) and elimination.unique (with the inverse) equal np.unique in
    values, dtype and shape, the empty and one-element columns included."""
    info = np.iinfo(dtype)
    col = np.array([min(max(v, info.min), info.max) for v in values], dtype=dtype)
    want, inverse = np.unique(col, return_inverse=True)
    got = elimination.distinct(col)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
    vals, inv = elimination.unique(col)
    assert np.array_equal(vals, want) and np.array_equal(inv, inverse.ravel())


# -- the order of the joins (elimination._plans): every plan gives the same count -------------------------------


ORDER_BOARDS = [
    (f"random sharing {n} on {m}, {per} each (seed {seed})", random_sharing(n, m, per=per, seed=seed, power=(2, 4)))
    for n, m, per, seed in [(4, 5, 2, 1), (5, 6, 2, 2), (5, 5, 3, 3), (6, 7, 2, 4), (6, 6, 3, 5)]
] + [("cycle through planeswalkers, 4", pw_cycle(4, power=3, loyalty=1)), ("dense pairs, 4", dense_pairs(4, power=3))]


@pytest.mark.parametrize("name,sc", ORDER_BOARDS, ids=[n for n, _ in ORDER_BOARDS])
def test_every_plan_of_the_joins_gives_the_count(name, sc):  # 702.19b, 702.19c
    # bucket elimination and the path from every starting table: the same count, that of the column programme
    plan = Combat(load_scenario(sc)).plan
    budget = elimination.Budget(elimination.NEVER, None)
    for comp in plan.components:
        g = elimination.Graph(plan, comp)
        settled, shared = elimination._source_rows(g, comp, budget)
        expected = _old(plan, comp)
        if not shared:
            assert settled == expected
            continue
        ring = elimination.Ring(prod(sum(abs(w) for w in rows.values()) for _, _, rows in shared))
        tables = [elimination._Table.of(m, s, r, ring) for m, s, r in shared]
        sims = [(t.members, frozenset(t.scope), len(t)) for t in tables]
        plans = elimination._plans(g, sims, starts=len(sims))
        assert len(plans) == 1 + len(sims)  # every path reaches every table of a component
        assert elimination._order(g, sims) in plans
        planner = elimination._Planner(g)
        plans.append(elimination._linear_plan(planner, [(planner.mask(m), s, n) for m, s, n in sims]))
        for _, joins in plans:
            assert settled * elimination._contract(g, tables, joins, ring, budget) == expected


def test_the_best_linear_plan_is_taken_where_it_is_estimated_far_cheaper():  # 702.19b
    # random_sharing(12, 14, 4) seed 5: the greedy plans' best is estimated at 1.0 x 10^9 pairs, the best linear
    # plan (by dynamic programming over the sets of tables) at 1.6 x 10^8: the count's order is the linear plan, a
    # path from one table, no worse than any linear order; and the count is that of the greedy order
    plan = Combat(load_scenario(random_sharing(12, 14, per=4, seed=5))).plan
    (comp,) = plan.components
    g = elimination.Graph(plan, comp)
    _, shared = elimination._source_rows(g, comp, elimination.Budget(elimination.NEVER, None))
    assert shared
    sims = [(m, frozenset(s), len(rows)) for m, s, rows in shared]
    work, joins = elimination._order(g, sims)
    greedy = min(w for w, _ in elimination._plans(g, sims, starts=len(sims)))
    assert work * elimination.LINEAR_MARGIN < greedy
    assert len({a for a, _ in joins}) == 1 and len(joins) == len(sims) - 1
    planner = elimination._Planner(g)
    tables = [(planner.mask(m), s, n) for m, s, n in sims]
    for start in range(len(sims)):
        path = elimination._path_plan(planner, tables, start)
        assert path is None or work <= path[0]
    n = count_by_factors(plan, comp)
    with _patched(LINEAR_MARGIN=float("inf")):
        assert count_by_factors(plan, comp) == n


# -- the clock inside a join --------------------------------------------------------------------------------------


class _Clock(Deadline):
    """A deadline an hour away that notes, at each reading, whether it was read from inside a join's matrix
    products (elimination._by_products)."""

    __slots__ = ("reads",)

    def __init__(self):
        super().__init__(3600.0)
        self.reads: list[bool] = []

    def check(self):
        frame, inside = sys._getframe(1), False
        while frame is not None and not inside:
            inside, frame = frame.f_code.co_name == "_by_products", frame.f_back
        self.reads.append(inside)
        super().check()


def _slices(rows: int, signatures: int, step: int) -> int:
    """The slices of one product of PRODUCT_CHECK = 1: per chunk of ``step`` signatures, one per row of P where the
    chunk has fewer than twice as many signatures as P has rows, else one per signature."""
    chunks = [min(step, signatures - s0) for s0 in range(0, signatures, step)]
    return sum(rows if w < 2 * rows else w for w in chunks)


@pytest.mark.parametrize("dense", [False, True], ids=["pairs-built Q", "dense Q"])
@pytest.mark.parametrize("name,sc", SHAPES + APPROX_SHAPES[1:], ids=[n for n, _ in SHAPES + APPROX_SHAPES[1:]])
def test_the_clock_is_read_after_each_slice_of_a_product(monkeypatch, dense, name, sc):  # 702.19b, 702.19c, 510.1c
    # a join's products in slices of one row of P or one signature (PRODUCT_CHECK = 1), per chunk of signatures: the
    # deadline is read after each, and the count does not change
    monkeypatch.setattr(elimination, "PRODUCT_CHECK", 1)
    monkeypatch.setattr(elimination, "PRODUCT_CELLS", 1 << 40)
    monkeypatch.setattr(elimination, "PRODUCT_WASTE", 1 << 40)
    monkeypatch.setattr(elimination, "DENSE_Q_CELLS", 1 << 40 if dense else 0)
    monkeypatch.setattr(elimination, "DENSE_Q_RATIO", 1 << 40 if dense else 0)
    slices = []
    products = elimination._products
    monkeypatch.setattr(
        elimination,
        "_products",
        lambda P, q, step, *a: slices.append(_slices(P.shape[1], P.shape[2], step)) or products(P, q, step, *a),
    )
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        clock = _Clock()
        slices.clear()
        assert count_by_factors(plan, comp, clock) == _old(plan, comp)
        assert sum(clock.reads) >= sum(slices)


def test_a_deadline_passing_inside_a_join_stops_it():
    # the random 12-attacker board: a deadline that passes at its 40th reading stops the count there
    class Passing(_Clock):
        def check(self):
            if len(self.reads) >= 40:
                self.at = 0.0
            super().check()

    plan = Combat(load_scenario(random_sharing(12, 14, per=4, seed=1))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    clock = Passing()
    with pytest.raises(LimitReached):
        count_by_factors(plan, comp, clock)
    assert len(clock.reads) == 41


class _CountedClock:
    """A deadline that counts how often it is read and passes at its ``after``-th reading."""

    def __init__(self, after: int):
        self.after, self.reads = after, 0

    def check(self) -> None:
        self.reads += 1
        if self.reads >= self.after:
            raise LimitReached("stopped at the time limit")


def test_one_long_route_reads_the_clock_as_it_goes():
    # a route of 2 000 values after 2 000 states (three tramplers on two blockers of toughness 2 000) is 4 M steps
    # of Python: the clock was read once before it (unrank --time-limit 3 stopped after 7.3 s); now every
    # ROUTE_CHUNK steps, so a limit passed during the route stops it
    opts = [((v << 1) | 1, v, 0) for v in range(2000)]
    start, D = (0, 0), 4000
    options = [(0, opts), (1, opts)]
    clock = _CountedClock(after=10**9)
    out = elimination.route_states(start, 0, 0, options, D, elimination.Budget(clock, None))  # type: ignore[arg-type]
    assert len(out) == 2000 * 2000  # every pair of values below the needs: the second route took 4 M steps
    assert clock.reads >= 2000 * len(opts) // elimination.ROUTE_CHUNK // 2
    with pytest.raises(LimitReached):
        elimination.route_states(start, 0, 0, options, D, elimination.Budget(_CountedClock(after=3), None))  # type: ignore[arg-type]


def _terms_per_key(key, A, B) -> int:
    """The most entries of A whose pairs with B's entries reach one key of their join, read pair by pair in Python
    (each signature of A with each entry of B: its live part of the key; an entry of A reaches A's own part plus
    each of its signature's parts)."""
    sa, first = elimination._signatures(key, A)
    r, _, kcode = elimination._pair_codes(key, B, first, elimination.Budget(elimination.NEVER, None))
    reach: dict[int, set[int]] = {}
    for s, c in zip(r.tolist(), kcode.tolist()):
        reach.setdefault(s, set()).add(c)
    per_key: Counter[int] = Counter()
    for i, s in enumerate(sa.tolist()):
        for c in reach.get(s, ()):
            per_key[int(key.ca[i]) + c] += 1
    return max(per_key.values(), default=0)


@settings(max_examples=100, deadline=None)
@given(
    scenarios(max_attackers=3, max_blockers=3),
    st.sampled_from(["attacking", "defending", "both"]),
    st.sampled_from(["rows", "pairs", "products"]),
)
def test_a_float_rows_error_bound_counts_the_terms_of_one_key(sc, side, path):  # 510.1a-d, 702.19b-e, 702.2c
    # the roundings of a join's float row are bounded by the most entries of A in one row of its key
    # (elimination._row_most; a matrix product's rows are the same), not by all of A's entries: no key of any join
    # is reached by more entries of A than that, and the count with the float row (primes below 200) is the column
    # programme's, each join path alone
    paths = {
        "rows": {"PRODUCT_CELLS": 0, "ROWS_FROM": 0, "ROWS_SPARSE": 1 << 40, "PAIRS": 5},
        "pairs": {"PRODUCT_CELLS": 0, "ROWS_PAIRS": -1, "PAIRS": 5},
        "products": {"PRODUCT_CELLS": 1 << 40, "PRODUCT_WASTE": 1 << 40, "INNER_APPROX": 2},
    }
    joins, approx, bounds = [], [], []
    join, row_most = elimination._join, elimination._row_most

    def checked(g, A, B, ring, budget):
        big, small = (B, A) if len(B) > len(A) else (A, B)  # as _join orders them
        key = elimination._join_key(g, big, small, big.members | small.members)
        joins.append(_terms_per_key(key, big, small) <= row_most(key, big) <= len(big))
        approx.append(ring.approx)
        return join(g, A, B, ring, budget)

    def recorded(key, A):
        bounds.append(row_most(key, A))
        return bounds[-1]

    with (
        _patched(EXACT_BOUND=0, APPROX_FROM=1, _primes=_small_primes, **paths[path]),
        pytest.MonkeyPatch.context() as m,
    ):
        m.setattr(elimination, "_join", checked)
        m.setattr(elimination, "_row_most", recorded)
        plan = Combat(load_scenario(sc), side=side).plan
        for comp in plan.components:
            assert count_by_factors(plan, comp) == _old(plan, comp)
    assert all(joins)
    if path != "products":  # every pair-by-pair join of a float row reads the bound (not the tables' sizes)
        assert len(bounds) == sum(approx)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**70), 2**70), min_size=1, max_size=40))
def test_ring_lift_and_centred_keep_each_residue(values):
    """``Ring.lift`` brings folded residues (|r| <= p / 2 + 4) into [0, p) and ``Ring.centred`` takes residues in
    [0, p) to r or r - p, whichever is smaller in absolute value, both by a 0/1 mask times p: each keeps the
    residue of every count modulo its prime, and lands in its range (a count's residues rebuilt by the Chinese
    remainder theorem read these)."""
    ring = elimination.Ring(2**80)
    assert ring.moduli
    values = values + [x for m in ring.moduli for x in (0, 1, m - 1, m // 2, m // 2 + 1, -1)]  # each edge
    residues = np.array([[v % m for v in values] for m in ring.moduli], dtype=np.int64)
    folded = np.array(
        [[r - m if r > m // 2 else r for r in row] for row, m in zip(residues.tolist(), ring.moduli)], dtype=np.int64
    )
    lifted = ring.lift(folded.copy())
    assert (lifted == residues).all()
    centred = ring.centred(residues)
    for row, m in zip(centred, ring.moduli):
        assert (np.abs(row) <= m // 2).all()
    assert all(int(c) % m == v % m for row, m in zip(centred, ring.moduli) for c, v in zip(row.tolist(), values))
    assert (residues == np.array([[v % m for v in values] for m in ring.moduli])).all()  # copy=True: left as it was


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 60), max_size=30), min_size=1, max_size=5),
    st.sampled_from(["exact", "residues", "float"]),
    st.integers(1, 8),
)
def test_merges_in_slices_add_the_same_counts(parts, kind, slice_):
    # _merged: sorted parts of (code, counts) cut at the same codes and merged a range at a time equal the one-pass
    # merge; _runs_added (one bincount a row for residues) equals np.add.reduceat on the same runs
    ring = {"exact": elimination.Ring(0), "residues": elimination.Ring(2**70), "float": elimination.Ring(2**70, True)}[
        kind
    ]
    rng = np.random.default_rng(len(parts) * 100 + slice_)
    codes = [np.unique(np.array(p, dtype=np.int64)) for p in parts]
    top = min(ring.moduli) if ring.moduli else 2**58  # (exact counts: five of them add within int64)
    weights = [rng.integers(0, top, size=(ring.k, len(c))).astype(ring.dtype) for c in codes]
    once = elimination._merged_once([c.copy() for c in codes], [w.copy() for w in weights], ring)
    checks = []

    class Counted(elimination.Budget):
        def check(self) -> None:
            checks.append(1)

    budget = Counted(Deadline(None), None)
    with _patched(MERGE_SLICE=slice_):
        sliced = elimination._merged(codes, weights, ring, budget)
    assert np.array_equal(once[0], sliced[0]) and np.array_equal(once[1], sliced[1])
    total = sum(len(c) for c in codes)
    assert len(checks) == (0 if total <= slice_ else -(-total // slice_))  # the clock read after every range
    kept = np.flatnonzero(once[1].any(axis=0))  # live=True: the codes whose counts are not all zero
    with _patched(MERGE_SLICE=slice_):
        live = elimination._merged(codes, weights, ring, Counted(Deadline(None), None), live=True)
    assert np.array_equal(live[0], once[0][kept]) and np.array_equal(live[1], once[1][:, kept])
    c2 = np.concatenate(codes)
    order = np.argsort(c2, kind="stable")
    starts = np.flatnonzero(np.r_[True, c2[order][1:] != c2[order][:-1]]) if len(c2) else order
    expected = np.add.reduceat(np.concatenate(weights, axis=1)[:, order], starts, axis=1) if len(c2) else None
    if expected is not None:
        assert np.array_equal(once[1], ring.reduce(expected)) and np.array_equal(once[0], c2[order][starts])


@settings(max_examples=30, deadline=None)
@given(scenarios(), st.sampled_from(["attacking", "defending"]), st.sampled_from(["small", "float"]))
def test_joins_whose_merges_go_in_slices_count_the_same(sc, side, ring):  # 510.1a-d, 702.19b-e, 702.2c
    # every join pair by pair with sorted parts (no dense sums), every merge a few codes at a time (MERGE_SLICE):
    # the counts of the column programme
    rings = {
        "small": {"EXACT_BOUND": 0, "_moduli": _small_moduli, "APPROX": False},
        "float": {"EXACT_BOUND": 0, "APPROX_FROM": 1, "_primes": _small_primes},
    }
    with _patched(PRODUCT_CELLS=0, ROWS_PAIRS=-1, PAIRS=3, DENSE=0, DENSE_MANY=0, MERGE_SLICE=2, **rings[ring]):
        plan = Combat(load_scenario(sc), side=side).plan
        assert [count_by_factors(plan, comp) for comp in plan.components] == [
            _old(plan, comp) for comp in plan.components
        ]


def test_a_large_merge_stops_at_the_deadline():
    # a merge of many codes reads the clock between its ranges: an expired deadline stops it (LimitReached) where
    # the one-pass merge could not look (a conditioned unrank of random_sharing(12, 14, 5) overran its limit so)
    ring = elimination.Ring(2**70)
    codes = [np.arange(0, 40, 2, dtype=np.int64), np.arange(1, 40, 2, dtype=np.int64)]
    weights = [np.ones((ring.k, 20), dtype=ring.dtype) for _ in codes]
    with _patched(MERGE_SLICE=8), pytest.raises(LimitReached):
        elimination._merged(codes, weights, ring, elimination.Budget(Deadline(0.0), None))


# -- a contraction cut into parts where its tables would be too large (elimination.CUT_BYTES) -----------------------

CUT_SHAPES = SHAPES + [
    ("random sharing 8 on 10", random_sharing(8, 10, 3, seed=2)),
    ("planeswalker cycle 9", pw_cycle(9)),
    *APPROX_SHAPES[1:],
]


@pytest.mark.parametrize("name,sc", CUT_SHAPES, ids=[n for n, _ in CUT_SHAPES])
@pytest.mark.parametrize("budget", [1 << 10, 1 << 13])
def test_a_contraction_cut_into_parts_adds_up_to_the_count(monkeypatch, name, sc, budget):  # 702.19b, 702.19c, 510.1c
    # every join past a few hundred bytes or a few KB made in parts, added back where the tables are small again
    # (with a float row: the parts' approximate counts and error bounds added)
    plan = Combat(load_scenario(sc)).plan
    expected = [count_by_factors(plan, comp) for comp in plan.components]
    monkeypatch.setattr(elimination, "CUT_BYTES", budget)
    monkeypatch.setattr(elimination, "CUT_FROM", 16)
    cuts, added = [], []
    cut, add = elimination._cut, elimination._added
    monkeypatch.setattr(elimination, "_cut", lambda *a: (r := cut(*a)) is not None and cuts.append(1) or r)
    monkeypatch.setattr(elimination, "_added", lambda *a: added.append(1) or add(*a))
    assert [count_by_factors(plan, comp) for comp in plan.components] == expected
    if budget < 1 << 12 and max(len(comp) for comp in plan.components) >= 6:  # (smaller tables: never cut)
        assert cuts and added


def test_parts_are_cut_again_three_levels_deep(monkeypatch):  # 702.19b, 702.19c
    # a part whose join grows past its prediction is cut again, down to a third level (CUT_DEPTH: seed 2 of
    # random_sharing(12, 14, 5) peaked at a third level's join); the parts still add up to the count
    plan = Combat(load_scenario(random_sharing(8, 10, 3, seed=2))).plan
    expected = [count_by_factors(plan, comp) for comp in plan.components]
    monkeypatch.setattr(elimination, "CUT_BYTES", 1 << 10)
    monkeypatch.setattr(elimination, "CUT_FROM", 16)
    depths = []
    carried = elimination._carried

    def spy(*args, **kwargs):
        depths.append(kwargs.get("depth", 0))
        return carried(*args, **kwargs)

    monkeypatch.setattr(elimination, "_carried", spy)
    assert [count_by_factors(plan, comp) for comp in plan.components] == expected
    assert max(depths) == elimination.CUT_DEPTH == 3


def test_the_last_level_cuts_only_a_table_already_large(monkeypatch):
    # at the last level of cuts (CUT_DEPTH - 1 above it) a join predicted past CUT_BYTES is cut only where its larger
    # table alone holds over CUT_BYTES / CUT_LAST_SHARE: a cut there multiplies the joins after it
    monkeypatch.setattr(elimination, "CUT_BYTES", 1 << 13)
    monkeypatch.setattr(elimination, "CUT_FROM", 16)
    factors, budget = _largest_factors(random_sharing(8, 10, 3, seed=2))
    slots, ring, g = list(factors.slots), factors.ring, factors.g
    last, small = elimination.CUT_DEPTH - 1, 0
    for n, (a, b) in enumerate(factors.joins):
        T = max(slots[a], slots[b], key=len)
        held = len(T) * (8 * ring.k + len(T.scope))
        if elimination._cut(g, slots, factors.joins, n, ring) is not None and held <= (1 << 13) // 2:
            assert elimination._cut(g, slots, factors.joins, n, ring, last) is None
            small += 1
        slots[a], slots[b] = elimination._join(g, slots[a], slots[b], ring, budget), None
    assert small


def test_a_float_row_too_rough_in_parts_asks_for_more_primes(monkeypatch):  # 702.19b, 702.19c
    # the parts' residues, approximate counts and error bounds added before the count is rebuilt: the second pass
    # (more primes, cut too) gets the whole count's
    sc = random_sharing(6, 8, per=3, seed=1, power=(20, 30))
    plan = Combat(load_scenario(sc)).plan
    expected = [count_by_factors(plan, comp) for comp in plan.components]
    monkeypatch.setattr(elimination, "APPROX_FROM", 1)
    monkeypatch.setattr(elimination, "UNIT", 2.0**-20)
    monkeypatch.setattr(elimination, "CUT_BYTES", 1 << 10)
    monkeypatch.setattr(elimination, "CUT_FROM", 16)
    fallbacks = []
    more = elimination._more_primes
    monkeypatch.setattr(elimination, "_more_primes", lambda *a: fallbacks.append(1) or more(*a))
    assert [count_by_factors(plan, comp) for comp in plan.components] == expected
    assert fallbacks


def _same_table(t, u) -> bool:
    """The same table in every respect a later join or a reader sees: scope, each column's states and each entry's
    index into them, the entries' order and counts."""
    return (
        t.scope == u.scope
        and t.members == u.members
        and np.array_equal(t.w, u.w)
        and t.w.dtype == u.w.dtype
        and len(t.index) == len(u.index)
        and all(np.array_equal(v, y) and np.array_equal(a, b) for (v, a), (y, b) in zip(t.index, u.index))
    )


def _no_key(*args):
    raise AssertionError("the general join")


def _one_entry_joins(monkeypatch, factors, budget, zeros: bool) -> tuple[int, int]:
    """Every join of a count made again with each of the first entries of either side alone (with the other side,
    or its first entry; ``zeros``: half of the other side's counts zero): elimination._join_one's table is the
    general join's. Returns the joins compared and those where an entry died or two met."""
    slots, ring, compared, merged = list(factors.slots), factors.ring, 0, 0
    for a, b in factors.joins:
        A, B = slots[a], slots[b]
        for big, small in ((A, B), (B, A)):
            for i in range(min(len(small), 6)):
                one = small.taken(np.array([i]))
                if zeros and len(big) > 1:
                    big = big.taken(np.arange(len(big)))
                    big.w = big.w.copy()
                    big.w[:, ::2] = 0
                # (an empty table is never joined: its join's callers stop at the first empty one)
                for X, Y in ((big, one), (one, big), (big.taken(np.arange(1)), one)):
                    with monkeypatch.context() as m:  # (taken without the general join's key)
                        m.setattr(elimination, "_join_key", _no_key)
                        fast = elimination._join(factors.g, X, Y, ring, budget)
                    with monkeypatch.context() as m:
                        m.setattr(elimination, "ONE_MOST", -1)
                        general = elimination._join(factors.g, X, Y, ring, budget)
                    assert _same_table(fast, general)
                    compared += 1
                    merged += len(fast) < max(len(X), len(Y))
        slots[a], slots[b] = elimination._join(factors.g, A, B, ring, budget), None
    return compared, merged


@pytest.mark.parametrize(
    "sc", [random_sharing(8, 10, 3, seed=2), random_sharing(7, 8, 4, seed=1), pw_cycle(6)], ids=["rs3", "rs4", "pw"]
)
@pytest.mark.parametrize("zeros", [False, True], ids=["counts", "zero counts"])
def test_a_join_with_one_entry_is_the_general_join(monkeypatch, sc, zeros):  # 702.19b, 702.19c
    # a conditioned unrank joins its prefix's one entry with the tables after it (elimination._join_one): the same
    # scope, states, indices, order and counts as the general join, where entries die (DEAD sums, settled or not)
    # or meet (capped totals), resources leave (DROP), counts are zero, and where both sides have one entry
    compared, merged = _one_entry_joins(monkeypatch, *_largest_factors(sc), zeros)
    assert compared > 0 and merged > 0


def test_a_join_with_one_entry_modulo_small_primes(monkeypatch, small_moduli):  # 702.19b, 702.19c
    compared, merged = _one_entry_joins(monkeypatch, *_largest_factors(random_sharing(7, 8, 4, seed=1)), True)
    assert compared > 0 and merged > 0


@settings(max_examples=40, deadline=None)
@given(scenarios(max_attackers=4, max_blockers=4), st.sampled_from(["attacking", "both"]))
def test_a_join_with_one_entry_on_general_scenarios(sc, side):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k, 510.1c
    plan = Combat(load_scenario(sc), side=side).plan
    for comp in plan.components:
        budget = elimination.Budget(elimination.NEVER, None)
        factors = elimination._Factors(elimination.Graph(plan, comp), comp, budget)
        with pytest.MonkeyPatch.context() as m:
            _one_entry_joins(m, factors, budget, False)


def _small_and_general(monkeypatch, g, X, Y, ring, budget, dense: bool | None = None):
    """X joined with Y by elimination._join_small (taken without the general join's key; ``dense``: its counts
    added into a dense array of every key, or sorted, or as its sizes say) and by the general join."""
    with monkeypatch.context() as m:
        m.setattr(elimination, "_join_key", _no_key)
        m.setattr(elimination, "ONE_MOST", -1)
        m.setattr(elimination, "SMALL_MOST", 1 << 30)
        m.setattr(elimination, "SMALL_PAIRS", 1 << 60)
        if dense is not None:
            m.setattr(elimination, "SMALL_DENSE", 1 << 30 if dense else -(1 << 40))
        fast = elimination._join(g, X, Y, ring, budget)
    with monkeypatch.context() as m:
        m.setattr(elimination, "ONE_MOST", -1)
        m.setattr(elimination, "SMALL_MOST", -1)
        general = elimination._join(g, X, Y, ring, budget)
    return fast, general


def _small_joins(monkeypatch, factors, budget, zeros: bool, dense: bool | None = None) -> tuple[int, int, int]:
    """Every join of a count made again by elimination._join_small, and with up to 40 entries of either side
    (``zeros``: every other count of the other side zero): the general join's table. Returns the joins compared,
    those where an entry died or two met, and those with a resource that leaves."""
    slots, ring, compared, merged, drops = list(factors.slots), factors.ring, 0, 0, 0
    for a, b in factors.joins:
        A, B = slots[a], slots[b]
        for X, Y in ((A, B), (B, A)):
            Xs = X.taken(np.arange(min(len(X), 40)))
            if zeros and len(Y) > 1:
                Y = Y.taken(np.arange(len(Y)))
                Y.w = Y.w.copy()
                Y.w[:, ::2] = 0
            for P, Q in ((X, Y), (Xs, Y), (Xs, Xs if X is Y else Y.taken(np.arange(min(len(Y), 3))))):
                fast, general = _small_and_general(monkeypatch, factors.g, P, Q, ring, budget, dense)
                assert _same_table(fast, general)
                compared += 1
                merged += len(fast) < len(P) * len(Q)
                drops += len(fast.scope) < len(set(P.scope) | set(Q.scope))
        slots[a], slots[b] = elimination._join(factors.g, A, B, ring, budget), None
    return compared, merged, drops


@pytest.mark.parametrize(
    "sc", [random_sharing(8, 10, 3, seed=2), random_sharing(7, 8, 4, seed=1), pw_cycle(6)], ids=["rs3", "rs4", "pw"]
)
@pytest.mark.parametrize("zeros", [False, True], ids=["counts", "zero counts"])
@pytest.mark.parametrize("dense", [True, False], ids=["dense", "sorted"])
def test_a_join_of_two_small_tables_is_the_general_join(monkeypatch, sc, zeros, dense):  # 702.19b, 702.19c
    # a later unrank joins small tables 20-30 times a draw (elimination._join_small): the same scope, states,
    # indices, order and counts as the general join, where entries die (DEAD sums), meet (capped totals), resources
    # leave (DROP) and counts are zero
    compared, merged, drops = _small_joins(monkeypatch, *_largest_factors(sc), zeros, dense)
    assert compared > 0 and merged > 0 and drops > 0


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "sorted"])
def test_a_join_of_two_small_tables_modulo_small_primes(monkeypatch, small_moduli, dense):  # 702.19b, 702.19c
    sc = random_sharing(7, 8, 4, seed=1)
    compared, merged, _ = _small_joins(monkeypatch, *_largest_factors(sc), True, dense)
    assert compared > 0 and merged > 0


@settings(max_examples=40, deadline=None)
@given(scenarios(max_attackers=4, max_blockers=4), st.sampled_from(["attacking", "both"]), st.booleans())
def test_a_join_of_two_small_tables_on_general_scenarios(sc, side, dense):  # 510.1a-d, 702.19b-e, 702.2c, 510.1c
    plan = Combat(load_scenario(sc), side=side).plan
    for comp in plan.components:
        budget = elimination.Budget(elimination.NEVER, None)
        factors = elimination._Factors(elimination.Graph(plan, comp), comp, budget)
        with pytest.MonkeyPatch.context() as m:
            _small_joins(m, factors, budget, False, dense)


@pytest.mark.parametrize("sc", [random_sharing(12, 14, 4, seed=0), pw_cycle(9)], ids=["rs4", "pw"])
def test_the_joins_of_unranks_by_small_tables_are_the_general_joins(monkeypatch, sc):  # 702.19b, 702.19c
    # every join (up to 2^16 pairs) a count and a few unranks by sources make (the column programme not tried),
    # redone by elimination._join_small and by the general join
    seen = []
    real = elimination._join

    def recording(g, A, B, ring, budget):
        if not ring.approx and len(A) * len(B) <= 1 << 16:
            seen.append((g, A, B, ring))
        return real(g, A, B, ring, budget)

    with monkeypatch.context() as m:
        m.setattr(elimination, "_join", recording)
        m.setattr(conditioned, "join", recording)
        m.setattr(direct, "COLUMN_TRIAL", 0)
        combat = Combat(load_scenario(sc))
        n = combat.count()
        for r in (0, n // 3, n // 2, n - 1):
            combat.unrank(r)
    assert len(seen) > 50
    budget = elimination.Budget(elimination.NEVER, None)
    for g, A, B, ring in seen:
        for dense in (True, False):
            fast, general = _small_and_general(monkeypatch, g, A, B, ring, budget, dense)
            assert _same_table(fast, general)


def _residues(t, rng, p):
    """A copy of table ``t`` with counts drawn modulo ``p`` alone (one row)."""
    u = t.taken(np.arange(len(t)))
    u.w = rng.integers(0, p, size=(1, len(t))).astype(np.int64)
    return u


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "sorted"])
def test_a_join_of_two_small_tables_drops_counts_that_add_to_zero(monkeypatch, dense):  # 702.19b, 702.19c
    # counts modulo 7 alone: entries that meet often add to a multiple of 7 (zero: dropped, as the general join)
    factors, budget = _largest_factors(random_sharing(7, 8, 4, seed=1))
    ring, rng, slots, dropped = elimination.Ring(0, moduli=(7,)), np.random.default_rng(1), list(factors.slots), 0
    for a, b in factors.joins:
        A, B = slots[a], slots[b]
        X, Y = _residues(A, rng, 7), _residues(B, rng, 7)
        fast, general = _small_and_general(monkeypatch, factors.g, X, Y, ring, budget, dense)
        assert _same_table(fast, general)
        with monkeypatch.context() as m:  # the same pairs' counts as integers: keys whose counts add to 7, 14 ...
            m.setattr(elimination, "SMALL_MOST", -1)
            m.setattr(elimination, "ONE_MOST", -1)
            whole = elimination._join(factors.g, X, Y, elimination.Ring(1), budget)
        dropped += len(whole) - len(general)
        slots[a], slots[b] = elimination._join(factors.g, A, B, factors.ring, budget), None
    assert dropped > 0
