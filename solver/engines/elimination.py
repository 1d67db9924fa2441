"""Counting a component on any sharing graph: one table per source, joined in an order chosen from the graph.

The column programme of :mod:`~trample.engines.direct` reads the columns in the canonical (plan) order, so its
frontier is every gated resource that a column before the cut and a column after it both touch: on a cycle of
blockers through planeswalkers, or a random sharing graph, that is most of them. Counting does not need any order.
Here the count is a sum over products of small tables, contracted in an order chosen from the sharing graph:

- A *resource* is a blocker that needs lethal damage (702.19b; marked damage counts; one point from a deathtouch
  source is enough, 702.2c) or a planeswalker that needs its loyalty (702.19c), as in the column programme. Its
  *contributors* are the sources that assign to it, its *askers* the sources with a gated route naming it.
- A source's table maps the states of the resources it shares with other sources to the number of ways to split
  its damage (510.1a: all of it) that lead there. A state is ``c*2 + R``: the damage it gave, capped below the
  need, and whether one of its gated routes received damage (then the resource must end lethal / loyal); ``SAT``
  once the need is met. Resources only this source touches are settled inside its table: a split is a count of
  compositions with lower bounds (``C(T + parts - 1, parts - 1)``), so no table over the damage is built.
- Two tables are *joined* by adding their states resource by resource (totals add, capped; flags or). When a
  table holds every contributor of a resource, its total is final: ``SAT``, or ``UNSAT`` (short: no gate naming
  it may be used; a flag already set kills the entry). When it holds every asker and no flag is set, nothing will
  ask: ``SAT`` too. When it holds both, the resource leaves the table.
- The order of the joins is greedy on the graph: each time the two tables sharing a resource whose join has the
  smallest possible result (the product of its resources' possible states, at most the product of the two tables'
  sizes), the usual min-size heuristic of variable elimination. A cycle of n attackers keeps two resources open,
  whatever n.

**As though it weren't blocked** (:attr:`~trample.rules.SourcePlan.unblocked`): the legal assignments of a
component are counted by inclusion-exclusion over each option source's ways (normal, unblocked, minus their
common part: :meth:`~trample.rules.DamagePlan.variants`). The count is linear in each source's table, so the
source's table is the signed sum of its ways' tables: n such attackers cost n small sums, not 2^n programmes.

Counts are exact Python integers (a signed sum of tables cancels exactly). The deadline is read every few thousand
operations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np
import numpy.typing as npt

from ..limits import NEVER, Deadline
from ..rules import DamagePlan, Route, SourcePlan
from .by_source import compositions, count_shared

SAT = -1  # no constraint left: the need is met, or nothing will ask about it any more
UNSAT = -2  # its total is final and short: no gate naming it may be used
CHECK_EVERY = 1 << 12  # operations between two looks at the clock

#: A table as a dict: resource states over its scope -> count.
Rows = dict[tuple[int, ...], int]
#: Rows of resource states (or their mixed-radix codes), int64.
Keys = npt.NDArray[np.int64]
#: Counts: int64 while they provably fit, Python integers (dtype object) past it.
Weights = npt.NDArray[Any]
#: A table as :func:`_order` plans with it: (members, scope, estimated size).
Sim = tuple[frozenset[int], frozenset[str], int]


def route_states(
    start: Sequence[int],
    shift: int,
    parts: int,
    options: Sequence[tuple[int, Sequence[tuple[int, int, int]]]],
    D: int,
    budget: Budget | None = None,
) -> dict[tuple[tuple[int, ...], int, int], int]:
    """One source's routes to shared recipients, taken in turn: ``{(state, shift, parts): ways}`` after them.
    ``options`` lists (scope position, [(value, shift, parts)]) per route; a total shift over ``D`` is dropped.
    The source's step of the counting programme and of the rank programme (engines/ordered.py) alike."""
    partial: dict[tuple[tuple[int, ...], int, int], int] = {(tuple(start), shift, parts): 1}
    for pos, opts in options:
        nxt: dict[tuple[tuple[int, ...], int, int], int] = {}
        if budget is not None:
            budget.spend(len(partial) * len(opts))
        for (state, sh, pa), w in partial.items():
            for val, s2, p2 in opts:
                t = sh + s2
                if t > D:
                    continue
                st = state[:pos] + (val,) + state[pos + 1 :]
                key = (st, t, pa + p2)
                nxt[key] = nxt.get(key, 0) + w
        partial = nxt
    return partial


