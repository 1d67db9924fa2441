"""Blocks written again once nobody holds them (ordered.Spare) and the pair codes of a build written over each slice's
(ordered._scratch): memory reused so that it is not faulted in afresh. Neither may change a row, nor overwrite a
block the caller kept: each board is listed keeping every block, and again copying each block and dropping it (the
blocks then written again), and the two must agree byte for byte."""

from __future__ import annotations

import itertools
import weakref

import numpy as np
import pytest

from benchmarks.boards import random_sharing
from trample import Combat
from trample.engines import conditioned, direct, ordered
from trample.engines.ordered import HUGE, SourceProgramme, Spare
from trample.models import load_scenario

#: boards listed by the source programme (the first: more rows than direct._product materialises) and by the prefix
#: lister (the others: ROOT_WORK low below)
BOARDS = [
    random_sharing(n, n + 1, per=4, seed=s, power=p) for n, s, p in ((4, 1, (3, 5)), (5, 2, (2, 4)), (6, 3, (2, 4)))
]


def _bases(block: np.ndarray) -> np.ndarray:
    """The array that owns a block's memory."""
    while isinstance(block.base, np.ndarray):
        block = block.base
    return block


@pytest.mark.parametrize("rows", [7, 64, 1000])
@pytest.mark.parametrize("sc", BOARDS, ids=["4 on 5", "5 on 6", "6 on 7"])
def test_blocks_kept_are_never_written_again(monkeypatch, sc, rows):  # 510.1a: the rows themselves unchanged
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 8)
    kept = list(itertools.islice(Combat(load_scenario(sc)).assignment_blocks(rows=rows), 60))
    dropped, owners = [], []
    for block in itertools.islice(Combat(load_scenario(sc)).assignment_blocks(rows=rows), 60):
        dropped.append(block.tobytes())
        owners.append(weakref.ref(_bases(block)))
    assert len(kept) > 3
    assert b"".join(b.tobytes() for b in kept) == b"".join(dropped)
    # where each block was dropped, the blocks after it were written in the same few buffers
    alive = {id(o()) for o in owners if o() is not None}
    assert len(alive) <= 2 * ordered.SPARE_BLOCKS < len(owners)


def test_a_block_held_by_a_view_is_not_written_again(monkeypatch):
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 8)
    blocks = Combat(load_scenario(BOARDS[2])).assignment_blocks(rows=16)
    views = [next(blocks)[3:5, 1:] for _ in range(2 * ordered.SPARE_BLOCKS)]  # only a slice of each kept
    want = [v.copy() for v in views]
    for _ in range(40):
        next(blocks)
    assert all(np.array_equal(v, w) for v, w in zip(views, want))


def test_a_spare_block_is_free_only_when_nothing_holds_it(monkeypatch):
    monkeypatch.setattr(ordered, "SPARE_BLOCKS", 4)
    spare = Spare()
    dt = np.dtype([("p", "V3"), ("t", "V5")])
    a = spare.empty(100, dt)
    b = spare.empty(100, dt)
    assert _bases(a) is not _bases(b)
    view = a.view(np.int8).reshape(100, 8)[10:]
    del a
    c = spare.empty(100, dt)
    assert _bases(c) is not _bases(view)  # the view still holds the first
    del view, c
    assert _bases(spare.empty(100, dt)) is spare.held[0]  # nothing holds it: written again
    assert _bases(spare.empty(50, dt)) is spare.held[-1]  # another size: a new one


def test_a_large_block_starts_where_huge_pages_align():
    spare = Spare()
    dt = np.dtype("V60")
    block = spare.empty(1 << 16, dt)
    assert block.ctypes.data % HUGE == 0 and block.nbytes == 60 << 16
    assert _bases(block) is spare.held[0]


