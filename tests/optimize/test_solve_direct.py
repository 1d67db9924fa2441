"""`solve` on small boards reads the direct engine's blocks instead of importing OR-Tools (issue 21: CLI start-up);
the answer is the CP-SAT model's, tie-break included (the lexicographically smallest optimal vector over
plan.columns), checked on generated boards against the CP-SAT path forced by a bound of 0 rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
