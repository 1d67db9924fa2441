"""Lexicographic optimisation: the terms packed into weighted objectives, solved and fixed in turn; :func:`solve`,
and :func:`all_optimal` (every optimal assignment, streamed)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from fractions import Fraction

from ..limits import LimitReached, deadline_of, import_within
from ..models import Assignment, ObjectiveKind
from ..outcome import has_effects
from ..rules import DamagePlan, division_moved
from . import bands, effects
from .linear import DirectOptimum, count_at_most, direct_optimum, surely_at_most
from .listing import all_optimal_by_outcome, solve_by_outcome
from .model import Budget, Lin, ObjectiveModel, Runner, Term, lex_optimise
from .objectives import Definitions, Objective, damage_step_of, json_number, parse_objectives
from .results import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    SolveResult,
    assignment_of_vector,
    lethal_report_of_vector,
)

#: the module that imports OR-Tools (0.3 s of CPU; over a second of wall time on a loaded machine), imported within
#: the time limit (trample.limits.import_within)
CPSAT = "trample.engines.cpsat"


def _forced(plan: DamagePlan) -> list[int] | None:
    """The only assignment, when no active source has a choice (no solver needed)."""
    if any(len(plan.sources[i].all_routes) != 1 or plan.sources[i].unblocked for i in plan.active):
        return None
    return [plan.sources[i].damage for i, _ in plan.columns]


def solve(
    combat,
    objectives,
    *,
    time_limit: float | None = None,
    deterministic_time: float | None = None,
    workers: int = 1,
    presolve: bool = False,
    tie_break: bool = True,
    hints: bool = False,
    params: Mapping | None = None,
) -> SolveResult:
    """The best legal assignment for ``objectives`` (lexicographic, in the order given).

    ``combat``: a :class:`trample.Combat` (or anything ``Combat()`` accepts). ``objectives``: ``"lethal,max-value"``
    or a list of names. ``time_limit``: wall-clock seconds for the whole solve (the best assignment found is
    returned with status ``feasible``); ``deterministic_time``: the same in CP-SAT's deterministic time units,
    reproducible. ``tie_break=False`` skips the canonical tie-break (any optimal assignment is returned).
    CP-SAT settings: ``workers`` (default 1: reproducible, and fastest on small models), ``presolve`` (default
    off: faster on every board size measured), ``hints`` (hint each solve with the previous solution),
    ``params`` (extra CpSolver parameters; default: LEAN_PARAMS on models of <= SMALL_COLUMNS columns, escalating
    to STRONG_PARAMS when a solve takes more than ESCALATE_DET deterministic time units).
    """
    result, _ = _optimise(
        combat,
        objectives,
        deadline_of(time_limit) or None,  # counted from this call: importing OR-Tools and building the model count
        deterministic_time,
        tie_break,
        dict(workers=workers, presolve=presolve, hints=hints, params=params),
    )
    return result


def _optimise(combat, objectives, time_limit, deterministic_time, tie_break: bool, settings: dict):
    """(SolveResult, the objective model with the optimum fixed, or None when no solver was needed)."""
    start = time.perf_counter()  # time_ms counts the whole call (a size test or a direct path given up included)
    combat = damage_step_of(combat)
    plan = combat.plan
    objs = parse_objectives(objectives, combat.scenario)
    if has_effects(combat.scenario) or division_moved(combat.scenario):  # the outcome; banding: a game (702.22j/k)
        if effects.USE_MODEL:  # what the damage does, encoded (optimize.effects); None: the parts interact
            found = bands.solve_by_model(combat, objs, time_limit, deterministic_time, tie_break, settings)
            if found is not None:
                return found, None
        return solve_by_outcome(combat, objs, time_limit, tie_break), None
    defs = Definitions(plan)
    if any(o.kind == ObjectiveKind.MAX_VALUE for o in objs):
        _ = defs.value_scale  # bad values are bad input, before any solving
    wants_lethal = any(o.kind == ObjectiveKind.LETHAL for o in objs)
    forced = _forced(plan)
    if forced is None and tie_break:
        small = _small_direct(combat, objs, time_limit)
        if small is not None:
            return small, None
    budget = Budget(time_limit, deterministic_time, start=start)
    if forced is None and not import_within(CPSAT, time_limit):  # the limit ran out while OR-Tools was imported
        return SolveResult(STATUS_UNKNOWN, None, {}, None, (time.perf_counter() - budget.start) * 1000, 0), None

    def elapsed() -> float:
        return (time.perf_counter() - budget.start) * 1000

    if forced is not None:
        return _forced_result(plan, defs, objs, forced, wants_lethal, elapsed), None

    om = ObjectiveModel(plan, defs)
    runner = Runner(om, budget, settings["workers"], settings["presolve"], settings["hints"], settings["params"])
    lins = [om.objective(o) for o in objs]
    runner.watch = lins
    best_to, probes_proven = _lethal_probes(om, runner, defs) if wants_lethal else ({}, True)
    terms = [Term(lin, o.maximize, True) for o, lin in zip(objs, lins)]
    if tie_break:
        terms += _tie_break_terms(om)
    status, proven = lex_optimise(runner, terms)
    if runner.vec is None:
        st = STATUS_INFEASIBLE if status == STATUS_INFEASIBLE else STATUS_UNKNOWN
        return SolveResult(st, None, {}, None, elapsed(), runner.solves), None
    values = {}
    for o, _lin, raw in zip(objs, lins, runner.watched):  # read with solver.value after the solve that found vec
        values[o.name] = json_number(Fraction(raw, defs.value_scale)) if o.kind == ObjectiveKind.MAX_VALUE else raw
    for lin, raw in zip(lins, runner.watched):  # fix what was found (already fixed when proven)
        if lin.terms and not proven:
            om.m.add(lin.expr() == raw)
    final = STATUS_OPTIMAL if proven and probes_proven else STATUS_FEASIBLE
    lethal = lethal_report_of_vector(defs, runner.vec, best_to) if wants_lethal else None
    vec = assignment_of_vector(plan, runner.vec)
    return SolveResult(final, vec, values, lethal, elapsed(), runner.solves, escalated=runner.escalated), om


def _forced_result(plan, defs: Definitions, objs, forced, wants_lethal: bool, elapsed) -> SolveResult:
    """The answer when 510.1a leaves one assignment (``forced``, a vector): its values, proven without a solver."""
    values = {o.name: defs.evaluate(o, forced) for o in objs}
    lethal = None
    if wants_lethal:
        lethal = lethal_report_of_vector(
            defs, forced, {p: defs.evaluate(Objective(p, "max-damage", p), forced) for p in defs.players}
        )
    return SolveResult(STATUS_OPTIMAL, assignment_of_vector(plan, forced), values, lethal, elapsed(), 0)


def _lethal_probes(om: ObjectiveModel, runner: Runner, defs: Definitions) -> tuple[dict[str, int], bool]:
    """The most this step can assign to each player, alone (the lethal report's ``max_damage``), and whether
    every probe was proven optimal."""
    best_to: dict[str, int] = {}
    probes_proven = True
    for p in defs.players:
        total = om.total(p)
        if not total.terms:
            best_to[p] = total.const
            continue
        om.m.maximize(total.expr())
        st = runner.run()
        if st in (STATUS_OPTIMAL, STATUS_FEASIBLE):
            best_to[p] = runner.value(total)
        probes_proven &= st == STATUS_OPTIMAL
    om.m.clear_objective()
    return best_to, probes_proven


#: boards of at most this many legal assignments are solved from the direct engine's blocks, without importing
#: OR-Tools (0.4 s of start-up: `trample solve` on a small board starts in the time of `trample count`)
SOLVE_DIRECT_ROWS = 1 << 12
#: on a board with effects, the assignments of the solved side (bounded: the product of each source's splits) past
#: which ``all_optimal`` lists the optimal ones from the model, not by reading every one against every reply
ALL_OPTIMAL_LISTED = 1 << 12
#: the size test's work for it (linear.count_at_most): on 4 000 generated boards of at most SOLVE_DIRECT_ROWS
#: legal assignments the tables never needed more than 2^12 operations; on 12 attackers sharing 14 blockers it
#: answers "large" in ~10 ms of CPU (27 ms within linear.SIZE_TEST_WORK)
SOLVE_SIZE_WORK = 1 << 16


def _small_direct(combat, objs, time_limit) -> SolveResult | None:
    """The optimum of a small board read from the direct engine's blocks (:mod:`.linear`), with the same tie-break
    as the CP-SAT model (the lexicographically smallest optimal vector over ``plan.columns``); None when the board
    is not small or the direct path does not apply."""
    import numpy as np

    t0 = time.perf_counter()
    plan = combat.plan
    deadline = deadline_of(time_limit)
    try:
        if (
            not surely_at_most(plan, SOLVE_DIRECT_ROWS)
            and count_at_most(plan, SOLVE_DIRECT_ROWS, deadline, SOLVE_SIZE_WORK) is None
        ):
            return None  # else a quick count decides (on a small board it costs about what the optimum does)
        found = direct_optimum(combat, objs, deadline)
        if found is None:
            return None
        rows = np.concatenate(list(found.blocks()), axis=0)
    except LimitReached:
        return None  # out of time already: the CP-SAT path reports what it can
    first = rows[np.lexsort(rows.T[::-1])[0]].tolist()
    lethal = None
    if any(o.kind == ObjectiveKind.LETHAL for o in objs):
        lethal = lethal_report_of_vector(found.scorer.defs, first, found.most_to)
    elapsed = (time.perf_counter() - t0) * 1000
    return SolveResult(STATUS_OPTIMAL, combat._layout.assignment(first), found.objectives, lethal, elapsed, 0)


def _tie_break_terms(om: ObjectiveModel) -> list[Term]:
    """Minimise each column in plan order, except each source's last (fixed by 510.1a)."""
    out = []
    plan = om.plan
    for k, (i, r) in enumerate(om.cols):
        if r == plan.sources[i].all_routes[-1].recipient:
            continue
        out.append(Term(Lin.of(om.built.x[k], 0, om.hi[k]), False, False))
    return out


class AllOptimal(Iterator[Assignment]):
    """Every optimal assignment, each exactly once, streamed (CP-SAT enumeration with one worker).

    ``.result`` is the :class:`SolveResult` of the optimisation (status, objective values, one of the optimal
    assignments); when its status is ``feasible`` (a limit stopped the proof), the stream lists the assignments
    that reach the best values found. The order is CP-SAT's, not the canonical one -- except on boards of at most
    :data:`.linear.DIRECT_ROWS` legal assignments (and no damage effects, as-though-unblocked options or banding):
    then no solver is used, the optimum is read from the direct engine's blocks and the optimal rows are listed in
    the canonical order (:mod:`.linear`; :meth:`blocks` hands them out as numpy blocks); and on small boards with
    effects or banding (:meth:`_by_outcome`), in the canonical order too.

    ``time_limit`` (wall-clock seconds) covers the optimisation and the stream: the assignments found before it
    runs out are yielded, then :class:`trample.limits.LimitReached` is raised (``.complete`` is then False).
    """

    def __init__(
        self,
        combat,
        objectives,
        *,
        time_limit=None,
        deterministic_time=None,
        workers: int = 1,
        presolve: bool = False,
        limit: int | None = None,
        params: Mapping | None = None,
    ):

        self._deadline = deadline_of(time_limit)
        time_limit = self._deadline or None  # counted from here: importing OR-Tools and the model count
        self.complete = True
        combat = damage_step_of(combat)
        self.plan = combat.plan
        self.limit = limit
        self._stream: Iterator | None = None
        self._count = 0
        objs = parse_objectives(objectives, combat.scenario)
        t0 = time.perf_counter()
        self._direct: DirectOptimum | None = None
        try:
            found = direct_optimum(combat, objs, self._deadline)  # small boards: no solver (optimize.linear)
        except LimitReached:
            found = None  # out of time already: CP-SAT reports what it can within the limit
        if found is not None:
            lethal = None
            if any(o.kind == ObjectiveKind.LETHAL for o in objs):
                defs = found.scorer.defs
                lethal = lethal_report_of_vector(defs, found.first, found.most_to)
            self.result = SolveResult(
                STATUS_OPTIMAL,
                combat._layout.assignment(found.first),
                found.objectives,
                lethal,
                (time.perf_counter() - t0) * 1000,
                0,
            )
            self._model = None
            self._direct = found
            return
        self.result, self._model = _optimise(
            combat,
            objectives,
            time_limit,
            deterministic_time,
            False,
            dict(workers=workers, presolve=presolve, hints=False, params=params),
        )
        self._stream = None
        if (
            self._model is None
            and (has_effects(combat.scenario) or division_moved(combat.scenario))
            and self.result.assignment is not None
        ):
            objs = parse_objectives(objectives, combat.scenario)
            step = damage_step_of(combat)
            self._stream = self._by_outcome(step, objs)
        elif self._model is None:
            self._stream = iter([self.result.assignment] if self.result.assignment is not None else [])
        else:
            self._model.m.clear_objective()
            self._model.m.clear_hints()

    def _by_outcome(self, step, objs) -> Iterator[Assignment]:
        """The optimal assignments of a board with effects or banding: listed from the effects model with the
        optimum fixed (:func:`.effects.optimal_vectors`, CP-SAT's order) where the optimisation was proven and the
        solved side has more than :data:`ALL_OPTIMAL_LISTED` assignments (bounded) -- the outcome's reading lists
        every assignment against every reply, past any limit on dense boards --, else that reading, in the
        canonical order (:func:`.listing.all_optimal_by_outcome`)."""
        bound = 1
        for src in step.plan.sources:
            bound *= src.splits
        if effects.USE_MODEL and self.result.status == STATUS_OPTIMAL and bound > ALL_OPTIMAL_LISTED:
            vectors = effects.optimal_vectors(step, objs, self._deadline)
            if vectors is not None:
                return (assignment_of_vector(step.plan, vec) for vec in vectors)
        replies = effects.worst_candidates(step, self._deadline)  # the groups' first replies, as solve reads them
        return iter(all_optimal_by_outcome(step, objs, self._deadline, replies))

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def objectives(self) -> dict:
        return self.result.objectives

    def __iter__(self):
        return self

    def __next__(self) -> Assignment:
        if self.limit is not None and self._count >= self.limit:
            self.close()
            raise StopIteration
        if self._stream is None:
            self._stream = self._direct.assignments() if self._direct is not None else self._enumerate()
        try:
            a = next(self._stream)
        except LimitReached:
            self.complete = False
            raise
        self._count += 1
        return a

    def blocks(self) -> Iterator | None:
        """The optimal assignments as numpy blocks (rows over ``combat.columns``, canonical order; what
        ``combat.jsonl`` formats in bulk) when they come from the direct engine and none has been read yet; else
        None (iterate instead). ``limit`` and ``time_limit`` apply as to the iteration."""
        if self._direct is None or self._stream is not None:
            return None
        self._stream = iter(())  # the assignments are read from here on
        return self._blocks()

    def _blocks(self) -> Iterator:
        assert self._direct is not None
        try:
            for block in self._direct.blocks():
                if self.limit is not None:
                    block = block[: self.limit - self._count]
                self._count += len(block)
                if len(block):
                    yield block
                if self.limit is not None and self._count >= self.limit:
                    return
        except LimitReached:
            self.complete = False
            raise

    def _enumerate(self) -> Iterator[Assignment]:
        from ..engines.cpsat import enumeration_solver, stream_solutions

        om = self._model
        assert om is not None  # only called when the CP-SAT model lists the optima
        try:
            for vec in stream_solutions(om.m, om.built.x, enumeration_solver(), deadline=self._deadline):
                yield assignment_of_vector(self.plan, vec)
        except LimitReached:
            self.complete = False
            raise

    def close(self) -> None:
        if self._stream is not None and hasattr(self._stream, "close"):
            self._stream.close()


def all_optimal(combat, objectives, **options) -> AllOptimal:
    """A stream of every optimal assignment (see :class:`AllOptimal`); ``.result`` holds status and values."""
    return AllOptimal(combat, objectives, **options)
