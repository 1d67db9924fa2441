"""The objectives on boards with outcome effects (docs/effects.md): scored on what the damage *does*.

On a board where damage dealt can differ from damage assigned (prevention, protection, doubling), or has results
beyond marked damage and lost life (lifelink, infect, wither, toxic, commander damage), the objectives are read on
the step's outcome (:mod:`trample.outcome`):

- ``max-damage`` (``:ID``): damage *dealt* by the solved side's sources to every listed player (to ``ID``);
- ``lethal``: players who lose the game after the step's state-based actions (0 life after lifelink and
  prevention, 704.5a; 10 poison, 704.5c; 21 damage from one commander, 704.6c);
- ``max-kills`` / ``max-value``: creatures of the other side put into the graveyard by the step (704.5f/g/h, so
  -1/-1 counters count and protection saves), and planeswalkers that reach 0 loyalty (704.5i);
- ``min-overkill``: damage dealt beyond what each recipient needed (as on plain boards, on dealt damage).

Both sides' creatures deal their damage at once (510.2): the other side's assignment in the same step is read as
its player's best reply (the worst for the solved side, lexicographically), so that a lifelink blocker's life
gain always counts. The legal assignments are listed and scored one by one (exact; the time limit applies), and
the tie-break is the one of plain boards: the smallest vector of amounts over the plan's columns.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from ..limits import LimitReached, deadline_of
from ..models import Assignment, load_assignment
from ..outcome import Outcome, has_effects, overkill_threshold, resolve
from ..outcome import exact as _exact
from ..step import DamageStep
from .objectives import Objective, _combat_of, _number, parse_objectives
from .results import (
    STATUS_FEASIBLE,
    STATUS_INFEASIBLE,
    STATUS_OPTIMAL,
    STATUS_UNKNOWN,
    SolveResult,
    score_assigned,
)

OTHER_SIDE = {"attacking": "defending", "defending": "attacking", "both": None}


def step_values(step: DamageStep, assignment, objs, reply=None) -> tuple[dict, Outcome]:
    """The objectives' values of one assignment of the step (its side's keys), with ``reply`` (the other side's
    keys, or none) dealt at the same time; and the step's outcome."""
    s = step.scenario
    own = dict(assignment.to_json() if isinstance(assignment, Assignment) else assignment)
    full = {**own, **(reply.to_json() if isinstance(reply, Assignment) else (reply or {}))}
    outcome = resolve(s, full)
    dealt: dict[str, int] = {}
    for e in outcome.events:
        if e.source in own and e.dealt:
            dealt[e.recipient] = dealt.get(e.recipient, 0) + e.dealt
    died = set(outcome.gone)
    other = {"attacking": s.blockers, "defending": s.attackers, "both": (*s.attackers, *s.blockers)}[step.side]
    killable = [c.id for c in other if c.in_combat]
    walkers = [p.id for p in s.planeswalkers if p.in_combat]
    out = {}
    for o in objs:
        if o.kind == "max-damage":
            out[o.name] = dealt.get(o.target, 0) if o.target else sum(dealt.get(p.id, 0) for p in s.players)
        elif o.kind == "lethal":
            out[o.name] = len(outcome.losers)  # (player, rule) pairs
        elif o.kind == "max-kills":
            out[o.name] = sum(1 for c in killable if c in died)
        elif o.kind == "max-value":
            q = sum((_exact(getattr(s[c], "value", 1)) for c in killable if c in died), Fraction(0))
            q += sum((_exact(s[p].value) for p in walkers if p in died), Fraction(0))
            out[o.name] = _number(q)
        elif o.kind == "min-overkill":
            out[o.name] = sum(max(0, n - overkill_threshold(s, r, r in outcome.deathtouched)) for r, n in dealt.items())
        else:  # pragma: no cover - parse_objectives knows every kind
            raise ValueError(o.kind)
    return out, outcome


def _oriented(values: dict, objs) -> tuple:
    return tuple(Fraction(values[o.name]) * (1 if o.maximize else -1) for o in objs)


