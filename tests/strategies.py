"""Hypothesis strategies: small but complete docs/format.md combat scenarios, and near-legal assignments.

Scenarios are plain decoded-JSON dicts (optional fields sometimes written, sometimes left to their defaults),
always valid for ``trample.models.load_scenario``, and small enough for ``tests/oracles/brute.py``: the attackers'
positive powers sum to at most ``max_total_power`` and a crude bound on the number of candidate assignments
(:func:`work_bound`) stays under ``max_work``; powers are lowered until both hold (never rejected).
"""

from __future__ import annotations

from math import comb

from hypothesis import settings
from hypothesis import strategies as st

__all__ = [
    "scenarios",
    "random_assignment",
    "near_legal_assignments",
    "work_bound",
    "examples",
    "KEYWORDS",
    "outcome_effects",
]


def examples(n: int) -> int:
    """``n`` examples under the default "ci" profile (200), scaled with the loaded profile's max_examples
    (HYPOTHESIS_PROFILE=thorough runs 25x as many)."""
    return max(1, n * settings.default.max_examples // 200)


KEYWORDS = (
    "trample",
    "trample_over_planeswalkers",
    "deathtouch",
    "first_strike",
    "double_strike",
    "indestructible",
    "haste",
)


def _maybe(draw, obj: dict, key: str, value, default) -> None:
    """Write an optional field: always when it differs from the default, else only sometimes."""
    if value != default or draw(st.booleans()):
        obj[key] = value


@st.composite
def _keywords(draw, attacker: bool, step: str = "regular") -> list[str]:
    kws = []
    if attacker:
        kws += draw(
            st.sampled_from(
                [
                    [],
                    [],
                    ["trample"],
                    ["trample"],
                    ["trample_over_planeswalkers"],
                    ["trample", "trample_over_planeswalkers"],
                ]
            )
        )
    if step == "first_strike":
        kws += draw(st.sampled_from([["first_strike"], ["double_strike"], ["first_strike"], [], ["deathtouch"]]))
    else:
        kws += draw(st.sampled_from([[], [], [], [], ["deathtouch"], ["double_strike"], ["first_strike"]]))
    kws += draw(
        st.lists(st.sampled_from(("haste", "indestructible", "deathtouch", "trample")), max_size=2)
    )  # may repeat: redundant instances
    if not attacker:
        kws = [k for k in kws if k not in ("trample", "trample_over_planeswalkers")] + draw(
            st.sampled_from([[], [], [], ["trample"]])
        )  # trample on a blocker does nothing
    return draw(st.permutations(kws)) if kws else kws


def _skewed(top: int, bottom: int) -> list[int]:
    """The counts bottom..top, larger ones listed first and more often (Hypothesis favours early, small draws)."""
    return [n for n in range(top, bottom - 1, -1) for _ in range(1 + n - bottom)]


def work_bound(scenario: dict) -> int:
    """Crude upper bound on the candidate combinations brute force checks for one side (the larger of the
    attacking and the defending side): per attacker, compositions of its power over its blockers (plus its
    target and that target's controller when it could trample or is unblocked); per blocker, over the
    attackers naming it."""
    att = 1
    for a in scenario["attackers"]:
        if _amount(a) > 0:
            kws = a.get("keywords", [])
            blockers = len(a.get("blocked_by", []))
            tramples = "trample" in kws or "trample_over_planeswalkers" in kws or not a.get("blocked", blockers > 0)
            tramples = tramples or a.get("as_though_unblocked", False)
            r = max(1, blockers + (2 if tramples else 0))
            att *= comb(_amount(a) + r - 1, r - 1)
    dfn = 1
    for b in scenario.get("blockers", []):
        n = sum(1 for a in scenario["attackers"] if b["id"] in a.get("blocked_by", []))
        if _amount(b) > 0 and n:
            dfn *= comb(_amount(b) + n - 1, n - 1)
    return max(att, dfn)


def _amount(c: dict) -> int:
    """510.1a: what the creature assigns (its toughness with ``assigns_toughness``)."""
    return c["toughness"] if c.get("assigns_toughness") else c["power"]


def _shrink(scenario: dict, max_total_power: int, max_work: int) -> None:
    def total():
        return sum(_amount(a) for a in scenario["attackers"] if _amount(a) > 0)

    creatures = scenario["attackers"] + scenario.get("blockers", [])
    while total() > max_total_power or work_bound(scenario) > max_work:
        biggest = max(creatures, key=_amount)
        biggest["toughness" if biggest.get("assigns_toughness") else "power"] -= 1


@st.composite
def scenarios(
    draw,
    max_attackers: int = 3,
    max_blockers: int = 3,
    max_power: int = 5,
    max_players: int = 3,
    max_planeswalkers: int = 2,
    max_battles: int = 2,
    max_total_power: int = 8,
    max_work: int = 2000,
    rules=None,
    step=None,
    focus=None,
    extras: bool = False,
) -> dict:
    """A valid docs/format.md scenario dict, small enough for brute force.

    ``focus="planeswalkers"``: at least one planeswalker, attacked more often (more 702.19c/e lines).
    ``extras``: also the legality options of docs/effects.md (assigns_toughness, as_though_unblocked, banding, a
    legacy blocker's damage_order), each on some creatures."""
    sc: dict = {}
    r = rules or draw(st.sampled_from(["current", "current", "legacy"]))
    _maybe(draw, sc, "rules", r, "current")
    stp = step or draw(st.sampled_from(["regular"] * 5 + ["first_strike"] * 2))
    _maybe(draw, sc, "step", stp, "regular")

    n_players = draw(st.sampled_from([n for n in (1, 1, 2, 3) if n <= max_players] or [1]))
    players = []
    for i in range(n_players):
        p = {"id": f"p{i}"}
        _maybe(draw, p, "life", draw(st.integers(1, 20)), 20)
        players.append(p)
    player_ids = [p["id"] for p in players]
    sc["players"] = players

    pws = []
    for i in range(
        draw(
            st.integers(
                1 if focus == "planeswalkers" else 0,
                max(1, max_planeswalkers) if focus == "planeswalkers" else max_planeswalkers,
            )
        )
    ):
        w = {"id": f"w{i}", "controller": draw(st.sampled_from(player_ids)), "loyalty": draw(st.integers(0, 4))}
        _maybe(draw, w, "in_combat", draw(st.sampled_from([True, True, False])), True)
        if draw(st.booleans()):
            w["value"] = draw(st.sampled_from([0, 1, 2, 3.5]))
        pws.append(w)
    if pws or draw(st.booleans()):
        sc["planeswalkers"] = pws

    battles = []
    for i in range(draw(st.integers(0, max_battles))):
        b = {"id": f"t{i}", "protector": draw(st.sampled_from(player_ids)), "defense": draw(st.integers(0, 4))}
        _maybe(draw, b, "in_combat", draw(st.sampled_from([True, True, False])), True)
        battles.append(b)
    if battles or draw(st.booleans()):
        sc["battles"] = battles

    blockers = []
    for i in range(draw(st.sampled_from(_skewed(max_blockers, 0)))):
        tough = draw(st.sampled_from([2, 1, 1, 2, 2, 3, 3, 4, 0]))
        b = {"id": f"b{i}", "power": draw(st.sampled_from([1, 2, 1, 2, 3, 0, -1])), "toughness": tough}
        _maybe(draw, b, "keywords", draw(_keywords(attacker=False, step=stp)), [])
        marked = draw(st.sampled_from([0, 0, 0, 0, 1, "lethal", "over"]))
        marked = {"lethal": tough, "over": tough + 1}.get(marked, marked)
        _maybe(draw, b, "damage_marked", marked, 0)
        _maybe(draw, b, "in_combat", draw(st.sampled_from([True] * 5 + [False])), True)
        if draw(st.booleans()):
            b["value"] = draw(st.sampled_from([0, 1, 2, 0.5]))
        blockers.append(b)
    blocker_ids = [b["id"] for b in blockers]

    targets = player_ids + [w["id"] for w in pws] + [b["id"] for b in battles]
    if focus == "planeswalkers":
        targets = [w["id"] for w in pws] * 3 + player_ids
    attackers = []
    for i in range(draw(st.sampled_from(_skewed(max_attackers, 1)))):
        power = draw(
            st.sampled_from(list(range(min(3, max_power), 0, -1)) + list(range(1, max_power + 1)) * 2 + [0, -1])
        )
        a = {
            "id": f"a{i}",
            "power": power,
            "toughness": draw(st.integers(0, 5)),
            "attacking": draw(st.sampled_from(targets)),
        }
        _maybe(draw, a, "keywords", draw(_keywords(attacker=True, step=stp)), [])
        blocked_by = []
        if blocker_ids and draw(st.sampled_from([True, True, True, False])):
            k = draw(st.sampled_from(_skewed(len(blocker_ids), 1)))
            blocked_by = list(draw(st.permutations(blocker_ids)))[:k]
        _maybe(draw, a, "blocked_by", blocked_by, [])
        if blocked_by:
            _maybe(draw, a, "blocked", True, True)
        else:
            blocked = draw(st.sampled_from([False, False, True]))  # true: every blocker already left
            _maybe(draw, a, "blocked", blocked, False)
        _maybe(draw, a, "damage_marked", draw(st.integers(0, 2)), 0)
        _maybe(draw, a, "in_combat", draw(st.sampled_from([True] * 15 + [False])), True)
        attackers.append(a)
    sc["attackers"] = attackers
    if blockers or draw(st.booleans()):
        sc["blockers"] = blockers
    if extras:
        _add_options(draw, attackers, blockers)
    _shrink(sc, max_total_power, max_work)
    # dict key order should not matter to anyone
    return dict(draw(st.permutations(list(sc.items()))))


def _add_options(draw, attackers: list, blockers: list) -> None:
    for c in attackers + blockers:
        if draw(st.sampled_from([False] * 5 + [True])):
            c["assigns_toughness"] = True  # 510.1a
            c["toughness"] = min(c["toughness"], 4)
        if draw(st.sampled_from([False] * 5 + [True])):
            c["keywords"] = [*c.get("keywords", []), "banding"]  # 702.22j/k
    for a in attackers:
        if draw(st.sampled_from([False, False, True])):
            a["as_though_unblocked"] = True
    for b in blockers:
        naming = [a["id"] for a in attackers if b["id"] in a.get("blocked_by", [])]
        if len(naming) > 1 and draw(st.booleans()):
            b["damage_order"] = list(draw(st.permutations(naming)))  # legacy 510.1d


@st.composite
def outcome_effects(draw, scenario: dict) -> dict:
    """The scenario with outcome effects of docs/effects.md added (prevention, protection, doubling, lifelink,
    infect, wither, toxic, poison, commander damage): none of them changes which assignments are legal."""
    import copy

    sc = copy.deepcopy(scenario)
    qualities = ["red", "green", "dragon"]
    creatures = sc["attackers"] + sc.get("blockers", [])
    recipients = creatures + sc.get("players", []) + sc.get("planeswalkers", []) + sc.get("battles", [])
    for c in creatures:
        if draw(st.booleans()):
            c["tags"] = draw(st.lists(st.sampled_from(qualities), max_size=2))
        extra = draw(st.lists(st.sampled_from(["lifelink", "infect", "wither"]), max_size=2))
        if extra:
            c["keywords"] = [*c.get("keywords", []), *extra]
        if draw(st.booleans()):
            c["toxic"] = draw(st.integers(0, 3))
        if draw(st.booleans()):
            c["deals"] = draw(st.lists(st.sampled_from([{"times": 2}, {"plus": 1}, {"times": 3}]), max_size=2))
    for a in sc["attackers"]:
        if draw(st.booleans()):
            a["commander"] = "me"
    for r in recipients:
        if draw(st.booleans()):
            r["prevent"] = draw(st.integers(0, 3))
        if draw(st.booleans()):
            r["prevent_combat"] = draw(st.booleans())
        if draw(st.booleans()):
            r["protection"] = draw(st.lists(st.sampled_from(qualities + [c["id"] for c in creatures]), max_size=2))
        if draw(st.booleans()):
            r["takes"] = draw(st.lists(st.sampled_from([{"times": 2}, {"plus": 2}]), max_size=2))
        if draw(st.booleans()):
            r["replacement_order"] = draw(st.sampled_from(["least", "most"]))
    for p in sc.get("players", []):
        if draw(st.booleans()):
            p["poison"] = draw(st.integers(0, 9))
        commanders = [a["id"] for a in sc["attackers"] if "commander" in a]
        if commanders and draw(st.booleans()):
            p["commander_damage"] = {draw(st.sampled_from(commanders)): draw(st.integers(0, 20))}
    return sc


@st.composite
def with_banding(draw, scenario: dict) -> dict:
    """The scenario with banding on some of its creatures (702.22j/k: who divides a blocked attacker's or a
    blocker's damage), more often on blocked attackers and blockers than ``extras`` draws it."""
    import copy

    sc = copy.deepcopy(scenario)
    for c in sc["attackers"] + sc.get("blockers", []):
        if draw(st.sampled_from([False, False, True])) and "banding" not in c.get("keywords", []):
            c["keywords"] = [*c.get("keywords", []), "banding"]
    return sc


# ---------------------------------------------------------------------------------------------
# Candidate assignments for check tests
# ---------------------------------------------------------------------------------------------


def _ids(scenario: dict, group: str) -> list[str]:
    return [o["id"] for o in scenario.get(group, [])]


def _plausible(scenario: dict, source: dict, side: str) -> list[str]:
    """Recipients a source might reasonably be given: its blockers, its target and that target's
    controller (attacking side), or the attackers naming it (defending side)."""
    if side == "defending":
        return [a["id"] for a in scenario["attackers"] if source["id"] in a.get("blocked_by", [])]
    out = list(source.get("blocked_by", [])) + [source["attacking"]]
    for w in scenario.get("planeswalkers", []):
        if w["id"] == source["attacking"]:
            out.append(w["controller"])
    for b in scenario.get("battles", []):
        if b["id"] == source["attacking"]:
            out.append(b["protector"])
    return out


def random_assignment(draw, scenario: dict, legal=None, side: str = "attacking") -> dict:
    """A candidate assignment near the legal ones: a legal assignment (from ``legal`` when given) or a
    random split of each source's power, then 0-3 small edits (move one point, add or drop a recipient,
    change an amount by one, clear or fill a source). Every source is a key; amounts are positive.
    ``draw`` is a Hypothesis draw function (from ``st.composite`` or ``st.data()``)."""
    group = "attackers" if side == "attacking" else "blockers"
    sources = scenario.get(group, [])
    all_ids = [
        o["id"] for g in ("players", "planeswalkers", "battles", "attackers", "blockers") for o in scenario.get(g, [])
    ]
    if legal and draw(st.integers(0, 3)) > 0:
        asg = {s: dict(v) for s, v in draw(st.sampled_from(legal)).items()}
    else:
        asg = {}
        for src in sources:
            pool = _plausible(scenario, src, side) or all_ids
            split: dict = {}
            if _amount(src) > 0 and draw(st.integers(0, 4)) > 0:
                for _ in range(_amount(src)):
                    r = draw(st.sampled_from(pool))
                    split[r] = split.get(r, 0) + 1
            asg[src["id"]] = split
    for _ in range(draw(st.integers(0, 3))):
        if not sources:
            break
        src = draw(st.sampled_from(sources))
        split = asg[src["id"]]
        pool = _plausible(scenario, src, side)
        if not pool or draw(st.integers(0, 4)) == 0:
            pool = all_ids
        op = draw(st.sampled_from(["move", "move", "move", "add", "drop", "inc", "dec", "clear", "fill"]))
        if op == "move" and split:
            frm = draw(st.sampled_from(sorted(split)))
            to = draw(st.sampled_from(pool))
            split[frm] -= 1
            split[to] = split.get(to, 0) + 1
        elif op == "add":
            to = draw(st.sampled_from(pool))
            split[to] = split.get(to, 0) + 1
        elif op == "drop" and split:
            del split[draw(st.sampled_from(sorted(split)))]
        elif op == "inc" and split:
            split[draw(st.sampled_from(sorted(split)))] += 1
        elif op == "dec" and split:
            split[draw(st.sampled_from(sorted(split)))] -= 1
        elif op == "clear":
            split.clear()
        elif op == "fill" and not split and _amount(src) > 0:
            split[draw(st.sampled_from(pool))] = _amount(src)
        asg[src["id"]] = {r: n for r, n in split.items() if n > 0}
    return asg


@st.composite
def near_legal_assignments(draw, scenario: dict, legal=None, side: str = "attacking") -> dict:
    return random_assignment(draw, scenario, legal, side)