class Budget:
    """Operations done, the clock read every CHECK_EVERY of them, and an optional bound (then :class:`_Over`)."""

    __slots__ = ("deadline", "limit", "ops", "next_check")

    def __init__(self, deadline: Deadline, limit: int | None):
        self.deadline, self.limit, self.ops, self.next_check = deadline, limit, 0, CHECK_EVERY

    def spend(self, n: int) -> None:
        self.ops += n
        if self.ops >= self.next_check:
            self.next_check = self.ops + CHECK_EVERY
            self.deadline.check()
            if self.limit is not None and self.ops > self.limit:
                raise _Over


class _Over(Exception):
    """The work bound was passed (count_by_factors then returns None)."""


def ways_of(plan: DamagePlan, i: int) -> list[tuple[int, SourcePlan]]:
    """The signed ways of source ``i`` whose tables add up to its table: itself, or for a source that may assign as
    though it weren't blocked, the per-source terms of :meth:`DamagePlan.variants` (normal + unblocked - common)."""
    if plan.sources[i].unblocked is None:
        return [(1, plan.sources[i])]
    return [(sign, v.sources[i]) for sign, v in plan.variants((i,))]


class Graph:
    """The resources of a component, their needs, contributors and askers (over every way of every source)."""

    def __init__(self, plan: DamagePlan, component: Sequence[int]):
        self.plan = plan
        self.ways = {i: ways_of(plan, i) for i in component}
        need: dict[str, int] = {}
        for i in component:
            for _, src in self.ways[i]:
                for r in src.routes:
                    names = (r.recipient, *(r.gate.lethal if r.gate else ()), *(r.gate.loyalty if r.gate else ()))
                    for name in names:
                        n = plan.lethal_need.get(name, plan.loyalty_need.get(name, 0))
                        if n > 0:
                            need[name] = n
        self.need = need
        self.contributors: dict[str, set[int]] = {x: set() for x in need}
        self.askers: dict[str, set[int]] = {x: set() for x in need}
        for i in component:
            for _, src in self.ways[i]:
                for r in src.routes:
                    if r.recipient in need:
                        self.contributors[r.recipient].add(i)
                    for x in gate_names(r, need):
                        self.askers[x].add(i)
        self.touchers = {x: self.contributors[x] | self.askers[x] for x in need}


def gate_names(route: Route, need: Mapping[str, int]) -> tuple[str, ...]:
    """The resources (of ``need``) that the route's gate names, sorted."""
    if route.gate is None:
        return ()
    return tuple(sorted({x for x in (*route.gate.lethal, *route.gate.loyalty) if x in need}))


def _source_table(g: Graph, i: int, scope: tuple[str, ...], budget: Budget) -> Rows:
    """Source ``i``'s table over ``scope`` (the resources it shares): the signed sum of its ways' tables."""
    table: Rows = {}
    for sign, src in g.ways[i]:
        for key, w in way_table(g, src, scope, budget).items():
            table[key] = table.get(key, 0) + sign * w
    return {k: w for k, w in table.items() if w}


def way_table(g: Graph, src: SourcePlan, scope: tuple[str, ...], budget: Budget) -> Rows:
    """The splits of one way of a source, by the states of the shared resources they lead to."""
    need, plan = g.need, g.plan
    at = {x: k for k, x in enumerate(scope)}
    D = src.damage
    gated = [r for r in src.routes if gate_names(r, need)]
    out: Rows = {}
    for mask in range(1 << len(gated)):
        budget.spend(1)
        positive = {gated[b].recipient for b in range(len(gated)) if mask >> b & 1}
        asked: set[str] = set()
        for r in gated:
            if r.recipient in positive:
                asked.update(gate_names(r, need))
        # a private resource that must end lethal / loyal but that this way does not feed: no split
        fed = {r.recipient for r in src.routes if r.recipient in need and (r.recipient in positive or r not in gated)}
        if any(x not in at and x not in fed for x in asked):
            continue
        start = tuple(1 if x in asked else 0 for x in scope)
        shift = parts = 0
        options: list[tuple[int, list[tuple[int, int, int]]]] = []  # (scope position, [(state, shift, parts)])
        for r in src.routes:
            x = r.recipient
            is_gated = bool(gate_names(r, need))
            if is_gated and x not in positive:
                continue  # exactly 0
            lb = 1 if is_gated else 0
            if x not in need:
                shift, parts = shift + lb, parts + 1
                continue
            # 702.2c: one point from a deathtouch source is lethal damage (not loyalty, 702.19c)
            low = 1 if (src.deathtouch and x in plan.lethal_need) else need[x]
            if x not in at:  # private: settled here
                shift, parts = shift + (max(low, lb) if x in asked else lb), parts + 1
                continue
            flag = 1 if x in asked else 0
            opts = [((v << 1) | flag, v, 0) for v in range(lb, min(low, D + 1))]
            opts.append((SAT, max(low, lb), 1))
            options.append((at[x], opts))
        partial = route_states(start, shift, parts, options, D, budget)
        for (state, sh, pa), w in partial.items():
            c = w * compositions(D - sh, pa)
            if c:
                out[state] = out.get(state, 0) + c
    return out


