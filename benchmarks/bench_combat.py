"""Whole combats ("step": "combat"): count and solve, side by side with the alternatives (printed, never asserted).

1. count: WholeCombat.count (first-strike assignments grouped by what they change for the regular step, one
   regular-step count per distinct state) against counting the regular step once per first-strike assignment
   (no grouping) and against the brute-force two-step oracle tests/oracles/brute_combat.py (small boards only).
2. solve: WholeCombat.solve (independent parts; in each, search over the attacker's first-strike assignments
   x the defender's distinct replies, one-step CP-SAT solve per distinct state, alpha-beta cut) against the
   joint search (split=False) and the brute-force adversarial optimum of tests/oracles/brute_combat.py, and how it
   grows with the board. CPU time of this process (time.process_time), one run each.

Run: ``python -m benchmarks combat`` (``QUICK=1`` for a short run).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "oracles"))

import brute_combat  # noqa: E402

from benchmarks.boards import OPP, chained, ladder, on_planeswalker, two_players  # noqa: E402
from trample import Combat  # noqa: E402
from trample.outcome import after_step  # noqa: E402
from trample.whole import WholeCombat  # noqa: E402

QUICK = bool(os.environ.get("QUICK"))


def rules_board_8() -> dict:
    return {
        "step": "combat",
        "players": OPP,
        "attackers": [
            {
                "id": "a",
                "power": 3,
                "toughness": 3,
                "keywords": ["double_strike", "trample"],
                "attacking": "opp",
                "blocked_by": ["w", "c1", "c2", "c3", "c4"],
            }
        ],
        "blockers": [{"id": "w", "power": 4, "toughness": 2}]
        + [{"id": f"c{i}", "power": 1, "toughness": 1} for i in range(1, 5)],
    }


def ungrouped_count(doc: dict) -> int:
    whole = WholeCombat(doc)
    total = 0
    for first in whole.first_step.assignments():
        state = (
            after_step(whole.scenario, first) if whole.has_first_strike_step else whole.scenario.with_step("regular")
        )
        total += Combat(state, side="both").count()
    return total


def timed(fn, *args, **kw):
    """(result, CPU seconds of this process)."""
    start = time.process_time()
    out = fn(*args, **kw)
    return out, time.process_time() - start


def main() -> None:
    WholeCombat(ladder(1)).count()  # warm up
    WholeCombat(ladder(1)).solve("max-damage")  # import ortools before any figure

    print("1. count: grouped states vs one regular count per first-strike assignment vs brute force")
    print(f"{'board':<14}{'count':>10}{'grouped ms':>12}{'ungrouped ms':>14}{'ratio':>8}{'brute ms':>11}{'ratio':>8}")
    boards = [("rules 8", rules_board_8())] + [
        (f"ladder {n}", ladder(n)) for n in ((1, 2, 3) if QUICK else (1, 2, 3, 4))
    ]
    for name, doc in boards:
        grouped, tg = timed(lambda d: WholeCombat(d).count(), doc)
        plain, tu = timed(ungrouped_count, doc)
        assert grouped == plain
        brute_ms = ratio = "-"
        if len(doc["attackers"]) <= 2:
            lines, tb = timed(brute_combat.combat_lines, doc)
            assert len(lines) == grouped
            brute_ms, ratio = f"{tb * 1000:.0f}", f"{tb / tg:.1f}x"
        print(f"{name:<14}{grouped:>10}{tg * 1000:>12.1f}{tu * 1000:>14.1f}{tu / tg:>7.1f}x{brute_ms:>11}{ratio:>8}")

    print(
        "\n2. solve max-damage (adversarial defender): search in independent parts + one-step CP-SAT, against the"
        "\n   joint search (split=False: no parts, each regular step solved whole) and the brute-force minimax"
    )
    print(
        f"{'board':<14}{'value':>6}{'A1 lines':>10}{'replies':>9}{'solves':>8}{'solve ms':>10}{'joint ms':>10}"
        f"{'ratio':>8}{'brute ms':>10}{'ratio':>8}"
    )
    sizes = (1, 2, 3) if QUICK else (1, 2, 3, 4, 5, 6)
    boards = [("rules 8", rules_board_8())] + [(f"ladder {n}", ladder(n)) for n in sizes]
    boards += [(f"chained {n}", chained(n)) for n in ((2, 3) if QUICK else (2, 3, 4, 5, 6))]
    if not QUICK:  # the other one-group shapes of bench_whole_search at 6 attackers
        boards += [("planeswalker 6", on_planeswalker(6)), ("two players 6", two_players(6))]
    for name, doc in boards:
        whole = WholeCombat(doc)
        result, ts = timed(whole.solve, "max-damage")
        a1 = Combat(whole.scenario.with_step("first_strike"), side="attacking").count()
        replies = Combat(whole.scenario.with_step("first_strike"), side="defending").count()
        joint_ms = joint_ratio = "-"
        if a1 * replies <= 20_000:  # the joint search of the bigger ladders takes minutes
            joint, tj = timed(whole.solve, "max-damage", split=False)
            assert joint.objectives == result.objectives
            assert joint.assignment.to_json() == result.assignment.to_json()
            joint_ms, joint_ratio = f"{tj * 1000:.0f}", f"{tj / ts:.1f}x"
        brute_ms = ratio = "-"
        if len(doc["attackers"]) <= 1:
            value, tb = timed(brute_combat.adversarial_optimum, doc, ["max-damage"])
            assert value == (result.objectives["max-damage"],)
            brute_ms, ratio = f"{tb * 1000:.0f}", f"{tb / ts:.1f}x"
        print(
            f"{name:<14}{result.objectives['max-damage']:>6}{a1:>10}{replies:>9}{result.solves:>8}"
            f"{ts * 1000:>10.0f}{joint_ms:>10}{joint_ratio:>8}{brute_ms:>10}{ratio:>8}"
        )


if __name__ == "__main__":
    main()
