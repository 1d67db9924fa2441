"""A combat damage step without the questions that need the layers above: the scenario, its damage plan,
the engines' counts and streams, and checking. :class:`trample.combat.Combat` adds solving and indexing on top;
the optimiser and the indexing read a step through this class, so that they never import the combat module
(the layers only point down: README.md, Layout)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property

from .check import CheckResult, check
from .engines import engine_names, get_engine
from .limits import deadline_of
from .models import Assignment, FormatError, Scenario, load_assignment, load_scenario
from .outcome import settle
from .rules import SIDES, DamagePlan, derive

REPLAY_CACHE = 1 << 18  # inner components up to this many assignments are kept in memory and replayed


def opening(scenario: Scenario | Mapping | str, side: str, engine: str) -> Scenario:
    """The loaded scenario, once ``side`` and ``engine`` are known names (what every combat object checks)."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if side not in SIDES:
        raise FormatError("side", f"expected one of {', '.join(SIDES)}, got {side!r}")
    if engine not in engine_names():
        raise FormatError("engine", f"unknown engine {engine!r} (expected one of {', '.join(engine_names())})")
    return settle(scenario)  # the state-based actions pending on the board, once, for every combat object


class DamageStep:
    """One combat damage step (the base of :class:`trample.combat.Combat`)."""

    def __init__(self, scenario: Scenario | Mapping | str, side: str = "attacking", engine: str = "auto"):
        scenario = opening(scenario, side, engine)
        if scenario.step == "combat":
            raise FormatError("step", '"combat" describes both damage steps: use trample.open_combat()')
        self.scenario = scenario
        self.side = side
        self.engine = engine

    @classmethod
    def from_json(cls, data, side: str = "attacking", engine: str = "auto") -> DamageStep:
        return cls(load_scenario(data), side=side, engine=engine)

    @cached_property
    def plan(self) -> DamagePlan:
        return derive(self.scenario, self.side)

    # -- the questions ---------------------------------------------------------------------------
    def count(self, engine: str | None = None, time_limit=None) -> int:
        """The exact number of legal assignments. ``time_limit`` (seconds): :class:`trample.limits.LimitReached`
        if the count is not known by then."""
        deadline = deadline_of(time_limit)
        total = 1
        for comp in self.plan.components:
            total *= self._engine_for(comp, engine).count(self.plan, comp, deadline)
            if total == 0:
                return 0
        return total

    def assignments(self, limit: int | None = None, engine: str | None = None, time_limit=None) -> Iterator[Assignment]:
        """Every legal assignment exactly once, lazily (the product of the components' streams).

        ``time_limit`` (seconds, from the first ``next``): the assignments found by then are yielded, then
        :class:`trample.limits.LimitReached` is raised."""
        deadline = deadline_of(time_limit)
        plan = self.plan
        comps = plan.components
        factories = [self._replayable(comp, engine, deadline) for comp in comps]
        cols = [plan.component_columns(c) for c in comps]
        n = 0
        if limit is not None and limit <= 0:
            return
        for parts in _product(factories):
            if deadline and not n & 255:
                deadline.check()
            yield plan.assignment(zip(cols, parts))
            n += 1
            if limit is not None and n >= limit:
                return

    def check(self, assignment) -> CheckResult:
        if not isinstance(assignment, Assignment):
            assignment = load_assignment(assignment, self.scenario)
        return check(self.plan, assignment)

    def is_legal(self, assignment) -> bool:
        return self.check(assignment).legal

    # -- plumbing --------------------------------------------------------------------------------
    def _engine_for(self, comp: Sequence[int], engine: str | None):
        return get_engine(engine or self.engine)

    def _replayable(self, comp, engine, deadline) -> Callable[[], Iterable[tuple[int, ...]]]:
        eng = self._engine_for(comp, engine)
        plan = self.plan
        cache: list = []
        state = {"complete": False, "overflow": False}

        def fresh():
            if state["complete"]:
                return iter(cache)
            if state["overflow"]:
                return eng.iterate(plan, comp, deadline)
            return recording()

        def recording():
            cache.clear()
            for vec in eng.iterate(plan, comp, deadline):
                if not state["overflow"]:
                    if len(cache) < REPLAY_CACHE:
                        cache.append(vec)
                    else:
                        state["overflow"] = True
                        cache.clear()
                yield vec
            if not state["overflow"]:
                state["complete"] = True

        return fresh


def _product(factories: Sequence[Callable[[], Iterable]]) -> Iterator[tuple]:
    if not factories:
        yield ()
        return
    if len(factories) == 1:
        for v in factories[0]():
            yield (v,)
        return
    head, rest = factories[0], factories[1:]
    for v in head():
        for tail in _product(rest):
            yield (v, *tail)
