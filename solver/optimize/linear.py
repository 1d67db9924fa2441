"""Every optimal assignment from the direct engine's numpy blocks, for every objective, without a solver.

Each objective is a sum over recipients of a term that reads only the recipient's total (the sum of its columns)
and whether a deathtouch source assigns it any (:meth:`~trample.optimize.objectives.Definitions.term`, the same
definitions :func:`trample.optimize.score` evaluates one assignment with). So the values of every row of a block
are numpy work: a recipient's totals are a column or a sum of columns, its deathtouch flags a comparison, and each
term is read from a table of the term over every total the recipient can be assigned (built once by calling
``term``; past :data:`TABLE_TOTALS`, computed once per distinct total; terms that are the total itself, as
``max-damage``'s, are added as they are). ``max-value`` is scaled to integers (``value_scale``); ``min-overkill``
is negated, so that every objective is maximised.

:class:`~trample.optimize.search.AllOptimal` (``trample solve --all-optimal``) takes this path when the board is
small enough to read whole (:data:`DIRECT_ROWS` legal assignments at most, told by :func:`count_at_most`): one
pass over the blocks (canonical order, docs/scale.md) finds the lexicographic optimum and keeps the rows at the best
values seen so far while they are few; a second pass keeps the rows at the optimum when they were not. Larger
boards go to CP-SAT, which proves the optimum without reading every assignment and lists the optimal ones.

Objectives are read from the amounts *assigned*: when damage effects change what is dealt
(:func:`trample.outcome.has_effects`), with as-though-unblocked options or banding, this path is not taken.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import chain

import numpy as np

from ..engines import get_engine
from ..engines.direct import BLOCK_ROWS, known_count, splits_at_most
from ..engines.elimination import COUNTS, count_by_factors
from ..limits import Deadline
from ..models import Assignment, ObjectiveKind
from ..outcome import has_effects
from ..rules import division_moved
from ..step import DamageStep
from .objectives import Definitions, Objective, json_number

# Boards with more legal assignments than this go to CP-SAT: the direct pass reads every assignment, twice when the
# optimal ones are many. Measured (one core, P30k8/P40k8 and generated overlapping boards of 1-2 M rows): the first
# pass reads 25-90 M rows/s (max-kills,min-overkill the slowest, max-damage the fastest), so this bound costs at
# most ~0.7 s a pass; CP-SAT proves such optima in milliseconds but lists optimal assignments at ~20 k/s.
DIRECT_ROWS = 1 << 24
TABLE_TOTALS = 1 << 14  # a recipient that can be assigned more than this: terms computed per distinct total
KEEP_CELLS = 1 << 22  # cells of rows at the best values kept during the first pass (else a second pass)
KEEP_PLAN_CELLS = 1 << 16  # cells of a small board's every row kept with its plan for the next optimum asked


class BlockScorer:
    """The objectives' values on every row of a block of the direct engine's blocks (over ``plan.columns``):
    an int64 matrix, one column per objective, larger is better (``min-overkill`` negated, ``max-value``
    scaled by ``defs.value_scale``)."""

    def __init__(self, step: DamageStep, objectives: Sequence[Objective]):
        plan = step.plan
        defs = self.defs = Definitions(plan)
        self.objectives = tuple(objectives)
        cols = plan.columns
        self.recipients = list(defs.incoming)  # those with a column
        index = {r: c for c, r in enumerate(self.recipients)}
        self._cols = [list(defs.incoming[r]) for r in self.recipients]
        self._dt_cols = [[k for k in ks if defs.deathtouch_of[cols[k][0]]] for ks in self._cols]
        hi = [sum(plan.sources[cols[k][0]].max_damage for k in ks) for ks in self._cols]
        self.scales = [defs.value_scale if o.kind == ObjectiveKind.MAX_VALUE else 1 for o in self.objectives]
        self.signs = [1 if o.maximize else -1 for o in self.objectives]
        self.const = np.zeros(len(self.objectives), dtype=np.int64)
        # per recipient with a column: (objective, weight) of the terms that are its total times a weight, and
        # (objective, table) of the others: the term at (touched, total) at [touched * (hi + 1) + total], or None
        # when the totals are too many to tabulate (then each distinct total of a block is computed once)
        self._linear: list[list[tuple[int, int]]] = [[] for _ in self.recipients]
        self._tables: list[list[tuple[int, np.ndarray | None]]] = [[] for _ in self.recipients]
        for j, o in enumerate(self.objectives):
            for r in defs.counted(o):
                c = index.get(r)
                if c is None:  # no column: the term of nothing assigned
                    self.const[j] += self._term(j, r, 0, False)
                elif defs.linear(o):
                    self._linear[c].append((j, self.signs[j] * self.scales[j]))
                elif hi[c] < TABLE_TOTALS:
                    flags = (False, True) if self._dt_cols[c] else (False,)
                    terms = [self._term(j, r, v, f) for f in flags for v in range(hi[c] + 1)]
                    self._tables[c].append((j, np.array(terms, dtype=np.int64)))
                else:
                    self._tables[c].append((j, None))
        self._width = [h + 1 for h in hi]
        #: per recipient, the most damage every row can assign it (its sources' damage together)
        self.most = hi
        self._seen: dict[tuple[int, int], dict[int, int]] = {}

    def _term(self, j: int, r: str, total: int, touched: bool) -> int:
        t = self.defs.term(self.objectives[j], r, total, touched)
        if type(t) is int:  # every objective but max-value: no fraction to build
            return self.signs[j] * t * self.scales[j]
        if not t:
            return 0
        q = t * self.scales[j]
        assert q.denominator == 1  # value_scale is the common denominator of every value
        return self.signs[j] * int(q)

    def total(self, block: np.ndarray, c: int) -> np.ndarray:
        """The damage assigned to ``self.recipients[c]`` by each row of ``block``."""
        ks = self._cols[c]
        return block[:, ks[0]] if len(ks) == 1 else block[:, ks].sum(axis=1, dtype=np.int64)

    def touched(self, block: np.ndarray, c: int) -> np.ndarray | None:
        """Does a deathtouch source assign ``self.recipients[c]`` damage (None: no deathtouch source can)?"""
        ks = self._dt_cols[c]
        if not ks:
            return None
        if len(ks) == 1:
            return np.greater(block[:, ks[0]], 0)  # amounts are >= 0
        return np.greater(block[:, ks], 0).any(axis=1)

    def term_table(self, c: int) -> np.ndarray | None:
        """Per objective (one row each), recipient ``c``'s term at every (touched, total), at [touched * (most + 1)
        + total] (:meth:`lookup`), linear terms included; None when some term is not tabulated."""
        width = self._width[c]
        flags = 2 if self._dt_cols[c] else 1
        out = np.zeros((len(self.objectives), flags * width), dtype=np.int64)
        totals = np.tile(np.arange(width, dtype=np.int64), flags)
        for j, w in self._linear[c]:
            out[j] += totals * w
        for j, table in self._tables[c]:
            if table is None:
                return None
            out[j] += table
        return out

    def lookup(self, block: np.ndarray, c: int, total: np.ndarray) -> np.ndarray:
        """Each row's index into :meth:`term_table` of recipient ``c`` (``total``: its :meth:`total`)."""
        f = self.touched(block, c)
        return total if f is None else total + f * self._width[c]

    def totals(self, block: np.ndarray) -> list[np.ndarray]:
        """Every recipient's :meth:`total` on the rows of ``block`` (read once, to pass to :meth:`values`)."""
        return [self.total(block, c) for c in range(len(self.recipients))]

    def values(
        self, block: np.ndarray, totals: Sequence[np.ndarray] | None = None, only: Sequence[int] | None = None
    ) -> np.ndarray:
        """(rows x objectives) int64 values of the rows of ``block`` (larger is better). ``totals``: the
        recipients' totals when already read (:meth:`totals`); ``only``: the objectives' indexes to read (the
        columns of the result, in that order; default every objective)."""
        wanted = list(range(len(self.objectives))) if only is None else list(only)
        position = {j: k for k, j in enumerate(wanted)}
        out = np.empty((len(block), len(wanted)), dtype=np.int64)
        out[:] = self.const[wanted]
        for c, r in enumerate(self.recipients):
            linear = [(position[j], w) for j, w in self._linear[c] if j in position]
            tables = [(position[j], j, table) for j, table in self._tables[c] if j in position]
            if not linear and not tables:
                continue
            x = self.total(block, c) if totals is None else totals[c]
            for k, w in linear:
                out[:, k] += x if w == 1 else x.astype(np.int64) * w
            if not tables:
                continue
            f = self.touched(block, c)
            at = x.astype(np.intp)
            if f is not None:
                at = at + f * self._width[c]
            for k, j, table in tables:
                if table is not None:
                    out[:, k] += table[at]
                    continue
                u, inv = np.unique(x.astype(np.int64) * 2 + (0 if f is None else f), return_inverse=True)
                seen = self._seen.setdefault((j, c), {})  # each distinct (total, touched) computed once
                terms = [
                    seen[v] if v in seen else seen.setdefault(v, self._term(j, r, v >> 1, bool(v & 1)))
                    for v in u.tolist()
                ]
                out[:, k] += np.array(terms, dtype=np.int64)[inv.reshape(-1)]
        return out

    def reported(self, best: Sequence[int]) -> dict:
        """The objectives' values as :class:`SolveResult` reports them, from a row of :meth:`values`."""
        out = {}
        for o, v, sign, scale in zip(self.objectives, best, self.signs, self.scales):
            raw = sign * int(v)
            out[o.name] = json_number(Fraction(raw, scale)) if o.kind == ObjectiveKind.MAX_VALUE else raw
        return out