DEAD = -3  # a combination or normalisation that breaks a gate (702.19b/c): the entry dies
DROP = -4  # the resource leaves the table (every contributor and asker is in it), the entry lives
PAIRS = 1 << 18  # pairs of entries combined at once in a join (bounds its temporary memory and the time between
# two looks at the clock)
INT64_SAFE = 1 << 62


class _Table:
    """Entries of a table: ``keys`` (one row of resource states per entry, over ``scope``) and their counts ``w``
    (int64 while they provably fit, else Python integers in an object array)."""

    __slots__ = ("members", "scope", "keys", "w")

    def __init__(self, members: frozenset[int], scope: tuple[str, ...], keys: Keys, w: Weights):
        self.members, self.scope, self.keys, self.w = members, scope, keys, w

    @classmethod
    def of(cls, members: frozenset[int], scope: tuple[str, ...], rows: Rows) -> _Table:
        keys = np.array(list(rows), dtype=np.int64).reshape(len(rows), len(scope))
        return cls(members, scope, keys, weights_of(list(rows.values())))

    def total(self) -> int:
        return int(sum(self.w.tolist()))


def weights_of(values: list[int]) -> Weights:
    """Counts as a weight vector: int64 while every count fits, Python integers (dtype object) otherwise."""
    if all(-INT64_SAFE < v < INT64_SAFE for v in values):
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def largest_weight(w: Weights) -> int:
    if not len(w):
        return 0
    if w.dtype == object:
        return int(max(abs(v) for v in w.tolist()))
    return int(np.abs(w).max())


def domain_size(g: Graph, x: str, members: frozenset[int]) -> int:
    """How many states resource ``x`` can have in a table holding ``members`` (0: it has left the table)."""
    all_c = g.contributors[x] <= members
    all_a = g.askers[x] <= members
    if all_c and all_a:
        return 0
    if all_c:
        return 2
    if all_a:
        return g.need[x] + 1
    return 2 * g.need[x] + 1


def _settle(g: Graph, x: str, members: frozenset[int], s: int) -> int:
    """State ``s`` of ``x`` normalised in a table holding ``members``: when the table holds every contributor, the
    total is final (SAT or UNSAT; a flag on a short total: DEAD); when it holds every asker and no flag is set,
    nothing will ask (SAT); when it holds both, the resource leaves (DROP, or DEAD for a flag on a short total)."""
    if s == DEAD:
        return DEAD
    all_c = g.contributors[x] <= members
    all_a = g.askers[x] <= members
    if all_c and all_a:
        return DEAD if (s >= 0 and s & 1) else DROP
    if all_c:
        return s if s < 0 else (DEAD if s & 1 else UNSAT)
    if all_a:
        return SAT if (s >= 0 and not s & 1) else s
    return s


def _add(a: int, b: int, n: int) -> int:
    """The state of a resource of need ``n`` from two disjoint sets of sources (DEAD: contradiction)."""
    if a == SAT or b == SAT:
        return SAT
    if a == UNSAT:
        return DEAD if b & 1 else UNSAT
    if b == UNSAT:
        return DEAD if a & 1 else UNSAT
    c = (a >> 1) + (b >> 1)
    return SAT if c >= n else (c << 1) | ((a | b) & 1)


