"""An independent, deliberately plain brute-force oracle for a whole combat (``"step": "combat"``).

Written from docs/rules.md / docs/format.md and the Comprehensive Rules, never from ``solver/``. It reuses the one-step
oracle ``tests/oracles/brute.py`` for each step (both sides' sources, ``side="both"``) and does the rest by hand on
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


def damage_dealt(s: dict, assignment: dict) -> dict[tuple[str, str], int]:
    """``{(source, recipient): damage dealt}`` after protection, prevention and modifiers (see
    :func:`state_after_first_strike`). Uses up the recipients' ``prevent`` shields in ``s`` (a copy)."""
    objects = {
        o["id"]: (g, o) for g in ("players", "planeswalkers", "battles", "attackers", "blockers") for o in s.get(g, [])
    }
    sources = s["attackers"] + s.get("blockers", [])
    rank = {c["id"]: k for k, c in enumerate(sources)}
    dealt: dict[tuple[str, str], int] = {}
    first = assignment
    by_recipient: dict[str, list] = {}
    for src, split in first.items():
        for rcp, n in split.items():
            if n > 0:
                by_recipient.setdefault(rcp, []).append((src, n))
    for rcp, events in by_recipient.items():
        r = objects[rcp][1]
        shield = r.get("prevent", 0)
        order = r.get("shield_order", [])
        events.sort(key=lambda e: (order.index(e[0]) if e[0] in order else len(order), rank[e[0]]))
        for src, n in events:
            source = objects[src][1]
            quals = {source["id"], *source.get("tags", [])}
            if r.get("prevent_combat", False) or quals & set(r.get("protection", [])):
                continue
            mods = source.get("deals", []) + r.get("takes", [])
            times = [m["times"] for m in mods if "times" in m]
            plus = sum(m["plus"] for m in mods if "plus" in m)
            if r.get("replacement_order", "least") == "most":
                amount = n + plus
                for t in times:
                    amount *= t
                stop = min(shield, amount)
                amount -= stop
            else:
                stop = min(shield, n)
                amount = n - stop
                if amount > 0:
                    for t in times:
                        amount *= t
                    amount += plus
            shield -= stop
            if amount > 0:
                dealt[src, rcp] = amount
        r["prevent"] = shield
        if not r["prevent"]:
            del r["prevent"]

    return dealt


