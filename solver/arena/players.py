"""Players: anything that, given a scenario and an objective, returns an assignment.

- :class:`Player` is the in-process interface: ``decide(scenario, objective, seed) -> {source: {recipient: n}}``.
  ``seed`` is derived from the run's seed, the board and the player's name, so a run is reproducible whatever
  the worker that plays it.
- Baselines (attacking side): :class:`RandomPlayer` (uniform over the legal assignments, ``Combat.sample``),
  :class:`DeclarationOrderPlayer` (XMage-like), :class:`GreedyValuePlayer` (Forge-like), :class:`FacePlayer`
  and :class:`OptimalPlayer` (``Combat.solve``).
- :class:`ExternalPlayer` (trample.arena.external): any program speaking JSON Lines on stdin/stdout.

:func:`make_player` turns a spec string (``"greedy"``, ``"cmd:python3 my_ai.py"``, ``"py:module:factory"``,
``"NAME=cmd:..."``) into a player; specs travel to worker processes as plain strings.
"""

from __future__ import annotations

import importlib
import inspect
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from ..combat import Combat
from ..models import FormatError, ObjectKind, RulesSet
from ..outcome import apply_damage, has_effects, left_to_reach, lethal_cost, resolve
from ..rules import DamagePlan, derive
from .external import ExternalPlayer
from .objectives import as_divided, parse_objectives
from .player import Player


class FunctionPlayer(Player):
    """A player from a plain function ``fn(scenario, objective, seed) -> assignment``."""

    def __init__(self, name: str, fn):
        self.name = name
        self.fn = fn

    def decide(self, scenario, objective, seed):
        return self.fn(scenario, objective, seed)


# ---------------------------------------------------------------------------------------------
# Heuristic baselines, on the damage plan (so every one of them stays inside the routes the rules allow)
# ---------------------------------------------------------------------------------------------


class _Ledger:
    """The assignment being built, source by source, with the totals every gate reads (510.1e)."""

    def __init__(self, plan: DamagePlan):
        self.plan = plan
        self.scenario = plan.scenario
        self.totals: dict[str, int] = {}
        self.touched: set[str] = set()
        self.out: dict[str, dict[str, int]] = {s.source: {} for s in plan.sources}
        self.plain = not has_effects(self.scenario)  # no effect: would_die reads the plain boards' state

    def give(self, src, recipient: str, amount: int) -> None:
        if amount <= 0:
            return
        row = self.out[src.source]
        row[recipient] = row.get(recipient, 0) + amount
        self.totals[recipient] = self.totals.get(recipient, 0) + amount
        if src.deathtouch:
            self.touched.add(recipient)

    def lethal_cost(self, src, blocker: str) -> int:
        """Damage ``src`` must still add for ``blocker`` to have been assigned lethal (702.19b, 702.2c)."""
        return lethal_cost(
            self.plan.need_of(blocker), self.totals.get(blocker, 0), blocker in self.touched, src.deathtouch
        )

    def open(self, route) -> bool:
        """May this route receive damage, given what has been assigned so far? (Totals only grow.)"""
        if route.gate is None:
            return True
        return not self.plan.gate_failures(route.gate, self.totals, self.touched)

    def would_die(self, src, blocker: str) -> bool:
        """Would ``blocker`` die if ``src`` now added its lethal cost (:meth:`lethal_cost`)? Read on what the damage
        does (:func:`trample.outcome.resolve`): protection and prevention save it (702.16e, 615.1a), infect and
        wither kill with counters, indestructible survives (702.12b)."""
        cost = self.lethal_cost(src, blocker)
        if self.plain:  # damage dealt is damage assigned: the state after it (the same deaths as resolve's)
            totals = {**self.totals, blocker: self.totals.get(blocker, 0) + cost}
            touched = self.touched | {blocker} if src.deathtouch and cost > 0 else self.touched
            after = apply_damage(self.scenario, totals, touched)
            return self.scenario.creature(blocker).in_combat and not after.creature(blocker).in_combat
        trial = {k: dict(v) for k, v in self.out.items()}
        row = trial[src.source]
        row[blocker] = row.get(blocker, 0) + cost
        return blocker in resolve(self.scenario, trial).died

    def loyalty_left(self, walker: str) -> int:
        return left_to_reach(self.scenario.planeswalker(walker).loyalty, self.totals.get(walker, 0))


def _blocker_routes(src):
    return [r for r in src.routes if r.kind == ObjectKind.BLOCKER]


def _other_routes(src):
    return [r for r in src.routes if r.kind != ObjectKind.BLOCKER]


