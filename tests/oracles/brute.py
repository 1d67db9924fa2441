"""An independent, deliberately naive oracle for one combat damage step.

Written from ``docs/rules.md`` / ``docs/format.md`` only, never from ``solver/`` (so differential tests can catch
engine bugs). It works on the plain decoded JSON dict of a scenario and on plain assignment dicts.

* :func:`violations` / :func:`is_legal` -- the rules, as a filter over one whole assignment (510.1e: legality
  is judged on every creature's assignment together).
* :func:`brute_force` -- enumerate, for every source, every way to split its damage over a generous set of
  candidate recipients (every blocker, player, planeswalker and battle in the scenario, or the attackers for
  the defending side), take the product, and keep what :func:`is_legal` accepts. Exponential on purpose;
  only for tiny scenarios.

Readings (see docs/rules.md "Readings where the rules are silent" and the test module):

* an attacker with ``"in_combat": false`` was removed from combat: it assigns nothing, and a blocker whose
  blocked attackers are all removed assigns nothing (510.1d);
* lethal damage is checked on the attacking side's whole assignment (blockers assign only to attackers);
* the board is settled first (docs/effects.md): a creature with toughness 0, or lethal damage marked and not
  indestructible, a planeswalker at loyalty 0 and a battle at defense 0 have already left combat; a player at 0
  life (or 10 poison, or 21 from one commander) has lost: in a two-player game nothing is dealt at all;
* a source missing from an assignment is read as assigning nothing (``{}``); zero amounts are dropped;
  an unknown source key is a violation.

Real-board options (docs/effects.md), written here from the rules, not from ``solver/``:

* ``assigns_toughness``: the creature assigns an amount equal to its toughness instead of its power (510.1a);
* ``as_though_unblocked``: a blocked attacker's split is legal if it is legal for the attacker as it is, or for
  the same attacker with no blockers and not blocked (510.1b); when what it attacks has left combat, that
  second way assigns nothing (506.4c), and ``{}`` is legal for it;
* legacy rules, a blocker blocking several attackers: in its ``damage_order`` (default: the order of
  ``attackers``), it may give damage to an attacker only if each earlier one has lethal damage, counting every
  blocker's assignment (old 510.1d, 702.2c);
* banding: an attacker blocked by a creature with banding, and a blocker blocking an attacker with banding, skip
  the legacy order (702.22j/k); everything else stays.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

__all__ = ["brute_force", "is_legal", "violations", "normalize", "splits", "allowed_recipients", "divider"]

STEPS = ("regular", "first_strike")


# ---------------------------------------------------------------------------------------------
# Defaults (docs/format.md)
# ---------------------------------------------------------------------------------------------


def _creature(d: dict) -> dict:
    kws = set(d.get("keywords", []))
    if "trample_over_planeswalkers" in kws:  # 702.19c: a variant of trample
        kws.add("trample")
    out = dict(d)
    out["keywords"] = kws
    out["damage_marked"] = d.get("damage_marked", 0)
    out["in_combat"] = d.get("in_combat", True)
    # 510.1a: the amount it assigns
    out["amount"] = d["toughness"] if d.get("assigns_toughness", False) else d["power"]
    return out


def normalize(scenario: dict) -> dict:
    """The scenario with every docs/format.md default filled in, plus an ``objects`` index by id.

    Keywords become sets (trample_over_planeswalkers adds trample).
    """
    s = {
        "rules": scenario.get("rules", "current"),
        "step": scenario.get("step", "regular"),
        "players": [dict(p) for p in scenario.get("players", [])],
        "planeswalkers": [dict(p, in_combat=p.get("in_combat", True)) for p in scenario.get("planeswalkers", [])],
        "battles": [dict(b, in_combat=b.get("in_combat", True)) for b in scenario.get("battles", [])],
        "attackers": [],
        "blockers": [_creature(b) for b in scenario.get("blockers", [])],
        "players_in_game": scenario.get("players_in_game", len(scenario.get("players", [])) + 1),
    }
    if s["rules"] not in ("current", "legacy"):
        raise ValueError(f"unknown rules {s['rules']!r}")
    if s["step"] not in STEPS:
        raise ValueError(f"the oracle assigns one damage step (regular or first_strike), not {s['step']!r}")
    for a in scenario["attackers"]:
        a2 = _creature(a)
        a2["blocked_by"] = list(a.get("blocked_by", []))
        a2["blocked"] = a.get("blocked", len(a2["blocked_by"]) > 0)
        a2["as_though_unblocked"] = a.get("as_though_unblocked", False)
        s["attackers"].append(a2)
    objects = {}
    for kind, group in (
        ("player", s["players"]),
        ("planeswalker", s["planeswalkers"]),
        ("battle", s["battles"]),
        ("attacker", s["attackers"]),
        ("blocker", s["blockers"]),
    ):
        for obj in group:
            assert obj["id"] not in objects, f"duplicate id {obj['id']}"
            objects[obj["id"]] = (kind, obj)
    s["objects"] = objects
    _settle(s)
    return s


def _lost(p: dict) -> bool:
    """704.5a, 704.5c, 704.6c."""
    return (
        p.get("life", 20) <= 0
        or p.get("poison", 0) >= 10
        or any(n >= 21 for n in p.get("commander_damage", {}).values())
    )


def _settle(s: dict) -> None:
    """The state-based actions pending on the board as given (docs/effects.md): creatures in combat with
    toughness <= 0, or lethal damage marked and not indestructible, leave combat (704.5f/g); planeswalkers at 0
    loyalty and battles at 0 defense too (704.5i/v). A player who has lost: with two players in the game nothing
    deals combat damage any more (``game_over``, 104.3b); with more, that player's planeswalkers and blockers
    leave, and so do the attackers attacking that player or those planeswalkers (800.4a); a battle that player
    protects stays in combat, attacked."""
    for c in s["attackers"] + s["blockers"]:
        if c["in_combat"] and (
            c["toughness"] <= 0 or ("indestructible" not in c["keywords"] and c["damage_marked"] >= c["toughness"])
        ):
            c["in_combat"] = False
    for w in s["planeswalkers"]:
        if w["loyalty"] <= 0:
            w["in_combat"] = False
    for b in s["battles"]:
        if b["defense"] <= 0:
            b["in_combat"] = False
    losers = {p["id"] for p in s["players"] if _lost(p)}
    s["game_over"] = False
    if not losers:
        return
    if s["players_in_game"] <= 2:
        s["game_over"] = True
        return
    gone = set(losers)
    for w in s["planeswalkers"]:
        if w["controller"] in losers:
            w["in_combat"] = False
            gone.add(w["id"])
    # A battle they protect stays attacked (it is not theirs: 800.4a; 506.4 lists no such removal; 704.5w picks
    # a new protector only for a battle no creature attacks).
    for b in s["blockers"]:
        if b.get("controller") is not None:
            owner = b["controller"]
        elif len(s["players"]) == 1:
            owner = s["players"][0]["id"]
        else:
            first = next((a for a in s["attackers"] if b["id"] in a["blocked_by"]), None)
            owner = None
            if first is not None:
                kind, t = s["objects"][first["attacking"]]
                owner = t["id"] if kind == "player" else t.get("controller", t.get("protector"))
        if owner in losers:
            b["in_combat"] = False
    for a in s["attackers"]:
        if a["attacking"] in gone:
            a["in_combat"] = False


def _ensure_normal(scenario: dict) -> dict:
    return scenario if "objects" in scenario else normalize(scenario)


# ---------------------------------------------------------------------------------------------
# Who deals damage, and to whom it may go at all
# ---------------------------------------------------------------------------------------------


def deals_damage_this_step(creature: dict, step: str) -> bool:
    """510.4 / 702.7b / 702.4b: first-strike step: first strike or double strike; regular step: double
    strike, or neither keyword."""
    kws = creature["keywords"]
    if step == "first_strike":
        return "first_strike" in kws or "double_strike" in kws
    return "double_strike" in kws or "first_strike" not in kws


def current_blockers(s: dict, attacker: dict) -> list[str]:
    """510.1c: the creatures *currently* blocking it, in ``blocked_by`` order (the legacy order)."""
    if not attacker["blocked"]:
        return []
    return [b for b in attacker["blocked_by"] if s["objects"][b][1]["in_combat"]]


def allowed_recipients(scenario: dict, attacker_id: str) -> dict[str, str]:
    """Recipients an attacker may ever assign to in this step (its normal way), ignoring the joint conditions
    (lethal damage, loyalty, legacy order), as ``{recipient id: role}`` with role in
    ``"blocker" | "target" | "controller"``. Empty: the attacker assigns nothing."""
    s = _ensure_normal(scenario)
    kind, a = s["objects"][attacker_id]
    assert kind == "attacker"
    return _recipients(s, a)


def as_unblocked(a: dict) -> dict:
    """The same attacker as though it weren't blocked."""
    return dict(a, blocked=False, blocked_by=[])


