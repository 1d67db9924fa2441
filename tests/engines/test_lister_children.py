"""How the source programme's lister (trample.engines.ordered ``Lister``) works out the children of the states its
walk meets: the same children, in the same order, whichever way.

- ``Lister._sparse``: where a slice of states' children are few against (states x splits) (``SPARSE_SHARE``), they
  are the splits of the table entries that lead somewhere, gathered per entry and sorted, not a cell per (state,
  split);
- ``_Kept.meet`` / ``resolve``: where a frame meets many new states (``EAGER_CELLS``), only their numbers of children
  are worked out when it is made (their targets gathered straight into the kept table, and counted there), and the
  children as the walk's slices reach them;
- ``Lister._targets``: at most ``PAIRS`` pairs a slice, their codes written in the pool's buffers (``_scratch``);
  the last source's (``Lister._ends``) a yes or no of its join matrices' rows, not codes.

The oracle is the other way of each (and, through them, the brute force in test_source_lister.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_ordered import _shared_square

from benchmarks.boards import pw_cycle, random_sharing
from trample import Combat
from trample.engines import ordered
from trample.engines.ordered import SourceProgramme
from trample.limits import NEVER
from trample.models import load_scenario

BOARDS = [
    _shared_square(4, 3),
    _shared_square(3, 6),
    pw_cycle(5, power=4, loyalty=2),
    random_sharing(5, 6, 3, seed=2, power=(2, 4)),  # (reaches states without completions)
]


def _component(sc: dict) -> tuple:
    plan = Combat(load_scenario(sc)).plan
    (comp,) = [c for c in plan.components if len(c) > 1]
    return plan, comp


def _rows(prog: SourceProgramme, n: int, rows: int = 1000, start: int = 0) -> np.ndarray:
    blocks = prog.blocks(rows, np.int8, start=start)
    return np.concatenate(list(itertools.islice(blocks, -(-n // rows))))[:n]


@pytest.mark.parametrize("live_bytes", [ordered.LIVE_BYTES, 0])  # int32 targets by one gather; int64 found
@pytest.mark.parametrize("sc", BOARDS, ids=["square43", "square36", "cycle", "random"])
def test_children_from_the_live_entries_are_those_of_every_split(monkeypatch, sc, live_bytes):  # 510.1a
    # every level's children (offsets, split indices, targets) of all its live states, of a random few, and of a
    # rooted programme's (its fixed sources' int64 targets): the same by the live entries' splits as by every split
    monkeypatch.setattr(ordered, "LIVE_BYTES", live_bytes)
    plan, comp = _component(sc)
    whole = SourceProgramme(plan, comp)
    first = next(whole.blocks(rows=1, dtype=np.int64))[0].tolist()
    width = len(plan.sources[comp[0]].routes)
    rooted = SourceProgramme(plan, comp, prefix=(tuple(first[:width]),))
    rng = np.random.default_rng(3)
    taken = 0
    for prog in (whole, rooted):
        lister = prog.lister(np.int8)
        for j in range(len(comp)):
            live = np.flatnonzero(lister.alive[j])
            for states in (live, np.sort(rng.choice(live, size=min(5, len(live)), replace=False))):
                monkeypatch.setattr(ordered, "SPARSE_SHARE", 1 << 62)  # never: a cell per (state, split)
                dense = lister._children(j, states)
                monkeypatch.setattr(ordered, "SPARSE_SHARE", 0)  # always
                sparse = lister._children(j, states)
                assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(dense, sparse))
                taken += len(sparse[1])
    assert taken


def test_the_default_share_takes_the_live_entries_where_children_are_few(monkeypatch):  # 510.1a
    # a shared square's last source, walked (no tables): a state's children are a few of its 286 splits; they come
    # from the live entries, and the rows are those of the walk over every split
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", 0)
    plan, comp = _component(_shared_square(3, 6))
    calls: list[bool] = []
    real = ordered.Lister._sparse
    monkeypatch.setattr(
        ordered.Lister, "_sparse", lambda s, j, b: calls.append(real(s, j, b) is not None) or real(s, j, b)
    )
    prog = SourceProgramme(plan, comp)
    n = prog.count()
    got = _rows(prog, n)
    assert any(calls) and not all(calls)  # (the dense levels stay dense)
    monkeypatch.setattr(ordered, "SPARSE_SHARE", 1 << 62)
    assert np.array_equal(got, _rows(SourceProgramme(plan, comp), n))


@pytest.mark.parametrize("eager", [0, ordered.EAGER_CELLS])
def test_a_frame_of_many_new_states_counts_them_and_works_out_their_children_as_reached(monkeypatch, eager):
    # 510.1a: square(4) of power 10, walked (no tables), its slices PREFIX_BYTES whole (AHEAD_BLOCKS past them): the
    # frame of its fourth source meets 178 states at once; their numbers of children are worked out, their children
    # for the few states the first block reaches. The rows are those of children worked out at once (EAGER_CELLS
    # past every frame) and a slice at a time (CSR_CELLS 0), from the first row and from a third of the count
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", 0)
    monkeypatch.setattr(ordered, "AHEAD_BLOCKS", 1 << 40)
    monkeypatch.setattr(ordered, "EAGER_CELLS", eager)
    plan, comp = _component(_shared_square(4, 10))
    prog = SourceProgramme(plan, comp)
    lister = prog.lister(np.int8)
    assert lister.keep
    next(lister.blocks(64, NEVER))
    counted = {j: int(np.count_nonzero(k.lens >= 0)) for j, k in lister._csr.items()}
    worked = {j: int(np.count_nonzero(k.start >= 0)) for j, k in lister._csr.items()}
    assert counted[3] >= 100 and worked[3] <= 10, (counted, worked)
    if eager:
        assert all(counted[j] == worked[j] for j in (0, 1, 2))  # (one state each: at once)
    n = 200_000
    third = prog.count() // 3
    got = [_rows(prog, n), _rows(prog, n, start=third)]
    monkeypatch.setattr(ordered, "EAGER_CELLS", 1 << 62)
    at_once = SourceProgramme(plan, comp)
    assert all(np.array_equal(a, b) for a, b in zip(got, [_rows(at_once, n), _rows(at_once, n, start=third)]))
    at_once_lister = at_once.lister(np.int8)
    next(at_once_lister.blocks(64, NEVER))
    assert all(np.count_nonzero(k.start >= 0) == np.count_nonzero(k.lens >= 0) for k in at_once_lister._csr.values())
    monkeypatch.setattr(ordered, "CSR_CELLS", 0)
    slices = SourceProgramme(plan, comp)
    assert not slices.lister(np.int8).keep
    assert all(np.array_equal(a, b) for a, b in zip(got, [_rows(slices, n), _rows(slices, n, start=third)]))


def _first_block(prog: SourceProgramme, rows: int) -> tuple[dict[int, int], list[tuple[int, int]]]:
    """The first block of ``rows`` rows: per level, the states whose children were counted; the steps taken."""
    steps: list[tuple[int, int]] = []
    real = ordered._Frame.take
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ordered._Frame, "take", lambda f, step: steps.append((f.j, step)) or real(f, step))
        lister = prog.lister(np.int8)
        next(lister.blocks(rows, NEVER))
    return {j: int(np.count_nonzero(k.lens >= 0)) for j, k in lister._csr.items()}, steps


@pytest.mark.parametrize("suffix", [0, ordered.SUFFIX_BYTES])
def test_a_slice_above_the_last_level_is_made_for_a_few_blocks_of_rows(monkeypatch, suffix):  # 510.1a
    # Lister.blocks: above the last level, a slice of prefixes is about AHEAD_BLOCKS blocks of rows below it (at least
    # AHEAD_LEAST prefixes), not PREFIX_BYTES of them: square(4) of power 10's first block of 64 rows meets 59 states
    # of its fourth source (178 in slices of PREFIX_BYTES). The rows are those of slices of PREFIX_BYTES, walked and
    # with tables, from the first row and from a third of the count, whole and rooted
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", suffix)
    plan, comp = _component(_shared_square(4, 10))
    prog = SourceProgramme(plan, comp)
    met, steps = _first_block(prog, 64)
    above = [step for j, step in steps if j < len(comp) - 1]
    assert above and max(above) <= max(ordered.AHEAD_LEAST, 2 * ordered.AHEAD_BLOCKS * 64), steps
    n = 50_000
    third = prog.count() // 3
    width = len(plan.sources[comp[0]].routes)
    head = (tuple(next(prog.blocks(1, np.int64))[0, :width].tolist()),)
    got = [_rows(prog, n), _rows(prog, n, start=third), _rows(SourceProgramme(plan, comp, prefix=head), n)]
    monkeypatch.setattr(ordered, "AHEAD_BLOCKS", 1 << 40)
    whole = SourceProgramme(plan, comp)
    if not suffix:
        assert 0 < met[3] < _first_block(whole, 64)[0][3] // 2
    old = [_rows(whole, n), _rows(whole, n, start=third), _rows(SourceProgramme(plan, comp, prefix=head), n)]
    assert all(np.array_equal(a, b) for a, b in zip(got, old))


@pytest.mark.parametrize("live_bytes", [ordered.LIVE_BYTES, 0])  # int32 targets by one gather; int64 found
def test_a_frame_of_many_new_states_gathers_their_targets_into_the_kept_table(monkeypatch, live_bytes):  # 510.1a
    # _Kept.meet past EAGER_CELLS: each slice of Lister._targets written straight into the kept targets' rows (the
    # rows yielded are those rows) and counted there, in slices of a few states (SLICE_CELLS lowered), twice (the
    # table grown); the targets and the numbers of children are those of new arrays and of Lister._counts
    monkeypatch.setattr(ordered, "LIVE_BYTES", live_bytes)
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", 0)
    monkeypatch.setattr(ordered, "EAGER_CELLS", 0)
    monkeypatch.setattr(ordered, "SLICE_CELLS", 1 << 10)
    plan, comp = _component(_shared_square(4, 10))
    lister = SourceProgramme(plan, comp).lister(np.int8)
    for j in (2, 3):  # (3, the last source: its targets by Lister._ends, copied into the rows)
        live = np.flatnonzero(lister.alive[j])
        halves = [live[::2], live[1::2]]
        kept = ordered._Kept(len(lister.prog.codes[j]))
        out = np.full((len(halves[0]), len(lister.prog.tkeys[j])), -7, dtype=np.int32)
        slices = list(lister._targets(j, halves[0], out))
        assert len(slices) > 2 and all(np.shares_memory(t, out) for t in slices)
        for states in halves:
            kept.meet(lister, j, states)
        assert kept.targets is not None and kept.filled == len(live)
        for states in halves:
            fresh = np.concatenate([t.copy() for t in lister._targets(j, states)])  # (each valid until the next)
            assert np.array_equal(kept.targets[kept.row[states]], fresh.astype(np.int32))
            assert np.array_equal(kept.lens[states], lister._counts(j, states))
        assert np.array_equal(out, kept.targets[kept.row[halves[0]]])
    assert len(ordered._SCRATCH) <= ordered.SCRATCH_KEPT


@pytest.mark.parametrize("sc", BOARDS, ids=["square43", "square36", "cycle", "random"])
def test_the_last_sources_targets_are_a_yes_or_no_of_its_join_matrices(monkeypatch, sc):  # 510.1a
    # Lister._ends: nothing comes after the last source, so its pairs lead to the empty cut's one state or are dead;
    # the matrices' rows as booleans ANDed give the targets of the full pair codes looked up, in slices of a few
    # states (SLICE_CELLS lowered), whole or rooted, and the walk's rows (every level walked) are the column
    # programme's
    from trample.engines.direct import ComponentDP

    monkeypatch.setattr(ordered, "SLICE_CELLS", 1 << 10)
    plan, comp = _component(sc)
    whole = SourceProgramme(plan, comp)
    first = next(whole.blocks(rows=1, dtype=np.int64))[0].tolist()
    width = len(plan.sources[comp[0]].routes)
    rooted = SourceProgramme(plan, comp, prefix=(tuple(first[:width]),))
    j = len(comp) - 1
    for prog in (whole, rooted):
        lister = prog.lister(np.int8)
        states = np.flatnonzero(lister.alive[j])
        slices = [t.copy() for t in lister._targets(j, states)]  # (each valid until the next)
        assert j in lister._yes_no and all(t.dtype == np.int8 for t in slices)
        code = prog._pair_codes(j, prog._decode(j, prog.codes[j][states].copy()))
        at = prog.find(j + 1, code)
        expected = np.where(lister.alive[j + 1].take(at, mode="clip") & (at >= 0), at, -1)
        assert np.array_equal(np.concatenate(slices), expected) and (expected == 0).any() and (expected < 0).any()
        out = np.full(expected.shape, -7, dtype=np.int32)
        for _ in lister._targets(j, states, out):
            pass
        assert np.array_equal(out, expected)
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", 0)
    got = np.concatenate(list(SourceProgramme(plan, comp).blocks(1000, np.int8)))
    assert np.array_equal(got, np.concatenate(list(ComponentDP(plan, comp).blocks(1000, np.int8))))


def test_the_listers_pair_codes_are_written_in_the_pools_buffers(monkeypatch):  # 510.1a
    # Lister._targets: slices of at most PAIRS pairs, their codes in the two buffers of _scratch (given back after),
    # not new arrays (square(6): 4 MB a matrix mapped afresh per slice); the rows are those of new arrays
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", 0)
    plan, comp = _component(_shared_square(4, 3))
    seen: list[tuple[int, int]] = []
    real = SourceProgramme._pair_codes

    def spy(self, j, a, room=()):
        seen.append((len(room), len(a) * len(self.tkeys[j])))
        return real(self, j, a, room)

    monkeypatch.setattr(SourceProgramme, "_pair_codes", spy)
    prog = SourceProgramme(plan, comp)
    n = prog.count()
    seen.clear()  # (the build's own walks over pairs)
    got = _rows(prog, n)
    assert seen and all(room == 2 and pairs <= ordered.PAIRS for room, pairs in seen), seen
    assert len(ordered._SCRATCH) <= ordered.SCRATCH_KEPT
    monkeypatch.setattr(SourceProgramme, "_pair_codes", lambda self, j, a, room=(): real(self, j, a))
    assert np.array_equal(got, _rows(SourceProgramme(plan, comp), n))


def test_a_levels_slices_are_written_again_in_its_own_buffers(monkeypatch):  # 510.1a
    # Lister._slice_room: the rows of a level's slices (small: PREFIX_BYTES lowered, many of them) in a buffer of the
    # level's own, written again once its last slice's frame is gone: a couple of buffers for hundreds of slices, and
    # the rows those of the column programme, from the first row and from a third of the count
    from trample.engines.direct import ComponentDP

    monkeypatch.setattr(ordered, "PREFIX_BYTES", 1 << 7)
    monkeypatch.setattr(ordered, "SUFFIX_BYTES", 0)  # (every level walked)
    plan, comp = _component(random_sharing(5, 6, 3, seed=2, power=(2, 4)))
    calls: list[bool] = []  # per slice, whether its buffer was made new
    real = ordered.Spare.empty

    def spy(self, rows, dtype):
        before = [id(b) for b in self.held]
        got = real(self, rows, dtype)
        if self is not block_spare[0]:
            calls.append(id(got.base) not in before)
        return got

    block_spare: list = [None]
    monkeypatch.setattr(ordered.Spare, "empty", spy)
    prog = SourceProgramme(plan, comp)
    lister = prog.lister(np.int8)
    n = prog.count()
    block_spare[0] = ordered.Spare()
    got = np.concatenate(list(lister.blocks(1000, NEVER, spare=block_spare[0])))
    assert len(lister._slices) > 1 and len(calls) > 100
    assert sum(calls) <= ordered.SPARE_BLOCKS * len(lister._slices), (sum(calls), len(calls))
    old = ComponentDP(plan, comp)
    assert np.array_equal(got, np.concatenate(list(old.blocks(1000, np.int8))))
    third = n // 3
    assert np.array_equal(_rows(SourceProgramme(plan, comp), n - third, start=third), got[third:])
    # a rooted programme (the prefix lister's: many, each listed a while) writes its slices in new arrays
    width = len(plan.sources[comp[0]].routes)
    rooted = SourceProgramme(plan, comp, prefix=(tuple(got[0, :width].tolist()),))
    lister = rooted.lister(np.int8)
    assert np.array_equal(np.concatenate(list(lister.blocks(1000, NEVER))), got[: rooted.count()])
    assert not lister._slices
