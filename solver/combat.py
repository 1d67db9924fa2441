"""The one object users hold: a combat damage step, its legal assignments as a lazy view, and checking."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property

from .check import CheckResult, check
from .engines import engine_names, get_engine
from .limits import deadline_of
from .models import Assignment, FormatError, Scenario, load_assignment, load_scenario
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
    return scenario


class Combat:
    """An immutable combat damage step (python-chess's Board is the model).

    >>> combat = Combat.from_json({"players": [{"id": "opp", "life": 20}],
    ...     "attackers": [{"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"],
    ...                    "attacking": "opp", "blocked_by": ["x"]}],
    ...     "blockers": [{"id": "x", "power": 1, "toughness": 2}]})
    >>> combat.legal_assignments.count()
    4
    >>> {"a": {"x": 2, "opp": 3}} in combat.legal_assignments
    True
    """

    def __init__(self, scenario: Scenario | Mapping | str, side: str = "attacking", engine: str = "auto"):
        scenario = opening(scenario, side, engine)
        if scenario.step == "combat":
            raise FormatError("step", '"combat" describes both damage steps: use trample.open_combat()')
        self.scenario = scenario
        self.side = side
        self.engine = engine

    @classmethod
    def from_json(cls, data, side: str = "attacking", engine: str = "auto") -> Combat:
        return cls(load_scenario(data), side=side, engine=engine)

    @cached_property
    def plan(self) -> DamagePlan:
        return derive(self.scenario, self.side)

    @property
    def legal_assignments(self) -> LegalAssignments:
        return LegalAssignments(self)

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
        names = [s.source for s in plan.sources]
        n = 0
        if limit is not None and limit <= 0:
            return
        for parts in _product(factories):
            if deadline and not n & 255:
                deadline.check()
            out = {name: {} for name in names}
            for comp_cols, vec in zip(cols, parts):
                for (i, r), amount in zip(comp_cols, vec):
                    if amount:
                        out[names[i]][r] = amount
            yield Assignment(out)
            n += 1
            if limit is not None and n >= limit:
                return

    def check(self, assignment) -> CheckResult:
        if not isinstance(assignment, Assignment):
            assignment = load_assignment(assignment, self.scenario)
        return check(self.plan, assignment)

    def is_legal(self, assignment) -> bool:
        return self.check(assignment).legal

    # -- optimisation (trample.optimize, issue 3) and indexing (trample.indexing, issue 4) ----------
    def solve(self, objectives, **options):
        """The best legal assignment for lexicographic objectives; see :func:`trample.optimize.solve`."""
        from .optimize import solve

        return _shown(solve(self, objectives, **options), self)

    def rank(self, assignment, time_limit=None) -> int:
        """The index of a legal assignment in the canonical order; see :mod:`trample.indexing`."""
        from .indexing import rank

        return rank(self, assignment, time_limit=time_limit)

    def unrank(self, index: int, time_limit=None) -> Assignment:
        """The assignment at ``index`` (0 <= index < count) in the canonical order."""
        from .indexing import unrank

        return unrank(self, index, time_limit=time_limit)

    def sample(self, n: int, seed: int, time_limit=None):
        """``n`` assignments drawn uniformly at random (with replacement), reproducibly from ``seed``."""
        from .indexing import sample

        return sample(self, n, seed, time_limit=time_limit)

    def samples(self, n: int, seed: int, time_limit=None) -> Iterator[Assignment]:
        """The same draws as :meth:`sample`, streamed one at a time (flat memory for any ``n``)."""
        from .indexing import samples

        return samples(self, n, seed, time_limit=time_limit)

    # -- pictures (trample.render) -------------------------------------------------------------------
    def show(self, assignment=None, title: str | None = None):
        """A picture of the board, with ``assignment`` drawn as labelled arrows (a notebook displays it)."""
        from .render import Picture, render

        return Picture(render(self, assignment, title))

    def _repr_svg_(self) -> str:
        from .render import render

        return render(self)

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


def open_combat(scenario: Scenario | Mapping | str, side: str = "attacking", engine: str = "auto"):
    """A :class:`Combat` for one damage step, or a whole combat (both steps) for ``"step": "combat"``."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if scenario.step == "combat":
        try:
            from .whole import WholeCombat
        except ModuleNotFoundError as err:
            if err.name != "trample.whole":
                raise
            raise FormatError("step", '"combat" (both damage steps) is not supported yet') from None
        return WholeCombat(scenario, side=side, engine=engine)
    return Combat(scenario, side=side, engine=engine)


def _shown(result, combat):
    """A solve result that a notebook shows as its board and line (``_repr_svg_``)."""
    from .render import shown_result

    return shown_result(result, combat)


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


class LegalAssignments:
    """A lazy view of the legal assignments: ``count()``, iteration and ``in`` (like python-chess's legal_moves)."""

    def __init__(self, combat: Combat):
        self.combat = combat

    def count(self) -> int:
        return self.combat.count()

    def __iter__(self) -> Iterator[Assignment]:
        return self.combat.assignments()

    def __contains__(self, assignment) -> bool:
        try:
            return self.combat.check(assignment).legal
        except FormatError:
            return False

    def __bool__(self) -> bool:
        return self.count() > 0

    def __len__(self) -> int:
        n = self.count()
        if n > sys.maxsize:  # len() must fit in a machine word; the count need not
            raise OverflowError(f"{n} legal assignments is more than len() can return: use .count()")
        return n

    def __repr__(self) -> str:
        return f"<LegalAssignments count={self.count()}>"
