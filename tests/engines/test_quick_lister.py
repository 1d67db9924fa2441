"""The cheap listers tried first (direct.quick_lister): the source programme within ROOT_WORK, else the prefix lister
where its first prefix leaves PREFIX_FREE sources free, before the source programme within LIST_WORK. They change
which programme lists, never the rows, their order, or whether "auto" lists with the direct engine: each board is
listed both ways (the quick listers on, and off: PREFIX_FREE = 0, the order before them) and the two must agree byte
for byte."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_perf_paths import overlapping_boards

from benchmarks.boards import random_sharing
from trample import Combat
from trample.engines import conditioned, direct
from trample.engines.ordered import SourceProgramme
from trample.models import load_scenario


@pytest.fixture(autouse=True)
def _no_column_trial(monkeypatch):
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 0)


def _listing(sc: dict, free: int, mp: pytest.MonkeyPatch, rows: int = 400, blocks: int | None = None):
    """A fresh plan's choice (canonical?), its programmes per component, and its rows (the first ``blocks``)."""
    mp.setattr(direct, "PREFIX_FREE", free)
    combat = Combat(load_scenario(sc))
    canonical = combat.canonical()
    got = list(itertools.islice(combat.assignment_blocks(rows=rows), blocks))
    listers = [direct.component_lister(combat.plan, c) for c in combat.plan.components if len(c) > 1]
    return canonical, listers, b"".join(b.astype(np.int64).tobytes() for b in got), combat


#: small boards of the wide shape (4 blockers each, shared at random), with the source programme's bound in the
#: quick try (ROOT_WORK) low enough that it refuses there and the prefix lister's first prefix decides
WIDE = [random_sharing(n, n + 1, per=4, seed=s, power=(2, 4)) for n, s in ((4, 1), (5, 2), (6, 3))]


@pytest.mark.parametrize("sc", WIDE, ids=["4 on 5", "5 on 6", "6 on 7"])
def test_the_prefix_lister_chosen_first_lists_the_source_listers_rows(monkeypatch, sc):  # 702.19b, 510.1a
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 8)
    with pytest.MonkeyPatch.context() as mp:
        canon_old, old, want, _ = _listing(sc, 0, mp, blocks=40)
    # (PREFIX_FREE at 1: with ROOT_WORK this low the first prefix of 6 on 7 leaves one source free)
    canon_new, new, got, combat = _listing(sc, 1, monkeypatch, blocks=40)
    assert canon_old and canon_new
    assert all(isinstance(p, SourceProgramme) for p in old)  # before: the source programme within LIST_WORK
    assert any(isinstance(p, conditioned.PrefixLister) for p in new)  # now: the prefix lister, found first
    assert got == want and len(got) > 0
    # and from any start (shards): the same rows as the source programme's
    plan = combat.plan
    for comp, lister in zip([c for c in plan.components if len(c) > 1], new):
        ref = SourceProgramme(plan, comp)
        n = ref.count()
        assert lister.count() == n
        for start in (n // 3, max(0, n - 30)):
            a = next(ref.blocks(rows=300, dtype=np.int16, start=start))
            b = next(lister.blocks(rows=300, dtype=np.int16, start=start))
            assert a.tobytes() == b.tobytes()


def test_a_first_prefix_too_deep_leaves_the_listing_to_the_source_programme(monkeypatch):  # 702.19b
    # a first prefix that leaves fewer than PREFIX_FREE sources free (here: any, at 99): nothing is kept from the
    # try, and the source programme within LIST_WORK lists, as before
    monkeypatch.setattr(conditioned, "ROOT_WORK", 1 << 8)
    with pytest.MonkeyPatch.context() as mp:
        _, _, want, _ = _listing(WIDE[1], 0, mp)
    _, listers, got, combat = _listing(WIDE[1], 99, monkeypatch)
    assert all(isinstance(p, SourceProgramme) for p in listers)
    (comp,) = [tuple(c) for c in combat.plan.components if len(c) > 1]
    assert combat.plan.cache.of("direct")[("quick", comp)] is False
    assert ("prefix", comp) not in combat.plan.cache.of("direct-ordered")
    assert got == want


def test_the_quick_source_programme_is_the_source_listers(monkeypatch):  # 702.19b
    # within ROOT_WORK: the source programme is built once, by the quick try, and source_lister hands out the same
    _, listers, _, combat = _listing(WIDE[0], direct.PREFIX_FREE, monkeypatch)
    (comp,) = [tuple(c) for c in combat.plan.components if len(c) > 1]
    (prog,) = listers
    assert isinstance(prog, SourceProgramme)
    assert combat.plan.cache.of("direct")[("quick", comp)] is prog
    assert direct.source_lister(combat.plan, comp) is prog


@settings(max_examples=60, deadline=None)
@given(
    overlapping_boards(max_attackers=4, max_blockers=4, max_power=4),
    st.sampled_from([(1, 1 << 6), (1 << 10, 1 << 6), (1 << 28, 1 << 6), (1 << 28, 1 << 22), (1, 1 << 22)]),
    st.sampled_from([1, 2, 99]),
)
def test_the_choice_and_the_rows_are_the_old_orders(sc, bounds, free):  # 702.19b, 702.19c, 702.2c, 510.1a
    # whatever the bounds (the column programme's limits at 0: every component of several sources goes to the
    # listers), "auto" lists with the direct engine exactly where it did, and the same rows in the same order
    list_work, root_work = bounds
    with pytest.MonkeyPatch.context() as mp:
        for name in ("STATE_LIMIT", "WORK_LIMIT", "CELL_LIMIT"):
            mp.setattr(direct, name, 0)
        mp.setattr(direct, "LIST_WORK", list_work)
        mp.setattr(conditioned, "ROOT_WORK", root_work)
        combat = Combat(load_scenario(sc))
        if combat.plan.has_options or combat.count() > 20_000:
            return
        canon_old, _, want, _ = _listing(sc, 0, mp, rows=97)
        canon_new, _, got, _ = _listing(sc, free, mp, rows=97)
    assert canon_new == canon_old
    if canon_old:
        assert got == want