def _vector(step: DamageStep, assignment: Assignment) -> tuple[int, ...]:
    plan = step.plan
    return tuple(assignment.amount(plan.sources[i].source, r) for i, r in plan.columns)


def _replies(step: DamageStep, deadline) -> list[Assignment | None]:
    side = OTHER_SIDE[step.side]
    if side is None:
        return [None]
    other = DamageStep(step.scenario, side=side, engine=step.engine)
    return list(other.assignments(time_limit=deadline)) or [None]


def evaluate(step: DamageStep, assignment, objs, replies) -> Any:
    """(oriented key, values, outcome, reply) of one assignment against the other side's worst reply."""
    worst = None
    for reply in replies:
        values, outcome = step_values(step, assignment, objs, reply)
        key = _oriented(values, objs)
        if worst is None or key < worst[0]:
            worst = (key, values, outcome, reply)
    return worst


def banded(step: DamageStep) -> tuple[int, ...]:
    """Sources of the solved side whose damage the other player divides (banding, 702.22j/k)."""
    return tuple(i for i, s in enumerate(step.plan.sources) if s.assigns and s.chooser != "controller")


def solve_by_outcome(step: DamageStep, objs, time_limit=None, tie_break: bool = True) -> SolveResult:
    """The best assignment of the step for lexicographic ``objs``, scored on the outcome (see the module).

    Banding (702.22j/k): the damage of a source the other player divides is that player's choice, made against
    the solved side: the assignments are grouped by what the solved side chooses (the other sources' amounts), a
    group is worth its worst member, and the best group's worst member is returned."""
    start = time.perf_counter()
    deadline = deadline_of(time_limit)
    best = None
    stopped = False
    theirs = set(banded(step))
    plan = step.plan
    mine = [k for k, (i, _) in enumerate(plan.columns) if i not in theirs]
    groups: dict[tuple, tuple] = {}
    try:
        replies = _replies(step, deadline)
        for assignment in step.assignments(time_limit=deadline):
            key, values, outcome, reply = evaluate(step, assignment, objs, replies)
            vec = _vector(step, assignment)
            if theirs:  # the other player picks the worst member of each group (its smallest vector on ties)
                g = tuple(vec[k] for k in mine)
                if g not in groups or key < groups[g][0] or (key == groups[g][0] and vec < groups[g][1]):
                    groups[g] = (key, vec, values, outcome, assignment, reply)
                continue
            if best is None or key > best[0] or (tie_break and key == best[0] and vec < best[1]):
                best = (key, vec, values, outcome, assignment, reply)
    except LimitReached:
        stopped = True
    for cand in groups.values():
        if best is None or cand[0] > best[0] or (tie_break and cand[0] == best[0] and cand[1] < best[1]):
            best = cand
    elapsed = (time.perf_counter() - start) * 1000
    if best is None:
        return SolveResult(STATUS_UNKNOWN if stopped else STATUS_INFEASIBLE, None, {}, None, elapsed, 0)
    _, _, values, outcome, assignment, _ = best
    lethal = None
    if any(o.kind == "lethal" for o in objs):
        lethal = lethal_report(step, assignment, outcome, None if stopped else _best_losses(step, replies, deadline))
    status = STATUS_FEASIBLE if stopped else STATUS_OPTIMAL
    return SolveResult(status, assignment, values, lethal, elapsed, 0)


def _best_losses(step: DamageStep, replies, deadline) -> dict[str, bool] | None:
    """Per player: can some assignment of the step make them lose, whatever the reply?"""
    out = {p.id: False for p in step.scenario.players}
    try:
        for assignment in step.assignments(time_limit=deadline):
            worst_losers = None
            for reply in replies:
                _, outcome = step_values(step, assignment, (), reply)
                losers = {p for p, _ in outcome.losers}
                worst_losers = losers if worst_losers is None else worst_losers & losers
            for p in worst_losers or ():
                out[p] = True
    except LimitReached:
        return None
    return out


