"""An independent brute force over every declaration of attackers (508.1) or blockers (509.1), written plainly
from the rules on the raw JSON document: it imports nothing of trample.

Every block declaration: each potential blocker chooses any set of attackers (the empty set included); every
attack declaration: each creature chooses nothing or any listed player, planeswalker or battle, and the attacking
creatures are split into bands every possible way (702.22c). A declaration is legal when it breaks no
restriction, its total cost can be paid (508.1h-j, 509.1d-f), and it obeys as many requirements as any
declaration that breaks no restriction and costs nothing (509.1c, 508.1d: no player is required to pay a cost to
obey a requirement).
"""

from __future__ import annotations

from itertools import combinations, product

COLORS = {"white", "blue", "black", "red", "green"}


def _kw(c: dict) -> set:
    return set(c.get("keywords", []))


def _tags(c: dict) -> set:
    return set(c.get("tags", []))


def _defender_of(doc: dict, target: str) -> str:
    for p in doc["players"]:
        if p["id"] == target:
            return p["id"]
    for w in doc.get("planeswalkers", []):
        if w["id"] == target:
            return w["controller"]
    for b in doc.get("battles", []):
        if b["id"] == target:
            return b["protector"]
    raise KeyError(target)


def _controller(doc: dict, blocker: dict) -> str:
    return blocker.get("controller", doc["players"][0]["id"])


def may_block(doc: dict, attacker: dict, blocker: dict) -> bool:
    """Whether this blocker may block this attacker, every restriction on the pair read from the rules."""
    ak, bk = _kw(attacker), _kw(blocker)
    if blocker.get("tapped", False):  # 509.1a: untapped creatures block
        return False
    if "cant_block" in bk or "cant_be_blocked" in ak:  # 509.1b
        return False
    defender = _defender_of(doc, attacker["attacking"])
    if _controller(doc, blocker) != defender:  # 509.1a: it blocks a creature attacking its controller
        return False
    if "flying" in ak and "flying" not in bk and "reach" not in bk:  # 702.9b, 702.17b
        return False
    if "fear" in ak and "artifact" not in _tags(blocker) and "black" not in _tags(blocker):  # 702.36b
        return False
    if "intimidate" in ak:  # 702.13b
        shares = _tags(attacker) & _tags(blocker) & COLORS
        if "artifact" not in _tags(blocker) and not shares:
            return False
    if ("shadow" in ak) != ("shadow" in bk):  # 702.28b, both directions
        return False
    if "horsemanship" in ak and "horsemanship" not in bk:  # 702.31b
        return False
    if "skulk" in ak and blocker["power"] > attacker["power"]:  # 702.118b
        return False
    protection = set(attacker.get("protection", []))  # 702.16b
    if blocker["id"] in protection or _tags(blocker) & protection:
        return False
    lands = {x.lower() for p in doc["players"] if p["id"] == defender for x in p.get("lands", [])}
    if {x.lower() for x in attacker.get("landwalk", [])} & lands:  # 702.14c
        return False
    return True


def _fewest_blockers(attacker: dict) -> int:
    n = attacker.get("min_blockers", 1)
    if "menace" in _kw(attacker):  # 702.111b
        n = max(n, 2)
    return n


def _how_many_it_blocks(blocker: dict) -> float:
    if "block_any_number" in _kw(blocker):
        return float("inf")
    return 1 + blocker.get("block_extra", 0)


def _player(doc: dict, pid: str) -> dict:
    return next(p for p in doc["players"] if p["id"] == pid)


# -- costs (508.1h, 509.1d): a cost is a list of mana symbols, one a unit ("generic" or a type: W U B R G C, 107.4);
# a pool a list of units of mana (a type, or "unstated" for the integer form's mana of no stated type)


def cost_symbols(value) -> list:
    """An integer N is N generic symbols ({N}, 107.4b); a string is read symbol by symbol: "{2}{W}"."""
    if isinstance(value, int):
        return ["generic"] * value
    out: list = []
    for symbol in value.strip("{}").split("}{"):
        out += ["generic"] * int(symbol) if symbol.isdigit() else [symbol]
    return out


def pool_units(value) -> list:
    if isinstance(value, int):
        return ["unstated"] * value
    return [kind if kind != "generic" else "unstated" for kind, n in value.items() for _ in range(n)]


def can_pay(symbols: list, units: list) -> bool:
    """Every way to pay: each symbol takes a distinct unit of mana, a typed symbol one of its type (a generic one
    any unit: 107.4b); tried symbol by symbol, every unit, plainly (small costs)."""
    if not symbols:
        return True
    first, rest = symbols[0], symbols[1:]
    tried = set()
    for i, unit in enumerate(units):
        if unit in tried or not (first == "generic" or first == unit):
            continue
        tried.add(unit)
        if can_pay(rest, units[:i] + units[i + 1 :]):
            return True
    return False


