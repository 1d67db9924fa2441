"""Rank and unrank with the count's joins, the prefix held fixed (engines/conditioned.py), against the oracles.

The brute force (tests/oracles/brute.py, written from the rules) lists the legal assignments; sorted by the canonical
key they must be ``unrank(0), unrank(1), ...`` and rank must give each its index back. On boards too large for it, the
source programme's listing (``SourceProgramme.blocks``, another method: every reachable cut state) and the column
programme give the order, and each of their rows must come back from ``rank`` and out of ``unrank``.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from brute import brute_force, is_legal
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_ordered import SHAPES, _canonical, _splits
from test_ordered import _against_the_oracle as _source_oracle
from test_perf_paths import overlapping_boards

from benchmarks.boards import pw_cycle, random_sharing
from trample import Combat, indexing
from trample.engines import PROGRAMME, conditioned, direct, elimination, get_engine, ordered
from trample.engines.conditioned import ConditionedProgramme
from trample.engines.direct import ComponentDP
from trample.engines.elimination import OverBudget, count_component
from trample.engines.ordered import SourceProgramme
from trample.limits import Deadline, LimitReached
from trample.models import load_scenario


@pytest.fixture(autouse=True)
def _conditioned(monkeypatch):
    # no column programme trial: the programme handed out is the one under test
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 0)
    monkeypatch.setattr(direct, "CONDITIONED", True)
    # nor the closed form of a few shared gated blockers (tests/engines/test_shared.py holds it to the oracle)
    monkeypatch.setattr(direct, "SHARED", False)


def _against_the_oracle(sc: dict, side: str = "attacking") -> int:
    return _source_oracle(sc, side, ConditionedProgramme)


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_unrank_lists_the_brute_force_in_the_canonical_order(name, sc):  # 702.19b, 702.19c, 510.1a
    assert _against_the_oracle(sc) > 1


@settings(max_examples=100, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3), st.sampled_from(["attacking", "defending", "both"]))
def test_generated_scenarios_against_the_oracle(sc, side):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k
    combat = Combat(load_scenario(sc), side=side)
    assume(not combat.plan.has_options)  # the canonical order does not cover as-though-unblocked (refused)
    assume(combat.count() <= 3000)
    _against_the_oracle(sc, side)


@settings(max_examples=60, deadline=None)
@given(overlapping_boards(max_attackers=4, max_blockers=4, max_power=4))
def test_overlapping_boards_against_the_oracle(sc):  # 702.19b, 702.19c, 702.2c
    combat = Combat(load_scenario(sc))
    assume(combat.count() <= 3000)
    _against_the_oracle(sc)


@pytest.mark.parametrize("name,sc", SHAPES[:5], ids=[n for n, _ in SHAPES[:5]])
def test_only_legal_vectors_have_a_rank(name, sc):  # 702.19b, 702.19c: an illegal split has no index
    plan = Combat(load_scenario(sc)).plan
    names = plan.source_names
    brute = brute_force(sc)
    for comp in plan.components:
        if len(comp) < 2:
            continue
        cols = plan.component_columns(comp)
        legal = {tuple(a.get(names[i], {}).get(r, 0) for i, r in cols) for a in brute}
        prog = ConditionedProgramme(plan, comp)
        per_source = [list(_splits(plan.sources[i].damage, len(plan.sources[i].routes))) for i in comp]
        seen = 0
        for combo in itertools.product(*per_source):
            vec = tuple(v for split in combo for v in split)
            r = prog.rank(vec)
            assert (r is not None) == (vec in legal)
            seen += r is not None
        assert seen == len(legal)
        assert prog.rank((0,) * (len(cols) - 1)) is None and prog.rank((-1,) * len(cols)) is None


def _boards(seed: int, n: int, m: int, per: int) -> dict:
    return random_sharing(n, m, per=per, seed=seed, power=(2, 6))


def _shared_components(seed: int, n: int, per: int):
    """(plan, component, its conditioned programme, its source programme) for each component of several sources
    of a generated board (n attackers on n + 2 blockers, ``per`` each)."""
    plan = Combat(load_scenario(_boards(seed, n, n + 2, per))).plan
    for comp in plan.components:
        if len(comp) >= 2:
            yield plan, comp, ConditionedProgramme(plan, comp), SourceProgramme(plan, comp)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**6), st.integers(4, 8), st.integers(2, 3))
def test_rank_and_unrank_follow_the_listing_order(seed, n, per):  # the source programme's listing, another method
    rng = random.Random(seed)
    for plan, comp, prog, other in _shared_components(seed, n, per):
        assert prog.count() == other.count() == count_component(plan, comp)
        for start in (0, rng.randrange(prog.count())):
            block = next(other.blocks(rows=6, start=start))
            for k, row in enumerate(block.tolist()):
                assert prog.unrank(start + k) == tuple(row)
                assert prog.rank(row) == start + k


MEDIUM = [("cycle through planeswalkers, 6", pw_cycle(6))] + [
    (f"random sharing 7 on 9 (seed {s})", random_sharing(7, 9, per=3, seed=s)) for s in range(3)
]


@pytest.mark.parametrize("name,sc", MEDIUM, ids=[n for n, _ in MEDIUM])
def test_against_the_column_programme(name, sc):  # the same documented order, by another method
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        if len(comp) < 2:
            continue
        new, old = ConditionedProgramme(plan, comp), ComponentDP(plan, comp)
        assert new.count() == old.count()
        rng = random.Random(7)
        for i in [0, 1, new.count() - 1, *(rng.randrange(new.count()) for _ in range(12))]:
            v = new.unrank(i)
            assert v == old.unrank(i)
            assert new.rank(v) == i == old.rank(v)


def test_counts_past_float64_are_exact():  # residues modulo primes, rebuilt by the Chinese remainder theorem
    sc = random_sharing(9, 11, 3, seed=2)
    plan = Combat(load_scenario(sc)).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog, other = ConditionedProgramme(plan, comp), SourceProgramme(plan, comp)
    assert prog.ring.moduli and prog.count() == other.count() == count_component(plan, comp) > 2**50
    for i in (0, prog.count() - 1, prog.count() // 3, 2**49 + 12345):
        v = prog.unrank(i)
        assert v == other.unrank(i) and prog.rank(v) == i


def test_past_its_work_bound_the_source_programme_answers(monkeypatch):
    sc = random_sharing(8, 10, per=3, seed=1)  # (the bound is read every CHECK_EVERY operations)
    plan = Combat(load_scenario(sc)).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    picks = [0, 17, 4242]
    expected = [SourceProgramme(plan, comp).unrank(i) for i in picks]
    monkeypatch.setattr(conditioned, "STEP_WORK", 1)
    with pytest.raises(OverBudget):  # the first source's completions: refused at once
        ConditionedProgramme(plan, comp)
    assert isinstance(direct._walked(plan, tuple(comp), None, 1), SourceProgramme)
    monkeypatch.setattr(conditioned, "STEP_WORK", 2 * 10**7)
    prog = ConditionedProgramme(plan, comp)
    monkeypatch.setattr(conditioned, "STEP_WORK", 1)  # a later source's: the source programme from then on
    monkeypatch.setattr(elimination, "CHECK_EVERY", 1)  # (the joins of one prefix are small: read at every one)
    monkeypatch.setattr(conditioned, "REJOIN_WORK", 0)  # the join tree's tables, under STEP_WORK
    assert [prog.unrank(i) for i in picks] == expected
    assert prog.fallback is not None and [prog.rank(v) for v in expected] == picks


def test_the_shift_goes_on_to_the_source_then_the_column_programme(monkeypatch):
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 1e-9)
    plan = Combat(load_scenario(pw_cycle(6))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    engine = get_engine("direct", needs=[PROGRAMME])
    prog = engine.programme(plan, comp)  # type: ignore[attr-defined]
    assert isinstance(prog, direct.ShiftingProgramme) and isinstance(prog.source, ConditionedProgramme)
    picks = [0, prog.count() - 1, 99991, 5 * 10**6]
    prog.trial = math.inf  # no trial while the picks are unranked, however slow a loaded machine makes them
    before = [prog.unrank(i) for i in picks]
    assert isinstance(prog.source, ConditionedProgramme)
    prog.spent, prog.trial = 120.0, 120.0
    prog.unrank(0)
    assert isinstance(prog.source, SourceProgramme) and prog.column is None
    prog.trial = math.inf
    middle = [prog.unrank(i) for i in picks]
    assert prog.column is None
    prog.spent, prog.trial = 120.0, 120.0
    prog.unrank(0)
    assert prog.column is not None
    assert before == middle == [prog.unrank(i) for i in picks] == [ComponentDP(plan, comp).unrank(i) for i in picks]


def _shifting_cycle(monkeypatch):
    """pw_cycle(6)'s shifting programme, on the conditioned programme (the column trial past its time at once)."""
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 1e-9)
    plan = Combat(load_scenario(pw_cycle(6))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog = get_engine("direct", needs=[PROGRAMME]).programme(plan, comp)  # type: ignore[attr-defined]
    assert isinstance(prog, direct.ShiftingProgramme) and isinstance(prog.source, ConditionedProgramme)
    return plan, comp, prog


def test_the_shift_tries_the_next_programme_before_the_next_unrank_not_after_the_one_that_paid(monkeypatch):
    # a caller who makes one unrank does not wait for a trial it cannot use; the next call uses what it built
    plan, comp, prog = _shifting_cycle(monkeypatch)
    prog.trial = 1e-12  # due after any unrank but the first (its one-off costs are not counted)
    first = prog.unrank(7)
    assert prog.unrank(7) == first
    assert isinstance(prog.source, ConditionedProgramme) and prog.trial == 1e-12 and prog.spent > 0  # not tried yet
    prog.spent, prog.trial = 120.0, 120.0  # generous: a loaded machine still builds within it
    assert prog.unrank(7) == first == ComponentDP(plan, comp).unrank(7)
    assert isinstance(prog.source, SourceProgramme) and prog.spent > 0  # tried before this unrank, which then used it


def test_the_first_unrank_does_not_make_a_trial_due(monkeypatch):
    # the first call pays once for what later calls reuse: a rank right after it makes no trial (it took 0.05-0.1 s
    # on random_sharing(12, 14, 4), for a source programme that never builds there, where the rank takes 0.3 ms)
    plan, comp, prog = _shifting_cycle(monkeypatch)
    prog.trial = 1e-12  # due after any call that is counted
    vector = prog.unrank(99991)
    assert prog.spent == 0.0
    assert prog.rank(vector) == 99991
    assert isinstance(prog.source, ConditionedProgramme) and prog.trial == 1e-12  # no trial made
    assert prog.spent > 0  # the rank is counted: the next call makes the trial
    prog.unrank(0)
    assert prog.trial > 1e-12 or isinstance(prog.source, SourceProgramme)


def test_a_passed_time_limit_stops_it():  # the clock is read within the joins
    plan = Combat(load_scenario(random_sharing(9, 11, 3, seed=1))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    with pytest.raises(LimitReached):
        ConditionedProgramme(plan, comp, Deadline(1e-9))
    prog = ConditionedProgramme(plan, comp)
    prog.deadline = Deadline(1e-9)
    with pytest.raises(LimitReached):
        prog.unrank(prog.count() // 2)


@pytest.mark.slow
def test_a_wide_random_board_is_ranked_without_the_source_programme():  # 702.19b: issue 21's board
    # the source programme's cuts take over 25 s here; the join tree's tables a second or two per unrank
    combat = Combat(load_scenario(random_sharing(12, 14, per=4, seed=2)))
    plan = combat.plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog = ConditionedProgramme(plan, comp)
    assert prog.count() == count_component(plan, comp)
    rng = random.Random(3)
    for i in [0, prog.count() - 2, rng.randrange(prog.count() - 1)]:
        v, w = prog.unrank(i), prog.unrank(i + 1)
        assert v < w  # the canonical (lexicographic) order
        assert prog.rank(v) == i and prog.rank(w) == i + 1
        a = plan.assignment([(prog.columns, v)])
        assert not combat.check(a).violations
    assert prog.fallback is None


def test_a_sample_of_many_draws_uses_it_and_draws_as_the_column_programme(monkeypatch):
    sc = random_sharing(7, 9, per=3, seed=1)
    combat = Combat(load_scenario(sc))
    draws = combat.sample(direct.MANY + 6, seed=4)  # COLUMN_TRIAL is 0 here: no column programme
    kinds = {type(p).__name__ for p in combat.plan.cache.of("direct-index").values()}
    assert kinds == {"ConditionedProgramme"}
    plan = combat.plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    old = ComponentDP(plan, comp)
    rng = random.Random(4)
    total = indexing.count(combat)
    for a in draws:  # the same uniform indices, unranked by the column programme
        i = rng.randrange(total)
        assert plan.assignment([(old.columns, old.unrank(i))]).to_json() == a.to_json()


LISTED = [
    (f"random sharing {n} on {n + 2} (seed {s})", random_sharing(n, n + 2, per=3, seed=s, power=(2, 5)))
    for n, s in ((5, 2), (6, 3), (7, 4))
]


@pytest.mark.parametrize("root_work", [1 << 12, 1 << 16])
@pytest.mark.parametrize("name,sc", LISTED, ids=[n for n, _ in LISTED])
def test_the_prefix_lister_lists_the_source_listers_rows(monkeypatch, name, sc, root_work):  # 702.19b, 510.1a
    # the walk on the join tree fixes a few sources (a small ROOT_WORK: several levels), then lists with rooted
    # source programmes: the same bytes in the same order as the source programme's listing, from any start
    monkeypatch.setattr(conditioned, "ROOT_WORK", root_work)
    plan = Combat(load_scenario(sc)).plan
    rng = random.Random(11)
    for comp in plan.components:
        if len(comp) < 2:
            continue
        ref, lister = SourceProgramme(plan, comp), conditioned.PrefixLister(ConditionedProgramme(plan, comp))
        n = ref.count()
        assert lister.count() == n
        for start in (0, rng.randrange(n), max(0, n - 40)):
            want = list(itertools.islice(ref.blocks(rows=500, dtype=np.int8, start=start), 3))
            got = list(itertools.islice(lister.blocks(rows=500, dtype=np.int8, start=start), 3))
            assert [len(b) for b in got] == [len(b) for b in want]
            assert b"".join(b.tobytes() for b in got) == b"".join(b.tobytes() for b in want)


def test_prefixes_leading_to_one_state_share_its_rooted_programme(monkeypatch):  # 702.19b, 510.1a
    # the next splits of the deepest source fixed often lead to the state the last one led to: its rooted programme's
    # rows are listed again with the new splits in their columns (Reprefixed), not built again; every row of the
    # component, the source programme's bytes in its order
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 12)
    shared: list[int] = []
    init = conditioned.Reprefixed.__init__
    monkeypatch.setattr(conditioned.Reprefixed, "__init__", lambda self, *a: shared.append(1) or init(self, *a))
    plan = Combat(load_scenario(LISTED[0][1])).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp))
    got = b"".join(b.tobytes() for b in lister.blocks(rows=1 << 16, dtype=np.int8))
    ref = SourceProgramme(plan, comp)
    assert got == b"".join(b.tobytes() for b in ref.blocks(rows=1 << 16, dtype=np.int8))
    assert len(got) == ref.count() * ref.P
    assert len(shared) > 10  # (41 of its prefixes listed with another's programme)