def state_after_first_strike(scenario: dict, first: dict) -> dict:
    """Deal the first-strike damage of ``first`` (both sides' sources) and do the state-based actions.

    Damage dealt (docs/effects.md, written here from the rules): per source and recipient, nothing if the
    recipient has protection from the source (its id or a tag, 702.16e) or prevents all combat damage (615.1a);
    otherwise the ``prevent`` shield, ``times`` and ``plus`` in the recipient's ``replacement_order`` ("least":
    shield, then times, then plus; "most": plus, times, shield), the shield used by the sources in
    ``shield_order`` first, then in scenario order (616.1, 615.7). 0 stays 0.

    - creatures: damage from infect or wither is -1/-1 counters (power and toughness down), other damage is
      marked; toughness <= 0 -> gone even if indestructible (704.5f); otherwise, not indestructible and
      (marked >= toughness (704.5g) or any damage from a deathtouch source (704.5h)) -> destroyed. Gone means
      ``in_combat: false`` (it stays in ``blocked_by``; the attacker stays blocked).
    - planeswalkers lose loyalty, battles lose defense; at 0 they leave combat (704.5i, 704.5v).
    - players lose life, or get poison counters from infect; toxic N adds N poison; commanders' damage is
      added up; lifelink gains at the same time (a blocker's controller: ``controller``, else the only player,
      else whoever its first attacker attacks); a player at 0 life, 10 poison or 21 from one commander loses.
      With two players in the game, the result has ``"game_over": true``; with more, the loser's planeswalkers
      and blockers leave combat and so do the attackers attacking them or those; a battle they protect stays.
    Returns a new scenario dict with ``"step": "regular"``.
    """
    s = _with_step(scenario, "regular")
    objects = {
        o["id"]: (g, o) for g in ("players", "planeswalkers", "battles", "attackers", "blockers") for o in s.get(g, [])
    }
    dealt = damage_dealt(s, first)

    def controller(c):
        if objects[c["id"]][0] == "attackers":
            return None
        if c.get("controller"):
            return c["controller"]
        if len(s.get("players", [])) == 1:
            return s["players"][0]["id"]
        for a in s["attackers"]:
            if c["id"] in a.get("blocked_by", []):
                kind, t = objects[a["attacking"]]
                return t["id"] if kind == "players" else t.get("controller", t.get("protector"))
        return None

    counters: dict[str, int] = {}
    marked: dict[str, int] = {}
    total: dict[str, int] = {}
    by_deathtouch: set[str] = set()
    gain: dict[str, int] = {}
    loss: dict[str, int] = {}
    poison: dict[str, int] = {}
    commander: dict[tuple[str, str], int] = {}
    for (src, rcp), n in dealt.items():
        source = objects[src][1]
        kind = objects[rcp][0]
        total[rcp] = total.get(rcp, 0) + n
        if "deathtouch" in _kws(source):
            by_deathtouch.add(rcp)
        if "lifelink" in _kws(source):
            who = controller(source)
            if who is not None:
                gain[who] = gain.get(who, 0) + n
        if kind == "players":
            if "infect" in _kws(source):
                poison[rcp] = poison.get(rcp, 0) + n
            else:
                loss[rcp] = loss.get(rcp, 0) + n
            poison[rcp] = poison.get(rcp, 0) + source.get("toxic", 0)
            if "commander" in source:
                commander[rcp, src] = commander.get((rcp, src), 0) + n
        elif kind in ("attackers", "blockers"):
            if "infect" in _kws(source) or "wither" in _kws(source):
                counters[rcp] = counters.get(rcp, 0) + n
            else:
                marked[rcp] = marked.get(rcp, 0) + n
    for c in s["attackers"] + s.get("blockers", []):
        k = counters.get(c["id"], 0)
        c["power"] -= k
        c["toughness"] -= k
        c["damage_marked"] = c.get("damage_marked", 0) + marked.get(c["id"], 0)
        if not c.get("in_combat", True):
            continue
        if c["toughness"] <= 0:
            c["in_combat"] = False
        elif "indestructible" in _kws(c):
            pass
        elif c["damage_marked"] >= c["toughness"] or c["id"] in by_deathtouch:
            c["in_combat"] = False
    for w in s.get("planeswalkers", []):
        w["loyalty"] = max(0, w["loyalty"] - total.get(w["id"], 0))
        if w["loyalty"] == 0:
            w["in_combat"] = False
    for b in s.get("battles", []):
        b["defense"] = max(0, b["defense"] - total.get(b["id"], 0))
        if b["defense"] == 0:
            b["in_combat"] = False
    losers = []
    for p in s.get("players", []):
        p["life"] = p.get("life", 20) - loss.get(p["id"], 0) + gain.get(p["id"], 0)
        p["poison"] = p.get("poison", 0) + poison.get(p["id"], 0)
        cd = dict(p.get("commander_damage", {}))
        for (pid, src), n in commander.items():
            if pid == p["id"]:
                cd[src] = cd.get(src, 0) + n
        if cd:
            p["commander_damage"] = cd
        if p["life"] <= 0 or p["poison"] >= 10 or any(n >= 21 for n in cd.values()):
            losers.append(p["id"])
    if losers:
        if s.get("players_in_game", len(s.get("players", [])) + 1) <= 2:
            s["game_over"] = True  # 104.3b: the game is over, no regular step
        else:  # 800.4a: they leave, with what they control
            gone = set(losers)
            for w in s.get("planeswalkers", []):
                if w["controller"] in gone:
                    w["in_combat"] = False
                    gone.add(w["id"])
            # their battles stay attacked: a battle is not its protector's (800.4a), 506.4 lists no removal
            for b in s.get("blockers", []):
                if controller(b) in set(losers):
                    b["in_combat"] = False
            for a in s["attackers"]:
                if a["attacking"] in gone:
                    a["in_combat"] = False
    return s


