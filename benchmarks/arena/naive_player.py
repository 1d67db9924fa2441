"""A naive external arena player (the protocol of docs/arena.md, no trample import).

Reads one request per line, ``{"scenario": {...}, "objective": "...", "seed": n}``, and answers one assignment
per line: every attacker puts all its power on its first blocker still in combat, or else on what it attacks.
It forgets the first-strike step, blockers that have left combat with trample, and planeswalkers or battles
removed from combat, so the arena catches it breaking rules.

    trample arena --external "naive=python3 benchmarks/arena/naive_player.py"
"""

import json
import sys


def answer(scenario: dict) -> dict:
    inside = {b["id"] for b in scenario.get("blockers", []) if b.get("in_combat", True)}
    out = {}
    for a in scenario["attackers"]:
        blockers = [b for b in a.get("blocked_by", []) if b in inside]
        if a["power"] <= 0:
            out[a["id"]] = {}
        elif blockers:
            out[a["id"]] = {blockers[0]: a["power"]}
        else:
            out[a["id"]] = {a["attacking"]: a["power"]}
    return out


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        print(json.dumps(answer(request["scenario"])), flush=True)


if __name__ == "__main__":
    main()
