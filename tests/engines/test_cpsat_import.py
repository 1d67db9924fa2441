"""OR-Tools' cp_model is imported without pandas (trample.engines.cpsat.import_cp_model): pandas is half of its
import time and trample never calls the ``*_series`` helpers that need it. Each test runs a fresh interpreter, so
that nothing imported by the test session hides what the import does."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_solving_does_not_import_pandas():
    out = _run(
        "import sys, json\n"
        "from trample import Combat\n"
        "doc = {'players': [{'id': 'opp', 'life': 3}], 'attackers': [{'id': 'rhino', 'power': 5, 'toughness': 5,"
        " 'keywords': ['trample'], 'attacking': 'opp', 'blocked_by': ['priest']}], 'blockers': [{'id': 'priest',"
        " 'power': 2, 'toughness': 2, 'keywords': ['lifelink']}]}\n"
        "r = Combat(doc).solve(['lethal'])\n"  # an effect board: the CP-SAT model
        "print(r.status, r.objectives['lethal'], 'ortools.sat.python.cp_model' in sys.modules, 'pandas' in sys.modules)"
    )
    assert out == "optimal 0 True False"


def test_the_series_helpers_still_get_pandas_own_classes():
    out = _run(
        "import trample.engines.cpsat as c\n"
        "import pandas as pd\n"
        "cp = c.cp_model\n"
        "m = cp.CpModel()\n"
        "x = m.new_int_var_series('x', pd.Index(range(3)), 0, 5)\n"
        "m.add(x.sum() == 7)\n"
        "m.add(x.iloc[0] == 4)\n"
        "s = cp.CpSolver()\n"
        "ok = s.solve(m) == cp.OPTIMAL\n"
        "print(type(x).__name__, ok, sum(s.values(x)), s.values(x).iloc[0])"
    )
    assert out == "Series True 7 4"


def test_pandas_already_imported_is_the_one_cp_model_uses():
    out = _run(
        "import pandas, sys\n"
        "import trample.engines.cpsat as c\n"
        "print(sys.modules['ortools.sat.python.cp_model'].pd is pandas)"
    )
    assert out == "True"


def test_cp_model_is_imported_in_one_place():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "solver"
    direct = re.compile(r"^\s*(from ortools\.sat\.python import|import ortools\.sat\.python\.cp_model)", re.M)
    others = [
        str(p.relative_to(root)) for p in root.rglob("*.py") if p.name != "cpsat.py" and direct.search(p.read_text())
    ]
    assert others == []  # every module takes cp_model from trample.engines.cpsat (without pandas)
