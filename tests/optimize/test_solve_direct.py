"""`solve` on small boards reads the direct engine's blocks instead of importing OR-Tools (issue 21: CLI start-up);
the answer is the CP-SAT model's, tie-break included (the lexicographically smallest optimal vector over
plan.columns), checked on generated boards against the CP-SAT path forced by a bound of 0 rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from boards import DEATHTOUCH_TRAMPLER
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios

from trample import Combat
from trample.models import load_scenario
from trample.optimize import search

OBJECTIVES = ["max-damage", "lethal", "max-kills", "min-overkill", "lethal,max-kills", "max-kills,min-overkill"]


@settings(max_examples=80, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3), st.sampled_from(OBJECTIVES))
def test_small_boards_solve_as_cpsat_does(sc, objectives):  # 510.1a-d, 702.19b-c: the same optimum, same tie-break
    combat = Combat(load_scenario(sc))
    direct = search._small_direct(combat, search.parse_objectives(objectives, combat.scenario), None)
    bound = search.SOLVE_DIRECT_ROWS
    try:
        search.SOLVE_DIRECT_ROWS = 0  # the CP-SAT model
        reference = search.solve(Combat(load_scenario(sc)), objectives)
    finally:
        search.SOLVE_DIRECT_ROWS = bound
    result = search.solve(combat, objectives)
    if direct is not None:
        assert result.assignment == direct.assignment
    assert result.status == reference.status
    assert result.assignment == reference.assignment
    assert result.objectives == reference.objectives
    assert result.lethal == reference.lethal


def test_solving_a_small_board_does_not_import_ortools():
    board = str(Path(__file__).resolve().parents[2] / "examples" / "thrasta.json")
    code = (
        f"import sys\nfrom trample.cli import main\nsys.argv = ['trample', 'solve', {board!r}, "
        "'--objective', 'lethal']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('ortools' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.sampled_from([0, 1, 7, 1 << 12]))
def test_the_size_test_is_the_count_or_says_large(sc, cap):  # 510.1a-d: the number of legal assignments
    from trample.engines import get_engine
    from trample.optimize.linear import count_at_most

    plan = Combat(load_scenario(sc)).plan
    exact = 1
    for c in plan.components:
        exact *= get_engine("direct").count(plan, c)
    quick = count_at_most(plan, cap)
    assert quick == (exact if exact <= cap else None)  # these boards are small: the bounded work always suffices


def test_a_board_too_wide_to_count_is_solved_without_counting_it(monkeypatch):
    """14 attackers sharing 14 blockers four each: its exact count takes minutes (and `solve` counted it to learn
    whether the board was small); the size test gives up within its bounded work, and CP-SAT solves it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.boards import random_sharing
    from trample.engines import direct

    def no_exact_count(*args, **kw):
        raise AssertionError("the exact count of a wide board")

    monkeypatch.setattr(direct, "count_component", no_exact_count)
    result = Combat(load_scenario(random_sharing(14, 14, per=4, seed=0))).solve("lethal")
    assert result.status == "optimal" and result.lethal["opp"]["reached"] in (True, False)


def _tramplers_on_one(n: int, power: int, toughness: int) -> dict:
    """n tramplers of ``power`` all blocked by one blocker of ``toughness``."""
    attackers = [
        {
            "id": f"a{i}",
            "power": power,
            "toughness": 3,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": ["w"],
        }
        for i in range(n)
    ]
    return {
        "players": [{"id": "opp", "life": 20}],
        "attackers": attackers,
        "blockers": [{"id": "w", "power": 0, "toughness": toughness}],
    }


