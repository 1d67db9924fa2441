"""Whole-combat search inside one group (issue 21): the one-group shapes at 5 and 6 attackers, CPU time of this
process (time.process_time), one run each, printed beside the goal (whole-combat solve <= 1 s on one-group boards of
6 attackers, any objective list). The old search is not kept reachable: its figures are in docs/combat.md.

The rows whose objectives read the one player's life (``lethal``, ``min-overkill``) on a board of one player get
their regular steps from the groups' fronts (trample.whole.regular); beside them, in the same run, the joint search
that solves every regular step with CP-SAT (``split=False``, the reference the tests compare with).

Run: ``python -m benchmarks whole_search`` (``QUICK=1``: 5 attackers only).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.boards import ladder  # noqa: E402
from trample.whole import WholeCombat  # noqa: E402

QUICK = bool(os.environ.get("QUICK"))


def on_planeswalker(n: int) -> dict:
    """The ladder's double strikers all attacking one planeswalker (loyalty 30): one group (702.19c)."""
    doc = ladder(n)
    doc["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": 30}]
    for a in doc["attackers"]:
        a["attacking"] = "pw"
    return doc


def two_players(n: int) -> dict:
    """The ladder's attackers split between two defending players (20 life each)."""
    doc = ladder(n)
    doc["players"] = [{"id": "opp", "life": 20}, {"id": "opp2", "life": 20}]
    for i, a in enumerate(doc["attackers"]):
        a["attacking"] = "opp" if i % 2 == 0 else "opp2"
    return doc


CASES = [
    ("double strikers on one planeswalker", on_planeswalker, "max-damage"),
    ("double strikers on one planeswalker", on_planeswalker, "lethal,max-kills,min-overkill"),
    ("two defending players", two_players, "lethal"),
    ("ladder", ladder, "lethal,max-kills,min-overkill"),
    ("ladder", ladder, "max-damage"),
]


#: the rows also run with every regular step solved by CP-SAT (split=False), in the same run
JOINT = {("ladder", "lethal,max-kills,min-overkill")}


def main() -> None:
    WholeCombat(ladder(1)).solve("max-damage")  # import ortools before any figure
    print(f"{'board':<38}{'n':>3}  {'objectives':<32}{'value':<28}{'solves':>7}{'CPU s':>8}  goal")
    for name, make, objectives in CASES:
        for n in (5,) if QUICK else (5, 6):
            start = time.process_time()
            result = WholeCombat(make(n)).solve(objectives)
            t = time.process_time() - start
            mark = "met" if n < 6 or t <= 1 else "MISSED"
            value = ",".join(str(v) for v in result.objectives.values())
            print(f"{name:<38}{n:>3}  {objectives:<32}{value:<28}{result.solves:>7}{t:>8.2f}  <= 1 s ({mark})")
            if (name, objectives) in JOINT:
                start = time.process_time()
                joint = WholeCombat(make(n)).solve(objectives, split=False)
                t_joint = time.process_time() - start
                same = "same values" if joint.objectives == result.objectives else "VALUES DIFFER"
                print(
                    f"{'  every regular step by CP-SAT':<38}{n:>3}  {'(split=False)':<32}{same:<28}"
                    f"{joint.solves:>7}{t_joint:>8.2f}  groups' fronts {t_joint / max(t, 1e-9):.1f}x faster"
                )


if __name__ == "__main__":
    main()