def _best_rows(values: np.ndarray) -> np.ndarray:
    """The mask of the rows whose values are the lexicographic maximum of ``values``."""
    keep = np.ones(len(values), dtype=bool)
    low = np.iinfo(np.int64).min
    for j in range(values.shape[1]):  # the best first objective, then the best second among those...
        col = np.where(keep, values[:, j], low)
        keep &= col == col.max()
    return keep


def applies(step: DamageStep, objectives: Sequence[Objective], deadline: Deadline | None = None) -> bool:
    """Does this path take the board: objectives read on the amounts assigned, no second way to assign, every
    component enumerated by the direct engine, at most :data:`DIRECT_ROWS` legal assignments and some column?"""
    plan = step.plan
    if not objectives or not plan.columns:
        return False
    if (
        has_effects(step.scenario) or plan.has_options or division_moved(step.scenario)
    ):  # damage dealt differs from damage assigned, a second way to assign, or the other player divides (banding)
        return False
    direct = get_engine("direct")
    if surely_at_most(plan, DIRECT_ROWS):  # the listers first: the count is then read from the programmes built
        return all(direct.supports(plan, c, deadline) for c in plan.components) and bool(
            count_at_most(plan, DIRECT_ROWS, deadline)
        )
    total = count_at_most(plan, DIRECT_ROWS, deadline)  # most wide boards stop here before any listing programme
    if not total:
        return False
    return all(direct.supports(plan, c, deadline) for c in plan.components)


