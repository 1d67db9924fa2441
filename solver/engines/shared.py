"""Counting a component whose few gated blockers are shared by several sources, in closed form (docs/scale.md,
"Three tramplers on two blockers of 2 000").

The shape is :mod:`~trample.engines.by_source`'s (every gate asks for lethal damage on blockers the source itself
assigns to: current-rules trample over blockers, 702.19b; plain blocked creatures; marked damage), with no
deathtouch source on a gated blocker and at most two gated blockers (*resources*) with a need above 0. A blocker
``j`` of need ``N_j`` (its total ``T_j`` over every source) is fine when it ends lethal or no gated route naming it
received damage; that is ``1 - [T_j < N_j][F_j]`` with ``F_j`` "some gated route naming j is used", and
``F_j = 1 - prod over those routes [route = 0]``. Expanding both products over the resources gives a signed sum,
over the sets ``A`` of blockers held short and ``B`` (a subset of ``A``) whose gated routes are held at 0, of plain
counts: splits of each source's damage over its routes with every route of ``B`` at 0 and every total of ``A`` at
most ``N_j - 1``. A source that feeds no blocker of ``A`` contributes a factor (stars and bars); the others are
counted by :class:`Line` (one short total) or :func:`_two_short` (two), sums of binomials with no table over the
damage. Counts are exact Python integers; the work is about ``need x 3^sources`` binomials for two short blockers,
``2^sources`` for one, whatever the damage.

:func:`shared_count` returns None outside the shape (deathtouch on a gated blocker, three or more gated blockers,
more than ``MAX_SOURCES`` sources on them, or with two of them ``6^sources`` past ``WORK``, a gated route beside
both blockers and another free route when both are short), and the other counting programmes count it.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache, partial
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from ..limits import NEVER, Deadline
from ..rules import DamagePlan
from .by_source import compositions, last_at_least, shape_of

MAX_RESOURCES = 2  # gated blockers with a need above 0 this module counts
MAX_SOURCES = 10  # sources feeding them (the work grows as 3^sources)
#: two gated blockers: 3^sources sets of the passes x 2^sources binomials a step, past which the count is left to
#: the joins (measured: 7 sources on needs 6 and 9: 0.04 s, the joins 0.01 s; 8: 0.2 s against 7 ms; the passes'
#: lengths, the smaller need, cost little: 5 tramplers on two blockers of 2 000 take 10 ms)
WORK = 1 << 19

#: One source's share of a short total: (its damage, its other routes ``u``): it puts ``v`` in 0..damage on the
#: short blocker(s) and splits the rest over ``u`` routes (``u = 0``: all of it on the blocker).
Item = tuple[int, int]


def _gbinom(n: int, k: int) -> int:
    """The binomial coefficient as a polynomial in ``n`` (any integer; ``k >= 0``)."""
    if n >= 0:
        return comb(n, k)
    return -comb(k - n - 1, k) if k % 2 else comb(k - n - 1, k)


def _basis(d: int, u: int, shifted: bool) -> list[int]:
    """The coefficients ``c_k`` of ``C(d - v + u - 1, u - 1) = sum_k c_k C(v + k, k)`` (Vandermonde with
    ``C(-(v + 1), k) = (-1)^k C(v + k, k)``); ``shifted``: of the same weight at ``v = d + 1 + v'``, in ``v'``."""
    top = u - 1 if shifted else d + u
    return [(-1) ** k * _gbinom(top, u - 1 - k) for k in range(u)]


@lru_cache(maxsize=1 << 10)
def _expanded(boxes: tuple[Item, ...]) -> tuple[tuple[int, int, int], ...]:
    """The product over the boxes of ``sum_k c_k C(v + k, k)`` less the same shifted past the box's bound (offset
    ``d + 1``), expanded: ``(offset, sum of the k, coefficient)``, like terms merged. Built from the first box and
    the product of the others, kept: a bisection moves the first box (its source's damage left) and nothing else,
    so each count adds one box to a product it has already. Few are kept (a search's hot ones): an expansion over
    ten boxes of distinct damage has about 2^10 offsets times the degrees, a few hundred kilobytes."""
    if not boxes:
        return ((0, 0, 1),)
    d, u = boxes[0]
    out: dict[tuple[int, int], int] = defaultdict(int)
    rest = _expanded(boxes[1:])
    for shifted, off in ((False, 0), (True, d + 1)):
        sign = -1 if shifted else 1
        for k, b in enumerate(_basis(d, u, shifted)):
            if b:
                for o, s, c in rest:
                    out[o + off, s + k] += sign * b * c
    return tuple((o, s, c) for (o, s), c in out.items() if c)


class Line:
    """``at(K)``: the number of ways for the items to put ``v_i`` (0..damage) on one axis, each weighted by its
    splits of the rest, together with ``m + 1`` slack parts, all summing to ``K`` (``m = 0``: the items' sum is at
    most ``K``; ``m = -1``: exactly ``K``). Upper bounds ``v_i <= d_i`` by inclusion-exclusion, the weights in the
    basis ``C(v + k, k)``, so that each term is one binomial: ``sum over compositions of K' of prod C(v_i + k_i,
    k_i) = C(K' + sum k + parts - 1, sum k + parts - 1)``."""

    def __init__(self, items: Sequence[Item], m: int):
        fixed = sum(d for d, u in items if u == 0)
        boxes = tuple((d, u) for d, u in items if u > 0)
        parts = len(boxes) + m + 1
        # (offset, binomial's lower index, coefficient)
        self.terms = [(fixed + o, s + parts - 1, c) for o, s, c in _expanded(boxes)]
        #: (offset, lower index) of every term: where each starts counting; the largest degree in ``K`` of a term
        self.starts = sorted({(o, p) for o, p, _ in self.terms})
        self.degree = max((p for _, p, _ in self.terms if p > 0), default=0)

    def at(self, K: int) -> int:
        total = 0
        for offset, p, c in self.terms:
            k = K - offset
            if k < 0:
                continue
            total += c * (comb(k + p, p) if p >= 0 else int(k == 0))
        return total


@lru_cache(maxsize=1 << 9)
def _line(items: tuple[Item, ...], m: int) -> Line:
    """:class:`Line` of the items, kept: a bisection's counts rebuild the same lines over the sources it does not
    move (a column's counts differ only in its own source)."""
    return Line(items, m)


#: A source as the count reads it: (damage, the short-able blockers it assigns to, its free routes, its gated
#: routes' gates as the open blockers they name).
Src = tuple[int, tuple[str, ...], int, tuple[tuple[str, ...], ...]]


def shared_count(plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> int | None:
    """The number of legal assignments of ``component`` in closed form (see the module), or None outside its
    shape."""
    shaped = _shaped(plan, component)
    if shaped is None:
        return None
    srcs, need = shaped
    return _count(srcs, need, set(), deadline or NEVER)


def column_cells(plan: DamagePlan, component: Sequence[int]) -> int | None:
    """A rough size of the column programme's tables on a component of :func:`shared_count`'s shape (None outside
    it): the blockers' totals it tells apart (each need + 1, multiplied) times the damage left to a source (the
    largest + 1). Measured (CPU to build): two tramplers on one blocker, 5 x 10^5 in 0.16 s, 4.5 x 10^6 in 1.6 s;
    three on two blockers, 1.4 x 10^4 in 0.05 s, 3.8 x 10^5 in 2 s; the HUGE board 5 x 10^9, three of 3 000 on two
    of 2 000 1.2 x 10^10 (neither builds)."""
    shaped = _shaped(plan, component)
    if shaped is None:
        return None
    srcs, need = shaped
    cells = max((D for D, _, _, _ in srcs), default=0) + 1
    for n in need.values():
        cells *= n + 1
    return cells


def _shaped(plan: DamagePlan, component: Sequence[int]) -> tuple[list[Src], dict[str, int]] | None:
    shaped = shape_of(plan, component)
    if shaped is None:
        return None
    sources, resources = shaped
    if not resources or len(resources) > MAX_RESOURCES:
        return None
    feeding = [s for s in sources if s[2]]
    if len(feeding) > MAX_SOURCES or any(dt for _, dt, _, _, _ in feeding):
        return None
    if len(resources) == 2 and 6 ** len(feeding) > WORK:
        return None  # the two-short terms' passes (their binomials): past it the joins are cheaper
    srcs = [(D, own, free, gates) for D, _, own, free, gates in sources]
    return srcs, {name: plan.lethal_need[name] for name in resources}


def _count(srcs: Sequence[Src], need: dict[str, int], flagged: set[str], deadline: Deadline) -> int | None:
    """The splits of every source's damage over its routes such that each blocker of ``need`` ends with at least
    its need or no gated route naming it is used; a blocker of ``flagged`` must end with its need (a route naming
    it was used before). None: a shape :func:`_two_short` does not count."""
    names = sorted(need)
    short = {name: need[name] - 1 for name in names}
    total = 0
    for a in range(len(names) + 1):
        for held in combinations(names, a):
            open_ = [x for x in held if x not in flagged]
            for b in range(len(open_) + 1):
                for zero in combinations(open_, b):
                    deadline.check()
                    n = _term(srcs, held, set(zero), short)
                    if n is None:
                        return None
                    total += -n if (a + b) % 2 else n
    return total


def _term(sources: Sequence[Src], held: tuple[str, ...], zero: set[str], short: dict[str, int]) -> int | None:
    """The splits with every gated route naming a blocker of ``zero`` at 0 and every blocker of ``held`` at most
    ``short`` (None: a shape :func:`_two_short` does not count)."""
    factor = 1
    on: dict[tuple[str, ...], list[Item]] = defaultdict(list)
    for D, own, free, gates in sources:
        u = free + sum(1 for g in gates if not zero.intersection(g)) + sum(1 for x in own if x not in held)
        mine = tuple(x for x in held if x in own)
        if mine:
            on[mine].append((D, u))
        else:
            factor *= compositions(D, u)
    if not factor:
        return 0
    if len(held) == 1:
        return factor * _line(tuple(on[held]), 0).at(short[held[0]])
    if len(held) == 2:
        first, second = sorted(held, key=short.__getitem__)  # the pass goes over the smaller need
        n = _two_short(on[held], on[(first,)], on[(second,)], short[first], short[second])
        return None if n is None else factor * n
    return factor


def _two_short(both: list[Item], only0: list[Item], only1: list[Item], m0: int, m1: int) -> int | None:
    """The splits with both totals short (at most ``m0``, ``m1``): ``both`` feed the two blockers (``x0 + x1`` up to
    the damage with one other route, or all of it with none), ``only0``/``only1`` one of them. Over the sets ``S``
    of ``both``'s sources whose ``x1`` passes its bound ``d - x0`` (inclusion-exclusion), the second total's count
    depends on the first axis only through ``X``, the sum of ``x0`` over ``S`` and the sources with no other route;
    one pass over ``X`` per ``S``."""
    if any(u > 1 for _, u in both):
        return None
    tied = [d for d, u in both if u == 0]  # x1 = d - x0
    loose = [d for d, u in both if u == 1]
    total = 0
    for r in range(len(loose) + 1):
        for S in combinations(range(len(loose)), r):
            inside = [loose[i] for i in S] + tied
            rest = [(loose[i], 1) for i in range(len(loose)) if i not in S] + only0
            base = m1 - sum(loose[i] + 1 for i in S) - sum(tied)
            cnt = _line(tuple((d, 1) for d in inside), -1)
            pref, phi = _line(tuple(rest), 0), _line(tuple(only1), len(loose))
            lo, hi = max(0, -base), min(m0, sum(inside))
            n = _pass(cnt, pref, phi, m0, base, lo, hi)
            total += -n if r % 2 else n
    return total


def _pass(cnt: Line, pref: Line, phi: Line, m0: int, base: int, lo: int, hi: int) -> int:
    """``sum over X in lo..hi of cnt.at(X) * pref.at(m0 - X) * phi.at(base + X)``. Between the points where a
    term of a line starts or stops counting the product is one polynomial in ``X`` of degree at most the lines'
    degrees summed, so each such stretch is summed from its first ``degree + 1`` values (forward differences:
    ``sum of q(lo + t) for t < T = sum_k delta^k q(lo) C(T, k + 1)``): a few dozen products, not one per ``X``
    (the pass was over the smaller need, thousands of values, in every count of a bisection)."""
    if lo > hi:
        return 0
    cuts = {lo, hi + 1}
    for line, sign, shift in ((cnt, 1, 0), (pref, -1, m0), (phi, 1, base)):
        for offset, p in line.starts:
            # the term counts where sign * X + shift >= offset (p < 0: only where it equals offset)
            at = offset - shift if sign > 0 else shift - offset + 1
            cuts.add(at)
            if p < 0:
                cuts.add(at + 1 if sign > 0 else at - 1)
    degree = cnt.degree + pref.degree + phi.degree
    edges = sorted(x for x in cuts if lo <= x <= hi + 1)
    total = 0
    for a, b in zip(edges, edges[1:]):
        values = [cnt.at(X) * pref.at(m0 - X) * phi.at(base + X) for X in range(a, min(b, a + degree + 1))]
        if b - a <= degree + 1:
            total += sum(values)
            continue
        for k in range(len(values)):
            total += values[0] * comb(b - a, k + 1)
            values = [y - x for x, y in zip(values, values[1:])]
    return total


def _search(rem: int, f: Callable[[int], int], top: int, floor: int) -> tuple[int, int, int]:
    """``(v, f(v), f(v + 1))`` for the largest ``v`` in ``0..rem`` with ``f(v) >= floor``, where ``f`` (the
    completions with at least ``v`` on a column) does not grow, ``f(0) = top >= floor`` and ``f(rem + 1) = 0``.
    The bracket ``[a, b)`` (``f(a) >= floor > f(b)``) shrinks by interpolation between its ends' values (the
    counts are smooth in ``v``: polynomials between a few points), and by halving when two such steps have not
    halved it (so at most about ``3 log2(rem)`` steps): about half of bisection's counts on the 2 000 boards."""
    a, fa, b, fb = 0, top, rem + 1, 0
    mark, tries = b - a, 0  # the bracket's width when it last halved; interpolation steps since
    while b - a > 1:
        if tries >= 2:
            mid, tries = (a + b) // 2, 0
        else:
            mid, tries = min(max(a + (fa - floor) * (b - a) // (fa - fb), a + 1), b - 1), tries + 1
        fm = f(mid)
        if fm >= floor:
            a, fa = mid, fm
        else:
            b, fb = mid, fm
        if b - a <= mark // 2:
            mark, tries = b - a, 0
    return a, fa, fb


# ---------------------------------------------------------------------------------------------
# Rank and unrank: the same count with a prefix of the columns fixed
# ---------------------------------------------------------------------------------------------

BLOCKER, GATED, FREE = 0, 1, 2


#: the seconds after which :meth:`SharedProgramme.blocks` hands out the rows it has, full block or not
FLUSH = 0.25


class SharedProgramme:
    """Count, rank and unrank of a component of :func:`shared_count`'s shape, in the canonical (lexicographic)
    order, column by column: the completions of a prefix are the same closed form on what is left (each blocker's
    need less the prefix's damage on it, the blockers a used gated route named flagged, the current source's damage
    left over its routes from the current one). "The current column at least ``v``" is the same count again (``v``
    put on the route, the route kept), so each column's value is found by a search over ``v`` (:func:`_search`:
    interpolation, a few counts a column), and the completions of the next state are read off its ends."""

    def __init__(self, plan: DamagePlan, component: Sequence[int], srcs: Sequence[Src], need: dict[str, int]):
        self.columns = plan.component_columns(component)
        self.need = need
        self.damage = [plan.sources[i].damage for i in component]
        self.routes: list[list[tuple[int, tuple[str, ...]]]] = []
        for i in component:
            kinds: list[tuple[int, tuple[str, ...]]] = []
            for r in plan.sources[i].routes:
                if r.recipient in need:
                    kinds.append((BLOCKER, (r.recipient,)))
                elif r.gate is not None and any(x in need for x in r.gate.lethal):
                    kinds.append((GATED, tuple(x for x in r.gate.lethal if x in need)))
                else:
                    kinds.append((FREE, ()))
            self.routes.append(kinds)
        self.deadline: Deadline | None = None
        self._total = _count(srcs, need, set(), NEVER)

    def count(self) -> int:
        assert self._total is not None
        return self._total

    def _left(self, state: _State, extra: int = 0, free_here: bool = False) -> int:
        """The completions of ``state`` with ``extra`` more put on its current route (the route kept, free from
        then on when it is gated and ``extra`` >= 1)."""
        k, q, rem, before, asked = state
        totals = dict(before)
        flagged = set(asked)
        if k < len(self.routes) and q < len(self.routes[k]):
            kind, names = self.routes[k][q]
            rem -= extra
            if kind == BLOCKER:
                totals[names[0]] = totals.get(names[0], 0) + extra
            elif kind == GATED and extra > 0:
                flagged.update(names)
                free_here = True
        need = {x: n - totals.get(x, 0) for x, n in self.need.items() if n - totals.get(x, 0) > 0}
        srcs = [self._src(k, q, rem, need, free_here)] if k < len(self.routes) else []
        srcs += [self._src(j, 0, self.damage[j], need, False) for j in range(k + 1, len(self.routes))]
        (self.deadline or NEVER).check()
        n = _count(srcs, need, flagged & set(need), NEVER)
        assert n is not None  # the shape of the whole component, with fewer routes and needs
        return n

    def _src(self, k: int, q: int, D: int, need: dict[str, int], free_here: bool) -> Src:
        own: list[str] = []
        free = 0
        gates: list[tuple[str, ...]] = []
        for at, (kind, names) in enumerate(self.routes[k][q:], q):
            live = tuple(x for x in names if x in need)
            if kind == BLOCKER and live:
                own.append(live[0])
            elif kind == GATED and live and not (free_here and at == q):
                gates.append(live)
            else:
                free += 1
        return D, tuple(own), free, tuple(gates)

    def _steps(self) -> Iterator[tuple[int, int, bool]]:
        """(source position, route position, last route of its source) for every column."""
        for k, kinds in enumerate(self.routes):
            for q in range(len(kinds)):
                yield k, q, q == len(kinds) - 1

    def _put(self, state: _State, v: int) -> _State:
        k, q, rem, totals, flagged = state
        kind, names = self.routes[k][q]
        if kind == BLOCKER and v:
            totals = totals | {names[0]: totals.get(names[0], 0) + v}
        elif kind == GATED and v:
            flagged = flagged | frozenset(names)
        if q + 1 < len(self.routes[k]):
            return k, q + 1, rem - v, totals, flagged
        nxt = self.damage[k + 1] if k + 1 < len(self.damage) else 0
        return k + 1, 0, nxt, totals, flagged

    def _start(self) -> _State:
        return 0, 0, self.damage[0] if self.damage else 0, {}, frozenset()

    def unrank(self, index: int) -> tuple[int, ...]:
        if not 0 <= index < self.count():
            raise IndexError(index)
        state, out, here = self._start(), [], self.count()
        for _, _, last in self._steps():
            rem = state[2]
            if last:
                v = rem  # one way on: the completions stay ``here``
            else:
                # the largest v with fewer than index + 1 completions below it; those with exactly v are the
                # completions of the state after it (at least v less at least v + 1)
                v, at_least, above = _search(rem, partial(self._left, state), here, here - index)
                index -= here - at_least
                here = at_least - above
            out.append(v)
            state = self._put(state, v)
        return tuple(out)

    def rank(self, vector: Sequence[int]) -> int | None:
        if len(vector) != len(self.columns):
            return None
        state, r = self._start(), 0
        for (_, _, last), v in zip(self._steps(), vector):
            rem = state[2]
            if v < 0 or v > rem or (last and v != rem):
                return None
            if not last and v:
                r += self._left(state) - self._left(state, v)
            state = self._put(state, v)
        return r if self._left(state) == 1 else None

    @property
    def P(self) -> int:
        """The component's columns (the listers' interface)."""
        return len(self.columns)

    def rows(self, deadline: Deadline | None = None, start: int = 0) -> Iterator[tuple[int, ...]]:
        """Every legal vector in the canonical (lexicographic) order from index ``start``, depth first: at each
        column the values whose completions are not none, smallest first (the completions with exactly ``v`` are
        those with at least ``v`` less those with at least ``v + 1``; the last column of a source takes what is
        left), the walk started on the path to ``unrank(start)``. A row costs a few counts of the closed form
        (milliseconds): the lister of the boards no table-based lister takes (needs in the thousands), where the
        first rows come at once instead of never."""
        if deadline is not None:
            self.deadline = deadline
        if not 0 <= start < self.count():
            return
        last = [end for _, _, end in self._steps()]
        floor = self.unrank(start) if start else (0,) * len(last)

        def walk(state: _State, col: int, tight: bool) -> Iterator[tuple[int, ...]]:
            if col == len(last):
                yield ()
                return
            rem = state[2]
            if last[col]:  # the source's last route: the rest of its damage
                if self._left(state, rem) > 0:
                    for tail in walk(self._put(state, rem), col + 1, tight):
                        yield (rem, *tail)
                return
            v = floor[col] if tight else 0
            at_least = self._left(state, v)
            while v <= rem and at_least > 0:
                above = self._left(state, v + 1) if v < rem else 0
                if above == at_least:  # no completion with exactly v: past the run of such values at once
                    v = self._run_end(state, v + 1, rem, at_least)
                    above = self._left(state, v + 1) if v < rem else 0
                for tail in walk(self._put(state, v), col + 1, tight and v == floor[col]):
                    yield (v, *tail)
                v, at_least = v + 1, above

        yield from walk(self._start(), 0, True)

    def _run_end(self, state: _State, v: int, rem: int, at_least: int) -> int:
        """The largest value ``u`` in ``v..rem`` whose completions with at least ``u`` are still ``at_least``, given
        that ``v``'s are (they do not grow with ``u``): steps doubling, then bisection, so a run of values without a
        completion of their own costs a few counts, not one each (a blocker's need of 2 000 before a gated route)."""
        step, lo = 1, v
        while lo + step <= rem and self._left(state, lo + step) == at_least:
            lo += step
            step *= 2
        return last_at_least(lo, min(rem, lo + step - 1), partial(self._left, state), at_least)

    def blocks(
        self, rows: int = 1 << 16, dtype: Any = None, deadline: Deadline | None = None, start: int = 0
    ) -> Iterator[np.ndarray]:
        """:meth:`rows` in numpy blocks of up to ``rows`` rows (the listers' interface); a block is handed out as
        soon as it is full or :data:`FLUSH` seconds have passed since the last one, so a slow walk still streams."""
        out: list[tuple[int, ...]] = []
        kind = np.int64 if dtype is None else dtype
        began = time.monotonic()
        for row in self.rows(deadline, start):
            out.append(row)
            if len(out) >= rows or time.monotonic() - began >= FLUSH:
                yield np.array(out, dtype=kind).reshape(len(out), self.P)
                out, began = [], time.monotonic()
        if out:
            yield np.array(out, dtype=kind).reshape(len(out), self.P)


#: A walk's state: (source position, route position, damage left to the source, each blocker's total so far, the
#: blockers a used gated route named).
_State = tuple[int, int, int, dict[str, int], frozenset[str]]


def shared_programme(plan: DamagePlan, component: Sequence[int]) -> SharedProgramme | None:
    """The programme of a component of :func:`shared_count`'s shape, or None outside it."""
    shaped = _shaped(plan, component)
    if shaped is None:
        return None
    prog = SharedProgramme(plan, component, *shaped)
    return prog if prog._total is not None else None
