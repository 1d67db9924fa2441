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
- :func:`kills`, :func:`overkill_threshold`, :func:`regular_step_caps`: what the objectives and the whole
  combat's effect keys count.

One step's outcome is one pipeline (:func:`resolve`), each stage written once:

1. **assigned** -- the assignment read as :class:`Hit` s (source, recipient, amount, deathtouch), both sides'
   keys together (:func:`assigned_hits`);
2. **dealt** -- the hits after every :class:`DamageEffect` of :data:`DAMAGE_EFFECTS`, once, in order
   (prevention, protection and doubling change the damage *dealt*, never which assignments are legal):
   :class:`ReplacementsAndPrevention` (docs/effects.md). The :class:`Event` s are read off stages 1 and 2;
3. **results** -- :func:`results` (120.3), each hit's source read: damage marked on creatures (120.3e) or -1/-1
   counters (infect, wither), loyalty (120.3c), defense (120.3h) and life (120.3a) lost, poison (infect, toxic),
   commander damage (903.10a), lifelink gains at the same time as the damage (702.15b, 510.2);
4. **state-based actions** -- :func:`state_based_actions` (704.3, all at once): creatures with toughness 0 or
   less (704.5f), lethal damage (704.5g) or deathtouch damage (704.5h) leave combat unless indestructible
   (702.12b); planeswalkers at 0 loyalty (704.5i) and battles at 0 defense (704.5v) leave;
5. **losers** -- every :class:`LossCondition` of :data:`LOSS_CONDITIONS` (704.5a life, 704.5c poison, 704.6c
   commander damage), each one object with its rule (:func:`losses`, :func:`losers`, :attr:`Outcome.losers`).
   A player who loses a two-player game ends it (104.3b, 104.2a, :func:`game_over`): no further step. With more
   players that player leaves the game (800.4a, :func:`leave_game`).