def has_unblocked_way(s: dict, a: dict) -> bool:
    """510.1c: a blocked attacker that may assign as though it weren't blocked has that second way, even when it
    sends nothing anywhere (what it attacks has left combat, 506.4c: that way it assigns nothing)."""
    return a["as_though_unblocked"] and a["blocked"]


def _recipients(s: dict, a: dict) -> dict[str, str]:
    if s["game_over"]:
        return {}  # 104.3b: the game is over
    if not a["in_combat"]:
        return {}  # removed from combat: no combat damage (506.4)
    if not deals_damage_this_step(a, s["step"]):
        return {}  # 510.4
    if a["amount"] <= 0:
        return {}  # 510.1a
    blockers = current_blockers(s, a)
    trample = "trample" in a["keywords"]
    top = "trample_over_planeswalkers" in a["keywords"]
    if a["blocked"] and not trample:
        return {b: "blocker" for b in blockers}  # 510.1c; no blocker left: nothing
    # Unblocked (510.1b), or a blocked trampler (702.19b; no blocker left: 702.19d).
    rec = {b: "blocker" for b in blockers}
    target = a["attacking"]
    tkind, tobj = s["objects"][target]
    if tkind == "player":
        rec[target] = "target"
    elif tkind == "planeswalker":
        if tobj["in_combat"]:
            rec[target] = "target"
            if top:
                rec[tobj["controller"]] = "controller"  # 702.19c (never without it: 702.19f)
        elif top:
            rec[tobj["controller"]] = "controller"  # 702.19e, an exception to 506.4c
        # else: 506.4c (unblocked: nothing) / reading 2 (blocked trampler: blockers only)
    elif tkind == "battle":
        if tobj["in_combat"]:
            rec[target] = "target"  # battles: like planeswalkers without TOP (reading 1)
    else:
        raise ValueError(f"{a['id']} attacks {target}, a {tkind}")
    return rec


