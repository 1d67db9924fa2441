"""The whole combat's first-step effects count, an engine capability (:data:`trample.engines.EFFECTS`):
``effects(plan, component, caps, deathtouch, deadline) -> Counter`` maps each *effect key* of one component of
the first-strike step (:func:`trample.outcome.effect_key`: what its damage changes for the regular step) to the
number of legal assignments with that effect.

- :func:`effect_counts`: the direct engine's programme, a forward count over the component's columns, without
  listing (None when its states outgrow a limit);
- :func:`listed_effects`: any engine's fallback, by listing the component's assignments with its ``iterate``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..limits import NEVER, Deadline
from ..outcome import effect_key, tally_vector, thresholds_met
from ..rules import DamagePlan

if TYPE_CHECKING:
    from . import Engine

#: What each first-step component does to the regular step: {effect key: number of assignments}.
Effects = Counter[tuple[Any, ...]]
#: A forward state of :func:`effect_counts` within a source: (damage left, capped totals, deathtouched mask, open
#: obligations) -> count.
SourceStates = dict[tuple[int, tuple[int, ...], int, int], int]


def listed_effects(
    plan: DamagePlan,
    comp: Sequence[int],
    eng: Engine,
    caps: Mapping[str, int],
    deathtouch: Sequence[bool],
    deadline: Deadline = NEVER,
) -> Effects:
    """{effect key: count} of one component of the first step, by listing its assignments with ``eng``."""
    cols = plan.component_columns(comp)
    local: Effects = Counter()
    for n, vec in enumerate(eng.iterate(plan, comp, deadline)):
        if deadline and not n & 1023:
            deadline.check()
        dealt, touched = tally_vector(cols, vec, deathtouch)
        local[effect_key(dealt, touched, caps)] += 1
    return local


#: Partial states (of one component) beyond which effect_counts gives up and the component is listed instead.
EFFECT_STATE_LIMIT = 200_000


@dataclass(frozen=True)
class _Slots:
    """The columns of a component as :func:`effect_counts` reads them: ``names``, the recipients kept in the state
    (those whose regular-step role may change, then the gated resources), by slot; per column its recipient's slot
    (-1: not kept) and the bitmask of the slots its gate names; ``top``, how far each slot's total is kept;
    ``closes``, per column the gated slots that no later column feeds or gates; ``slots``, the thresholds
    (``(slot, need, lethal)``, for :func:`~trample.outcome.thresholds_met`)."""

    names: list[str]
    col_slot: list[int]
    col_gate: list[int]
    top: list[int]
    closes: list[int]
    slots: list[tuple[int, int, bool]]


def _slots(plan: DamagePlan, cols: Sequence[tuple[int, str]], caps: Mapping[str, int]) -> _Slots:
    """The slots of a component's columns (see :class:`_Slots`): a gated resource's cap is its need (702.19b,
    702.2c: deathtouch satisfies a blocker's, not a planeswalker's loyalty, 702.19c)."""
    names: list[str] = []
    where: dict[str, int] = {}

    def slot(r: str) -> int:
        if r not in where:
            where[r] = len(names)
            names.append(r)
        return where[r]

    for _, r in cols:
        if caps.get(r, 0) > 0:
            slot(r)
    need: dict[int, int] = {}  # gated resource slot -> damage it needs
    lethal_kind: set[int] = set()  # slots whose need deathtouch satisfies (blockers, not planeswalkers)
    col_gate = []
    for i, r in cols:
        mask = 0
        route = plan.sources[i].route(r)
        assert route is not None  # every column is one of its source's routes
        gate = route.gate
        if gate is not None:
            for b in gate.lethal:
                n = plan.lethal_need[b]
                if n > 0:
                    k = slot(b)
                    need[k], mask = n, mask | 1 << k
                    lethal_kind.add(k)
            for w in gate.loyalty:
                n = plan.loyalty_need[w]
                if n > 0:
                    k = slot(w)
                    need[k], mask = n, mask | 1 << k
        col_gate.append(mask)
    K = len(names)
    top = [max(caps.get(r, 0), need.get(k, 0)) for k, r in enumerate(names)]  # totals are kept up to here
    col_slot = [where.get(r, -1) if caps.get(r, 0) > 0 or where.get(r, -1) in need else -1 for _, r in cols]
    # after column p, resources that no later column feeds or gates: an open obligation there is a dead branch
    last = {}
    for p in range(len(cols)):
        if col_slot[p] >= 0:
            last[col_slot[p]] = p
        for k in range(K):
            if col_gate[p] >> k & 1:
                last[k] = p
    closes = [0] * len(cols)
    for k, p in last.items():
        if k in need:
            closes[p] |= 1 << k
    slots = [(k, n, k in lethal_kind) for k, n in need.items()]
    return _Slots(names, col_slot, col_gate, top, closes, slots)


def _route(
    sl: _Slots, p: int, cur: SourceStates, final: bool, dt_src: bool, deadline: Deadline = NEVER
) -> SourceStates:
    """The states after column ``p`` (one route of the current source; ``final``: its last, which takes what is
    left, 510.1a): each value adds to its recipient's capped total; damage on a gated route opens an obligation on
    every gated resource still short (702.19b, 702.2c, 702.19c), met once its total reaches the need; an obligation
    still open on a resource that closes here is a dead branch."""
    slots = sl.slots
    k, gmask, close = sl.col_slot[p], sl.col_gate[p], sl.closes[p]
    top = sl.top[k] if k >= 0 else 0
    nxt: SourceStates = {}
    for m, ((rem, tots, dt, open_), n) in enumerate(cur.items()):
        if deadline and not m & 255:  # a column over many states: the clock read within it too
            deadline.check()
        for v in (rem,) if final else range(rem + 1):
            t2, dt2, o2 = tots, dt, open_
            if v:
                if gmask:
                    o2 |= gmask & ~thresholds_met(slots, tots, dt)
                if k >= 0:
                    t2 = tots[:k] + (min(top, tots[k] + v),) + tots[k + 1 :]
                    if dt_src:
                        dt2 |= 1 << k
                    if o2:
                        o2 &= ~thresholds_met(slots, t2, dt2)
            if o2 & close:
                continue  # 702.19b/c: it received gated damage and can no longer get what it needs
            key = (rem - v, t2, dt2, o2)
            nxt[key] = nxt.get(key, 0) + n
    return nxt


def effect_counts(
    plan: DamagePlan,
    comp: Sequence[int],
    caps: Mapping[str, int],
    deathtouch: Sequence[bool],
    deadline: Deadline = NEVER,
    limit: int | None = None,
) -> Effects | None:
    """{effect key: count} of one component of the first step, without listing: a forward count over the
    component's columns whose state is what the effect key records -- per recipient that matters for the
    regular step, the damage so far capped at its cap (``effect_caps``) and whether a deathtouch source dealt it any
    -- plus, per gated blocker or planeswalker, whether a gated route that names it received damage while it
    still lacked lethal damage (702.19b, 702.2c) or its loyalty (702.19c): it must end with it. The caps of gated
    resources are their needs, so the capped totals decide every gate. None when the states outgrow ``limit``.

    In steps: the slots (:func:`_slots`), a column at a time (:func:`_route`), the keys read off the final states.
    """
    if plan.options_in(comp):
        return None  # two ways to assign: listed by the engine instead
    limit = EFFECT_STATE_LIMIT if limit is None else limit
    sl = _slots(plan, plan.component_columns(comp), caps)
    K = len(sl.names)
    states: dict[tuple[tuple[int, ...], int, int], int] = {((0,) * K, 0, 0): 1}  # (capped totals, deathtouched
    p = 0  # mask, open obligations) -> count, between sources
    for i in comp:
        src = plan.sources[i]
        cur: SourceStates = {(src.damage, *key): n for key, n in states.items()}
        for route_no in range(len(src.routes)):
            deadline.check()
            cur = _route(sl, p, cur, route_no == len(src.routes) - 1, deathtouch[i], deadline)
            p += 1
            if len(cur) > limit:
                return None
        states = {}
        for (_, tots, dt, open_), n in cur.items():
            states[(tots, dt, open_)] = states.get((tots, dt, open_), 0) + n
    out: Effects = Counter()
    for (tots, dt, open_), n in states.items():
        if open_:
            continue
        dealt = {sl.names[k]: tots[k] for k in range(K) if tots[k]}
        touched = {sl.names[k] for k in range(K) if dt >> k & 1}
        out[effect_key(dealt, touched, caps)] += n
    return out