def test_a_reprefixed_programme_writes_its_splits_as_it_lists(monkeypatch):  # 702.19b, 510.1a
    # prefixes that lead to one state share its rooted programme; its lister is re-headed (the fixed sources' splits
    # its own, the tables and children shared), so each row is written once with the new splits, not listed with the
    # old ones and written over: the rows are those of the programme rooted at the new splits, byte for byte
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 12)
    plan = Combat(load_scenario(LISTED[0][1])).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp))
    shared: list[conditioned.Reprefixed] = []
    init = conditioned.Reprefixed.__init__
    monkeypatch.setattr(conditioned.Reprefixed, "__init__", lambda self, *a: shared.append(self) or init(self, *a))
    for _ in lister.blocks(rows=1 << 16, dtype=np.int8):
        pass
    assert len(shared) > 10
    for rep in shared:
        fresh = SourceProgramme(plan, comp, prefix=rep.splits, tables=lister.prog.raw)
        assert rep.count() == fresh.count()
        for start in (0, rep.count() // 2):
            got = b"".join(b.tobytes() for b in itertools.islice(rep.blocks(500, np.int8, None, start, 3), 4))
            want = b"".join(b.tobytes() for b in itertools.islice(fresh.blocks(500, np.int8, None, start, 3), 4))
            assert got == want
        if len(rep.splits) < len(comp):
            mine, theirs = rep._listers[np.dtype(np.int8).str], rep.rooted.lister(np.int8)
            assert mine._tail is theirs._tail and mine._csr is theirs._csr  # the tables and children shared
            assert [bytes(a.tobytes()) for a in mine.splits[: len(rep.splits)]] == [
                np.array(s, dtype=np.int8).tobytes() for s in rep.splits
            ]


def test_the_next_splits_states_are_read_from_one_row(monkeypatch):  # 702.19b, 510.1a
    # the prefix lister asks for the state of each split of one source after the same prefix one after the other
    # (its rooted tries, its probes): they are read off one row of pair codes from the prefix's state
    # (SourceProgramme.roots_after), not walked from the first source each; the same states as root_of
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 12)
    plan = Combat(load_scenario(LISTED[1][1])).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp))
    asked: list[tuple[tuple[int, ...], ...]] = []
    root_of = lister._root_of
    monkeypatch.setattr(lister, "_root_of", lambda splits: asked.append(splits) or root_of(splits))
    walks: list[int] = []
    init = SourceProgramme.__init__

    def counted(self, *a, **k):
        if k.get("build") is False:
            walks.append(1)
        init(self, *a, **k)

    monkeypatch.setattr(SourceProgramme, "__init__", counted)
    got = b"".join(b.tobytes() for b in lister.blocks(rows=1 << 16, dtype=np.int8))
    monkeypatch.setattr(SourceProgramme, "__init__", init)
    ref = SourceProgramme(plan, comp)
    assert got == b"".join(b.tobytes() for b in ref.blocks(rows=1 << 16, dtype=np.int8))
    runs = sum(a[:-1] != b[:-1] for a, b in zip(asked, asked[1:])) + 1  # the prefixes asked after, in turn
    # one walk per prefix asked after (and the first path's, and the root with no split fixed), not one per split:
    # 10 walks for 69 states on this board
    assert len(walks) <= runs + 2 and 4 * runs < len(asked)
    for splits in asked:
        try:
            want = SourceProgramme.root_of(plan, comp, splits, lister.prog.raw)
        except ordered.TooWide:
            with pytest.raises(ordered.TooWide):
                root_of(splits)
            continue
        assert root_of(splits) == want


