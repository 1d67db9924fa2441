"""What assigned combat damage does on a real board (docs/effects.md): one step's damage dealt, its results, and the
state-based actions that follow, players who lose included.

Legality never reads this module (702.19b judges lethal damage on the damage *assigned*). Everything that scores or
follows a step does: the state between the steps, the optimiser's objectives, the whole combat.

For each source and each recipient it assigned a positive amount to (one damage event, 510.2: all dealt at once):

1. protection from the source (702.16e) or "prevent all combat damage" (615.1a) on the recipient: all prevented;
2. the source's ``deals`` and the recipient's ``takes`` modifiers (614.1a) and the recipient's ``prevent`` shield
   (615.7), in the order its controller chooses (616.1): ``"least"`` (shield, multiplications, additions) or
   ``"most"`` (additions, multiplications, shield). The shield stops the sources in the recipient's
   ``shield_order`` first, then the others in scenario order. Nothing is dealt once an amount is 0 (120.8);
3. the damage dealt has its results (120.3): a player loses that much life (120.3a) or, from a source with infect,
   gets that many poison counters (120.3b, 702.90b); a creature gets that many -1/-1 counters from a source with
   wither or infect (120.3d, 702.80b, 702.90c), else that much damage is marked on it (120.3e); a planeswalker loses
   loyalty (120.3c) and a battle defense counters (120.3h); combat damage to a player from a creature with toxic N
   also gives N poison counters (702.164c); combat damage from a commander counts toward 21 (903.10a); a source
   with lifelink makes its controller gain that much life at the same time (702.15b, 510.2);
4. the state-based actions, all at once (704.3): a player at 0 life or less (704.5a), with 10 or more poison
   counters (704.5c) or dealt 21 or more combat damage by one commander (704.6c) loses; a creature with toughness 0
   or less is put into the graveyard (704.5f), one that is not indestructible (702.12b) with lethal damage marked
   (704.5g) or dealt damage by a deathtouch source (704.5h) is destroyed; a planeswalker at 0 loyalty (704.5i) and
   a battle at 0 defense (704.5v) go too.

A player who loses in a two-player game ends the game (104.3b, 104.2a): no further step. With more players that
player leaves the game (800.4a): the planeswalkers they control and the blockers they control leave, battles they
protect are removed from combat (reading), and attackers attacking them, or a planeswalker or battle of theirs,
are removed from combat (506.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .models import Scenario

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


@dataclass(frozen=True)
class StepOutcome:
    events: tuple[Event, ...]
    state: Scenario  # after the damage and the state-based actions (a player who lost has left: see above)
    players: tuple[PlayerOutcome, ...]
    life_gained: Mapping[str, int]  # lifelink, by controller (ATTACKING_PLAYER for the attackers)
    died: tuple[str, ...]  # creatures, planeswalkers and battles put into the graveyard by the SBAs
    losers: tuple[str, ...]
    game_over: bool  # two players and one of them lost (104.3b): no further step
    dealt: Mapping[str, int] = field(default_factory=dict)  # damage dealt to each recipient

    def player(self, player_id: str) -> PlayerOutcome:
        return next(p for p in self.players if p.id == player_id)


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
    raw: list[tuple[int, object, object, int]] = []  # (scenario order, source, recipient, assigned)
    order = {c.id: k for k, c in enumerate((*scenario.attackers, *scenario.blockers))}
    for source_id, split in assignment.items():
        source = scenario.get(source_id)
        if source is None:
            continue
        for recipient_id, amount in split.items():
            if amount > 0 and recipient_id in scenario:
                raw.append((order.get(source_id, len(order)), source, scenario[recipient_id], amount))
    raw.sort(key=lambda e: e[0])
    shields = {}
    out: list[Event] = []
    by_recipient: dict[str, list] = {}
    for _, source, recipient, amount in raw:
        by_recipient.setdefault(recipient.id, []).append((source, recipient.receiving, amount))
    dealt_of: dict[tuple[str, str], tuple[int, str]] = {}
    for rid, events in by_recipient.items():
        rec = events[0][1]
        shields[rid] = rec.prevent
        first = {s: k for k, s in enumerate(rec.shield_order)}
        events = sorted(events, key=lambda e: first.get(e[0].id, len(first)))
        for source, _, amount in events:
            if rec.prevent_combat or rec.protected_from(source):
                dealt_of[source.id, rid] = (0, "702.16e" if rec.protected_from(source) else "615.1a")
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
        n, why, stop = dealt_of[source.id, recipient.id][0], dealt_of[source.id, recipient.id][1], 0
        if len(dealt_of[source.id, recipient.id]) > 2:
            stop = dealt_of[source.id, recipient.id][2]
        if n == 0:
            out.append(Event(source.id, recipient.id, amount, 0, "prevented", why, stop))
            continue
        kind = scenario.kind(recipient.id)
        infect = source.has("infect")
        if kind == "player":
            result, rule = ("poison", "702.90b") if infect else ("life", "120.3a")
        elif kind == "planeswalker":
            result, rule = "loyalty", "120.3c"
        elif kind == "battle":
            result, rule = "defense", "120.3h"
        elif infect or source.has("wither"):
            result, rule = "counters", "702.90c" if infect else "702.80b"
        else:
            result, rule = "marked", "120.3e"
        out.append(Event(source.id, recipient.id, amount, n, result, rule, stop))
    return out


def shields_used(events) -> dict[str, int]:
    """Per recipient, how much of its ``prevent`` shield the events used up."""
    used: dict[str, int] = {}
    for e in events:
        if e.shielded:
            used[e.recipient] = used.get(e.recipient, 0) + e.shielded
    return used


def after_step(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> StepOutcome:
    """Deal one step's damage (both sides' sources) and perform the state-based actions that follow."""
    events = dealt_events(scenario, assignment)
    return _results(scenario, events)


def _results(scenario: Scenario, events) -> StepOutcome:
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
        source = s[e.source]
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
    losers = tuple(o.id for o in outcomes if o.loses)
    state = replace(
        s,
        step="regular",
        players=tuple(players),
        attackers=attackers,
        blockers=blockers,
        planeswalkers=planeswalkers,
        battles=battles,
    )
    game_over = bool(losers) and s.game_players <= 2
    if losers and not game_over:
        state = leave_game(state, losers)
    return StepOutcome(tuple(events), state, tuple(outcomes), gained, tuple(died), losers, game_over, dealt)


def leave_game(state: Scenario, losers) -> Scenario:
    """800.4a: players who lost leave the game with what they control; attackers attacking them or their
    planeswalkers and battles are removed from combat (506.4)."""
    gone = set(losers)
    walkers = tuple(replace(p, in_combat=False) if p.controller in gone else p for p in state.planeswalkers)
    battles = tuple(replace(b, in_combat=False) if b.protector in gone else b for b in state.battles)
    theirs = gone | {p.id for p in walkers if p.controller in gone} | {b.id for b in battles if b.protector in gone}
    blockers = tuple(
        replace(b, in_combat=False) if state.blocker_controller(b.id) in gone else b for b in state.blockers
    )
    attackers = tuple(replace(a, in_combat=False) if a.attacking in theirs else a for a in state.attackers)
    return replace(state, planeswalkers=walkers, battles=battles, blockers=blockers, attackers=attackers)


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
    return any(not o.receiving.is_plain for o in (*scenario.players, *scenario.planeswalkers, *scenario.battles))
