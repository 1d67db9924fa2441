"""Declarations (trample declare, docs/declare.md): the defender's best blocks and "lethal through every block",
with their goals (issue 25). CPU time of this process (time.process_time), printed beside the goal, never asserted.

1. the defender's best blocks, 6 attackers against 6 potential blockers with mixed keywords (flying, reach,
   menace, first strike, deathtouch, trample): goal <= 1 s;
2. "lethal through every block" (the lethal report), 8 attackers against 8 potential blockers: goal <= 5 s;
3. the attacker's best attack (three levels) on a smaller board, and the generic search (every declaration,
   memoised by symmetry) where the separable programme does not apply;
4. counting attacks with their bands (702.22c): the programme weighing each attack by its choices of bands,
   against walking every attack and listing its bands (what is left for "bands with other").

Run: ``python -m benchmarks declare`` (``QUICK=1`` for a short run).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trample.declare import DeclarationSpace  # noqa: E402
from trample.declare.solve import solve_declaration  # noqa: E402
from trample.models.declare import load_declare_doc  # noqa: E402

QUICK = bool(os.environ.get("QUICK"))

ATTACKERS = [
    ("dragon", 4, 4, ["flying"]),
    ("ogre", 4, 3, ["menace", "trample"]),
    ("knight", 2, 2, ["first_strike"]),
    ("viper", 1, 1, ["deathtouch"]),
    ("giant", 5, 5, ["trample"]),
    ("bear", 2, 2, []),
    ("hawk", 2, 1, ["flying"]),
    ("boar", 3, 3, ["trample"]),
]
BLOCKERS = [
    ("archer", 1, 3, ["reach"]),
    ("wall", 0, 6, []),
    ("wolf", 2, 2, []),
    ("spider", 2, 4, ["reach", "deathtouch"]),
    ("squire", 1, 1, []),
    ("guard", 3, 2, ["first_strike"]),
    ("owl", 1, 1, ["flying"]),
    ("golem", 3, 3, []),
]


#: "lethal through every block": evasion and trample against mostly ground blockers
LETHAL_ATTACKERS = [
    ("drake1", 2, 2, ["flying"]),
    ("drake2", 2, 2, ["flying"]),
    ("drake3", 2, 2, ["flying"]),
    ("rider", 2, 2, ["horsemanship"]),
    ("troll", 5, 5, ["trample"]),
    ("wurm", 6, 6, ["trample", "deathtouch"]),
    ("brute", 3, 3, ["menace"]),
    ("thug", 3, 3, ["menace", "first_strike"]),
]
LETHAL_BLOCKERS = [
    ("archer", 1, 2, ["reach"]),
    ("spider", 2, 3, ["reach", "deathtouch"]),
    ("wall", 0, 5, []),
    ("wolf", 2, 2, []),
    ("squire", 1, 1, []),
    ("guard", 3, 2, ["first_strike"]),
    ("golem", 3, 3, []),
    ("page", 1, 1, []),
]


def board(n_attackers: int, n_blockers: int, life: int, attackers=ATTACKERS, blockers=BLOCKERS) -> dict:
    return {
        "declare": "blockers",
        "players": [{"id": "opp", "life": life}],
        "attackers": [
            {"id": i, "power": p, "toughness": t, "keywords": k, "attacking": "opp"}
            for i, p, t, k in attackers[:n_attackers]
        ],
        "blockers": [{"id": i, "power": p, "toughness": t, "keywords": k} for i, p, t, k in blockers[:n_blockers]],
    }


REPEATS = 1 if QUICK else 5


def cpu(fn):
    """The result and the median CPU time of REPEATS runs (each from scratch: nothing is shared between runs)."""
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
    return out, statistics.median(times)


def _goal(seconds: float, goal: float) -> str:
    return f"<= {goal:g} s: {'met' if seconds <= goal else 'NOT met'}"


def main() -> None:
    # warm-up: importing OR-Tools (a damage solve may build a CP-SAT model) and the first solves of the process
    # are not the query's time
    import ortools.sat.python.cp_model  # noqa: F401

    solve_declaration(load_declare_doc(board(2, 2, 20)), "max-damage,max-kills")
    print(f"CPU time (time.process_time), the median of {REPEATS} runs each")
    print("| board | legal block declarations | objective | status | damage solves | CPU | goal |")
    print("| --- | ---: | --- | --- | ---: | ---: | --- |")
    cases = [
        (board(6, 6, 20), "max-damage,max-kills", 1.0),
        (board(8, 8, 9, LETHAL_ATTACKERS, LETHAL_BLOCKERS), "lethal", 5.0),
    ]
    if not QUICK:
        cases.append((board(8, 8, 30), "max-damage,max-value", None))
    for raw, objective, goal in cases:
        doc = load_declare_doc(raw)
        n_a, n_b, life = len(raw["attackers"]), len(raw["blockers"]), raw["players"][0]["life"]
        count = DeclarationSpace(doc).count()
        result, seconds = cpu(lambda doc=doc, objective=objective: solve_declaration(doc, objective))
        lethal = ""
        if result.lethal:
            report = result.lethal["opp"]
            lethal = " (lethal through every block)" if report["lethal_through_every_block"] else " (survives)"
        print(
            f"| {n_a} vs {n_b}, life {life} | {count} | {objective}{lethal} | {result.status} | {result.solved} "
            f"| {seconds:.2f} s | {'' if goal is None else _goal(seconds, goal)} |",
            flush=True,
        )
    # generic search: min-overkill is not a sum over attackers, so every declaration is solved (up to symmetry)
    doc = load_declare_doc(board(3, 4, 20))
    count = DeclarationSpace(doc).count()
    result, seconds = cpu(lambda: solve_declaration(doc, "max-damage,min-overkill"))
    print(f"| 3 vs 4 (generic search) | {count} | max-damage,min-overkill | {result.status} | {result.solved} "
          f"| {seconds:.2f} s | |")  # fmt: skip
    attack = board(4 if QUICK else 5, 3, 10)
    attack["declare"] = "attackers"
    for c in attack["attackers"]:
        del c["attacking"]
    doc = load_declare_doc(attack)
    count = DeclarationSpace(doc).count()
    result, seconds = cpu(lambda: solve_declaration(doc, "lethal,max-damage"))
    print(f"| best attack, {len(attack['attackers'])} creatures vs 3 | {count} attacks | lethal,max-damage "
          f"| {result.status} | {result.solved} | {seconds:.2f} s | |")  # fmt: skip
    bands()


def banding_board(n: int) -> dict:
    """n creatures, every other one with banding, a player and a planeswalker to attack."""
    creatures = [{"id": f"c{i}", "power": 2, "toughness": 2, "keywords": ["banding"] if i % 2 == 0 else []}
                 for i in range(n)]  # fmt: skip
    return {"declare": "attackers", "active": "me", "players": [{"id": "opp", "life": 20}],
            "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 5}], "attackers": creatures}  # fmt: skip


def bands() -> None:
    print()
    print("| attacks with bands | legal declarations | counted by the programme | walking every attack |")
    print("| --- | ---: | ---: | ---: |")
    for n in (6,) if QUICK else (6, 8):
        doc = load_declare_doc(banding_board(n))
        weighed, fast = cpu(lambda doc=doc: DeclarationSpace(doc).count())
        walked, slow = cpu(lambda doc=doc: DeclarationSpace(doc)._band_table()[0][-1])
        assert weighed == walked
        print(f"| {n} creatures ({(n + 1) // 2} with banding), 2 targets | {weighed} | {fast:.3f} s | {slow:.2f} s |")


if __name__ == "__main__":
    main()
