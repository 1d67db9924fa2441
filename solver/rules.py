"""The rules, once.

Everything trample knows about *who may assign combat damage to whom, and under which conditions* is derived
here, from a :class:`trample.models.Scenario`, into a :class:`DamagePlan`. Every engine (CP-SAT, the direct
counters and generators, the checker, the optimiser) reads the plan; none of them re-derives a rule.

A plan lists the sources that deal damage in the step. Each source must assign exactly ``damage`` points
(510.1a) over its ``routes``. A route may carry a :class:`Gate`: the recipient may receive a positive amount
only if every blocker in ``gate.lethal`` has been assigned lethal damage and every planeswalker in
``gate.loyalty`` has been assigned at least its loyalty, counting every source's assignment in the step
(510.1e, 702.19b, 702.19c). What counts as lethal damage (702.19b, 702.2c) and as a planeswalker's loyalty
reached is :mod:`trample.outcome`'s (``lethal_need[b] == 0``: already lethal).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from math import comb
from typing import Any

from . import outcome
from .models import (
    Assignment,
    Attacker,
    Blocker,
    Chooser,
    Creature,
    GameObject,
    Keyword,
    ObjectKind,
    Player,
    RulesSet,
    Scenario,
    Side,
    Step,
)
from .outcome import game_over, has_lethal, lethal_need, losers, losses, reaches, remembered, settle

SIDES = (Side.ATTACKING, Side.DEFENDING, Side.BOTH)
#: The two players of a combat damage step: the active (attacking) player and the defending player.
PLAYERS = (Chooser.ACTIVE_PLAYER, Chooser.DEFENDING_PLAYER)

LEGACY_ORDER_RULE = "510.1c (2024-09)"
_BANDING = Keyword.BANDING
LEGACY_BLOCKER_ORDER_RULE = "510.1d (2024-09)"


def linked_groups(items: Iterable[int], keys: Callable[[int], Iterable[Hashable]]) -> list[list[int]]:
    """``items`` in groups, two items together when they share a key (transitively): the groups in the order of
    their smallest item, each in increasing order."""
    parent: dict[int, int] = {}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[Hashable, int] = {}
    for i in items:
        parent[i] = i
        for k in keys(i):
            if k in owner:
                a, b = find(owner[k]), find(i)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                owner[k] = i
    groups: dict[int, list[int]] = {}
    for i in sorted(parent):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values())


@dataclass(frozen=True)
class Gate:
    """Conditions for a route to receive a positive amount, and the rule that imposes them."""

    lethal: tuple[str, ...] = ()
    loyalty: tuple[str, ...] = ()
    rule: str = ""


@dataclass(frozen=True, init=False)
class Route:
    recipient: str
    kind: str  # "blocker", "player", "planeswalker", "battle" or "attacker"
    gate: Gate | None = None
    rule: str = ""  # the rule that lets the damage go here

    def __init__(self, recipient: str, kind: str, gate: Gate | None = None, rule: str = "") -> None:
        # the frozen class's __init__ sets one attribute at a time through object.__setattr__; every plan makes
        # a route per column
        self.__dict__.update(recipient=recipient, kind=kind, gate=gate, rule=rule)


@dataclass(frozen=True)
class Unblocked:
    """The second way of an attacker that "may assign its combat damage as though it weren't blocked": it assigns
    ``damage`` over ``routes`` (with their own gates) as an unblocked attacker would, and nothing to its blockers."""

    damage: int
    routes: tuple[Route, ...]
    rule: str = "510.1c"
    reason: str = ""

    def route(self, recipient: str) -> Route | None:
        for r in self.routes:
            if r.recipient == recipient:
                return r
        return None


@dataclass(frozen=True, init=False)
class SourcePlan:
    source: str
    side: str  # "attacking" or "defending"
    damage: int  # exactly this much is assigned in the step; 0 = assigns nothing
    routes: tuple[Route, ...]
    deathtouch: bool = False
    rule: str = ""  # why it assigns what it assigns (the rule that applies)
    reason: str = ""  # one sentence, for explanations and for check's messages
    #: "as though it weren't blocked": a second, alternative way to assign (legal if either way is). None: one way.
    unblocked: Unblocked | None = None
    #: the player who divides this source's damage (:func:`divider`): "attacking" (the active player) or
    #: "defending"; its controller unless a rule moves the choice (banding, 702.22j/k)
    chooser: str = ""
    chooser_rule: str = ""  # the rule that moves the choice ("" = its controller's choice, 510.1c/d)

    def __init__(
        self,
        source: str,
        side: str,
        damage: int,
        routes: tuple[Route, ...],
        deathtouch: bool = False,
        rule: str = "",
        reason: str = "",
        unblocked: Unblocked | None = None,
        chooser: str = "",
        chooser_rule: str = "",
    ) -> None:
        # the frozen class's __init__ sets one attribute at a time (every plan makes one per creature); the
        # chooser is the side's player unless given
        self.__dict__.update(
            source=source,
            side=side,
            damage=damage,
            routes=routes,
            deathtouch=deathtouch,
            rule=rule,
            reason=reason,
            unblocked=unblocked,
            chooser=chooser or side,
            chooser_rule=chooser_rule,
        )

    @property
    def splits(self) -> int:
        """The ways to split its damage over its routes, legal or not (510.1a: ordered sums of ``damage`` in
        ``len(routes)`` parts, :math:`\\binom{d + r - 1}{r - 1}`); 1 without a route (nothing to divide)."""
        r = len(self.routes)
        return comb(self.damage + r - 1, r - 1) if r else 1

    @property
    def moved(self) -> bool:
        """Does the other player divide this source's damage (not its controller)?"""
        return self.chooser != self.side

    def route(self, recipient: str) -> Route | None:
        for r in self.routes:
            if r.recipient == recipient:
                return r
        return None

    @property
    def all_routes(self) -> tuple[Route, ...]:
        """Its columns: the routes of its normal way, then the recipients only its unblocked way uses."""
        if self.unblocked is None:
            return self.routes
        mine = {r.recipient for r in self.routes}
        return self.routes + tuple(r for r in self.unblocked.routes if r.recipient not in mine)

    @property
    def assigns(self) -> bool:
        """Does it have damage to assign (in one of its ways)?"""
        return self.damage > 0 or (self.unblocked is not None and self.unblocked.damage > 0)

    @property
    def max_damage(self) -> int:
        return max(self.damage, self.unblocked.damage if self.unblocked is not None else 0)