def _kill_in_order(ledger: _Ledger, src, order, rem: int, skip_unaffordable: bool) -> int:
    """Assign lethal damage to blockers in ``order``; returns the damage left.

    ``skip_unaffordable``: a blocker whose lethal amount exceeds what is left is passed over (greedy);
    otherwise the walk stops there after putting everything left on it (declaration order).
    """
    for r in order:
        if rem == 0:
            break
        if not ledger.open(r):  # legacy order (510.1c, 2024-09): earlier blockers first
            continue
        cost = ledger.lethal_cost(src, r.recipient)
        if cost <= rem:
            ledger.give(src, r.recipient, cost)
            rem -= cost
        elif not skip_unaffordable:
            ledger.give(src, r.recipient, rem)
            return 0
    return rem


def _leftover(ledger: _Ledger, src, rem: int, prefer_players: bool, pile_on) -> None:
    """Put what is left on the attacked object (or, for the face player, its controller), else on a blocker."""
    if rem == 0:
        return
    others = _other_routes(src)
    if prefer_players:
        for r in others:
            if r.kind == ObjectKind.PLAYER and ledger.open(r):
                ledger.give(src, r.recipient, rem)
                return
        # 702.19c: pay the planeswalker's loyalty first, then its controller
        for r in others:
            if r.kind == ObjectKind.PLAYER and r.gate is not None and r.gate.loyalty:
                walker = r.gate.loyalty[0]
                wroute = src.route(walker)
                if wroute is not None and ledger.open(wroute):
                    pay = min(rem, ledger.loyalty_left(walker))
                    ledger.give(src, walker, pay)
                    rem -= pay
                    if rem and ledger.open(r):
                        ledger.give(src, r.recipient, rem)
                        return
                    if rem == 0:
                        return
    for r in others:
        if ledger.open(r):
            ledger.give(src, r.recipient, rem)
            return
    for r in pile_on:
        if ledger.open(r):
            ledger.give(src, r.recipient, rem)
            return
    # Nothing open: cannot happen for a plan from trample.rules (the first blocker route is never gated).
    raise RuntimeError(f"{src.source}: no route can take the remaining {rem} damage")


class _PlanPlayer(Player):
    side = "attacking"

    def decide(self, scenario, objective, seed):
        plan = derive(scenario, self.side)
        ledger = _Ledger(plan)
        for src in plan.sources:
            if src.damage > 0 and src.chooser == self.side:
                self.assign(ledger, src)
        if not plan.moved:
            return ledger.out
        # 702.22j (trample.rules.divider): an attacker blocked by a creature with banding has its damage divided
        # by the defending player, not by this player: its division is the defender's reply to this player's part
        # (the worst for the attacking player), whatever this player would have put there
        return as_divided(scenario, ledger.out, parse_objectives(objective, scenario)).to_json()

    def assign(self, ledger: _Ledger, src) -> None:
        raise NotImplementedError


class DeclarationOrderPlayer(_PlanPlayer):
    """XMage-like: lethal damage to each blocker in the order the defender declared them, the rest to what the
    attacker attacks (or, without trample, onto its first blocker). Lethal counts every attacker's damage."""

    name = "declaration"

    def assign(self, ledger, src):
        blockers = _blocker_routes(src)
        rem = _kill_in_order(ledger, src, blockers, src.damage, skip_unaffordable=False)
        _leftover(ledger, src, rem, prefer_players=False, pile_on=blockers)


class GreedyValuePlayer(_PlanPlayer):
    """Forge-like: kill the most valuable blockers it can afford first (``value``, then power, then the cheapest;
    blockers its damage would not kill -- protection, prevention, indestructible, read on the outcome -- last),
    the rest to what it attacks, else onto its most valuable blocker. Under legacy rules the damage assignment
    order binds it, so it walks the blockers in order."""

    name = "greedy"

    def assign(self, ledger, src):
        s = ledger.scenario
        blockers = _blocker_routes(src)
        if s.rules == RulesSet.LEGACY:
            order = blockers
        else:
            order = sorted(  # blockers its damage cannot kill (the outcome says so) last
                blockers,
                key=lambda r: (
                    not ledger.would_die(src, r.recipient),
                    -s[r.recipient].value,
                    -s[r.recipient].power,
                    ledger.lethal_cost(src, r.recipient),
                ),
            )
        rem = _kill_in_order(ledger, src, order, src.damage, skip_unaffordable=s.rules != RulesSet.LEGACY)
        _leftover(ledger, src, rem, prefer_players=False, pile_on=order)


class FacePlayer(_PlanPlayer):
    """Everything to the face when legal: the least lethal damage on blockers (declaration order), then a
    player if any route to one is open (paying a planeswalker's loyalty first with trample over planeswalkers),
    else the attacked object, else the first blocker."""

    name = "face"

    def assign(self, ledger, src):
        blockers = _blocker_routes(src)
        for r in _other_routes(src):
            if r.kind == ObjectKind.PLAYER and ledger.open(r):
                ledger.give(src, r.recipient, src.damage)
                return
        rem = _kill_in_order(ledger, src, blockers, src.damage, skip_unaffordable=False)
        _leftover(ledger, src, rem, prefer_players=True, pile_on=blockers)