def _blocker_recipients(s: dict, blocker_id: str) -> list[str]:
    """510.1d: a blocker divides its damage among the (in-combat) attackers it blocks."""
    b = s["objects"][blocker_id][1]
    if s["game_over"] or not b["in_combat"] or not deals_damage_this_step(b, s["step"]) or b["amount"] <= 0:
        return []
    return [a["id"] for a in s["attackers"] if a["in_combat"] and blocker_id in a["blocked_by"]]


# ---------------------------------------------------------------------------------------------
# The filter
# ---------------------------------------------------------------------------------------------


def _clean(assignment: dict) -> dict:
    return {src: {r: n for r, n in dict(split).items() if n != 0} for src, split in dict(assignment).items()}


def violations(scenario: dict, assignment: dict, side: str = "attacking") -> list[tuple[str, str]]:
    """Every rule the assignment breaks, as ``(rule, message)`` pairs. Empty means legal."""
    s = _ensure_normal(scenario)
    asg = _clean(assignment)
    out: list[tuple[str, str]] = []
    attacker_ids = [a["id"] for a in s["attackers"]]
    blocker_ids = [b["id"] for b in s["blockers"]]
    if side == "attacking":
        sources = attacker_ids
    elif side == "defending":
        sources = blocker_ids
    elif side == "both":
        sources = attacker_ids + blocker_ids
    else:
        raise ValueError(f"side must be attacking, defending or both, not {side!r}")
    for src in asg:
        if src not in sources:
            out.append(("510.1", f"{src} is not a source of the {side} side"))
    for src, split in asg.items():
        for r, n in split.items():
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                out.append(("510.1a", f"{src} assigns {n!r} to {r}: amounts are positive integers"))
    if out:
        return out

    if side in ("attacking", "both"):
        out += _attacking_violations(s, {a: asg.get(a, {}) for a in attacker_ids})
    if side in ("defending", "both"):
        out += _defending_violations(s, {b: asg.get(b, {}) for b in blocker_ids})
    return out


