"""What combat damage does, once.

Legality (:mod:`trample.rules`) decides who may assign damage to whom; this module decides what the assigned
damage *does*. Every reader -- the damage plan's gates, the checker, the optimiser's objectives, the whole
combat's state between the steps and its effect keys, the Gnome's kills, the arena's players -- reads it; none
keeps its own copy of a threshold, a tally or a state-based action.

The thresholds (what legality and the objectives test):

- :func:`lethal_need`, :func:`has_lethal`: 702.19b / 702.2c, the damage a creature still needs to have been
  assigned lethal damage, and whether it has (any deathtouch damage is lethal);
- :func:`reaches`: 702.19c (a planeswalker assigned at least its loyalty), a battle its defense, a player
  their life (the ``lethal`` objective);
- :func:`kills`, :func:`overkill_threshold`, :func:`regular_step_cap`: what the objectives and the whole
  combat's effect keys count.

One step's outcome, in explicit stages (:func:`resolve`):

1. **assigned** -- the assignment read as :class:`Hit` s (source, recipient, amount, deathtouch), both sides'
   keys together (:func:`assigned_hits`);
2. **dealt** -- the hits after every :class:`DamageEffect` (extension point: prevention, protection, doubling,
   lifelink, infect change the damage *dealt*, never which assignments are legal). No effect is defined yet:
   :data:`DAMAGE_EFFECTS` is empty, so dealt == assigned;
3. **results** -- :func:`apply_damage`: damage marked on creatures (120.3e), loyalty (120.3c), defense (120.3h)
   and life (120.3a) lost, then the state-based actions (704.3, all at once): creatures with toughness 0 or
   less (704.5f), lethal damage (704.5g) or deathtouch damage (704.5h) leave combat unless indestructible
   (702.12b); planeswalkers at 0 loyalty (704.5i) and battles at 0 defense (704.5v) leave; and the players who
   lose (:class:`LossCondition`, extension point: 704.5a today; poison and commander damage later), reported
   by :attr:`Outcome.losers`. The state is ready for the next step (``step == "regular"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Protocol

from .models import Scenario

# ---------------------------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------------------------


def lethal_need(creature) -> int:
    """702.19b: the damage still needed for a creature to have been assigned lethal damage (0: it already has)."""
    return max(0, creature.toughness - creature.damage_marked)


def has_lethal(need: int, assigned: int, deathtouched: bool) -> bool:
    """702.19b / 702.2c: with ``need`` = :func:`lethal_need`, has the creature been assigned lethal damage?"""
    return need == 0 or assigned >= need or deathtouched


def lethal_cost(need: int, assigned: int, deathtouched: bool, source_deathtouch: bool) -> int:
    """The damage one more source must still assign for a creature to have been assigned lethal damage
    (702.19b; 702.2c: 1 from a deathtouch source; 0 when it already has)."""
    if has_lethal(need, assigned, deathtouched):
        return 0
    return 1 if source_deathtouch else need - assigned


def left_to_reach(threshold: int, assigned: int) -> int:
    """How much more must be assigned to reach a threshold (702.19c: a planeswalker's loyalty)."""
    return max(0, threshold - assigned)


def reaches(assigned: int, threshold: int) -> bool:
    """702.19c (loyalty), a battle's defense, a player's life: ``assigned`` is at least the threshold."""
    return assigned >= threshold


def kills(need: int, assigned: int, deathtouched: bool, *, dealt_only: bool = False) -> bool:
    """A kill as the objectives count it: lethal damage assigned (:func:`has_lethal`; ``need`` 0 counts). With
    ``dealt_only`` the creature must also be assigned damage in this step (the Gnome's kills)."""
    if dealt_only and assigned <= 0:
        return False
    return assigned >= need or deathtouched


def overkill_threshold(scenario: Scenario, recipient: str, deathtouched: bool = False) -> int:
    """What a recipient takes before further damage is overkill: a player's life (at least 0), a planeswalker's
    loyalty, a battle's defense, a creature's lethal need (1 when a deathtouch source assigns to it, 702.2c)."""
    kind = scenario.kind(recipient)
    obj = scenario[recipient]
    if kind == "player":
        return max(0, obj.life)
    if kind == "planeswalker":
        return obj.loyalty
    if kind == "battle":
        return obj.defense
    need = lethal_need(obj)
    return 1 if need > 0 and deathtouched else need


def regular_step_cap(obj, kind: str) -> int | None:
    """Damage beyond which more damage in the first step changes nothing for the regular step's legal set: a
    creature's lethal need, a planeswalker's loyalty, a battle's defense; None for a player (life does not
    change the legal set)."""
    if kind in ("attacker", "blocker"):
        return lethal_need(obj)
    if kind == "planeswalker":
        return obj.loyalty
    if kind == "battle":
        return obj.defense
    return None


def regular_step_caps(scenario: Scenario) -> dict[str, int]:
    """:func:`regular_step_cap` of every creature, planeswalker and battle."""
    caps: dict[str, int] = {}
    for c in (*scenario.attackers, *scenario.blockers):
        caps[c.id] = lethal_need(c)
    for p in scenario.planeswalkers:
        caps[p.id] = p.loyalty
    for b in scenario.battles:
        caps[b.id] = b.defense
    return caps


def thresholds_met(slots: Sequence[tuple[int, int, bool]], totals: Sequence[int], deathtouched: int) -> int:
    """The bitmask of the slots whose threshold is met, for counting programmes that keep totals per slot:
    ``slots`` holds ``(k, need, lethal)``; slot ``k`` is met when ``totals[k] >= need`` (702.19b lethal damage,
    702.19c loyalty) or, for a creature's lethal need (``lethal``), when bit ``k`` of ``deathtouched`` is set
    (702.2c). The same tests as :func:`has_lethal` and :func:`reaches`, on many slots at once."""
    out = 0
    for k, need, lethal in slots:
        if totals[k] >= need or (lethal and deathtouched >> k & 1):
            out |= 1 << k
    return out


def exact(value) -> Fraction:
    """A number of the scenario as an exact fraction: the decimal the JSON wrote (0.1 -> 1/10), not the binary
    float's expansion (``value`` of blockers and planeswalkers; objective values)."""
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(repr(float(value)))


# ---------------------------------------------------------------------------------------------
# Stage 1: assigned
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """``amount`` damage from ``source`` to ``recipient``; ``deathtouch``: the source has deathtouch."""

    source: str
    recipient: str
    amount: int
    deathtouch: bool = False


def assigned_hits(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> tuple[Hit, ...]:
    """The positive entries of an assignment (both sides' keys), as hits."""
    out = []
    for source, split in assignment.items():
        src = scenario.get(source)
        dt = src is not None and bool(getattr(src, "deathtouch", False))
        for recipient, amount in split.items():
            if amount > 0:
                out.append(Hit(source, recipient, amount, dt))
    return tuple(out)


def tally(assignment: Mapping[str, Mapping[str, int]], deathtouch_sources: Iterable[str] = ()):
    """The damage to each recipient (positive amounts), and the recipients a deathtouch source assigns to."""
    dts = deathtouch_sources if isinstance(deathtouch_sources, (set, frozenset)) else set(deathtouch_sources)
    totals: dict[str, int] = {}
    touched: set[str] = set()
    for source, split in assignment.items():
        dt = source in dts
        for recipient, amount in split.items():
            if amount > 0:
                totals[recipient] = totals.get(recipient, 0) + amount
                if dt:
                    touched.add(recipient)
    return totals, touched


def tally_hits(hits: Iterable[Hit]) -> tuple[dict[str, int], set[str]]:
    totals: dict[str, int] = {}
    touched: set[str] = set()
    for h in hits:
        if h.amount > 0:
            totals[h.recipient] = totals.get(h.recipient, 0) + h.amount
            if h.deathtouch:
                touched.add(h.recipient)
    return totals, touched


def tally_vector(columns: Sequence[tuple[int, str]], vector: Sequence[int], deathtouch: Sequence[bool]):
    """:func:`tally` of an assignment given as a vector over plan columns ``(source index, recipient)``;
    ``deathtouch[i]``: source ``i`` has deathtouch."""
    totals: dict[str, int] = {}
    touched: set[str] = set()
    for (i, r), amount in zip(columns, vector):
        if amount:
            totals[r] = totals.get(r, 0) + amount
            if deathtouch[i]:
                touched.add(r)
    return totals, touched


def damage_dealt(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> tuple[dict[str, int], set[str]]:
    """Total damage dealt to each recipient, and the recipients dealt damage by a source with deathtouch
    (stages 1 and 2 of :func:`resolve`)."""
    return tally_hits(deal(scenario, assigned_hits(scenario, assignment)))


# ---------------------------------------------------------------------------------------------
# Stage 2: dealt (extension point a)
# ---------------------------------------------------------------------------------------------


class DamageEffect(Protocol):
    """Something that changes the damage dealt, never which assignments are legal (prevention, protection,
    doubling, infect, lifelink: the next issue). ``apply`` gets the hits so far and returns the hits dealt."""

    name: str

    def apply(self, scenario: Scenario, hits: tuple[Hit, ...]) -> tuple[Hit, ...]: ...


#: The effects every outcome applies, in order. Empty: damage is dealt as assigned (RULES.md's lethal check).
DAMAGE_EFFECTS: tuple[DamageEffect, ...] = ()


def deal(scenario: Scenario, hits: tuple[Hit, ...], effects: Sequence[DamageEffect] | None = None) -> tuple[Hit, ...]:
    for effect in DAMAGE_EFFECTS if effects is None else effects:
        hits = tuple(effect.apply(scenario, hits))
    return hits


# ---------------------------------------------------------------------------------------------
# Stage 3: results (extension point b: players who lose)
# ---------------------------------------------------------------------------------------------


class LossCondition(Protocol):
    """A way for a player to lose the game as a state-based action; ``rule`` is cited in the report."""

    rule: str

    def loses(self, player) -> bool: ...


class LifeZero:
    """704.5a: a player with 0 or less life loses the game."""

    rule = "704.5a"

    def loses(self, player) -> bool:
        return player.life <= 0


#: The loss conditions every outcome checks (704.5a today; poison counters and commander damage later).
LOSS_CONDITIONS: tuple[LossCondition, ...] = (LifeZero(),)


def first_strike_step_happens(scenario: Scenario) -> bool:
    """510.4: there is a first-strike combat damage step when an attacking or blocking creature has first
    strike or double strike as the combat damage step begins (power does not matter)."""
    return any(
        c.in_combat and (c.has("first_strike") or c.has("double_strike"))
        for c in (*scenario.attackers, *scenario.blockers)
    )


def creature_dies(creature, dealt: int, deathtouched: bool) -> bool:
    """704.5f / 704.5g / 704.5h (702.12b: indestructible creatures are not destroyed)."""
    if creature.toughness <= 0:
        return True  # 704.5f: not "destroyed", so indestructible does not help
    if creature.indestructible:
        return False
    return creature.damage_marked + dealt >= creature.toughness or (deathtouched and dealt > 0)


def apply_damage(scenario: Scenario, totals: Mapping[str, int], touched: Iterable[str] = ()) -> Scenario:
    """Deal ``totals`` (recipient -> damage dealt; ``touched``: dealt damage by deathtouch), then the SBAs;
    the state of the regular step."""
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


def losers(state: Scenario, conditions: Sequence[LossCondition] | None = None) -> tuple[tuple[str, str], ...]:
    """``(player id, rule)`` for every player of ``state`` who loses the game (first condition that holds)."""
    out = []
    for p in state.players:
        for cond in LOSS_CONDITIONS if conditions is None else conditions:
            if cond.loses(p):
                out.append((p.id, cond.rule))
                break
    return tuple(out)


@dataclass
class Outcome:
    """One step's damage, stage by stage (see the module's text)."""

    scenario: Scenario  # the board before the step
    assigned: tuple[Hit, ...]
    dealt: tuple[Hit, ...]
    totals: dict[str, int]  # damage dealt per recipient
    deathtouched: set[str]  # recipients dealt damage by a deathtouch source
    state: Scenario  # after the damage and the state-based actions, ready for the regular step
    losers: tuple[tuple[str, str], ...] = field(default=())  # (player, rule) of every player who loses

    @property
    def game_over(self) -> bool:
        """A player lost the game (104.3): no later step is dealt."""
        return bool(self.losers)

    @property
    def died(self) -> tuple[str, ...]:
        """Creatures that were in combat and are not any more (704.5f/g/h)."""
        before = {c.id for c in (*self.scenario.attackers, *self.scenario.blockers) if c.in_combat}
        return tuple(c.id for c in (*self.state.attackers, *self.state.blockers) if c.id in before and not c.in_combat)

    def life(self, player: str) -> int:
        return self.state[player].life

    def to_json(self) -> dict:
        return {
            "dealt": dict(sorted(self.totals.items())),
            "died": list(self.died),
            "losers": [{"player": p, "rule": r} for p, r in self.losers],
        }


def resolve(
    scenario: Scenario,
    assignment: Mapping[str, Mapping[str, int]],
    effects: Sequence[DamageEffect] | None = None,
    loss_conditions: Sequence[LossCondition] | None = None,
) -> Outcome:
    """The outcome of one step: ``assignment`` holds both sides' keys (attackers' and blockers'). ``effects`` and
    ``loss_conditions``: :data:`DAMAGE_EFFECTS` and :data:`LOSS_CONDITIONS` when None."""
    assigned = assigned_hits(scenario, assignment)
    dealt = deal(scenario, assigned, effects)
    totals, touched = tally_hits(dealt)
    state = apply_damage(scenario, totals, touched)
    return Outcome(scenario, assigned, dealt, totals, touched, state, losers(state, loss_conditions))


def after_step(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> Scenario:
    """The state after one combat damage step's damage and the state-based actions, ready for the regular step."""
    totals, touched = damage_dealt(scenario, assignment)
    return apply_damage(scenario, totals, touched)


def lethal_report(scenario: Scenario, damage: Mapping[str, int], best: Mapping[str, int]) -> dict:
    """The ``lethal`` report of a solve, one shape for one step and for the whole combat: per defending player,
    the damage of the chosen line against their life, and the most damage any line could deal them."""
    out = {}
    for p in scenario.players:
        dealt = damage.get(p.id, 0)
        most = best.get(p.id, dealt)
        out[p.id] = {
            "life": p.life,
            "damage": dealt,
            "margin": dealt - p.life,
            "reached": reaches(dealt, p.life),
            "max_damage": most,
            "reachable": reaches(most, p.life),
        }
    return out


# ---------------------------------------------------------------------------------------------
# What a first-step outcome changes for the regular step (the whole combat's effect keys)
# ---------------------------------------------------------------------------------------------


def effect_key(dealt: Mapping[str, int], touched, caps: Mapping[str, int]) -> tuple:
    """The effect of a first-step outcome on the regular step (``caps``: :func:`regular_step_caps`): sorted
    ``(recipient, damage capped, deathtouch)`` for everything whose regular-step role could change."""
    out = []
    for r, n in dealt.items():
        n = min(n, caps.get(r, 0))  # past its cap, more damage changes nothing
        if n > 0:
            out.append((r, n, r in touched))
    return tuple(sorted(out))


def merge_effect_keys(k1: tuple, k2: tuple, caps: Mapping[str, int]) -> tuple:
    """The effect key of two independent components' outcomes together."""
    if not k1:
        return k2
    if not k2:
        return k1
    merged = {r: [n, dt] for r, n, dt in k1}
    for r, n, dt in k2:
        if r in merged:
            merged[r][0] = min(caps[r], merged[r][0] + n)
            merged[r][1] = merged[r][1] or dt
        else:
            merged[r] = [n, dt]
    return tuple(sorted((r, n, dt) for r, (n, dt) in merged.items()))


def canonical_state(state: Scenario) -> Scenario:
    """The state with everything the regular step's legal set does not read set to a fixed value: players'
    life, attackers' marked damage, battles' defense, blockers' marked damage beyond their toughness.
    Two states with equal canonical forms have exactly the same legal regular-step assignments."""
    return replace(
        state,
        players=tuple(replace(p, life=0) for p in state.players),
        attackers=tuple(replace(a, damage_marked=0) for a in state.attackers),
        # marked damage past toughness changes nothing: the blocker has lethal damage either way (702.19b)
        blockers=tuple(replace(b, damage_marked=min(b.damage_marked, max(b.toughness, 0))) for b in state.blockers),
        battles=tuple(replace(b, defense=0) for b in state.battles),
    )