def block_costs(doc: dict, blocks: dict) -> dict:
    """509.1d: what each defending player pays: for each of their creatures that blocks, its own cost and their
    tax per blocking creature (lists of symbols)."""
    out: dict = {}
    for b in doc.get("blockers", []):
        if any(b["id"] in bs for bs in blocks.values()):
            who = _controller(doc, b)
            own = cost_symbols(b.get("block_cost", 0)) + cost_symbols(_player(doc, who).get("block_tax", 0))
            out[who] = out.get(who, []) + own
    return out


def blocks_affordable(doc: dict, blocks: dict) -> bool:
    return all(
        can_pay(total, pool_units(_player(doc, who).get("mana", 0))) for who, total in block_costs(doc, blocks).items()
    )


def blocks_break_a_restriction(doc: dict, blocks: dict) -> bool:
    attackers = {a["id"]: a for a in doc["attackers"]}
    blockers = {b["id"]: b for b in doc.get("blockers", [])}
    for a, bs in blocks.items():
        if bs and len(bs) < _fewest_blockers(attackers[a]):
            return True
        if any(not may_block(doc, attackers[a], blockers[b]) for b in bs):
            return True
    for b in blockers.values():
        if sum(b["id"] in bs for bs in blocks.values()) > _how_many_it_blocks(b):
            return True
    blocking = {b for bs in blocks.values() for b in bs}
    for b in blocking:  # 509.1b: "can't block alone": another creature must block too (any attacker)
        if "cant_block_alone" in _kw(blockers[b]) and blocking == {b}:
            return True
    return False


def block_requirements_obeyed(doc: dict, blocks: dict) -> int:
    """509.1c: "must be blocked if able" (one per attacker), "all creatures able to block it do so" (one per
    attacker and creature able to block it), "blocks each combat if able" (one per creature able to block)."""
    n = 0
    for a in doc["attackers"]:
        if "must_be_blocked" in _kw(a) and blocks.get(a["id"]):
            n += 1
        if "lure" in _kw(a):
            for b in doc.get("blockers", []):
                if may_block(doc, a, b) and b["id"] in blocks.get(a["id"], ()):
                    n += 1
    for b in doc.get("blockers", []):
        if "blocks_each_combat" in _kw(b) and any(b["id"] in bs for bs in blocks.values()):
            n += 1
    return n


def every_block_declaration(doc: dict):
    """Every candidate: each potential blocker blocks any set of attackers."""
    attackers = [a["id"] for a in doc["attackers"]]
    blockers = [b["id"] for b in doc.get("blockers", [])]
    subsets = [c for size in range(len(attackers) + 1) for c in combinations(attackers, size)]
    for choice in product(subsets, repeat=len(blockers)):
        blocks: dict = {}
        for b, chosen in zip(blockers, choice):
            for a in chosen:
                blocks.setdefault(a, []).append(b)
        yield blocks


def blocked_by_after_bands(doc: dict, blocks: dict) -> dict:
    """702.22h: a creature blocking one member of a band blocks every member: {attacker: set of its blockers}."""
    label = {a["id"]: a.get("band") for a in doc["attackers"]}
    out = {}
    for a in doc["attackers"]:
        mates = [m for m in label if m == a["id"] or (label[m] is not None and label[m] == label[a["id"]])]
        out[a["id"]] = {b for m in mates for b in blocks.get(m, [])}
    return out


def may_attack(doc: dict, creature: dict, target: str) -> bool:
    k = _kw(creature)
    if creature.get("tapped", False):  # 508.1a
        return False
    if creature.get("summoning_sick", False) and "haste" not in k:  # 508.1a, 302.6
        return False
    if "defender" in k or "cant_attack" in k:  # 702.3b, 508.1c
        return False
    active = doc.get("active", "active")
    for b in doc.get("battles", []):
        if b["id"] == target and b["protector"] == active:  # 508.1b: only its protector's opponents
            return False
    return True


