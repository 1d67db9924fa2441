"""Whole-combat search inside one group (issue 21): the one-group shapes at 5 and 6 attackers (the ladder on one
planeswalker, split between two players, and chained: neighbours sharing a first striker; the ladder on a
planeswalker of loyalty 5, and with power 5 on a planeswalker or battle the first step can take out of combat,
all or half of the attackers on it: the first step's double strikes also kill blockers) under many objective
lists, CPU time of this process (time.process_time), the median of 3 runs, printed beside the goal (whole-combat
solve <= 1 s on one-group boards of 6 attackers, any objective list). The old search is not kept reachable: its
figures are in docs/combat.md.

The rows whose objectives read the one player's life (``lethal``, ``min-overkill``) on a board of one player get
their regular steps from the groups' fronts (trample.whole.regular); beside the ladder's, in the same run, the
joint search that solves every regular step with CP-SAT (``split=False``, the reference the tests compare with).

The defeatable planeswalker also with trample over planeswalkers (702.19c), a first step that can end the game
(704.5a), attackers that may assign as though unblocked, banding (702.22j), lifelink or infect, and two of those
at once (:func:`benchmarks.boards.defeatable_with`): at 6 attackers, each row under a time limit (``LIMIT``, 10 wall
seconds; a stopped row misses the goal).

Run: ``python -m benchmarks whole_search`` (``QUICK=1``: 5 attackers only).
"""

from __future__ import annotations

import os
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.boards import (  # noqa: E402
    chained,
    defeatable_battle,
    defeatable_planeswalker,
    defeatable_with,
    ladder,
    low_planeswalker,
    on_planeswalker,
    split_planeswalker,
    two_players,
)
from trample.whole import WholeCombat  # noqa: E402

QUICK = bool(os.environ.get("QUICK"))


#: the objective lists measured on every board ("any objective list": each objective alone, the lexicographic
#: lists of the issue, min-overkill first and last)
LISTS = [
    "max-damage",
    "lethal",
    "max-kills",
    "min-overkill",
    "max-value",
    "lethal,max-damage",
    "lethal,max-kills",
    "lethal,max-kills,min-overkill",
    "max-kills,lethal",
    "max-kills,min-overkill",
    "lethal,max-damage,min-overkill",
    "min-overkill,max-kills",
    "max-value,min-overkill",
]

BOARDS = [
    ("double strikers on one planeswalker", on_planeswalker),
    ("two defending players", two_players),
    ("ladder", ladder),
    ("chained ladder (neighbours share)", chained),
    # boards whose planeswalker or battle the combat can take out (704.5i, 704.5v, 506.4c)
    ("ladder on a loyalty-5 planeswalker", low_planeswalker),
    ("first step defeats the planeswalker", defeatable_planeswalker),
    ("first step defeats the battle", defeatable_battle),
    ("half on a defeatable planeswalker", split_planeswalker),
]

#: the defeatable planeswalker with what the plain bounds did not read (:func:`defeatable_with`), under the lists
#: of the issue's goal that read it most; the rows still searched candidate by candidate run once under
#: :data:`LIMIT` (a stopped row prints its time and "stopped")
WITH = [
    ("defeatable, trample over planeswalkers", "trample_over"),
    ("defeatable, first step can end the game", "game_ending"),
    ("defeatable, as though unblocked", "as_though_unblocked"),
    ("defeatable, the first attacker bands", "banding"),
    ("defeatable, lifelink", "lifelink"),
    ("defeatable, infect", "infect"),
    # two at once (:func:`defeatable_with`'s "a+b")
    ("defeatable, trample over + lifelink", "trample_over+lifelink"),
    ("defeatable, trample over + infect", "trample_over+infect"),
    ("defeatable, trample over + as though unbl.", "trample_over+as_though_unblocked"),
    ("defeatable, as though unblocked + lifelink", "as_though_unblocked+lifelink"),
    ("defeatable, as though unblocked + infect", "as_though_unblocked+infect"),
    ("defeatable, bands + as though unblocked", "banding+as_though_unblocked"),
    ("defeatable, bands + trample over", "banding+trample_over"),
    ("defeatable, bands + lifelink", "banding+lifelink"),
    ("defeatable, bands + infect", "banding+infect"),
]
WITH_LISTS = ["max-damage", "lethal", "min-overkill", "lethal,max-kills,min-overkill", "max-value,min-overkill"]

#: wall seconds each row of :data:`WITH` may take (the slow families' 6-attacker rows take minutes without it); these
#: rows are measured at 6 attackers only (5 with QUICK)
LIMIT = float(os.environ.get("LIMIT", 10))

CASES = [(name, make, objectives) for name, make in BOARDS for objectives in LISTS]
CASES += [(name, partial(defeatable_with, kind=kind), objectives) for name, kind in WITH for objectives in WITH_LISTS]


#: the rows also run with every regular step solved by CP-SAT (split=False), in the same run
JOINT = {("ladder", "lethal,max-kills,min-overkill")}


def cpu(fn, repeat: int = 3):
    """The median CPU seconds of ``repeat`` runs of fn() and its last result (one run when it was not proven: a
    search stopped by its time limit)."""
    times, out = [], None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
        if out.status != "optimal":
            break
    return sorted(times)[len(times) // 2], out


def main() -> None:
    WholeCombat(ladder(1)).solve("max-damage")  # import ortools before any figure
    print(f"{'board':<42}{'n':>3}  {'objectives':<40}{'value':<28}{'solves':>7}{'CPU s':>8}  goal")
    missed = 0
    for name, make, objectives in CASES:
        with_ = isinstance(make, partial)
        for n in (5,) if QUICK else (6,) if with_ else (5, 6):
            limit = LIMIT if with_ else None
            t, result = cpu(
                lambda make=make, n=n, o=objectives, limit=limit: WholeCombat(make(n)).solve(o, time_limit=limit)
            )
            shown = objectives if result.status == "optimal" else f"{objectives} ({result.status})"
            mark = "met" if n < 6 or (t <= 1 and result.status == "optimal") else "MISSED"
            missed += mark == "MISSED"
            value = ",".join(str(v) for v in result.objectives.values())
            print(f"{name:<42}{n:>3}  {shown:<40}{value:<28}{result.solves:>7}{t:>8.2f}  <= 1 s ({mark})")
            if (name, objectives) in JOINT:
                t_joint, joint = cpu(lambda make=make, n=n, o=objectives: WholeCombat(make(n)).solve(o, split=False))
                same = "same values" if joint.objectives == result.objectives else "VALUES DIFFER"
                print(
                    f"{'  every regular step by CP-SAT':<42}{n:>3}  {'(split=False)':<40}{same:<28}"
                    f"{joint.solves:>7}{t_joint:>8.2f}  groups' fronts {t_joint / max(t, 1e-9):.1f}x faster"
                )
    print(f"{missed} rows at 6 attackers over the 1 s goal")


if __name__ == "__main__":
    main()
