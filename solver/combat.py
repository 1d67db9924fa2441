"""The one object users hold: a combat damage step, its legal assignments as a lazy view, and checking."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .check import CheckResult
from .limits import TimeLimit, deadline_of, started
from .models import Assignment, FormatError
from .rules import mark_legal
from .step import DamageStep

if TYPE_CHECKING:
    from .optimize import SolveResult
    from .outcome import Outcome
    from .render import Picture

# trample.optimize, trample.indexing and trample.render are imported by the methods that use them: counting,
# listing and checking a step need none of them (issue 21: `trample count` starts without the solver)


class Combat(DamageStep):
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

    @property
    def legal_assignments(self) -> LegalAssignments:
        return LegalAssignments(self)

    # -- optimisation (trample.optimize) and indexing (trample.indexing) ----------
    def solve(self, objectives: str | Sequence[str], **options: Any) -> SolveResult:
        """The best legal assignment for lexicographic objectives; see :func:`trample.optimize.solve`."""
        options = started(options)  # the limit counts from the call, the lazy imports below included
        from . import optimize
        from .shown import shown_result

        result = optimize.solve(self, objectives, **options)
        if isinstance(result.assignment, Assignment):  # found in this step's legal set: a picture need not check it
            mark_legal(result.assignment, self.scenario, self.side)
        return shown_result(result, self)

    def rank(self, assignment: Assignment | Mapping[str, Any], time_limit: TimeLimit = None) -> int:
        """The index of a legal assignment in the canonical order; see :mod:`trample.indexing`."""
        time_limit = deadline_of(time_limit)  # from the call, the import included
        from . import indexing

        return indexing.rank(self, assignment, time_limit=time_limit)

    def unrank(self, index: int, time_limit: TimeLimit = None) -> Assignment:
        """The assignment at ``index`` (0 <= index < count) in the canonical order."""
        time_limit = deadline_of(time_limit)
        from . import indexing

        return indexing.unrank(self, index, time_limit=time_limit)

    def sample(self, n: int, seed: int, time_limit: TimeLimit = None) -> list[Assignment]:
        """``n`` assignments drawn uniformly at random (with replacement), reproducibly from ``seed``."""
        time_limit = deadline_of(time_limit)
        from . import indexing

        return indexing.sample(self, n, seed, time_limit=time_limit)

    def samples(self, n: int, seed: int, time_limit: TimeLimit = None) -> Iterator[Assignment]:
        """The same draws as :meth:`sample`, streamed one at a time (flat memory for any ``n``)."""
        from . import indexing

        return indexing.samples(self, n, seed, time_limit=time_limit)

    # -- what an assignment does (trample.outcome) ------------------------------------------------------
    def outcome(
        self, assignment: Assignment | Mapping[str, Any], objectives: str | Sequence[str] = "lethal"
    ) -> Outcome:
        """What ``assignment`` does (:class:`trample.outcome.Outcome`: damage dealt, deaths, life, poison, commander
        damage, who loses), as the solver reads it: with the other side's damage given in ``assignment``, or else
        its player's best reply for ``objectives`` on a board with effects (:func:`trample.optimize.outcome_of`)."""
        from . import optimize

        return optimize.outcome_of(self, assignment, objectives)

    # -- pictures (trample.render) -------------------------------------------------------------------
    def show(self, assignment: Assignment | Mapping[str, Any] | None = None, title: str | None = None) -> Picture:
        """A picture of the board, with ``assignment`` drawn as labelled arrows (a notebook displays it)."""
        from .render import Picture, render

        return Picture(render(self, assignment, title))

    def _repr_svg_(self) -> str:
        from .render import render

        return render(self)


class Enumerable(Protocol):
    """What :class:`LegalAssignments` views: a :class:`Combat`, or a whole combat (whose items are lines)."""

    def count(self) -> int: ...

    def assignments(self) -> Iterator[Any]: ...

    def check(self, assignment: Any) -> CheckResult: ...


class LegalAssignments:
    """A lazy view of the legal assignments: ``count()``, iteration and ``in`` (like python-chess's legal_moves)."""

    def __init__(self, combat: Enumerable) -> None:
        self.combat = combat

    def count(self) -> int:
        return self.combat.count()

    def __iter__(self) -> Iterator[Assignment]:
        return self.combat.assignments()

    def __contains__(self, assignment: object) -> bool:
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
