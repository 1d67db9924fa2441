"""Listing past the column programme's frontier: blocks of rows from the source programme (trample.engines.ordered
``Lister``), depth first over the sources (issue 21, "Streaming").

The oracle is the brute force (tests/oracles/brute.py, written from the rules): its legal assignments, sorted by the
canonical key of docs/scale.md, must be exactly the rows the lister yields, in that order, from any starting index;
CP-SAT's listing must be the same set. The engine's choice ("auto" and "direct" list with the source programme past
the column programme's limits) is forced on small boards by setting those limits to 0.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from brute import brute_force
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_ordered import SHAPES, _canonical
from test_perf_paths import overlapping_boards

import trample.engines.direct as direct
from benchmarks.boards import dense_pairs, pw_cycle, random_sharing, unblocked_chain
from trample import Combat, step
from trample.engines import get_engine, ordered
from trample.engines.direct import ComponentDP, plan_blocks
from trample.engines.ordered import SourceProgramme, lex_compositions
from trample.limits import NEVER, Deadline, LimitReached
from trample.models import load_scenario

OPP = [{"id": "opp", "life": 20}]


def _rows(prog, rows: int, start: int = 0, limit: int | None = None) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for block in prog.blocks(rows, np.int64, start=start):
        assert 0 < len(block) <= rows
        out.extend(map(tuple, block.tolist()))
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out


def _expected_per_component(combat, legal: list[dict]) -> dict[tuple[int, ...], list[tuple[int, ...]]]:
    """Each component's distinct vectors from the brute force, in lexicographic (canonical) order."""
    plan = combat.plan
    names = plan.source_names
    out = {}
    for comp in plan.components:
        cols = plan.component_columns(comp)
        out[tuple(comp)] = sorted({tuple(a.get(names[i], {}).get(r, 0) for i, r in cols) for a in legal})
    return out


#: budgets of the completion tables (Lister._suffixes): none (the walk writes every level), a few rows' (tables
#: of the last sources only), the default (on these boards, mostly the whole component in one table); 1: the last
#: source's rows kept as they are met (Lister._last), in up to LAST_BYTES (a few bytes: emptied again and again)
TABLES = [0, 1, 400, 1500, 4096, ordered.SUFFIX_BYTES]
LAST = [8, 200, ordered.LAST_BYTES]
#: the mean run below which a level's table is made (1: only the last source's; past any board's rows: every level
#: that fits, the old choice) and the mean run from which a block is written run by run (1: always; past any board's
#: rows: never, the ragged gather)
RUNS = [1, 3, ordered.SUFFIX_RUN, 1 << 62]
FILLS = [1, 4, ordered.FILL_RUN, 1 << 62]
#: children from the live entries (0: always; past any board: never) and frames that count their new states and work
#: out their children as the slices reach them (0: every frame; past any board: none)
SHARES = [0, ordered.SPARSE_SHARE, 1 << 62]
EAGER = [0, 64, ordered.EAGER_CELLS, 1 << 62]
#: blocks of rows below a slice of prefixes above the last level (0: AHEAD_LEAST prefixes a slice; past any board:
#: PREFIX_BYTES of them, the old choice), and that least
AHEAD = [0, 1, ordered.AHEAD_BLOCKS, 1 << 62]
LEAST = [1, 3, ordered.AHEAD_LEAST]