def destroyed_after(scenario: dict, line: dict) -> set[str]:
    """What the state-based actions of the step put into the graveyard (704.5f/g/h creatures, 704.5i planeswalkers,
    704.5v battles): the objects out of combat after the same step in a game of two, where nobody leaves (800.4a
    takes the loser's objects out of combat too, but they did not die). Callers keep those in combat before."""
    after = state_after_first_strike({**scenario, "players_in_game": 2}, line)
    groups = ("attackers", "blockers", "planeswalkers", "battles")
    return {o["id"] for g in groups for o in after.get(g, []) if not o.get("in_combat", True)}


def game_over(state: dict) -> bool:
    return state.get("game_over", False)


def first_strike_lines(scenario: dict) -> list[dict]:
    if not has_first_strike_step(scenario):
        return [{sid: {} for sid in source_ids(scenario)}]
    return brute.brute_force(_with_step(scenario, "first_strike"), "both")


def regular_state(scenario: dict, first: dict) -> dict:
    if not has_first_strike_step(scenario):
        return _with_step(scenario, "regular")
    return state_after_first_strike(scenario, first)


def _settled(board: dict) -> dict:
    """The board with the state-based actions pending on it done (brute.normalize's reading): who is in combat."""
    out = copy.deepcopy(board)
    out.pop("game_over", None)
    settled = brute.normalize(dict(out, step="regular"))
    for group in ("attackers", "blockers", "planeswalkers", "battles"):
        for obj in out.get(group, []):
            obj["in_combat"] = settled["objects"][obj["id"]][1]["in_combat"]
    return out


def _board(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "game_over"}


def combat_lines(scenario: dict) -> list[dict]:
    """Every legal ``{"first_strike": ..., "regular": ...}`` line, each exactly once (every source a key). When
    the first step ends a two-player game, the line's regular part is every source with ``{}``."""
    out = []
    for first in first_strike_lines(scenario):
        state = regular_state(scenario, first)
        if game_over(state):
            out.append({"first_strike": first, "regular": {sid: {} for sid in source_ids(scenario)}})
            continue
        for regular in brute.brute_force(_board(state), "both"):
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
    state = regular_state(scenario, first)
    if game_over(state):
        if any(split for split in regular.values()):
            out.append(("regular", "104.3b", "the game ended before the regular combat damage step"))
        return out
    out += [("regular", r, m) for r, m in brute.violations(_board(state), regular, "both")]
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
    board = _settled(board)
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


def active_part(board: dict, line: dict) -> tuple:
    """The active player's part of one step's line (both sides' assignments): the splits of the sources whose
    damage the active player divides (:func:`brute.divider`: their attackers, and with banding a blocker blocking
    a band, 702.22k; not an attacker blocked by a creature with banding, 702.22j)."""
    return tuple(
        sorted(
            (sid, tuple(sorted(split.items())))
            for sid, split in line.items()
            if brute.divider(board, sid) == "attacking"
        )
    )


def step_game(board: dict, lines: list[dict], value) -> tuple:
    """One step played by both players: max over the active player's parts of min over the lines holding that
    part (the defending player divides the rest knowing it) of ``value(line)``."""
    worst: dict[tuple, tuple] = {}
    for line in lines:
        key = active_part(board, line)
        v = value(line)
        if key not in worst or v < worst[key]:
            worst[key] = v
    return max(worst.values())


def _first_step_minimax(scenario: dict, regular) -> tuple:
    """The first-strike step as a game (:func:`step_game`) of ``regular(first)`` (the attacker's best key after
    that first step; one empty line without a first-strike step)."""
    if has_first_strike_step(scenario):
        board = _with_step(scenario, "first_strike")
        return step_game(board, brute.brute_force(board, "both"), regular)
    empty = {sid: {} for sid in source_ids(scenario)}
    return regular(empty)


def adversarial_optimum(scenario: dict, objectives: list[str]) -> tuple:
    """Both steps played as games (:func:`step_game`: the active player's part, then the defending player's) of
    the line's objectives (lexicographic, min-overkill minimised), read on the attackers' damage assigned. Returns
    the values as a tuple in objective order. In the regular step the blockers' division changes no value, but
    who divides the attackers' damage does (702.22j)."""

    def oriented(values):
        return tuple(-values[o] if o == "min-overkill" else values[o] for o in objectives)

    def regular(first):
        state = regular_state(scenario, first)
        lines = brute.brute_force(_board(state), "attacking")
        return step_game(
            _board(state),
            lines,
            lambda a2: oriented(line_values(scenario, {"first_strike": first, "regular": a2}, objectives)),
        )

    best = _first_step_minimax(scenario, regular)
    return tuple(-v if o == "min-overkill" else v for o, v in zip(objectives, best))


