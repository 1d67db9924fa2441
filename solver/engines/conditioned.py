"""Rank and unrank in the canonical order with the count's own tables and join tree: inside and outside tables.

:class:`~trample.engines.ordered.SourceProgramme` finds every state of the cut between the sources before ``j`` and
those from ``j`` on (plan order) that some prefix reaches, with its completions: on a random sharing graph the plan
order's cuts are wide and that is millions of states (seconds), where the count, free to choose its order, takes
tens of milliseconds. An unrank or rank walks *one* prefix, though. For source ``j`` it needs, for each entry of
source j's table (the states of the resources it shares), the completions once the sources before it are fixed.

The count's joins (:func:`~trample.engines.elimination.order`, the same plan) form a binary *join tree*: its leaves
are the sources' tables, each inner node the join of its two children, each root a part's count. Per node:

- its *inside* table is the join of the tables of the sources under it (the count computes these), over the
  resources it shares with the other sources;
- its *outside* table is the join of every other source's table, over the same resources: a root's is the product
  of the other roots' counts, a child's the join of its parent's outside with its sibling's inside (the classic
  inside-outside, or upward-downward, passes over a join tree).

A source's outside table, combined with each entry of its own table (each resource's "the sum settles without
breaking a gate" matrix, the final :func:`~trample.engines.elimination.sum_table`, every source in), gives that
entry's completions. Fixing the sources before ``j`` (the prefix) replaces their leaves by one entry (the key the
walk chose): an inside changes only where a fixed leaf is under its node, an outside only where one is not. Both
are memoised by the fixed keys they depend on (the leaves under the node, or not under it), and the tables with no
fixed leaf are kept from the first call on. Where a source's sibling in the tree is a large subtree with no fixed
source and its parent's sibling is one fixed source, the join of the two large tables is made once, without that
source, and its one-entry table joined last (:meth:`ConditionedProgramme._skips`).

For most sources of a walk, though, joining the tables after source ``j`` again with the prefix's (one entry: what
the walk chose), source j's resources left open, is cheaper than the tree's path (the previous way of this module):
it is tried first, within REJOIN_WORK pairs, for the first source too (every other table joined), then the tree's
outside table; the tree and its inside tables are built the first time a rejoin passes that bound.

For ranks and unranks, which walk many prefixes of one level, two things are kept per level: the rejoin's plan
(the estimated cheapest at first; where it takes many pairs, the next candidates are tried within a fraction of them,
and the cheapest that finishes is kept: :meth:`ConditionedProgramme._contracted`), and, where the rejoins there have
cost enough and the prefix's open resources have few states, the level's *suffix table*: the tables after source
``j`` joined once with every resource the prefix or source j touches left open, from which each prefix's tables
are one join with its one entry (:meth:`ConditionedProgramme._suffix_table`).

Within source ``j`` the walk is :class:`~trample.engines.ordered._Walk` (its routes in plan order, each by
bisection), as in the source programme, so the order is the same. The counts are exact: int64 while the bound of the
count (the product of the tables' sums) is below 2^53, else residues modulo primes below 2^22 rebuilt by the Chinese
remainder theorem (the elimination's :class:`~trample.engines.elimination.Ring`, without its float row). The clock is
read within every join (its :class:`~trample.engines.elimination.Budget`) and before each.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections.abc import Callable, Generator, Iterator, Sequence
from functools import partial
from math import prod
from typing import Any

import numpy as np
import numpy.typing as npt

from ..limits import NEVER, Deadline
from ..rules import DamagePlan
from .elimination import (
    COUNTS,
    DEAD,
    SAT,
    UNSAT,
    Budget,
    Graph,
    OverBudget,
    Planned,
    Planner,
    Ring,
    Rows,
    Table,
    bucket_plan,
    count_component,
    domain_size,
    join,
    normalise,
    order,
    path_plan,
    sum_table,
    unique,
)
from .ordered import Lister, SourceProgramme, Spare, TooWide, Walk, lex_compositions, source_tables

DENSE_CELLS = 1 << 22  # cells (states of a source's resources x residue rows) of the dense weighing at most
#: pairs of entries joined (the count's measure of work) for the tree's tables at the build, and for one source's
#: completions, past which the programme gives way to the source programme (the count's first try has the same
#: bound, FIRST_WORK)
STEP_WORK = 5 * 10**8
#: pairs of entries joined, for one source's completions, up to which the tables after it are joined again with the
#: prefix's (the first way; the first source's: every other table, 4-5 x 10^6 pairs on random_sharing(12, 14, 4)
#: seeds 2 and 5, 4.6 x 10^7 on seed 3, where the tree's inside and outside tables took seconds and gigabytes);
#: past it, the join tree's outside table (0: the tree's at once)
REJOIN_WORK = 10**8
PATH_STARTS = 8  # the path plans the first plan of a rejoin is chosen among, from the smallest tables
#: pairs a rejoin's plan took from which the next rejoin of the same shape tries another candidate first, within a
#: fraction of them: the estimates (products of the resources' possible states) are off by 20-500x, and on
#: random_sharing(12, 14, 4) the estimated cheapest plan of a level took 2-20x the pairs of the cheapest
EXPLORE_FROM = 1 << 20
EXPLORE_GAIN = 4  # a candidate plan is tried within this fraction of the pairs of the plan in use
#: candidate plans tried after the estimated cheapest, at most: a trial that fails costs more time than its pairs
#: say (50-150 ms of a level's 90 ms rejoin on random_sharing(12, 14, 4) seed 5)
EXPLORE_PLANS = 2
#: rejoin pairs spent at one level of ranks and unranks before its suffix table is first tried (2^22 before: the
#: second source of random_sharing(12, 14, 4) seeds 0 and 1, 2-4 x 10^5 pairs and 15-20 ms a rejoin, reached it after
#: a dozen unranks and never tried it for SUFFIX_LAST, where its table, 1.8 x 10^4 entries on seed 0, is built in 25 ms
#: and read in about 1 ms: later unranks' median 49 -> 36 ms on seed 0, 57 -> 39 ms on seed 1, the other seeds alike)
SUFFIX_FROM = 1 << 20
SUFFIX_TRIAL = 2  # the pairs a suffix table's trial may take, per pair the rejoins there took since the last trial
SUFFIX_WORK = 1 << 25  # ... at most (its joins' tables held meanwhile: about 100 MB at most on the boards measured)
SUFFIX_LAST = 1 << 17  # pairs of the last rejoin at a level from which its suffix table is tried (2^20 before)
#: a level's suffix table is not tried where its open resources have more possible states together (the second
#: level of random_sharing(12, 14, 4) seed 3: 7 x 10^7, its table 1.2 x 10^7 entries, its trial past 500 MB; the first
#: levels of seeds 3 and 6: about 10^5, 50-65 000 entries)
SUFFIX_STATES = 1 << 18
#: a suffix table is kept where a rejoin at its level took at least this many times its entries on average
SUFFIX_GAIN = 4
SUFFIX_ENTRIES = 1 << 21  # entries of the suffix tables kept at most, every level together (about 100 MB)
#: a source's splits (compositions of its damage over its routes) up to which ranks and unranks read them from a list
#: made once per level, in lexicographic order with their keys (:class:`_Splits`: the weights summed and bisected),
#: rather than by the walk's bisection route by route (2-3 ms a level on random_sharing(12, 14, 4), a third of a
#: later unrank); a level's list costs about 10 us a split to make
SPLIT_TABLE = 1 << 12
MEMO_ENTRIES = 1 << 20  # table entries kept for fixed prefixes at most (then those memos are emptied): ~100 MB
#: the fixed keys of the prefix, by source position in plan order (0..j-1)
Fixed = tuple[tuple[int, ...], ...]


class _Tree:
    """The count's join tree over a component's sources: node ``j < n`` is source j's leaf; an inner node joins
    ``children[v]``; ``parent[v]`` is -1 at a root. ``under[v]`` lists the leaves under v, ``beside[v]`` the others
    (both sorted: a prefix's fixed keys are read from them)."""

    def __init__(self, n: int, joins: list[tuple[int, int]], slots: list[int]):
        self.children: list[tuple[int, int] | None] = [None] * n
        self.parent = [-1] * n
        node = list(slots)  # the node each slot of the plan holds
        for a, b in joins:
            v = len(self.children)
            self.children.append((node[a], node[b]))
            self.parent.append(-1)
            self.parent[node[a]] = self.parent[node[b]] = v
            node[a] = v
        self.roots = [v for v in range(len(self.parent)) if self.parent[v] < 0]
        self.under: list[tuple[int, ...]] = [(v,) if v < n else () for v in range(len(self.parent))]
        for v, ch in enumerate(self.children):
            if ch is not None:
                self.under[v] = tuple(sorted(self.under[ch[0]] + self.under[ch[1]]))
        self.beside = [tuple(k for k in range(n) if k not in set(u)) for u in self.under]
        self.first = [min(u) if u else n for u in self.under]  # the first source (plan order) under each node

    def sibling(self, v: int) -> int:
        ch = self.children[self.parent[v]]
        assert ch is not None
        return ch[1] if ch[0] == v else ch[0]


class _Splits:
    """Source j's legal splits in lexicographic order (the walk's order) with their keys, made once per level: a rank
    or unrank weighs each by its key's completions, and the weighted order is read from their running sums by
    bisection, as the walk reads it route by route."""

    def __init__(self, walk: Walk, damage: int, routes: int):
        self.splits: list[tuple[int, ...]] = []
        self.keys: list[tuple[int, ...]] = []
        for row in lex_compositions(damage, routes).tolist():
            if walk.weighted(row, None):  # legal on its own (the walk weighs every key of the source's table 1)
                self.splits.append(tuple(row))
                self.keys.append(walk.key(row))
        self.at = {s: k for k, s in enumerate(self.splits)}

    def unrank(self, W: Rows, index: int) -> tuple[list[int], tuple[int, ...], int]:
        """The split at ``index`` of the order weighted by ``W``, its key, and the index left for the sources after."""
        ends = list(itertools.accumulate(W.get(k, 0) for k in self.keys))
        s = bisect_right(ends, index)
        return list(self.splits[s]), self.keys[s], index - (ends[s - 1] if s else 0)

    def rank(self, W: Rows, amounts: Sequence[int]) -> int | None:
        """The weighted number of splits before ``amounts``; None where it is not a legal split with completions."""
        s = self.at.get(tuple(amounts))
        if s is None or not W.get(self.keys[s], 0):
            return None
        return sum(W.get(k, 0) for k in self.keys[:s])


class ConditionedProgramme:
    """Count, rank and unrank of one component (no as-though-unblocked option), in the canonical order, by the inside
    and outside tables of the count's join tree with the sources before the one walked fixed (see the module).
    ``deadline``: the current caller's (:class:`trample.limits.LimitReached` past it); set again by whoever hands the
    programme out. :class:`~trample.engines.elimination.OverBudget` when the tree's tables or the first source's
    completions take more than STEP_WORK; a later source's that do make the programme build the source programme and
    answer with it from then on."""

    def __init__(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        deadline: Deadline | None = None,
        lazy: bool = False,
        first_work: int | None = None,
    ):
        """``lazy``: the first source's completions made when first asked for (a listing from its first row needs
        none; its count is the count's, ``known``). ``first_work``: they are made now, by the rejoin alone within
        that many pairs (:class:`~trample.engines.elimination.OverBudget` past it, the tree not tried): a trial."""
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
        for i, (scope, rows) in zip(self.component, source_tables(plan, self.component, g, budget)):
            self.scope.append(scope)
            self.raw.append(rows)
            members = frozenset([i])
            kept.append(
                (members, tuple(x for x in scope if domain_size(g, x, members)), normalise(g, members, scope, rows))
            )
        # every entry of every join, every completion and the count are at most the product of the tables' sums
        self.ring = Ring(max(1, prod(sum(abs(w) for w in rows.values()) for _, _, rows in kept)))
        self.tables = [Table.of(m, s, r, self.ring) for m, s, r in kept]
        self._rows = kept
        self._after_rings: dict[int, tuple[Ring, list[Table]]] = {}  # per source j: the rejoin's ring and tables
        self._built: tuple[_Tree, list[Table]] | None = None  # the join tree and its inside tables, built when used
        self._outside_base: dict[int, Table] = {}  # no fixed leaf beside the node
        self._memo: dict[tuple[Any, ...], Any] = {}  # tables and completions for fixed prefixes
        #: the rejoin's plans by what they plan with (each table's members, scope and size; the resources left open):
        #: the prefixes of one level plan alike (random_sharing(12, 14, 4) seed 3: 6 of its 8 rejoins before its
        #: first block, at the fourth source, about 1.5 ms of planning each)
        self._plans: dict[tuple[Any, ...], _Plans] = {}
        self._held = 0
        #: per level: the suffix table kept (None: refused for good; :meth:`_suffix_table`), and the rejoins' pairs
        #: there (since the last trial, in all, the rejoins, the next trial's threshold, the last rejoin's)
        self._suffix: dict[int, list[Table] | None] = {}
        self._spent: dict[int, list[int]] = {}
        self._suffix_held = 0
        self._one = Ring(1)  # the prefix's table: one entry of count 1
        self._split_lists: dict[int, _Splits | None] = {}  # per level, for ranks and unranks (None: too many)
        self.fallback: SourceProgramme | None = None  # built when a source's completions pass STEP_WORK
        # the first source's completions: every other table joined, its resources left open (about a count's work),
        # kept for good once made (every unrank starts with them; a listing from its first row may not need them)
        self._first: Rows | None = None
        self._total: int | None = None
        if first_work is not None:
            self._first_completions(first_work)
        elif not lazy:
            self._first_completions()

    def _first_completions(self, work: int | None = None) -> Rows:
        """The first source's completions (kept); ``work``: by the rejoin within that many pairs only."""
        if self._first is None:
            if work is None:
                parts, ring = self._either(0, ())
            else:
                parts, ring = self._rejoined(0, None, Budget(self.deadline or NEVER, work)), self._after(0)[0]
            self._first = self._weigh(0, parts, ring)
            self._total = sum(w * self._first.get(k, 0) for k, w in self.raw[0].items())
        return self._first

    @property
    def tree(self) -> _Tree:
        return self._tree()[0]

    @property
    def _inside_base(self) -> list[Table]:  # no fixed leaf under the node
        return self._tree()[1]

    def _tree(self) -> tuple[_Tree, list[Table]]:
        """The count's join tree over the tables and its inside tables, built the first time a rejoin passes its
        bound (:meth:`_either`)."""
        if self._built is None:
            tables = self.tables
            shared = [j for j, t in enumerate(tables) if t.scope]
            _, joins = order(self.g, [(tables[j].members, frozenset(tables[j].scope), len(tables[j])) for j in shared])
            tree = _Tree(len(tables), joins, shared)
            inside: list[Table] = list(tables)
            budget = self._budget()
            for a, b in (ch for ch in tree.children[len(tables) :] if ch is not None):
                inside.append(self._join(inside[a], inside[b], budget))
            self._built = (tree, inside)
        return self._built

    def _budget(self) -> Budget:
        return Budget(self.deadline or NEVER, STEP_WORK)

    # -- the Programme interface ----------------------------------------------------------------------------------
    def count(self) -> int:
        known = self.plan.cache.of(COUNTS).get(self.component)
        if known is not None:
            return int(known)
        self._first_completions()
        assert self._total is not None
        return self._total

    def unrank(self, index: int) -> tuple[int, ...]:
        if not 0 <= index < self.count():
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
        fixed: Fixed = ()
        for j in range(len(self.component)):
            W = self._completions(j, fixed, ranked=True)
            splits = self._splits_of(j)
            if splits is not None:
                amounts, key, index = splits.unrank(W, index)
            else:
                walk = Walk(self, j, W)  # type: ignore[arg-type]  # reads g, plan, scope, component, deadline
                amounts, index = walk.unrank(index)
                key = walk.key(amounts)
            out.extend(amounts)
            fixed += (key,)
        return tuple(out)

    def _rank(self, vector: Sequence[int]) -> int | None:
        if len(vector) != self.P or any(v < 0 for v in vector):
            return None
        index, at = 0, 0
        fixed: Fixed = ()
        for j, i in enumerate(self.component):
            m = len(self.plan.sources[i].routes)
            amounts = list(vector[at : at + m])
            at += m
            W = self._completions(j, fixed, ranked=True)
            splits = self._splits_of(j)
            walk = Walk(self, j, W)  # type: ignore[arg-type]
            below = splits.rank(W, amounts) if splits is not None else walk.rank(amounts)
            if below is None:
                return None
            index += below
            fixed += (walk.key(amounts),)
        return index

    def _splits_of(self, j: int) -> _Splits | None:
        """Level j's splits listed once (:class:`_Splits`), where the source has at most SPLIT_TABLE compositions."""
        if j not in self._split_lists:
            src = self.plan.sources[self.component[j]]
            m = len(src.routes)
            few = m > 0 and src.splits <= SPLIT_TABLE
            ones = dict.fromkeys(self.raw[j], 1)
            self._split_lists[j] = _Splits(Walk(self, j, ones), src.damage, m) if few else None  # type: ignore[arg-type]
        return self._split_lists[j]

    # -- the completions of each entry of source j's table, the sources before it fixed ----------------------------
    def _completions(self, j: int, fixed: Fixed, rejoin: int | None = None, ranked: bool = False) -> Rows:
        """Source j's table keys (as way_table gives them) -> the legal completions of the sources after it, the
        sources before it fixed to the keys ``fixed`` (memoised per prefix). ``rejoin``: the work bound of the
        rejoin, tried first (:meth:`_either`); ``ranked``: for a rank or unrank (the rejoins learn their plans and
        keep suffix tables: :meth:`_ranked`)."""
        if not fixed:
            return self._first_completions()
        got = self._memo.get(("c", j, fixed))
        if got is None:
            got = self._keep(("c", j, fixed), self._weigh(j, *self._either(j, fixed, rejoin, ranked)))
        out: Rows = got
        return out

    def _either(
        self, j: int, fixed: Fixed, rejoin: int | None = None, ranked: bool = False
    ) -> tuple[list[Table], Ring]:
        """The tables that weigh source j's keys, and their ring: the tables after it joined with the prefix's
        (:meth:`_rejoined`; for the first source, every other table: the count's work with its resources left open)
        while that takes at most ``rejoin`` pairs (REJOIN_WORK), else source j's outside table in the join tree
        (built then)."""
        if rejoin is None:
            rejoin = REJOIN_WORK
        if rejoin:
            try:
                budget = Budget(self.deadline or NEVER, min(rejoin, STEP_WORK))
                if ranked:
                    return self._ranked(j, fixed, budget), self._after(j)[0]
                return self._rejoined(j, self._prefix(fixed, budget), budget), self._after(j)[0]
            except OverBudget:
                pass
        return [self._outside(j, fixed, self._budget())], self.ring

    def _after(self, j: int) -> tuple[Ring, list[Table]]:
        """The ring of the rejoin for source j and the tables after it in that ring: the completions of a prefix
        are at most the product of those tables' sums (the prefix's weighs 1), often far below the component's
        bound, so fewer primes (or exact int64 from about the fifth source on random_sharing(12, 14, 4)): each
        join works on fewer rows of residues. The component's ring and tables where it asks as many primes."""
        got = self._after_rings.get(j)
        if got is None:
            kept = self._rows[j + 1 :]
            ring = Ring(max(1, prod(sum(abs(w) for w in rows.values()) for _, _, rows in kept)))
            if ring.moduli == self.ring.moduli:
                got = (self.ring, self.tables[j + 1 :])
            else:
                got = (ring, [Table.of(m, s, r, ring) for m, s, r in kept])
            self._after_rings[j] = got
        return got

    def _keep(self, key: tuple[Any, ...], value: Any) -> Any:
        """``value`` memoised under ``key`` (the memo emptied first when it would hold more than MEMO_ENTRIES)."""
        size = len(value)
        if self._held + size > MEMO_ENTRIES:
            self._memo.clear()
            self._held = 0
        self._memo[key] = value
        self._held += size
        return value

    def _inside(self, v: int, fixed: Fixed, budget: Budget) -> Table:
        """Node v's inside table, its fixed leaves holding their keys."""
        got = [fixed[k] for k in self.tree.under[v] if k < len(fixed)]
        if not got:
            return self._inside_base[v]
        key = ("i", v, tuple(got))
        t = self._memo.get(key)
        if t is None:
            ch = self.tree.children[v]
            if ch is None:
                t = self._leaf(v, fixed[v])
            else:
                t = self._join(self._inside(ch[0], fixed, budget), self._inside(ch[1], fixed, budget), budget)
            self._keep(key, t)
        out: Table = t
        return out

    def _outside(self, v: int, fixed: Fixed, budget: Budget) -> Table:
        """Node v's outside table (every other source joined, over v's resources), the fixed leaves holding their
        keys: a root's, the other roots' counts; a child's, its parent's outside joined with its sibling's inside."""
        tree = self.tree
        got = tuple(fixed[k] for k in tree.beside[v] if k < len(fixed))
        key = ("o", v, got)
        t = self._outside_base.get(v) if not got else self._memo.get(key)
        if t is not None:
            return t
        if tree.parent[v] < 0:  # a root: the other roots' counts
            totals = [self.ring.total(self._inside(r, fixed, budget).w) for r in tree.roots if r != v]
            t = self._scalar(frozenset(self.component[k] for k in tree.beside[v]), totals)
        elif self._skips(v, len(fixed)):
            p = tree.parent[v]
            q = tree.sibling(p)
            skipped = self._outside_base.get(-1 - v)
            if skipped is None:  # (kept under -1 - v: the same for every key of source q)
                t = self._outside(tree.parent[p], (), budget)
                skipped = self._outside_base[-1 - v] = self._join(t, self._inside_base[tree.sibling(v)], budget)
            t = self._join(skipped, self._leaf(q, fixed[q]), budget)
        else:
            s = tree.sibling(v)
            t = self._join(self._outside(tree.parent[v], fixed, budget), self._inside(s, fixed, budget), budget)
        if got:
            self._keep(key, t)
        else:
            self._outside_base[v] = t
        return t

    # -- the tables after source j joined again with the prefix's (cheaper where the tree's are wide) ---------------
    def _prefix(self, fixed: Fixed, budget: Budget) -> Table | None:
        """The prefix's table: one entry, the fixed keys added source by source (settled as the count settles them)."""
        if not fixed:
            return None
        key = ("p", fixed)
        t = self._memo.get(key)
        if t is None:
            before = self._prefix(fixed[:-1], budget)
            j = len(fixed) - 1
            t = self._leaf(j, fixed[-1], self._one)
            if before is not None:
                t = join(self.g, before, t, self._one, budget)
            assert len(t) == 1
            self._keep(key, t)
        out: Table = t
        return out

    def _rejoined(self, j: int, prefix: Table | None, budget: Budget, explore: bool = False) -> list[Table]:
        """The prefix's table and the tables after source j, joined part by part (connected by shared resources) in
        the cheaper of a bucket plan and path plans, source j's resources left open: one table per part, over
        resources that source j shares (empty scope: a part that does not touch it). ``explore``: other candidate
        plans tried (:meth:`_contracted`)."""
        ring, after = self._after(j)
        tables: list[Table] = []
        if prefix is not None and prefix.scope:
            tables.append(Table.of(prefix.members, prefix.scope, {tuple(prefix.keys[0].tolist()): 1}, ring))
        tables += after
        planner = Planner(self.g)
        out: list[Table] = []
        open_ = frozenset(self.scope[j])
        for part in _connected(tables):
            planned: list[Planned] = [
                (planner.mask(tables[k].members), frozenset(tables[k].scope), len(tables[k])) for k in part
            ]
            key = (*planned, open_)
            plans = self._plans.get(key)
            if plans is None:
                plans = self._plans[key] = _Plans(self._plan(planner, planned, open_))
            left = self._contracted([tables[k] for k in part], plans, ring, budget, explore)
            if any(not len(t) for t in left):
                return left[:1]  # no completion at all
            out += _apart(left, lambda A, B: join(self.g, A, B, ring, budget))
        return out

    def _contracted(
        self, tables: list[Table], plans: _Plans, ring: Ring, budget: Budget, explore: bool = False
    ) -> list[Table]:
        """The tables left by the plan in use for this shape (one empty table: no completion at all).
        With ``explore``, where that plan took at least EXPLORE_FROM pairs last time, the next candidate (of the
        EXPLORE_PLANS after the estimated cheapest) is tried first within 1 / EXPLORE_GAIN of them, and kept where
        it finishes: the rejoins of one level go on in the cheapest plan found, and a trial costs at most a fraction
        of a rejoin."""
        if explore and plans.work >= EXPLORE_FROM and plans.next < min(len(plans.joins), 1 + EXPLORE_PLANS):
            k = plans.next
            plans.next += 1
            trial = Budget(self.deadline or NEVER, plans.work // EXPLORE_GAIN)
            try:
                got = self._run(tables, plans.joins[k], ring, trial)
            except OverBudget:
                budget.spend(trial.ops)
            else:
                budget.spend(trial.ops)
                plans.best, plans.work = k, trial.ops
                return got
        before = budget.ops
        got = self._run(tables, plans.joins[plans.best], ring, budget)
        plans.work = budget.ops - before
        return got

    def _run(self, tables: list[Table], joins: list[tuple[int, int]], ring: Ring, budget: Budget) -> list[Table]:
        """The tables left by ``joins`` (one empty table where a join has no entry)."""
        slots: list[Table | None] = list(tables)
        for a, b in joins:
            A, B = slots[a], slots[b]
            assert A is not None and B is not None
            t = join(self.g, A, B, ring, budget)
            if not len(t):
                return [t]
            slots[a], slots[b] = t, None
        return [t for t in slots if t is not None]

    @staticmethod
    def _plan(planner: Planner, planned: list[Planned], open_: frozenset[str]) -> list[list[tuple[int, int]]]:
        """The candidate plans, distinct: the estimated cheapest of a bucket plan and path plans from the PATH_STARTS
        smallest tables (the plan every rejoin took before plans were learnt), then the others, path plans from
        every table, by estimated work."""
        plans = [bucket_plan(planner, planned, open_)]
        starts = sorted(range(len(planned)), key=lambda k: (planned[k][2], len(planned[k][1])))
        for start in starts:
            path = path_plan(planner, planned, start)
            if path is not None:
                plans.append(path)
        first = min(plans[: 1 + PATH_STARTS], key=lambda p: p[0])
        out: list[list[tuple[int, int]]] = []
        seen: set[frozenset[frozenset[int]]] = set()
        for _, joins in [first, *sorted(plans, key=lambda p: p[0])]:
            tree = _tree_of(len(planned), joins)
            if tree not in seen:
                seen.add(tree)
                out.append(joins)
        return out

    # -- a level's suffix table: the tables after source j joined once, the prefix's resources left open ------------
    def _ranked(self, j: int, fixed: Fixed, budget: Budget) -> list[Table]:
        """Source j's weighing tables for a rank or unrank: from its level's suffix table where one is kept
        (:meth:`_suffix_table`), else by the rejoin (its plan learnt: :meth:`_contracted`), its pairs counted towards
        the suffix table's trial."""
        prefix = self._prefix(fixed, budget)
        suffix = self._suffix_table(j)
        if suffix is not None:
            got = self._from_suffix(j, prefix, suffix, budget)
            if got is not None:
                return got
        before = budget.ops
        parts = self._rejoined(j, prefix, budget, explore=True)
        spent = self._spent.setdefault(j, [0, 0, 0, SUFFIX_FROM, 0])
        spent[4] = budget.ops - before
        spent[0] += spent[4]
        spent[1] += spent[4]
        spent[2] += 1
        return parts

    def _suffix_table(self, j: int) -> list[Table] | None:
        """Level j's suffix table (the tables after source j joined, source j's resources and the resources the
        sources before it share with those after it left open: every prefix's completions read from it by one join
        with the prefix's one entry), kept where its entries are at most 1 / SUFFIX_GAIN of a rejoin's pairs at that
        level on average. Tried once the rejoins there since the last trial have taken SUFFIX_FROM pairs (then as many
        as the last trial's bound), within SUFFIX_TRIAL times those (at most SUFFIX_WORK): the trials cost at most a
        few times what the rejoins did. Only after two rejoins at the level, the last at least SUFFIX_LAST pairs (its
        plan learnt by then: a level made cheap by it is left to its rejoins), and where its open resources have at
        most SUFFIX_STATES states together. A level's table past its bound is tried again later; one too large is
        not."""
        if j in self._suffix:
            return self._suffix[j]
        spent = self._spent.get(j)
        if spent is None or spent[0] < spent[3] or spent[2] < 2 or spent[4] < SUFFIX_LAST:
            return None
        if self._suffix_states(j) > SUFFIX_STATES:
            self._suffix[j] = None
            return None
        bound, spent[0] = min(SUFFIX_TRIAL * spent[0], SUFFIX_WORK), 0
        spent[3] = bound
        try:
            tables = self._suffix_build(j, Budget(self.deadline or NEVER, bound))
        except OverBudget:
            return None
        entries = sum(len(t) for t in tables)
        if entries * SUFFIX_GAIN > spent[1] // max(1, spent[2]) or self._suffix_held + entries > SUFFIX_ENTRIES:
            self._suffix[j] = None
            return None
        self._suffix[j] = tables
        self._suffix_held += entries
        return tables

    def _suffix_states(self, j: int) -> int:
        """The most entries level j's suffix table may have: the product of its open resources' possible states."""
        after = self._after(j)[1]
        planner = Planner(self.g)
        mask = planner.mask(frozenset().union(*(t.members for t in after)))
        return prod(planner.size_of(x, mask) or 1 for x in self._suffix_open(j))

    def _suffix_open(self, j: int) -> frozenset[str]:
        """The resources level j's suffix table leaves open: those of the tables after source j that source j or a
        source before it touches."""
        touched = set().union(*(self.scope[k] for k in range(j + 1)))
        return frozenset(x for t in self._after(j)[1] for x in t.scope if x in touched)

    def _suffix_build(self, j: int, budget: Budget) -> list[Table]:
        """The tables after source j joined part by part (in the estimated cheapest plan), every resource that
        source j or a source before it touches left open; what is left shares nothing."""
        ring, after = self._after(j)
        open_ = self._suffix_open(j)
        planner = Planner(self.g)
        out: list[Table] = []
        for part in _connected(after):
            planned: list[Planned] = [
                (planner.mask(after[k].members), frozenset(after[k].scope), len(after[k])) for k in part
            ]
            left = self._run([after[k] for k in part], self._plan(planner, planned, open_)[0], ring, budget)
            if any(not len(t) for t in left):
                return left[:1]
            out += _apart(left, lambda A, B: join(self.g, A, B, ring, budget))
        return out

    def _from_suffix(self, j: int, prefix: Table | None, suffix: list[Table], budget: Budget) -> list[Table] | None:
        """Source j's weighing tables from its level's suffix table: each part joined with the prefix's entry on
        the resources they share (the prefix is one entry, so its states split over the parts, which share none),
        the prefix's states on source j's resources that no later source touches as a part of their own. None
        where the prefix holds a resource that neither holds (the rejoin then answers)."""
        ring = self._after(j)[0]
        if prefix is None or not prefix.scope:
            return list(suffix)
        where = dict(zip(prefix.scope, prefix.keys[0].tolist()))
        out: list[Table] = []
        for t in suffix:
            mine = tuple(x for x in t.scope if x in where)
            if mine:
                one = Table.of(prefix.members, mine, {tuple(where.pop(x) for x in mine): 1}, ring)
                t = join(self.g, one, t, ring, budget)
                if not len(t):
                    return [t]  # no completion at all
            out.append(t)
        if where:
            if not set(where) <= set(self.scope[j]):  # pragma: no cover - a prefix's resources are touched after it
                return None
            out.append(Table.of(prefix.members, tuple(where), {tuple(where.values()): 1}, ring))
        return out

    def _skips(self, v: int, level: int) -> bool:
        """Is v's outside better joined with its parent's sibling last? When that sibling is one fixed source, v's
        sibling holds no fixed source and nothing beside the grandparent is fixed, the join of the grandparent's
        outside and v's sibling (two tables that may be large) is the same for every key of that source: it is
        joined once and kept, where the parent's outside joined with the sibling's inside would be joined again
        for every key."""
        tree = self.tree
        p = tree.parent[v]
        if p < 0 or tree.parent[p] < 0 or tree.first[tree.sibling(v)] < level:
            return False
        q = tree.sibling(p)
        return q < level and all(k >= level for k in tree.beside[tree.parent[p]])

    # -- tables ----------------------------------------------------------------------------------------------------
    def _leaf(self, j: int, key: tuple[int, ...], ring: Ring | None = None) -> Table:
        """Source j's table with one entry: the key the walk chose (settled as the count settles it)."""
        i = self.component[j]
        members = frozenset([i])
        rows = normalise(self.g, members, self.scope[j], {key: 1})
        assert rows  # the walk only chooses splits with completions
        return Table.of(members, self.tables[j].scope, rows, ring or self.ring)

    def _scalar(self, members: frozenset[int], totals: list[list[Any]]) -> Table:
        """A table of no resource and one entry: the product of ``totals`` (per residue row)."""
        ring = self.ring
        rows = [prod(t[r] for t in totals) % (ring.moduli[r] if ring.moduli else 1 << 62) for r in range(ring.k)]
        return Table(members, (), np.zeros((1, 0), dtype=np.int64), np.array(rows, dtype=np.int64).reshape(ring.k, 1))

    def _join(self, A: Table, B: Table, budget: Budget) -> Table:
        """The join of two tables (the elimination's), or a product by a table of no resource (a part's count)."""
        if self.deadline:
            self.deadline.check()
        if A.scope and B.scope:
            return join(self.g, A, B, self.ring, budget)
        if A.scope:
            A, B = B, A  # A: the one of no resource
        members = A.members | B.members
        w = B.w * (A.w[:, :1] if len(A) else 0)
        if self.ring.moduli:
            self.ring.reduce(w)
        return Table(members, B.scope, B.keys if B.index is None else None, w, 0.0, B.index)

    def _weigh(self, j: int, parts: list[Table], ring: Ring) -> Rows:
        """Each key of source j's table -> the product over the parts (tables over some of its resources, sharing
        none) of the weight of the part's entries whose states, added to the key's, settle without breaking a gate
        (every source in)."""
        keys = list(self.raw[j])
        if not keys:
            return {}
        scope = self.scope[j]
        K = np.array(keys, dtype=np.int64).reshape(len(keys), len(scope))
        every = frozenset(self.component)
        acc = np.ones((ring.k, len(keys)), dtype=object)
        for part in parts:
            if self.deadline:
                self.deadline.check()
            if not len(part):  # no completion at all (a prefix with no row: the lister goes back up through such)
                return {}
            acc *= self._part_weights(part, K, scope, every, ring).astype(object)
            if ring.moduli:
                acc %= np.array(ring.moduli, dtype=object)[:, None]
        return {k: v for k, v in zip(keys, self._integers(acc, ring)) if v}

    def _part_weights(
        self, part: Table, K: npt.NDArray[np.int64], scope: tuple[str, ...], every: frozenset[int], ring: Ring
    ) -> npt.NDArray[np.int64]:
        """Per residue row and key of source j: the weight of the part's entries that settle with it (in ``ring``)."""
        w = part.w
        if not part.scope:  # a part that does not touch source j: its count, for every key
            return np.repeat(np.array(ring.total(w), dtype=np.int64)[:, None], len(K), axis=1)
        cols = [part.column(c) for c in range(len(part.scope))]
        shape = [len(v) for v, _ in cols]
        if prod(shape) * w.shape[0] > DENSE_CELLS:
            raise OverBudget  # (not met on the boards measured: a part's resources are source j's, a few states each)
        dense = np.zeros((w.shape[0], *shape), dtype=np.int64)
        where: tuple[Any, ...] = (slice(None), *[at for _, at in cols])
        dense[where] = w  # the entries' keys are distinct
        look = []
        for c, x in enumerate(part.scope):
            mine, idx = unique(K[:, scope.index(x)])
            settled = self.g.contributors[x] <= every and self.g.askers[x] <= every
            if settled and mine.min() >= UNSAT and cols[c][0].min() >= UNSAT:
                dense = settled_sums(dense, c + 1, cols[c][0], mine, self.g.need[x])  # axis c: now source j's state
            else:  # pragma: no cover - every resource of a component settles with every source in
                if len(mine) * len(cols[c][0]) > DENSE_CELLS:
                    raise OverBudget
                ok = (sum_table(self.g, x, every, mine, cols[c][0]) != DEAD).astype(np.int64)
                dense = np.moveaxis(np.tensordot(dense, ok, axes=([c + 1], [1])), -1, c + 1)
            if ring.moduli:
                for r, m in enumerate(ring.moduli):
                    np.remainder(dense[r], m, out=dense[r])
            look.append(idx)
        where = (slice(None), *look)
        out: npt.NDArray[np.int64] = dense[where]
        return out

    @staticmethod
    def _integers(acc: npt.NDArray[np.object_], ring: Ring) -> list[int]:
        """Residue rows (or the one row of exact counts) as the counts, by the Chinese remainder theorem."""
        moduli = ring.moduli
        if not moduli:
            return [int(v) for v in acc[0]]
        M = prod(moduli)
        coef = [(M // m) * pow(M // m, -1, m) for m in moduli]
        return [sum(int(r) * c for r, c in zip(col, coef)) % M for col in acc.T]


#: pairs of entries joined (the source programme's measure) up to which a rooted source programme, the splits of the
#: sources before it fixed, lists a prefix's rows (:class:`PrefixLister`); past it, one source more is fixed
ROOT_WORK = 1 << 22
#: the rejoin's bound for the lister's completions (a prefix's joins once, not per draw): about a count's work
LIST_REJOIN = STEP_WORK
#: the next splits of the last source fixed tried (a rooted programme each) when the first prefix has no row; 0: none,
#: the lister goes back up the path at once (PrefixLister._after), where the deepest level's completions (about 0.01 s
#: on random_sharing(12, 14, 4)) find the splits with rows without building a programme for each (4 before: seed 4's
#: first rows 0.58 -> 0.38 s of CPU, the four tries there all without a row)
FIRST_TRIES = 0
#: splits without a row probed one level deeper (PrefixLister._probed) before a level's splits are weighed at once
PROBES = 8
#: probe a level's next splits also where the level below lists by rooted programmes (PrefixLister._probed): the
#: walk builds the rooted programme of each split with rows anyway, and a level's completions went to splits it never
#: reached (random_sharing(12, 14, 4) seed 0: 8-13 ms of the 30 ms from its first block to 2^20 rows)
PROBE_ROOTED = True


class PrefixLister:
    """The rows of a component in the canonical order, as numpy blocks, with the count's join tree: depth first over
    the first sources, each source's splits in lexicographic order with their completions given the prefix
    (:meth:`ConditionedProgramme._completions`), until the source programme *rooted* at the prefix (those splits
    fixed, the cuts after them reached from their one state: :class:`~trample.engines.ordered.SourceProgramme`
    with ``prefix``) builds within ROOT_WORK pairs; its :class:`~trample.engines.ordered.Lister` writes the
    prefix's rows. A level where a rooted build went over is not tried again (the next prefixes are fixed one
    source deeper at once). So the first row costs the completions along one path and one small rooted programme,
    not every reached state of every plan-order cut; memory is that of one prefix's programme. The rows are the
    source lister's, in the same order (the same lexicographic walk, the same listing below the prefix)."""

    def __init__(self, prog: ConditionedProgramme):
        self.prog = prog
        self.plan, self.component = prog.plan, prog.component
        self.columns, self.P = prog.columns, prog.P
        self._over: set[int] = set()  # levels where a rooted programme went over ROOT_WORK
        self._splits: dict[int, npt.NDArray[np.int64]] = {}
        #: the last rooted programme: its splits, itself and the state they lead to (SourceProgramme.root_of)
        self._kept: tuple[tuple[tuple[int, ...], ...], Rooted, tuple[int, int, int]] | None = None
        #: the last prefix whose next splits' states were asked for, and their states (SourceProgramme.roots_after;
        #: None: TooWide)
        self._roots: tuple[tuple[tuple[int, ...], ...], Callable[[Sequence[int]], tuple[int, int, int]] | None] | None
        self._roots = None
        self._first: tuple[tuple[tuple[int, ...], ...], Rooted | None] | None | bool = False  # not looked for
        self._listed: int | None = None  # the count, where every row was listed by within()
        #: rows listed by within() from the first, kept with the listing that goes on (and the deadline it reads)
        self._head: tuple[list[npt.NDArray[Any]], Iterator[npt.NDArray[Any]], Deadline | None, int] | None = None
        #: the rows left in the block blocks() is filling: the first block of each listing it starts next (a rooted
        #: programme's, the last source's) is cut to them, so the blocks after it line up with blocks()'s and pass
        #: through whole, not copied again into blocks of their own (random_sharing(12, 14, 4) seed 0: a fifth of
        #: the CPU after the first block went to that copy)
        self._room: int | None = None
        #: the room left in that block itself (None: it is empty), where the next listing writes its first rows
        self._into: npt.NDArray[Any] | None = None
        #: the blocks blocks() and the listings it starts have handed out, written again once nobody holds them
        self._spare = Spare()

    def count(self) -> int:
        """The count: the listed rows' where they were all listed (:meth:`within`), else the programme's where it
        knows it (the plan's count, or its first source's completions), else the count's
        (:func:`~trample.engines.elimination.count_component`, kept in the plan's cache as the engine keeps it)."""
        if self._listed is not None:
            return self._listed
        counts = self.plan.cache.of(COUNTS)
        if self.component not in counts and self.prog._first is None:
            counts[self.component] = count_component(self.plan, self.component, self.prog.deadline)
        return self.prog.count()

    def first(self, deadline: Deadline) -> tuple[tuple[tuple[int, ...], ...], Rooted | None] | None:
        """The first prefix and its rooted programme (:meth:`_first_prefix`), found once."""
        if self._first is False:
            self._first = self._first_prefix(deadline)
        return None if isinstance(self._first, bool) else self._first

    def within(self, limit: int) -> int | None:
        """The count where it is at most ``limit``, else None, without counting where the count is not known: the
        rows are listed from the first up to ``limit`` + 1 and kept (with the listing) for the next listing from the
        first row, so the product of the components (``direct._product``) asks for no count it does not need."""
        counts = self.plan.cache.of(COUNTS)
        if self._listed is not None or self.component in counts or self.prog._first is not None:
            n = self.count()
            return n if n <= limit else None
        if self._head is None or self._head[2] is not self.prog.deadline:
            dt = _dtype(self.plan, self.component)
            pieces = self._pieces(0, 1 << 16, dt, self.prog.deadline or NEVER)
            self._head = ([], pieces, self.prog.deadline, 0)
        held, pieces, deadline, got = self._head
        while got <= limit:
            piece = next(pieces, None)
            if piece is None:
                self._listed = got
                return got
            held.append(piece)
            got += len(piece)
        self._head = (held, pieces, deadline, got)
        return None

    def unrooted(self) -> None:
        """No rooted programme with no split fixed is tried (the whole source programme did not build)."""
        self._over.add(0)

    def blocks(
        self, rows: int = 1 << 16, dtype: npt.DTypeLike | None = None, deadline: Deadline | None = None, start: int = 0
    ) -> Iterator[npt.NDArray[Any]]:
        """Rows ``start``.. of the canonical order in blocks of ``rows`` rows (the last one shorter); ``deadline``
        (else the programme's): checked at every step. The pieces of the listings it goes through line up with the
        blocks (``_room``), so most blocks are a listing's own, passed through; only a block where one listing ends
        and the next begins is put together: in place, where the next listing writes its first rows into the room
        left in it (``_into``: random_sharing(12, 14, 4) seed 3, a block put together for each of its rooted
        programmes of 143 341 rows, each a fresh block of 4 MB and a copy, and the rows left of the last one
        held until then)."""
        dt = np.dtype(dtype) if dtype is not None else _dtype(self.plan, self.component)
        head, self._head = self._head, None
        kept = head is not None and start == 0 and (deadline or self.prog.deadline) is head[2]
        deadline = deadline or self.prog.deadline or NEVER
        rows = max(1, int(rows))
        if start and not start < self.count():  # (from the first row: no count needed, an empty listing is empty)
            return
        buf: npt.NDArray[Any] | None = None  # the block being filled, where it is not one listing's own
        filled = 0
        if kept and head is not None:  # the rows within() listed, then the rest of that listing (in its spare)
            cast = partial(np.ndarray.astype, dtype=dt, copy=False)  # (a map holds no piece between pieces)
            listing: Iterator[npt.NDArray[Any]] = map(cast, itertools.chain(head[0], head[1]))
            head = None
        else:
            listing = self._pieces(start, rows, dt, deadline)
            self._spare = Spare()
        self._room, self._into = rows, None
        try:
            for piece in listing:
                while len(piece):
                    if buf is None:
                        if len(piece) >= rows:  # a whole block of its own: passed through
                            yield piece[:rows]
                            piece = piece[rows:]
                            continue
                        buf = self._spare.grown(piece, rows)  # a listing's last rows, where they lie
                        if buf is not None:
                            filled, piece = len(piece), piece[:0]
                            continue
                        buf = self._spare.empty(rows * prod(piece.shape[1:]), piece.dtype).reshape(
                            rows, *piece.shape[1:]
                        )
                    take = piece[: rows - filled]
                    piece = piece[len(take) :]
                    if _address(take) != _address(buf[filled:]):  # (a listing's first rows are written in place)
                        buf[filled : filled + len(take)] = take
                    filled += len(take)
                    if filled == rows:
                        yield buf
                        buf, filled = None, 0
                self._room = rows - filled
                self._into = None if buf is None else buf[filled:]
                piece = take = _NO_ROWS  # (the piece's buffer held no longer: the spare writes it again once free)
            self._into = None
            if buf is not None and filled:
                yield buf[:filled]
        finally:  # the blocks kept for writing again let go (the lister may be kept in the plan's cache)
            self._spare = Spare()

    def _pieces(self, start: int, rows: int, dtype: np.dtype[Any], deadline: Deadline) -> Iterator[npt.NDArray[Any]]:
        """Rows ``start``.. in pieces: from the first row, those of the first prefix (:meth:`_first_prefix`; maybe
        none), then the rows after it by going back up its path (:meth:`_after`), weighing only the levels it goes
        back to; from any other row, the walk from the top, weighing each level on the way down."""
        if start == 0:
            first = self.first(deadline)
            if first is not None:
                splits, rooted = first
                if rooted is None:  # its one row not known: the last source's splits from the first
                    yield from self._after(splits, 0, rows, dtype, deadline, True)
                    return
                yield from rooted.blocks(rows, dtype, deadline, 0, self._room, self._into, self._spare)
                yield from self._after(splits, rooted.count(), rows, dtype, deadline)
                return
        yield from self._walk((), (), start, rows, dtype, deadline)

    def _after(
        self,
        splits: tuple[tuple[int, ...], ...],
        done: int,
        rows: int,
        dtype: np.dtype[Any],
        deadline: Deadline,
        from_last: bool = False,
    ) -> Iterator[npt.NDArray[Any]]:
        """The rows after the first ``done`` ones, which are every row that begins with ``splits`` (the first
        prefix's): for each level j from the deepest up, the rows that begin with ``splits[:j]`` and a split of
        source j after ``splits[j]`` (lexicographically), walked as :meth:`_walk` walks them. Only the levels gone
        back to are weighed, the deepest first (the cheapest: few sources left to join), so the first blocks need
        neither the first source's completions nor those of the shallow levels. ``done`` stays the number of rows
        listed, all of which begin with the prefix of the level at hand. ``from_last``: the deepest level's splits from
        the first (its rows not listed before: every split before ``splits[-1]`` has none)."""
        prog = self.prog
        keys = tuple(self._key(j, split) for j, split in enumerate(splits))
        for j in reversed(range(len(splits))):
            deadline.check()
            head, fixed = splits[:j], keys[:j]
            after = None if from_last and j + 1 == len(splits) else splits[j]
            if j + 1 < len(self.component) and after is not None:  # its next splits probed one level deeper first
                probed = yield from self._probed(head, fixed, after, rows, dtype, deadline)
                done += probed[0]
                if probed[1] is None:
                    continue  # every split after ``after`` listed
                after = probed[1]
            W = self._completions(j, fixed, deadline)
            if W is None:  # past STEP_WORK: the rooted programme at the level above lists the rest of its rows
                rooted = SourceProgramme(self.plan, self.component, deadline, None, head, prog.raw)
                yield from rooted.blocks(rows, dtype, deadline, done, self._room, self._into, self._spare)
                done = rooted.count()
                continue
            walk = Walk(prog, j, W)  # type: ignore[arg-type]  # reads g, plan, component, scope
            if j + 1 == len(self.component):
                for block in self._last(head, walk, 0, rows, dtype, deadline, after):
                    done += len(block)
                    yield block
                continue
            lex = self._lex(j)
            for amounts in lex[0 if after is None else _lex_after(lex, after) :].tolist():
                c = walk.weighted(amounts, None)
                if c:
                    yield from self._walk(
                        (*head, tuple(amounts)), (*fixed, walk.key(amounts)), 0, rows, dtype, deadline
                    )
                    done += c

    def _probed(
        self,
        head: tuple[tuple[int, ...], ...],
        fixed: Fixed,
        after: tuple[int, ...],
        rows: int,
        dtype: np.dtype[Any],
        deadline: Deadline,
    ) -> Generator[npt.NDArray[Any], None, tuple[int, tuple[int, ...] | None]]:
        """The rows that begin with ``head`` and the splits of source j = len(head) after ``after``, without source
        j's completions (the rejoin of every table after it: 0.15-0.2 s at the third source of
        random_sharing(12, 14, 4) seeds 3 and 7): each next split its own routes allow is weighed one level deeper,
        by what :meth:`_walk` reads first there (the rooted programme of the prefix, else source j + 1's completions,
        each kept for the walk that follows), its rows walked where it has some; the splits that lead the prefix to a
        dead state are skipped, all found by one row of pair codes (``SourceProgramme.roots_after``). Where the level
        below lists by rooted programmes too (PROBE_ROOTED; where the last one built there had rows): a split with
        rows costs no more than the walk into it (its rooted programme, kept for that walk), and the first one
        without a row stops the probes, so the level's completions are paid at most one empty build late, and not at
        all where its rows run out first.
        Returns (the rows listed, the last split probed), that split None where every split was probed; stops after
        PROBES live splits without a row, at a rooted programme without a row, or where source j + 1's completions
        pass STEP_WORK (the caller weighs source j's splits after the last one probed)."""
        prog, j = self.prog, len(head)
        kept = self._kept
        below = kept is not None and len(kept[0]) == j + 1  # the last rooted programme: one of this level's splits
        if j + 1 not in self._over and not (below and kept is not None and kept[2][2] < 0):
            # a level deeper lists by rooted programmes (a build each): probed where the last one had rows (an empty
            # one's siblings are often empty too: random_sharing(12, 14, 4) seed 1's first prefix, where a probe
            # built a second empty programme of 10 ms before the completions)
            if not (PROBE_ROOTED and below and kept is not None and kept[1].count()):
                return 0, after
        nxt = prog.raw[j + 1]
        walk = Walk(prog, j, dict.fromkeys(prog.raw[j], 1))  # type: ignore[arg-type]  # its own routes' splits
        lex = self._lex(j)
        roots = self._roots_after(head)  # which splits lead the prefix to a live state (source j's at once)
        if roots is None:
            return 0, after
        done, empty = 0, 0
        for amounts in lex[_lex_after(lex, after) :].tolist():
            if empty >= PROBES:
                return done, after
            if not walk.weighted(amounts, None):
                continue
            split, key = tuple(amounts), walk.key(amounts)
            if roots(split)[2] < 0:
                after = split
                continue  # (no row: it stops before any cut is reached; not counted)
            rooted = self._rooted((*head, split), deadline)
            if rooted is not None:
                c = rooted.count()
                if not c:
                    return done, split  # a rooted programme built and empty: the level is weighed at once
            else:
                W = self._completions(j + 1, (*fixed, key), deadline)
                if W is None:
                    return done, after
                c = sum(nxt[k] * w for k, w in W.items())
            if c:
                yield from self._walk((*head, split), (*fixed, key), 0, rows, dtype, deadline)
                done += c
            else:
                empty += 1
            after = split
        return done, None

    def _key(self, j: int, split: tuple[int, ...]) -> tuple[int, ...]:
        """Source j's table key of one of its splits."""
        return Walk(self.prog, j, {}).key(split)  # type: ignore[arg-type]

    def _completions(self, j: int, fixed: Fixed, deadline: Deadline) -> Rows | None:
        """Source j's completions, the sources before it fixed to ``fixed`` (the programme's, within LIST_REJOIN
        for the rejoin; under ``deadline``); None where they pass STEP_WORK."""
        prog = self.prog
        saved, prog.deadline = prog.deadline, deadline
        try:
            return prog._completions(j, fixed, LIST_REJOIN)
        except OverBudget:
            return None
        finally:
            prog.deadline = saved

    def _first_prefix(self, deadline: Deadline) -> tuple[tuple[tuple[int, ...], ...], Rooted | None] | None:
        """The first prefix of the canonical order and its rooted programme, found without any completions: each
        source's first split in lexicographic order that its own routes allow (its key in the source's table, its
        private gates met), one source more until the rooted programme builds (:meth:`_rooted`); where it has no row,
        up to FIRST_TRIES next splits of the last source fixed (the last one tried is returned, with or without a
        row). Every split before one of those has no completion at all, so the rows that begin with the splits
        returned are the first ones of the component, and the rest follow by going back up their path
        (:meth:`_after`). The programme is None where every source is fixed and it still refused (a wide table: the
        last source's splits are then weighed from the first). None where some source has no split its own routes
        allow (no row at all). Without FIRST_TRIES, where that path leads to a dead state, the same answer is found
        from its dead end up (:meth:`_deepest_first`)."""
        prog = self.prog
        if not FIRST_TRIES:
            found = self._deepest_first(deadline)
            if found is not None:
                return found
        splits: list[tuple[int, ...]] = []
        for j in range(len(self.component)):
            deadline.check()
            walk = Walk(prog, j, dict.fromkeys(prog.raw[j], 1))  # type: ignore[arg-type]
            allowed = (tuple(a) for a in self._lex(j).tolist() if walk.weighted(a, None))
            split = next(allowed, None)
            if split is None:
                return None
            rooted = self._rooted((*splits, split), deadline)
            tries = FIRST_TRIES
            while rooted is not None and not rooted.count() and tries:  # its next splits, rooted at the same level
                later = next(allowed, None)
                if later is None:
                    break
                split, tries = later, tries - 1
                rooted = self._rooted((*splits, split), deadline)
            splits.append(split)
            if rooted is not None or j + 1 == len(self.component):
                return tuple(splits), rooted  # None: every source fixed, refused all the same (a wide table)
        return None  # pragma: no cover - (the loop returns at the last source)

    def _deepest_first(self, deadline: Deadline) -> tuple[tuple[tuple[int, ...], ...], Rooted | None] | None:
        """:meth:`_first_prefix`'s answer where the first splits of the sources lead to a dead state at some depth
        D (the first split of each source its own routes allow; ``SourceProgramme.root_of`` of the whole path,
        one pass): the prefix of D splits has a rooted programme at once (no row), so the answer is the shortest
        prefix of those D whose rooted programme builds. A rooted programme's reached states at each cut contain
        those of any longer prefix's (the same cuts, one more split fixed), and its work bound counts them: where
        the prefix of D - 1 splits refuses, every shorter one refuses too, and is marked so without its try
        (random_sharing(12, 14, 4) seeds 2 and 5-9: the first refusals cost 5-40 ms). Where it builds, the shorter
        prefixes are tried from the first as before, and it is the answer if they all refuse. The same answer,
        ``_over`` and last rooted programme as the tries from the first; None where the path has no dead state
        (or a source no split, or the root is past its bound, or that level marked over already): the caller tries
        from the first."""
        prog, n = self.prog, len(self.component)
        splits: list[tuple[int, ...]] = []
        for j in range(n):
            walk = Walk(prog, j, dict.fromkeys(prog.raw[j], 1))  # type: ignore[arg-type]
            split = next((tuple(a) for a in self._lex(j).tolist() if walk.weighted(a, None)), None)
            if split is None:
                return None
            splits.append(split)
        try:
            _, D, code = SourceProgramme.root_of(self.plan, self.component, splits, prog.raw)
        except TooWide:
            return None
        if code >= 0 or D < 2 or D - 1 in self._over:
            return None
        deadline.check()
        below = self._rooted(tuple(splits[: D - 1]), deadline)
        if below is None:  # refused: so would every shorter prefix (its states contain this one's)
            self._over.update(range(1, D - 1))
            dead = self._rooted(tuple(splits[:D]), deadline)
            # (a dead prefix's programme refuses only where a later cut is past its code's range: then the caller's
            # tries from the first pass over the levels marked, as they would have refused, and go on below)
            return None if dead is None else (tuple(splits[:D]), dead)
        kept = self._kept
        for k in range(1, D - 1):
            deadline.check()
            rooted = self._rooted(tuple(splits[:k]), deadline)
            if rooted is not None:
                return tuple(splits[:k]), rooted
        self._kept = kept
        return tuple(splits[: D - 1]), below

    def _walk(
        self,
        splits: tuple[tuple[int, ...], ...],
        keys: Fixed,
        start: int,
        rows: int,
        dtype: np.dtype[Any],
        deadline: Deadline,
    ) -> Iterator[npt.NDArray[Any]]:
        """The rows that begin with ``splits`` (their keys ``keys``), from the ``start``-th of them."""
        deadline.check()
        j = len(splits)
        rooted = self._rooted(splits, deadline)
        if rooted is not None:
            yield from rooted.blocks(rows, dtype, deadline, start, self._room, self._into, self._spare)
            return
        prog = self.prog
        W = self._completions(j, keys, deadline)
        if W is None:  # this prefix's completions pass STEP_WORK: its rooted programme, whatever its size
            rooted = SourceProgramme(self.plan, self.component, deadline, None, splits, prog.raw)
            yield from rooted.blocks(rows, dtype, deadline, start, self._room, self._into, self._spare)
            return
        walk = Walk(prog, j, W)  # type: ignore[arg-type]  # reads g, plan, component, scope
        if j + 1 == len(self.component):  # the last source: a split with its completion is one row
            yield from self._last(splits, walk, start, rows, dtype, deadline)
            return
        for amounts in self._lex(j).tolist():
            c = walk.weighted(amounts, None)  # its key's completions; 0: not legal (a private gate) or none
            if not c:
                continue
            if start >= c:
                start -= c
                continue
            yield from self._walk((*splits, tuple(amounts)), (*keys, walk.key(amounts)), start, rows, dtype, deadline)
            start = 0

    def _last(
        self,
        splits: tuple[tuple[int, ...], ...],
        walk: Walk,
        start: int,
        rows: int,
        dtype: np.dtype[Any],
        deadline: Deadline,
        after: tuple[int, ...] | None = None,
    ) -> Iterator[npt.NDArray[Any]]:
        """The rows that begin with ``splits``, every source but the last fixed, from the ``start``-th: the last
        source's splits (those after ``after`` in lexicographic order, where given) that have their completion
        (weight 1), in blocks of ``rows`` (:meth:`_completed`). Without the rooted source programme, which may refuse
        a wide table even then (a blocker that needs 50 000: PREPARE_CELLS)."""
        head = np.array([a for split in splits for a in split], dtype=np.int64)
        held: list[npt.NDArray[np.int64]] = []
        filled, size = 0, self._room or rows  # the first block cut to the room left in blocks()'s
        for chunk in self._completed(len(splits), walk, after):
            if start:
                skip = min(start, len(chunk))
                chunk, start = chunk[skip:], start - skip
            while len(chunk):
                take, chunk = chunk[: size - filled], chunk[size - filled :]
                held.append(take)
                filled += len(take)
                if filled == size:
                    deadline.check()
                    yield self._glued(head, held, dtype)
                    held, filled, size = [], 0, rows
        if held:
            yield self._glued(head, held, dtype)

    @staticmethod
    def _glued(head: npt.NDArray[np.int64], held: list[npt.NDArray[np.int64]], dtype: np.dtype[Any]) -> Any:
        """Rows of ``head`` followed by each of the last source's splits ``held``."""
        last = np.concatenate(held) if len(held) > 1 else held[0]
        out = np.empty((len(last), len(head) + last.shape[1]), dtype=dtype)
        out[:, : len(head)] = head
        out[:, len(head) :] = last
        return out

    def _completed(self, j: int, walk: Walk, after: tuple[int, ...] | None) -> Iterator[npt.NDArray[np.int64]]:
        """Source j's splits (the last source's) with a positive weight, in lexicographic order (those after
        ``after``, where given), in chunks: each route's next amounts weighed at once (``Walk.profile``, one numpy
        pass) down to the last two routes, whose splits come out together; where the profile does not fit, split by
        split. Where the weights were read one split at a time, a source of 100 000 over a blocker that needs
        50 000 took seconds before its first rows."""
        lex = self._lex(j)
        m = lex.shape[1]
        if m < 2:
            yield from self._one_by_one(lex, walk, after)
            return
        D = int(lex[0].sum()) if len(lex) else 0

        def down(fixed: list[int]) -> Iterator[npt.NDArray[np.int64]]:
            c = len(fixed)
            tight = after is not None and tuple(fixed) == after[:c]
            P = walk.profile(fixed)
            if P is None:
                under = lex[(lex[:, :c] == np.array(fixed, dtype=np.int64)).all(axis=1)] if c else lex
                yield from self._one_by_one(under, walk, after)
                return
            vs = np.flatnonzero(P).astype(np.int64)
            if tight and after is not None:
                vs = vs[vs > after[c]] if c == m - 2 else vs[vs >= after[c]]
            if c == m - 2:
                out = np.empty((len(vs), m), dtype=np.int64)
                out[:, :c] = fixed
                out[:, c] = vs
                out[:, c + 1] = D - sum(fixed) - vs
                if len(out):
                    yield out
                return
            for v in vs.tolist():
                yield from down([*fixed, v])

        yield from down([])

    @staticmethod
    def _one_by_one(
        lex: npt.NDArray[np.int64], walk: Walk, after: tuple[int, ...] | None
    ) -> Iterator[npt.NDArray[np.int64]]:
        """The splits of ``lex`` (after ``after``) with a positive weight, weighed one at a time."""
        if after is not None:
            lex = lex[_lex_after(lex, after) :]
        kept = [a for a in lex.tolist() if walk.weighted(a, None)]
        if kept:
            yield np.array(kept, dtype=np.int64)

    def _lex(self, j: int) -> npt.NDArray[np.int64]:
        if j not in self._splits:
            src = self.plan.sources[self.component[j]]
            self._splits[j] = lex_compositions(src.damage, len(src.routes))
        return self._splits[j]

    def _rooted(self, splits: tuple[tuple[int, ...], ...], deadline: Deadline) -> Rooted | None:
        """The source programme rooted at ``splits`` where it builds within ROOT_WORK (and this level has not gone
        over before; every source fixed: always), else None."""
        j = len(splits)
        if j < len(self.component) and j in self._over:
            return None
        if self._kept is not None and self._kept[0] == splits:
            return self._kept[1]
        # the state the splits lead to: the last programme's where it is the same (the next splits of the deepest
        # source fixed often lead where the last one did: random_sharing(12, 14, 4) seed 3, 21 rooted programmes
        # in its first 10 M rows over 6 states), its rows then listed with these splits in their columns
        try:
            root = self._root_of(splits)
            if self._kept is not None and self._kept[2] == root:
                rooted: Rooted = Reprefixed(self._kept[1], splits)
            else:
                rooted = SourceProgramme(self.plan, self.component, deadline, ROOT_WORK, splits, self.prog.raw)
        except TooWide:
            self._over.add(j)
            return None
        self._kept = (splits, rooted, root)  # the first prefix's, met again when the walk starts past its rows
        return rooted

    def _root_of(self, splits: tuple[tuple[int, ...], ...]) -> tuple[int, int, int]:
        """``SourceProgramme.root_of(splits)``, read off the states of the splits after ``splits[:-1]``
        (:meth:`_roots_after`): the walk asks for the splits of one source after one prefix one after the other, and
        each walked from the first source took 0.5-1 ms (random_sharing(12, 14, 4) seed 3: 7 in its first 2^20
        rows, all after one prefix). :class:`~trample.engines.ordered.TooWide` as root_of."""
        if not splits:
            return SourceProgramme.root_of(self.plan, self.component, splits, self.prog.raw)
        roots = self._roots_after(splits[:-1])
        if roots is None:
            raise TooWide
        return roots(splits[-1])

    def _roots_after(self, head: tuple[tuple[int, ...], ...]) -> Callable[[Sequence[int]], tuple[int, int, int]] | None:
        """The states each split of the next source leads ``head`` to (``SourceProgramme.roots_after``; None where
        it is TooWide), kept for the last head asked."""
        if self._roots is None or self._roots[0] != head:
            try:
                roots = SourceProgramme.roots_after(self.plan, self.component, head, self.prog.raw)
            except TooWide:
                roots = None
            self._roots = (head, roots)
        return self._roots[1]


class Reprefixed:
    """A rooted programme's rows for other fixed splits that lead to the same state (``SourceProgramme.root_of``):
    the same rows, in the same order, with these splits in the fixed sources' columns (its lister re-headed:
    ``Lister.reheaded``, the tables and children shared)."""

    def __init__(self, rooted: Rooted, splits: tuple[tuple[int, ...], ...]) -> None:
        self.rooted: SourceProgramme = rooted.rooted if isinstance(rooted, Reprefixed) else rooted
        self.splits = splits
        self._listers: dict[str, Lister] = {}

    def count(self) -> int:
        return self.rooted.count()

    def blocks(
        self,
        rows: int = 1 << 16,
        dtype: npt.DTypeLike | None = None,
        deadline: Deadline | None = None,
        start: int = 0,
        first: int | None = None,
        into: npt.NDArray[Any] | None = None,
        spare: Spare | None = None,
    ) -> Iterator[npt.NDArray[Any]]:
        """The rooted programme's blocks with these splits in the fixed sources' columns, from row ``start`` (the first
        block ``first`` rows where given, written in ``into`` where given, the others in ``spare``'s, as
        ``SourceProgramme.blocks``)."""
        prog, deadline = self.rooted, deadline or NEVER
        dt = np.dtype(dtype) if dtype is not None else _dtype(prog.plan, prog.component)
        if len(self.splits) == len(prog.component):  # every source fixed: its one row, where it has one
            row = np.array([a for split in self.splits for a in split], dtype=dt).reshape(1, -1)
            return iter([row] if start < prog.count() else [])
        lister = self._listers.get(dt.str)
        if lister is None:
            lister = self._listers[dt.str] = prog.lister(dt).reheaded(self.splits, deadline)
        # the lister's own generator, not one around it: a frame of this one would hold ``into`` (a view of the
        # caller's block) to the listing's end, so its buffer would never be free for the spare to write again
        return lister.blocks(max(1, int(rows)), deadline, start, first, into, spare)


#: a prefix's rows: its own rooted programme, or another prefix's that leads to the same state
Rooted = SourceProgramme | Reprefixed


#: no rows: what blocks() holds between pieces, not the last piece (whose buffer the spare could not write again)
_NO_ROWS: npt.NDArray[Any] = np.zeros((0, 0), dtype=np.int8)


def _address(a: npt.NDArray[Any]) -> int:
    """Where an array's first item is in memory."""
    return int(a.__array_interface__["data"][0])


def _dtype(plan: DamagePlan, component: Sequence[int]) -> np.dtype[Any]:
    """The smallest integer type that holds every amount of the component's sources."""
    return np.dtype(np.min_scalar_type(-max([1, *(plan.sources[i].damage for i in component)])))


def _lex_after(lex: npt.NDArray[np.int64], split: tuple[int, ...]) -> int:
    """The position in ``lex`` (a source's splits in lexicographic order) of the first split after ``split``."""
    lo, hi = 0, len(lex)
    while lo < hi:  # bisection on the rows (tuples compare lexicographically)
        mid = (lo + hi) // 2
        if tuple(lex[mid].tolist()) <= split:
            lo = mid + 1
        else:
            hi = mid
    return lo


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


class _Plans:
    """The candidate plans of one rejoin's shape (:meth:`ConditionedProgramme._plan`), the one in use (the cheapest
    that finished, the estimated cheapest at first), the pairs it took last time and the next candidate to try."""

    __slots__ = ("joins", "best", "work", "next")

    def __init__(self, joins: list[list[tuple[int, int]]]):
        self.joins, self.best, self.work, self.next = joins, 0, 0, 1


def _tree_of(n: int, joins: list[tuple[int, int]]) -> frozenset[frozenset[int]]:
    """A plan's join tree: the tables each join holds (plans that join the same sets of tables are one)."""
    held = [frozenset([k]) for k in range(n)]
    tree = set()
    for a, b in joins:
        held[a] = held[a] | held[b]
        tree.add(held[a])
    return frozenset(tree)


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


__all__ = ["ConditionedProgramme", "PrefixLister"]


def settled_sums(
    dense: npt.NDArray[np.int64], axis: int, theirs: npt.NDArray[np.int64], mine: npt.NDArray[np.int64], need: int
) -> npt.NDArray[np.int64]:
    """``dense`` summed along ``axis`` (over a resource's states ``theirs``, sorted) into one entry per state of
    ``mine``: the weight of the states that, added to it, settle without breaking a gate (every source in: the
    final :func:`~trample.engines.elimination.sum_table`, not DEAD). That matrix is a threshold pattern: SAT meets
    anything; two totals meet when they reach the need together (c + c' >= need) or neither is flagged; UNSAT (final,
    short) meets SAT and the unflagged totals, never itself. So the sums are prefix sums over the totals, in
    O(states) memory, where the matrix has len(mine) x len(theirs) cells (a blocker that needs 50 000 on both sides:
    2.5 x 10^9)."""
    X = np.moveaxis(dense, axis, -1)
    num = theirs >= 0
    c = theirs[num] >> 1  # sorted: the states are c * 2 + flag
    vals = X[..., num]
    zero = np.zeros((*X.shape[:-1], 1), dtype=np.int64)
    every = np.concatenate([zero, np.cumsum(vals, axis=-1)], axis=-1)  # [..., k]: the first k totals
    clean = np.concatenate([zero, np.cumsum(vals * ((theirs[num] & 1) == 0), axis=-1)], axis=-1)  # unflagged
    sat = X[..., theirs == SAT].sum(axis=-1)
    unsat = X[..., theirs == UNSAT].sum(axis=-1)
    out = np.empty((*X.shape[:-1], len(mine)), dtype=np.int64)
    ours = mine >= 0
    k = np.searchsorted(c, need - (mine[ours] >> 1), side="left")  # the totals below what each still needs
    free = ((mine[ours] & 1) == 0).astype(np.int64)
    out[..., ours] = sat[..., None] + every[..., -1:] - every[..., k] + free * (unsat[..., None] + clean[..., k])
    out[..., mine == SAT] = (sat + unsat + every[..., -1])[..., None]
    out[..., mine == UNSAT] = (sat + clean[..., -1])[..., None]
    return np.moveaxis(out, -1, axis)