class PlanCache:
    """Work the engines keep with a plan (the direct engine's counting programmes), per engine name: an explicit,
    mutable holder, never part of the plan's value (equality, hash, repr), so the plan itself stays frozen."""

    __slots__ = ("_by_engine",)

    def __init__(self) -> None:
        self._by_engine: dict[str, dict[Hashable, Any]] = {}

    def of(self, engine: str) -> dict[Hashable, Any]:
        """The cache of one engine (a dict it owns), created empty on first use."""
        return self._by_engine.setdefault(engine, {})


@dataclass(frozen=True)
class DamagePlan:
    scenario: Scenario
    side: str
    step: str
    sources: tuple[SourcePlan, ...]
    lethal_need: Mapping[str, int]  # every blocker named by a gate -> damage still needed (0 = already lethal)
    loyalty_need: Mapping[str, int]  # every planeswalker named by a gate -> its loyalty
    index: Mapping[str, int] = field(default=None, compare=False, repr=False)  # type: ignore[arg-type]  # built in __post_init__
    cache: PlanCache = field(default_factory=PlanCache, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {s.source: i for i, s in enumerate(self.sources)})

    def source(self, source_id: str) -> SourcePlan | None:
        i = self.index.get(source_id)
        return None if i is None else self.sources[i]

    @cached_property
    def active(self) -> tuple[int, ...]:
        """Indices of the sources that have a choice to make or damage to assign."""
        return tuple(i for i, s in enumerate(self.sources) if s.assigns)

    def chosen_by(self, player: str) -> tuple[int, ...]:
        """Indices of the active sources whose damage ``player`` ("attacking" or "defending") divides."""
        return tuple(i for i in self.active if self.sources[i].chooser == player)

    @cached_property
    def moved(self) -> bool:
        """Does the other player divide some active source's damage (banding)? Then a solve of one side is a
        game: each player divides the damage the rules give them (:func:`divider`)."""
        return any(self.sources[i].moved for i in self.active)

    @cached_property
    def deathtouch_sources(self) -> frozenset[str]:
        return frozenset(s.source for s in self.sources if s.deathtouch and s.assigns)

    @cached_property
    def has_options(self) -> bool:
        """Does any source have two ways to assign ("as though it weren't blocked")? Counting programmes that read
        ``routes`` alone must not be used then (engines handle it; see :func:`variants`)."""
        return any(s.unblocked is not None for s in self.sources)

    def options_in(self, component: Sequence[int]) -> tuple[int, ...]:
        return tuple(i for i in component if self.sources[i].unblocked is not None)

    @cached_property
    def components(self) -> tuple[tuple[int, ...], ...]:
        """Groups of active sources whose choices constrain each other (a shared gated blocker or planeswalker).

        The legal set is the product of the components' legal sets (the count is the product of counts).
        """
        return tuple(tuple(g) for g in linked_groups(self.active, self.resources))

    def variants(self, component: Sequence[int]) -> list[tuple[int, DamagePlan]]:
        """Plans without options whose signed counts add up to the component's count (inclusion-exclusion).

        A source that may assign as though it weren't blocked has the legal ways N (as it is) and A (unblocked);
        when both assign the same amount, N and A share exactly N's assignments that give its blockers nothing
        (A's routes are N's non-blocker routes with weaker gates), so ``|N or A| = |N| + |A| - |N without its
        blocker routes|``; when one way assigns nothing they share nothing. Each returned plan has the same
        sources and columns order as this one (a way's unused routes are left out), and ``sign`` is +1 or -1."""
        out: list[tuple[int, DamagePlan]] = [(1, self)]
        for i in self.options_in(component):
            src = self.sources[i]
            alt = src.unblocked
            assert alt is not None  # options_in lists only sources with the option
            ways = [
                (1, replace(src, unblocked=None)),
                (1, replace(src, damage=alt.damage, routes=alt.routes, unblocked=None)),
            ]
            if src.damage == alt.damage and src.damage > 0:
                names = {r.recipient for r in alt.routes}
                shared = tuple(r for r in src.routes if r.recipient in names)
                if shared:
                    ways.append((-1, replace(src, routes=shared, unblocked=None)))
            nxt = []
            for sign, plan in out:
                for w_sign, way in ways:
                    sources = plan.sources[:i] + (way,) + plan.sources[i + 1 :]
                    nxt.append((sign * w_sign, replace(plan, sources=sources)))
            out = nxt
        return out

    def resources(self, i: int) -> set[str]:
        """Gated blockers and planeswalkers that source ``i`` touches (assigns to, or depends on)."""
        s = self.sources[i]
        out = set()
        for r in s.routes + (s.unblocked.routes if s.unblocked is not None else ()):
            if r.recipient in self.lethal_need or r.recipient in self.loyalty_need:
                out.add(r.recipient)
            if r.gate is not None:
                out.update(r.gate.lethal)
                out.update(r.gate.loyalty)
        return out

    @cached_property
    def columns(self) -> tuple[tuple[int, str], ...]:
        """(source index, recipient) for every route of every active source, in plan order."""
        return tuple((i, r.recipient) for i in self.active for r in self.sources[i].all_routes)

    def component_columns(self, component: Sequence[int]) -> tuple[tuple[int, str], ...]:
        return tuple((i, r.recipient) for i in component for r in self.sources[i].all_routes)

    # -- assignments <-> vectors (the one conversion) --------------------------------------------
    @cached_property
    def source_names(self) -> tuple[str, ...]:
        return tuple(s.source for s in self.sources)

    def vector(self, assignment: Assignment, columns: Sequence[tuple[int, str]] | None = None) -> tuple[int, ...]:
        """The amounts of ``assignment`` over ``columns`` ((source index, recipient); default: ``self.columns``)."""
        names = self.source_names
        return tuple(assignment.amount(names[i], r) for i, r in (self.columns if columns is None else columns))

    def assignment(self, parts: Iterable[tuple[Sequence[tuple[int, str]], Sequence[int]]]) -> Assignment:
        """The :class:`~trample.models.Assignment` of vectors over columns: ``parts`` holds ``(columns, vector)``
        pairs (one per component, or ``(self.columns, vector)``); every source of the plan is a key."""
        names = self.source_names
        out: dict[str, dict[str, int]] = {name: {} for name in names}
        for cols, vec in parts:
            for (i, r), amount in zip(cols, vec):
                if amount:
                    out[names[i]][r] = amount
        return Assignment(out)

    # -- judging a (partial) assignment ---------------------------------------------------------
    def is_lethal(self, blocker: str, totals: Mapping[str, int], deathtouched: Iterable[str]) -> bool:
        """702.19b / 702.2c: has this blocker been assigned lethal damage?"""
        return has_lethal(self.lethal_need[blocker], totals.get(blocker, 0), blocker in deathtouched)

    def need_of(self, blocker: str) -> int:
        """Damage still needed for lethal, for any blocker (gated or not)."""
        need = self.lethal_need.get(blocker)
        return lethal_need(self.scenario.creature(blocker)) if need is None else need

    def loyalty_met(self, planeswalker: str, totals: Mapping[str, int]) -> bool:
        """702.19c: has this planeswalker been assigned damage at least equal to its loyalty?"""
        return reaches(totals.get(planeswalker, 0), self.loyalty_need[planeswalker])

    def gate_failures(self, gate: Gate, totals: Mapping[str, int], deathtouched: Collection[str]) -> list[str]:
        """The blockers and planeswalkers of a gate whose condition does not hold."""
        bad = [b for b in gate.lethal if not self.is_lethal(b, totals, deathtouched)]
        bad += [p for p in gate.loyalty if not self.loyalty_met(p, totals)]
        return bad