@pytest.mark.parametrize("rows", [64, 1000])
def test_each_listing_starts_with_the_room_left_in_the_block(monkeypatch, rows):  # 702.19b, 510.1a
    # the prefix lister's blocks gather the pieces of many listings (rooted programmes, the last source's splits):
    # each one's first block is cut to the rows left in the block being filled, so its later blocks line up and
    # pass through whole; only a block where one listing ends and the next begins is copied together. The rows are
    # the source programme's, in its order
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 12)
    plan = Combat(load_scenario(LISTED[1][1])).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp))
    pieces = lister._pieces
    seen: list[np.ndarray] = []
    monkeypatch.setattr(lister, "_pieces", lambda *a: (seen.append(p) or p for p in pieces(*a)))
    got = list(itertools.islice(lister.blocks(rows=rows, dtype=np.int8), 400))
    spans = [(p.ctypes.data, p.ctypes.data + p.nbytes) for p in seen]  # a block passed through lies within its piece
    copied = sum(not any(lo <= b.ctypes.data < hi for lo, hi in spans) for b in got)
    short = sum(len(p) < rows for p in seen)
    assert len(got) == 400 and all(len(b) == rows for b in got)
    assert copied <= short < len(got) // 4, (copied, short)
    # and where a listing starts in the middle of a block, its first rows are written in the room left in it, not
    # made apart and copied there: its first piece lies inside a block yielded
    inside = sum(any(b.ctypes.data < p.ctypes.data < b.ctypes.data + b.nbytes for b in got) for p in seen)
    assert 0 < inside and short <= 2 * inside + 1, (inside, short)
    ref = SourceProgramme(plan, comp)
    want = b"".join(b.tobytes() for b in itertools.islice(ref.blocks(rows=rows, dtype=np.int8), 400))
    assert b"".join(b.tobytes() for b in got) == want


