"""What one given assignment of the step does and is worth, for every reader: :func:`outcome_of` (the arena's
lethal verdict, the environments' rewards, the pictures), :func:`score` and :func:`losers_of`. On boards with
effects (docs/effects.md) the other side's damage in the same step (510.2) is its player's best reply, the worst
for the solved side, read as :func:`trample.optimize.solve` reads it: among the representatives of the reply's
groups (:func:`trample.optimize.effects.reply_groups`: each group's first reply, or on long listings the
undominated profiles' first replies) wherever the two players' parts separate, so that a reader's worst line is
the solver's and needs no listing of every reply; else over every reply listed
(:func:`trample.optimize.listing.evaluate`)."""

from __future__ import annotations

from ..limits import deadline_of
from ..models import Assignment, Creature, Keyword, ObjectiveKind, ObjectKind, Side, load_assignment
from ..outcome import Outcome, changes_players, has_effects, plain_after, resolve, tally
from ..step import DamageStep
from . import effects
from .listing import evaluate, other_side_step
from .objectives import damage_step_of, parse_objectives
from .results import score_assigned


def score_by_outcome(step: DamageStep, assignment, objs, time_limit=None) -> dict:
    """The objectives' values of one assignment: the solved player divides their part of the other side's
    damage at best, the other player the rest at worst (:func:`evaluate`)."""
    replies = effects.worst_candidates(step, deadline_of(time_limit))
    return evaluate(step, assignment, objs, replies)[1]


def score(combat, assignment, objectives) -> dict:
    """The objectives' values for one given (legal) assignment, evaluated directly, without a solver: on damage
    assigned (:func:`~trample.optimize.results.score_assigned`), or on the outcome on boards with effects."""
    step = damage_step_of(combat)
    if not has_effects(step.scenario):
        return score_assigned(step, assignment, objectives)
    objs = parse_objectives(objectives, step.scenario)
    if not isinstance(assignment, Assignment):
        assignment = load_assignment(assignment, step.scenario)
    return score_by_outcome(step, assignment, objs)


def outcome_of(combat, assignment, objectives="lethal", time_limit=None) -> Outcome:
    """What one assignment of the step does, as the solver reads it (:mod:`trample.outcome`): its outcome with the
    other side's damage dealt at the same time (510.2). When ``assignment`` holds keys of the other side's sources
    (``--side both``, or a reply given), it is resolved as given; otherwise the other side's damage is its player's
    best reply for ``objectives`` (the worst for the solved side, as :func:`score` and :func:`solve_by_outcome`
    read it). On boards without effects the other side's damage changes no objective and none is dealt.

    Every reader of "what happens" -- the arena's lethal verdict, the environments' rewards, the pictures --
    reads this, so they agree with the solver's values and lethal report."""
    step = damage_step_of(combat)
    if not isinstance(assignment, Assignment):
        assignment = load_assignment(assignment, step.scenario)
    sc = step.scenario
    if step.side == Side.BOTH or not has_effects(sc):
        return resolve(sc, assignment)
    # the step's own sources (every attacker or blocker: derive lists each), read off the board rather than the
    # plan, which this reader does not otherwise need (deriving it was most of a plain board's cost)
    own = {c.id for c in (sc.attackers if step.side == Side.ATTACKING else sc.blockers)}
    if any(k not in own and sc.get(k) is not None for k in assignment):  # a reply given: resolved as given
        return resolve(sc, assignment)
    objs = parse_objectives(objectives, step.scenario)
    lethal_only = all(o.kind == ObjectiveKind.LETHAL for o in objs)
    if lethal_only and "_worst_candidates" not in step.__dict__ and not _reply_reaches_players(step):
        # no reply can change a player (the test below, for every reply at once): the first reply listed, without
        # listing the others
        other = other_side_step(step)
        first = None if other is None else next(iter(other.assignments(time_limit=deadline_of(time_limit))), None)
        return resolve(sc, {**assignment.to_json(), **(first.to_json() if first is not None else {})})
    replies = effects.worst_candidates(step, deadline_of(time_limit))
    if len(replies) == 1 or (
        lethal_only and not any(r is not None and changes_players(sc, r.to_json()) for r in replies)
    ):
        # one reply (evaluate's one part is its line), or who loses does not depend on the reply (no reply's damage
        # reaches a player or gains life): every reply is worth the same, and evaluate returns the first listed
        # (ties: the first reply, the first part)
        first = replies[0]
        return resolve(sc, {**assignment.to_json(), **(first.to_json() if first is not None else {})})
    return evaluate(step, assignment, objs, replies)[2]


def _reply_reaches_players(step: DamageStep) -> bool:
    """Could some reply (an assignment of the other side's step) :func:`~trample.outcome.changes_players`? Only if
    one of its plan's columns goes to a player or one of its sources has lifelink (702.15b): when neither, no reply
    does, whatever the effects on the board make of its damage."""
    other = other_side_step(step)
    if other is None:
        return False
    plan, sc = other.plan, step.scenario
    if any(sc.kind(r) is ObjectKind.PLAYER for _, r in plan.columns):
        return True
    return any(isinstance(c := sc.get(s.source), Creature) and c.has(Keyword.LIFELINK) for s in plan.sources)


def losers_of(combat, assignment, objectives="lethal", time_limit=None) -> frozenset[str]:
    """The players who lose the game after the step (704.5a, 704.5c, 704.6c): :func:`outcome`'s losers (on a
    plain board, :func:`trample.outcome.plain_after`'s: the same losers without the hits and events)."""
    step = damage_step_of(combat)
    sc = step.scenario
    if not has_effects(sc):  # outcome_of resolves the assignment as given; damage dealt is damage assigned
        given = assignment if isinstance(assignment, Assignment) else load_assignment(assignment, sc)
        totals, touched = tally(given, {c.id for c in (*sc.attackers, *sc.blockers) if c.has(Keyword.DEATHTOUCH)})
        totals = {r: n for r, n in totals.items() if r in sc}  # resolve's hits: recipients of the board
        return frozenset(p for p, _ in plain_after(sc, totals, touched)[1])
    return frozenset(p for p, _ in outcome_of(step, assignment, objectives, time_limit).losers)


__all__ = ["outcome_of", "losers_of", "score", "score_by_outcome"]
