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
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from ..limits import NEVER, Deadline
from ..rules import DamagePlan

SAT = -1  # the blocker has lethal damage: no constraint left
WORK_LIMIT = 400_000  # frontier states x moves (plus the moves' enumeration) beyond which the column programme counts
ENTRY_LIMIT = 200_000  # distinct per-source situations worked out, beyond which the column programme counts


def _compositions(total: int, parts: int) -> int:
    if parts == 0:
        return 1 if total == 0 else 0
    return comb(total + parts - 1, parts - 1) if total >= 0 else 0


def _shape(plan: DamagePlan, component: Sequence[int]):
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
    out = []
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
    deadline = deadline or NEVER
    shaped = _shape(plan, component)
    if shaped is None:
        return None
    sources, resources = shaped
    need = {name: plan.lethal_need[name] for name in resources}
    sources = _order(sources, need)
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for k, (_, _, own, _, _) in enumerate(sources):
        for name in own:
            first.setdefault(name, k)
            last[name] = k
    work = entries = 0
    frontier: tuple[str, ...] = ()
    states: dict[tuple, int] = {(): 1}
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
        memo: dict[tuple, list] = {}
        new: dict[tuple, int] = {}
        get = new.get
        for n, (state, ways) in enumerate(states.items()):
            if not n & 1023:
                deadline.check()
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


def _order(sources, need):
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
        best = None
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


def _moves(D, dt, own, free, gates, entry, needs, stays, closing):
    """For one source entering with ``entry`` (c*2 + R per own blocker, or SAT): the list of (new entries of its
    blockers that stay open, number of splits of the source's damage), and the number of partial choices it went
    through."""
    closing_set = set(closing)
    result: dict[tuple, int] = {}
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
        partial: dict[tuple, int] = {((), positive, free + positive): 1}
        for b, name in enumerate(own):
            e, nd, j = entry[b], needs[b], stays[b]
            closes = name in closing_set
            must = name in asked
            opts: list[tuple[int | None, int, int, int]] = []  # (update value or None, shift, extra parts, sign)
            if e == SAT:
                opts.append((SAT, 0, 1, 1))  # anything more is fine
            else:
                c, R = e >> 1, e & 1
                low = 1 if dt else nd - c
                opts.append((SAT, low, 1, 1))  # lethal from here on (702.19b / 702.2c)
                if closes:
                    if not (R or must):  # short for good: 0..low-1, by inclusion-exclusion on the bound
                        opts.append((None, 0, 1, 1))
                        opts.append((None, low, 1, -1))
                else:
                    flag = 1 if (R or must) else 0
                    for x in range(0, (1 if dt else low)):
                        if x > D:
                            break
                        opts.append((((c + x) << 1) | flag, x, 0, 1))
            nxt_partial: dict[tuple, int] = {}
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
                c = w * _compositions(D - shift, parts)
                if c:
                    result[upd] = result.get(upd, 0) + c
    return [(upd, c) for upd, c in result.items() if c], ops