def derive(scenario: Scenario, side: str = Side.ATTACKING, step: str | None = None) -> DamagePlan:
    """The single place where the rules are turned into routes and gates. A plan is a fact of its (frozen) board,
    side and step: kept on the board (:func:`~trample.outcome.remembered`, with the lists of rules it reads, so a
    list replaced makes another plan), every combat object and reader of the same board object reads the one plan
    (the solver's, the check's, the other side's replies in an outcome)."""
    if side not in SIDES:
        raise ValueError(f"side: expected one of {', '.join(SIDES)}, got {side!r}")
    step = step or scenario.step
    if step not in (Step.REGULAR, Step.FIRST_STRIKE):
        raise ValueError(f'a damage plan is for one step ("regular" or "first_strike"), not {step!r}')
    return remembered(scenario, f"plan {side} {step}", plan_lists(), lambda: _derive(scenario, side, step))


def plan_lists() -> tuple[object, ...]:
    """The lists of rules a plan reads besides its board (read now: a list replaced, as the conformance tests do,
    makes another plan): the division rules, the ways to lose, the damage effects."""
    return (DIVISION_RULES, outcome.LOSS_CONDITIONS, outcome.DAMAGE_EFFECTS)


def _derive(scenario: Scenario, side: str, step: str) -> DamagePlan:
    """:func:`derive`'s plan, made (on the settled board)."""
    scenario = settle(scenario)  # the state-based actions pending on the board (docs/effects.md)
    sources: list[SourcePlan] = []
    moved = _division_moved_settled(scenario)
    if game_over(scenario):  # 104.3b: two players and one has lost (outcome.LOSS_CONDITIONS): no combat damage
        loser = losers(scenario)[0][0]
        rules = ", ".join(c.rule for c in losses(scenario.player(loser)))
        why = f"{loser} has lost the game ({rules}): no combat damage is dealt"
        if side in (Side.ATTACKING, Side.BOTH):
            sources += [_silent(a.id, Side.ATTACKING, "104.3b", why) for a in scenario.attackers]
        if side in (Side.DEFENDING, Side.BOTH):
            sources += [_silent(b.id, Side.DEFENDING, "104.3b", why) for b in scenario.blockers]
    else:
        if side in (Side.ATTACKING, Side.BOTH):
            sources += [_attacker_plan(scenario, a, step, moved) for a in scenario.attackers]
        if side in (Side.DEFENDING, Side.BOTH):
            sources += [_blocker_plan(scenario, b, step, moved) for b in scenario.blockers]
    if moved:  # who divides each source's damage (702.22j/k); else each its controller
        sources = [_divided(scenario, s) for s in sources]
    lethal: dict[str, int] = {}
    loyalty: dict[str, int] = {}
    for s in sources:
        for r in s.routes + (s.unblocked.routes if s.unblocked is not None else ()):
            if r.gate is None:
                continue
            for b in r.gate.lethal:
                lethal[b] = lethal_need(scenario.creature(b))
            for p in r.gate.loyalty:
                loyalty[p] = scenario.planeswalker(p).loyalty
    return DamagePlan(
        scenario=scenario, side=side, step=step, sources=tuple(sources), lethal_need=lethal, loyalty_need=loyalty
    )