@pytest.mark.parametrize("seed", [0, 3, 8])
def test_the_widest_boards_rows_after_the_first_block_keep_their_bytes(monkeypatch, seed):  # 702.19b, 510.1a
    # random_sharing(12, 14, 4)'s seeds whose rows after the first block come from many rooted programmes, one
    # after the other: their tables stop where the runs are long (SUFFIX_RUN), their blocks are written run by run
    # (FILL_RUN), each listing's first rows in the room left in the block (PrefixLister._into). The user's blocks
    # are the bytes of the old choices (every table that fits, the ragged gather) listed in blocks of another size
    # (each listing's end copied), and the rows the join tree unranks
    sc = random_sharing(12, 14, 4, seed=seed)
    n = 3 << 18
    new = np.concatenate(list(_first_rows(Combat(load_scenario(sc)).assignment_blocks(), n)))
    monkeypatch.setattr(ordered, "SUFFIX_RUN", 1 << 62)
    monkeypatch.setattr(ordered, "FILL_RUN", 1 << 62)
    plan = Combat(load_scenario(sc)).plan
    (comp,) = plan.components
    lister = direct.component_lister(plan, comp)
    assert isinstance(lister, conditioned.PrefixLister)
    old = np.concatenate(list(_first_rows(lister.blocks(rows=1000, dtype=new.dtype), n)))
    assert len(new) == len(old) == n and new.tobytes() == old.tobytes()
    rng = random.Random(seed)
    for i in (0, 1 << 16, n - 1, *rng.sample(range(n), 3)):
        assert lister.prog.unrank(i) == tuple(new[i].tolist())


def _first_rows(blocks, n: int):
    """The blocks of the first ``n`` rows (the last one cut)."""
    got = 0
    for b in blocks:
        yield b[: n - got]
        got += len(b)
        if got >= n:
            return


def test_the_prefixes_of_one_level_share_their_rejoins_plan(monkeypatch):  # 702.19b, 510.1a: the same rows
    # a rejoin's plan depends on its tables' members, scopes and sizes alone: planned once for the prefixes of a
    # level that plan alike; the rows are the source programme's
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 12)
    plans, rejoins = [], []
    bucket, rejoined = conditioned.bucket_plan, ConditionedProgramme._rejoined
    monkeypatch.setattr(conditioned, "bucket_plan", lambda *a: plans.append(1) or bucket(*a))
    monkeypatch.setattr(ConditionedProgramme, "_rejoined", lambda self, *a: rejoins.append(1) or rejoined(self, *a))
    plan = Combat(load_scenario(LISTED[1][1])).plan  # (618 796 rows)
    (comp,) = [c for c in plan.components if len(c) > 1]
    lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp))
    got = b"".join(b.tobytes() for b in lister.blocks(rows=1 << 16, dtype=np.int8))
    ref = SourceProgramme(plan, comp)
    assert got == b"".join(b.tobytes() for b in ref.blocks(rows=1 << 16, dtype=np.int8))
    assert len(rejoins) > 2 * len(plans) > 0, (len(rejoins), len(plans))  # (7 rejoins, 2 plans)


def test_the_wide_board_lists_its_first_rows_in_order_without_the_column_programme():  # 702.19b: issue 21's board
    plan = Combat(load_scenario(random_sharing(12, 14, 4, seed=2))).plan
    (comp,) = plan.components
    lister = direct.component_lister(plan, comp, Deadline(120))
    assert isinstance(lister, conditioned.PrefixLister)
    prog = ConditionedProgramme(plan, comp)
    block = next(lister.blocks(rows=64, dtype=np.int64))
    rows = [tuple(r) for r in block.tolist()]
    assert rows == sorted(rows) and len(set(rows)) == 64
    for i in (0, 1, 63):
        assert prog.unrank(i) == rows[i]


