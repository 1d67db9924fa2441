"""The whole combat object (:class:`WholeCombat`) and :func:`open_combat`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from ..check import CheckResult, Violation, check
from ..combat import Combat, LegalAssignments
from ..engines import effects_engine
from ..limits import NEVER, deadline_of, started
from ..models import Assignment, FormatError, Keyword, Scenario, Side, Step, load_scenario
from ..outcome import (
    Outcome,
    after_step,
    apply_damage,
    canonical_state,
    first_strike_step_happens,
    has_effects,
    merge_effect_keys,
    regular_step_caps,
)
from ..outcome import resolve as resolve_outcome
from ..rules import derive
from ..step import opening
from .line import STEP_NAMES, CombatLine, load_line

if TYPE_CHECKING:
    from ..render import Picture

# the search (.search, trample.optimize and OR-Tools below it) and the pictures are imported by the methods that
# use them: counting, listing and checking a whole combat need neither (issue 21: the commands' start-up)

#: Regular-step lists up to this many assignments are kept in memory and replayed when several first-strike
#: assignments lead to the same state (summed over every kept state).
REPLAY_BUDGET = 1 << 18


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
        if side == Side.DEFENDING:
            raise FormatError(
                "side",
                'a whole combat ("step": "combat") holds both players\' choices in both '
                'steps; use side "both" (or "attacking", the default: the same lines)',
            )
        self.scenario = scenario if scenario.step == Step.COMBAT else scenario.with_step(Step.COMBAT)
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
        return Combat(self.scenario.with_step(Step.FIRST_STRIKE), side=Side.BOTH, engine=self.engine)

    def state_after(self, first_strike) -> Scenario:
        """The state in which the regular step is assigned, after ``first_strike`` (both sides) and the SBAs.

        With no first-strike step there are no state-based actions in between: the board as given.
        """
        if not self.has_first_strike_step:
            return self.scenario.with_step(Step.REGULAR)
        return after_step(self.scenario, first_strike)

    def outcome_after(self, first_strike) -> Outcome:
        """The first-strike step's :class:`trample.outcome.Outcome`: damage dealt, deaths, the state after the
        SBAs, and the players who lose (``outcome.game_over``: a two-player game ends there, and the regular step's
        plan then assigns nothing, 104.3b; docs/effects.md)."""
        if not self.has_first_strike_step:
            return resolve_outcome(self.scenario.with_step(Step.REGULAR), {})
        return resolve_outcome(self.scenario, first_strike)

    def regular_step(self, first_strike) -> Combat:
        """The regular step (both sides) that follows ``first_strike``."""
        return Combat(self.state_after(first_strike), side=Side.BOTH, engine=self.engine)

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
        if self.has_first_strike_step and has_effects(self.scenario):
            # damage dealt differs from damage assigned: group the first step's lines by the state they leave
            states: Counter = Counter()
            for n, first in enumerate(self.first_step.assignments(engine=engine, time_limit=deadline)):
                if not n & 255:
                    deadline.check()
                states[canonical_state(self.state_after(first))] += 1
            return sum(k * self._regular_count(state, engine, deadline) for state, k in states.items())
        for key, multiplicity in self.first_step_effects(engine, deadline).items():
            state = self._state_from_effect(key)
            total += multiplicity * self._regular_count(state, engine, deadline)
        return total

    def first_step_effects(self, engine: str | None = None, deadline=NEVER) -> Counter:
        """{effect key: number of first-strike assignments with that effect} (see
        :func:`trample.outcome.effect_key`); ``engine``: the combat's engine when None.

        Per component, by the engine's EFFECTS capability (:mod:`trample.engines.effects`): the direct engine
        counts without listing, CP-SAT (the reference) lists.
        """
        eng = effects_engine(engine or self.engine, deadline)
        plan = self.first_step.plan
        caps = regular_step_caps(self.scenario)
        deathtouch = [self.scenario.creature(s.source).has(Keyword.DEATHTOUCH) for s in plan.sources]
        folded: Counter = Counter({(): 1})
        for comp in plan.components:
            local = eng.effects(plan, comp, caps, deathtouch, deadline)
            merged: Counter = Counter()
            for k1, n1 in folded.items():
                deadline.check()
                for k2, n2 in local.items():
                    merged[merge_effect_keys(k1, k2, caps)] += n1 * n2
            folded = merged
            if not folded:
                break
        return folded

    def _state_from_effect(self, key) -> Scenario:
        if not self.has_first_strike_step:
            return canonical_state(self.scenario.with_step(Step.REGULAR))
        totals = {r: n for r, n, _ in key}
        touched = {r for r, _, dt in key if dt}
        return canonical_state(apply_damage(self.scenario, totals, touched))

    def _regular_count(self, state: Scenario, engine: str, deadline=NEVER) -> int:
        key = (state, engine)
        if key not in self._count_cache:
            deadline.check()
            self._count_cache[key] = Combat(state, side=Side.BOTH, engine=engine).count(time_limit=deadline)
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
            stream = Combat(state, side=Side.BOTH, engine=engine).assignments(time_limit=deadline)
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
        result = check(derive(state, Side.BOTH, Step.REGULAR), line.regular)
        violations += [_in_step("regular", v) for v in result.violations]
        return CheckResult(legal=not violations, violations=tuple(violations))

    def is_legal(self, line) -> bool:
        return self.check(line).legal

    # -- solve -----------------------------------------------------------------------------------
    def solve(self, objectives, **options):
        """The attacker's best line against the defender's best reply; see :func:`solve_whole`. A notebook shows
        the result as both steps' pictures (``_repr_svg_``)."""
        options = started(options)  # the limit counts from the call, the lazy imports below included
        from ..shown import shown_result
        from .search import solve_whole

        return shown_result(solve_whole(self, objectives, **options), self)

    # -- pictures (trample.render) -------------------------------------------------------------------
    def show(self, line=None, title: str | None = None) -> Picture:
        """A picture of the board, with ``line`` drawn step by step: both steps side by side, each showing what
        its damage does (a notebook displays it); no regular step once the first one ends the game (104.3b)."""
        from ..render import Picture, render

        return Picture(render(self, line, title))

    def _repr_svg_(self) -> str:
        from ..render import render

        return render(self)

    def __repr__(self) -> str:
        return f"<WholeCombat first_strike_step={self.has_first_strike_step} engine={self.engine!r}>"


def _in_step(step: str, v: Violation) -> Violation:
    return replace(v, message=f"{STEP_NAMES[step]}: {v.message}")


def open_combat(scenario: Scenario | Mapping | str, side: str = "attacking", engine: str = "auto"):
    """A :class:`~trample.combat.Combat` for one damage step, or a :class:`WholeCombat` (both steps) for
    ``"step": "combat"``."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if scenario.step == Step.COMBAT:
        return WholeCombat(scenario, side=side, engine=engine)
    return Combat(scenario, side=side, engine=engine)