# ---------------------------------------------------------------------------------------------
# Players backed by the solver
# ---------------------------------------------------------------------------------------------


class RandomPlayer(Player):
    """One legal assignment drawn uniformly at random (``Combat.sample``), reproducibly from the seed."""

    name = "random"

    def decide(self, scenario, objective, seed):
        drawn = Combat(scenario).sample(1, seed)
        return next(iter(drawn))


class OptimalPlayer(Player):
    """The proven optimum for the objective (``Combat.solve``)."""

    name = "optimal"

    def decide(self, scenario, objective, seed):
        result = Combat(scenario).solve([o.name for o in parse_objectives(objective, scenario)])
        return result.assignment


BASELINES = {
    "random": RandomPlayer,
    "declaration": DeclarationOrderPlayer,
    "greedy": GreedyValuePlayer,
    "face": FacePlayer,
    "optimal": OptimalPlayer,
}
DEFAULT_PLAYERS = ("random", "declaration", "greedy", "face", "optimal")


def make_player(
    spec, timeout: float | None = None, startup_timeout: float | None = None, max_failures: int | None = None
) -> Player:
    """A player from a spec.

    - a :class:`Player` instance is returned as is;
    - ``"random"``, ``"declaration"``, ``"greedy"``, ``"face"``, ``"optimal"``: the baselines;
    - ``"cmd:COMMAND ARGS..."``: an external program (JSON Lines on stdin/stdout);
    - ``"py:module:attr"``: ``attr`` is a Player instance (a :class:`FunctionPlayer`, say), a Player subclass, a
      factory returning a Player, or a function ``fn(scenario, objective, seed)``;
    - ``"NAME=<any of the above>"`` renames it.

    ``timeout``, ``startup_timeout`` and ``max_failures`` configure external programs (:class:`ExternalPlayer`).
    """
    if isinstance(spec, Player):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise FormatError("player", f"expected a player name or spec, got {spec!r}")
    spec = spec.strip()
    name = None
    head, eq, rest = spec.partition("=")
    if eq and head and ":" not in head and " " not in head and rest:
        name, spec = head, rest
    if spec in BASELINES:
        player = BASELINES[spec]()
    elif spec.startswith("cmd:"):
        command = spec[4:].strip()
        try:
            argv = shlex.split(command)
        except ValueError as err:
            raise FormatError("player", f"{command!r}: {err}") from None
        if not argv:
            raise FormatError("player", "cmd: needs a command")
        given = {"timeout": timeout, "startup_timeout": startup_timeout, "max_failures": max_failures}
        kwargs: dict[str, Any] = {k: v for k, v in given.items() if v is not None}  # unset: the player's default
        player = ExternalPlayer(argv, name=name or f"cmd:{command}", **kwargs)
    elif spec.startswith("py:"):
        module, _, attr = spec[3:].rpartition(":")
        if not module or not attr:
            raise FormatError("player", f'"{spec}": expected py:module:attr')
        try:
            target = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            raise FormatError("player", f'"{spec}": {err}') from None
        if isinstance(target, Player):  # an instance: a FunctionPlayer, a trained policy wrapped as a Player
            player = target
        elif isinstance(target, type) and issubclass(target, Player):
            player = target()
        elif not callable(target):
            raise FormatError("player", f'"{spec}": {attr} is a {type(target).__name__}, not a Player or a function')
        else:
            made = target() if _takes_no_arguments(target) else None
            player = made if isinstance(made, Player) else FunctionPlayer(attr, target)
    else:
        raise FormatError(
            "player", f'unknown player "{spec}" (expected {", ".join(BASELINES)}, cmd:COMMAND or py:module:attr)'
        )
    if name:
        player.name = name
    return player


def _takes_no_arguments(fn) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values())


def chunk_player(spec, payload: Mapping[str, Any]) -> Player:
    """A player for one chunk of an arena run: :func:`make_player` with the payload's settings for external
    programs (``timeout``, ``startup_timeout``, ``max_failures``)."""
    return make_player(
        spec,
        timeout=payload.get("timeout"),
        startup_timeout=payload.get("startup_timeout"),
        max_failures=payload.get("max_failures"),
    )


def close_all(players: Iterable[Player | None]) -> None:
    """Close every player (None: nothing to close); a player that cannot even close must not lose the chunk."""
    for p in players:
        if p is not None:
            try:
                p.close()
            except Exception:  # a player that cannot even close must not lose the chunk
                pass
