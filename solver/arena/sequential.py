"""One damage step as a sequence of small decisions that reaches every legal assignment and nothing else.

A step's legal assignments can be far more than any fixed action space holds (a large board has millions), so the
learning environments (:mod:`trample.arena.gym_env`, :mod:`trample.arena.pz_env`,
:mod:`trample.arena.openspiel_game`) do not pick an assignment by index. They walk the damage plan
(:func:`trample.rules.derive`) column by column: for each active source in plan order, and for each of its routes
in plan order (``SourcePlan.all_routes``: a source that may assign "as though it weren't blocked", 510.1c, has the
recipients of both its ways), the decision is *how much of the source's remaining damage goes to this route* (an
integer ``0..remaining``). A source assigns all its damage (510.1a) in one of its ways: its last column takes what
that way has left.

The mask of a decision keeps exactly the amounts after which some legal completion exists. Feasibility is exact: a
memoised search over the remaining columns whose state is the amount each gated blocker or planeswalker has
received (capped at what it needs: lethal damage, 702.19b, or loyalty, 702.19c), which gated blockers a deathtouch
source has touched (702.2c), and, for each way of the current source the amounts so far are consistent with (the
normal way, or as though unblocked: all to what it attacks, or nothing when that has left combat, 506.4c), the
damage it has left and which gates its positive amounts have made obligatory. So every legal assignment is
reached by exactly one sequence of decisions, and every sequence allowed by the masks ends in a legal assignment
(tests/engines/test_sequential.py checks the reachable set equals the brute force's legal set on generated boards with
every legality option: as though unblocked, banding, the legacy orders). A plan whose every source has one way
(nearly every board) keeps a flat state with one obligations mask instead of the set of ways: the same decisions,
cheaper to apply (the Gymnasium row of benchmarks/bench_readers.py walks tens of thousands of states).
Decisions with a single allowed amount are taken automatically (:meth:`StepDecoder.advance`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import Assignment
from ..rules import DamagePlan, Route


@dataclass(frozen=True)
class Column:
    source: int  # index into plan.sources
    recipient: str
    #: per way of the source (0: its normal way, 1: "as though it weren't blocked", 510.1c), the route to this
    #: recipient in that way, or None (that way gives it nothing)
    routes: tuple[Route | None, ...]
    last: bool  # the source's last column: what is left of a way's damage must be 0 after it


class StepDecoder:
    """The decision sequence of one step's plan. Partial assignments are tuples of amounts, one per column.

    A source's columns are its routes in plan order (``SourcePlan.all_routes``: the routes of its normal way, then
    the recipients only its "as though it weren't blocked" way uses, 510.1c). A source with two ways is one set of
    decisions too: the state keeps the ways the amounts so far are consistent with (each with the damage it has
    left and the gates it has made obligatory), so the masks allow exactly the amounts after which the source's
    damage can still be assigned in one of its ways and the whole step completed legally.

    ``order`` (source indices of ``plan.active``, default: plan order) is the order the sources are decided in:
    the games decide the sources one player divides before the other's (:func:`trample.rules.divider`)."""

    def __new__(cls, plan: DamagePlan | None = None, order: Sequence[int] | None = None):
        # a plan whose every source has one way (none may assign "as though it weren't blocked", 510.1c: nearly
        # every board) is decoded with a flat state (:class:`_OneWayDecoder`): the same decisions and masks.
        # (Unpickling calls this with no plan: the class is the one pickled.)
        if cls is StepDecoder and plan is not None and all(plan.sources[i].unblocked is None for i in plan.active):
            cls = _OneWayDecoder
        return super().__new__(cls)

    def __init__(self, plan: DamagePlan, order: Sequence[int] | None = None):
        self.plan = plan
        self.order = tuple(plan.active if order is None else order)
        if sorted(self.order) != sorted(plan.active):
            raise ValueError("order: expected the plan's active sources, each once")
        cols = []
        for i in self.order:
            src = plan.sources[i]
            recipients = [r.recipient for r in src.all_routes]
            for j, name in enumerate(recipients):
                ways = (src.route(name),) + ((src.unblocked.route(name),) if src.unblocked is not None else ())
                cols.append(Column(i, name, ways, j == len(recipients) - 1))
        self.columns = tuple(cols)
        #: the column each source's decisions start at (column index -> the source's ways' damage)
        self._entry = {
            k: self._ways(col.source) for k, col in enumerate(self.columns) if k == 0 or self.columns[k - 1].last
        }
        names = list(plan.lethal_need) + [p for p in plan.loyalty_need if p not in plan.lethal_need]
        self.slot = {name: k for k, name in enumerate(names)}
        self.need = tuple(plan.lethal_need[n] if n in plan.lethal_need else plan.loyalty_need[n] for n in names)
        self.lethal_kind = frozenset(self.slot[n] for n in plan.lethal_need)
        self._memo: dict = {}
        self.max_amount = max((plan.sources[i].max_damage for i in self.order), default=0)
        #: per column, what apply and choices read of it (computed once; the masks apply tens of thousands of
        #: amounts per board): per way the gates its route makes obligatory (None: no route in that way), the
        #: recipient's capped slot (None: no gate counts it), whether a deathtouch source's damage there counts
        #: as lethal (702.2c), whether it is the source's last column
        self._plain: tuple[tuple[tuple[int | None, ...], int | None, bool, bool], ...] = tuple(
            (
                tuple(None if r is None else self._gate_bits(r) for r in col.routes),
                self.slot.get(col.recipient),
                plan.sources[col.source].deathtouch and self.slot.get(col.recipient) in self.lethal_kind,
                col.last,
            )
            for col in self.columns
        )

    def _ways(self, i: int) -> tuple[int, ...]:
        """The damage of each way of source ``i`` (510.1a: all of it is assigned, in one way)."""
        src = self.plan.sources[i]
        return (src.damage,) + ((src.unblocked.damage,) if src.unblocked is not None else ())

    def _gate_bits(self, route: Route) -> int:
        bits = 0
        if route.gate is not None:
            for name in route.gate.lethal + route.gate.loyalty:
                bits |= 1 << self.slot[name]
        return bits

    # -- state ----------------------------------------------------------------------------------
    def _enter(self, k: int, obligations) -> tuple:
        """The ways of the source whose decisions start at column ``k`` (or none at the end), for each set of
        obligations the sources before it may have left: ``((way, damage left, obligations), ...)``."""
        if k >= len(self.columns):
            return tuple(sorted({(-1, 0, o) for o in obligations}))
        entry = self._entry[k]
        if len(entry) == 1 and len(obligations) == 1:  # one way, one set of obligations: the usual source
            return ((0, entry[0], next(iter(obligations))),)
        return tuple(sorted({(w, d, o) for o in obligations for w, d in enumerate(entry)}))

    def start(self) -> tuple:
        """(column, the current source's damage left (the most over its ways), capped totals, deathtouched mask,
        ways: the (way, damage left, obligations mask) the amounts so far are consistent with)."""
        ways = self._enter(0, (0,))
        return (0, max((w[1] for w in ways), default=0), (0,) * len(self.need), 0, ways)

    def apply(self, state: tuple, amount: int) -> tuple:
        k, _, caps, dt, ways = state
        bits, s, deadly, last = self._plain[k]
        kept = []
        for w, rem, obl in ways:
            b = bits[w]
            if b is None:  # this way has no route here
                if amount == 0:
                    kept.append((w, rem, obl))
            elif amount <= rem:
                kept.append((w, rem - amount, obl | b if amount > 0 else obl))
        if amount > 0 and s is not None:
            caps = caps[:s] + (min(self.need[s], caps[s] + amount),) + caps[s + 1 :]
            if deadly:
                dt |= 1 << s
        k += 1
        if last:  # 510.1a: a way is taken only if all its damage was assigned
            new = self._enter(k, {obl for _, rem, obl in kept if rem == 0})
        else:
            new = tuple(sorted(kept)) if len(kept) > 1 else tuple(kept)
        if len(new) == 1:
            return (k, new[0][1], caps, dt, new)
        return (k, max((w[1] for w in new), default=0), caps, dt, new)

    def done(self, state: tuple) -> bool:
        return state[0] >= len(self.columns)

    def choices(self, state: tuple) -> Sequence[int]:
        """The amounts the rules allow at this column before feasibility: ``0..remaining`` of a way that has
        this route (only what a way has left, on a source's last column)."""
        k, _, _, _, ways = state
        bits, _, _, last = self._plain[k]
        if len(ways) == 1:  # one way consistent with the amounts so far (the usual source)
            w, rem, _ = ways[0]
            if bits[w] is None:  # nothing here in this way: on its last column, only if it is complete
                return (0,) if rem == 0 or not last else ()
            return (rem,) if last else range(rem + 1)
        if last:
            with_route = {rem for w, rem, _ in ways if bits[w] is not None}
            done_without = any(bits[w] is None and rem == 0 for w, rem, _ in ways)  # a way already complete
            return sorted(with_route | {0} if done_without else with_route)
        top = max((rem for w, rem, _ in ways if bits[w] is not None), default=0)
        return list(range(top + 1))

    def allowed(self, state: tuple) -> list[int]:
        """The amounts after which a legal completion exists (the mask)."""
        return [a for a in self.choices(state) if self.feasible(self.apply(state, a))]

    def feasible(self, state: tuple) -> bool:
        hit = self._memo.get(state)
        if hit is not None:
            return hit
        ok = self._settled(state)
        if ok is None:
            ok = False
            apply, feasible = self.apply, self.feasible
            for a in self.choices(state):
                if feasible(apply(state, a)):
                    ok = True
                    break
        self._memo[state] = ok
        return ok

    def _settled(self, state: tuple) -> bool | None:
        """Whether a legal completion exists when that is known without deciding further (no way of the source is
        consistent with the amounts; the step is decided), else None."""
        if not state[4]:  # no way of the source is consistent with the amounts
            return False
        if self.done(state):
            _, _, caps, dt, ways = state
            return any(self._met(caps, dt, obl) for _, _, obl in ways)
        return None

    def _met(self, caps: tuple, dt: int, obl: int) -> bool:
        """Is every obligation of the mask ``obl`` met (702.19b: lethal damage, 702.2c with deathtouch; 702.19c:
        the loyalty)? Only the mask's set bits are read."""
        need, lethal_kind = self.need, self.lethal_kind
        while obl:
            s = (obl & -obl).bit_length() - 1
            if caps[s] < need[s] and not (s in lethal_kind and dt >> s & 1):
                return False
            obl &= obl - 1
        return True

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
        out: dict[str, dict[str, int]] = {s.source: {} for s in self.plan.sources}
        for col, a in zip(self.columns, amounts):
            if a:
                out[self.plan.sources[col.source].source][col.recipient] = a
        return Assignment(out)

    def part(self, amounts, start: int = 0) -> Assignment:
        """The assignment of the sources decided by the columns ``start .. start + len(amounts)`` (one player's
        part of the step, in the games), with only those sources as keys."""
        out: dict[str, dict[str, int]] = {}
        for col, a in zip(self.columns[start:], amounts):
            split = out.setdefault(self.plan.sources[col.source].source, {})
            if a:
                split[col.recipient] = a
        return Assignment(out)

    def amounts_of(self, assignment) -> list[int]:
        """The column amounts of a (legal) assignment: the decisions that reach it."""
        out = []
        for col in self.columns:
            out.append(assignment.get(self.plan.sources[col.source].source, {}).get(col.recipient, 0))
        return out

    def current(self, state: tuple) -> tuple[str, str]:
        """(source id, recipient id) of the decision at ``state``."""
        col = self.columns[state[0]]
        return self.plan.sources[col.source].source, col.recipient


