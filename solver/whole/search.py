"""The adversarial search of a whole combat (:func:`solve_whole`): the attacker's best line against the defender's
best first-strike reply.

In named steps, bottom to top: the defender's replies (:func:`_replies`, one per distinct outcome), the attacker's
candidates (:func:`_candidates`, one per distinct effect), the regular step (:class:`_Regular`, memoised by the
first step's outcome), one candidate against every reply (:func:`_against`), the search of one group
(:func:`_search`, in canonical order, or best bound first: :func:`_front_search`), and the whole
(:func:`solve_whole`: the lethal probes, the independent parts, the line returned). A searched line is a
:class:`Line`."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from typing import Any, cast

import numpy as np

from .. import outcome as _outcome
from ..combat import Combat
from ..engines import blocks_engine
from ..engines.direct import DirectEngine
from ..engines.elimination import unique
from ..engines.ordered import lex_compositions
from ..limits import NEVER, Deadline, LimitReached, deadline_of
from ..models import Assignment, Chooser, Keyword, LossReason, ObjectiveKind, ObjectKind, RulesSet, Scenario, Side, Step
from ..optimize import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    STRONG_PARAMS,
    SolveResult,
    oriented,
    parse_objectives,
    score,
)
from ..optimize import solve as solve_step
from ..optimize.linear import BlockScorer
from ..optimize.listing import step_values
from ..outcome import (
    creature_dies,
    damage_dealt,
    effect_key,
    exact,
    has_effects,
    lethal_need,
    lethal_report,
    losers,
    overkill_threshold,
    reaches,
    resolve,
)
from ..rules import division_moved, linked_groups
from .line import CombatLine
from .regular import GroupedRegular, live_board, part_board

# -- the records ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Line:
    """One searched first step: the attacker's first-strike assignment ``a1`` against the defender's reply ``d1``,
    the regular step's best answer to the state they leave (``result``, solved without the tie-break), and the
    whole combat's ``values`` (objective name -> exact value) with ``value``, the same oriented (larger is better,
    compared lexicographically). ``vector``: A1's amounts over the first step's plan columns, the tie-break
    (with banding, the pair of A1's and D1's)."""

    value: tuple
    vector: tuple
    values: Mapping[str, Fraction]
    a1: Assignment
    d1: Assignment
    result: SolveResult

    def beats(self, other: Line | None) -> bool:
        """A higher value wins; on a tie, the lexicographically smaller vector."""
        return other is None or self.value > other.value or (self.value == other.value and self.vector < other.vector)


@dataclass(frozen=True)
class Reply:
    """The defending player's first-strike reply: its assignment, vector and ``outcome`` (what the regular step
    reads of it: the attackers it kills, or on boards with effects the state it alone leaves)."""

    d1: Assignment
    vector: tuple
    outcome: object


@dataclass(frozen=True)
class Candidate:
    """An attacker's first-strike assignment worth searching: the smallest vector of its ``effect`` (per recipient
    the damage, a creature's capped at what is lethal, and deathtouch), or None when A1s are not grouped."""

    assignment: Assignment | None
    vector: tuple
    effect: tuple | None = None
    #: the effect with every creature's damage capped at lethal (the dominance order's key; the same as
    #: ``effect`` unless an objective reads the excess)
    capped: tuple | None = None
    #: the first step's values, oriented (``max-value`` scaled by ``scales``), when read in bulk from the direct
    #: engine's blocks
    first: tuple | None = None
    scales: tuple | None = None
    #: the plan whose columns ``vector`` is over, to build the assignment when it was not built
    plan: Any = None

    @property
    def a1(self) -> Assignment:
        if self.assignment is not None:
            return self.assignment
        return self.plan.assignment([(self.plan.columns, list(self.vector))])

    def first_values(self, step: Combat, objs: tuple) -> dict:
        """The first step's values of A1 (boards without effects), read from ``first`` when it was."""
        if self.first is None or self.scales is None:
            return score(step, self.a1, objs)
        return {o.name: Fraction(v if o.maximize else -v, k) for o, v, k in zip(objs, self.first, self.scales)}


@dataclass
class _Stats:
    """What the search reports: one-step solves made and the worst status among them."""

    solves: int = 0
    status: str = STATUS_OPTIMAL

    def record(self, result: SolveResult, solves: int = 1) -> None:
        self.solves += solves
        if result.status != STATUS_OPTIMAL:
            self.status = STATUS_FEASIBLE if result.assignment is not None else result.status


@dataclass
class _Shared:
    """What the searches of one solve share when their first step is the same board (the lethal probes', then the
    list's): per (board, objectives that read the excess) the first-step candidates' vectors, all found in the
    first search's one pass over the first-strike assignments (:func:`_state_vectors`, asked for ``later``'s too);
    per board, the defender's replies; and per distinct rows of the blockers' needs, the regular step's damage
    bounds (:func:`_most_through`). Each is a function of the board (and those objectives) alone."""

    #: the objectives searched after the probes (whose excess-reading ones the first pass also reads)
    later: tuple
    rows: dict = field(default_factory=dict)
    replies: dict = field(default_factory=dict)
    through: list = field(default_factory=list)
    #: per (board, engine, band), :func:`_ways_listed`'s answer (the direct engine's count of every component)
    ways: dict = field(default_factory=dict)


@dataclass
class _Problem:
    """The search's constant inputs (one group's board): the objectives, the deadline, the one-step options, the
    statistics and the progress."""

    whole: Any
    objs: tuple
    deadline: Any
    options: dict
    stats: _Stats
    track: _Track | None = None
    split: bool = True
    ceiling: tuple | None = None
    shared: _Shared | None = None
    scenario: Scenario = field(init=False)
    attacking_first: Combat = field(init=False)
    defending_first: Combat = field(init=False)
    effects: bool = field(init=False)
    _memo: dict = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.scenario = self.whole.scenario
        first_board = self.scenario.with_step(Step.FIRST_STRIKE)
        self.attacking_first = Combat(first_board, side=Side.ATTACKING, engine=self.whole.engine)
        self.defending_first = Combat(first_board, side=Side.DEFENDING, engine=self.whole.engine)
        self.effects = has_effects(self.scenario)

    def left(self) -> dict:
        return _left(self.deadline)

    def layout(self) -> dict[str, tuple[int, ...]]:
        """:func:`_effect_layout` of the first step (read once)."""
        if "layout" not in self._memo:
            self._memo["layout"] = _effect_layout(self.attacking_first, self.objs)
        return self._memo["layout"]

    def regular_plan(self) -> Any:
        """The plan of the regular step on the board as given (read once)."""
        if "regular" not in self._memo:
            regular = self.scenario.with_step(Step.REGULAR)
            self._memo["regular"] = Combat(regular, side=Side.ATTACKING, engine=self.whole.engine).plan
        return self._memo["regular"]


# -- the whole combat -----------------------------------------------------------------------------------------


def solve_whole(
    whole,
    objectives,
    *,
    time_limit: float | None = None,
    split: bool = True,
    progress: Callable[[int, int], None] | None = None,
    _shared: _Shared | None = None,
    **options,
):
    """The best whole-combat line for lexicographic ``objectives``, the defender's choices being adversarial.

    Order of play (510.1, 510.4): the attacking player assigns the attackers' first-strike damage (A1), then
    the defending player assigns the blockers' (D1), knowing A1; the damage is dealt and the state-based actions
    happen; then the same for the regular step (A2, then D2). Objectives are the attacking player's (docs/format.md,
    defined for one step in :mod:`trample.optimize`), summed over both steps: ``max-damage``, ``max-kills``,
    ``max-value`` and ``min-overkill`` add the first-strike step's value (on the board as given) and the regular
    step's (on the state after the SBAs, so a blocker killed in the first step is not counted again and damage
    already marked lowers what is needed); ``lethal`` is read on the regular step's state, whose life totals
    already include the first-strike damage (so it is "total damage >= life" over the combat). Without a
    first-strike step, the whole combat's values are the regular step's.

    The value of the combat is ``max over A1 of min over D1 of (first-step value(A1) + max over A2 of
    regular-step value(A2))``, compared lexicographically (the objectives together, as one vector). D2 changes no
    objective on boards without effects (blockers' damage only reaches attackers), and neither does D1 except
    through which attackers survive, so defender replies are grouped by the set of attackers they kill. The
    search enumerates A1 (one per effect), tries each distinct defender outcome, and asks
    :func:`trample.optimize.solve` for the regular step (memoised per outcome); a reply that already makes A1 no
    better than the best found ends A1's search (alpha-beta). Where more first-strike damage can only help every
    objective of a prefix of the list (:func:`_monotone_prefix`), the A1s that no other A1 deals more to than
    are searched first, and an A1 below one whose value is known to be too low is never searched. Ties, as in
    :mod:`trample.optimize` (whatever the engines' enumeration order): the A1, then the D1, whose vector of
    amounts over the step plan's columns is lexicographically smallest; A2 is the one-step solver's canonical
    optimum (the search itself solves without the tie-break, then the chosen state is solved once more with
    it); D2 puts each blocker's damage on its last route (the smallest vector again).

    Independent parts (``split``, on by default; see :func:`independent_parts`): when the objectives are sums over
    objects each of which only one group of attackers and blockers can touch, and no first-strike damage can end
    the game or change a planeswalker or battle another group attacks, the groups' searches are independent: each
    group's first step is searched alone, the chosen first steps are put together, and the regular step is solved
    once on the whole state. The line and values are the same as the joint search's (the optimal first steps of
    the whole are the product of the groups' optimal first steps, and the smallest vector of a product is made of
    the smallest vectors of its factors); ``split=False`` searches jointly.

    ``progress``: called now and then with (first-strike assignments searched, how many there are to search).

    ``time_limit`` (wall-clock seconds, the whole search, checked all along: listing the defender's replies,
    each one-step solve gets the time left): when it runs out, the best line whose every defender reply was
    searched is returned with status ``feasible``; when no line was searched completely, status ``unknown`` and
    no line. Other options go to each one-step solve. ``_shared`` (internal): the probes' pass, :class:`_Shared`.
    """
    start = time.perf_counter()
    deadline = deadline_of(time_limit)
    scenario = whole.scenario
    objs = parse_objectives(objectives, scenario)
    stats = _Stats()
    shared = _shared if _shared is not None else _Shared(objs)
    best_to, probes_proven = _damage_probes(whole, objs, split, options, deadline, stats, shared)
    reach = _reach_of(scenario, best_to, probes_proven)
    searched = _searched(objs, reach, split, scenario)
    parts = independent_parts(whole, searched, deadline) if split else None
    track = _Track(progress, whole, parts)
    ceiling = _ceiling(whole, searched, reach, split, options, deadline, stats) if split else None
    problem = _Problem(whole, searched, deadline, options, stats, track, split, shared=shared)
    best, stopped, final = _search_parts(whole, searched, parts, ceiling, problem)
    if not stopped:
        track.finish()
    if best is None:
        status = STATUS_UNKNOWN if stopped else STATUS_INFEASIBLE
        return SolveResult(status, None, {}, None, (time.perf_counter() - start) * 1000, stats.solves)
    line = _line_of(whole, searched, best, final, options, deadline, stats)
    status = stats.status
    if stopped or not probes_proven or status != STATUS_OPTIMAL:
        status = STATUS_FEASIBLE  # a line, searched against every reply, its optimality not proven (never unknown)
    values = {o.name: best.values.get(o.name, Fraction(0)) for o in objs}  # lethal, when it was 0 on every line
    out_values = {name: (int(v) if v.denominator == 1 else float(v)) for name, v in values.items()}
    lethal = None
    if any(o.kind == ObjectiveKind.LETHAL for o in objs):
        lethal = _lethal(whole, objs, line, values, status, best_to, split, options, deadline, stats)
    return SolveResult(status, line, out_values, lethal, (time.perf_counter() - start) * 1000, stats.solves)


def _damage_probes(
    whole, objs, split: bool, options: dict, deadline, stats: _Stats, shared: _Shared | None = None
) -> tuple[dict | None, bool]:
    """With ``lethal`` on a board without effects: the most damage the whole combat can deal each player, the
    defender replying (the lethal report's ``max_damage``), and whether every probe was proven (``shared``: what
    the probes' searches leave for the search of ``objs``)."""
    scenario = whole.scenario
    if not any(o.kind == ObjectiveKind.LETHAL for o in objs) or has_effects(scenario):
        return None, True
    best_to: dict[str, int] = {}
    proven = True
    for p in scenario.players:
        probe = solve_whole(
            whole,
            [f"max-damage:{p.id}"],
            split=split,
            _shared=shared,
            **dict(options, tie_break=False),
            **_left(deadline),
        )
        stats.solves += probe.solves
        if probe.assignment is not None:
            best_to[p.id] = int(probe.objectives[f"max-damage:{p.id}"])
        proven &= probe.status == STATUS_OPTIMAL
    return best_to, proven


def _reach_of(scenario: Scenario, best_to: dict | None, proven: bool) -> int | None:
    """One defending player (704.5a): lethal is [the combat's damage to them >= their life], and the probe is the
    most damage they can be dealt whatever the defender does, so it bounds lethal on every line: 1 when they can
    be killed, 0 when not, None when nothing is known. (With several players it does not: a reply that saves one
    player may doom another.)"""
    if best_to is None or not proven or len(scenario.players) != 1 or scenario.players[0].id not in best_to:
        return None
    only = scenario.players[0]
    return int(reaches(best_to[only.id], only.life))


def _searched(objs: tuple, reach: int | None, split: bool, scenario: Scenario) -> tuple:
    """The objectives searched: without ``lethal`` when no line kills and ``max-damage`` (on that player) comes
    next (a reply that would let the player die leaves more damage than any that does not, so the defender's worst
    replies, and with them the line, are the same without lethal)."""
    rest = tuple(o for o in objs if o.kind != ObjectiveKind.LETHAL)
    if (
        split
        and reach == 0
        and rest
        and rest[0].kind == ObjectiveKind.MAX_DAMAGE
        and rest[0].target in (None, scenario.players[0].id)
    ):
        return rest
    return objs


def _ceiling(whole, searched: tuple, reach: int | None, split: bool, options: dict, deadline, stats: _Stats):
    """A value no line can beat, or None: ``lethal`` alone is worth at most the players listed (at most the probe's
    answer with one player); ``lethal,X`` with one player who can be killed: an A1 whose worst reply kills kills on
    every reply, and its X is then at most X alone's optimum (a probe, when X splits into parts: cheap)."""
    if searched[0].kind != ObjectiveKind.LETHAL:
        return None
    if len(searched) == 1:
        return (len(whole.scenario.players) if reach is None else reach,)
    second = searched[1]
    if len(searched) != 2 or reach != 1 or second.kind == ObjectiveKind.LETHAL:
        return None
    if independent_parts(whole, (second,), deadline) is None:
        return None
    probe = solve_whole(whole, [second], split=split, **dict(options, tie_break=False), **_left(deadline))
    stats.solves += probe.solves
    if probe.status == STATUS_OPTIMAL and probe.assignment is not None:
        return (1, *oriented((second,), {second.name: exact(probe.objectives[second.name])}))
    return None


def _search_parts(whole, searched: tuple, parts, ceiling, problem: _Problem) -> tuple[Line | None, bool, bool]:
    """(best line, stopped, whether the chosen state is solved again with the tie-break): the joint search, or
    each part's first step searched alone and the parts put together (the regular step then solved on the whole
    state, with the caller's options)."""
    if parts is None:
        best, stopped = _search(replace(problem, ceiling=ceiling))
        return best, stopped, problem.options.get("tie_break", True)
    chosen = []
    for part in parts:
        got, stopped = _search(
            _Problem(
                type(whole)(part, engine=whole.engine),
                searched,
                problem.deadline,
                problem.options,
                problem.stats,
                problem.track,
                shared=problem.shared,
            )
        )
        if got is None or stopped:
            return None, stopped, False
        chosen.append(got)
    best = _joined(whole, searched, chosen, problem.deadline, problem.options, problem.stats)
    return best, best is None, False


def _line_of(whole, searched: tuple, best: Line, final: bool, options: dict, deadline, stats: _Stats) -> CombatLine:
    """The combat line of the best first step: the regular step solved again with the tie-break (``final``), and
    D2, the defending player's reply the regular step's solve read (boards with effects or banding: their best,
    with the active player's part of it, 702.22k), or, where the blockers' damage changes nothing, the smallest
    vector."""
    first = Assignment({**best.a1.to_json(), **best.d1.to_json()})
    state = whole.state_after(first)
    result = best.result
    if final and not deadline.expired():
        again_options = dict(options)
        if again_options.get("params") is None and result.escalated:
            # the search's solve of this state dragged: start on the settings it escalated to (from LEAN_PARAMS
            # too: STRONG_PARAMS sets the same keys), not on the defaults that would drag again for ESCALATE_DET
            again_options["params"] = STRONG_PARAMS
        again = solve_step(
            Combat(state, side=Side.ATTACKING, engine=whole.engine), searched, **again_options, **_left(deadline)
        )
        stats.solves += 1
        if again.assignment is not None and _values_of(searched, again) == _values_of(searched, result):
            result = again
    d2 = (
        result.reply
        if result.reply is not None
        else _canonical_division(Combat(state, side=Side.DEFENDING, engine=whole.engine))
    )
    assert result.assignment is not None  # a line is only kept with a regular step
    return CombatLine(first, Assignment({**result.assignment.to_json(), **d2.to_json()}))


def _values_of(objs: tuple, result: SolveResult) -> tuple:
    return oriented(objs, {o.name: exact(result.objectives[o.name]) for o in objs})


def _lethal(whole, objs, line: CombatLine, values: dict, status: str, best_to, split, options, deadline, stats):
    """The lethal report, read on the returned line: the one-step shape on plain boards (damage over both steps
    against the probes), the outcome's shape with effects (and, with one player, whether some line makes them
    lose whatever the replies)."""
    scenario = whole.scenario
    if best_to is not None:
        damage = {p.id: line.first_strike.total_to(p.id) + line.regular.total_to(p.id) for p in scenario.players}
        return lethal_report(scenario, damage, best_to)
    lethal = _outcome_lethal_report(whole, line)
    if len(scenario.players) != 1:
        return lethal
    if objs[0].kind == ObjectiveKind.LETHAL:
        reached = values[objs[0].name] >= 1
        proven = status == STATUS_OPTIMAL
    else:
        can = solve_whole(whole, ["lethal"], split=split, **dict(options, tie_break=False), **_left(deadline))
        stats.solves += can.solves
        reached = can.assignment is not None and can.objectives["lethal"] >= 1
        proven = can.status == STATUS_OPTIMAL
    if proven:
        lethal[scenario.players[0].id]["reachable"] = bool(reached)
    return lethal


def _left(deadline) -> dict:
    """The time_limit option of a one-step solve: the time left (None: no limit)."""
    rest = deadline.remaining()
    return {} if rest is None else {"time_limit": max(rest, 1e-3)}


class _Track:
    """Calls ``progress(done, total)`` as first-strike assignments are searched (every 64, and at the end)."""

    def __init__(self, progress, whole, parts):
        self.progress = progress
        self.done = 0
        self.total = 0
        if progress is not None:
            boards = parts if parts is not None else [whole.scenario]
            for b in boards:
                self.total += Combat(b.with_step(Step.FIRST_STRIKE), side=Side.ATTACKING, engine=whole.engine).count()
            progress(0, self.total)

    def step(self, n: int = 1) -> None:
        before, self.done = self.done, self.done + n
        if self.progress is not None and before >> 6 != self.done >> 6:
            self.progress(self.done, self.total)

    def finish(self) -> None:
        """Every assignment searched or known not to matter (a search that proved its answer early)."""
        if self.progress is not None:
            self.progress(self.total, self.total)


# -- the steps of one search ----------------------------------------------------------------------------------


def _replies(problem: _Problem) -> list[Reply]:
    """The defending player's first-strike replies, one per distinct outcome (the smallest vector of each), in
    vector order. Streamed: flat memory. Raises LimitReached when they are not all listed in time."""
    scenario, step = problem.scenario, problem.defending_first
    has_fs = problem.whole.has_first_strike_step
    by_outcome: dict[object, Reply] = {}
    for d in step.assignments(time_limit=problem.deadline):
        outcome: object = frozenset()
        if has_fs and problem.effects:  # lifelink, wither, prevention...: what the reply alone leaves
            outcome = resolve(scenario, d.to_json()).state
        elif has_fs:
            outcome = _killed(problem, d)
        vec = step.plan.vector(d)
        held = by_outcome.get(outcome)
        if held is None or vec < held.vector:
            by_outcome[outcome] = Reply(d, vec, outcome)
    return sorted(by_outcome.values(), key=lambda r: r.vector)


def _shared_replies(problem: _Problem) -> list[Reply]:
    """:func:`_replies`, listed once per board in one solve (:class:`_Shared`)."""
    shared = problem.shared
    if shared is None:
        return _replies(problem)
    if problem.scenario not in shared.replies:
        shared.replies[problem.scenario] = _replies(problem)
    return shared.replies[problem.scenario]


def _lethal_caps(problem: _Problem) -> dict[str, int]:
    """A creature's damage up to what is lethal to it (702.19b: more changes nothing for the regular step)."""
    s = problem.scenario
    return {c.id: lethal_need(c) for c in (*s.attackers, *s.blockers)}


def _effect_caps(problem: _Problem) -> dict[str, int]:
    """What an A1's effect counts of each recipient: a creature's damage up to what is lethal to it, everything
    else exactly; nothing capped when an objective reads the excess (``min-overkill``, ``max-damage`` on a
    creature)."""
    capped = _lethal_caps(problem)
    if any(o.kind == ObjectiveKind.MIN_OVERKILL or (o.target is not None and o.target in capped) for o in problem.objs):
        return {}
    return capped


def _candidates(problem: _Problem, capped: dict[str, int], canonical: bool) -> Iterator[Candidate]:
    """The attacker's first-strike assignments worth searching, in the engines' order: on boards without effects
    the first of each effect (in the canonical order: the smallest vector; read in bulk from the direct engine's
    blocks when it lists them); on boards whose effects change only what damage does, listed in the canonical
    order, the best of each state it leaves (:func:`_distinct_results`); otherwise every one."""
    step, track = problem.attacking_first, problem.track
    grouped = problem.whole.has_first_strike_step and not problem.effects
    if grouped and canonical:
        yield from _distinct_effects(step, problem.objs, capped, _lethal_caps(problem), problem.deadline, track)
        return
    classes = _result_classes(problem) if canonical and not grouped else None
    if classes is not None:  # effects that only change what the damage does: one A1 per state it leaves
        yield from _distinct_results(problem, classes)
        return
    seen: dict[tuple, tuple] = {}
    for a1 in step.assignments(time_limit=problem.deadline):
        if track is not None:
            track.step()
        vec = step.plan.vector(a1)
        if not grouped:
            yield Candidate(a1, vec)
            continue
        dealt, touched = damage_dealt(problem.scenario, a1)
        effect = effect_key(dealt, touched, {r: capped.get(r, n) for r, n in dealt.items()})  # the rest exactly
        held = seen.get(effect)
        if held is not None and held <= vec:
            continue  # an A1 with the same effect and a smaller vector was searched: this one cannot win
        seen[effect] = vec
        yield Candidate(a1, vec, effect)