def is_legal(scenario: dict, assignment: dict, side: str = "attacking") -> bool:
    return not violations(scenario, assignment, side)


def _local_attacker_violations(s: dict, a: dict, split: dict) -> list[tuple[str, str]]:
    """What one attacker's split breaks on its own: recipients it can never use, and its total (either way
    being fine when it may assign as though it weren't blocked)."""
    out = _local_way_violations(s, a, split)
    if out and has_unblocked_way(s, a) and not _local_way_violations(s, as_unblocked(a), split):
        return []
    return out


def _local_way_violations(s: dict, a: dict, split: dict) -> list[tuple[str, str]]:
    out = []
    rec = _recipients(s, a)
    total = sum(split.values())
    for r in split:
        if r not in rec:
            out.append((_why_not(s, a, r), f"{a['id']} may not assign damage to {r}"))
    if not rec:
        if total:
            out.append((_why_nothing(s, a), f"{a['id']} assigns no combat damage in this step"))
    elif total != a["amount"]:
        out.append(("510.1a", f"{a['id']} must assign exactly {a['amount']}, assigned {total}"))
    return out


def _why_nothing(s: dict, a: dict) -> str:
    if s["game_over"]:
        return "104.3b"
    if not a["in_combat"]:
        return "506.4"
    if not deals_damage_this_step(a, s["step"]):
        return "510.4"
    if a["amount"] <= 0:
        return "510.1a"
    if a["blocked"] and "trample" not in a["keywords"]:
        return "510.1c"
    return "506.4c"


def _why_not(s: dict, a: dict, r: str) -> str:
    if r not in s["objects"]:
        return "510.1"
    rkind, robj = s["objects"][r]
    tkind, tobj = s["objects"][a["attacking"]]
    if rkind == "blocker":
        return "510.1c"
    if r == a["attacking"]:
        return "506.4c" if not tobj.get("in_combat", True) else "510.1c"
    if rkind == "player" and tkind == "planeswalker" and "trample_over_planeswalkers" not in a["keywords"]:
        return "702.19f"
    if rkind == "player" and tkind == "battle":
        return "702.19b"
    return "510.1b" if not a["blocked"] else "510.1c"


def lethal_map(s: dict, attacking_assignment: dict) -> dict[str, bool]:
    """702.19b / 702.2c: for every blocker, has it been assigned lethal damage, counting every attacker's
    assignment in the step (and damage already marked)?"""
    s = _ensure_normal(s)
    return _lethal(s["blockers"], s["attackers"], attacking_assignment)


def _lethal(receivers: list[dict], givers: list[dict], assignment: dict) -> dict[str, bool]:
    out = {}
    for c in receivers:
        assigned = 0
        deathtouch = False
        for g in givers:
            n = assignment.get(g["id"], {}).get(c["id"], 0)
            assigned += n
            if n > 0 and "deathtouch" in g["keywords"]:
                deathtouch = True
        out[c["id"]] = deathtouch or c["damage_marked"] + assigned >= c["toughness"]
    return out


