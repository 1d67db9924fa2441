"""Rank and unrank in the canonical order with the tables of :mod:`~trample.engines.elimination`, a source at a time.

The canonical order (docs/scale.md) is lexicographic over a component's columns: sources in plan order, each
source's routes in plan order. Comparing two assignments, the first source whose splits differ decides, then the
first of its routes. So ranking and unranking need, for each source ``j`` in plan order, how many legal completions
(sources ``j+1..``) follow each choice of source ``j`` once the sources before it are fixed. That number depends on
the fixed sources only through their *cut*: the states of the resources that both a source before ``j`` and a
source from ``j`` on touch (the states of :mod:`~trample.engines.elimination`: damage so far capped below the need,
and the flag "a gated route naming it has received damage"; ``SAT``, ``UNSAT``).

:class:`SourceProgramme` builds, with the tables of the elimination programme (one per source, the same
``way_table``), the cut states reachable from the start, source by source (forwards, in numpy: a cut state joined
with each entry of the next source's table), and for each of them the number of completions (backwards: a weighted
sum over the next source's table). The column programme of :mod:`~trample.engines.direct` does the same a column
at a time in pure Python, with the current source's remaining damage and its partial sums in every state; here a
source's choices are one table, and its routes are only walked for the one source being ranked or unranked.

Within source ``j`` (its cut state known), the splits are walked route by route in plan order: the weighted number
of splits with the routes so far fixed and the next route at least ``v`` (each split weighted by the completions its
key leads to) is a sum over the resources' states of compositions with lower bounds, and the value of each route is
found by bisection on ``v``. Nothing is listed.

:class:`Lister` lists the rows in the canonical order with the same programme (``Lister.blocks``): depth first over
the sources, each prefix's children being the current source's splits whose table entry leads to a cut state with
completions, in numpy slices. It is how the direct engine lists a component of several sources, wherever the
programme is built within its limits (:func:`trample.engines.direct.component_lister`).

This is the programme of :func:`trample.indexing.rank`, :func:`~trample.indexing.unrank` and
:func:`~trample.indexing.sample` for components of several sources (:meth:`DirectEngine.programme`); a lone source
keeps the column programme (its frontier is one bit per gate, and its unrank is a few microseconds).
"""

from __future__ import annotations

import copy
import sys
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import accumulate, zip_longest
from math import ceil, comb, prod
from typing import Any

import numpy as np
import numpy.typing as npt

from ..limits import NEVER, Deadline
from ..rules import DamagePlan
from .by_source import compositions, last_at_least
from .elimination import (
    DEAD,
    DROP,
    EXACT_BOUND,
    INT64_SAFE,
    PAIRS,
    SAT,
    Budget,
    Graph,
    Keys,
    OverBudget,
    Rows,
    Weights,
    domain_size,
    gate_names,
    largest_weight,
    route_states,
    sum_table,
    unique,
    way_table,
    weights_of,
)

DENSE_SPAN = 1 << 24  # codes of a cut (the product of its radices) up to which its states are found by marking
INDEX_BYTES = 1 << 26  # bytes of the cuts' indices of codes (SourceProgramme.find) kept at most
DENSE_INDEX = 1 << 20  # a cut's codes are found by a table over their range up to this range (or 8 per code)
DENSE_FACTOR = 8
INSERT_STEP = 1 << 18  # codes put into a hash table between two looks at the clock
STATES_HELD = 1 << 21  # reached states of a cut beyond which a programme built under a work limit gives up
FIRST_PAIRS = 1 << 14  # pairs of the first slice of a forward step under a work limit (PAIRS: the full slice)
STEP_PAIRS = 1 << 26  # pairs of one step beyond which likewise (random_sharing(12, 14, 3) seed 5: 5.6e7)

#: live pairs (their places and codes, 16 bytes each) a build keeps from its forward steps for its backward ones
#: (SourceProgramme._live_pairs), summed over its steps: past it, a step's are not kept, and its backward step makes
#: its pair codes again
KEPT_PAIRS = 1 << 18
#: a forward step whose slice of pairs has more than 1 / LIVE_SHARE of them live codes the next slices whole
#: (_pair_codes: a gather per matrix, where a live pair's code costs several) and keeps none of its pairs
LIVE_SHARE = 8
GROUP_CELLS = 1 << 19  # cells (values of a group of the cut's resources x table entries) of one matrix of a join
PREPARE_CELLS = 1 << 23  # cells of one join matrix (or of its resources' sums) at most: past it, TooWide

#: :meth:`SourceProgramme._prepare`'s join of a cut with a source's table: the passing resources (column of the
#: cut, multiplier), the groups of the others (their columns, strides, matrix over (their values, table entry)),
#: and the code of a dead pair.
Prepared = tuple[list[tuple[int, int]], list[tuple[list[int], list[int], Any]], int]


def _scope(g: Graph, i: int) -> tuple[str, ...]:
    """The resources source ``i`` shares with another source of the component (its table's scope)."""
    return tuple(sorted(x for x in g.need if i in g.touchers[x] and len(g.touchers[x]) > 1))


def source_tables(
    plan: DamagePlan, component: tuple[int, ...], g: Graph, budget: Budget
) -> list[tuple[tuple[str, ...], Rows]]:
    """Each source's scope and table (the elimination programme's ``way_table``), made once per plan and component
    (the source programmes tried one after the other and the prefix lister's programme read the same), with the
    work they took spent again on a budget that finds them made (a bounded build refuses where it did)."""
    cache = plan.cache.of("direct-prepared")
    got: tuple[list[tuple[tuple[str, ...], Rows]], int] | None = cache.get(("tables", component))
    if got is not None:
        budget.spend(got[1])
        return got[0]
    before = budget.ops
    made = []
    for i in component:
        assert plan.sources[i].unblocked is None  # refused before (direct.refuse_options)
        scope = _scope(g, i)
        made.append((scope, way_table(g, plan.sources[i], scope, budget)))
    cache[("tables", component)] = (made, budget.ops - before)
    return made


class TooWide(Exception):
    """The cut of the plan order has too many resources to code its states in one int64, or the programme needs
    more work than the caller allowed (the caller falls back)."""