@pytest.mark.parametrize("tries", [0, 4])
@pytest.mark.parametrize("name,sc", LISTED, ids=[n for n, _ in LISTED])
def test_the_first_prefix_lists_the_source_listers_first_rows(monkeypatch, name, sc, tries):  # 702.19b, 510.1a
    # from the first row, the lister starts at the first prefix found without completions (each source's first split
    # its own routes allow; FIRST_TRIES next splits at the last level); the programme is lazy (the count is the
    # count's, from the plan's cache): the same bytes as the source programme's listing, and the same unranks after
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 12)
    monkeypatch.setattr(conditioned, "FIRST_TRIES", tries)
    combat = Combat(load_scenario(sc))
    plan = combat.plan
    total = combat.count()
    for comp in plan.components:
        if len(comp) < 2:
            continue
        comp = tuple(comp)
        assert comp in plan.cache.of(elimination.COUNTS)  # the direct engine's count, kept
        ref = SourceProgramme(plan, comp)
        prog = ConditionedProgramme(plan, comp, lazy=True)
        lister = conditioned.PrefixLister(prog)
        n = ref.count()
        assert lister.count() == n and prog._first is None  # nothing weighed for the count
        want = list(itertools.islice(ref.blocks(rows=300, dtype=np.int8), 4))
        got = list(itertools.islice(lister.blocks(rows=300, dtype=np.int8), 4))
        assert [len(b) for b in got] == [len(b) for b in want]
        assert b"".join(b.tobytes() for b in got) == b"".join(b.tobytes() for b in want)
        for i in (0, n // 3, n - 1):
            assert prog.unrank(i) == ref.unrank(i) and prog.rank(ref.unrank(i)) == i
    assert total > 1


@pytest.mark.parametrize("probes,root_work", [(0, 1 << 12), (8, 1 << 10), (8, 1 << 8)])
def test_a_first_prefix_with_no_row_goes_back_up_its_path(monkeypatch, probes, root_work):  # 702.19b, 510.1a
    # here the first splits each source's own routes allow have no legal completion (the rooted programme has no
    # row): the lister goes back up that prefix's path (PrefixLister._after), weighing only the levels it goes back
    # to (with PROBES, a level's next splits weighed one level deeper first), and lists the same rows as the source
    # programme; the walk from the top is not taken
    monkeypatch.setattr(conditioned, "ROOT_WORK", root_work)
    monkeypatch.setattr(conditioned, "FIRST_TRIES", 0)
    monkeypatch.setattr(conditioned, "PROBES", probes)
    probed: list[int] = []
    probe = conditioned.PrefixLister._probed

    def counted(self, *a):
        got = yield from probe(self, *a)
        probed.append(got[0])
        return got

    monkeypatch.setattr(conditioned.PrefixLister, "_probed", counted)
    plan = Combat(load_scenario(random_sharing(5, 7, per=3, seed=1, power=(2, 5)))).plan
    (comp,) = [tuple(c) for c in plan.components if len(c) > 1]
    ref = SourceProgramme(plan, comp)
    lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp, lazy=True))
    first = lister.first(Deadline(60))
    assert first is not None and first[1].count() == 0
    walked = []
    monkeypatch.setattr(
        lister, "_walk", lambda splits, *a: walked.append(splits) or conditioned.PrefixLister._walk(lister, splits, *a)
    )
    rows = np.concatenate(list(lister.blocks(rows=1 << 12, dtype=np.int8)))
    assert len(rows) == ref.count() == 19668
    assert rows.tobytes() == np.concatenate(list(ref.blocks(rows=1 << 12, dtype=np.int8))).tobytes()
    assert walked and () not in walked  # every walk starts below the top
    assert (sum(probed) > 0) == (probes > 0)  # rows listed from probed splits (none without probes)


def _two_on_one(power: int, toughness: int) -> dict:
    """702.19b: two tramplers of ``power`` blocked by one blocker of ``toughness`` (its states: 2 x toughness)."""
    return _shared(2, 1, power, toughness)


def _shared(n: int, m: int, power: int, toughness: int, keyword: str = "trample", loyalty: int = 0) -> dict:
    """702.19b/c, 702.2c: ``n`` attackers of ``power`` with ``keyword`` (and deathtouch for "deathtouch"), each
    blocked by the same ``m`` blockers of ``toughness``; with ``loyalty``, all attacking one planeswalker."""
    words = ["trample", "deathtouch"] if keyword == "deathtouch" else [keyword]
    target = "p" if loyalty else "opp"
    attackers = [
        {"id": f"a{i}", "power": power, "toughness": 5, "keywords": words, "attacking": target}
        | {"blocked_by": [f"b{j}" for j in range(m)]}
        for i in range(n)
    ]
    doc = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": attackers,
        "blockers": [{"id": f"b{j}", "power": 1, "toughness": toughness} for j in range(m)],
    }
    if loyalty:
        doc["planeswalkers"] = [{"id": "p", "controller": "opp", "loyalty": loyalty, "in_combat": True}]
    return doc


SHARED = [
    ("two on one", _shared(2, 1, 9, 4)),
    ("two deathtouch on one", _shared(2, 1, 7, 4, "deathtouch")),
    ("three on two", _shared(3, 2, 4, 2)),
    ("three on two over a planeswalker", _shared(3, 2, 3, 2, "trample_over_planeswalkers", loyalty=2)),
]


@pytest.mark.parametrize("name,sc", SHARED, ids=[n for n, _ in SHARED])
def test_shared_blockers_against_the_oracle(name, sc):  # 702.19b, 702.19c, 702.2c: the prefix sums' shapes
    assert _against_the_oracle(sc) > 1


@pytest.mark.parametrize("seed", range(4))
def test_the_settled_sums_are_the_sum_tables_product(seed):  # the prefix sums against the matrix they replace
    rng = random.Random(seed)
    for _ in range(100):
        need = rng.randint(1, 9)
        every = [elimination.SAT, elimination.UNSAT, *range(2 * need)]
        theirs, mine = (np.array(sorted(rng.sample(every, rng.randint(1, len(every)))), dtype=np.int64) for _ in "ab")
        g = elimination.Graph.__new__(elimination.Graph)
        g.need, g.contributors, g.askers = {"x": need}, {"x": {0}}, {"x": {0}}
        ok = (elimination.sum_table(g, "x", frozenset({0}), mine, theirs) != elimination.DEAD).astype(np.int64)
        dense = np.array([rng.randint(-9, 99) for _ in range(6 * len(theirs))], dtype=np.int64).reshape(3, -1, 2)
        want = np.moveaxis(np.tensordot(dense, ok, axes=([1], [1])), -1, 1)
        assert (conditioned.settled_sums(dense, 1, theirs, mine, need) == want).all()