def sum_table(g: Graph, x: str, members: frozenset[int], ua: Keys, ub: Keys) -> Keys:
    """:func:`_add` then :func:`_settle` for every pair of the states ``ua`` (of one table) and ``ub`` (of the
    other) of ``x``, as a matrix (numpy: a blocker that needs 5 000 has 10 000 states)."""
    n = g.need[x]
    a, b = ua[:, None], ub[None, :]
    c = (np.maximum(a, 0) >> 1) + (np.maximum(b, 0) >> 1)
    flag = (np.maximum(a, 0) | np.maximum(b, 0)) & 1
    t = np.where(c >= n, SAT, (c << 1) | flag)
    t = np.where((a == UNSAT) & (b >= 0), np.where(b & 1, DEAD, UNSAT), t)
    t = np.where((b == UNSAT) & (a >= 0), np.where(a & 1, DEAD, UNSAT), t)
    t = np.where((a == UNSAT) & (b == UNSAT), DEAD, t)  # never met: one side holds every contributor
    t = np.where((a == SAT) | (b == SAT), SAT, t)
    all_c = g.contributors[x] <= members
    all_a = g.askers[x] <= members
    live, short, flagged = t != DEAD, t >= 0, (t >= 0) & (t & 1 == 1)
    if all_c and all_a:
        return np.where(live & ~flagged, DROP, DEAD)
    if all_c:
        return np.where(short, np.where(flagged, DEAD, UNSAT), t)
    if all_a:
        return np.where(short & ~flagged, SAT, t)
    return t


def _uncodes(code: Keys, radix: list[int]) -> Keys:
    keys = np.empty((len(code), len(radix)), dtype=np.int64)
    for k in range(len(radix) - 1, -1, -1):
        code, keys[:, k] = np.divmod(code, radix[k])
    return keys - 2


@dataclass(frozen=True)
class _JoinKey:
    """How :func:`_join` codes a pair of entries: the result's ``scope`` and ``radix`` (``size``: their product),
    each side's own part of the code per entry (``ca``, ``cb``), and per shared resource the table of sums indexed
    by each side's entries (``combos``: (sums, A's index, B's index); a dead sum is ``DEAD_CODE``)."""

    scope: tuple[str, ...]
    radix: list[int]
    size: int
    ca: Keys
    cb: Keys
    combos: list[tuple[Keys, npt.NDArray[np.intp], npt.NDArray[np.intp]]]


DEAD_CODE = -(1 << 61)  # the code of a pair whose sum breaks a gate: negative, and far from overflowing


def _join_key(g: Graph, A: _Table, B: _Table, members: frozenset[int]) -> _JoinKey:
    """The mixed-radix code of the pairs of A's and B's entries (see :class:`_JoinKey`): A's own resources, then
    B's, then the shared ones that stay; :class:`_Over` when the code would not fit in an int64."""
    b_at = {x: k for k, x in enumerate(B.scope)}
    shared = [x for x in A.scope if x in b_at]
    a_only = [k for k, x in enumerate(A.scope) if x not in b_at]
    b_only = [k for k, x in enumerate(B.scope) if x not in set(shared)]
    keep = [x for x in shared if domain_size(g, x, members)]
    scope = tuple([A.scope[k] for k in a_only] + [B.scope[k] for k in b_only] + keep)
    radix = [2 * g.need[x] + 2 for x in scope]
    if float(np.prod(np.array(radix, dtype=float))) >= 2.0**60:  # pragma: no cover - frontiers far past any bound
        raise _Over
    mult: dict[str, int] = {}
    m = 1
    for x, r in zip(reversed(scope), reversed(radix)):
        mult[x] = m
        m *= r
    # the parts of the key that come from one side only
    ca = np.zeros(len(A.w), dtype=np.int64)
    for k in a_only:
        ca += (A.keys[:, k] + 2) * mult[A.scope[k]]
    cb = np.zeros(len(B.w), dtype=np.int64)
    for k in b_only:
        cb += (B.keys[:, k] + 2) * mult[B.scope[k]]
    combos = []
    for x in shared:
        ua, xa = np.unique(A.keys[:, A.scope.index(x)], return_inverse=True)
        ub, xb = np.unique(B.keys[:, b_at[x]], return_inverse=True)
        t = sum_table(g, x, members, ua, ub)
        t = np.where(t == DEAD, DEAD_CODE, np.where(t == DROP, 0, (t + 2) * mult.get(x, 0)))
        combos.append((t, xa.reshape(-1), xb.reshape(-1)))
    return _JoinKey(scope, radix, m, ca, cb, combos)