def _legal_token(scenario: Scenario, side: str) -> tuple[object, ...]:
    """What a plan of ``side`` on ``scenario`` reads besides the board: the lists of rules (a list replaced, as the
    conformance tests do, makes another plan)."""
    return (scenario, side, *plan_lists())


def mark_legal(assignment: Assignment, scenario: Scenario, side: str) -> None:
    """Record on ``assignment`` that it is legal for ``side`` on the (settled) ``scenario``: the solver's answer,
    taken from the legal set of :func:`derive`'s plan. A reader that would check it again (the pictures) asks
    :func:`known_legal` instead; an assignment read from input is never marked and is checked."""
    object.__setattr__(assignment, "_legal_on", _legal_token(scenario, side))


def known_legal(assignment: object, scenario: Scenario, side: str) -> bool:
    """Was ``assignment`` marked legal (:func:`mark_legal`) for this very board object, side and lists of rules?"""
    held = getattr(assignment, "_legal_on", None) if isinstance(assignment, Assignment) else None
    if held is None:
        return False
    now = _legal_token(scenario, side)
    return held[0] is scenario and held[1] == side and all(a is b for a, b in zip(held[2:], now[2:]))


def _silent(source: str, side: str, rule: str, reason: str, deathtouch: bool = False) -> SourcePlan:
    return SourcePlan(source=source, side=side, damage=0, routes=(), deathtouch=deathtouch, rule=rule, reason=reason)


