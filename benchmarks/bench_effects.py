"""Boards with outcome effects: ``solve`` on the CP-SAT model (trample.optimize.effects) against the same board
without the effect, and against the listing it replaced (issue 21). Prints, never asserts.

Each row: one board (a power-20 trampler blocked by five creatures; two power-6 tramplers sharing three
blockers) with one effect added (a lifelink blocker, an infect attacker, a one-point prevention shield on the
player, protection on a blocker, a doubling, toxic, wither or commander attacker, a banding blocker), solved
for ``lethal,max-kills,min-overkill``:

- ``plain``: the board without the effect (the plain boards' model);
- ``effects``: the board with it (what ``trample solve`` does now: the model where the two players' parts
  separate, where the other player divides everything -- a banding blocker, 702.22j --, and where the solved
  player divides part of the other side's damage -- a banding attacker, 702.22k, whose blockers' damage the
  attacking player divides: their choice of it is a variable of the model --, and where the other player divides
  part of the solved side's damage -- a banding blocker on some attackers only, 702.22j, on three and four
  tramplers sharing a blocker: ``optimize.bands``; the listing only where both players divide some of the
  other's damage);
- ``listing``: the board with it, every legal assignment scored against every reply (the reference path,
  ``trample.optimize.effects.USE_MODEL = False``; what ``solve`` did before), stopped after ``LIST_LIMIT``
  seconds of wall time (default 60; then its CPU time so far is a lower bound).

CPU time of this process (time.process_time), median of the same number of runs on both sides of the goal's
ratio (``REPS``, default 15; the listing ``LIST_REPS``, default 1, because a run takes seconds), the solves
interleaved so that the machine's load falls on both alike (a board whose effects run takes over 1 s is run 3
times on both sides). Goal: effects <= 3x plain. Then the time limit on the
listing (``USE_MODEL = False``, the path left where the players' parts interact; it checks the clock at every
line), on the banding-attacker board: wall time of a 1 s limit, goal <= limit + 0.1 s.

Then the defending side (``defending``: a lifelink blocker and an infect attacker on random sharing graphs; and
``defending_banding``: a banding blocker, whose attackers' damage the defending player divides, 702.22j), the
same goal.

Run: ``python -m benchmarks effects`` (``QUICK=1``: 5 runs). About 3 minutes of CPU, most of it the listing.
``ONLY=banding`` runs the rows whose board or effect names it (``ONLY="banding blocker on"``: the interacting
shape, ``optimize.bands``), ``LIST_REPS=0`` leaves the listing out.
"""

from __future__ import annotations

import copy
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.boards import random_sharing  # noqa: E402
from trample import Combat  # noqa: E402
from trample.optimize import effects, score, solve  # noqa: E402

QUICK = bool(os.environ.get("QUICK"))
REPS = int(os.environ.get("REPS", 5 if QUICK else 15))
LIST_REPS = int(os.environ.get("LIST_REPS", 1))
LIST_LIMIT = float(os.environ.get("LIST_LIMIT", 60))  # seconds of wall time for one listing (then: "stopped")
ONLY = os.environ.get("ONLY", "")  # the rows whose "board effect" contains it (default: every row)
OBJECTIVES = "lethal,max-kills,min-overkill"


def trampler_five() -> dict:
    """A power-20 trampler blocked by five creatures (1/2, 2/3, 3/4, 1/2, 2/3)."""
    blockers = [{"id": f"b{j}", "power": 1 + j % 3, "toughness": 2 + j % 3} for j in range(5)]
    attacker = {
        "id": "a",
        "power": 20,
        "toughness": 5,
        "keywords": ["trample"],
        "attacking": "opp",
        "blocked_by": [b["id"] for b in blockers],
    }
    return {"players": [{"id": "opp", "life": 20}], "attackers": [attacker], "blockers": blockers}


def two_tramplers() -> dict:
    """Two power-6 tramplers sharing three blockers (2/2, 2/3, 2/4)."""
    blockers = [{"id": f"b{j}", "power": 2, "toughness": 2 + j} for j in range(3)]
    attackers = [
        {
            "id": f"a{i}",
            "power": 6,
            "toughness": 4,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": ["b0", "b1", "b2"],
        }
        for i in range(2)
    ]
    return {"players": [{"id": "opp", "life": 10}], "attackers": attackers, "blockers": blockers}


