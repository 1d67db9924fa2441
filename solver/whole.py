"""The whole combat (``"step": "combat"``): the first-strike step, the state-based actions, the regular step.

A *combat line* is ``{"first_strike": {...}, "regular": {...}}`` (FORMAT.md): the first-strike step's
assignment, then the regular step's. Each step's assignment holds **both** players' sources (one key per
attacker and one per blocker), because the blockers' first-strike damage decides which attackers survive into
the regular step. Between the steps :func:`trample.sba.after_step` deals the damage and performs the state-based
actions; the regular step is then derived from that state by the same rules as any step (``trample.rules``).

With no first-strike step (510.4: no attacking or blocking creature has first strike or double strike), a
line still has both keys, and its ``"first_strike"`` part is every source with ``{}``.

- ``count()`` is the sum, over the legal first-strike assignments, of the number of legal regular-step
  assignments in the state that follows. First-strike assignments are grouped by what they change for the
  regular step (see :func:`_effect_key`), so the regular step is counted once per distinct state.
- ``assignments(limit)`` streams every legal line exactly once, first-strike assignment by first-strike
  assignment, in the engines' order.
- ``check(line)`` judges both steps, citing rules and naming the step in each message.
- ``solve(objectives)``: see :func:`solve_whole` (the defender's first-strike choice is adversarial).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import cached_property

from .check import CheckResult, Violation, check
from .combat import Combat, LegalAssignments, opening
from .engines import get_engine
from .limits import NEVER, LimitReached, deadline_of
from .models import Assignment, FormatError, Scenario, load_assignment, load_scenario, parse_json_text
from .models.errors import expect_object, join
from .rules import derive
from .sba import after_step, apply_damage, creature_dies, damage_dealt, first_strike_step_happens

STEP_KEYS = ("first_strike", "regular")
STEP_NAMES = {"first_strike": "first-strike step", "regular": "regular step"}

#: Regular-step lists up to this many assignments are kept in memory and replayed when several first-strike
#: assignments lead to the same state (summed over every kept state).
REPLAY_BUDGET = 1 << 18


class CombatLine(Mapping):
    """One line of a whole combat: ``{"first_strike": Assignment, "regular": Assignment}``; immutable, hashable.

    Equal to another line, or to a plain dict of the same shape, when both steps' assignments are equal.
    """

    __slots__ = ("first_strike", "regular")

    def __init__(self, first_strike, regular):
        object.__setattr__(
            self, "first_strike", first_strike if isinstance(first_strike, Assignment) else Assignment(first_strike)
        )
        object.__setattr__(self, "regular", regular if isinstance(regular, Assignment) else Assignment(regular))

    def __setattr__(self, name, value):
        raise AttributeError("CombatLine is immutable")

    def __getitem__(self, step: str) -> Assignment:
        if step == "first_strike":
            return self.first_strike
        if step == "regular":
            return self.regular
        raise KeyError(step)

    def __iter__(self):
        return iter(STEP_KEYS)

    def __len__(self) -> int:
        return 2

    def __eq__(self, other) -> bool:
        if isinstance(other, CombatLine):
            return self.first_strike == other.first_strike and self.regular == other.regular
        if isinstance(other, Mapping):
            if set(other) != set(STEP_KEYS):
                return False
            return self.first_strike == other["first_strike"] and self.regular == other["regular"]
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.first_strike, self.regular))

    def __repr__(self) -> str:
        return f"CombatLine(first_strike={self.first_strike.to_json()!r}, regular={self.regular.to_json()!r})"

    def to_json(self) -> dict:
        return {"first_strike": self.first_strike.to_json(), "regular": self.regular.to_json()}


def load_line(data, scenario: Scenario | None = None, path: str = "assignment") -> CombatLine:
    """Validate the JSON shape of a combat line ``{"first_strike": {...}, "regular": {...}}`` (both required)."""
    if isinstance(data, CombatLine):
        return data
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path)
    for key in obj:
        if key not in STEP_KEYS:
            raise FormatError(
                join(path, key), 'unknown field (a whole-combat line is {"first_strike": {...}, "regular": {...}})'
            )
    for key in STEP_KEYS:
        if key not in obj:
            raise FormatError(
                join(path, key),
                'required field is missing (a whole-combat line is {"first_strike": {...}, "regular": {...}})',
            )
    return CombatLine(
        load_assignment(obj["first_strike"], scenario, join(path, "first_strike")),
        load_assignment(obj["regular"], scenario, join(path, "regular")),
    )


class WholeCombat:
    """Both combat damage steps of one combat, with both players' choices.

    ``side``: a whole combat always holds both sides' sources; ``"attacking"`` (the command line's default) and
    ``"both"`` mean the same, ``"defending"`` is refused (the attacking player's first-strike damage decides
    which blockers survive, so there is no defending-only whole combat).

    >>> combat = WholeCombat({"step": "combat", "players": [{"id": "opp", "life": 20}],
    ...     "attackers": [{"id": "a", "power": 3, "toughness": 3, "keywords": ["double_strike", "trample"],
    ...                    "attacking": "opp", "blocked_by": ["x"]}],
    ...     "blockers": [{"id": "x", "power": 2, "toughness": 2}]})
    >>> combat.count()
    2
    >>> {"first_strike": {"a": {"x": 2, "opp": 1}, "x": {}},
    ...  "regular": {"a": {"opp": 3}, "x": {}}} in combat.legal_assignments
    True
    """

    def __init__(self, scenario: Scenario | Mapping | str, side: str = "attacking", engine: str = "auto"):
        scenario = opening(scenario, side, engine)
        if side == "defending":
            raise FormatError(
                "side",
                'a whole combat ("step": "combat") holds both players\' choices in both '
                'steps; use side "both" (or "attacking", the default: the same lines)',
            )
        self.scenario = scenario if scenario.step == "combat" else scenario.with_step("combat")
        self.side = "both"
        self.engine = engine
        self._regular_cache: dict[Scenario, Combat] = {}
        self._count_cache: dict[tuple[Scenario, str], int] = {}

    @classmethod
    def from_json(cls, data, side: str = "attacking", engine: str = "auto") -> WholeCombat:
        return cls(load_scenario(data), side=side, engine=engine)

    # -- the two steps ---------------------------------------------------------------------------
    @cached_property
    def has_first_strike_step(self) -> bool:
        """510.4: is there a first-strike combat damage step at all?"""
        return first_strike_step_happens(self.scenario)

    @cached_property
    def first_step(self) -> Combat:
        """The first-strike step, both sides (with no such step: every source assigns nothing)."""
        return Combat(self.scenario.with_step("first_strike"), side="both", engine=self.engine)

    def state_after(self, first_strike) -> Scenario:
        """The state in which the regular step is assigned, after ``first_strike`` (both sides) and the SBAs.

        With no first-strike step there are no state-based actions in between: the board as given.
        """
        if not self.has_first_strike_step:
            return self.scenario.with_step("regular")
        return after_step(self.scenario, first_strike)

    def regular_step(self, first_strike) -> Combat:
        """The regular step (both sides) that follows ``first_strike``."""
        return Combat(self.state_after(first_strike), side="both", engine=self.engine)

    @property
    def plan(self):
        """The first-strike step's plan (both sides); the regular step's depends on the first step."""
        return self.first_step.plan

    @property
    def legal_assignments(self) -> LegalAssignments:
        return LegalAssignments(self)

    # -- count -----------------------------------------------------------------------------------
    def count(self, engine: str | None = None, time_limit=None) -> int:
        """The number of legal lines. ``time_limit`` (seconds): :class:`trample.limits.LimitReached` if the count
        is not known by then."""
        engine = engine or self.engine
        deadline = deadline_of(time_limit)
        total = 0
        for key, multiplicity in self._first_step_effects(engine, deadline).items():
            state = self._state_from_effect(key)
            total += multiplicity * self._regular_count(state, engine, deadline)
        return total

    def _first_step_effects(self, engine: str, deadline=NEVER) -> Counter:
        """{effect key: number of first-strike assignments with that effect} (see :func:`_effect_key`).

        Per component: counted by :func:`_effect_counts` without listing (engines "auto" and "direct"), or by
        listing the component's assignments (the "cpsat" reference, and components whose effects are too many).
        """
        plan = self.first_step.plan
        caps = _caps(self.scenario)
        deathtouch = [bool(getattr(self.scenario[s.source], "deathtouch", False)) for s in plan.sources]
        folded: Counter = Counter({(): 1})
        for comp in plan.components:
            local = None
            if engine in ("auto", "direct"):
                local = _effect_counts(plan, comp, caps, deathtouch, deadline)
            if local is None:
                local = _listed_effects(plan, comp, get_engine(engine), caps, deathtouch, deadline)
            merged: Counter = Counter()
            for k1, n1 in folded.items():
                deadline.check()
                for k2, n2 in local.items():
                    merged[_merge_keys(k1, k2, caps)] += n1 * n2
            folded = merged
            if not folded:
                break
        return folded

    def _state_from_effect(self, key) -> Scenario:
        if not self.has_first_strike_step:
            return canonical_state(self.scenario.with_step("regular"))
        totals = {r: n for r, n, _ in key}
        touched = {r for r, _, dt in key if dt}
        return canonical_state(apply_damage(self.scenario, totals, touched))

    def _regular_count(self, state: Scenario, engine: str, deadline=NEVER) -> int:
        key = (state, engine)
        if key not in self._count_cache:
            deadline.check()
            self._count_cache[key] = Combat(state, side="both", engine=engine).count(time_limit=deadline)
        return self._count_cache[key]

    # -- enumerate -------------------------------------------------------------------------------
    def assignments(self, limit: int | None = None, engine: str | None = None, time_limit=None) -> Iterator[CombatLine]:
        """Every legal line exactly once, lazily: for each first-strike assignment, each regular one.

        ``time_limit`` (seconds, from the first ``next``): the lines found by then are yielded, then
        :class:`trample.limits.LimitReached` is raised."""
        if limit is not None and limit <= 0:
            return
        deadline = deadline_of(time_limit)
        engine = engine or self.engine
        kept: dict[Scenario, list[Assignment]] = {}
        too_big: set[Scenario] = set()
        budget = [REPLAY_BUDGET]

        def regular_lines(state: Scenario):
            if state in kept:
                yield from kept[state]
                return
            stream = Combat(state, side="both", engine=engine).assignments(time_limit=deadline)
            if state in too_big:
                yield from stream
                return
            record: list[Assignment] | None = []
            for regular in stream:
                if record is not None:
                    if len(record) < budget[0]:
                        record.append(regular)
                    else:
                        record = None
                        too_big.add(state)
                yield regular
            if record is not None:
                kept[state] = record
                budget[0] -= len(record)

        n = 0
        for first in self.first_step.assignments(engine=engine, time_limit=deadline):
            for regular in regular_lines(canonical_state(self.state_after(first))):
                if deadline and not n & 255:
                    deadline.check()
                yield CombatLine(first, regular)
                n += 1
                if limit is not None and n >= limit:
                    return

    # -- check -----------------------------------------------------------------------------------
    def check(self, line) -> CheckResult:
        """Judge a line: the first-strike step against the board, the regular step against the state after it.

        If the first-strike assignment is illegal, the regular step is still judged, against the state that its
        damage (as given) and the state-based actions leave.
        """
        line = load_line(line, self.scenario)
        violations = [_in_step("first_strike", v) for v in self.first_step.check(line.first_strike).violations]
        state = self.state_after(line.first_strike)
        result = check(derive(state, "both", "regular"), line.regular)
        violations += [_in_step("regular", v) for v in result.violations]
        return CheckResult(legal=not violations, violations=tuple(violations))

    def is_legal(self, line) -> bool:
        return self.check(line).legal

    # -- solve -----------------------------------------------------------------------------------
    def solve(self, objectives, **options):
        """The attacker's best line against the defender's best reply; see :func:`solve_whole`."""
        return solve_whole(self, objectives, **options)

    def __repr__(self) -> str:
        return f"<WholeCombat first_strike_step={self.has_first_strike_step} engine={self.engine!r}>"


def _in_step(step: str, v: Violation) -> Violation:
    return replace(v, message=f"{STEP_NAMES[step]}: {v.message}")


# ---------------------------------------------------------------------------------------------
# What a first-strike assignment changes for the regular step
# ---------------------------------------------------------------------------------------------


def _caps(scenario: Scenario) -> dict[str, int]:
    """Per recipient, the damage beyond which more damage changes nothing for the regular step's legal set:
    a creature's remaining toughness (it then has lethal damage and dies or, indestructible, needs 0), a
    planeswalker's loyalty, a battle's defense. Players are absent: their life does not change the legal set."""
    caps: dict[str, int] = {}
    for c in (*scenario.attackers, *scenario.blockers):
        caps[c.id] = max(0, c.toughness - c.damage_marked)
    for p in scenario.planeswalkers:
        caps[p.id] = p.loyalty
    for b in scenario.battles:
        caps[b.id] = b.defense
    return caps


def _effect_key(dealt: Mapping[str, int], touched, caps: Mapping[str, int]) -> tuple:
    """Sorted ``(recipient, damage capped, deathtouch)`` for everything whose regular-step role could change."""
    out = []
    for r, n in dealt.items():
        n = min(n, caps.get(r, 0))
        if n > 0:
            out.append((r, n, r in touched))
    return tuple(sorted(out))


def _listed_effects(plan, comp, eng, caps, deathtouch, deadline=NEVER) -> Counter:
    """{effect key: count} of one component of the first step, by listing its assignments with ``eng``."""
    cols = plan.component_columns(comp)
    local: Counter = Counter()
    for n, vec in enumerate(eng.iterate(plan, comp, deadline)):
        if deadline and not n & 1023:
            deadline.check()
        dealt: dict[str, int] = {}
        touched: set[str] = set()
        for (i, r), amount in zip(cols, vec):
            if amount:
                dealt[r] = dealt.get(r, 0) + amount
                if deathtouch[i]:
                    touched.add(r)
        local[_effect_key(dealt, touched, caps)] += 1
    return local


#: Partial states (of one component) beyond which _effect_counts gives up and the component is listed instead.
EFFECT_STATE_LIMIT = 200_000


def _effect_counts(
    plan, comp, caps: Mapping[str, int], deathtouch, deadline=NEVER, limit: int | None = None
) -> Counter | None:
    """{effect key: count} of one component of the first step, without listing: a forward count over the
    component's columns whose state is what the effect key records -- per recipient that matters for the
    regular step, the damage so far capped at its cap (``_caps``) and whether a deathtouch source dealt it any
    -- plus, per gated blocker or planeswalker, whether a gated route that names it received damage while it
    still lacked lethal damage (702.19b, 702.2c) or its loyalty (702.19c): it must end with it. The caps of gated
    resources are their needs, so the capped totals decide every gate. None when the states outgrow ``limit``.
    """
    if plan.options_in(comp):
        return None  # two ways to assign: listed by the engine instead
    limit = EFFECT_STATE_LIMIT if limit is None else limit
    cols = plan.component_columns(comp)
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
        gate = plan.sources[i].route(r).gate
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
    for p, (_, r) in enumerate(cols):
        if col_slot[p] >= 0:
            last[col_slot[p]] = p
        for k in range(K):
            if col_gate[p] >> k & 1:
                last[k] = p
    closes = [0] * len(cols)
    for k, p in last.items():
        if k in need:
            closes[p] |= 1 << k

    def satisfied(tots, dt) -> int:
        out = 0
        for k, n in need.items():
            if tots[k] >= n or (k in lethal_kind and dt >> k & 1):
                out |= 1 << k
        return out

    states: dict[tuple, int] = {((0,) * K, 0, 0): 1}  # (capped totals, deathtouched mask, open obligations)
    p = 0
    for i in comp:
        src = plan.sources[i]
        cur = {(src.damage, *key): n for key, n in states.items()}
        dt_src = deathtouch[i]
        for route_no in range(len(src.routes)):
            deadline.check()
            final = route_no == len(src.routes) - 1
            k, gmask, close = col_slot[p], col_gate[p], closes[p]
            nxt: dict[tuple, int] = {}
            for (rem, tots, dt, open_), n in cur.items():
                for v in (rem,) if final else range(rem + 1):
                    t2, dt2, o2 = tots, dt, open_
                    if v:
                        if gmask:
                            o2 |= gmask & ~satisfied(tots, dt)
                        if k >= 0:
                            t2 = tots[:k] + (min(top[k], tots[k] + v),) + tots[k + 1 :]
                            if dt_src:
                                dt2 |= 1 << k
                            if o2:
                                o2 &= ~satisfied(t2, dt2)
                    if o2 & close:
                        continue  # 702.19b/c: it received gated damage and can no longer get what it needs
                    key = (rem - v, t2, dt2, o2)
                    nxt[key] = nxt.get(key, 0) + n
            cur = nxt
            p += 1
            if len(cur) > limit:
                return None
        states = {}
        for (_, tots, dt, open_), n in cur.items():
            key = (tots, dt, open_)
            states[key] = states.get(key, 0) + n
    out: Counter = Counter()
    for (tots, dt, open_), n in states.items():
        if open_:
            continue
        dealt = {names[k]: tots[k] for k in range(K) if tots[k]}
        touched = {names[k] for k in range(K) if dt >> k & 1}
        out[_effect_key(dealt, touched, caps)] += n
    return out


def _merge_keys(k1: tuple, k2: tuple, caps: Mapping[str, int]) -> tuple:
    if not k1:
        return k2
    if not k2:
        return k1
    merged = {r: [n, dt] for r, n, dt in k1}
    for r, n, dt in k2:
        if r in merged:
            merged[r][0] = min(caps[r], merged[r][0] + n)
            merged[r][1] = merged[r][1] or dt
        else:
            merged[r] = [n, dt]
    return tuple(sorted((r, n, dt) for r, (n, dt) in merged.items()))


def canonical_state(state: Scenario) -> Scenario:
    """The state with everything the regular step's legal set does not read set to a fixed value: players'
    life, battles' defense, creatures' marked damage beyond their toughness (attackers' marked damage is read by
    the legacy blocker's damage assignment order).
    Two states with equal canonical forms have exactly the same legal regular-step assignments."""
    return replace(
        state,
        players=tuple(replace(p, life=0) for p in state.players),
        attackers=tuple(replace(a, damage_marked=min(a.damage_marked, max(a.toughness, 0))) for a in state.attackers),
        blockers=tuple(replace(b, damage_marked=min(b.damage_marked, max(b.toughness, 0))) for b in state.blockers),
        battles=tuple(replace(b, defense=0) for b in state.battles),
    )


# ---------------------------------------------------------------------------------------------
# solve: the attacker's best line against the defender's best reply
# ---------------------------------------------------------------------------------------------


def solve_whole(whole: WholeCombat, objectives, *, time_limit: float | None = None, **options):
    """The best whole-combat line for lexicographic ``objectives``, the defender's choices being adversarial.

    Order of play (510.1, 510.4): the attacking player assigns the attackers' first-strike damage (A1), then
    the defending player assigns the blockers' (D1), knowing A1; the damage is dealt and the state-based actions
    happen; then the same for the regular step (A2, then D2). Objectives are the attacking player's (FORMAT.md,
    defined for one step in :mod:`trample.optimize`), summed over both steps: ``max-damage``, ``max-kills``,
    ``max-value`` and ``min-overkill`` add the first-strike step's value (on the board as given) and the regular
    step's (on the state after the SBAs, so a blocker killed in the first step is not counted again and damage
    already marked lowers what is needed); ``lethal`` is read on the regular step's state, whose life totals
    already include the first-strike damage (so it is "total damage >= life" over the combat). Without a
    first-strike step, the whole combat's values are the regular step's.

    The value of the combat is ``max over A1 of min over D1 of (first-step value(A1) + max over A2 of
    regular-step value(A2))``, compared lexicographically. D2 changes no objective (blockers' damage only
    reaches attackers), and neither does D1 except through which attackers survive, so defender replies are
    grouped by the set of attackers they kill. The search enumerates A1 (the first-strike step's attacking
    assignments), tries each distinct defender outcome, and asks :func:`trample.optimize.solve` for the regular
    step (memoised per state); a reply that already makes A1 no better than the best found ends A1's search
    (alpha-beta). Ties, as in :mod:`trample.optimize` (whatever the engines' enumeration order): the A1, then the
    D1, whose vector of amounts over the step plan's columns is lexicographically smallest; A2 is the one-step
    solver's canonical optimum (the search itself solves without the tie-break, then the chosen state is solved
    once more with it); D2 puts each blocker's damage on its last route (the smallest vector again).

    ``time_limit`` (wall-clock seconds, the whole search, checked all along: listing the defender's replies,
    each one-step solve gets the time left): when it runs out, the best line whose every defender reply was
    searched is returned with status ``feasible``; when no line was searched completely, status ``unknown`` and
    no line. Other options go to each one-step solve.
    """
    import time
    from fractions import Fraction

    from .optimize import (
        STATUS_FEASIBLE,
        STATUS_INFEASIBLE,
        STATUS_OPTIMAL,
        STATUS_UNKNOWN,
        SolveResult,
        parse_objectives,
        score,
    )
    from .optimize import solve as solve_step

    start = time.perf_counter()
    deadline = deadline_of(time_limit)

    def left() -> dict:
        """The time_limit option of a one-step solve: the time left (None: no limit)."""
        rest = deadline.remaining()
        return {} if rest is None else {"time_limit": max(rest, 1e-3)}

    scenario = whole.scenario
    objs = parse_objectives(objectives, scenario)
    engine = whole.engine
    has_fs = whole.has_first_strike_step
    first_board = scenario.with_step("first_strike")
    attacking_first = Combat(first_board, side="attacking", engine=engine)
    defending_first = Combat(first_board, side="defending", engine=engine)

    def exact(v) -> Fraction:
        return Fraction(v) if isinstance(v, int) else Fraction(repr(float(v)))

    def oriented(values: dict) -> tuple:
        return tuple(values[o.name] if o.maximize else -values[o.name] for o in objs)

    # Defender replies in the first-strike step, one per distinct set of attackers killed.
    def vector(combat: Combat, assignment: Assignment) -> tuple[int, ...]:
        plan = combat.plan
        return tuple(assignment.amount(plan.sources[i].source, r) for i, r in plan.columns)

    by_outcome: dict[frozenset, tuple[tuple, Assignment]] = {}
    try:
        for d in defending_first.assignments(time_limit=deadline):  # streamed: flat memory
            killed = frozenset()
            if has_fs:
                totals, touched = damage_dealt(scenario, d)
                killed = frozenset(
                    a.id
                    for a in scenario.attackers
                    if a.in_combat and creature_dies(a, totals.get(a.id, 0), a.id in touched)
                )
            vec = vector(defending_first, d)
            if killed not in by_outcome or vec < by_outcome[killed][0]:
                by_outcome[killed] = (vec, d)
    except LimitReached:  # the defender's replies are not all known: no line can be judged
        return SolveResult(STATUS_UNKNOWN, None, {}, None, (time.perf_counter() - start) * 1000, 0)
    replies = [d for _, d in sorted(by_outcome.values(), key=lambda item: item[0])]

    # The search only needs values: no tie-break there; the chosen state is solved again with the caller's options.
    search_options = dict(options, tie_break=False)
    memo: dict[Scenario, object] = {}
    stats = {"solves": 0, "status": STATUS_OPTIMAL}

    def regular_best(state: Scenario):
        key = replace(state, attackers=tuple(replace(a, damage_marked=0) for a in state.attackers))
        if key not in memo:
            result = solve_step(Combat(state, side="attacking", engine=engine), objs, **search_options, **left())
            stats["solves"] += 1
            if result.status != STATUS_OPTIMAL:
                stats["status"] = STATUS_FEASIBLE if result.assignment is not None else result.status
            memo[key] = result
        return memo[key]

    best = None  # (oriented total, A1's vector, values, A1, D1, regular result)
    stopped = False
    attacker_lines = attacking_first.assignments(time_limit=deadline)
    while not stopped:
        try:
            a1 = next(attacker_lines)
        except StopIteration:
            break
        except LimitReached:
            stopped = True
            break
        a1_vec = vector(attacking_first, a1)
        first_values = score(attacking_first, a1, objs) if has_fs else {}
        worst = None
        for d1 in replies:
            if deadline.expired():  # this A1's replies were not all searched: it is not a result
                stopped, worst = True, None
                break
            first = Assignment({**a1.to_json(), **d1.to_json()})
            result = regular_best(whole.state_after(first))
            if result.assignment is None:
                continue
            values = {}
            for o in objs:
                v = exact(result.objectives[o.name])
                if o.kind != "lethal":
                    v += exact(first_values.get(o.name, 0))
                values[o.name] = v
            key = oriented(values)
            if worst is None or key < worst[0]:
                worst = (key, a1_vec, values, a1, d1, result)
            if best is not None and not _beats(worst, best):
                break  # the defender already holds this A1 to no better than the best so far
        if worst is not None and (best is None or _beats(worst, best)):
            best = worst
        if deadline.expired():
            stopped = True
    attacker_lines.close()

    elapsed = (time.perf_counter() - start) * 1000
    if best is None:
        status = STATUS_UNKNOWN if stopped else STATUS_INFEASIBLE
        return SolveResult(status, None, {}, None, elapsed, stats["solves"])
    _, _, values, a1, d1, result = best
    first = Assignment({**a1.to_json(), **d1.to_json()})
    state = whole.state_after(first)
    if options.get("tie_break", True) and not deadline.expired():
        final = solve_step(Combat(state, side="attacking", engine=engine), objs, **options, **left())
        stats["solves"] += 1
        if final.assignment is not None and oriented(
            {o.name: exact(final.objectives[o.name]) for o in objs}
        ) == oriented({o.name: exact(result.objectives[o.name]) for o in objs}):
            result = final
    d2 = _canonical_division(Combat(state, side="defending", engine=engine))
    line = CombatLine(first, Assignment({**result.assignment.to_json(), **d2.to_json()}))
    status = stats["status"]
    if stopped and status == STATUS_OPTIMAL:
        status = STATUS_FEASIBLE
    out_values = {name: (int(v) if v.denominator == 1 else float(v)) for name, v in values.items()}
    lethal = None
    if any(o.kind == "lethal" for o in objs):
        lethal = {}
        for p in scenario.players:
            dealt = line.first_strike.total_to(p.id) + line.regular.total_to(p.id)
            lethal[p.id] = {"life": p.life, "damage": dealt, "margin": dealt - p.life, "reached": dealt >= p.life}
    return SolveResult(status, line, out_values, lethal, elapsed, stats["solves"])


def _beats(candidate: tuple, best: tuple) -> bool:
    """(oriented value, A1 vector, ...): a higher value wins; on a tie, the lexicographically smaller A1."""
    return candidate[0] > best[0] or (candidate[0] == best[0] and candidate[1] < best[1])


def _canonical_division(combat: Combat) -> Assignment:
    """The defending side's lexicographically smallest legal assignment over the plan's columns: each blocker
    puts all its damage on its last route (510.1d: blockers' routes carry no gates)."""
    plan = combat.plan
    if any(r.gate is not None for s in plan.sources for r in s.routes):
        return next(iter(combat.assignments()))
    return Assignment({s.source: ({s.routes[-1].recipient: s.damage} if s.damage else {}) for s in plan.sources})