The state is ready for the next step (``step == "regular"``). The same stages serve the other entry points:
:func:`settle` (a board that arrives with state-based actions pending, for one step and the whole combat alike)
is stages 4 and 5 with nothing dealt; :func:`apply_damage` (the plain boards' regular step from totals) is stage 3
on a plain board, then 4 and 5. :func:`has_effects` asks both lists whether the plain boards' fast paths hold.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any, Protocol, TypeVar, cast

from .models import (
    Assignment,
    Attacker,
    Battle,
    Blocker,
    Creature,
    DamageOrder,
    Keyword,
    LossReason,
    ObjectKind,
    Planeswalker,
    Player,
    Scenario,
    Step,
)
from .models.scenario import NO_EFFECTS
from .models.vocabulary import Modifier

_T = TypeVar("_T")
#: A first-step outcome's effect on the regular step: sorted (recipient, damage capped, deathtouch) triples.
EffectKey = tuple[tuple[str, int, bool], ...]

# ---------------------------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------------------------


def lethal_need(creature: Creature) -> int:
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
    obj = scenario[recipient]
    if isinstance(obj, Player):
        return max(0, obj.life)
    if isinstance(obj, Planeswalker):
        return obj.loyalty
    if isinstance(obj, Battle):
        return obj.defense
    need = lethal_need(obj)
    return 1 if need > 0 and deathtouched else need


def regular_step_caps(scenario: Scenario) -> dict[str, int]:
    """Damage beyond which more damage in the first step changes nothing for the regular step, by id: a creature's
    lethal need, a planeswalker's loyalty, a battle's defense (beyond them the legal set is the same), and every
    player's life (damage up to it decides whether they lose, which ends a two-player combat or takes them out of
    a larger one)."""
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


def exact(value: float) -> Fraction:
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
    """``amount`` damage from ``source`` to ``recipient``; ``deathtouch``: the source has deathtouch. After the
    effects (stage 2), ``rule`` names what changed the amount when it was prevented (702.16e, 615.1a, 615.7) and
    ``shielded`` how much of the recipient's ``prevent`` shield it used up (615.7)."""

    source: str
    recipient: str
    amount: int
    deathtouch: bool = False
    rule: str = ""
    shielded: int = 0


def assigned_hits(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> tuple[Hit, ...]:
    """The positive entries of an assignment (both sides' keys) to objects of the scenario, as hits, in the
    scenario's order of the sources (attackers, then blockers; 615.7's default order)."""
    sources = remembered(scenario, "sources", (), lambda: _sources(scenario))
    last = (len(sources), False)  # not a creature of the scenario: after them, no deathtouch
    out = []
    # an Assignment's own mapping, read (its items through the Mapping protocol are a generator's view per source)
    items = assignment._data.items() if isinstance(assignment, Assignment) else assignment.items()
    for source, split in sorted(items, key=lambda item: sources.get(item[0], last)[0]):
        dt = sources.get(source, last)[1]
        for recipient, amount in split.items():
            if amount > 0 and recipient in scenario:
                out.append(_hit(source, recipient, amount, dt))
    return tuple(out)


def _sources(scenario: Scenario) -> dict[str, tuple[int, bool]]:
    """Each creature's place in the scenario's order of the sources (attackers, then blockers) and whether it has
    deathtouch (702.2c)."""
    out = {}
    for k, c in enumerate((*scenario.attackers, *scenario.blockers)):  # (an id twice: its last place and its last
        out[c.id] = (k, c.has(Keyword.DEATHTOUCH))  # creature, the one the board's index holds)
    return out


def _hit(source: str, recipient: str, amount: int, deathtouch: bool) -> Hit:
    """``Hit(source, recipient, amount, deathtouch)`` without the frozen class's ``__init__`` (an attribute at a
    time through ``object.__setattr__``): the same object, made once per hit of every outcome."""
    new = object.__new__(Hit)
    new.__dict__.update(source=source, recipient=recipient, amount=amount, deathtouch=deathtouch, rule="", shielded=0)
    return new


def tally(
    assignment: Mapping[str, Mapping[str, int]], deathtouch_sources: Iterable[str] = ()
) -> tuple[dict[str, int], set[str]]:
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


def tally_vector(
    columns: Sequence[tuple[int, str]], vector: Sequence[int], deathtouch: Sequence[bool]
) -> tuple[dict[str, int], set[str]]:
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


def _evolve(obj: _T, **changes: Any) -> _T:
    """``dataclasses.replace`` for the parts of a board (hits, players, creatures, planeswalkers, battles, what a
    recipient receives: frozen dataclasses without ``__post_init__`` or derived fields): a copy with ``changes``,
    without replace's walk over every field through ``__init__`` (that walk was most of a plain board's outcome).
    The scenario (whose ``__post_init__`` indexes its objects) is copied field by field and indexed again
    (:func:`_evolve_board`); any other class with a ``__post_init__`` or slots goes through ``replace``."""
    cls: Any = type(obj)  # (no typing.cast here: a call each, and this is called for every changed object)
    how = _EVOLVE.get(cls)
    if how is None:
        derived = hasattr(cls, "__post_init__") or hasattr(cls, "__slots__")
        how = _EVOLVE[cls] = "board" if cls is Scenario else "replace" if derived else ""
    if how:
        if how == "board":
            return _evolve_board(obj, changes)  # type: ignore[arg-type,return-value]
        return replace(obj, **changes)  # type: ignore[type-var]
    known = cls.__dataclass_fields__
    if not known.keys() >= changes.keys():  # one test for every name (a loop was a tenth of a plain outcome)
        raise TypeError(f"{cls.__name__} has no field {next(n for n in changes if n not in known)!r}")
    new: _T = object.__new__(cls)
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new


_EVOLVE: dict[type, str] = {}  # per class: "" (a copy of __dict__), "board" (a Scenario) or "replace"
#: the scenario's fields given to ``__init__`` (``_index`` is derived by ``__post_init__``; facts the readers keep on
#: a board, :func:`remembered`, are not fields and stay with the board they were read on)
_BOARD_FIELDS = tuple(f.name for f in fields(Scenario) if f.init)
_BOARD_FIELD_SET = frozenset(_BOARD_FIELDS)


def _evolve_board(board: Scenario, changes: Mapping[str, Any], index: dict[str, Any] | None = None) -> Scenario:
    """``replace(board, **changes)`` for a :class:`Scenario`: its fields copied, ``changes`` set, and the objects
    indexed by the same ``__post_init__`` (each state of a step's outcome is one or two of these); ``index``: that
    index already made (:func:`_made`: the board's, with the objects it changed)."""
    if not _BOARD_FIELD_SET.issuperset(changes):
        raise TypeError(f"Scenario has no field {next(n for n in changes if n not in _BOARD_FIELD_SET)!r}")
    new = object.__new__(Scenario)
    d = new.__dict__
    d.update(board.__dict__)  # its fields (in their order), its index (built again below) and its facts,
    d.pop("_remembered", None)  # which stay with the board they were read on
    d.update(changes)
    if index is None:
        new.__post_init__()
    else:
        d["_index"] = index
    return new


# ---------------------------------------------------------------------------------------------
# Stage 2: dealt (every DamageEffect, in order)
# ---------------------------------------------------------------------------------------------


class DamageEffect(Protocol):
    """Something that changes the damage dealt, never which assignments are legal (prevention, protection,
    doubling). ``apply`` gets the hits so far and returns the hits dealt (a prevented hit may stay, with amount
    0 and the rule that prevented it). ``acts_on``: could it change any hit on this board? When no effect acts
    on a board (and nothing else of :func:`has_effects` is there), damage dealt is damage assigned and the
    readers may take their fast paths (the plan's tallies, the direct engine's effect keys)."""

    name: str

    def acts_on(self, scenario: Scenario) -> bool: ...

    def apply(self, scenario: Scenario, hits: tuple[Hit, ...]) -> tuple[Hit, ...]: ...


class ReplacementsAndPrevention:
    """Protection (702.16e), prevention (615.1a, the 615.7 shields) and damage modifiers (614.1a) in the affected
    player's order (616.1). Per recipient, its ``shield_order`` sources first, then the scenario's order; 0 damage
    stays 0 (120.8). On a board without them, dealt == assigned."""

    name = "replacements and prevention"

    def acts_on(self, scenario: Scenario) -> bool:
        creatures: tuple[Any, ...] = (*scenario.attackers, *scenario.blockers)
        if any(c.deals for c in creatures):
            return True
        others: tuple[Any, ...] = (*creatures, *scenario.players, *scenario.planeswalkers, *scenario.battles)
        return any(not o.receiving.is_plain for o in others)

    def apply(self, scenario: Scenario, hits: tuple[Hit, ...]) -> tuple[Hit, ...]:
        # asked once a board (every outcome of a board asks it; kept on the board with this effect)
        if not remembered(scenario, "replacements act", (self,), lambda: self.acts_on(scenario)):
            return hits
        out = list(hits)
        by_recipient: dict[str, list[int]] = {}
        for k, h in enumerate(hits):
            by_recipient.setdefault(h.recipient, []).append(k)
        for rid, ks in by_recipient.items():
            rec = scenario.receiving(rid)
            if rec is NO_EFFECTS:  # nothing happens to damage dealt to it: each hit as it is but the source's own
                # modifiers (614.1a); a source without them deals its hit as assigned (0 shield, no modifier)
                ks = [k for k in ks if hits[k].amount > 0 and _source(scenario, hits[k].source).deals]
                if not ks:
                    continue
            shield = rec.prevent
            first = {s: n for n, s in enumerate(rec.shield_order)}
            for k in sorted(ks, key=lambda k: first.get(hits[k].source, len(first))):
                h = hits[k]
                if h.amount <= 0:
                    continue
                source = _source(scenario, h.source)
                if rec.prevent_combat or rec.protected_from(source):
                    out[k] = _evolve(h, amount=0, rule="702.16e" if rec.protected_from(source) else "615.1a")
                    continue
                mods = (*source.deals, *rec.takes)
                if rec.order == DamageOrder.MOST:
                    n = _modify(h.amount, mods, DamageOrder.MOST)
                    stop = min(shield, n)
                    n -= stop
                else:
                    stop = min(shield, h.amount)
                    n = _modify(h.amount - stop, mods, DamageOrder.LEAST)
                shield -= stop
                out[k] = _evolve(h, amount=n, rule="615.7" if n == 0 else h.rule, shielded=h.shielded + stop)
        return tuple(out)


#: The effects every outcome applies, in order.
DAMAGE_EFFECTS: tuple[DamageEffect, ...] = (ReplacementsAndPrevention(),)


def deal(scenario: Scenario, hits: tuple[Hit, ...], effects: Sequence[DamageEffect] | None = None) -> tuple[Hit, ...]:
    """Stage 2: the hits after every effect of ``effects`` (default :data:`DAMAGE_EFFECTS`), in order."""
    for effect in DAMAGE_EFFECTS if effects is None else effects:
        hits = tuple(effect.apply(scenario, hits))
    return hits


def changes_players(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> bool:
    """Can this assignment's damage, once dealt (stage 2), change a listed player's life, poison or commander
    damage (stage 3, :func:`results`)? Only damage dealt to a player can, or damage dealt by a lifelink source
    (702.15b: its controller gains that much). When one side's damage cannot, who loses the step does not depend
    on how that side divides it (the two sides' damage reaches different recipients, 510.1c/d)."""
    facts = _source_facts(scenario)
    for h in deal(scenario, assigned_hits(scenario, assignment)):
        if h.amount > 0 and (
            scenario.kind(h.recipient) is ObjectKind.PLAYER or facts.get(h.source, _NO_FACTS).gains is not None
        ):
            return True
    return False


def _events(scenario: Scenario, assigned: tuple[Hit, ...], dealt: tuple[Hit, ...]) -> tuple[Event, ...]:
    """One event per source and recipient: what was assigned, what stage 2 dealt, and what it is (120.3)."""
    got: dict[tuple[str, str], list[Any]] = {}  # [amount dealt, rule, ...]
    for h in dealt:
        g = got.setdefault((h.source, h.recipient), [0, "", 0])
        g[0] += h.amount
        g[1] = g[1] or h.rule
        g[2] += h.shielded
    out = []
    keys = [(h.source, h.recipient, h.amount) for h in assigned]
    seen = {(s, r) for s, r, _ in keys}
    keys += [(h.source, h.recipient, 0) for h in dealt if (h.source, h.recipient) not in seen]
    facts, kind = _source_facts(scenario), scenario.kind
    for source, recipient, amount in keys:
        n, why, stop = got.pop((source, recipient), (0, "", 0))
        if n <= 0:
            if amount > 0:
                out.append(_event(source, recipient, amount, 0, "prevented", why, stop))
            continue
        result, rule = facts.get(source, _NO_FACTS).results[kind(recipient)]  # 120.3
        out.append(_event(source, recipient, amount, n, result, rule, stop))
    return tuple(out)


def dealt_events(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> list[Event]:
    """Every damage event of the step with the amount dealt after the effects (stages 1 and 2)."""
    assigned = assigned_hits(scenario, assignment)
    return list(_events(scenario, assigned, deal(scenario, assigned)))


# ---------------------------------------------------------------------------------------------
# Stage 3: results (120.3: marked damage, counters, loyalty, defense, life, poison, commander damage, lifelink)
# ---------------------------------------------------------------------------------------------


@dataclass
class _Results:
    """What the damage dealt does to each object and player, before the state-based actions."""

    dealt: dict[str, int] = field(default_factory=dict)  # to planeswalkers and battles (loyalty, defense)
    marked: dict[str, int] = field(default_factory=dict)  # creatures: marked damage (120.3e)
    counters: dict[str, int] = field(default_factory=dict)  # creatures: -1/-1 counters (702.90c, 702.80b)
    life_lost: dict[str, int] = field(default_factory=dict)  # 120.3a
    poison: dict[str, int] = field(default_factory=dict)  # 702.90b, 702.164c
    commander: dict[tuple[str, str], int] = field(default_factory=dict)  # (player, commander): 903.10a
    gained: dict[str, int] = field(default_factory=dict)  # 702.15b, by controller (ATTACKING_PLAYER)
    shields: dict[str, int] = field(default_factory=dict)  # prevent shield used up (615.7)

    def add(self, where: dict[Any, int], key: Any, n: int) -> None:
        where[key] = where.get(key, 0) + n


def results(scenario: Scenario, events: Iterable[Event]) -> tuple[Scenario, _Results]:
    """Stage 3, each event's source read (120.3): the state after the damage, before any state-based action."""
    res = _results(scenario, events)
    return _damaged(scenario, res), res


def _results(s: Scenario, events: Iterable[Event]) -> _Results:
    """:func:`results`' tallies: what each event's damage does, by its result and its source's facts (toxic,
    commander, lifelink: :func:`_source_facts`)."""
    out = _Results()
    facts = _source_facts(s)
    shields, dealt, life_lost, poison = out.shields, out.dealt, out.life_lost, out.poison
    counters, marked, gained = out.counters, out.marked, out.gained
    for e in events:
        if e.shielded:
            shields[e.recipient] = shields.get(e.recipient, 0) + e.shielded
        n = e.dealt
        if n <= 0:
            continue
        r = e.recipient
        dealt[r] = dealt.get(r, 0) + n
        result = e.result
        if result == "life":
            life_lost[r] = life_lost.get(r, 0) + n
        elif result == "poison":
            poison[r] = poison.get(r, 0) + n
        elif result == "counters":
            counters[r] = counters.get(r, 0) + n
        elif result == "marked":
            marked[r] = marked.get(r, 0) + n
        f = facts.get(e.source, _NO_FACTS)
        if (f.toxic or f.commander) and s.kind(r) is ObjectKind.PLAYER:
            if f.toxic:  # 702.164c
                poison[r] = poison.get(r, 0) + f.toxic
            if f.commander:  # 903.10a
                out.add(out.commander, (r, e.source), n)
        if f.gains is not None:  # 702.15b
            gained[f.gains] = gained.get(f.gains, 0) + n
    return out


def _plain_results(scenario: Scenario, totals: Mapping[str, int]) -> _Results:
    """Stage 3 on a plain board (:func:`has_effects` false): every hit's result is fixed by its recipient (120.3a
    life, 120.3c loyalty, 120.3e marked damage, 120.3h defense), as :func:`_result` gives without infect or wither."""
    out = _Results()
    for r, n in totals.items():
        if n <= 0:
            continue
        kind = scenario.kind(r)
        if kind is ObjectKind.PLAYER:
            out.life_lost[r] = n
        elif kind in (ObjectKind.ATTACKER, ObjectKind.BLOCKER):
            out.marked[r] = n
        out.dealt[r] = n
    return out


#: What a step changes on a board before it is made once (:func:`_made`): object id -> {field: new value}
_Changes = dict[str, dict[str, Any]]


def _damaged(s: Scenario, res: _Results) -> Scenario:
    """The board with the results applied (no state-based action yet); the step becomes the regular one."""
    return _made(s, _result_changes(s, res))


def _result_changes(s: Scenario, res: _Results) -> _Changes:
    """Stage 3 on the board's objects: the fields the results change, by object (:func:`_made` makes the board)."""
    out: _Changes = {}
    shields, counters, marked, dealt = res.shields, res.counters, res.marked, res.dealt
    for oid, n in shields.items():  # 615.7: the part of the shield used up
        if n:
            rec = s[oid].receiving
            out[oid] = {"receiving": _evolve(rec, prevent=rec.prevent - n)}
    if counters or marked:
        for c in (*s.attackers, *s.blockers):
            k = counters.get(c.id, 0)
            m = marked.get(c.id, 0)
            if k or m:
                out.setdefault(c.id, {}).update(
                    power=c.power - k, toughness=c.toughness - k, damage_marked=c.damage_marked + m
                )
    for p in s.planeswalkers:
        n = dealt.get(p.id, 0)
        if n:
            out.setdefault(p.id, {})["loyalty"] = max(0, p.loyalty - n)
    for b in s.battles:
        n = dealt.get(b.id, 0)
        if n:
            out.setdefault(b.id, {})["defense"] = max(0, b.defense - n)
    life_lost, gained, poison = res.life_lost, res.gained, res.poison
    for pl in s.players:
        life = pl.life - life_lost.get(pl.id, 0) + gained.get(pl.id, 0)  # 510.2: damage and lifelink at once
        pois = pl.poison + poison.get(pl.id, 0)
        if life == pl.life and pois == pl.poison and not res.commander:
            continue
        commander = dict(pl.commander_damage)
        for (pid, src), n in res.commander.items():
            if pid == pl.id:
                commander[src] = commander.get(src, 0) + n
        out.setdefault(pl.id, {}).update(life=life, poison=pois, commander_damage=tuple(sorted(commander.items())))
    return out


def _made(s: Scenario, changes: _Changes, step: str = Step.REGULAR) -> Scenario:
    """The board ``s`` with ``changes`` made (each changed object copied once, the board once) in ``step``."""
    if not changes:
        return _evolve(s, step=step)
    index = s._index
    groups = (s.players, s.planeswalkers, s.battles, s.attackers, s.blockers)
    names = {_GROUP_OF.get(type(index[oid])) for oid in changes}
    if None not in names and len(index) == sum(map(len, groups)):  # every id once (as a board holds them): the
        # groups that change are those of the changed objects' classes, one lookup per change (not a scan of each)
        now = {oid: _evolve(index[oid], **change) for oid, change in changes.items()}  # each changed object once
        made: dict[str, Any] = {"step": step}
        for name in cast("set[str]", names):
            made[name] = tuple(now.get(o.id, o) for o in getattr(s, name))
        new_index = dict(index)  # the board's index with the changed objects (the same ids in the same order)
        new_index.update(now)
        return _evolve_board(s, made, new_index)
    return _evolve(
        s,
        step=step,
        players=_remade(s.players, changes),
        planeswalkers=_remade(s.planeswalkers, changes),
        battles=_remade(s.battles, changes),
        attackers=_remade(s.attackers, changes),
        blockers=_remade(s.blockers, changes),
    )


#: the board's field that holds each class of object (:func:`_made`)
_GROUP_OF: dict[type, str] = {
    Player: "players",
    Planeswalker: "planeswalkers",
    Battle: "battles",
    Attacker: "attackers",
    Blocker: "blockers",
}


def _remade(group: tuple[_T, ...], changes: _Changes) -> tuple[_T, ...]:
    """A group of the board's objects with ``changes`` made (the same tuple when none of them changes)."""
    if not any(o.id in changes for o in group):  # type: ignore[attr-defined]
        return group
    return tuple(_evolve(o, **changes[o.id]) if o.id in changes else o for o in group)  # type: ignore[attr-defined]


def _now(obj: Any, changes: _Changes, name: str) -> Any:
    """A field of ``obj`` with the changes not yet made (:func:`_made`)."""
    change = changes.get(obj.id)
    return getattr(obj, name) if change is None or name not in change else change[name]


# ---------------------------------------------------------------------------------------------
# Stage 4: state-based actions on permanents (704.3: all at once)
# ---------------------------------------------------------------------------------------------


def first_strike_step_happens(scenario: Scenario) -> bool:
    """510.4: there is a first-strike combat damage step when an attacking or blocking creature has first
    strike or double strike as the combat damage step begins (power does not matter)."""
    return any(
        c.in_combat and (c.has(Keyword.FIRST_STRIKE) or c.has(Keyword.DOUBLE_STRIKE))
        for c in (*scenario.attackers, *scenario.blockers)
    )


def _destroyed(creature: Creature, damage_marked: int, deathtouched: bool, toughness: int | None = None) -> bool:
    """704.5f (toughness 0 or less, even indestructible), 704.5g (lethal damage marked), 704.5h (dealt damage by a
    deathtouch source since the last check), 702.12b (indestructible is not destroyed). ``toughness``: the
    creature's after the step's -1/-1 counters (default its own)."""
    if toughness is None:
        toughness = creature.toughness
    if toughness <= 0:
        return True  # 704.5f: not "destroyed", so indestructible does not help
    if damage_marked >= toughness or deathtouched:
        return not creature.has(Keyword.INDESTRUCTIBLE)  # 702.12b
    return False


def creature_dies(creature: Creature, dealt: int, deathtouched: bool, counters: int = 0) -> bool:
    """Would the state-based actions put this creature into the graveyard once it is dealt ``dealt`` more damage
    (``deathtouched``: some of it from a deathtouch source)? The test :func:`state_based_actions` makes.
    ``counters``: how much of ``dealt`` came as -1/-1 counters (702.90c infect, 702.80b wither: they lower its
    toughness, as :func:`_damaged` puts them, instead of being marked)."""
    marked = creature.damage_marked + dealt - counters
    return _destroyed(creature, marked, deathtouched and dealt > 0, creature.toughness - counters)


def state_based_actions(
    state: Scenario, deathtouched: Iterable[str] = (), conditions: Sequence[LossCondition] | None = None
) -> tuple[Scenario, tuple[tuple[str, str], ...]]:
    """The state-based actions, all at once (704.3), on a board whose damage is already applied: creatures in
    combat that :func:`creature_dies` (``deathtouched``: those dealt damage by a deathtouch source since the last
    check, 704.5h) leave combat, so do planeswalkers at 0 loyalty (704.5i) and battles at 0 defense (704.5v);
    then the players who lose (:func:`losers`): in a game of more than two players they leave it
    (:func:`leave_game`, 800.4a); with two the game is over (:func:`game_over`). The same board when nothing
    changes. Returns the state and the losers."""
    touched = deathtouched if isinstance(deathtouched, (set, frozenset)) else set(deathtouched)
    changes: _Changes = {}
    _leave_combat(state, changes, touched)
    if changes:
        state = _made(state, changes, state.step)
    return _lost(state, conditions)


def _leave_combat(state: Scenario, changes: _Changes, touched: Collection[str]) -> None:
    """Stage 4 on ``state`` with ``changes`` (stage 3's, not yet made: :func:`_now`): what leaves combat, added to
    ``changes`` (704.5f/g/h with 702.12b, 704.5i, 704.5v)."""
    for c in (*state.attackers, *state.blockers):
        if not c.in_combat:
            continue
        change = changes.get(c.id)
        if change is None:
            # _destroyed's conditions read inline first: most creatures of most boards (every board a plan reads is
            # settled) meet none of them
            if (c.toughness <= 0 or c.damage_marked >= c.toughness or c.id in touched) and _destroyed(
                c, c.damage_marked, c.id in touched
            ):
                changes[c.id] = {"in_combat": False}
        elif _destroyed(
            c, change.get("damage_marked", c.damage_marked), c.id in touched, change.get("toughness", c.toughness)
        ):
            change["in_combat"] = False
    for p in state.planeswalkers:  # 704.5i
        if p.in_combat and _now(p, changes, "loyalty") <= 0:
            changes.setdefault(p.id, {})["in_combat"] = False
    for b in state.battles:  # 704.5v
        if b.in_combat and _now(b, changes, "defense") <= 0:
            changes.setdefault(b.id, {})["in_combat"] = False


def _after(
    scenario: Scenario, res: _Results, touched: Collection[str], conditions: Sequence[LossCondition] | None
) -> tuple[Scenario, tuple[tuple[str, str], ...]]:
    """Stages 3 to 5 on the board before the step: the results' changes (:func:`_result_changes`), what leaves
    combat on the board they make (:func:`_leave_combat`), that board made once (the state :func:`_damaged` then
    :func:`state_based_actions` give), then the losers (:func:`_lost`)."""
    changes = _result_changes(scenario, res)  # 3
    _leave_combat(scenario, changes, touched)  # 4
    return _lost(_made(scenario, changes), conditions)  # 5


def _lost(state: Scenario, conditions: Sequence[LossCondition] | None) -> tuple[Scenario, tuple[tuple[str, str], ...]]:
    """Stage 5 on the state after stage 4: the losers (:func:`losers`); with more than two players in the game
    they leave it (:func:`leave_game`, 800.4a)."""
    lost = losers(state, conditions)
    if lost and state.game_players > 2:
        state = leave_game(state, [p for p, _ in lost])
    return state, lost


# ---------------------------------------------------------------------------------------------
# Stage 5: players who lose (each way to lose one object with its rule), game over, who leaves
# ---------------------------------------------------------------------------------------------


class LossCondition(Protocol):
    """A way for a player to lose the game as a state-based action. ``name`` is the reason in the reports
    (``PlayerOutcome.loses``), ``rule`` the rule cited. ``acts_on``: can damage on this board make a player lose
    this way beyond what the plain boards' fast paths encode (704.5a on damage assigned reaching a player's life)?
    A condition that says yes sends every reader (the objectives, the whole combat's count) to the outcome."""

    name: str
    rule: str

    def acts_on(self, scenario: Scenario) -> bool: ...

    def loses(self, player: Player) -> bool: ...


class LifeZero:
    """704.5a: a player with 0 or less life loses the game."""

    name: str = LossReason.LIFE
    rule = "704.5a"

    def acts_on(self, scenario: Scenario) -> bool:
        return False  # the plain fast paths encode it: damage assigned (= dealt there) reaching life

    def loses(self, player: Player) -> bool:
        return player.life <= 0


class TenPoison:
    """704.5c: a player with ten or more poison counters loses the game."""

    name: str = LossReason.POISON
    rule = "704.5c"

    def acts_on(self, scenario: Scenario) -> bool:
        return any(a.has(Keyword.INFECT) or a.toxic for a in scenario.attackers)  # 702.90b, 702.164c

    def loses(self, player: Player) -> bool:
        return player.poison >= 10


class CommanderDamage:
    """704.6c (903.10a): a player dealt 21 or more combat damage by the same commander over the game loses it."""

    name: str = LossReason.COMMANDER
    rule = "704.6c"

    def acts_on(self, scenario: Scenario) -> bool:
        return any(a.commander is not None for a in scenario.attackers)

    def loses(self, player: Player) -> bool:
        return any(n >= 21 for _, n in player.commander_damage)


#: The ways to lose every outcome, every game-over test and the settling of boards read, in order.
LOSS_CONDITIONS: tuple[LossCondition, ...] = (LifeZero(), TenPoison(), CommanderDamage())


def losses(player: Player, conditions: Sequence[LossCondition] | None = None) -> tuple[LossCondition, ...]:
    """Every way (default :data:`LOSS_CONDITIONS`) in which this player has lost the game; empty if none."""
    ways: tuple[LossCondition, ...] = ()
    for c in LOSS_CONDITIONS if conditions is None else conditions:  # a loop: asked for every player of every outcome
        if c.loses(player):
            ways += (c,)
    return ways


def losers(state: Scenario, conditions: Sequence[LossCondition] | None = None) -> tuple[tuple[str, str], ...]:
    """``(player id, rule)`` for every listed player of ``state`` who has lost (the first way that holds)."""
    out = []
    for p in state.players:
        ways = losses(p, conditions)
        if ways:
            out.append((p.id, ways[0].rule))
    return tuple(out)


def _ends_game(scenario: Scenario, lost: Sequence[tuple[str, str]]) -> bool:
    """104.3b / 104.2a: two players in the game and one of them has lost: the game is over."""
    return bool(lost) and scenario.game_players <= 2


def game_over(scenario: Scenario, conditions: Sequence[LossCondition] | None = None) -> bool:
    """104.3b / 104.2a: two players in the game and one of them has lost: no combat damage is dealt any more."""
    if scenario.game_players > 2:
        return False
    if conditions is None:  # asked by every plan: kept on the board (read again when the list is replaced)
        return remembered(scenario, "game_over", (LOSS_CONDITIONS,), lambda: bool(losers(scenario)))
    return _ends_game(scenario, losers(scenario, conditions))


def leave_game(state: Scenario, losers: Iterable[str]) -> Scenario:
    """800.4a: players who lost leave the game with what they own and control: their planeswalkers and the
    blockers they control; attackers attacking them or their planeswalkers are removed from combat (506.4).

    A battle they protect stays in combat, and so do the attackers attacking it: the protector neither owns nor
    controls it (800.4a does not take it), 506.4 lists no such removal, and 704.5w chooses a new protector only
    for a battle no creature is attacking. It takes the regular step's damage as before."""
    gone = set(losers)
    walkers = tuple(_evolve(p, in_combat=False) if p.controller in gone else p for p in state.planeswalkers)
    theirs = gone | {p.id for p in walkers if p.controller in gone}
    blockers = tuple(
        _evolve(b, in_combat=False) if state.blocker_controller(b.id) in gone else b for b in state.blockers
    )
    attackers = tuple(_evolve(a, in_combat=False) if a.attacking in theirs else a for a in state.attackers)
    if (walkers, blockers, attackers) == (state.planeswalkers, state.blockers, state.attackers):
        return state
    return _evolve(state, planeswalkers=walkers, blockers=blockers, attackers=attackers)


# ---------------------------------------------------------------------------------------------
# The pipeline: one step's outcome; the plain boards' fast path; boards settled before the first step
# ---------------------------------------------------------------------------------------------


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
        return _ends_game(self.scenario, self.losers)

    @property
    def gone(self) -> tuple[str, ...]:
        """Creatures, planeswalkers and battles that were in combat and are not any more (read once per outcome:
        :attr:`destroyed` and :attr:`died` read it again, and so do the pictures; kept beside the fields, never one
        of them, so equality and the JSON are the fields')."""
        held = self.__dict__.get("_gone")
        if held is None or held[0] is not self.state or held[1] is not self.scenario:
            held = self.__dict__["_gone"] = (self.state, self.scenario, self._read_gone())
        return held[2]

    def _read_gone(self) -> tuple[str, ...]:
        s, t = self.scenario, self.state
        was: tuple[Any, ...] = (*s.attackers, *s.blockers, *s.planeswalkers, *s.battles)
        now: tuple[Any, ...] = (*t.attackers, *t.blockers, *t.planeswalkers, *t.battles)
        before = {o.id for o in was if o.in_combat}
        return tuple(o.id for o in now if o.id in before and not o.in_combat)

    def player(self, player_id: str) -> PlayerOutcome:
        return next(p for p in self.players if p.id == player_id)

    @property
    def destroyed(self) -> tuple[str, ...]:
        """What the state-based actions put into the graveyard: creatures that died (704.5f/g/h), planeswalkers at 0
        loyalty (704.5i), battles at 0 defense (704.5v). Not what left the game with a player who lost (800.4a) or
        was removed from combat with them (506.4): those are in :attr:`gone` only."""
        t = self.state
        out = []
        for oid in self.gone:
            obj = t[oid]
            if isinstance(obj, Creature):
                hit = _destroyed(obj, obj.damage_marked, oid in self.deathtouched)
            elif isinstance(obj, Planeswalker):
                hit = obj.loyalty <= 0
            else:
                hit = isinstance(obj, Battle) and obj.defense <= 0
            if hit:
                out.append(oid)
        return tuple(out)

    @property
    def died(self) -> tuple[str, ...]:
        """Creatures that were in combat and died (704.5f/g/h): :attr:`destroyed`'s creatures. A creature that left
        the game with its controller (800.4a), or an attacker removed from combat because what it attacked left
        (506.4), did not die."""
        kinds = (ObjectKind.ATTACKER, ObjectKind.BLOCKER)
        return tuple(oid for oid in self.destroyed if self.state.kind(oid) in kinds)

    def life(self, player: str) -> int:
        return self.state.player(player).life

    def to_json(self) -> dict[str, Any]:
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
    ``loss_conditions``: :data:`DAMAGE_EFFECTS` and :data:`LOSS_CONDITIONS` when None (``effects=()``: damage
    dealt as assigned). The one pipeline: hits, effects, results, state-based actions, losers."""
    if effects is None and loss_conditions is None and not has_effects(scenario):
        return _plain_resolve(scenario, assignment)
    assigned = assigned_hits(scenario, assignment)  # 1
    through = deal(scenario, assigned, effects)  # 2: every damage effect, once
    events = _events(scenario, assigned, through)
    dealt = tuple(h for h in through if h.amount > 0)
    totals, touched = tally_hits(dealt)
    res = _results(scenario, events)  # 3
    state, lost = _after(scenario, res, touched, loss_conditions)  # 3 (made), 4, 5
    players = tuple(_player_outcome(p, res, loss_conditions) for p in state.players)  # leave_game keeps them
    return Outcome(scenario, assigned, dealt, totals, touched, state, lost, events, players, res.gained)


def _plain_resolve(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> Outcome:
    """:func:`resolve` on a plain board (:func:`has_effects` false, the default lists): the same stages and the same
    outcome, each stage on what a plain board allows. No effect acts (stage 2 deals every hit as assigned: every
    assigned hit is positive, so the hits dealt are the hits assigned), each hit's result is fixed by its recipient
    (stage 3: :func:`_plain_results` from the totals, the events' results by :data:`_PLAIN_RESULT`), then the same
    state-based actions and losers (stages 4 and 5). A test holds it equal to the general pipeline."""
    assigned = assigned_hits(scenario, assignment)  # 1; 2: dealt as assigned
    kind = scenario.kind
    events = tuple(
        _event(h.source, h.recipient, h.amount, h.amount, *_PLAIN_RESULT[kind(h.recipient)]) for h in assigned
    )
    totals, touched = tally_hits(assigned)
    res = _plain_results(scenario, totals)  # 3
    state, lost = _after(scenario, res, touched, None)  # 3 (made), 4, 5
    players = tuple(_player_outcome(p, res, None) for p in state.players)
    return Outcome(scenario, assigned, assigned, totals, touched, state, lost, events, players, res.gained)


def _player_outcome(p: Player, res: _Results, conditions: Sequence[LossCondition] | None) -> PlayerOutcome:
    """A listed player after stage 3: life, poison, commander damage, and every way they lost (stage 5)."""
    ways = losses(p, conditions)
    new = _new(PlayerOutcome)  # PlayerOutcome(...) without the frozen class's __init__ (one per player per outcome)
    new.__dict__.update(
        id=p.id,
        life=p.life,
        poison=p.poison,
        commander_damage=dict(p.commander_damage),
        life_lost=res.life_lost.get(p.id, 0),
        life_gained=res.gained.get(p.id, 0),
        loses=tuple(c.name for c in ways) if ways else (),
        rules=tuple(c.rule for c in ways) if ways else (),
    )
    return new


def after_step(scenario: Scenario, assignment: Mapping[str, Mapping[str, int]]) -> Scenario:
    """The state after one combat damage step's damage and the state-based actions, ready for the regular step."""
    return resolve(scenario, assignment).state


def apply_damage(scenario: Scenario, totals: Mapping[str, int], touched: Iterable[str] = ()) -> Scenario:
    """The state after dealing ``totals`` (recipient -> damage dealt; ``touched``: dealt damage by deathtouch) on a
    plain board (:func:`has_effects` false, where damage dealt is damage assigned and each hit's result is fixed by
    its recipient): stage 3 (:func:`_plain_results`), then the same state-based actions as :func:`resolve`. The
    whole combat's counting reads it to build the regular step from an effect key without a whole assignment."""
    return plain_after(scenario, totals, touched)[0]


def plain_after(
    scenario: Scenario, totals: Mapping[str, int], touched: Iterable[str] = ()
) -> tuple[Scenario, tuple[tuple[str, str], ...]]:
    """:func:`apply_damage`'s state and the losers (:func:`state_based_actions`): on a plain board
    (:func:`has_effects` false) the same as :func:`resolve`'s ``state`` and ``losers``, without the hits and events
    (the readers that ask only "who loses?" or "who dies?", once per decision: the arena's lethal verdict, the
    greedy players)."""
    dt = touched if isinstance(touched, Collection) else set(touched)
    return _after(scenario, _plain_results(scenario, totals), dt, None)


def settle(scenario: Scenario) -> Scenario:
    """The board after the state-based actions that are pending on it (704.3, :func:`state_based_actions` with
    nothing dealt): a creature in combat with toughness 0 or less (704.5f) or, not indestructible, with lethal
    damage marked (704.5g) is gone (out of combat); so is a planeswalker at 0 loyalty (704.5i) and a battle at 0
    defense (704.5v); in a game of more than two players a player who has lost leaves it (800.4a). The same board
    when nothing is pending.

    Every combat object settles the board it is given, so one damage step and the whole combat read the same
    board (a blocker that arrived dead is neither blocking nor a kill)."""
    return remembered(scenario, "settled", (LOSS_CONDITIONS,), lambda: _settled(scenario))


def _settled(scenario: Scenario) -> Scenario:
    """:func:`settle`'s board; with two players, whether the game is over on it is known too (the losers were just
    read on that board), and kept for :func:`game_over`."""
    state, lost = state_based_actions(scenario)
    if state.game_players <= 2:  # then the losers were read on ``state`` itself (no one left the game)
        _keep(state, "game_over", (LOSS_CONDITIONS,), bool(lost))
    return state


def remembered(scenario: Scenario, name: str, lists: tuple[Any, ...], compute: Callable[[], _T]) -> _T:
    """``compute()``, a fact of this (frozen) scenario that the readers ask many times per decision (its settled
    board, whether it has effects, whether a division moved), kept on the scenario object with ``lists`` (the
    lists of rules the fact reads: :data:`LOSS_CONDITIONS`, :data:`DAMAGE_EFFECTS`, ``rules.DIVISION_RULES``)
    and computed again when one of those lists is not what it was (a list replaced by other rules, as the
    conformance tests do; the same rule objects in the same order, compared by identity, are the same list): still
    read from the lists, once per board rather than once per question."""
    memo = scenario.__dict__.get("_remembered")
    if memo is None:
        memo = {}
        object.__setattr__(scenario, "_remembered", memo)  # frozen: the fields never change, so neither does it
    held = memo.get(name)
    if held is not None and held[0] == lists:  # every list the same (one comparison: asked for every creature of
        # every plan; equal tuples of the same rule objects, the objects compared by identity, read the same)
        # (kept and value are Any: no typing.cast, a call each, on a path taken several times per board)
        kept: Any = held[1]
        how = held[2]
        if how is _PLAIN:
            return kept  # type: ignore[no-any-return]
        value: Any = scenario if how is _SELF else kept()
        if value is not None:  # else held weakly and nobody holds it any more: made again
            return value  # type: ignore[no-any-return]
    made = compute()
    memo[name] = (lists, *_held(scenario, made))
    return made


# how a fact is kept on its board (:func:`_held`)
_PLAIN, _SELF, _WEAK = "plain", "self", "weak"
_FLAT = frozenset({bool, int, frozenset, tuple, str})  # facts that hold no board: kept as they are, no lookup

#: the facts held weakly that were made last, held strongly here too (a reader that asks for a board's plan once
#: per decision without keeping it -- the arena's players and judge -- finds it made): freed, with their boards,
#: once this many newer ones were made
RECENT_FACTS = 8
_recent: deque[Any] = deque(maxlen=RECENT_FACTS)


def _held(scenario: Scenario, value: Any) -> tuple[Any, str]:
    """How a fact is kept on its scenario without a reference cycle: the scenario itself as a marker, an object that
    holds the scenario (a plan, a combat object) by a weak reference (whoever reads it keeps it: a combat object
    holds its plan, a step the other side's step), anything else as it is. A board and what was made of it are then
    freed as soon as the last reader lets go (and :data:`RECENT_FACTS` newer facts were made), not left to the cyclic
    garbage collector (whose passes cost a tenth of the time of counting small boards)."""
    if value is scenario:
        return None, _SELF
    if value.__class__ in _FLAT:
        return value, _PLAIN
    if getattr(value, "scenario", None) is scenario:
        _recent.append(value)
        return weakref.ref(value), _WEAK
    return value, _PLAIN


def _keep(scenario: Scenario, name: str, lists: tuple[Any, ...], value: Any) -> None:
    """Keep a fact of ``scenario`` known already, as :func:`remembered` would compute it."""
    memo = scenario.__dict__.get("_remembered")
    if memo is None:
        memo = {}
        object.__setattr__(scenario, "_remembered", memo)
    memo[name] = (lists, *_held(scenario, value))


def has_effects(scenario: Scenario) -> bool:
    """Do the plain boards' fast paths not hold on this board: does a :class:`DamageEffect` of
    :data:`DAMAGE_EFFECTS` act on it (damage dealt may differ from damage assigned), does its damage have results
    beyond marked damage, loyalty, defense and life (lifelink, infect, wither, toxic, commander damage), or can a
    :class:`LossCondition` beyond 704.5a make a player lose? Then every reader reads :func:`resolve`."""
    return remembered(scenario, "has_effects", (DAMAGE_EFFECTS, LOSS_CONDITIONS), lambda: _has_effects(scenario))


def _has_effects(scenario: Scenario) -> bool:
    if any(e.acts_on(scenario) for e in DAMAGE_EFFECTS):
        return True
    for c in (*scenario.attackers, *scenario.blockers):
        if c.toxic or c.has(Keyword.LIFELINK) or c.has(Keyword.INFECT) or c.has(Keyword.WITHER):
            return True
    if any(a.commander is not None for a in scenario.attackers):
        return True
    return any(c.acts_on(scenario) for c in LOSS_CONDITIONS)


def lethal_report(scenario: Scenario, damage: Mapping[str, int], best: Mapping[str, int]) -> dict[str, Any]:
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


def effect_key(dealt: Mapping[str, int], touched: Collection[str], caps: Mapping[str, int]) -> EffectKey:
    """The effect of a first-step outcome on the regular step (``caps``: :func:`regular_step_caps`): sorted
    ``(recipient, damage capped, deathtouch)`` for everything whose regular-step role could change."""
    out = []
    for r, n in dealt.items():
        n = min(n, caps.get(r, 0))  # past its cap, more damage changes nothing
        if n > 0:
            out.append((r, n, r in touched))
    return tuple(sorted(out))


def merge_effect_keys(k1: EffectKey, k2: EffectKey, caps: Mapping[str, int]) -> EffectKey:
    """The effect key of two independent components' outcomes together."""
    if not k1:
        return k2
    if not k2:
        return k1
    merged: dict[str, tuple[int, bool]] = {r: (n, dt) for r, n, dt in k1}
    for r, n, dt in k2:
        if r in merged:
            m, mdt = merged[r]
            merged[r] = (min(caps[r], m + n), mdt or dt)
        else:
            merged[r] = (n, dt)
    return tuple(sorted((r, n, dt) for r, (n, dt) in merged.items()))


def canonical_state(state: Scenario) -> Scenario:
    """The state with everything the regular step's legal set does not read set to a fixed value: players'
    life, poison and commander damage beyond what decides whether they have lost, battles' defense beyond 1,
    creatures' marked damage beyond their toughness (attackers' marked damage is read by the legacy blocker's
    damage assignment order). Two states with equal canonical forms have exactly the same legal regular-step
    assignments."""
    return _evolve(
        state,
        players=tuple(_canonical_player(p) for p in state.players),
        attackers=tuple(_evolve(a, damage_marked=min(a.damage_marked, max(a.toughness, 0))) for a in state.attackers),
        # marked damage past toughness changes nothing: the blocker has lethal damage either way (702.19b)
        blockers=tuple(_evolve(b, damage_marked=min(b.damage_marked, max(b.toughness, 0))) for b in state.blockers),
        battles=tuple(_evolve(b, defense=min(b.defense, 1)) for b in state.battles),
    )


def _canonical_player(p: Player) -> Player:
    """The player with life, poison and commander damage set to fixed values (1 or 0 life, at most 10 poison, at
    most 21 from a commander) when those keep every way in which they have, or have not, lost
    (:data:`LOSS_CONDITIONS`: all the regular step reads of a player); the player as is when a way to lose reads
    more (a made-up "exactly 7 life", say)."""
    fixed = _evolve(
        p,
        life=1 if p.life > 0 else 0,
        poison=min(p.poison, 10),
        commander_damage=tuple((c, min(n, 21)) for c, n in p.commander_damage),
    )
    return fixed if losses(fixed) == losses(p) else p


# ---------------------------------------------------------------------------------------------
# Events and the players' outcomes (docs/effects.md)
# ---------------------------------------------------------------------------------------------

#: the player who controls the attackers (not listed in a scenario)
ATTACKING_PLAYER = "attacking player"


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
    loses: tuple[str, ...]  # the names of the ways they lost ("life", "poison", "commander"; LOSS_CONDITIONS)
    rules: tuple[str, ...] = ()  # the rule of each (704.5a, 704.5c, 704.6c)

    def to_json(self) -> dict[str, Any]:
        return {
            "life": self.life,
            "poison": self.poison,
            "commander_damage": dict(self.commander_damage),
            "loses": bool(self.loses),
            "because": [f"{why} ({rule})" for why, rule in zip(self.loses, self.rules)],
        }


_new = object.__new__


def _event(source: str, recipient: str, assigned: int, dealt: int, result: str, rule: str, shielded: int = 0) -> Event:
    """``Event(...)`` without the frozen class's ``__init__`` (an attribute at a time through
    ``object.__setattr__``): the same object, made once per event of every outcome."""
    new = _new(Event)
    d = new.__dict__
    d["source"], d["recipient"], d["assigned"], d["dealt"] = source, recipient, assigned, dealt
    d["result"], d["rule"], d["shielded"] = result, rule, shielded
    return new


class _NoSource:
    """A source that is not a creature of the scenario (tests and callers may deal such damage): no keywords,
    tags or modifiers."""

    tags: tuple[str, ...] = ()
    deals: tuple[tuple[str, int], ...] = ()
    toxic = 0
    deathtouch = False
    commander = None

    def __init__(self, source_id: str):
        self.id = source_id

    def has(self, keyword: str) -> bool:
        return False


def _source(scenario: Scenario, source_id: str) -> Creature | _NoSource:
    obj = scenario.get(source_id)
    return obj if isinstance(obj, Creature) else _NoSource(source_id)


def _modify(amount: int, mods: Iterable[tuple[str, int]], order: str) -> int:
    """614.1a: ``times`` and ``plus`` in the affected player's order (616.1); 0 stays 0 (120.8)."""
    if amount <= 0:
        return 0
    times = [n for kind, n in mods if kind == Modifier.TIMES]
    plus = [n for kind, n in mods if kind == Modifier.PLUS]
    if order == DamageOrder.MOST:
        amount += sum(plus)
        for n in times:
            amount *= n
        return amount
    for n in times:
        amount *= n
    return amount + sum(plus)


def _result(kind: ObjectKind, infect: bool, wither: bool) -> tuple[str, str]:
    """120.3: the result and rule of damage to an object of ``kind`` from a source with (or without) infect or
    wither."""
    if kind is ObjectKind.PLAYER:
        return ("poison", "702.90b") if infect else ("life", "120.3a")
    if kind is ObjectKind.PLANESWALKER:
        return "loyalty", "120.3c"
    if kind is ObjectKind.BATTLE:
        return "defense", "120.3h"
    if infect or wither:
        return "counters", "702.90c" if infect else "702.80b"
    return "marked", "120.3e"


#: 120.3 on a plain board (:func:`has_effects` false): a hit's result and rule by its recipient's kind alone (no
#: infect or wither source there)
_PLAIN_RESULT: dict[ObjectKind, tuple[str, str]] = {k: _result(k, False, False) for k in ObjectKind}


class _SourceFacts:
    """What the outcome reads of one source of damage on a board (:func:`_source_facts`): the result of its damage
    by the recipient's kind (:func:`_result`), its toxic (702.164c), whether it is a commander (903.10a), and who
    gains life from its damage (702.15b lifelink: its controller; None without lifelink)."""

    def __init__(self, results: Mapping[ObjectKind, tuple[str, str]], toxic: int, commander: bool, gains: str | None):
        self.results, self.toxic, self.commander, self.gains = results, toxic, commander, gains


#: a source that is not a creature of the scenario (:class:`_NoSource`): no keywords
_NO_FACTS = _SourceFacts(_PLAIN_RESULT, 0, False, None)


def _source_facts(scenario: Scenario) -> dict[str, _SourceFacts]:
    """Each creature's :class:`_SourceFacts`, read once per board (kept on it: every outcome of the board reads
    them, once per event)."""
    return remembered(scenario, "source facts", (), lambda: _read_source_facts(scenario))


def _read_source_facts(s: Scenario) -> dict[str, _SourceFacts]:
    out = {}
    for c in (*s.attackers, *s.blockers):
        infect, wither = c.has(Keyword.INFECT), c.has(Keyword.WITHER)
        results = _PLAIN_RESULT if not (infect or wither) else {k: _result(k, infect, wither) for k in ObjectKind}
        gains = None
        if c.has(Keyword.LIFELINK):
            gains = ATTACKING_PLAYER if isinstance(c, Attacker) else (s.blocker_controller(c.id) or "")
        commander = isinstance(c, Attacker) and c.commander is not None
        out[c.id] = _SourceFacts(results, c.toxic, commander, gains)
    return out
