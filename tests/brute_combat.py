"""An independent, deliberately plain brute-force oracle for a whole combat (``"step": "combat"``).

Written from docs/rules.md / docs/format.md and the Comprehensive Rules, never from ``solver/``. It reuses the one-step
oracle ``tests/brute.py`` for each step (both sides' sources, ``side="both"``) and does the rest by hand on
plain decoded-JSON dicts:

1. 510.4: a first-strike step happens when an attacking or blocking creature (in combat) has first strike or
   double strike. Without one, the first-strike part of every line is every source with ``{}`` and the
   regular step is assigned on the board as given (no state-based actions in between).
2. Otherwise every legal first-strike assignment (both sides) is dealt, then the state-based actions
   (:func:`state_after_first_strike`), then every legal regular-step assignment of the new board is listed.

Only for tiny boards: the work is (first-step lines) x (regular-step brute force).
"""

from __future__ import annotations

import copy
from fractions import Fraction

import brute

__all__ = [
    "has_first_strike_step",
    "state_after_first_strike",
    "combat_lines",
    "line_violations",
    "is_legal_line",
    "source_ids",
]


def _kws(creature: dict) -> list:
    return creature.get("keywords", [])


def has_first_strike_step(scenario: dict) -> bool:
    """510.4: some attacking or blocking creature still in combat has first strike or double strike."""
    for c in scenario["attackers"] + scenario.get("blockers", []):
        if c.get("in_combat", True) and ("first_strike" in _kws(c) or "double_strike" in _kws(c)):
            return True
    return False


def source_ids(scenario: dict) -> list[str]:
    return [a["id"] for a in scenario["attackers"]] + [b["id"] for b in scenario.get("blockers", [])]


def _with_step(scenario: dict, step: str) -> dict:
    out = copy.deepcopy(scenario)
    out["step"] = step
    return out


def state_after_first_strike(scenario: dict, first: dict) -> dict:
    """Deal the first-strike damage of ``first`` (both sides' sources) and do the state-based actions.

    - creatures: marked damage grows; toughness <= 0 -> gone even if indestructible (704.5f); otherwise, not
      indestructible and (marked >= toughness (704.5g) or any damage from a deathtouch source (704.5h)) ->
      destroyed. Gone means ``in_combat: false`` (it stays in ``blocked_by``; the attacker stays blocked).
    - planeswalkers lose loyalty, battles lose defense; at 0 they leave combat (704.5i, 704.5v).
    - players lose life (the game is not ended at 0).
    Returns a new scenario dict with ``"step": "regular"``.
    """
    s = _with_step(scenario, "regular")
    deathtouch_sources = {c["id"] for c in s["attackers"] + s.get("blockers", []) if "deathtouch" in _kws(c)}
    dealt: dict[str, int] = {}
    by_deathtouch: set[str] = set()
    for src, split in first.items():
        for rcp, n in split.items():
            if n > 0:
                dealt[rcp] = dealt.get(rcp, 0) + n
                if src in deathtouch_sources:
                    by_deathtouch.add(rcp)
    for c in s["attackers"] + s.get("blockers", []):
        d = dealt.get(c["id"], 0)
        marked = c.get("damage_marked", 0) + d
        c["damage_marked"] = marked
        if not c.get("in_combat", True):
            continue
        if c["toughness"] <= 0:
            c["in_combat"] = False
        elif "indestructible" in _kws(c):
            pass
        elif marked >= c["toughness"] or (d > 0 and c["id"] in by_deathtouch):
            c["in_combat"] = False
    for w in s.get("planeswalkers", []):
        w["loyalty"] = max(0, w["loyalty"] - dealt.get(w["id"], 0))
        if w["loyalty"] == 0:
            w["in_combat"] = False
    for b in s.get("battles", []):
        b["defense"] = max(0, b["defense"] - dealt.get(b["id"], 0))
        if b["defense"] == 0:
            b["in_combat"] = False
    for p in s.get("players", []):
        p["life"] = p.get("life", 20) - dealt.get(p["id"], 0)
    return s


def first_strike_lines(scenario: dict) -> list[dict]:
    if not has_first_strike_step(scenario):
        return [{sid: {} for sid in source_ids(scenario)}]
    return brute.brute_force(_with_step(scenario, "first_strike"), "both")


def regular_state(scenario: dict, first: dict) -> dict:
    if not has_first_strike_step(scenario):
        return _with_step(scenario, "regular")
    return state_after_first_strike(scenario, first)


def combat_lines(scenario: dict) -> list[dict]:
    """Every legal ``{"first_strike": ..., "regular": ...}`` line, each exactly once (every source a key)."""
    out = []
    for first in first_strike_lines(scenario):
        for regular in brute.brute_force(regular_state(scenario, first), "both"):
            out.append({"first_strike": first, "regular": regular})
    return out


def line_violations(scenario: dict, line: dict) -> list[tuple[str, str, str]]:
    """``(step, rule, message)`` for every rule the line breaks; the regular step is judged against the state
    that the first-strike assignment, as given, leaves."""
    first, regular = line["first_strike"], line["regular"]
    out = []
    if has_first_strike_step(scenario):
        out += [
            ("first_strike", r, m) for r, m in brute.violations(_with_step(scenario, "first_strike"), first, "both")
        ]
    elif any(split for split in first.values()) or set(first) - set(source_ids(scenario)):
        out.append(("first_strike", "510.4", "there is no first-strike combat damage step"))
    out += [("regular", r, m) for r, m in brute.violations(regular_state(scenario, first), regular, "both")]
    return out


