"""The command line's start-up (issue 21): CPU time of a child ``trample count`` on a tiny board (one 3/3 attacker
blocked by a 2/2), where nearly all the time is importing, beside a bare ``python -c pass`` and the two imports
nobody can save (numpy, which the direct engine's counting programmes use, and ``import trample``). Also
``trample solve`` on the same board (the solver's imports: trample.optimize; OR-Tools only if the direct engine
does not answer). Prints, never asserts.

CPU time (user + system) of each child from ``resource.getrusage(RUSAGE_CHILDREN)``, median of ``REPS`` runs
(default 15), the commands interleaved so that the machine's load falls on all alike. Two columns per Python:
``cached``, with the bytecode caches written once beforehand (as an installed package has them; they go to a
temporary ``PYTHONPYCACHEPREFIX``, not into the tree), and ``no cache`` (``PYTHONDONTWRITEBYTECODE=1``: the
modules whose caches are not on disk -- the project's, in a tree where writing them is off, as in this
sandbox -- compiled at each start). Goal: ``trample count``
<= 0.3 s (cached). ``BEFORE=/path/to/other/worktree`` adds the same figures for that worktree's ``.venv/bin/python``
(the same statistic, in the same run): the before/after of a change.

Run: ``python -m benchmarks startup`` (``QUICK=1``: 5 runs).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

QUICK = bool(os.environ.get("QUICK"))
REPS = int(os.environ.get("REPS", 5 if QUICK else 15))
GOAL = 0.3
BOARD = {
    "players": [{"id": "opp", "life": 20}],
    "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["b"]}],
    "blockers": [{"id": "b", "power": 2, "toughness": 2}],
}


def _cpu(argv: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _commands(python: str, board: str) -> list[tuple[str, list[str]]]:
    return [
        ("python -c pass", [python, "-c", "pass"]),
        ("python -c 'import numpy'", [python, "-c", "import numpy"]),
        ("python -c 'import trample'", [python, "-c", "import trample"]),
        ("trample count (tiny board)", [python, "-m", "trample", "count", board]),
        ("trample solve (tiny board)", [python, "-m", "trample", "solve", board, "--objective", "max-damage"]),
    ]


def main() -> None:
    pythons = [("this worktree", sys.executable)]
    other = os.environ.get("BEFORE")
    if other:
        pythons.append((f"BEFORE={other}", str(Path(other) / ".venv" / "bin" / "python")))
    with tempfile.TemporaryDirectory() as tmp:
        board = os.path.join(tmp, "tiny.json")
        with open(board, "w", encoding="utf-8") as fh:
            json.dump(BOARD, fh)
        sides = []
        for n, (label, python) in enumerate(pythons):
            cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            cached["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, f"pycache{n}")
            cold = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
            cold["PYTHONDONTWRITEBYTECODE"] = "1"
            for _, argv in _commands(python, board):  # the caches written once
                _cpu(argv, cached)
            sides += [(f"{label}, cached", python, cached), (f"{label}, no cache", python, cold)]
        runs: dict[tuple[str, str], list[float]] = {
            (side, name): [] for side, _, _ in sides for name, _ in _commands(sys.executable, board)
        }
        for _ in range(REPS):  # interleaved
            for side, python, env in sides:
                for name, argv in _commands(python, board):
                    runs[side, name].append(_cpu(argv, env))
    print(f"CPU time of a child process (user + system), median of {REPS} runs; goal: trample count <= {GOAL} s")
    print("| command | " + " | ".join(side for side, _, _ in sides) + " |")
    print("|---|" + "---|" * len(sides))
    for name, _ in _commands(sys.executable, "-"):
        cells = [f"{statistics.median(runs[side, name]):.3f} s" for side, _, _ in sides]
        print(f"| {name} | " + " | ".join(cells) + " |")
    count = statistics.median(runs[sides[0][0], "trample count (tiny board)"])
    verdict = "met" if count <= GOAL else "MISSED"
    print(f"\ntrample count start-up (cached): {count:.3f} s CPU; goal <= {GOAL} s {verdict}")


if __name__ == "__main__":
    main()
