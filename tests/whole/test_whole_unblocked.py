"""The whole-combat search on boards whose attackers may assign as though they weren't blocked (510.1c; issue 21):
their first step listed in the canonical order way by way (trample.whole.search._first_blocks), searched best
bound first with the bounds counting such an attacker as reaching what it attacks whatever blocks it. Checked
against the search of every first step one by one (the path those boards took before: _ways_listed off), against
every reply and regular step (the bounds, the overkill floor) and against the brute-force minimax of
tests/oracles/brute_combat.py.
"""

from __future__ import annotations

import pytest
import strategies
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_whole_search import (
    DEFEATABLE_LISTS,
    _assert_bounds_and_floor,
    _searched_table,
    agrees_with_brute_force,
    defeatable,
    one_group,
)

from benchmarks.bench_whole_search import WITH_LISTS
from benchmarks.boards import defeatable_with
from trample import Combat
from trample.models import Side
from trample.whole import WholeCombat
from trample.whole import search as whole_search


@st.composite
def unblockable(draw) -> dict:
    """:func:`defeatable`'s and :func:`one_group`'s boards (2 double-strike tramplers, their own blockers and a
    shared first striker; a planeswalker or battle the first step can defeat, two players, a low life) with some
    attackers that may assign as though unblocked, now and then without trample (then only that way reaches what
    it attacks)."""
    doc = draw(st.one_of(defeatable(), one_group()))
    chosen = draw(st.sampled_from([[0], [1], [0, 1], [0, 1]]))
    for i in chosen:
        doc["attackers"][i]["as_though_unblocked"] = True
    if draw(st.booleans()):
        a = doc["attackers"][draw(st.sampled_from(chosen))]
        a["keywords"] = [k for k in a["keywords"] if k != "trample"]
    return doc


def _reference(doc: dict, objectives: list[str]):
    """The search with the first step streamed one assignment at a time (the path before the canonical listing of
    the ways: every effect searched in turn)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(whole_search, "_ways_listed", lambda problem: False)
        return WholeCombat(doc).solve(objectives)


def _assert_same_as_reference(doc: dict, objectives: list[str]) -> None:
    new, old = WholeCombat(doc).solve(objectives), _reference(doc, objectives)
    assert new.status == old.status
    assert new.objectives == old.objectives
    assert new.assignment == old.assignment
    assert new.lethal == old.lethal


def _listed(doc: dict) -> bool:
    whole = WholeCombat(doc)
    problem = whole_search._Problem(
        whole, whole_search.parse_objectives(["max-damage"]), whole_search.deadline_of(None), {}, whole_search._Stats()
    )
    return whole_search._ways_listed(problem)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(unblockable(), st.sampled_from([*DEFEATABLE_LISTS, ["max-value"], ["lethal", "max-damage"]]))
def test_unblockable_boards_keep_the_line_of_the_search_one_by_one(doc, objectives):
    # the same status, values, line and lethal report as searching every first-step effect in turn
    assume(_listed(doc))
    _assert_same_as_reference(doc, objectives)


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(unblockable(), st.sampled_from(DEFEATABLE_LISTS))
def test_the_bounds_hold_when_attackers_may_assign_as_though_unblocked(doc, objectives):
    # 510.1c: such an attacker may put all its regular-step damage on what it attacks whatever blocks it, so the
    # damage bounds (max-damage, lethal, a planeswalker's value) count it as unblocked; every reply's bounds must
    # hold for every regular step, their least bound the candidate's value, and the overkill floor stay at most the
    # least overkill
    assume(_searched_table(doc, objectives) is not None)
    _assert_bounds_and_floor(doc, objectives)


@pytest.mark.slow
@settings(max_examples=strategies.examples(40), deadline=None)
@given(unblockable(), st.sampled_from(DEFEATABLE_LISTS))
def test_unblockable_boards_match_the_brute_force_minimax(doc, objectives):
    agrees_with_brute_force(doc, objectives)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("objectives", WITH_LISTS)
def test_the_benchmark_board_keeps_its_line(n, objectives):
    # the benchmark's shape (every attacker of the defeatable planeswalker may assign as though unblocked), small
    _assert_same_as_reference(defeatable_with(n, "as_though_unblocked"), objectives.split(","))


def test_the_benchmark_board_is_searched_best_bound_first():
    whole = WholeCombat(defeatable_with(4, "as_though_unblocked"))
    problem = whole_search._Problem(
        whole, whole_search.parse_objectives(["max-damage"]), whole_search.deadline_of(None), {}, whole_search._Stats()
    )
    assert not problem.attacking_first.canonical()  # the direct engine's order does not cover the option
    assert problem.attacking_first.canonical() or whole_search._ways_listed(problem)
    assert whole_search._plain_first_step(problem, True, over=True)
    assert whole_search._bounded(problem)
    result = whole.solve(["min-overkill"])
    assert result.status == "optimal"
    assert result.solves < 20  # a few candidates searched, not every effect (776 one-step solves before)


@settings(max_examples=strategies.examples(40), deadline=None)
@given(st.one_of(unblockable(), st.integers(2, 3).map(lambda n: defeatable_with(n, "as_though_unblocked"))))
def test_the_ways_are_listed_once_each_in_the_canonical_order(doc):
    # every legal first-strike assignment exactly once (the engines' listing, way by way), in the order of the
    # product of the components' lexicographic orders, first component slowest; small blocks (LIST_ROWS) so that
    # the components before the tail are read in several blocks
    step = Combat(WholeCombat(doc).scenario.with_step("first_strike"), side="attacking")
    assume(step.plan.has_options)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(whole_search, "LIST_ROWS", 64)
        blocks = list(whole_search._first_blocks(step, whole_search.deadline_of(None)))
    assert len(blocks) > 1 or len(blocks[0]) <= 64 * 64
    got = [tuple(r) for b in blocks for r in b.tolist()]
    listed = [tuple(r) for b in step.assignment_blocks() for r in b.tolist()]
    assert len(got) == len(set(got)) == len(listed)
    assert set(got) == set(listed)
    plan = step.plan
    position = {c: k for k, c in enumerate(plan.columns)}
    keys = [tuple(row[position[c]] for comp in plan.components for c in plan.component_columns(comp)) for row in got]
    assert keys == sorted(keys)


def test_the_line_keeps_the_canonical_regular_step_when_the_search_escalated(monkeypatch):
    # benchmarks' whole_search row: the search's solve of the chosen regular step drags and escalates to
    # STRONG_PARAMS, so the line's solve of that state with the tie-break starts there (whole.search._line_of);
    # its A2 must be the one-step solver's canonical optimum on the default settings
    objectives = "lethal,max-kills,min-overkill"
    seen = []
    solve_step = whole_search.solve_step

    def spied(*args, **options):
        seen.append(options.get("params"))
        return solve_step(*args, **options)

    monkeypatch.setattr(whole_search, "solve_step", spied)
    whole = WholeCombat(defeatable_with(6, "trample_over+as_though_unblocked"))
    result = whole.solve(objectives)
    assert result.status == "optimal"
    assert seen[-1] == whole_search.STRONG_PARAMS  # the hint was taken
    line = result.assignment
    alone = Combat(whole.state_after(line.first_strike), side=Side.ATTACKING).solve(objectives)
    regular = line.regular.to_json()
    assert alone.assignment.to_json() == {a: regular[a] for a in alone.assignment.to_json()}