def _lister_against_the_oracle(sc: dict, side: str = "attacking", seed: int = 0) -> int:
    combat = Combat(load_scenario(sc), side=side)
    plan = combat.plan
    expected = _expected_per_component(combat, brute_force(sc, side))  # 702.19b/c, 702.2c, 510.1a
    rng = random.Random(seed)
    listed = 0
    for comp in plan.components:
        if len(comp) < 2:
            continue
        prog = SourceProgramme(plan, comp)
        want = expected[tuple(comp)]
        assert prog.count() == len(want)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ordered, "SUFFIX_BYTES", rng.choice(TABLES))
            mp.setattr(ordered, "LAST_BYTES", rng.choice(LAST))
            mp.setattr(ordered, "SUFFIX_RUN", rng.choice(RUNS))
            mp.setattr(ordered, "FILL_RUN", rng.choice(FILLS))
            mp.setattr(ordered, "SPARSE_SHARE", rng.choice(SHARES))
            mp.setattr(ordered, "EAGER_CELLS", rng.choice(EAGER))
            mp.setattr(ordered, "AHEAD_BLOCKS", rng.choice(AHEAD))
            mp.setattr(ordered, "AHEAD_LEAST", rng.choice(LEAST))
            got = _rows(prog, rng.choice([1, 3, 7, 64, 1 << 16]))
            assert got == want  # the same rows, in the canonical order
            for start in {0, 1, len(want) // 2, len(want) - 1, rng.randrange(max(1, len(want)))}:
                if 0 <= start < len(want):
                    assert _rows(prog, rng.choice([1, 5, 1 << 16]), start=start) == want[start:]
        listed += len(want)
    return listed


def test_lex_compositions():  # 510.1a: every way to assign all the damage, smallest first
    a = lex_compositions(4, 3)
    rows = [tuple(r) for r in a.tolist()]
    assert rows == sorted(rows) and len(rows) == len(set(rows)) == 15
    assert all(sum(r) == 4 for r in rows)
    assert lex_compositions(3, 1).tolist() == [[3]]
    assert lex_compositions(0, 0).shape == (1, 0) and lex_compositions(2, 0).shape == (0, 0)


# the boards of test_ordered's oracle test (the rank/unrank programme the lister walks)


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_lister_lists_the_brute_force_in_the_canonical_order(name, sc):  # 702.19b, 702.19c, 510.1a
    assert _lister_against_the_oracle(sc) > 1


@settings(max_examples=150, deadline=None)
@given(
    scenarios(max_attackers=3, max_blockers=3),
    st.sampled_from(["attacking", "defending", "both"]),
    st.integers(0, 1000),
)
def test_generated_scenarios_against_the_oracle(sc, side, seed):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k
    combat = Combat(load_scenario(sc), side=side)
    assume(not combat.plan.has_options)  # the canonical order does not cover as-though-unblocked (refused)
    assume(combat.count() <= 3000)
    event(f"rows listed by the lister: {'some' if _lister_against_the_oracle(sc, side, seed) else 'none'}")


@settings(max_examples=80, deadline=None)
@given(overlapping_boards(max_attackers=4, max_blockers=4, max_power=4), st.integers(0, 1000))
def test_overlapping_boards_against_the_oracle(sc, seed):  # 702.19b, 702.19c, 702.2c
    combat = Combat(load_scenario(sc))
    assume(combat.count() <= 3000)
    event(f"rows listed by the lister: {'some' if _lister_against_the_oracle(sc, seed=seed) else 'none'}")


@st.composite
def chained_boards(draw):
    """2-4 attackers, each blocked by one of the previous attacker's blockers and maybe others (so gated blockers
    are shared: one component of several sources, mostly); trample, deathtouch, trample over planeswalkers on one
    planeswalker or two, plain attackers under legacy damage assignment order; marked damage."""
    n_b = draw(st.integers(2, 5))
    blockers = []
    for i in range(n_b):
        t = draw(st.integers(1, 3))
        blockers.append(
            {
                "id": f"b{i}",
                "power": draw(st.integers(0, 2)),
                "toughness": t,
                "damage_marked": draw(st.integers(0, t - 1)),
            }
        )
    names = [b["id"] for b in blockers]
    kws = [["trample"], ["trample"], ["trample", "deathtouch"], ["trample_over_planeswalkers"], [], ["deathtouch"]]
    attackers, prev = [], None
    for i in range(draw(st.integers(2, 4))):
        blocked = draw(st.lists(st.sampled_from(names), unique=True, min_size=1, max_size=3))
        if prev and not set(prev) & set(blocked):
            blocked.append(draw(st.sampled_from(prev)))
        prev = blocked
        attackers.append(
            {
                "id": f"a{i}",
                "power": draw(st.integers(1, 4)),
                "toughness": 3,
                "keywords": draw(st.sampled_from(kws)),
                "attacking": draw(st.sampled_from(["opp", "w", "v"])),
                "blocked_by": blocked,
            }
        )
    walkers = [{"id": w, "controller": "opp", "loyalty": draw(st.integers(0, 3))} for w in ("w", "v")]
    rules = draw(st.sampled_from(["current", "legacy"]))
    return {"rules": rules, "players": OPP, "planeswalkers": walkers, "attackers": attackers, "blockers": blockers}


@settings(max_examples=150, deadline=None)
@given(chained_boards(), st.sampled_from(["attacking", "defending", "both"]), st.integers(0, 1000))
def test_chained_boards_against_the_oracle(sc, side, seed):  # 702.19b, 702.19c, 702.2c, 510.1a-d
    combat = Combat(load_scenario(sc), side=side)
    assume(combat.count() <= 3000)
    event(f"rows listed by the lister: {'some' if _lister_against_the_oracle(sc, side, seed) else 'none'}")


# -- the engine's choice -------------------------------------------------------------------------------------------


@pytest.fixture
def narrow(monkeypatch):
    """The column programme's limits set to 0: every component of several sources is listed by the lister."""
    monkeypatch.setattr(direct, "STATE_LIMIT", 0)
    monkeypatch.setattr(direct, "WORK_LIMIT", 0)
    monkeypatch.setattr(direct, "CELL_LIMIT", 0)


def _uses_the_lister(combat) -> bool:
    return any(
        isinstance(direct.component_lister(combat.plan, c), SourceProgramme)
        for c in combat.plan.components
        if len(c) > 1
    )


@settings(max_examples=60, deadline=None)
@given(st.one_of(overlapping_boards(max_attackers=4, max_blockers=4, max_power=4), chained_boards()))
def test_auto_lists_with_the_lister_past_the_frontier(sc):  # 702.19b, 702.19c, 702.2c
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(direct, "STATE_LIMIT", 0)
        mp.setattr(direct, "WORK_LIMIT", 0)
        mp.setattr(direct, "CELL_LIMIT", 0)
        combat = Combat(load_scenario(sc))
        assume(0 < combat.count() <= 1500)
        comps = combat.plan.components
        # the direct engine (its lister) takes every component of several sources; a lone source's column
        # programme is held to the (zero) limits, unless the plan is free (step.free_rows: listed from its rows)
        assert combat.canonical() == (all(len(c) > 1 for c in comps) or step._is_free(combat.plan))
        rows = [tuple(r) for b in combat.assignment_blocks(rows=5) for r in b.tolist()]
        cols = [c for comp in comps for c in combat.plan.component_columns(comp)]
        where = {c: k for k, c in enumerate(combat.plan.columns)}
        keys = [tuple(r[where[c]] for c in cols) for r in rows]  # canonical keys: components in plan order
        want = _canonical(combat, brute_force(sc))
        assert (keys if combat.canonical() else sorted(keys)) == want
        reference = set(Combat(load_scenario(sc), engine="cpsat").assignments())
        assert set(combat.assignments()) == reference and len(reference) == len(want)


@pytest.mark.parametrize(
    "tables,last", [(0, 0), (1, 1 << 12), (1, ordered.LAST_BYTES), (1 << 14, 0), (1 << 16, 0), (TABLES[-1], 0)]
)
def test_wide_boards_are_listed_by_the_lister_in_the_column_programme_order(monkeypatch, tables, last):
    # the same order, another method; with completion tables of the last sources or without (the level they
    # start), or the last source's rows kept as they are met (emptied again and again in 4 kB)
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", tables)
    monkeypatch.setattr(ordered, "LAST_BYTES", last or ordered.LAST_BYTES)
    levels = set()
    for sc in (pw_cycle(6), random_sharing(6, 8, per=3, seed=1), dense_pairs(4)):
        plan = Combat(load_scenario(sc)).plan
        (comp,) = [c for c in plan.components if len(c) > 1]
        new, old = SourceProgramme(plan, comp), ComponentDP(plan, comp)
        levels.add(new.lister(np.int8)._suffixes(NEVER)[0] / len(comp))
        assert new.count() == old.count()
        n = 200_000
        a = np.concatenate(list(_first(new.blocks(65536, np.int8), n)))[:n]
        b = np.concatenate(list(_first(old.blocks(65536, np.int8), n)))[:n]
        assert a.dtype == np.int8 and np.array_equal(a, b)
        rng = random.Random(3)
        for start in (rng.randrange(new.count()) for _ in range(5)):
            got = next(new.blocks(100, np.int64, start=start))
            assert [tuple(r) for r in got.tolist()[:3]] == [old.unrank(start + k) for k in range(3)]
    assert (levels == {1.0}) == (tables == 0)  # no table, or some (at 1 << 16, of the last sources only)
    assert tables != 1 << 16 or all(0 < x < 1 for x in levels)
    assert tables != 1 or all(x == (n - 1) / n for x, n in zip(sorted(levels), (4, 6)))  # the last source's rows


def _first(blocks, n):
    k = 0
    for b in blocks:
        yield b
        k += len(b)
        if k >= n:
            return


def test_plan_blocks_shards_and_products_through_the_lister(narrow):  # a wide component beside a lone one
    sc = random_sharing(3, 4, per=2, seed=1, power=(2, 4))
    sc["attackers"].append(
        {"id": "z", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["zb"]}
    )
    sc["blockers"].append({"id": "zb", "power": 1, "toughness": 2})
    combat = Combat(load_scenario(sc))
    plan = combat.plan
    assert len(plan.components) == 2 and _uses_the_lister(combat)
    whole = np.concatenate(list(plan_blocks(plan, rows=7)))
    n = combat.count()
    assert len(whole) == n
    assert [combat.unrank(i) for i in range(n)] == list(combat.assignments())
    for a, b in ((0, n), (5, 17), (n // 3, n)):
        part = np.concatenate(list(plan_blocks(plan, rows=4, start=a, stop=b)))
        assert np.array_equal(part, whole[a:b])


@pytest.mark.parametrize("n,power", [(2, 3), (3, 3)])
def test_unblocked_chains_through_the_lister(narrow, n, power):  # 510.1c: either way, each assignment once
    sc = unblocked_chain(n, power=power)
    combat = Combat(load_scenario(sc))
    names = combat.plan.source_names
    listed = [tuple(tuple(sorted(a[s].items())) for s in names) for a in combat.assignments()]
    expected = [tuple(tuple(sorted((r, x) for r, x in b[s].items() if x)) for s in names) for b in brute_force(sc)]
    assert len(listed) == len(set(listed)) == combat.count()
    assert sorted(listed) == sorted(expected)


def test_the_walk_reads_the_clock():  # a passed deadline stops the listing between two steps of the walk
    plan = Combat(load_scenario(pw_cycle(6))).plan
    (comp,) = plan.components
    prog = SourceProgramme(plan, comp)
    it = prog.blocks(1000, np.int8, deadline=Deadline(0.0))
    with pytest.raises(LimitReached):
        next(it)


def test_too_many_splits_fall_back(monkeypatch):  # the lister refuses; listing stays exact (CP-SAT or columns)
    monkeypatch.setattr(ordered, "SPLIT_LIMIT", 2)  # (read by direct.source_lister where it is defined)
    monkeypatch.setattr(direct, "STATE_LIMIT", 0)
    combat = Combat(load_scenario(random_sharing(3, 4, per=2, seed=1, power=(2, 4))))
    (comp,) = [c for c in combat.plan.components if len(c) > 1]
    assert not get_engine("direct").supports(combat.plan, comp)
    assert not combat.canonical()
    assert len(set(combat.assignments())) == combat.count()


# -- finding codes among a cut's states: a table over their range, or hashing ---------------------------------------


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("span", [1, 50, 1 << 12, 1 << 40])
def test_code_index_finds_what_a_sorted_search_finds(monkeypatch, dense, span):
    if not dense:
        monkeypatch.setattr(ordered, "DENSE_INDEX", 0)
        monkeypatch.setattr(ordered, "DENSE_FACTOR", 0)
        monkeypatch.setattr(ordered, "INSERT_STEP", 5)  # built in steps, the clock read between them
    rng = np.random.default_rng(span)
    codes = np.unique(rng.integers(0, span, size=min(span, 300)))
    reads = []
    index = ordered._CodeIndex(codes, lambda: reads.append(1))
    assert dense or index.table is None
    asked = np.concatenate([codes, rng.integers(-5, span + 5, size=400), [-(1 << 61), codes[-1] + 1]])
    asked = asked[: len(asked) // 2 * 2].reshape(2, -1)
    at = np.searchsorted(codes, asked).clip(0, len(codes) - 1)
    want = np.where((asked >= 0) & (codes[at] == asked), at, -1)
    got = index.find(asked)
    assert got.shape == asked.shape and np.array_equal(got, want)
    assert dense or len(reads) >= len(codes) // 5
    assert np.array_equal(ordered._CodeIndex(codes[:0]).find(asked), np.full(asked.shape, -1))


def test_code_set_keeps_each_code_once_as_it_grows(monkeypatch):
    monkeypatch.setattr(ordered, "INSERT_STEP", 64)
    rng = np.random.default_rng(1)
    seen = ordered._CodeSet()
    added = []
    for size in (10, 70_000, 3, 200_000, 0, 5000):  # slices larger than the table: it grows first
        part = rng.integers(0, 1 << 45, size=size) % (1 << rng.integers(4, 45))
        part = np.concatenate([part, part[: size // 3]])  # repeats, within a slice and across slices
        seen.add(part)
        added.append(part)
        assert 2 * seen.size() <= len(seen.keys)
    assert np.array_equal(seen.sorted(), np.unique(np.concatenate(added)))


def _hashed(mp) -> None:
    """Every cut's states found by hashing, its codes put into tables a few at a time, one resource per matrix of
    a join (SourceProgramme._prepare)."""
    mp.setattr(ordered, "DENSE_SPAN", 0)
    mp.setattr(ordered, "DENSE_INDEX", 0)
    mp.setattr(ordered, "DENSE_FACTOR", 0)
    mp.setattr(ordered, "INSERT_STEP", 3)
    mp.setattr(ordered, "GROUP_CELLS", 1)


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_hashed_cuts_list_the_brute_force(name, sc):  # 702.19b, 702.19c, 510.1a
    with pytest.MonkeyPatch.context() as mp:
        _hashed(mp)
        _lister_against_the_oracle(sc, seed=len(name))


@settings(max_examples=40, deadline=None)
@given(overlapping_boards(max_attackers=4, max_blockers=4, max_power=4), st.integers(0, 3))
def test_hashed_cuts_against_the_oracle(sc, seed):  # 702.19b, 702.19c, 702.2c
    with pytest.MonkeyPatch.context() as mp:
        _hashed(mp)
        event("listed" if _lister_against_the_oracle(sc, seed=seed) else "nothing of several sources")


@pytest.mark.parametrize("hashed", [False, True])
def test_hashed_and_dense_programmes_rank_alike(hashed):  # the same counts, ranks and unranks either way
    plan = Combat(load_scenario(random_sharing(6, 8, per=3, seed=2))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    old = ComponentDP(plan, comp)
    with pytest.MonkeyPatch.context() as mp:
        if hashed:
            _hashed(mp)
        prog = SourceProgramme(plan, comp)
        assert prog.count() == old.count()
        for i in random.Random(5).sample(range(prog.count()), 20):
            v = prog.unrank(i)
            assert v == old.unrank(i) and prog.rank(v) == i


# -- the clock during construction ---------------------------------------------------------------------------------


def _fake_clock(monkeypatch, jump_at: int | None) -> list[int]:
    """trample.limits.monotonic replaced: 0 for the first ``jump_at`` readings, then far past any limit; the
    readings are counted."""
    from trample import limits

    reads: list[int] = []

    def clock() -> float:
        reads.append(1)
        return 0.0 if jump_at is None or len(reads) <= jump_at else 1e9

    monkeypatch.setattr(limits, "monotonic", clock)
    return reads


@pytest.mark.parametrize("hashed", [False, True])
def test_construction_reads_the_clock_all_along(monkeypatch, hashed):
    # the source programme (and the first block of its listing) of a board whose construction takes a while:
    # the clock is read at least once per PAIRS pairs of cut states x table entries, and the first reading past
    # the deadline stops the construction there (no further reading, LimitReached)
    if hashed:
        _hashed(monkeypatch)
    plan = Combat(load_scenario(random_sharing(9, 11, 3, seed=1))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    reads = _fake_clock(monkeypatch, None)
    deadline = Deadline(1.0, start=0.0)
    prog = SourceProgramme(plan, comp, deadline)
    next(prog.blocks(1 << 16, deadline=deadline))
    total = len(reads)
    pairs = sum(len(prog.codes[j]) * len(prog.tkeys[j]) for j in range(len(comp)))
    assert total >= 2 * pairs // ordered.PAIRS  # forwards and backwards
    for jump in sorted({1, 2, total // 3, total // 2, total - 1}):
        reads = _fake_clock(monkeypatch, jump)
        deadline = Deadline(1.0, start=0.0)
        with pytest.raises(LimitReached):
            next(SourceProgramme(plan, comp, deadline).blocks(1 << 16, deadline=deadline))
        assert len(reads) == jump + 1  # stopped at the first reading past the limit


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_a_component_of_few_splits_is_listed_by_the_column_programme(sc):  # 510.1a, 702.19b/c: the same rows
    """A shared component whose splits are surely few (direct.FEW_SPLITS) is listed by the column programme, which
    builds in a fraction of the source programme's time there; both list the same rows in the same order."""
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        if len(comp) < 2 or plan.options_in(comp):
            continue
        if not direct.few_splits(plan, comp):
            continue
        event("a shared component of few splits")
        lister = direct.component_lister(plan, comp)
        assert isinstance(lister, ComponentDP)
        assert _rows(lister, 64) == _rows(SourceProgramme(plan, comp), 64)


# -- a rooted programme's lister: its tables and its children --------------------------------------------------------


def _first_rooted(seed: int, fixed: int) -> tuple[SourceProgramme, SourceProgramme, tuple[tuple[int, ...], ...]]:
    """random_sharing(6, 8, 3)'s component: its source programme and the one rooted at the splits of its first row's
    first ``fixed`` sources (their rows are the component's first ones)."""
    plan = Combat(load_scenario(random_sharing(6, 8, per=3, seed=seed))).plan
    (comp,) = [c for c in plan.components if len(c) > 2]
    whole = SourceProgramme(plan, comp)
    first = next(whole.blocks(rows=1, dtype=np.int64))[0].tolist()
    at = [0]
    for i in comp:
        at.append(at[-1] + len(plan.sources[i].routes))
    prefix = tuple(tuple(first[at[k] : at[k + 1]]) for k in range(fixed))
    return whole, SourceProgramme(plan, comp, prefix=prefix), prefix


@pytest.mark.parametrize("seed,fixed", [(3, 2), (1, 3), (4, 3)])
def test_a_rooted_listers_tables_start_at_its_first_free_source(monkeypatch, seed, fixed):  # 510.1a: the same rows
    # a fixed source's level has one state and one child: a table there would be the rows below it again, one split
    # wider (random_sharing(12, 14, 4) seed 0: 52 ms to its first block for six such copies); the rooted lister's
    # rows are the component's first ones, from any start
    whole, rooted, prefix = _first_rooted(seed, fixed)
    monkeypatch.setattr(ordered, "SUFFIX_RUN", 1 << 62)  # (a level of long runs gets no table: see below)
    lister = rooted.lister(np.int64)
    assert lister._suffixes(NEVER)[0] == len(prefix)  # (the tables fit: they went down to level 0 before)
    n = rooted.count()
    want = np.concatenate(list(itertools.islice(whole.blocks(rows=1 << 16, dtype=np.int64), -(-n // (1 << 16)))))
    assert np.array_equal(np.concatenate(list(rooted.blocks(rows=1000, dtype=np.int64))), want[:n])
    for start in (1, n // 3, n - 1):
        assert np.array_equal(
            next(rooted.blocks(rows=50, dtype=np.int64, start=start)), want[start : min(n, start + 50)]
        )


@pytest.mark.parametrize("seed", [0, 2])
def test_the_kept_children_are_worked_out_as_the_walk_meets_their_states(monkeypatch, seed):  # 510.1a
    # where every reached state's children fit (Lister.keep), they are worked out for the states the frames meet,
    # once each: the first block needs a few states per level, not all; the rows are those of the walk that works
    # them out a slice at a time (CSR_CELLS 0)
    whole, rooted, _ = _first_rooted(seed, 1)
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", 0)  # every level walked
    lister = rooted.lister(np.int8)
    assert lister.keep
    first = next(lister.blocks(64, NEVER))
    met = {j: int(np.count_nonzero(kept.start >= 0)) for j, kept in lister._csr.items()}
    reached = {j: len(rooted.codes[j]) for j in met}
    assert sum(met.values()) < sum(reached.values()) // 4, (met, reached)
    rows = np.concatenate([first, *itertools.islice(lister.blocks(5000, NEVER, 64), 20)])
    monkeypatch.setattr(ordered, "CSR_CELLS", 0)
    slices = SourceProgramme(rooted.plan, rooted.component, prefix=rooted.prefix).lister(np.int8)
    assert not slices.keep
    assert np.array_equal(rows, np.concatenate(list(itertools.islice(slices.blocks(5000, NEVER), 21)))[: len(rows)])


@pytest.mark.parametrize("group_cells", [1, 1 << 12, ordered.GROUP_CELLS])
def test_a_joins_matrices_are_each_rows_sums(monkeypatch, group_cells):  # 702.19b, 702.19c: the settled sums
    # SourceProgramme._prepare gathers each resource's sums (one row per state of it) into the rows of its group's
    # matrix: each row's sums worked out on their own (sum_table of its states, the old way) give the same matrix
    from trample.engines.elimination import DEAD, DROP, sum_table

    monkeypatch.setattr(ordered, "GROUP_CELLS", group_cells)
    plan = Combat(load_scenario(random_sharing(6, 8, per=3, seed=2))).plan
    (comp,) = [c for c in plan.components if len(c) > 2]
    prog = SourceProgramme(plan, comp)
    g, dead = prog.g, -(1 << 61)
    for j in range(len(comp)):
        passing, matrices, got_dead = prog._prepare(j)
        assert got_dead == dead and len(matrices) >= 1
        cut, scope, nxt, tk = prog.cut[j], prog.scope[j], prog.cut[j + 1], prog.tkeys[j]
        mult = {x: math.prod(2 * g.need[y] + 2 for y in nxt[k + 1 :]) for k, x in enumerate(nxt)}
        for k, (group, stride, mat) in enumerate(matrices):
            want = np.zeros_like(mat)
            rows = np.arange(len(mat))
            xs = [(cut[c], rows // s % (2 * g.need[cut[c]] + 2) - 2) for c, s in zip(group, stride)]
            xs += [(x, None) for x in scope if x not in cut] if k == 0 else []
            for x, ua in xs:
                ub = np.arange(-2, 2 * g.need[x], dtype=np.int64)
                t = sum_table(g, x, prog.members[j + 1], ua if ua is not None else np.zeros(1, dtype=np.int64), ub)
                t = np.where(t == DEAD, dead, np.where(t == DROP, 0, (t + 2) * mult.get(x, 0)))
                want += t[:, tk[:, scope.index(x)] + 2] if ua is not None else t[0][tk[:, scope.index(x)] + 2][None, :]
                np.maximum(want, dead, out=want)
            assert np.array_equal(mat, want)


@pytest.mark.parametrize("tables", TABLES)
@pytest.mark.parametrize("first", [1, 7, 50, 64])
def test_the_first_block_can_be_cut_short(monkeypatch, tables, first):  # 510.1a: the same rows, in the same order
    # Lister.blocks' ``first``: its first block that many rows (the room left in a caller's block), then ``rows``
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", tables)
    plan = Combat(load_scenario(random_sharing(5, 7, per=3, seed=1, power=(2, 4)))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog = SourceProgramme(plan, comp)
    for start in (0, 5):
        want = np.concatenate(list(prog.blocks(64, np.int8, start=start)))
        got = list(prog.blocks(64, np.int8, start=start, first=first))
        n = len(want)
        sizes = [min(first, n)] + [min(64, n - first - k) for k in range(0, max(0, n - first), 64)]
        assert [len(b) for b in got] == sizes and np.array_equal(np.concatenate(got), want)


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("fill", FILLS)
def test_the_tables_level_and_the_block_writes_keep_the_rows(monkeypatch, run, fill):  # 510.1a: the same bytes
    # a level's table is not made where its children's runs of rows are long (SUFFIX_RUN): the blocks copy the
    # level below's in runs that long; a block is written run by run (two slice copies a prefix) where the runs are
    # long (FILL_RUN), else by a ragged gather. Every choice lists the column programme's bytes, from any start,
    # rooted or not
    monkeypatch.setattr(ordered, "SUFFIX_RUN", run)
    monkeypatch.setattr(ordered, "FILL_RUN", fill)
    levels = set()
    for sc in (pw_cycle(6), random_sharing(6, 8, per=3, seed=1), dense_pairs(4)):
        plan = Combat(load_scenario(sc)).plan
        (comp,) = [c for c in plan.components if len(c) > 1]
        new, old = SourceProgramme(plan, comp), ComponentDP(plan, comp)
        levels.add(new.lister(np.int8)._suffixes(NEVER)[0] - len(comp))
        n = min(new.count(), 150_000)
        want = np.concatenate(list(_first(old.blocks(65536, np.int8), n)))[:n]
        for rows in (1000, 65536):
            got = np.concatenate(list(_first(new.blocks(rows, np.int8), n)))[:n]
            assert np.array_equal(got, want)
        for start in (1, n // 3, n - 7):
            part = want[start : start + 5000]
            assert np.array_equal(next(new.blocks(5000, np.int8, start=start))[: len(part)], part)
    for seed, fixed in ((3, 2), (1, 3)):
        whole, rooted, _ = _first_rooted(seed, fixed)
        n = rooted.count()
        want = np.concatenate(list(_first(whole.blocks(4096, np.int8), n)))[:n]
        assert np.array_equal(np.concatenate(list(rooted.blocks(777, np.int8))), want)
    assert (run == 1) <= (levels == {-1})  # (the last source's table alone)


def test_a_level_whose_children_have_long_runs_gets_no_table(monkeypatch):  # 510.1a: the same rows
    # random_sharing(6, 8, 3) seed 1's rooted programme at its first two splits: its first free level's children
    # have long runs of rows each, so its table (every row of the programme again, 299 616) and the next one's are
    # not made: the tables start two levels lower (31 033 rows), and the rows are the same
    whole, rooted, prefix = _first_rooted(1, 2)
    monkeypatch.setattr(ordered, "SUFFIX_RUN", 1 << 62)  # (the old choice: every level that fits)
    every = rooted.lister(np.int8)._suffixes(NEVER)
    monkeypatch.setattr(ordered, "SUFFIX_RUN", 256)
    again = SourceProgramme(rooted.plan, rooted.component, prefix=prefix)
    fewer = again.lister(np.int8)._suffixes(NEVER)
    assert every[0] == len(prefix) == 2 and fewer[0] == 4 and 8 * len(fewer[1]) < len(every[1])
    assert again.count() == rooted.count() == len(every[1])
    for rows in (1000, 1 << 16):
        assert np.array_equal(
            np.concatenate(list(again.blocks(rows, np.int8))), np.concatenate(list(rooted.blocks(rows, np.int8)))
        )


def test_the_splits_are_listed_once_per_component(monkeypatch):  # 510.1a: the same rows
    # every rooted programme of a component lists the same splits of its free sources (the prefix lister builds
    # many): worked out once (SourceProgramme._split_of, with the tables), each rooted lister taking its fixed
    # sources' one split from them
    _, _, prefix = _first_rooted(4, 3)
    plan = Combat(load_scenario(random_sharing(6, 8, per=3, seed=4))).plan  # (its own cache: nothing listed yet)
    (comp,) = [c for c in plan.components if len(c) > 2]
    made: list[int] = []
    legal = ordered.Lister._legal
    monkeypatch.setattr(ordered.Lister, "_legal", lambda self, j: made.append(j) or legal(self, j))
    a, b = SourceProgramme(plan, comp, prefix=prefix), SourceProgramme(plan, comp, prefix=prefix[:1])
    la, lb = a.lister(np.int8), b.lister(np.int8)
    assert sorted(made) == list(range(len(comp)))  # once each, for both
    assert [len(x) for x in la.splits[: len(prefix)]] == [1] * len(prefix)
    assert [x.tolist() for x in la.splits[: len(prefix)]] == [[list(s)] for s in prefix]
    assert [x.tolist() for x in la.splits[len(prefix) :]] == [x.tolist() for x in lb.splits[len(prefix) :]]
    n = 50_000  # (the component's first rows: those of both rooted programmes' first)
    want = np.concatenate(list(_first(SourceProgramme(plan, comp).blocks(4096, np.int8), n)))[:n]
    assert sorted(made) == list(range(len(comp)))  # (the whole programme's lister too)
    assert np.array_equal(np.concatenate(list(a.blocks(500, np.int8))), want[: a.count()])
    assert np.array_equal(np.concatenate(list(_first(b.blocks(500, np.int8), n)))[:n], want)