def lethal_report(step: DamageStep, assignment, outcome, reachable: dict | None) -> dict:
    """Per listed player: the chosen line's damage dealt by the solved side, life, poison and commander damage
    after the step, whether they lose and why (704.5a life, 704.5c poison, 704.6c commander damage)."""
    own = assignment.to_json()
    out = {}
    for p in step.scenario.players:
        after = outcome.player(p.id)
        dealt = sum(e.dealt for e in outcome.events if e.recipient == p.id and e.source in own)
        assigned = sum(split.get(p.id, 0) for split in own.values())
        report = {
            "life": p.life,
            "damage": dealt,
            "margin": dealt - p.life,
            "reached": bool(after.loses),
            "assigned": assigned,
            "life_after": after.life,
            "poison": after.poison,
            "commander_damage": dict(after.commander_damage),
            "because": after.to_json()["because"],
        }
        if reachable is not None:
            report["reachable"] = reachable[p.id]
        out[p.id] = report
    return out


def score_by_outcome(step: DamageStep, assignment, objs, time_limit=None) -> dict:
    """The objectives' values of one assignment, against the other side's worst reply."""
    replies = _replies(step, deadline_of(time_limit))
    return evaluate(step, assignment, objs, replies)[1]


def score(combat, assignment, objectives) -> dict:
    """The objectives' values for one given (legal) assignment, evaluated directly, without a solver: on damage
    assigned (:func:`~trample.optimize.results.score_assigned`), or on the outcome on boards with effects."""
    step = _combat_of(combat)
    if not has_effects(step.scenario):
        return score_assigned(step, assignment, objectives)
    objs = parse_objectives(objectives, step.scenario)
    if not isinstance(assignment, Assignment):
        assignment = load_assignment(assignment, step.scenario)
    return score_by_outcome(step, assignment, objs)


def all_optimal_by_outcome(step: DamageStep, objs, time_limit=None) -> list[Assignment]:
    """Every assignment whose outcome value equals the optimum, in the engine's order."""
    deadline = deadline_of(time_limit)
    replies = _replies(step, deadline)
    scored = [(evaluate(step, a, objs, replies)[0], a) for a in step.assignments(time_limit=deadline)]
    if not scored:
        return []
    top = max(k for k, _ in scored)
    return [a for k, a in scored if k == top]


def outcome_of(combat, assignment, objectives="lethal", time_limit=None) -> Outcome:
    """What one assignment of the step does, as the solver reads it (:mod:`trample.outcome`): its outcome with the
    other side's damage dealt at the same time (510.2). When ``assignment`` holds keys of the other side's sources
    (``--side both``, or a reply given), it is resolved as given; otherwise the other side's damage is its player's
    best reply for ``objectives`` (the worst for the solved side, as :func:`score` and :func:`solve_by_outcome`
    read it). On boards without effects the other side's damage changes no objective and none is dealt.

    Every reader of "what happens" -- the arena's lethal verdict, the environments' rewards, the pictures --
    reads this, so they agree with the solver's values and lethal report."""
    step = _combat_of(combat)
    if not isinstance(assignment, Assignment):
        assignment = load_assignment(assignment, step.scenario)
    own = {s.source for s in step.plan.sources}
    given = any(k not in own and step.scenario.get(k) is not None for k in assignment)
    if given or step.side == "both" or not has_effects(step.scenario):
        return resolve(step.scenario, assignment)
    objs = parse_objectives(objectives, step.scenario)
    return evaluate(step, assignment, objs, _replies(step, deadline_of(time_limit)))[2]


def losers_of(combat, assignment, objectives="lethal", time_limit=None) -> frozenset[str]:
    """The players who lose the game after the step (704.5a, 704.5c, 704.6c): :func:`outcome`'s losers."""
    return frozenset(p for p, _ in outcome_of(combat, assignment, objectives, time_limit).losers)


__all__ = [
    "outcome_of",
    "losers_of",
    "solve_by_outcome",
    "score_by_outcome",
    "score",
    "all_optimal_by_outcome",
    "step_values",
    "Objective",
]
