"""One damage step as a sequence of small decisions that reaches every legal assignment and nothing else.

A step's legal assignments can be far more than any fixed action space holds (a large board has millions), so the
learning environments (:mod:`trample.arena.gym_env`, :mod:`trample.arena.pz_env`,
:mod:`trample.arena.openspiel_game`) do not pick an assignment by index. They walk the damage plan
(:func:`trample.rules.derive`) column by column: for each active source in plan order, and for each of its routes
in plan order, the decision is *how much of the source's remaining damage goes to this route* (an integer
``0..remaining``). The last route of a source takes what is left (510.1a: a source assigns all its damage).

The mask of a decision keeps exactly the amounts after which some legal completion exists. Feasibility is exact: a
memoised search over the remaining columns whose state is the amount each gated blocker or planeswalker has
received (capped at what it needs: lethal damage, 702.19b, or loyalty, 702.19c), which gated blockers a deathtouch
source has touched (702.2c), and which gates a positive amount has made obligatory. So every legal assignment is
reached by exactly one sequence of decisions, and every sequence allowed by the masks ends in a legal assignment
(tests/test_sequential.py checks the reachable set equals ``Combat.legal_assignments`` on generated boards).
Decisions with a single allowed amount are taken automatically (:meth:`StepDecoder.advance`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Assignment
from ..rules import DamagePlan


@dataclass(frozen=True)
class Column:
    source: int  # index into plan.sources
    route: int  # index into that source's routes
    last: bool  # the source's last route: it takes what is left


class StepDecoder:
    """The decision sequence of one step's plan. Partial assignments are tuples of amounts, one per column."""

    def __init__(self, plan: DamagePlan):
        self.plan = plan
        cols = []
        for i in plan.active:
            routes = plan.sources[i].routes
            for j in range(len(routes)):
                cols.append(Column(i, j, j == len(routes) - 1))
        self.columns = tuple(cols)
        names = list(plan.lethal_need) + [p for p in plan.loyalty_need if p not in plan.lethal_need]
        self.slot = {name: k for k, name in enumerate(names)}
        self.need = tuple(plan.lethal_need[n] if n in plan.lethal_need else plan.loyalty_need[n] for n in names)
        self.lethal_kind = frozenset(self.slot[n] for n in plan.lethal_need)
        self._memo: dict = {}
        self.max_amount = max((plan.sources[i].damage for i in plan.active), default=0)

    # -- state ----------------------------------------------------------------------------------
    def start(self) -> tuple:
        """(column, remaining damage of its source, capped totals, deathtouched mask, obligations mask)."""
        rem = self.plan.sources[self.columns[0].source].damage if self.columns else 0
        return (0, rem, (0,) * len(self.need), 0, 0)

    def apply(self, state: tuple, amount: int) -> tuple:
        k, rem, caps, dt, obl = state
        col = self.columns[k]
        src = self.plan.sources[col.source]
        route = src.routes[col.route]
        if amount > 0:
            if route.gate is not None:
                for name in route.gate.lethal + route.gate.loyalty:
                    obl |= 1 << self.slot[name]
            s = self.slot.get(route.recipient)
            if s is not None:
                caps = caps[:s] + (min(self.need[s], caps[s] + amount),) + caps[s + 1 :]
                if src.deathtouch and s in self.lethal_kind:
                    dt |= 1 << s
        rem -= amount
        k += 1
        if col.last and k < len(self.columns):
            rem = self.plan.sources[self.columns[k].source].damage
        return (k, rem, caps, dt, obl)

    def done(self, state: tuple) -> bool:
        return state[0] >= len(self.columns)

    def choices(self, state: tuple) -> range:
        """The amounts the rules allow at this column before feasibility: ``0..remaining`` (only ``remaining``
        on a source's last route)."""
        k, rem = state[0], state[1]
        return range(rem, rem + 1) if self.columns[k].last else range(0, rem + 1)

    def allowed(self, state: tuple) -> list[int]:
        """The amounts after which a legal completion exists (the mask)."""
        return [a for a in self.choices(state) if self.feasible(self.apply(state, a))]

    def feasible(self, state: tuple) -> bool:
        hit = self._memo.get(state)
        if hit is not None:
            return hit
        if self.done(state):
            _, _, caps, dt, obl = state
            ok = all(
                caps[s] >= self.need[s] or (s in self.lethal_kind and dt >> s & 1)
                for s in range(len(self.need))
                if obl >> s & 1
            )
        else:
            ok = any(self.feasible(self.apply(state, a)) for a in self.choices(state))
        self._memo[state] = ok
        return ok

    def advance(self, state: tuple) -> tuple:
        """Take every forced decision (a single allowed amount) from ``state`` on."""
        while not self.done(state):
            allowed = self.allowed(state)
            if len(allowed) != 1:
                break
            state = self.apply(state, allowed[0])
        return state

    # -- reading ----------------------------------------------------------------------------------
    def assignment(self, amounts) -> Assignment:
        out = {s.source: {} for s in self.plan.sources}
        for col, a in zip(self.columns, amounts):
            if a:
                src = self.plan.sources[col.source]
                out[src.source][src.routes[col.route].recipient] = a
        return Assignment(out)

    def amounts_of(self, assignment) -> list[int]:
        """The column amounts of a (legal) assignment: the decisions that reach it."""
        out = []
        for col in self.columns:
            src = self.plan.sources[col.source]
            out.append(assignment.get(src.source, {}).get(src.routes[col.route].recipient, 0))
        return out

    def current(self, state: tuple) -> tuple[str, str]:
        """(source id, recipient id) of the decision at ``state``."""
        col = self.columns[state[0]]
        src = self.plan.sources[col.source]
        return src.source, src.routes[col.route].recipient


class StepWalk:
    """A decoder with its current state and the amounts chosen so far (what an environment holds)."""

    def __init__(self, plan: DamagePlan):
        self.decoder = StepDecoder(plan)
        self.amounts: list[int] = []
        self.state = self.decoder.start()
        self._forward()

    def _forward(self) -> None:
        d = self.decoder
        while not d.done(self.state):
            allowed = d.allowed(self.state)
            if len(allowed) != 1:
                return
            self.amounts.append(allowed[0])
            self.state = d.apply(self.state, allowed[0])

    @property
    def done(self) -> bool:
        return self.decoder.done(self.state)

    def allowed(self) -> list[int]:
        return [] if self.done else self.decoder.allowed(self.state)

    def choose(self, amount: int) -> None:
        allowed = self.allowed()
        if amount not in allowed:
            src, rec = self.decoder.current(self.state)
            raise ValueError(f"amount {amount} from {src} to {rec} is not allowed here (allowed: {allowed})")
        self.amounts.append(amount)
        self.state = self.decoder.apply(self.state, amount)
        self._forward()

    def assignment(self) -> Assignment:
        return self.decoder.assignment(self.amounts)

    def follow(self, assignment) -> list[int]:
        """Make the decisions that build ``assignment`` (legal) from here; returns the amounts chosen (the
        forced ones are not decisions)."""
        target = self.decoder.amounts_of(assignment)
        chosen = []
        while not self.done:
            a = target[len(self.amounts)]
            chosen.append(a)
            self.choose(a)
        return chosen