def _step_rule(step: str) -> str:
    return "702.7b" if step == Step.FIRST_STRIKE else "702.7c"


def _no_damage_reason(c: Creature) -> str:
    if c.assigns_toughness:
        return f"{c.id} assigns combat damage equal to its toughness, {c.toughness}, and assigns none"
    return f"{c.id} has power {c.power} and assigns no combat damage"


def _banding(s: Scenario) -> frozenset[str]:
    """The creatures of the board with banding (kept on the board: asked for every creature of every plan)."""
    creatures = (*s.attackers, *s.blockers)
    # (a creature with no keyword is not asked: most of them, on most boards)
    return remembered(s, "banding", (), lambda: frozenset(c.id for c in creatures if c.keywords and c.has(_BANDING)))


def _blocked_by_banding(s: Scenario, c: Attacker | Blocker) -> str | None:
    """702.22j: an attacking creature blocked by a creature with banding: the defending player divides its damage."""
    banding = _banding(s)
    if not banding or not isinstance(c, Attacker):
        return None
    if not banding.isdisjoint(b for b in c.blocked_by if s.blocker(b).in_combat):
        return Chooser.DEFENDING_PLAYER
    return None


def _blocking_banding(s: Scenario, c: Attacker | Blocker) -> str | None:
    """702.22k: a creature blocking a creature with banding: the active (attacking) player divides its damage."""
    banding = _banding(s)
    if (
        banding
        and s.kind(c.id) is ObjectKind.BLOCKER
        and not banding.isdisjoint(a.id for a in s.attackers if c.id in a.blocked_by and a.in_combat)
    ):
        return Chooser.ACTIVE_PLAYER
    return None


def _has_banding(s: Scenario) -> bool:
    return bool(_banding(s))  # the creatures with banding, read once a board


#: The rules that move the division of a source's combat damage away from its controller (510.1c/d), in order:
#: each is (rule, acts_on, moved_to): ``acts_on(scenario)`` says whether the rule can move any creature's division
#: on the board (a board none acts on asks no creature), ``moved_to(scenario, creature)`` names the player who
#: divides instead, or None. The next such rule is one more entry; every reader asks :func:`divider`.
DIVISION_RULES: tuple[
    tuple[str, Callable[[Scenario], bool], Callable[[Scenario, Attacker | Blocker], str | None]], ...
] = (
    ("702.22j", _has_banding, _blocked_by_banding),
    ("702.22k", _has_banding, _blocking_banding),
)