class _OneWayDecoder(StepDecoder):
    """A :class:`StepDecoder` for a plan whose every source assigns in its normal way only: the state is flat,
    ``(column, damage the current source has left, capped totals, deathtouched mask, obligations mask)``, since
    one way needs no set of consistent ways. Every decision and mask is the general decoder's (510.1a: a source's
    last column takes what it has left; tests/engines/test_sequential.py holds both to the brute force)."""

    def __init__(self, plan: DamagePlan, order: Sequence[int] | None = None):
        super().__init__(plan, order)
        n = len(self.columns)
        self._n = n
        #: per column (and one past the end): the damage of the source whose decisions start there (0 elsewhere)
        self._first = tuple(
            self.plan.sources[self.columns[k].source].damage if k in self._entry else 0 for k in range(n)
        ) + (0,)
        #: per column: (gate bits of its route, capped slot, deathtouch counts as lethal there, last column)
        self._flat = tuple((bits[0], s, deadly, last) for bits, s, deadly, last in self._plain)

    def start(self) -> tuple:
        return (0, self._first[0], (0,) * len(self.need), 0, 0)

    def apply(self, state: tuple, amount: int) -> tuple:
        k, rem, caps, dt, obl = state
        bits, s, deadly, last = self._flat[k]
        if amount:
            obl |= bits
            if s is not None:
                caps = caps[:s] + (min(self.need[s], caps[s] + amount),) + caps[s + 1 :]
                if deadly:
                    dt |= 1 << s
        k += 1
        return (k, self._first[k] if last else rem - amount, caps, dt, obl)

    def choices(self, state: tuple) -> Sequence[int]:
        k, rem = state[0], state[1]
        return (rem,) if self._flat[k][3] else range(rem + 1)

    def _settled(self, state: tuple) -> bool | None:
        return self._met(state[2], state[3], state[4]) if state[0] >= self._n else None