def _banding_among(s: dict, ids) -> bool:
    return any("banding" in s["objects"][x][1]["keywords"] for x in ids)


def divider(scenario: dict, creature_id: str) -> str:
    """Who divides this creature's combat damage in the step: ``"attacking"`` (the active player) or
    ``"defending"``. 510.1c/d: an attacker's controller (the active player), a blocker's (the defending player);
    702.22j: an attacking creature blocked by a creature with banding -- the defending player; 702.22k: a
    blocking creature blocking a creature with banding -- the active player."""
    s = _ensure_normal(scenario)
    kind, c = s["objects"][creature_id]
    if kind == "attacker":
        return "defending" if _banding_among(s, current_blockers(s, c)) else "attacking"
    blocked = [a["id"] for a in s["attackers"] if a["in_combat"] and creature_id in a["blocked_by"]]
    return "attacking" if _banding_among(s, blocked) else "defending"


def _attacking_violations(s: dict, asg: dict) -> list[tuple[str, str]]:
    out = []
    for a in s["attackers"]:
        out += _local_attacker_violations(s, a, asg[a["id"]])
    if out:
        return out
    lethal = lethal_map(s, asg)
    for a in s["attackers"]:
        split = asg[a["id"]]
        if not split:
            continue
        mine = _way_violations(s, a, split, asg, lethal)
        if mine and has_unblocked_way(s, a):
            other = as_unblocked(a)
            if not _local_way_violations(s, other, split) and not _way_violations(s, other, split, asg, lethal):
                mine = []  # legal as though it weren't blocked
        out += mine
    return out


def _way_violations(s: dict, a: dict, split: dict, asg: dict, lethal: dict) -> list[tuple[str, str]]:
    out = []
    rec = _recipients(s, a)
    blockers = current_blockers(s, a)
    all_lethal = all(lethal[b] for b in blockers)
    for r, n in split.items():
        role = rec.get(r)
        if role in ("target", "controller") and not all_lethal:
            rule = "702.19e" if role == "controller" and not s["objects"][a["attacking"]][1]["in_combat"] else "702.19b"
            missing = [b for b in blockers if not lethal[b]]
            out.append((rule, f"{a['id']} assigns {n} to {r} but {', '.join(missing)} lacks lethal damage"))
        if role == "controller" and s["objects"][a["attacking"]][1]["in_combat"]:
            pw = s["objects"][a["attacking"]][1]
            to_pw = sum(asg[x["id"]].get(pw["id"], 0) for x in s["attackers"])
            if to_pw < pw["loyalty"]:
                out.append(
                    ("702.19c", f"{a['id']} assigns {n} to {r} but {pw['id']} was assigned {to_pw} < {pw['loyalty']}")
                )
    if s["rules"] == "legacy" and not _banding_among(s, blockers):  # 702.22j: banding skips the order
        for i, b in enumerate(blockers):
            if split.get(b, 0) > 0:
                earlier = [e for e in blockers[:i] if not lethal[e]]
                if earlier:
                    out.append(
                        (
                            "510.1c",
                            f"{a['id']} assigns to {b} before lethal damage to "
                            f"{', '.join(earlier)} (damage assignment order, legacy rules)",
                        )
                    )
    return out


def _local_blocker_violations(s: dict, b: dict, split: dict) -> list[tuple[str, str]]:
    out = []
    rec = _blocker_recipients(s, b["id"])
    total = sum(split.values())
    for r in split:
        if r not in rec:
            out.append(("510.1d", f"{b['id']} may not assign damage to {r}"))
    if not rec:
        if total:
            out.append(
                (
                    "510.1d"
                    if not s["game_over"]
                    and b["in_combat"]
                    and b["amount"] > 0
                    and deals_damage_this_step(b, s["step"])
                    else _why_nothing(s, b),
                    f"{b['id']} assigns no combat damage in this step",
                )
            )
    elif total != b["amount"]:
        out.append(("510.1a", f"{b['id']} must assign exactly {b['amount']}, assigned {total}"))
    return out