def three_tramplers(powers: tuple[int, ...] = (8, 7, 6)) -> dict:
    """Three tramplers (issue 21's board): a1 blocked by b1 and b2, a2 by b2 and b3 (b2 blocks both), a3 by b4."""
    blocked = [["b1", "b2"], ["b2", "b3"], ["b4"]]
    attackers = [
        {"id": f"a{i + 1}", "power": p, "toughness": p, "keywords": ["trample"], "attacking": "opp", "blocked_by": b}
        for i, (p, b) in enumerate(zip(powers, blocked))
    ]
    blockers = [
        {"id": "b1", "power": 2, "toughness": 3},
        {"id": "b2", "power": 2, "toughness": 3},
        {"id": "b3", "power": 3, "toughness": 2},
        {"id": "b4", "power": 1, "toughness": 4},
    ]
    return {"players": [{"id": "opp", "life": 20}], "attackers": attackers, "blockers": blockers}


def four_tramplers() -> dict:
    """:func:`three_tramplers` (12, 10, 8) and a fourth, power 6, blocked by b1 and b5 (a 2/3)."""
    doc = three_tramplers((12, 10, 8))
    doc["blockers"].append({"id": "b5", "power": 2, "toughness": 3})
    doc["attackers"].append(
        {
            "id": "a4",
            "power": 6,
            "toughness": 5,
            "keywords": ["trample"],
            "attacking": "opp",
            "blocked_by": ["b1", "b5"],
        }
    )
    return doc


def _with(board: dict, change) -> dict:
    out = copy.deepcopy(board)
    change(out)
    return out


def _kw(obj: dict, keyword: str) -> None:
    obj["keywords"] = [*obj.get("keywords", []), keyword]


CASES = [
    ("power-20 trampler, 5 blockers", trampler_five, "lifelink blocker", lambda d: _kw(d["blockers"][0], "lifelink")),
    ("power-20 trampler, 5 blockers", trampler_five, "infect attacker", lambda d: _kw(d["attackers"][0], "infect")),
    ("power-20 trampler, 5 blockers", trampler_five, "1-point shield", lambda d: d["players"][0].update(prevent=1)),
    (
        "power-20 trampler, 5 blockers",
        trampler_five,
        "protection (b0 from a)",
        lambda d: d["blockers"][0].update(protection=["a"]),
    ),
    (
        "power-20 trampler, 5 blockers",
        trampler_five,
        "doubling attacker",
        lambda d: d["attackers"][0].update(deals=[{"times": 2}]),
    ),
    ("power-20 trampler, 5 blockers", trampler_five, "toxic 2 attacker", lambda d: d["attackers"][0].update(toxic=2)),
    ("power-20 trampler, 5 blockers", trampler_five, "wither attacker", lambda d: _kw(d["attackers"][0], "wither")),
    (
        "power-20 trampler, 5 blockers",
        trampler_five,
        "commander attacker",
        lambda d: d["attackers"][0].update(commander="me"),
    ),
    ("two power-6 tramplers, 3 shared", two_tramplers, "lifelink blocker", lambda d: _kw(d["blockers"][0], "lifelink")),
    ("two power-6 tramplers, 3 shared", two_tramplers, "infect attacker", lambda d: _kw(d["attackers"][0], "infect")),
    ("power-20 trampler, 5 blockers", trampler_five, "banding blocker", lambda d: _kw(d["blockers"][0], "banding")),
    ("two power-6 tramplers, 3 shared", two_tramplers, "banding blocker", lambda d: _kw(d["blockers"][0], "banding")),
    ("power-20 trampler, 5 blockers", trampler_five, "banding attacker", lambda d: _kw(d["attackers"][0], "banding")),
    ("two power-6 tramplers, 3 shared", two_tramplers, "banding attacker", lambda d: _kw(d["attackers"][0], "banding")),
    (
        "two power-6 tramplers, 3 shared",
        two_tramplers,
        "banding attacker, lifelink blocker",
        lambda d: (_kw(d["attackers"][0], "banding"), _kw(d["blockers"][0], "lifelink")),
    ),
    # the interacting shape (702.22j for some attackers only: b1's banding gives a1's damage to the defending
    # player, b2 is shared with a2): optimize.bands
    (
        "three tramplers 8/7/6, b2 shared",
        three_tramplers,
        "banding blocker on a1",
        lambda d: _kw(d["blockers"][0], "banding"),
    ),
    (
        "three tramplers 12/10/8, b2 shared",
        lambda: three_tramplers((12, 10, 8)),
        "banding blocker on a1",
        lambda d: _kw(d["blockers"][0], "banding"),
    ),
    (
        "three tramplers 8/7/6, b2 shared",
        three_tramplers,
        "banding blocker on a1, lifelink b3",
        lambda d: (_kw(d["blockers"][0], "banding"), _kw(d["blockers"][2], "lifelink")),
    ),
    (
        "four tramplers 12/10/8/6",
        four_tramplers,
        "banding blocker on a1 and a4",
        lambda d: _kw(d["blockers"][0], "banding"),
    ),
    # a dense sharing graph (12 tramplers on 14 blockers, 5 each): the reply's groups read component by component
    # (its listing has 3 x 10^8 replies: 40 s when they were read row by row)
    (
        "random sharing 12 on 14, 5 each, seed 3",
        lambda: random_sharing(12, 14, 5, seed=3),
        "lifelink blocker, infect attacker",
        lambda d: (_kw(d["blockers"][0], "lifelink"), _kw(d["attackers"][0], "infect")),
    ),
]


