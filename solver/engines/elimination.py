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
  whatever n. On large boards (an estimated work past ``PATH_ALL_FROM``), the linear order of least estimated work
  too, found by dynamic programming over the sets of tables, where it is estimated far cheaper (``LINEAR_MARGIN``).

**As though it weren't blocked** (:attr:`~trample.rules.SourcePlan.unblocked`): the legal assignments of a
component are counted by inclusion-exclusion over each option source's ways (normal, unblocked, minus their
common part: :meth:`~trample.rules.DamagePlan.variants`). The count is linear in each source's table, so the
source's table is the signed sum of its ways' tables: n such attackers cost n small sums, not 2^n programmes.

Counts are exact: int64 while a bound on them is below 2^53, else residues modulo a few primes below 2^22 rebuilt by
the Chinese remainder theorem (:class:`Ring`; a signed sum of tables cancels exactly either way). A join is a float64
matrix product where its matrices are small and full enough (:func:`_by_products`), else pair by pair. The deadline
is read every few thousand operations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from math import prod
from typing import Any

import numpy as np
import numpy.typing as npt

from ..limits import NEVER, Deadline
from ..rules import DamagePlan, Route, SourcePlan
from .by_source import blocker_cost, compositions, count_shared

SAT = -1  # no constraint left: the need is met, or nothing will ask about it any more
UNSAT = -2  # its total is final and short: no gate naming it may be used
CHECK_EVERY = 1 << 12  # operations between two looks at the clock
#: the plan's cache (``plan.cache.of``) where the direct engine keeps each component's count (its key: the component
#: as a tuple), read by the listers that would otherwise count again (engines/conditioned.py)
COUNTS = "direct-count"

#: A table as a dict: resource states over its scope -> count.
Rows = dict[tuple[int, ...], int]
#: Rows of resource states (or their mixed-radix codes), int64.
Keys = npt.NDArray[np.int64]
#: A table's index columns (each entry's index into a column's values): bytes where they fit (:func:`digit_type`).
Digits = npt.NDArray[Any]
#: Counts: int64 while they provably fit, Python integers (dtype object) past it.
Weights = npt.NDArray[Any]
#: A table as :func:`_order` plans with it: (members, scope, estimated size).
Sim = tuple[frozenset[int], frozenset[str], int]


ROUTE_CHUNK = 1 << 14  # steps of route_states between two looks at the budget (and so at the clock)


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
        # spent ROUTE_CHUNK entries at a time, not once per route: a route of thousands of values after thousands of
        # states is millions of steps (three tramplers on two blockers of toughness 2 000: seconds past a limit)
        chunk = max(1, ROUTE_CHUNK // max(1, len(opts)))
        for k, ((state, sh, pa), w) in enumerate(partial.items()):
            if budget is not None and k % chunk == 0:
                budget.spend(min(chunk, len(partial) - k) * len(opts))
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
    """Operations done, the clock read every CHECK_EVERY of them, and an optional bound (then :class:`OverBudget`)."""

    __slots__ = ("deadline", "limit", "ops", "next_check")

    def __init__(self, deadline: Deadline, limit: int | None):
        self.deadline, self.limit, self.ops, self.next_check = deadline, limit, 0, CHECK_EVERY

    def check(self) -> None:
        """Read the clock now (after a long step of numpy's, whatever the operations counted)."""
        self.deadline.check()

    def spend(self, n: int) -> None:
        self.ops += n
        if self.ops >= self.next_check:
            self.next_check = self.ops + CHECK_EVERY
            self.deadline.check()
            if self.limit is not None and self.ops > self.limit:
                raise OverBudget


class OverBudget(Exception):
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
#: counts are kept exact (one row, no modulus) while the bound is below this: every partial sum is then exact in
#: float64 too, which the joins by matrix products (:func:`_by_products`) use
EXACT_BOUND = 1 << 53
#: the moduli are primes below 2^MODULUS_BITS: centred residues (|r| <= 2^21 + 4, Ring.fold) multiply below
#: 2^42 (1 + 2^-18), so a float64 matrix product over at most INNER terms, plus a folded sum, stays below 2^53, exact
MODULUS_BITS = 22
INNER = (1 << 11) - 2
DENSE = 1 << 22  # result codes x moduli up to which a join adds its counts into one dense array (32 MB of int64)
#: result codes x moduli up to which a join's sums go dense once the pairs sorted outnumber SUMS_SWITCH times the
#: codes (64 MB): a join of 5.5 x 10^5 x 731 entries into 2.7 x 10^6 codes with three rows of counts (12 attackers
#: on 14 blockers, 5 each, seed 1) took 17.6 s sorted and merged, 1.8 s with one row of counts (dense)
DENSE_MANY = 2 * DENSE
SUMS_SWITCH = 1


def _is_prime(n: int) -> bool:
    """Miller-Rabin with the bases 2, 3, 5, 7: exact below 3 215 031 751 (the moduli are below 2^22)."""
    if n < 2 or n % 2 == 0:
        return n == 2
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7):
        if a % n == 0:
            continue
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


_PRIMES: dict[int, list[int]] = {}


def _primes(bits: int, n: int) -> list[int]:
    """The ``n`` largest primes below 2^bits, largest first (kept from one call to the next)."""
    found = _PRIMES.setdefault(bits, [])
    while len(found) < n:
        m = (found[-1] if found else 1 << bits) - 1
        while not _is_prime(m):
            m -= 1
        found.append(m)
    return found[:n]


def _moduli(bound: int) -> tuple[int, ...]:
    """The largest primes below 2^MODULUS_BITS, as many as it takes for their product to exceed ``bound``."""
    out: list[int] = []
    product = 1
    while product <= bound:
        out.append(_primes(MODULUS_BITS, len(out) + 1)[-1])
        product *= out[-1]
    return tuple(out)


#: a count whose bound asks for at least APPROX_FROM primes below 2^22 is counted modulo APPROX_PRIMES primes below
#: 2^APPROX_BITS, with a float64 row of approximate counts beside them (:class:`Ring`): fewer rows per join. Centred
#: residues below 2^22 multiply below 2^44, so a matrix product sums at most INNER_APPROX of them below 2^53.
APPROX = True
APPROX_FROM = 4
APPROX_PRIMES = 2
APPROX_BITS = 23
INNER_APPROX = (1 << 9) - 2
#: the unit roundoff of float64 (round to nearest)
UNIT = 2.0**-53


def gamma(n: int) -> float:
    """A bound on the relative error of a float64 value that went through ``n`` roundings (n u / (1 - n u)),
    rounded up."""
    nu = n * UNIT
    return nu / (1 - nu) * (1 + 2.0**-40) if nu < 0.5 else float("inf")


class Inexact(Exception):
    """The float row's error bound is too wide for the primes counted: ``residues`` (per modulus of ``moduli``),
    ``approx`` (the approximate count) and ``error`` (a bound on its absolute error) say what is known."""

    def __init__(self, moduli: tuple[int, ...], residues: list[int], approx: float, error: float):
        super().__init__()
        self.moduli, self.residues, self.approx, self.error = moduli, residues, approx, error


