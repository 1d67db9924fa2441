"""Counting a component one *source* at a time (issue 14: counting without cliffs).

The column programme of :mod:`~trample.engines.direct` carries, from one column to the next, the damage the current
source still has to assign; its cost is frontier states x remaining damage x need. When every gate of a component
asks only for *lethal damage on blockers the source itself assigns to* (current-rules trample over blockers to a
player, battle or planeswalker that is not itself gated; plain blocked creatures; deathtouch; marked damage), a
source can be eliminated whole instead:

- the frontier is one entry per gated blocker that sources already read and sources still to come both assign to:
  its damage so far capped at its need (``SAT`` once reached; 702.2c: one deathtouch point is enough) and whether a
  gated route already asked for it (then it must end lethal, 702.19b);
- for one source and one entering frontier, each of its blockers is *exact* (an amount below what would make it
  lethal: the blocker stays open with a new total), *lethal* (at least the missing damage, with any excess), or,
  when this source is the blocker's last contributor, *short* (anything from 0 to one below the missing damage: its
  total is final, so the exact amount does not matter); each gated route is 0 or at least 1;
- the number of splits of the source's damage that realise one such choice is a count of compositions with lower
  bounds (shift them out) and upper bounds (the *short* parts: inclusion-exclusion, each bound contributes
  ``+C(T, parts)`` and ``-C(T - bound - 1, parts)``), so it is a sum of binomials -- no table over the damage.

The per-source work is memoised on the entries of the source's own blockers, so interchangeable situations are
computed once. Counts are exact Python integers. :func:`count_by_source` returns None for a component outside this
shape (legacy damage assignment order, gates on planeswalkers' loyalty, gates on another source's blockers), and the
column programme counts it.

When every source shares every blocker, all blockers stay open until the last source and each source's moves multiply
over all of them. :func:`count_by_blocker` counts the same shape the other way round: one *blocker* at a time, after a
signed expansion of the gates (each blocker *unbounded*, +1, or *short*, -1; see :func:`_by_blocker`), so that
sources only interact through short totals (each below its need: small), with identical sources kept as a sorted
multiset. :func:`count_shared` (what :class:`~trample.engines.direct.DirectEngine` calls) tries whichever of the two
looks cheaper by a rough cost (:func:`_source_cost`, :func:`_blocker_cost`), then the other, each within its work
bound.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from math import comb, factorial

from ..limits import NEVER, Deadline
from ..rules import DamagePlan

SAT = -1  # the blocker has lethal damage: no constraint left
UNSET = -2  # a move's value for a blocker that closes with it (never kept in a state)
WORK_LIMIT = 400_000  # frontier states x moves (plus the moves' enumeration) beyond which count_by_source gives up
ENTRY_LIMIT = 200_000  # distinct per-source situations worked out, beyond which count_by_source gives up

#: A source of a shaped component: (damage, deathtouch, its gated blockers in route order, free routes, gates as
#: tuples of blocker names).
Shaped = tuple[int, bool, tuple[str, ...], int, tuple[tuple[str, ...], ...]]
#: One source's moves (:func:`_moves`): the new entries of its blockers that stay open, and the number of splits.
Moves = list[tuple[tuple[int, ...], int]]
#: The states of :func:`_by_blocker`: (per live source its code, the open classes' flags) -> signed weight.
BlockerStates = dict[tuple[tuple[int, ...], tuple[int, ...]], int]
#: :func:`_spreads`' cache: (sources, budget) -> (increments, their sum, orderings).
SpreadCache = dict[tuple[int, int], tuple[tuple[tuple[int, ...], int, int], ...]]


def compositions(total: int, parts: int) -> int:
    """Ways to write ``total`` as an ordered sum of ``parts`` non-negative integers (stars and bars; 0 for a
    negative total). The one copy, read by every counting engine."""
    if parts == 0:
        return 1 if total == 0 else 0
    return comb(total + parts - 1, parts - 1) if total >= 0 else 0


def shape_of(plan: DamagePlan, component: Sequence[int]) -> tuple[list[Shaped], set[str]] | None:
    """Per source: (damage, deathtouch, its gated blockers in route order, free routes, gates as tuples of blocker
    names), or None when the component is not of the shape this module counts."""
    gated_names: set[str] = set()
    for i in component:
        for r in plan.sources[i].routes:
            if r.gate is not None:
                if r.gate.loyalty:
                    return None
                gated_names.update(r.gate.lethal)
    for name in gated_names:
        if name not in plan.lethal_need:
            return None
    resources = {name for name in gated_names if plan.lethal_need[name] > 0}
    out: list[Shaped] = []
    for i in component:
        s = plan.sources[i]
        own: list[str] = []
        free = 0
        gates: list[tuple[str, ...]] = []
        for r in s.routes:
            if r.recipient in resources:
                if r.gate is not None or r.recipient in own:
                    return None  # an ordered (legacy) chain, or a repeated recipient
                own.append(r.recipient)
            elif r.gate is not None:
                if r.recipient in plan.loyalty_need or r.recipient in plan.lethal_need:
                    return None
                gates.append(tuple(x for x in r.gate.lethal if x in resources))
            else:
                free += 1
        for g in gates:
            if not set(g) <= set(own):
                return None  # a gate on a blocker this source does not assign to
        out.append((s.damage, s.deathtouch, tuple(own), free, tuple(gates)))
    return out, resources


def count_by_source(
    plan: DamagePlan,
    component: Sequence[int],
    deadline: Deadline | None = None,
    work_limit: int = WORK_LIMIT,
    entry_limit: int = ENTRY_LIMIT,
) -> int | None:
    """The number of legal assignments of a component, eliminating one source at a time, or None when the component
    is outside the shape (see the module) or the work (frontier entries x moves, and the moves' own enumeration)
    outgrows ``work_limit``, or the distinct per-source situations (memoised) outgrow ``entry_limit`` (the column
    programme is then cheaper on the measured shapes, see docs/scale.md)."""
    shaped = shape_of(plan, component)
    if shaped is None:
        return None
    sources, resources = shaped
    need = {name: plan.lethal_need[name] for name in resources}
    return _by_source(_order(sources, need), need, deadline or NEVER, work_limit, entry_limit)


CHECK_EVERY = 4096  # units of work (moves applied, entries worked out) between two looks at the clock


def _by_source(
    sources: Sequence[Shaped], need: Mapping[str, int], deadline: Deadline, work_limit: int, entry_limit: int
) -> int | None:
    """:func:`count_by_source` on a shaped component whose sources are already in elimination order."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for k, (_, _, own, _, _) in enumerate(sources):
        for name in own:
            first.setdefault(name, k)
            last[name] = k
    work = entries = 0
    frontier: tuple[str, ...] = ()
    states: dict[tuple[int, ...], int] = {(): 1}
    for k, (D, dt, own, free, gates) in enumerate(sources):
        deadline.check()
        closing = [name for name in own if last[name] == k]
        own_set = set(own)
        # the next frontier: the open blockers this source does not touch (in their order), then its own blockers
        # that stay open (in route order): a new state is an untouched prefix plus the source's update
        untouched = [name for name in frontier if name not in own_set]
        mine = [name for name in own if last[name] > k]
        nxt = tuple(untouched + mine)
        pos = {name: j for j, name in enumerate(frontier)}
        own_pos = [pos.get(name, -1) for name in own]
        keep = [pos[name] for name in untouched]
        stays = [last[name] > k for name in own]
        memo: dict[tuple[int, ...], Moves] = {}
        new: dict[tuple[int, ...], int] = {}
        get = new.get
        check_at = work
        for state, ways in states.items():
            if work >= check_at:  # by the work done, not the states: a state can have thousands of moves
                deadline.check()
                check_at = work + CHECK_EVERY
            entry = tuple([state[j] if j >= 0 else 0 for j in own_pos])
            moves = memo.get(entry)
            if moves is None:
                moves, ops = _moves(D, dt, own, free, gates, entry, [need[x] for x in own], stays, closing)
                memo[entry] = moves
                work += ops
                entries += 1
                if entries > entry_limit:
                    return None
            work += len(moves)
            if work > work_limit:
                return None
            base = tuple([state[j] for j in keep])
            for upd, c in moves:
                t = base + upd
                new[t] = get(t, 0) + ways * c
        states = {t: w for t, w in new.items() if w}
        frontier = nxt
    return sum(states.values())


def _order(sources: Sequence[Shaped], need: Mapping[str, int]) -> list[Shaped]:
    """The sources in a greedy elimination order: each time, the one after which the frontier (the blockers that
    sources read and sources to come share) has the fewest possible entries (product of 2*need + 1); plan order on
    ties. The count does not depend on the order; the frontier's size does."""
    left = list(range(len(sources)))
    users: dict[str, int] = {}
    for _, _, own, _, _ in sources:
        for name in own:
            users[name] = users.get(name, 0) + 1
    seen: dict[str, int] = {}
    order = []
    while left:
        best: tuple[int, int] | None = None
        for k in left:
            own = sources[k][2]
            size = 1
            names = set(seen) | set(own)
            for name in names:
                used = seen.get(name, 0) + (name in own)
                if used < users[name]:
                    size *= 2 * need[name] + 1
            if best is None or size < best[0]:
                best = (size, k)
        assert best is not None
        k = best[1]
        left.remove(k)
        order.append(sources[k])
        for name in sources[k][2]:
            seen[name] = seen.get(name, 0) + 1
            if seen[name] == users[name]:
                del seen[name]
                users[name] = 0
    return order


def _moves(
    D: int,
    dt: bool,
    own: tuple[str, ...],
    free: int,
    gates: tuple[tuple[str, ...], ...],
    entry: tuple[int, ...],
    needs: list[int],
    stays: list[bool],
    closing: list[str],
) -> tuple[Moves, int]:
    """For one source entering with ``entry`` (c*2 + R per own blocker, or SAT): the list of (new entries of its
    blockers that stay open, number of splits of the source's damage), and the number of partial choices it went
    through."""
    closing_set = set(closing)
    result: dict[tuple[int, ...], int] = {}
    ops = 0
    m = len(gates)
    for mask in range(1 << m):
        asked: set[str] = set()
        positive = 0
        for g in range(m):
            if mask >> g & 1:
                asked.update(gates[g])
                positive += 1
        # partial: (updates, shift, parts, sign) -- shift = damage forced (exact amounts, lower bounds, bounds+1)
        partial: dict[tuple[tuple[int, ...], int, int], int] = {((), positive, free + positive): 1}
        for b, name in enumerate(own):
            e, nd, j = entry[b], needs[b], stays[b]
            closes = name in closing_set
            must = name in asked
            opts: list[tuple[int, int, int, int]] = []  # (update value, shift, extra parts, sign)
            if e == SAT:
                opts.append((SAT, 0, 1, 1))  # anything more is fine
            else:
                c, R = e >> 1, e & 1
                low = 1 if dt else nd - c
                opts.append((SAT, low, 1, 1))  # lethal from here on (702.19b / 702.2c)
                if closes:
                    if not (R or must):  # short for good: 0..low-1, by inclusion-exclusion on the bound
                        opts.append((UNSET, 0, 1, 1))  # (its value is not kept: the blocker closes here)
                        opts.append((UNSET, low, 1, -1))
                else:
                    flag = 1 if (R or must) else 0
                    for x in range(0, (1 if dt else low)):
                        if x > D:
                            break
                        opts.append((((c + x) << 1) | flag, x, 0, 1))
            nxt_partial: dict[tuple[tuple[int, ...], int, int], int] = {}
            ops += len(partial) * len(opts)
            for (upd, shift, parts), w in partial.items():
                for val, sh, pa, sign in opts:
                    s2 = shift + sh
                    if s2 > D:
                        continue
                    u2 = upd + (val,) if j else upd
                    key = (u2, s2, parts + pa)
                    nxt_partial[key] = nxt_partial.get(key, 0) + sign * w
            partial = nxt_partial
        for (upd, shift, parts), w in partial.items():
            if w:
                c = w * compositions(D - shift, parts)
                if c:
                    result[upd] = result.get(upd, 0) + c
    return [(upd, c) for upd, c in result.items() if c], ops


# -- one blocker at a time -------------------------------------------------------------------------------------

SECOND_TRY = 100  # the dearer-looking method is tried after the cheaper gave up only within this factor of its cost
BLOCKER_WORK_LIMIT = 100_000  # partial splits plus states examined, beyond which count_by_blocker gives up
M_BITS = 32  # a source's code: damage to bounded blockers in the low bits, then its unbounded blockers, then the
U_ONE = 1 << M_BITS  # gated routes that a flag forbids (one bit per gated route)
M_MASK = U_ONE - 1
DIS_SHIFT = 2 * M_BITS


def count_by_blocker(
    plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None, work_limit: int = BLOCKER_WORK_LIMIT
) -> int | None:
    """The number of legal assignments of a component of the same shape as :func:`count_by_source`'s, eliminating
    one *blocker* at a time over a signed expansion of the gates (docs/scale.md), with identical sources kept as a
    multiset; None outside the shape or past ``work_limit``."""
    shaped = shape_of(plan, component)
    if shaped is None:
        return None
    sources, resources = shaped
    need = {name: plan.lethal_need[name] for name in resources}
    return _by_blocker(sources, need, deadline or NEVER, work_limit)


def _blocker_order(
    sources: Sequence[Shaped], need: Mapping[str, int]
) -> tuple[list[tuple[str, int, bool, bool]], list[frozenset[tuple[int, int]]], dict[str, list[int]]]:
    """The blockers in elimination order, as (name, class, first of its class, last of its class), the classes
    (blockers named by exactly the same gated routes: only whether *all* of a class end lethal matters) with the
    gated routes naming them, and each blocker's owners (the sources that assign to it)."""
    owners: dict[str, list[int]] = {name: [] for name in need}
    naming: dict[str, set[tuple[int, int]]] = {name: set() for name in need}
    for s, (_, _, own, _, gates) in enumerate(sources):
        for name in own:
            owners[name].append(s)
        for g, gate in enumerate(gates):
            for name in gate:
                naming[name].add((s, g))
    classes: dict[frozenset[tuple[int, int]], list[str]] = {}
    for name in sorted(need, key=lambda x: (owners[x][0], x)):
        classes.setdefault(frozenset(naming[name]), []).append(name)
    cls = list(classes.items())
    order = [(name, c, k == 0, k == len(names) - 1) for c, (_, names) in enumerate(cls) for k, name in enumerate(names)]
    return order, [key for key, _ in cls], owners


def _spreads(c: int, budget: int, cache: SpreadCache) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """The ways to add at most ``budget`` damage to ``c`` sources in the same state: nonincreasing tuples of
    increments, with their sum and the number of distinct orderings (c! / product of the repeats' factorials)."""
    key = (c, budget)
    out = cache.get(key)
    if out is not None:
        return out
    found: list[tuple[tuple[int, ...], int, int]] = []
    stack: list[tuple[tuple[int, ...], int]] = [((), budget)]
    while stack:
        prefix, left = stack.pop()
        if len(prefix) == c:
            mult = factorial(c)
            run = 1
            for a, b in zip(prefix, prefix[1:]):
                if a == b:
                    run += 1
                else:
                    mult //= factorial(run)
                    run = 1
            found.append((prefix, budget - left, mult // factorial(run)))
            continue
        top = min(left, prefix[-1]) if prefix else left
        for x in range(top + 1):
            stack.append((prefix + (x,), left - x))
    out = cache[key] = tuple(found)
    return out


# _Sweep and _Runs are plain classes: a dataclass costs about a millisecond of import (a fresh process's count).
class _Sweep:
    """What :func:`_by_blocker` fixes before its first blocker: the blockers in order (:func:`_blocker_order`),
    the classes' gated routes, each blocker's owners, each source's last blocker step and kind (sources equal in
    damage, deathtouch, blockers and routes share one), the sources with a shared blocker (``live``), and the
    product of the closed forms of the others (``total``)."""

    __slots__ = ("order", "classes", "owners", "last", "kind", "live", "total")

    order: list[tuple[str, int, bool, bool]]
    classes: list[frozenset[tuple[int, int]]]
    owners: dict[str, list[int]]
    last: dict[int, int]
    kind: list[int]
    live: list[int]
    total: int

    def __init__(
        self,
        order: list[tuple[str, int, bool, bool]],
        classes: list[frozenset[tuple[int, int]]],
        owners: dict[str, list[int]],
        last: dict[int, int],
        kind: list[int],
        live: list[int],
        total: int,
    ):
        self.order = order
        self.classes = classes
        self.owners = owners
        self.last = last
        self.kind = kind
        self.live = live
        self.total = total


def _sweep(sources: Sequence[Shaped], need: Mapping[str, int]) -> _Sweep:
    """The order, classes, owners and kinds of :func:`_by_blocker`; a source with no shared blocker is counted at
    once by its own closed form."""
    order, classes, owners = _blocker_order(sources, need)
    last: dict[int, int] = {}
    for step, (name, _, _, _) in enumerate(order):
        for s in owners[name]:
            last[s] = step
    kinds: dict[Shaped, int] = {}
    kind = [kinds.setdefault(src, len(kinds)) for src in sources]
    total = 1
    live = []
    for s, (D, _, _, free, gates) in enumerate(sources):
        if s in last:
            live.append(s)
        else:  # no shared blocker: its own closed form
            total *= compositions(D, free + len(gates))
    return _Sweep(order, classes, owners, last, kind, live, total)


class _Runs:
    """One blocker's owners among the live sources: ``all_pos``, the positions of all of them; ``runs``, per kind
    of owner that may give it damage while it stays short (702.2c: not deathtouch ones), their positions and their
    damage; ``sort_runs``, the runs of more than one (interchangeable: kept sorted)."""

    __slots__ = ("all_pos", "runs", "sort_runs")

    all_pos: list[int]
    runs: list[tuple[list[int], int]]
    sort_runs: list[list[int]]

    def __init__(self, all_pos: list[int], runs: list[tuple[list[int], int]], sort_runs: list[list[int]]):
        self.all_pos = all_pos
        self.runs = runs
        self.sort_runs = sort_runs


def _runs(
    sweep: _Sweep, sources: Sequence[Shaped], live: list[int], name: str, cap: int, work_limit: int
) -> _Runs | None:
    """The owners of blocker ``name`` by kind (see :class:`_Runs`); None when one kind has too many ways to spread
    the short damage (``cap`` at most) for ``work_limit``."""
    where = {s: p for p, s in enumerate(live)}
    runs_by_kind: dict[int, list[int]] = {}
    for s in sweep.owners[name]:
        runs_by_kind.setdefault(sweep.kind[s], []).append(where[s])
    runs = [(ps, sources[live[ps[0]]][0]) for ps in runs_by_kind.values() if not sources[live[ps[0]]][1]]
    for ps, _ in runs:
        if comb(cap + len(ps), len(ps)) > work_limit:
            return None  # too many ways to spread the short damage: leave it to another method
    sort_runs = [ps for ps, _ in runs if len(ps) > 1]
    return _Runs([where[s] for s in sweep.owners[name]], runs, sort_runs)


def _read_blocker(
    states: BlockerStates, runs: _Runs, cap: int, fi: int, spreads: SpreadCache, budget: list[int], deadline: Deadline
) -> BlockerStates | None:
    """Every state with the blocker read: *unbounded* (+1, one more free part for each owner) or *bounded* (-1, its
    owners' short damage spread in every way that keeps it below its need, ``cap`` at most; the class's flag may
    stand). ``budget``: [work so far, work limit]; None past the limit."""
    all_pos, sort_runs = runs.all_pos, runs.sort_runs
    new: BlockerStates = {}
    get = new.get
    work, work_limit = budget
    for n, ((ss, fl), w) in enumerate(states.items()):
        if not n & 255:
            deadline.check()
        row = list(ss)
        for p in all_pos:  # unbounded: +1
            row[p] += U_ONE
        key = (tuple(row), fl)
        new[key] = get(key, 0) + w
        f2 = fl if fl[fi] != 1 else fl[:fi] + (2,) + fl[fi + 1 :]  # a bounded blocker: the flag may stand
        partial = [(ss, cap, -w)]  # bounded: -1
        for ps, D in runs.runs:
            bins: dict[int, list[int]] = {}
            for p in ps:
                bins.setdefault(ss[p], []).append(p)
            for code, bp in bins.items():
                room = D - (code & M_MASK)
                options = _spreads(len(bp), cap, spreads)
                nxt = []
                for t, b, c in partial:
                    for inc, used, mult in options:
                        if used > b or inc[0] > room:
                            continue
                        if used:
                            row = list(t)
                            for p, x in zip(bp, inc):
                                row[p] = code + x
                            nxt.append((tuple(row), b - used, c * mult))
                        else:
                            nxt.append((t, b, c))
                partial = nxt
        work += len(partial) + 1
        if work > work_limit:
            return None
        for t, b, c in partial:
            if sort_runs and b != cap:
                t = _sorted_runs(t, sort_runs)
            key = (t, f2)
            new[key] = get(key, 0) + c
    budget[0] = work
    return new


def _close_class(states: BlockerStates, marks: list[tuple[int, int]], fi: int) -> BlockerStates:
    """The class at flag position ``fi`` read: a flag without a bounded blocker is no term; a flag that stands
    forbids its gated routes (``marks``: a source's position and the route's bit); the flag leaves the state."""
    done: BlockerStates = {}
    for (ss, fl), w in states.items():
        f = fl[fi]
        if f == 1 or not w:
            continue
        if f == 2:
            row = list(ss)
            for p, bit in marks:
                row[p] |= bit
            ss = tuple(row)
        key = (ss, fl[:fi] + fl[fi + 1 :])
        done[key] = done.get(key, 0) + w
    return done


def _finish(
    states: BlockerStates, sources: Sequence[Shaped], live: list[int], finishing: list[int], keep: list[int]
) -> BlockerStates:
    """The sources at positions ``finishing`` after their last blocker: each state's weight times each one's split
    of the rest of its damage over its unbounded blockers, free routes and allowed gated routes (a composition
    count, memoised on its code); the state keeps the positions ``keep``."""
    memos: list[dict[int, int]] = [{} for _ in finishing]
    info = [(p, sources[live[p]], memo) for p, memo in zip(finishing, memos)]
    done: BlockerStates = {}
    for (ss, fl), w in states.items():
        for p, (D, _, _, free, gates), memo in info:
            code = ss[p]
            f = memo.get(code)
            if f is None:
                parts = (code >> M_BITS & M_MASK) + free + len(gates) - bin(code >> DIS_SHIFT).count("1")
                f = memo[code] = compositions(D - (code & M_MASK), parts)
            w *= f
            if not w:
                break
        if w:
            key = (tuple([ss[p] for p in keep]), fl)
            done[key] = done.get(key, 0) + w
    return done


def _canonical(states: BlockerStates, live: list[int], kind: list[int]) -> BlockerStates:
    """The states with interchangeable sources' codes sorted (one representative), zero weights dropped."""
    groups: dict[int, list[int]] = {}
    for p, s in enumerate(live):
        groups.setdefault(kind[s], []).append(p)
    multi = [g for g in groups.values() if len(g) > 1]
    canon: BlockerStates = {}
    for (ss, fl), w in states.items():
        if not w:
            continue
        if multi:
            ss = _sorted_runs(ss, multi)
        key = (ss, fl)
        canon[key] = canon.get(key, 0) + w
    return {k: w for k, w in canon.items() if w}


def _by_blocker(sources: Sequence[Shaped], need: Mapping[str, int], deadline: Deadline, work_limit: int) -> int | None:
    """One blocker at a time. A legal assignment needs, per blocker, "not asked, or lethal" (510.1e: every source's
    damage counts towards it; 702.2c: or one point from a deathtouch source). Per class C of blockers named by the
    same gated routes, ``[not asked(C) or all of C lethal] = sum over W in C of (-1)^|W| [W short]`` plus, for W not
    empty, ``-(-1)^|W| [W short and C not asked]``: every blocker is either *unbounded* (+1: its damage is a free part
    of each owner's split) or *bounded* (-1: short -- its total stays below its need, deathtouch sources give it 0);
    a *flag* on the class (-1, needs a bounded blocker in the class) forbids the gated routes naming it.

    Sources then interact only through the bounded totals. The state is, per source not finished, a code: its
    damage to bounded blockers so far, how many unbounded blockers it has, which gated routes a flag forbids; and
    the flags of the classes being read. A source is finished after its last blocker: its split of the rest of its
    damage over its unbounded blockers, free routes and allowed gated routes is a composition count. Sources with the
    same damage, deathtouch, blockers and routes are interchangeable: their codes are kept sorted (a multiset), and
    equal codes take increments as nonincreasing tuples times the number of their orderings.

    The steps per blocker: its owners by kind (:func:`_runs`), the class opened (each state with its flag 0 or 1,
    the latter negated), the blocker read (:func:`_read_blocker`), the class closed (:func:`_close_class`), the
    sources whose last blocker it was finished (:func:`_finish`), the states made canonical (:func:`_canonical`)."""
    sweep = _sweep(sources, need)
    live = sweep.live
    states: BlockerStates = {(tuple(0 for _ in live), ()): 1}
    open_classes: list[int] = []
    spreads: SpreadCache = {}
    budget = [0, work_limit]
    for step, (name, ci, first, closes) in enumerate(sweep.order):
        deadline.check()
        cap = need[name] - 1
        runs = _runs(sweep, sources, live, name, cap, work_limit)
        if runs is None:
            return None
        if first:
            open_classes.append(ci)
            states = {(ss, fl + (f,)): (w if f == 0 else -w) for (ss, fl), w in states.items() for f in (0, 1)}
        fi = open_classes.index(ci)
        read = _read_blocker(states, runs, cap, fi, spreads, budget, deadline)
        if read is None:
            return None
        states = read
        if closes:  # the class is read: a flag without a bounded blocker is no term; a flag forbids its routes
            where = {s: p for p, s in enumerate(live)}
            states = _close_class(states, [(where[s], 1 << (DIS_SHIFT + g)) for s, g in sweep.classes[ci]], fi)
            open_classes.remove(ci)
        finishing = [p for p, s in enumerate(live) if sweep.last[s] == step]
        if finishing:
            keep = [p for p, s in enumerate(live) if sweep.last[s] != step]
            states = _finish(states, sources, live, finishing, keep)
            live = [live[p] for p in keep]
        states = _canonical(states, live, sweep.kind)
        budget[0] += len(states)
        if budget[0] > work_limit:
            return None
    return sweep.total * sum(states.values())


# -- choosing the method ---------------------------------------------------------------------------------------


def _source_cost(order: Sequence[Shaped], need: Mapping[str, int]) -> int:
    """A rough cost of :func:`_by_source` in this order: per source, the frontier's possible entries times the
    source's possible moves (each of its blockers: exact, lethal or short)."""
    users: dict[str, int] = {}
    for _, _, own, _, _ in order:
        for name in own:
            users[name] = users.get(name, 0) + 1
    seen: dict[str, int] = {}
    cost = 0
    for D, _, own, _, _ in order:
        size = 1
        for name in seen:
            size *= 2 * need[name] + 1
        moves = 1
        for name in own:
            moves *= min(need[name], D) + 2
        cost += size * moves
        for name in own:
            seen[name] = seen.get(name, 0) + 1
            if seen[name] == users[name]:
                del seen[name]
    return cost


def _blocker_cost(sources: Sequence[Shaped], need: Mapping[str, int]) -> int:
    """A rough cost of :func:`_by_blocker`: per blocker, the possible states (per kind of source not finished, the
    multisets of their damage to bounded blockers: at most the blockers' short totals, at most their power) times
    the ways to spread the blocker's short damage over its owners."""
    order, _, owners = _blocker_order(sources, need)
    last: dict[int, int] = {}
    for step, (name, _, _, _) in enumerate(order):
        for s in owners[name]:
            last[s] = step
    kinds: dict[Shaped, list[int]] = {}
    for s, src in enumerate(sources):
        kinds.setdefault(src, []).append(s)
    short = [0] * len(sources)
    read = [0] * len(sources)
    cost = 0
    for step, (name, _, _, _) in enumerate(order):
        for s in owners[name]:
            read[s] += 1
            if not sources[s][1]:
                short[s] += need[name] - 1
        size = 1
        for src, members in kinds.items():
            live = [s for s in members if s in last and last[s] >= step and read[s]]
            if live:
                c, s = len(live), live[0]
                size *= (
                    (read[s] + 1) * (1 + len(src[4])) * min(comb(min(src[0], short[s]) + c, c), comb(short[s] + c, c))
                )
        k = sum(1 for s in owners[name] if not sources[s][1])
        cost += size * comb(need[name] - 1 + k, k)
    return cost


def blocker_cost(plan: DamagePlan, component: Sequence[int]) -> int | None:
    """The rough cost of :func:`count_by_blocker` on a component (as :func:`count_shared` ranks it), or None when the
    component is outside its shape."""
    shaped = shape_of(plan, component)
    if shaped is None:
        return None
    sources, resources = shaped
    return _blocker_cost(sources, {name: plan.lethal_need[name] for name in resources}) * len(sources)


def count_shared(
    plan: DamagePlan,
    component: Sequence[int],
    deadline: Deadline | None = None,
    cost_limit: int | None = None,
    source_limit: int | None = None,
) -> int | None:
    """The count of a component of the shape above by whichever of :func:`count_by_source` and
    :func:`count_by_blocker` looks cheaper (rough costs, :func:`_source_cost` and :func:`_blocker_cost`), then the
    other if its cost is within ``SECOND_TRY`` times the first's, each within its work bound; None when the component
    is outside the shape or both give up (the column programme counts it), or when the cheaper-looking cost is over
    ``cost_limit``. ``source_limit``: one source at a time is not tried when its rough cost is over it (it would give
    up; the caller has another way)."""
    deadline = deadline or NEVER
    shaped = shape_of(plan, component)
    if shaped is None:
        return None
    sources, resources = shaped
    need = {name: plan.lethal_need[name] for name in resources}
    order = _order(sources, need)
    by_source = (_source_cost(order, need), 0)
    by_blocker = (_blocker_cost(sources, need) * len(sources), 1)  # its states are tuples over the sources
    ranked = sorted([by_source, by_blocker])
    if cost_limit is not None and ranked[0][0] > cost_limit:
        return None
    for k, (cost, method) in enumerate(ranked):
        if k and cost > SECOND_TRY * ranked[0][0]:
            break  # the cheaper-looking method gave up: the other, far dearer, would too (measured on random boards)
        if method == 0 and source_limit is not None and cost > source_limit:
            continue
        if method == 0:
            n = _by_source(order, need, deadline, WORK_LIMIT, ENTRY_LIMIT)
        else:
            n = _by_blocker(sources, need, deadline, BLOCKER_WORK_LIMIT)
        if n is not None:
            return n
    return None


def _sorted_runs(entries: tuple[int, ...], runs: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """``entries`` with the values at each run of positions (interchangeable attackers) sorted: one canonical
    representative of the states that differ only by which of them is which."""
    row = list(entries)
    for positions in runs:
        for p, v in zip(positions, sorted([row[p] for p in positions])):
            row[p] = v
    return tuple(row)


def last_at_least(lo: int, hi: int, f: Callable[[int], int], floor: int) -> int:
    """The largest ``v`` in ``lo..hi`` with ``f(v) >= floor``, where ``f`` does not grow with ``v`` and
    ``f(lo) >= floor`` (bisection: the unranks read a column's value this way from the completions with at least
    ``v`` on it)."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if f(mid) >= floor:
            lo = mid
        else:
            hi = mid - 1
    return lo
