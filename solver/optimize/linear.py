"""Every optimal assignment from the direct engine's numpy blocks, for objectives linear in the columns.

``max-damage`` (damage assigned to every player) and ``max-damage:ID`` (damage assigned to ``ID``) are sums of
columns: the value of every assignment of a block is one matrix product. When every objective asked for is of
that kind, :class:`~trample.optimize.search.AllOptimal` lists the optimal assignments by streaming the direct
engine's blocks (canonical order, docs/scale.md) and keeping the rows whose values equal the proven optimum,
instead of enumerating through CP-SAT. The other objectives (``lethal``, ``max-kills``, ``max-value``,
``min-overkill``) are thresholds or piecewise sums, not linear: they keep the CP-SAT path.

Objectives are read from the amounts *assigned*; when damage effects change what is dealt
(:func:`trample.outcome.has_effects`), as-though-unblocked options or banding, this path is not taken.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain

import numpy as np

from ..engines import get_engine
from ..engines.direct import BLOCK_ROWS
from ..limits import Deadline
from ..models import Assignment
from ..outcome import has_effects
from ..step import DamageStep
from .objectives import Objective

LINEAR = frozenset({"max-damage"})  # objective kinds whose value is a sum of columns


def linear_weights(step: DamageStep, objectives: Sequence[Objective]) -> np.ndarray | None:
    """The (columns x objectives) 0/1 matrix of the objectives' values, or None when one of them is not linear (or
    damage effects apply)."""
    if not objectives or any(o.kind not in LINEAR for o in objectives):
        return None
    if has_effects(step.scenario) or any(
        s.unblocked is not None or (s.assigns and s.chooser != "controller") for s in step.plan.sources
    ):  # damage dealt differs from damage assigned, a second way to assign, or the other player divides (banding)
        return None
    players = {p.id for p in step.scenario.players}
    cols = step.plan.columns
    w = np.zeros((len(cols), len(objectives)), dtype=np.int64)
    for j, o in enumerate(objectives):
        for k, (_, recipient) in enumerate(cols):
            if (recipient == o.target) if o.target else (recipient in players):
                w[k, j] = 1
    return w


def optimal_blocks(
    step: DamageStep, weights: np.ndarray, values: Sequence[int], deadline: Deadline | None = None
) -> Iterator[np.ndarray]:
    """The rows of the direct engine's blocks (over ``step.columns``, canonical order) whose objective values
    (``block @ weights``) are exactly ``values``."""
    target = np.asarray(values, dtype=np.int64)
    for block in step.assignment_blocks(rows=BLOCK_ROWS, engine="direct"):
        if deadline is not None:
            deadline.check()
        keep = (block @ weights == target).all(axis=1)  # an int64 product whatever the block's dtype
        if keep.all():
            yield block
        elif keep.any():
            yield block[keep]


def linear_stream(
    step: DamageStep, objectives: Sequence[Objective], values: Mapping, deadline: Deadline | None = None
) -> Iterator[Assignment] | None:
    """Every assignment at the optimum ``values`` (objective name -> proven optimal value), or None when this path
    does not apply (an objective that is not linear, damage effects, a component too big for the direct engine's
    enumeration)."""
    weights = linear_weights(step, objectives)
    if weights is None:
        return None
    try:
        target = [int(values[o.name]) for o in objectives]
    except (KeyError, TypeError, ValueError):
        return None
    direct = get_engine("direct")
    plan = step.plan
    if not all(direct.supports(plan, c, deadline) for c in plan.components):
        return None
    return _assignments(step, weights, target, deadline)


def _assignments(step, weights, target, deadline) -> Iterator[Assignment]:
    layout = step._layout  # rows of assignment_blocks read as lazy assignments (as DamageStep.assignments does)
    # chained in C: no Python frame per assignment (the deadline is checked between blocks)
    return chain.from_iterable(
        map(layout.assignment, block.tolist()) for block in optimal_blocks(step, weights, target, deadline)
    )


def linear_optimum(step: DamageStep, objectives: Sequence[Objective], deadline: Deadline | None = None):
    """(the lexicographic optimum of linear objectives as a list of ints, its first row in the canonical order) found
    by one pass over the direct engine's blocks, or None when this path does not apply (see :func:`linear_stream`)
    or the board has no legal assignment or no column."""
    weights = linear_weights(step, objectives)
    plan = step.plan
    if weights is None or not plan.columns:
        return None
    direct = get_engine("direct")
    if not all(direct.supports(plan, c, deadline) for c in plan.components):
        return None
    best: tuple | None = None
    first = None
    for block in step.assignment_blocks(rows=BLOCK_ROWS, engine="direct"):
        if deadline is not None:
            deadline.check()
        values = block @ weights
        keep = np.ones(len(block), dtype=bool)
        for j in range(values.shape[1]):  # lexicographic: the best first objective, then the best second among those
            col = np.where(keep, values[:, j], np.iinfo(np.int64).min)
            keep &= col == col.max()
        at = int(np.argmax(keep))
        cand = tuple(int(v) for v in values[at])
        if best is None or cand > best:
            best, first = cand, block[at].tolist()
    if best is None:
        return None
    return list(best), first
