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
2. **dealt** -- the hits after every :class:`DamageEffect` (prevention, protection and doubling change the
   damage *dealt*, never which assignments are legal): :class:`ReplacementsAndPrevention` (docs/effects.md);
3. **results** -- :func:`apply_damage`: damage marked on creatures (120.3e), loyalty (120.3c), defense (120.3h)
   and life (120.3a) lost, then the state-based actions (704.3, all at once): creatures with toughness 0 or
   less (704.5f), lethal damage (704.5g) or deathtouch damage (704.5h) leave combat unless indestructible
   (702.12b); planeswalkers at 0 loyalty (704.5i) and battles at 0 defense (704.5v) leave; and the players who
   lose (:class:`LossCondition`: 704.5a life, 704.5c poison, 704.6c commander damage), reported by
   :attr:`Outcome.losers`. The state is ready for the next step (``step == "regular"``). With effects, the
   results also read each hit's source (:func:`results`): infect and wither damage as -1/-1 counters, infect and
   toxic poison, lifelink gains at the same time as the damage, commander damage.

A player who loses in a two-player game ends the game (104.3b, 104.2a): no further step. With more players that
player leaves the game (800.4a, :func:`leave_game`). A board that arrives with state-based actions pending is
settled first (:func:`settle`), the same way for one step and the whole combat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Protocol

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
    """:func:`regular_step_cap` of every creature, planeswalker and battle, and every player's life (damage up to
    it decides whether they lose, which ends a two-player combat or takes them out of a larger one)."""
    caps: dict[str, int] = {p.id: max(0, p.life) for p in scenario.players}
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


class ReplacementsAndPrevention:
    """Protection (702.16e), prevention (615.1a, the 615.7 shields) and damage modifiers (614.1a) in the affected
    player's order (616.1); see :func:`dealt_events`. On a board without them, dealt == assigned."""

    name = "replacements and prevention"

    def apply(self, scenario: Scenario, hits: tuple[Hit, ...]) -> tuple[Hit, ...]:
        if not has_effects(scenario):
            return hits
        assignment: dict[str, dict[str, int]] = {}
        for h in hits:
            assignment.setdefault(h.source, {})[h.recipient] = h.amount
        dt = {h.source: h.deathtouch for h in hits}
        return tuple(
            Hit(e.source, e.recipient, e.dealt, dt[e.source]) for e in dealt_events(scenario, assignment) if e.dealt
        )


#: The effects every outcome applies, in order.
DAMAGE_EFFECTS: tuple[DamageEffect, ...] = (ReplacementsAndPrevention(),)


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


class TenPoison:
    """704.5c: a player with ten or more poison counters loses the game."""

    rule = "704.5c"

    def loses(self, player) -> bool:
        return player.poison >= 10


class CommanderDamage:
    """704.6c: a player dealt 21 or more combat damage by the same commander over the game loses it."""

    rule = "704.6c"

    def loses(self, player) -> bool:
        return any(n >= 21 for _, n in player.commander_damage)


#: The loss conditions every outcome checks.
LOSS_CONDITIONS: tuple[LossCondition, ...] = (LifeZero(), TenPoison(), CommanderDamage())


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
    events: tuple[Event, ...] = ()  # each source's damage to each recipient: assigned, dealt, what it did
    players: tuple[PlayerOutcome, ...] = ()  # life, poison, commander damage after the step; why they lose
    life_gained: Mapping[str, int] = field(default_factory=dict)  # lifelink, by controller (ATTACKING_PLAYER)

    @property
    def game_over(self) -> bool:
        """A player lost a two-player game (104.3b): no later step is dealt. With more players the loser leaves
        the game instead (800.4a; the state already reflects it)."""
        return bool(self.losers) and self.scenario.game_players <= 2

    @property
    def gone(self) -> tuple[str, ...]:
        """Creatures, planeswalkers and battles that were in combat and are not any more."""
        s, t = self.scenario, self.state
        was: tuple[Any, ...] = (*s.attackers, *s.blockers, *s.planeswalkers, *s.battles)
        now: tuple[Any, ...] = (*t.attackers, *t.blockers, *t.planeswalkers, *t.battles)
        before = {o.id for o in was if o.in_combat}
        return tuple(o.id for o in now if o.id in before and not o.in_combat)

    def player(self, player_id: str) -> PlayerOutcome:
        return next(p for p in self.players if p.id == player_id)

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


