"""The direct engine: exact counts without listing, lexicographic rank/unrank, and numpy block enumeration.

One dynamic programme serves every question about a component of a :class:`~trample.rules.DamagePlan`.

**Order.** A component's legal assignments are vectors of amounts over ``plan.component_columns(component)``
(sources in plan order; each source's routes in plan order: its blockers in ``blocked_by`` order, then what it
attacks, then that object's controller). The canonical order is the *lexicographic* order of these vectors,
smallest first. Enumeration, :meth:`ComponentDP.rank` and :meth:`ComponentDP.unrank` all use it.

**State.** The columns are read left to right. The only thing that links one column to the next is

- ``rem``: how much of the current source's damage is still to assign (510.1a: all of it), and
- a *frontier*: one small integer per gated resource (a blocker that needs lethal damage, 702.19b / 702.2c,
  or a planeswalker that needs its loyalty, 702.19c) of the component:

  - ``c*2 + R`` while other columns may still add damage to it: ``c`` is the damage assigned so far, capped
    below the need, and ``R`` says whether a gated route that names it has already received damage (so it
    *must* end lethal / loyal);
  - ``FREE``: no constraint left (it already has lethal damage or its loyalty -- totals never go down and one
    deathtouch point is enough -- or nothing will ever ask about it again);
  - ``UNSAT``: its total is final and short, so every later route it gates must stay at 0.

  A resource whose last contribution has been read while ``R`` is set and that is still short kills the
  branch. Resources whose totals are final and that every later gate names together are merged (only their
  conjunction matters), so a trampler's private blockers cost one bit, not one per blocker.

``g[p][state][rem]`` is the number of legal completions of columns ``p..`` from that state; it is computed
backwards over the states reachable forwards, one column at a time, with prefix sums: a column's values split
into ``0``, ``1..k-1`` (each a different capped total) and ``k..rem`` (all the same saturated state, a prefix
sum), so a column costs O(states x damage x min(need, damage)) big-integer additions (O(states x damage) for a
column that feeds no resource). Counts are exact Python integers.

Counting alone does not need the canonical order: :func:`~trample.engines.elimination.count_component` joins one
table per source in an order chosen from the sharing graph (any gates; as-though-unblocked ways summed per source),
or eliminates one source or one blocker at a time (:func:`~trample.engines.by_source.count_shared`) where that is
cheaper; :meth:`DirectEngine.count` uses it unless the programme is already built (docs/scale.md). A few gated
blockers shared by several tramplers, whatever the damage and the needs, are counted first in closed form
(:mod:`~trample.engines.shared`), which also ranks and unranks them past the column programme's trial.

One-attacker components of the usual shapes (no gates; current-rules trample; trample over planeswalkers) also
have closed forms (stars and bars and hockey-stick sums), used by :meth:`DirectEngine.count`; the tests check
them against the programme.

**Enumeration** (:meth:`ComponentDP.blocks`) has two halves. The last columns, from the first column ``s`` at
which the tables of *all* completions (every reachable state and remainder) fit in ``SUFFIX_CELLS`` cells, are
built once, from the end, by ragged gathers. The prefixes (columns ``0..s-1``) are extended one column at a
time in numpy -- for each row, every value whose completion count is positive, in increasing order, so
lexicographic order is kept -- in chunks processed depth-first, and each prefix is glued to its slice of the
table. Memory stays flat whatever the count. :func:`plan_blocks` streams the product across components.
A component of several sources is listed in the same order by the source programme instead, where it lists
(:func:`component_lister`, :class:`~trample.engines.ordered.Lister`: built and listing faster); the column
programme lists lone sources and the components the source programme refuses.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import accumulate, product
from math import comb
from operator import add
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..limits import NEVER, Deadline, LimitReached
from ..models import FormatError
from ..rules import DamagePlan, Gate, Route, SourcePlan
from . import BLOCKS, EFFECTS, PROGRAMME, Programme
from .by_source import compositions, count_shared
from .effects import Effects, effect_counts, listed_effects
from .elimination import COUNTS, Graph, OverBudget, count_component
from .shared import SharedProgramme, column_cells, shared_count, shared_programme

if TYPE_CHECKING:  # imported where used: a count (DirectEngine.count) needs neither ranking programme
    from .conditioned import ConditionedProgramme, PrefixLister
    from .ordered import SourceProgramme

FREE = -1
UNSAT = -2

BLOCK_ROWS = 1 << 16  # rows per block handed out
BLOCK_BYTES = 1 << 24  # plan_blocks: bytes per block at most (fewer rows when rows are wide)
EXPAND_CELLS = 1 << 20  # rows x values examined at once while extending prefixes (bounds temporary memory)
PREFIX_BYTES = 1 << 25  # bytes of prefix rows held across all levels of the depth-first expansion
GLUE_SLICES = 32  # completions per prefix above which prefixes are glued by slice copies
PRODUCT_CACHE_ROWS = 1 << 16  # rows of a product's tail kept in memory while streaming a product
SUFFIX_CELLS = 1 << 22  # cells of the cached tables of completions of the last columns, per component
STATE_LIMIT = 200_000  # frontier states (summed over columns) beyond which enumeration is left to CP-SAT
WORK_LIMIT = 5 * STATE_LIMIT  # transitions examined (forward pass) beyond which enumeration is left to CP-SAT
CELL_LIMIT = 1 << 23  # table cells (states x remainders) beyond which enumeration is left to CP-SAT
SUM_CELLS = 1 << 20  # cells of a resource's table of combined states (needs up to 510) beyond which likewise
TABLE_STATES = 1 << 18  # possible states of a source's table (6x6 all shared: 99 225) beyond which likewise
LIST_WORK = 1 << 28  # past the limits above: work (pairs joined) of the source programme beyond which listing is
# left to CP-SAT (the boards of docs/scale.md's table take up to 2.5e8; a step that would pass it is not begun)

#: A frontier: per resource ``c*2 + R``, ``FREE`` or ``UNSAT`` (see the module).
Frontier = tuple[int, ...]
#: One state's transitions at a column: (k, the state after 0, after 1..k-1, after k and more); -1 = dead.
Transition = tuple[int, int, list[int], int]
#: Rows of amounts (a block of legal vectors, or prefixes), of the block's integer type.
IntMatrix = npt.NDArray[np.integer[Any]]
#: numpy's argument for an integer type (None: the smallest that holds the amounts).
DTypeLike = npt.DTypeLike | None
#: :meth:`ComponentDP._tables`: per position, which (state, remainder) have completions; per column, the state
#: each (state, value) leads to.
NumpyTables = tuple[list[npt.NDArray[np.bool_]], list[npt.NDArray[np.int64]]]
#: :meth:`ComponentDP._suffix_tables`: (s, every completion of columns s.., each key's offset and length).
SuffixTables = tuple[int, IntMatrix, npt.NDArray[np.int64], npt.NDArray[np.int64]]
#: A chunk of prefixes: (rows, states, remainders, whether row 0 is on the path to the first row wanted).
Prefixes = tuple[IntMatrix, npt.NDArray[np.int64], npt.NDArray[np.int64], bool]


class ComponentDP:
    """The counting programme of one component; also ranks, unranks and enumerates in lexicographic order."""

    def __init__(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        state_limit: int | None = None,
        deadline: Deadline | None = None,
    ):
        """``state_limit``: raise :class:`_TooBig` as soon as the programme is seen to outgrow what enumeration
        handles (frontier states, transitions or table cells; see :meth:`DirectEngine.supports`).
        ``deadline``: raise :class:`~trample.limits.LimitReached` when it passes (checked all along).

        In steps: the columns (:meth:`_read_columns`), what canonicalisation looks at (:meth:`_canon_tables`), the
        states forwards (:meth:`_forward`) and the counts backwards (:meth:`_backward`). The plan is read here and
        not kept: the programme is kept in the plan's cache, and a reference back would make a cycle that only the
        cyclic garbage collector frees."""
        self.component = tuple(component)
        cols = plan.component_columns(self.component)
        self.columns = cols
        self.P = P = len(cols)
        self._read_columns(plan)
        self._canon_tables()
        deadline = deadline or NEVER
        self._forward(state_limit, deadline)
        if state_limit is not None:
            cells = sum(len(self.states[p]) * (self.col_damage[p] + 1) for p in range(P))
            if cells > CELL_LIMIT:
                raise _TooBig(cells)
        self._backward(deadline)
        self._np: NumpyTables | None = None  # numpy tables for enumeration, built on demand
        self._suffix: SuffixTables | None = None

    def __getstate__(self) -> dict[str, Any]:
        """What a worker needs to rank, unrank and enumerate (trample.shard ships a built programme once): the
        frontiers themselves and their index are construction-time only, so only how many there were is kept
        (``len(self.states[p])`` is all that is read after ``__init__``)."""
        state = dict(self.__dict__)
        state.pop("index", None)
        state["states"] = [range(len(s)) for s in self.states]
        return state

    def _read_columns(self, plan: DamagePlan) -> None:
        """Per column: its source's damage, whether it is the source's first or last, the resource it feeds (-1:
        none), whether a deathtouch point is lethal there, and the resources its gate names; the resources (gated
        blockers and planeswalkers with a positive need) and their needs."""
        cols, P = self.columns, self.P
        srcs = plan.sources
        self.col_damage = [srcs[i].damage for i, _ in cols]
        self.col_last = [p == P - 1 or cols[p + 1][0] != cols[p][0] for p in range(P)]
        self.col_first = [p == 0 or cols[p - 1][0] != cols[p][0] for p in range(P)]
        need: dict[str, int] = {}
        for i in self.component:
            for r in srcs[i].routes:
                for name in (r.recipient, *(r.gate.lethal if r.gate else ()), *(r.gate.loyalty if r.gate else ())):
                    n = plan.lethal_need.get(name, plan.loyalty_need.get(name, 0))
                    if n > 0:
                        need[name] = n
        self.resources = sorted(need)
        self.res_index = {name: k for k, name in enumerate(self.resources)}
        self.need = [need[name] for name in self.resources]
        self.col_res: list[int] = []
        self.col_dt: list[bool] = []
        self.col_gate: list[tuple[int, ...]] = []
        for i, rec in cols:
            route = srcs[i].route(rec)
            assert route is not None  # every column is one of its source's routes
            k = self.res_index.get(rec, -1)
            self.col_res.append(k)
            # 702.2c: one point from a deathtouch source is lethal (never for loyalty, 702.19c)
            self.col_dt.append(k >= 0 and srcs[i].deathtouch and rec in plan.lethal_need)
            gate: tuple[int, ...] = ()
            if route.gate is not None:
                gate = tuple(
                    sorted(
                        {self.res_index[x] for x in (*route.gate.lethal, *route.gate.loyalty) if x in self.res_index}
                    )
                )
            self.col_gate.append(gate)

    def _canon_tables(self) -> None:
        """What canonicalisation has to look at when position q is reached (after columns 0..q-1): the resources
        whose last contribution / last gate reference was column q-1 (frontiers are canonical before, and a column
        changes only the entries of its gate and of its recipient), and the groups of resources whose totals are
        final and that every later gate names together (only their conjunction matters)."""
        P, K = self.P, len(self.resources)
        last_contrib = [-1] * K
        last_ref = [-1] * K
        refs: list[list[int]] = [[] for _ in range(K)]
        for p in range(P):
            if self.col_res[p] >= 0:
                last_contrib[self.col_res[p]] = p
            for k in self.col_gate[p]:
                last_ref[k] = p
                refs[k].append(p)
        self._cd = [[k for k in range(K) if last_contrib[k] == q - 1] for q in range(P + 1)]
        self._rd = [
            sorted({k for k in range(K) if last_ref[k] == q - 1} | {k for k in self._cd[q] if last_ref[k] < q})
            for q in range(P + 1)
        ]
        self._groups: list[list[list[int]]] = []
        for q in range(P + 1):
            sig: dict[tuple[int, ...], list[int]] = {}
            for k in range(K):
                if last_contrib[k] < q <= last_ref[k]:
                    sig.setdefault(tuple(refs[k][bisect_left(refs[k], q) :]), []).append(k)
            self._groups.append([g for g in sig.values() if len(g) > 1])

    # -- the frontier ------------------------------------------------------------------------------
    def _canon(self, q: int, e: list[int]) -> Frontier | None:
        """The canonical frontier at position q, or None when the branch is dead (a 702.19b/c gate fails)."""
        for k in self._cd[q]:
            x = e[k]
            if x >= 0:  # its total is final and short of the need
                if x & 1:
                    return None
                e[k] = UNSAT
        for k in self._rd[q]:
            x = e[k]
            if x == UNSAT or (x >= 0 and not x & 1):
                e[k] = FREE  # nobody asks about it any more
        for g in self._groups[q]:
            if any(e[k] == UNSAT for k in g):
                e[g[0]] = UNSAT
                for k in g[1:]:
                    e[k] = FREE
        return tuple(e)

    def _forward(self, state_limit: int | None, deadline: Deadline) -> None:
        """The frontier states reachable forwards, column by column (:meth:`_column`); :class:`_TooBig` past
        ``state_limit``."""
        P = self.P
        start = self._canon(0, [0] * len(self.resources))
        self.states: list[list[Frontier]] = [[] for _ in range(P + 1)]
        self.index: list[dict[Frontier, int]] = [{} for _ in range(P + 1)]
        # per column, per state: (k, out0, mids, sat); outcome indices into states[p+1], -1 = dead
        self.trans: list[list[Transition]] = [[] for _ in range(P)]
        if start is not None:
            self.states[0].append(start)
            self.index[0][start] = 0
        total = work = 1
        for p in range(P):
            work = self._column(p, state_limit, deadline, total, work)
            total += len(self.states[p + 1])
            if state_limit is not None and total > state_limit:
                raise _TooBig(total)
        self.n_states = total

    def _column(self, p: int, state_limit: int | None, deadline: Deadline, total: int, work: int) -> int:
        """Column p's transitions from each of its states: the state after 0, after each value below what makes its
        resource lethal / loyal (``mids``), and after any value from there on (``sat``); damage on a gated route
        sets the flag of every gated resource still short (702.19b/c) and is dead when one is already final and
        short. Returns the work counted so far (transitions examined)."""
        nxt_states, nxt_index = self.states[p + 1], self.index[p + 1]

        def intern(st: Frontier | None) -> int:
            if st is None:
                return -1
            j = nxt_index.get(st)
            if j is None:
                j = nxt_index[st] = len(nxt_states)
                nxt_states.append(st)
            return j

        D = self.col_damage[p]
        gate, r, dt = self.col_gate[p], self.col_res[p], self.col_dt[p]
        for n, F in enumerate(self.states[p]):
            if not n & 255:
                deadline.check()
                if state_limit is not None and (total + len(nxt_states) > state_limit or work > WORK_LIMIT):
                    raise _TooBig(total + len(nxt_states))
            out0 = intern(self._canon(p + 1, list(F)))
            e = list(F)
            dead = False
            for k in gate:  # 702.19b/c: damage here needs every gated resource to end lethal/loyal
                x = e[k]
                if x == UNSAT:
                    dead = True
                    break
                if x >= 0:
                    e[k] = x | 1
            mids = []
            if dead:
                kk, sat = 1, -1
            elif r < 0 or e[r] == FREE:
                kk, sat = 1, intern(self._canon(p + 1, e))
            else:
                x = e[r]
                c, R = x >> 1, x & 1
                kk = 1 if dt else self.need[r] - c
                work += min(kk, D + 1)
                if kk > 4096:
                    deadline.check()
                    if state_limit is not None and work > WORK_LIMIT:
                        raise _TooBig(total + len(nxt_states))
                for v in range(1, min(kk, D + 1)):
                    e2 = list(e)
                    e2[r] = ((c + v) << 1) | R
                    mids.append(intern(self._canon(p + 1, e2)))
                e[r] = FREE
                sat = intern(self._canon(p + 1, e))
            self.trans[p].append((kk, out0, mids, sat))
        return work

    def _backward(self, deadline: Deadline) -> None:
        P = self.P
        check = deadline.check if deadline else None
        g: list[list[list[int]]] = [[] for _ in range(P + 1)]
        g[P] = [[1] for _ in self.states[P]]  # at most one state: everything closed
        for p in range(P - 1, -1, -1):
            D = self.col_damage[p]
            nxt = g[p + 1]
            rows = []
            if self.col_last[p]:
                # v = rem: the source's last route takes what is left (510.1a)
                at = self.col_damage[p + 1] if p + 1 < P else 0
                scal = [v[at] for v in nxt]
                for n, (kk, o0, mids, sat) in enumerate(self.trans[p]):
                    if check and (not n & 63 or D > 1 << 12):
                        check()
                    row = [0] * (D + 1)
                    for v in range(D + 1):
                        if check and not v & 0xFFFF:  # rows of a million amounts: the limit holds inside one
                            check()
                        o = o0 if v == 0 else (mids[v - 1] if v < kk else sat)
                        if o >= 0:
                            row[v] = scal[o]
                    rows.append(row)
            elif self.col_first[p]:
                # a source's first column is only ever reached with all its damage left
                for n, (kk, o0, mids, sat) in enumerate(self.trans[p]):
                    if check and not n & 63:
                        check()
                    total = nxt[o0][D] if o0 >= 0 else 0
                    for v, o in enumerate(mids, 1):
                        if o >= 0:
                            total += nxt[o][D - v]
                    if sat >= 0 and kk <= D:
                        total += sum(nxt[sat][: D - kk + 1])
                    row = [0] * (D + 1)
                    row[D] = total
                    rows.append(row)
            else:
                zero = [0] * (D + 1)
                for kk, o0, mids, sat in self.trans[p]:
                    row = list(nxt[o0]) if o0 >= 0 else list(zero)
                    for v, o in enumerate(mids, 1):
                        if check and not v & 15:
                            check()
                        if o >= 0:
                            _add_into(row, v, nxt[o], D + 1 - v, check)
                    if sat >= 0 and kk <= D:
                        ps = _prefix_sums(nxt[sat], D + 1 - kk, check)
                        _add_into(row, kk, ps, D + 1 - kk, check)
                    rows.append(row)
                    if check:
                        check()
            g[p] = rows
        self.g = g
        self.total = g[0][0][self.col_damage[0]] if self.P and self.states[0] else (1 if not self.P else 0)

    # -- the questions ------------------------------------------------------------------------------
    def count(self) -> int:
        return self.total

    def _out(self, p: int, j: int, v: int) -> int:
        kk, o0, mids, sat = self.trans[p][j]
        if v == 0:
            return o0
        return mids[v - 1] if v < kk else sat

    def _after(self, p: int, o: int, rem_after: int) -> int:
        """Completions from state o at position p+1 (rem_after left of the same source)."""
        if o < 0:
            return 0
        if self.col_last[p]:
            return self.g[p + 1][o][self.col_damage[p + 1] if p + 1 < self.P else 0]
        return self.g[p + 1][o][rem_after]

    def rank(self, vector: Sequence[int]) -> int | None:
        """The vector's index in lexicographic order among the legal ones, or None when it is not legal."""
        if len(vector) != self.P or self.total == 0:
            return None
        j, rem, idx = 0, self.col_damage[0], 0
        for p, x in enumerate(vector):
            if self.col_first[p]:
                rem = self.col_damage[p]
            if not 0 <= x <= rem or (self.col_last[p] and x != rem):
                return None
            if not self.col_last[p]:
                for v in range(x):
                    idx += self._after(p, self._out(p, j, v), rem - v)
            o = self._out(p, j, x)
            if self._after(p, o, rem - x) == 0:
                return None
            j, rem = o, rem - x
        return idx

    def unrank(self, index: int) -> tuple[int, ...]:
        """The vector at ``index`` (0 <= index < count) in lexicographic order."""
        if not 0 <= index < self.total:
            raise IndexError(f"index {index} out of range for {self.total} assignments")
        out = []
        j, rem = 0, 0
        for p in range(self.P):
            if self.col_first[p]:
                rem = self.col_damage[p]
            if self.col_last[p]:
                chosen = rem
            else:
                for v in range(rem + 1):
                    n = self._after(p, self._out(p, j, v), rem - v)
                    if index < n:
                        chosen = v
                        break
                    index -= n
                else:  # pragma: no cover - the counts are exact
                    raise AssertionError("unrank ran past the counts")
            out.append(chosen)
            j, rem = self._out(p, j, chosen), rem - chosen
        return tuple(out)

    def _suffix_rank(self, s: int, j: int, rem: int, vector: Sequence[int]) -> int:
        """The index of ``vector[s:]`` among the completions of state ``j`` with ``rem`` left at column s."""
        idx = 0
        for p in range(s, self.P):
            x = vector[p]
            if self.col_first[p]:
                rem = self.col_damage[p]
            if not self.col_last[p]:
                for v in range(x):
                    idx += self._after(p, self._out(p, j, v), rem - v)
            j, rem = self._out(p, j, x), rem - x
        return idx

    # -- enumeration in numpy blocks -----------------------------------------------------------------
    def numpy_tables(self) -> NumpyTables:
        """The numpy tables enumeration reads (built once; trample.shard builds them before shipping)."""
        return self._tables()

    def _tables(self) -> NumpyTables:
        """Per column: outcome state for (state, v) and, per next state, whether it has completions."""
        if self._np is not None:
            return self._np
        P = self.P
        pos = []  # pos[q]: bool array (states_q + 1, D_q + 1); the extra last row is the dead state
        for q in range(P + 1):
            D = self.col_damage[q] if q < P else 0
            arr = np.zeros((len(self.states[q]) + 1, D + 1), dtype=bool)
            for j, vec in enumerate(self.g[q]):
                arr[j, : len(vec)] = [x > 0 for x in vec]
            pos.append(arr)
        outs = []
        for p in range(P):
            D = self.col_damage[p]
            dead = len(self.states[p + 1])
            arr = np.full((len(self.states[p]), D + 1), dead, dtype=np.int64)
            for j, (kk, o0, mids, sat) in enumerate(self.trans[p]):
                arr[j, 0] = o0 if o0 >= 0 else dead
                for v, o in enumerate(mids, 1):
                    arr[j, v] = o if o >= 0 else dead
                if kk <= D:
                    arr[j, kk:] = sat if sat >= 0 else dead
            outs.append(arr)
        self._np = (pos, outs)
        return self._np

    def _step(
        self, p: int, mat: IntMatrix, js: npt.NDArray[np.int64], rems: npt.NDArray[np.int64]
    ) -> tuple[IntMatrix, npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.intp]]:
        """Extend every row by every value of column p that has completions, values increasing.

        Returns (mat, js, rems, parent): rows stay grouped by their parent row, in order, so lexicographic
        order is kept.
        """
        pos, outs = self._tables()
        P = self.P
        out = outs[p]
        if self.col_last[p]:  # 510.1a: the source's last route takes what is left
            o = out[js, rems]
            if p + 1 < P:
                keep = pos[p + 1][o, self.col_damage[p + 1]]
                new_rem = self.col_damage[p + 1]
            else:
                keep = pos[P][o, 0]
                new_rem = 0
            parent = np.flatnonzero(keep)
            if len(parent) != len(js):
                mat, o, rems = mat[parent], o[parent], rems[parent]
            else:
                mat = mat.copy()
            mat[:, p] = rems
            return mat, o, np.full(len(o), new_rem, dtype=np.int64), parent
        D = self.col_damage[p]
        vs = np.arange(D + 1)
        left = rems[:, None] - vs[None, :]
        o = out[js]
        ok = (left >= 0) & pos[p + 1][o, np.maximum(left, 0)]
        parent, v_idx = np.nonzero(ok)  # row-major: parents in order, values increasing
        mat = mat[parent]
        mat[:, p] = v_idx
        return mat, o[parent, v_idx], left[parent, v_idx], parent

    def _split_level(self) -> int:
        """The first column from which the tables of all completions (every reachable state and remainder)
        fit in SUFFIX_CELLS cells; completions from there on are generated once and reused."""
        best = self.P
        for q in range(self.P, -1, -1):
            if q == self.P:
                continue
            D = self.col_damage[q]
            rems = [D] if self.col_first[q] else range(D + 1)
            cells = sum(vec[r] for vec in self.g[q] for r in rems) * (self.P - q)
            if cells > SUFFIX_CELLS:
                break
            best = q
        return best

    def _suffix_tables(self, dtype: np.dtype[Any]) -> SuffixTables:
        """(s, table, off, ln): every completion of columns s.. for every (state, remainder) key at s, built
        once, level by level from the end (a key's rows are, for each value v in increasing order, v followed
        by the rows of the key v leads to); key (j, rem) owns rows off[j, rem] .. off[j, rem] + ln[j, rem].

        Each level keeps only its first column and a pointer into the next level; the table at s is then
        read off column by column (two 1-D gathers per column)."""
        if self._suffix is not None and self._suffix[1].dtype == dtype:
            return self._suffix
        s = self._split_level()
        _, outs = self._tables()
        P = self.P
        final = len(self.states[P])
        off = np.zeros((final + 1, 1), dtype=np.int64)
        ln = np.zeros((final + 1, 1), dtype=np.int64)
        if final:
            ln[0, 0] = 1
        levels = []  # (values, child pointers), from the last level back to s
        for q in range(P - 1, s - 1, -1):
            D = self.col_damage[q]
            ns = len(self.states[q])
            if self.col_last[q] or self.col_first[q]:
                rem_list = np.array([D] if self.col_first[q] else range(D + 1), dtype=np.int64)
                Kj = np.repeat(np.arange(ns), len(rem_list))
                Kr = np.broadcast_to(rem_list, (ns, len(rem_list))).ravel()
            if self.col_last[q]:
                V = Kr
                CR = np.full(len(Kj), self.col_damage[q + 1] if q + 1 < P else 0, dtype=np.int64)
            else:
                if self.col_first[q]:  # rem = D: every v in 0..D
                    Kj = np.repeat(Kj, D + 1)
                    Kr = np.full(len(Kj), D, dtype=np.int64)
                    V = np.broadcast_to(np.arange(D + 1), (ns, D + 1)).ravel()
                else:  # every (rem, v) with v <= rem, in (state, rem, v) order
                    r_of, v_of = np.nonzero(np.tri(D + 1, dtype=bool))
                    Kj = np.repeat(np.arange(ns), len(r_of))
                    Kr = np.tile(r_of, ns)
                    V = np.tile(v_of, ns)
                CR = Kr - V
            Oc = outs[q][Kj, V]
            L = ln[Oc, CR]
            keep = np.flatnonzero(L)
            Kj, Kr, V, Oc, CR, L = Kj[keep], Kr[keep], V[keep], Oc[keep], CR[keep], L[keep]
            ends = np.cumsum(L)
            total = int(ends[-1]) if len(ends) else 0
            child = np.repeat(off[Oc, CR] - (ends - L), L) + np.arange(total)
            levels.append((np.repeat(V, L).astype(dtype), child))
            # rows per key (small: the tables hold at most SUFFIX_CELLS cells, so floats count exactly)
            key_len = np.bincount(Kj * (D + 1) + Kr, weights=L, minlength=(ns + 1) * (D + 1)).astype(np.int64)
            key_off = np.cumsum(key_len) - key_len  # keys are laid out in (state, remainder) order
            off, ln = key_off.reshape(ns + 1, D + 1), key_len.reshape(ns + 1, D + 1)
        levels.reverse()
        n = len(levels[0][0]) if levels else final
        table = np.empty((n, P - s), dtype=dtype)
        ptr = np.arange(n)
        for c, (vals, child) in enumerate(levels):
            table[:, c] = vals[ptr]
            ptr = child[ptr]
        self._suffix = (s, table, off, ln)
        return self._suffix

    def blocks(
        self, rows: int = BLOCK_ROWS, dtype: DTypeLike = None, deadline: Deadline | None = None, start: int = 0
    ) -> Iterator[IntMatrix]:
        """Every legal vector exactly once, in lexicographic order, as int matrices of at most ``rows`` rows
        (exactly ``rows`` except at the ends of chunks). ``deadline``: checked between blocks (LimitReached).

        ``start``: begin at that index of the order (the rows before it are never built: the prefixes on the path
        to ``unrank(start)`` are cut below its values, and its completion table entered at its suffix's rank).

        In steps: the prefixes, depth-first (:meth:`_prefixes`), each glued to its table of completions
        (:meth:`_glue`)."""
        deadline = deadline or NEVER
        if self.total == 0 or not 0 <= start < self.total:
            return
        first = self.unrank(start) if start else None
        dt = np.dtype(dtype or dtype_for(max(self.col_damage, default=0)))
        if self.P == 0:
            yield np.zeros((1, 0), dtype=dt)
            return
        rows = max(1, int(rows))
        suffix = self._suffix_tables(dt)
        for prefix in self._prefixes(suffix[0], first, dt, deadline):
            yield from self._glue(prefix, suffix, first, rows, dt, deadline)

    def _prefixes(
        self, s: int, first: tuple[int, ...] | None, dtype: np.dtype[Any], deadline: Deadline
    ) -> Iterator[Prefixes]:
        """The prefixes (columns 0..s-1) in lexicographic order, in chunks: (rows, states, remainders, whether row 0
        is on the path to ``first``). Depth-first, one bounded chunk per level: a level's chunk is extended a slice
        of rows at a time, and the slice's children are finished before the next slice is taken. Memory is at most
        s chunks of `chunk` rows whatever the board (a chain of shared blockers held a million-row chunk per level,
        gigabytes for one line)."""
        P = self.P
        chunk = max(1 << 8, min(EXPAND_CELLS, PREFIX_BYTES // (max(1, s) * (P * dtype.itemsize + 16))))
        stack: list[list[Any]] = [
            [
                0,
                np.zeros((1, P), dtype=dtype),
                np.zeros(1, dtype=np.int64),
                np.full(1, self.col_damage[0], dtype=np.int64),
                0,
                first is not None,  # row 0 is on the path to `first`
            ]
        ]
        while stack:
            deadline.check()
            top = stack[-1]
            p, mat, js, rems, at, tight = top
            if p < s:
                width = 1 if self.col_last[p] else self.col_damage[p] + 1
                take = max(1, chunk // width)
                if at + take >= len(js):
                    stack.pop()
                else:
                    top[4] = at + take
                tight = tight and at == 0
                mat, js, rems, parent = self._step(p, mat[at : at + take], js[at : at + take], rems[at : at + take])
                if tight:  # drop the children of row 0 below first[p]; the one equal to it stays on the path
                    assert first is not None  # tight only on the path to `first`
                    cut = int(np.count_nonzero((parent == 0) & (mat[:, p] < first[p])))
                    mat, js, rems = mat[cut:], js[cut:], rems[cut:]
                if len(js):
                    stack.append([p + 1, mat, js, rems, 0, tight])
                continue
            stack.pop()
            yield mat, js, rems, tight

    def _glue(
        self,
        prefix: Prefixes,
        suffix: SuffixTables,
        first: tuple[int, ...] | None,
        rows: int,
        dtype: np.dtype[Any],
        deadline: Deadline,
    ) -> Iterator[IntMatrix]:
        """Each prefix of a chunk glued to its table of completions, in windows of ``rows`` output rows (by slice
        copies when the runs are long); on the path to ``first``, its table is entered at the rank of first's
        suffix."""
        mat, js, rems, tight = prefix
        s, table, off, ln = suffix
        P = self.P
        starts, lengths = off[js, rems], ln[js, rems]
        if tight:  # the path to `first`: enter its table at the rank of first's suffix
            assert first is not None
            skip = self._suffix_rank(s, int(js[0]), int(rems[0]), first)
            starts, lengths = starts.copy(), lengths.copy()
            starts[0] += skip
            lengths[0] -= skip
        ends = np.cumsum(lengths)
        begins = ends - lengths
        total = int(ends[-1]) if len(ends) else 0
        if total >= GLUE_SLICES * len(js):  # long runs: plain slice copies
            for block in self._glue_slices(mat, s, starts, lengths, table, rows, dtype):
                yield block
                deadline.check()
            return
        for a in range(0, total, rows):
            if a:
                deadline.check()
            b = min(total, a + rows)
            at = np.arange(a, b)
            who = np.searchsorted(ends, at, side="right")
            block = np.empty((b - a, P), dtype=dtype)
            block[:, :s] = mat[who, :s]
            block[:, s:] = table[starts[who] + (at - begins[who])]
            yield block

    def _glue_slices(
        self,
        mat: IntMatrix,
        s: int,
        starts: npt.NDArray[np.int64],
        lengths: npt.NDArray[np.int64],
        table: IntMatrix,
        rows: int,
        dtype: np.dtype[Any],
    ) -> Iterator[IntMatrix]:
        """Prefixes glued to long runs of their completions by slice copies, in blocks of ``rows`` rows."""
        P = self.P
        block = np.empty((rows, P), dtype=dtype)
        fill = 0
        for i, (st, n) in enumerate(zip(starts.tolist(), lengths.tolist())):
            while n:
                take = min(n, rows - fill)
                block[fill : fill + take, :s] = mat[i, :s]
                block[fill : fill + take, s:] = table[st : st + take]
                fill += take
                st += take
                n -= take
                if fill == rows:
                    yield block
                    block = np.empty((rows, P), dtype=dtype)
                    fill = 0
        if fill:
            yield block[:fill]


class _TooBig(Exception):
    pass


_CHUNK = 1 << 15  # the slice of a programme row added between two looks at the deadline


def _add_into(row: list[int], at: int, src: list[int], n: int, check: Callable[[], None] | None) -> None:
    """``row[at + i] += src[i]`` for ``i < n``, in slices with a look at the deadline between them (a row of a
    million big counts takes a good part of a second to add)."""
    n = min(n, len(src))
    for i in range(0, n, _CHUNK):
        j = min(n, i + _CHUNK)
        row[at + i : at + j] = map(add, row[at + i : at + j], src[i:j])
        if check and j < n:
            check()


def _prefix_sums(src: list[int], n: int, check: Callable[[], None] | None) -> list[int]:
    """The first ``n`` prefix sums of ``src``, in slices with a look at the deadline between them."""
    out: list[int] = []
    carry = 0
    for i in range(0, min(n, len(src)), _CHUNK):
        part = list(accumulate(src[i : min(n, i + _CHUNK)], initial=carry))[1:]
        out += part
        carry = part[-1]
        if check:
            check()
    return out


def dtype_for(max_amount: int) -> type[np.signedinteger[Any]]:
    """The smallest numpy integer type that holds ``max_amount``."""
    for dt in (np.int8, np.int16, np.int32):
        if max_amount <= np.iinfo(dt).max:
            return dt
    return np.int64


# ---------------------------------------------------------------------------------------------
# Closed forms for one-source components
# ---------------------------------------------------------------------------------------------


def _c(n: int, k: int) -> int:
    return comb(n, k) if n >= 0 and 0 <= k <= n else 0


def _gate(route: Route) -> Gate:
    """The gate of a route known to be gated."""
    assert route.gate is not None
    return route.gate


def closed_form_count(plan: DamagePlan, component: Sequence[int]) -> int | None:
    """The count of a one-source component by a formula, or None when its shape has none here.

    Shapes: no gates (510.1b/c/d: stars and bars); blockers then one route gated by lethal on all of them
    (702.19b, 702.19e: :func:`_over_blockers`); blockers then the attacked planeswalker (702.19b) and its controller
    (702.19c: :func:`_over_blockers_and_walker`); an unblocked trampler over planeswalkers (702.19c:
    :func:`_over_walker`).
    """
    if len(component) != 1:
        return None
    src = plan.sources[component[0]]
    D, routes = src.damage, src.routes
    gated = [r for r in routes if r.gate is not None]
    if not gated:
        return compositions(D, len(routes))
    free = [r for r in routes if r.gate is None]
    names = [r.recipient for r in free]
    if len(gated) == 1 and routes[-1] is gated[0] and not _gate(gated[0]).loyalty:
        return _over_blockers(plan, src, gated[0], names)
    if len(gated) == 2 and routes[-2:] == tuple(gated) and len(free) == len(routes) - 2:
        return _over_blockers_and_walker(plan, src, gated[0], gated[1], names)
    if len(routes) == 2 and routes[0].gate is None and routes[1].gate is not None:
        return _over_walker(plan, src)
    return None


def _lethal_sum(plan: DamagePlan, src: SourcePlan, blockers: Sequence[str]) -> int | None:
    """The damage that makes every one of ``blockers`` lethal (702.19b; 1 each from a deathtouch source, 702.2c),
    or None when one of them has no lethal need."""
    total = 0
    for b in blockers:
        n = plan.lethal_need.get(b)
        if n is None:
            return None
        total += (1 if src.deathtouch else n) if n > 0 else 0
    return total


def _over_blockers(plan: DamagePlan, src: SourcePlan, g: Route, names: list[str]) -> int | None:
    """Blockers, then one route gated by lethal damage on all of them (702.19b, 702.19e)."""
    D = src.damage
    if (
        sorted(_gate(g).lethal) != sorted(names)
        or len(set(names)) != len(names)
        or g.recipient in names
        or g.recipient in plan.loyalty_need
        or g.recipient in plan.lethal_need
    ):
        return None
    S, k = _lethal_sum(plan, src, names), len(names)
    if S is None:
        return None
    # everything on the blockers, or every blocker lethal and t >= 1 over the top (hockey stick)
    return compositions(D, k) + (_c(D - S - 1 + k, k) if D - S >= 1 else 0)


def _over_blockers_and_walker(plan: DamagePlan, src: SourcePlan, t: Route, ctl: Route, names: list[str]) -> int | None:
    """Blockers, then the attacked planeswalker ``t`` (702.19b) and its controller ``ctl`` (702.19c)."""
    if (
        sorted(_gate(t).lethal) != sorted(names)
        or _gate(t).loyalty
        or sorted(_gate(ctl).lethal) != sorted(names)
        or tuple(_gate(ctl).loyalty) != (t.recipient,)
        or len(set(names)) != len(names)
        or not names
    ):
        return None
    if t.recipient not in plan.loyalty_need or ctl.recipient in plan.lethal_need or ctl.recipient in plan.loyalty_need:
        return None
    D = src.damage
    S, k, L = _lethal_sum(plan, src, names), len(names), plan.loyalty_need[t.recipient]
    if S is None:
        return None
    M = D - S
    total = compositions(D, k)
    if M >= 1:
        total += _c(M - 1 + k, k)  # controller 0, attacked planeswalker >= 1
    if M - L - 1 >= 0:
        total += _c(M - L + k, k + 1)  # controller >= 1 after the loyalty (702.19c)
    return total


def _over_walker(plan: DamagePlan, src: SourcePlan) -> int | None:
    """An unblocked trampler attacking a planeswalker: the planeswalker, then its controller (702.19c)."""
    t, ctl = src.routes
    if (
        _gate(ctl).lethal
        or tuple(_gate(ctl).loyalty) != (t.recipient,)
        or t.recipient not in plan.loyalty_need
        or ctl.recipient in plan.loyalty_need
        or ctl.recipient in plan.lethal_need
    ):
        return None
    L = plan.loyalty_need[t.recipient]
    return 1 + max(0, src.damage - L)  # all to the planeswalker, or its loyalty met and 1.. to its controller


# ---------------------------------------------------------------------------------------------
# Whole plans: the product of the components, in blocks
# ---------------------------------------------------------------------------------------------


def plan_blocks(
    plan: DamagePlan,
    rows: int = BLOCK_ROWS,
    dtype: DTypeLike = None,
    cache_rows: int = PRODUCT_CACHE_ROWS,
    deadline: Deadline | None = None,
    start: int = 0,
    stop: int | None = None,
) -> Iterator[IntMatrix]:
    """Every legal assignment of the plan as rows over ``plan.columns``, in the canonical order (the product of
    the components' lexicographic orders, first component slowest), in blocks of at most ``rows`` rows.

    Memory stays flat: the last components are materialised only while their product has at most
    ``cache_rows`` rows; otherwise they are generated again for every row of the components before them.
    ``deadline``: :class:`~trample.limits.LimitReached` once it passes (while building or between blocks).
    ``start``, ``stop``: only the rows of canonical indices ``start <= i < stop`` (a shard: nothing before
    ``start`` is generated).
    """
    deadline = deadline or NEVER
    left = None if stop is None else max(0, stop - start)
    if left == 0:
        return
    dps = [component_lister(plan, c, deadline) for c in plan.components]
    dtype = np.dtype(dtype or dtype_for(max((s.damage for s in plan.sources), default=0)))
    cols = [c for dp in dps for c in dp.columns]
    where = {c: k for k, c in enumerate(cols)}
    order = np.array([where[c] for c in plan.columns], dtype=np.int64)
    identity = bool(np.array_equal(order, np.arange(len(cols))))
    # at most BLOCK_BYTES per block however wide the rows (a thousand attackers: 2000 columns)
    rows = max(1, min(int(rows), BLOCK_BYTES // max(1, len(cols) * dtype.itemsize)))
    for block in _product(dps, rows, dtype, cache_rows, start):
        if left is not None:
            block = block[:left]
            left -= len(block)
        yield block if identity else block[:, order]
        if left == 0:
            return
        deadline.check()


def _product(
    dps: Sequence[ComponentDP | SourceProgramme | PrefixLister | SharedProgramme],
    rows: int,
    dtype: np.dtype[Any],
    cache_rows: int,
    start: int = 0,
) -> Iterator[IntMatrix]:
    """The product of the components' orders (first slowest), iteratively: no recursion, whatever the number of
    components (a thousand independent attackers).

    The longest tail of components whose product has at most ``cache_rows`` rows is materialised once (mixed
    radix digits, gathered); the component before it streams its blocks, each tiled against the tail; the
    components before that are an odometer of single rows, each restarted from its first block when it wraps.
    ``start``: the index of the first row (each component starts at its digit of it, the first time round).
    """
    cut = _cut(dps, cache_rows, start)
    if cut is None:
        return
    digits, k, size = cut
    tail = _materialise(dps[k:], size, dtype)
    t = len(tail)
    toff = 0  # the first row of the tail, the first time round
    for dp, d in zip(dps[k:], digits[k:]):
        toff = toff * dp.count() + d
    if k == 0:
        for a in range(toff, t, rows):
            yield tail[a : a + rows]
        return
    mid, outer = dps[k - 1], dps[: k - 1]
    wo = sum(dp.P for dp in outer)
    wm = mid.P
    width = wo + wm + tail.shape[1]
    prefix = np.zeros(wo, dtype=dtype)
    bounds = list(accumulate((dp.P for dp in outer), initial=0))
    iters = [_rows(dp, rows, dtype, d) for dp, d in zip(outer, digits)]
    for i, it in enumerate(iters):  # the first combination
        prefix[bounds[i] : bounds[i + 1]] = next(it)
    mstart = digits[k - 1]
    while True:
        for block in mid.blocks(rows, dtype, start=mstart):
            mstart = 0
            if t == 1 and not wo and not tail.shape[1]:
                yield block
                continue
            total = len(block) * t
            for a in range(toff, total, rows):
                at = np.arange(a, min(total, a + rows))
                hi, ti = np.divmod(at, t)
                out = np.empty((len(at), width), dtype=dtype)
                out[:, :wo] = prefix
                out[:, wo : wo + wm] = block[hi]
                out[:, wo + wm :] = tail[ti]
                yield out
            toff = 0
        # the next combination of the outer components (the last one fastest)
        i = len(outer) - 1
        while i >= 0:
            row = next(iters[i], None)
            if row is not None:
                prefix[bounds[i] : bounds[i + 1]] = row
                break
            iters[i] = _rows(outer[i], rows, dtype)
            prefix[bounds[i] : bounds[i + 1]] = next(iters[i])
            i -= 1
        if i < 0:
            return


def _cut(
    dps: Sequence[ComponentDP | SourceProgramme | PrefixLister | SharedProgramme], cache_rows: int, start: int
) -> tuple[list[int], int, int] | None:
    """:func:`_product`'s digits of ``start`` (one per component), the first component of its materialised tail and
    the tail's rows; None when there is no row (an empty component, or ``start`` past the end). From the first row
    no count is asked for, only whether each component of the tail has at most so many rows (:func:`_within`)."""
    if any(_within(dp, 0) == 0 for dp in dps):
        return None
    digits = [0] * len(dps)
    if start:
        for c in reversed(range(len(dps))):
            start, digits[c] = divmod(start, dps[c].count())
        if start:  # past the end
            return None
    k, size = len(dps), 1
    while k > 0:
        n = _within(dps[k - 1], cache_rows // size)
        if n is None:
            break
        k -= 1
        size *= n
    return digits, k, size


def _within(dp: ComponentDP | SourceProgramme | PrefixLister | SharedProgramme, limit: int) -> int | None:
    """The component's count where it is at most ``limit``, else None: the prefix lister answers without its count
    where that is not known (it lists up to ``limit`` + 1 rows and keeps them for its listing:
    ``PrefixLister.within``)."""
    from .conditioned import PrefixLister

    if isinstance(dp, PrefixLister):
        return dp.within(limit)
    n = dp.count()
    return n if n <= limit else None


def _rows(
    dp: ComponentDP | SourceProgramme | PrefixLister | SharedProgramme, rows: int, dtype: np.dtype[Any], start: int = 0
) -> Iterator[IntMatrix]:
    """The rows of one component's order, one at a time, from index ``start``."""
    for block in dp.blocks(rows, dtype, start=start):
        yield from block


def _materialise(
    dps: Sequence[ComponentDP | SourceProgramme | PrefixLister | SharedProgramme], size: int, dtype: np.dtype[Any]
) -> IntMatrix:
    """Every row of the product of small components (``size`` rows in all), in order, as one matrix."""
    width = sum(dp.P for dp in dps)
    out = np.empty((size, width), dtype=dtype)
    idx = np.arange(size)
    at = width
    for dp in reversed(dps):
        n = dp.count()
        full = np.concatenate(list(dp.blocks(max(1, n), dtype)), axis=0)
        idx, digit = np.divmod(idx, n)
        out[:, at - dp.P : at] = full[digit]
        at -= dp.P
    return out


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------


def known_count(plan: DamagePlan, component: Sequence[int]) -> int | None:
    """The count of a component where it costs nothing more: a closed form (no as-though-unblocked option), a
    programme already built for it (enumeration, rank or a lister's test asked first), or a count kept in the plan's
    cache (:data:`~trample.engines.elimination.COUNTS`); else None."""
    key = tuple(component)
    if not plan.options_in(component):
        n = closed_form_count(plan, component)
        if n is not None:
            return n
        dp: Programme | None = plan.cache.of("direct").get(key) or plan.cache.of("direct-ordered").get(key)
        if dp is not None:
            return dp.count()
    known = plan.cache.of(COUNTS).get(key)
    return None if known is None else int(known)


def component_dp(plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> ComponentDP:
    """The (cached) programme of one component of a plan (``deadline``: LimitReached while building it)."""
    refuse_options(plan, component)
    cache = plan.cache.of("direct")
    key = tuple(component)
    dp = cache.get(key)
    if dp is None:
        dp = cache[key] = ComponentDP(plan, key, deadline=deadline)
    return dp


def component_lister(
    plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None
) -> ComponentDP | SourceProgramme | PrefixLister | SharedProgramme:
    """The programme that lists one component in the canonical order: for several sources, the source programme
    where it lists (:func:`source_lister`; :class:`~trample.engines.ordered.Lister`: depth first over the sources,
    built and listing faster than the column programme on every board of docs/scale.md section 4e); else the column
    programme where it builds within COLUMN_TRIAL, else the count's join tree walked depth first down to prefixes
    whose rooted source programme is small (:func:`prefix_lister`), else the column programme whatever its size."""
    refuse_options(plan, component)
    key = tuple(component)
    if len(key) > 1 and not _few_listed(plan, key, deadline):
        quick = quick_lister(plan, key, deadline)
        if quick is not None:
            return quick
        prog = source_lister(plan, key, deadline)
        if prog is not None:
            return prog
        shared = _shared_lister(plan, key)
        if shared is not None:
            return shared
        if key not in plan.cache.of("direct"):
            lister = prefix_lister(plan, key, deadline)
            if lister is not None:
                return lister
    return component_dp(plan, key, deadline)


def lists_within_bounds(plan: DamagePlan, key: tuple[int, ...], deadline: Deadline | None = None) -> bool:
    """Does :func:`component_lister` list this component (several sources, no option) with a programme built within
    bounds, the same one it then lists with: the source programme (:func:`source_lister`), else the count's join
    tree walked down to small rooted source programmes (:func:`prefix_lister`), or the column programme where its
    trial built it? The prefix lister is asked only where the source programme passed its work bound alone (not its
    shape's: :func:`_unlisted_shape`), since its rooted programmes are source programmes on the same tables (on two
    power-10 000 tramplers sharing a 5 000-toughness blocker it is built in 0.7 s but lists no block in 300 s, where
    CP-SAT lists at once). False when the listers refuse (the caller then asks :func:`bounded_dp`). On
    random_sharing(12, 14, 4) boards the source programme passes LIST_WORK and the column programme STATE_LIMIT,
    but the prefix lister builds in about 0.06 s: "auto" lists them with it, not with CP-SAT (docs/scale.md). The
    cheap listers are tried first (:func:`quick_lister`): either builds only where the old order's answer is yes."""
    if quick_lister(plan, key, deadline) is not None:
        return True
    if source_lister(plan, key, deadline) is not None:
        return True
    if key in plan.cache.of("direct"):  # the column programme, built already: component_lister takes it
        return True
    if _unlisted_shape(plan, key):
        return _shared_lister(plan, key) is not None
    return prefix_lister(plan, key, deadline) is not None or key in plan.cache.of("direct")


def _shared_lister(plan: DamagePlan, key: tuple[int, ...]) -> SharedProgramme | None:
    """The closed form of a few shared gated blockers (:mod:`~trample.engines.shared`) as the lister of a component
    of its shape that the table-based listers refuse by their shape alone (:func:`_unlisted_shape`: a source's
    splits past SPLIT_LIMIT, tables past their bounds; three tramplers of 3 000 on two blockers of 2 000, whose
    column programme never builds): depth first, a few counts a row (cached as :func:`index_programme` caches it)."""
    if not SHARED or not _unlisted_shape(plan, key):
        return None
    if not any(set(g) == set(key) for g in plan.components) or any(not plan.sources[i].routes for i in key):
        return None  # refused for its shape, not its size: part of a way's component (as-though-unblocked options)
    cache = plan.cache.of("direct")
    got = cache.get(key)
    if isinstance(got, SharedProgramme):
        return got
    if got is not None or plan.options_in(key):
        return None
    shared = shared_programme(plan, key)
    if shared is not None:
        cache[key] = shared
    return shared


def quick_lister(
    plan: DamagePlan, key: tuple[int, ...], deadline: Deadline | None = None
) -> SourceProgramme | PrefixLister | None:
    """The listers that cost little, tried (once per plan) before :func:`source_lister`'s build within LIST_WORK,
    which on random_sharing(12, 14, 4) refuses after 0.07-1.4 s of CPU: the source programme within the rooted
    programmes' bound (``conditioned.ROOT_WORK``, or LIST_WORK if lower; cached as :func:`source_lister`'s), else
    the prefix lister, lazy (no completion made, no count), where its first prefix leaves at least PREFIX_FREE
    sources free (cached as :func:`prefix_lister`'s). None when neither does (then the source programme within
    LIST_WORK, the column trial and the prefix lister are asked as before). The rows do not depend on the lister
    (each lists the canonical order), and the answer of :func:`lists_within_bounds` does not either: each of these
    builds only where the source programme or the prefix lister would build in the old order."""
    from .conditioned import PrefixLister

    verdicts = plan.cache.of("direct")
    got: SourceProgramme | PrefixLister | bool | None = verdicts.get(("quick", key))
    if got is None:
        got = verdicts[("quick", key)] = _quick_build(plan, key, deadline) or False
    if isinstance(got, bool):
        return None
    if isinstance(got, PrefixLister):
        got.prog.deadline = deadline  # the current caller's (its blocks read it when given none)
    return got


def _quick_build(
    plan: DamagePlan, key: tuple[int, ...], deadline: Deadline | None
) -> SourceProgramme | PrefixLister | None:
    """:func:`quick_lister`'s builds, each once (LimitReached when the caller's deadline passes)."""
    from .conditioned import ROOT_WORK, ConditionedProgramme, PrefixLister
    from .ordered import SourceProgramme, TooWide

    verdicts, cache = plan.cache.of("direct"), plan.cache.of("direct-ordered")
    if PREFIX_FREE <= 0 or key in verdicts or verdicts.get(("lister", key)) is False:
        return None  # not tried, or the column programme or the refusal known already
    if key in cache or ("prefix", key) in cache or _unlisted_shape(plan, key):
        return None  # built already (component_lister finds it), or refused by its shape
    try:
        prog: SourceProgramme = SourceProgramme(plan, key, deadline, work_limit=min(ROOT_WORK, LIST_WORK))
        cache[key] = prog
        return prog
    except TooWide:
        pass
    try:
        # lazy: neither the first source's completions nor the count are needed for the rows from the first one
        lister = PrefixLister(ConditionedProgramme(plan, key, deadline, lazy=True))
    except OverBudget:
        return None
    lister.unrooted()  # its rooted programme with no split fixed: the source programme just refused
    first = lister.first(deadline or NEVER)
    if first is None or len(key) - len(first[0]) < PREFIX_FREE:
        return None  # its rooted programmes would list a few rows each (6x6 all shared: the last source's splits)
    cache[("prefix", key)] = lister
    return lister


def _unlisted_shape(plan: DamagePlan, key: tuple[int, ...]) -> bool:
    """Is the component outside what the source programmes list, by its shape alone: not one linked group of the
    plan, a source's splits past SPLIT_LIMIT, or its tables past SUM_CELLS or TABLE_STATES (:func:`_too_wide`)?
    Kept per plan: :func:`source_lister` and :func:`lists_within_bounds` both ask."""
    verdicts = plan.cache.of("direct")
    answer = verdicts.get(("shape", key))
    if answer is None:
        answer = verdicts[("shape", key)] = not any(set(g) == set(key) for g in plan.components) or bool(
            _splits_past_limit(plan, key) or _too_wide(Graph(plan, key), key)
        )
    return answer


def _splits_past_limit(plan: DamagePlan, key: tuple[int, ...]) -> bool:
    """Has a source of the component more splits of its damage over its routes than the source programmes list
    (``ordered.SPLIT_LIMIT``)?"""
    from .ordered import SPLIT_LIMIT

    return any(
        s.routes and comb(s.damage + len(s.routes) - 1, len(s.routes) - 1) > SPLIT_LIMIT
        for s in (plan.sources[i] for i in key)
    )


def prefix_lister(plan: DamagePlan, key: tuple[int, ...], deadline: Deadline | None = None) -> PrefixLister | None:
    """The (cached) lister on the count's join tree (:class:`~trample.engines.conditioned.PrefixLister`), after a
    trial of the column programme (COLUMN_TRIAL: built within it, None: the caller takes it); None when the
    tree's tables pass their work bound (the answer is cached too)."""
    from .conditioned import ConditionedProgramme, PrefixLister

    cache = plan.cache.of("direct-ordered")
    lister: PrefixLister | None = cache.get(("prefix", key))
    if lister is not None or cache.get(("no prefix", key)):
        if lister is not None:
            lister.prog.deadline = deadline  # the current caller's (its blocks read it when given none)
        return lister
    if _splits_past_limit(plan, key):
        return None
    left = deadline.remaining() if deadline else None
    try:
        if COLUMN_TRIAL > 0:
            component_dp(plan, key, Deadline(COLUMN_TRIAL if left is None else min(COLUMN_TRIAL, left)))
            return None
    except LimitReached:
        if deadline:
            deadline.check()
    counts = plan.cache.of(COUNTS)
    if key not in counts:  # the count's (the engine's count keeps it too), cheaper than the first completions
        counts[key] = count_component(plan, key, deadline)
    try:
        # the first source's completions are made when the walk needs them (not for the first rows: _after)
        lister = cache[("prefix", key)] = PrefixLister(ConditionedProgramme(plan, key, deadline, lazy=True))
    except OverBudget:
        cache[("no prefix", key)] = True
        return None
    if plan.cache.of("direct").get(("lister", key)) is False:
        lister.unrooted()  # the source programme did not build within LIST_WORK: within ROOT_WORK neither
    return lister


#: a component of several sources whose legal splits are surely at most this many (the product of each source's
#: compositions of its damage over its routes, 510.1a) is listed by the column programme, which builds in a fraction
#: of the source programme's time on such small boards (the source programme's tables, joins and suffixes cost
#: 1-2 ms a component: a solve of 60 small generated boards spent a quarter of its time building them)
FEW_SPLITS = 1 << 12
#: a count asked first (no programme built) of a component of several sources whose splits are surely at most this
#: many is tried one source or one blocker at a time (``by_source.count_shared``, no cost bound), then by the column
#: programme where it lists the component (:data:`FEW_SPLITS`), before the elimination tables: their numpy joins
#: cost 1-4 ms a component on such small boards, where these take a fraction of that (the count of 300 small
#: generated boards spent half its time in the tables' joins)
FEW_COUNTED = 1 << 16


def few_splits(plan: DamagePlan, component: Sequence[int], cap: int = FEW_SPLITS) -> bool:
    """Are the component's legal splits surely at most ``cap`` (no as-though-unblocked option)?"""
    return not plan.options_in(component) and splits_at_most(plan, component, cap)


def splits_at_most(plan: DamagePlan, sources: Iterable[int], cap: int) -> bool:
    """Are the legal splits of these sources together surely at most ``cap``, each assigning in one way? Each source
    divides exactly its damage among its routes (510.1a), so its legal splits are at most the compositions of its
    damage into that many parts, and theirs at most the product."""
    bound = 1
    for i in sources:
        src = plan.sources[i]
        if src.routes:
            bound *= comb(src.damage + len(src.routes) - 1, len(src.routes) - 1)
            if bound > cap:
                return False
    return True


def _few_listed(plan: DamagePlan, key: tuple[int, ...], deadline: Deadline | None) -> bool:
    """Is this component of few splits (:func:`few_splits`) listed by its column programme, built within its bounds
    (:func:`bounded_dp`, cached)? Else the source programme and the other listers are asked, as for any other."""
    return few_splits(plan, key) and bounded_dp(plan, key, deadline) is not None


def bounded_dp(plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> ComponentDP | None:
    """The (cached) column programme of one component if it stays within STATE_LIMIT frontier states, WORK_LIMIT
    transitions and CELL_LIMIT table cells (or is built already), else None (the answer is cached too)."""
    cache = plan.cache.of("direct")
    key = tuple(component)
    dp: ComponentDP | None = cache.get(key)
    if dp is not None:
        return dp
    if cache.get(("too big", key)):
        return None
    try:
        dp = cache[key] = ComponentDP(plan, key, state_limit=STATE_LIMIT, deadline=deadline)
    except _TooBig:
        cache[("too big", key)] = True
        return None
    return dp


def source_lister(
    plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None
) -> SourceProgramme | None:
    """The (cached) source programme of one component, when it lists: every source's splits within SPLIT_LIMIT, its
    tables within SUM_CELLS and TABLE_STATES (:func:`_too_wide`), its cuts coded in an int64 and built within
    LIST_WORK; None otherwise (the answer is cached too)."""
    from .ordered import SourceProgramme, TooWide

    key = tuple(component)
    cache = plan.cache.of("direct-ordered")
    prog: SourceProgramme | None = cache.get(key)
    if prog is not None:
        return prog
    verdicts = plan.cache.of("direct")
    if verdicts.get(("lister", key)) is False:
        return None
    if _unlisted_shape(plan, key):
        # e.g. not one linked group of this plan (a way of an as-though-unblocked source drops its blocker routes,
        # so a component of the plan with options can fall apart): the source programme lists linked groups only
        verdicts[("lister", key)] = False
        return None
    try:
        prog = cache[key] = SourceProgramme(plan, key, deadline, work_limit=LIST_WORK)
    except TooWide:
        verdicts[("lister", key)] = False
        return None
    return prog


def _too_wide(g: Graph, component: Sequence[int]) -> bool:
    """Would a resource's table of combined states pass SUM_CELLS, or a source's table TABLE_STATES (the product of
    its shared resources' possible states)?"""
    if any((2 * n + 2) ** 2 > SUM_CELLS for n in g.need.values()):
        return True
    for i in component:
        states = 1
        for x, n in g.need.items():
            if i in g.touchers[x] and len(g.touchers[x]) > 1:
                states *= 2 * n + 1
        if states > TABLE_STATES:
            return True
    return False


#: sources that the prefix lister's first prefix (the first rooted programme that builds, found without any completion:
#: ``PrefixLister.first``) must leave free, at least, for it to be tried before the source programme within LIST_WORK,
#: where the source programme refused within ROOT_WORK (:func:`quick_lister`; 0: never tried first). Where it leaves
#: one source, the rooted programmes list that source's splits, a few rows per build (`6x6 all shared`: level 5 of 6,
#: no block in 25 s, where the source programme lists after 2.5 s); random_sharing(12, 14, 4) seeds 0-9 leave 6-9,
#: `5x5 all shared` 3. (Before: the first source's completions within PREFIX_TRIAL = 10^7 pairs, 0.04-0.4 s spent on
#: a table the first rows do not need.)
PREFIX_FREE = 2
COLUMN_TRIAL = 0.05  # seconds the column programme may take to build before ranking goes source by source (0: never)
#: the column programme's trial when many draws are asked at once (``sample --n``): its unranks take microseconds, the
#: source programme's milliseconds, so for a thousand draws a longer build pays
COLUMN_TRIAL_MANY = 3.0
MANY = 64  # draws at or above which a sample builds for many (COLUMN_TRIAL_MANY)
#: ranking past the column programme's trial starts with the count's join tree, the prefix fixed
#: (engines/conditioned.py), for any number of uses (False: the source programme at once, as before it)
CONDITIONED = True
#: ranking past the column programme's trial answers with the closed form of a few shared gated blockers where the
#: component has its shape (engines/shared.py; False: the prefix-fixed programme, as before it)
SHARED = True
#: the column programme's size (:func:`~trample.engines.shared.column_cells`) past which a component of the closed
#: form's shape is ranked with it at once, the column programme not tried (a sample of 1 000 draws tried it for
#: COLUMN_TRIAL_MANY, 3 s, on boards where it never builds); below it the trial comes first, as before
SHARED_AT_ONCE = 1 << 20


def index_programme(
    plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None, uses: int = 1
) -> ComponentDP | ConditionedProgramme | SourceProgramme | ShiftingProgramme | SharedProgramme:
    """The (cached) programme that ranks and unranks one component in the canonical order (see
    :meth:`DirectEngine.programme`); a column programme already built is used as it is. ``uses``: how many ranks
    or unranks the caller means to make (MANY or more: the column programme gets the longer trial first). A
    component of the closed form's shape whose column programme would be large (``shared.column_cells`` past
    SHARED_AT_ONCE) is ranked with the closed form at once, for any ``uses``."""
    from .conditioned import ConditionedProgramme
    from .ordered import TooWide

    refuse_options(plan, component)
    key = tuple(component)
    built = plan.cache.of("direct").get(key)
    if built is not None or len(key) == 1:
        return built if built is not None else component_dp(plan, key, deadline)
    cache = plan.cache.of("direct-index")  # its own: the source lister's ("direct-ordered") lists with .blocks
    prog = cache.get(key)
    if prog is None and SHARED and (column_cells(plan, key) or 0) > SHARED_AT_ONCE:
        shared = shared_programme(plan, key)  # the column programme would not build: no trial of it
        if shared is not None:
            prog = cache[key] = shared
    if prog is None or (uses >= MANY and isinstance(prog, ShiftingProgramme) and not prog.long_tried):
        # the column programme, where it builds within a short trial, unranks in microseconds (the source
        # programme in milliseconds: sampling on a star would be 60 times slower); both give the canonical order
        first = COLUMN_TRIAL_MANY if uses >= MANY else COLUMN_TRIAL
        left = deadline.remaining() if deadline else None
        trial = Deadline(first if left is None else min(first, left))
        try:
            if COLUMN_TRIAL > 0:
                return component_dp(plan, key, trial)
        except LimitReached:
            if deadline:
                deadline.check()
        if isinstance(prog, ShiftingProgramme):
            prog.long_tried = True
            return prog
        shared = shared_programme(plan, key) if SHARED else None
        if shared is not None:  # a few gated blockers shared, with needs past the column programme's trial
            cache[key] = shared
            shared.deadline = deadline
            return shared
        try:
            source = _walked(plan, key, deadline, uses)
        except TooWide:  # pragma: no cover - a cut of more resources than an int64 codes
            return component_dp(plan, key, deadline)
        prog = cache[key] = source if COLUMN_TRIAL <= 0 else ShiftingProgramme(plan, key, source, first)
        if uses >= MANY and isinstance(prog, ShiftingProgramme):
            prog.long_tried = True
    if isinstance(prog, SharedProgramme):
        prog.deadline = deadline
    if isinstance(prog, ShiftingProgramme):
        prog.deadline = deadline
        if isinstance(prog.source, ConditionedProgramme):
            prog.source.deadline = deadline
    return prog


def _walked(
    plan: DamagePlan, key: tuple[int, ...], deadline: Deadline | None, uses: int
) -> ConditionedProgramme | SourceProgramme:
    """A programme that walks a source at a time: the count's join tree with the prefix held fixed
    (:class:`~trample.engines.conditioned.ConditionedProgramme`: a build of about a count, then inside and outside
    tables per rank or unrank, kept for the prefixes they depend on), whatever the number of uses (a sample of many
    draws too: :class:`ShiftingProgramme` moves on to the source programme once the draws have paid for its trial);
    the source programme (its cuts' states all built: seconds and gigabytes on random graphs, then milliseconds per
    use) when the former passes its work bound."""
    from .conditioned import ConditionedProgramme
    from .ordered import SourceProgramme

    if CONDITIONED:
        try:
            return ConditionedProgramme(plan, key, deadline)
        except OverBudget:
            pass
    return SourceProgramme(plan, key, deadline)


_R = TypeVar("_R")


class ShiftingProgramme:
    """The count's joins with the prefix fixed (:class:`~trample.engines.conditioned.ConditionedProgramme`: about a
    count an unrank) or the source programme (:class:`~trample.engines.ordered.SourceProgramme`: milliseconds an
    unrank), replaced by the next one (the source programme, then the column programme: microseconds) once the
    ranks and unranks made with it have taken as long as a new trial of the next would: each trial twice as long as
    the one before, and made only once the ranks and unranks since the last one have taken that long. So the trials
    cost at most about as much as the ranks and unranks themselves, and a caller that ranks or unranks for longer
    than the next programme takes to build ends with it. The canonical order is the same: only the time changes."""

    def __init__(
        self, plan: DamagePlan, key: tuple[int, ...], source: ConditionedProgramme | SourceProgramme, tried: float
    ):
        self.plan, self.key, self.source = plan, key, source
        self.columns = source.columns
        self.column: ComponentDP | None = None
        self.trial = max(2 * tried, 1e-3)  # the next trial's length (seconds)
        self.spent = 0.0  # seconds of ranks and unranks since the last trial
        self.deadline: Deadline | None = None  # the latest caller's: a trial does not run past it
        self.long_tried = False
        self.warm = False  # the first rank or unrank made (its one-off costs are not counted towards a trial)

    def count(self) -> int:
        return self.source.count()

    def unrank(self, index: int) -> tuple[int, ...]:
        self._shift()
        return self.column.unrank(index) if self.column is not None else self._timed(self.source.unrank, index)

    def rank(self, vector: Sequence[int]) -> int | None:
        self._shift()
        return self.column.rank(vector) if self.column is not None else self._timed(self.source.rank, vector)

    def _timed(self, call: Callable[[Any], _R], arg: Any) -> _R:
        """``call(arg)`` on the source programme, its time counted towards the next trial (:meth:`_shift`), but
        for the first call's: that one pays once for what the later calls reuse (the conditioned programme's walk
        builds each level's split list and learns its join plans), so it says little of what the next calls will
        cost, and counting it made a trial due at once: on random_sharing(12, 14, 4) a rank after one unrank waited
        0.05-0.1 s for a trial of the source programme (which never builds there) instead of taking 0.3 ms."""
        t = time.monotonic()
        out = call(arg)
        if self.warm:
            self.spent += time.monotonic() - t
        self.warm = True
        return out

    def _shift(self) -> None:
        """The next programme's trial, where the ranks and unranks since the last one have paid for it: made before
        the next rank or unrank, not after the one that paid, so that a caller who makes no other never waits for a
        trial it cannot use, and the call that follows uses what it built."""
        if self.column is not None or self.spent < self.trial:
            return
        left = self.deadline.remaining() if self.deadline else None
        if left is not None and left < self.trial + self.spent:
            return  # no trial past the caller's time limit (room left for the call, as long as those that paid)
        self.spent = 0.0
        from .conditioned import ConditionedProgramme
        from .ordered import SourceProgramme

        try:
            if isinstance(self.source, ConditionedProgramme):
                self.source = SourceProgramme(self.plan, self.key, Deadline(self.trial))
            else:
                self.column = component_dp(self.plan, self.key, Deadline(self.trial))
        except LimitReached:
            self.trial *= 2


def refuse_options(plan: DamagePlan, component: Sequence[int]) -> None:
    """The canonical (lexicographic) order and its programme do not cover a creature that may assign as though
    it weren't blocked: rank, unrank, sample and the npy writer say so in one line."""
    for i in plan.options_in(component):
        src = plan.sources[i]
        k = [a.id for a in plan.scenario.attackers].index(src.source)
        raise FormatError(
            f"attackers[{k}].as_though_unblocked",
            "the canonical order (rank, unrank, sample, npy output, shards) does not cover a creature that may assign "
            "as though it weren't blocked; count and enumeration do",
        )


class DirectEngine:
    """Exact counting, lexicographic enumeration in numpy blocks; no solver, no search.

    A component with a creature that may assign as though it weren't blocked is counted with each such source's
    ways summed in its own table (:mod:`~trample.engines.elimination`) and enumerated way by way (not in
    lexicographic order)."""

    name = "direct"
    capabilities: frozenset[str] = frozenset({PROGRAMME, BLOCKS, EFFECTS})

    def supports(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> bool:
        """Counting is always supported; this answers for enumeration: a component of several sources is supported
        when :func:`component_lister` lists it with a bounded programme (:func:`lists_within_bounds`: the source
        programme, or the prefix lister on the count's join tree), and any component when the column programme is
        built (and kept) within STATE_LIMIT frontier states, WORK_LIMIT transitions and CELL_LIMIT table cells."""
        if plan.options_in(component):
            # enumerated mode by mode (_iterate_ways); an unblocked mode only drops a source's blocker routes, so
            # every mode's frontier is within the one where each source assigns as it is: that one is asked (not
            # the 3^n signed variants of the count)
            cache = plan.cache.of("direct")
            answer = cache.get(("supports", tuple(component)))
            if answer is None:
                normal = replace(
                    plan,
                    sources=tuple(
                        replace(s, unblocked=None) if i in component else s for i, s in enumerate(plan.sources)
                    ),
                )
                answer = cache[("supports", tuple(component))] = self.supports(normal, component, deadline)
            return answer
        if len(component) > 1 and (
            _few_listed(plan, tuple(component), deadline) or lists_within_bounds(plan, tuple(component), deadline)
        ):
            return True
        return bounded_dp(plan, component, deadline) is not None

    def count(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> int:
        """Closed forms for the usual one-attacker shapes; a programme already built (rank, unrank, enumeration
        asked first) gives its count; then the closed form of a few gated blockers shared by several sources
        (:func:`~trample.engines.shared.shared_count`: any damage and needs); else
        :func:`~trample.engines.elimination.count_component` (tables per source joined in an order chosen from the
        sharing graph, as-though-unblocked ways summed per source)."""
        n = known_count(plan, component)
        if n is not None:
            return n
        counts = plan.cache.of(COUNTS)
        key = tuple(component)
        if not plan.options_in(component):
            n = shared_count(plan, component, deadline)
        if n is None and len(key) > 1 and few_splits(plan, key, FEW_COUNTED):
            n = count_shared(plan, key, deadline)
            if n is None and _few_listed(plan, key, deadline):
                n = component_dp(plan, key, deadline).count()
        if n is None:
            n = count_component(plan, component, deadline)
        counts[key] = n
        return int(n)

    def iterate(
        self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None
    ) -> Iterator[tuple[int, ...]]:
        if plan.options_in(component):
            yield from self._iterate_ways(plan, component, deadline)
            return
        for block in component_lister(plan, component, deadline).blocks(deadline=deadline):
            yield from map(tuple, block.tolist())

    def _iterate_ways(
        self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None
    ) -> Iterator[tuple[int, ...]]:
        """Each way of each option source in turn (unblocked first: with every option source unblocked, the first
        line comes at once); a normal-way vector that gives the blockers nothing is left to the unblocked way (the
        two share exactly those, when their totals are equal), filtered in numpy a block at a time."""
        opts = plan.options_in(component)
        full = plan.component_columns(component)
        where = {c: k for k, c in enumerate(full)}
        for modes in product((True, False), repeat=len(opts)):  # unblocked first: the all-unblocked way is one row
            sources = list(plan.sources)
            must_hit = []
            for i, unblocked in zip(opts, modes):
                src = plan.sources[i]
                alt = src.unblocked
                assert alt is not None  # options_in lists the sources that have the option
                if unblocked:
                    sources[i] = replace(src, damage=alt.damage, routes=alt.routes, unblocked=None)
                    continue
                sources[i] = replace(src, unblocked=None)
                if src.damage == alt.damage:
                    names = {r.recipient for r in alt.routes}
                    must_hit.append([where[i, r.recipient] for r in src.routes if r.recipient not in names])
            variant = replace(plan, sources=tuple(sources))
            idx = np.array([where[c] for c in variant.component_columns(component)], dtype=np.int64)
            rows = 64  # small blocks first: the first line comes at once (then up to BLOCK_ROWS)
            for block in component_lister(variant, component, deadline).blocks(BLOCK_ROWS, np.int64, deadline):
                out = np.zeros((len(block), len(full)), dtype=np.int64)
                out[:, idx] = block
                keep = np.ones(len(block), dtype=bool)
                for hit in must_hit:
                    keep &= (out[:, hit] > 0).any(axis=1)
                out = out[keep]
                a = 0
                while a < len(out):  # each row once, in slices that grow
                    yield from map(tuple, out[a : a + rows].tolist())
                    a += rows
                    rows = min(BLOCK_ROWS, rows * 4)

    def effects(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        caps: Mapping[str, int],
        deathtouch: Sequence[bool],
        deadline: Deadline | None = None,
    ) -> Effects:
        """EFFECTS: counted without listing (:func:`~trample.engines.effects.effect_counts`); past its state
        limit, by listing with this engine."""
        deadline = deadline or NEVER
        local = effect_counts(plan, component, caps, deathtouch, deadline)
        return local if local is not None else listed_effects(plan, component, self, caps, deathtouch, deadline)

    def blocks(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        rows: int = BLOCK_ROWS,
        dtype: DTypeLike = None,
        deadline: Deadline | None = None,
    ) -> Iterator[IntMatrix]:
        """The component's legal vectors in lexicographic order, as numpy blocks."""
        return component_lister(plan, component, deadline).blocks(rows, dtype, deadline)

    # -- PROGRAMME ---------------------------------------------------------------------------------
    def programme(
        self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None, uses: int = 1
    ) -> ComponentDP | ConditionedProgramme | SourceProgramme | ShiftingProgramme | SharedProgramme:
        """The (cached) counting programme of one component: count, rank, unrank (trample.indexing), in the
        canonical order: a lone source's column programme (a bit per gate; unrank in microseconds), else the
        column programme where it builds within a short trial, else the count's join tree with the prefix fixed
        (:mod:`~trample.engines.conditioned`), then the source-at-a-time programme on the elimination tables
        (:mod:`~trample.engines.ordered`) and the column programme once ranks and unranks have paid for their trials
        (:class:`ShiftingProgramme`). ``uses``: the ranks or unranks the caller means to make."""
        return index_programme(plan, component, deadline, uses)

    # -- BLOCKS ------------------------------------------------------------------------------------
    def plan_blocks(
        self,
        plan: DamagePlan,
        rows: int = BLOCK_ROWS,
        dtype: DTypeLike = None,
        deadline: Deadline | None = None,
        start: int = 0,
        stop: int | None = None,
    ) -> Iterator[IntMatrix]:
        """Every legal assignment of the plan, in the canonical order, as integer matrices (the npy writer);
        ``start``/``stop``: only canonical indices start <= i < stop (a shard)."""
        return plan_blocks(plan, rows=rows, dtype=dtype, deadline=deadline, start=start, stop=stop)

    @staticmethod
    def dtype_for(max_amount: int) -> type[np.signedinteger[Any]]:
        """The smallest numpy integer type that holds ``max_amount``."""
        return dtype_for(max_amount)