def _merged(parts_c: list[Keys], parts_w: list[Weights]) -> tuple[Keys, Weights]:
    """Sorted (code, weight) parts as one: equal codes' weights added."""
    c2, w2 = np.concatenate(parts_c), np.concatenate(parts_w)
    order = np.argsort(c2, kind="stable")
    c2 = c2[order]
    starts = np.flatnonzero(np.r_[True, c2[1:] != c2[:-1]])
    return c2[starts], np.add.reduceat(w2[order], starts)


def _join(g: Graph, A: _Table, B: _Table, budget: Budget) -> _Table:
    """The table of A's and B's members together (the states of their shared resources added and settled).

    Every pair of entries is combined at once by broadcasting (in slices of A's rows): the result's key is a
    mixed-radix integer (:func:`_join_key`), each shared resource's part read from a small table of sums (a dead sum
    is a large negative number, so that the whole key is negative), the counts of equal keys added: in one dense
    array when the keys are few, else as sorted parts merged as they grow (:func:`_merged`)."""
    members = A.members | B.members
    key = _join_key(g, A, B, members)
    ca, cb, combos = key.ca, key.cb, key.combos
    na, nb = len(A.w), len(B.w)
    big = (
        A.w.dtype == object or B.w.dtype == object or largest_weight(A.w) * largest_weight(B.w) * na * nb >= INT64_SAFE
    )
    wa = A.w.astype(object) if big else A.w
    wb = B.w.astype(object) if big else B.w
    dense = key.size <= (1 << 22)
    acc = np.zeros(key.size, dtype=wa.dtype) if dense else None
    parts_c: list[Keys] = []
    parts_w: list[Weights] = []
    held = 0
    step = max(1, PAIRS // max(1, nb))
    for lo in range(0, na, step):
        hi = min(na, lo + step)
        budget.spend((hi - lo) * nb)
        code = ca[lo:hi, None] + cb[None, :]
        for t, xa, xb in combos:
            code = code + t[xa[lo:hi, None], xb[None, :]]
            np.maximum(code, DEAD_CODE, out=code)  # dead stays dead (and far from overflowing)
        w = wa[lo:hi, None] * wb[None, :]
        live = code >= 0
        code, w = code[live], w[live]
        if acc is not None:
            np.add.at(acc, code, w)
            continue
        order = np.argsort(code, kind="stable")
        code = code[order]
        starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
        parts_c.append(code[starts])
        parts_w.append(np.add.reduceat(w[order], starts) if len(starts) else w[:0])
        held += len(starts)
        if held > PAIRS and len(parts_c) > 1:
            c2, w2 = _merged(parts_c, parts_w)
            parts_c, parts_w = [c2], [w2]
            held = len(c2)
    if dense:
        assert acc is not None
        code = np.flatnonzero(acc)
        w = acc[code]
    elif parts_c:
        code, w = _merged(parts_c, parts_w)
        live = w != 0
        code, w = code[live], w[live]
    else:
        code, w = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return _Table(members, key.scope, _uncodes(code, key.radix), w)


def count_by_factors(
    plan: DamagePlan,
    component: Sequence[int],
    deadline: Deadline | None = None,
    work_limit: int | None = None,
    estimate_limit: int | None = None,
) -> int | None:
    """The number of legal assignments of a component (any gates, any sharing graph, options included), by joining
    one table per source in a greedy order (see the module). None past ``work_limit`` operations, or when the
    order's estimated work is over ``estimate_limit`` (both unbounded by default);
    :class:`~trample.limits.LimitReached` once ``deadline`` passes (read every few thousand operations)."""
    budget = Budget(deadline or NEVER, work_limit)
    try:
        return _count(Graph(plan, component), component, budget, estimate_limit)
    except _Over:
        return None


def _count(g: Graph, component: Sequence[int], budget: Budget, estimate_limit: int | None) -> int:
    total = 1
    tables: list[_Table] = []
    for i in component:
        scope = tuple(sorted(x for x in g.need if i in g.touchers[x] and len(g.touchers[x]) > 1))
        rows = _source_table(g, i, scope, budget)
        # a resource this source alone contributes to, or alone asks about, is already settled (_settle)
        t = _Table.of(frozenset([i]), scope, _normalise(g, frozenset([i]), scope, rows))
        if not len(t.w):
            return 0
        if t.scope:
            tables.append(t)
        else:
            total *= t.total()
    if tables:
        work, joins = _order(g, tables)
        if estimate_limit is not None and work > estimate_limit:
            raise _Over
        total *= _contract(g, tables, joins, budget)
    return total


#: estimated work (pairs of entries joined) up to which the tables are joined before one source or one blocker at a
#: time is tried, and the largest need at which they are (a need of N makes 2N + 1 states: binomials are cheaper)
FIRST_ESTIMATE = 10**7
FIRST_NEED = 64

#: a component of count_shared's shape whose cheaper method's rough cost is at most this is counted by it before
#: any table is built: on the small boards of a batch (a few sources, small needs) it is several times faster than
#: the tables' set-up (measured on bench_solve's boards: ~50-700 us against ~0.5-2 ms a component)
SHARED_FIRST_COST = 1000


def count_component(plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> int:
    """The count of a component: one source or one blocker at a time first when that looks cheap
    (``SHARED_FIRST_COST``); the tables joined in a graph-chosen order when their estimated work is small and needs
    are small; else one source or one blocker at a time (:func:`~trample.engines.by_source.count_shared`,
    for the shapes where identical attackers share many blockers or needs are in the thousands), within its work
    bounds; then the tables, without a bound (the deadline still holds)."""
    deadline = deadline or NEVER
    if not plan.options_in(component):
        n = count_shared(plan, component, deadline, cost_limit=SHARED_FIRST_COST)
        if n is not None:
            return n
    small_needs = all(
        plan.lethal_need.get(x, plan.loyalty_need.get(x, 0)) <= FIRST_NEED for i in component for x in plan.resources(i)
    )
    if small_needs:
        n = count_by_factors(plan, component, deadline, work_limit=4 * FIRST_ESTIMATE, estimate_limit=FIRST_ESTIMATE)
        if n is not None:
            return n
    if not plan.options_in(component):
        n = count_shared(plan, component, deadline)
        if n is not None:
            return n
    n = count_by_factors(plan, component, deadline)
    assert n is not None  # no bound was given
    return n


def _contract(g: Graph, tables: list[_Table], joins: list[tuple[int, int]], budget: Budget) -> int:
    """Carry out the joins (pairs of slots: the second joins into the first) and multiply what is left."""
    slots: list[_Table | None] = list(tables)
    for a, b in joins:
        A, B = slots[a], slots[b]
        assert A is not None and B is not None
        t = _join(g, A, B, budget)
        if not len(t.w):
            return 0
        slots[a], slots[b] = t, None
    total = 1
    for left in slots:
        if left is not None:
            assert not left.scope  # every resource has met all its contributors and askers
            total *= left.total()
    return total


def _order(g: Graph, tables: list[_Table]) -> tuple[int, list[tuple[int, int]]]:
    """The estimated work and the joins (pairs of slots) of whichever of two greedy plans has the smaller estimated
    work (the sum, over the joins, of the product of the two tables' sizes; a table's size estimated as the product
    of its resources' possible states, at most the product of the sizes it came from): bucket elimination (each
    time, the resource whose tables joined have the fewest possible states: min-size) or one table at a time into a
    growing one (each time, the table that leaves the fewest possible states: a path through the sharing graph, as
    a cycle wants)."""
    sims = [(t.members, frozenset(t.scope), len(t.w)) for t in tables]

    def join(A: Sim, B: Sim) -> tuple[Sim, int]:
        members = A[0] | B[0]
        scope = frozenset(x for x in A[1] | B[1] if domain_size(g, x, members))
        size = min(A[2] * B[2], prod(domain_size(g, x, members) for x in scope))
        return (members, scope, size), A[2] * B[2]

    plans = []
    # bucket elimination
    slots: list[Any] = list(sims)
    joins: list[tuple[int, int]] = []
    work = 0
    while True:
        live = [k for k, t in enumerate(slots) if t is not None and t[1]]
        if not live:
            break
        best: Any = None
        for x in sorted({x for k in live for x in slots[k][1]}):
            bucket = [k for k in live if x in slots[k][1]]
            members = frozenset().union(*(slots[k][0] for k in bucket))
            names = set().union(*(slots[k][1] for k in bucket))
            size = prod(d for d in (domain_size(g, y, members) for y in names) if d)
            est = (min(size, prod(slots[k][2] for k in bucket)), len(bucket))
            if best is None or est < best[0]:
                best = (est, bucket)
        assert best is not None
        bucket = sorted(best[1], key=lambda k: slots[k][2])
        first = bucket[0]
        for k in bucket[1:]:
            slots[first], cost = join(slots[first], slots[k])
            slots[k] = None
            joins.append((first, k))
            work += cost
    plans.append((work, joins))
    # one table at a time, from a few starting tables
    starts = sorted(range(len(sims)), key=lambda k: (len(sims[k][1]), sims[k][2]))[:4]
    for start in starts:
        cur, left = sims[start], set(range(len(sims))) - {start}
        joins, work = [], 0
        while left:
            best_next: Any = None
            for k in sorted(left):
                if not cur[1] & sims[k][1]:
                    continue
                nxt, cost = join(cur, sims[k])
                rank = (nxt[2], cost, k)
                if best_next is None or rank < best_next[0]:
                    best_next = (rank, k, nxt, cost)
            if best_next is None:  # pragma: no cover - the tables of a component are linked
                break
            _, k, cur, cost = best_next
            left.discard(k)
            joins.append((start, k))
            work += cost
        if not left:
            plans.append((work, joins))
    return min(plans, key=lambda p: p[0])


def _normalise(g: Graph, members: frozenset[int], scope: tuple[str, ...], rows: Rows) -> Rows:
    """A source's rows settled for what it already covers (:func:`_settle`); resources that left are removed."""
    out: Rows = {}
    for key, w in rows.items():
        kept = []
        for x, s in zip(scope, key):
            s = _settle(g, x, members, s)
            if s == DEAD:
                break
            if s != DROP:
                kept.append(s)
        else:
            k2 = tuple(kept)
            out[k2] = out.get(k2, 0) + w
    return {k: w for k, w in out.items() if w}


# -- one count in parts (trample.shard.count_split) ------------------------------------------------------------


@dataclass
class Split:
    """A component's count prepared for workers: ``settled`` (the product of what needs no join) times the sum,
    over the entries of table ``slot`` cut into ranges, of :func:`count_part` of each range. The contraction is
    linear in each table's weights (a sum of products), so the parts' counts add up exactly to the count."""

    graph: Graph
    tables: list[_Table]
    joins: list[tuple[int, int]]
    slot: int
    settled: int

    @property
    def entries(self) -> int:
        """How many entries the split table has (parts are ranges of them)."""
        return len(self.tables[self.slot].w) if self.tables else 0


def split_count(plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> Split:
    """The tables of a component and their join order (:func:`_order`), with the table to cut: the one with the
    most entries (of those tried on random sharing graphs, its parts' largest was the smallest: about half the
    whole contraction at 8 parts, docs/scale.md). No table to join: ``settled`` is the count."""
    budget = Budget(deadline or NEVER, None)
    g = Graph(plan, component)
    settled = 1
    tables: list[_Table] = []
    for i in component:
        scope = tuple(sorted(x for x in g.need if i in g.touchers[x] and len(g.touchers[x]) > 1))
        rows = _source_table(g, i, scope, budget)
        t = _Table.of(frozenset([i]), scope, _normalise(g, frozenset([i]), scope, rows))
        if not len(t.w):
            return Split(g, [], [], 0, 0)
        if t.scope:
            tables.append(t)
        else:
            settled *= t.total()
    if not tables:
        return Split(g, [], [], 0, settled)
    _, joins = _order(g, tables)
    slot = max(range(len(tables)), key=lambda k: len(tables[k].w))
    return Split(g, tables, joins, slot, settled)


def count_part(split: Split, lo: int, hi: int, deadline: Deadline | None = None) -> int:
    """The contraction of ``split`` with only entries ``lo <= k < hi`` of its split table (a worker's part;
    ``settled`` not included). Parts over consecutive ranges covering every entry add up to the count."""
    if not split.tables:  # nothing to join (trample.shard sends no parts then)
        return 1
    tables = list(split.tables)
    t = tables[split.slot]
    tables[split.slot] = _Table(t.members, t.scope, t.keys[lo:hi], t.w[lo:hi])
    if not len(tables[split.slot].w):
        return 0
    return _contract(split.graph, tables, split.joins, Budget(deadline or NEVER, None))