def test_a_blocker_of_thousands_of_states_is_ranked_by_prefix_sums():
    # the sums of two sides' states of a blocker that needs 2 100 form a 2 101 x 2 101 matrix (at 50 000: 18.6 GB
    # for the prefix held fixed, 37 GB for the source programme's join): the source programme refuses it, the
    # prefix-fixed programme weighs by prefix sums over the totals, in the canonical order (the column programme's)
    doc = _two_on_one(4200, 2100)
    plan = Combat(load_scenario(doc)).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    with pytest.raises(ordered.TooWide):
        SourceProgramme(plan, comp)
    prog = direct.index_programme(plan, comp)
    assert isinstance(prog, ConditionedProgramme)  # COLUMN_TRIAL 0 here: before, the column programme (minutes)
    combat = Combat(load_scenario(doc))
    n = combat.count()
    assert n == 4201 * 4201 - 2100 * 2101 // 2  # the pairs of amounts on b that add up to 2 100 or more
    picks = [0, 1, 4242, n // 2, n - 1]
    got = [combat.unrank(i) for i in picks]
    assert all(is_legal(doc, a.to_json()) for a in got)
    assert [combat.rank(a) for a in got] == picks
    assert got[0].to_json()["a0"] == {"opp": 4200} and got[-1].to_json()["a0"] == {"b0": 4200}  # a1 kills b first


HUGE = [
    ("two on one that needs 10 000", _two_on_one(20_000, 10_000), conditioned.PrefixLister),
    ("three deathtouch on two", _shared(3, 2, 3000, 2000, "deathtouch"), ComponentDP),  # needs 1 (702.2c)
]


@pytest.mark.parametrize("name,sc,listed_by", HUGE, ids=[n for n, _, _ in HUGE])
def test_huge_boards_rank_unrank_and_list_by_the_prefix_fixed_programme(
    name, sc, listed_by
):  # 702.19b, 702.2c: issue 21
    _round_trips(sc, listed_by)


@pytest.mark.slow
def test_the_huge_board_ranks_unranks_and_lists():  # 702.19b: docs/scale.md's HUGE board (two 100 000 on 50 000)
    # each route of a walk weighed in one numpy pass over the blocker's 50 001 totals (_Walk.profile)
    _round_trips(_two_on_one(100_000, 50_000), conditioned.PrefixLister)


def _round_trips(sc: dict, listed_by: type) -> None:
    """The prefix-fixed programme is handed out, counts as the count does, unranks legal assignments that rank back
    to their index, and its lister (``listed_by``) gives the first rows of the canonical order."""
    plan = Combat(load_scenario(sc)).plan
    (comp,) = plan.components
    prog = direct.index_programme(plan, comp, Deadline(120))
    assert isinstance(prog, ConditionedProgramme)  # not the column programme (minutes and gigabytes)
    n = prog.count()
    assert n == count_component(plan, comp)
    rng = random.Random(5)
    for i in [0, 1, n - 1, *(rng.randrange(n) for _ in range(4))]:
        v = prog.unrank(i)
        assert prog.rank(v) == i
        assert is_legal(sc, plan.assignment([(prog.columns, v)]).to_json())
    lister = direct.component_lister(plan, comp, Deadline(120))
    assert isinstance(lister, listed_by)  # the wide blocker's: not the column programme
    rows = [tuple(r) for r in next(lister.blocks(rows=5, dtype=np.int64)).tolist()]
    assert rows == [prog.unrank(i) for i in range(5)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    overlapping_boards(max_attackers=4, max_blockers=4, max_power=4),
    st.sampled_from([1 << 4, 1 << 8, 1 << 12]),
    st.sampled_from([0, 4]),
    st.sampled_from([0, 1, 8]),
)
def test_the_rows_after_the_first_prefix_are_the_brute_forces(sc, root_work, tries, probes):  # 702.19b/c, 510.1a
    # from the first row the prefix lister lists the first prefix's rows, then goes back up its path (_after), never
    # walking from the top and asking no count (within: the rows listed are kept for the listing): the source
    # programme's bytes, and on a board of one component every row of the brute force in the canonical order,
    # whatever the rooted programmes' bound
    combat = Combat(load_scenario(sc))
    plan = combat.plan
    comps = [tuple(c) for c in plan.components if len(c) > 1]
    assume(not plan.has_options and comps)
    for comp in comps:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(conditioned, "ROOT_WORK", root_work)
            mp.setattr(conditioned, "FIRST_TRIES", tries)
            mp.setattr(conditioned, "PROBES", probes)
            lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp, lazy=True))
            walked: list[tuple[tuple[int, ...], ...]] = []
            after: list[int] = []
            walk, back = lister._walk, lister._after
            mp.setattr(lister, "_walk", lambda splits, *a, w=walk, k=walked: k.append(splits) or w(splits, *a))
            mp.setattr(lister, "_after", lambda splits, *a, b=back, k=after: k.append(len(splits)) or b(splits, *a))
            assert lister.within(0) in (0, None)
            full = lister.within(1 << 20)
            assert comp not in plan.cache.of(elimination.COUNTS)  # no count asked: every row listed once
            rows = list(lister.blocks(rows=97, dtype=np.int64))
        got = np.concatenate(rows) if rows else np.zeros((0, len(plan.component_columns(comp))), dtype=np.int64)
        ref = SourceProgramme(plan, comp)
        assert got.tobytes() == b"".join(b.tobytes() for b in ref.blocks(rows=97, dtype=np.int64))
        assert full == len(got) == ref.count()
        if len(got):
            assert after and () not in walked  # the new path: back up the first prefix's path, not from the top
        if len(plan.components) == 1:
            assert [tuple(r) for r in got.tolist()] == _canonical(combat, brute_force(sc, "attacking"))


@pytest.mark.parametrize("exact_bound", [0, 64])
@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_the_completions_of_a_later_source_count_in_its_own_ring(monkeypatch, name, sc, exact_bound):  # 702.19b/c
    # the rejoin of the tables after source j counts in the ring of their own bound (fewer primes, or exact): with
    # small primes (and exact counts below 64, or never), those rings differ from the component's, and every index
    # of the brute force must still unrank to its assignment and rank back
    from test_elimination import _small_moduli

    monkeypatch.setattr(elimination, "EXACT_BOUND", exact_bound)
    monkeypatch.setattr(elimination, "_moduli", _small_moduli)
    assert _against_the_oracle(sc) > 1
    combat = Combat(load_scenario(sc))
    engine = get_engine("direct", needs=[PROGRAMME])
    progs = [engine.programme(combat.plan, c) for c in combat.plan.components if len(c) > 1]  # type: ignore[attr-defined]
    for prog in progs:
        for i in range(prog.count()):
            prog.unrank(i)
    rings = [(prog.ring.moduli, ring.moduli) for prog in progs for ring, _ in prog._after_rings.values()]
    assert rings and any(theirs != mine for mine, theirs in rings)


