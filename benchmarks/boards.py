"""Generated whole-combat boards shared by the benchmarks (bench_combat, bench_cliffs)."""

from __future__ import annotations

OPP = [{"id": "opp", "life": 20}]


def _double_strike_trampler(i: int, power: int, blocked_by: list[str]) -> dict:
    return {
        "id": f"a{i}",
        "power": power,
        "toughness": 3,
        "keywords": ["double_strike", "trample"],
        "attacking": "opp",
        "blocked_by": blocked_by,
    }


def ladder(n: int, power: int = 4) -> dict:
    """n double-strike tramplers (power ``power``, toughness 3), each blocked by its own 1/2 and by a first-strike
    2/3 shared per pair of attackers (it divides its first-strike damage: 510.1d). The pairs are independent."""
    attackers, blockers = [], []
    for i in range(n):
        blockers.append({"id": f"b{i}", "power": 1, "toughness": 2})
        if i % 2 == 0:
            blockers.append({"id": f"f{i // 2}", "power": 2, "toughness": 3, "keywords": ["first_strike"]})
        attackers.append(_double_strike_trampler(i, power, [f"b{i}", f"f{i // 2}"]))
    return {"step": "combat", "players": OPP, "attackers": attackers, "blockers": blockers}


def chained(n: int, power: int = 4) -> dict:
    """The same tramplers in one group: attacker i shares a first-strike 2/3 with each neighbour (i-1 and i+1), so
    no part of the first step is independent of the rest."""
    attackers, blockers = [], []
    for i in range(n):
        blockers.append({"id": f"b{i}", "power": 1, "toughness": 2})
        if i < n - 1:
            blockers.append({"id": f"f{i}", "power": 2, "toughness": 3, "keywords": ["first_strike"]})
        shared = ([f"f{i - 1}"] if i > 0 else []) + ([f"f{i}"] if i < n - 1 else [])
        attackers.append(_double_strike_trampler(i, power, [f"b{i}", *shared]))
    return {"step": "combat", "players": OPP, "attackers": attackers, "blockers": blockers}