def _loser_rule(player) -> str | None:
    for cond in LOSS_CONDITIONS:
        if cond.loses(player):
            return cond.rule
    return None


def resolve(
    scenario: Scenario,
    assignment: Mapping[str, Mapping[str, int]],
    effects: Sequence[DamageEffect] | None = None,
    loss_conditions: Sequence[LossCondition] | None = None,
) -> Outcome:
    """The outcome of one step: ``assignment`` holds both sides' keys (attackers' and blockers'). ``effects`` and
    ``loss_conditions``: :data:`DAMAGE_EFFECTS` and :data:`LOSS_CONDITIONS` when None (``effects=()``: damage
    dealt as assigned)."""
    assigned = assigned_hits(scenario, assignment)
    if effects is None:
        events = tuple(dealt_events(scenario, assignment))
    else:
        hits = deal(scenario, assigned, effects)
        events = tuple(Event(h.source, h.recipient, h.amount, h.amount, *_result_of(scenario, h)) for h in hits)
    dealt = tuple(
        Hit(e.source, e.recipient, e.dealt, _source(scenario, e.source).deathtouch) for e in events if e.dealt
    )
    totals, touched = tally_hits(dealt)
    state, players, gained = results(scenario, events)
    conditions = LOSS_CONDITIONS if loss_conditions is None else loss_conditions
    out_losers = []
    for p in state.players:
        for cond in conditions:
            if cond.loses(p):
                out_losers.append((p.id, cond.rule))
                break
    if out_losers and scenario.game_players > 2:
        state = leave_game(state, [p for p, _ in out_losers])
    return Outcome(scenario, assigned, dealt, totals, touched, state, tuple(out_losers), events, players, gained)


def after_step(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> Scenario:
    """The state after one combat damage step's damage and the state-based actions, ready for the regular step."""
    return resolve(scenario, assignment).state


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
    life, poison and commander damage beyond what decides whether they have lost, battles' defense beyond 1,
    creatures' marked damage beyond their toughness (attackers' marked damage is read by the legacy blocker's
    damage assignment order). Two states with equal canonical forms have exactly the same legal regular-step
    assignments."""
    return replace(
        state,
        players=tuple(
            replace(
                p,
                life=1 if p.life > 0 else 0,
                poison=min(p.poison, 10),
                commander_damage=tuple((c, min(n, 21)) for c, n in p.commander_damage),
            )
            for p in state.players
        ),
        attackers=tuple(replace(a, damage_marked=min(a.damage_marked, max(a.toughness, 0))) for a in state.attackers),
        # marked damage past toughness changes nothing: the blocker has lethal damage either way (702.19b)
        blockers=tuple(replace(b, damage_marked=min(b.damage_marked, max(b.toughness, 0))) for b in state.blockers),
        battles=tuple(replace(b, defense=min(b.defense, 1)) for b in state.battles),
    )


# ---------------------------------------------------------------------------------------------
# Effects on real boards (docs/effects.md): damage dealt, its results, players who lose
# ---------------------------------------------------------------------------------------------

#: the player who controls the attackers (not listed in a scenario)
ATTACKING_PLAYER = "attacking player"
LOSS_RULES = {"life": "704.5a", "poison": "704.5c", "commander": "704.6c"}


@dataclass(frozen=True)
class Event:
    """One source's damage to one recipient in the step."""

    source: str
    recipient: str
    assigned: int
    dealt: int
    result: str  # "life", "poison", "counters", "marked", "loyalty", "defense" or "prevented"
    rule: str  # the rule of the result (or of the prevention)
    shielded: int = 0  # what the recipient's ``prevent`` shield stopped (615.7)


@dataclass(frozen=True)
class PlayerOutcome:
    id: str
    life: int
    poison: int
    commander_damage: Mapping[str, int]
    life_lost: int  # from damage dealt (not infect)
    life_gained: int  # lifelink of the blockers this player controls
    loses: tuple[str, ...]  # "life", "poison", "commander" (each a reason the player loses)

    def to_json(self) -> dict:
        return {
            "life": self.life,
            "poison": self.poison,
            "commander_damage": dict(self.commander_damage),
            "loses": bool(self.loses),
            "because": [f"{why} ({LOSS_RULES[why]})" for why in self.loses],
        }