def test_the_codes_of_each_slice_are_written_over_the_last(monkeypatch):
    monkeypatch.setattr(ordered, "PAIRS", 1 << 6)
    monkeypatch.setattr(ordered, "_SCRATCH", [])
    sc = BOARDS[1]
    plan = Combat(load_scenario(sc)).plan
    comp = max(plan.components, key=len)
    prog = SourceProgramme(plan, comp)
    for j in range(len(comp)):
        n = len(prog.codes[j])
        slices = [(lo, code.copy(), code.ctypes.data) for lo, code in prog._pairs(j, 0, n)]
        fresh = np.concatenate([prog._pair_codes(j, prog._cut_states(j, lo, lo + len(c))) for lo, c, _ in slices])
        assert np.array_equal(np.concatenate([c for _, c, _ in slices]), fresh)
        if len(slices) > 1:
            assert len({at for _, _, at in slices}) == 1  # one buffer, written over
    assert 0 < len(ordered._SCRATCH) <= ordered.SCRATCH_KEPT  # given back


def test_a_prefix_lister_lets_its_blocks_go_when_its_listing_ends(monkeypatch):
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 8)
    combat = Combat(load_scenario(BOARDS[1]))
    (comp,) = [c for c in combat.plan.components if len(c) > 1]
    lister = direct.component_lister(combat.plan, comp)
    assert isinstance(lister, conditioned.PrefixLister)
    blocks = lister.blocks(rows=64)
    for _ in range(20):
        next(blocks)
    assert lister._spare.held  # kept while it lists
    blocks.close()
    assert not lister._spare.held  # (the lister stays in the plan's cache)


def test_a_listings_last_rows_grow_into_a_block_where_they_lie():
    spare = Spare()
    dt = np.dtype("V6")
    block = spare.empty(100, dt).view(np.int8).reshape(100, 6)
    block[:] = np.arange(600, dtype=np.int8).reshape(100, 6)
    piece = block[:37]  # a listing's last rows (_Block.flush)
    grown = spare.grown(piece, 100)
    assert grown is not None and grown.shape == (100, 6) and _bases(grown) is spare.held[0]
    assert grown.ctypes.data == piece.ctypes.data and np.array_equal(grown[:37], piece)
    assert spare.grown(block[40:60], 100) is None  # no room for 100 rows after row 40
    assert spare.grown(np.zeros((37, 6), dtype=np.int8), 100) is None  # not a buffer of this spare
    assert Spare().grown(piece, 100) is None  # nor of another one


def _made(monkeypatch) -> list[int]:
    """Counts the buffers spares make (one entry per new buffer)."""
    made: list[int] = []
    empty = Spare.empty

    def counted(self, rows, dtype):
        before = [id(b) for b in self.held]  # (not the buffers: a reference held here would make each one busy)
        out = empty(self, rows, dtype)
        if id(_bases(out)) not in before:
            made.append(rows)
        return out

    monkeypatch.setattr(Spare, "empty", counted)
    return made


@pytest.mark.parametrize("rows", [64, 1000])
def test_listings_that_end_within_a_block_make_no_new_buffers(monkeypatch, rows):
    # The prefix lister's listings end within blocks: their last rows are the caller's block as they lie (no copy
    # into a new one), and no block is held past its use (the room a listing was given, the last piece), so a
    # caller that drops each block gets every block in the same few buffers.
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 8)
    made = _made(monkeypatch)
    combat = Combat(load_scenario(BOARDS[2]))
    (comp,) = [c for c in combat.plan.components if len(c) > 1]
    lister = direct.component_lister(combat.plan, comp)
    assert isinstance(lister, conditioned.PrefixLister)
    got = [b.tobytes() for b in itertools.islice(lister.blocks(rows=rows), 200)]
    assert len(made) <= ordered.SPARE_BLOCKS  # the block handed out and the one being written
    whole = SourceProgramme(combat.plan, comp).blocks(rows=rows, dtype=np.int8)  # 510.1a: the same rows, in order
    assert b"".join(got) == b"".join(b.tobytes() for b in itertools.islice(whole, 200))
    assert len(got) == 200 and all(len(b) == len(got[0]) for b in got)  # (whole blocks: listings end within them)