def divider(scenario: Scenario, creature: str) -> tuple[str, str]:
    """Who divides ``creature``'s combat damage in a step, and by which rule: ``("attacking", rule)`` for the
    active player, ``("defending", rule)`` for the defending player. By default the creature's controller
    (510.1c: the active player for an attacker, 510.1d: the defending player for a blocker); banding moves
    the choice to the other player (702.22j: an attacker blocked by a creature with banding; 702.22k: a blocker
    blocking a creature with banding). The one notion read by the plan (``SourcePlan.chooser``), and through it
    by ``check``, ``solve``, the whole combat, the lethal report, the arena and the games. Read on the board with
    its pending state-based actions done (:func:`trample.outcome.settle`)."""
    return _divider(settle(scenario), creature)


def _divider(scenario: Scenario, creature: str) -> tuple[str, str]:
    """:func:`divider` on a settled board."""
    c = scenario[creature]
    assert isinstance(c, (Attacker, Blocker)), creature  # a source of combat damage is a creature
    for rule, _, moved_to in DIVISION_RULES:
        player = moved_to(scenario, c)
        if player is not None:
            return player, rule
    return (
        (Chooser.ACTIVE_PLAYER, "510.1c")
        if scenario.kind(creature) is ObjectKind.ATTACKER
        else (Chooser.DEFENDING_PLAYER, "510.1d")
    )


def division_moved(scenario: Scenario) -> bool:
    """Does a rule give some creature's damage to the other player to divide (:func:`divider`; banding)? Then a
    step is a game in which each player divides what the rules give them, not one side's choice."""
    return _division_moved_settled(settle(scenario))


def _division_moved_settled(scenario: Scenario) -> bool:
    """:func:`division_moved` of a settled board (kept on it: a board with nothing pending is its own settled
    board, so the fact is on the board the readers hold)."""
    lists = (DIVISION_RULES, outcome.LOSS_CONDITIONS)  # read now: a list replaced is seen
    return remembered(scenario, "division_moved", lists, lambda: _moved(scenario))


def _moved(scenario: Scenario) -> bool:
    """:func:`division_moved` on a settled board."""
    if not any(acts_on(scenario) for acts_on in {acts_on: None for _, acts_on, _ in DIVISION_RULES}):
        return False  # no rule can move a division here (the usual board): no creature to ask (each test once)
    return any(_divider(scenario, a.id)[0] != Chooser.ACTIVE_PLAYER for a in scenario.attackers) or any(
        _divider(scenario, b.id)[0] != Chooser.DEFENDING_PLAYER for b in scenario.blockers
    )


def _divided(scenario: Scenario, plan: SourcePlan) -> SourcePlan:
    """The plan of a source with its chooser (:func:`divider`) filled in."""
    player, rule = _divider(scenario, plan.source)
    if player == plan.side == plan.chooser and not plan.chooser_rule:
        return plan  # its controller divides it (510.1c/d), as the plan already says: no copy
    return replace(plan, chooser=player, chooser_rule=rule if player != plan.side else "")