def rebuild(moduli: Sequence[int], residues: Sequence[int], approx: float, error: float) -> int | None:
    """The integer within ``error`` of ``approx`` congruent to ``residues`` modulo ``moduli`` (Chinese remainder
    theorem), or None when the product of the moduli is not more than twice the error (two could be)."""
    M = prod(moduli)
    if not error < (M - 2) / 2:
        return None
    x = 0
    for r, m in zip(residues, moduli):
        q = M // m
        x += r * q * pow(q, -1, m)
    x %= M
    a = int(approx)  # a float is an exact integer past 2^53; below, within 1 of approx
    err = int(error) + 2
    n = x + M * ((a - x + M // 2) // M)  # the one congruent to x in [a - M/2, a + M/2)
    return n if abs(n - a) <= err else None


class Ring:
    """Where the joins count: exact when ``bound`` (at most the sum of |counts| of any table, and of any product of
    two entries) is below 2^53 (int64, and exact in float64 too), else modulo a few primes below 2^22 at once (the
    residues of a count as rows of one int64 array: products below 2^44, sums reduced as they grow; centred, they
    multiply in float64 matrix products below 2^53) and the count rebuilt by the Chinese remainder theorem -- exact,
    since its absolute value is below half the product of the primes (a part's count, trample.shard.count_split,
    may be negative on signed tables). Python integers in object arrays, the alternative, are tens of times slower
    than int64 in numpy.

    With ``approx`` (tables whose counts are all nonnegative, and a bound that asks for APPROX_FROM primes or
    more), the counts are kept modulo APPROX_PRIMES primes below 2^APPROX_BITS, plus a last row of float64
    approximate counts (the array is float64: residues are exact integers in it). Every sum and product of
    nonnegative numbers has a relative error bounded by the roundings on its way (:func:`gamma`; each table carries
    its bound), so the count is known within an error bound, and the residues modulo primes whose product is over
    twice that error rebuild it exactly (:func:`rebuild`). ``moduli`` given: those primes (of ``bits`` bits), no
    float row (the primes a short error bound still asks for)."""

    __slots__ = ("moduli", "p", "approx", "bits")

    def __init__(self, bound: int, approx: bool = False, moduli: tuple[int, ...] | None = None, bits: int = 0):
        self.approx = False
        self.bits = bits or MODULUS_BITS
        if moduli is not None:
            self.moduli = moduli
        elif bound < EXACT_BOUND:
            self.moduli = ()
        else:
            self.moduli = _moduli(2 * bound)  # room for a sign (a part's count)
            if approx and APPROX and len(self.moduli) >= APPROX_FROM and bound < 1 << 1000:
                self.approx, self.bits = True, APPROX_BITS
                self.moduli = tuple(_primes(APPROX_BITS, APPROX_PRIMES))
        self.p = np.array(self.moduli, dtype=np.int64)[:, None] if self.moduli else None

    @property
    def k(self) -> int:
        """Rows of counts: one per modulus (and the float row), at least one."""
        return max(1, len(self.moduli) + self.approx)

    @property
    def dtype(self) -> type:
        return np.float64 if self.approx else np.int64

    @property
    def inner(self) -> int:
        """Signatures multiplied at once in a matrix product (every sum of centred residues below 2^53)."""
        return INNER_APPROX if self.bits > MODULUS_BITS else INNER

    @property
    def span(self) -> int:
        """Residues (below 2^bits) that can be added before the sum could pass 2^53."""
        return 1 << (53 - self.bits)

    def of(self, values: list[int]) -> Weights:
        """Counts as a (k, n) array of residues (one row of exact counts when no moduli; the float row last)."""
        if not self.moduli:
            return np.array([values], dtype=np.int64).reshape(1, len(values))
        rows: list[list[Any]] = [[v % m for v in values] for m in self.moduli]
        if self.approx:
            rows.append([float(v) for v in values])
        return np.array(rows, dtype=self.dtype).reshape(self.k, len(values))

    def reduce(self, w: Weights) -> Weights:
        """Counts (k rows of a fresh array) reduced modulo the primes, in place, row by row (faster than
        broadcasting); the float row as it is. Float residues (integers below 2^53) by :meth:`fold` and :meth:`lift`,
        exact and a few times faster than numpy's float remainder (primes over 2^21: :meth:`fold`'s bound)."""
        if w.dtype == np.float64 and min(self.moduli, default=0) > 1 << 21:
            self.fold(w)
            return self.lift(w)
        for row, m in zip(w, self.moduli):
            np.remainder(row, m, out=row)
        return w

    def lift(self, w: Weights) -> Weights:
        """Folded residues (at most p / 2 + 4 in absolute value, :meth:`fold`) brought into [0, p), in place (a cheap
        pass where :meth:`reduce` divides). Adds ``p`` times the 0/1 mask: numpy's ``where=`` takes the masked
        path, five to seven times slower."""
        for row, m in zip(w, self.moduli):
            row += (row < 0) * row.dtype.type(m)
        return w

    def centred(self, w: Weights, copy: bool = True) -> npt.NDArray[np.float64]:
        """Counts as float64 for a matrix product: exact counts as they are, residues r in [0, p) as r or r - p,
        whichever is smaller in absolute value (at most p / 2 < 2^(bits - 1)). Not ``copy``: a float64 ``w`` is
        centred in place (a copy taken for the purpose)."""
        f = w.astype(np.float64, copy=copy)
        if self.moduli:
            for row, m in zip(f, self.moduli):
                row -= (row > m // 2) * float(m)  # (the mask times p: ``where=`` is several times slower)
        return f

    def fold(self, acc: npt.NDArray[np.float64], first: int = 0) -> None:
        """Float sums (exact integers below 2^53) of rows ``first``, ... brought back to at most p / 2 + 4 in absolute
        value, in place: ``x - p * rint(x / p)``, exact (integers below 2^53); the quotient, computed with a
        relative error below 2^-51 on |x / p| < 2^32, is within 2^-20 of the true one, so it rounds to a nearest
        integer or misses the tie by at most 2^-20 (p * 2^-20 < 4 for p below 2^22; below 2^23, |x / p| < 2^31 and
        the miss is at most 2^-21). The float row is left as it is."""
        for row, m in zip(acc, self.moduli[first:]):
            row -= m * np.rint(row * (1.0 / m))

    def total(self, w: Weights) -> list[Any]:
        """The sum of a table's counts, per modulus (Python integers), and the float row's sum last."""
        if self.approx:
            sums: list[Any] = [int(x) % m for x, m in zip(w[:-1].sum(axis=1), self.moduli)]
            return [*sums, float(w[-1].sum())]
        sums = [int(x) for x in w.sum(axis=1, dtype=np.int64)] if w.shape[1] else [0] * self.k
        return sums if not self.moduli else [s % m for s, m in zip(sums, self.moduli)]

    def product(self, totals: list[list[Any]], err: float = 0.0) -> int:
        """The exact product of tables' totals given per modulus (Chinese remainder theorem). With the float row:
        ``err`` bounds the relative error of the product of the float totals; :class:`Inexact` when the primes'
        product is not over twice the absolute error."""
        return int(self.finish(self.raw(totals, err)))

    def raw(self, totals: list[list[Any]], err: float = 0.0) -> Total:
        """The product of tables' totals before it is rebuilt (:meth:`finish`): per modulus its residue (the exact
        product when there is none), and with the float row the approximate product and a bound on its absolute
        error (``err`` bounds the relative error of the float totals' product, as in :meth:`product`)."""
        if not self.moduli:
            return [prod(t[0] for t in totals)], 0.0, 0.0
        residues = [prod(t[j] for t in totals) % m for j, m in enumerate(self.moduli)]
        if not self.approx:
            return residues, 0.0, 0.0
        approx = 1.0
        for t in totals:
            approx *= t[-1]
        err = (1 + err) * (1 + gamma(len(totals))) - 1
        return residues, approx, approx * err / (1 - err) * (1 + 2.0**-40) if err < 0.5 else float("inf")

    def zero(self) -> Total:
        return [0] * max(1, len(self.moduli)), 0.0, 0.0

    def finish(self, total: Total, residues: bool = False) -> Any:
        """A contraction's count from :meth:`raw`: with ``residues``, its residue per modulus as
        they are; exact counts as they are; with the float row, rebuilt (:func:`rebuild`; :class:`Inexact` when
        the primes' product is not over twice the error); else by the Chinese remainder theorem, signed."""
        values, approx, error = total
        if residues:
            return values
        if not self.moduli:
            return values[0]
        if self.approx:
            n = rebuild(self.moduli, values, approx, error)
            if n is None:
                raise Inexact(self.moduli, values, approx, error)
            return n
        M = prod(self.moduli)
        x = 0
        for r, m in zip(values, self.moduli):
            q = M // m
            x += r * q * pow(q, -1, m)
        x %= M
        return x - M if 2 * x > M else x  # |x| <= bound < M / 2


#: a contraction's product before it is rebuilt (:meth:`Ring.raw`): residues (or the exact count), the approximate
#: count and a bound on its absolute error (both 0.0 without the float row)
Total = tuple[list[int], float, float]


class _Table:
    """Entries of a table: ``keys`` (one row of resource states per entry, over ``scope``) and their counts ``w``
    (a (k, n) int64 array: exact counts, or their residues modulo the ring's primes; float64 with the ring's float
    row last) and ``err``, a bound on the relative error of the float row's counts. A join's table holds its
    states as ``index``: per column, sorted values and each entry's index into them (what :func:`_join_key` reads;
    some values may be unused), and builds ``keys`` only when asked."""

    __slots__ = ("members", "scope", "_keys", "index", "w", "err", "_columns")

    def __init__(
        self,
        members: frozenset[int],
        scope: tuple[str, ...],
        keys: Keys | None,
        w: Weights,
        err: float = 0.0,
        index: list[tuple[Keys, Keys]] | None = None,
    ):
        self.members, self.scope, self._keys, self.w, self.err, self.index = members, scope, keys, w, err, index
        self._columns: dict[int, tuple[Keys, Keys]] = {}  # column c's values and indices, once asked (no index)

    @classmethod
    def of(cls, members: frozenset[int], scope: tuple[str, ...], rows: Rows, ring: Ring) -> _Table:
        keys = np.array(list(rows), dtype=np.int64).reshape(len(rows), len(scope))
        return cls(members, scope, keys, ring.of(list(rows.values())), UNIT if ring.approx else 0.0)

    @property
    def keys(self) -> Keys:
        if self._keys is None:
            assert self.index is not None
            self._keys = np.empty((self.w.shape[1], len(self.scope)), dtype=np.int64)
            for c, (v, at) in enumerate(self.index):
                self._keys[:, c] = v[at]
        return self._keys

    def taken(self, idx: Keys) -> _Table:
        """The table of entries ``idx`` alone (a part of a contraction cut: :func:`_cut`)."""
        w = np.take(self.w, idx, axis=1)
        if self.index is None:
            return _Table(self.members, self.scope, self.keys[idx], w, self.err)
        return _Table(self.members, self.scope, None, w, self.err, [(v, at[idx]) for v, at in self.index])

    def column(self, c: int) -> tuple[Keys, Keys]:
        """Column ``c``'s values (sorted) and each entry's index into them (kept: a conditioned unrank joins the same
        tables after a source with each prefix's one entry, :func:`_join_one`)."""
        if self.index is not None:
            return self.index[c]
        got = self._columns.get(c)
        if got is None:
            got = self._columns[c] = unique(self.keys[:, c])
        return got

    def __len__(self) -> int:
        return int(self.w.shape[1])


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


def sum_table(g: Graph, x: str, members: frozenset[int], ua: Keys, ub: Keys) -> Keys:
    """The state of ``x`` from two disjoint sets of sources, then settled (:func:`_settle`), for every pair of the
    states ``ua`` (of one table) and ``ub`` (of the other), as a matrix (numpy: a blocker that needs 5 000 has
    10 000 states). Totals add, capped (SAT at the need); flags or; UNSAT (final and short) with a flag: DEAD."""
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


# The records of a join (_JoinKey, _QChunks, _DensePlan) are plain classes: a dataclass costs about a millisecond of
# import, paid by a fresh process's first count.
class _JoinKey:
    """How :func:`_join` codes a pair of entries: the result's ``scope``, each column's possible states ``vals``
    (sorted; the code holds an index into them) and ``radix`` (their numbers; ``size``: the product), each side's
    own part of the code per entry (``ca``, ``cb``), and per shared resource the table of sums indexed by each
    side's entries (``combos``: (sums, A's index, B's index); a dead sum is ``DEAD_CODE``)."""

    __slots__ = ("scope", "vals", "radix", "size", "ca", "cb", "combos", "inner", "digits", "own")

    scope: tuple[str, ...]
    vals: list[Keys]
    radix: list[int]
    size: int
    ca: Keys
    cb: Keys
    combos: list[tuple[Keys, npt.NDArray[np.intp], npt.NDArray[np.intp]]]
    inner: int  # the codes of the columns after A's own: B's own and the shared ones (``ca`` is a multiple of it)
    digits: list[tuple[int, int]]  # per shared resource: its sum's multiplier in the code and its number of states
    # (1, 1) for a resource that leaves the table
    own: int  # the columns of A's own resources (the first of ``scope``; ``ca // inner`` codes them)

    def __init__(
        self,
        scope: tuple[str, ...],
        vals: list[Keys],
        radix: list[int],
        size: int,
        ca: Keys,
        cb: Keys,
        combos: list[tuple[Keys, npt.NDArray[np.intp], npt.NDArray[np.intp]]],
        inner: int,
        digits: list[tuple[int, int]],
        own: int,
    ):
        self.scope = scope
        self.vals = vals
        self.radix = radix
        self.size = size
        self.ca = ca
        self.cb = cb
        self.combos = combos
        self.inner = inner
        self.digits = digits
        self.own = own


DEAD_CODE = -(1 << 61)  # the code of a pair whose sum breaks a gate: negative, and far from overflowing


def unique(col: Keys) -> tuple[Keys, Keys]:
    """``np.unique(col, return_inverse=True)`` for small integers (states, signatures): by marking, not sorting,
    when their range is not much wider than the column."""
    if not len(col):
        return col[:0], col[:0]
    lo, hi = int(col.min()), int(col.max())
    if hi - lo > 4 * len(col) + 4096:  # by sorting (np.unique would import numpy.ma: 10-15 ms in a fresh process)
        order = np.argsort(col, kind="stable")
        ranked = col[order]
        new = np.empty(len(col), dtype=bool)
        new[0], new[1:] = True, ranked[1:] != ranked[:-1]
        inv = np.empty(len(col), dtype=np.int64)
        inv[order] = np.cumsum(new) - 1
        return ranked[new], inv
    present = np.zeros(hi - lo + 1, dtype=bool)
    present[col - lo] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present) + lo, rank[col - lo]


def distinct(values: Keys) -> Keys:
    """``np.unique(values)`` (sorted, each once, the same dtype) without its test for masked arrays, whose first
    call imports ``numpy.ma`` (some 10 ms, in the first count of a process that reaches here)."""
    v: Keys = np.sort(values)
    keep = np.ones(len(v), dtype=bool)
    keep[1:] = v[1:] != v[:-1]
    out: Keys = v[keep]
    return out


def _join_key(g: Graph, A: _Table, B: _Table, members: frozenset[int]) -> _JoinKey:
    """The mixed-radix code of the pairs of A's and B's entries (see :class:`_JoinKey`): A's own resources, then
    B's, then the shared ones that stay, each over the states it can have there (so that the codes are dense);
    :class:`OverBudget` when the code would not fit in an int64."""
    b_at = {x: k for k, x in enumerate(B.scope)}
    shared = [x for x in A.scope if x in b_at]
    a_only = [k for k, x in enumerate(A.scope) if x not in b_at]
    b_only = [k for k, x in enumerate(B.scope) if x not in set(shared)]
    # per column of the result: its name, its possible states, and each entry's (or pair's) index into them
    cols_a = [(A.scope[k], *A.column(k)) for k in a_only]
    cols_b = [(B.scope[k], *B.column(k)) for k in b_only]
    sums = []
    for x in shared:
        ua, xa = A.column(A.scope.index(x))
        ub, xb = B.column(b_at[x])
        sums.append((x, sum_table(g, x, members, ua, ub), xa, xb))
    kept = [(x, distinct(t[t >= UNSAT])) for x, t, _, _ in sums if domain_size(g, x, members)]
    scope = tuple([c[0] for c in cols_a] + [c[0] for c in cols_b] + [x for x, _ in kept])
    vals = [c[1] for c in cols_a] + [c[1] for c in cols_b] + [v for _, v in kept]
    radix = [max(1, len(v)) for v in vals]
    if float(np.prod(np.array(radix, dtype=float))) >= 2.0**60:  # pragma: no cover - frontiers far past any bound
        raise OverBudget
    mult: dict[str, int] = {}
    m = 1
    for x, r in zip(reversed(scope), reversed(radix)):
        mult[x] = m
        m *= r
    # the parts of the key that come from one side only
    ca = np.zeros(len(A), dtype=np.int64)
    for x, _, inv in cols_a:
        ca += inv.astype(np.int64) * mult[x]  # (index columns may be of bytes: widened first)
    cb = np.zeros(len(B), dtype=np.int64)
    for x, _, inv in cols_b:
        cb += inv.astype(np.int64) * mult[x]
    at_vals = dict(kept)
    combos, digits = [], []
    for x, t, xa, xb in sums:
        if x in at_vals:
            code = np.searchsorted(at_vals[x], t) * mult[x]
            digits.append((mult[x], len(at_vals[x])))
        else:
            code = np.zeros_like(t)
            digits.append((1, 1))
        combos.append((np.where(t == DEAD, DEAD_CODE, code), xa, xb))
    return _JoinKey(scope, vals, radix, m, ca, cb, combos, prod(radix[len(cols_a) :]), digits, len(cols_a))


def _runs_added(code: Keys, cols: Keys, w: Weights, ring: Ring) -> tuple[Keys, Weights]:
    """Sorted codes with their counts (``w``'s columns ``cols``, in the codes' order): the first of each run of equal
    codes (positions in ``code``) and the run's counts added, reduced. Float counts are added by one bincount a
    row: ``np.add.reduceat`` pays per run, twice the time where most runs have one code (a conditioned unrank's
    merges of 1-2 x 10^6 codes: 80-450 ms, a pass no deadline can look into); the same additions in the same order
    (within a run, by position). Residues (below 2^23, integer or float) add exactly in float64 (a run of fewer
    than 2^30 of them stays below 2^53); exact counts (no moduli: past 2^53) keep reduceat."""
    new = np.empty(len(code), dtype=bool)
    new[:1] = True
    np.not_equal(code[1:], code[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    if len(starts) == len(code):  # every code once: nothing to add
        return starts, ring.reduce(np.take(w, cols, axis=1))
    if not ring.moduli or ring.bits > APPROX_BITS:
        return starts, ring.reduce(np.add.reduceat(np.take(w, cols, axis=1), starts, axis=1))
    run = np.cumsum(new) - 1
    out = np.empty((w.shape[0], len(starts)), dtype=w.dtype)
    for j, row in enumerate(w):
        out[j] = np.bincount(run, weights=np.take(row, cols), minlength=len(starts))
    return starts, ring.reduce(out)


#: codes merged in one pass of numpy's (:func:`_merged`): a few tens of milliseconds, then the clock is read
MERGE_SLICE = 1 << 19


def _merged(
    parts_c: list[Keys], parts_w: list[Weights], ring: Ring, budget: Budget | None = None, live: bool = False
) -> tuple[Keys, Weights]:
    """Sorted (code, counts) parts as one: equal codes' counts added (``live``: only the codes whose counts are not
    all zero). With a ``budget``, a range at a time (:func:`_merged_ranges`); without one, in one sort, which any
    parts may take (:func:`_added`'s codes are in each table's own order, not sorted)."""
    codes, weights = _merged_ranges(parts_c, parts_w, ring, budget)
    if live:
        for i, (c, w) in enumerate(zip(codes, weights)):
            kept = np.flatnonzero(w.any(axis=0))
            codes[i], weights[i] = c[kept], np.take(w, kept, axis=1)
            if budget is not None:
                budget.check()
    if len(codes) == 1:
        return codes[0], weights[0]
    return _concatenated(codes), _concatenated(weights)


def _merged_ranges(
    parts_c: list[Keys], parts_w: list[Weights], ring: Ring, budget: Budget | None = None
) -> tuple[list[Keys], list[Weights]]:
    """Sorted (code, counts) parts merged into sorted parts of ascending, disjoint ranges of codes. With a
    ``budget``, parts of more than MERGE_SLICE codes in all are merged a range of codes at a time (every part cut
    at the same codes: a range's codes are all in its slices), the clock read after each: a merge of 2 x 10^6 codes
    is 80-150 ms of numpy's that no deadline could look into. The ranges are kept apart (:class:`_Sums` holds them
    as its parts), so that no pass over the whole merge is left to make after the last reading."""
    total = sum(len(c) for c in parts_c)
    if budget is None or total <= MERGE_SLICE:
        c, w = _merged_once(parts_c, parts_w, ring)
        return [c], [w]
    n = -(-total // MERGE_SLICE)
    longest = max(parts_c, key=len)
    cuts = longest[(np.arange(1, n) * len(longest)) // n]
    at = [np.searchsorted(c, cuts) for c in parts_c]  # each part's slices: [at[j][i - 1], at[j][i])
    codes: list[Keys] = []
    weights: list[Weights] = []
    for i in range(n):
        lo = [0 if i == 0 else int(a[i - 1]) for a in at]
        hi = [len(c) if i == n - 1 else int(a[i]) for c, a in zip(parts_c, at)]
        c, w = _merged_once(
            [c[x:y] for c, x, y in zip(parts_c, lo, hi)], [w[:, x:y] for w, x, y in zip(parts_w, lo, hi)], ring
        )
        codes.append(c)
        weights.append(w)
        budget.check()
    return codes, weights


def _merged_once(parts_c: list[Keys], parts_w: list[Weights], ring: Ring) -> tuple[Keys, Weights]:
    """Sorted (code, counts) parts as one, in one pass: equal codes' counts added."""
    c2, w2 = np.concatenate(parts_c), np.concatenate(parts_w, axis=1)
    # the parts are sorted runs, which the stable sort (timsort) merges: two runs of 6 x 10^6 codes in 25 ms, where
    # the default quicksort takes 0.44 s (the order of equal codes only changes the float row's roundings)
    order = np.argsort(c2, kind="stable")
    c2 = c2[order]
    starts, w = _runs_added(c2, order, w2, ring)
    return c2[starts], w


class _Sums:
    """The counts of a join's keys as pairs arrive: in one dense array when the key space is small (``size`` times
    the moduli at most DENSE), else as sorted parts merged as they grow (:func:`_merged`) -- until the pairs sorted
    outnumber the keys (SUMS_SWITCH) while the key space is at most DENSE_MANY: then the parts go into a dense
    array and the pairs after them too. Dense sums of residues (each below 2^22) are reduced before they could pass
    2^53."""

    def __init__(self, size: int, ring: Ring, budget: Budget | None = None):
        self.ring, self.size, self.budget = ring, size, budget  # (the budget: merges read the clock as they go)
        self.acc: Weights | None = np.zeros((ring.k, size), dtype=ring.dtype) if size * ring.k <= DENSE else None
        self.parts_c: list[Keys] = []
        self.parts_w: list[Weights] = []
        self.held = self.added = self.merged = self.sorted = 0

    def _to_dense(self) -> None:
        """The sorted parts as a dense array (each key once: one reduced count a cell)."""
        acc: Weights = np.zeros((self.ring.k, self.size), dtype=self.ring.dtype)
        if self.parts_c:
            for code, w in zip(*_merged_ranges(self.parts_c, self.parts_w, self.ring, self.budget)):
                acc[:, code] = w
        self.acc, self.parts_c, self.parts_w, self.added = acc, [], [], 1

    def add(self, code: Keys, w: Weights) -> None:
        ring = self.ring
        if self.acc is not None:
            if ring.p is not None and self.added + len(code) >= ring.span:
                ring.reduce(self.acc)
                self.added = 0
            self.added += len(code)
            for j in range(ring.k):
                np.add.at(self.acc[j], code, w[j])
            return
        order = np.argsort(code)  # equal codes are added: their order does not matter
        code = code[order]
        starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
        self.parts_c.append(code[starts])
        self.parts_w.append(ring.reduce(np.add.reduceat(w[:, order], starts, axis=1)) if len(starts) else w[:, :0])
        self.held += len(starts)
        self.sorted += len(code)
        if self.sorted > SUMS_SWITCH * self.size and self.size * ring.k <= DENSE_MANY:
            self._to_dense()  # the pairs to come go dense too
            return
        # merged when the parts since the last merge outgrow it (and PAIRS): each entry is merged O(log) times, not
        # once per slice of pairs (a join of 7 x 10^5 keys from 4 x 10^7 pairs: 0.3 s, not 6 s)
        if self.held - self.merged > max(PAIRS, self.merged) and len(self.parts_c) > 1:
            self.parts_c, self.parts_w = _merged_ranges(self.parts_c, self.parts_w, ring, self.budget)
            self.held = self.merged = sum(len(c) for c in self.parts_c)

    def result(self) -> tuple[Keys, Weights]:
        """The keys with a nonzero count (modulo the primes), sorted, and their counts."""
        if self.acc is not None:
            acc = self.ring.reduce(self.acc)
            code = np.flatnonzero(acc.any(axis=0))
            return code, np.take(acc, code, axis=1)
        if self.parts_c:
            return _merged(self.parts_c, self.parts_w, self.ring, self.budget, live=True)
        return np.zeros(0, dtype=np.int64), np.zeros((self.ring.k, 0), dtype=self.ring.dtype)


def _join(g: Graph, A: _Table, B: _Table, ring: Ring, budget: Budget) -> _Table:
    """The table of A's and B's members together (the states of their shared resources added and settled).

    The result's key is a mixed-radix integer (:func:`_join_key`). First every distinct *signature* of A (its
    entries' states on the shared resources) is combined with every entry of B: B's own part of the key plus each
    shared resource's sum, read from a small table (a dead sum is a large negative number, so that the whole key is
    negative), the counts of B's entries that give one signature the same key added -- capped totals make many of
    them meet (:func:`_combined`). Then each entry of A is paired with the combined entries of its signature (in
    slices of at most PAIRS pairs), the counts multiplied (and reduced modulo the ring's primes) and those of equal
    keys added (:class:`_Sums`)."""
    if len(B) > len(A):
        A, B = B, A  # B's entries are combined with each of A's signatures: the smaller side
    if len(B) == 1 and len(A) <= ONE_MOST and not ring.approx:
        return _join_one(g, A, B, ring, budget)  # (the same table, without the fixed costs below)
    if len(B) <= SMALL_MOST and len(A) * len(B) * (ring.k + 1) <= SMALL_PAIRS and not ring.approx:
        return _join_small(g, A, B, ring, budget)  # (likewise, every pair at once)
    members = A.members | B.members
    key = _join_key(g, A, B, members)
    budget.check()  # (each step below is a few passes of numpy's over the tables or their pairs: the clock between)
    sa, first = _signatures(key, A)
    budget.check()
    done = _by_products(key, A, B, sa, first, ring, budget)
    # roundings of a float row's count on its way (:func:`gamma`): the sums of B's entries that meet, the product,
    # the sums over A's signatures (a matrix product) or its entries (pair by pair), and over the chunks
    if done is not None:
        idx, w, depth = done
    else:
        by_rows = _by_rows(key, A, B, sa, first, ring, budget)
        code, w = by_rows if by_rows is not None else _by_pairs(key, A, B, sa, first, ring, budget)
        depth = _row_most(key, A) + len(B) + 1 if ring.approx else 0
        budget.check()
        idx = _uncodes(code, key.radix, budget)
    err = (1 + A.err) * (1 + B.err) * (1 + gamma(depth)) - 1 if ring.approx else 0.0
    return _Table(members, key.scope, None, w, err, list(zip(key.vals, idx)))


#: a join of a table with one entry goes entry by entry of the other (:func:`_join_one`) up to this many entries of it
ONE_MOST = 1 << 16
#: a shared resource's sums for :func:`_join_one` are added in Python up to this many pairs of states (else numpy's
#: :func:`sum_table`)
ONE_SUMS = 64


def _sum_one(n: int, all_c: bool, all_a: bool, a: int, b: int) -> int:
    """One cell of :func:`sum_table` (the same steps, on Python integers: a few states cost less than numpy's calls)."""
    c = (max(a, 0) >> 1) + (max(b, 0) >> 1)
    t = SAT if c >= n else (c << 1) | ((max(a, 0) | max(b, 0)) & 1)
    if a == UNSAT and b >= 0:
        t = DEAD if b & 1 else UNSAT
    if b == UNSAT and a >= 0:
        t = DEAD if a & 1 else UNSAT
    if a == UNSAT and b == UNSAT:
        t = DEAD
    if a == SAT or b == SAT:
        t = SAT
    flagged = t >= 0 and t & 1 == 1
    if all_c and all_a:
        return DROP if t != DEAD and not flagged else DEAD
    if all_c:
        return (DEAD if flagged else UNSAT) if t >= 0 else t
    if all_a:
        return SAT if t >= 0 and not flagged else t
    return t


def _sums_one(g: Graph, x: str, members: frozenset[int], ua: Keys, ub: Keys, b: int) -> tuple[Keys | None, Keys, bool]:
    """Shared resource ``x`` in :func:`_join_one`: its states in the join (None: it leaves) as :func:`_join_key`
    makes them (the live sums of every pair of states ``ua`` and ``ub``), each of A's states' index into them when
    added to B's entry's (``ub[b]``; -1: the sum breaks a gate) and whether any does. Kept for the same states:
    the tables after a source meet each prefix's entry with the same few states."""
    n, all_c, all_a = g.need[x], g.contributors[x] <= members, g.askers[x] <= members
    stays = domain_size(g, x, members) > 0
    if len(ua) * len(ub) > ONE_SUMS:
        return _sums_of(sum_table(g, x, members, ua, ub).tolist(), stays, b)
    return _sums_cached(n, all_c, all_a, stays, tuple(ua.tolist()), tuple(ub.tolist()), b)


@lru_cache(maxsize=1 << 14)
def _sums_cached(
    n: int, all_c: bool, all_a: bool, stays: bool, ua: tuple[int, ...], ub: tuple[int, ...], b: int
) -> tuple[Keys | None, Keys, bool]:
    return _sums_of([[_sum_one(n, all_c, all_a, p, q) for q in ub] for p in ua], stays, b)


def _sums_of(t: list[list[int]], stays: bool, b: int) -> tuple[Keys | None, Keys, bool]:
    col = [row[b] for row in t]
    if not stays:
        return None, np.array([-1 if s == DEAD else 0 for s in col], dtype=np.int64), DEAD in col
    kept = sorted({s for row in t for s in row if s >= UNSAT})
    pos = {s: i for i, s in enumerate(kept)}
    at = [pos.get(s, -1) for s in col]
    return np.array(kept, dtype=np.int64), np.array(at, dtype=np.int64), min(at) < 0


_ZERO = np.zeros(1, dtype=np.int64)


def _one_columns(
    g: Graph, A: _Table, B: _Table, members: frozenset[int]
) -> tuple[list[str], list[Keys], list[Any], list[npt.NDArray[np.bool_]]]:
    """The columns of :func:`_join_one`'s table as :func:`_join_key` makes them (A's own resources, B's, the shared
    ones that stay: each over the same states) with each of A's entries' index into them (an int: B's one entry's),
    and per shared resource where some sum breaks a gate, which of A's entries die."""
    b_at = {x: k for k, x in enumerate(B.scope)}
    shared = set(x for x in A.scope if x in b_at)
    scope: list[str] = []
    vals: list[Keys] = []
    digits: list[Any] = []  # per column: each of A's entries' index into its states (an int: B's one entry's)
    dead: list[npt.NDArray[np.bool_]] = []  # A's entries whose sum with B's entry breaks a gate (per resource)
    for k, x in enumerate(A.scope):
        if x not in shared:
            v, at = A.column(k)
            scope.append(x)
            vals.append(v)
            digits.append(at)
    # (B's one entry's columns: its states alone where it has no index, as :func:`unique` gives them)
    cols_b = [B.index[k] if B.index is not None else (B.keys[0, k : k + 1], _ZERO) for k in range(len(B.scope))]
    for k, x in enumerate(B.scope):
        if x not in shared:
            v, at = cols_b[k]
            scope.append(x)
            vals.append(v)
            digits.append(int(at[0]))
    for x in A.scope:
        if x in shared:
            ua, xa = A.column(A.scope.index(x))
            ub, xb = cols_b[b_at[x]]
            kept, at, dies = _sums_one(g, x, members, ua, ub, int(xb[0]))
            if kept is not None:
                scope.append(x)
                vals.append(kept)
                digits.append(at[xa])
            if dies:
                dead.append(at[xa] < 0)
    return scope, vals, digits, dead


def _added_by_key(code: Keys, w: Weights, ring: Ring) -> tuple[Keys, Weights]:
    """Entries by their keys ``code``: the first of each key in order of the keys (its position in ``code``) and
    the counts of the entries with that key added (reduced), keys whose counts are all zero dropped."""
    order = np.argsort(code, kind="stable")
    code = code[order]
    new = np.empty(len(code), dtype=bool)
    new[:1] = True
    np.not_equal(code[1:], code[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    w = np.take(w, order, axis=1)
    if len(starts) < len(code):
        w = ring.reduce(np.add.reduceat(w, starts, axis=1))
    first = order[starts]
    nonzero = w.any(axis=0)
    if not nonzero.all():
        first, w = first[nonzero], w[:, nonzero]
    return first, w


def _join_one(g: Graph, A: _Table, B: _Table, ring: Ring, budget: Budget) -> _Table:
    """:func:`_join` where B has one entry (and the ring no float row): the same table (scope, each column's states,
    entries in the order of their keys, counts; no entry of zero count), entry by entry of A, in tens of
    microseconds where the general join's fixed costs (its key, signatures, products) are about half a millisecond
    (a later unrank's levels on random_sharing(12, 14, 4) join the prefix's one entry with small tables 20-25 times)."""
    members = A.members | B.members
    budget.spend(2 * len(A) + 1)  # (about what the general join counts: A's signatures, then its pairs)
    scope, vals, digits, dead = _one_columns(g, A, B, members)
    radix = [max(1, len(v)) for v in vals]
    if prod(radix) >= 1 << 60:  # pragma: no cover - as _join_key
        raise OverBudget
    mult = [prod(radix[k + 1 :]) for k in range(len(radix))]
    var = [k for k, d in enumerate(digits) if not isinstance(d, int)]  # the columns that vary with A's entry
    D = np.array([digits[k] for k in var], dtype=np.int64).reshape(len(var), len(A))
    w = A.w * B.w[:, :1]
    if dead:
        at = np.flatnonzero(~np.logical_or.reduce(dead))
        D, w = D[:, at], np.take(w, at, axis=1)
    ring.reduce(w)
    fixed = sum(mult[k] * d for k, d in enumerate(digits) if isinstance(d, int))  # B's own columns
    code = np.array([mult[k] for k in var], dtype=np.int64) @ D + fixed
    first, w = _added_by_key(code, w, ring)  # entries of A that meet (capped or settled sums): counts added
    out: Digits = np.empty((len(digits), len(first)), dtype=digit_type(radix))
    out[var] = D[:, first]
    for k, d in enumerate(digits):
        if isinstance(d, int):
            out[k] = d
    return _Table(members, tuple(scope), None, w, 0.0, list(zip(vals, out)))


#: a join of two small tables goes every pair at once (:func:`_join_small`) where the smaller side has at most
#: SMALL_MOST entries and its pairs times the rows of counts plus one are at most SMALL_PAIRS: the crossover with the
#: general join (about 0.4-0.6 ms a small join) measured on the joins of later unranks (docs/scale.md): 12-14 x 10^3
#: pairs of one row, 7-9 x 10^3 of three
SMALL_MOST = 1 << 9
SMALL_PAIRS = 1 << 15


def _pair_sums(g: Graph, x: str, members: frozenset[int], ua: Keys, ub: Keys) -> tuple[Keys | None, Keys]:
    """Shared resource ``x`` in :func:`_join_small`: its states in the join (None: it leaves) as :func:`_join_key`
    makes them, and for each pair of states ``ua`` and ``ub`` the index of their sum into them (-1: it breaks a
    gate; 0 for a live sum of a resource that leaves)."""
    stays = domain_size(g, x, members) > 0
    if len(ua) * len(ub) > ONE_SUMS:
        return _pair_index(sum_table(g, x, members, ua, ub).tolist(), stays)
    n, all_c, all_a = g.need[x], g.contributors[x] <= members, g.askers[x] <= members
    return _pair_sums_cached(n, all_c, all_a, stays, tuple(ua.tolist()), tuple(ub.tolist()))


@lru_cache(maxsize=1 << 12)
def _pair_sums_cached(
    n: int, all_c: bool, all_a: bool, stays: bool, ua: tuple[int, ...], ub: tuple[int, ...]
) -> tuple[Keys | None, Keys]:
    return _pair_index([[_sum_one(n, all_c, all_a, p, q) for q in ub] for p in ua], stays)


def _pair_index(t: list[list[int]], stays: bool) -> tuple[Keys | None, Keys]:
    if not stays:
        return None, np.array([[-1 if s == DEAD else 0 for s in row] for row in t], dtype=np.int64)
    kept = sorted({s for row in t for s in row if s >= UNSAT})
    pos = {s: i for i, s in enumerate(kept)}
    return np.array(kept, dtype=np.int64), np.array([[pos.get(s, -1) for s in row] for row in t], dtype=np.int64)


def _small_columns(
    g: Graph, A: _Table, B: _Table, members: frozenset[int]
) -> tuple[list[str], list[Keys], list[tuple[int, Keys]], list[Keys]]:
    """The columns of :func:`_join_small`'s table as :func:`_join_key` makes them (A's own resources, B's, the shared
    ones that stay), each with its digit per pair as a function of (A's entry, B's entry) -- (0, A's indices),
    (1, B's indices) or (2, an (A, B) matrix) --, and the (A, B) index matrices of the shared resources where some
    sum breaks a gate (-1)."""
    b_at = {x: k for k, x in enumerate(B.scope)}
    shared = set(x for x in A.scope if x in b_at)
    scope: list[str] = []
    vals: list[Keys] = []
    digits: list[tuple[int, Keys]] = []
    dead: list[Keys] = []
    for side, T in enumerate((A, B)):  # each side's own resources: a digit per entry of that side
        for k, x in enumerate(T.scope):
            if x not in shared:
                v, at = T.column(k)
                scope.append(x)
                vals.append(v)
                digits.append((side, at))
    for x in A.scope:
        if x in shared:
            ua, xa = A.column(A.scope.index(x))
            ub, xb = B.column(b_at[x])
            kept, idx = _pair_sums(g, x, members, ua, ub)
            at = idx[xa[:, None], xb[None, :]]
            if kept is not None:
                scope.append(x)
                vals.append(kept)
                digits.append((2, at))
            if (idx < 0).any():
                dead.append(at)
    return scope, vals, digits, dead


#: :func:`_join_small` adds its pairs' counts into a dense array of every key where the keys are at most this many
#: times the pairs (plus 4096), else it sorts the pairs' keys
SMALL_DENSE = 4


def _sums_exact(ring: Ring, A: _Table, B: _Table, n: int) -> bool:
    """Whether ``n`` products of A's and B's counts (reduced) add exactly in float64: residues always (below 2^22,
    fewer than 2^31 of them); exact counts when their bound says so."""
    if ring.moduli:
        return ring.bits <= MODULUS_BITS and n < 1 << 30
    return float(largest_weight(A.w.ravel())) * float(largest_weight(B.w.ravel())) * n < 2.0**52


def _small_dense(
    members: frozenset[int],
    scope: list[str],
    vals: list[Keys],
    radix: list[int],
    mult: list[int],
    code: Keys,
    w: Weights,
    size: int,
    ring: Ring,
) -> _Table:
    """:func:`_join_small`'s table from its live pairs' keys and counts added into one dense array of every key (in
    float64: exact, :func:`_sums_exact`), the keys with a nonzero count (modulo the primes) taken in order."""
    acc = np.empty((w.shape[0], size), dtype=np.float64)
    for j, row in enumerate(w):
        acc[j] = np.bincount(code, weights=row, minlength=size)
    live = np.flatnonzero(acc.any(axis=0))
    out_w = ring.reduce(np.take(acc, live, axis=1).astype(np.int64))
    if ring.moduli:
        kept = np.flatnonzero(out_w.any(axis=0))
        if len(kept) < len(live):
            live, out_w = live[kept], out_w[:, kept]
    out: Digits = np.empty((len(radix), len(live)), dtype=digit_type(radix))
    for k, (m, r) in enumerate(zip(mult, radix)):
        out[k] = (live // m) % r
    return _Table(members, tuple(scope), None, out_w, 0.0, list(zip(vals, out)))


def _join_small(g: Graph, A: _Table, B: _Table, ring: Ring, budget: Budget) -> _Table:
    """:func:`_join` of two small tables (and the ring no float row): the same table (scope, each column's states,
    entries in the order of their keys, counts; no entry of zero count), every pair of entries coded at once, the
    dead ones dropped, equal codes' counts added -- without the general join's fixed costs (its key's sum tables,
    signatures, products: about half a millisecond; a later unrank joins 20-30 pairs of small tables a draw)."""
    members = A.members | B.members
    budget.spend(len(A) * len(B) + len(A) + 1)
    scope, vals, digits, dead = _small_columns(g, A, B, members)
    radix = [max(1, len(v)) for v in vals]
    if prod(radix) >= 1 << 60:  # pragma: no cover - as _join_key
        raise OverBudget
    mult = [prod(radix[k + 1 :]) for k in range(len(radix))]
    na, nb = len(A), len(B)
    ca = np.zeros(na, dtype=np.int64)
    cb = np.zeros(nb, dtype=np.int64)
    cs = np.zeros((na, nb), dtype=np.int64)
    for m, (side, d) in zip(mult, digits):
        if side == 0:
            ca += d.astype(np.int64) * m
        elif side == 1:
            cb += d.astype(np.int64) * m
        else:
            cs += d * m
    code = (cs + ca[:, None] + cb[None, :]).ravel()
    pa = np.repeat(np.arange(na), nb)
    pb = np.tile(np.arange(nb), na)
    if dead:
        live = np.flatnonzero(~np.logical_or.reduce([d.ravel() < 0 for d in dead]))
        code, pa, pb = code[live], pa[live], pb[live]
    w = np.take(A.w, pa, axis=1) * np.take(B.w, pb, axis=1)
    ring.reduce(w)
    size = prod(radix)
    if size <= SMALL_DENSE * len(code) + 4096 and _sums_exact(ring, A, B, len(code)):
        return _small_dense(members, scope, vals, radix, mult, code, w, size, ring)
    first, w = _added_by_key(code, w, ring)
    fa, fb = pa[first], pb[first]
    out: Digits = np.empty((len(digits), len(first)), dtype=digit_type(radix))
    for k, (side, d) in enumerate(digits):
        out[k] = d[fa] if side == 0 else d[fb] if side == 1 else d[fa, fb]
    return _Table(members, tuple(scope), None, w, 0.0, list(zip(vals, out)))


def _row_most(key: _JoinKey, A: _Table) -> int:
    """The most entries of A with one own part of the key (one *row*): a key's count pair by pair is a sum of at most
    that many products, one per entry of A of its row (a signature's combined entries of B have distinct keys), so
    its float row goes through at most that many additions (any order), where A's entries all together bound it far
    more loosely (10^6 against 10^3 on the largest joins of 12 attackers on 14 blockers, 5 each)."""
    if not len(A):
        return 0
    _, row = unique(key.ca // key.inner)
    return int(np.bincount(row).max())


def _by_pairs(
    key: _JoinKey, A: _Table, B: _Table, sa: Keys, first: Keys, ring: Ring, budget: Budget
) -> tuple[Keys, Weights]:
    """The join's keys and counts, pair by pair: each chunk of A's signatures combined with B (:func:`_combined`),
    then each of their entries paired with its signature's combined entries (:func:`_pair`)."""
    by_sig = np.argsort(sa, kind="stable")  # A's entries grouped by signature
    sig_start = np.searchsorted(sa[by_sig], np.arange(len(first) + 1))
    sums = _Sums(key.size, ring, budget)
    per_chunk = max(1, PAIRS // max(1, len(B)))  # signatures combined at once: at most PAIRS pairs with B
    for s0 in range(0, len(first), per_chunk):
        s1 = min(len(first), s0 + per_chunk)
        starts_of, kcode, kw = _combined(key, B, first[s0:s1], ring, budget)
        entries = by_sig[sig_start[s0] : sig_start[s1]]
        _pair(key.ca, A, entries, sa[entries] - s0, (starts_of, kcode, kw), sums, budget)
    return sums.result()


#: a join goes row by row (:func:`_by_rows`) when every signature of A combined with every entry of B makes at most
#: this many pairs (they are combined at once), and its rows' code space (rows x ``inner``) is at most ROWS_SPARSE
#: times its pairs (plus DENSE): each row's window of codes is a dense array
ROWS_PAIRS = 1 << 21
ROWS_SPARSE = 8
ROWS_WINDOW = DENSE  # cells (keys x rows of counts) of one window
ROWS_FROM = 1 << 22  # pairs of entries (A's times B's) below which sorting them is cheaper (a part or two, no merge)


def _by_rows(
    key: _JoinKey, A: _Table, B: _Table, sa: Keys, first: Keys, ring: Ring, budget: Budget
) -> tuple[Keys, Weights] | None:
    """The join's keys and counts, pair by pair without sorting them: A's entries taken in the order of their own
    part of the key (their *row*: the pairs of one row have keys in ``[row * inner, (row + 1) * inner)``), a few
    rows at a time, their pairs' counts added into a dense window of those rows' keys (:class:`_Sums`), so the keys
    come out sorted and no part is merged. None for a small join (ROWS_FROM), when the signatures do not combine
    with B at once (ROWS_PAIRS), a row's window is past DENSE, or the rows' code space is sparse against the pairs
    (ROWS_SPARSE)."""
    inner = key.inner
    if len(A) * len(B) < ROWS_FROM or len(first) * len(B) > ROWS_PAIRS or inner * ring.k > DENSE:
        return None
    starts_of, kcode, kw = _combined(key, B, first, ring, budget)
    rows, ra = unique(key.ca // inner)
    entries = np.argsort(ra, kind="stable")  # A's entries row by row
    ranks = ra[entries]
    ends = np.cumsum(np.diff(starts_of)[sa[entries]])  # the pairs up to each entry
    if len(rows) * inner > ROWS_SPARSE * (int(ends[-1]) if len(ends) else 0) + DENSE:
        return None
    per = max(1, ROWS_WINDOW // (inner * ring.k))  # rows in one window
    codes: list[Keys] = []
    weights: list[Weights] = []
    lo = 0
    while lo < len(entries):
        # a window: whole rows, up to ``per`` of them and about PAIRS pairs (at least one row)
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + PAIRS, side="right")))
        last = min(int(ranks[hi - 1]), int(ranks[lo]) + per - 1)
        hi = int(np.searchsorted(ranks, last, side="right"))
        first_row = int(ranks[lo])
        sums = _Sums((last - first_row + 1) * inner, ring, budget)
        at = entries[lo:hi]
        _pair((ranks[lo:hi] - first_row) * inner, A, at, sa[at], (starts_of, kcode, kw), sums, budget, local=True)
        code, w = sums.result()
        codes.append(rows[first_row + code // inner] * inner + code % inner)
        weights.append(w)
        lo = hi
    if not codes:
        return np.zeros(0, dtype=np.int64), np.zeros((ring.k, 0), dtype=ring.dtype)
    return _concatenated(codes), _concatenated(weights)


#: a join is a matrix product (:func:`_by_products`) when its dense matrices hold at most this many cells (times
#: the moduli) and it multiplies at most PRODUCT_WASTE times as many cells as the pairs of entries there are
PRODUCT_CELLS = 1 << 22
#: cells (times the moduli) of one block of P's rows, and of its result, in a join's matrix product (at least a row):
#: 8 MB each, not 32 MB (PRODUCT_CELLS), which were a peak's largest temporaries (random_sharing(12, 14, 5) seed 3:
#: 0.25 -> 0.22 GB; seed 8 0.25 -> 0.23 GB), for no more CPU than the timings' noise
PRODUCT_BLOCK = PRODUCT_CELLS // 4
PRODUCT_WASTE = 64
#: a product without blocks (:func:`_sparse_blocks`) of over PRODUCT_LARGE multiply-adds (times the rows of counts)
#: goes pair by pair row by row (:func:`_by_rows`, where it can) past PRODUCT_LARGE_WASTE times as many cells as pairs:
#: its Q is large (tens of MB) and each multiply-add dearer, and a pair costs about ten of them (per = 5 of
#: ``random_sharing(12, 14, 5)``: products of 3.3-3.5 x 10^9 cells 14-30 times the pairs took 1.7-2.6 s, row by
#: row 0.7-1.0 s; docs/scale.md)
PRODUCT_LARGE = 1 << 32
PRODUCT_LARGE_WASTE = 10
#: multiply-adds of a join's matrix product between two looks at the clock (about 2-5 ms of CPU)
PRODUCT_CHECK = 1 << 24
#: multiply-adds of a matrix product counted as one operation of the work bound (a pair of entries costs about as
#: much as this many multiply-adds)
PRODUCT_OP = 256


def _by_products(
    key: _JoinKey, A: _Table, B: _Table, sa: Keys, first: Keys, ring: Ring, budget: Budget
) -> tuple[Keys, Weights, int] | None:
    """The join as matrix products (keys, counts, and the roundings a float row's count went through), or None
    when its matrices would be too large or too sparse.

    A pair's key is A's own part (``ca``: its row) plus the part read from its signature and B's entry (its column,
    below ``inner``), so the join's counts are ``P @ Q``: P holds A's counts by (own part, signature) -- one entry of
    A each --, Q the counts of B's entries combined with each signature (summed by their part of the key). The
    products run in float64 (BLAS, on this thread alone) on exact counts below 2^53 or centred residues (at most
    2^21 + 4 in absolute value, :meth:`Ring.fold`; at most INNER signatures at once: every sum below 2^53, exact),
    folded back after each chunk, a block of P's rows at a time (about PRODUCT_BLOCK cells of P and of the result:
    many rows cost time, not memory); where P is sparse and its zeros gather, by small blocks of rows, each over only
    the signatures it has (:func:`_sparse_blocks`, :func:`_block_products`). Where the pairs are few against the
    matrices' cells (PRODUCT_WASTE), or a row of the matrices is large (PRODUCT_CELLS), the join goes pair by pair
    (:func:`_by_rows`, :func:`_by_pairs`); so does a large product without blocks whose cells are many times its
    pairs, row by row (:func:`_rows_rather`)."""
    k, S = ring.k, len(first)
    rows, ra = unique(key.ca // key.inner)
    R = len(rows)
    if S * k > PRODUCT_CELLS or R * S > PRODUCT_WASTE * len(A):
        return None
    plan = _dense_plan(key, B, S, ring)
    if plan is None:
        if S * len(B) > PRODUCT_CELLS // 4:
            return None  # (every signature's pairs with B are coded at once: at most 2^20 of them)
        r, b, kcode = _pair_codes(key, B, first, budget)  # every signature with every entry of B
        budget.check()
        cols, ck = unique(kcode)
    else:
        cols = plan.cols
    C = len(cols)
    if not C or C * k > PRODUCT_CELLS or R * S * C > PRODUCT_WASTE * (len(A) * len(B)):
        return None  # (no column: no pair settles, the join is empty; the pair by pair join says so)
    blocks = _sparse_blocks(ra, sa, R, S, C, k)
    if blocks is None and _rows_rather(R * S * C, k, S, key, A, B):
        return None
    step = max(1, min(ring.inner, S, PRODUCT_CELLS // max(1, C * k)))
    if plan is not None:
        q = _QChunks(_dense_q(key, B, first, plan, ring, budget), None, None, None, C)
        depth = len(B) + plan.terms
    else:
        cells, sums = _q_cells(r * C + ck, b, S * C, B, ring, budget)
        q = _QChunks(None, cells, sums, np.searchsorted(cells, np.arange(0, S + step, step) * C), C)
        depth = len(B)
    budget.check()
    if blocks is not None:
        parts = _block_products(A, ra, sa, S, C, q, blocks, step, ring, budget)
        depth += int(np.bincount(ra).max()) + 1 if len(A) else 1
        return _entry_digits(key, rows, cols, parts[0], parts[1]), _concatenated(parts[2]), depth
    rb = max(1, PRODUCT_BLOCK // (max(S, C) * k))  # rows of P in one block
    # A's entries by row (a radix sort on 16-bit rows: several times faster than on int64)
    by_row = np.argsort(ra.astype(digit_type([R])), kind="stable") if rb < R else None
    bounds = np.searchsorted(ra[by_row], np.arange(0, R + rb, rb)) if by_row is not None else [0, len(A)]
    row_at: list[Keys] = [np.zeros(0, dtype=np.int64)]
    col_at: list[Keys] = [np.zeros(0, dtype=np.int64)]
    ws: list[Weights] = [np.zeros((k, 0), dtype=ring.dtype)]
    for n, r0 in enumerate(range(0, R, rb)):
        r1 = min(R, r0 + rb)
        at = by_row[bounds[n] : bounds[n + 1]] if by_row is not None else None
        acc = _products(_p_block(A, ra, sa, S, r0, r1, at, ring), q, step, ring, budget)
        # (a zero of the folded sums is a zero of the lifted counts: only the nonzero entries are taken and lifted)
        cell, row, col = _nonzero(acc)
        row_at.append((row + r0).astype(np.int32))  # (R and C are below 2^22: PRODUCT_CELLS)
        col_at.append(col.astype(np.int32))
        ws.append(ring.lift(np.take(acc.reshape(k, -1), cell, axis=1).astype(ring.dtype, copy=False)))
        del acc  # (before the next block's matrices)
    # per count: B's entries added in Q, then the product's sum over the signatures and the slices: a sum of at most
    # one nonzero product per entry of A in its row (a zero term, or the sum of zero terms, is added exactly)
    depth += int(np.bincount(ra).max()) + 1 if len(A) else 1
    return _entry_digits(key, rows, cols, row_at, col_at), _concatenated(ws), depth


def _rows_rather(cells: int, k: int, S: int, key: _JoinKey, A: _Table, B: _Table) -> bool:
    """Whether a product of ``cells`` multiply-adds (``k`` rows of counts each, no blocks) should rather go row by
    row (PRODUCT_LARGE, PRODUCT_LARGE_WASTE), and :func:`_by_rows` would take it (ROWS_PAIRS, DENSE)."""
    if cells * k <= PRODUCT_LARGE or cells <= PRODUCT_LARGE_WASTE * len(A) * len(B):
        return False
    return S * len(B) <= ROWS_PAIRS and key.inner * k <= DENSE


#: a join's matrix product goes by small blocks of P's rows, each over only the signatures its entries have
#: (:func:`_block_products`), when it has at least BLOCKS_FROM multiply-adds and the blocks' multiply-adds are at most
#: BLOCKS_SAVE times the whole product's
BLOCK_ROWS = 64
BLOCKS_FROM = 1 << 26
BLOCKS_SAVE = 0.65
BLOCKS_FILL = 0.6  # (P fuller than this: its blocks are not looked for)
#: cells (times the rows of counts) of Q up to which it is made dense once for the blocks (else the whole product)
BLOCKS_Q_CELLS = 1 << 22


class _Blocks:
    """P's rows in the order of :func:`_sparse_blocks` (``order``: the rows; ``at``: each row's place in that order),
    A's entries block by block (``entries``, ``bounds`` their cut), and per block of BLOCK_ROWS rows the signatures
    some entry of it has (``present``)."""

    __slots__ = ("order", "at", "entries", "bounds", "present")

    def __init__(self, order: Keys, at: Keys, entries: Keys, bounds: Keys, present: npt.NDArray[np.bool_]):
        self.order, self.at, self.entries, self.bounds, self.present = order, at, entries, bounds, present


def _sparse_blocks(ra: Keys, sa: Keys, R: int, S: int, C: int, k: int) -> _Blocks | None:
    """The blocks of P's rows for :func:`_block_products`, or None when they would not save enough multiply-adds.
    The rows are ordered so that rows with the same signatures come together: the signatures ranked by how many
    entries have them, each row by the mean rank of its entries' signatures (P of the largest join of
    ``random_sharing(12, 14, 4)`` seed 3 is 25 % full: its blocks of 64 rows so ordered hold 35 % of its cells; in
    the order of the codes, blocks of 32 rows hold 62 %)."""
    if R * S * C * k < BLOCKS_FROM or R <= BLOCK_ROWS or S * C * k > BLOCKS_Q_CELLS or len(ra) > BLOCKS_FILL * R * S:
        return None
    rank = np.empty(S, dtype=np.float64)
    rank[np.argsort(-np.bincount(sa, minlength=S), kind="stable")] = np.arange(S)
    mean = np.bincount(ra, weights=rank[sa], minlength=R) / np.maximum(1, np.bincount(ra, minlength=R))
    order = np.argsort(mean, kind="stable")
    at = np.empty(R, dtype=np.int64)
    at[order] = np.arange(R)
    n = -(-R // BLOCK_ROWS)
    block = (at // BLOCK_ROWS)[ra]  # each entry's block
    marks = np.zeros(n * S, dtype=bool)
    marks[block * S + sa] = True
    present = marks.reshape(n, S)
    heights = np.minimum(BLOCK_ROWS, R - np.arange(n) * BLOCK_ROWS)
    if int(present.sum(axis=1) @ heights) > BLOCKS_SAVE * R * S:
        return None
    entries = np.argsort(block.astype(digit_type([n])), kind="stable")
    bounds = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(block, minlength=n), out=bounds[1:])
    return _Blocks(order, at, entries, bounds, present)


def _block_products(
    A: _Table, ra: Keys, sa: Keys, S: int, C: int, q: _QChunks, blocks: _Blocks, step: int, ring: Ring, budget: Budget
) -> tuple[list[Keys], list[Keys], list[Weights]]:
    """The entries of ``P @ Q`` (per row of counts) block of rows by block (:func:`_sparse_blocks`): each block's P
    over only the signatures its entries have, times those rows of Q, ``step`` signatures at a time (folded after
    each, as in :func:`_products`); its rows (A's own parts, ``row_at``), columns (``col_at``) and counts. A's
    counts are taken and centred block by block (not all at once: as many bytes as A's counts); each block's P,
    rows of Q and result are written into buffers made once (fresh arrays of this size are fresh pages each time: a
    page fault per 4 KB), P's cells cleared after its product (not the whole buffer), and only the result's nonzero
    entries lifted."""
    k = ring.k
    Q = q.whole(S)
    R = len(blocks.order)
    ent = blocks.entries
    most = int(blocks.present.sum(axis=1).max()) if len(blocks.present) else 0
    p_buf = np.zeros(k * BLOCK_ROWS * most)
    q_buf = np.empty(k * most * C)
    acc_buf = np.empty(k * BLOCK_ROWS * C)
    local = np.empty(S, dtype=np.int64)
    row_at: list[Keys] = [np.zeros(0, dtype=np.int64)]
    col_at: list[Keys] = [np.zeros(0, dtype=np.int64)]
    ws: list[Weights] = [np.zeros((k, 0), dtype=ring.dtype)]
    with _one_thread():
        for n in range(len(blocks.present)):
            r0, r1 = n * BLOCK_ROWS, min(R, (n + 1) * BLOCK_ROWS)
            h = r1 - r0
            used = np.flatnonzero(blocks.present[n])
            U = len(used)
            local[used] = np.arange(U)
            b0, b1 = int(blocks.bounds[n]), int(blocks.bounds[n + 1])
            P = p_buf[: k * h * U].reshape(k, h, U)  # (zero: cleared after each block)
            flat_p = P.reshape(k, -1)
            # the block's entries: their centred counts, their rows' places in the order and their signatures (for
            # all of A at once, 40 bytes an entry of A held through the products: 130 MB of the 3.2 x 10^6 entries of
            # the largest join of random_sharing(12, 14, 5) seed 2, whose peak traced fell 297 -> 220 MB)
            at = ent[b0:b1]
            Ab = ring.centred(np.take(A.w, at, axis=1), copy=False)
            cell = (blocks.at[ra[at]] - r0) * U + local[sa[at]]
            for j in range(k):
                flat_p[j][cell] = Ab[j]
            Qb = q_buf[: k * U * C].reshape(k, U, C)
            np.take(Q, used, axis=1, out=Qb, mode="clip")  # (mode "raise" with out: buffered, 5 times slower)
            acc = acc_buf[: k * h * C].reshape(k, h, C)
            budget.spend(h * U * C * k // PRODUCT_OP)
            for u0 in range(0, U, step):
                u1 = min(U, u0 + step)
                for j in range(k):
                    if u0:
                        acc[j] += P[j][:, u0:u1] @ Qb[j, u0:u1]
                    else:
                        np.matmul(P[j][:, u0:u1], Qb[j, u0:u1], out=acc[j])
                ring.fold(acc)
                budget.check()  # (at most 64 x 2^22 multiply-adds a chunk: BLOCKS_Q_CELLS bounds S x C x k)
            for j in range(k):
                flat_p[j][cell] = 0.0
            # (a zero of the folded sums is a zero of the lifted counts: lifting adds p to negative ones only)
            cell, row, col = _nonzero(acc)
            row_at.append(blocks.order[row + r0].astype(np.int32))
            col_at.append(col.astype(np.int32))
            w: Weights = np.take(acc.reshape(k, -1), cell, axis=1).astype(ring.dtype, copy=False)
            ws.append(ring.lift(w))
    return row_at, col_at, ws


def _nonzero(acc: npt.NDArray[np.float64]) -> tuple[Keys, Keys, Keys]:
    """The cells of a product's result (rows of counts by P's rows by columns) where some row of counts is nonzero,
    flat, and their rows and columns (the rows of counts compared one at a time: ``any`` over them makes a mask of
    all of them first, and ``nonzero`` in two dimensions is slower than flat)."""
    live = acc[0] != 0
    for j in range(1, len(acc)):
        live |= acc[j] != 0
    cell = np.flatnonzero(live)
    row, col = np.divmod(cell, acc.shape[2])
    return cell, row, col


def _p_block(
    A: _Table, ra: Keys, sa: Keys, S: int, r0: int, r1: int, at: Keys | None, ring: Ring
) -> npt.NDArray[np.float64]:
    """Rows ``r0:r1`` of the P of :func:`_by_products`: A's centred counts by (row, signature); ``at``: A's entries
    in those rows (None: every entry, one block)."""
    k = ring.k
    P = np.zeros((k, r1 - r0, S))
    flat = P.reshape(k, -1)  # (a view: one index per entry, not two)
    if at is not None:
        cell, Aat = (ra[at] - r0) * S + sa[at], ring.centred(np.take(A.w, at, axis=1), copy=False)
    else:
        cell, Aat = ra * S + sa, ring.centred(A.w)
    for j in range(k):  # row by row: a third of the time of one assignment by (rows, cells)
        flat[j][cell] = Aat[j]
    return P


def _concatenated(parts: list[Any], dtype: Any = None) -> Any:
    """Arrays (of one shape but for the last axis) as one along the last axis, each part let go of (taken out of
    ``parts``) once it is copied: a fresh array's pages are only touched as they are written, so the memory held is
    about the whole and a part, not twice the whole as with ``np.concatenate`` (the counts of a join's result in
    blocks: 77 MB for the 3.2 x 10^6 entries of the largest join of random_sharing(12, 14, 5) seed 2)."""
    out = np.empty((*parts[0].shape[:-1], sum(p.shape[-1] for p in parts)), dtype=dtype or parts[0].dtype)
    parts.reverse()
    at = 0
    while parts:
        part = parts.pop()
        out[..., at : at + part.shape[-1]] = part
        at += part.shape[-1]
        del part
    return out


def _entry_digits(key: _JoinKey, rows: Keys, cols: Keys, row_at: list[Keys], col_at: list[Keys]) -> Digits:
    """The index columns of a matrix product's entries (their rows and columns, by blocks): the digits of A's own
    part read from each entry's row (``rows``: their codes), the others from its column (``cols``) -- a byte or two
    taken per entry and column, where dividing the entries' codes took an int64 division per column."""
    dt = digit_type(key.radix)
    row_digits: Digits = _uncodes(rows, key.radix[: key.own]).astype(dt, copy=False)
    col_digits: Digits = _uncodes(cols, key.radix[key.own :]).astype(dt, copy=False)
    ri, ci = _concatenated(row_at, np.intp), _concatenated(col_at, np.intp)  # (take casts else)
    idx: Digits = np.empty((len(key.radix), len(ri)), dtype=dt)
    # (mode "clip": the indices are in range; "raise" with ``out`` takes into a buffer first, twice the time)
    for d in range(key.own):
        np.take(row_digits[d], ri, out=idx[d], mode="clip")
    for d in range(len(key.radix) - key.own):
        np.take(col_digits[d], ci, out=idx[key.own + d], mode="clip")
    return idx


class _QChunks:
    """Q of :func:`_by_products` by chunks of signatures: slices of the dense Q (``dense``), or built from its
    cells (``cells``, their folded ``sums``, ``cut``: the cells of each chunk) as they are asked for."""

    __slots__ = ("dense", "cells", "sums", "cut", "width")

    dense: npt.NDArray[np.float64] | None
    cells: Keys | None
    sums: npt.NDArray[np.float64] | None
    cut: Keys | None
    width: int  # columns (C)

    def __init__(
        self,
        dense: npt.NDArray[np.float64] | None,
        cells: Keys | None,
        sums: npt.NDArray[np.float64] | None,
        cut: Keys | None,
        width: int,
    ):
        self.dense = dense
        self.cells = cells
        self.sums = sums
        self.cut = cut
        self.width = width

    def chunk(self, c0: int, s0: int, s1: int) -> npt.NDArray[np.float64]:
        if self.dense is not None:
            return self.dense[:, s0:s1]
        assert self.cells is not None and self.sums is not None and self.cut is not None
        lo, hi = self.cut[c0], self.cut[c0 + 1]
        return self.chunk_of(self.cells[lo:hi] - s0 * self.width, self.sums[:, lo:hi], s1 - s0)

    def whole(self, S: int) -> npt.NDArray[np.float64]:
        """All of Q (``S`` signatures): the dense Q, or built from every chunk's cells at once."""
        if self.dense is not None:
            return self.dense
        assert self.cells is not None and self.sums is not None
        return self.chunk_of(self.cells, self.sums, S)

    def chunk_of(self, cells: Keys, sums: npt.NDArray[np.float64], S: int) -> npt.NDArray[np.float64]:
        """Q's signatures from ``cells`` (relative to the first of ``S``) and their ``sums``, dense."""
        q = np.zeros((sums.shape[0], S * self.width))
        for j in range(len(q)):
            q[j][cells] = sums[j]
        return q.reshape(-1, S, self.width)


def _products(
    P: npt.NDArray[np.float64], q: _QChunks, step: int, ring: Ring, budget: Budget
) -> npt.NDArray[np.float64]:
    """``P @ Q`` (per row of counts) for a block of P's rows, ``step`` signatures at a time (folded after each),
    each chunk's product in slices of at most PRODUCT_CHECK multiply-adds (the clock read after each). A slice is of
    P's rows, over the chunk's whole inner dimension (it reads the chunk of Q), where the chunk has fewer than twice
    as many signatures as P has rows; else of signatures, over all of P's rows (it reads and writes the whole
    result): whichever moves less memory (slices of a few signatures over 6 000 rows: 0.6 of the 1.4 s of a count;
    slices of 4 rows against 510 signatures and 2 300 columns: twice the time of slices of signatures)."""
    k, R, S = P.shape
    C = q.width
    acc = np.zeros((k, R, C))
    with _one_thread():
        for c0, s0 in enumerate(range(0, S, step)):
            s1 = min(S, s0 + step)
            chunk = q.chunk(c0, s0, s1)
            if s1 - s0 < 2 * R:
                rows = max(1, PRODUCT_CHECK // max(1, (s1 - s0) * C * k))  # rows of P between two looks at the clock
                for r0 in range(0, R, rows):
                    r1 = min(R, r0 + rows)
                    budget.spend((r1 - r0) * (s1 - s0) * C * k // PRODUCT_OP)
                    for j in range(k):
                        acc[j, r0:r1] += P[j, r0:r1, s0:s1] @ chunk[j]
                    budget.check()
            else:
                sub = max(1, PRODUCT_CHECK // max(1, R * C * k))  # signatures between two looks at the clock
                for u0 in range(s0, s1, sub):
                    u1 = min(s1, u0 + sub)
                    budget.spend(R * (u1 - u0) * C * k // PRODUCT_OP)
                    for j in range(k):
                        acc[j] += P[j][:, u0:u1] @ chunk[j, u0 - s0 : u1 - s0]
                    budget.check()
            ring.fold(acc)
    return acc


def _q_cells(
    cell: Keys, b: Keys, size: int, B: _Table, ring: Ring, budget: Budget
) -> tuple[Keys, npt.NDArray[np.float64]]:
    """Q's cells that some pair reaches (``cell``: per pair, its signature times the columns plus its column; ``b``:
    its entry of B), sorted, found by marking, and the counts of B's entries that meet in each, added and folded
    once (a cell of Q is then one centred residue, or an exact count)."""
    present = np.zeros(size, dtype=bool)
    present[cell] = True
    cells = np.flatnonzero(present)
    del present
    # each pair's cell found among the cells reached (at most the pairs, PRODUCT_CELLS / 4 of them: _by_products), not
    # ranked by a cumulative sum over all of Q's cells: 4 bytes a cell, 100 MB of the 2.5 x 10^7 cells of a join of
    # random_sharing(12, 14, 5) seed 8 (its peak, in the second pass: _more_primes), for the pairs' few
    inv = np.searchsorted(cells, cell)
    budget.check()
    Bc = ring.centred(B.w)
    sums = np.empty((ring.k, len(cells)))
    for j in range(ring.k):
        sums[j] = np.bincount(inv, weights=Bc[j][b], minlength=len(cells))
        budget.check()
    ring.fold(sums)
    return cells, sums


#: Q of a join's matrix product is built densely, one shared resource at a time (:func:`_dense_q`), when it holds at
#: most DENSE_Q_CELLS cells (times the rows of counts) and its estimated work (cells written, multiply-adds) is at
#: most DENSE_Q_RATIO times the pairs of signatures and B's entries that pairing would code
DENSE_Q_CELLS = 1 << 22
DENSE_Q_RATIO = 8


class _DensePlan:
    """How :func:`_dense_q` builds Q: B's distinct own parts of the key (``own``) and each entry's index into them
    (``at``), the order of the shared resources, each column's code (``cols``: B's own part and the sums' parts,
    sorted) and the terms a cell's sum goes through in the products (``terms``)."""

    __slots__ = ("own", "at", "order", "cols", "terms")

    own: Keys
    at: Keys
    order: list[int]
    cols: Keys
    terms: int

    def __init__(self, own: Keys, at: Keys, order: list[int], cols: Keys, terms: int):
        self.own = own
        self.at = at
        self.order = order
        self.cols = cols
        self.terms = terms


def _dense_plan(key: _JoinKey, B: _Table, S: int, ring: Ring) -> _DensePlan | None:
    """How to build the join's Q densely (:func:`_dense_q`), or None when it would hold too many cells or cost more
    than pairing ``S`` signatures with B's entries (DENSE_Q_CELLS, DENSE_Q_RATIO), or when a sum over B's entries
    could pass 2^53 (not with fewer than 2^30 entries)."""
    if ring.moduli and len(B) << ring.bits >= EXACT_BOUND:  # pragma: no cover - tables far past any bound
        return None
    na = [t.shape[0] for t, _, _ in key.combos]
    nb = [t.shape[1] for t, _, _ in key.combos]
    ny = [n for _, n in key.digits]
    own, at = unique(key.cb)
    size = len(own) * prod(nb)
    if len(own) * prod(na) * prod(ny) * ring.k > DENSE_Q_CELLS or size * ring.k > DENSE_Q_CELLS:
        return None
    # the resources whose step grows the array least first
    order = sorted(range(len(nb)), key=lambda i: (na[i] * ny[i] / nb[i], i))
    work = size
    for i in order:
        size = size // nb[i] * na[i] * ny[i]
        work += size * (nb[i] + 2)  # the product, and the cells written
    if work > DENSE_Q_RATIO * S * len(B):
        return None
    ys = np.zeros(1, dtype=np.int64)
    for (mult, n), _ in zip(key.digits, key.combos):
        ys = (ys[:, None] + np.arange(n, dtype=np.int64)[None, :] * mult).reshape(-1)
    cols = (own[:, None] + ys[None, :]).reshape(-1)
    return _DensePlan(own, at, order, cols, sum(nb))


def _dense_q(
    key: _JoinKey, B: _Table, first: Keys, plan: _DensePlan, ring: Ring, budget: Budget
) -> npt.NDArray[np.float64]:
    """The Q of :func:`_by_products` -- per signature of A (``first``: an entry of A for each) and column
    (``plan.cols``), the counts of B's entries whose pair with the signature is live and has that part of the key
    -- without pairing them: B's counts as a dense array over (its own part, its state's index per shared resource),
    then, one shared resource at a time, B's index replaced by (A's index, the sum's index) in a product with a 0/1
    matrix (1 where the two states' sum is that one; a dead sum has none). The rows of the signatures present are
    then taken, the counts folded (a (k, S, columns) float64 array). Each cell is a sum of some of B's centred
    counts, each at most once: below 2^53 (:func:`_dense_plan`), exact."""
    k = ring.k
    na = [t.shape[0] for t, _, _ in key.combos]
    nb = [t.shape[1] for t, _, _ in key.combos]
    flat = plan.at.astype(np.int64)
    for (_, _, xb), n in zip(key.combos, nb):
        flat = flat * n + xb
    size = len(plan.own) * prod(nb)
    budget.spend(size)
    Bc = ring.centred(B.w)
    arr = np.empty((k, size))
    for j in range(k):
        arr[j] = np.bincount(flat, weights=Bc[j], minlength=size)
    arr = arr.reshape(k, len(plan.own), *nb)
    axes: list[Any] = ["k", "own", *(("b", i) for i in range(len(nb)))]
    with _one_thread():
        for i in plan.order:
            t = key.combos[i][0]
            mult, ny = key.digits[i]
            M = np.zeros((nb[i], na[i], ny))
            ia, ib = np.nonzero(t != DEAD_CODE)
            M[ib, ia, t[ia, ib] // mult] = 1.0
            budget.spend(arr.size * na[i] * ny // PRODUCT_OP)
            arr = np.tensordot(arr, M, axes=([axes.index(("b", i))], [0]))
            budget.check()
            axes.remove(("b", i))
            axes += [("a", i), ("y", i)]
    perm = [axes.index("k"), *(axes.index(("a", i)) for i in range(len(na)))]
    perm += [axes.index("own"), *(axes.index(("y", i)) for i in range(len(na)))]
    sig = np.zeros(len(first), dtype=np.int64)
    for (_, xa, _), n in zip(key.combos, na):
        sig = sig * n + xa[first]
    q: npt.NDArray[np.float64] = arr.transpose(perm).reshape(k, prod(na), len(plan.cols))[:, sig]
    ring.fold(q)
    return q


@cache
def _blas_threads() -> Callable[[int], int] | None:
    """OpenBLAS's setter of the threads of the calling thread (numpy's bundled build), or None when not found.
    Threads of BLAS on a shared machine spin while they wait: the products of a join take several times the CPU."""
    import ctypes
    from pathlib import Path

    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(libs.glob("*openblas*")) if libs.is_dir() else []:
        try:
            fn = ctypes.CDLL(str(path)).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.argtypes, fn.restype = [ctypes.c_int], ctypes.c_int
        return fn
    return None


@contextmanager
def _one_thread() -> Iterator[None]:
    """Matrix products on this thread alone (where numpy's OpenBLAS says how), the previous setting restored."""
    setter = _blas_threads()
    if setter is None:
        yield
        return
    before = setter(1)
    try:
        yield
    finally:
        setter(before)


def _signatures(key: _JoinKey, A: _Table) -> tuple[Keys, Keys]:
    """Each entry of A's *signature* (its states on the shared resources) as a number, and an entry of A for each."""
    sig = np.zeros(len(A), dtype=np.int64)
    for t, xa, _ in key.combos:
        sig = sig * t.shape[0] + xa
    usig, sa = unique(sig)
    first = np.zeros(len(usig), dtype=np.int64)
    first[sa] = np.arange(len(A))
    return sa, first


def _combined(key: _JoinKey, B: _Table, first: Keys, ring: Ring, budget: Budget) -> tuple[Keys, Keys, Weights]:
    """Some of A's signatures (``first``: an entry of A for each) each combined with every entry of B, sorted by
    signature (signature s's are ``starts_of[s]:starts_of[s + 1]``), with their part of the key (``kcode``: B's own
    resources and the shared ones' sums) and their counts (``kw``, the counts of B's entries with equal keys
    added)."""
    r, b, kcode = _pair_codes(key, B, first, budget)
    if not len(r):  # every pair dead
        return np.zeros(len(first) + 1, dtype=np.int64), r, np.zeros((ring.k, 0), dtype=ring.dtype)
    inner = key.inner
    if len(first) * inner >= 1 << 62:  # pragma: no cover - codes far past any board's
        order = np.lexsort((kcode, r))
        r, b, kcode = r[order], b[order], kcode[order]
        starts = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (kcode[1:] != kcode[:-1])])
        starts_of = np.searchsorted(r[starts], np.arange(len(first) + 1))
        kw = ring.reduce(np.add.reduceat(np.take(B.w, b, axis=1), starts, axis=1))
        return starts_of, kcode[starts], kw
    # one int64 key (the signature, then its part of the code, below ``inner``) sorted stably: lexsort's order on
    # (signature, code) in one pass, about three times faster (random_sharing(12, 14, 5) seed 1 pairs 1.2 x 10^7
    # signatures and entries of B in one join); the signatures and codes read back from the keys kept
    code = r * inner + kcode
    order = np.argsort(code, kind="stable")
    code = code[order]
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    code = code[starts]
    starts_of = np.searchsorted(code, np.arange(len(first) + 1) * inner)
    kw = ring.reduce(np.add.reduceat(np.take(B.w, b[order], axis=1), starts, axis=1))
    return starts_of, code % inner, kw


def _pair_codes(key: _JoinKey, B: _Table, first: Keys, budget: Budget) -> tuple[Keys, Keys, Keys]:
    """The live pairs of some of A's signatures (``first``: an entry of A for each) with B's entries: the signature
    (its position in ``first``), B's entry and their part of the key (B's own resources and the shared ones' sums),
    signature by signature."""
    budget.spend(len(first) * len(B))
    kc: Keys | None = None
    for t, xa, xb in _paired(key.combos):
        part = t[xa[first]][:, xb]  # rows then columns: faster than one gather by two index arrays
        if kc is None:
            kc = part + key.cb
        else:
            kc += part
        np.maximum(kc, DEAD_CODE, out=kc)
        budget.check()
    if kc is None:
        kc = np.broadcast_to(key.cb, (len(first), len(B))).copy()
    r, b = np.nonzero(kc >= 0)
    return r, b, kc[r, b]


#: two shared resources' tables of sums are read as one (:func:`_paired`) while it has at most this many cells
PAIRED_CELLS = 1 << 16


def _paired(
    combos: list[tuple[Keys, npt.NDArray[np.intp], npt.NDArray[np.intp]]],
) -> list[tuple[Keys, npt.NDArray[np.intp], npt.NDArray[np.intp]]]:
    """The shared resources' tables of sums (per resource: sums by (A's index, B's index), A's and B's indices per
    entry) two by two as one table, where it stays small (PAIRED_CELLS): the sum of both parts of the code (a dead
    one far below any live code), by combined indices. Half the passes over the pairs of a join."""
    out = []
    k = 0
    while k < len(combos):
        t1, xa1, xb1 = combos[k]
        if k + 1 < len(combos) and t1.size * combos[k + 1][0].size <= PAIRED_CELLS:
            t2, xa2, xb2 = combos[k + 1]
            (na1, nb1), (na2, nb2) = t1.shape, t2.shape
            t = np.maximum(t1[:, None, :, None] + t2[None, :, None, :], DEAD_CODE).reshape(na1 * na2, nb1 * nb2)
            out.append((t, xa1.astype(np.intp) * na2 + xa2, xb1.astype(np.intp) * nb2 + xb2))
            k += 2
        else:
            out.append((t1, xa1, xb1))
            k += 1
    return out


def _pair(
    ca: Keys,
    A: _Table,
    entries: Keys,
    sa: Keys,
    combined: tuple[Keys, Keys, Weights],
    sums: _Sums,
    budget: Budget,
    local: bool = False,
) -> None:
    """Each of A's ``entries`` (of signatures ``sa`` among those ``combined``) paired with its signature's combined
    entries, in slices of at most PAIRS pairs (fewer past four moduli): the keys (A's part ``ca``, per entry of A or,
    ``local``, per one of ``entries``, plus the combined part) added, the counts multiplied (and reduced), into
    ``sums``."""
    starts_of, kcode, kw = combined
    ring = sums.ring
    per_a = np.diff(starts_of)[sa]  # the pairs of each entry
    ends = np.cumsum(per_a)
    step = max(1, PAIRS * 4 // max(4, ring.k))  # fewer pairs at once past four moduli
    lo = 0
    while lo < len(entries):
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + step, side="right")))
        reps = per_a[lo:hi]
        total = int(reps.sum())
        budget.spend(total + hi - lo)
        pos = np.repeat(starts_of[sa[lo:hi]] - (np.cumsum(reps) - reps), reps) + np.arange(total)
        at = entries[lo:hi]
        code = np.repeat(ca[lo:hi] if local else ca[at], reps) + kcode[pos]
        sums.add(code, ring.reduce(np.repeat(np.take(A.w, at, axis=1), reps, axis=1) * np.take(kw, pos, axis=1)))
        lo = hi


def digit_type(radix: Sequence[int]) -> type:
    """The smallest unsigned integer type that holds digits of these radices (a table's index columns: a byte per
    entry and column where a resource has at most 256 states, not eight)."""
    top = max(radix, default=1)
    return np.uint8 if top <= 1 << 8 else np.uint16 if top <= 1 << 16 else np.int64


def _uncodes(code: Keys, radix: list[int], budget: Budget | None = None) -> Digits:
    """Mixed-radix codes as their digits, one row per digit (:func:`digit_type`; the clock read after each)."""
    digits: Digits = np.empty((len(radix), len(code)), dtype=digit_type(radix))
    for k in range(len(radix) - 1, -1, -1):
        code, digits[k] = np.divmod(code, radix[k])
        if budget is not None:
            budget.check()
    return digits


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
    except OverBudget:
        return None


def _count(g: Graph, component: Sequence[int], budget: Budget, estimate_limit: int | None) -> int:
    factors = _Factors(g, component, budget)
    if estimate_limit is not None and factors.work > estimate_limit:
        raise OverBudget
    return factors.count()


class _Factors:
    """A component's tables and their join order (:func:`_order`), built once, and their contraction, which goes on
    from the join it stopped in when :meth:`count` is called again after an :class:`OverBudget` (the budget's limit
    raised or lifted): a first try within a work bound is not thrown away when the count then goes on."""

    __slots__ = ("g", "budget", "settled", "shared", "ring", "slots", "joins", "work", "progress")

    def __init__(self, g: Graph, component: Sequence[int], budget: Budget):
        self.g, self.budget = g, budget
        self.settled, self.shared = _source_rows(g, component, budget)
        self.ring: Ring | None = None
        self.slots: list[_Table | None] = []
        self.joins: list[tuple[int, int]] = []
        self.work = 0  # the order's estimated work (pairs of entries joined)
        self.progress = [0]  # joins done
        if self.shared:
            # every entry of every table, and the count, is at most the product of the tables' sums of |counts|
            bound = prod(sum(abs(w) for w in rows.values()) for _, _, rows in self.shared)
            nonnegative = all(w >= 0 for _, _, rows in self.shared for w in rows.values())
            self.ring = ring = Ring(bound, approx=nonnegative)
            tables = [_Table.of(members, scope, rows, ring) for members, scope, rows in self.shared]
            self.work, self.joins = _order(g, [(t.members, frozenset(t.scope), len(t)) for t in tables])
            self.slots = list(tables)

    def count(self) -> int:
        """The count (:class:`OverBudget` past the budget's limit: then the joins done so far are kept)."""
        if self.shared is None:
            return 0
        if not self.shared:
            return self.settled
        assert self.ring is not None
        try:
            n: int = _contract(self.g, self.slots, self.joins, self.ring, self.budget, progress=self.progress)
        except Inexact as short:
            n = _more_primes(self.g, self.shared, self.joins, short, self.budget)
        return self.settled * n


def _more_primes(
    g: Graph,
    shared: list[tuple[frozenset[int], tuple[str, ...], Rows]],
    joins: list[tuple[int, int]],
    short: Inexact,
    budget: Budget,
) -> int:
    """The count when the float row's error bound was too wide for the primes counted (:class:`Inexact`): the
    contraction again modulo the next primes below 2^APPROX_BITS, as many as the error asks for, and the count
    rebuilt from all the residues and the approximate count."""
    have = len(short.moduli)
    more = have + 1
    while more <= 64 and prod(_primes(APPROX_BITS, more)) <= 2 * short.error + 2:
        more += 1
    if more > 64 or len(_primes(APPROX_BITS, more)) < more:  # an error bound past any use: the bound's primes
        bound = prod(sum(abs(w) for w in rows.values()) for _, _, rows in shared)
        ring0 = Ring(bound)
        return int(_contract(g, [_Table.of(m, s, r, ring0) for m, s, r in shared], joins, ring0, budget))
    moduli = tuple(_primes(APPROX_BITS, more)[have:])
    ring = Ring(0, moduli=moduli, bits=APPROX_BITS)
    tables = [_Table.of(members, scope, rows, ring) for members, scope, rows in shared]
    residues = _contract(g, tables, joins, ring, budget, residues=True)
    n = rebuild(short.moduli + moduli, short.residues + residues, short.approx, short.error)
    assert n is not None  # the product of the primes is over twice the error
    return n


def _source_rows(
    g: Graph, component: Sequence[int], budget: Budget
) -> tuple[int, list[tuple[frozenset[int], tuple[str, ...], Rows]] | None]:
    """Each source's rows (settled for what it alone covers): the product of the counts of those that share nothing,
    and the others (members, scope, rows); None when a source has no legal split."""
    total = 1
    shared: list[tuple[frozenset[int], tuple[str, ...], Rows]] = []
    for i in component:
        scope = tuple(sorted(x for x in g.need if i in g.touchers[x] and len(g.touchers[x]) > 1))
        rows = _source_table(g, i, scope, budget)
        # a resource this source alone contributes to, or alone asks about, is already settled (_settle)
        rows = _normalise(g, frozenset([i]), scope, rows)
        if not rows:
            return 0, None
        kept = tuple(x for x in scope if domain_size(g, x, frozenset([i])))
        if kept:
            shared.append((frozenset([i]), kept, rows))
        else:
            total *= sum(rows.values())
    return total, shared


#: estimated work (pairs of entries joined) up to which the tables are joined first, the actual work (pairs) at which
#: that first try gives up, and the largest need at which they are tried first (a need of N makes 2N + 1 states:
#: binomials are cheaper). The estimate is loose (random graphs of 12 attackers: 1.4 x 10^8 estimated, 6-9 x 10^6
#: joined, 0.2-0.3 s).
FIRST_ESTIMATE = 10**9
FIRST_WORK = 2 * 10**7
FIRST_NEED = 64
#: one blocker at a time is tried first when its rough cost times this is below the tables' estimated work (from
#: the possible states alone, before any table is built): n x n boards, every blocker shared (6 x 6: 30 ms against
#: seconds for the tables)
BLOCKER_FIRST = 3

#: a component of count_shared's shape whose cheaper method's rough cost is at most this is counted by it before
#: any table is built: on the small boards of a batch (a few sources, small needs) it is faster than the tables'
#: set-up. Measured on 61 components of generated boards (2-6 tramplers, 2-8 blockers; medians, CPU): rough cost
#: below 3 000, 0.6 ms against 2.7 ms for the tables; 3 000-30 000, 0.7-2 ms against 2.4-3.2 ms; past 30 000 the
#: tables win more often than not (3.6 ms against 4.8 ms)
SHARED_FIRST_COST = 20000

#: one source at a time is not tried (small needs: the tables count instead) when its rough cost is over this: it
#: gives up past its work bound, measured on random boards of 5-12 attackers (1.4 x 10^7 to 4 x 10^10: it gave up on
#: all but three of 40 boards, which were within 5 x 10^7, after 0.3-0.4 s each)
SOURCE_PLAUSIBLE = 10**8


def count_component(plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> int:
    """The count of a component: one source or one blocker at a time first when that looks cheap
    (``SHARED_FIRST_COST``), or when one blocker at a time looks far cheaper than the tables (``BLOCKER_FIRST``).
    Where needs are small (``FIRST_NEED``), the tables are built and their order chosen once: joined within a work
    bound (``FIRST_WORK``) when one source or one blocker at a time is still to try and the order's estimated work is
    small (``FIRST_ESTIMATE``), then that (:func:`~trample.engines.by_source.count_shared`, only where its rough cost
    is within ``SOURCE_PLAUSIBLE``: past it, it gives up), then the joins go on from where they stopped, without a
    bound (the deadline still holds). Where needs are large, one source or one blocker at a time (for the shapes
    where needs are in the thousands), then the tables."""
    deadline = deadline or NEVER
    shared_left = not plan.options_in(component)  # one source or one blocker at a time still to try
    if shared_left:
        n = count_shared(plan, component, deadline, cost_limit=SHARED_FIRST_COST)
        if n is not None:
            return n
    small_needs = all(
        plan.lethal_need.get(x, plan.loyalty_need.get(x, 0)) <= FIRST_NEED for i in component for x in plan.resources(i)
    )
    if shared_left:
        cost = blocker_cost(plan, component)
        if cost is not None and cost * BLOCKER_FIRST < _possible_work(plan, component):
            n = count_shared(plan, component, deadline)
            if n is not None:
                return n
            shared_left = False
    if not small_needs:
        if shared_left:
            n = count_shared(plan, component, deadline)
            if n is not None:
                return n
        n = count_by_factors(plan, component, deadline)
        assert n is not None  # no bound was given
        return n
    budget = Budget(deadline, None)
    factors = _Factors(Graph(plan, component), component, budget)
    if shared_left and factors.work <= FIRST_ESTIMATE:
        budget.limit = FIRST_WORK
        try:
            return factors.count()
        except OverBudget:
            pass
        budget.limit = None
    if shared_left:
        n = count_shared(plan, component, deadline, source_limit=SOURCE_PLAUSIBLE)
        if n is not None:
            return n
    return factors.count()


def _possible_work(plan: DamagePlan, component: Sequence[int]) -> int:
    """The tables' estimated work (:func:`_order`) with each source's table as large as its resources' possible
    states allow, before any is built."""
    g = Graph(plan, component)
    sims: list[Sim] = []
    for i in component:
        members = frozenset([i])
        scope = frozenset(x for x in g.need if i in g.touchers[x] and len(g.touchers[x]) > 1)
        sims.append((members, scope, prod(domain_size(g, x, members) for x in scope)))
    return _order(g, [t for t in sims if t[1]], ESTIMATE_STARTS)[0] if any(t[1] for t in sims) else 0


def _contract(
    g: Graph,
    tables: Sequence[_Table | None],
    joins: list[tuple[int, int]],
    ring: Ring,
    budget: Budget,
    residues: bool = False,
    progress: list[int] | None = None,
) -> Any:
    """Carry out the joins (pairs of slots: the second joins into the first) and multiply what is left (with
    ``residues``: the product's residue per modulus of the ring, not rebuilt; a slot None is a table already joined
    into another). With ``progress`` (``[joins done]``), ``tables`` is the list of slots itself, updated as each
    join is done, from the first join not done (:class:`_Factors`: a contraction that goes on after OverBudget)."""
    slots: list[_Table | None] = list(tables) if progress is None else tables  # type: ignore[assignment]
    return ring.finish(_contracted(g, slots, joins, progress[0] if progress else 0, ring, budget, progress), residues)


def _contracted(
    g: Graph,
    slots: list[_Table | None],
    joins: list[tuple[int, int]],
    start: int,
    ring: Ring,
    budget: Budget,
    progress: list[int] | None = None,
) -> Total:
    """The joins from ``start`` on (``slots`` updated as each is done: :func:`_carried`) and the product of what is
    left, before it is rebuilt (:meth:`Ring.raw`)."""
    if not _carried(g, slots, joins, start, len(joins), ring, budget, progress):
        # no entry left, or (modulo the primes, no float row) every count a multiple of their product: then 0 too
        return ring.zero()
    totals = []
    err = 1.0
    for left in slots:
        if left is not None:
            assert not left.scope  # every resource has met all its contributors and askers
            totals.append(ring.total(left.w))
            err *= (1 + left.err) * (1 + gamma(len(left)))
    return ring.raw(totals, err - 1)


def _carried(
    g: Graph,
    slots: list[_Table | None],
    joins: list[tuple[int, int]],
    start: int,
    stop: int,
    ring: Ring,
    budget: Budget,
    progress: list[int] | None = None,
    depth: int = 0,
) -> bool:
    """The joins ``start`` to ``stop - 1``, ``slots`` updated in place; False when a table comes out empty. A join
    whose tables are predicted past CUT_BYTES is made in parts (:func:`_cut`: the larger table's entries cut into
    ranges), each part carried through the joins up to the first after which the table is sure to be small again
    (:func:`_merge_point`), where the parts' tables are added into one (:func:`_added`) and carried on once: the
    count is linear in each table, so the parts add up to the whole. A part is cut again (``depth``) at most
    CUT_DEPTH times: where the parts' tables overlap (a cycle), parts of parts would multiply."""
    n = start
    while n < stop:
        a, b = joins[n]
        cut = _cut(g, slots, joins, n, ring, depth) if budget.limit is None and depth < CUT_DEPTH else None
        if cut is not None:
            s, parts = cut
            T = slots[s]
            assert T is not None
            m, line = _merge_point(g, slots, joins, n, s, stop, ring)
            merged: _Table | None = None
            for idx in parts:
                sub = list(slots)
                sub[s] = T.taken(idx)
                if _carried(g, sub, joins, n, m, ring, budget, depth=depth + 1):
                    t = sub[line]
                    assert t is not None
                    merged = t if merged is None else _added(merged, t, ring)
                    rest = sub
                    del t
                del sub
            if merged is None:
                return False
            del T
            slots[:] = rest
            slots[line] = merged
            del rest, merged
            n = m
            if progress is not None:
                progress[0] = n
            continue
        A, B = slots[a], slots[b]
        assert A is not None and B is not None
        t = _join(g, A, B, ring, budget)
        if not len(t):
            return False
        slots[a], slots[b] = t, None
        del A, B, t
        n += 1
        if progress is not None:
            progress[0] = n
    return True


def _merge_point(
    g: Graph, slots: list[_Table | None], joins: list[tuple[int, int]], n: int, s: int, stop: int, ring: Ring
) -> tuple[int, int]:
    """The join (at most ``stop``) before which the parts of slot ``s``'s table cut at join ``n`` are added, and the
    slot that then holds their tables: the first after which the table holds at most CUT_BYTES even with every
    possible state (:func:`domain_size`: a bound, not a prediction; the tables of ``random_sharing(12, 14, 5)`` hold
    5-35 % of them), else ``stop``."""
    held = {k: (t.members, set(t.scope)) for k, t in enumerate(slots) if t is not None}
    line = s
    for m in range(n, stop):
        a, b = joins[m]
        members = held[a][0] | held[b][0]
        scope = {x for x in held[a][1] | held[b][1] if domain_size(g, x, members)}
        held[a] = (members, scope)
        del held[b]
        if line in (a, b):
            line = a
            states = prod(domain_size(g, x, members) for x in scope)
            if states * (8 * ring.k + len(scope)) <= (CUT_BYTES or 0):
                return m + 1, line
    return stop, line


def _added(X: _Table, Y: _Table, ring: Ring) -> _Table:
    """The sum of two tables of the same members (their columns maybe in another order): entries of equal states
    added (:func:`_merged`). The float row's counts go through one more rounding."""
    at = [Y.scope.index(x) for x in X.scope]
    vals: list[Keys] = []
    cx = np.zeros(len(X), dtype=np.int64)
    cy = np.zeros(len(Y), dtype=np.int64)
    widths = [len(distinct(np.concatenate([X.column(c)[0], Y.column(at[c])[0]]))) for c in range(len(X.scope))]
    if float(np.prod(np.array(widths, dtype=float))) >= 2.0**62:  # pragma: no cover - frontiers far past any bound
        raise OverBudget
    for c in range(len(X.scope)):
        vx, ix = X.column(c)
        vy, iy = Y.column(at[c])
        v = distinct(np.concatenate([vx, vy]))
        cx = cx * len(v) + np.searchsorted(v, vx)[ix]
        cy = cy * len(v) + np.searchsorted(v, vy)[iy]
        vals.append(v)
    code, w = _merged([cx, cy], [X.w, Y.w], ring, live=True)
    del cx, cy
    idx = _uncodes(code, [len(v) for v in vals])
    err = (1 + max(X.err, Y.err)) * (1 + gamma(1)) - 1 if ring.approx else 0.0
    return _Table(X.members, X.scope, None, w, err, list(zip(vals, idx)))


#: a join whose larger table and predicted result (:func:`_cut`) would hold more than CUT_BYTES (their counts and
#: index bytes) is made in parts (:func:`_carried`): the larger table cut into ranges of its states on the
#: resources the joins after it read last (CUT_FROM: tables of fewer entries are never cut). None: never. On
#: ``random_sharing(12, 14, 5)`` at 2^26 it lowers the peaks (seed 2 1.17 -> 0.59 GB, seeds 1 and 8 0.38-0.61 ->
#: 0.24-0.26 GB, seeds 4 and 6 under 200 MB) for 2-56 % more CPU on those boards (the joins after the largest tables
#: made once per part); no table of 12 attackers with 4 blockers each comes near it (docs/scale.md)
CUT_BYTES: int | None = 1 << 26
CUT_FROM = 1 << 14
#: levels of cuts; the last (CUT_DEPTH - 1 cuts above it) only where the larger table alone holds more than
#: CUT_BYTES / CUT_LAST_SHARE: there the prediction can be 3-5 times short (random_sharing(12, 14, 5) seed 2's parts
#: grew from 4.8 x 10^5 to 3.2 x 10^6 entries, then 4.7 x 10^6: 540 -> 443 MB with a third level), where elsewhere a
#: third level of parts costs more CPU than it saves memory (seed 1's tables of 8.4 x 10^5 entries, 28 MB: 11 %)
CUT_DEPTH = 3
CUT_LAST_SHARE = 2


def _cut(
    g: Graph, slots: list[_Table | None], joins: list[tuple[int, int]], n: int, ring: Ring, depth: int = 0
) -> tuple[int, list[Keys]] | None:
    """Where join ``n`` is predicted too large (CUT_BYTES), the slot of its larger table and that table's entries
    in parts (each part's entries, by their states on the columns :func:`_cut_columns` picks, in ranges of about
    equal size), else None. The result is predicted at twice the larger table's entries times the growth of its
    possible states (:func:`domain_size`; within 0.5-3 times the real size on ``random_sharing(12, 14, 5)``, up to 5
    times short at its parts' third level), and at most the pairs of entries and the possible states. At the last
    level (``depth``: cuts above it), only a larger table that alone holds over CUT_BYTES / CUT_LAST_SHARE is cut."""
    a, b = joins[n]
    A, B = slots[a], slots[b]
    assert A is not None and B is not None
    s = a if len(A) >= len(B) else b
    T = slots[s]
    assert T is not None
    if CUT_BYTES is None or len(T) < CUT_FROM:
        return None
    if depth == CUT_DEPTH - 1 and len(T) * (8 * ring.k + len(T.scope)) <= CUT_BYTES // CUT_LAST_SHARE:
        return None  # the last level: only a table already large (CUT_LAST_SHARE)
    members = A.members | B.members
    before = prod(domain_size(g, x, T.members) for x in T.scope)
    sizes = [domain_size(g, x, members) for x in set(A.scope) | set(B.scope)]
    after = prod(d for d in sizes if d)
    predicted = min(len(A) * len(B), after, 2 * len(T) * max(1.0, after / max(1, before)))
    cost = len(T) * (8 * ring.k + len(T.scope)) + predicted * (8 * ring.k + sum(1 for d in sizes if d))
    if cost <= CUT_BYTES:
        return None
    parts = -(-int(cost) // CUT_BYTES)
    code = _cut_code(T, _cut_columns(slots, joins, n, s), 4 * parts)
    if code is None:
        return None
    order = np.argsort(code, kind="stable")
    counts = np.bincount(code)
    ends = np.cumsum(counts)
    # each part ends at the end of a code, at about equal shares of the entries
    cuts = np.unique(np.searchsorted(ends, np.arange(1, parts) * (len(T) / parts), side="left"))
    bounds = [0, *(int(ends[c]) for c in cuts if 0 < ends[c] < len(T)), len(T)]
    bounds = sorted(set(bounds))
    if len(bounds) < 3:
        return None
    return s, [np.sort(order[lo:hi]) for lo, hi in zip(bounds, bounds[1:])]


def _cut_columns(slots: list[_Table | None], joins: list[tuple[int, int]], n: int, s: int) -> list[int]:
    """The columns of slot ``s``'s table in the order of the join (from ``n`` on) that first reads them from the
    other side, latest first (never read: first of all): until then a part's states there stay as they are, so the
    parts' tables are disjoint."""
    T = slots[s]
    assert T is not None
    scopes = {k: set(t.scope) for k, t in enumerate(slots) if t is not None}
    touch = {x: len(joins) for x in T.scope}
    line = s
    for m in range(n, len(joins)):
        a, b = joins[m]
        if line in (a, b):
            other = scopes.get(b if line == a else a, set())
            for x in other:
                if x in touch and touch[x] == len(joins):
                    touch[x] = m
            line = a
        scopes[a] = scopes.get(a, set()) | scopes.pop(b, set())
    return sorted(range(len(T.scope)), key=lambda c: (-touch[T.scope[c]], c))


def _cut_code(T: _Table, columns: list[int], want: int) -> Keys | None:
    """Each entry's states on the first of ``columns`` that tell at least ``want`` groups apart (or all of them), as
    one code (the earlier columns major); None when every entry has the same states on them all."""
    code = np.zeros(len(T), dtype=np.int64)
    groups = 1
    for c in columns:
        values, at = T.column(c)
        if len(values) < 2:
            continue
        code = code * len(values) + at
        groups *= len(values)
        if groups >= want:
            break
    if groups < 2:
        return None
    _, code = unique(code)
    return code


#: the path plan of :func:`_order` is tried from this many starting tables (the smallest first): a count's from
#: every table when the best of four is estimated past PATH_ALL_FROM (the random 12-attacker boards with 4 blockers
#: each: up to a third of the estimated work of the best of four, 5 ms of planning), the rough estimate that chooses
#: a method before any table is built from four
PATH_STARTS = 64
ESTIMATE_STARTS = 4
PATH_ALL_FROM = 5 * 10**7  # estimated work of the best of the first four plans past which every start is tried


def _order(g: Graph, sims: list[Sim], starts: int = 0) -> tuple[int, list[tuple[int, int]]]:
    """The estimated work and the joins (pairs of slots) of whichever of the plans (:func:`_plans`) has the
    smallest estimated work."""
    return min(_plans(g, sims, starts), key=lambda p: p[0])


#: a table as :func:`_plans` plans with it: (members as a bit mask, scope, estimated size)
_Planned = tuple[int, frozenset[str], int]


class _Planner:
    """A resource's possible states (:func:`domain_size`) in a table of members given as a bit mask, and the
    estimated table of a join with its work (:func:`_plans`)."""

    def __init__(self, g: Graph):
        self.need = g.need
        self.bit = {i: 1 << n for n, i in enumerate(g.ways)}
        self.contributors = {x: self.mask(g.contributors[x]) for x in g.need}
        self.askers = {x: self.mask(g.askers[x]) for x in g.need}

    def mask(self, members: Iterable[int]) -> int:
        return sum(self.bit[i] for i in members)

    def size_of(self, x: str, mask: int) -> int:
        all_c, all_a = not self.contributors[x] & ~mask, not self.askers[x] & ~mask
        if all_c:
            return 0 if all_a else 2
        return self.need[x] + 1 if all_a else 2 * self.need[x] + 1

    def join(self, A: _Planned, B: _Planned) -> tuple[_Planned, int]:
        mask = A[0] | B[0]
        states = [(x, self.size_of(x, mask)) for x in A[1] | B[1]]
        scope = frozenset(x for x, n in states if n)
        size = min(A[2] * B[2], prod(n for _, n in states if n))
        return (mask, scope, size), A[2] * B[2]


def _plans(g: Graph, sims: list[Sim], starts: int = 0) -> list[tuple[int, list[tuple[int, int]]]]:
    """Plans of the joins, each with its estimated work (the sum, over the joins, of the product of the two
    tables' sizes; a table's size estimated as the product of its resources' possible states, at most the product
    of the sizes it came from): bucket elimination (:func:`_bucket_plan`), then one table at a time into a growing
    one (:func:`_path_plan`) from each of the ``starts`` (else PATH_STARTS) smallest tables. For a count's order
    (no ``starts``) past PATH_ALL_FROM, also the best linear plan (:func:`_linear_plan`) where its estimated work is
    under 1 / LINEAR_MARGIN of theirs."""
    planner = _Planner(g)
    tables = [(planner.mask(members), scope, size) for members, scope, size in sims]
    plans = [_bucket_plan(planner, tables)]
    first_tables = sorted(range(len(sims)), key=lambda k: (len(sims[k][1]), sims[k][2]))
    for n, start in enumerate(first_tables[: starts or PATH_STARTS]):
        if not starts and n == ESTIMATE_STARTS and min(w for w, _ in plans) <= PATH_ALL_FROM:
            break  # a small board: the best of four is good enough, the other starts cost more than they save
        path = _path_plan(planner, tables, start)
        if path is not None:
            plans.append(path)
    best = min(w for w, _ in plans)
    if not starts and best > PATH_ALL_FROM and len(tables) <= LINEAR_TABLES:
        linear = _linear_plan(planner, tables)
        if linear[0] * LINEAR_MARGIN < best:
            plans.append(linear)
    return plans


#: the best linear plan (:func:`_linear_plan`) is looked for when the greedy plans' estimated work is past
#: PATH_ALL_FROM and there are at most LINEAR_TABLES tables (2^n subsets: 4 096 for 12 sources, 3-5 ms), and taken
#: only when its estimated work is under 1 / LINEAR_MARGIN of theirs: the estimate counts pairs of entries from
#: sizes 2-14 times the real ones, and a plan that it prefers by less may be slower (random_sharing(12, 14, 4)
#: seed 3: 2.1 x 10^9 against 2.9 x 10^9 estimated, 1.5 s against 0.65 s; seed 5: 1.6 x 10^8 against 1.0 x 10^9,
#: 0.08 s against 0.24 s)
LINEAR_TABLES = 14
LINEAR_MARGIN = 2


def _linear_plan(planner: _Planner, tables: list[_Planned]) -> tuple[int, list[tuple[int, int]]]:
    """The linear plan (one table at a time into a growing one, as :func:`_path_plan`) of least estimated work, by
    dynamic programming over the sets of tables (numpy, one layer of sets of equal size at a time): a set's table
    is estimated as the product of its resources' possible states, the work of adding table k to a set as that
    estimate times k's size. Its work is then re-estimated join by join as the other plans' (:meth:`_Planner.join`,
    which also caps a table's size by the product of the two it came from)."""
    n = len(tables)
    N = 1 << n
    sets = np.arange(N, dtype=np.int64)
    members = np.zeros(N, dtype=np.int64)  # each set's members (the planner's bits)
    for k, (mask, _, _) in enumerate(tables):
        members[(sets >> k) & 1 == 1] |= mask
    size = np.ones(N)
    open_ = np.zeros(N, dtype=np.int64)  # each set's table's resources (a bit each)
    bit: dict[str, int] = {}
    for x, need in planner.need.items():
        c, a = planner.contributors[x], planner.askers[x]
        touched = (members & (c | a)) != 0
        all_c, all_a = (c & ~members) == 0, (a & ~members) == 0
        states = np.where(all_c, np.where(all_a, 1, 2), np.where(all_a, need + 1, 2 * need + 1))  # (size_of)
        size *= np.where(touched, states, 1)
        bit[x] = 1 << len(bit)
        open_ |= np.where(touched & ~(all_c & all_a), bit[x], 0)
    scopes = [sum(bit[x] for x in scope) for _, scope, _ in tables]
    sizes = np.array([float(s) for _, _, s in tables])
    ones = np.zeros(N, dtype=np.int64)
    for k in range(n):
        ones += (sets >> k) & 1
    work = np.full(N, np.inf)
    last = np.full(N, -1, dtype=np.int64)  # the table added last in the best plan of each set
    for k in range(n):
        work[1 << k], last[1 << k] = 0.0, k
    for layer in range(2, n + 1):
        at = sets[ones == layer]
        for k in range(n):
            s = at[(at >> k) & 1 == 1]
            prev = s ^ (1 << k)
            # (a table that shares no resource with the set's is not added: a path through the sharing graph)
            w = np.where(open_[prev] & scopes[k] != 0, work[prev] + size[prev] * sizes[k], np.inf)
            better = w < work[s]
            work[s[better]], last[s[better]] = w[better], k
    seq: list[int] = []
    left = N - 1
    while left:
        k = int(last[left])
        seq.append(k)
        left ^= 1 << k
    seq.reverse()
    cur, total = tables[seq[0]], 0
    for k in seq[1:]:
        cur, cost = planner.join(cur, tables[k])
        total += cost
    return total, [(seq[0], k) for k in seq[1:]]


def _bucket_plan(
    planner: _Planner, tables: list[_Planned], open_: frozenset[str] = frozenset()
) -> tuple[int, list[tuple[int, int]]]:
    """Bucket elimination of every resource but ``open_``: each time, the tables holding the resource whose join has
    the fewest possible states (min-size), joined smallest first. (engines/conditioned.py keeps a source's
    resources open: the tables left then hold only those.)"""
    slots: list[Any] = list(tables)
    joins: list[tuple[int, int]] = []
    work = 0
    while True:
        live = [k for k, t in enumerate(slots) if t is not None]
        best: tuple[tuple[int, int], list[int]] | None = None
        for x in sorted({x for k in live for x in slots[k][1]} - open_):
            bucket = [k for k in live if x in slots[k][1]]
            mask = 0
            for k in bucket:
                mask |= slots[k][0]
            names = frozenset().union(*(slots[k][1] for k in bucket))
            size = prod(d for d in (planner.size_of(y, mask) for y in names) if d)
            est = (min(size, prod(slots[k][2] for k in bucket)), len(bucket))
            if best is None or est < best[0]:
                best = (est, bucket)
        if best is None:
            return work, joins
        bucket = sorted(best[1], key=lambda k: slots[k][2])
        first = bucket[0]
        for k in bucket[1:]:
            slots[first], cost = planner.join(slots[first], slots[k])
            slots[k] = None
            joins.append((first, k))
            work += cost


def _path_plan(planner: _Planner, tables: list[_Planned], start: int) -> tuple[int, list[tuple[int, int]]] | None:
    """One table at a time into a growing one from ``start``: each time, the table that leaves the fewest possible
    states (a path through the sharing graph, as a cycle wants); None if some table is never reached."""
    cur, left = tables[start], set(range(len(tables))) - {start}
    joins: list[tuple[int, int]] = []
    work = 0
    while left:
        best: Any = None
        for k in sorted(left):
            if not cur[1] & tables[k][1]:
                continue
            nxt, cost = planner.join(cur, tables[k])
            rank = (nxt[2], cost, k)
            if best is None or rank < best[0]:
                best = (rank, k, nxt, cost)
        if best is None:  # pragma: no cover - the tables of a component are linked
            return None
        _, k, cur, cost = best
        left.discard(k)
        joins.append((start, k))
        work += cost
    return work, joins


def _normalise(g: Graph, members: frozenset[int], scope: tuple[str, ...], rows: Rows) -> Rows:
    """A source's rows settled for what it already covers (:func:`_settle`); resources that left are removed.
    Each resource's states are settled once (a table per column); the rows are rebuilt only where some column's
    state changes."""
    settled = [{s: _settle(g, x, members, s) for s in {key[c] for key in rows}} for c, x in enumerate(scope)]
    changing = [c for c, table in enumerate(settled) if any(s != t for s, t in table.items())]
    if not changing:
        return {k: w for k, w in rows.items() if w}
    out: Rows = {}
    for key, w in rows.items():
        kept = []
        for s, table in zip(key, settled):
            s = table[s]
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
    linear in each table's weights (a sum of products), so the parts' counts add up exactly to the count (each part
    is within the ring's bound too, and rebuilt with its sign: :meth:`Ring.product`)."""

    graph: Graph
    tables: list[_Table | None]
    joins: list[tuple[int, int]]
    slot: int
    settled: int
    ring: Ring

    @property
    def entries(self) -> int:
        """How many entries the split table has (parts are ranges of them)."""
        return len(self.tables[self.slot] or ()) if self.tables else 0


def split_count(plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> Split:
    """The tables of a component and their join order (:func:`_order`), with the table to cut: the one with the
    most entries (of those tried on random sharing graphs, its parts' largest was the smallest: about half the
    whole contraction at 8 parts, docs/scale.md). The joins that do not read the cut table are made here, once (the
    parts then hold their results, ``None`` where a table was joined into another, and the joins left). No table to
    join: ``settled`` is the count."""
    budget = Budget(deadline or NEVER, None)
    g = Graph(plan, component)
    settled, shared = _source_rows(g, component, budget)
    if shared is None:
        return Split(g, [], [], 0, 0, Ring(0))
    if not shared:
        return Split(g, [], [], 0, settled, Ring(0))
    ring = Ring(prod(sum(abs(w) for w in rows.values()) for _, _, rows in shared))
    tables: list[_Table | None] = [_Table.of(members, scope, rows, ring) for members, scope, rows in shared]
    _, joins = _order(g, [(t.members, frozenset(t.scope), len(t)) for t in tables if t is not None])
    slot = max(range(len(tables)), key=lambda k: len(tables[k] or ()))
    # the joins that do not read the cut table (nor a table joined from it) are made here, once, not in every part
    reads = {slot}
    left: list[tuple[int, int]] = []
    for a, b in joins:
        if a in reads or b in reads:
            reads.add(a)
            left.append((a, b))
            continue
        A, B = tables[a], tables[b]
        assert A is not None and B is not None
        tables[a], tables[b] = _join(g, A, B, ring, budget), None
        if not len(tables[a] or ()):
            return Split(g, [], [], 0, 0, Ring(0))  # no entry left: the count is 0
    return Split(g, tables, left, slot, settled, ring)


def count_part(split: Split, lo: int, hi: int, deadline: Deadline | None = None) -> int:
    """The contraction of ``split`` with only entries ``lo <= k < hi`` of its split table (a worker's part;
    ``settled`` not included). Parts over consecutive ranges covering every entry add up to the count."""
    if not split.tables:  # nothing to join (trample.shard sends no parts then)
        return 1
    tables = list(split.tables)
    t = tables[split.slot]
    assert t is not None
    tables[split.slot] = _Table(t.members, t.scope, t.keys[lo:hi], t.w[:, lo:hi])
    if not hi > lo:
        return 0
    return int(_contract(split.graph, tables, split.joins, split.ring, Budget(deadline or NEVER, None)))


# -- the seams of engines/conditioned.py: rank and unrank with the count's own tables, joins and plans -------------

Table = _Table
Planned = _Planned
Planner = _Planner
join = _join
normalise = _normalise
path_plan = _path_plan
bucket_plan = _bucket_plan
order = _order