class SourceProgramme:
    """Count, rank and unrank of one component (no as-though-unblocked option), in the canonical order."""

    def __init__(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        deadline: Deadline | None = None,
        work_limit: int | None = None,
        prefix: Sequence[Sequence[int]] = (),
        tables: Sequence[Rows] | None = None,
        build: bool = True,
    ):
        """The programme of ``component``, built in three steps: each source's table (:meth:`_source_tables`), the
        cut states reached forwards (:meth:`_forward`), their completions backwards (:meth:`_backward`).
        ``work_limit``: :class:`TooWide` as well once building it has examined more pairs (and table steps).

        ``prefix``: the splits of the first sources held fixed (a *rooted* programme, for listing only: its count
        and its :class:`Lister`'s rows are those that begin with these splits; each fixed source's one state and
        its completions, the cuts after it reached from that state alone). ``tables``: the sources' tables
        (``way_table`` over each one's shared resources) when they are built already."""
        self.plan = plan
        self.component = tuple(component)
        self.prefix = tuple(tuple(int(a) for a in split) for split in prefix)
        self.columns = plan.component_columns(self.component)
        self.P = len(self.columns)
        self._budget = Budget(deadline or NEVER, work_limit)
        # the joins' matrices depend on the sources' tables and the cuts' resources, not on a prefix: every
        # programme of the component shares them (the prefix lister builds several rooted ones, plus the refusals)
        self._prep: dict[int, Prepared] = plan.cache.of("direct-prepared").setdefault(self.component, {})
        self._kidx: dict[int, dict[tuple[int, ...], int]] = {}
        #: per source, its legal splits and their table entries (Lister._splits), made once for the same tables
        self._split_of: dict[int, tuple[Keys, Keys]] = {}
        self._index: dict[int, _CodeIndex] = {}  # per level, the index of its reached states' codes (see find)
        self._listers: dict[str, Lister] = {}
        self._redo = 0  # pairs of the forward steps made, done again backwards (a bounded build's work, ahead)
        #: per level, the live pairs of its forward step (places, codes: _live_pairs), kept for its backward step
        self._live_kept: dict[int, tuple[Keys, Keys]] = {}
        self._kept_pairs = 0  # live pairs kept so far (KEPT_PAIRS at most)
        self.g = Graph(plan, self.component)
        self.scope: list[tuple[str, ...]] = []
        self.tkeys: list[Keys] = []
        self.tw: list[Weights] = []
        if not build:  # (root_of: the fixed sources' state alone)
            return
        try:
            self._build(tables)
        except OverBudget:
            raise TooWide from None
        self._budget.limit = None  # listing and ranking later have no such bound (the deadline still holds)

    @classmethod
    def root_of(
        cls, plan: DamagePlan, component: Sequence[int], prefix: Sequence[Sequence[int]], tables: Sequence[Rows]
    ) -> tuple[int, int, int]:
        """The state the fixed splits ``prefix`` lead to, without building the rest: (the number of fixed sources,
        the level reached, its one code; a dead prefix stops early with code -1). Everything a rooted programme
        holds past its prefix (its states, completions, the rows of its lister after the prefix's columns, and
        whether it builds within a work limit) depends on the prefix through this state alone. :class:`TooWide`
        where the build would refuse before that state."""
        prog = cls(plan, component, prefix=prefix, tables=tables, build=False)
        prog._source_tables(tables)
        try:
            prog._root()
        except OverBudget:
            raise TooWide from None  # (a join's matrix past its bound: the build refuses as well)
        last = prog.codes[-1]
        return len(prog.prefix), len(prog.codes) - 1, int(last[0]) if len(last) else -1

    @classmethod
    def roots_after(
        cls, plan: DamagePlan, component: Sequence[int], prefix: Sequence[Sequence[int]], tables: Sequence[Rows]
    ) -> Callable[[Sequence[int]], tuple[int, int, int]]:
        """:meth:`root_of` of the fixed splits ``prefix`` followed by each split of the next source (j = len(prefix)),
        for every entry of source j's table at once: one row of pair codes from the prefix's state, not a walk from
        the first source per split (the prefix lister asks for the splits of one source after the same prefix one
        after the other). :class:`TooWide` where the build would refuse before that state."""
        prog = cls(plan, component, prefix=prefix, tables=tables, build=False)
        prog._source_tables(tables)
        j = len(prog.prefix)
        try:
            prog._root()
            if len(prog.codes) <= j or not len(prog.codes[j]):  # the prefix itself is dead: so is every split after it
                return _RootsAfter(prog, j, None, (j + 1, len(prog.codes) - 1, -1))
            prog._next_cut(j)
            row = prog._pair_codes(j, prog._cut_states(j, 0, 1))[0]
        except OverBudget:
            raise TooWide from None
        return _RootsAfter(prog, j, row)

    def _build(self, tables: Sequence[Rows] | None = None) -> None:
        self._source_tables(tables)
        self._root()
        n, L = len(self.component), len(self.prefix)
        for j in range(len(self.codes) - 1, n):
            self._forward(j)
        # completions of each reached cut state, backwards
        self.G: list[Weights] = [np.zeros(0, dtype=np.int64) for _ in range(n + 1)]
        self.G[n] = np.ones(len(self.codes[n]), dtype=np.int64)
        for j in range(n - 1, L - 1, -1):
            self._backward(j)
        self._live_kept = {}  # (a build's only: the programme is kept, its pairs are not)
        for j in range(L - 1, -1, -1):  # a fixed source's one state: its one split's completions
            self.G[j] = self.G[j + 1][: len(self.codes[j])].copy()
        self._total = int(self.G[0][0]) if len(self.G[0]) else 0

    def _root(self) -> None:
        """The cuts after the fixed sources and the one state each fixed split leads to (none past a dead one)."""
        # the cut after sources 0..j-1: its resources, and the states reached (sorted codes)
        n = len(self.component)
        self.members = [frozenset(self.component[:j]) for j in range(n + 1)]
        self.cut: list[tuple[str, ...]] = [()]
        self.codes: list[Keys] = [np.zeros(1, dtype=np.int64)]
        for j in range(len(self.prefix)):
            self._next_cut(j)
            key = _Walk(self, j, {}).key(self.prefix[j])
            k = self._key_index(j, key)
            code = self._pair_codes(j, self._cut_states(j, 0, 1))[0, k : k + 1]
            live = bool(code[0] >= 0)
            self.codes.append(code if live else np.zeros(0, dtype=np.int64))
            if not live:
                break

    def _source_tables(self, tables: Sequence[Rows] | None = None) -> None:
        """Each source's table (the elimination programme's ``way_table``) over its scope: the resources it shares
        with another source of the component (``tables``: those tables, built already)."""
        made = source_tables(self.plan, self.component, self.g, self._budget) if tables is None else None
        if made is None:
            assert tables is not None
            made = [(_scope(self.g, i), rows) for i, rows in zip(self.component, tables)]
        # their keys and weights as arrays, made once for the same tables (every rooted programme reads them)
        cache = self.plan.cache.of("direct-prepared")
        ids = tuple(id(rows) for _, rows in made)
        got = cache.get(("arrays", self.component))
        if got is None or got[0] != ids:
            keys = [np.array(list(rows), dtype=np.int64).reshape(len(rows), len(scope)) for scope, rows in made]
            weights = [weights_of(list(r.values())) for _, r in made]
            got = cache[("arrays", self.component)] = (ids, made, keys, weights, {}, {})
        self.scope += [scope for scope, _ in made]
        self.tkeys += got[2]
        self.tw += got[3]
        # each table's key -> entry, made once as well: a rooted try (root_of, roots_after) reads a key per source
        self._kidx = got[4]
        # and each source's splits: every rooted programme's lister lists them (1.5-3 ms a lister on
        # random_sharing(12, 14, 4), most of its set-up)
        self._split_of = got[5]

    def _forward(self, j: int) -> None:
        """The cut after source ``j`` and the states it reaches: each reached state of the cut before it joined with
        each entry of source j's table, the live pairs found first and kept for :meth:`_backward` (:meth:`_live_pairs`).
        :class:`TooWide` when the cut's states do not fit in an int64 code."""
        g = self.g
        self._next_cut(j)
        radix = [2 * g.need[x] + 2 for x in self.cut[j + 1]]
        if float(np.prod(np.array(radix, dtype=float))) >= 2.0**60:
            raise TooWide
        pairs = len(self.codes[j]) * len(self.tkeys[j])
        limit = self._budget.limit
        # the work at the end of the build is at least what is spent, the forward steps so far done again backwards
        # and this step's pairs both ways: past the limit, the build would fail later (after this step's seconds)
        floor = self._budget.ops + self._redo + 2 * pairs
        if limit is not None and (floor > limit or pairs > STEP_PAIRS):
            raise OverBudget  # forwards, and backwards again: over the limit (or one step of a wide cut: seconds)
        self._redo += pairs
        if self._repeats(j):  # the same join of the same states as the step before: the same states again
            for _ in self._slices(j, 0, len(self.codes[j]), limit is not None):
                pass  # the work counted as the step would (a bounded build refuses where it did)
            if self._next_over(j, floor, len(self.codes[j])):
                raise OverBudget
            self.codes.append(self.codes[j])
            return
        span = int(np.prod(radix, dtype=np.int64)) if radix else 1
        if span <= DENSE_SPAN:  # the codes' range is narrow: marked, no sort
            present = np.zeros(span, dtype=bool)
            marked = 0  # at least the states marked so far (a state new twice in one slice counts twice)
            for code in self._live_pairs(j):
                marked += int(np.count_nonzero(~present[code]))
                present[code] = True
                if self._next_over(j, floor, marked):
                    marked = int(np.count_nonzero(present))
                    if self._next_over(j, floor, marked):
                        raise OverBudget
            self.codes.append(np.flatnonzero(present).astype(np.int64))
            return
        seen = _CodeSet(self._budget.check)
        for code in self._live_pairs(j):
            seen.add(code)
            if limit is not None and seen.count > STATES_HELD and seen.size() > STATES_HELD:
                raise OverBudget  # too many states for a bounded programme
            if self._next_over(j, floor, seen.count) and self._next_over(j, floor, seen.size()):
                raise OverBudget
        self._budget.check()
        self.codes.append(seen.sorted())

    def _repeats(self, j: int) -> bool:
        """Is the forward step of source ``j`` the step of source j - 1 again: the same states before it, the same
        cut after it and the same join (:meth:`_prepare`)? Then it reaches the same states. Identical sources on
        the same blockers (`6x6 all shared`: six tramplers blocked by the same six) reach every state of the cut
        after two or three of them, and each further step joined 26 M pairs (0.07-0.13 s) to find them again."""
        if j < 1 or self.cut[j + 1] != self.cut[j] or self.cut[j] != self.cut[j - 1] or len(self.prefix) >= j:
            return False
        if not np.array_equal(self.codes[j], self.codes[j - 1]):
            return False
        (pa, ma, da), (pb, mb, db) = self._prepare(j - 1), self._prepare(j)
        return (
            pa == pb
            and da == db
            and len(ma) == len(mb)
            and all(ga == gb and sa == sb and np.array_equal(xa, xb) for (ga, sa, xa), (gb, sb, xb) in zip(ma, mb))
        )

    def _next_over(self, j: int, floor: int, states: int) -> bool:
        """Would the next step's check refuse (:meth:`_forward`) once the cut after source ``j`` has ``states``
        states (those found so far: it will have at least as many), ``floor`` the build's work at least after this
        step? Then the step is given up at once, the verdict the same (a bounded build only)."""
        limit = self._budget.limit
        if limit is None or j + 1 >= len(self.component):
            return False
        pairs = states * len(self.tkeys[j + 1])
        return floor + 2 * pairs > limit or pairs > STEP_PAIRS

    def _next_cut(self, j: int) -> None:
        """The resources of the cut after source ``j``: those of the cut before it and of its table still open."""
        union = set(self.cut[j]) | set(self.scope[j])
        members = self.members[j + 1]
        self.cut.append(tuple(sorted(x for x in union if domain_size(self.g, x, members))))

    def _backward(self, j: int) -> None:
        """The completions of each reached state of the cut before source ``j``: the sum over source j's table of
        each entry's weight times the completions of the state it leads to (object integers past int64). Where
        the sums are not exact in float64 but the weights' are, the completions are cut in limbs that are
        (:func:`_limbs`), each limb's sums one BLAS product: `6x6 all shared`'s second source summed 26 M pairs
        of Python integers in 0.97 s, two limbs in float64 take about 0.1 s."""
        nxt = self.G[j + 1]
        tw = self.tw[j]
        big = nxt.dtype == object or tw.dtype == object
        big = big or largest_weight(nxt) * max(1, _sum(tw)) >= INT64_SAFE
        # exact in float64 (every partial sum an integer below 2^53): the weighted sums are one BLAS product
        exact = not big and largest_weight(nxt) * max(1, _sum(tw)) < EXACT_BOUND
        limbs = None if exact else _limbs(nxt, tw)
        if limbs is None:
            kind = object if big else np.float64 if exact else np.int64
            self.G[j] = self._weighted(j, [nxt], tw.astype(kind), kind)[0]
            return
        parts, bits = limbs
        sums = self._weighted(j, parts, tw.astype(np.float64), np.float64)
        out_g = sums[0].astype(object) if big else sums[0]
        for k, part in enumerate(sums[1:], 1):
            out_g += (part.astype(object) if big else part) << (bits * k)  # |each term| <= nxt's largest x the sum
        self.G[j] = out_g

    def _weighted(self, j: int, nxts: Sequence[Weights], w: Weights, kind: Any) -> list[Weights]:
        """For each array of ``nxts`` (values at the reached states of the cut after source ``j``) and each reached
        state of the cut before it, the sum over source j's table of the weight ``w`` of each entry times the
        value at the state it leads to: computed in ``kind`` (float64 must be exact: rounded), in int64 (object for
        objects), one walk over the pairs for all of them."""
        big = kind is object
        kept = self._live_kept.pop(j, None)
        if kept is not None and not big:
            for _ in self._slices(j, 0, len(self.codes[j])):
                pass  # the work counted as the walk over the pairs would (a bounded build refuses where it did)
            return self._weighted_live(j, kept, nxts, w, kind)
        outs = [np.zeros(len(self.codes[j]), dtype=object if big else np.int64) for _ in nxts]
        index = self._index_of(j + 1)
        lo_code = index.lo
        gtabs = []
        for nxt in nxts:
            if index.table is not None:  # the completions over the codes' range: one gather per pair
                gtab = np.zeros(len(index.table), dtype=kind)
                gtab[self.codes[j + 1] - lo_code] = nxt
            else:  # by position, 0 in front for the codes not reached
                gtab = np.concatenate([np.zeros(1, dtype=kind), nxt.astype(kind)])
            gtabs.append(gtab)
        room = _scratch()  # the completions gathered per pair, written over each slice's (not for objects)
        for lo, code in self._pairs(j, 0, len(self.codes[j])):
            out = room[: code.size * 8].view(kind).reshape(code.shape) if not big and code.size <= PAIRS else None
            if index.table is not None:
                code -= lo_code
                at = code
            else:
                at = index.find(code)
                at += 1
            for gtab, out_g in zip(gtabs, outs):
                vals = gtab.take(at, mode="clip", out=out)
                part = (vals * w[None, :]).sum(axis=1) if big else vals @ w
                out_g[lo : lo + len(code)] = np.rint(part) if kind is np.float64 else part
            self._budget.check()
        _given(room)
        return outs

    def _weighted_live(
        self, j: int, kept: tuple[Keys, Keys], nxts: Sequence[Weights], w: Weights, kind: Any
    ) -> list[Weights]:
        """:meth:`_weighted` from the live pairs its forward step kept (:meth:`_live_pairs`): each one's state of
        the cut after source j looked up, its value times its entry's weight summed per state of the cut before it
        (in float64 by ``np.bincount``, exact as the products are: every partial sum an integer below 2^53; in int64
        by ``np.add.at``). The dead pairs, most of them where the source closes resources, cost nothing."""
        places, code = kept
        row, ent = np.divmod(places, max(1, len(self.tkeys[j])))
        at = self._index_of(j + 1).find(code)
        wt = w[ent]
        n = len(self.codes[j])
        outs: list[Weights] = []
        for nxt in nxts:
            vals = np.asarray(nxt).take(at).astype(kind) * wt
            if kind is np.float64:
                outs.append(np.rint(np.bincount(row, weights=vals, minlength=n)).astype(np.int64))
            else:
                out = np.zeros(n, dtype=np.int64)
                np.add.at(out, row, vals)
                outs.append(out)
        self._budget.check()
        return outs

    # -- joins of cut states with a source's table ---------------------------------------------------------------
    def _prepare(self, j: int) -> Prepared:
        """For the join of the cut after sources 0..j-1 with source j's table, the code of a pair split in parts
        (:data:`Prepared`): the resources source j does not touch pass as they are (a multiplier per column of the
        cut state); every other resource's state in the next cut, or dead, depends on both sides, and these are
        grouped (in cut order, as many as keep a group's matrix within GROUP_CELLS) into matrices over (the
        group's values in the cut state, table entry), each the sum of its resources' coded states (dead:
        ``dead``), the resources only source j holds added into the first."""
        cache = self._prep
        if j in cache:
            return cache[j]
        g = self.g
        members = self.members[j + 1]
        cut, scope, nxt = self.cut[j], self.scope[j], self.cut[j + 1]
        tk = self.tkeys[j]
        mult: dict[str, int] = {}
        m = 1
        for x in reversed(nxt):
            mult[x] = m
            m *= 2 * g.need[x] + 2
        dead = -(1 << 61)
        passing = [(c, mult[x]) for c, x in enumerate(cut) if x not in scope]  # untouched by source j
        both = [c for c, x in enumerate(cut) if x in scope]
        width = max(1, len(tk))
        groups: list[list[int]] = [[]]
        cells = width
        for c in both:
            r = 2 * g.need[cut[c]] + 2
            if groups[-1] and cells * r > GROUP_CELLS:
                groups.append([])
                cells = width
            groups[-1].append(c)
            cells *= r
        matrices: list[tuple[list[int], list[int], Keys]] = []
        for k, group in enumerate(groups):
            radix = [2 * g.need[cut[c]] + 2 for c in group]
            size = int(np.prod(radix, dtype=np.int64)) if group else 1
            if size * max([width, *(2 * g.need[x] + 2 for x in scope)]) > PREPARE_CELLS:
                raise OverBudget  # one resource's states alone past it (a blocker that needs 50 000: 37 GB)
            mat = np.zeros((size, len(tk)), dtype=np.int64)
            index = np.arange(size, dtype=np.int64)
            stride = [int(np.prod(radix[q + 1 :], dtype=np.int64)) for q in range(len(group))]
            # per resource, each row's value of it (its digit); None: source j's alone (a row of its table's)
            xs: list[tuple[str, Keys | None]] = [(cut[c], index // s % r) for c, s, r in zip(group, stride, radix)]
            if k == 0:
                xs += [(x, None) for x in scope if x not in cut]
            for x, digit in xs:
                # the sums of the resource's own states alone (2 * need + 2 of them, a row each), gathered into the
                # group's rows by its digit: not summed again for every combination of the group's other resources
                ub = np.arange(-2, 2 * g.need[x], dtype=np.int64)
                t = sum_table(g, x, members, ub if digit is not None else np.zeros(1, dtype=np.int64), ub)
                t = np.where(t == DEAD, dead, np.where(t == DROP, 0, (t + 2) * mult.get(x, 0)))
                t = np.take(t, tk[:, scope.index(x)] + 2, axis=1)
                mat += np.take(t, digit, axis=0) if digit is not None else t
                np.maximum(mat, dead, out=mat)
            matrices.append((group, stride, mat))
        cache[j] = (passing, matrices, dead)
        return cache[j]

    def _cut_states(self, j: int, lo: int, hi: int) -> Keys:
        """The states (rows over ``self.cut[j]``) of the reached cut states lo..hi-1."""
        return self._decode(j, self.codes[j][lo:hi].copy())

    def _decode(self, j: int, code: Keys) -> Keys:
        """The states (rows over ``self.cut[j]``) of cut codes (a fresh array: it is overwritten). Each digit by a
        floor division by the radix (numpy divides by a scalar through libdivide: 10x ``np.divmod``'s speed) and the
        remainder from it, written column by column into a column-major array (its columns, all the callers read,
        contiguous): the slowest rooted build in random_sharing(12, 14, 4) seed 8's first 2^20 rows, 15.4 -> 12.8 ms."""
        radix = [2 * self.g.need[x] + 2 for x in self.cut[j]]
        keys = np.empty((len(radix), len(code)), dtype=np.int64)
        quot = np.empty_like(code)
        for k in range(len(radix) - 1, -1, -1):
            np.floor_divide(code, radix[k], out=quot)
            digit = keys[k]
            np.multiply(quot, -radix[k], out=digit)
            digit += code  # code - radix * quotient: the remainder (codes are not negative)
            code, quot = quot, code
        keys -= 2
        rows: Keys = keys.T
        return rows

    def _pair_codes(self, j: int, a: Keys, room: Sequence[npt.NDArray[np.uint8]] = ()) -> Keys:
        """Codes in the next cut of every (cut state row of ``a``, entry of source j's table); negative: dead. The
        rows of the groups' matrices (:meth:`_prepare`) gathered and summed, the passing resources' part added.
        ``room``: two buffers (:func:`_scratch`) where the codes are written, where they fit; else new arrays."""
        passing, matrices, dead = self._prepare(j)
        shape = (len(a), max(1, len(self.tkeys[j])))
        fits = len(room) == 2 and shape[0] * shape[1] * 8 <= len(room[0])
        code: Keys | None = None
        for group, stride, mat in matrices:
            r = np.zeros(len(a), dtype=np.int64)
            for c, s in zip(group, stride):
                r += (a[:, c] + 2) * s
            out = room[code is not None][: shape[0] * shape[1] * 8].view(np.int64).reshape(shape) if fits else None
            got = np.take(mat, r, axis=0, out=out, mode="clip")
            if code is None:
                code = got
            else:
                code += got
                np.maximum(code, dead, out=code)
        assert code is not None
        if passing:
            row = np.zeros(len(a), dtype=np.int64)
            for c, m in passing:
                row += (a[:, c] + 2) * m
            code += row[:, None]  # dead stays negative: the live part of a code is below 2^60
        return code

    def _pairs(self, j: int, lo: int, hi: int, grow: bool = False) -> Iterator[tuple[int, Keys]]:
        """The pair codes of cut states lo..hi-1 with source j's table, in slices of at most PAIRS pairs; ``grow``:
        the first slices smaller (FIRST_PAIRS pairs, doubled each time), so a bounded build that refuses after the
        states of the first pairs refuses before most of their work. Each slice's codes are written over the last
        one's (two buffers taken from :data:`_SCRATCH` for the walk and given back after): valid until the next."""
        room = [_scratch(), _scratch()]
        try:
            for a, b in self._slices(j, lo, hi, grow):
                yield a, self._pair_codes(j, self._cut_states(j, a, b), room)
        finally:
            _given(*room)

    def _live_pairs(self, j: int) -> Iterator[Keys]:
        """The codes of the live pairs of source j's forward step (every reached state of the cut before it with
        every entry of its table, in :meth:`_pairs`'s growing slices), a slice at a time, found by :meth:`_live`;
        their places and codes kept for the backward step (:meth:`_weighted`) while the build's kept pairs stay
        within KEPT_PAIRS. Where a slice is mostly live (LIVE_SHARE), the rest are coded whole, as before, and
        none kept. random_sharing(12, 14, 4) seed 8's rooted programmes join 984 261 pairs at their seventh
        source, of which 1 343 live (the resources it closes must end settled): each pair's code was made both
        ways, and looked up backwards, dead or not."""
        width = max(1, len(self.tkeys[j]))
        room = [_scratch(), _scratch()]
        places: list[Keys] = []
        codes: list[Keys] = []
        kept = 0
        dense = False  # a slice's pairs mostly live: the next ones coded whole (_pair_codes), none kept
        try:
            for a, b in self._slices(j, 0, len(self.codes[j]), True):  # (a small first slice: the share of live pairs)
                if dense:
                    code = self._pair_codes(j, self._cut_states(j, a, b), room)
                    yield code[code >= 0]
                    continue
                flat, code = self._live(j, self._cut_states(j, a, b), room)
                dense = len(code) * LIVE_SHARE > (b - a) * width
                if dense:
                    places, codes, kept = [], [], -1
                if kept >= 0 and self._kept_pairs + kept + len(code) <= KEPT_PAIRS:
                    flat += a * width  # (a new array: its places in the whole step)
                    places.append(flat)
                    codes.append(code)
                    kept += len(code)
                else:
                    places, codes, kept = [], [], -1  # past the bound: this step's pairs made again backwards
                yield code
        finally:
            _given(*room)
        if kept >= 0:
            if len(places) == 1:  # (one slice: its arrays as they are)
                self._live_kept[j] = (places[0], codes[0])
            else:
                empty = np.zeros(0, dtype=np.int64)
                self._live_kept[j] = (np.concatenate([empty, *places]), np.concatenate([empty, *codes]))
            self._kept_pairs += kept

    def _live(self, j: int, a: Keys, room: Sequence[npt.NDArray[np.uint8]]) -> tuple[Keys, Keys]:
        """The live pairs of the cut state rows ``a`` with source j's table: their places (row x entries + entry,
        in order) and codes, those of :meth:`_pair_codes` that are not negative. A pair is live where its cell in
        every join matrix of :meth:`_prepare` is (a dead cell is negative, a live one not), so the matrices' rows
        are gathered as booleans (a byte a pair, into the buffers ``room``, two of :func:`_scratch`) and ANDed, and
        only the live pairs' cells gathered and summed."""
        passing, matrices, _ = self._prepare(j)
        yes = self._yes(j)
        width = max(1, len(self.tkeys[j]))
        size = len(a) * width
        fits = len(room) == 2 and size <= len(room[0])
        live: npt.NDArray[np.bool_] | None = None
        rows: list[Keys] = []
        for (group, stride, _), ok in zip(matrices, yes):
            r = np.zeros(len(a), dtype=np.int64)
            for c, s in zip(group, stride):
                r += (a[:, c] + 2) * s
            rows.append(r)
            out = room[live is not None][:size].view(np.bool_).reshape(len(a), -1) if fits else None
            got = np.take(ok, r, axis=0, out=out, mode="clip")
            live = got if live is None else np.logical_and(live, got, out=live)
        assert live is not None
        flat = np.flatnonzero(live)
        row, ent = np.divmod(flat, width)
        code = np.zeros(len(flat), dtype=np.int64)
        for (_, _, mat), r in zip(matrices, rows):
            code += mat.reshape(-1).take(r[row] * width + ent)
        if passing:
            part = np.zeros(len(a), dtype=np.int64)
            for c, m in passing:
                part += (a[:, c] + 2) * m
            code += part[row]
        return flat, code

    def _yes(self, j: int) -> list[npt.NDArray[np.bool_]]:
        """The join matrices of source j (:meth:`_prepare`) as booleans: live cells. Shared as the matrices are."""
        cache = self.plan.cache.of("direct-live").setdefault(self.component, {})
        got: list[npt.NDArray[np.bool_]] | None = cache.get(j)
        if got is None:
            got = cache[j] = [mat >= 0 for _, _, mat in self._prepare(j)[1]]
        return got

    def _slices(self, j: int, lo: int, hi: int, grow: bool = False) -> Iterator[tuple[int, int]]:
        """The slices of cut states of :meth:`_pairs`, each one's pairs spent on the budget before it is given."""
        width = max(1, len(self.tkeys[j]))
        full = max(1, PAIRS // width)
        step = max(1, min(full, FIRST_PAIRS // width)) if grow else full
        a = lo
        while a < hi:
            b = min(hi, a + step)
            self._budget.spend((b - a) * len(self.tkeys[j]))
            yield a, b
            a, step = b, min(full, 2 * step)

    def find(self, j: int, code: Keys) -> Keys:
        """Where each code is among the reached states of the cut before source ``j`` (-1: not reached, or dead):
        by a table over the codes' range where it is narrow, else by hashing (:class:`_CodeIndex`, cached in
        INDEX_BYTES)."""
        return self._index_of(j).find(code)

    def _index_of(self, j: int) -> _CodeIndex:
        cache = self._index
        index = cache.pop(j, None)
        if index is None:
            index = _CodeIndex(self.codes[j], self._budget.check)
            while cache and sum(x.nbytes for x in cache.values()) + index.nbytes > INDEX_BYTES:
                del cache[next(iter(cache))]  # the least recently used
        cache[j] = index
        return index

    # -- the Programme interface ----------------------------------------------------------------------------------
    def count(self) -> int:
        return self._total

    def _weights_of(self, j: int, state: int) -> Rows:
        """Source j's table keys -> completions after it, from the cut state at index ``state``."""
        at = self.find(j + 1, self._pair_codes(j, self._cut_states(j, state, state + 1))[0])
        out: Rows = {}
        for k, a in enumerate(at.tolist()):
            if a >= 0:
                out[tuple(self.tkeys[j][k].tolist())] = int(self.G[j + 1][a])
        return out

    def _next_state(self, j: int, state: int, key: tuple[int, ...]) -> int:
        k = self._key_index(j, key)
        code = self._pair_codes(j, self._cut_states(j, state, state + 1))[0, k : k + 1]
        return int(self.find(j + 1, code)[0])

    def _key_index(self, j: int, key: tuple[int, ...]) -> int:
        index = self._kidx
        if j not in index:
            index[j] = {tuple(r): k for k, r in enumerate(self.tkeys[j].tolist())}
        return index[j][key]

    def lister(self, dtype: npt.DTypeLike = np.int64) -> Lister:
        """The (cached) :class:`Lister` of this component's rows, of integer type ``dtype``; :class:`TooMany` when a
        source has too many splits to list."""
        dt = np.dtype(dtype)
        if dt.str not in self._listers:
            self._listers[dt.str] = Lister(self, dt)
        return self._listers[dt.str]

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
        """Every legal vector exactly once, in the canonical order, from index ``start``, as integer matrices of
        ``rows`` rows (the last one shorter; the first one ``first`` rows where given, written in ``into`` where
        given, its blocks made in ``spare``'s where given: :meth:`Lister.blocks`); ``deadline``: checked at every
        step of the walk."""
        if dtype is None:
            dtype = np.min_scalar_type(-max([1, *(self.plan.sources[i].damage for i in self.component)]))
        return self.lister(dtype).blocks(max(1, int(rows)), deadline or NEVER, start, first, into, spare)

    def unrank(self, index: int) -> tuple[int, ...]:
        if not 0 <= index < self._total:
            raise IndexError(index)
        out: list[int] = []
        state = 0
        for j in range(len(self.component)):
            W = self._weights_of(j, state)
            walk = _Walk(self, j, W)
            amounts, index = walk.unrank(index)
            out.extend(amounts)
            state = self._next_state(j, state, walk.key(amounts))
        return tuple(out)

    def rank(self, vector: Sequence[int]) -> int | None:
        if len(vector) != self.P or any(v < 0 for v in vector):
            return None
        index, state, at = 0, 0, 0
        for j, i in enumerate(self.component):
            m = len(self.plan.sources[i].routes)
            amounts = list(vector[at : at + m])
            at += m
            W = self._weights_of(j, state)
            walk = _Walk(self, j, W)
            below = walk.rank(amounts)
            if below is None:
                return None
            index += below
            state = self._next_state(j, state, walk.key(amounts))
        return index


#: rows (a source's splits, by the states of their routes) weighed at once in numpy by the walk; past it, the routes'
#: states in a dict (route_states)
VECTOR_ROWS = 1 << 20
#: rows from which they are weighed in numpy (fewer: in dicts, as numpy's overhead per call is larger), and the damage
#: left from which a route's amounts are weighed in one pass (:meth:`_Walk.profile`) rather than by bisection
VECTOR_FROM = 256


def _sum(w: Weights) -> int:
    return int(sum(abs(v) for v in w.tolist())) if w.dtype == object else int(np.abs(w).sum())


LIMB_BITS = 16  # bits a limb of :func:`_limbs` holds at least (fewer: the limbs would be many; object sums instead)


def _limbs(nxt: Weights, tw: Weights) -> tuple[list[Weights], int] | None:
    """Completions ``nxt`` (non-negative) cut in limbs of ``bits`` bits each, least significant first, so that
    every sum of a limb weighted by ``tw`` is exact in float64 (a limb's largest times the weights' absolute sum
    below 2^53): ``nxt`` is the sum of limb k shifted left by k * bits. None where the weights are too large for
    limbs of LIMB_BITS, or ``nxt`` has a negative value."""
    if tw.dtype == object or not len(nxt):
        return None
    bits = EXACT_BOUND.bit_length() - 1 - max(1, _sum(tw)).bit_length()
    if bits < LIMB_BITS:
        return None
    if nxt.dtype == object:
        if min(nxt.tolist()) < 0:
            return None
        top = max(nxt.tolist())
    elif int(nxt.min()) < 0:
        return None
    else:
        top = int(nxt.max())
    mask = (1 << bits) - 1
    parts = [((nxt >> (bits * k)) & mask).astype(np.float64) for k in range(max(1, -(-int(top).bit_length() // bits)))]
    return parts, bits


class _Walk:
    """The splits of one source in lexicographic order of its routes, each weighted by ``W[key]`` (its key: the
    states of the shared resources it leads to, as in ``way_table``)."""

    def __init__(self, prog: SourceProgramme, j: int, W: Rows):
        g = prog.g
        self.g, self.W = g, W
        # the caller's clock, where the programme holds one (the prefix-fixed programme's): a split's weights take
        # tens of milliseconds on a blocker that needs 50 000 (its totals one by one)
        self.deadline: Deadline | None = getattr(prog, "deadline", None)
        self.src = src = prog.plan.sources[prog.component[j]]
        self.scope = prog.scope[j]
        self.at = {x: k for k, x in enumerate(self.scope)}
        self.routes = src.routes
        self.D = src.damage
        self.gates = [gate_names(r, g.need) for r in self.routes]
        plan = prog.plan
        # 702.2c: one point from a deathtouch source is lethal damage (not loyalty, 702.19c)
        self.low = [
            (1 if (src.deathtouch and r.recipient in plan.lethal_need) else g.need[r.recipient])
            if r.recipient in g.need
            else 0
            for r in self.routes
        ]
        self._table: tuple[Keys, Weights, list[int]] | bool | None = None  # W coded (see _codes), made when used

    def key(self, amounts: Sequence[int]) -> tuple[int, ...]:
        """The key of one split (its states over the shared resources)."""
        positive = {r.recipient for r, a, gt in zip(self.routes, amounts, self.gates) if gt and a > 0}
        asked = {x for r, gt in zip(self.routes, self.gates) if r.recipient in positive for x in gt}
        key = [1 if x in asked else 0 for x in self.scope]
        for r, a, lo in zip(self.routes, amounts, self.low):
            if r.recipient in self.at:
                k = self.at[r.recipient]
                key[k] = SAT if a >= lo else (a << 1) | key[k]
        return tuple(key)

    def weighted(self, fixed: Sequence[int], lower: int | None) -> int:
        """The weighted number of splits whose first routes are ``fixed`` and whose next route (when ``lower`` is
        given) is at least ``lower`` (the routes after: anything)."""
        if self.deadline:
            self.deadline.check()
        if sum(fixed) > self.D:
            return 0
        total = 0
        for pos in self._masks(fixed, True if lower is not None and lower > 0 else None):
            total += self._one(fixed, lower, pos)
        return total

    def _masks(self, fixed: Sequence[int], nxt: bool | None) -> Iterator[list[bool]]:
        """Each gated route positive or zero: the first ones as ``fixed`` has them, the next one as ``nxt`` says
        (None: either), the others both ways (every combination once)."""
        c = len(fixed)
        known: list[bool | None] = []
        for t, gt in enumerate(self.gates):
            if not gt:
                known.append(None)
            elif t < c:
                known.append(fixed[t] > 0)
            elif t == c:
                known.append(nxt)
            else:
                known.append(None)
        free_gated = [t for t, gt in enumerate(self.gates) if gt and known[t] is None]
        for mask in range(1 << len(free_gated)):
            pos = [bool(known[t]) if self.gates[t] else False for t in range(len(self.routes))]
            for b, t in enumerate(free_gated):
                pos[t] = bool(mask >> b & 1)
            yield pos

    def _routes(
        self, fixed: Sequence[int], lower: int | None, pos: list[bool], values: Keys | None = None
    ) -> tuple[list[int], int, int, list[_Option], Keys | None] | None:
        """The routes of the splits counted by :meth:`_one` (``pos``: which gated routes are positive): the states
        the fixed routes lead to, the damage and free parts taken so far, and per route left to a shared resource its
        options as arrays (scope position, states, damage, parts). ``values``: the next route's amounts, one count
        each (:meth:`profile`; returned, those that may be taken). None: no split."""
        g, routes, D = self.g, self.routes, self.D
        c = len(fixed)
        asked: set[str] = set()
        for t, gt in enumerate(self.gates):
            if gt and pos[t]:
                asked.update(gt)
        recipients = {r.recipient for r in routes}
        if any(x not in self.at and x not in recipients for x in asked):
            return None  # a private resource must end lethal / loyal but this source cannot feed it
        start = [1 if x in asked else 0 for x in self.scope]
        shift = parts = 0
        options: list[_Option] = []
        for t, r in enumerate(routes):
            x = r.recipient
            gated = bool(self.gates[t])
            low = self.low[t]
            private_need = x in g.need and x not in self.at
            if t == c and values is not None:  # the next route's amounts, one by one (their order kept)
                if gated:
                    values = values[(values > 0) == pos[t]]
                if private_need and x in asked:
                    values = values[values >= low]
                if x in self.at:
                    k = self.at[x]
                    states = np.where(values >= low, SAT, (values << 1) | start[k])
                    options.append(_Option(k, (states, values, np.zeros(len(values), dtype=np.int64))))
                else:
                    options.append(_Option(-1, (values, values, np.zeros(len(values), dtype=np.int64))))
                continue
            if t < c or (gated and not pos[t] and (t > c or lower is None or lower == 0)):
                a = fixed[t] if t < c else 0  # fixed, or a gated route held at 0
                if gated and (a > 0) != pos[t]:
                    return None
                if private_need and x in asked and a < low:
                    return None
                shift += a
                if x in self.at:
                    k = self.at[x]
                    start[k] = SAT if a >= low else (a << 1) | start[k]
                continue
            lb = 1 if gated else 0
            if t == c and lower is not None:
                lb = max(lb, lower)
            if x not in g.need:
                shift, parts = shift + lb, parts + 1
                continue
            if private_need:
                shift, parts = shift + (max(low, lb) if x in asked else lb), parts + 1
                continue
            options.append(_Option(self.at[x], None, (lb, min(low, D + 1), 1 if x in asked else 0, max(low, lb))))
        if shift > D:
            return None
        return start, shift, parts, options, values

    def _one(self, fixed: Sequence[int], lower: int | None, pos: list[bool]) -> int:
        routes = self._routes(fixed, lower, pos)
        if routes is None:
            return 0
        start, shift, parts, options, _ = routes
        if not options:  # every route fixed: one state
            return self.W.get(tuple(start), 0) * compositions(self.D - shift, parts)
        if prod(o.size for o in options) >= VECTOR_FROM:
            got = self._weigh(start, shift, parts, options)
            if got is not None:
                return int(got.sum())
        # few rows (numpy's overhead), more than VECTOR_ROWS, or states past an int64 code: the states in a dict
        opts = [(o.k, o.listed()) for o in options]
        partial = route_states(start, shift, parts, opts, self.D)
        total = 0
        for (state, sh, pa), w in partial.items():
            weight = self.W.get(state, 0)
            if weight:
                total += weight * w * compositions(self.D - sh, pa)
        return total

    def _weigh(
        self, start: list[int], shift: int, parts: int, options: list[_Option], tagged: int = 0
    ) -> Weights | None:
        """The weighted counts of the splits these routes make (every option of every route, in numpy): summed, or
        per option of the first ``tagged`` route (its options in order, :meth:`profile`). None past VECTOR_ROWS
        rows or where a state's code does not fit in an int64."""
        table = self._codes()
        if table is None or prod(o.size for o in options) > VECTOR_ROWS:
            return None
        codes, vals, mult = table
        code = np.full(1, sum((s + 2) * m for s, m in zip(start, mult)), dtype=np.int64)
        sh = np.full(1, shift, dtype=np.int64)
        pa = np.full(1, parts, dtype=np.int64)
        tag = np.zeros(1, dtype=np.int64)
        for r, o in enumerate(options):
            k, (states, d, p) = o.k, o.arrays()
            m = len(states)
            if r < tagged:
                tag = np.arange(m, dtype=np.int64)
            else:
                tag = np.repeat(tag, m)
            change = np.zeros(m, dtype=np.int64) if k < 0 else (states - start[k]) * mult[k]
            code = (code[:, None] + change[None, :]).reshape(-1)
            sh = (sh[:, None] + d[None, :]).reshape(-1)
            pa = (pa[:, None] + p[None, :]).reshape(-1)
            keep = sh <= self.D
            code, sh, pa, tag = code[keep], sh[keep], pa[keep], tag[keep]
        at = np.searchsorted(codes, code)
        at[at == len(codes)] = 0
        hit = codes[at] == code if len(codes) else np.zeros(len(code), dtype=bool)
        w = np.where(hit, vals[at], 0) if len(codes) else np.zeros(len(code), dtype=np.int64)
        ways = _compositions(self.D - sh, pa)
        big = w.dtype == object or ways.dtype == object
        if not big and largest_weight(w) * largest_weight(ways) * max(1, len(w)) >= INT64_SAFE:
            big = True
        each = w.astype(object) * ways.astype(object) if big else w * ways
        if not tagged:
            return np.array([each.sum()], dtype=object if big else np.int64)
        out = np.zeros(options[0].size, dtype=object if big else np.int64)
        if len(tag):
            first = np.flatnonzero(np.r_[True, tag[1:] != tag[:-1]])
            out[tag[first]] = np.add.reduceat(each, first)
        return out

    def _codes(self) -> tuple[Keys, Weights, list[int]] | None:
        """``W`` as sorted codes of its keys (mixed radix over the scope, as the programmes code them), their
        weights in that order and each resource's multiplier; None when a code would not fit in an int64."""
        if self._table is None:
            radix = [2 * self.g.need[x] + 2 for x in self.scope]
            if float(np.prod(np.array(radix, dtype=float))) >= 2.0**62:
                self._table = False
                return None
            mult = [int(np.prod(radix[k + 1 :], dtype=np.int64)) for k in range(len(radix))]
            keys = np.array(list(self.W), dtype=np.int64).reshape(len(self.W), len(self.scope))
            code = (keys + 2) @ np.array(mult, dtype=np.int64) if len(mult) else np.zeros(len(keys), dtype=np.int64)
            order = np.argsort(code, kind="stable")
            self._table = (code[order], weights_of(list(self.W.values()))[order], mult)
        return self._table if isinstance(self._table, tuple) else None

    def profile(self, fixed: Sequence[int]) -> Weights | None:
        """``P[v]``: the weighted number of splits whose first routes are ``fixed`` and whose next route is ``v``,
        for every ``v`` from 0 to the damage left (one numpy pass where the rows fit; None where they do not)."""
        rem = self.D - sum(fixed)
        c = len(fixed)
        if rem < 0 or c >= len(self.routes):
            return None
        every = np.arange(rem + 1, dtype=np.int64)
        out: Weights = np.zeros(rem + 1, dtype=np.int64)
        sides = [(every[:1], False), (every[1:], True)] if self.gates[c] else [(every, None)]
        for values, nxt in sides:
            for pos in self._masks(fixed, nxt):
                routes = self._routes(fixed, None, pos, values)
                if routes is None:
                    continue
                start, shift, parts, options, taken = routes
                assert taken is not None
                got = self._weigh(start, shift, parts, options, tagged=1)
                if got is None:
                    return None
                if got.dtype == object and out.dtype != object:
                    out = out.astype(object)
                out[taken] += got if out.dtype == object or got.dtype != object else got.astype(np.int64)
        if self.deadline:
            self.deadline.check()
        return out

    def unrank(self, index: int) -> tuple[list[int], int]:
        """The split at ``index`` of the weighted order, and the index left for the sources after it."""
        amounts: list[int] = []
        m = len(self.routes)
        for _ in range(m - 1):
            P = self.profile(amounts) if self.D - sum(amounts) >= VECTOR_FROM else None
            if P is not None:  # the largest v with (splits with this route < v) <= index, from prefix sums
                before = [0, *accumulate(P.tolist())][:-1]
                v = bisect_right(before, index) - 1
                index -= before[v]
                amounts.append(v)
                continue
            rem = self.D - sum(amounts)
            total = self.weighted(amounts, 0)
            # the largest v with (splits with this route < v) <= index
            lo = last_at_least(0, rem, partial(self.weighted, amounts), total - index)
            index -= total - self.weighted(amounts, lo)
            amounts.append(lo)
        if m:
            amounts.append(self.D - sum(amounts))
        return amounts, index

    def rank(self, amounts: Sequence[int]) -> int | None:
        """The weighted number of splits before ``amounts``; None when it is not a legal split with completions."""
        if sum(amounts) != self.D or not self.weighted(amounts, None):
            return None
        below = 0
        for c in range(len(amounts) - 1):
            if amounts[c]:
                P = self.profile(amounts[:c]) if self.D - sum(amounts[:c]) >= VECTOR_FROM else None
                if P is not None:
                    below += int(sum(P[: amounts[c]].tolist()))
                else:
                    below += self.weighted(amounts[:c], 0) - self.weighted(amounts[:c], amounts[c])
        return below


class _Option:
    """The amounts one route of a walk may take, for :meth:`_Walk._weigh` (arrays) or ``route_states`` (a list):
    explicit arrays (states, damage, parts), or the amounts ``lb..top-1`` below the need of a shared resource (each
    its own state, the resource's flag ``flag`` kept) and one more, its need met (``SAT``: damage ``sat``, one part
    for the excess)."""

    __slots__ = ("k", "given", "span", "size")

    def __init__(self, k: int, given: tuple[Keys, Keys, Keys] | None, span: tuple[int, int, int, int] = (0, 0, 0, 0)):
        self.k, self.given, self.span = k, given, span
        self.size = len(given[0]) if given is not None else max(0, span[1] - span[0]) + 1

    def arrays(self) -> tuple[Keys, Keys, Keys]:
        if self.given is not None:
            return self.given
        lb, top, flag, sat = self.span
        v = np.arange(lb, max(lb, top), dtype=np.int64)
        return np.append((v << 1) | flag, SAT), np.append(v, sat), np.append(np.zeros(len(v), dtype=np.int64), 1)

    def listed(self) -> list[tuple[int, int, int]]:
        if self.given is not None:
            return list(zip(*(a.tolist() for a in self.given)))
        lb, top, flag, sat = self.span
        return [*(((v << 1) | flag, v, 0) for v in range(lb, top)), (SAT, sat, 1)]


def _compositions(total: Keys, parts: Keys) -> Weights:
    """``compositions(total, parts)`` of each row (totals >= 0): int64 where the largest fits, else Python integers."""
    out: Weights = np.zeros(len(total), dtype=np.int64)
    if not len(total):
        return out
    top = int(total.max())
    for p in np.unique(parts).tolist():
        sel = parts == p
        t = total[sel]
        if p == 0:
            out[sel] = t == 0
            continue
        big = comb(top + p - 1, p - 1) * (top + p) >= INT64_SAFE
        if big and out.dtype != object:
            out = out.astype(object)
        ways: Weights = np.ones(len(t), dtype=object if big else np.int64)
        tt = t.astype(object) if big else t
        for k in range(1, p):  # C(t + k, k) from C(t + k - 1, k - 1): exact at every step
            ways = ways * (tt + k) // k
        out[sel] = ways
    return out


# -- listing: blocks of rows by a depth-first walk over the sources --------------------------------------------------

SPLIT_LIMIT = 1 << 20  # splits of one source (compositions of its damage over its routes) listed at most
CSR_CELLS = 1 << 22  # (reached states x splits), summed over the sources, up to which children are kept per state
#: (new states x splits) a frame meets up to which their children are worked out at once; past it, their numbers of
#: children at once and the children themselves as the walk's slices reach them (_Kept.meet)
EAGER_CELLS = 1 << 16
#: a slice of states' children are found from their live table entries (not a cell per state and split) where they
#: are under this share of (states x splits): Lister._sparse
SPARSE_SHARE = 8
SLICE_CELLS = 1 << 20  # (states x table entries or splits) worked out at once
LIVE_BYTES = 1 << 24  # bytes of one cut's table of live codes (Lister._live_index) at most
PREFIX_BYTES = 1 << 22  # bytes of prefix rows made at once at a level of the walk
#: blocks of rows below a slice of prefixes made at once above the last level (Lister.blocks), in AHEAD_LEAST to
#: PREFIX_BYTES of prefixes: square(5)'s fourth source took 91 000 children at once (3 ms, 880 page faults, their 666
#: states met and counted), where the next million rows used a few thousand of them. Not where the children are not
#: kept (Lister.keep): there each frame works its prefixes' children out again (square(6): 39 -> 34 M rows/s after
#: its first block in such slices); nor fewer than AHEAD_LEAST, each slice a frame below it and its Python
#: (random_sharing(12, 14, 4) seed 0, of 64: 32 -> 30 M rows/s)
AHEAD_BLOCKS = 2
AHEAD_LEAST = 256
SUFFIX_BYTES = 1 << 23  # bytes of the last sources' completion rows (every reached state's, in order) kept at most
#: a level's completion table is not made where its children have this many completion rows each on average: the
#: table below already gives the block its rows in runs that long (Lister._suffixes)
SUFFIX_RUN = 256
#: completion rows per prefix, on average, from which a block's rows are written run by run (_fill)
FILL_RUN = 512
LAST_BYTES = 1 << 26  # bytes of the last source's rows kept for the states met so far, when they do not all fit
#: blocks handed out by one listing that it keeps, to write again once nobody else holds them (Spare)
SPARE_BLOCKS = 2
HUGE = 1 << 21  # bytes of a transparent huge page (x86-64)
HUGE_ADVISED = 1 << 22  # bytes of an allocation from which numpy advises huge pages (madvise)
SCRATCH_KEPT = 3  # buffers of PAIRS codes kept for the next walk over pairs (two for the codes, one for a gather)


#: Indices kept per child (int32: half the memory of int64).
Ints = npt.NDArray[np.int32]
_NO: Ints = np.zeros(0, dtype=np.int32)


class TooMany(Exception):
    """A source has more splits than :data:`SPLIT_LIMIT` (listing is left to another engine)."""


def lex_compositions(damage: int, parts: int) -> npt.NDArray[np.int64]:
    """Every way to split ``damage`` into ``parts`` ordered amounts (510.1a: all of it), lexicographically, smallest
    first, as rows."""
    if parts == 0:
        return np.zeros((1 if damage == 0 else 0, 0), dtype=np.int64)
    rows = np.zeros((1, 0), dtype=np.int64)
    rem = np.array([damage], dtype=np.int64)
    for _ in range(parts - 1):
        n = rem + 1
        parent = np.repeat(np.arange(len(rem)), n)
        first = np.cumsum(n) - n
        value = np.arange(len(parent), dtype=np.int64) - first[parent]
        rows = np.concatenate([rows[parent], value[:, None]], axis=1)
        rem = rem[parent] - value
    return np.concatenate([rows, rem[:, None]], axis=1)


def _ragged(starts: Keys, lens: Keys) -> Keys:
    """The concatenation of ``arange(s, s + l)`` over ``starts`` and ``lens``."""
    e = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    e += np.arange(len(e), dtype=np.int64)
    return e


class _RootsAfter:
    """:meth:`SourceProgramme.roots_after`'s answer: the (level, level, code) each split of source ``j`` leads the
    prefix to, from one ``row`` of pair codes (or ``dead`` for every split where the prefix itself is dead). A class,
    not a closure, so that a lister holding one can be pickled (the programme shipped to the workers of
    ``enumerate --shards``, trample.shard.Cargo: a closure failed with "Can't pickle local object")."""

    __slots__ = ("prog", "j", "row", "dead")

    def __init__(
        self,
        prog: SourceProgramme,
        j: int,
        row: npt.NDArray[np.int64] | None,
        dead: tuple[int, int, int] | None = None,
    ):
        self.prog, self.j, self.row, self.dead = prog, j, row, dead

    def __call__(self, split: Sequence[int]) -> tuple[int, int, int]:
        if self.row is None:
            assert self.dead is not None
            return self.dead
        code = int(self.row[self.prog._key_index(self.j, _Walk(self.prog, self.j, {}).key(split))])
        return self.j + 1, self.j + 1, max(code, -1)  # (a dead split: its level reached, code -1)


class Lister:
    """The legal vectors of a :class:`SourceProgramme`'s component in the canonical order, as numpy blocks.

    Depth first over the sources in plan order: a prefix (the splits of sources 0..j-1) ends in a reached cut state;
    its children are source j's splits, in lexicographic order, whose table entry leads from that state to a state
    with completions (:meth:`SourceProgramme._pair_codes`, ``G``). Each source's splits are listed once, with their
    entry of its table (checked against the table's counts); per reached state, its children and the states they
    lead to are worked out for many states at once in numpy, and kept when they are few. Every step of the walk
    extends a slice of prefixes by a ragged gather, so Python's cost is per slice, not per row; every prefix has a
    completion, so no work is wasted on dead branches."""

    def __init__(self, prog: SourceProgramme, dtype: np.dtype[Any]):
        self.prog = prog
        self.dtype = dtype
        n = len(prog.component)
        self.splits: list[npt.NDArray[Any]] = []
        self.entry: list[npt.NDArray[np.int64]] = []  # per split, its entry of the source's table
        self.per_entry: list[npt.NDArray[np.int64]] = []  # per entry of the table, its number of splits
        for j in range(n):
            a, k = self._splits(j)
            self.splits.append(a.astype(dtype))
            self.entry.append(k)
            self.per_entry.append(np.bincount(k, minlength=len(prog.tkeys[j])).astype(np.int64))
        self.alive = [np.asarray(prog.G[j] != 0, dtype=bool) for j in range(n + 1)]
        cells = sum(len(prog.codes[j]) * len(self.splits[j]) for j in range(n))
        self.keep = cells <= CSR_CELLS
        self._csr: dict[int, _Kept] = {}  # per level, the children of the reached states met so far
        self._known: dict[int, Keys] = {}  # per level, each reached state's number of children (-1: not yet known)
        self._live: dict[int, tuple[int, npt.NDArray[np.int32] | None]] = {}  # see _live_index
        self._tail: tuple[int, npt.NDArray[Any], Keys] | None = None  # see _suffixes
        self._last: _LastLevel | None = None  # see _suffixes
        self._entry_splits: dict[int, tuple[Keys, Keys]] = {}  # see _by_entry
        self._yes_no: dict[int, list[tuple[list[int], list[int], npt.NDArray[np.bool_]]]] = {}  # see _ends
        self._slices: dict[int, Spare] = {}  # per level, the buffers of its slices of rows (_slice_room)

    def reheaded(self, prefix: Sequence[Sequence[int]], deadline: Deadline) -> Lister:
        """This rooted programme's lister for other fixed splits ``prefix`` (as many, not every source) that lead to
        the state its own lead to (:meth:`SourceProgramme.root_of`): its rows, in its order, with these splits in the
        fixed sources' columns, written as the rows are made. It shares the completion tables (made first: they start
        at the first free source, so hold no fixed split) and the children of the states met, since the walk below
        the fixed sources depends on that state alone; only the fixed sources' splits are its own. Before, each
        block was listed with the old splits and written over (random_sharing(12, 14, 4) seed 3: a pass over the
        first half of every row of most of its blocks)."""
        n = len(self.prog.component)
        assert len(prefix) == len(self.prog.prefix) < n
        self._suffixes(deadline)
        other = copy.copy(self)
        other.splits = [
            np.array([split], dtype=self.dtype).reshape(1, -1) if j < len(prefix) else a
            for j, (a, split) in enumerate(zip_longest(self.splits, prefix))
        ]
        return other

    def _suffixes(self, deadline: Deadline) -> tuple[int, npt.NDArray[Any], Keys]:
        """The completions of the last sources written out once: ``(L, T, first)`` where, for each reached state
        ``s`` of the cut before source ``L`` that has completions, ``T[first[s] : first[s] + G[L][s]]`` are its
        completions (the splits of sources L.., one opaque item per row) in the canonical order. ``L`` is the
        lowest level whose table fits in SUFFIX_BYTES, in a rooted programme no lower than its first free source (a
        fixed source's level has one state and one child: its table would be the rows below it again), and no lower
        than a level whose children have SUFFIX_RUN completion rows each on average: its table would copy the rows
        below once more, where the blocks read them from the table below in runs that long already
        (random_sharing(12, 14, 4) seed 0: tables of 124 000-201 000 rows, 4-5 ms each and their pages, for rooted
        programmes listed once; now 7 000-37 000 rows). Built from
        the end: a state's rows are, for each of its
        children in order, the child's split followed by the rows of the state it leads to (a ragged gather), so
        the walk stops at level L and writes its rows in wide copies. When not even the last source's fit, ``L ==
        n - 1`` with ``T`` empty: the last source's rows are written out for the states met as the walk meets
        them and kept while they fit in LAST_BYTES (:class:`_LastLevel`); ``L == n`` (no table: the walk writes
        every level) only for one source or SUFFIX_BYTES 0."""
        if self._tail is not None:
            return self._tail
        prog, n, size = self.prog, len(self.prog.component), self.dtype.itemsize
        at = list(accumulate((len(prog.plan.sources[i].routes) for i in prog.component), initial=0))
        L, T, first = n, np.zeros(1, dtype=self._void(0)), np.zeros(1, dtype=np.int64)
        for j in range(n - 1, -1, -1):
            deadline.check()
            g = prog.G[j]
            if g.dtype == object or int(g.sum()) * max(1, at[n] - at[j]) * size > SUFFIX_BYTES:
                break
            if j < len(prog.prefix) and L < n:
                break  # a fixed source's level has one state and one child: the same rows again, one split wider
            states = np.flatnonzero(self.alive[j])
            off, kids, tos = self._children(j, states)
            reps = prog.G[j + 1][tos] if j < n - 1 else np.ones(len(tos), dtype=np.int64)
            if L < n and int(reps.sum()) >= SUFFIX_RUN * max(1, len(reps)):
                break  # its rows would be the table below again, in runs as long as the blocks read it already
            rec = np.dtype([("s", self._void(at[j + 1] - at[j])), ("r", self._void(at[n] - at[j + 1]))])
            rows = np.empty(int(reps.sum()), dtype=rec if j < n - 1 else self._void(at[n] - at[j]))
            whole = np.ascontiguousarray(self.splits[j]).view(self._void(at[j + 1] - at[j])).reshape(-1)
            if j < n - 1:
                rows["s"] = np.repeat(np.take(whole, kids), reps)
                rows["r"] = np.take(T, _ragged(first[tos], reps))
            else:
                rows[:] = np.take(whole, kids)
            new = np.zeros(len(prog.codes[j]), dtype=np.int64)
            new[states] = np.cumsum(reps)[off[1:] - 1] if len(tos) else 0
            new[states] -= g[states]
            L, T, first = j, rows.view(self._void(at[n] - at[j])), new
        if L == n and n > 1 and SUFFIX_BYTES > 0:
            L = n - 1
            whole = np.ascontiguousarray(self.splits[L]).view(self._void(at[n] - at[L])).reshape(-1)
            self._last = _LastLevel(self, whole)
        self._tail = (L, T, first)
        return self._tail

    def _table(self, states: Keys) -> tuple[Keys, npt.NDArray[Any]]:
        """For reached states of the tables' level: where each one's rows start in the table returned."""
        if self._last is not None:
            return self._last.rows(states)
        _, T, first = self._tail or self._suffixes(NEVER)
        return first[states], T

    def _splits(self, j: int) -> tuple[Keys, Keys]:
        """Source j's legal splits (local gates: its private resources) in lexicographic order, and each one's entry
        of its table (the states of the shared resources it leads to: ``_Walk.key``, in numpy); a fixed source of a
        rooted programme: its one split. Worked out once per component and tables (:meth:`_legal`), whatever the
        prefix: the prefix lister lists many rooted programmes of one component."""
        prog = self.prog
        got = prog._split_of.get(j)
        if got is None:
            got = prog._split_of[j] = self._legal(j)
        a, entry = got
        if j < len(prog.prefix):  # a fixed source of a rooted programme: its one split
            one = np.all(a == np.array(prog.prefix[j], dtype=np.int64), axis=1)
            return a[one], entry[one]
        return a, entry

    def _legal(self, j: int) -> tuple[Keys, Keys]:
        """Every legal split of source j and its table entry, checked against the table's counts."""
        prog = self.prog
        g, plan = prog.g, prog.plan
        src = plan.sources[prog.component[j]]
        routes, D = src.routes, src.damage
        m = len(routes)
        if comb(D + m - 1, m - 1) > SPLIT_LIMIT if m else False:
            raise TooMany
        a = lex_compositions(D, m)
        prog._budget.spend(len(a) * max(1, m))
        scope = prog.scope[j]
        gates = [gate_names(r, g.need) for r in routes]
        route_of = {r.recipient: t for t, r in enumerate(routes)}
        low = [  # 702.2c: one point from a deathtouch source is lethal damage (not loyalty, 702.19c)
            (1 if (src.deathtouch and r.recipient in plan.lethal_need) else g.need[r.recipient])
            if r.recipient in g.need
            else 0
            for r in routes
        ]
        asked: dict[str, npt.NDArray[np.bool_]] = {}
        for t, gt in enumerate(gates):
            for x in gt:
                hit = a[:, t] > 0
                asked[x] = asked[x] | hit if x in asked else hit
        ok = np.ones(len(a), dtype=bool)
        for x, must in asked.items():
            if x in scope:
                continue
            r = route_of.get(x)  # a private resource asked about must end lethal / loyal here (702.19b/c)
            ok &= ~must if r is None else ~must | (a[:, r] >= low[r])
        a = a[ok]
        code = np.zeros(len(a), dtype=np.int64)
        for x in scope:
            flag = asked[x][ok].astype(np.int64) if x in asked else np.zeros(len(a), dtype=np.int64)
            r = route_of.get(x)
            col = flag if r is None else np.where(a[:, r] >= low[r], SAT, (a[:, r] << 1) | flag)
            code = code * (2 * g.need[x] + 2) + col + 2
        tcode = np.zeros(len(prog.tkeys[j]), dtype=np.int64)
        for k, x in enumerate(scope):
            tcode = tcode * (2 * g.need[x] + 2) + prog.tkeys[j][:, k] + 2
        order = np.argsort(tcode, kind="stable")
        at = np.minimum(np.searchsorted(tcode[order], code), max(0, len(tcode) - 1))
        if len(a) and not (len(tcode) and np.array_equal(tcode[order][at], code)):
            raise AssertionError("a legal split whose key is not in its source's table")
        entry = order[at] if len(a) else np.zeros(0, dtype=np.int64)
        counts = np.bincount(entry, minlength=len(tcode))
        if prog.tw[j].dtype != object and not np.array_equal(counts, prog.tw[j]):
            raise AssertionError("the listed splits do not add up to their source's table")
        return a, entry

    def _targets(self, j: int, states: Keys, out: Ints | None = None) -> Iterator[npt.NDArray[np.signedinteger[Any]]]:
        """For reached states (indices into ``codes[j]``) of the cut before source j, in slices of states: the state
        each entry of source j's table leads to (a row per state; -1: dead, or no completion). ``out``: a row per
        state (int32) where each slice is written (gathered there where it can be, not made and copied) and whose
        slices are yielded; else the last source's slices (:meth:`_ends`) are in the pool's buffers, each valid until
        the next."""
        prog = self.prog
        nxt = prog.codes[j + 1]
        width = max(1, len(self.entry[j]), len(prog.tkeys[j]))
        # at most PAIRS pairs a slice, their codes written in two buffers of the pool (_scratch), not new arrays:
        # square(6)'s 130 states a slice made 4 MB of codes per matrix, mapped afresh and faulted page by page
        step = max(1, min(SLICE_CELLS // width, PAIRS // max(1, len(prog.tkeys[j]))))
        room = [_scratch(), _scratch()]
        # the last source: nothing after it, so its pairs lead to the one state of the empty cut or are dead
        ends = not prog.cut[j + 1] and len(nxt) == 1 and bool(self.alive[j + 1][0])
        try:
            for a in range(0, len(states), step):
                idx = states[a : a + step]
                prog._budget.spend(len(idx) * width)
                into = None if out is None else out[a : a + len(idx)]
                if not len(nxt):
                    got: npt.NDArray[np.signedinteger[Any]] = np.full((len(idx), len(prog.tkeys[j])), -1, np.int64)
                elif j < len(prog.prefix):  # a fixed source: its one state goes by its one split's entry to the next
                    got = np.full((len(idx), len(prog.tkeys[j])), -1, dtype=np.int64)
                    got[:, self.entry[j]] = 0 if self.alive[j + 1][0] else -1
                elif ends:
                    got = self._ends(j, prog._decode(j, prog.codes[j][idx].copy()), room)
                else:
                    code = prog._pair_codes(j, prog._decode(j, prog.codes[j][idx].copy()), room)
                    lo, live = self._live_index(j + 1)
                    if live is not None:  # one gather: dead pairs (negative) and codes without completions read -1
                        code -= lo
                        yield live.take(code, mode="clip", out=into)
                        continue
                    at = prog.find(j + 1, code)
                    got = np.where(self.alive[j + 1].take(at, mode="clip") & (at >= 0), at, -1)
                if into is not None:
                    into[:] = got
                    got = into
                yield got
        finally:
            _given(*room)

    def _ends(self, j: int, a: Keys, room: Sequence[npt.NDArray[np.uint8]]) -> npt.NDArray[np.int8]:
        """The targets of :meth:`_targets` (int8) of the last source, whose next cut is empty: each pair leads to
        its one state (0) or is dead (-1), so each join matrix's cells (:meth:`SourceProgramme._prepare`) are 0 or
        dead, and a pair is live where its cells in every matrix are: the matrices' rows as booleans, gathered and
        ANDed (a byte a pair, not a code's eight gathered, added, clipped and looked up: square(6)'s last source,
        4 015 entries, 30 us a state). Written in the buffers ``room`` where they fit (valid until the next)."""
        mats = self._yes_no.get(j)
        if mats is None:
            passing, matrices, _ = self.prog._prepare(j)
            assert not passing  # (every resource of the cut is the last source's)
            mats = self._yes_no[j] = [(group, stride, mat >= 0) for group, stride, mat in matrices]
        shape = (len(a), len(self.prog.tkeys[j]))
        fits = shape[0] * shape[1] <= min(len(r) for r in room)
        ok: npt.NDArray[np.bool_] | None = None
        for group, stride, mat in mats:
            r = np.zeros(len(a), dtype=np.int64)
            for c, s in zip(group, stride):
                r += (a[:, c] + 2) * s
            out = room[ok is not None][: shape[0] * shape[1]].view(np.bool_).reshape(shape) if fits else None
            got = np.take(mat, r, axis=0, out=out, mode="clip")
            if ok is None:
                ok = got
            else:
                np.logical_and(ok, got, out=ok)
        assert ok is not None
        to = ok.view(np.int8)
        to -= 1  # live: 0, the empty cut's one state; dead: -1
        return to

    def _live_index(self, j: int) -> tuple[int, npt.NDArray[np.int32] | None]:
        """The reached states of the cut before source ``j`` with completions, by code: (the codes' offset, a table
        over their range of each one's position, -1 for every other code and at both ends), where the programme
        finds that cut's codes by such a table (:class:`_CodeIndex`) of at most LIVE_BYTES; else (0, None). The
        targets of a slice of states are then one gather (:meth:`_targets`: 6x6 all shared's first block found
        16 M targets, then masked them by a second gather, a comparison and a ``where``)."""
        got = self._live.get(j)
        if got is None:
            index = self.prog._index_of(j)
            if index.table is None or index.table.nbytes > LIVE_BYTES:
                got = (0, None)
            else:
                table = index.table.copy()
                table[self.prog.codes[j][~self.alive[j]] - index.lo] = -1
                got = (index.lo, table)
            self._live[j] = got
        return got

    def _counts(self, j: int, states: Keys) -> Keys:
        """How many children (splits of source j with completions) each of these reached states has: the number
        of splits of each table entry that leads somewhere, summed."""
        parts = [(to >= 0).astype(np.int64) @ self.per_entry[j] for to in self._targets(j, states)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def _children(self, j: int, states: Keys, targets: Ints | None = None) -> tuple[Keys, Ints, Ints]:
        """For reached states of the cut before source j: CSR offsets (one more than the states), the children
        (indices of source j's splits, in order) and the state each leads to (int32). ``targets``: the states'
        rows of :meth:`_targets` (int32), where they were kept (:meth:`_Kept.meet`), not worked out again."""
        lens: list[Keys] = []
        kids: list[Ints] = []
        tos: list[Ints] = []
        entry = self.entry[j]
        n = max(1, len(entry))
        for by_entry in self._targets(j, states) if targets is None else (targets,):
            got = self._sparse(j, by_entry)
            if got is not None:
                lens.append(got[0])
                kids.append(got[1])
                tos.append(got[2])
                continue
            if by_entry.dtype == np.int32:
                # each split's target gathered whole (a target of four bytes: np.take, not [:, entry], whose
                # column-major result the masks would copy again), then those that lead somewhere, with their
                # split's index from the flat mask's nonzero (a 2-d mask's is several times slower), modulo the splits
                to = np.take(by_entry, entry, axis=1)
                live = to >= 0
                lens.append(np.count_nonzero(live, axis=1).astype(np.int64))
                kids.append((np.flatnonzero(live) % n).astype(np.int32))
                tos.append(to[live])
                continue
            # which splits lead somewhere, gathered as booleans (a byte a cell, not a target's eight; np.take, not
            # [:, entry], whose column-major result the row counts and flatnonzero would copy again), then the
            # targets of those alone
            live = np.take(by_entry >= 0, entry, axis=1)
            lens.append(np.count_nonzero(live, axis=1).astype(np.int64))
            row, kid = np.divmod(np.flatnonzero(live), n)
            kids.append(kid.astype(np.int32))
            tos.append(by_entry[row, entry[kid]].astype(np.int32))
        off = np.zeros(len(states) + 1, dtype=np.int64)
        if lens:
            np.cumsum(np.concatenate(lens), out=off[1:])
        empty = np.zeros(0, dtype=np.int32)
        return off, np.concatenate(kids) if kids else empty, np.concatenate(tos) if tos else empty

    def _sparse(self, j: int, by_entry: npt.NDArray[np.signedinteger[Any]]) -> tuple[Keys, Ints, Ints] | None:
        """The children of a slice of states (their rows of :meth:`_targets`), as :meth:`_children`, where they are
        under 1 / SPARSE_SHARE of (states x splits); else None. The table entries that lead somewhere are found
        (a cell per entry), then their splits gathered (each entry's in split order, :meth:`_by_entry`) and put in
        split order per state by one sort: no cell per (state, split). square(6)'s last source has 8 008 splits,
        of which a state's completions are a dozen: 0.1 ms a state (gathers and masks over every split), most of
        its listing after the first block."""
        live = by_entry >= 0
        per_entry = self.per_entry[j]
        # a state's children: the splits of its table entries that lead somewhere; a float32 product, exact (every
        # partial sum an integer of at most SPLIT_LIMIT < 2^24)
        lens = (live.astype(np.float32) @ per_entry.astype(np.float32)).astype(np.int64)
        m = int(lens.sum())
        if m * SPARSE_SHARE >= live.shape[0] * max(1, len(self.entry[j])):
            return None
        # (flat, then divided: numpy's nonzero of a 2-d mask is 6x slower than of a flat one, square(6)'s 4015 entries
        # a state: 4.6 ms of its window)
        row, ent = np.divmod(np.flatnonzero(live), live.shape[1])
        first, splits = self._by_entry(j)
        k = per_entry[ent]
        kid = splits[_ragged(first[ent], k)]
        # (distinct keys, so any sort gives the one order) a stable sort: a merge of the runs the entries' splits
        # already are, where numpy's default (introsort) takes no notice of them; square(6)'s 2.4x faster
        order = np.argsort(np.repeat(row, k) * max(1, len(self.entry[j])) + kid, kind="stable")
        tos = np.repeat(by_entry[row, ent], k)
        return lens, kid[order].astype(np.int32), tos[order].astype(np.int32)

    def _by_entry(self, j: int) -> tuple[Keys, Keys]:
        """Source j's splits by table entry (``splits[first[e] : first[e] + per_entry[e]]``, each entry's in split
        order)."""
        got = self._entry_splits.get(j)
        if got is None:
            per_entry = self.per_entry[j]
            got = self._entry_splits[j] = (np.cumsum(per_entry) - per_entry, np.argsort(self.entry[j], kind="stable"))
        return got

    def _frame(self, j: int, prefix: npt.NDArray[Any], states: Keys, pos: int = 0) -> _Frame:
        """The frame of prefixes (ending in ``states``) whose children, source j's splits, are listed next. When
        the children of every reached state fit in CSR_CELLS, they are worked out once per level and kept;
        otherwise a frame counts its prefixes' children and works them out a slice at a time (memory bounded by
        the slice, whatever the number of splits)."""
        if self.keep:
            kept = self._csr.get(j)
            if kept is None:
                kept = self._csr[j] = _Kept(len(self.prog.codes[j]))
            kept.meet(self, j, states)
            return _Frame(
                j, prefix, kept.lens[states], pos, lambda p0, p1: kept.resolve(self, j, states[p0:p1]), states
            )
        u, inv = unique(states)
        known = self._known.setdefault(j, np.full(len(self.prog.codes[j]), -1, dtype=np.int64))
        new = u[known[u] < 0]
        if len(new):  # each state's number of children, worked out once
            known[new] = self._counts(j, new)
        counts = known[u]

        def resolve(p0: int, p1: int) -> tuple[Keys, Ints, Ints]:
            v, back = unique(u[inv[p0:p1]])
            off, kids, tos = self._children(j, v)
            return off[back], kids, tos

        return _Frame(j, prefix, counts[inv], pos, resolve, states)

    def _void(self, width: int) -> np.dtype[Any]:
        """One row of ``width`` amounts as a single opaque item: rows are repeated and gathered whole."""
        return np.dtype((np.void, max(1, width * self.dtype.itemsize)))

    def _path(self, start: int, at: Sequence[int], L: int) -> list[_Frame]:
        """The frames on the path to row ``start``: each level's frame resumes after the child taken (the last
        one at it); with completion tables at level ``L < n`` (:meth:`_suffixes`), levels 0..L-1 and then the
        frame of the tables' rows, at the row itself."""
        prog, n = self.prog, len(self.prog.component)
        stack: list[_Frame] = []
        path = np.zeros((1, 0), dtype=self.dtype)
        state = np.zeros(1, dtype=np.int64)
        for j in range(L):
            prefix = np.ascontiguousarray(path).view(self._void(at[j])).reshape(-1) if j else np.zeros(1, np.int8)
            frame = self._frame(j, prefix, state)
            base, kids, tos = frame.resolve(0, 1)
            b = int(base[0])
            took = tos[b : b + int(frame.lens[0])].astype(np.int64)
            cum = list(accumulate(prog.G[j + 1][took].tolist()))
            c = bisect_right(cum, start)
            start -= cum[c - 1] if c else 0
            frame.pos = c + 1 if L < n or j < n - 1 else c
            stack.append(frame)
            path = np.concatenate([path, self.splits[j][kids[b + c]][None, :]], axis=1)
            state = took[c : c + 1]
        if L < n:  # the tables' rows: the prefix padded to a whole row, repeated over its completions
            row = np.zeros((1, at[n]), dtype=self.dtype)
            row[:, : at[L]] = path
            stack.append(self._tail_frame(row.view(self._void(at[n])).reshape(-1), state))
            stack[-1].pos = start
        return stack

    def _tail_frame(self, prefix: npt.NDArray[Any], states: Keys) -> _Frame:
        """The frame of prefixes (whole rows, their completions not yet written) ending in ``states`` of the
        tables' level: each one's children are its state's rows of the tables."""
        L = self._suffixes(NEVER)[0]
        lens = self.prog.G[L][states].astype(np.int64)
        return _Frame(L, prefix, lens, 0, lambda p0, p1: (*self._table(states[p0:p1]), _NO), states)

    def blocks(
        self,
        rows: int,
        deadline: Deadline,
        start: int = 0,
        first: int | None = None,
        into: npt.NDArray[Any] | None = None,
        spare: Spare | None = None,
    ) -> Iterator[npt.NDArray[Any]]:
        """Rows ``start``.. of the canonical order, in blocks of ``rows`` rows (the last one shorter; the first one
        ``first`` rows where given: a caller that gathers blocks of several listings fills its block with it, and
        the blocks after it line up with its own; ``into``: that block's room itself, ``first`` rows of this
        lister's width and type, where the first block is written and yielded, not made and copied there;
        ``spare``: the blocks handed out before, shared by the listings of one caller, where the blocks nobody
        holds any more are written again, :class:`Spare`).

        A stack of frames, one per level below the deepest: each step takes the next slice of the top frame's
        children (PREFIX_BYTES of rows, pushed as the next level's frame; at the last level, at most ``rows`` rows
        written straight into the block): the prefixes repeated and the splits gathered, each row one opaque item
        (a record of two: the prefix, the split), as numpy copies them fastest. Where the last sources'
        completions fit in tables (:meth:`_suffixes`, level L), the walk stops at L: the prefixes made at level
        L-1 are whole rows (their completions left blank), and a block is those rows repeated, one per
        completion, with the completions gathered from the tables into their last columns."""
        prog = self.prog
        n = len(prog.component)
        if not 0 <= start < prog.count():
            return
        L, T, _ = self._suffixes(deadline)
        at = list(accumulate((len(prog.plan.sources[i].routes) for i in prog.component), initial=0))
        if L == 0:  # the whole component is one table
            lo, size = start, first or rows
            while lo < len(T):
                deadline.check()
                yield T[lo : lo + size].copy().view(self.dtype).reshape(-1, at[n])
                lo, size = lo + size, rows
            return
        split = [self.splits[j].reshape(len(self.splits[j]), -1) for j in range(n)]
        whole = [np.ascontiguousarray(a).view(self._void(a.shape[1])).reshape(-1) for a in split]
        record = self._records(at, L)
        final = np.dtype([("p", self._void(at[L])), ("t", self._void(at[n] - at[L]))])  # L < n: the tables' rows
        last = min(L, n - 1)  # the level that writes the block's rows
        if into is not None and not (
            into.dtype == self.dtype and into.shape == (first, at[n]) and into.flags.c_contiguous
        ):
            into = None
        out = _Block(rows, record[n - 1] if L == n else self._void(at[n]), self.dtype, at[n], first, into, spare)
        into = None  # (the caller's room is the block's own now: held here, its buffer would stay held to the end)
        stack = self._path(start, at, L)
        while stack:
            deadline.check()
            frame = stack[-1]
            j = frame.j
            if j == L:  # the tables' rows: whole prefixes repeated, the completions gathered into their place
                got_rows = frame.rows(out.room())
                if got_rows is None:
                    stack.pop()
                    continue
                p0, p1, counts, starts, table = got_rows
                _fill(out.free(int(counts.sum())).view(final), frame.prefix[p0:p1], counts, starts, table)
                yield from out.put(None)
                continue
            cap = max(1, PREFIX_BYTES // (record[j].itemsize + 16))  # (a slice: AHEAD_BLOCKS where children are kept)
            step = out.room() if j == last else frame.ahead(AHEAD_BLOCKS * rows, prog.G[j], cap) if self.keep else cap
            got = frame.take(step)
            if got is None:
                stack.pop()
                continue
            prefix, kids, tos = got
            made = _extend(  # (its room in no name of its own: a block's buffer held so would not be written again)
                out.free(len(kids)) if j == last else self._slice_room(j, step, record[j], len(kids)),
                prefix if j else None,
                whole[j].take(kids),
            )
            if j == last:
                yield from out.put(None)
            elif j == L - 1 and L < n:
                stack.append(self._tail_frame(made.view(self._void(at[n])), tos.astype(np.int64)))
            else:
                stack.append(self._frame(j + 1, made.view(self._void(at[j + 1])), tos.astype(np.int64)))
        yield from out.flush()

    def _slice_room(self, j: int, step: int, record: np.dtype[Any], k: int) -> npt.NDArray[Any] | np.dtype[Any]:
        """Where a slice of ``k`` rows of level j's ``record`` (made ``step`` at a time) is written: a buffer of the
        level's own (:class:`Spare`), written again once nothing holds its last slice any more (the frame below it
        popped); level 0 unpadded: its record (the splits themselves, :func:`_extend`). New arrays were mapped afresh
        and faulted page by page: random_sharing(9, 11, 3) seed 2's level above its tables, 2 000 of the 5 400 page
        faults of its window from the first block to 2^20 rows. Not for a rooted programme (the prefix lister's: many,
        each listed a while and dropped): buffers of its own, held while it lives, were new for each one all the
        same, and kept from the heap the memory the next one's temporaries would take (random_sharing(12, 14, 4) seed
        0: about 10 % slower after its first block)."""
        if not record.names or self.prog.prefix:
            return record
        spare = self._slices.get(j)
        if spare is None:
            spare = self._slices[j] = Spare()
        return spare.empty(step, record)[:k]

    def _records(self, at: Sequence[int], L: int) -> list[np.dtype[Any]]:
        """Per level, the rows it makes: a record of the prefix and the split (level 0: the split); at level L-1
        when the tables start at L < n, the same fields in a whole row (``at[n]`` amounts, the rest left for the
        tables)."""
        n = len(at) - 1
        record = [np.dtype([("p", self._void(at[j])), ("s", self._void(at[j + 1] - at[j]))]) for j in range(n)]
        record[0] = self._void(at[1])  # no prefix
        if 0 < L < n:
            size = self.dtype.itemsize
            names, formats, offsets = ["s"], [self._void(at[L] - at[L - 1])], [at[L - 1] * size]
            if L > 1:
                names, formats, offsets = ["p", "s"], [self._void(at[L - 1]), formats[0]], [0, offsets[0]]
            record[L - 1] = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": at[n] * size})
        return record


def _fill(
    into: npt.NDArray[Any], prefix: npt.NDArray[Any], counts: Keys, starts: Keys, table: npt.NDArray[Any]
) -> None:
    """Rows of a block (a record of the prefix's columns ``p`` and the tables' ``t``): each prefix (a whole row,
    its ``t`` blank) repeated ``counts`` times, over table rows ``starts`` onwards. Where the runs are long (FILL_RUN
    on average), each one is two slice copies, the prefix's columns and the table's run, with nothing made in
    between; otherwise the prefixes are gathered whole by a repeated index and the table's rows by a ragged one
    (a repeat, a ragged index and a gather per row, and the gathered completions copied again into their place)."""
    k = len(counts)
    if k and int(counts.sum()) >= FILL_RUN * k:
        heads, tails = into["p"], into["t"]
        head = prefix.view(into.dtype)["p"]
        a = 0
        for i, (c, s) in enumerate(zip(counts.tolist(), starts.tolist())):
            heads[a : a + c] = head[i]
            tails[a : a + c] = table[s : s + c]
            a += c
        return
    np.take(prefix, np.repeat(np.arange(k), counts), out=into.view(prefix.dtype), mode="clip")
    into["t"] = np.take(table, _ragged(starts, counts))


def _extend(into: npt.NDArray[Any] | np.dtype[Any], prefix: npt.NDArray[Any] | None, split: npt.NDArray[Any]) -> Any:
    """Rows of ``prefix`` (repeated; None at level 0) followed by ``split`` (gathered), written into the rows
    ``into`` or new rows of that record (level 0, unpadded: the splits themselves)."""
    if isinstance(into, np.dtype):
        if not into.names:
            return split
        into = np.empty(len(split), dtype=into)
    if not into.dtype.names:
        into[:] = split
    else:
        if prefix is not None:
            into["p"] = prefix
        into["s"] = split
    return into


class _Kept:
    """The children of the reached states of one level met so far (where every state's fit: ``Lister.keep``), in
    one growing table: a state's children start at ``start`` (-1: not worked out yet), ``lens`` of them (-1: not
    counted yet). Worked out as frames meet the states, not for every reached state when the level is first
    entered: the first block of a rooted programme needs the children of a few states per level
    (random_sharing(12, 14, 4) seed 7: 0.09 s of its 0.23 s to the first block went to the children of every state
    of its 12 levels). Where a frame meets many new states (past EAGER_CELLS of states x splits), only their numbers
    of children are worked out when it is made, their targets kept (``row``: each state's row of ``targets``, -1:
    none), and their children as the walk's slices reach them (:meth:`resolve`): square(5)'s rooted programme met
    all 666 states of its fourth source at once, 2 M children (38 ms), where the next million rows read the
    children of a few dozen."""

    __slots__ = ("start", "lens", "kids", "tos", "used", "row", "targets", "filled")

    def __init__(self, states: int) -> None:
        self.start = np.full(states, -1, dtype=np.int64)
        self.lens = np.full(states, -1, dtype=np.int64)
        self.kids: Ints = np.zeros(0, dtype=np.int32)
        self.tos: Ints = np.zeros(0, dtype=np.int32)
        self.used = 0
        self.row = np.full(states, -1, dtype=np.int64)
        self.targets: Ints | None = None  # (its width: the table's entries)
        self.filled = 0  # rows of ``targets`` in use

    def meet(self, lister: Lister, j: int, states: Keys) -> None:
        """The numbers of children of those of ``states`` not met before (their children too, where they are
        few)."""
        new = states[self.lens[states] < 0]
        if not len(new):
            return
        new = unique(new)[0]
        if len(new) * len(lister.splits[j]) <= EAGER_CELLS:
            self.add(lister, j, new)
            return
        width = len(lister.prog.tkeys[j])
        if self.targets is None:
            self.targets = np.empty((len(new), width), dtype=np.int32)
        elif self.filled + len(new) > len(self.targets):  # grown by doubling, as the children
            grown = np.empty((max(self.filled + len(new), 2 * len(self.targets)), width), dtype=np.int32)
            grown[: self.filled] = self.targets[: self.filled]
            self.targets = grown
        # each slice's targets gathered into their rows of the table, and counted there: a state's children are the
        # splits of the table entries that lead somewhere, a float32 product (exact: every partial sum an integer of
        # at most SPLIT_LIMIT < 2^24) of the live entries (written as 0/1 into a buffer of the pool) by their splits;
        # before, the slices were new arrays, concatenated, copied into the table, and compared and converted into
        # two more, each mapped afresh and faulted page by page (square(5)'s 666 states: 3 MB each, 14 -> 4 ms)
        per_entry = lister.per_entry[j].astype(np.float32)
        room = _scratch()
        a = 0
        try:
            for t in lister._targets(j, new, self.targets[self.filled : self.filled + len(new)]):
                k = len(t)
                size = k * width * 4
                live = room[:size].view(np.float32) if size <= len(room) else np.empty(k * width, dtype=np.float32)
                live = live.reshape(k, width)
                np.greater_equal(t, 0, out=live)
                self.lens[new[a : a + k]] = (live @ per_entry).astype(np.int64)
                a += k
        finally:
            _given(room)
        self.row[new] = np.arange(self.filled, self.filled + len(new))
        self.filled += len(new)

    def resolve(self, lister: Lister, j: int, states: Keys) -> tuple[Keys, Ints, Ints]:
        """Where the children of each of ``states`` (met: :meth:`meet`) start in the children and targets returned
        with them: worked out first for those that were only counted."""
        need = states[self.start[states] < 0]  # (counted, so their targets are kept)
        if len(need):
            need = unique(need)[0]
            assert self.targets is not None
            self.add(lister, j, need, self.targets[self.row[need]])
        return self.start[states], self.kids, self.tos

    def add(self, lister: Lister, j: int, new: Keys, targets: Ints | None = None) -> None:
        """The children of ``new`` (distinct states, none worked out yet), worked out in one pass (from their kept
        ``targets`` where they were only counted) and kept."""
        off, kids, tos = lister._children(j, new, targets)
        m = len(kids)
        if self.used + m > len(self.kids):  # grown by doubling: amortised, one copy per entry
            size = max(self.used + m, 2 * len(self.kids))
            self.kids = np.concatenate([self.kids[: self.used], np.empty(size - self.used, dtype=np.int32)])
            self.tos = np.concatenate([self.tos[: self.used], np.empty(size - self.used, dtype=np.int32)])
        self.kids[self.used : self.used + m] = kids
        self.tos[self.used : self.used + m] = tos
        self.start[new] = self.used + off[:-1]
        self.lens[new] = np.diff(off)
        self.used += m


class _LastLevel:
    """The last source's rows (its splits with completions) of the states of the cut before it met so far, in
    one table, filled as the walk meets new states and emptied when it would pass LAST_BYTES: a state's children
    are worked out once, not once per slice of the prefixes that reach it."""

    __slots__ = ("lister", "whole", "first", "table", "used")

    def __init__(self, lister: Lister, whole: npt.NDArray[Any]) -> None:
        self.lister, self.whole = lister, whole
        n = len(lister.prog.component)
        self.first = np.full(len(lister.prog.codes[n - 1]), -1, dtype=np.int64)
        self.table = np.empty(1024, dtype=whole.dtype)
        self.used = 0

    def rows(self, states: Keys) -> tuple[Keys, npt.NDArray[Any]]:
        """Where the rows of each of ``states`` start in the table returned with them."""
        new = self.first[states] < 0
        if not new.any():
            return self.first[states], self.table
        lister, size = self.lister, self.whole.dtype.itemsize
        n = len(lister.prog.component)
        need = unique(states[new])[0]
        off, kids, _ = lister._children(n - 1, need)
        m = len(kids)
        if (self.used + m) * size > LAST_BYTES:  # emptied: only these states' rows from now
            self.first[:] = -1
            self.used = 0
            need = unique(states)[0]
            off, kids, _ = lister._children(n - 1, need)
            m = len(kids)
            if m * size > LAST_BYTES:  # more than fit: these rows for this slice only
                where = np.full(len(self.first), -1, dtype=np.int64)
                where[need] = off[:-1]
                return where[states], np.take(self.whole, kids)
        if self.used + m > len(self.table):
            grown = np.empty(max(self.used + m, min(2 * len(self.table), LAST_BYTES // size)), dtype=self.table.dtype)
            grown[: self.used] = self.table[: self.used]
            self.table = grown
        self.table[self.used : self.used + m] = np.take(self.whole, kids)
        self.first[need] = self.used + off[:-1]
        self.used += m
        return self.first[states], self.table


class Spare:
    """The blocks one listing has handed out (at most SPARE_BLOCKS, the latest), each written again for a later block
    once nothing but this holds it: the caller dropped it and every view of it (a reference count of the buffer's own,
    as numpy's views hold their base), so no block anyone kept is ever overwritten. A block of 65 536 rows of 60
    bytes is past glibc's mmap threshold: made new, each of its 960 pages is a first-touch fault when written (about
    3 us each here, 10-15 ms of 30-50 ms of listing per 2^20 rows); written again, none."""

    __slots__ = ("held", "lock")

    def __init__(self) -> None:
        self.held: list[npt.NDArray[np.uint8]] = []
        self.lock = threading.Lock()  # (two threads listing through one spare: a buffer found free goes to one)

    def __reduce__(self) -> tuple[type[Spare], tuple[()]]:
        """Pickled empty (its buffers are only room to write in, and a lock cannot be pickled): a programme holding
        one is shipped to the workers of ``enumerate --shards`` (trample.shard.Cargo)."""
        return Spare, ()

    def empty(self, rows: int, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
        """``rows`` items of ``dtype``, not initialised: a block nobody holds any more where one has the size, else
        a new one (kept, the oldest forgotten)."""
        size = rows * dtype.itemsize
        want = _roomy(size)
        held = self.held
        with self.lock:
            for i in range(len(held)):
                # the list's reference and the argument's: nothing else holds it (no block, no view of one: a view's
                # base is the buffer itself, as numpy bases views of views on the array that owns the memory)
                if held[i].nbytes == want and sys.getrefcount(held[i]) == 2:
                    return _carved(held[i], size, dtype)
            buf = np.empty(want, dtype=np.uint8)
            held.append(buf)
            if len(held) > SPARE_BLOCKS:
                del held[0]
            return _carved(buf, size, dtype)

    def grown(self, piece: npt.NDArray[Any], rows: int) -> npt.NDArray[Any] | None:
        """The block of ``rows`` rows that begins with ``piece`` (its rows, then room), in the buffer of this spare
        that holds it, where the buffer has the room after it; else None. A listing's last rows are a part of a
        block it had begun (``_Block.flush``), and nothing is written after them in that block: a caller that puts
        blocks together from several listings takes them as they lie, and the next listing writes its first rows
        after them, where they were copied into a block of their own (random_sharing(12, 14, 4) seed 3: a new
        block at every listing's end, 15 of 20 blocks made new after the first, each a buffer's first-touch faults).
        Only a buffer of this spare: any other array's memory after the piece may be another piece's."""
        owner = piece
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        if not len(piece) or not piece.flags.c_contiguous or not any(owner is buf for buf in self.held):
            return None
        at = int(piece.ctypes.data) - int(owner.ctypes.data)
        size = rows * (piece.nbytes // len(piece))
        if at < 0 or at + size > owner.nbytes:
            return None
        block: npt.NDArray[Any] = owner[at : at + size].view(piece.dtype).reshape(rows, *piece.shape[1:])
        return block


def _roomy(size: int) -> int:
    """The bytes of a buffer for ``size`` bytes: a block of HUGE bytes or more within a buffer HUGE larger (and of
    4 MB at least, from which numpy advises the kernel to back it with transparent huge pages), from an address HUGE
    aligns (:func:`_carved`): huge pages then cover it whole, a fault per 2 MB, not one per 4 kB."""
    return max(size + HUGE, HUGE_ADVISED) if size >= HUGE else size


def _carved(buf: npt.NDArray[np.uint8], size: int, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """``size`` bytes of ``buf`` as items of ``dtype``: from its first address HUGE aligns where it has room."""
    at = -buf.ctypes.data % HUGE if len(buf) > size else 0
    return buf[at : at + size].view(dtype)


#: buffers of PAIRS codes (at most SCRATCH_KEPT), given back by each walk over pairs (SourceProgramme._pairs) for the
#: next one: a build joins a few million pairs a slice of PAIRS at a time, and each slice's codes in new arrays were
#: first-touch page faults (random_sharing(12, 14, 4) seed 8: 3 000 of them, 2 MB arrays mapped afresh each time)
_SCRATCH: list[npt.NDArray[np.uint8]] = []


def _scratch() -> npt.NDArray[np.uint8]:
    """A buffer of PAIRS int64 codes: one given back (another thread's walk cannot take the same one: ``pop`` is
    atomic), else a new one, HUGE aligned (:func:`_carved`)."""
    try:
        return _SCRATCH.pop()
    except IndexError:
        return _carved(np.empty(_roomy(PAIRS * 8), dtype=np.uint8), PAIRS * 8, np.dtype(np.uint8))


def _given(*room: npt.NDArray[np.uint8]) -> None:
    """Buffers of :func:`_scratch` given back, for the next walk (at most SCRATCH_KEPT kept)."""
    _SCRATCH.extend(room[: max(0, SCRATCH_KEPT - len(_SCRATCH))])


class _Block:
    """The block being filled: rows written into it (``free``) or pieces copied in (``put``); full blocks out."""

    __slots__ = ("rows", "after", "item", "dtype", "width", "out", "filled", "spare")

    def __init__(
        self,
        rows: int,
        item: np.dtype[Any],
        dtype: np.dtype[Any],
        width: int,
        first: int | None = None,
        into: npt.NDArray[Any] | None = None,
        spare: Spare | None = None,
    ):
        self.item, self.dtype, self.width = item, dtype, width
        self.rows = first or rows  # the first block's, then ``rows``
        self.after = rows
        self.spare = spare or Spare()
        # the first block: the caller's room where given (its rows, of this width and type), else a new one
        self.out = self.spare.empty(self.rows, item) if into is None else into.view(item).reshape(-1)
        self.filled = 0

    def room(self) -> int:
        return self.rows - self.filled

    def free(self, k: int) -> npt.NDArray[Any]:
        """The next ``k`` rows of the block, to be written (then ``put(None)``)."""
        self.filled += k
        return self.out[self.filled - k : self.filled]

    def put(self, piece: npt.NDArray[Any] | None) -> Iterator[npt.NDArray[Any]]:
        """``piece``'s rows after the others (None: they were written in place); the block, once full. A piece
        that is a whole block is yielded as it is."""
        if piece is not None:
            k = len(piece)
            if not self.filled and k == self.rows:
                yield piece.view(self.dtype).reshape(k, self.width)
                return
            self.out[self.filled : self.filled + k] = piece
            self.filled += k
        if self.filled == self.rows:
            yield self.out.view(self.dtype).reshape(self.rows, self.width)
            self.rows = self.after
            self.out = self.spare.empty(self.rows, self.item)
            self.filled = 0

    def flush(self) -> Iterator[npt.NDArray[Any]]:
        if self.filled:
            yield self.out[: self.filled].view(self.dtype).reshape(self.filled, self.width)


class _Frame:
    """Prefixes at one level of :meth:`Lister.blocks` and how far their children (in order) have been taken.
    ``resolve(p0, p1)``: for prefixes p0..p1-1, where each one's children start in the children and targets
    returned with them."""

    __slots__ = ("j", "prefix", "lens", "pos", "cum", "first", "resolve", "states", "weight")

    def __init__(
        self,
        j: int,
        prefix: npt.NDArray[Any],
        lens: Keys,
        pos: int,
        resolve: Callable[[int, int], tuple[Keys, Ints, Ints]],
        states: Keys,
    ) -> None:
        self.j, self.prefix, self.lens, self.pos, self.resolve = j, prefix, lens, pos, resolve
        self.states = states  # each prefix's state of the cut before source j
        self.weight: npt.NDArray[np.float64] | None = None  # the prefixes' completions, summed (ahead)
        self.cum = np.cumsum(lens)
        self.first = self.cum - lens

    def ahead(self, rows: int, below: npt.NDArray[Any], cap: int) -> int:
        """How many children to take next (AHEAD_LEAST to ``cap``) for about ``rows`` rows below them: the
        prefixes' completions (``below``, by state: their level's ``G``), each prefix's spread evenly over its
        children (an estimate, in floats: the counts may be Python integers past int64)."""
        if self.weight is None:
            self.weight = np.cumsum(np.asarray(below[self.states], dtype=np.float64))
        wcum, pos = self.weight, self.pos
        p = int(np.searchsorted(self.cum, pos, side="right"))
        if p >= len(wcum):
            return cap
        start = float(wcum[p - 1]) if p else 0.0  # the rows before prefix p, then before the next child
        start += (float(wcum[p]) - start) * (pos - int(self.first[p])) / int(self.lens[p])
        q = int(np.searchsorted(wcum, start + rows, side="left"))  # the prefix where those rows end
        if q >= len(wcum):
            return cap
        before = float(wcum[q - 1]) if q else 0.0
        end = int(self.first[q]) + ceil((start + rows - before) / max(1.0, float(wcum[q]) - before) * int(self.lens[q]))
        return max(1, min(cap, max(AHEAD_LEAST, end - pos)))

    def _span(self, step: int) -> tuple[int, int, int, int, Keys] | None:
        """The next ``step`` children at most, taken: their places lo..hi-1, the prefixes they extend (p0..p1-1)
        and how many of each one's; None at the end."""
        end = int(self.cum[-1]) if len(self.cum) else 0
        lo = self.pos
        if lo >= end:
            return None
        hi = self.pos = min(end, lo + step)
        p0 = int(np.searchsorted(self.cum, lo, side="right"))
        p1 = int(np.searchsorted(self.cum, hi - 1, side="right")) + 1
        counts = np.minimum(self.cum[p0:p1], hi) - np.maximum(self.first[p0:p1], lo)
        return lo, hi, p0, p1, counts

    def rows(self, step: int) -> tuple[int, int, Keys, Keys, npt.NDArray[Any]] | None:
        """The next ``step`` children at most: the prefixes they extend (p0..p1-1), how many of each one's, and
        where each one's first is in the table ``resolve`` returns (they follow it there); None at the end."""
        span = self._span(step)
        if span is None:
            return None
        lo, hi, p0, p1, counts = span
        base, table, _ = self.resolve(p0, p1)
        first = self.first[p0:p1]
        return p0, p1, counts, base + np.maximum(first, lo) - first, table

    def take(self, step: int) -> tuple[npt.NDArray[Any], Ints, Ints] | None:
        """The next ``step`` children at most: their prefixes (repeated), split indices and target states; None at
        the end."""
        span = self._span(step)
        if span is None:
            return None
        lo, hi, p0, p1, counts = span
        base, kids, tos = self.resolve(p0, p1)
        e = np.arange(lo, hi, dtype=np.int64) + np.repeat(base - self.first[p0:p1], counts)
        prefix = np.repeat(self.prefix[p0:p1], counts) if self.j else self.prefix
        return prefix, kids[e], tos[e]


# -- finding codes among a cut's reached states ------------------------------------------------------------------

_EMPTY = -1  # a free slot of a hash table of codes (codes of live states are >= 0)
_MULT = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of code x this


def _slots(code: Keys, bits: int) -> Keys:
    """The home slot of each code (>= 0) in a table of 2^bits slots."""
    h: Keys = ((code.view(np.uint64) * _MULT) >> np.uint64(64 - bits)).view(np.int64)
    return h


def _insert(keys: Keys, code: Keys, bits: int) -> int:
    """Put the codes (>= 0, repeats allowed) into the open-addressed table ``keys`` (linear probing; it must keep
    free slots); returns at least the number of slots newly filled (a code repeated in ``code`` may count more
    than once)."""
    mask = (1 << bits) - 1
    h = _slots(code, bits)
    filled = 0
    while len(code):
        free = keys[h] == _EMPTY
        keys[h[free]] = code[free]  # of several codes sent to one free slot, one stays; the others probe on
        k = keys[h]
        filled += int(np.count_nonzero(free & (k == code)))
        on = k != code
        code, h = code[on], (h[on] + 1) & mask
    return filled


class _CodeSet:
    """The distinct codes (>= 0) of a cut's states as they are found, in a hash table that doubles when half full:
    no sort of the pairs' codes, one sort of the distinct ones at the end."""

    def __init__(self, check: Callable[[], None] = NEVER.check) -> None:
        self.check = check
        self.bits = 16
        self.keys = np.full(1 << self.bits, _EMPTY, dtype=np.int64)
        self.count = 0  # at least the slots filled (see _insert): recounted before the table grows

    def size(self) -> int:
        self.count = int(np.count_nonzero(self.keys != _EMPTY))
        return self.count

    def add(self, code: Keys) -> None:
        """Put the codes in (repeats allowed): first the table doubles until these could all be new and it
        would still be at most half full."""
        if not len(code):
            return
        if 2 * (self.count + len(code)) > len(self.keys) and 2 * (self.size() + len(code)) > len(self.keys):
            old = self.keys[self.keys != _EMPTY]
            while 2 * (len(old) + len(code)) > 1 << self.bits:
                self.bits += 1
            self.keys = np.full(1 << self.bits, _EMPTY, dtype=np.int64)
            self.count = 0
            for lo in range(0, len(old), INSERT_STEP):
                self.count += _insert(self.keys, old[lo : lo + INSERT_STEP], self.bits)
                self.check()
        self.count += _insert(self.keys, code, self.bits)

    def sorted(self) -> Keys:
        out: Keys = np.sort(self.keys[self.keys != _EMPTY])
        return out


class _CodeIndex:
    """Where codes are in a sorted array of distinct codes (>= 0): a table over their range when it is narrow
    (one gather), else an open-addressed hash table of positions (4 bytes a slot, at least twice as many slots as
    codes, linear probing; a slot's code is read from the array)."""

    __slots__ = ("lo", "table", "codes", "at", "bits", "nbytes")

    def __init__(self, codes: Keys, check: Callable[[], None] = NEVER.check) -> None:
        """``check``: read the clock (between steps of building a hash table)."""
        n = len(codes)
        self.lo = int(codes[0]) - 1 if n else 0
        span = int(codes[-1]) - self.lo + 2 if n else 2
        if not n or span <= max(DENSE_INDEX, DENSE_FACTOR * n):  # position + 1 per code of the range, -1 at both ends
            self.table: npt.NDArray[np.int32] | None = np.full(span, -1, dtype=np.int32)
            self.table[codes - self.lo] = np.arange(n, dtype=np.int32)
            self.nbytes = self.table.nbytes
            return
        self.table = None
        self.codes = codes
        self.bits = max(4, (2 * n).bit_length())
        self.at = np.full(1 << self.bits, -1, dtype=np.int32)
        mask = (1 << self.bits) - 1
        for lo in range(0, n, INSERT_STEP):
            pos = np.arange(lo, min(n, lo + INSERT_STEP), dtype=np.int32)
            h = _slots(codes[pos], self.bits)
            while len(pos):
                free = self.at[h] < 0
                self.at[h[free]] = pos[free]  # of several codes sent to one free slot, one stays
                on = self.at[h] != pos
                pos, h = pos[on], (h[on] + 1) & mask
            check()
        self.nbytes = self.at.nbytes

    def find(self, code: Keys) -> Keys:
        """Each code's position (int64; -1: absent, or negative: a dead pair), in the shape of ``code``."""
        if self.table is not None:
            out: Keys = self.table.take(code - self.lo, mode="clip").astype(np.int64)
            return out
        flat = code.reshape(-1)
        res = np.full(len(flat), -1, dtype=np.int64)
        idx = np.flatnonzero(flat >= 0)
        c = flat[idx]
        h = _slots(c, self.bits)
        mask = (1 << self.bits) - 1
        while len(idx):
            at = self.at[h]
            taken = at >= 0
            hit = taken & (self.codes.take(at, mode="clip") == c)
            res[idx[hit]] = at[hit]
            on = taken & ~hit
            idx, c, h = idx[on], c[on], (h[on] + 1) & mask
        return res.reshape(code.shape)


#: the walk within one source, weighted by its keys' completions: engines/conditioned.py walks with it too
Walk = _Walk