def _attacker_plan(s: Scenario, a: Attacker, step: str, moved: bool = True) -> SourcePlan:
    """``moved``: may a rule move some division on this board (:func:`division_moved`)? If not, no creature's."""
    side = Side.ATTACKING
    if not a.in_combat:
        return _silent(a.id, side, "506.4", f"{a.id} has been removed from combat and deals no combat damage")
    if not a.deals_damage_in(step):
        if step == Step.FIRST_STRIKE:
            why = f"{a.id} has neither first strike nor double strike, so it deals no damage in the first-strike step"
        else:
            why = f"{a.id} has first strike without double strike, so it deals no damage in the regular step"
        return _silent(a.id, side, _step_rule(step), why)
    amount = a.combat_damage  # 510.1a: its power, or its toughness
    if amount <= 0:
        return _silent(a.id, side, "510.1a", _no_damage_reason(a))

    target = s[a.attacking]
    tkind = s.kind(target.id)
    target_in = isinstance(target, Player) or target.in_combat
    top_pw = a.has(Keyword.TRAMPLE_OVER_PLANESWALKERS) and tkind is ObjectKind.PLANESWALKER
    controller = s.controller_of(target.id)
    current = tuple(b for b in a.blocked_by if s.blocker(b).in_combat)
    # 702.22j: the defending player divides, ignoring the order
    banded = moved and _divider(s, a.id)[0] != Chooser.ACTIVE_PLAYER

    def over_the_top(lethal: tuple[str, ...], blocked: bool) -> list[Route]:
        """Routes to the attacked object (and, with 702.19c/e, to its controller) once blockers have lethal."""
        out = []
        if target_in:
            if lethal:
                out.append(Route(target.id, tkind, Gate(lethal=lethal, rule="702.19b"), rule="702.19b"))
            else:
                out.append(Route(target.id, tkind, None, rule="510.1b" if not blocked else "702.19d"))
            if top_pw:
                assert controller is not None  # a planeswalker has a controller
                gate: Gate | None = Gate(lethal=lethal, loyalty=(target.id,), rule="702.19c")
                out.append(Route(controller, ObjectKind.PLAYER, gate, rule="702.19c"))
        elif top_pw:
            assert controller is not None
            gate = Gate(lethal=lethal, rule="702.19e") if lethal else None
            out.append(Route(controller, ObjectKind.PLAYER, gate, rule="702.19e"))
        return out

    plan = _attacker_normal_plan(s, a, amount, tkind, target, current, banded, over_the_top)
    if a.as_though_unblocked and a.blocked:
        routes = tuple(over_the_top((), blocked=False))
        if routes:
            plan = replace(
                plan,
                unblocked=Unblocked(
                    amount,
                    routes,
                    "510.1c",
                    f"{a.id} may assign its combat damage as though it weren't blocked: all of it to {target.id}"
                    + (" and its controller" if top_pw else ""),
                ),
            )
        elif plan.damage > 0:
            # 510.1c with 506.4c: as though unblocked, its damage would go to what it attacks, which has left
            # combat: that way it assigns nothing (a second choice beside dividing among its blockers)
            plan = replace(
                plan,
                unblocked=Unblocked(
                    0,
                    (),
                    "506.4c",
                    f"{a.id} may assign its combat damage as though it weren't blocked, and the {tkind} it attacks, "
                    f"{target.id}, has left combat: that way it assigns nothing",
                ),
            )
    return plan


def _attacker_normal_plan(
    s: Scenario,
    a: Attacker,
    amount: int,
    tkind: str,
    target: GameObject,
    current: tuple[str, ...],
    banded: bool,
    over_the_top: Callable[..., list[Route]],
) -> SourcePlan:
    side = Side.ATTACKING
    if not a.blocked:
        routes = over_the_top((), blocked=False)
        if not routes:
            return _silent(
                a.id,
                side,
                "506.4c",
                f"{a.id} is unblocked and the {tkind} it attacks, {target.id}, has been removed from combat",
            )
        return SourcePlan(
            a.id,
            side,
            amount,
            tuple(routes),
            a.has(Keyword.DEATHTOUCH),
            "510.1b",
            f"{a.id} is unblocked and assigns all its damage to what it attacks",
        )

    routes = []
    for i, b in enumerate(current):
        gate = None
        if s.rules == RulesSet.LEGACY and i > 0 and not banded:  # 702.22j: banding ignores the order
            gate = Gate(lethal=current[:i], rule=LEGACY_ORDER_RULE)
        routes.append(Route(b, ObjectKind.BLOCKER, gate, rule="510.1c"))
    if a.has(Keyword.TRAMPLE):
        routes += over_the_top(current, blocked=True)
    if not routes:
        if a.has(Keyword.TRAMPLE):
            return _silent(
                a.id,
                side,
                "506.4c",
                f"{a.id} has no blockers left and the {tkind} it attacks, {target.id}, has been removed from combat",
            )
        return _silent(
            a.id, side, "510.1c", f"{a.id} is blocked, no creature is blocking it any more, and it has no trample"
        )
    rule = "702.19b" if a.has(Keyword.TRAMPLE) else "510.1c"
    return SourcePlan(
        a.id,
        side,
        amount,
        tuple(routes),
        a.has(Keyword.DEATHTOUCH),
        rule,
        f"{a.id} is blocked and divides its damage as {rule} allows",
    )