@pytest.mark.parametrize("exact_bound", [0, 1 << 12])
def test_the_later_sources_rings_hold_their_counts(monkeypatch, exact_bound):  # 702.19b: counts past the primes
    # counts of thousands against primes below 200: a later source's ring with too few primes would wrap them
    from test_elimination import _small_moduli

    monkeypatch.setattr(elimination, "EXACT_BOUND", exact_bound)
    monkeypatch.setattr(elimination, "_moduli", _small_moduli)
    plan = Combat(load_scenario(random_sharing(6, 7, 3, seed=1, power=(3, 5)))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog, other = ConditionedProgramme(plan, comp), SourceProgramme(plan, comp)
    assert prog.count() == other.count() > 10**5
    for i in random.Random(7).sample(range(prog.count()), 40):
        v = prog.unrank(i)
        assert v == other.unrank(i) and prog.rank(v) == i
    assert any(ring.moduli != prog.ring.moduli for ring, _ in prog._after_rings.values())


def _first_and_state(lister: conditioned.PrefixLister) -> tuple:
    """The first prefix (its splits, its rooted programme's rows), the levels marked over, the last rooted prefix."""
    first = lister.first(Deadline(60))
    if first is None:
        return None, set(lister._over), None
    splits, rooted = first
    rows = None if rooted is None else b"".join(b.tobytes() for b in rooted.blocks(rows=97, dtype=np.int64))
    kept = None if lister._kept is None else lister._kept[0]
    return (splits, rows), set(lister._over), kept


def _same_first_prefix(plan, root_work: int) -> int:
    """The first prefix found from its dead end against the tries from the top (see below); how many components
    had a dead end at depth 3 or more whose prefix above it refused (where levels were marked without a try)."""
    marked = 0
    for comp in [tuple(c) for c in plan.components if len(c) > 1]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(conditioned, "ROOT_WORK", root_work)
            mp.setattr(conditioned, "FIRST_TRIES", 0)
            lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp, lazy=True))
            lister.unrooted()
            new = _first_and_state(lister)
            mp.setattr(conditioned.PrefixLister, "_deepest_first", lambda self, deadline: None)
            old_lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp, lazy=True))
            old_lister.unrooted()
            assert _first_and_state(old_lister) == new
        if new[0] is None:
            continue
        path = new[0][0]
        built = []
        for k in range(1, len(path) + 1):
            try:
                SourceProgramme(plan, comp, None, root_work, path[:k], lister.prog.raw)
                built.append(True)
            except ordered.TooWide:
                built.append(False)
        assert built == sorted(built)  # refused up to some depth, built from there on
        marked += len(path) >= 3 and not built[-2] and new[0][1] == b""
    return marked


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(overlapping_boards(max_attackers=4, max_blockers=4, max_power=4), st.sampled_from([1 << 4, 1 << 6, 1 << 8]))
def test_the_first_prefix_found_from_its_dead_end_is_the_one_found_from_the_top(sc, root_work):  # 702.19b, 510.1a
    # where the first splits lead to a dead state at depth D, the prefix of D - 1 splits is tried first: refused, every
    # shorter prefix is marked refused without its try. The same first prefix, rows, refused levels and last rooted
    # programme as the tries from the first source down; and the assumption behind it checked on the path itself:
    # where a prefix's rooted programme refuses, so does every shorter prefix's
    plan = Combat(load_scenario(sc)).plan
    assume(not plan.has_options and any(len(c) > 1 for c in plan.components))
    _same_first_prefix(plan, root_work)


@pytest.mark.parametrize("n,m", [(5, 7), (6, 8)])
def test_dead_ends_on_wider_boards_find_the_same_first_prefix(n, m):  # 702.19b, 510.1a
    # the same on boards where the dead end is three or four sources deep and the prefix above it refuses
    marked = 0
    for seed in range(8):
        plan = Combat(load_scenario(random_sharing(n, m, per=3, seed=seed, power=(2, 5)))).plan
        for root_work in (1 << 8, 1 << 10):
            marked += _same_first_prefix(plan, root_work)
    assert marked >= 3


def test_a_dead_first_path_tries_its_last_live_prefix_first(monkeypatch):  # 702.19b, 510.1a
    # random_sharing(5, 7, 3, seed=6): the first splits lead to a dead state after four sources; with a small
    # ROOT_WORK the prefix of three refuses, so the shorter ones are not built at all (one try, not one per level),
    # and the rows are the source programme's
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 8)
    monkeypatch.setattr(conditioned, "FIRST_TRIES", 0)
    plan = Combat(load_scenario(random_sharing(5, 7, per=3, seed=6, power=(2, 5)))).plan
    (comp,) = [tuple(c) for c in plan.components if len(c) > 1]
    tried: list[int] = []
    init = SourceProgramme.__init__

    def counted(self, plan, component, deadline=None, work_limit=None, prefix=(), *a, **k):
        if work_limit is not None and a and k.get("build", True):
            tried.append(len(prefix))
        init(self, plan, component, deadline, work_limit, prefix, *a, **k)

    lister = conditioned.PrefixLister(ConditionedProgramme(plan, comp, lazy=True))
    lister.unrooted()
    monkeypatch.setattr(SourceProgramme, "__init__", counted)
    splits, rooted = lister.first(Deadline(60))
    monkeypatch.setattr(SourceProgramme, "__init__", init)
    assert rooted is not None and rooted.count() == 0 and len(splits) == 4
    assert tried == [len(splits) - 1, len(splits)]  # the prefix above the dead end refused, then the dead end
    assert lister._over >= set(range(len(splits)))
    got = list(itertools.islice(lister.blocks(rows=1 << 10, dtype=np.int8), 4))
    want = list(itertools.islice(SourceProgramme(plan, comp).blocks(rows=1 << 10, dtype=np.int8), 4))
    assert len(got) == len(want) == 4 and b"".join(b.tobytes() for b in got) == b"".join(b.tobytes() for b in want)


@pytest.fixture(params=["plans", "suffix"])
def learning(request, monkeypatch):
    """ "plans": every rejoin of a rank or unrank first tries another candidate plan (EXPLORE_FROM 0); "suffix":
    every level tries its suffix table from its second prefix on and keeps it whatever its size. Returns the mode
    and what was used: the suffix tables read, the rejoins whose plan in use is not the estimated cheapest."""
    if request.param == "plans":
        monkeypatch.setattr(conditioned, "EXPLORE_FROM", 0)
        monkeypatch.setattr(conditioned, "SUFFIX_FROM", 1 << 62)
    else:
        monkeypatch.setattr(conditioned, "SUFFIX_FROM", 0)
        monkeypatch.setattr(conditioned, "SUFFIX_LAST", 0)
        monkeypatch.setattr(conditioned, "SUFFIX_STATES", 1 << 62)
        monkeypatch.setattr(conditioned, "SUFFIX_GAIN", 0)
        monkeypatch.setattr(conditioned, "SUFFIX_TRIAL", 1 << 40)
    used = {"mode": request.param, "suffix": 0, "learnt": 0}
    from_suffix, contracted = ConditionedProgramme._from_suffix, ConditionedProgramme._contracted

    def read(self, *a):
        got = from_suffix(self, *a)
        used["suffix"] += got is not None
        return got

    def learnt(self, tables, plans, *a):
        got = contracted(self, tables, plans, *a)
        used["learnt"] += plans.best > 0
        return got

    monkeypatch.setattr(ConditionedProgramme, "_from_suffix", read)
    monkeypatch.setattr(ConditionedProgramme, "_contracted", learnt)
    return used


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_learnt_plans_and_suffix_tables_keep_the_brute_force_order(learning, name, sc):  # 702.19b, 702.19c, 510.1a
    # the rejoins' plans tried one after the other and the levels' suffix tables (the tables after source j joined
    # once, the prefix's resources left open) give every index the brute force's assignment, and rank it back
    assert _against_the_oracle(sc) > 1
    if name.startswith(("cycle", "random")) and learning["mode"] == "suffix":  # (a plan or two: nothing to learn)
        assert learning["suffix"] > 0, learning


