"""Indexable legal assignments: ``rank``, ``unrank`` and exactly uniform ``sample``, without listing.

The canonical order (the order of the direct engine's enumeration, and of ``Combat.assignments()`` under the
direct engine):

- within a component of the plan (sources whose choices constrain each other), assignments are ordered
  lexicographically, smallest first, by their vector of amounts over ``plan.component_columns(component)``:
  sources in plan order (attackers in scenario order, then blockers), each source's routes in plan order
  (its blockers in ``blocked_by`` order, then what it attacks, then that object's controller);
- across components, it is the product order with the first component slowest (mixed radix: the index is
  ``((i_1 * n_2 + i_2) * n_3 + i_3) ...``).

``rank`` and ``unrank`` run the direct engine's programme of each component (:meth:`DirectEngine.programme`: a lone
source's column programme, or for several sources the elimination tables walked a source at a time,
:mod:`trample.engines.conditioned` for a few uses and :mod:`trample.engines.ordered`; exact Python integers,
whatever the size of the space) and never list assignments;
they do not depend on the engine a :class:`~trample.combat.Combat` was opened with. ``sample`` unranks uniform
integers drawn by ``random.Random(seed).randrange(count)``, so it is exactly uniform and reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

from .engines import PROGRAMME, Programme, ProgrammeEngine, get_engine
from .limits import Deadline, TimeLimit, deadline_of
from .models import Assignment, FormatError, load_assignment
from .step import DamageStep as Combat  # anything with a plan: a Combat, or the step the optimiser reads

__all__ = ["rank", "unrank", "sample", "samples", "count", "component_programmes"]


def component_programmes(combat: Combat, time_limit: TimeLimit = None, uses: int = 1) -> list[Programme]:
    """The programme of every component (``time_limit``: :class:`trample.limits.LimitReached` past it; ``uses``:
    the ranks or unranks to be made with them, which may choose a programme slower to build)."""
    plan = combat.plan
    deadline = deadline_of(time_limit)
    engine = cast(
        ProgrammeEngine, get_engine("direct", needs=[PROGRAMME])
    )  # the engine whose programmes rank and unrank
    return [engine.programme(plan, comp, deadline, uses) for comp in plan.components]


def count(combat: Combat, time_limit: TimeLimit = None) -> int:
    """The number of legal assignments, by the direct engine's counting (the same number every engine gives).

    The one count path: this is :meth:`Combat.count` with the direct engine (as is ``legal_assignments.count()``
    with the combat's engine)."""
    return combat.count(engine="direct", time_limit=time_limit)


def rank(combat: Combat, assignment: Assignment | Mapping[str, Any], time_limit: TimeLimit = None) -> int:
    """The index of a legal assignment in the canonical order (0 <= rank < count).

    Raises :class:`~trample.models.FormatError` (path ``assignment``) when it is not a legal assignment, naming the
    first rule it breaks.
    """
    if not isinstance(assignment, Assignment):
        assignment = load_assignment(assignment, combat.scenario)
    plan = combat.plan
    dps = component_programmes(combat, time_limit)
    names = [s.source for s in plan.sources]
    covered = {(names[i], r) for dp in dps for i, r in dp.columns}
    extra = any((s, r) not in covered for s, split in assignment.items() for r in split) or any(
        s not in plan.index for s in assignment
    )
    index = 0
    for dp in dps:
        local = None if extra else dp.rank(plan.vector(assignment, dp.columns))
        if local is None:
            raise _illegal(combat, assignment)
        index = index * dp.count() + local
    return index


def unrank(combat: Combat, index: int, time_limit: TimeLimit = None) -> Assignment:
    """The assignment at ``index`` in the canonical order. Raises FormatError (path ``index``) out of range."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise FormatError("index", f"expected a whole number, got {index!r}")
    dps = component_programmes(combat, time_limit)
    total = 1
    for dp in dps:
        total *= dp.count()
    if not 0 <= index < total:
        raise FormatError(
            "index", f"{index} is out of range: there are {total} legal assignments (indices 0 to {total - 1})"
        )
    return _build(combat, dps, _digits(index, dps))


def sample(combat: Combat, n: int, seed: int | str | None, time_limit: TimeLimit = None) -> list[Assignment]:
    """``n`` legal assignments drawn independently and exactly uniformly (with replacement), reproducibly.

    ``time_limit`` (seconds): :class:`trample.limits.LimitReached` if the ``n`` draws are not done by then."""
    return list(samples(combat, n, seed, time_limit))


def samples(combat: Combat, n: int, seed: int | str | None, time_limit: TimeLimit = None) -> Iterator[Assignment]:
    """The draws of :func:`sample`, one at a time (the same ones for the same seed): memory stays flat for any
    ``n``. ``time_limit`` (seconds, from the call) covers building the counting programmes and the draws; the
    draws made by then are yielded, then :class:`trample.limits.LimitReached` is raised."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise FormatError("n", f"expected a non-negative whole number, got {n!r}")
    deadline = deadline_of(time_limit)
    dps = component_programmes(combat, deadline, uses=n)
    total = 1
    for dp in dps:
        total *= dp.count()
    if n and total == 0:  # pragma: no cover - every plan has at least one legal assignment
        raise FormatError("", "there is no legal assignment to sample from")
    return _draws(combat, dps, n, total, random.Random(seed), deadline)


def _draws(
    combat: Combat, dps: list[Programme], n: int, total: int, rng: random.Random, deadline: Deadline
) -> Iterator[Assignment]:
    for k in range(n):
        if deadline and not k & 63:
            deadline.check()
        yield _build(combat, dps, _digits(rng.randrange(total), dps))


def _digits(index: int, dps: Iterable[Programme]) -> list[int]:
    dps = list(dps)
    out = [0] * len(dps)
    for k in range(len(dps) - 1, -1, -1):
        index, out[k] = divmod(index, dps[k].count())
    return out


def _build(combat: Combat, dps: list[Programme], digits: list[int]) -> Assignment:
    return combat.plan.assignment((dp.columns, dp.unrank(d)) for dp, d in zip(dps, digits))


def _illegal(combat: Combat, assignment: Assignment) -> FormatError:
    result = combat.check(assignment)
    if result.violations:
        v = result.violations[0]
        return FormatError("assignment", f"not a legal assignment ({v.rule}: {v.message})")
    return FormatError("assignment", "not a legal assignment")  # pragma: no cover - check and the DP agree