def _cpu(doc: dict, use_model: bool = True, time_limit: float | None = None) -> tuple[float, dict]:
    effects.USE_MODEL = use_model
    try:
        combat = Combat(doc)
        t0 = time.process_time()
        result = solve(combat, OBJECTIVES, time_limit=time_limit)
        if result.status != "optimal":  # the listing stopped by its limit: no answer to compare
            return time.process_time() - t0, {"stopped": result.status}
        return time.process_time() - t0, result.objectives
    finally:
        effects.USE_MODEL = True


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    print(f"solve {OBJECTIVES}: CPU time, median of {REPS} runs (listing: {LIST_REPS}); goal: effects <= 3x plain")
    print("| board | effect | plain | effects | ratio | goal | listing | listing / effects | same answer |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, make, effect, change in CASES:
        if ONLY not in f"{name} {effect}":
            continue
        plain_doc = make()
        doc = _with(plain_doc, change)
        _cpu(plain_doc)  # warm the imports and caches
        reps = REPS if _cpu(doc)[0] < 1 else min(REPS, 3)  # a listed board (banding attacker): 3 runs, both sides
        plain, eff = [], []
        for _ in range(reps):  # interleaved: the load falls on both sides alike
            plain.append(_cpu(plain_doc)[0])
            t, values = _cpu(doc)
            eff.append(t)
        listing, listed_values = [], None
        for _ in range(LIST_REPS):
            t, listed_values = _cpu(doc, use_model=False, time_limit=LIST_LIMIT)
            listing.append(t)
        p, e = statistics.median(plain), statistics.median(eff)
        ratio = e / p
        listed = against = same = "-"
        if listing:
            q = statistics.median(listing)
            stopped = listed_values is not None and "stopped" in listed_values
            listed = f"> {_ms(q)} (stopped at {LIST_LIMIT:g} s wall)" if stopped else _ms(q)
            against = f"{'>' if stopped else ''}{q / e:.0f}x"
            same = "-" if stopped else str(values == listed_values)
        print(
            f"| {name} | {effect} | {_ms(p)} | {_ms(e)} | {ratio:.1f}x | <= 3x {'met' if ratio <= 3 else 'MISSED'} "
            f"| {listed} | {against} | {same} |",
            flush=True,
        )
    if not ONLY or ONLY in "defending side":
        defending()
    if not ONLY or ONLY in "defending side with banding":
        defending_banding()
    if ONLY and ONLY not in "banding attacker time limit":
        return
    banding = _with(trampler_five(), lambda d: _kw(d["attackers"][0], "banding"))  # 702.22k
    limit = 1.0
    effects.USE_MODEL = False  # the listing (what answers where the players' parts interact)
    try:
        t0 = time.perf_counter()
        result = solve(Combat(banding), OBJECTIVES, time_limit=limit)
        wall = time.perf_counter() - t0
    finally:
        effects.USE_MODEL = True
    verdict = "met" if wall <= limit + 0.1 else "MISSED"
    print(
        f"\ntime limit on the listing (banding-attacker board): {limit:g} s limit -> {wall:.2f} s wall, status "
        f"{result.status}; goal <= {limit + 0.1:.1f} s {verdict}"
    )


#: the defending side's solve is held to the same goal; its reply (the attackers') is one component of many
#: tramplers, found on the model as its undominated profiles where its listing is long (effects._frontier_groups)
DEFENDING_LIMIT = 10.0


def defending() -> None:
    """The same goal on the defending side (the blockers' damage solved, the attackers' reply read): plain boards
    against the same with a lifelink blocker and an infect attacker, each solve stopped at DEFENDING_LIMIT; and the
    readers of the answer (``score``, on a fresh board: what the arena, the environments and the pictures read)
    held to the same goal."""
    print(
        f"\ndefending side: solve {OBJECTIVES}, CPU, median of 3 (stopped at {DEFENDING_LIMIT:g} s); goal <= 3x plain;"
        " score of the answer on a fresh board, the same goal"
    )
    print("| board | rows of the attackers' reply | plain | effects | ratio | goal | score | ratio | goal |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, m, per in ((4, 6, 2), (6, 8, 3), (8, 10, 3), (12, 14, 4)):
        plain_doc = random_sharing(n, m, per, seed=1)
        doc = _with(plain_doc, lambda d: (_kw(d["blockers"][0], "lifelink"), _kw(d["attackers"][0], "infect")))
        times: dict[str, list[float]] = {"plain": [], "effects": [], "score": []}
        status = "optimal"
        for _ in range(3):
            done, result = _defending_pair(plain_doc, doc, times)
            status = done if done != "optimal" else status
            if result.assignment is not None:
                fresh = Combat(doc, side="defending")
                t0 = time.process_time()
                assert score(fresh, result.assignment, OBJECTIVES) == result.objectives
                times["score"].append(time.process_time() - t0)
        p, e = statistics.median(times["plain"]), statistics.median(times["effects"])
        ratio = e / p
        shown = _ms(e) if status == "optimal" else f"> {_ms(e)} ({status})"
        verdict = "met" if status == "optimal" and ratio <= 3 else "MISSED"
        read = statistics.median(times["score"]) if times["score"] else None
        read_cells = "| - | - | MISSED" if read is None else f"| {_ms(read)} | {read / p:.1f}x | <= 3x "
        read_cells += "" if read is None else ("met" if read / p <= 3 else "MISSED")
        print(
            f"| random sharing {n} on {m}, {per} each, seed 1 | {Combat(plain_doc).count():,} | {_ms(p)} | {shown} "
            f"| {ratio:.1f}x | <= 3x {verdict} {read_cells} |",
            flush=True,
        )


def defending_banding() -> None:
    """The defending side with a banding blocker (702.22j: the defending player divides the damage of the
    attackers it blocks, a part of the attackers' reply): the frontier walks the divisions of that part
    (effects._divisions), a solve each -- boards where one attacker is banded, and its divisions number 20 to 84.
    Same goal; each solve stopped at DEFENDING_LIMIT."""
    print(
        f"\ndefending side with a banding blocker (b0): solve {OBJECTIVES}, CPU, median of 3 (stopped at "
        f"{DEFENDING_LIMIT:g} s); goal <= 3x plain"
    )
    print("| board | divisions of the banded part (bound) | plain | banding | ratio | goal |")
    print("|---|---|---|---|---|---|")
    for n, m, per, seed in ((5, 7, 3, 0), (6, 8, 3, 3), (8, 10, 3, 0)):
        plain_doc = random_sharing(n, m, per, seed=seed)
        doc = _with(plain_doc, lambda d: _kw(d["blockers"][0], "banding"))
        times: dict[str, list[float]] = {"plain": [], "effects": []}
        status = "optimal"
        for _ in range(3):
            done, _ = _defending_pair(plain_doc, doc, times)
            status = done if done != "optimal" else status
        bound = _division_bound(doc)
        p, e = statistics.median(times["plain"]), statistics.median(times["effects"])
        shown = _ms(e) if status == "optimal" else f"> {_ms(e)} ({status})"
        verdict = "met" if status == "optimal" and e / p <= 3 else "MISSED"
        print(
            f"| random sharing {n} on {m}, {per} each, seed {seed} | {bound:,} | {_ms(p)} | {shown} | {e / p:.1f}x "
            f"| <= 3x {verdict} |",
            flush=True,
        )


def _defending_pair(plain_doc: dict, doc: dict, times: dict[str, list[float]]):
    """One defending-side solve of the plain board then of the board with effects, each stopped at
    DEFENDING_LIMIT, their CPU added to ``times["plain"]`` and ``times["effects"]``: (the status of the one that
    did not finish, else "optimal"; the second's result)."""
    status = "optimal"
    for name, d in (("plain", plain_doc), ("effects", doc)):
        combat = Combat(d, side="defending")
        t0 = time.process_time()
        result = solve(combat, OBJECTIVES, time_limit=DEFENDING_LIMIT)
        times[name].append(time.process_time() - t0)
        status = result.status if result.status != "optimal" else status
    return status, result


def _division_bound(doc: dict) -> int:
    """The bound on the divisions of the defending player's part of the reply (effects._parts_bound)."""
    from trample.optimize.search import damage_step_of

    step = damage_step_of(Combat(doc, side="defending"))
    other, _, theirs, _ = effects.separable(step)
    return effects._parts_bound(other, theirs) if other is not None and theirs else 0


if __name__ == "__main__":
    main()