@pytest.mark.parametrize("name,sc", MEDIUM, ids=[n for n, _ in MEDIUM])
def test_learnt_plans_and_suffix_tables_against_the_column_programme(learning, name, sc):  # another method
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        if len(comp) < 2:
            continue
        new, old = ConditionedProgramme(plan, comp), ComponentDP(plan, comp)
        rng = random.Random(11)
        for i in [0, new.count() - 1, *(rng.randrange(new.count()) for _ in range(16))]:
            v = new.unrank(i)
            assert v == old.unrank(i)
            assert new.rank(v) == i
    assert learning["suffix" if learning["mode"] == "suffix" else "learnt"] > 0, learning


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(4, 8), st.integers(2, 3))
def test_learnt_plans_and_suffix_tables_follow_the_listing_order(learning, seed, n, per):  # 702.19b, 510.1a
    rng = random.Random(seed)
    for _, _, prog, other in _shared_components(seed, n, per):
        for start in (0, rng.randrange(prog.count()), rng.randrange(prog.count())):
            block = next(other.blocks(rows=4, start=start))
            for k, row in enumerate(block.tolist()):
                assert prog.unrank(start + k) == tuple(row)
                assert prog.rank(row) == start + k


def test_a_suffix_table_too_large_for_its_gain_is_refused_for_good(monkeypatch):  # the same order either way
    # kept only where a rejoin at its level took SUFFIX_GAIN times its entries on average; refused, the level rejoins
    monkeypatch.setattr(conditioned, "SUFFIX_FROM", 0)
    monkeypatch.setattr(conditioned, "SUFFIX_LAST", 0)
    monkeypatch.setattr(conditioned, "SUFFIX_STATES", 1 << 62)
    monkeypatch.setattr(conditioned, "SUFFIX_GAIN", 1 << 40)
    plan = Combat(load_scenario(MEDIUM[1][1])).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog, old = ConditionedProgramme(plan, comp), ComponentDP(plan, comp)
    rng = random.Random(3)
    for i in [rng.randrange(prog.count()) for _ in range(8)]:
        assert prog.unrank(i) == old.unrank(i)
    assert None in prog._suffix.values() and not any(prog._suffix.values())


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**6), st.integers(4, 8), st.integers(2, 3))
def test_the_levels_split_lists_give_the_walks_order(seed, n, per):  # 702.19b, 510.1a: the same index, either way
    # a source's splits read from its level's list (running sums, bisected) against the walk's route-by-route
    # bisection (SPLIT_TABLE 0), and against the source programme, for many indices; rank gives each back
    rng = random.Random(seed)
    for plan, comp, prog, other in _shared_components(seed, n, per):
        walked = ConditionedProgramme(plan, comp)
        walked_lists = conditioned.SPLIT_TABLE
        conditioned.SPLIT_TABLE = 0
        try:
            for i in [0, prog.count() - 1, *(rng.randrange(prog.count()) for _ in range(16))]:
                v = walked.unrank(i)
                assert walked.rank(v) == i
                assert not any(walked._split_lists.values())
        finally:
            conditioned.SPLIT_TABLE = walked_lists
        for i in [0, prog.count() - 1, *(rng.randrange(prog.count()) for _ in range(16))]:
            v = prog.unrank(i)
            assert v == walked.unrank(i) == other.unrank(i)
            assert prog.rank(v) == i == other.rank(v)


def test_later_unranks_read_each_levels_splits_from_one_list(monkeypatch):  # 702.19b, 510.1a
    # the splits of a level are listed once (the first unrank that reaches it), and every later rank or unrank
    # bisects their running sums: the walk's route-by-route bisection is not called again
    built, walked = [], []
    splits_init, walk_unrank = conditioned._Splits.__init__, ordered._Walk.unrank

    def listing(self, *a):
        built.append(1)
        splits_init(self, *a)

    def walking(self, *a):
        walked.append(1)
        return walk_unrank(self, *a)

    monkeypatch.setattr(conditioned._Splits, "__init__", listing)
    monkeypatch.setattr(ordered._Walk, "unrank", walking)
    plan = Combat(load_scenario(MEDIUM[1][1])).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog, old = ConditionedProgramme(plan, comp), ComponentDP(plan, comp)
    rng = random.Random(5)
    for i in [rng.randrange(prog.count()) for _ in range(12)]:
        v = prog.unrank(i)
        assert v == old.unrank(i)
        assert prog.rank(v) == i
    assert len(built) <= len(comp) and not walked


def test_a_level_whose_next_level_lists_by_rooted_programmes_is_probed_not_weighed(monkeypatch):  # 702.19b, 510.1a
    # random_sharing(12, 14, 4) seed 0: going back up its first prefix's path, the level it goes back to has a next
    # level that lists by rooted programmes; its next splits are probed there (each split with rows walked by its
    # rooted programme, which the walk builds anyway), so its first 2^18 rows ask for no completions, where weighing
    # the level at once asked for that level's (8-13 ms, for splits never reached); the rows are the same
    asked: list[int] = []
    weigh = conditioned.PrefixLister._completions

    def counted(self, j, *a):
        asked.append(j)
        return weigh(self, j, *a)

    monkeypatch.setattr(conditioned.PrefixLister, "_completions", counted)
    board = random_sharing(12, 14, 4, seed=0)
    listed = {}
    for probe in (False, True):
        monkeypatch.setattr(conditioned, "PROBE_ROOTED", probe)
        asked.clear()
        blocks = itertools.islice(Combat(load_scenario(board)).assignment_blocks(rows=1 << 12), 64)
        listed[probe] = (np.concatenate(list(blocks)).tobytes(), list(asked))
    assert listed[True][0] == listed[False][0]
    assert listed[False][1] and not listed[True][1]


def test_a_level_of_a_few_hundred_thousand_pairs_a_rejoin_gets_its_suffix_table():  # the same order either way
    # random_sharing(12, 14, 4) seed 0: the second source's rejoins take 2-4 x 10^5 pairs (15-20 ms), its suffix table
    # has about 1.8 x 10^4 entries; it is tried and kept within a dozen unranks (work bounds, not time: deterministic)
    plan = Combat(load_scenario(random_sharing(12, 14, 4, seed=0))).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    prog = ConditionedProgramme(plan, comp)
    rng = random.Random(5)
    picks = [rng.randrange(prog.count()) for _ in range(12)]
    vectors = [prog.unrank(i) for i in picks]
    assert prog._suffix.get(1) is not None
    assert [prog.rank(v) for v in vectors] == picks
    fresh = ConditionedProgramme(plan, comp)
    fresh._suffix[1] = None  # refused: that level rejoins
    assert [fresh.unrank(i) for i in picks] == vectors