def surely_at_most(plan, cap: int) -> bool:
    """Are there surely at most ``cap`` legal assignments (no as-though-unblocked option: each source assigns in one
    way; :func:`~trample.engines.direct.splits_at_most`)?"""
    return not plan.has_options and splits_at_most(plan, plan.active, cap)


#: the work a size test spends on one component at most (operations of the tables' joins, and their estimate
#: before any join): about 0.1 s. A board whose count would cost more is taken as large; the paths that read every
#: assignment are then not taken, and CP-SAT gives the same answer.
SIZE_TEST_WORK = 1 << 22


def count_at_most(plan, cap: int, deadline: Deadline | None = None, work: int = SIZE_TEST_WORK) -> int | None:
    """The number of legal assignments of ``plan`` when it is at most ``cap`` and quickly known, else None. Counts
    known already first (:func:`~trample.engines.direct.known_count`), else the tables joined within ``work`` operations
    (:func:`~trample.engines.elimination.count_by_factors`): where the exact count takes minutes (14 attackers
    sharing 14 blockers four each), the answer "not small" takes milliseconds."""
    total = 1
    for c in plan.components:
        n = known_count(plan, c)  # a closed form, a programme built, or a count made before (kept below)
        if n is None:
            n = count_by_factors(plan, c, deadline, work_limit=work, estimate_limit=work)
            if n is None:
                return None
            plan.cache.of(COUNTS)[tuple(c)] = n  # (the size tests of a solve ask twice: search, then applies)
        total *= n
        if total > cap:
            return None
    return total if total <= cap else None


