"""What "auto" lists with on the wide random boards of issue 21 (random_sharing(12, 14, 4): 12 tramplers, 14 blockers,
4 blockers each): the source programme passes its work bound there and the column programme its state limit, but the
prefix lister on the count's join tree (engines/conditioned.py) lists them, so "auto" must pick the direct engine
(:meth:`trample.engines.AutoEngine.pick`, ``Combat.canonical()``), never CP-SAT, and list the rows engine="direct"
lists, in the same order. On a smaller board of the same shape the limits are set so that the same choice is made,
and the rows are checked against the brute force (sorted by the canonical key) and CP-SAT's listing.
"""

from __future__ import annotations

import numpy as np
import pytest
from brute import brute_force
from test_ordered import _canonical

import trample.engines.conditioned as conditioned
import trample.engines.direct as direct
from benchmarks.boards import random_sharing
from trample import Combat
from trample.engines import get_engine
from trample.limits import Deadline, LimitReached
from trample.models import load_scenario


def _no_cpsat(monkeypatch) -> None:
    """CP-SAT's listing raises: a fallback to it fails the test whatever the choice says."""
    cpsat = get_engine("cpsat")

    def refuse(*args, **kwargs):
        raise AssertionError("auto listed with CP-SAT")

    monkeypatch.setattr(type(cpsat), "iterate", refuse)


@pytest.mark.parametrize("seed", [1, 5])
def test_auto_lists_the_wide_random_boards_with_the_direct_engine(monkeypatch, seed):  # 702.19b
    _no_cpsat(monkeypatch)
    sc = random_sharing(12, 14, 4, seed=seed)
    combat = Combat(load_scenario(sc))
    plan = combat.plan
    (comp,) = plan.components
    assert not direct.bounded_dp(plan, comp)  # past the column programme's limits
    assert direct.source_lister(plan, comp) is None  # and the source programme's work bound
    assert get_engine("auto").pick(plan, comp).name == "direct"
    assert combat.canonical()
    assert isinstance(direct.component_lister(plan, comp), conditioned.PrefixLister)
    got = next(combat.assignment_blocks(rows=2000))
    want = next(Combat(load_scenario(sc), engine="direct").assignment_blocks(rows=2000))
    assert got.shape == (2000, len(plan.columns)) and np.array_equal(got, want)
    rows = [tuple(r) for r in got.tolist()]
    assert rows == sorted(rows) and len(set(rows)) == len(rows)  # one component: the canonical order is lexicographic
    first = list(combat.assignments(limit=5))
    assert [a.to_json() for a in first] == [plan.assignment([(plan.columns, r)]).to_json() for r in rows[:5]]
    assert all(combat.is_legal(a) for a in first)


#: the same shape, small: 4 tramplers of power 1-3 over 5 blockers, 4 blockers each (1280 legal assignments)
SMALL = random_sharing(4, 5, 4, seed=1, power=(1, 3))


@pytest.mark.parametrize("root_work", [1 << 8, 1 << 12])
def test_past_both_listers_limits_auto_lists_the_direct_engines_rows(monkeypatch, root_work):  # 702.19b, 510.1a
    # the column programme's limits at 0 and the source programme's work bound at 1 (as on the wide boards), no
    # column trial: the prefix lister is the direct engine's, and "auto" must take it, not CP-SAT
    for name in ("STATE_LIMIT", "WORK_LIMIT", "CELL_LIMIT", "COLUMN_TRIAL"):
        monkeypatch.setattr(direct, name, 0)
    monkeypatch.setattr(direct, "LIST_WORK", 1)
    monkeypatch.setattr(conditioned, "ROOT_WORK", root_work)  # small: the walk fixes a few sources first
    reference = set(Combat(load_scenario(SMALL), engine="cpsat").assignments())
    _no_cpsat(monkeypatch)
    auto, by_direct = Combat(load_scenario(SMALL)), Combat(load_scenario(SMALL), engine="direct")
    plan = auto.plan
    (comp,) = plan.components
    assert get_engine("auto").pick(plan, comp).name == "direct" and auto.canonical()
    assert isinstance(direct.component_lister(plan, comp), conditioned.PrefixLister)
    rows = np.concatenate(list(auto.assignment_blocks(rows=100)))
    assert np.array_equal(rows, np.concatenate(list(by_direct.assignment_blocks(rows=100))))
    assert [tuple(r) for r in rows.tolist()] == _canonical(auto, brute_force(SMALL))
    assert len(rows) == auto.count() == by_direct.count() == 1280
    assert set(auto.assignments()) == reference and len(reference) == 1280


def test_when_the_prefix_lister_refuses_too_auto_falls_back_to_cpsat(monkeypatch):  # the choice, both ways
    for name in ("STATE_LIMIT", "WORK_LIMIT", "CELL_LIMIT", "COLUMN_TRIAL"):
        monkeypatch.setattr(direct, name, 0)
    monkeypatch.setattr(direct, "LIST_WORK", 1)
    monkeypatch.setattr(direct, "prefix_lister", lambda plan, key, deadline=None: None)
    monkeypatch.setattr(direct, "PREFIX_FREE", 0)  # nor is it tried first (direct.quick_lister)
    combat = Combat(load_scenario(SMALL))
    (comp,) = combat.plan.components
    assert get_engine("auto").pick(combat.plan, comp).name == "cpsat" and not combat.canonical()
    assert len(set(combat.assignments())) == 1280


def _expired() -> Deadline:
    d = Deadline(1e-9)
    while not d.expired():
        pass
    return d


def test_a_time_limit_stops_auto_on_a_wide_board_with_the_direct_engines_rows(monkeypatch):  # 702.19b
    # the choice itself reads the deadline (a passed one: LimitReached, not CP-SAT and not a hang); with a running
    # one, the rows listed before it are the direct engine's first rows (the stream stops, honestly, at the limit)
    _no_cpsat(monkeypatch)
    sc = random_sharing(12, 14, 4, seed=1)
    with pytest.raises(LimitReached):
        next(Combat(load_scenario(sc)).assignment_blocks(time_limit=_expired()))
    got, seen = [], 0
    with pytest.raises(LimitReached):
        for a in Combat(load_scenario(sc)).assignments(time_limit=1.0):
            seen += 1
            if seen > 5 * 10**7:  # a minute of rows or more: the limit was not read
                pytest.fail("the time limit was not honoured")
            if len(got) < 300:
                got.append(a)
    assert got == list(Combat(load_scenario(sc), engine="direct").assignments(limit=len(got)))
    assert seen >= len(got)