def _blocker_plan(s: Scenario, b: Blocker, step: str, moved: bool = True) -> SourcePlan:
    side = Side.DEFENDING
    if not b.in_combat:
        return _silent(b.id, side, "506.4", f"{b.id} has been removed from combat and deals no combat damage")
    if not b.deals_damage_in(step):
        why = (
            f"{b.id} has neither first strike nor double strike"
            if step == Step.FIRST_STRIKE
            else f"{b.id} has first strike without double strike"
        )
        return _silent(b.id, side, _step_rule(step), why + f", so it deals no damage in the {step} step")
    amount = b.combat_damage  # 510.1a: its power, or its toughness
    if amount <= 0:
        return _silent(b.id, side, "510.1a", _no_damage_reason(b))
    targets = tuple(a.id for a in s.attackers if b.id in a.blocked_by and a.in_combat)
    if not targets:
        return _silent(b.id, side, "510.1d", f"{b.id} is no longer blocking any creature in combat")
    # 702.22k: the active player divides, ignoring the order
    banded = moved and _divider(s, b.id)[0] != Chooser.DEFENDING_PLAYER
    if s.rules == RulesSet.LEGACY and not banded:
        # legacy 510.1d: in its damage assignment order, lethal damage to each earlier attacker first
        order = tuple(t for t in s.damage_order(b.id) if t in targets)
        routes = tuple(
            Route(
                t,
                ObjectKind.ATTACKER,
                Gate(lethal=order[:i], rule=LEGACY_BLOCKER_ORDER_RULE) if i else None,
                rule="510.1d",
            )
            for i, t in enumerate(order)
        )
    else:
        routes = tuple(Route(t, ObjectKind.ATTACKER, None, rule="510.1d") for t in targets)
    plan = SourcePlan(
        b.id,
        side,
        amount,
        routes,
        b.has(Keyword.DEATHTOUCH),
        "510.1d",
        f"{b.id} divides its damage among the creatures it blocks",
    )
    return plan


def refusal(plan: DamagePlan, source_id: str, recipient_id: str) -> tuple[str, str]:
    """Why ``source_id`` may not assign damage to ``recipient_id`` at all: ``(rule, sentence)``."""
    s = plan.scenario
    src = plan.source(source_id)
    if src is None:
        return "510.1", f"{source_id} is not a source of combat damage on this side"
    if src.damage == 0:
        return src.rule, src.reason
    kind = s.kind(recipient_id)
    if src.side == Side.DEFENDING:
        if kind is ObjectKind.ATTACKER and not s.attacker(recipient_id).in_combat:
            return "506.4", f"{recipient_id} has been removed from combat"
        return "510.1d", f"{source_id} may assign damage only to the creatures it is blocking"
    a = s.attacker(source_id)
    if kind is ObjectKind.BLOCKER:
        if recipient_id in a.blocked_by and not s.blocker(recipient_id).in_combat:
            return "506.4", f"{recipient_id} has been removed from combat and is no longer blocking {source_id}"
        if not a.blocked:
            return "510.1b", f"{source_id} is unblocked: all its damage goes to {a.attacking}"
        return "510.1c", f"{recipient_id} is not blocking {source_id}"
    target = a.attacking
    tkind = s.kind(target)
    attacked = s[target]
    if recipient_id == target and not isinstance(attacked, Player) and not attacked.in_combat:
        return "506.4c", f"{target} has been removed from combat"
    if recipient_id == target and a.blocked and not a.has(Keyword.TRAMPLE):
        return "510.1c", f"{source_id} is blocked and has no trample: its damage goes to its blockers"
    if kind is ObjectKind.PLAYER and recipient_id == s.controller_of(target) and tkind is not ObjectKind.PLAYER:
        if tkind is ObjectKind.PLANESWALKER and not a.has(Keyword.TRAMPLE_OVER_PLANESWALKERS):
            return "702.19f", (
                f"{source_id} attacks the planeswalker {target}; without trample over planeswalkers "
                f"none of its damage can go to {recipient_id}"
            )
        if tkind is ObjectKind.BATTLE:
            return "702.19f", f"{source_id} attacks the battle {target}; none of its damage can go to {recipient_id}"
    if not a.blocked:
        return "510.1b", f"{source_id} is unblocked: its damage goes to {target}, which it attacks"
    return "510.1c", f"{source_id} may not assign damage to {recipient_id}"