def is_legal_line(scenario: dict, line: dict) -> bool:
    return not line_violations(scenario, line)


# ---------------------------------------------------------------------------------------------
# Objectives over a whole line, and the adversarial optimum (for solve)
# ---------------------------------------------------------------------------------------------
#
# Per step, on the board at the start of that step (the attacking player's assignment only):
#   max-damage[:ID]  damage to every player (or to ID);
#   max-kills        blockers in combat, not indestructible, assigned lethal (marked + assigned >= toughness,
#                    or >= 1 from a deathtouch attacker);
#   max-value        their ``value`` (default 1) + the ``value`` of planeswalkers in combat assigned >= loyalty;
#   min-overkill     per recipient, damage beyond its threshold: a creature's remaining toughness (1 when a
#                    deathtouch attacker assigns it damage and it needs any), a planeswalker's loyalty, a
#                    battle's defense, a player's life (0 when life <= 0).
# Whole combat: the sum of both steps (first step only when it happens); ``lethal`` = number of players whose
# total damage over the combat reaches their life at the start.


def _step_values(board: dict, attacking: dict, objectives: list[str]) -> dict:
    objects = {
        o["id"]: (kind, o)
        for kind in ("players", "planeswalkers", "battles", "attackers", "blockers")
        for o in board.get(kind, [])
    }
    dt_sources = {a["id"] for a in board["attackers"] if "deathtouch" in _kws(a)}
    total: dict[str, int] = {}
    touched: set[str] = set()
    for src, split in attacking.items():
        for r, n in split.items():
            if n > 0:
                total[r] = total.get(r, 0) + n
                if src in dt_sources:
                    touched.add(r)

    def need(c):
        return max(0, c["toughness"] - c.get("damage_marked", 0))

    killed = [
        b
        for b in board.get("blockers", [])
        if b.get("in_combat", True)
        and "indestructible" not in _kws(b)
        and (total.get(b["id"], 0) >= need(b) or b["id"] in touched)
    ]
    walkers = [
        w for w in board.get("planeswalkers", []) if w.get("in_combat", True) and total.get(w["id"], 0) >= w["loyalty"]
    ]
    out = {}
    for name in objectives:
        kind, _, target = name.partition(":")
        if kind == "max-damage":
            ids = [target] if target else [p["id"] for p in board.get("players", [])]
            out[name] = sum(total.get(i, 0) for i in ids)
        elif kind == "max-kills":
            out[name] = len(killed)
        elif kind == "max-value":
            out[name] = sum(Fraction(str(x.get("value", 1))) for x in killed + walkers)
        elif kind == "min-overkill":
            over = 0
            for r, n in total.items():
                rkind, obj = objects[r]
                if rkind == "players":
                    t = max(0, obj.get("life", 20))
                elif rkind == "planeswalkers":
                    t = obj["loyalty"]
                elif rkind == "battles":
                    t = obj["defense"]
                else:
                    t = need(obj)
                    if t > 0 and r in touched:
                        t = 1
                over += max(0, n - t)
            out[name] = over
        elif kind == "lethal":
            out[name] = 0  # judged on the whole line
        else:
            raise ValueError(name)
    return out


def line_values(scenario: dict, line: dict, objectives: list[str]) -> dict:
    """The objectives' values of one whole line (attackers' parts only count)."""
    attackers = {a["id"] for a in scenario["attackers"]}
    first = {k: v for k, v in line["first_strike"].items() if k in attackers}
    regular = {k: v for k, v in line["regular"].items() if k in attackers}
    fs = has_first_strike_step(scenario)
    v2 = _step_values(regular_state(scenario, line["first_strike"]), regular, objectives)
    v1 = _step_values(_with_step(scenario, "first_strike"), first, objectives) if fs else {o: 0 for o in v2}
    out = {o: v1[o] + v2[o] for o in objectives}
    for o in objectives:
        if o == "lethal":
            out[o] = 0
            for p in scenario.get("players", []):
                dealt = sum(split.get(p["id"], 0) for step in (first, regular) for split in step.values())
                out[o] += dealt >= p.get("life", 20)
    return out


def adversarial_optimum(scenario: dict, objectives: list[str]) -> tuple:
    """max over the attackers' first-strike assignments of min over the blockers' of max over the attackers'
    regular assignments of the line's objectives (lexicographic, min-overkill minimised). Returns the values as
    a tuple in objective order (the blockers' regular-step division changes nothing)."""

    def oriented(values):
        return tuple(-values[o] if o == "min-overkill" else values[o] for o in objectives)

    fs = has_first_strike_step(scenario)
    board = _with_step(scenario, "first_strike")
    if fs:
        firsts = brute.brute_force(board, "attacking")
        replies = brute.brute_force(board, "defending")
    else:
        firsts = [{a["id"]: {} for a in scenario["attackers"]}]
        replies = [{b["id"]: {} for b in scenario.get("blockers", [])}]
    best = None
    for a1 in firsts:
        worst = None
        for d1 in replies:
            first = {**a1, **d1}
            top = None
            for a2 in brute.brute_force(regular_state(scenario, first), "attacking"):
                key = oriented(line_values(scenario, {"first_strike": first, "regular": a2}, objectives))
                top = key if top is None or key > top else top
            worst = top if worst is None or top < worst else worst
        best = worst if best is None or worst > best else best
    return tuple(-v if o == "min-overkill" else v for o, v in zip(objectives, best))