@dataclass(frozen=True)
class _Classes:
    """The first step's columns in classes whose damage does the same (:func:`_result_classes`): ``of[k]``, the
    class of column ``k``; per class its recipient and what its sources' damage does (``counters``: infect or wither,
    702.90c, 702.80b; ``deathtouch``, 702.2c). ``shields``: per recipient with a prevention shield (615.7) that
    the first step's columns reach, (recipient, the shield, those columns in the order the shield takes them)."""

    of: np.ndarray
    recipients: tuple
    counters: tuple
    deathtouch: tuple
    shields: tuple = ()

    def class_totals(self, block: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each row's total dealt per class (classes x rows: each class's row contiguous) and, per shielded
        recipient (in ``shields``' order), each row's use of its shield: what it prevents of the damage assigned to
        it (615.7), which the state after the step keeps off the shield. The totals of :meth:`dealt`'s rows and
        that use, read column by column from the block transposed as it is (int8 from the direct engine), in
        integers as narrow as the sums allow: transposing the block widened to int64 and summing it cost five times
        as much (0.18 s against 0.035 s over the 2^20 rows of mixed_group(6, 7)). Numpy's integer matrix product
        with the 0/1 columns x classes matrix has no BLAS and cost 20 times the sums."""
        columns = np.ascontiguousarray(block.T)
        n, dtype = len(block), _sum_dtype(block, max((s for _, s, _ in self.shields), default=0))
        dealt: dict[int, np.ndarray] = {}  # the columns a shield stops damage of: what is dealt there
        used = []
        for _, shield, cols in self.shields:
            through, use = _through_shield([columns[j].astype(dtype) for j in cols], shield)
            dealt.update(zip(cols, through))
            used.append(use)
        out: np.ndarray = np.zeros((len(self.recipients), n), dtype=dtype)
        for j, c in enumerate(self.of.tolist()):
            out[c] += dealt[j] if j in dealt else columns[j]
        return out, used

    def dealt(self, block: np.ndarray) -> np.ndarray:
        """The rows of ``block`` (amounts assigned over the plan's columns) as the amounts dealt: per shielded
        recipient, its shield prevents the first damage in its order until it is used up (615.7, the outcome's
        :class:`~trample.outcome.ReplacementsAndPrevention`: its ``shield_order`` sources first, then the
        scenario's order). ``block`` itself when no shield is reached."""
        if not self.shields:
            return block
        out = block.astype(np.int64, copy=True)
        for _, shield, cols in self.shields:
            through, _ = _through_shield([out[:, j] for j in cols], shield)
            for j, part in zip(cols, through):
                out[:, j] = part
        return out


def _through_shield(parts: list[np.ndarray], shield: int) -> tuple[list[np.ndarray], np.ndarray]:
    """What a prevention shield of ``shield`` lets through of the damage ``parts`` (per row, one array per column
    to its recipient, in its order): it prevents the first damage until it is used up (615.7, the outcome's
    :class:`~trample.outcome.ReplacementsAndPrevention`: its ``shield_order`` sources first, then the scenario's
    order); and, per row, what it prevented. In the parts' integers (the caller's: wide enough for the sums)."""
    through = []
    before = np.zeros_like(parts[0])  # what the columns before it were assigned
    for part in parts:
        through.append(part - np.clip(shield - before, 0, part))
        before = before + part
    return through, np.minimum(before, shield)


def _result_classes(problem: _Problem) -> _Classes | None:
    """On a board with a first-strike step whose effects only change what damage does, or how much of it is dealt
    by prevention shields alone (lifelink, infect, wither, toxic, commander damage; a ``prevent`` shield, 615.7: no
    protection, prevention of all combat damage or damage modifier acts, so damage dealt is damage assigned less
    what a shield stops, :meth:`_Classes.dealt`): the A1's columns grouped by recipient and by what their source's
    damage does there (deathtouch, lifelink, infect, wither; a toxic source or a commander in a class of its own,
    702.164c and 903.10a read the source). Two A1s with the same total dealt per class and the same use of each
    shield leave the same state with any reply (120.3, the replies' damage reaching only attackers, 510.1c/d).
    None on other boards."""
    s, step = problem.scenario, problem.attacking_first
    if not problem.whole.has_first_strike_step or not _shields_only(s):
        return None
    if any(p.id == _outcome.ATTACKING_PLAYER for p in s.players):  # lifelink's gains are kept under that name
        return None
    plan = step.plan
    index: dict[tuple, int] = {}
    of, recipients, counters, deathtouch = [], [], [], []
    for i, r in plan.columns:
        src = s.attacker(plan.sources[i].source)  # the first step's sources are the attackers (510.1a)
        kinds = tuple(src.has(k) for k in (Keyword.DEATHTOUCH, Keyword.LIFELINK, Keyword.INFECT, Keyword.WITHER))
        key = (r, src.id if src.toxic or src.commander is not None else kinds)
        if key not in index:
            index[key] = len(index)
            recipients.append(r)
            counters.append(kinds[2] or kinds[3])
            deathtouch.append(kinds[0])
        of.append(index[key])
    return _Classes(
        np.array(of, dtype=np.int64), tuple(recipients), tuple(counters), tuple(deathtouch), _shields(problem)
    )


def _shields_only(s: Scenario) -> bool:
    """Does no damage effect act on the board (:data:`trample.outcome.DAMAGE_EFFECTS`) but prevention shields
    (615.7: ``prevent``, in any ``shield_order``): no protection (702.16e), prevention of all combat damage
    (615.1a) or damage modifier (614.1a)?"""
    if not any(e.acts_on(s) for e in _outcome.DAMAGE_EFFECTS):
        return True
    if len(_outcome.DAMAGE_EFFECTS) != 1 or not isinstance(
        _outcome.DAMAGE_EFFECTS[0], _outcome.ReplacementsAndPrevention
    ):
        return False
    creatures: tuple[Any, ...] = (*s.attackers, *s.blockers)
    if any(c.deals for c in creatures):
        return False
    others: tuple[Any, ...] = (*creatures, *s.players, *s.planeswalkers, *s.battles)
    return all(replace(o.receiving, prevent=0, shield_order=()).is_plain for o in others)


def _shields(problem: _Problem) -> tuple:
    """:attr:`_Classes.shields` of the first step: per recipient with a shield that its columns reach, the shield
    and those columns, its ``shield_order`` sources first, then the scenario's order of the sources (615.7)."""
    s, plan = problem.scenario, problem.attacking_first.plan
    place = {c.id: k for k, c in enumerate((*s.attackers, *s.blockers))}
    out = []
    for r in dict.fromkeys(r for _, r in plan.columns):
        rec = s.receiving(r)
        if rec.prevent <= 0:
            continue
        first = {src: n for n, src in enumerate(rec.shield_order)}
        cols = [j for j, (_, to) in enumerate(plan.columns) if to == r]
        source = [plan.sources[plan.columns[j][0]].source for j in cols]
        order = sorted(range(len(cols)), key=lambda k: (first.get(source[k], len(first)), place[source[k]]))
        out.append((r, rec.prevent, tuple(cols[k] for k in order)))
    return tuple(out)


def _sum_dtype(block: np.ndarray, extra: int = 0) -> type:
    """The narrowest of int16, int32 and int64 that holds any sum of a row's amounts in ``block`` and ``extra``."""
    bound = max(int(block.max(initial=0)) * block.shape[1], extra)
    return np.int16 if bound < 1 << 15 else np.int32 if bound < 1 << 31 else np.int64


def _class_states(problem: _Problem, classes: _Classes, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of the block: its state key (the total per class, every class of a creature it kills read as -1,
    a planeswalker's or battle's damage capped at its loyalty or defense: past them the state is the same), and
    its first-step values on the objectives that read what the key leaves out (``min-overkill``, negated;
    ``max-damage`` on anything but a player), larger better. Read on the damage dealt (:meth:`_Classes.dealt`);
    per shielded recipient still there after the step, the key also holds what its shield prevented (615.7: the
    rest of the shield is the state's). The keys are one row per class then per shield, a column per row of the
    block (:meth:`_Classes.class_totals`' layout and integers); the values one row per row of the block."""
    s = problem.scenario
    totals, used = classes.class_totals(block)
    keys = totals  # written in place: ``totals`` is read below only through ``dealt`` and a creature's own classes
    members: dict[str, list[int]] = {}
    for c, r in enumerate(classes.recipients):
        members.setdefault(r, []).append(c)
    dealt = {r: totals[cs].sum(axis=0, dtype=totals.dtype) for r, cs in members.items()}  # no wider: one row's sum
    touched = {
        r: np.any(totals[hit] > 0, axis=0)
        for r, cs in members.items()
        if (hit := [c for c in cs if classes.deathtouch[c]])
    }
    gone: dict[str, np.ndarray] = {}  # the recipients the step takes away (their shield's rest is no one's)
    for r, cs in members.items():
        kind = s.kind(r)
        if kind in (ObjectKind.ATTACKER, ObjectKind.BLOCKER):
            creature = s.creature(r)
            if not creature.in_combat:
                continue
            dies = gone[r] = _creature_deaths(
                creature, dealt[r], [totals[c] for c in cs if classes.counters[c]], touched.get(r)
            )
            for c in cs:
                np.putmask(keys[c], dies, -1)
        elif kind in (ObjectKind.PLANESWALKER, ObjectKind.BATTLE):
            cap = max(0, overkill_threshold(s, r))
            taken = dealt[r].astype(np.int64)
            gone[r] = taken >= cap
            keys[cs] = 0
            keys[cs[0]] = np.minimum(taken, cap)
    if classes.shields:
        rest = [np.where(gone[r], 0, u) if r in gone else u for (r, _, _), u in zip(classes.shields, used)]
        keys = np.concatenate([keys, np.stack(rest).astype(keys.dtype)])
    return keys, _first_scores(problem, dealt, touched, len(block))


def _creature_deaths(
    creature: Any, dealt: np.ndarray, counters: list[np.ndarray], touched: np.ndarray | None
) -> np.ndarray:
    """Per row, does the creature die of the damage ``dealt`` to it, of which ``counters`` (per class) are dealt by
    infect or wither sources, and ``touched`` (or None) by a deathtouch source? The outcome's own test (704.5f-h,
    702.12b, -1/-1 counters), once per distinct (dealt, counters, touched), read back through a table indexed by
    that triple as one number: ``dealt`` itself where neither counters nor deathtouch reach the creature (the
    common case: no pass over the rows to build the number), int32 where it fits (these passes over the rows are
    most of the states' cost)."""
    span = int(dealt.max(initial=0)) + 1
    per, flag = (span if counters else 1), (2 if touched is not None else 1)
    code = dealt  # (dealt * per + counters) * flag + touched (counters <= dealt): a sort of integers, not of rows
    if counters or touched is not None:
        code = np.multiply(dealt, per * flag, dtype=np.int32 if span * per * flag < 1 << 31 else np.int64)
        for k in counters:
            code += np.multiply(k, flag, dtype=code.dtype)
        if touched is not None:
            code += touched

    def fate(seen: np.ndarray) -> np.ndarray:
        return np.array(
            [creature_dies(creature, v // flag // per, bool(v % flag), v // flag % per) for v in seen.tolist()],
            dtype=bool,
        )

    top = span if code is dealt else int(code.max(initial=0)) + 1
    if top <= _FATES:  # every number up to the largest: fewer tests than a pass over the rows costs
        return fate(np.arange(top))[code]
    if top > 4 * len(code) + 4096:  # too wide to mark: by sorting
        seen, back = unique(code)
        return fate(seen)[back.reshape(-1)]
    present = np.zeros(top, dtype=bool)  # small integers: by marking, not sorting
    present[code] = True
    seen = np.flatnonzero(present)
    table = np.zeros(top, dtype=bool)
    table[seen] = fate(seen)
    return table[code]


#: at most this many numbers (dealt, counters, touched) are tested each by :func:`_creature_deaths` without first
#: marking those some row reaches (64 tests of about 1 us cost what one pass over a block of 2^16 rows does)
_FATES = 64


def _first_scores(
    problem: _Problem, dealt: dict[str, np.ndarray], touched: dict[str, np.ndarray], n: int
) -> np.ndarray:
    """:func:`_class_states`' values: per row (of ``n``), its first step's values on ``min-overkill`` (negated) and
    ``max-damage`` on anything but a player (int64), from the damage ``dealt`` per recipient (in the class totals'
    integers), ``touched`` by a deathtouch source where one reaches it."""
    s = problem.scenario
    scores = []
    for o in problem.objs:
        if o.kind == ObjectiveKind.MIN_OVERKILL:
            over = np.zeros(n, dtype=np.int64)
            for r, d in dealt.items():
                low = overkill_threshold(s, r)
                # 702.2c: 1 is lethal from a deathtouch source
                lows = np.where(touched[r], overkill_threshold(s, r, True), low) if r in touched else low
                over += np.maximum(0, np.subtract(d, lows, dtype=np.int64))
            scores.append(-over)
        elif o.kind == ObjectiveKind.MAX_DAMAGE and o.target is not None and s.kind(o.target) != ObjectKind.PLAYER:
            scores.append(dealt[o.target].astype(np.int64) if o.target in dealt else np.zeros(n, dtype=np.int64))
    return np.stack(scores, axis=1) if scores else np.zeros((n, 0), dtype=np.int64)


def _distinct_results(problem: _Problem, classes: _Classes) -> Iterator[Candidate]:
    """The A1s worth searching on the boards of :func:`_result_classes`, in the canonical order (the direct engine's
    blocks, or the ways' product where attackers may assign as though unblocked: :func:`_first_blocks`): per state
    an A1 leaves (:func:`_class_states`), the one whose first step is best on the objectives the state leaves out,
    ties to the smallest vector. Every other objective's first step value, the replies and the regular step are the
    same for the same state and reply (what differs between two A1s of one state is the same on every reply), so
    only that one can win."""
    plan = problem.attacking_first.plan
    vectors, keys = _distinct_result_rows(problem, classes)
    for i in range(len(vectors)):
        yield Candidate(None, tuple(vectors[i].tolist()), tuple(keys[i].tolist()), plan=plan)


def _distinct_result_rows(problem: _Problem, classes: _Classes) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`_distinct_results` as arrays, in the canonical order: (their vectors over the plan's
    columns, their state keys)."""
    step, track = problem.attacking_first, problem.track
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for block in _first_blocks(step, problem.deadline):
        keys, values = _class_states(problem, classes, block)
        keep = _best_of_ids(_major_ids(keys), values)
        kept.append((block[keep], keys[:, keep], values[keep]))
        if track is not None:
            track.step(len(block))
        problem.deadline.check()
    if not kept:
        width = len(step.plan.columns)
        return np.zeros((0, width), dtype=np.int64), np.zeros((0, len(classes.recipients)), dtype=np.int64)
    vectors, values = np.concatenate([k[0] for k in kept]), np.concatenate([k[2] for k in kept])
    keys = np.concatenate([k[1] for k in kept], axis=1)
    best = _best_of_ids(_major_ids(keys), values)  # across blocks, still in the canonical order
    return vectors[best], np.ascontiguousarray(keys[:, best].T, dtype=np.int64)


def _major_ids(keys: np.ndarray) -> np.ndarray:
    """:func:`_row_ids` of ``keys.T`` (one number per column of ``keys``, the same for equal columns only), read a
    row of ``keys`` at a time: each row's range from one contiguous pass, and no copy of the transpose."""
    if keys.shape[0] == 0 or keys.shape[1] == 0:
        return np.zeros(keys.shape[1], dtype=np.int64)
    low, high = keys.min(axis=1).tolist(), keys.max(axis=1).tolist()
    if math.prod(h - lo + 1 for lo, h in zip(low, high)) >= 1 << 62:
        return _row_ids(keys.T)
    ids = np.zeros(keys.shape[1], dtype=np.int64)
    weight, offset = 1, 0
    for c in range(len(low) - 1, -1, -1):  # the last row fastest, as _row_ids reads its last column
        ids += np.multiply(keys[c], weight, dtype=np.int64)
        offset += low[c] * weight
        weight *= high[c] - low[c] + 1
    # the sums wrap in int64 where the rows' lows are large, and so does the offset taken off them: what is left,
    # each column's number from its lows, is below 2^62, so it comes out exact (a Python int past int64 raised)
    ids -= np.int64((offset + (1 << 63)) % (1 << 64) - (1 << 63))
    return ids


class _Regular:
    """The regular step's best answer (the one-step solve without the tie-break) to the state a first step leaves,
    memoised by (the A1's effect, the reply's outcome) -- the state is only built when that pair is new -- and by
    the state (what no objective reads left out). Integer sums (max-damage, max-kills, min-overkill) of a regular
    step whose attackers fall into groups are the sums of the groups' optima (the same groups as
    independent_parts, with no step after this one): each group is solved alone and memoised, so a group met in
    many states is solved once."""

    def __init__(self, problem: _Problem):
        self.problem = problem
        objs, scenario = problem.objs, problem.scenario
        self.split = problem.split and _separable(scenario, objs) and all(o.kind in _INTEGER_SUMS for o in objs)
        self.options = dict(problem.options, tie_break=False)
        self.by_state: dict[Scenario, SolveResult] = {}
        self.by_key: dict[tuple, SolveResult] = {}
        # split=False (the joint search, kept as the reference) solves every regular step with the one-step solver
        self.grouped = (
            GroupedRegular(scenario, objs, problem.whole.engine) if problem.split and not self.split else None
        )

    def after(self, candidate: Candidate, reply: Reply, state: Scenario | None = None) -> SolveResult:
        # the state is the same for the same damage with a creature's capped at lethal (past it, it dies either way)
        effect = candidate.effect if candidate.capped is None else candidate.capped
        key = None if effect is None else (effect, reply.outcome)
        if key is not None and key in self.by_key:
            return self.by_key[key]
        if self.grouped is not None and candidate.capped is not None and isinstance(reply.outcome, frozenset):
            got = self._grouped_after(candidate, reply)
            if got is not None:
                return got
        if state is None:  # (``state``: the state A1 and the reply leave, when the caller has it)
            state = self.problem.whole.state_after(Assignment({**candidate.a1.to_json(), **reply.d1.to_json()}))
        result = self.best(state)
        if key is not None:
            self.by_key[key] = result
        return result

    def _grouped_after(self, candidate: Candidate, reply: Reply) -> SolveResult | None:
        """The groups' fronts keyed by the candidate's capped effect (plain boards with a first step: the state is
        only built per group, when the group's part of the effect is new)."""
        grouped, killed = self.grouped, reply.outcome
        assert grouped is not None and candidate.capped is not None and isinstance(killed, frozenset)
        p = self.problem
        if grouped.parts is None and grouped.applies:
            grouped.prepare(p.scenario, p.layout())
        return grouped.after(lambda: candidate.a1, candidate.capped, reply.d1, killed, p.deadline)

    def best(self, state: Scenario) -> SolveResult:
        if self.grouped is not None:  # a threshold on the one player: the groups' fronts
            got = self.grouped.solve(state, self.problem.deadline)
            if got is not None:
                return got
        if self.split and len(state.attackers) > 1:
            live = live_board(state)
            reach = _reach(live)
            groups = _groups(live, reach, {r for r in reach if live.kind(r) in _shared_kinds(self.problem.objs)})
            if len(groups) > 1:
                parts = [self.solved(part_board(live, g, first=k == 0)) for k, g in enumerate(groups)]
                return _summed(parts, self.problem.objs, [a.id for a in state.attackers])
        return self.solved(state)

    def solved(self, state: Scenario) -> SolveResult:
        key = state
        if not self.problem.effects:  # what no objective reads: attackers' marked damage, creatures out of combat
            key = replace(
                state,
                attackers=tuple(replace(a, damage_marked=0) if a.damage_marked else a for a in state.attackers),
                blockers=tuple(
                    replace(b, damage_marked=0) if b.damage_marked and not b.in_combat else b for b in state.blockers
                ),
            )
        if key not in self.by_state:
            p = self.problem
            result = solve_step(
                Combat(state, side=Side.ATTACKING, engine=p.whole.engine), p.objs, **self.options, **p.left()
            )
            p.stats.record(result)
            self.by_state[key] = result
        return self.by_state[key]


@dataclass
class _Against:
    """One candidate searched against the replies: its worst line (None when no reply left a regular step that
    could be solved, or time ran out), the rank of that reply, the lowest value seen (an upper bound on the
    candidate's value, even when the search stopped early), and whether time ran out."""

    worst: Line | None = None
    rank: int = -1
    bound: tuple | None = None
    stopped: bool = False


def _against(
    problem: _Problem, regular: _Regular, candidate: Candidate, replies: list[Reply], order: list[int], best
) -> _Against:
    """Min over the replies (tried in ``order``) of the candidate's value; stops as soon as a reply holds it to
    no better than ``best`` (alpha-beta: the defender already holds this A1 to no better than the best so far).
    Ties between replies go to the smallest vector (the lowest rank), whatever the order."""
    objs, step, effects = problem.objs, problem.attacking_first, problem.effects
    plain = problem.whole.has_first_strike_step and not effects
    first_values = candidate.first_values(step, objs) if plain else {}
    out = _Against()
    for rank in order:
        reply = replies[rank]
        if problem.deadline.expired():  # this A1's replies were not all searched: it is not a result
            out.worst, out.stopped = None, True
            return out
        state = None
        if problem.whole.has_first_strike_step and effects:  # the first step's values on its outcome, this reply too
            first_values, outcome = step_values(step, candidate.a1, objs, reply.d1)
            state = outcome.state  # the state after the SBAs (whole.state_after's, read once)
        result = regular.after(candidate, reply, state)
        if result.assignment is None:
            continue
        values = _total(objs, first_values, result)
        value = oriented(objs, values)
        if out.worst is None or value < out.worst.value or (value == out.worst.value and rank < out.rank):
            out.worst, out.rank = Line(value, candidate.vector, values, candidate.a1, reply.d1, result), rank
        if out.bound is None or value < out.bound:
            out.bound = value
        if best is not None and not out.worst.beats(best):
            break
    return out


class _JoinRefused(Exception):
    """:func:`_joined_rows` gave up (more than :data:`JOIN_KEPT` extensions of one source): :func:`_search` searches
    the first step's assignments one by one instead, as it did before the join."""


def _search(problem: _Problem) -> tuple[Line | None, bool]:
    """The joint search of one whole combat: (best line or None, stopped). ``problem.ceiling``: a value no line can
    beat; when the A1s come in the canonical order (smallest vector first), the first A1 that reaches it is the
    answer. Where the join of the first step's states gives up (:class:`_JoinRefused`), every A1 is searched."""
    try:
        return _dispatched(problem)
    except _JoinRefused:
        canonical = False  # the join is taken only where the first step is not listed in the canonical order
        try:
            replies = _shared_replies(problem)
        except LimitReached:  # the defender's replies are not all known: no line can be judged
            return None, True
        regular = _Regular(problem)
        return _canonical_search(problem, regular, _candidates(problem, _effect_caps(problem), canonical), replies,
                                 canonical)  # fmt: skip


def _dispatched(problem: _Problem) -> tuple[Line | None, bool]:
    """:func:`_search` by the first search that applies to ``problem``."""
    deadline = problem.deadline
    divided = problem.whole.has_first_strike_step and (
        problem.attacking_first.plan.moved or problem.defending_first.plan.moved
    )
    regular = _Regular(problem)
    if divided:  # who divides some first-strike damage moved (trample.rules.divider; banding, 702.22j/k)
        banded = _band_front_search(problem, regular)  # best bound first where the bounds read it
        return banded if banded is not None else _divided_search(problem, regular)
    try:
        replies = _shared_replies(problem)
        # may build the direct engine's programme; as though unblocked: listed way by way (_first_blocks)
        canonical = problem.attacking_first.canonical(deadline=deadline) or _ways_listed(problem)
    except LimitReached:  # the defender's replies are not all known: no line can be judged
        return None, True
    capped = _effect_caps(problem)
    if not canonical and _joinable(problem):  # too many first steps to list: only the searches of their states
        prefix = _monotone_prefix(problem, True)
        if prefix or (_plain_first_step(problem, True, over=True) and _bounded(problem)):
            return _front_search(problem, regular, capped, replies, prefix)
    prefix = _monotone_prefix(problem, canonical)
    if prefix:
        return _front_search(problem, regular, capped, replies, prefix)
    if _plain_first_step(problem, canonical, over=True) and _bounded(problem):
        # no monotone prefix, but every candidate has bounds: skip those they hold to no better
        return _front_search(problem, regular, capped, replies, 0)
    if _result_bounded(problem, canonical):  # effects that change only what damage does: the same bounds
        return _results_front_search(problem, regular, replies)
    return _canonical_search(problem, regular, _candidates(problem, capped, canonical), replies, canonical)


def _joinable(problem: _Problem) -> bool:
    """Are the first step's candidates on a plain board (no effects) found without listing it
    (:func:`_joined_step`, :func:`_joined_vectors`: the numbers of its states and values fit)?"""
    step = problem.attacking_first
    if problem.effects or not _joined_step(step, problem.deadline):
        return False
    base = BlockScorer(step, ())
    lethal = _lethal_caps(problem)
    caps = [lethal.get(r) for r in base.recipients]
    radix = _effect_radix(base, caps)
    key = _excess_of(problem.objs, caps, base.recipients)
    keyed = BlockScorer(step, key) if key else None
    return radix is not None and _join_of(step, base) is not None and _packing(base, caps, radix, keyed) is not None


def _bounded(problem: _Problem) -> bool:
    """Is a plain first step (:func:`_plain_first_step`, trample over planeswalkers allowed) without a monotone
    prefix searched best bound first? When ``min-overkill`` leads (its floor), when it can take a planeswalker or
    battle out of combat (the dominance order no longer holds, but each reply's bounds do: :func:`_reply_bounds`
    reads the removed ones per candidate), or when it can end the game (704.5a, 104.3b) where the bounds tell which
    first steps do (:func:`_ends_readable`: those are worth their first step alone, :func:`_ended`)."""
    ends, removed = _first_step_reach(problem)
    if ends and not _ends_readable(problem):
        return False
    return ends or bool(removed) or problem.objs[0].kind == ObjectiveKind.MIN_OVERKILL


def _ends_readable(problem: _Problem) -> bool:
    """Can the bounds tell the first steps that end the game (:func:`_ended`)? With one defending player in a
    two-player game (104.3b: it ends when they lose) who has not lost yet, on a plain board (no loss but 704.5a)."""
    s = problem.scenario
    return len(s.players) == 1 and s.game_players <= 2 and not losers(s)


def _ended(problem: _Problem, table: _Table, memo: dict | None = None) -> np.ndarray | None:
    """Per candidate, does its first-step damage to the one defending player reach their life (704.5a: they lose,
    the game ends, 104.3b, and no regular step is dealt: the line is worth its first step alone, whatever the
    reply)? None when no first step ends the game (:func:`_first_step_reach`) or the bounds cannot tell
    (:func:`_ends_readable`: then the front search is not used). ``memo``: kept there."""
    memo = {} if memo is None else memo
    if "ended" not in memo:
        s = problem.scenario
        ended = None
        if _ends_readable(problem):
            only = s.players[0]
            if _first_step_reach(problem)[0]:
                ended = table.taken(problem.layout(), only.id) >= only.life
            if _first_step_loses_otherwise(problem):  # poison or commander damage (704.5c, 704.6c)
                other = _lost_otherwise(problem, table)
                ended = other if ended is None else ended | other
        memo["ended"] = ended
    return memo["ended"]


def _lost_otherwise(problem: _Problem, table: _Table) -> np.ndarray:
    """Per candidate, does its first step make the one defending player lose otherwise than by life, whatever the
    reply? The poison it gives them (702.90b: an infect source's damage; 702.164c: a toxic source's counters when
    it deals them damage) and each commander's damage to them (903.10a), read by every way to lose but life of
    :data:`LOSS_CONDITIONS` (704.5c, 704.6c) once per distinct result. On the boards of
    :func:`_result_classes` damage dealt is damage assigned less what a prevention shield stops (615.7: the
    table's :meth:`_Table.received`) and the replies' damage reaches only attackers (510.1c/d), so the candidate's
    vector alone decides it."""
    player = problem.scenario.players[0]
    poison, commanders = _first_losses(problem, table, player, {})
    return _lost_by_counts(player, poison, commanders, len(table))


def _canonical_search(problem: _Problem, regular: _Regular, candidates, replies, canonical: bool):
    """Every candidate in turn against the replies (:func:`_against`), the reply that held the last candidate
    tried first; stops at the ceiling when the candidates come in the canonical order."""
    order = list(range(len(replies)))  # the order replies are tried in (the result does not depend on it)
    ordered = problem.ceiling is not None and canonical
    best = None
    stopped = False
    try:
        for candidate in candidates:
            got = _against(problem, regular, candidate, replies, order, best)
            _reorder(order, got.rank)
            if got.worst is not None and got.worst.beats(best):
                best = got.worst
                if ordered and problem.ceiling is not None and best.value >= problem.ceiling:
                    break  # nothing beats it, and every A1 still to come has a larger vector
            if got.stopped or problem.deadline.expired():
                stopped = True
                break
    except LimitReached:
        stopped = True
    finally:
        candidates.close()  # a generator: stop its search now
    return best, stopped


def _reorder(order: list[int], rank: int) -> None:
    """Try the reply that held the last candidate first next time."""
    if rank > 0 and order[0] != rank:
        order.remove(rank)
        order.insert(0, rank)


# -- the dominance order and the bounds: best bound first ------------------------------------------------------

#: Objectives that more first-strike damage (per recipient, a creature's capped at lethal) never lowers, whatever the
#: defender replies, on the boards :func:`_monotone_prefix` accepts.
_MONOTONE = frozenset({"max-damage", "max-kills", "max-value", "lethal"})


def _monotone_prefix(problem: _Problem, canonical: bool) -> int:
    """How many leading objectives no A1 can lose on by dealing more: 0 when the dominance order is not used.

    An A1 *dominates* another when its effect is at least the other's on every recipient (damage, a creature's
    capped at lethal, and deathtouch). For a fixed reply, the dominated A1's best regular step can be copied in
    the dominating A1's state -- a blocker with more damage needs less (702.19b), a blocker that died takes
    nothing and its share goes to another blocker of the same attacker (510.1c), or nowhere -- dealing every
    player at least as much, killing at least what is still alive (the rest died in the first step, counted
    there), so ``max-damage`` (on players), ``lethal``, ``max-kills`` and ``max-value`` (values >= 0) are each at
    least as high over the combat. It holds while the first step ends no one's game (704.5a, 104.3b) and takes
    no planeswalker or battle out of combat (their attackers keep their routes: checked with one-step
    ``max-damage:ID`` solves of the first step), on plain boards (no effects, banding, legacy order, as though
    unblocked or trample over planeswalkers). ``min-overkill`` is not monotone: it ends the prefix."""
    s = problem.scenario
    if not _plain_first_step(problem, canonical):
        return 0
    n = 0
    for o in problem.objs:
        if o.kind not in _MONOTONE or (o.target is not None and s.kind(o.target) != ObjectKind.PLAYER):
            break
        negative = any(Fraction(str(c.value)) < 0 for c in s.blockers) or any(
            Fraction(str(w.value)) < 0 for w in s.planeswalkers
        )
        if o.kind == ObjectiveKind.MAX_VALUE and negative:
            break
        n += 1
    if n and not _first_step_keeps(problem):
        return 0
    return n


def _plain_first_step(problem: _Problem, canonical: bool, over: bool = False) -> bool:
    """The boards the dominance order and the overkill floor (:func:`_overkill_floor`) read: a first-strike step
    listed in the canonical order (attackers that may assign as though unblocked included: :func:`_ways_listed`),
    no damage effects, the current rules, no division moved (banding), no attacker that (unless ``over``: the
    boards searched best bound first, whose bounds read it) tramples over planeswalkers (702.19c)."""
    s = problem.scenario
    return (
        canonical
        and problem.whole.has_first_strike_step
        and not problem.effects
        and s.rules == RulesSet.CURRENT
        and not division_moved(s)
        and (over or not any(a.has(Keyword.TRAMPLE_OVER_PLANESWALKERS) for a in s.attackers))
    )


def _ways_listed(problem: _Problem, band: bool = False) -> bool:
    """Does :func:`_first_blocks` list the first step of a board whose attackers may assign as though unblocked
    in the canonical order? On first steps of the current rules whose attackers' division is not moved (``band``:
    the blockers' may be, 702.22k, as :func:`_band_front_search` reads them; otherwise no division is moved), plain
    or with effects that change only what damage does (:func:`_result_classes`: their A1s are read in blocks,
    :func:`_distinct_results`), whose components the direct engine lists (way by way,
    :meth:`DirectEngine.supports`), each of at most :data:`WAYS_ROWS` vectors."""
    step, s = problem.attacking_first, problem.scenario
    plan = step.plan
    if not plan.has_options or step.engine not in ("direct", "auto"):
        return False
    memo = problem.shared.ways if problem.shared is not None else {}
    key = (s, step.engine, band)
    if key not in memo:  # (the probes' searches and the list's ask it of the same board)
        memo[key] = _ways_counted(problem, band)
    return memo[key]


def _ways_counted(problem: _Problem, band: bool) -> bool:
    """:func:`_ways_listed`, asked of the board's conditions and the direct engine."""
    step, s = problem.attacking_first, problem.scenario
    plan = step.plan
    if not problem.whole.has_first_strike_step or s.rules != RulesSet.CURRENT or plan.moved:
        return False
    if division_moved(s) and not band:  # band: the first step of :func:`_band_front_search` (only D1 moved)
        return False
    if problem.effects and _result_classes(problem) is None:  # the A1s are read one by one (_candidates), unsorted
        return False
    direct = blocks_engine("direct")
    return all(
        direct.supports(plan, c, problem.deadline) and direct.count(plan, c, problem.deadline) <= WAYS_ROWS
        for c in plan.components
    )


#: the most legal vectors of one component :func:`_component_rows` holds at once (sorted in memory): past it, the
#: first step is streamed one assignment at a time
WAYS_ROWS = 1 << 22


def _first_blocks(step: Combat, deadline) -> Iterator[np.ndarray]:
    """The first step's assignments in blocks, in the canonical order (the product of the components'
    lexicographic orders, first component slowest, read over the plan's columns: ``plan_blocks``' order). The
    direct engine's blocks when it lists them (``step.canonical()``); with attackers that may assign as though
    unblocked (510.1c), each component's vectors are those of its ways (each option source normal or unblocked:
    option-free plans the direct engine lists), merged, without repeats and sorted (:func:`_component_rows`), and
    their product is read in blocks of mixed-radix indices."""
    if step.canonical(deadline=deadline):
        yield from step.assignment_blocks(rows=LIST_ROWS, time_limit=deadline)
        return
    plan = step.plan
    tables = [_component_rows(plan, c, deadline) for c in plan.components]
    if any(len(t) == 0 for t in tables):
        return
    cols = [c for comp in plan.components for c in plan.component_columns(comp)]
    where = {c: k for k, c in enumerate(cols)}
    order = np.array([where[c] for c in plan.columns], dtype=np.int64)
    identity = bool(np.array_equal(order, np.arange(len(cols))))
    rows = LIST_ROWS
    k, size = len(tables), 1  # the last components, whose product (at most ``rows``) is built once: the tail
    while k > 0 and size * len(tables[k - 1]) <= rows:
        k -= 1
        size *= len(tables[k])
    tail = _product_rows(tables[k:])
    heads = math.prod(len(t) for t in tables[:k])
    step_heads = max(1, rows // max(1, len(tail)))
    for start in range(0, heads, step_heads):
        head = _product_rows(tables[:k], np.arange(start, min(heads, start + step_heads), dtype=np.int64))
        block = np.concatenate([np.repeat(head, len(tail), axis=0), np.tile(tail, (len(head), 1))], axis=1)
        yield block if identity else block[:, order]
        deadline.check()


#: the rows of one block of :func:`_first_blocks` (at most, from the direct engine; at least, where a tail of the
#: components' product is never cut). The time limit is read between blocks: a block of 2^16 rows took 8 ms of CPU
#: to read on ``chained(8)`` (25-50 ms of wall time on a loaded machine); 2^14 rows read as fast per row
#: (``chained(7)`` solved in 3.5-4.4 s either way)
LIST_ROWS = 1 << 14


def _product_rows(tables: list[np.ndarray], index: np.ndarray | None = None) -> np.ndarray:
    """The rows of the product of ``tables`` (the first slowest) at ``index`` (default: every one), side by
    side."""
    if index is None:
        index = np.arange(math.prod(len(t) for t in tables), dtype=np.int64)
    parts = []
    for table in reversed(tables):
        index, digit = np.divmod(index, len(table))
        parts.append(table[digit])
    return np.concatenate(parts[::-1], axis=1) if parts else np.zeros((len(index), 0), dtype=np.int64)


def _component_rows(plan: Any, component: tuple, deadline) -> np.ndarray:
    """A component's legal vectors (over ``plan.component_columns``) in lexicographic order: each way of its
    sources that may assign as though unblocked (normal: without the option; unblocked: its damage over the
    unblocked routes only, 510.1c) is an option-free plan the direct engine lists in that order; a vector legal in
    several ways is kept once."""
    direct = cast(DirectEngine, blocks_engine("direct"))
    full = plan.component_columns(component)
    where = {c: k for k, c in enumerate(full)}
    opts = plan.options_in(component)
    parts = []
    for modes in itertools.product((False, True), repeat=len(opts)):
        sources = list(plan.sources)
        for i, unblocked in zip(opts, modes):
            src = plan.sources[i]
            alt = src.unblocked
            assert alt is not None  # options_in lists the sources with the option
            way = replace(src, damage=alt.damage, routes=alt.routes) if unblocked else src
            sources[i] = replace(way, unblocked=None)
        variant = replace(plan, sources=tuple(sources))
        idx = np.array([where[c] for c in variant.component_columns(component)], dtype=np.int64)
        for block in direct.blocks(variant, component, dtype=np.int64, deadline=deadline):
            out = np.zeros((len(block), len(full)), dtype=np.int64)
            out[:, idx] = block
            parts.append(out)
    if not parts:
        return np.zeros((0, len(full)), dtype=np.int64)
    rows = np.concatenate(parts)
    # each row read as one number (its columns in mixed radix, the first most significant): sorting those is the
    # lexicographic order, far cheaper than np.unique(axis=0)'s sort of whole rows
    _, first = np.unique(_row_ids(rows), return_index=True)
    return rows[first]


def _first_step_keeps(problem: _Problem) -> bool:
    """Can no first-strike assignment make a player lose (704.5a) or take a planeswalker or battle out of combat
    (704.5i, 704.5v)? (:func:`_first_step_reach`.)"""
    ends, removed = _first_step_reach(problem)
    return not ends and not removed


def _first_step_reach(problem: _Problem) -> tuple[bool, frozenset[str]]:
    """(Can a first-strike assignment make a player lose (704.5a, 104.3b: no regular step follows), the
    planeswalkers and battles one can take out of combat, 704.5i, 704.5v), each decided by a sum of the attackers'
    damage that can reach it first, then a one-step ``max-damage:ID`` solve (an unproven solve counts as reaching
    it); the planeswalkers and battles are not all read when a player can lose and the bounds cannot tell which
    first steps end the game (:func:`_ends_readable`). Read once per problem."""
    if "first-step reach" in problem._memo:
        return problem._memo["first-step reach"]
    s, step = problem.scenario, problem.attacking_first
    bound: dict[str, int] = {}
    for source in step.plan.sources:  # either way of one that may assign as though unblocked (510.1c)
        for r in {route.recipient for route in source.all_routes}:
            bound[r] = bound.get(r, 0) + max(0, source.max_damage)
    thresholds = [(p.id, p.life) for p in s.players] + [(w.id, w.loyalty) for w in s.planeswalkers]
    thresholds += [(b.id, b.defense) for b in s.battles]
    players = {p.id for p in s.players}
    removed: set[str] = set()
    ends = False
    for r, threshold in thresholds:
        if bound.get(r, 0) < threshold or (ends and r in players):
            continue
        most = solve_step(step, [f"max-damage:{r}"], tie_break=False, **problem.left())
        problem.stats.solves += 1
        if most.status != STATUS_OPTIMAL or most.objectives[f"max-damage:{r}"] >= threshold:
            if r in players:
                ends = True
                if not _ends_readable(problem):
                    break  # nothing more is read (:func:`_bounded`)
            else:
                removed.add(r)
    problem._memo["first-step reach"] = (ends, frozenset(removed))
    return problem._memo["first-step reach"]


def _removed_by(problem: _Problem, table: _Table, memo: dict | None = None) -> dict[str, np.ndarray]:
    """Per planeswalker or battle the first step can take out of combat (:func:`_first_step_reach`), per
    candidate: does its first-step damage reach the loyalty or defense (704.5i, 704.5v: it leaves combat, and the
    attackers attacking it assign the regular step's damage only to their blockers still alive, none when
    unblocked, 506.4c)? Empty on the boards whose first step takes nothing out. ``memo``: kept there."""
    memo = {} if memo is None else memo
    if "removed" not in memo:
        s, at = problem.scenario, problem.layout()
        gone = _first_step_reach(problem)[1]
        memo["removed"] = {r: table.taken(at, r) >= overkill_threshold(s, r) for r in sorted(gone)}
    return memo["removed"]


def _dominated(rows: np.ndarray, by: np.ndarray, deadline: Deadline = NEVER) -> np.ndarray:
    """Per row: is some row of ``by`` at least it on every column? (In chunks: bounded memory; ``deadline`` read
    before each.)"""
    out = np.zeros(len(rows), dtype=bool)
    if len(by) == 0:
        return out
    step = max(1, (1 << 22) // max(1, len(by) * rows.shape[1]))
    for k in range(0, len(rows), step):
        deadline.check()
        part = rows[k : k + step]
        out[k : k + step] = np.asarray((by[None, :, :] >= part[:, None, :]).all(axis=2), dtype=bool).any(axis=1)
    return out


@dataclass(frozen=True)
class _Table:
    """The front search's candidates as arrays, one row each in the canonical order (smallest vector first): per
    distinct state a first step leaves, the A1 that can win among those leaving it (:func:`_effect_table`).
    ``vectors``: A1's amounts over ``plan.columns``; ``effects``: its effect rows (:func:`_effect_rows`);
    ``capped``: the same with every creature's damage capped at lethal (the dominance order's key); ``first``: the
    first step's values, oriented (``max-value`` scaled by ``scales``). A :class:`Candidate` is only built for the
    rows searched (:meth:`candidate`)."""

    vectors: np.ndarray
    effects: np.ndarray | None
    capped: np.ndarray
    first: np.ndarray
    scales: tuple
    plan: Any
    #: when ``effects`` is None, what reads a row's effect (only the rows searched are read): the scorer and the caps
    #: of :func:`_effect_rows`
    reader: tuple | None = None
    #: on a board with effects (:func:`_effect_table_of_results`), each row's state key (:func:`_class_states`): the
    #: candidate's effect, which the regular step is memoised by (``capped`` is then only read by the bounds)
    states: np.ndarray | None = None
    #: on a board with prevention shields (615.7), each row's amounts dealt over ``plan.columns``
    #: (:meth:`_Classes.dealt`), which ``capped`` and ``first`` are read from; None: ``vectors``
    dealt: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.vectors)

    def received(self) -> np.ndarray:
        """Each row's amounts dealt over ``plan.columns``: ``dealt``, or ``vectors`` where no shield acts."""
        return self.vectors if self.dealt is None else self.dealt

    def taken(self, at: dict, r: str) -> np.ndarray:
        """Each row's first-step damage to ``r`` (capped at lethal) in the layout ``at``
        (:func:`_effect_layout`); 0 where no column of the layout reaches ``r``."""
        return self.capped[:, at[r][0]] if r in at else np.zeros(len(self), dtype=np.int64)

    def effect(self, i: int) -> np.ndarray:
        """Row ``i``'s effect (:func:`_effect_rows`)."""
        if self.effects is not None:
            return self.effects[i]
        assert self.reader is not None
        scorer, caps = self.reader
        return _effect_rows(scorer, caps, self.vectors[i : i + 1])[0]

    def candidate(self, i: int) -> Candidate:
        if self.states is not None:
            return Candidate(None, tuple(self.vectors[i].tolist()), tuple(self.states[i].tolist()), plan=self.plan)
        return Candidate(
            None,
            tuple(self.vectors[i].tolist()),
            tuple(self.effect(i).tolist()),
            tuple(self.capped[i].tolist()),
            tuple(self.first[i].tolist()),
            self.scales,
            self.plan,
        )


def _effect_table(
    step: Combat,
    objs: tuple,
    capped: dict[str, int],
    lethal: dict[str, int],
    deadline,
    track,
    shared: _Shared | None = None,
    board: Scenario | None = None,
) -> _Table:
    """The candidates of :func:`_distinct_effects` as one :class:`_Table`, found block by block with numpy: the
    first A1 of each effect (the smallest vector: ``step.canonical()`` must hold), then, when an objective reads the
    excess (``capped`` finer than ``lethal``), among those leaving the same state (the same damage with a creature's
    capped at lethal) the one with the best first step (ties: the smaller vector). On a board without effects the
    regular step and the defender's replies are the same for the same state, and the first step's value does not
    depend on the reply, so each is worth its first step's value plus one common amount: only that one can win.
    Each row's effect is read as one number (:func:`_effect_radix`) where its numbers' ranges allow
    (:func:`_state_vectors`, the rows shared through ``shared`` with the other searches of ``board``), otherwise
    rows are compared whole."""
    plan = step.plan
    scorer = BlockScorer(step, objs)
    caps = [capped.get(r) for r in scorer.recipients]
    lethal_caps = [lethal.get(r) for r in scorer.recipients]
    vectors = _shared_vectors(step, objs, lethal_caps, deadline, track, shared, board)
    if vectors is not None:  # the effects (finer than the states when an objective reads the excess) read per row
        states = _effect_rows(scorer, lethal_caps, vectors)
        effects = states if caps == lethal_caps else None
        deadline.check()
        values = scorer.values(vectors)
        return _Table(vectors, effects, states, values, tuple(scorer.scales), plan, (scorer, caps))
    parts: list[np.ndarray] = []  # the states' numbers do not fit: the first of each effect, rows compared whole
    for block in _first_blocks(step, deadline):
        parts.append(block[_first_rows(_effect_rows(scorer, caps, block))])
        if track is not None:
            track.step(len(block))
        deadline.check()
    if not parts:
        empty = np.zeros((0, len(plan.columns)), dtype=np.int64)
        return _Table(empty, empty, empty, np.zeros((0, len(objs)), dtype=np.int64), tuple(scorer.scales), plan)
    vectors = np.concatenate(parts)
    effects = _effect_rows(scorer, caps, vectors)
    keep = _first_rows(effects)  # across blocks: still the first of each effect
    vectors, effects = vectors[keep], effects[keep]
    values = scorer.values(vectors)
    if lethal_caps == caps:
        table = _Table(vectors, effects, effects, values, tuple(scorer.scales), plan)
    else:
        states = _effect_rows(scorer, lethal_caps, vectors)
        keep = _best_of_each(states, values)
        table = _Table(vectors[keep], effects[keep], states[keep], values[keep], tuple(scorer.scales), plan)
    deadline.check()
    return table


def _shared_vectors(
    step: Combat, objs: tuple, lethal_caps: list, deadline, track, shared: _Shared | None, board: Scenario | None
) -> np.ndarray | None:
    """:func:`_state_vectors` for ``objs``: read from ``shared`` when an earlier search of ``board`` found them,
    otherwise found in one pass with those of ``shared.later`` (kept there); None when the states' numbers do not
    fit."""
    recipients = BlockScorer(step, ()).recipients
    key = _excess_of(objs, lethal_caps, recipients)
    if shared is None or board is None:
        got = _state_vectors(step, lethal_caps, [key], deadline, track)
        return None if got is None else got[0]
    if (board, key) in shared.rows:
        vectors, rows = shared.rows[board, key]
        if track is not None:
            track.step(rows)  # the first-strike assignments that pass read
        return vectors
    keys = list(dict.fromkeys([key, _excess_of(shared.later, lethal_caps, recipients)]))
    counted = _Counted(track)
    got = _state_vectors(step, lethal_caps, keys, deadline, counted)
    if got is None:
        return None
    for k, vectors in zip(keys, got):
        shared.rows[board, k] = (vectors, counted.rows)
    return got[0]


class _Counted:
    """A progress tracker that also counts the rows it is told of."""

    def __init__(self, track):
        self.track, self.rows = track, 0

    def step(self, n: int = 1) -> None:
        self.rows += n
        if self.track is not None:
            self.track.step(n)


def _excess_of(objs: tuple, lethal_caps: list, recipients: list) -> tuple:
    """The objectives of ``objs`` that read a creature's damage past lethal (:func:`_reads_excess`), in order."""
    return tuple(o for o in objs if _reads_excess(o, lethal_caps, recipients))


def _state_vectors(step: Combat, lethal_caps: list, keys: list[tuple], deadline, track) -> list[np.ndarray] | None:
    """One pass over the first step's assignments (the direct engine's blocks, in the canonical order): for each
    entry of ``keys`` (objectives that read the excess, maybe none), per state a first step leaves (each row's
    effect with every creature's damage capped at lethal, read as one number: :func:`_effect_radix`), the vector
    of the row whose first-step values on those objectives are best (ties, and no objective: the first in the
    canonical order), ascending in that order; None when the numbers do not fit in 62 bits or a term is not
    tabulated. Every other objective reads a creature's damage up to lethal and the rest exactly, so it is the
    same on every row of a state: the row taken is the one whose first step is best on the whole list (ties: the
    smallest vector). Each row's state and values are read together as one number (:class:`_Packing`): per run of
    recipients (:class:`_Runs`), one lookup of their totals in a table; the best row of each state is then the
    least number of its state (:func:`_sorted_states`: one sort per block), per block and across blocks (without
    objectives, the first row of each state not yet marked in a table of every number, :data:`SEEN_CELLS`; read
    off the same sort when another entry has objectives)."""
    if _joined_step(step, deadline):  # too many to list (as though unblocked): joined source by source
        joined = _joined_vectors(step, lethal_caps, keys, deadline)
        if joined is not None and track is not None:
            track.step(step.count())
        return joined
    base = BlockScorer(step, ())
    radix = _effect_radix(base, lethal_caps)
    if radix is None:
        return None
    packs = [_packing(base, lethal_caps, radix, BlockScorer(step, key) if key else None) for key in keys]
    if any(pack is None for pack in packs):
        return None
    runs = _Runs(base)
    combined = [runs.combine(pack.tables) for pack in packs if pack is not None]
    parts: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in keys]
    keyed = next((k for k, pack in enumerate(packs) if pack is not None and pack.span > 1), None)
    # no objective (one request at most: the keys are distinct): the first row of each state, the states met marked
    # in a table of every number when it is small enough
    plain = next((k for k, pack in enumerate(packs) if pack is not None and pack.span == 1), None)
    seen = np.zeros(radix[1], dtype=bool) if radix[1] <= SEEN_CELLS else None
    for block in _first_blocks(step, deadline):
        index = runs.index(block)
        by_keyed = None  # the keyed entry's numbers and their sort (read first)
        for k in sorted(range(len(packs)), key=lambda k: k != keyed):
            pack, tables, got = packs[k], combined[k], parts[k]
            assert pack is not None
            if k == plain and by_keyed is not None:  # the state alone, read off the keyed entry's sort
                read, at, starts, states, divisor = by_keyed
                firsts = np.minimum.reduceat(at, starts)  # per state, its first row
            else:
                read = pack.read(tables, index, len(block))
                at, starts, states = _sorted_states(read, pack.span)
                firsts = at[starts]  # ties sorted by row: the least number's first row
                divisor = 1
            if k == keyed:
                by_keyed = (read, at, starts, states, pack.span)
            if k == plain and seen is not None:  # the states not met in an earlier block
                new = ~seen[states]
                seen[states] = True
                keep = np.sort(firsts[new])
            else:
                keep = np.sort(firsts)
            got.append((block[keep], read[keep] // divisor))
        if track is not None:
            track.step(len(block))
        deadline.check()
    width = len(step.plan.columns)
    out = []
    for pack, got in zip(packs, parts):
        assert pack is not None
        if not got:
            out.append(np.zeros((0, width), dtype=np.int64))
            continue
        vectors, numbers = (np.concatenate([g[j] for g in got]) for j in range(2))
        out.append(vectors[_least_of(numbers, pack.span)])  # across blocks: the least of each state
    return out


# -- a first step too large to list: its states joined source by source ---------------------------------------


def _joined_step(step: Combat, deadline) -> bool:
    """Is the first step read by :func:`_joined_vectors`, not listed? When attackers may assign as though
    unblocked (the direct engine's order does not cover the choice) and some component has more than
    :data:`WAYS_ROWS` legal vectors (:func:`_component_rows` would hold them all), on the current rules with no
    division moved, every active source assigning in each of its ways (its damage over some route)."""
    plan = step.plan
    if (
        not plan.has_options
        or plan.moved
        or step.plan.scenario.rules != RulesSet.CURRENT
        or step.canonical(deadline=deadline)
    ):
        return False
    for i in plan.active:
        src = plan.sources[i]
        ways = [(src.damage, src.routes)] + ([(src.unblocked.damage, src.unblocked.routes)] if src.unblocked else [])
        if any(damage < 0 or (damage > 0 and not routes) for damage, routes in ways):
            return False
    direct = blocks_engine("direct")
    return any(direct.count(plan, c, deadline) > WAYS_ROWS for c in plan.components)


@dataclass(frozen=True)
class _Ways:
    """One source's legal vectors (over its ``all_routes`` columns) as :func:`_joined_vectors` reads them, in
    lexicographic order: ``rows``; per row the gated blockers and planeswalkers whose conditions it needs
    (``needs``, one bit each: a positive amount on a gated route, 702.19b/c) and what it adds to each recipient of
    the scorer (``adds``: damage; ``touches``: from a deathtouch source)."""

    rows: np.ndarray
    needs: np.ndarray
    adds: np.ndarray
    touches: np.ndarray


def _way_rows(damage: int, routes: tuple, columns: list[str], bits: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Every division of ``damage`` over ``routes`` (placed on ``columns``; the engines' :func:`lex_compositions`)
    and, per division, the bits of the gate conditions its positive amounts need."""
    place = [columns.index(r.recipient) for r in routes]
    gates = np.array(
        [
            sum(1 << bits[g] for g in (*r.gate.lethal, *r.gate.loyalty) if g in bits) if r.gate is not None else 0
            for r in routes
        ],
        dtype=np.int64,
    )
    amounts = lex_compositions(damage, len(routes))
    rows = np.zeros((len(amounts), len(columns)), dtype=np.int64)
    rows[:, place] = amounts
    needs = np.bitwise_or.reduce(np.where(amounts > 0, gates, 0), axis=1, initial=0)
    return rows, needs


def _source_ways(plan: Any, i: int, scorer: BlockScorer, bits: dict[str, int], never: int) -> _Ways:
    """Source ``i``'s :class:`_Ways`: each of its ways (as it is, and as though unblocked, 510.1c) divides all its
    damage over that way's routes (510.1a); a vector legal in both ways is kept with each way's needs. ``never``:
    the bits of conditions that cannot hold (a row needing one is left out)."""
    src = plan.sources[i]
    columns = [r.recipient for r in src.all_routes]
    ways = [(src.damage, src.routes)] + ([(src.unblocked.damage, src.unblocked.routes)] if src.unblocked else [])
    rows: list = []
    needs: list = []
    for damage, routes in ways:
        got = (
            _way_rows(damage, routes, columns, bits)
            if damage > 0
            else (np.zeros((1, len(columns)), dtype=np.int64), np.zeros(1, dtype=np.int64))
        )
        rows.append(got[0])
        needs.append(got[1])
    table = np.concatenate(rows).reshape(-1, len(columns))
    need = np.concatenate(needs)
    order = np.lexsort((need, *table.T[::-1]))
    table, need = table[order], need[order]
    keep = (need & never) == 0
    if len(table) > 1:
        repeat = np.zeros(len(table), dtype=bool)
        repeat[1:] = (table[1:] == table[:-1]).all(axis=1) & (need[1:] == need[:-1])
        keep &= ~repeat
    table, need = table[keep], need[keep]
    where = {r: c for c, r in enumerate(scorer.recipients)}
    adds = np.zeros((len(table), len(scorer.recipients)), dtype=np.int64)
    for k, r in enumerate(columns):
        adds[:, where[r]] += table[:, k]
    touches = (adds > 0) & bool(scorer.defs.deathtouch_of[i])
    return _Ways(table, need, adds, touches)


@dataclass(frozen=True)
class _Join:
    """What :func:`_joined_vectors` reads of the first step: the sources in the canonical order (``order``) and
    their :class:`_Ways`; per recipient of the scorer its place in a row's open number (``weights``; its (touched,
    total) index there below ``widths``), its deathtouch bit (``dt``, or -1), the position after which no source
    adds to it or needs it (``closes``: its damage then is final), and when a gate names it, its bit and whether the
    condition holds at each index (``gates``: 702.19b lethal damage, 702.2c deathtouch; 702.19c loyalty)."""

    order: list
    ways: list
    weights: list
    widths: list
    dt: list
    closes: list
    gates: dict


def _join_of(step: Combat, base: BlockScorer) -> _Join | None:
    """The :class:`_Join` of the first step (None when a row's open numbers do not fit in 62 bits)."""
    plan = step.plan
    order = [i for comp in plan.components for i in comp]
    n = len(base.recipients)
    where = {r: c for c, r in enumerate(base.recipients)}
    dt = [-1] * n
    for c in range(n):
        if base._dt_cols[c]:
            dt[c] = sum(1 for d in dt if d >= 0)
    widths = [base._width[c] * (2 if dt[c] >= 0 else 1) for c in range(n)]
    if math.prod(widths) >= 1 << 62 or sum(1 for d in dt if d >= 0) > 62:
        return None
    weights = [math.prod(widths[c + 1 :]) for c in range(n)]
    closes = [0] * n
    named: dict[str, int] = {}  # gated blocker or planeswalker -> the last position naming it
    for pos, i in enumerate(order):
        src = plan.sources[i]
        for r in (*src.routes, *(src.unblocked.routes if src.unblocked else ())):
            closes[where[r.recipient]] = pos
            for g in (*r.gate.lethal, *r.gate.loyalty) if r.gate is not None else ():
                named[g] = pos
    gates: dict[int, tuple[int, np.ndarray]] = {}
    bits: dict[str, int] = {}
    never = 0
    for g, pos in named.items():
        bits[g] = len(bits)
        if g not in where:  # no column: nothing assigned to it
            holds = plan.is_lethal(g, {}, ()) if g in plan.lethal_need else plan.loyalty_met(g, {})
            never |= 0 if holds else 1 << bits[g]
            continue
        c = where[g]
        closes[c] = max(closes[c], pos)
        width = base._width[c]
        ok = [
            plan.is_lethal(g, {g: at % width}, (g,) if at >= width else ())
            if g in plan.lethal_need
            else plan.loyalty_met(g, {g: at % width})
            for at in range(widths[c])
        ]
        gates[c] = (bits[g], np.array(ok, dtype=bool))
    ways = [_source_ways(plan, i, base, bits, never) for i in order]
    return _Join(order, ways, weights, widths, dt, closes, gates)


def _joined_vectors(step: Combat, lethal_caps: list, keys: list[tuple], deadline) -> list[np.ndarray] | None:
    """:func:`_state_vectors` without listing the first step (:func:`_joined_step`): the same rows (per state, the
    best row on each entry of ``keys``, ties the first in the canonical order, ascending), found source by source
    in the canonical order. A partial row is a prefix of the sources' vectors with what decides its completions:
    the damage of the recipients some later source may still add to or need (its open number and deathtouch bits),
    the gate conditions its positive amounts need that are not yet decided, and the state and values of the
    recipients already decided. Two prefixes alike in those have the same completions, leading to the same states
    with the same values added, so of those only the best (ties: the first, the smaller vector) can give a state's
    row; a recipient is decided once no later source adds to it or needs it (its gates read then). None when the
    numbers do not fit."""
    base = BlockScorer(step, ())
    radix = _effect_radix(base, lethal_caps)
    join = _join_of(step, base)
    if radix is None or join is None:
        return None
    parts = [_packing_parts(base, lethal_caps, radix, BlockScorer(step, key) if key else None) for key in keys]
    if any(p is None for p in parts):
        return None
    plan = step.plan
    cols = [c for comp in plan.components for c in plan.component_columns(comp)]
    at = {c: k for k, c in enumerate(cols)}
    rows = _joined_rows(join, [p for p in parts if p is not None], deadline)
    back = [at[c] for c in plan.columns]
    if back == list(range(len(back))):  # one component, or components in the plan's order: no gather (0.05 s)
        return rows
    return [r[:, np.array(back, dtype=np.int64)] for r in rows]


@dataclass(frozen=True)
class _Prefixes:
    """The partial rows of :func:`_joined_rows` after some sources, in the canonical order: per prefix its open
    number (the recipients not yet decided: their damage in mixed radix), deathtouch bits, the gate conditions it
    needs that are not yet decided (bits), and the state and values (one column per packing, larger better) of
    the recipients decided."""

    numbers: np.ndarray
    touched: np.ndarray
    needs: np.ndarray
    states: np.ndarray
    values: np.ndarray


#: extensions of one source kept by :func:`_joined_rows` past which it gives up (:class:`_JoinRefused`): 709 536
#: at the sixth attacker of the benchmark's trample over + as though unblocked board (0.1 s), 2.3 M at the seventh
#: (seconds, and 1 GB at eight: the limit overrun and nothing found, where every A1 searched answers `feasible`)
JOIN_KEPT = 1 << 20


def _joined_rows(join: _Join, parts: list[_Parts], deadline) -> list[np.ndarray]:
    """The rows of :func:`_joined_vectors` for each packing of ``parts``, over the canonical order's columns, in one
    pass: a prefix is kept when it is the best of its kind on some packing's values (the best row of a state on a
    packing is then among those kept, and nothing kept before it in the canonical order is as good)."""
    one = np.zeros(1, dtype=np.int64)
    prefixes = _Prefixes(one, one, one, one, np.zeros((1, len(parts)), dtype=np.int64))
    trail: list[tuple[np.ndarray, np.ndarray]] = []  # per source: each prefix's parent and way row
    for pos, ways in enumerate(join.ways):
        parent, row, prefixes = _extended_within(join, parts, prefixes, ways, pos, deadline)
        if len(parent) > JOIN_KEPT:  # past what the pass does in a fraction of a second: the other searches
            raise _JoinRefused
        deadline.check()
        ids = _column_ids([prefixes.states, prefixes.numbers, prefixes.touched, prefixes.needs])
        deadline.check()
        chosen = np.zeros(len(ids), dtype=bool)
        for best in _bests_of_ids(ids, prefixes.values):
            chosen[best] = True
        best = np.flatnonzero(chosen)
        prefixes = _Prefixes(*(a[best] for a in vars(prefixes).values()))
        trail.append((parent[best], row[best]))
        deadline.check()
    out = []
    for at in _bests_of_ids(prefixes.states, prefixes.values):
        at = np.sort(at)
        pieces = []
        for (parent, row), ways in zip(reversed(trail), reversed(join.ways)):
            pieces.append(ways.rows[row[at]])
            at = parent[at]
        out.append(np.concatenate(pieces[::-1], axis=1) if pieces else np.zeros((len(at), 0), dtype=np.int64))
    return out


def _column_ids(columns: list[np.ndarray]) -> np.ndarray:
    """:func:`_row_ids` of the rows made of ``columns``, read in mixed radix a column at a time: when the number
    would pass 62 bits, the number so far is first replaced by its rank among the distinct ones (a sort of
    integers, not of rows)."""
    ids, span = np.zeros(len(columns[0]), dtype=np.int64), 1
    for column in columns:
        if not len(column):
            return ids
        low = int(column.min())
        width = int(column.max()) - low + 1
        if span * width >= 1 << 62:
            _, ids = np.unique(ids, return_inverse=True)
            ids = ids.reshape(-1).astype(np.int64)
            span = int(ids.max()) + 1
        if span * width >= 1 << 62:  # one column alone this wide: its ranks too
            _, column = np.unique(column, return_inverse=True)
            column, low = column.reshape(-1).astype(np.int64), 0
            width = int(column.max()) + 1
        ids = ids * width + (column - low)
        span *= width
    return ids


#: prefixes x way rows extended at once by :func:`_extended_within` (the clock read between slices: the last
#: source's grid at 7 attackers is 19 M cells, seconds of numpy work on a loaded machine)
EXTEND_CELLS = 1 << 20


def _extended_within(
    join: _Join, parts: list[_Parts], prefixes: _Prefixes, ways: _Ways, pos: int, deadline
) -> tuple[np.ndarray, np.ndarray, _Prefixes]:
    """:func:`_extended` a slice of the prefixes at a time (at most :data:`EXTEND_CELLS` extensions each), the
    deadline checked between slices; the slices' extensions in order are the whole's (prefix-major order)."""
    m, n = len(prefixes.numbers), max(1, len(ways.rows))
    step = max(1, EXTEND_CELLS // n)
    if m <= step:
        return _extended(join, parts, prefixes, ways, pos)
    pieces = []
    for lo in range(0, m, step):
        deadline.check()
        part = _Prefixes(*(a[lo : lo + step] for a in vars(prefixes).values()))
        at, row, got = _extended(join, parts, part, ways, pos)
        pieces.append((at + lo, row, got))
    at = np.concatenate([a for a, _, _ in pieces])
    row = np.concatenate([r for _, r, _ in pieces])
    fields = zip(*(vars(g).values() for _, _, g in pieces))
    return at, row, _Prefixes(*(np.concatenate(f) for f in fields))


def _extended(
    join: _Join, parts: list[_Parts], prefixes: _Prefixes, ways: _Ways, pos: int
) -> tuple[np.ndarray, np.ndarray, _Prefixes]:
    """Every prefix extended by every row of the next source's ``ways`` (position ``pos``), the recipients no later
    source adds to or needs decided: those extensions that meet the gate conditions they need of them
    (:func:`_kept`; the rest computed only for those kept). Returns each kept extension's prefix and way row, and
    the extensions, in the canonical order."""
    closing = [c for c, last in enumerate(join.closes) if last == pos]
    weights = np.array(join.weights, dtype=np.int64)
    masks = [1 << d if d >= 0 else 0 for d in join.dt]
    flags = ways.touches.astype(np.int64) @ np.array(masks, dtype=np.int64)
    p, n = prefixes, len(ways.rows)
    kept = np.flatnonzero(_kept(join, p, ways, flags, closing))
    at, row = kept // n, kept % n
    states, values = p.states[at], p.values[at]
    for c in closing:
        i = _closing_index(join, c, p, ways, flags, at, row)
        states = states + parts[0].states[c][i]
        values = values + np.stack([part.values[c][i] for part in parts], axis=1)
    open_ = np.ones(len(join.weights), dtype=bool)
    open_[closing] = False
    mine = p.numbers - sum((p.numbers // join.weights[c] % _total_width(join, c)) * join.weights[c] for c in closing)
    numbers = mine[at] + (ways.adds[:, open_] @ weights[open_])[row]
    shut = sum(masks[c] for c in closing)
    touched = (p.touched[at] | flags[row]) & ~shut
    bits = sum(1 << join.gates[c][0] for c in closing if c in join.gates)
    needs = (p.needs[at] | ways.needs[row]) & ~bits
    return at, row, _Prefixes(numbers, touched, needs, states, values)


def _total_width(join: _Join, c: int) -> int:
    """How many totals recipient ``c`` can have (its index's range without the deathtouch flag)."""
    return join.widths[c] // (2 if join.dt[c] >= 0 else 1)


def _closing_index(
    join: _Join, c: int, p: _Prefixes, ways: _Ways, flags: np.ndarray, at: np.ndarray, row: np.ndarray | None
) -> np.ndarray:
    """Recipient ``c``'s (touched, total) index at the extensions of prefixes ``at`` by way rows ``row``, or (``row``
    None) on the grid of prefixes ``at`` x every way row."""
    width = _total_width(join, c)
    mine, theirs = (p.numbers[at] // join.weights[c]) % width, ways.adds[:, c]
    got = mine[:, None] + theirs[None, :] if row is None else mine + theirs[row]
    if join.dt[c] >= 0:
        mine_t, theirs_t = p.touched[at] >> join.dt[c] & 1, flags >> join.dt[c] & 1
        got = got + width * (mine_t[:, None] | theirs_t[None, :] if row is None else mine_t | theirs_t[row])
    return got


def _kept(join: _Join, p: _Prefixes, ways: _Ways, flags: np.ndarray, closing: list[int]) -> np.ndarray:
    """Per prefix x way row, does the extension meet the conditions it needs of the gated recipients decided now
    (702.19b/c)? Read once per distinct signature of the prefixes (what they hold of those recipients: total,
    deathtouch, need) and spread."""
    gated = [c for c in closing if c in join.gates]
    m, n = len(p.numbers), len(ways.rows)
    if not gated:
        return np.ones((m, n), dtype=bool)
    signature = []
    for c in gated:
        signature += [p.numbers // join.weights[c] % _total_width(join, c), p.needs >> join.gates[c][0] & 1]
        if join.dt[c] >= 0:
            signature.append(p.touched >> join.dt[c] & 1)
    _, first, inverse = np.unique(_column_ids(signature), return_index=True, return_inverse=True)
    allowed = np.ones((len(first), n), dtype=bool)
    for c in gated:
        bit, ok = join.gates[c]
        needed = (p.needs[first] >> bit & 1)[:, None].astype(bool) | (ways.needs >> bit & 1)[None, :].astype(bool)
        allowed &= ~needed | ok[_closing_index(join, c, p, ways, flags, first, None)]
    return allowed[inverse.reshape(-1)]


#: the most entries of one run's table (:class:`_Runs`): the recipients whose tables' product is at most this are
#: read with one lookup
RUN_CELLS = 1 << 12


class _Runs:
    """The recipients of a :class:`BlockScorer` in runs (consecutive, the product of their (touched, total) ranges
    at most :data:`RUN_CELLS`, or one recipient alone): each row's index into a run's table is the recipients'
    indexes in mixed radix, and a run's table is the sum of its recipients' (:meth:`combine`), so that a row's
    number is one lookup per run instead of one per recipient."""

    def __init__(self, base: BlockScorer):
        self.base = base
        self.widths = [w * (2 if dt else 1) for w, dt in zip(base._width, base._dt_cols)]
        self.runs: list[list[int]] = []
        size = 0
        for c, w in enumerate(self.widths):
            if self.runs and size * w <= RUN_CELLS:
                self.runs[-1].append(c)
                size *= w
            else:
                self.runs.append([c])
                size = w

    def combine(self, tables: list[np.ndarray]) -> list[np.ndarray]:
        """Per run, its table: the sum of its recipients' ``tables`` at each index."""
        out = []
        for run in self.runs:
            table = np.zeros(1, dtype=np.int64)
            for c in run:
                table = (table[:, None] + tables[c][None, :]).reshape(-1)
            out.append(table)
        return out

    def index(self, block: np.ndarray) -> list[np.ndarray]:
        """Per run, each row's index into its table (the block's columns read one at a time)."""
        base = self.base
        columns = np.ascontiguousarray(block.T)
        out = []
        for run in self.runs:
            at = None
            for c in run:
                ks, dt = base._cols[c], base._dt_cols[c]
                x = columns[ks[0]].astype(np.int32)
                for k in ks[1:]:
                    x += columns[k]
                if dt:  # (touched, total): a deathtouch source assigns it some
                    touched = columns[dt[0]] > 0
                    for k in dt[1:]:
                        touched |= columns[k] > 0
                    x += touched * np.int32(base._width[c])
                if at is None:
                    at = x
                else:
                    at *= np.int32(self.widths[c])
                    at += x
            assert at is not None
            out.append(at)
        return out


@dataclass(frozen=True)
class _Packing:
    """Each row's state number (:func:`_effect_ids`) and first-step values on some objectives as one int64: the
    state times ``span``, plus ``span`` - 1 less the values read as one number in mixed radix (lexicographically,
    each objective's range from its terms' least and most), so that among the rows of one state the least number
    is the best row. It is ``offset`` plus, per recipient, ``tables[c]`` at the row's (touched, total)."""

    tables: list
    offset: int
    span: int

    def read(self, tables: list, index: list, rows: int) -> np.ndarray:
        """The numbers of ``rows`` rows (``tables``: :meth:`_Runs.combine` of ours; ``index``: per run, each row's
        index, :meth:`_Runs.index`)."""
        out = np.full(rows, self.offset, dtype=np.int64)
        for table, at in zip(tables, index):
            out += table.take(at)
        return out


def _packing(base: BlockScorer, lethal_caps: list, radix: tuple, keyed: BlockScorer | None) -> _Packing | None:
    """The :class:`_Packing` of the state numbers (``radix``: :func:`_effect_radix` of ``lethal_caps``) and
    ``keyed``'s objectives (None: no objective), or None when a term is not tabulated or the numbers do not fit."""
    parts = _packing_parts(base, lethal_caps, radix, keyed)
    if parts is None:
        return None
    return _Packing([s * parts.span - v for s, v in zip(parts.states, parts.values)], parts.offset, parts.span)


@dataclass(frozen=True)
class _Parts:
    """A :class:`_Packing` in its two parts, per recipient at each (touched, total): ``states``, its share of the
    state number; ``values``, its share of the objectives' values read as one number (larger better). A row's
    number is ``offset`` + ``span`` x its states' sum - its values' sum."""

    states: list
    values: list
    offset: int
    span: int


def _packing_parts(base: BlockScorer, lethal_caps: list, radix: tuple, keyed: BlockScorer | None) -> _Parts | None:
    """The parts of :func:`_packing` (None when it is None)."""
    weights, total = radix
    n = len(base.recipients)
    read = [] if keyed is None else [keyed.term_table(c) for c in range(n)]
    terms = [t for t in read if t is not None]
    span, offset, mixed = 1, 0, None
    if keyed is not None and keyed.objectives:
        if len(terms) != len(read):
            return None
        const = [int(v) for v in keyed.const]
        lo = [c + sum(int(t[j].min()) for t in terms) for j, c in enumerate(const)]
        hi = [c + sum(int(t[j].max()) for t in terms) for j, c in enumerate(const)]
        spans = [h - low + 1 for h, low in zip(hi, lo)]
        mix = [1] * len(spans)
        for j in range(len(spans) - 2, -1, -1):
            mix[j] = mix[j + 1] * spans[j + 1]
        span = mix[0] * spans[0]
        if total * span >= 1 << 62:
            return None
        offset = span - 1 - sum((c - low) * m for c, low, m in zip(const, lo, mix))
        mixed = np.array(mix, dtype=np.int64)
    states, values, k = [], [], 0
    empty = np.zeros((1, len(base.defs.plan.columns)), dtype=np.int64)
    for c, cap in enumerate(lethal_caps):
        width = base.most[c] + 1
        flagged = base.touched(empty, c) is not None
        at = np.tile(np.arange(width, dtype=np.int64), 2 if flagged else 1)
        part = (at if cap is None else np.minimum(at, cap)) * int(weights[k])
        k += 1
        if flagged:
            part = part + np.repeat(np.arange(2, dtype=np.int64), width) * int(weights[k])
            k += 1
        states.append(part)
        values.append(np.zeros_like(part) if mixed is None else mixed @ terms[c])
    return _Parts(states, values, offset, span)


def _sorted_states(numbers: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows sorted by (number, row), where each state's (``numbers // span``) run starts in that order, and the
    state of each run."""
    n = len(numbers)
    if not n:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    if (int(numbers.max()) + 1) * n < 1 << 62:  # (number, row) as one number: one plain sort
        packed = numbers * n + np.arange(n, dtype=np.int64)
        packed.sort()
        at, state = packed % n, packed // n // span
    else:
        at = np.argsort(numbers, kind="stable")
        state = numbers[at] // span
    heads = np.ones(n, dtype=bool)
    heads[1:] = state[1:] != state[:-1]
    starts = np.flatnonzero(heads)
    return at, starts, state[starts]


def _least_of(numbers: np.ndarray, span: int) -> np.ndarray:
    """Per distinct ``numbers // span`` (a state), the index of the least number (ties: the first), ascending."""
    if not len(numbers):
        return np.zeros(0, dtype=np.int64)
    at, starts, _ = _sorted_states(numbers, span)
    return np.sort(at[starts])


def _reads_excess(o, lethal_caps: list, recipients: list) -> bool:
    """Does objective ``o``'s first-step value read a creature's damage past what is lethal to it (``min-overkill``,
    ``max-damage`` on a creature: :func:`_effect_caps`)? Every other objective is the same for the same state."""
    creatures = {r for r, cap in zip(recipients, lethal_caps) if cap is not None}
    return o.kind == ObjectiveKind.MIN_OVERKILL or (o.target is not None and o.target in creatures)


#: the most effects :func:`_effect_table` marks in a table of every effect's number (one byte each); past it, the
#: first of each effect is found by sorting every block's
SEEN_CELLS = 1 << 25


def _effect_radix(scorer: BlockScorer, caps: list) -> tuple[np.ndarray, int] | None:
    """The weights that read a row of :func:`_effect_rows` as one number in mixed radix (each number's range: 0 to
    its cap, or to the most its recipient can be assigned; a deathtouch flag 0 or 1) and how many numbers there
    are, or None when they do not fit in 62 bits (or a cap is negative)."""
    if any(cap is not None and cap < 0 for cap in caps):
        return None
    empty = np.zeros((1, len(scorer.defs.plan.columns)), dtype=np.int64)
    spans: list[int] = []
    for c, cap in enumerate(caps):
        spans.append((scorer.most[c] if cap is None else min(cap, scorer.most[c])) + 1)
        if scorer.touched(empty, c) is not None:
            spans.append(2)
    total = math.prod(spans)
    if total >= 1 << 62:
        return None
    weights = np.ones(len(spans), dtype=np.int64)
    for k in range(len(spans) - 2, -1, -1):
        weights[k] = weights[k + 1] * spans[k + 1]
    return weights, total


def _effect_ids(
    scorer: BlockScorer, caps: list, weights: np.ndarray, block: np.ndarray, totals: list | None = None
) -> np.ndarray:
    """Per row of the block, its effect (:func:`_effect_rows`) read as one number with ``weights`` (``totals``: the
    recipients' totals, when already read)."""
    ids = np.zeros(len(block), dtype=np.int64)
    k = 0
    for c, cap in enumerate(caps):
        x = (scorer.total(block, c) if totals is None else totals[c]).astype(np.int64)
        ids += (x if cap is None else np.minimum(x, cap)) * weights[k]
        k += 1
        t = scorer.touched(block, c)
        if t is not None:
            ids += t.astype(np.int64) * weights[k]
            k += 1
    return ids


def _row_ids(keys: np.ndarray) -> np.ndarray:
    """One int64 per row, the same for equal rows only: the row read as a number in mixed radix when its columns'
    ranges fit in 62 bits, otherwise the row's rank among the distinct rows."""
    if keys.shape[1] == 0 or len(keys) == 0:
        return np.zeros(len(keys), dtype=np.int64)
    low = keys.min(axis=0)
    spans = (keys.max(axis=0) - low + 1).tolist()
    total = 1
    for span in spans:
        total *= int(span)
    if total >= 1 << 62:
        _, inverse = np.unique(keys, axis=0, return_inverse=True)
        return inverse.reshape(-1).astype(np.int64)
    ids = np.zeros(len(keys), dtype=np.int64)
    weight = 1
    for c in range(len(spans) - 1, -1, -1):  # column by column (numpy's integer matrix product has no BLAS)
        ids += (keys[:, c].astype(np.int64) - int(low[c])) * weight
        weight *= int(spans[c])
    return ids


def _first_rows(keys: np.ndarray) -> np.ndarray:
    """The index of the first row of each distinct row of ``keys``, ascending."""
    _, first = np.unique(_row_ids(keys), return_index=True)  # a stable sort: the first occurrence
    return np.sort(first)


def _best_of_each(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per distinct row of ``keys``, the index of the row whose ``values`` are lexicographically largest (ties: the
    first), ascending."""
    return _best_of_ids(_row_ids(keys), values)


def _best_of_ids(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per distinct number of ``ids``, the index of the row whose ``values`` are lexicographically largest (ties:
    the first), ascending."""
    n = len(ids)
    key = _row_ids(values) if values.shape[1] else np.zeros(n, dtype=np.int64)  # larger: better
    if not n:
        return np.zeros(0, dtype=np.int64)
    span = int(key.max()) + 1
    if (int(ids.max()) + 1) * span * n < 1 << 62:  # (id, best first, row) as one number: one plain sort
        packed = (ids * span + (span - 1 - key)) * n + np.arange(n, dtype=np.int64)
        packed.sort()
        group = packed // (span * n)
        heads = np.ones(n, dtype=bool)
        heads[1:] = group[1:] != group[:-1]
        best = packed[heads] % n
    else:
        order = np.lexsort((np.arange(n), -key, ids))
        heads = np.ones(n, dtype=bool)
        heads[1:] = ids[order][1:] != ids[order][:-1]
        best = order[heads]
    ascending = np.zeros(n, dtype=bool)  # by marking, not sorting
    ascending[best] = True
    return np.flatnonzero(ascending)


def _bests_of_ids(ids: np.ndarray, values: np.ndarray) -> list[np.ndarray]:
    """Per column of ``values``, what :func:`_best_of_ids` gives with that column alone, in the order of the ids
    instead of ascending (per distinct number of ``ids``, the index of the row whose value there is largest, ties
    the first), from one sort of the rows by (id, index) shared by the columns: per column, each run's largest
    value (``np.maximum.reduceat``) and the run's first row holding it. :func:`_joined_rows` asks it of two columns
    (the probe's first row and the list's best) at every source: one sort instead of two."""
    n = len(ids)
    if not n:
        return [np.zeros(0, dtype=np.int64) for _ in range(values.shape[1])]
    if (int(ids.max()) + 1) * n < 1 << 62:
        packed = ids * n + np.arange(n, dtype=np.int64)
        packed.sort()
        order = packed % n
        runs = packed // n
    else:
        order = np.argsort(ids, kind="stable")
        runs = ids[order]
    head = np.ones(n, dtype=bool)
    head[1:] = runs[1:] != runs[:-1]
    starts = np.flatnonzero(head)
    run_of = np.cumsum(head) - 1
    out = []
    for k in range(values.shape[1]):
        column = values[order, k]
        top = np.maximum.reduceat(column, starts)
        at = np.flatnonzero(column == top[run_of])
        first = np.ones(len(at), dtype=bool)
        first[1:] = run_of[at[1:]] != run_of[at[:-1]]
        out.append(order[at[first]])
    return out


class _FrontSearch:
    """The search of one group best bound first (on the boards :func:`_plain_first_step` accepts, trample over
    planeswalkers allowed, whose first step ends no one's game or where :func:`_ended` tells which do): the
    candidates in the order of their bounds as vectors (:func:`_lex_bounds`, at most the ceiling: largest first,
    then their vectors' order, :func:`_vector_ranks`), stopping at the first whose bound is below the best value
    found (or equal to it, with a larger vector: ties go to the smaller vector), since every candidate after
    it is bounded no higher. Before it is searched, a candidate is also skipped when a candidate it is dominated by
    (:func:`_monotone_prefix`: the other deals at least as much to every recipient, a creature's capped at lethal)
    was searched and held to below the best on the monotone prefix (the dominated one's value there is at most
    its dominator's, reply by reply), or to at most the best there while the candidate's own bounds on the
    objectives after the prefix (:func:`_own_bounds`: each column holds alone) do not beat the best's."""

    def __init__(self, problem: _Problem, regular: _Regular, table: _Table, replies, prefix: int):
        self.problem, self.regular, self.table, self.replies = problem, regular, table, replies
        self.prefix = prefix
        #: per objective, an upper bound of each candidate's value over the combat, oriented and scaled as
        #: ``table.first`` (None: unbounded; :func:`_own_bounds`); the suffix: those after the prefix
        needs = _with_losses(problem, _blocker_needs(problem, table), replies)
        outcomes = _outcomes(replies)
        per = _bounds_read(problem, table, outcomes, needs)
        #: the same as one vector (:func:`_lex_bounds`), at most the ceiling
        self.lex = self._clipped(_lex_bounds(problem, table, replies, per))
        self.suffix: list = []  # read only when a prefix is followed by more objectives
        if prefix and prefix < len(problem.objs):
            problem.deadline.check()
            self.suffix = _own_bounds(problem, table, replies, needs, prefix)
        self.keys = table.capped
        self.order = list(range(len(replies)))
        self.best: Line | None = None
        self.best_index = -1
        #: each row's place in the order of the vectors (the tie-break): the table's own order unless the engine's
        #: listing is not lexicographic over the plan's columns (components whose columns interleave)
        self.rank = _vector_ranks(table.vectors)
        self.bounds: list[tuple[int, tuple]] = []  # (candidate index, an upper bound of its value)
        self.low: list[int] = []  # searched; the bound's prefix below the best's
        self.at_most: list[int] = []  # searched; the bound's prefix at most the best's

    def _clipped(self, lex: list[np.ndarray | None]) -> list[np.ndarray | None]:
        """The bounds with every row at least the ceiling (lexicographically) lowered to it: no value is above it."""
        ceiling = self.problem.ceiling
        if ceiling is None or len(ceiling) != len(lex) or any(c is None for c in lex) or not len(self.table):
            return lex
        top = [math.floor(Fraction(v) * k) for v, k in zip(ceiling, self.table.scales)]
        above = np.ones(len(self.table), dtype=bool)  # at least the ceiling so far
        same = np.ones(len(self.table), dtype=bool)
        for column, c in zip(lex, top):
            assert column is not None
            above &= ~(same & (column < c))
            same &= column == c
        return [np.asarray(np.where(above, c, column)) for column, c in zip(lex, top)]

    def run(self) -> tuple[Line | None, bool]:
        width = next((k for k, c in enumerate(self.lex) if c is None), len(self.lex))
        columns = [c for c in self.lex[:width] if c is not None]
        order = np.lexsort((self.rank, *(-c for c in reversed(columns))))
        for i in order.tolist():
            if self.best is not None:
                if self._beyond(i):
                    break  # every candidate after it is bounded no higher, or as high with a larger vector
                if self._dominated(i):
                    continue
            if self._visit(i):
                return self.best, True
        return self.best, False

    def _beyond(self, i: int) -> bool:
        """Does candidate ``i``'s vector bound keep it from beating the best?"""
        own = self._rest(np.array([i]), self.lex, 0)[0]
        return bool(own < 0 or (own == 0 and self.rank[i] > self.rank[self.best_index]))

    def _dominated(self, i: int) -> bool:
        """Is candidate ``i`` dominated by a searched candidate that keeps it from beating the best?"""
        row = self.keys[i : i + 1]
        if self.low and _dominated(row, self.keys[self.low])[0]:
            return True
        if not (self.prefix and self.at_most):
            return False
        rest = self._rest(np.array([i]), self.suffix, self.prefix)[0]
        tie = rest < 0 or (rest == 0 and self.rank[i] > self.rank[self.best_index])  # cannot beat the best's
        return bool(tie and _dominated(row, self.keys[self.at_most])[0])

    def _rest(self, idx: np.ndarray, columns: list, start: int) -> np.ndarray:
        """Per candidate index, -1, 0 or 1: its bounds ``columns`` on the objectives from ``start`` on compared
        lexicographically with the best's values there (an objective without a bound: 1 from it on)."""
        assert self.best is not None
        out = np.zeros(len(idx), dtype=np.int64)
        open_ = np.ones(len(idx), dtype=bool)  # equal so far
        for k, (column, v) in enumerate(zip(columns, self.best.value[start:])):
            if column is None:
                out[open_] = 1
                break
            v = Fraction(v) * self.table.scales[start + k]
            bound = column[idx] * v.denominator
            out[open_ & (bound > v.numerator)] = 1
            out[open_ & (bound < v.numerator)] = -1
            open_ &= bound == v.numerator
        return out

    def _visit(self, i: int) -> bool:
        """Search candidate ``i``; True when time ran out (a candidate cut short by it is not a result)."""
        candidate = self.table.candidate(i)
        try:
            got = _against(self.problem, self.regular, candidate, self.replies, self.order, self.best)
        except LimitReached:  # e.g. inside a regular step's groups (_grouped_after): as _canonical_search does
            return True
        _reorder(self.order, got.rank)
        if got.bound is not None and self.prefix:
            self.bounds.append((i, got.bound[: self.prefix]))
        new_best = got.worst is not None and got.worst.beats(self.best)
        if new_best:
            self.best, self.best_index = got.worst, i
        if self.best is not None and (new_best or self.bounds and self.bounds[-1][0] == i):
            head = self.best.value[: self.prefix]
            self.low = [j for j, bound in self.bounds if bound < head]
            self.at_most = [j for j, bound in self.bounds if bound <= head]
        return got.stopped or self.problem.deadline.expired()


def _vector_ranks(vectors: np.ndarray) -> np.ndarray:
    """Each row's rank among ``vectors`` in lexicographic order (rows distinct: the table keeps one per state)."""
    n = len(vectors)
    ranks = np.arange(n, dtype=np.int64)
    if n < 2 or not vectors.shape[1]:
        return ranks
    diff = vectors[1:] - vectors[:-1]
    nonzero = diff != 0
    first = np.argmax(nonzero, axis=1)
    ascending = diff[np.arange(n - 1), first] > 0
    if bool(ascending.all()):  # already in order (the canonical listing): no sort
        return ranks
    order = np.lexsort(tuple(vectors[:, k] for k in range(vectors.shape[1] - 1, -1, -1)))
    ranks[order] = np.arange(n, dtype=np.int64)
    return ranks


def _own_bounds(
    problem: _Problem, table: _Table, replies: list[Reply], needs: tuple | None = None, start: int = 0
) -> list:
    """Per objective, an upper bound of each candidate's value over the combat whatever the reply, oriented and
    scaled as ``table.first`` (None: unbounded), read from the candidate's first step alone (the boards of
    :func:`_plain_first_step`, those that end the game read by :func:`_ended`), each column
    holding alone: :func:`_reply_bounds` after a reply that kills no one (every bound but ``min-overkill``'s is at
    least the same after any reply: fewer attackers deal less and reach fewer blockers), ``min-overkill``: the first
    step's overkill and :func:`_overkill_floor` (the least floor over the replies). ``needs``: as
    :func:`_reply_bounds`; ``start``: only the objectives from that one on (the list returned starts there)."""
    needs = _with_losses(problem, needs if needs is not None else _blocker_needs(problem, table), replies)
    out = _reply_bounds(problem, table, frozenset(), needs, start, every=True)
    for k, o in enumerate(problem.objs):
        if k >= start and o.kind == ObjectiveKind.MIN_OVERKILL:
            floors = [_overkill_after(problem, table, dead, needs[3]) for dead in _outcomes(replies)]
            out[k] = table.first[:, k] - np.min(floors, axis=0)
    return out[start:]


def _lex_bounds(problem: _Problem, table: _Table, replies: list[Reply], per: list | None = None) -> list:
    """Per candidate, an upper bound of its value over the combat as a vector (lexicographically; columns as
    :func:`_own_bounds`, None from the first unbounded objective on): the lexicographically least of
    :func:`_reply_bounds` over the replies' outcomes. The candidate's value is the least of its values after each
    reply (the defender picks), so at most its value after any one reply, which is at most that reply's bounds on
    every objective. Tighter than :func:`_own_bounds` (whose columns each hold alone) when the defender can always
    kill attackers, but only as a whole vector. ``per``: :func:`_reply_bounds` after some outcomes, when already
    read (the bound holds over any of them)."""
    if per is None:
        needs = _with_losses(problem, _blocker_needs(problem, table), replies)
        per = [_reply_bounds(problem, table, dead, needs) for dead in _outcomes(replies)]
    width = next((k for k, c in enumerate(per[0]) if c is None), len(per[0]))
    out: list[np.ndarray | None] = [c.copy() for c in per[0][:width]]
    for cols in per[1:]:
        less = np.zeros(len(table), dtype=bool)
        same = np.ones(len(table), dtype=bool)
        for k in range(width):
            less |= same & (cols[k] < out[k])
            same &= cols[k] == out[k]
        for k in range(width):
            out[k] = np.asarray(np.where(less, cols[k], out[k]))
    return out + [None] * (len(per[0]) - width)


def _bounds_read(problem: _Problem, table: _Table, outcomes: list[frozenset], needs: tuple) -> list:
    """:func:`_reply_bounds` after the ``outcomes`` :func:`_outcomes_read` reads (every one where a reply
    shrinks an attacker: after an outcome that kills fewer, the kills bound may be lower with that reply's
    counters), and with ``max-kills`` or ``max-value`` also after
    each of its replies whose first-striking infect or wither blockers shrink the attackers left differently
    (``drops``, :func:`_reply_losses`): the candidate's value is at most its value after any one reply, so the
    least of these vectors bounds it (:func:`_lex_bounds`). The replies of one outcome kill the same attackers but
    may put their -1/-1 counters on different ones (702.90c, 702.80b), and an attacker with less power pays fewer
    blockers' needs (``mixed_group(6, 13, shields=False)``: 3 counters of a first-striking infect blocker on a
    3-power attacker, one blocker fewer destroyed after that reply)."""
    kills = any(o.kind in (ObjectiveKind.MAX_KILLS, ObjectiveKind.MAX_VALUE) for o in problem.objs)
    losses = needs[3].get("reply losses", {}) if kills else {}
    shrinks = any(drops for held in losses.values() for drops, _ in held)
    per = []
    for dead in _timed(_outcomes_read(problem, outcomes, shrinks), problem.deadline):
        after = _reply_bounds(problem, table, dead, needs)
        per.append(after)
        seen: set[tuple] = set()
        for drops, _ in losses.get(dead, []):
            left = tuple(sorted((a, d) for a, d in drops.items() if a not in dead))
            if left and left not in seen:
                seen.add(left)
                per.append(_reply_bounds(problem, table, dead, needs, drops=dict(left), base=after))
    return per


def _outcomes_read(problem: _Problem, outcomes: list[frozenset], shrinks: bool = False) -> list[frozenset]:
    """The outcomes whose :func:`_reply_bounds` a candidate's vector bound (:func:`_lex_bounds`) is the least of.
    Any of them bounds the value (the defender picks the reply), so the least over more of them is only tighter,
    and costs a bound per outcome more. Without ``min-overkill`` the widest suffice (:func:`_widest`: after a reply
    that kills more no bound is higher); with it first, every outcome: its floor is highest after the replies that
    kill the fewest. After a prefix (``lethal,max-kills,min-overkill``), every outcome on boards with effects: an
    outcome that kills fewer attackers often ties the widest on the prefix and is lower on ``min-overkill``
    (``mixed_group(6, 4, shields=False)``: the wider outcome's floor 2, the narrower's 5, and 5 is what the
    candidate's line overkills); on the plain shapes it bounded nothing more where measured and cost a third more
    (``chained(6)``: 0.50 -> 0.76 s, the same 21 solves), so they keep the widest. ``shrinks``: the bounds read
    each reply's -1/-1 counters (:func:`_bounds_read`), which may leave an outcome that kills fewer attackers lower
    than a wider one: every outcome."""
    overkill = [k for k, o in enumerate(problem.objs) if o.kind == ObjectiveKind.MIN_OVERKILL]
    if shrinks or overkill[:1] == [0] or (overkill and problem.effects):
        return outcomes
    return _widest(outcomes)


def _widest(outcomes: list[frozenset]) -> list[frozenset]:
    """The outcomes no other kills more than (a strict superset of its attackers): after a reply that kills more,
    every bound of :func:`_reply_bounds` on ``max-damage``, ``lethal``, ``max-kills`` and ``max-value`` is at most
    the same (fewer attackers deal less and reach fewer blockers), and any reply's bounds bound the value."""
    return [d for d in outcomes if not any(d < other for other in outcomes)]


def _outcomes(replies: list[Reply]) -> list[frozenset]:
    """The replies' distinct outcomes as the attackers they kill (plain boards; the empty set when an outcome is
    not one, which every bound holds for: a reply only takes attackers away)."""
    got = {_deaths(r.outcome) for r in replies}
    if not got or None in got:
        return [frozenset()]
    return sorted((d for d in got if d is not None), key=sorted)


def _deaths(outcome: object) -> frozenset | None:
    """The attackers a reply's outcome takes out of combat: the outcome itself on plain boards, read off the state
    the reply alone leaves on boards with effects (:func:`_replies`); None for anything else."""
    if isinstance(outcome, frozenset):
        return outcome
    if isinstance(outcome, Scenario):
        return frozenset(a.id for a in outcome.attackers if not a.in_combat)
    return None


def _reply_bounds(
    problem: _Problem,
    table: _Table,
    dead: frozenset = frozenset(),
    needs: tuple | None = None,
    start: int = 0,
    every: bool = False,
    drops: Mapping[str, int] | None = None,
    base: list | None = None,
) -> list[np.ndarray | None]:
    """Per objective, an upper bound of each candidate's value over the combat after a reply that kills the
    attackers ``dead`` (the first step's damage is dealt at once, 510.2: they dealt theirs), oriented and scaled as
    ``table.first`` (None: unbounded): the first step's value plus the most the regular step can add with the
    attackers left. ``max-damage`` to players: the regular damage of the attackers left that can reach them;
    ``lethal``: the players whose life the first step's damage and that can reach; ``max-kills`` and
    ``max-value``: of the blockers still alive (not dealt lethal damage or deathtouch, 702.19b, 702.2c; not
    indestructible) that block an attacker left (nothing else assigns them damage, 510.1c), as many as the
    attackers' regular damage can pay for (:func:`_most_destroyed`: each at a value of at least 0)
    and, for value, every planeswalker the regular step can assign its loyalty left; ``min-overkill``: the first
    step's overkill and :func:`_overkill_after`. ``start``: the objectives before it are not read (None);
    ``every``: the bounds after any reply (``dead``: the attackers every reply kills; lethal then reads the life
    every reply's lifelink gains, :func:`_lethal_bounds`). ``drops``: the bounds after one reply of the outcome,
    whose first-striking infect or wither blockers took that much power off each attacker (702.90c, 702.80b; its
    :func:`_reply_losses`): read by the kills and value bounds (:func:`_group_needs`), the others hold after
    every reply of the outcome, that one too (``base``: those bounds after the outcome, taken as they are)."""
    s, objs = problem.scenario, problem.objs
    at = problem.layout()
    n = len(table)
    taken = partial(table.taken, at)

    worth = _walker_values(s, objs[start:])
    reads = bool(worth) or (
        base is None and any(o.kind in (ObjectiveKind.MAX_DAMAGE, ObjectiveKind.LETHAL) for o in objs[start:])
    )
    to = _regular_damage_bounds(problem, table, dead, needs, walkers=bool(worth)) if reads else {}
    memo = needs[3] if needs is not None else {}
    out: list[np.ndarray | None] = []
    for k, o in enumerate(objs):
        first, scale = table.first[:, k], table.scales[k]
        if k < start:
            out.append(None)
        elif base is not None and o.kind not in (ObjectiveKind.MAX_KILLS, ObjectiveKind.MAX_VALUE):
            out.append(base[k])
        elif o.kind == ObjectiveKind.MIN_OVERKILL:
            out.append(first - _overkill_after(problem, table, dead, memo, highest=True))
        elif o.kind == ObjectiveKind.MAX_KILLS:
            out.append(first + _most_destroyed(problem, table, dead, needs, drops=drops))
        elif o.kind == ObjectiveKind.MAX_VALUE:
            # a planeswalker is worth its value when assigned its loyalty (702.19c): the first step's damage to it
            # (less than its loyalty: it stays in combat) and the most the regular step can assign it
            walkers = sum(
                (
                    math.ceil(v * scale)
                    * ((taken(w.id) < w.loyalty) & (taken(w.id) + to.get(w.id, 0) >= w.loyalty)).astype(np.int64)
                    for w, v in worth
                ),
                np.zeros(n, dtype=np.int64),
            )
            out.append(first + _most_destroyed(problem, table, dead, needs, scale, drops) + walkers)
        elif o.kind == ObjectiveKind.MAX_DAMAGE and (o.target is None or s.kind(o.target) == ObjectKind.PLAYER):
            out.append(first + to.get(o.target, np.zeros(n, dtype=np.int64)))
        elif o.kind == ObjectiveKind.LETHAL:
            lost = [x.astype(np.int64) for x in _lethal_bounds(problem, table, dead, needs, to, memo, every)]
            out.append(sum(lost, np.zeros(n, dtype=np.int64)))
        else:
            out.append(None)
    ended = _ended(problem, table, memo)
    if ended is not None:  # 704.5a, 104.3b: no regular step after these: their first step's values (lethal: 1)
        for k, o in enumerate(objs):
            column = out[k]
            if column is not None:
                out[k] = np.where(ended, 1 if o.kind == ObjectiveKind.LETHAL else table.first[:, k], column)
    return out


def _lethal_bounds(
    problem: _Problem, table: _Table, dead: frozenset, needs: tuple | None, to: dict, memo: dict, every: bool = False
) -> list[np.ndarray]:
    """Per player, per candidate: can the combat make them lose after a reply that kills the attackers ``dead``
    (704.5a, 704.5c, 704.6c)? By life when the first step's damage to them and the most the regular step can assign
    them (``to``: :func:`_regular_damage_bounds`, at most :func:`_through_walkers`) reach their life. Where some
    attacker's damage can make a player lose otherwise (:func:`_other_losses`: infect, toxic, a commander), infect
    damage is read apart (702.90b: to a player it gives poison counters and leaves their life as it was): the life
    is reached by the first step's damage from the sources without infect (:func:`_life_taken`) and the most the
    regular step's attackers without infect can assign, and the poison by :func:`_may_lose_otherwise` with the
    infect attackers' most. The life to reach is raised by the least any of the outcome's replies gains them
    (``memo``'s ``"reply losses"``, :func:`_reply_losses`; 702.15b: a first-striking lifelink blocker's gain, which
    no first-step assignment of the attacker changes), of every reply with ``every`` (the bound after any reply)."""
    s, n = problem.scenario, len(table)
    other = _other_losses(problem)
    zeros = np.zeros(n, dtype=np.int64)
    bound = partial(_through_walkers, problem, table, dead, needs, memo)
    out = []
    losses = memo.get("reply losses", {})
    read = [x for held in losses.values() for x in held] if every else losses.get(dead, [])
    for p in s.players:
        gain = min((g.get(p.id, 0) for _, g in read), default=0)
        if p.id not in other:
            out.append(table.taken(problem.layout(), p.id) + bound(p.id, to.get(p.id, zeros), None) >= p.life + gain)
            continue
        if any(a.has(Keyword.INFECT) for a in s.attackers):
            life = bound(p.id, None, lambda a: not a.has(Keyword.INFECT))
            infected = bound(p.id, None, lambda a: a.has(Keyword.INFECT))
        else:
            life = infected = bound(p.id, to.get(p.id, zeros), None)
        by_life = _life_taken(problem, table, p.id) + life >= p.life + gain
        out.append(by_life | _may_lose_otherwise(problem, table, p, dead, to.get(p.id, zeros), infected, memo))
    return out


def _through_walkers(
    problem: _Problem, table: _Table, dead: frozenset, needs: tuple | None, memo: dict, player: str, to, keep
) -> np.ndarray:
    """Per candidate, the most the regular step's attackers left (those ``keep`` keeps; ``to``: that most, when
    read) can assign ``player``, the planeswalkers' loyalty read: an attacker trampling over a planeswalker
    (702.19c) assigns its controller only what is past the loyalty left after every attacker's damage to it
    (510.1e), and everything the attackers attacking it put past their blockers goes to it or to its controller
    (:func:`_regular_damage_bounds` with the planeswalker as target: all of them, every group). So the player gets at
    most what the kept attackers attacking them put through, plus per such planeswalker that less its loyalty
    left after the first step (none when it left combat, 704.5i), and at most ``to``."""
    s = problem.scenario
    if to is None:
        to = _regular_damage_bounds(problem, table, dead, needs, keep=keep).get(player, 0)
    walkers = {
        a.attacking
        for a in s.attackers
        if a.id not in dead and a.has(Keyword.TRAMPLE_OVER_PLANESWALKERS) and (keep is None or keep(a))
        and s.kind(a.attacking) == ObjectKind.PLANESWALKER and s.controller_of(a.attacking) == player
    }  # fmt: skip
    if not walkers:
        return to
    if ("walkers", dead) not in memo:
        memo["walkers", dead] = _regular_damage_bounds(problem, table, dead, needs, walkers=True)
    through = memo["walkers", dead]

    def direct(a) -> bool:
        return a.attacking == player and (keep is None or keep(a))

    most = _regular_damage_bounds(problem, table, dead, needs, keep=direct).get(player, 0)
    at = problem.layout()
    for w in s.planeswalkers:
        if w.id in walkers:
            left = np.maximum(0, w.loyalty - table.taken(at, w.id)) if w.in_combat else 0
            most = most + np.maximum(0, through.get(w.id, 0) - left)
    return np.minimum(to, most)


def _may_lose_otherwise(
    problem: _Problem, table: _Table, player, dead: frozenset, to_player: np.ndarray, infected: np.ndarray, memo: dict
) -> np.ndarray:
    """Per candidate, can the combat make ``player`` lose otherwise than by life (704.5c, 704.6c) after a reply that
    kills the attackers ``dead``? At most: the poison and commander damage they have, the candidate's first step's
    (:func:`_first_losses`: its damage dealt, :meth:`_Table.received`), and the regular step's
    most: infect damage (702.90b) at most what the regular step's infect attackers can assign them (``infected``,
    :func:`_regular_damage_bounds`) and at most those attackers' damage, every toxic
    attacker's counters (702.164c), each commander's damage at most its own and ``to_player`` (903.10a), read by
    every way to lose but life of :data:`LOSS_CONDITIONS` once per distinct row of those numbers."""
    s = problem.scenario
    poison, commanders = _first_losses(problem, table, player, memo)
    most = {src.source: src.max_damage for src in problem.regular_plan().sources}
    infect, toxic, regular = 0, 0, dict(commanders)
    for a in s.attackers:
        if a.id in dead or most.get(a.id, 0) <= 0 or player.id not in _aims(s, a, {ObjectKind.PLAYER}):
            continue
        infect += most[a.id] if a.has(Keyword.INFECT) else 0
        toxic += a.toxic or 0
        if a.commander is not None:
            regular[a.id] = regular.get(a.id, 0) + np.minimum(to_player, most[a.id])
    return _lost_by_counts(player, poison + toxic + np.minimum(infected, infect), regular, len(table))


def _lost_by_counts(player, poison: np.ndarray, commanders: dict, n: int) -> np.ndarray:
    """Per candidate (``n`` of them), does ``player`` lose otherwise than by life (704.5c, 704.6c) with ``poison``
    counters and each commander's damage in ``commanders`` added to what they had (903.10a)? Read by every way to
    lose but life of :data:`LOSS_CONDITIONS`, once per distinct row of those numbers."""
    names = sorted(commanders)
    had = dict(player.commander_damage)
    columns = np.stack([poison, *(np.broadcast_to(commanders[c] + had.get(c, 0), (n,)) for c in names)], axis=1)
    results, back = np.unique(columns, axis=0, return_inverse=True)
    others = [c for c in _outcome.LOSS_CONDITIONS if c.name != LossReason.LIFE]
    lost = np.zeros(len(results), dtype=bool)
    for k, row in enumerate(results.tolist()):
        given = {**had, **dict(zip(names, row[1:]))}
        worst = replace(player, poison=row[0], commander_damage=tuple(sorted(given.items())))
        lost[k] = bool(_outcome.losses(worst, others))
    return lost[back.reshape(-1)]


def _first_losses(problem: _Problem, table: _Table, player, memo: dict) -> tuple[np.ndarray, dict]:
    """Per candidate, the poison ``player`` has after its first step (702.90b, 702.164c) and each commander's first-step
    damage to them (903.10a), read from its vector (kept in ``memo``)."""
    key = ("first losses", player.id)
    if key not in memo:
        s, plan = problem.scenario, table.plan
        poison = np.full(len(table), player.poison, dtype=np.int64)
        commanders: dict[str, np.ndarray] = {}
        for j, (i, r) in enumerate(plan.columns):
            if r != player.id:
                continue
            a = s.attacker(plan.sources[i].source)
            dealt = table.received()[:, j].astype(np.int64)  # (a shield's part prevented, 615.7)
            if a.has(Keyword.INFECT):
                poison += dealt
            if a.toxic:
                poison += np.where(dealt > 0, a.toxic, 0)
            if a.commander is not None:
                commanders[a.id] = commanders.get(a.id, np.zeros(len(table), dtype=np.int64)) + dealt
        memo[key] = poison, commanders
    return memo[key]


def _most_destroyed(
    problem: _Problem,
    table: _Table,
    dead: frozenset,
    needs: tuple | None,
    scale: int | None = None,
    drops: Mapping[str, int] | None = None,
) -> np.ndarray:
    """Per candidate, the most blockers the regular step can destroy after a reply that kills the attackers
    ``dead`` (``scale``: the most value of those, scaled by it, each at least 0): per group of the attackers left
    sharing blockers (:func:`_group_needs`), :func:`_group_most`. Damage dealt is at most damage assigned (a
    prevention shield left only stops some, 615.7), so the needs are at most what the kills cost. Computed once per
    distinct row of the blockers' needs (``needs``: :func:`_blocker_needs`, when already read). ``drops``: the
    power one reply took off each attacker (:func:`_group_needs`)."""
    row, left, inverse, _, _ = needs if needs is not None else _blocker_needs(problem, table)
    blockers = {b.id: b for b in problem.scenario.blockers}
    total = np.zeros(left.shape[1], dtype=np.int64)
    for group in _group_needs(problem, dead, row, left, drops):
        if scale is None:
            total += _group_most(group)
            continue
        worth = [math.ceil(max(Fraction(0), exact(blockers[b].value)) * scale) for b in group.ids]
        total += _group_most(group, np.array(worth, dtype=np.int64))
    return total[inverse]


#: :func:`_group_needs`' need of a blocker already dead: more than any group's damage, so never paid for
_PAID = 1 << 40


@dataclass
class _GroupNeeds:
    """One group's blockers the regular step could destroy (:func:`_group_needs`)."""

    ids: list
    #: per blocker (row) and distinct row of the needs (column), its need left (:data:`_PAID`: already dead)
    need: np.ndarray
    #: per blocker, the bits of the group's attackers that can pay its need (510.1c: those it blocks)
    payers: list[int]
    #: per attacker of the group (its bit), its regular damage
    damage: list[int]


def _group_needs(
    problem: _Problem, dead: frozenset, row: dict, left: np.ndarray, drops: Mapping[str, int] | None = None
) -> Iterator[_GroupNeeds]:
    """Per group of the attackers left after a reply that kills the attackers ``dead``, sharing blockers (510.1c:
    only the attackers a blocker blocks can assign it damage): its blockers the regular step could destroy (not
    indestructible, 702.12b), the need of each left after the first step per distinct row of ``left``
    (:func:`_blocker_needs`; lethal damage left, 702.19b; 1 with a deathtouch attacker blocked by it that deals
    damage, 702.2c; -1/-1 counters kill at the same amounts, 704.5f), who can pay it and the attackers' regular
    damage. An indestructible blocker that an infect or wither attacker of the group blocks is one of them, at the
    counters that bring its toughness to 0 (704.5f: its ``("kill", id)`` row; each counter is a point of such an
    attacker's damage, 702.90c, 702.80b: only they pay it). Groups without such blockers are left out.
    ``drops``: after a reply whose first-striking infect or wither blockers put that many -1/-1 counters' worth of
    power off each attacker (702.90c, 702.80b; :func:`_reply_losses` reads it off the state the reply leaves): the
    attacker's regular damage is its combat damage on that state (510.1a), so at most its power there."""
    s = problem.scenario
    most = {src.source: src.max_damage for src in problem.regular_plan().sources}
    for a in s.attackers:
        if drops and a.id in drops and a.id in most:  # its damage on the state the reply leaves
            most[a.id] = max(0, min(most[a.id], a.combat_damage - drops[a.id]))
    living = [i for i, a in enumerate(s.attackers) if a.id not in dead]
    killable = {b.id for b in s.blockers if b.in_combat and not b.has(Keyword.INDESTRUCTIBLE)}
    for members in linked_groups(living, lambda i: s.attackers[i].blocked_by):
        group = [s.attackers[i] for i in members]
        names = sorted({b for a in group for b in a.blocked_by if b in row and b in killable})
        countered = sorted(
            {b for a in group if any(a.has(k) for k in _COUNTERS) for b in a.blocked_by if ("kill", b) in row}
        )
        if not names and not countered:
            continue
        damage = [most.get(a.id, 0) for a in group]
        bits = [1 << k if damage[k] else 0 for k in range(len(group))]  # only attackers dealing damage pay
        counting = [bits[k] if any(a.has(c) for c in _COUNTERS) else 0 for k, a in enumerate(group)]
        payers = [sum(bits[k] for k, a in enumerate(group) if b in a.blocked_by) for b in names]
        payers += [sum(counting[k] for k, a in enumerate(group) if b in a.blocked_by) for b in countered]
        touch = sum(1 << k for k, a in enumerate(group) if a.has(Keyword.DEATHTOUCH))
        need = left[[row[b] for b in names]].astype(np.int64)
        for j, (b, mask) in enumerate(zip(names, payers)):
            if mask & touch:
                need[j] = np.minimum(need[j], 1)
            if ("shield", b) in row:  # 615.7: its regular damage dealt is what is assigned past the shield left
                need[j] = np.where(need[j] > 0, need[j] + left[row["shield", b]], 0)
        need = np.concatenate([need, left[[row["kill", b] for b in countered]].astype(np.int64)])
        yield _GroupNeeds([*names, *countered], np.where(need > 0, need, _PAID), payers, damage)


def _group_most(group: _GroupNeeds, worth: np.ndarray | None = None, distinct: bool = False) -> np.ndarray:
    """Per column, at most how many of ``group``'s blockers the regular step can destroy (``worth``: at most the
    value of those it destroys, per blocker). Any set it destroys is paid out of the group's damage, so it has at
    most k of the blockers, k as many as that damage pays the needs of, smallest first; and for every set T of the
    attackers, the blockers only T can pay (B: 510.1c) are paid out of T's damage alone, so at most as many of B
    as T's damage pays, plus at most as many of the rest as the group's damage pays. Worth: the k most valuable of
    the blockers alive (at least 0 each), in B and in the rest. Read once per distinct column (``distinct``: the
    columns are)."""
    need = group.need
    if not distinct:
        ids = _row_ids(np.where(need < _PAID, need, 0).T)
        _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
        if len(first) < need.shape[1]:
            return _group_most(replace(group, need=need[:, first]), worth, True)[inverse.reshape(-1)]
    everyone = list(range(len(group.payers)))
    total = sum(group.damage)
    best = _most_of(need, worth, everyone, total)
    # per blocker, its most need over the columns: where T's damage pays all of B's in every column, T bounds
    # the kills no lower than the whole group's damage does, and is not read
    most = np.where(need < _PAID, need, 0).max(axis=1, initial=0).tolist()
    seen: set[int] = set()
    for t in range(1, (1 << len(group.damage)) - 1):
        inside = [j for j in everyone if not group.payers[j] & ~t]
        paying = 0
        for j in inside:
            paying |= group.payers[j]
        if not inside or paying in seen:
            continue
        seen.add(paying)  # the least T with those blockers: its damage is the least
        dealt = sum(d for k, d in enumerate(group.damage) if paying >> k & 1)
        if dealt >= sum(most[j] for j in inside):
            continue
        outside = [j for j in everyone if group.payers[j] & ~paying]
        np.minimum(best, _most_of(need, worth, inside, dealt) + _most_of(need, worth, outside, total), out=best)
    return best


def _most_of(need: np.ndarray, worth: np.ndarray | None, rows: list[int], damage: int) -> np.ndarray:
    """Per column of ``need`` (one row per blocker, :data:`_PAID` for one already dead), how many of the blockers
    ``rows`` ``damage`` pays, smallest first (``worth``: the most value of as many of those alive, a value per
    blocker: the first so many alive in the order of their values)."""
    if not rows:
        return np.zeros(need.shape[1], dtype=np.int64)
    paid = _paid(need[rows], damage)
    if worth is None:
        return paid
    order = [rows[k] for k in np.argsort(-worth[rows], kind="stable").tolist()]
    alive = need[order] < _PAID
    counted = alive & (np.cumsum(alive, axis=0) <= paid)
    return (counted * worth[order][:, None]).sum(axis=0)


def _paid(need: np.ndarray, damage: int) -> np.ndarray:
    """Per column of ``need`` (one row per blocker), how many of the blockers ``damage`` pays, smallest first."""
    if not len(need):
        return np.zeros(need.shape[1], dtype=np.int64)
    return (np.cumsum(np.sort(need, axis=0), axis=0) <= damage).sum(axis=0)


def _walker_values(s: Scenario, objs: tuple) -> list:
    """The planeswalkers in combat with a value above 0, with it, when ``objs`` has ``max-value``."""
    if not any(o.kind == ObjectiveKind.MAX_VALUE for o in objs):
        return []
    return [(w, exact(w.value)) for w in s.planeswalkers if w.in_combat and exact(w.value) > 0]


#: a group with more attackers that can reach a player than this is bounded by their damage alone (the subsets of
#: those attackers are tried one by one)
_SUBSETS = 8


def _blocker_needs(problem: _Problem, table: _Table) -> tuple[dict[Any, int], np.ndarray, np.ndarray, dict, dict]:
    """What each blocker still needs to be dealt lethal damage after each candidate (its lethal need less the
    candidate's damage to it, 702.19b; 0 when it was destroyed, 702.2c, or is out of combat), over the distinct
    rows of those numbers: (blocker -> its row, the needs (blockers x distinct rows), each candidate's distinct
    row, a memo of what is read per candidate, and a memo of :func:`_most_through`'s answers by the attackers it
    was asked about, per distinct row: shared with the other searches of the board in one solve, when they met the
    same distinct rows, :class:`_Shared`). An indestructible blocker that an infect or wither attacker blocks
    (:func:`_countered_indestructible`) has a second row, under ``("kill", id)``: the -1/-1 counters that still
    bring its toughness to 0 (704.5f; 702.12b: damage alone never kills it), 0 when the first step's did."""
    s, n = problem.scenario, len(table)
    at = problem.layout()
    rows = []
    for b in s.blockers:
        need = np.maximum(0, lethal_need(b) - table.taken(at, b.id)) if b.in_combat else np.zeros(n, dtype=np.int64)
        if b.id in at and len(at[b.id]) > 1 and not b.has(Keyword.INDESTRUCTIBLE):
            need = np.where(table.capped[:, at[b.id][1]] > 0, 0, need)  # 702.2c: destroyed in the first step
        rows.append(need)
    index: dict[Any, int] = {b.id: k for k, b in enumerate(s.blockers)}
    plan = table.plan
    for b in _countered_indestructible(s):
        cols = [j for j, (i, r) in enumerate(plan.columns) if r == b.id and _counters_of(s, plan, i)]
        counters = table.received()[:, cols].astype(np.int64).sum(axis=1) if cols else np.zeros(n, dtype=np.int64)
        index["kill", b.id] = len(rows)
        rows.append(np.maximum(0, b.toughness - counters))
    for b in s.blockers:  # 615.7: what is left of a blocker's prevention shield after the first step
        cols = [j for j, (_, r) in enumerate(plan.columns) if r == b.id]
        if b.in_combat and s.receiving(b.id).prevent > 0 and (table.dealt is not None or not cols):
            prevented = (table.vectors[:, cols].astype(np.int64) - table.received()[:, cols]).sum(axis=1)
            index["shield", b.id] = len(rows)
            rows.append(np.maximum(0, s.receiving(b.id).prevent - prevented))
    needs = np.stack(rows) if rows else np.zeros((0, n), dtype=np.int64)
    _, first, inverse = np.unique(_row_ids(needs.T), return_index=True, return_inverse=True)
    left = needs[:, first]
    through: dict = {}
    if problem.shared is not None:
        for board, seen, memo in problem.shared.through:
            if board == s and seen.shape == left.shape and np.array_equal(seen, left):
                through = memo
                break
        else:
            problem.shared.through.append((s, left, through))
    return index, left, inverse.reshape(-1), {}, through


def _regular_damage_bounds(
    problem: _Problem,
    table: _Table,
    dead: frozenset = frozenset(),
    needs: tuple | None = None,
    walkers: bool = False,
    keep: Callable[[Any], bool] | None = None,
) -> dict[str | None, np.ndarray]:
    """Per player (None: the players together; with ``walkers`` also per planeswalker, which on these boards only
    the attackers attacking it can assign damage to: no trample over planeswalkers, 702.19c), per candidate, the
    most damage the regular step can assign them after a reply that kills the attackers ``dead``. Per group of the
    attackers left sharing blockers (510.1c), the attackers R that assign the player (or planeswalker) anything are
    unblocked or trample (702.19b), so every blocker of R is assigned lethal damage -- its need left after the
    candidate, 1 where a deathtouch attacker of the group that deals damage blocks it (702.2c) -- out of the
    group's damage; the player gets at most min(R's damage, the group's damage less those needs), at most over
    every R. Every attacker left is
    counted with its regular-step damage. Computed once per distinct row of the blockers' needs (``needs``:
    :func:`_blocker_needs`, when already read). ``keep``: only what the attackers it keeps assign them (the others'
    damage still pays the blockers' needs: it stays in the group's)."""
    s = problem.scenario
    plan = problem.regular_plan()
    most = {src.source: src.max_damage for src in plan.sources}
    # 510.1c: one that may assign as though unblocked reaches what it attacks whatever blocks it: counted as if
    # unblocked (its blockers' needs left out of what it puts through; they stay in its group's damage)
    free = {src.source for src in plan.sources if src.unblocked is not None and src.unblocked.damage > 0}
    row, left, inverse, _, memo = needs if needs is not None else _blocker_needs(problem, table)
    zeros = np.zeros(left.shape[1], dtype=np.int64)
    out: dict[str | None, np.ndarray] = {None: zeros.copy()}
    living = [i for i, a in enumerate(s.attackers) if a.id not in dead]
    players = {p.id for p in s.players}
    kinds = {ObjectKind.PLAYER, ObjectKind.PLANESWALKER} if walkers else {ObjectKind.PLAYER}
    for members in linked_groups(living, lambda i: s.attackers[i].blocked_by):
        group = [s.attackers[i] for i in members]
        damage = sum(most.get(a.id, 0) for a in group)
        # 702.2c: 1 is lethal from a deathtouch attacker, so only to the blockers one that deals damage blocks
        deathtouch = frozenset(
            b for a in group if a.has(Keyword.DEATHTOUCH) and most.get(a.id, 0) > 0 for b in a.blocked_by
        )
        reaching = [
            (replace(a, blocked_by=()) if a.id in free else a, aims)
            for a in group
            if most.get(a.id, 0) > 0
            and (keep is None or keep(a))
            and (aims := _aims(s, a, kinds))
            and (not a.blocked or a.id in free or a.has(Keyword.TRAMPLE) or a.has(Keyword.TRAMPLE_OVER_PLANESWALKERS))
        ]
        # a blocker that only one attacker of the group can assign damage to is paid by that attacker alone (510.1c)
        payers = [b for a in group if most.get(a.id, 0) > 0 for b in a.blocked_by]
        private = frozenset(b for b in payers if payers.count(b) == 1)
        for target in [None, *sorted({t for _, aims in reaching for t in aims})]:
            mine = [a for a, aims in reaching if target in aims or (target is None and aims & players)]
            if not mine:
                best = zeros
            elif len(mine) > _SUBSETS:
                best = zeros + sum(most[a.id] for a in mine)
            else:  # the same attackers are a group after many replies
                key = (tuple(a.id for a in mine), damage, deathtouch, private)
                if key not in memo:
                    memo[key] = _most_through(mine, damage, deathtouch, most, row, left, private)
                best = memo[key]
            out[target] = out.get(target, zeros) + best
    return {k: v[inverse] for k, v in out.items()}


def _aims(s: Scenario, a, kinds: set) -> set[str]:
    """What attacker ``a`` may assign damage to besides its blockers, of the ``kinds`` asked: what it attacks, and
    the controller of the planeswalker it attacks when it tramples over planeswalkers (702.19c: after every blocker
    is assigned lethal damage and the planeswalker its loyalty left, so the blockers' needs still come first)."""
    if a.attacking not in s:
        return set()
    out = {a.attacking} if s.kind(a.attacking) in kinds else set()
    if a.has(Keyword.TRAMPLE_OVER_PLANESWALKERS) and s.kind(a.attacking) == ObjectKind.PLANESWALKER:
        owner = s.controller_of(a.attacking)
        if owner is not None and owner in s and s.kind(owner) in kinds:
            out.add(owner)
    return out


def _most_through(
    mine: list,
    damage: int,
    deathtouch: frozenset,
    most: dict,
    row: dict,
    left: np.ndarray,
    private: frozenset = frozenset(),
) -> np.ndarray:
    """Per column of ``left`` (the blockers' needs, one row per blocker: ``row``), the most of min(R's damage less
    what R's ``private`` blockers need, ``damage`` less what R's blockers need) over the nonempty subsets R of the
    attackers ``mine`` (at least 0), once per distinct column of the needs of ``mine``'s blockers. A private blocker
    is one only a single attacker of the group can assign damage to (510.1c), so that attacker pays its need out of
    its own damage before it assigns anything past it (702.19b); such a blocker of R's blocks one of R. The subsets
    with the same blockers need the same, so only the one that deals the most counts (min is monotone in R's
    damage); each set of blockers' need is its set less one blocker's need plus that blocker's (exact integers).
    ``deathtouch``: the blockers a deathtouch attacker dealing damage blocks, whose need is at most 1 (702.2c)."""
    names = sorted({b for a in mine for b in a.blocked_by if b in row})
    need_of = left[[row[b] for b in names]]
    for k, b in enumerate(names):
        if b in deathtouch:
            need_of[k] = np.minimum(need_of[k], 1)
    _, first, inverse = np.unique(_row_ids(need_of.T), return_index=True, return_inverse=True)
    need_of = need_of[:, first].astype(np.int64)
    reach: dict[int, int] = {}  # blockers' mask -> the most the subsets with exactly those blockers deal
    for mask in range(1, 1 << len(mine)):
        chosen = [a for k, a in enumerate(mine) if mask >> k & 1]
        blockers = sum(1 << k for k, b in enumerate(names) if any(b in a.blocked_by for a in chosen))
        reach[blockers] = max(reach.get(blockers, 0), sum(most[a.id] for a in chosen))
    need = {0: np.zeros(need_of.shape[1], dtype=np.int64)}

    def need_for(blockers: int) -> np.ndarray:
        if blockers not in need:
            low = (blockers & -blockers).bit_length() - 1
            need[blockers] = need_for(blockers & (blockers - 1)) + need_of[low]
        return need[blockers]

    own = sum(1 << k for k, b in enumerate(names) if b in private)
    best = np.zeros(need_of.shape[1], dtype=np.int64)
    for blockers, dealt in reach.items():
        np.maximum(best, np.minimum(dealt - need_for(blockers & own), damage - need_for(blockers)), out=best)
    return best[inverse.reshape(-1)]


def _overkill_floor(problem: _Problem, table: _Table, replies: list[Reply]) -> np.ndarray:
    """Per candidate, the least overkill the regular step adds whatever the reply and the regular step's assignment:
    the least of :func:`_overkill_after` over the replies' outcomes."""
    memo = {"reply losses": _reply_losses(problem, replies)}
    return np.min([_overkill_after(problem, table, dead, memo) for dead in _outcomes(replies)], axis=0)


def _overkill_after(
    problem: _Problem, table: _Table, dead: frozenset = frozenset(), memo: dict | None = None, highest: bool = False
) -> np.ndarray:
    """Per candidate, the least overkill the regular step adds after a reply that kills the attackers ``dead``,
    whatever the regular step's assignment (the boards of :func:`_plain_first_step`, the first step ending no
    one's game). Every attacker assigns exactly its damage (510.1a) and overkill is what a recipient is assigned
    past its threshold (trample.outcome.overkill_threshold), so the regular step's overkill is at least the damage
    of some attackers less the thresholds of every recipient they can reach. The attackers: those left that will
    have a route (unblocked, or trample, 702.19e; a blocked attacker without trample whose blockers all died
    assigns none, 510.1c, so it is left out), except, per candidate, those whose planeswalker or battle it takes
    out of combat (:func:`_removed_by`; 506.4c: they assign to their blockers still alive or nothing). The
    thresholds, after the candidate: a player's life left, a planeswalker's loyalty, a battle's defense (what
    those attackers attack, and the planeswalker's controller for one that tramples over planeswalkers, 702.19c:
    :func:`_aims`), a blocker's lethal need left (the blockers blocking those attackers; 702.19b; none when it
    died, deathtouch included). The most over the sets of those attackers, less what is left of their recipients'
    prevention shields (:func:`_shield_left`) and what the first step's blockers do (lifelink, -1/-1 counters):
    :func:`_least_excess`. ``memo``: each recipient's threshold left, kept from one
    call to the next, and under ``"reply losses"`` :func:`_reply_losses` (else the most any reply can do): the
    floor after every reply of the outcome, the least of theirs; ``highest``: after the one whose floor is highest
    (a bound of the candidate's value all the same, the defender picking the worst reply for it)."""
    s = problem.scenario
    memo = {} if memo is None else memo
    damage = _regular_damage(problem, dead)
    at = problem.layout()
    taken = partial(table.taken, at)
    # per candidate, the attackers whose planeswalker or battle it takes out of combat are left out (506.4c)
    gone = _removed_by(problem, table, memo)
    # (one that tramples over planeswalkers assigns the rest to the planeswalker's controller instead, 702.19e: kept)
    keep = {
        a.id: ~gone[a.attacking]
        for a in s.attackers
        if a.id in damage and a.attacking in gone and not _aims(s, a, {ObjectKind.PLAYER})
    }
    reached: list[tuple[str, np.ndarray, tuple[str, ...], Any]] = []  # per recipient (:func:`_least_excess`)
    attacked: dict[str, list[str]] = {}  # what it attacks, and its controller with trample over planeswalkers
    kinds = {ObjectKind.PLAYER, ObjectKind.PLANESWALKER, ObjectKind.BATTLE}
    for a in s.attackers:
        if a.id in damage:
            for r in sorted(_aims(s, a, kinds)):
                attacked.setdefault(r, []).append(a.id)
    for r, ids in attacked.items():
        if ("threshold", r) not in memo:
            memo["threshold", r] = np.maximum(0, overkill_threshold(s, r) - _life_taken(problem, table, r))
        reached.append((r, memo["threshold", r], tuple(ids), _shield_left(problem, table, r, memo)))
    for r in sorted({b for a in s.attackers if a.id in damage for b in a.blocked_by}):
        if ("need", r) not in memo:
            alive = np.maximum(0, lethal_need(s.creature(r)) - taken(r))
            if r in at and len(at[r]) > 1 and not s.creature(r).has(Keyword.INDESTRUCTIBLE):
                alive[table.capped[:, at[r][1]] > 0] = 0  # 702.2c: destroyed (702.12b: unless indestructible)
            memo["need", r] = alive
        blocking = tuple(a.id for a in s.attackers if a.id in damage and r in a.blocked_by)
        reached.append((r, memo["need", r], blocking, _shield_left(problem, table, r, memo)))
    lost = _first_strike_losses(problem, damage, memo.get("reply losses", {}).get(dead), highest)
    # every set S only on boards with effects, where it pays: on the plain shapes (chained(6)) the floor of S = all
    # already bounds as much, and the sets doubled the bounds' time (0.3 -> 0.6 s)
    floor = _least_excess(s, damage, keep, reached, lost, len(table), every=problem.effects)
    ended = _ended(problem, table, memo)
    return floor if ended is None else np.where(ended, 0, floor)  # 104.3b: no regular step, no overkill there


def _shield_left(problem: _Problem, table: _Table, r: str, memo: dict) -> np.ndarray | int:
    """What is left of ``r``'s prevention shield after each candidate's first step (615.7: a shield stops damage
    until it has prevented its ``prevent``): the whole shield where no column of the first step reaches ``r`` or
    the table does not read what was dealt (:meth:`_Table.received`), else less what the first step's damage to
    ``r`` used of it (the replies' damage reaches only attackers, 510.1c/d: it uses none of it). What was used is
    read as what was assigned to ``r`` less what was dealt: the results table reads only boards where no damage
    effect acts but prevention shields (:func:`_result_classes`); protection, prevention of all combat damage and
    modifiers stop or move damage without using a shield, and a table that read them would need the shield's own
    use (the ``shielded`` of the outcome's hits)."""
    prevent = problem.scenario.receiving(r).prevent
    if not prevent or table.dealt is None:
        return prevent
    cols = [j for j, (_, to) in enumerate(table.plan.columns) if to == r]
    if not cols:
        return prevent
    if ("shield", r) not in memo:
        prevented = (table.vectors[:, cols].astype(np.int64) - table.dealt[:, cols]).sum(axis=1)
        memo["shield", r] = np.maximum(0, prevent - prevented)
    return memo["shield", r]


def _regular_damage(problem: _Problem, dead: frozenset) -> dict[str, int]:
    """The regular step's damage of each attacker left that will have a route (:func:`_overkill_after`)."""
    attackers = {a.id: a for a in problem.scenario.attackers if a.id not in dead}
    damage: dict[str, int] = {}
    for src in problem.regular_plan().sources:
        a = attackers.get(src.source)
        if a is not None and src.routes and (not a.blocked or a.has(Keyword.TRAMPLE)):
            damage[a.id] = min(src.damage, src.unblocked.damage) if src.unblocked is not None else src.damage
    return damage


#: :func:`_least_excess` reads every set of attackers up to this many attackers (2^n - 1 sets), else all of them
#: together only
_SUBSET_ATTACKERS = 8


def _least_excess(
    s: Scenario,
    damage: dict[str, int],
    keep: dict[str, np.ndarray],
    reached: list[tuple[str, np.ndarray, tuple[str, ...], Any]],
    lost: Callable[[frozenset[str], frozenset[str]], int],
    n: int,
    every: bool = True,
) -> np.ndarray:
    """Per candidate, the least overkill the attackers of ``damage`` (each assigning all of it, 510.1a, where
    ``keep`` keeps it) leave in the regular step whatever their assignment: for any set S of them, the damage of S
    less the thresholds of the recipients S reaches (``reached``: per recipient, its threshold per candidate and
    the attackers that can assign to it, and what is left of its prevention shield, per candidate or one number)
    and those shields (615.7: overkill is read on damage dealt, and a shield stops at most what is left of it),
    less what ``lost`` reads (the first step's blockers: power S's
    attackers lose, life the players S reaches gain). A creature that only attackers of S with deathtouch reach
    takes at most 1 before overkill when they assign it any (702.2c, trample.outcome.overkill_threshold). The
    most over every S (and 0): by max-flow min-cut it is the least overkill when each attacker may put its damage
    anywhere it reaches (trample's order, 702.19b, only adds to it). Every S while there are at most
    :data:`_SUBSET_ATTACKERS` attackers (and ``every``), else S the set of them all. Read once per distinct row of
    the thresholds, the shields left and ``keep``."""
    shields = [h for _, _, _, h in reached if isinstance(h, np.ndarray)]
    columns = [t for _, t, _, _ in reached] + shields + [k.astype(np.int64) for k in keep.values()]
    if every and columns and n and len(damage) <= _SUBSET_ATTACKERS:
        _, first, inverse = np.unique(_row_ids(np.stack(columns, axis=1)), return_index=True, return_inverse=True)
        if len(first) < n:
            rows = [(r, t[first], ids, h[first] if isinstance(h, np.ndarray) else h) for r, t, ids, h in reached]
            kept = {a: k[first] for a, k in keep.items()}
            return _least_excess(s, damage, kept, rows, lost, len(first), every)[inverse.reshape(-1)]
    order = list(damage)
    bit = {a: 1 << j for j, a in enumerate(order)}
    dealt = [damage[a] * keep[a] if a in keep else np.full(n, damage[a], dtype=np.int64) for a in order]
    masks = range(1, 1 << len(order)) if every and len(order) <= _SUBSET_ATTACKERS else [(1 << len(order)) - 1]
    creature = {ObjectKind.ATTACKER, ObjectKind.BLOCKER}
    reaching = [(r, threshold, s.kind(r) in creature, ids, shield) for r, threshold, ids, shield in reached]
    masks_of = [sum(bit[a] for a in ids) for _, _, ids, _ in reached]
    touching = sum(bit[a] for a in order if s.attacker(a).has(Keyword.DEATHTOUCH))
    best = np.zeros(n, dtype=np.int64)
    for chosen in masks:
        excess = sum((dealt[j] for j in range(len(order)) if chosen >> j & 1), np.zeros(n, dtype=np.int64))
        within: set[str] = set()
        for (r, threshold, creature_, ids, shield), mask in zip(reaching, masks_of):
            if not mask & chosen:
                continue
            within.add(r)
            if creature_ and not mask & chosen & ~touching:  # only deathtouch sources of S reach it (702.2c)
                threshold = np.minimum(threshold, 1)  # 1 is lethal
            inside = [a for a in ids if bit[a] & chosen]
            # a recipient only attackers taken out of combat reach counts only where one of them is kept (the
            # arrays are subtracted in place: this runs per candidate, per recipient and per set)
            if any(a not in keep for a in inside):
                excess -= threshold
                if isinstance(shield, np.ndarray) or shield:
                    excess -= shield
            else:
                excess -= (threshold + shield) * np.logical_or.reduce([keep[a] for a in inside])
        members = frozenset(a for a in order if bit[a] & chosen)
        np.maximum(best, excess - lost(members, frozenset(within)), out=best)
    return best


def _first_strike_losses(
    problem: _Problem, damage: dict[str, int], losses: list[tuple[dict, dict]] | None, highest: bool = False
) -> Callable[[frozenset[str], frozenset[str]], int]:
    """For :func:`_least_excess`: given a set S of attackers and the recipients they reach, the most the first
    step's blockers can take off what S puts past their thresholds. Each -1/-1 counter an infect or wither blocker
    deals (702.90c, 702.80b) lowers one attacker's power, so its regular damage, by at most 1; each life a lifelink
    blocker gains its controller (702.15b) raises the life past which that player's overkill is read. The
    blockers' regular-step damage is dealt at once with the attackers' (510.2): it changes neither.
    ``losses``: per reply with the outcome read (:func:`_reply_losses`), the power each attacker lost and the life
    each player gained: the most over them (a floor after each of those replies), or with ``highest`` the least
    (the most over S of what S puts past less the least loss is the highest of the replies' floors: a floor after
    one of them); None: whatever the reply, each blocker dealing first-strike damage
    its combat damage (infect or wither: to the attackers of S it blocks, 510.1d; lifelink: to its controller,
    every player reached when that is not known)."""
    if losses is not None:
        pick = min if highest else max

        def read(members: frozenset[str], within: frozenset[str]) -> int:
            return pick(
                (
                    sum(min(d, damage[a]) for a, d in drops.items() if a in members)
                    + sum(g for p, g in gains.items() if p in within)
                    for drops, gains in losses
                ),
                default=0,
            )

        return read
    s = problem.scenario
    counters: list[tuple[int, frozenset[str]]] = []
    gains: list[tuple[int, str | None]] = []
    if problem.effects and problem.whole.has_first_strike_step:
        for b in s.blockers:
            if not b.in_combat or not b.deals_damage_in(Step.FIRST_STRIKE) or b.combat_damage <= 0:
                continue
            if b.has(Keyword.LIFELINK):
                gains.append((b.combat_damage, s.blocker_controller(b.id)))
            if any(b.has(k) for k in _COUNTERS):
                counters.append((b.combat_damage, frozenset(a.id for a in s.attackers if b.id in a.blocked_by)))
    players = {p.id for p in s.players}

    def most(members: frozenset[str], within: frozenset[str]) -> int:
        shrunk = sum(min(n, sum(damage[a] for a in blocked & members)) for n, blocked in counters)
        return shrunk + sum(n for n, p in gains if p in within or (p is None and players & within))

    return most


def _reply_losses(problem: _Problem, replies: list[Reply]) -> dict[frozenset, list[tuple[dict, dict]]]:
    """Per outcome of the replies (the attackers it kills, :func:`_deaths`), what each of its replies alone does
    that :func:`_first_strike_losses` reads: the power each attacker lost (-1/-1 counters, 702.90c, 702.80b: its
    combat damage on the state the reply leaves) and the life each player gained (702.15b), distinct ones once.
    Empty on boards whose replies' outcomes are not states (plain boards: nothing of it happens)."""
    s = problem.scenario
    out: dict[frozenset, list[tuple[dict, dict]]] = {}
    for reply in replies:
        state = reply.outcome
        if not isinstance(state, Scenario):
            return {}
        after = {a.id: a.combat_damage for a in state.attackers}
        drops = {
            a.id: a.combat_damage - after[a.id]
            for a in s.attackers
            if after.get(a.id, a.combat_damage) < a.combat_damage
        }
        life = {p.id: p.life for p in state.players}
        gains = {p.id: life[p.id] - p.life for p in s.players if life.get(p.id, p.life) > p.life}
        held = out.setdefault(_deaths(state) or frozenset(), [])
        if (drops, gains) not in held:
            held.append((drops, gains))
    return out


def _with_losses(problem: _Problem, needs: tuple, replies: list[Reply]) -> tuple:
    """``needs`` (:func:`_blocker_needs`) with :func:`_reply_losses` of ``replies`` in its memo, where
    :func:`_overkill_after` reads them (the first time only: they are the board's)."""
    if "reply losses" not in needs[3]:
        needs[3]["reply losses"] = _reply_losses(problem, replies)
    return needs


def _life_taken(problem: _Problem, table: _Table, r: str) -> np.ndarray:
    """Per candidate, what its first step takes from ``r``'s threshold of :func:`overkill_threshold`: its damage
    to ``r`` (capped at lethal, :meth:`_Table.taken`), but for a player the damage of the sources without infect
    alone (702.90b: an infect source's damage to a player gives poison counters and leaves their life as it was;
    read on the damage dealt, :meth:`_Table.received`: a prevention shield stops some, 615.7)."""
    s, plan = problem.scenario, table.plan
    infect = {
        j
        for j, (i, to) in enumerate(plan.columns)
        if to == r and s.attacker(plan.sources[i].source).has(Keyword.INFECT)
    }
    if not infect or s.kind(r) != ObjectKind.PLAYER:
        return table.taken(problem.layout(), r)
    lost = [j for j, (_, to) in enumerate(plan.columns) if to == r and j not in infect]
    dealt = table.received()  # (a shield's part prevented, 615.7)
    return dealt[:, lost].astype(np.int64).sum(axis=1) if lost else np.zeros(len(table), dtype=np.int64)


def _front_search(problem: _Problem, regular: _Regular, capped: dict[str, int], replies: list[Reply], prefix: int):
    """:class:`_FrontSearch` over every candidate (:func:`_effect_table`: the order needs all their bounds)."""
    try:
        table = _effect_table(
            problem.attacking_first,
            problem.objs,
            capped,
            _lethal_caps(problem),
            problem.deadline,
            problem.track,
            problem.shared,
            problem.scenario,
        )
    except LimitReached:
        return None, True
    if not len(table):
        return None, False
    try:
        search = _FrontSearch(problem, regular, table, replies, prefix)
    except LimitReached:  # the bounds are not all read: no candidate was searched
        return None, True
    return search.run()


# -- the same bounds on boards whose effects change only what damage does ----------------------------------------

#: what makes the damage of a source do more than marked damage and life loss (702.90b/c, 702.80b, 702.164c, 903.10a)
_COUNTERS = (Keyword.INFECT, Keyword.WITHER)


def _result_bounded(problem: _Problem, canonical: bool) -> bool:
    """Are the A1s of a board with effects (:func:`_result_classes`: they change what damage does, and how much is
    dealt only by prevention shields) searched best bound first (:func:`_results_front_search`)? On the boards the
    plain bounds read but for the effects (:func:`_plain_first_step` with trample over planeswalkers;
    as-though-unblocked options listed in order, :func:`_ways_listed`), where those bounds still hold:

    - no first step can end the game: no first-strike sources with infect, toxic or commander damage can give a
      player enough poison or commander damage to lose (704.5c, 704.6c: :func:`_first_step_loses_otherwise`) and no
      first step deals a player their life (:func:`_first_step_reach`), no player has lost already;
    - the first step's kills and values are the plain ones (``BlockScorer``) of the damage dealt (a prevention
      shield stops part of what is assigned, 615.7: :func:`_results_table`), with an indestructible blocker
      brought to 0 toughness by -1/-1 counters added (704.5f, 702.12b: :func:`_countered_deaths`); the regular
      step's bounds read what is assigned, which is at least what is dealt (a shield's rest only stops more), and
      count such a blocker as killable by the counters left to give it (:func:`_blocker_needs`);
    - ``lethal``: a player an attacker with infect, toxic or commander damage may assign to is counted as possibly
      lost (:func:`_other_losses`); ``min-overkill``: the floor less what is left of the shields it reads
      (overkill is read on damage dealt) and what the first step's lifelink and infect or wither blockers can do
      (:func:`_least_excess`, :func:`_first_strike_losses`)."""
    return not division_moved(problem.scenario) and _results_readable(problem, canonical)


def _results_readable(problem: _Problem, canonical: bool) -> bool:
    """:func:`_result_bounded` but for who divides the damage: its A1s are read one per state with the bounds (also
    by the banded search, :func:`_band_effects_read`)."""
    s = problem.scenario
    if not (
        canonical
        and problem.effects
        and problem.whole.has_first_strike_step
        and s.rules == RulesSet.CURRENT
        and not losers(s)
        and _result_classes(problem) is not None
    ):
        return False
    if _first_step_loses_otherwise(problem) and not _ends_readable(problem):
        return False  # several players (or a game of more): which first steps end it is not read
    return not _first_step_reach(problem)[0]


def _first_step_loses_otherwise(problem: _Problem) -> bool:
    """Can the first step make a player lose otherwise than by life? Each listed player as the first step could
    leave them at most: every first-strike source with infect (702.90b) or toxic (702.164c) that has a route to them
    dealing them all its damage (poison: the damage, plus toxic's counters), every commander all of it (903.10a:
    combat damage from that commander), read by every way to lose but life of :data:`LOSS_CONDITIONS` (704.5c,
    704.6c; life is :func:`_first_step_reach`'s). Damage dealt is at most damage assigned on these boards
    (:func:`_result_classes`: no damage effect acts but prevention shields, 615.7), so a source deals a player at
    most its damage."""
    s = problem.scenario
    others = [c for c in _outcome.LOSS_CONDITIONS if c.name != LossReason.LIFE]
    for p in s.players:
        poison, commander = p.poison, dict(p.commander_damage)
        for source in problem.attacking_first.plan.sources:
            if not any(route.recipient == p.id for route in source.routes):
                continue
            a = s.attacker(source.source)
            if a.has(Keyword.INFECT):
                poison += source.damage
            poison += a.toxic or 0
            if a.commander is not None:
                commander[a.id] = commander.get(a.id, 0) + source.damage
        worst = replace(p, poison=poison, commander_damage=tuple(sorted(commander.items())))
        if _outcome.losses(worst, others):
            return True
    return False


def _loses_otherwise(a) -> bool:
    """Can attacker ``a``'s damage make a player lose otherwise than by life (infect or toxic: poison, 704.5c; a
    commander: 704.6c)?"""
    return a.has(Keyword.INFECT) or bool(a.toxic) or a.commander is not None


def _other_losses(problem: _Problem) -> frozenset[str]:
    """The players some attacker whose damage can make them lose otherwise than by life may assign damage to
    (:func:`_loses_otherwise`; what it attacks, or, trampling over planeswalkers, its controller): the bounds count
    them as possibly lost. Empty on plain boards."""
    if not problem.effects:
        return frozenset()
    s = problem.scenario
    return frozenset(p for a in s.attackers if _loses_otherwise(a) for p in _aims(s, a, {ObjectKind.PLAYER}))


def _results_front_search(problem: _Problem, regular: _Regular, replies: list[Reply]) -> tuple[Line | None, bool]:
    """:class:`_FrontSearch` over the A1s of :func:`_distinct_results` (one per state it leaves): their rows read
    with the plain layout for the bounds (damage per recipient capped at lethal, deathtouch; the first step's values,
    which on these boards are the plain ones), each searched by its state key (:attr:`_Table.states`)."""
    try:
        table = _results_table(problem)
        if not len(table):
            return None, False
        search = _FrontSearch(problem, regular, table, replies, 0)
    except LimitReached:  # the candidates or their bounds are not all read: none was searched
        return None, True
    return search.run()


def _results_table(problem: _Problem) -> _Table:
    """The candidates of :func:`_results_front_search` as a :class:`_Table`, read on the damage each deals
    (:meth:`_Classes.dealt`: a prevention shield stops some, 615.7): its capped effect and its first step's values
    are the plain ones of that damage (kills and value with an indestructible blocker's death by -1/-1 counters
    added, :func:`_countered_deaths`)."""
    classes = _result_classes(problem)
    assert classes is not None
    step = problem.attacking_first
    vectors, states = _distinct_result_rows(problem, classes)
    dealt = classes.dealt(vectors)
    scorer = BlockScorer(step, problem.objs)
    lethal = _lethal_caps(problem)
    capped = _effect_rows(scorer, [lethal.get(r) for r in scorer.recipients], dealt)
    first = scorer.values(dealt) + _countered_deaths(problem, dealt, tuple(scorer.scales))
    table = _Table(vectors, None, capped, first, tuple(scorer.scales), step.plan, states=states)
    return table if dealt is vectors else replace(table, dealt=dealt)


def _countered_deaths(problem: _Problem, dealt: np.ndarray, scales: tuple) -> np.ndarray:
    """Per row of ``dealt`` (amounts dealt over the first step's columns), what the plain values (``BlockScorer``:
    an indestructible creature never dies, 702.12b) leave out of ``max-kills`` and ``max-value``: the indestructible
    blockers the -1/-1 counters of infect or wither sources (702.90c, 702.80b) bring to 0 toughness, which puts them
    into the graveyard all the same (704.5f). Oriented and scaled as the table's values."""
    s, plan = problem.scenario, problem.attacking_first.plan
    out = np.zeros((len(dealt), len(problem.objs)), dtype=np.int64)
    for b in _countered_indestructible(s):
        cols = [j for j, (i, r) in enumerate(plan.columns) if r == b.id and _counters_of(s, plan, i)]
        if not cols:
            continue
        died = dealt[:, cols].sum(axis=1) >= b.toughness
        for k, o in enumerate(problem.objs):
            if o.kind == ObjectiveKind.MAX_KILLS:
                out[:, k] += died
            elif o.kind == ObjectiveKind.MAX_VALUE:
                out[:, k] += died * int(Fraction(exact(b.value)) * scales[k])  # (value_scale: an integer)
    return out


def _counters_of(s: Scenario, plan: Any, i: int) -> bool:
    """Does source ``i`` of ``plan`` deal damage to creatures as -1/-1 counters (infect 702.90c, wither 702.80b)?"""
    return any(s.creature(plan.sources[i].source).has(k) for k in _COUNTERS)


def _countered_indestructible(s: Scenario) -> list:
    """The indestructible blockers in combat that an attacker with infect or wither blocks (702.12b, 704.5f: -1/-1
    counters can still bring their toughness to 0)."""
    countered = {b for a in s.attackers if any(a.has(k) for k in _COUNTERS) for b in a.blocked_by}
    return [b for b in s.blockers if b.in_combat and b.has(Keyword.INDESTRUCTIBLE) and b.id in countered]


def _timed(items: list, deadline: Deadline) -> Iterator:
    """The items, the clock read before each (:class:`LimitReached` once it is past)."""
    for item in items:
        deadline.check()
        yield item


# -- banding: the first step as a game ------------------------------------------------------------------------


def _divided_search(problem: _Problem, regular: _Regular) -> tuple[Line | None, bool]:
    """The first step as a game when a rule gives some first-strike damage to the other player to divide
    (:func:`trample.rules.divider`; banding, 702.22j/k): every line of the step (A1 with D1) is split into the
    active player's part (the sources they divide, on both sides) and the defending player's; a part is worth
    its worst line (the defending player replies knowing it), the best part wins. Ties as in :func:`_search`: the
    worst line of a part is the one with the smaller (A1, D1) vectors, the best part the one whose worst line has
    the smaller vectors. Returns (best, stopped) as :func:`_search`."""
    a_step, d_step = problem.attacking_first, problem.defending_first
    a_mine = [
        k for k, (i, _) in enumerate(a_step.plan.columns) if a_step.plan.sources[i].chooser == Chooser.ACTIVE_PLAYER
    ]
    d_mine = [
        k for k, (i, _) in enumerate(d_step.plan.columns) if d_step.plan.sources[i].chooser == Chooser.ACTIVE_PLAYER
    ]
    parts: dict[tuple, Line] = {}
    keyed = not problem.effects  # the regular step memoised by (A1's effect, the attackers the reply kills)
    capped = _effect_caps(problem)
    try:
        replies = [
            Reply(d, d_step.plan.vector(d), _killed(problem, d) if keyed else None)
            for d in d_step.assignments(time_limit=problem.deadline)
        ]
        for a1 in a_step.assignments(time_limit=problem.deadline):
            problem.deadline.check()  # each A1 costs a line per reply: the clock read before each
            if problem.track is not None:
                problem.track.step()
            a1_vec = a_step.plan.vector(a1)
            effect = None
            if keyed:
                dealt, touched = damage_dealt(problem.scenario, a1)
                effect = effect_key(dealt, touched, {r: capped.get(r, n) for r, n in dealt.items()})
            for line in _divided_lines(problem, regular, Candidate(a1, a1_vec, effect), replies):
                d1_vec = line.vector[1]
                g = (tuple(a1_vec[k] for k in a_mine), tuple(d1_vec[k] for k in d_mine))
                held = parts.get(g)
                if held is None or line.value < held.value or (line.value == held.value and line.vector < held.vector):
                    parts[g] = line
    except LimitReached:
        return None, True
    best = None
    for line in parts.values():
        if line.beats(best):
            best = line
    return best, False


def _killed(problem: _Problem, d1: Assignment) -> frozenset[str]:
    """The attackers a first-strike reply kills (plain boards: what the regular step reads of it, as
    :func:`_replies` groups them)."""
    s = problem.scenario
    totals, touched = damage_dealt(s, d1)
    return frozenset(
        a.id for a in s.attackers if a.in_combat and creature_dies(a, totals.get(a.id, 0), a.id in touched)
    )


def _divided_lines(problem: _Problem, regular: _Regular, candidate: Candidate, replies: list[Reply]) -> Iterator[Line]:
    """Every line of one A1 with every reply (vector: the pair of A1's and D1's)."""
    objs, step = problem.objs, problem.attacking_first
    problem.deadline.check()
    plain_first = score(step, candidate.a1, objs) if not problem.effects else {}
    for reply in replies:
        if problem.deadline.expired():
            raise LimitReached("whole-combat search")
        first_values = step_values(step, candidate.a1, objs, reply.d1)[0] if problem.effects else plain_first
        result = regular.after(candidate, reply)
        if result.assignment is None:
            continue
        values = _total(objs, first_values, result)
        yield Line(oriented(objs, values), (candidate.vector, reply.vector), values, candidate.a1, reply.d1, result)


def _band_bounded(problem: _Problem, canonical: bool) -> bool:
    """Is a first step whose division is moved searched best bound first (:func:`_band_front_search`)? When only
    blockers' damage is moved to the active player (702.22k: the blockers blocking a band; no attacker's
    first-strike damage is the defending player's, 702.22j), on the boards the plain bounds read but for that
    (:func:`_plain_first_step` with trample over planeswalkers, no damage effects, the current rules), and where a
    first step that ends the game can be told (:func:`_ends_readable`). The A1 alone then fixes the first step's
    values (``score`` reads the attackers' damage only) and, with the attackers the whole D1 kills, the state the
    regular step is solved on; the bounds of :func:`_reply_bounds` read the A1 and those attackers only."""
    s, a_plan, d_plan = problem.scenario, problem.attacking_first.plan, problem.defending_first.plan
    if not (
        canonical
        and problem.whole.has_first_strike_step
        and s.rules == RulesSet.CURRENT
        and not a_plan.moved
        and d_plan.moved
    ):
        return False
    if problem.effects:
        return _band_effects_read(problem)
    ends = _first_step_reach(problem)[0]
    return not ends or _ends_readable(problem)


def _band_effects_read(problem: _Problem) -> bool:
    """Does the banded search read the effects of this board? Where the attackers' first-strike damage is read as
    on :func:`_result_bounded`'s boards (its A1s one per state, :func:`_results_table`; those that end the game by
    poison or commander damage told, :func:`_lost_otherwise`) and the blockers' damage is plain (no lifelink,
    infect or wither on a blocker: a D1 then leaves no more than the attackers it kills, :func:`_killed`, which the
    replies are grouped by)."""
    s = problem.scenario
    if any(b.has(k) for b in s.blockers for k in (*_COUNTERS, Keyword.LIFELINK)):
        return False
    if _countered_indestructible(s) or any(e.acts_on(s) for e in _outcome.DAMAGE_EFFECTS):
        return False  # (prevention shields, -1/-1 counters on an indestructible blocker: not read here)
    return _results_readable(problem, True)


@dataclass(frozen=True)
class _BandReplies:
    """The defending first step split by who divides (:func:`_band_replies`): ``parts``, the active player's parts
    (their amounts on the columns they divide, 702.22k), and per part its replies: the defending player's rests,
    one per class of rests that kill the same attackers with every part (the smallest vector of each), in vector
    order, each a :class:`Reply` of the whole D1 (its vector the whole D1's, its outcome the attackers it kills)."""

    parts: list[tuple]
    replies: list[list[Reply]]


def _band_replies(problem: _Problem) -> _BandReplies | None:
    """The defending first step as the active player's parts times the defending player's rests, or None when its
    D1s are not that product (each source's division is its own: 510.1d, so they are; checked)."""
    plan = problem.defending_first.plan
    mine = [k for k, (i, _) in enumerate(plan.columns) if plan.sources[i].chooser == Chooser.ACTIVE_PLAYER]
    rest = [k for k in range(len(plan.columns)) if k not in set(mine)]
    lines: dict[tuple, tuple[Assignment, tuple]] = {}
    for d in problem.defending_first.assignments(time_limit=problem.deadline):
        vec = plan.vector(d)
        lines[tuple(vec[k] for k in mine), tuple(vec[k] for k in rest)] = (d, vec)
    parts = sorted({g for g, _ in lines})
    rests = sorted({r for _, r in lines})
    if len(lines) != len(parts) * len(rests):
        return None
    killed = {key: _killed(problem, d) for key, (d, _) in lines.items()}
    kept: dict[tuple, tuple] = {}  # rests that kill the same with every part: the same value for every candidate
    for r in rests:  # in vector order: the first of each class is its smallest
        kept.setdefault(tuple(killed[g, r] for g in parts), r)
    chosen = sorted(kept.values())  # with the part fixed, the whole D1's order is the rest's
    replies = [[Reply(lines[g, r][0], lines[g, r][1], killed[g, r]) for r in chosen] for g in parts]
    return _BandReplies(parts, replies)


def _band_front_search(problem: _Problem, regular: _Regular) -> tuple[Line | None, bool] | None:
    """The first step whose blockers' damage is partly the active player's to divide (702.22k), best bound first:
    the active player's part of the step, the candidate, is an A1 (one per state, :func:`_effect_table`) with their
    part of D1; the defending player's rest is the reply. The line's value is what :func:`_divided_search` reads:
    a candidate is worth its worst line (ties: the smaller whole D1), the best candidate wins (ties: the smaller A1,
    then D1). The bounds are :func:`_reply_bounds` on the A1 with the attackers each whole D1 kills. None when the
    board is not one of :func:`_band_bounded`."""
    try:
        step = problem.attacking_first
        if not _band_bounded(problem, step.canonical(deadline=problem.deadline) or _ways_listed(problem, band=True)):
            return None
        split = _band_replies(problem)
        if split is None:
            return None
        table = _band_table(problem)
        if not len(table):
            return None, False
        search = _BandSearch(problem, regular, table, split)
    except LimitReached:
        return None, True
    return search.run()


def _band_table(problem: _Problem) -> _Table:
    """The A1s of :func:`_band_front_search`, one per state: :func:`_effect_table`'s, or on a board with effects
    :func:`_results_table`'s."""
    if problem.effects:
        return _results_table(problem)
    return _effect_table(
        problem.attacking_first,
        problem.objs,
        _effect_caps(problem),
        _lethal_caps(problem),
        problem.deadline,
        problem.track,
        problem.shared,
        problem.scenario,
    )


class _BandSearch(_FrontSearch):
    """:class:`_FrontSearch` over (A1, the active player's part of D1): row ``g * n + i`` is A1 ``i`` of the table
    (``n`` rows) with part ``g``. Its bound is the least of :func:`_reply_bounds` over the attackers the whole D1
    kills with each rest (those :func:`_outcomes_read` reads, as in :class:`_FrontSearch`). Its rank is its A1's:
    two parts of one A1 tie on it, and their lines are told apart by the whole D1 of their worst lines, so one is
    never cut for the other (:meth:`_beyond` cuts only a larger A1). No dominance order (prefix 0)."""

    def __init__(self, problem: _Problem, regular: _Regular, table: _Table, split: _BandReplies):
        n, parts = len(table), len(split.parts)
        self.problem, self.regular, self.base, self.split = problem, regular, table, split
        self.table = _Table(
            np.tile(table.vectors, (parts, 1)),
            None if table.effects is None else np.tile(table.effects, (parts, 1)),
            np.tile(table.capped, (parts, 1)),
            np.tile(table.first, (parts, 1)),
            table.scales,
            table.plan,
            table.reader,
            None if table.states is None else np.tile(table.states, (parts, 1)),
        )
        self.replies = split.replies[0]
        self.prefix = 0
        needs = _blocker_needs(problem, table)
        per: dict[frozenset, list] = {}
        blocks: list[list] = []
        for replies in split.replies:
            outcomes = _outcomes(replies)  # the attackers each whole D1 kills
            read = _outcomes_read(problem, outcomes)
            for dead in _timed(read, problem.deadline):
                if dead not in per:
                    per[dead] = _reply_bounds(problem, table, dead, needs)
            blocks.append(_lex_bounds(problem, table, [], [per[dead] for dead in read]))
        lex = [
            None if any(b[k] is None for b in blocks) else np.concatenate([b[k] for b in blocks])
            for k in range(len(problem.objs))
        ]
        self.lex = self._clipped(lex)
        self.suffix = []
        self.keys = self.table.capped
        self.order = list(range(len(self.replies)))
        self.best = None
        self.best_index = -1
        self.rank = np.tile(_vector_ranks(table.vectors), parts)
        self.bounds, self.low, self.at_most = [], [], []
        self.n = n

    def _visit(self, i: int) -> bool:
        candidate = self.base.candidate(i % self.n)
        try:
            got = _band_against(
                self.problem, self.regular, candidate, self.split.replies[i // self.n], self.order, self.best
            )
        except LimitReached:
            return True
        _reorder(self.order, got.rank)
        if got.worst is not None and got.worst.beats(self.best):
            self.best, self.best_index = got.worst, i
        return got.stopped or self.problem.deadline.expired()


def _band_against(
    problem: _Problem, regular: _Regular, candidate: Candidate, replies: list[Reply], order: list[int], best
) -> _Against:
    """:func:`_against` for an (A1, part) candidate of :class:`_BandSearch`: each line's vector is the pair of A1's
    and the whole D1's (:func:`_divided_search`'s), the worst line the least, ties to the smaller D1 (the lower rank:
    the replies share the part). Stops when the worst so far is below ``best``, or equal with a larger A1 (an equal
    A1 may still tie and win on D1)."""
    objs, step = problem.objs, problem.attacking_first
    first_values = {} if problem.effects else candidate.first_values(step, objs)
    out = _Against()
    for rank in order:
        reply = replies[rank]
        if problem.deadline.expired():
            out.worst, out.stopped = None, True
            return out
        state = None
        if problem.effects:  # the first step's values on its outcome with this reply (as :func:`_against`)
            first_values, outcome = step_values(step, candidate.a1, objs, reply.d1)
            state = outcome.state
        result = regular.after(candidate, reply, state)
        if result.assignment is None:
            continue
        values = _total(objs, first_values, result)
        value = oriented(objs, values)
        if out.worst is None or value < out.worst.value or (value == out.worst.value and rank < out.rank):
            line = Line(value, (candidate.vector, reply.vector), values, candidate.a1, reply.d1, result)
            out.worst, out.rank = line, rank
        if out.bound is None or value < out.bound:
            out.bound = value
        if best is not None and (
            out.worst.value < best.value or (out.worst.value == best.value and candidate.vector > best.vector[0])
        ):
            break
    return out


# -- helpers --------------------------------------------------------------------------------------------------


def _distinct_effects(
    step: Combat, objs: tuple, capped: dict[str, int], lethal: dict[str, int], deadline, track
) -> Iterator[Candidate]:
    """The first-strike assignments of ``step`` with distinct effects (per recipient: the damage, a creature's
    capped at ``capped``, and whether a deathtouch source deals it any), each the first of its effect in the
    canonical order, i.e. the one with the smallest vector (``step.canonical()`` must hold), its effect the
    dense row of those numbers (and the row capped at ``lethal``, the dominance order's key, and the first step's
    values of ``objs``, oriented). The same classes as
    :func:`_candidates`' listing on boards without damage
    effects (damage dealt = damage assigned), found with numpy on the direct engine's blocks instead of one
    assignment at a time."""
    plan = step.plan
    scorer = BlockScorer(step, objs)
    scales = tuple(scorer.scales)
    caps = [capped.get(r) for r in scorer.recipients]
    lethal_caps = [lethal.get(r) for r in scorer.recipients]
    seen: set[tuple] = set()
    for block in _first_blocks(step, deadline):
        keys = _effect_rows(scorer, caps, block)
        first = _first_rows(keys)
        ordered = keys[first] if lethal_caps == caps else _effect_rows(scorer, lethal_caps, block[first])
        values = scorer.values(block[first])
        for k, i in enumerate(first.tolist()):
            key = tuple(keys[i].tolist())
            if key not in seen:
                seen.add(key)
                row = tuple(block[i].tolist())  # the vector over plan.columns
                yield Candidate(None, row, key, tuple(ordered[k].tolist()), tuple(values[k].tolist()), scales, plan)
        if track is not None:
            track.step(len(block))


def _effect_rows(scorer: BlockScorer, caps: list, block: np.ndarray) -> np.ndarray:
    """Per row of the block, its effect: each recipient's total (capped), then whether deathtouch touched it."""
    if block.shape[1] == 0:  # nothing assigns in this step: one empty assignment per row
        return np.zeros((len(block), 1), dtype=np.int64)
    parts = []
    for c, cap in enumerate(caps):
        x = scorer.total(block, c).astype(np.int64)
        parts.append(x if cap is None else np.minimum(x, cap))
        t = scorer.touched(block, c)
        if t is not None:
            parts.append(t.astype(np.int64))
    return np.stack(parts, axis=1) if parts else np.zeros((len(block), 1), dtype=np.int64)


def _effect_layout(step: Combat, objs: tuple) -> dict[str, tuple[int, ...]]:
    """Per recipient of ``step``, the positions of its numbers in a row of :func:`_effect_rows` (its damage, and
    its deathtouch flag when a deathtouch source may assign it any)."""
    scorer = BlockScorer(step, objs)
    empty = np.zeros((1, len(step.plan.columns)), dtype=np.int64)
    at: dict[str, tuple[int, ...]] = {}
    k = 0
    for c, r in enumerate(scorer.recipients):
        flagged = scorer.touched(empty, c) is not None
        at[r] = (k, k + 1) if flagged else (k,)
        k += 2 if flagged else 1
    return at


def _summed(results: list, objs, attackers: list[str]) -> SolveResult:
    """The regular step's result as the sum of its groups' results (integer objectives; the worst status; the
    groups' assignments together, ``attackers`` left out of every group assigning nothing)."""
    if any(r.assignment is None for r in results):
        return next(r for r in results if r.assignment is None)
    status = STATUS_OPTIMAL
    for r in results:
        if r.status != STATUS_OPTIMAL:
            status = r.status
    values = {o.name: sum(int(r.objectives[o.name]) for r in results) for o in objs}
    joined: dict[str, dict[str, int]] = {a: {} for a in attackers}
    joined.update((k, v) for r in results for k, v in r.assignment.to_json().items())
    return SolveResult(
        status, Assignment(joined), values, None, sum(r.time_ms for r in results), sum(r.solves for r in results)
    )


def _total(objs, first_values: dict, result) -> dict:
    """Each objective over both steps: the regular step's value plus the first step's (``lethal``: the regular
    step's alone, read on a state whose life totals include the first step's damage)."""
    values = {}
    for o in objs:
        v = exact(result.objectives[o.name])
        if o.kind != ObjectiveKind.LETHAL:
            v += exact(first_values.get(o.name, 0))
        values[o.name] = v
    return values


# -- independent parts ------------------------------------------------------------------------------------------

#: Per objective kind, the kinds of object whose value is a threshold on the damage *all* attackers deal them
#: (a player's life, a planeswalker's loyalty): attackers that reach one of them are searched together.
_SHARED_BY = {
    "max-damage": (),
    "max-kills": (),
    "max-value": ("planeswalker",),
    "min-overkill": ("player", "planeswalker", "battle"),
}

#: Objectives whose values are integer sums over objects (the regular step's groups are added up exactly).
_INTEGER_SUMS = frozenset({"max-damage", "max-kills", "min-overkill"})

#: Parts whose first steps multiply to at most this many (attacking assignments x defending ones) are searched
#: together, and so is a part with a single first step: one search of a few lines costs less than several
#: searches. 0: no packing (every group its own part).
PACK = 64


def independent_parts(whole, objs, deadline=None) -> list[Scenario] | None:
    """The whole combat's board cut into parts whose searches are independent, or None when it is searched whole.

    Attackers and the blockers blocking them form groups (510.1c, 510.1d: a creature's damage only goes to the
    creatures it blocks or is blocked by, and to what its attacker attacks). Two groups stay together when:

    - they attack the same planeswalker or battle (702.19c: a trampler over planeswalkers must first assign the
      loyalty left after every attacker's damage to it; its loyalty or defense after the first step depends on
      every attacker's first-strike damage);
    - an objective reads a threshold on a player both can damage (``lethal``: a player's life, so it is never
      split; ``min-overkill``); ``max-damage`` and ``max-kills`` are sums over objects;
    - the first-strike step can make a player they both damage lose (704.5a: the game ends and the regular step
      is not played) -- found by solving ``max-damage:ID`` for the first step.

    Never split: boards with damage effects (lifelink, prevention...: :func:`trample.outcome.has_effects`),
    a division moved to the other player (banding, :func:`trample.rules.divider`), the legacy damage assignment order,
    an objective naming a creature. Parts whose first steps are
    small are packed together (:data:`PACK`)."""
    s = whole.scenario
    if len(s.attackers) < 2 or not whole.has_first_strike_step or not _separable(s, objs):
        return None
    reach = _reach(s)
    shared = {r for r in reach if s.kind(r) in _shared_kinds(objs)}
    first = None
    for r, who in reach.items():
        if r in shared or len(who) < 2:
            continue
        threshold = max(1, s[r].life)  # a player (planeswalkers and battles are always shared)
        bound = sum(max(0, s.attackers[i].combat_damage) for i in who if s.attackers[i].deals_damage_in("first_strike"))
        if bound < threshold:
            continue
        if first is None:
            first = Combat(s.with_step(Step.FIRST_STRIKE), side=Side.ATTACKING, engine=whole.engine)
        most = solve_step(first, [f"max-damage:{r}"], tie_break=False, **_left(deadline or deadline_of(None)))
        if most.status != STATUS_OPTIMAL or most.objectives[f"max-damage:{r}"] >= threshold:
            shared.add(r)
    groups = _groups(s, reach, shared)
    if len(groups) < 2:
        return None

    def size(members: list[int]) -> int:  # the joint search's work: A1 lines x defender replies
        part = part_board(s, members).with_step(Step.FIRST_STRIKE)
        return Combat(part, side=Side.ATTACKING, engine=whole.engine).count() * max(
            1, Combat(part, side=Side.DEFENDING, engine=whole.engine).count()
        )

    packed: list[tuple[list[int], int]] = []
    for members in groups:
        n = size(members)
        for k, (have, m) in enumerate(packed):
            if PACK and (n == 1 or m * n <= PACK):  # a part with one first step adds no work
                packed[k] = (have + members, m * n)
                break
        else:
            packed.append((members, n))
    if len(packed) < 2:
        return None
    return [part_board(s, sorted(members), first=k == 0) for k, (members, _) in enumerate(packed)]


def _separable(s: Scenario, objs) -> bool:
    """Can the board be cut into groups at all for these objectives (see :func:`independent_parts`)?"""
    return not (
        s.rules != RulesSet.CURRENT
        or has_effects(s)
        or any(o.kind not in _SHARED_BY for o in objs)
        or any(o.target is not None and s.kind(o.target) in (ObjectKind.ATTACKER, ObjectKind.BLOCKER) for o in objs)
        or division_moved(s)  # 702.22j/k: the other player divides some damage (trample.rules.divider)
    )


def _shared_kinds(objs) -> set[str]:
    """The kinds of recipient whose attackers are kept together: those the objectives read a threshold on, and
    always planeswalkers and battles (702.19c: a trampler over planeswalkers must assign the loyalty left after
    every attacker's damage to it before its controller; their loyalty or defense after the first step depends
    on every attacker's first-strike damage)."""
    return {"planeswalker", "battle"} | {k for o in objs for k in _SHARED_BY[o.kind]}


def _reach(s: Scenario) -> dict[str, list[int]]:
    """Each player, planeswalker and battle -> the attackers that may assign damage to it (what they attack; the
    controller or protector of an attacked planeswalker or battle, 702.19c/e)."""
    reach: dict[str, list[int]] = {}
    for i, a in enumerate(s.attackers):
        if a.attacking not in s:
            continue
        reach.setdefault(a.attacking, []).append(i)
        if s.kind(a.attacking) in (ObjectKind.PLANESWALKER, ObjectKind.BATTLE):
            owner = s.controller_of(a.attacking)
            if owner is not None and owner in s:
                reach.setdefault(owner, []).append(i)
    return reach


def _groups(s: Scenario, reach: dict[str, list[int]], shared) -> list[list[int]]:
    """Attackers (indices) in groups: joined by a blocker they share (510.1c/d) and by a ``shared`` recipient."""
    through: dict[int, list[str]] = {}
    for r in shared:
        for i in reach.get(r, []):
            through.setdefault(i, []).append(r)
    return linked_groups(
        range(len(s.attackers)),
        lambda i: [("blocker", b) for b in s.attackers[i].blocked_by] + [("shared", r) for r in through.get(i, [])],
    )


def _joined(whole, objs, chosen: list[Line], deadline, options: dict, stats: _Stats) -> Line | None:
    """The parts' first steps put together, and the regular step solved on the whole state (the caller's options,
    tie-break included): a :class:`Line` as :func:`_search`'s best, or None when time ran out."""
    a1 = Assignment({k: v for got in chosen for k, v in got.a1.to_json().items()})
    d1 = Assignment({k: v for got in chosen for k, v in got.d1.to_json().items()})
    attacking_first = Combat(whole.scenario.with_step(Step.FIRST_STRIKE), side=Side.ATTACKING, engine=whole.engine)
    a1 = Assignment({s.source: dict(a1.get(s.source, {})) for s in attacking_first.plan.sources})
    state = whole.state_after(Assignment({**a1.to_json(), **d1.to_json()}))
    if deadline.expired():
        return None
    result = solve_step(Combat(state, side=Side.ATTACKING, engine=whole.engine), objs, **options, **_left(deadline))
    stats.record(result)
    if result.assignment is None:
        return None
    values = _total(objs, score(attacking_first, a1, objs), result)
    return Line(oriented(objs, values), attacking_first.plan.vector(a1), values, a1, d1, result)


def _outcome_lethal_report(whole, line: CombatLine) -> dict:
    """Per listed player, over both steps of the line (boards with effects): the attackers' damage dealt, life,
    poison and commander damage at the end, and whether and why they lose (704.5a, 704.5c, 704.6c)."""
    scenario = whole.scenario
    attackers = {a.id for a in scenario.attackers}
    first = resolve(scenario, line.first_strike.to_json())
    outcomes = [first] if whole.has_first_strike_step else []
    if not (whole.has_first_strike_step and first.game_over):
        state = whole.state_after(line.first_strike)
        outcomes.append(resolve(state, line.regular.to_json()))
    last = outcomes[-1]
    out = {}
    for p in scenario.players:
        dealt = sum(e.dealt for o in outcomes for e in o.events if e.recipient == p.id and e.source in attackers)
        assigned = line.first_strike.total_to(p.id) + line.regular.total_to(p.id)
        end = last.player(p.id)
        out[p.id] = {
            "life": p.life,
            "damage": dealt,
            "margin": dealt - p.life,
            "reached": any(o.player(p.id).loses for o in outcomes),
            "assigned": assigned,
            "life_after": end.life,
            "poison": end.poison,
            "commander_damage": dict(end.commander_damage),
            "because": end.to_json()["because"],
        }
    return out


def _canonical_division(combat: Combat) -> Assignment:
    """The defending side's lexicographically smallest legal assignment over the plan's columns: each blocker
    puts all its damage on its last route (510.1d: blockers' routes carry no gates)."""
    plan = combat.plan
    if any(r.gate is not None for s in plan.sources for r in s.routes):
        return next(iter(combat.assignments()))
    return Assignment({s.source: ({s.routes[-1].recipient: s.damage} if s.damage else {}) for s in plan.sources})