# -- boards with effects: objectives on the outcome (docs/solve.md, "Boards with effects") ---------------------------

OUTCOME_OBJECTIVES = ("lethal", "max-damage", "max-kills")


def outcome_line_values(scenario: dict, line: dict, objectives: list[str]) -> dict:
    """The objectives of one whole line read on what its damage does, for a two-player game: ``max-damage`` (or
    ``max-damage:ID``) is the damage the attackers *deal* over both steps (after protection, prevention and
    doubling), ``max-kills`` the blockers in combat at the start that the state-based actions of either step put
    into the graveyard (not those that left the game with a loser, 800.4a), ``lethal`` the players who lose (0 life,
    10 poison, 21 from one commander) in either step."""
    attackers = {a["id"] for a in scenario["attackers"]}
    board = _settled(scenario)
    fs = has_first_strike_step(scenario)
    dealt = []
    if fs:
        dealt.append(damage_dealt(copy.deepcopy(_with_step(board, "first_strike")), line["first_strike"]))
        middle = state_after_first_strike(board, line["first_strike"])
    else:
        middle = _with_step(board, "regular")
    dead = destroyed_after(_with_step(board, "first_strike"), line["first_strike"]) if fs else set()
    if game_over(middle):
        end = middle
    else:
        dealt.append(damage_dealt(copy.deepcopy(_board(middle)), line["regular"]))
        end = state_after_first_strike(_board(middle), line["regular"])
        # only what was still in combat when the step began: a loser's objects left with them (800.4a), not died
        groups = ("attackers", "blockers", "planeswalkers", "battles")
        present = {o["id"] for g in groups for o in middle.get(g, []) if o.get("in_combat", True)}
        dead |= destroyed_after(_board(middle), line["regular"]) & present
    lost = set()
    for state in (middle, end):
        for p in state.get("players", []):
            cd = p.get("commander_damage", {})
            if p.get("life", 20) <= 0 or p.get("poison", 0) >= 10 or any(n >= 21 for n in cd.values()):
                lost.add(p["id"])
    alive = {b["id"] for b in board.get("blockers", []) if b.get("in_combat", True)}
    gone = dead  # put into the graveyard in either step: leaving with a loser (800.4a) is no kill
    out = {}
    for name in objectives:
        kind, _, target = name.partition(":")
        if kind == "max-damage":
            ids = {target} if target else {p["id"] for p in scenario.get("players", [])}
            out[name] = sum(n for d in dealt for (src, r), n in d.items() if src in attackers and r in ids)
        elif kind == "max-kills":
            out[name] = len(alive & gone)
        elif kind == "lethal":
            out[name] = len(lost)
        else:
            raise ValueError(name)
    return out


def outcome_adversarial_optimum(scenario: dict, objectives: list[str]) -> tuple:
    """Both steps played as games (:func:`step_game`) of :func:`outcome_line_values` (lexicographic): on boards
    with effects the blockers' regular-step damage matters too (a lifelink blocker's gain), and so does who
    divides it."""

    def regular(first):
        state = regular_state(scenario, first)
        if game_over(state):
            return tuple(
                outcome_line_values(scenario, {"first_strike": first, "regular": {}}, objectives)[o] for o in objectives
            )
        board = _board(state)
        return step_game(
            board,
            brute.brute_force(board, "both"),
            lambda line: tuple(
                outcome_line_values(scenario, {"first_strike": first, "regular": line}, objectives)[o]
                for o in objectives
            ),
        )

    return _first_step_minimax(scenario, regular)


def outcome_line_value(scenario: dict, line: dict, objectives: list[str]) -> tuple:
    """:func:`outcome_line_values` as a tuple in objective order."""
    values = outcome_line_values(scenario, line, objectives)
    return tuple(values[o] for o in objectives)