class _NoSource:
    """A source that is not a creature of the scenario (tests and callers may deal such damage): no keywords,
    tags or modifiers."""

    tags: tuple = ()
    deals: tuple = ()
    toxic = 0
    deathtouch = False
    commander = None

    def __init__(self, source_id: str):
        self.id = source_id

    def has(self, keyword: str) -> bool:
        return False


def _source(scenario: Scenario, source_id: str):
    obj = scenario.get(source_id)
    return obj if obj is not None and hasattr(obj, "keywords") else _NoSource(source_id)


def _modify(amount: int, mods, order: str) -> int:
    """614.1a: ``times`` and ``plus`` in the affected player's order (616.1); 0 stays 0 (120.8)."""
    if amount <= 0:
        return 0
    times = [n for kind, n in mods if kind == "times"]
    plus = [n for kind, n in mods if kind == "plus"]
    if order == "most":
        amount += sum(plus)
        for n in times:
            amount *= n
        return amount
    for n in times:
        amount *= n
    return amount + sum(plus)


def dealt_events(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> list[Event]:
    """Every damage event of the step with the amount dealt after protection, prevention and modifiers."""
    raw: list[tuple[int, Any, Any, int]] = []  # (scenario order, source, recipient, assigned)
    order = {c.id: k for k, c in enumerate((*scenario.attackers, *scenario.blockers))}
    for source_id, split in assignment.items():
        source = _source(scenario, source_id)
        for recipient_id, amount in split.items():
            if amount > 0 and recipient_id in scenario:
                raw.append((order.get(source_id, len(order)), source, scenario[recipient_id], amount))
    raw.sort(key=lambda e: e[0])
    shields: dict[str, int] = {}
    out: list[Event] = []
    by_recipient: dict[str, list] = {}
    for _, source, recipient, amount in raw:
        by_recipient.setdefault(recipient.id, []).append((source, recipient.receiving, amount))
    dealt_of: dict[tuple[str, str], tuple[int, str, int]] = {}  # (dealt, rule if prevented, shield used)
    for rid, events in by_recipient.items():
        rec = events[0][1]
        shields[rid] = rec.prevent
        first = {s: k for k, s in enumerate(rec.shield_order)}
        events = sorted(events, key=lambda e: first.get(e[0].id, len(first)))
        for source, _, amount in events:
            if rec.prevent_combat or rec.protected_from(source):
                dealt_of[source.id, rid] = (0, "702.16e" if rec.protected_from(source) else "615.1a", 0)
                continue
            mods = (*source.deals, *rec.takes)
            if rec.order == "most":
                n = _modify(amount, mods, "most")
                stop = min(shields[rid], n)
            else:
                stop = min(shields[rid], amount)
                n = _modify(amount - stop, mods, "least")
            shields[rid] -= stop
            if rec.order == "most":
                n -= stop
            dealt_of[source.id, rid] = (n, "615.7" if n == 0 else "", stop)
    for _, source, recipient, amount in raw:
        n, why, stop = dealt_of[source.id, recipient.id]
        if n == 0:
            out.append(Event(source.id, recipient.id, amount, 0, "prevented", why, stop))
            continue
        result, rule = _result_of(scenario, Hit(source.id, recipient.id, n))
        out.append(Event(source.id, recipient.id, amount, n, result, rule, stop))
    return out


def shields_used(events) -> dict[str, int]:
    """Per recipient, how much of its ``prevent`` shield the events used up."""
    used: dict[str, int] = {}
    for e in events:
        if e.shielded:
            used[e.recipient] = used.get(e.recipient, 0) + e.shielded
    return used


def results(scenario: Scenario, events) -> tuple[Scenario, tuple[PlayerOutcome, ...], dict[str, int]]:
    """Stage 3 with each event's source read (120.3): the state after the damage and the state-based actions on
    permanents (before any player leaves), each listed player's outcome, and the life gained by lifelink."""
    s = scenario
    dealt: dict[str, int] = {}
    marked: dict[str, int] = {}
    counters: dict[str, int] = {}
    touched: set[str] = set()
    life_lost: dict[str, int] = {}
    poison: dict[str, int] = {}
    cmd: dict[tuple[str, str], int] = {}
    gained: dict[str, int] = {}
    for e in events:
        if e.dealt <= 0:
            continue
        source = _source(s, e.source)
        dealt[e.recipient] = dealt.get(e.recipient, 0) + e.dealt
        if source.deathtouch:
            touched.add(e.recipient)
        if e.result == "life":
            life_lost[e.recipient] = life_lost.get(e.recipient, 0) + e.dealt
        elif e.result == "poison":
            poison[e.recipient] = poison.get(e.recipient, 0) + e.dealt
        elif e.result == "counters":
            counters[e.recipient] = counters.get(e.recipient, 0) + e.dealt
        elif e.result == "marked":
            marked[e.recipient] = marked.get(e.recipient, 0) + e.dealt
        if s.kind(e.recipient) == "player":
            if source.toxic:  # 702.164c
                poison[e.recipient] = poison.get(e.recipient, 0) + source.toxic
            if getattr(source, "commander", None) is not None:  # 903.10a
                cmd[e.recipient, source.id] = cmd.get((e.recipient, source.id), 0) + e.dealt
        if source.has("lifelink"):  # 702.15b
            who = ATTACKING_PLAYER if s.kind(source.id) == "attacker" else (s.blocker_controller(source.id) or "")
            gained[who] = gained.get(who, 0) + e.dealt
    used = shields_used(events)

    def shielded(obj):
        n = used.get(obj.id)
        return replace(obj, receiving=replace(obj.receiving, prevent=obj.receiving.prevent - n)) if n else obj

    died: list[str] = []

    def creature(c):
        k = counters.get(c.id, 0)
        m = marked.get(c.id, 0)
        c2 = shielded(c)
        if k or m:
            c2 = replace(c2, power=c.power - k, toughness=c.toughness - k, damage_marked=c.damage_marked + m)
        if not c.in_combat:
            return c2
        toughness = c2.toughness
        dies = toughness <= 0 or (  # 704.5f
            not c.indestructible and (c2.damage_marked >= toughness or (c.id in touched and dealt.get(c.id, 0) > 0))
        )  # 704.5g, 704.5h, 702.12b
        if dies:
            died.append(c.id)
            return replace(c2, in_combat=False)
        return c2

    def walker(p):
        loyalty = max(0, p.loyalty - dealt.get(p.id, 0))
        out = replace(shielded(p), loyalty=loyalty)
        if p.in_combat and loyalty <= 0:  # 704.5i
            died.append(p.id)
            out = replace(out, in_combat=False)
        return out

    def battle(b):
        defense = max(0, b.defense - dealt.get(b.id, 0))
        out = replace(shielded(b), defense=defense)
        if b.in_combat and defense <= 0:  # 704.5v
            died.append(b.id)
            out = replace(out, in_combat=False)
        return out

    attackers = tuple(creature(a) for a in s.attackers)
    blockers = tuple(creature(b) for b in s.blockers)
    planeswalkers = tuple(walker(p) for p in s.planeswalkers)
    battles = tuple(battle(b) for b in s.battles)
    outcomes = []
    players = []
    for p in s.players:
        gain = gained.get(p.id, 0)
        life = p.life - life_lost.get(p.id, 0) + gain  # 510.2: damage and lifelink at the same time
        pois = p.poison + poison.get(p.id, 0)
        commander = dict(p.commander_damage)
        for (pid, src), n in cmd.items():
            if pid == p.id:
                commander[src] = commander.get(src, 0) + n
        loses = []
        if life <= 0:
            loses.append("life")  # 704.5a
        if pois >= 10:
            loses.append("poison")  # 704.5c
        if any(n >= 21 for n in commander.values()):
            loses.append("commander")  # 704.6c
        outcomes.append(PlayerOutcome(p.id, life, pois, commander, life_lost.get(p.id, 0), gain, tuple(loses)))
        players.append(replace(shielded(p), life=life, poison=pois, commander_damage=tuple(sorted(commander.items()))))
    state = replace(
        s,
        step="regular",
        players=tuple(players),
        attackers=attackers,
        blockers=blockers,
        planeswalkers=planeswalkers,
        battles=battles,
    )
    return state, tuple(outcomes), gained


def _result_of(scenario: Scenario, hit: Hit) -> tuple[str, str]:
    """What a hit's damage is, by its source and recipient (120.3)."""
    kind = scenario.kind(hit.recipient)
    source = _source(scenario, hit.source)
    infect = source.has("infect")
    if kind == "player":
        return ("poison", "702.90b") if infect else ("life", "120.3a")
    if kind == "planeswalker":
        return "loyalty", "120.3c"
    if kind == "battle":
        return "defense", "120.3h"
    if infect or source.has("wither"):
        return "counters", "702.90c" if infect else "702.80b"
    return "marked", "120.3e"


def leave_game(state: Scenario, losers) -> Scenario:
    """800.4a: players who lost leave the game with what they own and control: their planeswalkers and the
    blockers they control; attackers attacking them or their planeswalkers are removed from combat (506.4).

    A battle they protect stays in combat, and so do the attackers attacking it: the protector neither owns nor
    controls it (800.4a does not take it), 506.4 lists no such removal, and 704.5w chooses a new protector only
    for a battle no creature is attacking. It takes the regular step's damage as before."""
    gone = set(losers)
    walkers = tuple(replace(p, in_combat=False) if p.controller in gone else p for p in state.planeswalkers)
    theirs = gone | {p.id for p in walkers if p.controller in gone}
    blockers = tuple(
        replace(b, in_combat=False) if state.blocker_controller(b.id) in gone else b for b in state.blockers
    )
    attackers = tuple(replace(a, in_combat=False) if a.attacking in theirs else a for a in state.attackers)
    return replace(state, planeswalkers=walkers, blockers=blockers, attackers=attackers)


# ---------------------------------------------------------------------------------------------
# Boards that arrive with the state-based actions pending (docs/effects.md, "Boards as given")
# ---------------------------------------------------------------------------------------------


def loses(player) -> tuple[str, ...]:
    """Why a player has lost the game as a state-based action: "life" (704.5a), "poison" (704.5c), "commander"
    (704.6c); empty if they have not."""
    out = []
    if player.life <= 0:
        out.append("life")
    if player.poison >= 10:
        out.append("poison")
    if any(n >= 21 for _, n in player.commander_damage):
        out.append("commander")
    return tuple(out)


def game_over(scenario: Scenario) -> bool:
    """104.3b / 104.2a: two players in the game and one of them has lost: no combat damage is dealt any more."""
    return scenario.game_players <= 2 and any(loses(p) for p in scenario.players)


def settle(scenario: Scenario) -> Scenario:
    """The board after the state-based actions that are pending on it (704.3): a creature in combat with toughness
    0 or less (704.5f) or, not indestructible, with lethal damage marked (704.5g) is gone (out of combat); so is
    a planeswalker at 0 loyalty (704.5i) and a battle at 0 defense (704.5v); in a game of more than two players a
    player who has lost leaves it (800.4a, :func:`leave_game`). The same board when nothing is pending.

    Every combat object settles the board it is given, so one damage step and the whole combat read the same
    board (a blocker that arrived dead is neither blocking nor a kill)."""

    def gone(c) -> bool:
        return c.in_combat and (c.toughness <= 0 or (not c.indestructible and c.damage_marked >= c.toughness))

    changed = False
    attackers, blockers, walkers, battles = (
        scenario.attackers,
        scenario.blockers,
        scenario.planeswalkers,
        scenario.battles,
    )
    if any(gone(c) for c in (*attackers, *blockers)):
        attackers = tuple(replace(c, in_combat=False) if gone(c) else c for c in attackers)
        blockers = tuple(replace(c, in_combat=False) if gone(c) else c for c in blockers)
        changed = True
    if any(p.in_combat and p.loyalty <= 0 for p in walkers):
        walkers = tuple(replace(p, in_combat=False) if p.in_combat and p.loyalty <= 0 else p for p in walkers)
        changed = True
    if any(b.in_combat and b.defense <= 0 for b in battles):
        battles = tuple(replace(b, in_combat=False) if b.in_combat and b.defense <= 0 else b for b in battles)
        changed = True
    state = scenario
    if changed:
        state = replace(scenario, attackers=attackers, blockers=blockers, planeswalkers=walkers, battles=battles)
    losers = [p.id for p in state.players if loses(p)]
    if losers and state.game_players > 2:
        left = leave_game(state, losers)
        if left != state:
            state = left
    return state


def has_effects(scenario: Scenario) -> bool:
    """Does the board carry an outcome effect (docs/effects.md) that makes damage dealt differ from damage
    assigned, or gives it results beyond marked damage, loyalty, defense and life?"""
    for c in (*scenario.attackers, *scenario.blockers):
        if c.toxic or c.deals or c.has("lifelink") or c.has("infect") or c.has("wither"):
            return True
        if getattr(c, "commander", None) is not None or not c.receiving.is_plain:
            return True
    others: tuple[Any, ...] = (*scenario.players, *scenario.planeswalkers, *scenario.battles)
    return any(not o.receiving.is_plain for o in others)