class DirectOptimum:
    """The lexicographic optimum of the objectives over every legal assignment, read from the direct engine's
    blocks; :meth:`blocks` streams the optimal rows in the canonical order."""

    def __init__(self, step: DamageStep, objectives: Sequence[Objective], deadline: Deadline | None = None):
        self.step = step
        self.scorer = scorer = BlockScorer(step, objectives)
        self.deadline = deadline
        best: tuple | None = None
        first = None
        kept: list[np.ndarray] | None = []
        cells = 0
        width = max(1, len(step.plan.columns))
        reached = [scorer.recipients.index(p) for p in scorer.defs.players if p in scorer.defs.incoming]
        most = [0] * len(reached)  # the most any legal assignment assigns each player (the lethal report)
        wants_most = any(o.kind == ObjectiveKind.LETHAL for o in objectives)
        for block in _plan_rows(step):
            if deadline is not None:
                deadline.check()
            values = scorer.values(block)
            if wants_most:
                most = [max(m, int(scorer.total(block, c).max())) for m, c in zip(most, reached)]
            at = _best_rows(values)
            cand = tuple(int(v) for v in values[int(np.argmax(at))])
            if best is not None and cand < best:
                continue
            if best is None or cand > best:
                best, kept, cells = cand, [], 0  # the rows at a new best come from this block on
                first = block[int(np.argmax(at))].tolist()
            if kept is not None:
                rows = block[at]
                cells += rows.size + width
                if cells > KEEP_CELLS:
                    kept = None  # too many to hold: the second pass filters the blocks again
                else:
                    kept.append(rows)
        assert best is not None  # applies() saw a positive count
        self.best = best
        self._kept = kept
        self.objectives = scorer.reported(best)
        self.first = first
        self.most_to = {p: 0 for p in scorer.defs.players}
        self.most_to.update({scorer.recipients[c]: m for c, m in zip(reached, most)})

    def blocks(self) -> Iterator[np.ndarray]:
        """The optimal rows (over ``step.plan.columns``), in the canonical order, as blocks."""
        if self._kept is not None:
            yield from self._kept
            return
        target = np.asarray(self.best, dtype=np.int64)
        for block in self.step.assignment_blocks(rows=BLOCK_ROWS, engine="direct"):
            if self.deadline is not None:
                self.deadline.check()
            keep = (self.scorer.values(block) == target).all(axis=1)
            if keep.all():
                yield block
            elif keep.any():
                yield block[keep]

    def assignments(self) -> Iterator[Assignment]:
        layout = self.step._layout  # rows read as lazy assignments (as DamageStep.assignments does)
        # chained in C: no Python frame per assignment (the deadline is checked between blocks)
        return chain.from_iterable(map(layout.assignment, block.tolist()) for block in self.blocks())


def _plan_rows(step: DamageStep) -> Iterator[np.ndarray]:
    """The step's legal assignments as the direct engine's blocks; when they are few (:data:`KEEP_PLAN_CELLS`),
    kept with the plan (read-only), so that another optimum asked of the same board reads them again without
    listing them (the arena's reference asks the lethal line after the objectives' optimum)."""
    cache = step.plan.cache.of("direct-optimum")
    kept = cache.get("rows")
    if kept is not None:
        yield from kept
        return
    blocks: list[np.ndarray] | None = []
    cells = 0
    for block in step.assignment_blocks(rows=BLOCK_ROWS, engine="direct"):
        if blocks is not None:
            cells += block.size
            if cells > KEEP_PLAN_CELLS:
                blocks = None
            else:
                block.flags.writeable = False
                blocks.append(block)
        yield block
    if blocks is not None:
        cache["rows"] = blocks


def direct_optimum(
    step: DamageStep, objectives: Sequence[Objective], deadline: Deadline | None = None
) -> DirectOptimum | None:
    """The optimum found by reading the direct engine's blocks, or None when this path does not apply
    (:func:`applies`)."""
    if not applies(step, objectives, deadline):
        return None
    return DirectOptimum(step, objectives, deadline)