def _partitions(items: list):
    """Every way to split a list into groups (set partitions)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


def every_attack_declaration(doc: dict):
    """Every choice of targets, and every split of the attacking creatures into bands (a group of one is no
    band); a member of a band is written {"attacking": target, "band": the band's first creature}."""
    targets = [x["id"] for key in ("players", "planeswalkers", "battles") for x in doc.get(key, [])]
    creatures = [c["id"] for c in doc["attackers"]]
    # 702.22c: every band has a creature with banding or "bands with other"; without one, no bands (this only
    # saves time: every other split would be refused by band_is_allowed)
    bands = any("banding" in _kw(c) or c.get("bands_with_other") for c in doc["attackers"])
    for choice in product([None, *targets], repeat=len(creatures)):
        attacking = [c for c, t in zip(creatures, choice) if t is not None]
        target = dict(zip(creatures, choice))
        for part in _partitions(attacking) if bands else [[[c] for c in attacking]]:
            label = {c: min(g, key=creatures.index) for g in part if len(g) > 1 for c in g}
            yield {
                c: ({"attacking": target[c], "band": label[c]} if c in label else target[c])
                for c in creatures
                if target[c] is not None
            }


def _target(value) -> str:
    return value if isinstance(value, str) else value["attacking"]


def _bands(attacks: dict) -> list:
    groups: dict = {}
    for c, v in attacks.items():
        if isinstance(v, dict):
            groups.setdefault(v["band"], []).append(c)
    return list(groups.values())


def band_is_allowed(doc: dict, band: list) -> bool:
    """702.22c: creatures with banding and up to one without; or creatures of one quality, one or more of them
    with "bands with other [that quality]"."""
    creatures = {c["id"]: c for c in doc["attackers"]}
    if sum("banding" not in _kw(creatures[c]) for c in band) <= 1:
        return True
    for c in band:
        for quality in creatures[c].get("bands_with_other", []):
            if all(quality in _tags(creatures[m]) for m in band):
                return True
    return False


def attack_cost(doc: dict, attacks: dict) -> list:
    """508.1h: each attacking creature's own cost, and the tax of the player or planeswalker it attacks (symbols)."""
    taxed = {x["id"]: x.get("attack_tax", 0) for key in ("players", "planeswalkers") for x in doc.get(key, [])}
    creatures = {c["id"]: c for c in doc["attackers"]}
    out: list = []
    for c, v in attacks.items():
        out += cost_symbols(creatures[c].get("attack_cost", 0)) + cost_symbols(taxed.get(_target(v), 0))
    return out


def attacks_affordable(doc: dict, attacks: dict) -> bool:
    return can_pay(attack_cost(doc, attacks), pool_units(doc.get("mana", 0)))


def attacks_break_a_restriction(doc: dict, attacks: dict) -> bool:
    creatures = {c["id"]: c for c in doc["attackers"]}
    if any(not may_attack(doc, creatures[c], _target(t)) for c, t in attacks.items()):
        return True
    for band in _bands(attacks):
        if not band_is_allowed(doc, band):  # 702.22c
            return True
        if len({_target(attacks[c]) for c in band}) > 1:  # 702.22d: one player, planeswalker or battle
            return True
    # 508.1c: "can't attack alone": it attacks only if another creature attacks too
    return any("cant_attack_alone" in _kw(creatures[c]) and len(attacks) == 1 for c in attacks)


def attack_requirements_obeyed(doc: dict, attacks: dict) -> int:
    n = 0
    for c in doc["attackers"]:  # 508.1d: "attacks each combat if able"
        if "attacks_each_combat" in _kw(c) and any(may_attack(doc, c, t) for t in _targets(doc)):
            n += int(c["id"] in attacks)
    return n


def _targets(doc):
    return [x["id"] for key in ("players", "planeswalkers", "battles") for x in doc.get(key, [])]


def legal_declarations(doc: dict) -> tuple[list[dict], int]:
    """(every legal declaration, the most requirements obeyed)."""
    if doc["declare"] == "blockers":
        candidates = [d for d in every_block_declaration(doc) if not blocks_break_a_restriction(doc, d)]
        obeyed = [block_requirements_obeyed(doc, d) for d in candidates]
        costs = [sum(len(x) for x in block_costs(doc, d).values()) for d in candidates]
        affordable = [blocks_affordable(doc, d) for d in candidates]
    else:
        candidates = [d for d in every_attack_declaration(doc) if not attacks_break_a_restriction(doc, d)]
        obeyed = [attack_requirements_obeyed(doc, d) for d in candidates]
        costs = [len(attack_cost(doc, d)) for d in candidates]
        affordable = [attacks_affordable(doc, d) for d in candidates]
    best = max(n for n, cost in zip(obeyed, costs) if cost == 0)  # nobody is required to pay (508.1d, 509.1c)
    return [d for d, n, ok in zip(candidates, obeyed, affordable) if ok and n >= best], best


def every_declaration(doc: dict):
    return every_block_declaration(doc) if doc["declare"] == "blockers" else every_attack_declaration(doc)


def normal(declaration: dict) -> frozenset:
    """A declaration as a set, for comparison (a band as the set of its members, whatever its label)."""
    out: set = set()
    for k, v in declaration.items():
        if isinstance(v, str):
            out.add((k, v))
        elif isinstance(v, dict):
            out.add((k, v["attacking"]))
        else:
            out |= {(k, b) for b in v}
    out |= {("band", frozenset(band)) for band in _bands(declaration)}
    return frozenset(out)
