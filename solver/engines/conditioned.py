"""Rank and unrank in the canonical order with the count's own joins: the sources before the one walked held fixed.

:class:`~trample.engines.ordered.SourceProgramme` finds every state of the cut between the sources before ``j`` and
those from ``j`` on (plan order) that some prefix reaches, with its completions: on a random sharing graph the plan
order's cuts are wide and that is millions of states (seconds), where the count, free to choose its order, takes
tens of milliseconds. An unrank or rank walks *one* prefix, though. For source ``j`` it needs, for each entry of
source j's table (the states of the resources it shares), the completions once the sources before it are fixed:

- the sources before ``j`` are one table of one entry (their combined states, :func:`join` of their keys: what the
  walk chose for each);
- that table and the tables of the sources after ``j`` are joined as the count joins them (the same ``way_table``,
  the same :func:`~trample.engines.elimination._join`, a greedy path plan over the sharing graph from the prefix's
  table, each connected part on its own), source ``j`` left out: what is left is one table per part over the
  resources source ``j`` shares (or a number, for a part that does not touch it);
- each entry of source j's table is then weighed at once for all of them: per part, the table laid out densely over
  its resources' states and each resource's "the sum settles without breaking a gate" matrix (the final
  :func:`~trample.engines.elimination.sum_table`, every source in) applied along its axis; the entry's completions
  are the product over the parts, read at its states.

Within source ``j`` the walk is :class:`~trample.engines.ordered._Walk` (its routes in plan order, each by
bisection), as in the source programme, so the order is the same. The counts are exact: int64 while the bound of the
count (the product of the tables' sums) is below 2^53, else residues modulo primes below 2^22 rebuilt by the Chinese
remainder theorem (the elimination's :class:`~trample.engines.elimination.Ring`, without its float row). The
completions found for a prefix are kept (those of source 0, which has none, serve every call), so draws that share
their first sources share that work. The clock is read within every join and between the steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any

import numpy as np
import numpy.typing as npt

from ..limits import NEVER, Deadline
from ..rules import DamagePlan
from .elimination import (
    DEAD,
    Budget,
    Graph,
    OverBudget,
    Planned,
    Planner,
    Ring,
    Rows,
    Table,
    bucket_plan,
    domain_size,
    join,
    normalise,
    path_plan,
    sum_table,
    unique,
    way_table,
)
from .ordered import SourceProgramme, Walk

DENSE_CELLS = 1 << 22  # cells (states of a part's resources x residue rows) of the dense weighing at most
PATH_STARTS = 8  # the path plans tried beside the bucket plan, from the smallest tables (the prefix's first)
#: pairs of entries joined (the count's measure of work) for one source's completions, past which the programme gives
#: way to the source programme (the count's first try has the same bound, FIRST_WORK): a prefix's parts may hold
#: source j's resources and a wide frontier at once (random_sharing(12, 14, 4): 10^7-10^8 pairs, seconds)
STEP_WORK = 2 * 10**7
MEMO_ENTRIES = 1 << 22  # table entries of the completions kept per prefix at most (then the memo is emptied)


class ConditionedProgramme:
    """Count, rank and unrank of one component (no as-though-unblocked option), in the canonical order, by joins of
    the elimination tables with the sources before the one walked fixed (see the module). ``deadline``: the current
    caller's (:class:`trample.limits.LimitReached` past it); set again by whoever hands the programme out.
    :class:`~trample.engines.elimination.OverBudget` when the first source's completions take more than STEP_WORK;
    a later source's that do make the programme build the source programme and answer with it from then on."""

    def __init__(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None):
        self.plan = plan
        self.component = tuple(component)
        self.columns = plan.component_columns(self.component)
        self.P = len(self.columns)
        self.deadline: Deadline | None = deadline
        self.g = g = Graph(plan, self.component)
        budget = self._budget()
        self.scope: list[tuple[str, ...]] = []  # each source's shared resources (its table's scope, as Walk reads)
        self.raw: list[Rows] = []  # each source's table, its states as way_table gives them
        kept: list[tuple[frozenset[int], tuple[str, ...], Rows]] = []
        for i in self.component:
            assert plan.sources[i].unblocked is None  # refused before (direct.refuse_options)
            scope = tuple(sorted(x for x in g.need if i in g.touchers[x] and len(g.touchers[x]) > 1))
            rows = way_table(g, plan.sources[i], scope, budget)
            self.scope.append(scope)
            self.raw.append(rows)
            members = frozenset([i])
            kept.append(
                (members, tuple(x for x in scope if domain_size(g, x, members)), normalise(g, members, scope, rows))
            )
        # every entry of every join, every completion and the count are at most the product of the tables' sums
        self.ring = Ring(max(1, prod(sum(abs(w) for w in rows.values()) for _, _, rows in kept)))
        self.tables = [Table.of(m, s, r, self.ring) for m, s, r in kept]
        self._one = Ring(1)  # the prefix's table: one entry of count 1
        self._memo: dict[tuple[object, ...], Rows] = {}
        self._held = 0
        self.fallback: SourceProgramme | None = None  # built when a source's completions pass STEP_WORK
        first = self._completions(0, None)
        self._total = sum(w * first.get(k, 0) for k, w in self.raw[0].items())

    def _budget(self) -> Budget:
        return Budget(self.deadline or NEVER, STEP_WORK)

    # -- the Programme interface ----------------------------------------------------------------------------------
    def count(self) -> int:
        return self._total

    def unrank(self, index: int) -> tuple[int, ...]:
        if not 0 <= index < self._total:
            raise IndexError(index)
        if self.fallback is None:
            try:
                return self._unrank(index)
            except OverBudget:
                self.fallback = SourceProgramme(self.plan, self.component, self.deadline)
        return self.fallback.unrank(index)

    def rank(self, vector: Sequence[int]) -> int | None:
        if self.fallback is None:
            try:
                return self._rank(vector)
            except OverBudget:
                self.fallback = SourceProgramme(self.plan, self.component, self.deadline)
        return self.fallback.rank(vector)

    def _unrank(self, index: int) -> tuple[int, ...]:
        out: list[int] = []
        prefix: Table | None = None
        for j in range(len(self.component)):
            walk = Walk(self, j, self._completions(j, prefix))  # type: ignore[arg-type]  # reads g, plan, component, scope
            amounts, index = walk.unrank(index)
            out.extend(amounts)
            prefix = self._extend(prefix, j, walk.key(amounts))
        return tuple(out)

    def _rank(self, vector: Sequence[int]) -> int | None:
        if len(vector) != self.P or any(v < 0 for v in vector):
            return None
        index, at = 0, 0
        prefix: Table | None = None
        for j, i in enumerate(self.component):
            m = len(self.plan.sources[i].routes)
            amounts = list(vector[at : at + m])
            at += m
            walk = Walk(self, j, self._completions(j, prefix))  # type: ignore[arg-type]
            below = walk.rank(amounts)
            if below is None:
                return None
            index += below
            prefix = self._extend(prefix, j, walk.key(amounts))
        return index

    # -- the prefix --------------------------------------------------------------------------------------------------
    def _extend(self, prefix: Table | None, j: int, key: tuple[int, ...]) -> Table:
        """The prefix's table (one entry) with source j's key added (settled as the count settles it)."""
        i = self.component[j]
        members = frozenset([i])
        rows = normalise(self.g, members, self.scope[j], {key: 1})
        scope = tuple(x for x in self.scope[j] if domain_size(self.g, x, members))
        assert rows  # the walk only chooses splits with completions
        t = Table.of(members, scope, rows, self._one)
        if prefix is None:
            return t
        out = join(self.g, prefix, t, self._one, self._budget())
        assert len(out) == 1
        return out

    # -- the completions of each entry of source j's table, the sources before it fixed ----------------------------
    def _completions(self, j: int, prefix: Table | None) -> Rows:
        """Source j's table keys (as way_table gives them) -> the legal completions of the sources after it, the
        sources before it being ``prefix`` (memoised per prefix)."""
        memo = None if prefix is None else (j, prefix.scope, tuple(prefix.keys[0].tolist()))
        key = (j,) if memo is None else memo
        got = self._memo.get(key)
        if got is not None:
            return got
        out = self._weigh(j, self._parts(j, prefix))
        if self._held + len(out) > MEMO_ENTRIES:
            self._memo.clear()
            self._held = 0
        self._memo[key] = out
        self._held += len(out)
        return out

    def _parts(self, j: int, prefix: Table | None) -> list[Table]:
        """The prefix's table and the tables after source j, joined part by part (connected by shared resources):
        one table per part, over resources that source j shares (empty scope: a part that does not touch it)."""
        tables: list[Table] = []
        if prefix is not None and prefix.scope:
            tables.append(Table.of(prefix.members, prefix.scope, {tuple(prefix.keys[0].tolist()): 1}, self.ring))
        tables += self.tables[j + 1 :]
        budget = self._budget()
        planner = Planner(self.g)
        out: list[Table] = []
        open_ = frozenset(self.scope[j])
        for part in _connected(tables):
            planned: list[Planned] = [
                (planner.mask(tables[k].members), frozenset(tables[k].scope), len(tables[k])) for k in part
            ]
            plans = [bucket_plan(planner, planned, open_)]
            starts = sorted(range(len(part)), key=lambda k: (planned[k][2], len(planned[k][1])))
            for start in starts[:PATH_STARTS]:
                path = path_plan(planner, planned, start)
                if path is not None:
                    plans.append(path)
            _, joins = min(plans, key=lambda p: p[0])
            slots: list[Table | None] = [tables[k] for k in part]
            for a, b in joins:
                A, B = slots[a], slots[b]
                assert A is not None and B is not None
                t = join(self.g, A, B, self.ring, budget)
                if not len(t):
                    return [t]  # no completion at all
                slots[a], slots[b] = t, None
            out += _apart([t for t in slots if t is not None], lambda A, B: join(self.g, A, B, self.ring, budget))
        return out

    def _weigh(self, j: int, parts: list[Table]) -> Rows:
        """Each key of source j's table -> the product over the parts of the weight of the part's entries whose
        states, added to the key's, settle without breaking a gate (every source in)."""
        keys = list(self.raw[j])
        if not keys:
            return {}
        scope = self.scope[j]
        K = np.array(keys, dtype=np.int64).reshape(len(keys), len(scope))
        ring = self.ring
        every = frozenset(self.component)
        rows = max(1, len(ring.moduli))
        acc = np.ones((rows, len(keys)), dtype=object)
        for part in parts:
            if self.deadline:
                self.deadline.check()
            acc *= self._part_weights(part, K, scope, every).astype(object)
            if ring.moduli:
                acc %= np.array(ring.moduli, dtype=object)[:, None]
        return {k: v for k, v in zip(keys, self._integers(acc)) if v}

    def _part_weights(
        self, part: Table, K: npt.NDArray[np.int64], scope: tuple[str, ...], every: frozenset[int]
    ) -> npt.NDArray[np.int64]:
        """Per residue row and key of source j: the weight of the part's entries that settle with it."""
        ring = self.ring
        w = part.w
        if not part.scope:  # a part that does not touch source j: its count, for every key
            return np.repeat(np.array(ring.total(w), dtype=np.int64)[:, None], len(K), axis=1)
        cols = [part.column(c) for c in range(len(part.scope))]
        shape = [len(v) for v, _ in cols]
        if prod(shape) * w.shape[0] > DENSE_CELLS:
            raise OverBudget  # (not met on the boards measured: a part's resources are source j's, a few states each)
        dense = np.zeros((w.shape[0], *shape), dtype=np.float64)
        where: tuple[Any, ...] = (slice(None), *[at for _, at in cols])
        dense[where] = w  # the entries' keys are distinct
        look = []
        for c, x in enumerate(part.scope):
            mine, idx = unique(K[:, scope.index(x)])
            ok = (sum_table(self.g, x, every, mine, cols[c][0]) != DEAD).astype(np.float64)
            dense = np.moveaxis(np.tensordot(dense, ok, axes=([c + 1], [1])), -1, c + 1)  # axis c: now source j's state
            if ring.moduli:
                for r, m in enumerate(ring.moduli):
                    np.remainder(dense[r], m, out=dense[r])
            look.append(idx)
        where = (slice(None), *look)
        out: npt.NDArray[np.int64] = dense[where].astype(np.int64)
        return out

    def _integers(self, acc: npt.NDArray[np.object_]) -> list[int]:
        """Residue rows (or the one row of exact counts) as the counts, by the Chinese remainder theorem."""
        moduli = self.ring.moduli
        if not moduli:
            return [int(v) for v in acc[0]]
        M = prod(moduli)
        coef = [(M // m) * pow(M // m, -1, m) for m in moduli]
        return [sum(int(r) * c for r, c in zip(col, coef)) % M for col in acc.T]


def _apart(left: list[Table], join: Callable[[Table, Table], Table]) -> list[Table]:
    """The tables left by a plan, those that still share a resource (source j's) joined, smallest first: what is
    returned shares nothing, so each weighs a key on its own and the weights multiply."""
    left = sorted(left, key=len)
    k = 0
    while k < len(left):
        other = next((m for m in range(k + 1, len(left)) if set(left[k].scope) & set(left[m].scope)), None)
        if other is None:
            k += 1
            continue
        left[k] = join(left[k], left.pop(other))
    return left


def _connected(tables: list[Table]) -> list[list[int]]:
    """The tables' indices grouped by parts linked through shared resources."""
    parent = list(range(len(tables)))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    holder: dict[str, int] = {}
    for k, t in enumerate(tables):
        for x in t.scope:
            if x in holder:
                parent[find(k)] = find(holder[x])
            else:
                holder[x] = k
    groups: dict[int, list[int]] = {}
    for k in range(len(tables)):
        groups.setdefault(find(k), []).append(k)
    return list(groups.values())


__all__ = ["ConditionedProgramme"]