class StepWalk:
    """A decoder with its current state and the amounts chosen so far (what an environment holds)."""

    def __init__(self, plan: DamagePlan, order: Sequence[int] | None = None, end: int | None = None):
        self.decoder = StepDecoder(plan, order)
        self.end = len(self.decoder.columns) if end is None else end  # the walk is done at this column
        self.amounts: list[int] = []
        self.state = self.decoder.start()
        self._forward()

    @classmethod
    def of_player(cls, plan: DamagePlan, player: str = "attacking") -> StepWalk:
        """The walk of the sources ``player`` divides (:func:`trample.rules.divider`; banding moves some to the
        other player, 702.22j/k): their columns first, the walk done after them (the masks still ask that the
        other player's sources can complete the step legally)."""
        mine = plan.chosen_by(player)
        rest = tuple(i for i in plan.active if i not in mine)
        return cls(plan, mine + rest, sum(len(plan.sources[i].all_routes) for i in mine))

    def _forward(self) -> None:
        d = self.decoder
        while self.state[0] < self.end:
            allowed = d.allowed(self.state)
            if len(allowed) != 1:
                return
            self.amounts.append(allowed[0])
            self.state = d.apply(self.state, allowed[0])

    @property
    def done(self) -> bool:
        return self.state[0] >= self.end

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
            a = target[self.state[0]]
            chosen.append(a)
            self.choose(a)
        return chosen