def test_a_small_board_is_counted_at_most_once_by_the_tables(monkeypatch):
    """The size tests of a solve (search's, then linear.applies') joined the tables of every shared component,
    twice on a board not surely small, and once more on a small one whose listers then counted it again: a solve
    on 60 small boards spent a third of its time there. Now a surely small board's count is read from the listers'
    programmes (no tables), and a count made by the tables is kept for the second test."""
    from trample.optimize import linear

    calls = []
    real = linear.count_by_factors

    def counted(*args, **kw):
        calls.append(args[1])
        return real(*args, **kw)

    monkeypatch.setattr(linear, "count_by_factors", counted)
    small = Combat(load_scenario(_tramplers_on_one(2, power=3, toughness=4)))
    assert linear.surely_at_most(small.plan, search.SOLVE_DIRECT_ROWS)
    assert small.solve("lethal").status == "optimal"
    assert calls == []
    # eight tramplers of power 8 on a blocker of toughness 100: 9^8 splits at most (past linear's bound too), one
    # legal assignment
    hub = _tramplers_on_one(8, power=8, toughness=100)
    board = Combat(load_scenario(hub))
    assert not linear.surely_at_most(board.plan, linear.DIRECT_ROWS) and board.count() == 1
    board = Combat(load_scenario(hub))
    assert board.solve("lethal").status == "optimal"
    assert len(calls) == 1  # counted by the tables once: the second size test read the count kept


def test_time_ms_counts_the_whole_call():
    """A solve that ran out of time says so after at least its limit (the time spent before CP-SAT's budget
    began counts too: it reported 0.1 ms after three seconds)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.boards import random_sharing

    combat = Combat(load_scenario(random_sharing(14, 14, per=4, seed=0)))
    result = combat.solve("lethal,max-kills,min-overkill", time_limit=0.05)
    assert result.status != "unknown" or result.time_ms >= 0.05 * 1000 * 0.99


def test_a_limit_passing_between_the_look_and_the_solve_is_unknown_not_an_invalid_model(monkeypatch):
    """Runner.run looks at the budget, then the solve reads what is left: a limit that passes in between (a loaded
    machine; here a clock that moves 0.6 s at each reading) gave CP-SAT a negative max_time_in_seconds, which it
    rejects as an invalid model (a RuntimeError out of solve)."""
    from trample.limits import Deadline
    from trample.optimize.model import Budget, ObjectiveModel, Runner
    from trample.optimize.objectives import Definitions, damage_step_of

    plan = damage_step_of(Combat(load_scenario(DEATHTOUCH_TRAMPLER))).plan
    clock = [0.0]

    def tick() -> float:
        clock[0] += 0.6
        return clock[0]

    monkeypatch.setattr("trample.limits.monotonic", tick)
    om = ObjectiveModel(plan, Definitions(plan))
    runner = Runner(om, Budget(Deadline(1.0), None), 1, False, False)
    om.m.maximize(om.total("opp").expr())
    assert runner.run() in ("unknown", "optimal", "feasible")  # 1.0 - 0.6 > 0 at the look, < 0 at the solve


@settings(max_examples=40, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3), st.sampled_from(OBJECTIVES), st.sampled_from(OBJECTIVES))
def test_a_second_optimum_of_a_small_board_reads_the_rows_kept(sc, first, second):
    """510.1a-d: the arena's reference asks a board's lethal line after the objectives' optimum; the second solve
    reads the rows the first listed (kept with the plan, read-only) instead of listing them again, and finds what a
    fresh board finds."""
    from trample.step import DamageStep

    listed: list = []
    real = DamageStep.assignment_blocks

    def blocks(self, *args, **kw):
        listed.append(self)
        return real(self, *args, **kw)

    combat = Combat(load_scenario(sc))
    DamageStep.assignment_blocks = blocks  # type: ignore[method-assign]
    try:
        combat.solve(first)
        before = len(listed)
        again = combat.solve(second)
    finally:
        DamageStep.assignment_blocks = real  # type: ignore[method-assign]
    fresh = Combat(load_scenario(sc)).solve(second)
    assert (again.assignment, again.objectives, again.lethal) == (fresh.assignment, fresh.objectives, fresh.lethal)
    if before:  # the first solve read the direct engine's blocks: the second lists none
        assert len(listed) == before
