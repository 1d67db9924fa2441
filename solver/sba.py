"""State-based actions between the first-strike and the regular combat damage step, as a pure function.

``after_step(scenario, assignment)`` deals one step's damage (both sides' sources: attackers' and blockers'
keys) and performs the state-based actions that follow (704.3: all at once), returning the state in which the
regular combat damage step is assigned (``step == "regular"``):

- a creature (attacker or blocker) is marked with the damage dealt to it (120.3e); it is destroyed and leaves
  combat (``in_combat: false``) if its toughness is 0 or less (704.5f, even if indestructible), or, unless it is
  indestructible (702.12b), if its marked damage reaches its toughness (704.5g) or it was dealt damage by a source
  with deathtouch (704.5h, 702.2b);
- a planeswalker loses that much loyalty (120.3c) and leaves at 0 (704.5i);
- a battle loses that many defense counters (120.3h) and leaves at 0 (704.5v);
- a player loses that much life (120.3a). A player at 0 or less would lose the game (704.5a); this module does
  not end the game: the regular step is still derived, and objectives still add its damage.

Damage is dealt as assigned (no prevention, protection or doubling, as in RULES.md's lethal check). A creature,
planeswalker or battle that was already out of combat stays out. Blocked attackers stay blocked when their
blockers leave (506.4): ``blocked_by`` is kept, and ``trample.rules`` reads ``in_combat``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from .models import Scenario


def first_strike_step_happens(scenario: Scenario) -> bool:
    """510.4: there is a first-strike combat damage step when an attacking or blocking creature has first
    strike or double strike as the combat damage step begins (power does not matter)."""
    return any(
        c.in_combat and (c.has("first_strike") or c.has("double_strike"))
        for c in (*scenario.attackers, *scenario.blockers)
    )


def damage_dealt(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> tuple[dict[str, int], set[str]]:
    """Total damage dealt to each recipient, and the recipients dealt damage by a source with deathtouch."""
    totals: dict[str, int] = {}
    touched: set[str] = set()
    for source, split in assignment.items():
        src = scenario.get(source)
        deathtouch = src is not None and getattr(src, "deathtouch", False)
        for recipient, amount in split.items():
            if amount > 0:
                totals[recipient] = totals.get(recipient, 0) + amount
                if deathtouch:
                    touched.add(recipient)
    return totals, touched


def after_step(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> Scenario:
    """The state after one combat damage step's damage and the state-based actions, ready for the regular step."""
    totals, touched = damage_dealt(scenario, assignment)
    return apply_damage(scenario, totals, touched)


def creature_dies(creature, dealt: int, deathtouched: bool) -> bool:
    """704.5f / 704.5g / 704.5h (702.12b: indestructible creatures are not destroyed)."""
    if creature.toughness <= 0:
        return True  # 704.5f: not "destroyed", so indestructible does not help
    if creature.indestructible:
        return False
    return creature.damage_marked + dealt >= creature.toughness or (deathtouched and dealt > 0)


def apply_damage(scenario: Scenario, totals: Mapping[str, int], touched: Iterable[str] = ()) -> Scenario:
    """Deal ``totals`` (recipient -> damage; ``touched``: dealt damage by deathtouch), then the SBAs."""
    touched = set(touched)

    def creature(c):
        dealt = totals.get(c.id, 0)
        if not c.in_combat:
            return replace(c, damage_marked=c.damage_marked + dealt) if dealt else c
        dies = creature_dies(c, dealt, c.id in touched)
        if not dealt and not dies:
            return c
        return replace(c, damage_marked=c.damage_marked + dealt, in_combat=not dies)

    def walker(p):
        loyalty = max(0, p.loyalty - totals.get(p.id, 0))
        return replace(p, loyalty=loyalty, in_combat=p.in_combat and loyalty > 0)  # 704.5i

    def battle(b):
        defense = max(0, b.defense - totals.get(b.id, 0))
        return replace(b, defense=defense, in_combat=b.in_combat and defense > 0)  # 704.5v

    return replace(
        scenario,
        step="regular",
        attackers=tuple(creature(a) for a in scenario.attackers),
        blockers=tuple(creature(b) for b in scenario.blockers),
        players=tuple(replace(p, life=p.life - totals[p.id]) if totals.get(p.id) else p for p in scenario.players),
        planeswalkers=tuple(walker(p) for p in scenario.planeswalkers),
        battles=tuple(battle(b) for b in scenario.battles),
    )