def blocker_order(s: dict, b: dict) -> list[str]:
    """Legacy rules: the blocker's damage assignment order over the in-combat attackers it blocks."""
    blocked = _blocker_recipients(s, b["id"])
    order = b.get("damage_order") or [a["id"] for a in s["attackers"] if b["id"] in a["blocked_by"]]
    return [x for x in order if x in blocked]


def _defending_violations(s: dict, asg: dict) -> list[tuple[str, str]]:
    out = []
    for b in s["blockers"]:
        out += _local_blocker_violations(s, b, asg[b["id"]])
    if out or s["rules"] != "legacy":
        return out
    lethal = _lethal(s["attackers"], s["blockers"], asg)  # every blocker's assignment counts (702.2c too)
    for b in s["blockers"]:
        order = blocker_order(s, b)
        if _banding_among(s, order):
            continue  # 702.22k: the attacking player divides it, ignoring the order
        for i, x in enumerate(order):
            if asg[b["id"]].get(x, 0) > 0:
                earlier = [e for e in order[:i] if not lethal[e]]
                if earlier:
                    out.append(("510.1d", f"{b['id']} assigns to {x} before lethal damage to {', '.join(earlier)}"))
    return out


# ---------------------------------------------------------------------------------------------
# Enumeration
# ---------------------------------------------------------------------------------------------


def splits(total: int, recipients: Iterable[str]) -> Iterator[dict]:
    """Every way to write ``total`` as a sum over ``recipients`` (zero entries left out), each once."""
    recipients = list(recipients)
    if total <= 0:
        yield {}
        return
    k = len(recipients)
    if k == 0:
        return
    # stars and bars: choose k-1 bar positions among total+k-1 slots
    for bars in itertools.combinations(range(total + k - 1), k - 1):
        prev = -1
        out = {}
        for i, pos in enumerate(list(bars) + [total + k - 1]):
            n = pos - prev - 1
            if n:
                out[recipients[i]] = n
            prev = pos
        yield out


def _candidate_splits(power: int, universe: list[str]) -> list[dict]:
    cands = [{}]
    if power > 0:
        cands += [sp for sp in splits(power, universe) if sp]
    return cands


def brute_force(scenario: dict, side: str = "attacking") -> list[dict]:
    """Every legal assignment of the step, each exactly once, as docs/format.md dicts with every source a key."""
    s = normalize(scenario)
    if side == "both":
        att = brute_force(scenario, "attacking")
        dfn = brute_force(scenario, "defending")
        return [{**x, **y} for x in att for y in dfn]
    if side == "attacking":
        sources = s["attackers"]
        universe = [o["id"] for g in ("blockers", "players", "planeswalkers", "battles") for o in s[g]]
        local = _local_attacker_violations
    elif side == "defending":
        sources = s["blockers"]
        universe = [a["id"] for a in s["attackers"]]
        local = _local_blocker_violations
    else:
        raise ValueError(side)
    per_source = []
    for src in sources:
        # every split of the source's whole power (or nothing) over every object that could take damage,
        # pruned by the rules that only look at this one source
        per_source.append([sp for sp in _candidate_splits(src["amount"], universe) if not local(s, src, sp)])
    ids = [src["id"] for src in sources]
    result = []
    for combo in itertools.product(*per_source):
        asg = dict(zip(ids, combo))
        if is_legal(s, asg, side):
            result.append({k: dict(v) for k, v in asg.items()})
    return result


def total_to(assignments: Iterable[dict], recipient: str) -> list[int]:
    """Total damage each assignment sends to ``recipient``."""
    return [sum(split.get(recipient, 0) for split in asg.values()) for asg in assignments]
